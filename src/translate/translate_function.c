/* translate_function.c — a `function:` lowering inlined as torch.onnx inlines torchlib's functions.
 *
 * torch.onnx records a call to a torchlib function that is not trace_only and inlines it (onnx_ir's
 * InlinePass): every node of the body is copied with its own node name and output names, each
 * made unique in the model by a suffix (_2, _3, ...) against the names already taken — the
 * graph's values (FX node names included, since the inliner runs on the whole graph) and what
 * earlier calls left; nodes of a subgraph attribute are named before the node that holds them.
 * The body's outputs then take the call's output names (the FX node's), after their own name
 * has taken its place among the used ones. Attribute references (@value) take the call's
 * attributes, which come from the bound schema arguments. The body's values get no value_info,
 * as torch's unoptimized graph has none for them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "translate/translate.h"
#include "translate/translate_internal.h"

typedef struct fn_inst {
    tx *t;
    const fx_node *n;
    const aten_schema *s;
    const lowering *lw;
    const fx_arg **bound;
    hashmap map;             /* body value name → model value name */
    hashmap results;         /* body output name → the FX node's output name */
    bool ok;
} fn_inst;

/* ---- unique names, as onnx_ir's inliner makes them ---- */

static bool value_taken(const tx *t, const char *name)
{
    if (hm_has(&t->used, name)) return true;
    for (const scope *s = t->sc; s; s = s->parent)
        if (s->fxg && hm_has(&s->fxg->names, name)) return true;
    return false;
}

/* name, else name_2, name_3, ... (the first free one; the last suffix tried is remembered per
 * base, which finds the same name since taken names are never freed). */
static const char *unique(tx *t, const char *name, bool node)
{
    const char *key = arena_printf(&t->a, "%c%s", node ? 'n' : 'v', name);
    int *k = hm_get(&t->fn_suffix, key);
    const char *c = name;
    if (!k) {
        if (node ? !hm_has(&t->fn_nodes, c) : !value_taken(t, c)) goto take;
        k = arena_alloc(&t->a, sizeof *k);
        *k = 1;
        hm_put(&t->fn_suffix, key, k);
    }
    do c = arena_printf(&t->a, "%s_%d", name, ++*k);
    while (node ? hm_has(&t->fn_nodes, c) : value_taken(t, c));
take:
    c = arena_strdup(&t->a, c);
    hm_put(node ? &t->fn_nodes : &t->used, c, (void *)1);
    if (!node) hm_put(&t->fn_values, c, (void *)1);
    return c;
}

/* ---- copying the body ---- */

static void *copy_message(tx *t, const ProtobufCMessage *msg)
{
    size_t len = protobuf_c_message_get_packed_size(msg);
    uint8_t *buf = xmalloc(len ? len : 1);
    protobuf_c_message_pack(msg, buf);
    void *r = protobuf_c_message_unpack(msg->descriptor, &t->m->alloc, len, buf);
    free(buf);
    return r;
}

static const char *mapped(fn_inst *f, const char *name)
{
    if (!name || !*name) return "";
    const char *v = hm_get(&f->map, name);
    return v ? v : name;
}

static void rename_node(fn_inst *f, Onnx__NodeProto *nd, int depth);
static bool ref_attribute(fn_inst *f, Onnx__NodeProto *nd, const Onnx__AttributeProto *a);

/* A subgraph node's attribute references bound, in place (the order kept). */
static void bind_refs(fn_inst *f, Onnx__NodeProto *nd)
{
    bool any = false;
    for (size_t i = 0; i < nd->n_attribute; i++) any |= nd->attribute[i]->ref_attr_name && *nd->attribute[i]->ref_attr_name;
    if (!any) return;
    Onnx__AttributeProto **old = nd->attribute;
    size_t n = nd->n_attribute;
    nd->attribute = NULL;
    nd->n_attribute = 0;
    for (size_t i = 0; i < n && f->ok; i++) {
        if (old[i]->ref_attr_name && *old[i]->ref_attr_name) f->ok = ref_attribute(f, nd, old[i]);
        else OX_PUSH(f->t->m, nd->attribute, nd->n_attribute, old[i]);
    }
}

/* A subgraph of the body: its inputs keep their names, its nodes are renamed. */
static void rename_graph(fn_inst *f, Onnx__GraphProto *g, int depth)
{
    for (size_t i = 0; i < g->n_input; i++)
        if (g->input[i]->name) hm_put(&f->map, g->input[i]->name, g->input[i]->name);
    for (size_t i = 0; i < g->n_node; i++) rename_node(f, g->node[i], depth + 1);
    for (size_t i = 0; i < g->n_output; i++)
        g->output[i]->name = ox_strdup(f->t->m, mapped(f, g->output[i]->name));
}

/* In onnx_ir's cloner order: inputs mapped, subgraphs (their nodes named first), then the
 * node's name and its outputs. */
static void rename_node(fn_inst *f, Onnx__NodeProto *nd, int depth)
{
    tx *t = f->t;
    if (depth > 16) { f->ok = false; return; }
    if (depth > 0) bind_refs(f, nd);
    for (size_t i = 0; i < nd->n_input; i++) nd->input[i] = ox_strdup(t->m, mapped(f, nd->input[i]));
    for (size_t i = 0; i < nd->n_attribute; i++) {
        Onnx__AttributeProto *a = nd->attribute[i];
        if (a->g) rename_graph(f, a->g, depth);
        for (size_t k = 0; k < a->n_graphs; k++) rename_graph(f, a->graphs[k], depth);
    }
    nd->name = ox_strdup(t->m, unique(t, nd->name && *nd->name ? nd->name : "node", true));
    for (size_t i = 0; i < nd->n_output; i++) {
        const char *o = nd->output[i];
        if (!o || !*o) continue;
        const char *u = unique(t, o, false);
        const char *r = hm_get(&f->results, o);
        hm_put(&f->map, o, (void *)(r ? r : u));
        nd->output[i] = ox_strdup(t->m, r ? r : u);
    }
}

/* The default the function declares for attribute name (<dim: int = -1>), or NULL. */
static const Onnx__AttributeProto *attr_default(const Onnx__FunctionProto *fp, const char *name)
{
    for (size_t i = 0; i < fp->n_attribute_proto; i++)
        if (fp->attribute_proto[i]->name && !strcmp(fp->attribute_proto[i]->name, name)) return fp->attribute_proto[i];
    return NULL;
}

/* The attribute @ref of the body's node: the bound schema argument it names, typed as the node
 * declares it. A None argument is an unset attribute: the function's default, else left out. */
static bool ref_attribute(fn_inst *f, Onnx__NodeProto *nd, const Onnx__AttributeProto *a)
{
    static const struct { Onnx__AttributeProto__AttributeType ty; low_attr_type lat; } types[] = {
        {ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, LAT_INT},
        {ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, LAT_FLOAT},
        {ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, LAT_STRING},
        {ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, LAT_INTS},
        {ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS, LAT_FLOATS},
    };
    for (size_t i = 0; i < f->lw->nfn_attrs; i++) {
        low_attr at = f->lw->fn_attrs[i];
        if (strcmp(at.name, a->ref_attr_name)) continue;
        const Onnx__AttributeProto *dflt = attr_default(f->lw->function, a->ref_attr_name);
        if (!at.ref_fn && at.ref_arg >= 0 && f->bound[at.ref_arg]->kind == FX_ARG_NONE && dflt) {
            Onnx__AttributeProto *c = copy_message(f->t, &dflt->base);
            c->name = ox_strdup(f->t->m, a->name);
            OX_PUSH(f->t->m, nd->attribute, nd->n_attribute, c);
            return true;
        }
        at.name = a->name;
        at.type = LAT_INFER;
        for (size_t k = 0; k < sizeof types / sizeof *types; k++)
            if (a->has_type && a->type == types[k].ty) at.type = types[k].lat;
        return tx_ref_attr(f->t, f->n, nd, &at, f->s, f->bound);
    }
    tx_fail_node(f->t, f->n, arena_printf(&f->t->a, "@%s is not an attribute of function %s", a->ref_attr_name,
                                          f->lw->fn_name));
    return false;
}

/* One node of the body, copied into the graph: literal attributes as they are, @refs bound. */
static void emit_node(fn_inst *f, const Onnx__NodeProto *src)
{
    tx *t = f->t;
    Onnx__NodeProto *nd = tx_emit(t, src->op_type, src->domain, src->name && *src->name ? src->name : "node");
    for (size_t i = 0; i < src->n_input; i++) ox_node_add_input(t->m, nd, src->input[i]);
    for (size_t i = 0; i < src->n_output; i++) ox_node_add_output(t->m, nd, src->output[i]);
    for (size_t i = 0; i < src->n_attribute && f->ok; i++) {
        const Onnx__AttributeProto *a = src->attribute[i];
        if (a->ref_attr_name && *a->ref_attr_name) f->ok = ref_attribute(f, nd, a);
        else OX_PUSH(t->m, nd->attribute, nd->n_attribute, (Onnx__AttributeProto *)copy_message(t, &a->base));
    }
    rename_node(f, nd, 0);
    if (!f->ok) tx_fail_node(t, f->n, arena_printf(&t->a, "function %s: subgraphs nested too deeply", f->lw->fn_name));
}

bool tx_run_function(tx *t, const fx_node *n, const op_rule *rule, const lowering *lw, const fx_arg **bound)
{
    fn_inst f = {.t = t, .n = n, .s = &rule->schema, .lw = lw, .bound = bound, .ok = true};
    hm_init(&f.map);
    hm_init(&f.results);
    int ref_dtype, float_ref;
    tx_scalar_ref_dtypes(n, lw, bound, &ref_dtype, &float_ref);
    /* the call's inputs: Python numbers and lists become constants in the graph, as torch.onnx's
     * recorder makes them before the call */
    for (size_t i = 0; i < lw->nparams && f.ok; i++) {
        int ai = lw->param_args[i];
        int dt = bound[ai]->kind == FX_ARG_FLOAT && !tx_is_float_type(ref_dtype) ? float_ref : ref_dtype;
        namevec v = {0};
        const aten_arg *sa = &f.s->args[ai];
        f.ok = tx_arg_inputs(t, n, sa, bound[ai], dt, &v);
        if (f.ok && sa->is_list && sa->base == ATY_TENSOR && bound[ai]->kind != FX_ARG_NODE) {
            /* a list of tensors is one sequence input of the function */
            Onnx__NodeProto *sc = tx_emit(t, "SequenceConstruct", "", NULL);
            for (size_t k = 0; k < v.len; k++) ox_node_add_input(t->m, sc, v.items[k]);
            const char *seq = tx_fresh_val(t);
            ox_node_add_output(t->m, sc, seq);
            v.len = 0;
            vec_push(&v, seq);
        }
        if (f.ok && v.len != 1) {
            tx_fail_node(t, n, arena_printf(&t->a, "argument '%s' gives %zu values, an input of function %s takes one",
                                            lw->params[i], v.len, lw->fn_name));
            f.ok = false;
        }
        if (f.ok) hm_put(&f.map, lw->params[i], (void *)v.items[0]);
        vec_free(&v);
    }
    size_t nres = lw->nresults;
    bool seq_result = f.s->nrets == 1 && f.s->rets[0].is_list;
    const char **res = nres && f.ok ? tx_output_names_ex(t, n, nres, !seq_result) : NULL;
    for (size_t i = 0; res && i < nres; i++) hm_put(&f.results, lw->results[i], (void *)res[i]);
    const Onnx__FunctionProto *fp = lw->function;
    for (size_t k = 0; k < fp->n_node && f.ok; k++) emit_node(&f, fp->node[k]);
    for (size_t i = 0; i < nres && f.ok; i++)
        if (strcmp(mapped(&f, lw->results[i]), res[i])) {   /* an output that is an input of the body */
            tx_fail_node(t, n, arena_printf(&t->a, "function %s returns its input '%s' unchanged", lw->fn_name,
                                            lw->results[i]));
            f.ok = false;
        }
    hm_free(&f.map);
    hm_free(&f.results);
    if (!f.ok) return false;
    if (seq_result) tx_set_val(t, n, res, nres)->seq = true;   /* torch types no list result */
    else tx_set_results(t, n, f.s, res, nres);
    return true;
}
