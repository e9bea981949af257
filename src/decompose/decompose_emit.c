/* decompose_emit.c — the decompose pass's tables and the graph it builds: tensors tracked for
 * functionalization, nodes emitted with the meta torch's fake tensors would give them. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/limits.h"
#include "capture/export.h"
#include "decompose/decomp_matmul.h"
#include "decompose/decompose.h"
#include "decompose/decompose_internal.h"
#include "decompose/functionalize.h"
#include "fx/fx_build.h"
#include "meta/meta_infer.h"
#include "meta/meta_layout.h"
#include "tables/pass_tables.h"
#include "tables/tables.h"

bool dc_load_rules(dctx *c)
{
    c->rs = dc_rules_shipped(c->d);
    c->meta = meta_rules_shipped(c->d);
    return c->rs && c->meta;
}

const char *dc_table_key(const char *target)
{
    return !strncmp(target, "torch.ops.", 10) ? target + 10 : target;
}

static fx_node *same_node(const fx_node *n, void *ctx)
{
    (void)ctx;
    return (fx_node *)n;
}

/* A fresh copy of an argument tree of the new graph (nodes stay shared). */
fx_arg *dc_dup(dctx *c, const fx_arg *a) { return fx_copy_arg(c->dst, a, same_node, NULL); }

void dc_fail(dctx *c) { c->failed = true; }

/* ---- tensors of the graph being built ------------------------------------------------------ */

void dc_track(dctx *c, fz_tensor *t) { hm_put(&c->by_node, t->value->name, t); }

fz_tensor *dc_tensor_of(dctx *c, fx_node *n)
{
    fz_tensor *t = hm_get(&c->by_node, n->name);
    if (!t) {
        t = fz_fresh(&c->fz, n);
        dc_track(c, t);
    }
    return t;
}

/* The current value of source node n: a stale tensor is synced first (torch syncs every
 * functional argument before running an op). */
fx_arg *dc_value_of(dctx *c, const fx_node *n)
{
    fz_tensor *t = hm_get(&c->tens, n->name);
    if (t) {
        if (!fz_sync(&c->fz, t)) {
            dc_fail(c);
            return fx_arg_none(c->dst);
        }
        dc_track(c, t);
        return fx_arg_node(c->dst, t->value);
    }
    fx_arg *v = hm_get(&c->vals, n->name);
    return v ? dc_dup(c, v) : fx_arg_none(c->dst);
}

static fx_node *map_src(const fx_node *n, void *ctx)
{
    fx_arg *a = dc_value_of(ctx, n);
    return a->kind == FX_ARG_NODE ? a->u.node : NULL;
}

/* Copies source argument tree a with node references replaced by their current values (which
 * may be non-nodes). */
fx_arg *dc_conv(dctx *c, const fx_arg *a)
{
    if (a->kind == FX_ARG_NODE)
        return dc_value_of(c, a->u.node);
    if (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE || a->kind == FX_ARG_DICT || a->kind == FX_ARG_SLICE) {
        size_t n = a->u.seq.len;
        fx_arg **items = fx_alloc(c->dst, (n ? n : 1) * sizeof *items);
        const char **keys = a->kind == FX_ARG_DICT ? fx_alloc(c->dst, (n ? n : 1) * sizeof *keys) : NULL;
        for (size_t i = 0; i < n; i++) {
            items[i] = dc_conv(c, a->u.seq.items[i]);
            if (keys)   /* the new program must not point into the source's arena */
                keys[i] = fx_strdup(c->dst, a->u.seq.keys[i]);
        }
        return fx_arg_seq(c->dst, a->kind, items, keys, n);
    }
    return fx_copy_arg(c->dst, a, map_src, c);
}

const fx_value *dc_meta_of(const fx_arg *a)
{
    /* a list of tensors answers for its first element (hstack, cat) */
    if (a && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE) && a->u.seq.len)
        a = a->u.seq.items[0];
    if (!a || a->kind != FX_ARG_NODE)
        return NULL;
    const fx_value *v = a->u.node->meta.val;
    return v && v->kind == FX_VAL_TENSOR ? v : NULL;
}

bool dc_is_none(const fx_arg *a) { return !a || a->kind == FX_ARG_NONE; }

/* ---- emission ------------------------------------------------------------------------------ */

fx_node *dc_emit(dctx *c, const char *target, fx_arg **args, size_t na, const char **kn, fx_arg **kv,
                     size_t nk, const char *name)
{
    char base[96];
    if (!name)
        name = fx_node_base_name(target, base, sizeof base);
    fx_node *n = fx_node_new(c->g, fx_namer_name(&c->nm, name), FX_OP_CALL_FUNCTION, target);
    fx_graph_append(c->g, n);
    fx_node_set_args(n, fx_arg_seq(c->dst, FX_ARG_TUPLE, args, NULL, na),
                     fx_arg_seq(c->dst, FX_ARG_DICT, kv, kn, nk));
    /* nodes made for a source op keep its source location, as a re-trace keeps the stack trace
     * of the op being traced */
    if (c->cur) {
        n->meta.source = c->cur->meta.source ? fx_strdup(c->dst, c->cur->meta.source) : NULL;
        n->meta.stack_trace = c->cur->meta.stack_trace ? fx_strdup(c->dst, c->cur->meta.stack_trace) : NULL;
        n->meta.trace_group = c->cur->meta.trace_group;
        /* and its module path, which the ONNX provenance metadata names */
        n->meta.nn_module_stack = c->cur->meta.nn_module_stack ? fx_strdup(c->dst, c->cur->meta.nn_module_stack) : NULL;
    }
    return n;
}

static bool same_sizes(const fx_value *a, const fx_value *b)
{
    if (a->kind != FX_VAL_TENSOR || !b || b->kind != FX_VAL_TENSOR || a->rank != b->rank || !a->sizes || !b->sizes)
        return false;
    for (size_t i = 0; i < a->rank; i++)
        if (strcmp(a->sizes[i], b->sizes[i]))
            return false;
    return true;
}

/* want's sizes and dtype (the source's meta) with the strides inferred for the new graph, when
 * the inference agrees on the sizes: torch re-traces the decomposed graph, and the layout of a
 * value follows from the ops that now make it. */
fx_value *dc_merge_meta(dctx *c, const fx_value *want, const fx_value *inferred)
{
    if (!want)
        return (fx_value *)inferred;
    fx_value *v = fx_copy_value(c->dst, want);
    if (same_sizes(v, inferred) && inferred->strides) {
        v->strides = fx_alloc(c->dst, (v->rank + 1) * sizeof *v->strides);
        for (size_t i = 0; i < v->rank; i++)
            v->strides[i] = fx_strdup(c->dst, inferred->strides[i]);
    }
    return v;
}

/* A view op's result aliases its input: it becomes a view tensor of the input's storage. */
void dc_register_view(dctx *c, fx_node *m)
{
    const fx_arg *a0 = m->args->u.seq.len ? m->args->u.seq.items[0] : NULL;
    if (!a0 || a0->kind != FX_ARG_NODE)
        return;
    const view_rule *vr = hm_get(&c->rs->view_by_target, dc_table_key(m->target));
    if (vr) {
        fz_tensor *base = dc_tensor_of(c, a0->u.node);
        if (vr->multi)
            hm_put(&c->lists, m->name, base);
        else
            hm_put(&c->by_node, m->name, fz_view_of(&c->fz, base, (fz_view){ m, -1 }, m));
        return;
    }
    fz_tensor *base = !strcmp(m->target, "operator.getitem") ? hm_get(&c->lists, a0->u.node->name) : NULL;
    const fx_arg *i = m->args->u.seq.len > 1 ? m->args->u.seq.items[1] : NULL;
    if (base && i && i->kind == FX_ARG_INT)
        hm_put(&c->by_node, m->name, fz_view_of(&c->fz, base, (fz_view){ a0->u.node, i->u.i }, m));
}

/* A multi-output op's items are taken right away, each a getitem node (make_fx wraps every
 * output of an op in its own proxy), whether used or not: unused ones are dead code later,
 * but they have taken their names. */
void dc_take_items(dctx *c, fx_node *m)
{
    const fx_value *mv = m->meta.val;
    fx_node **items = fx_alloc(c->dst, mv->n_items * sizeof *items);
    for (size_t i = 0; i < mv->n_items; i++) {
        fx_arg *ga[2] = { fx_arg_node(c->dst, m), fx_arg_int(c->dst, (int64_t)i) };
        items[i] = dc_emit(c, "operator.getitem", ga, 2, NULL, NULL, 0, NULL);
        items[i]->meta.val = mv->items[i];
        dc_register_view(c, items[i]);
    }
    hm_put(&c->items, m->name, items);
}

fx_node *dc_call_node(dctx *c, const char *target, fx_arg **args, size_t na, const fx_value *want)
{
    fx_arg *r = dc_call(c, target, fx_arg_seq(c->dst, FX_ARG_TUPLE, args, NULL, na),
                     fx_arg_seq(c->dst, FX_ARG_DICT, NULL, NULL, 0), want);
    if (r && r->kind == FX_ARG_NODE)
        return r->u.node;
    if (r && !c->failed) {
        diag_error(c->d, (diag_loc){ c->src->file, 0, 0 }, "decompose: %s did not produce a tensor", target);
        dc_fail(c);
    }
    return NULL;
}

/* ---- templates ------------------------------------------------------------------------------ */

#define MAX_CALL_ARGS 6

fx_node *dc_calla(dctx *c, const char *target, fx_arg **args, size_t na, const char **kn, fx_arg **kv, size_t nk)
{
    fx_arg *r = dc_call(c, target, fx_arg_seq(c->dst, FX_ARG_TUPLE, args, NULL, na),
                        fx_arg_seq(c->dst, FX_ARG_DICT, kv, kn, nk), NULL);
    if (r && r->kind == FX_ARG_NODE)
        return r->u.node;
    if (r && !c->failed) {
        diag_error(c->d, (diag_loc){ c->src->file, c->cur ? c->cur->src_line : 0, 0 },
                   "decompose: %s did not produce a tensor", target);
        dc_fail(c);
    }
    return NULL;
}

/* Whether n more nodes for the current source node stay within FXSH_MAX_DECOMP_NODES (counted
 * when take is set); reports the unroll and fails the pass when they do not. */
static bool budget(dctx *c, uint64_t n, bool take)
{
    if (c->failed)
        return false;
    if (!c->max_emitted)
        c->max_emitted = limit_from_env(FXSH_MAX_DECOMP_NODES_ENV, FXSH_MAX_DECOMP_NODES_DEFAULT);
    if (c->counted != c->cur) {
        c->counted = c->cur;
        c->emitted_for = 0;
    }
    if (interrupt_pending()) {
        dc_fail(c);
        return false;
    }
    uint64_t left = c->emitted_for < c->max_emitted ? c->max_emitted - c->emitted_for : 0;
    if (n <= left) {
        if (take)
            c->emitted_for += n;
        return true;
    }
    diagnostic *dg = diag_error(c->d, (diag_loc){ c->src->file, c->cur ? c->cur->src_line : 0, 0 },
                                "decompose: %%%s (%s) unrolls into more than %llu nodes", c->cur ? c->cur->name : "?",
                                c->cur && c->cur->target ? c->cur->target : "?", (unsigned long long)c->max_emitted);
    diag_set_hint(dg, "torch's decomposition unrolls it over its sizes too; check the sizes it is given, or set %s=N "
                      "to allow more", FXSH_MAX_DECOMP_NODES_ENV);
    dc_fail(c);
    return false;
}

bool dc_within_budget(dctx *c)
{
    return budget(c, 1, true);
}

bool dc_reserve(dctx *c, uint64_t n)
{
    return budget(c, n, false);
}

/* target(args... | kwargs) through the table (decompose_internal.h) */
fx_node *dc_callv(dctx *c, const char *target, const char **kn, fx_arg **kv, size_t nk, size_t na, ...)
{
    fx_arg *args[MAX_CALL_ARGS];
    if (na > MAX_CALL_ARGS)
        return NULL;
    va_list ap;
    va_start(ap, na);
    for (size_t i = 0; i < na && i < MAX_CALL_ARGS; i++)
        args[i] = va_arg(ap, fx_arg *);
    va_end(ap);
    for (size_t i = 0; i < na; i++)
        if (!args[i])
            return NULL;
    return dc_calla(c, target, args, na, kn, kv, nk);
}
