/* rewrite_while.c — `rewrite NODE while_loop`: a Python while (or a for, perhaps with a break)
 * → torch.ops.higher_order.while_loop. */
#include "rewrite/rewrite.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "fx/fx.h"
#include "rewrite/control_flow.h"
#include "rewrite/rewrite_internal.h"

typedef struct while_ctx {
    fx_program *q;
    fx_node *n;              /* the loop node (becomes the while_loop) */
    fx_graph *g;             /* the graph holding it */
    fx_control_view v;
    rw_loop L;
    diag_sink *d;
    bool bounded;            /* `for i in range(trip)`: a counter is carried */
    int64_t trip;
    fx_node *exit_if;        /* bounded: the body's python_if that gives the next test, or NULL */
    fx_node *exit_test;      /* bounded: the tensor whose truthiness decides to go on, or NULL */
    bool exit_negated;       /* go on while the test is false (`if test: break`) */
    hashmap slice;           /* unbounded: outer nodes computing the test (name → node) */
    hashmap carried_of;      /* unbounded: outer carried value name → index + 1 */
    hashmap inv;             /* unbounded: outer values the test reads that are not carried */
    fx_node **inv_nodes;
    size_t n_inv, cap_inv;
    /* what the rewrite builds, step by step (rewrite_loop_to_while) */
    diag_loc loc;            /* the loop node, for every error */
    bool clone_aliased;      /* --clone: clone a result that aliases an input instead of refusing */
    hashmap body_cap;        /* outer captured value name → its body placeholder */
    fx_node *test0;          /* unbounded: the test before the first iteration */
    size_t nc, ncap;         /* carried values, captured values of the loop */
    size_t off;              /* 1 when the body's outputs start with the next test (a while) */
    size_t ncarry;           /* carried by the while_loop: counter and flag (bounded), then nc */
    fx_node **adds;          /* additional inputs of cond_fn and body_fn, dynamo's order */
    size_t nadd;
    fx_module *cm;           /* cond_fn's module and graph */
    fx_graph *cg;
    fx_node **corder;        /* cond_fn's placeholders */
    fx_node **outs, **border;/* body_fn's results and placeholders */
    size_t nb;
    fx_node **gi;            /* the getitems of the while_loop's results */
} while_ctx;

/* ---- the loop's test -------------------------------------------------------------------------- */

static bool pure(const fx_node *x)
{
    return x->op == FX_OP_CALL_FUNCTION && x->target && fx_control_kind_of(x) == FX_CTRL_NONE &&
           strncmp(x->target, "torch.ops.higher_order.", 23) != 0 && strncmp(x->target, "fxsh.", 5) != 0;
}

static void add_inv(while_ctx *c, fx_node *x)
{
    if (hm_has(&c->inv, x->name))
        return;
    hm_put(&c->inv, x->name, x);
    xgrow((void **)&c->inv_nodes, &c->cap_inv, c->n_inv + 1, sizeof *c->inv_nodes);
    c->inv_nodes[c->n_inv++] = x;
}

static void collect_slice(while_ctx *c, fx_node *x);

static void collect_arg(fx_node *x, void *ctx)
{
    collect_slice(ctx, x);
}

/* The outer nodes that compute the test from the carried values (they become cond_fn);
 * anything else they read is loop-invariant (an additional input). */
static void collect_slice(while_ctx *c, fx_node *x)
{
    if (hm_has(&c->carried_of, x->name) || hm_has(&c->slice, x->name) || hm_has(&c->inv, x->name))
        return;
    if (x->graph != c->g || !pure(x)) {
        add_inv(c, x);
        return;
    }
    hm_put(&c->slice, x->name, x);
    fx_arg_each_node(x->args, collect_arg, c);
    fx_arg_each_node(x->kwargs, collect_arg, c);
}

typedef struct match_ctx {
    while_ctx *c;
    hashmap memo;            /* outer slice node name → matched body node */
    hashmap cap_of;          /* outer value name → its body placeholder */
} match_ctx;

static bool match_node(match_ctx *m, const fx_node *a, const fx_node *b);

/* The re-test in the body (args b) computes what the first test (args a) computes, on the new
 * carried values. */
static bool match_arg(match_ctx *m, const fx_arg *a, const fx_arg *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case FX_ARG_NODE:
        return match_node(m, a->u.node, b->u.node);
    case FX_ARG_INT: return a->u.i == b->u.i;
    case FX_ARG_FLOAT: return a->u.f == b->u.f;
    case FX_ARG_BOOL: return a->u.b == b->u.b;
    case FX_ARG_DTYPE: return a->u.dtype == b->u.dtype;
    case FX_ARG_NONE: case FX_ARG_ELLIPSIS: return true;
    case FX_ARG_STR: case FX_ARG_DEVICE: case FX_ARG_MEMFMT: case FX_ARG_LAYOUT: case FX_ARG_OPAQUE:
        return !strcmp(a->u.s, b->u.s);
    case FX_ARG_LIST: case FX_ARG_TUPLE: case FX_ARG_DICT: case FX_ARG_SLICE:
        if (a->u.seq.len != b->u.seq.len)
            return false;
        for (size_t i = 0; i < a->u.seq.len; i++) {
            if (a->kind == FX_ARG_DICT && strcmp(a->u.seq.keys[i], b->u.seq.keys[i]) != 0)
                return false;
            if (!match_arg(m, a->u.seq.items[i], b->u.seq.items[i]))
                return false;
        }
        return true;
    }
    return false;
}

static bool match_node(match_ctx *m, const fx_node *a, const fx_node *b)
{
    while_ctx *c = m->c;
    uintptr_t k = (uintptr_t)hm_get(&c->carried_of, a->name);
    if (k) {
        /* the first test reads carried value k: the re-test reads its new value */
        const fx_arg *o = c->L.outs->u.seq.items[k];
        return o->kind == FX_ARG_NODE && o->u.node == b;
    }
    if (hm_has(&c->inv, a->name))
        return hm_get(&m->cap_of, a->name) == b;
    const fx_node *seen = hm_get(&m->memo, a->name);
    if (seen)
        return seen == b;
    if (b->op != a->op || !a->target || !b->target || strcmp(a->target, b->target) != 0)
        return false;
    if (!match_arg(m, a->args, b->args) || !match_arg(m, a->kwargs, b->kwargs))
        return false;
    hm_put(&m->memo, a->name, (void *)b);
    return true;
}

/* ---- checks ----------------------------------------------------------------------------------- */

static bool check_carries(while_ctx *c)
{
    diag_loc loc = rw_loc(c->q, c->n);
    if (!rw_check_carried(c->q, c->n, &c->v, &c->L, c->v.kind == FX_CTRL_WHILE, "while_loop",
                          "body_fn_output and carried_inputs must have the same metadata", c->d))
        return false;
    if (c->L.idx->n_users) {
        fx_node *u = c->L.idx->users[0];
        diagnostic *dg = diag_error(c->d, loc, "cannot rewrite %%%s into while_loop: the body uses the loop index "
                                               "%%%s (in %%%s, %s), a Python int that torch.while_loop does not give",
                                    c->n->name, c->L.idx->name, u->name, u->target);
        if (c->v.kind == FX_CTRL_FOR)
            diag_set_hint(dg, "a loop reading rows x[i] is a scan: rewrite %%%s scan", c->n->name);
        else
            diag_set_hint(dg, "carry a counter tensor instead of using the index");
        return false;
    }
    return true;
}

/* A bounded loop's exit test: the body's next test is True (a plain for), a tensor, or the
 * result of a Python if whose branches return the constants True / False (TorchScript's
 * `if test: break`). */
static bool find_exit(while_ctx *c)
{
    diag_loc loc = rw_loc(c->q, c->n);
    if (c->v.kind == FX_CTRL_FOR)
        return true;
    if (!(c->v.cond->kind == FX_ARG_BOOL && c->v.cond->u.b)) {
        diagnostic *dg = diag_error(c->d, loc, "cannot rewrite %%%s into while_loop: a loop bounded by range(%lld) "
                                               "must start without a test (TorchScript starts a for with True)",
                                    c->n->name, (long long)c->trip);
        diag_set_hint(dg, "`show code` shows the loop's arguments (trip count, first test, body, ...)");
        return false;
    }
    const fx_arg *nx = c->L.outs->u.seq.items[0];
    if (nx->kind == FX_ARG_BOOL && nx->u.b)
        return true;
    fx_node *t = nx->kind == FX_ARG_NODE ? nx->u.node : NULL;
    fx_node *pif = t && t->op == FX_OP_CALL_FUNCTION && !strcmp(t->target, "operator.getitem") &&
                           t->args->u.seq.len == 2 && t->args->u.seq.items[0]->kind == FX_ARG_NODE
                       ? t->args->u.seq.items[0]->u.node
                       : NULL;
    if (pif && fx_control_kind_of(pif) == FX_CTRL_IF) {
        fx_control_view iv;
        const fx_arg *tb = NULL, *fb = NULL;
        if (fx_control_inspect(pif, &iv) && iv.sub[0] && iv.sub[1] && iv.cond->kind == FX_ARG_NODE) {
            for (int b = 0; b < 2; b++) {
                const fx_arg *r = fx_control_graph_result(iv.sub[b]->graph);
                if (r && (r->kind == FX_ARG_TUPLE || r->kind == FX_ARG_LIST) && r->u.seq.len == 1)
                    *(b ? &fb : &tb) = r->u.seq.items[0];
            }
        }
        if (tb && fb && tb->kind == FX_ARG_BOOL && fb->kind == FX_ARG_BOOL && tb->u.b != fb->u.b && pif->n_users == 1) {
            c->exit_if = pif;
            c->exit_test = iv.cond->u.node;
            c->exit_negated = !tb->u.b;
            return true;
        }
    }
    if (t && (!t->meta.val || t->meta.val->kind == FX_VAL_TENSOR) && t->op != FX_OP_PLACEHOLDER && pure(t)) {
        c->exit_test = t;
        return true;
    }
    diagnostic *dg = diag_error(c->d, loc, "cannot rewrite %%%s into while_loop: the body's next test (%s) is neither "
                                           "a tensor nor a Python if returning True / False",
                                c->n->name, t ? t->name : "a Python value");
    diag_set_hint(dg, "`show code` shows the body; its output starts with the next test");
    return false;
}

/* ---- building ------------------------------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    return strcmp((*(fx_node *const *)a)->name, (*(fx_node *const *)b)->name);
}

static fx_value *scalar_val(fx_program *q, fx_dtype dt)
{
    fx_value *v = fx_value_new(q, FX_VAL_TENSOR);
    v->dtype = dt;
    v->device = "cpu";
    return v;
}

/* New nodes point at the loop's source line, as the code torch traced would. */
static fx_node *at_loop(const while_ctx *c, fx_node *x)
{
    x->meta.stack_trace = c->n->meta.stack_trace;
    x->meta.source = c->n->meta.source;
    x->meta.trace_group = c->n->meta.trace_group;
    x->src_line = c->n->src_line;
    return x;
}

/* torch.zeros((), dtype=...) / torch.ones(...) as torch.export records it */
static fx_node *scalar_factory(fx_graph *g, fx_node *before, const char *op, fx_dtype dt)
{
    fx_program *q = g->owner->prog;
    fx_arg *args[1] = {fx_arg_seq(q, FX_ARG_LIST, NULL, NULL, 0)};
    fx_node *x = rw_call_before(g, before, op, arena_printf(&q->arena, "torch.ops.aten.%s.default", op), args, 1,
                                scalar_val(q, dt));
    fx_arg *kv[3] = {fx_arg_dtype(q, dt), fx_arg_str(q, FX_ARG_DEVICE, "cpu"), fx_arg_bool(q, false)};
    const char *keys[3] = {"dtype", "device", "pin_memory"};
    fx_node_set_args(x, x->args, fx_arg_seq(q, FX_ARG_DICT, kv, keys, 3));
    return x;
}

/* One output of a subgraph checked for aliasing (or cloned); false after reporting. */
static bool unalias(while_ctx *c, fx_graph *sg, const char *graph, fx_node **w, hashmap *seen, bool clone_aliased,
                    const char *what)
{
    const char *first = hm_get(seen, (*w)->name);
    char why[256];
    if ((*w)->op == FX_OP_PLACEHOLDER)
        snprintf(why, sizeof why, "returns its input %s unchanged as %s", (*w)->name, what);
    else if (first)
        snprintf(why, sizeof why, "returns %s twice, as %s and as %s", (*w)->name, first, what);
    else {
        hm_put(seen, (*w)->name, (void *)what);
        return true;
    }
    if (!clone_aliased) {
        char fix[160];
        snprintf(fix, sizeof fix, "rewrite %%%s while_loop --clone", c->n->name);
        rw_alias_error(c->d, rw_loc(c->q, c->n), c->n->name, "torch.while_loop", graph, (*w)->name, why, fix);
        return false;
    }
    diag_note(c->d, rw_loc(c->q, c->n), "%s %s: it now returns %s.clone()", graph, why, (*w)->name);
    *w = rw_clone_before_output(sg, *w);
    return true;
}

/* Sets g's output to a tuple (or, with one = true, the single value) of outs. */
static void set_output(fx_graph *sg, fx_node **outs, size_t n, bool one)
{
    fx_program *q = sg->owner->prog;
    fx_node *o = sg->last;
    fx_arg *r;
    if (one) {
        r = fx_arg_node(q, outs[0]);
    } else {
        fx_arg **items = xmalloc((n + 1) * sizeof *items);
        for (size_t i = 0; i < n; i++)
            items[i] = fx_arg_node(q, outs[i]);
        r = fx_arg_seq(q, FX_ARG_TUPLE, items, NULL, n);
        free(items);
    }
    fx_node_set_args(o, fx_arg_seq(q, FX_ARG_TUPLE, &r, NULL, 1), o->kwargs);
    fx_graph_recompute_users(sg);
}

/* ---- the rewrite, step by step ------------------------------------------------------------------ */

/* The loop must be one torch.while_loop can express: a known trip count (or a tensor test), no
 * Python control flow left in its body, carried values of fixed meta, no write into an input. */
static bool check_loop(while_ctx *c)
{
    diag_sink *d = c->d;
    int64_t trip = 0;
    /* bounded: a for, or a while TorchScript made from a for with a break */
    bool unbounded = c->v.kind == FX_CTRL_WHILE &&
                     (c->v.trip->kind == FX_ARG_NONE || (c->v.trip->kind == FX_ARG_INT && c->v.trip->u.i == INT64_MAX));
    if (!unbounded) {
        if (!control_flow_eval_int(c->v.trip, &trip) || trip < 0) {
            diagnostic *dg = diag_error(d, c->loc, "cannot rewrite %%%s into while_loop: its trip count is not known "
                                                   "(the counter's bound must be a number)", c->n->name);
            diag_set_hint(dg, "declare the input shapes (load --input) so that x.shape[k] is known");
            return false;
        }
        c->bounded = true;
        c->trip = trip;
        if (!find_exit(c))
            return false;
    }
    const fx_node *inner = rw_find_python_control(c->L.body);
    if (inner && inner != c->exit_if) {
        diagnostic *dg = diag_error(d, c->loc, "cannot rewrite %%%s into while_loop: its body still has Python control "
                                               "flow (%%%s)", c->n->name, inner->name);
        diag_set_hint(dg, "rewrite the inner one first: rewrite %%%s.%s %s", inner->graph->owner->name, inner->name,
                      fx_control_kind_of(inner) == FX_CTRL_IF ? "cond" : "while_loop");
        return false;
    }
    if (!check_carries(c))
        return false;
    const fx_node *mut = rw_input_mutation(c->L.bg, NULL);
    if (mut) {
        diagnostic *dg = diag_error(d, c->loc, "cannot rewrite %%%s into while_loop: body_fn might be modifying the "
                                               "input! (%%%s, %s, writes into an input of the body)",
                                    c->n->name, mut->name, mut->target);
        diag_set_hint(dg, "compute the new carried value out of place (h = h + 1, not h += 1)");
        return false;
    }
    return true;
}

/* Unbounded loops: the test before the first iteration must be a tensor, computed in this graph,
 * and the body's re-test must compute the same thing (torch.while_loop has one cond_fn). */
static bool check_test(while_ctx *c, match_ctx *m)
{
    diag_sink *d = c->d;
    const fx_arg *c0 = c->v.cond, *nx = c->L.outs->u.seq.items[0];
    if (c0->kind != FX_ARG_NODE || nx->kind != FX_ARG_NODE ||
        (c0->u.node->meta.val && c0->u.node->meta.val->kind != FX_VAL_TENSOR)) {
        diagnostic *dg = diag_error(d, c->loc, "cannot rewrite %%%s into while_loop: its test is not a tensor (%s): "
                                               "torch.export runs a loop on Python values as it is",
                                    c->n->name, c0->kind == FX_ARG_NODE ? c0->u.node->name : "a constant");
        diag_set_hint(dg, "`while True:` with a break needs a bound: for i in range(N)");
        return false;
    }
    c->test0 = c0->u.node;
    for (size_t k = 0; k < c->nc; k++) {
        const fx_arg *init = c->v.operands->u.seq.items[k];
        if (!hm_has(&c->carried_of, init->u.node->name))
            hm_put(&c->carried_of, init->u.node->name, (void *)(uintptr_t)(k + 1));
    }
    collect_slice(c, c->test0);
    for (size_t i = 0; i < c->n_inv; i++)
        if (c->inv_nodes[i]->graph != c->g) {
            diagnostic *dg = diag_error(d, c->loc, "cannot rewrite %%%s into while_loop: its test reads %%%s from an "
                                                   "enclosing graph", c->n->name, c->inv_nodes[i]->name);
            diag_set_hint(dg, "rewrite the enclosing control flow first");
            return false;
        }
    if (!match_node(m, c->test0, nx->u.node)) {
        diagnostic *dg = diag_error(d, c->loc, "cannot rewrite %%%s into while_loop: the loop tests %%%s before its "
                                               "first iteration, but the body computes its next test %%%s "
                                               "differently; torch.while_loop has one cond_fn for both",
                                    c->n->name, c->test0->name, nx->u.node->name);
        diag_set_hint(dg, "write the loop as `while test(state):` so that the same test runs every time");
        return false;
    }
    return true;
}

/* Additional inputs: what cond_fn and body_fn read besides the carried values, grouped as
 * dynamo groups them (both, cond only, body only), each group sorted by name. */
static void collect_additional(while_ctx *c)
{
    c->adds = xmalloc((c->n_inv + c->ncap + 1) * sizeof *c->adds);
    for (int grp = 0; grp < 3; grp++) {
        size_t start = c->nadd;
        if (grp < 2)
            for (size_t i = 0; i < c->n_inv; i++) {
                bool shared = hm_has(&c->body_cap, c->inv_nodes[i]->name);
                if ((grp == 0) == shared)
                    c->adds[c->nadd++] = c->inv_nodes[i];
            }
        else
            for (size_t k = 0; k < c->ncap; k++) {
                const fx_arg *o = c->v.captured->u.seq.items[k];
                if (o->kind == FX_ARG_NODE && !hm_has(&c->inv, o->u.node->name) && c->L.cap_ph[k]->n_users)
                    c->adds[c->nadd++] = o->u.node;
            }
        if (c->nadd - start > 1) qsort(c->adds + start, c->nadd - start, sizeof *c->adds, by_name);
    }
}

/* cond_fn(counter, flag, carried..., additional...): the counter below the trip count (and the
 * flag), or a copy of the outer nodes that computed the first test. */
static bool build_cond_fn(while_ctx *c)
{
    fx_program *q = c->q;
    size_t nc = c->nc, ncarry = c->ncarry, nadd = c->nadd;
    c->cm = fx_control_new_subgraph(c->g->owner, "while_loop_cond_graph");
    fx_graph *cg = c->cg = c->cm->graph;
    c->corder = xmalloc((ncarry + nadd + 1) * sizeof *c->corder);
    fx_node *after = NULL;
    for (size_t k = 0; k < ncarry + nadd; k++) {
        const fx_value *val = NULL;
        if (c->bounded && k == 0)
            val = scalar_val(q, FX_DT_I64);
        else if (c->exit_test && k == 1)
            val = scalar_val(q, FX_DT_BOOL);
        else if (k < ncarry)
            val = rw_tensor_val(c->v.operands->u.seq.items[k - (ncarry - nc)]);
        else
            val = c->adds[k - ncarry]->meta.val;
        c->corder[k] = after = rw_placeholder_after(cg, after, "arg", (fx_value *)val);
    }
    fx_node *co = fx_node_new(cg, "output", FX_OP_OUTPUT, "output");
    fx_graph_append(cg, co);
    fx_node *cres = NULL;
    if (c->bounded) {
        fx_arg *la[2] = {fx_arg_node(q, c->corder[0]), fx_arg_int(q, c->trip)};
        cres = at_loop(c, rw_call_before(cg, co, "lt", "torch.ops.aten.lt.Scalar", la, 2, scalar_val(q, FX_DT_BOOL)));
        if (c->exit_test) {
            fx_arg *aa[2] = {fx_arg_node(q, cres), fx_arg_node(q, c->corder[1])};
            cres = at_loop(c, rw_call_before(cg, co, "and", "torch.ops.aten.__and__.Tensor", aa, 2,
                                             scalar_val(q, FX_DT_BOOL)));
        }
    } else {
        /* the outer nodes of the first test, copied in graph order */
        hashmap map;
        hm_init(&map);
        for (size_t k = 0; k < nc; k++) {
            const fx_node *init = c->v.operands->u.seq.items[k]->u.node;
            if (!hm_has(&map, init->name))
                hm_put(&map, init->name, fx_arg_node(q, c->corder[k]));
        }
        for (size_t i = 0; i < nadd; i++)
            hm_put(&map, c->adds[i]->name, fx_arg_node(q, c->corder[ncarry + i]));
        for (fx_node *x = c->g->first; x; x = x->next) {
            if (hm_get(&c->slice, x->name) != x)
                continue;
            fx_control_copy_node(cg, co, x, &map);
        }
        fx_arg *r = hm_get(&map, c->test0->name);
        cres = r->u.node;
        hm_free(&map);
    }
    set_output(cg, &cres, 1, true);
    hashmap seen;
    hm_init(&seen);
    bool ok = unalias(c, cg, "cond_fn", &cres, &seen, c->clone_aliased, "its test");
    hm_free(&seen);
    if (ok)
        set_output(cg, &cres, 1, true);
    return ok;
}

/* body_fn: (counter, flag, carried..., additional...) -> (counter + 1, next flag, carried'...). */
static bool build_body_fn(while_ctx *c)
{
    fx_program *q = c->q;
    fx_graph *bg = c->L.bg;
    size_t nc = c->nc, ncarry = c->ncarry;
    c->outs = xmalloc((ncarry + 1) * sizeof *c->outs);
    c->border = xmalloc((ncarry + c->nadd + 1) * sizeof *c->border);
    size_t no = 0;
    fx_node *last_ph = c->L.idx;
    if (c->bounded) {
        fx_node *it = rw_placeholder_after(bg, last_ph, "it", scalar_val(q, FX_DT_I64));
        c->border[c->nb++] = last_ph = it;
        fx_arg *aa[2] = {fx_arg_node(q, it), fx_arg_int(q, 1)};
        c->outs[no++] = at_loop(c, rw_call_before(bg, bg->last, "add", "torch.ops.aten.add.Tensor", aa, 2,
                                                  scalar_val(q, FX_DT_I64)));
        if (c->exit_test) {
            c->border[c->nb++] = last_ph = rw_placeholder_after(bg, last_ph, "flag", scalar_val(q, FX_DT_BOOL));
            fx_node *t = rw_truthiness(bg, bg->last, c->exit_test);
            if (c->exit_negated) {
                fx_arg *na[1] = {fx_arg_node(q, t)};
                t = at_loop(c, rw_call_before(bg, bg->last, "logical_not", "torch.ops.aten.logical_not.default", na,
                                              1, t->meta.val));
            }
            c->outs[no++] = t;
        }
    }
    for (size_t k = 0; k < nc; k++) {
        c->border[c->nb++] = c->L.carry_ph[k];
        c->outs[no++] = c->L.outs->u.seq.items[k + c->off]->u.node;
    }
    for (size_t i = 0; i < c->nadd; i++) {
        fx_node *ph = hm_get(&c->body_cap, c->adds[i]->name);
        if (!ph)
            ph = rw_placeholder_after(bg, last_ph, c->adds[i]->name, c->adds[i]->meta.val);
        c->border[c->nb++] = ph;
    }
    hashmap seen;
    hm_init(&seen);
    bool ok = true;
    for (size_t k = 0; k < ncarry && ok; k++) {
        char what[64];
        snprintf(what, sizeof what, "carried value %zu", k);
        ok = unalias(c, bg, "body_fn", &c->outs[k], &seen, c->clone_aliased, arena_printf(&q->arena, "%s", what));
    }
    hm_free(&seen);
    return ok;
}

/* The re-test (or the exit if) is gone from the body; so are the index and unused inputs. */
static void strip_body(while_ctx *c)
{
    fx_graph *bg = c->L.bg;
    fx_node *old_test = c->off && c->L.outs->u.seq.items[0]->kind == FX_ARG_NODE ? c->L.outs->u.seq.items[0]->u.node
                                                                                 : NULL;
    set_output(bg, c->outs, c->ncarry, false);
    if (c->exit_if) {
        fx_control_view iv;
        fx_control_inspect(c->exit_if, &iv);
        hashmap dead;
        hm_init(&dead);
        hm_put(&dead, old_test->name, old_test);
        hm_put(&dead, c->exit_if->name, c->exit_if);
        for (int b = 0; b < 2; b++) {
            hm_put(&dead, iv.graph_attr[b]->name, iv.graph_attr[b]);
            fx_control_drop_subgraph(c->L.body, iv.sub[b]);
        }
        rw_remove_nodes(bg, &dead);
        hm_free(&dead);
    } else if (old_test) {
        rw_remove_dead(bg, &old_test, 1);
    }
    hashmap dead;
    hm_init(&dead);
    hm_put(&dead, c->L.idx->name, c->L.idx);
    for (size_t k = 0; k < c->ncap; k++)
        if (!c->L.cap_ph[k]->n_users && !hm_has(&c->inv, c->v.captured->u.seq.items[k]->kind == FX_ARG_NODE
                                                            ? c->v.captured->u.seq.items[k]->u.node->name : ""))
            hm_put(&dead, c->L.cap_ph[k]->name, c->L.cap_ph[k]);
    rw_remove_nodes(bg, &dead);
    hm_free(&dead);
    rw_order_placeholders(bg, c->border, c->nb);
    rw_number_placeholders(bg);
    rw_number_placeholders(c->cg);
}

/* The enclosing graph: the loop node becomes while_loop(cond, body, (carried...), (additional...))
 * and its results, after the counter and flag, keep their getitems. */
static void rewire_call(while_ctx *c)
{
    fx_program *q = c->q;
    size_t nc = c->nc, ncarry = c->ncarry;
    fx_node *battr = c->v.graph_attr[0];
    fx_node *cattr = fx_node_new(c->g, c->cm->name, FX_OP_GET_ATTR, c->cm->name);
    cattr->meta.stack_trace = c->n->meta.stack_trace;
    cattr->meta.source = c->n->meta.source;
    cattr->meta.trace_group = c->n->meta.trace_group;
    fx_graph_insert_before(c->g, battr, cattr);
    fx_control_rename_subgraph(c->g->owner, c->L.body, battr, "while_loop_body_graph");
    fx_control_move_subgraph_before(c->g->owner, c->cm, c->L.body);
    fx_arg **carried = xmalloc((ncarry + 1) * sizeof *carried);
    size_t ni = 0;
    if (c->bounded) {
        fx_node *first = cattr;
        fx_node *it0 = at_loop(c, scalar_factory(c->g, first, "zeros", FX_DT_I64));
        carried[ni++] = fx_arg_node(q, it0);
        if (c->exit_test)
            carried[ni++] = fx_arg_node(q, at_loop(c, scalar_factory(c->g, first, "ones", FX_DT_BOOL)));
    }
    for (size_t k = 0; k < nc; k++)
        carried[ni++] = c->v.operands->u.seq.items[k];
    fx_arg **av = xmalloc((c->nadd + 1) * sizeof *av);
    for (size_t i = 0; i < c->nadd; i++)
        av[i] = fx_arg_node(q, c->adds[i]);
    fx_arg *a[4] = {fx_arg_node(q, cattr), fx_arg_node(q, battr), fx_arg_seq(q, FX_ARG_TUPLE, carried, NULL, ni),
                    fx_arg_seq(q, FX_ARG_TUPLE, av, NULL, c->nadd)};
    free(carried);
    free(av);
    fx_node_set_args(c->n, fx_arg_seq(q, FX_ARG_TUPLE, a, NULL, 4), fx_arg_seq(q, FX_ARG_DICT, NULL, NULL, 0));
    c->n->target = fx_strdup(q, "torch.ops.higher_order.while_loop");
    c->n->meta.val = NULL;   /* the counter and flag carried first change the results: inferred anew */
    fx_control_rename_node(c->n, fx_control_node_name(c->g, "while_loop"));
    /* results: the counter and flag come first, the loop's own results after them */
    size_t shift = ncarry - nc;
    fx_graph_recompute_users(c->g);
    for (size_t j = 0; shift && j < c->n->n_users; j++) {
        fx_node *u = c->n->users[j];
        if (!strcmp(u->target, "operator.getitem") && u->args->u.seq.items[1]->kind == FX_ARG_INT)
            u->args->u.seq.items[1] = fx_arg_int(q, u->args->u.seq.items[1]->u.i + (int64_t)shift);
    }
    c->gi = xcalloc(ncarry + 1, sizeof *c->gi);
    rw_result_getitems(c->g, c->n, ncarry, c->gi);
    for (size_t k = 0; k < ncarry; k++)
        if (!c->gi[k]->meta.val)
            c->gi[k]->meta.val = k < shift ? scalar_val(q, k == 0 && c->bounded ? FX_DT_I64 : FX_DT_BOOL)
                                           : (fx_value *)rw_tensor_val(c->v.operands->u.seq.items[k - shift]);
    /* the first test and the trip count only fed the loop: drop them as torch.export's dead-code
     * pass does, then name the results */
    fx_node *seeds[2] = {c->test0, c->v.trip->kind == FX_ARG_NODE ? c->v.trip->u.node : NULL};
    fx_graph_recompute_users(c->g);
    rw_remove_dead(c->g, seeds, 2);
    rw_name_result_getitems(c->g, c->gi, ncarry);
}

fx_program *rewrite_loop_to_while(const fx_program *p, const char *node, bool clone_aliased, diag_sink *d)
{
    while_ctx c = {.d = d, .clone_aliased = clone_aliased};
    c.q = rw_begin(p, node, FX_CTRL_WHILE, FX_CTRL_FOR, "while_loop", &c.n, &c.v, d);
    if (!c.q)
        return NULL;
    hm_init(&c.slice);
    hm_init(&c.carried_of);
    hm_init(&c.inv);
    hm_init(&c.body_cap);
    match_ctx m = {.c = &c};
    hm_init(&m.memo);
    hm_init(&m.cap_of);
    fx_program *result = NULL;
    c.g = c.n->graph;
    c.loc = rw_loc(c.q, c.n);
    if (!rw_loop_open(c.q, c.n, &c.v, &c.L, d) || !check_loop(&c))
        goto out;
    c.nc = c.L.nc;
    c.ncap = c.L.ncap;
    c.off = c.v.kind == FX_CTRL_WHILE;
    for (size_t k = 0; k < c.ncap; k++)
        if (c.v.captured->u.seq.items[k]->kind == FX_ARG_NODE) {
            hm_put(&c.body_cap, c.v.captured->u.seq.items[k]->u.node->name, c.L.cap_ph[k]);
            hm_put(&m.cap_of, c.v.captured->u.seq.items[k]->u.node->name, c.L.cap_ph[k]);
        }
    if (!c.bounded && !check_test(&c, &m))
        goto out;
    collect_additional(&c);
    c.ncarry = c.nc + (c.bounded ? 1 : 0) + (c.exit_test ? 1 : 0);
    if (!build_cond_fn(&c) || !build_body_fn(&c))
        goto out;
    strip_body(&c);
    rewire_call(&c);
    fx_program_refresh(c.q);
    result = c.q;
out:
    free(c.adds);
    free(c.outs);
    free(c.corder);
    free(c.border);
    free(c.gi);
    free(c.inv_nodes);
    hm_free(&c.slice);
    hm_free(&c.carried_of);
    hm_free(&c.inv);
    hm_free(&c.body_cap);
    hm_free(&m.memo);
    hm_free(&m.cap_of);
    if (!result)
        fx_program_free(c.q);
    return result;
}
