/* opt_dce.c — pass 3: dead nodes, initializers, functions and opset imports. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "optimize/optimize_internal.h"

/* ---- 3. dead code -------------------------------------------------------------------------- */

typedef struct dce_ctx {
    ox_model *m;
    const optimize_options *o;
    optimize_stats *st;
    diag_sink *d;
    int err;
} dce_ctx;

/* Removes dead nodes and unused initializers of g; adds every name g still uses to outer. */
static void dce_graph(dce_ctx *c, Onnx__GraphProto *g, hashmap *outer, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) opt_too_deep(c->d, c->o->max_depth);
        c->err = 1;
        /* Be conservative: treat everything below as used. */
        if (outer) opt_collect_names(g, outer, 0, 1 << 20);
        return;
    }
    hashmap used;
    hm_init(&used);
    opt_graph_outputs(g, &used);
    bool *dead = xcalloc(g->n_node + 1, 1);
    for (size_t i = g->n_node; i-- > 0;) {
        Onnx__NodeProto *n = g->node[i];
        bool live = false;
        for (size_t k = 0; k < n->n_output && !live; k++)
            live = *opt_str(n->output[k]) && hm_has(&used, n->output[k]);
        if (!live) {
            dead[i] = true;
            continue;
        }
        for (size_t k = 0; k < n->n_input; k++)
            if (*opt_str(n->input[k])) hm_put(&used, n->input[k], (void *)1);
        FOR_SUBGRAPHS(n, sg, dce_graph(c, sg, &used, depth + 1));
    }
    c->st->removed_nodes += (int64_t)opt_compact_nodes(g, dead);
    free(dead);
    hashmap inputs;
    hm_init(&inputs);
    opt_graph_inputs(g, &inputs);
    size_t k = 0;
    for (size_t i = 0; i < g->n_initializer; i++) {
        Onnx__TensorProto *t = g->initializer[i];
        if (!t->name || hm_has(&used, t->name) || hm_has(&inputs, t->name)) g->initializer[k++] = t;
        else c->st->removed_initializers++;
    }
    g->n_initializer = k;
    /* value_info for values no longer produced is dropped; initializers keep theirs (torch's
     * optimized models list them, with their signature metadata). */
    hashmap produced;
    hm_init(&produced);
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name) hm_put(&produced, opt_str(g->initializer[i]->name), (void *)1);
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t q = 0; q < g->node[i]->n_output; q++) hm_put(&produced, opt_str(g->node[i]->output[q]), (void *)1);
    k = 0;
    for (size_t i = 0; i < g->n_value_info; i++)
        if (hm_has(&produced, opt_str(g->value_info[i]->name))) g->value_info[k++] = g->value_info[i];
    g->n_value_info = k;
    hm_free(&produced);
    hm_free(&inputs);
    if (outer)
        for (size_t s = 0; s < used.cap; s++)
            if (used.slots[s].key) hm_put(outer, used.slots[s].key, (void *)1);
    hm_free(&used);
}

typedef struct dom_ctx {
    hashmap *domains;
    hashmap *fmap;    /* function key → index + 1 */
    bool *kept;
    VEC(size_t) work; /* functions found used but not yet scanned */
    arena *a;
} dom_ctx;

static void note_node(dom_ctx *dc, const Onnx__NodeProto *n)
{
    hm_put(dc->domains, opt_str(n->domain), (void *)1);
    if (opt_is_default_domain(n->domain)) return;
    uintptr_t fi = (uintptr_t)hm_get(dc->fmap, opt_func_key(dc->a, n->domain, n->op_type, n->overload));
    if (fi && !dc->kept[fi - 1]) {
        dc->kept[fi - 1] = true;
        vec_push(&dc->work, fi - 1);
    }
}

static int note_graph(Onnx__GraphProto *g, int depth, void *ctx)
{
    (void)depth;
    for (size_t i = 0; i < g->n_node; i++) note_node(ctx, g->node[i]);
    return 0;
}

/* Marks function f (and everything it calls, through its nodes and their subgraphs) used. */
static void note_function(dom_ctx *dc, const Onnx__FunctionProto *f, int max_depth)
{
    for (size_t i = 0; i < f->n_node; i++) {
        note_node(dc, f->node[i]);
        FOR_SUBGRAPHS(f->node[i], sg, ox_graph_walk(sg, max_depth, note_graph, dc));
    }
}

bool opt_remove_dead(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!st) st = &sb;
    Onnx__ModelProto *p = m->proto;
    if (!p->graph) return true;
    dce_ctx c = {.m = m, .o = o, .st = st, .d = d};
    dce_graph(&c, p->graph, NULL, 0);
    /* Functions reachable from the graph, transitively (a worklist: each is scanned once). */
    hashmap domains, fmap;
    hm_init(&domains);
    hm_init(&fmap);
    arena a;
    arena_init(&a);
    bool *kept = xcalloc(p->n_functions + 1, 1);
    for (size_t i = 0; i < p->n_functions; i++) {
        Onnx__FunctionProto *f = p->functions[i];
        hm_put(&fmap, opt_func_key(&a, f->domain, f->name, f->overload), (void *)(uintptr_t)(i + 1));
    }
    dom_ctx dc = {.domains = &domains, .fmap = &fmap, .kept = kept, .a = &a};
    ox_graph_walk(p->graph, o->max_depth, note_graph, &dc);
    while (dc.work.len) note_function(&dc, p->functions[dc.work.items[--dc.work.len]], o->max_depth);
    vec_free(&dc.work);
    size_t k = 0;
    for (size_t i = 0; i < p->n_functions; i++) {
        if (kept[i]) {
            p->functions[k++] = p->functions[i];
            hm_put(&domains, opt_str(p->functions[i]->domain), (void *)1);
        } else {
            st->removed_functions++;
        }
    }
    p->n_functions = k;
    k = 0;
    for (size_t i = 0; i < p->n_opset_import; i++) {
        const char *dom = opt_str(p->opset_import[i]->domain);
        if (opt_is_default_domain(dom) || hm_has(&domains, dom)) p->opset_import[k++] = p->opset_import[i];
    }
    p->n_opset_import = k;
    free(kept);
    hm_free(&domains);
    hm_free(&fmap);
    arena_free(&a);
    return !c.err;
}
