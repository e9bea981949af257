/* translate.c — ATen FX program → ONNX model: per-node dispatch to the op registry's lowerings (see translate.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/interrupt.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "onnx/onnx_edit.h"
#include "onnx/onnx_infer.h"
#include "tables/aten_schemas.h"
#include "translate/translate.h"
#include "translate/translate_internal.h"
#include "translate/translate_meta.h"

/* ---- per-node dispatch ---- */

/* The first plain Tensor argument of schema text (for the example lowering), "self" if none. */
static const char *first_tensor_arg(tx *t, const char *text)
{
    diag_sink quiet;
    diag_init(&quiet);
    aten_schema sc;
    const char *name = "self";
    if (aten_schema_parse(&t->a, text, &sc, &quiet, (diag_loc){ 0 }))
        for (size_t i = 0; i < sc.nargs; i++)
            if (sc.args[i].base == ATY_TENSOR && !sc.args[i].is_list) {
                name = sc.args[i].name;
                break;
            }
    diag_free(&quiet);
    return name;
}

/* No rule for target: an error at the node, and a hint with torch's schema of the op (or what
 * torch has under that name) and the YAML that adds a lowering. */
static void no_lowering(tx *t, const fx_node *n, const char *target)
{
    t->failed = true;
    const char *short_t = !strncmp(target, "torch.ops.", 10) ? target + 10 : target;
    diagnostic *dg = diag_error(t->d, (diag_loc){t->p->file, 0, 0}, "No ONNX lowering for %s (node %%%s)", target, n->name);
    const char *op = strchr(short_t, '.');
    op = op ? op + 1 : short_t;
    int oplen = (int)strcspn(op, ".");
    bool aten = !strncmp(short_t, "aten.", 5);
    const char *schema = aten ? aten_schemas_lookup(target, NULL) : NULL;
    strbuf h;
    sb_init(&h);
    if (schema) {
        sb_printf(&h, "torch's schema: %s\n", schema);
    } else if (aten) {
        char *name = arena_strndup(&t->a, op, (size_t)oplen);
        const char *ov[8];
        size_t n_ov = aten_schemas_overloads(name, ov, 8, NULL);
        if (n_ov == 0) {
            sb_printf(&h, "torch has no ATen operator named '%s' (a custom op needs its own namespace)\n", name);
        } else {
            sb_printf(&h, "torch has no overload %s; its overloads of %s:\n", short_t, name);
            for (size_t i = 0; i < n_ov && i < 8; i++) sb_printf(&h, "    %s\n", ov[i]);
            if (n_ov > 8) sb_printf(&h, "    ... %zu more\n", n_ov - 8);
        }
    }
    /* a target torch does not have needs a schema of its own, named as the target is */
    const char *ov = op[oplen] == '.' && strcmp(op + oplen + 1, "default") ? op + oplen : "";
    const char *sch = schema ? schema + 6 : arena_printf(&t->a, "%.*s%s(Tensor self) -> Tensor", oplen, op, ov);
    const char *param = schema ? first_tensor_arg(t, sch) : "self";
    /* a template, not a lowering: its body names no ONNX operator, so `ops load` refuses it at its
     * line until the ops that compute the result replace it (a plausible body, Identity say,
     * would load and make the model silently wrong); a target torch has takes torch's schema */
    sb_printf(&h,
              "add a lowering with `ops load FILE`, a YAML file like the one below, with FILL_IN replaced by the "
              "ONNX ops that compute the result (until then `ops load` refuses it):\n"
              "    opset: 18\n"
              "    rules:\n"
              "      - target: %s%s\n",
              short_t, aten && !strchr(short_t + 5, '.') ? ".default" : "");
    if (!schema) sb_printf(&h, "        schema: %s\n", sch);
    sb_printf(&h, "        lowering: '%.*s (%s) => (result) { result = FILL_IN (%s) }'", oplen, op, param, param);
    diag_set_hint(dg, "%s", h.s);
    sb_free(&h);
}

static bool translate_rule(tx *t, const fx_node *n, const op_rule *rule);

static bool translate_getitem(tx *t, const fx_node *n)
{
    const fx_arg *a = n->args;
    if (a->u.seq.len != 2 || a->u.seq.items[0]->kind != FX_ARG_NODE || a->u.seq.items[1]->kind != FX_ARG_INT) {
        tx_fail_node(t, n, "getitem needs a node and a constant index");
        return false;
    }
    const tx_val *src = tx_lookup_val(t, a->u.seq.items[0]->u.node);
    int64_t i = a->u.seq.items[1]->u.i;
    if (!src) { tx_fail_node(t, n, "getitem of a value that was not translated"); return false; }
    if (src->seq && src->n == 1) {
        /* an element of a sequence: torchlib's aten_getitem when the tables have it */
        const op_rule *rule = ops_lookup(t->reg, "operator.getitem", t->opset);
        if (rule) return translate_rule(t, n, rule);
        const char *idx = tx_const_scalar(t, OT_INT64, 0, i, false);
        const char *out = tx_one_output(t, n);
        tx_emit2(t, "SequenceAt", src->names[0], idx, out, tx_node_name_of(t, n));
        return true;
    }
    if (i < 0) i += (int64_t)src->n;
    if (i < 0 || (size_t)i >= src->n) { tx_fail_node(t, n, "getitem index out of range"); return false; }
    tx_set_val(t, n, &src->names[i], 1);
    return true;
}

static bool translate_call(tx *t, const fx_node *n)
{
    const char *target = n->target ? n->target : "";
    if (!strcmp(target, "operator.getitem") || !strcmp(target, "<built-in function getitem>"))
        return translate_getitem(t, n);
    /* An in-place op whose result nobody reads only acts through aliasing (a view of another
     * value): ONNX has no aliasing, so translating it would silently drop the write. */
    const char *ov = strrchr(target, '.');
    if (ov && ov > target && ov[-1] == '_' && n->n_users == 0 && !strncmp(target, "torch.ops.aten.", 15)) {
        t->failed = true;
        diagnostic *dg = diag_error(t->d, (diag_loc){t->p->file, 0, 0},
                                    "in-place %s (node %%%s) writes through a view; ONNX has no aliasing", target, n->name);
        diag_set_hint(dg, "run the decompose stage first: functionalization turns it into *_scatter ops");
        return false;
    }
    const op_rule *rule = ops_lookup(t->reg, target, t->opset);
    if (!rule) { no_lowering(t, n, target); return false; }
    return translate_rule(t, n, rule);
}

/* An alternative written for complex tensors (`when: dtype(x) == complex`): torchlib's complex=True
 * functions, which work on the real form torch.onnx gives complex values (a last dim of 2). */
static bool takes_complex(const lowering *lw)
{
    for (size_t i = 0; i < lw->nwhen; i++)
        if (lw->when[i].kind == COND_DTYPE && !lw->when[i].negate && lw->when[i].op == COP_EQ &&
            lw->when[i].sval && !strcmp(lw->when[i].sval, "complex"))
            return true;
    return false;
}

/* A complex tensor argument of a lowering that is not written for complex values: torch.onnx's
 * dispatcher finds no function for it either, and the real lowering would give other numbers. */
static bool refuse_complex(tx *t, const fx_node *n, const op_rule *rule, const lowering *lw, const arg_info *info)
{
    if (takes_complex(lw)) return false;
    for (size_t i = 0; i < rule->schema.nargs; i++)
        if (info[i].kind == ARGK_TENSOR && info[i].dtype && strstr(info[i].dtype, "complex")) {
            tx_fail_node(t, n, arena_printf(&t->a, "argument %s is a %s tensor and the rule at %s:%d has no complex "
                                               "lowering (torchlib's complex functions work on the real form, a last dim of 2)",
                                               rule->schema.args[i].name, info[i].dtype, rule->file, rule->line));
            return true;
        }
    return false;
}

/* n by rule: arguments bound to its schema, the alternative whose conditions hold. */
static bool translate_rule(tx *t, const fx_node *n, const op_rule *rule)
{
    const fx_arg **bound = NULL;
    const lowering *lw = rule->nalts ? &rule->alts[0] : NULL;
    if (rule->has_schema) {
        bound = arena_alloc(&t->a, (rule->schema.nargs + 1) * sizeof *bound);
        if (!tx_bind_args(t, n, &rule->schema, bound)) return false;
        arg_info *info = arena_alloc(&t->a, (rule->schema.nargs + 1) * sizeof *info);
        for (size_t i = 0; i < rule->schema.nargs; i++) info[i] = tx_info_of(bound[i]);
        lw = ops_select(rule, info);
        if (lw && refuse_complex(t, n, rule, lw, info)) return false;
    }
    if (!lw) {
        /* name what the alternatives need, so that the user sees which argument rules it out */
        strbuf need;
        sb_init(&need);
        for (size_t i = 0; i < rule->nalts; i++)
            if (rule->alts[i].when_text)
                sb_printf(&need, "%s`%s`", need.len ? ", " : "", rule->alts[i].when_text);
        tx_fail_node(t, n, arena_printf(&t->a, "no alternative of the rule at %s:%d applies to these arguments%s%s",
                                           rule->file, rule->line, need.len ? "; the alternatives need " : "",
                                           need.len ? need.s : ""));
        sb_free(&need);
        return false;
    }
    if (lw->refuse) {   /* no ONNX form that agrees with torch: say why rather than export it */
        tx_fail_node(t, n, lw->refuse);
        return false;
    }
    if (lw->builtin) {
        const tx_builtin_entry *e = tx_find_builtin(lw->builtin);
        int need = e ? e->nargs : 0;
        if (!e) {
            tx_fail_node(t, n, arena_printf(&t->a, "builtin lowering '%s' is not implemented yet", lw->builtin));
            return false;
        }
        if (need >= 0 && (!rule->has_schema || rule->schema.nargs < (size_t)need)) {
            tx_fail_node(t, n, arena_printf(&t->a, "builtin '%s' needs a schema with at least %d arguments (rule at %s:%d)",
                                               lw->builtin, need, rule->file, rule->line));
            return false;
        }
        return e->fn(t, n, rule, bound);
    }
    if (lw->function) return tx_run_function(t, n, rule, lw, bound);
    return tx_run_lowering(t, n, rule, lw, bound);
}

/* An op returning a tuple: its value meta says so, or (without meta) only getitems read it. */
static bool is_multi_output(const fx_node *n)
{
    const fx_value *v = tx_node_val(n);
    if (v) return v->kind == FX_VAL_TUPLE;
    for (size_t u = 0; u < n->n_users; u++)
        if (!n->users[u]->target || strcmp(n->users[u]->target, "operator.getitem")) return false;
    return n->n_users > 0;
}

/* Translates every call_function node of g into the current scope. */
bool tx_translate_graph(tx *t, const fx_graph *g)
{
    for (const fx_node *n = g->first; n && !t->failed; n = n->next) {
        if (interrupt_pending()) {
            t->failed = true;
            return false;
        }
        switch (n->op) {
        case FX_OP_CALL_FUNCTION: {
            /* subgraphs (cond branches, loop bodies) are translated inside their node's call */
            const fx_node *outer = t->cur;
            translate_provenance outer_pv = t->cur_pv;
            bool outer_ready = t->cur_pv_ready;
            Onnx__NodeProto *outer_main = t->cur_main;
            t->cur = n;
            t->cur_pv_ready = false;
            t->cur_main = NULL;
            bool ok = translate_call(t, n);
            /* The exporter names a multi-output op's values <n>__<i> and its node after the last
             * of them it produces (node_cond__1 for both of cond's; node_..__0 for a MaxPool
             * whose indices a later node adjusts into result 1) before getitem renames them. */
            const tx_val *tv = ok ? tx_lookup_val(t, n) : NULL;
            if (ok && t->cur_main && is_multi_output(n) && !(tv && tv->seq) && t->cur_main->n_output) {
                size_t last = t->cur_main->n_output - 1;
                if (tv) {
                    /* the highest result index among the node's outputs, when it has any */
                    bool found = false;
                    for (size_t k = tv->n; k-- > 0 && !found;)
                        for (size_t j = 0; j < t->cur_main->n_output && !found; j++)
                            if (tv->names[k] && !strcmp(tv->names[k], t->cur_main->output[j])) {
                                last = k;
                                found = true;
                            }
                }
                t->cur_main->name = ox_strdup(t->m, arena_printf(&t->a, "node_%s__%zu", n->name, last));
            }
            t->cur = outer;
            t->cur_pv = outer_pv;
            t->cur_pv_ready = outer_ready;
            t->cur_main = outer_main;
            if (!ok) return false;
            break;
        }
        case FX_OP_CALL_METHOD: case FX_OP_CALL_MODULE:
            tx_fail_node(t, n, "call_method/call_module must be exported to ATen first (run `export`)");
            return false;
        default: break;   /* placeholders: bound by the caller; get_attr: subgraphs; output: caller */
        }
    }
    return !t->failed;
}

/* ---- program ---- */

/* Graph outputs carry their type: drop their duplicate value_info entries, in subgraphs too
 * (the exporter lists only a graph's intermediate values there). */
static void drop_output_value_info(Onnx__GraphProto *g)
{
    hashmap outset;
    hm_init(&outset);
    for (size_t j = 0; j < g->n_output; j++) hm_put(&outset, g->output[j]->name, (void *)1);
    size_t w = 0;
    for (size_t i = 0; i < g->n_value_info; i++)
        if (!hm_has(&outset, g->value_info[i]->name)) g->value_info[w++] = g->value_info[i];
    g->n_value_info = w;
    hm_free(&outset);
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t a = 0; a < g->node[i]->n_attribute; a++) {
            Onnx__AttributeProto *at = g->node[i]->attribute[a];
            if (at->g) drop_output_value_info(at->g);
            for (size_t k = 0; k < at->n_graphs; k++) drop_output_value_info(at->graphs[k]);
        }
}

static bool is_graph_input(const Onnx__GraphProto *g, const char *name)
{
    for (size_t i = 0; i < g->n_input; i++)
        if (g->input[i]->name && !strcmp(g->input[i]->name, name))
            return true;
    return false;
}

void translate_options_init(translate_options *o)
{
    memset(o, 0, sizeof *o);
    o->opset = 20;
    o->value_info = true;
    o->export_params = true;
}

/* The graph inputs: user inputs first, then parameters/buffers/constants, as torch orders them;
 * weights with data become initializers. Records every name in *inputs. */
static void translate_inputs(tx *t, const translate_options *opts, hashmap *inputs)
{
    const fx_program *p = t->p;
    ox_model *m = t->m;
    const fx_graph *g = fx_program_graph(p);
    /* the signature's inputs are O(n) to scan per placeholder; index them first */
    hashmap specs;
    hm_init(&specs);
    for (size_t i = 0; i < p->sig.n_inputs; i++) hm_put(&specs, p->sig.inputs[i].name, &p->sig.inputs[i]);
    for (int pass = 0; pass < 2; pass++)
    for (const fx_node *n = g ? g->first : NULL; n && !t->failed; n = n->next) {
        if (n->op != FX_OP_PLACEHOLDER) continue;
        const fx_input_spec *sp = hm_get(&specs, n->name);
        bool user = !sp || sp->kind == FX_IN_USER_INPUT;
        if (user != (pass == 0)) continue;
        if (!user && n->n_users == 0) continue;   /* torch drops unused weights (num_batches_tracked) */
        const char *name = user || !sp->target ? n->name : sp->target;
        const char *vn = tx_unique_name(t, name);
        const fx_weight *w = !user && sp->target ? fx_program_weight(p, sp->target) : NULL;
        Onnx__TypeProto *ty = tx_type_of_value(t, tx_node_val(n));
        Onnx__ValueInfoProto *vi = NULL;
        if (w && w->data && opts->export_params) {
            int et = fx_dtype_get(w->dtype)->onnx_type;
            Onnx__TensorProto *tp = ox_tensor_new(m, vn, et, w->shape, w->rank);
            if (w->map)   /* no copy: the model shares the mapping (or block) the weight is in */
                ox_tensor_set_view(m, tp, w->data, w->nbytes, w->map);
            else
                ox_tensor_set_raw(m, tp, w->data, w->nbytes);
            ox_graph_add_initializer(m, m->proto->graph, tp);
            if (opts->keep_initializers_as_inputs)
                vi = ox_graph_add_input(m, m->proto->graph, vn, ty ? ty : ox_type_tensor(m, 0, NULL, 0, false));
            else if (ty && t->value_info)
                vi = ox_graph_add_value_info(m, m->proto->graph, vn, ty);
        } else {
            if (sp && sp->kind == FX_IN_TOKEN) continue;
            vi = ox_graph_add_input(m, m->proto->graph, vn, ty ? ty : ox_type_tensor(m, 0, NULL, 0, false));
        }
        if (vi) translate_input_metadata(m, vi, sp, n->name);
        hm_put(inputs, vn, (void *)1);
        tx_set_val(t, n, &vn, 1);
    }
    hm_free(&specs);
}

/* The graph outputs: the user outputs of the output node (None ones dropped: torch.onnx's outputs
 * are the flattened tensors); a value that no node produces here (an input, or an output given
 * twice) goes through an Identity, as torch.onnx does. */
static void translate_outputs(tx *t, const hashmap *inputs)
{
    const fx_program *p = t->p;
    ox_model *m = t->m;
    const fx_graph *g = fx_program_graph(p);
    const fx_node *outn = g ? g->last : NULL;
    while (outn && outn->op != FX_OP_OUTPUT) outn = outn->prev;
    if (t->failed || !outn || !outn->args->u.seq.len)
        return;
    const fx_arg *items = outn->args->u.seq.items[0];
    size_t k = items->kind == FX_ARG_TUPLE || items->kind == FX_ARG_LIST ? items->u.seq.len : 1;
    hashmap seen;
    hm_init(&seen);
    for (size_t i = 0; i < k && !t->failed; i++) {
        const fx_arg *it = items->kind == FX_ARG_TUPLE || items->kind == FX_ARG_LIST ? items->u.seq.items[i] : items;
        if (p->sig.present && i < p->sig.n_outputs && p->sig.outputs[i].kind != FX_OUT_USER_OUTPUT) continue;
        if (it->kind == FX_ARG_NONE) continue;   /* a None output is no ONNX output, as torch.onnx flattens it */
        if (it->kind != FX_ARG_NODE) {
            tx_fail_node(t, outn, "only tensor outputs can be exported");
            break;
        }
        const char *v = tx_single(t, outn, it->u.node);
        if (!v) break;
        bool is_input = hm_has(inputs, v);   /* inputs holds the names before renames */
        v = tx_renamed(t, v);
        if (is_input && !hm_has(&seen, v) && is_graph_input(m->proto->graph, v)) {
            /* a graph input returned as it is: torch.onnx renames the input <name>_orig and
             * gives the output the name through an Identity */
            const char *orig = tx_unique_name(t, arena_printf(&t->a, "%s_orig", v));
            ox_rename_value(m, v, orig);
            tx_emit1(t, "Identity", orig, v, NULL);
        } else if (is_input || hm_has(&seen, v)) {   /* an output must be produced by a node */
            v = tx_emit1(t, "Identity", v, tx_unique_name(t, arena_printf(&t->a, "%s_out", it->u.node->name)), NULL);
        }
        hm_put(&seen, v, (void *)1);
        Onnx__TypeProto *ty = tx_type_of_value(t, tx_node_val(it->u.node));
        translate_output_metadata(m, ox_graph_add_output(m, m->proto->graph, v, ty ? ty : ox_type_tensor(m, 0, NULL, 0, false)),
                                  FX_OUT_USER_OUTPUT);
    }
    hm_free(&seen);
    drop_output_value_info(m->proto->graph);
}

ox_model *translate_program(const fx_program *p, const translate_options *opts, diag_sink *d)
{
    translate_options def;
    if (!opts) { translate_options_init(&def); opts = &def; }
    ops_registry own;
    const ops_registry *reg = opts->registry;
    if (!reg) {
        translate_registry_init(&own);
        if (!ops_load_default(&own, d)) { ops_registry_free(&own); return NULL; }
        reg = &own;
    }
    const fx_graph *g = fx_program_graph(p);
    if (opts->opset > 0 && opts->opset < 18) {
        diagnostic *dg = diag_error(d, (diag_loc){p->file, 0, 0}, "opset %d is below 18, the lowest opset of the op tables",
                                    opts->opset);
        diag_set_hint(dg, "torch.onnx's dynamo exporter starts at opset 18 too");
        if (!opts->registry) ops_registry_free(&own);
        return NULL;
    }
    if (!g) {
        diag_error(d, (diag_loc){p->file, 0, 0}, "the program has no graph to translate");
        if (!opts->registry) ops_registry_free(&own);
        return NULL;
    }
    ox_model *m = ox_model_new(10);
    ox_model_set_opset(m, "", opts->opset > 0 ? opts->opset : 20);
    m->proto->producer_name = ox_strdup(m, opts->producer_name ? opts->producer_name : "fxsh");
    m->proto->producer_version = ox_strdup(m, PACKAGE_VERSION);
    m->proto->graph->name = ox_strdup(m, "main_graph");
    translate_graph_metadata(m, p);
    tx t = {.m = m, .p = p, .reg = reg, .opset = opts->opset > 0 ? opts->opset : 20, .d = d,
            .value_info = opts->value_info};
    arena_init(&t.a);
    hm_init(&t.used);
    hm_init(&t.suffix);
    hm_init(&t.fn_values);
    hm_init(&t.fn_nodes);
    hm_init(&t.fn_suffix);
    hm_init(&t.renames);
    scope root = {.g = m->proto->graph, .fxg = g};
    hm_init(&root.vals);
    hm_init(&root.consts);
    t.sc = &root;
    hashmap inputs;          /* graph inputs and initializers: outputs naming them need an Identity */
    hm_init(&inputs);

    translate_inputs(&t, opts, &inputs);
    if (!t.failed) tx_translate_graph(&t, g);
    if (!t.failed) tx_apply_renames(&t);
    translate_outputs(&t, &inputs);
    hm_free(&inputs);
    hm_free(&root.vals);
    hm_free(&root.consts);
    /* the values a lowering makes are typed as torch.onnx's builder types them: by ONNX's
     * inference, node by node (FX nodes' own outputs already carry their meta's type); the
     * values of inlined torchlib functions stay untyped, as torch's are */
    if (!t.failed) tx_complete_attributes(m, m->proto->graph, 0);
    if (!t.failed) tx_convert_version(&t);   /* torchlib's opset-18 nodes brought to the model's opset */
    if (opts->value_info && !t.failed) oi_type_graph_values_except(m, m->proto->graph, t.opset, &t.fn_values);
    hm_free(&t.used);
    hm_free(&t.suffix);
    hm_free(&t.fn_values);
    hm_free(&t.fn_nodes);
    hm_free(&t.fn_suffix);
    hm_free(&t.renames);
    arena_free(&t.a);
    if (!opts->registry) ops_registry_free(&own);
    if (t.failed) {
        ox_model_free(m);
        return NULL;
    }
    return m;
}
