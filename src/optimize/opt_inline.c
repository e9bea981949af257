/* opt_inline.c — pass 1: inline calls of model-local functions (torchlib's) into the graph. */
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

/* ---- 1. inlining --------------------------------------------------------------------------- */

typedef struct inl_ctx {
    ox_model *m;
    const optimize_options *o;
    optimize_stats *st;
    diag_sink *d;
    hashmap funcs;    /* "domain\x1fname\x1foverload" → FunctionProto */
    hashmap taken;    /* every name in the model */
    hashmap active;   /* functions being expanded right now (recursion guard) */
    int64_t budget;   /* nodes inlining may still create */
    arena tmp;
    int err;
} inl_ctx;

/* Upper bound on nodes created by inlining, so that functions calling functions several times
 * over cannot blow up exponentially. */
#define OPT_INLINE_BUDGET ((int64_t)1 << 22)


/* Renames every name of a copied function body (inputs, outputs, inner definitions) and
 * substitutes attribute references; recursive into subgraphs. */
static void inl_subst(inl_ctx *c, Onnx__NodeProto *n, const hashmap *ren,
                      const Onnx__NodeProto *call, const Onnx__FunctionProto *f, int depth);

static void inl_subst_graph(inl_ctx *c, Onnx__GraphProto *g, const hashmap *ren,
                            const Onnx__NodeProto *call, const Onnx__FunctionProto *f, int depth)
{
    if (depth > c->o->max_depth) return;
    for (size_t i = 0; i < g->n_input; i++)
        g->input[i]->name = (char *)opt_resolve(ren, g->input[i]->name);
    for (size_t i = 0; i < g->n_output; i++)
        g->output[i]->name = (char *)opt_resolve(ren, g->output[i]->name);
    for (size_t i = 0; i < g->n_value_info; i++)
        g->value_info[i]->name = (char *)opt_resolve(ren, g->value_info[i]->name);
    for (size_t i = 0; i < g->n_initializer; i++)
        g->initializer[i]->name = (char *)opt_resolve(ren, g->initializer[i]->name);
    for (size_t i = 0; i < g->n_node; i++) inl_subst(c, g->node[i], ren, call, f, depth + 1);
}

static void inl_subst(inl_ctx *c, Onnx__NodeProto *n, const hashmap *ren,
                      const Onnx__NodeProto *call, const Onnx__FunctionProto *f, int depth)
{
    for (size_t k = 0; k < n->n_input; k++)
        if (*opt_str(n->input[k])) n->input[k] = (char *)opt_resolve(ren, n->input[k]);
    for (size_t k = 0; k < n->n_output; k++)
        if (*opt_str(n->output[k])) n->output[k] = (char *)opt_resolve(ren, n->output[k]);
    size_t w = 0;
    for (size_t j = 0; j < n->n_attribute; j++) {
        Onnx__AttributeProto *a = n->attribute[j];
        if (a->ref_attr_name && *a->ref_attr_name) {
            const Onnx__AttributeProto *v = ox_node_attr(call, a->ref_attr_name);
            for (size_t q = 0; !v && q < f->n_attribute_proto; q++)
                if (!strcmp(opt_str(f->attribute_proto[q]->name), a->ref_attr_name)) v = f->attribute_proto[q];
            if (!v) continue;   /* unset optional attribute: drop it */
            char *name = a->name;
            a = opt_attr_copy(c->m, v);
            a->name = name;
        }
        n->attribute[w++] = a;
        if (a->g) inl_subst_graph(c, a->g, ren, call, f, depth);
        for (size_t k = 0; k < a->n_graphs; k++) inl_subst_graph(c, a->graphs[k], ren, call, f, depth);
    }
    n->n_attribute = w;
}

typedef VEC(Onnx__NodeProto *) node_vec;

static void inl_graph(inl_ctx *c, Onnx__GraphProto *g, int depth);

/* Appends node n to out, expanding it if it calls a local function. */
static void inl_node(inl_ctx *c, Onnx__NodeProto *n, node_vec *out, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) opt_too_deep(c->d, c->o->max_depth);
        c->err = 1;
        vec_push(out, n);
        return;
    }
    FOR_SUBGRAPHS(n, sg, inl_graph(c, sg, depth + 1));
    const Onnx__FunctionProto *f =
        opt_is_default_domain(n->domain) ? NULL
                                     : hm_get(&c->funcs, opt_func_key(&c->tmp, n->domain, n->op_type, n->overload));
    if (!f) {
        vec_push(out, n);
        return;
    }
    const char *fkey = opt_func_key(&c->tmp, f->domain, f->name, f->overload);
    if (hm_has(&c->active, fkey) || c->budget < (int64_t)f->n_node) {
        if (!c->err && c->d) {
            diagnostic *dg = diag_error(c->d, (diag_loc){0}, hm_has(&c->active, fkey)
                                        ? "function '%s.%s' calls itself: it cannot be inlined"
                                        : "inlining '%s.%s' would create too many nodes",
                                        opt_str(f->domain), opt_str(f->name));
            diag_set_hint(dg, "the call is left in place");
        }
        c->err = 1;
        vec_push(out, n);
        return;
    }
    c->budget -= (int64_t)f->n_node;
    c->st->inlined++;
    /* Names inside the body get the call's name as a prefix so they stay unique. */
    const char *prefix = *opt_str(n->name) ? n->name : opt_str(f->name);
    hashmap ren;
    hm_init(&ren);
    for (size_t i = 0; i < f->n_input; i++)
        hm_put(&ren, f->input[i], i < n->n_input ? n->input[i] : "");
    for (size_t i = 0; i < f->n_output; i++)
        hm_put(&ren, f->output[i], i < n->n_output ? n->output[i] : "");
    node_vec body = {0};
    for (size_t i = 0; i < f->n_node; i++) {
        Onnx__NodeProto *b = opt_node_copy(c->m, f->node[i]);
        vec_push(&body, b);
        hashmap defs;
        hm_init(&defs);
        Onnx__GraphProto tmpg = ONNX__GRAPH_PROTO__INIT;
        tmpg.n_node = 1;
        tmpg.node = &body.items[body.len - 1];
        opt_collect_names(&tmpg, &defs, 0, c->o->max_depth);
        for (size_t s = 0; s < defs.cap; s++) {
            const char *nm = defs.slots[s].key;
            if (!nm || hm_has(&ren, nm)) continue;
            if (b->name && !strcmp(nm, b->name)) continue;
            hm_put(&ren, nm, opt_fresh_name(c->m, &c->taken, arena_printf(&c->tmp, "%s__%s", prefix, nm)));
        }
        hm_free(&defs);
        if (*opt_str(b->name)) b->name = opt_fresh_name(c->m, &c->taken, arena_printf(&c->tmp, "%s__%s", prefix, b->name));
    }
    for (size_t i = 0; i < body.len; i++) inl_subst(c, body.items[i], &ren, n, f, depth);
    hm_free(&ren);
    /* The body may call other functions, and its subgraphs may hold calls too. */
    hm_put(&c->active, fkey, (void *)1);
    for (size_t i = 0; i < body.len; i++) inl_node(c, body.items[i], out, depth + 1);
    hm_remove(&c->active, fkey);
    vec_free(&body);
}

static void inl_graph(inl_ctx *c, Onnx__GraphProto *g, int depth)
{
    node_vec out = {0};
    bool any = false;
    for (size_t i = 0; i < g->n_node; i++) {
        size_t before = c->st->inlined;
        inl_node(c, g->node[i], &out, depth);
        any |= c->st->inlined != before;
    }
    if (any) {
        g->node = ox_alloc(c->m, out.len * sizeof *g->node);
        memcpy(g->node, out.items, out.len * sizeof *g->node);
        g->n_node = out.len;
    }
    vec_free(&out);
}

bool opt_inline_functions(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!st) st = &sb;
    Onnx__ModelProto *p = m->proto;
    if (!p->graph || !p->n_functions) return true;
    inl_ctx c = {.m = m, .o = o, .st = st, .d = d, .budget = OPT_INLINE_BUDGET};
    hm_init(&c.funcs);
    hm_init(&c.taken);
    hm_init(&c.active);
    arena_init(&c.tmp);
    for (size_t i = 0; i < p->n_functions; i++) {
        Onnx__FunctionProto *f = p->functions[i];
        hm_put(&c.funcs, opt_func_key(&c.tmp, f->domain, f->name, f->overload), f);
    }
    opt_collect_names(p->graph, &c.taken, 0, o->max_depth);
    inl_graph(&c, p->graph, 0);
    /* Inlined bodies bring their own opset imports. */
    for (size_t i = 0; i < p->n_functions; i++)
        for (size_t k = 0; k < p->functions[i]->n_opset_import; k++) {
            Onnx__OperatorSetIdProto *op = p->functions[i]->opset_import[k];
            if (ox_model_opset(m, op->domain) < 0) ox_model_set_opset(m, op->domain, op->version);
        }
    hm_free(&c.funcs);
    hm_free(&c.taken);
    hm_free(&c.active);
    arena_free(&c.tmp);
    return !c.err;
}
