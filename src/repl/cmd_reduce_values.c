/* cmd_reduce_values.c — `reduce MODEL REFERENCE`: the first value of MODEL that differs from the
 * REFERENCE's, and the fewest of MODEL's nodes that still compute it wrong from the reference's
 * values of what they read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "onnx/onnx_edit.h"
#include "view/onnx_compare.h"
#include "repl/cmd_reduce.h"

/* Every value a model computes once on its inputs (main graph and If branches), by name. */
typedef struct vt_entry {
    char *name;
    oe_tensor value;
} vt_entry;

typedef struct vtable {
    hashmap index;               /* name -> entry index + 1 */
    VEC(vt_entry) e;
} vtable;

static void vt_observe(void *ctx, const Onnx__NodeProto *n, const char *name, const oe_tensor *v, bool once)
{
    (void)n;
    vtable *t = ctx;
    if (!once || !name || !*name || hm_has(&t->index, name)) return;
    vt_entry e = {xstrdup(name), {0}};
    ot_tensor_copy(&e.value, v);
    vec_push(&t->e, e);
    hm_put(&t->index, t->e.items[t->e.len - 1].name, (void *)(uintptr_t)t->e.len);
}

static const oe_tensor *vt_get(const vtable *t, const char *name)
{
    uintptr_t i = (uintptr_t)hm_get(&t->index, name);
    return i ? &t->e.items[i - 1].value : NULL;
}

static void vt_free(vtable *t)
{
    for (size_t i = 0; i < t->e.len; i++) {
        free(t->e.items[i].name);
        ot_tensor_free(&t->e.items[i].value);
    }
    vec_free(&t->e);
    hm_free(&t->index);
}

/* Evaluates m on its inputs, recording every value. -1 after reporting. */
static int vt_fill(session *s, const ox_model *m, const char *label, const run_input_set *in, vtable *t)
{
    hm_init(&t->index);
    size_t nout = m->proto->graph->n_output;
    oe_tensor *outs = xcalloc(nout + 1, sizeof *outs);
    oe_model_opts mo = {.observe = vt_observe, .observe_ctx = t};
    diag_sink d;
    diag_init(&d);
    int rc = oe_eval_model(m, in->named, in->n, outs, &mo, &d) == OE_OK ? 0 : -1;
    for (size_t i = 0; i < d.len; i++) session_error(s, "reduce: in %s: %s", label, d.items[i].message);
    diag_free(&d);
    if (!rc)
        for (size_t i = 0; i < nout; i++) ot_tensor_free(&outs[i]);
    free(outs);
    return rc;
}

typedef struct vctx {
    const ox_model *m;
    const vtable *mine, *ref;
    const run_input_set *in;     /* the model's own inputs */
    const char *target;
    const oe_tensor *want;       /* the reference's value of the target */
    double atol, rtol;
} vctx;

/* A value that becomes an input takes the reference's dtype and shape; the target, which may
 * differ in shape, the model's own. */
static bool type_of(const char *name, void *vc, int32_t *et, const int64_t **dims, size_t *rank)
{
    vctx *c = vc;
    const oe_tensor *t = !strcmp(name, c->target) ? vt_get(c->mine, name) : vt_get(c->ref, name);
    if (!t) t = vt_get(c->mine, name);
    if (!t || t->kind != OE_KIND_TENSOR) return false;
    *et = t->dtype;
    *dims = t->dims;
    *rank = (size_t)t->rank;
    return true;
}

/* The values of a reduced model's inputs: the reference's for a cut value, else the run's. */
static size_t named_inputs(const ox_model *m, const vtable *ref, const run_input_set *in, oe_named *out)
{
    const Onnx__ValueInfoProto **vis;
    size_t n = oe_model_user_inputs(m, &vis), k = 0;
    for (size_t i = 0; i < n; i++) {
        const oe_tensor *v = NULL;
        for (size_t j = 0; j < in->n && !v; j++)
            if (!strcmp(in->named[j].name, vis[i]->name)) v = in->named[j].value;
        if (!v) v = vt_get(ref, vis[i]->name);
        if (v) out[k++] = (oe_named){vis[i]->name, v};
    }
    free(vis);
    return k;
}

static bool differs(const bool *keep, void *vc)
{
    vctx *c = vc;
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_extract(c->m, keep, &c->target, 1, type_of, c, &d);
    bool bad = false;
    if (m) {
        oe_named *named = xcalloc(m->proto->graph->n_input + 1, sizeof *named);
        size_t n = named_inputs(m, c->ref, c->in, named);
        oe_tensor out = {0};
        oe_model_opts mo = {0};
        if (oe_eval_model(m, named, n, &out, &mo, &d) == OE_OK) {
            oe_diff df = {0};
            view_diff_values(&out, c->want, c->atol, c->rtol, &df);
            bad = !view_diff_ok(&df);
            ot_tensor_free(&out);
        }
        free(named);
        ox_model_free(m);
    }
    diag_free(&d);
    return bad;
}

typedef struct name_read {
    const hashmap *producer;     /* value -> node index + 1 */
    VEC(size_t) preds;
} name_read;

static void add_pred(const char *name, void *ctx)
{
    name_read *nr = ctx;
    uintptr_t p = (uintptr_t)hm_get(nr->producer, name);
    if (p) vec_push(&nr->preds, (size_t)(p - 1));
}

/* The main-graph nodes of m that compute `target` from the values named in `cut` (and m's
 * inputs): keep[i] set for each. False when no node of m makes the target. */
static bool cone_of(const ox_model *m, const char *target, const hashmap *cut, bool *keep)
{
    const Onnx__GraphProto *g = m->proto->graph;
    hashmap producer;
    hm_init(&producer);
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_output; k++)
            if (*g->node[i]->output[k]) hm_put(&producer, g->node[i]->output[k], (void *)(uintptr_t)(i + 1));
    uintptr_t t = (uintptr_t)hm_get(&producer, target);
    if (t) keep[t - 1] = true;
    for (size_t i = g->n_node; t && i-- > 0;) {
        if (!keep[i]) continue;
        name_read nr = {&producer, {0}};
        ox_node_each_read(g->node[i], add_pred, &nr);
        for (size_t k = 0; k < nr.preds.len; k++) {
            const Onnx__NodeProto *p = g->node[nr.preds.items[k]];
            bool is_cut = false;
            for (size_t o = 0; o < p->n_output && !is_cut; o++) is_cut = hm_has(cut, p->output[o]);
            if (!is_cut) keep[nr.preds.items[k]] = true;
        }
        vec_free(&nr.preds);
    }
    hm_free(&producer);
    return t != 0;
}

struct fx_read_ctx {
    const hashmap *cut;
    bool *keep;
};

/* A node a kept node reads is kept; the walk down the graph then turns a cut value back into an
 * input (fx_extract makes a node read but not kept an input). */
static void fx_keep_read(fx_node *n, void *ctx)
{
    struct fx_read_ctx *fc = ctx;
    fc->keep[n->index] = true;
}

/* The FX nodes of stage `idx`'s program that compute `target` from the cut values: the torch form
 * of the reduced reference (node names are the ONNX values' names). NULL with a note otherwise. */
static fx_program *torch_form(session *s, int idx, const char *target, const hashmap *cut, char **note)
{
    strbuf sb;
    sb_init(&sb);
    if (idx < 0 || s->stages[idx].kind != PL_FX) {
        sb_puts(&sb, "no torch form: neither model is an FX stage (exported, decomposed)");
        *note = sb_detach(&sb);
        return NULL;
    }
    fx_program *p = s->stages[idx].fx;
    fx_graph *g = fx_program_graph(p);
    fx_graph_renumber(g);
    fx_node *t = fx_graph_lookup(g, target);
    if (!t) {
        sb_printf(&sb, "no torch form: the %s program has no node %%%s", s->stages[idx].name, target);
        *note = sb_detach(&sb);
        return NULL;
    }
    bool *keep = xcalloc(g->n_nodes + 1, sizeof *keep);
    keep[t->index] = true;
    fx_node **nodes = xcalloc(g->n_nodes + 1, sizeof *nodes);
    size_t n = 0;
    for (fx_node *x = g->first; x; x = x->next) nodes[n++] = x;
    /* down the graph from the target: a kept node's inputs are kept unless they are cut values */
    for (size_t i = n; i-- > 0;) {
        if (!keep[i] || nodes[i]->op == FX_OP_PLACEHOLDER) continue;
        if (i != t->index && hm_has(cut, nodes[i]->name) && fx_extract_cuttable(nodes[i])) {
            keep[i] = false;   /* an input of the reduced program */
            continue;
        }
        struct fx_read_ctx fc = {cut, keep};
        fx_arg_each_node(nodes[i]->args, fx_keep_read, &fc);
        fx_arg_each_node(nodes[i]->kwargs, fx_keep_read, &fc);
    }
    diag_sink d;
    diag_init(&d);
    fx_program *r = fx_extract(p, keep, &target, 1, &d);
    if (!r) sb_printf(&sb, "no torch form: %s", d.len ? d.items[0].message : "the nodes do not make a program");
    diag_free(&d);
    free(keep);
    free(nodes);
    if (!r) *note = sb_detach(&sb);
    else sb_free(&sb);
    return r;
}

int cmd_reduce_values(session *s, const run_opts *o, reduce_result *r)
{
    r->mode = "values";
    run_pair pr;
    vtable ta = {0}, tb = {0};
    oe_compare_result cr = {0};
    int rc = -1;
    if (run_pair_open(s, "reduce", o, &pr)) goto out;
    run_model_ref a = pr.a, b = pr.b;
    run_input_set in_a = pr.in_a, in_b = pr.in_b;
    if (vt_fill(s, a.m, a.label, &in_a, &ta) || vt_fill(s, b.m, b.label, &in_b, &tb)) goto out;
    oe_compare_opts co = {.atol = o->atol, .rtol = o->rtol};
    diag_sink d;
    diag_init(&d);
    int crc = view_compare_models(a.m, a.label, in_a.named, in_a.n, b.m, b.label, in_b.named, in_b.n, &co, &cr, &d);
    for (size_t i = 0; i < d.len; i++) session_error(s, "reduce: %s", d.items[i].message);
    diag_free(&d);
    if (crc != OE_OK) goto out;
    if (!cr.diverged) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "reduce: %s and %s agree (%zu values within atol %g, rtol %g): no "
                                    "divergence to reduce", a.label, b.label, cr.n_checked, o->atol, o->rtol);
        diag_set_hint(dg, cr.n_checked ? "reduce without arguments reduces a failing export" :
                      "values are matched by name (the FX node names both exporters use)");
        goto out;
    }
    const Onnx__GraphProto *g = a.m->proto->graph;
    hashmap producer;
    hm_init(&producer);
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_output; k++)
            if (*g->node[i]->output[k]) hm_put(&producer, g->node[i]->output[k], (void *)(uintptr_t)(i + 1));
    uintptr_t tix = (uintptr_t)hm_get(&producer, cr.name);
    if (!tix) {
        hm_free(&producer);
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "reduce: the first value that differs, %s, is made inside a "
                                    "subgraph of %s", cr.name, a.label);
        diag_set_hint(dg, "reduce works on the main graph's nodes; `compare %s %s` shows the node", a.label, b.label);
        goto out;
    }
    /* the DAG of the model's main graph; a node whose values the reference computes under the same
     * names can be cut (its values then come from the reference) */
    size_t n = g->n_node;
    size_t **preds = xcalloc(n + 1, sizeof *preds);
    size_t *n_preds = xcalloc(n + 1, sizeof *n_preds);
    bool *cuttable = xcalloc(n + 1, sizeof *cuttable);
    for (size_t i = 0; i < n; i++) {
        name_read nr = {&producer, {0}};
        ox_node_each_read(g->node[i], add_pred, &nr);
        preds[i] = nr.preds.items;
        n_preds[i] = nr.preds.len;
        bool ok = g->node[i]->n_output > 0;
        for (size_t k = 0; k < g->node[i]->n_output && ok; k++) {
            const oe_tensor *v = *g->node[i]->output[k] ? vt_get(&tb, g->node[i]->output[k]) : NULL;
            ok = !*g->node[i]->output[k] || (v && v->kind == OE_KIND_TENSOR);
        }
        cuttable[i] = ok;
    }
    hm_free(&producer);
    const char *target = cr.name;
    vctx c = {a.m, &ta, &tb, &in_a, target, vt_get(&tb, target), o->atol, o->rtol};
    ddmin_dag dag = {n, preds, n_preds, cuttable, tix - 1};
    bool *keep = xcalloc(n + 1, sizeof *keep);
    r->status = ddmin_run(&dag, differs, &c, 0, keep, &r->stats);
    r->stage = xstrdup(a.label);
    r->reference = xstrdup(b.label);
    r->target = xstrdup(target);
    r->what = "model";
    r->nodes_before = n;
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s differs from %s's: ", target, b.label);
    if (cr.diff.problem) sb_printf(&sb, "%s", !strcmp(cr.diff.problem, "shape") ? "the shapes differ" : cr.diff.problem);
    else sb_printf(&sb, "max abs diff %.3g, %lld of %lld elements beyond atol %g, rtol %g", cr.diff.max_abs,
                   (long long)cr.diff.bad, (long long)cr.diff.total, o->atol, o->rtol);
    r->failure = sb_detach(&sb);
    if (r->status == DDMIN_INTERRUPTED) {
        session_error(s, "reduce: interrupted");
    } else if (r->status == DDMIN_NO_FAILURE) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "reduce: %s's value is right when the nodes before it read "
                                    "%s's values", target, b.label);
        diag_set_hint(dg, "the difference comes from values only %s computes (temporaries the reference names otherwise)", a.label);
    } else {
        diag_sink dd;
        diag_init(&dd);
        r->model = ox_extract(a.m, keep, &target, 1, type_of, &c, &dd);
        for (size_t i = 0; i < dd.len; i++) session_error(s, "reduce: %s", dd.items[i].message);
        diag_free(&dd);
        if (r->model) {
            r->nodes_after = r->model->proto->graph->n_node;
            /* the cut values: the reduced model's inputs that are not the original model's */
            hashmap cut;
            hm_init(&cut);
            const Onnx__GraphProto *rg = r->model->proto->graph;
            for (size_t i = 0; i < rg->n_input; i++) {
                bool orig = false;
                for (size_t j = 0; j < in_a.n && !orig; j++) orig = !strcmp(in_a.named[j].name, rg->input[i]->name);
                if (!orig) hm_put(&cut, rg->input[i]->name, rg->input[i]->name);
            }
            /* the reference's nodes for the same value, from the same cut values */
            bool *keep_b = xcalloc(b.m->proto->graph->n_node + 1, sizeof *keep_b);
            vctx cb = {b.m, &tb, &tb, &in_b, target, c.want, o->atol, o->rtol};
            diag_init(&dd);
            if (cone_of(b.m, target, &cut, keep_b)) r->reference_model = ox_extract(b.m, keep_b, &target, 1, type_of, &cb, &dd);
            diag_free(&dd);
            free(keep_b);
            /* the torch form: the reference's program when it is an FX stage, else the model's;
             * a model of this session's onnx or optimized stage was translated from its decomposed
             * program (the values are named after its nodes), else from the exported one */
            int ib = session_stage_index(o->stages[1]), ia = o->stages[0] ? session_stage_index(o->stages[0]) : s->current;
            int tries[4] = {ib, ia, -1, -1};
            if (ia == PL_STAGE_ONNX || ia == PL_STAGE_OPTIMIZED) {
                tries[2] = PL_STAGE_DECOMPOSED;
                tries[3] = PL_STAGE_EXPORTED;
            }
            for (int k = 0; k < 4 && !r->program; k++) {
                if (tries[k] < 0 || (k && tries[k] == tries[k - 1])) continue;
                char *note = NULL;
                r->program = torch_form(s, tries[k], target, &cut, &note);
                r->has_ref_program = r->program && k == 0;
                if (r->program) r->program_stage = tries[k];
                if (!r->program_note) r->program_note = note;
                else free(note);
            }
            if (r->program) {
                free(r->program_note);
                r->program_note = NULL;
            } else if (!r->program_note) {
                r->program_note = xstrdup("no torch form: neither model comes from an FX stage of this session");
            }
            hm_free(&cut);
            /* the reproducer's values: both reduced models' inputs, and the reference's target */
            const ox_model *ms[2] = {r->model, r->reference_model};
            for (int k = 0; k < 2; k++) {
                if (!ms[k]) continue;
                oe_named *named = xcalloc(ms[k]->proto->graph->n_input + 1, sizeof *named);
                size_t nn = named_inputs(ms[k], &tb, k ? &in_b : &in_a, named);
                for (size_t i = 0; i < nn; i++) {
                    bool have = false;
                    for (size_t j = 0; j < r->inputs.len && !have; j++) have = !strcmp(r->inputs.items[j].name, named[i].name);
                    if (have) continue;
                    oe_tensor t;
                    ot_tensor_copy(&t, named[i].value);
                    view_values_add(&r->inputs, named[i].name, &t, OE_ROLE_INPUT);
                }
                free(named);
            }
            oe_tensor want;
            ot_tensor_copy(&want, c.want);
            view_values_add(&r->expected, target, &want, OE_ROLE_OUTPUT);
            sb_init(&sb);
            if (o->inputs) sb_printf(&sb, "the models' inputs from %s", o->inputs);
            else sb_printf(&sb, "the models' inputs random (seed %llu)", (unsigned long long)o->seed);
            sb_printf(&sb, ", each cut value %s's, computed by the evaluator from them", b.label);
            r->inputs_note = sb_detach(&sb);
            rc = 0;
        }
    }
    free(keep);
    for (size_t i = 0; i < n; i++) free(preds[i]);
    free(preds);
    free(n_preds);
    free(cuttable);
out:
    view_compare_result_free(&cr);
    vt_free(&ta);
    vt_free(&tb);
    run_pair_free(&pr);
    return rc;
}
