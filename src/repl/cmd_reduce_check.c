/* cmd_reduce_check.c — `reduce MODEL` of a model that `check` rejects: the fewest of its nodes
 * around the node the first problem names that the checker rejects the same way. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "onnx/onnx_check.h"
#include "onnx/onnx_edit.h"
#include "repl/cmd_reduce.h"

/* Where a problem names a main-graph node: "main_graph: node 3 (Relu): ...", "main_graph: node 3
 * ("node_relu_1", Relu): ..." or "graph 'g': node 3 (Relu): ...". The index and the span of its
 * digits; false when it names none. */
static bool node_index(const char *msg, const Onnx__GraphProto *g, size_t *index, size_t *at, size_t *len)
{
    for (const char *p = strstr(msg, "node "); p; p = strstr(p + 1, "node ")) {
        const char *d = p + 5, *e = d;
        while (isdigit((unsigned char)*e)) e++;
        if (e == d || strncmp(e, " (", 2) != 0) continue;
        /* the graph the problem is in comes first: the main graph's name, bare or quoted */
        size_t pre = (size_t)(p - msg);
        const char *gn = g->name ? g->name : "";
        bool main = (pre == strlen(gn) + 2 && !strncmp(msg, gn, strlen(gn))) ||
                    (pre == strlen(gn) + 10 && !strncmp(msg, "graph '", 7) && !strncmp(msg + 7, gn, strlen(gn)));
        if (!main) return false;
        size_t n = (size_t)strtoull(d, NULL, 10);
        const char *op = e + 2;
        if (*op == '"') {   /* a named node: node 3 ("node_relu_1", Relu) */
            const char *q = strchr(op + 1, '"');
            if (!q || strncmp(q, "\", ", 3) != 0) return false;
            op = q + 3;
        }
        if (n >= g->n_node || !g->node[n]->op_type || strncmp(op, g->node[n]->op_type, strlen(g->node[n]->op_type)) != 0)
            return false;
        *index = n;
        *at = (size_t)(d - msg);
        *len = (size_t)(e - d);
        return true;
    }
    return false;
}

typedef struct cctx {
    const ox_model *m;
    size_t target;
    const char *message;         /* the original problem */
    size_t at, len;              /* where its node index is */
    const char **outputs;
    size_t n_outputs;
} cctx;

static bool rejects_same(const bool *keep, void *vc)
{
    cctx *c = vc;
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_extract(c->m, keep, c->outputs, c->n_outputs, NULL, NULL, &d);
    bool same = false;
    if (m) {
        /* the same message with the target's index in the candidate */
        size_t k = 0;
        for (size_t i = 0; i < c->target; i++) k += keep[i];
        strbuf want;
        sb_init(&want);
        sb_printf(&want, "%.*s%zu%s", (int)c->at, c->message, k, c->message + c->at + c->len);
        diag_clear(&d);
        ox_check(m, &d);
        for (size_t i = 0; i < d.len && !same; i++)
            same = d.items[i].severity == DIAG_ERROR && !strcmp(d.items[i].message, want.s);
        sb_free(&want);
        ox_model_free(m);
    }
    diag_free(&d);
    return same;
}

static void add_pred(const char *name, void *ctx)
{
    void **pc = ctx;
    const hashmap *producer = pc[0];
    VEC(size_t) *preds = pc[1];
    uintptr_t p = (uintptr_t)hm_get(producer, name);
    if (p) vec_push(preds, (size_t)(p - 1));
}

int cmd_reduce_check(session *s, const run_opts *o, reduce_result *r)
{
    r->mode = "check";
    run_model_ref a = {0};
    if (run_model_resolve(s, "reduce", o->stages[0], &a)) return -1;
    diag_sink d;
    diag_init(&d);
    ox_check(a.m, &d);
    const diagnostic *e = reduce_first_error(&d, 0);
    const Onnx__GraphProto *g = a.m->proto->graph;
    size_t t = 0, at = 0, len = 0;
    int rc = -1;
    if (!e) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "reduce: %s passes `check`: no failure to reduce", a.label);
        diag_set_hint(dg, "a model whose values are wrong is reduced against a reference: reduce %s REFERENCE", a.label);
        goto out;
    }
    if (!node_index(e->message, g, &t, &at, &len)) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "reduce: the first problem `check` finds in %s names no node "
                                    "of its main graph: %s", a.label, e->message);
        diag_set_hint(dg, "reduce works on the main graph's nodes");
        goto out;
    }
    size_t n = g->n_node;
    hashmap producer;
    hm_init(&producer);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < g->node[i]->n_output; k++)
            if (*g->node[i]->output[k]) hm_put(&producer, g->node[i]->output[k], (void *)(uintptr_t)(i + 1));
    size_t **preds = xcalloc(n + 1, sizeof *preds);
    size_t *n_preds = xcalloc(n + 1, sizeof *n_preds);
    bool *cuttable = xcalloc(n + 1, sizeof *cuttable);
    for (size_t i = 0; i < n; i++) {
        VEC(size_t) pv = {0};
        void *pc[2] = {&producer, &pv};
        ox_node_each_read(g->node[i], add_pred, pc);
        preds[i] = pv.items;
        n_preds[i] = pv.len;
        cuttable[i] = true;   /* a value without a declared type fails to extract: that candidate passes */
    }
    hm_free(&producer);
    const char **outs = xcalloc(g->node[t]->n_output + 1, sizeof *outs);
    size_t n_outs = 0;
    for (size_t k = 0; k < g->node[t]->n_output; k++)
        if (*g->node[t]->output[k]) outs[n_outs++] = g->node[t]->output[k];
    cctx c = {a.m, t, e->message, at, len, outs, n_outs};
    ddmin_dag dag = {n, preds, n_preds, cuttable, t};
    bool *keep = xcalloc(n + 1, sizeof *keep);
    r->status = ddmin_run(&dag, rejects_same, &c, 0, keep, &r->stats);
    r->failure = xstrdup(e->message);
    r->stage = xstrdup(a.label);
    r->target = xstrdup(g->node[t]->name && *g->node[t]->name ? g->node[t]->name : g->node[t]->op_type);
    r->what = "model";
    r->nodes_before = n;
    r->program_note = xstrdup("no torch form: the model was given as ONNX");
    if (r->status == DDMIN_INTERRUPTED) {
        session_error(s, "reduce: interrupted");
    } else if (r->status == DDMIN_NO_FAILURE) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "reduce: the nodes %s needs do not fail `check` the same "
                                    "way on their own", r->target);
        diag_set_hint(dg, "the problem depends on more than the node's inputs (or their types are not declared)");
    } else {
        diag_sink dd;
        diag_init(&dd);
        r->model = ox_extract(a.m, keep, outs, n_outs, NULL, NULL, &dd);
        for (size_t i = 0; i < dd.len; i++) session_error(s, "reduce: %s", dd.items[i].message);
        diag_free(&dd);
        if (r->model) {
            r->nodes_after = r->model->proto->graph->n_node;
            r->inputs_note = xstrdup("none needed: `check` reads no values");
            rc = 0;
        }
    }
    free(keep);
    free(outs);
    for (size_t i = 0; i < n; i++) free(preds[i]);
    free(preds);
    free(n_preds);
    free(cuttable);
out:
    diag_free(&d);
    run_model_ref_free(&a);
    return rc;
}
