/* cmd_reduce_export.c — `reduce` of an export that fails: the program the failing stage reads,
 * cut down to the fewest nodes whose export fails at the same stage with the same error. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "eval/onnx_eval.h"
#include "fx/fx.h"
#include "fx/fx_build.h"
#include "onnx/onnx_edit.h"
#include "pipeline/pipeline.h"
#include "repl/cmd_reduce.h"

size_t reduce_fx_nodes(const struct fx_program *p)
{
    size_t n = 0;
    for (const fx_node *x = fx_program_graph(p)->first; x; x = x->next)
        n += x->op == FX_OP_CALL_FUNCTION || x->op == FX_OP_CALL_METHOD || x->op == FX_OP_CALL_MODULE;
    return n;
}

const diagnostic *reduce_first_error(const diag_sink *d, size_t from)
{
    for (size_t i = from; i < d->len; i++)
        if (d->items[i].severity == DIAG_ERROR) return &d->items[i];
    return NULL;
}

/* One export of a program outside the session: from the exported stage on, as `load
 * program.pt2` then `export` runs it (a decomposed program is decomposed again, which leaves it
 * as it is). The stages are the caller's to clear. */
typedef struct trial {
    pl_stage st[PL_N_STAGES];
    pl_export_result res;
    diag_sink diag;
    bool ok;
} trial;

static void trial_run(session *s, const export_settings *cfg, fx_program *p, trial *t)
{
    pl_stages_init(t->st);
    diag_init(&t->diag);
    pl_stage_set_fx(&t->st[PL_STAGE_EXPORTED], p, "reduce");
    pl_env env = {.diag = &t->diag, .ops = &s->ops};
    t->ok = pl_export(t->st, cfg, NULL, &env, &t->res);
}

static void trial_free(trial *t)
{
    for (int i = 0; i < PL_N_STAGES; i++) pl_stage_clear(&t->st[i]);
    diag_free(&t->diag);
}

typedef struct ectx {
    session *s;
    const export_settings *cfg;
    fx_program *prog;            /* the program the failing stage reads */
    fx_node **nodes;             /* its root graph, by index (the output excluded) */
    size_t n;
    int stage;                   /* the stage that fails */
    const char *message;         /* its first error */
    const char **outputs;        /* what a candidate returns: the target, or its getitems */
    size_t n_outputs;
    size_t *output_index;
    bool *scratch;
} ectx;

static fx_program *candidate(ectx *c, const bool *keep, diag_sink *d)
{
    memcpy(c->scratch, keep, c->n * sizeof *keep);
    for (size_t k = 0; k < c->n_outputs; k++) c->scratch[c->output_index[k]] = true;
    bool *full = xcalloc(c->n + 1, sizeof *full);   /* the output node's slot stays false */
    memcpy(full, c->scratch, c->n * sizeof *full);
    fx_program *p = fx_extract(c->prog, full, c->outputs, c->n_outputs, d);
    free(full);
    return p;
}

/* Whether the candidate's export fails at the same stage with the same first error. */
static bool fails_same(const bool *keep, void *vctx)
{
    ectx *c = vctx;
    diag_sink d;
    diag_init(&d);
    fx_program *p = candidate(c, keep, &d);
    diag_free(&d);
    if (!p) return false;
    trial t;
    trial_run(c->s, c->cfg, p, &t);
    const diagnostic *e = reduce_first_error(&t.diag, 0);
    bool same = !t.ok && t.res.failed_stage == c->stage && e && !strcmp(e->message, c->message);
    trial_free(&t);
    return same;
}

/* Whether module m's graph, or a graph of a module under it, has a node named name. */
static bool module_has(const fx_module *m, const char *name)
{
    if (m->graph && fx_graph_lookup(m->graph, name)) return true;
    for (const fx_module *c = m->first_child; c; c = c->next_sibling)
        if (module_has(c, name)) return true;
    return false;
}

/* The root-graph node a name stands for: the node itself, or, for a node of a subgraph (a cond
 * branch, a loop body), the call of the higher-order op that runs it (the user of the get_attr
 * that names the subgraph's module), which reduces with its subgraphs whole. */
static fx_node *root_node(fx_program *p, const char *name)
{
    fx_graph *g = fx_program_graph(p);
    fx_node *n = fx_graph_lookup(g, name);
    if (n) return n->op == FX_OP_OUTPUT ? NULL : n;
    for (const fx_module *c = p->root->first_child; c; c = c->next_sibling) {
        if (!module_has(c, name)) continue;
        for (fx_node *x = g->first; x; x = x->next)
            if (x->op == FX_OP_GET_ATTR && !strcmp(x->target, c->name) && x->n_users) return x->users[0];
    }
    return NULL;
}

/* The node an error names: the first %name in its message that is a node of p (see root_node). */
static fx_node *named_node(fx_program *p, const char *msg)
{
    for (const char *q = strchr(msg, '%'); q; q = strchr(q + 1, '%')) {
        const char *b = q + 1, *e = b;
        while (*e && (isalnum((unsigned char)*e) || *e == '_')) e++;
        if (e == b) continue;
        char *name = xstrndup(b, (size_t)(e - b));
        fx_node *n = root_node(p, name);
        free(name);
        if (n) return n;
    }
    return NULL;
}

typedef VEC(size_t) index_vec;
typedef VEC(const char *) name_vec;

static void collect_preds(fx_node *n, void *ctx)
{
    index_vec *v = ctx;
    vec_push(v, n->index);
}

/* Values for the reduced program's user inputs: the program's own inputs from --inputs or random
 * (as `run` makes them), and each cut value computed by the evaluator from them, through the
 * export of the nodes before it; when those do not export or evaluate, random values of its
 * dtype and shape (an export failure does not depend on them). -1 after reporting (an --inputs
 * file without the program's inputs). */
static int make_inputs(ectx *c, const run_opts *o, reduce_result *r)
{
    fx_graph *g = fx_program_graph(r->program);
    /* a model whose inputs are the reduced program's user inputs, typed by their meta, to make
     * values for them as `run` does */
    ox_model *shape = ox_model_new(8);
    ox_graph_new(shape, "inputs");
    name_vec cut;
    cut.items = NULL;
    cut.len = cut.cap = 0;
    for (size_t i = 0; i < r->program->sig.n_inputs; i++) {
        const fx_input_spec *sp = &r->program->sig.inputs[i];
        if (sp->kind != FX_IN_USER_INPUT) continue;
        fx_node *x = fx_graph_lookup(g, sp->name);
        const fx_value *v = x ? x->meta.val : NULL;
        if (!v || v->kind != FX_VAL_TENSOR) continue;
        int et = fx_dtype_get(v->dtype)->onnx_type;
        Onnx__TypeProto *tp = ox_type_tensor(shape, et, v->sizes, v->rank, true);
        ox_graph_add_input(shape, shape->proto->graph, sp->name, tp);
        fx_node *orig = fx_graph_lookup(fx_program_graph(c->prog), sp->name);
        if (orig && orig->op != FX_OP_PLACEHOLDER) vec_push(&cut, sp->name);
    }
    oe_values file = {0};
    int rc = o->inputs ? run_read_values(c->s, "reduce", o->inputs, &file) : 0;
    /* the original inputs first (a file names them), then the cut values are computed */
    ox_model *orig_shape = ox_model_new(8);
    ox_graph_new(orig_shape, "inputs");
    for (size_t i = 0; i < c->prog->sig.n_inputs; i++) {
        const fx_input_spec *sp = &c->prog->sig.inputs[i];
        fx_node *x = fx_graph_lookup(fx_program_graph(c->prog), sp->name);
        const fx_value *v = x ? x->meta.val : NULL;
        if (sp->kind != FX_IN_USER_INPUT || !v || v->kind != FX_VAL_TENSOR) continue;
        ox_graph_add_input(orig_shape, orig_shape->proto->graph, sp->name,
                           ox_type_tensor(orig_shape, fx_dtype_get(v->dtype)->onnx_type, v->sizes, v->rank, true));
    }
    run_input_set orig = {0};
    if (!rc) rc = run_make_inputs(c->s, "reduce", orig_shape, o->inputs ? &file : NULL, o->inputs, o->seed, &orig);
    /* the nodes before the cut: every ancestor of a cut value, none of the kept nodes */
    oe_tensor *computed = NULL;
    char **computed_names = NULL;
    size_t n_computed = 0, n_outputs = 0;
    const char *why = NULL;
    if (!rc && cut.len) {
        bool *pre = xcalloc(c->n + 1, sizeof *pre);
        for (size_t k = 0; k < cut.len; k++) pre[fx_graph_lookup(fx_program_graph(c->prog), cut.items[k])->index] = true;
        for (size_t i = c->n; i-- > 0;) {
            if (!pre[i]) continue;
            index_vec preds;
            preds.items = NULL;
            preds.len = preds.cap = 0;
            fx_arg_each_node(c->nodes[i]->args, collect_preds, &preds);
            fx_arg_each_node(c->nodes[i]->kwargs, collect_preds, &preds);
            for (size_t k = 0; k < preds.len; k++) pre[preds.items[k]] = true;
            vec_free(&preds);
        }
        diag_sink d;
        diag_init(&d);
        fx_program *prefix = fx_extract(c->prog, pre, cut.items, cut.len, &d);
        free(pre);
        trial t = {0};
        if (prefix) trial_run(c->s, c->cfg, prefix, &t);
        else why = "the nodes before them do not make a program";
        ox_model *pm = NULL;
        if (prefix && t.ok) pm = t.st[PL_STAGE_OPTIMIZED].onnx ? t.st[PL_STAGE_OPTIMIZED].onnx : t.st[PL_STAGE_ONNX].onnx;
        else if (prefix) why = "the nodes before them fail to export too";
        if (pm) {
            n_outputs = pm->proto->graph->n_output;
            computed = xcalloc(n_outputs + 1, sizeof *computed);
            oe_model_opts mo = {0};
            if (oe_eval_model(pm, orig.named, orig.n, computed, &mo, &d) == OE_OK) {
                /* by name: the graph's outputs are the cut values, named after their nodes */
                computed_names = xcalloc(n_outputs + 1, sizeof *computed_names);
                for (size_t k = 0; k < n_outputs; k++) computed_names[k] = xstrdup(pm->proto->graph->output[k]->name);
                n_computed = n_outputs;
            } else {   /* the evaluator freed what it had made */
                why = "the evaluator cannot run the nodes before them";
                n_outputs = 0;
            }
        }
        if (prefix) trial_free(&t);
        diag_free(&d);
    }
    /* the reduced inputs: the original ones as made, the cut ones computed (outputs in cut order) */
    run_input_set red = {0};
    if (!rc) {
        oe_values given = {0};
        run_inputs_as_values(&orig, &given);
        for (size_t k = 0; k < n_computed; k++) {
            oe_tensor t;
            ot_tensor_copy(&t, &computed[k]);
            view_values_add(&given, computed_names[k], &t, OE_ROLE_INPUT);
        }
        /* what is still missing (cut values nothing computed) is random, of its dtype and shape */
        for (size_t i = 0; i < shape->proto->graph->n_input; i++) {
            const char *nm = shape->proto->graph->input[i]->name;
            bool have = false;
            for (size_t k = 0; k < given.len && !have; k++) have = !strcmp(given.items[k].name, nm);
            if (!have) {
                run_input_set one = {0};
                ox_model *single = ox_model_new(8);
                ox_graph_new(single, "one");
                ox_graph_add_input(single, single->proto->graph, nm, shape->proto->graph->input[i]->type);
                if (!run_make_inputs(c->s, "reduce", single, NULL, NULL, o->seed + i + 1, &one)) {
                    oe_tensor t;
                    ot_tensor_copy(&t, &one.values[0]);
                    view_values_add(&given, nm, &t, OE_ROLE_INPUT);
                    run_inputs_free(&one);
                }
                ox_model_free(single);
            }
        }
        rc = run_make_inputs(c->s, "reduce", shape, &given, "the computed inputs", o->seed, &red);
        if (!rc) {
            run_inputs_as_values(&red, &r->inputs);
            run_inputs_free(&red);
        }
        view_values_free(&given);
    }
    strbuf note;
    sb_init(&note);
    if (o->inputs) sb_printf(&note, "the program's inputs from %s", o->inputs);
    else sb_printf(&note, "the program's inputs random (seed %llu)", (unsigned long long)o->seed);
    if (cut.len && n_computed) sb_printf(&note, ", the %zu cut value%s computed from them by the evaluator", cut.len, cut.len == 1 ? "" : "s");
    else if (cut.len) sb_printf(&note, ", the %zu cut value%s random: %s", cut.len, cut.len == 1 ? "" : "s", why ? why : "they could not be computed");
    r->inputs_note = sb_detach(&note);
    for (size_t k = 0; k < n_outputs && computed; k++) ot_tensor_free(&computed[k]);
    for (size_t k = 0; k < n_computed; k++) free(computed_names[k]);
    free(computed_names);
    free(computed);
    run_inputs_free(&orig);
    view_values_free(&file);
    vec_free(&cut);
    ox_model_free(orig_shape);
    ox_model_free(shape);
    return rc ? -1 : 0;
}

/* The pass that makes a stage, as torch.onnx's progress lines and `export`'s errors name it. */
static const char *pass_name(int stage)
{
    static const char *const names[PL_N_STAGES] = {"load", "export", "decompose", "translate", "optimize"};
    return stage >= 0 && stage < PL_N_STAGES ? names[stage] : "?";
}

int cmd_reduce_export(session *s, const run_opts *o, reduce_result *r)
{
    r->mode = "export";
    int first = pl_first_fx_stage(s->stages);
    if (first < 0 || first > PL_STAGE_EXPORTED) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "reduce: no FX program loaded");
        diag_set_hint(dg, "load a program whose export fails (`load model.pt2`), or give two models: reduce MODEL REFERENCE");
        return -1;
    }
    export_settings cfg;
    settings_copy(&cfg, &s->settings);
    /* the export replayed as it is, outside the session's stages */
    trial whole;
    pl_stages_init(whole.st);
    diag_init(&whole.diag);
    pl_stage_set_fx(&whole.st[first], fx_program_copy(s->stages[first].fx), "reduce");
    pl_env env = {.diag = &whole.diag, .ops = &s->ops};
    whole.ok = pl_export(whole.st, &cfg, NULL, &env, &whole.res);
    const diagnostic *err = reduce_first_error(&whole.diag, 0);
    int f = whole.res.failed_stage, rc = -1;
    ectx c = {.s = s, .cfg = &cfg};
    if (whole.ok) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "reduce: the export of the loaded program succeeds: no failure to reduce");
        diag_set_hint(dg, "a model whose values are wrong is reduced against a reference: reduce optimized exported");
        goto out;
    }
    if (!err || f <= PL_STAGE_EXPORTED) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "reduce: the export fails at capture (%s)",
                                    err ? err->message : "torch.export");
        diag_set_hint(dg, "reduce starts from the exported program: fix the capture first (`export` names the rewrite)");
        goto out;
    }
    c.prog = whole.st[f - 1].fx;
    c.stage = f;
    c.message = err->message;
    fx_graph *g = fx_program_graph(c.prog);
    fx_graph_renumber(g);
    fx_node *target = named_node(c.prog, err->message);
    if (!target) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "reduce: %s fails without naming a node of the %s program: %s",
                                    pass_name(f), pl_stage_name(f - 1), err->message);
        diag_set_hint(dg, "reduce needs the node a failure names (%%name in its message)");
        goto out;
    }
    /* the DAG of the root graph, the output node left out */
    c.n = g->n_nodes - (g->last && g->last->op == FX_OP_OUTPUT ? 1 : 0);
    c.nodes = xcalloc(c.n + 1, sizeof *c.nodes);
    size_t **preds = xcalloc(c.n + 1, sizeof *preds);
    size_t *n_preds = xcalloc(c.n + 1, sizeof *n_preds);
    bool *cuttable = xcalloc(c.n + 1, sizeof *cuttable);
    size_t i = 0;
    for (fx_node *x = g->first; x && i < c.n; x = x->next, i++) {
        c.nodes[i] = x;
        index_vec pv;
        pv.items = NULL;
        pv.len = pv.cap = 0;
        fx_arg_each_node(x->args, collect_preds, &pv);
        fx_arg_each_node(x->kwargs, collect_preds, &pv);
        preds[i] = pv.items;
        n_preds[i] = pv.len;
        cuttable[i] = fx_extract_cuttable(x);
    }
    /* a node of several values returns them through its getitems */
    c.outputs = xcalloc(target->n_users + 1, sizeof *c.outputs);
    c.output_index = xcalloc(target->n_users + 1, sizeof *c.output_index);
    for (size_t u = 0; u < target->n_users; u++)
            if (target->users[u]->op == FX_OP_CALL_FUNCTION && strstr(target->users[u]->target, "getitem")) {
                c.outputs[c.n_outputs] = target->users[u]->name;
                c.output_index[c.n_outputs++] = target->users[u]->index;
            }
    if (!c.n_outputs) {
        c.outputs[0] = target->name;
        c.output_index[0] = target->index;
        c.n_outputs = 1;
    }
    c.scratch = xcalloc(c.n + 1, sizeof *c.scratch);
    ddmin_dag dag = {c.n, preds, n_preds, cuttable, target->index};
    bool *keep = xcalloc(c.n + 1, sizeof *keep);
    r->status = ddmin_run(&dag, fails_same, &c, 0, keep, &r->stats);
    r->failure = xstrdup(err->message);
    r->stage = xstrdup(pass_name(f));
    r->target = xstrdup(target->name);
    r->what = f - 1 == PL_STAGE_DECOMPOSED ? "decomposed program" : "exported program";
    r->nodes_before = reduce_fx_nodes(c.prog);
    if (r->status == DDMIN_INTERRUPTED) {
        session_error(s, "reduce: interrupted");
    } else if (r->status == DDMIN_NO_FAILURE) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0},
                                    "reduce: the nodes %%%s needs do not fail the same way on their own", target->name);
        diag_set_hint(dg, "the failure depends on more than the node's inputs (e.g. the program's outputs); the whole "
                          "%s is the smallest reproducer", r->what);
    } else {
        diag_sink d;
        diag_init(&d);
        r->program = candidate(&c, keep, &d);
        for (size_t k = 0; k < d.len; k++) session_error(s, "reduce: %s", d.items[k].message);
        diag_free(&d);
        if (r->program) {
            r->nodes_after = reduce_fx_nodes(r->program);
            /* its ONNX form: what the stages before the failing one make of it */
            trial t;
            trial_run(s, &cfg, fx_program_copy(r->program), &t);
            if (f > PL_STAGE_ONNX && t.st[PL_STAGE_ONNX].onnx) {
                r->model = t.st[PL_STAGE_ONNX].onnx;
                t.st[PL_STAGE_ONNX].onnx = NULL;
                t.st[PL_STAGE_ONNX].kind = PL_EMPTY;
            } else {
                strbuf sb;
                sb_init(&sb);
                sb_printf(&sb, "no ONNX form: the export fails at %s", pass_name(f));
                r->model_note = sb_detach(&sb);
            }
            trial_free(&t);
            rc = make_inputs(&c, o, r);
        }
    }
    free(keep);
    for (size_t k = 0; k < c.n; k++) free(preds[k]);
    free(preds);
    free(n_preds);
    free(cuttable);
out:
    /* the reduced program borrows its weights from the replayed stages: the result keeps them */
    memcpy(r->held, whole.st, sizeof r->held);
    pl_stages_init(whole.st);
    free(c.nodes);
    free(c.outputs);
    free(c.output_index);
    free(c.scratch);
    trial_free(&whole);
    settings_free(&cfg);
    return rc;
}
