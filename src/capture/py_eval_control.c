/* py_eval_control.c — Python control flow in the replay: `if` and loops on known values run (unrolled),
 * on tensors they stay as torch.cond / while_loop subgraphs, and higher-order ops are kept. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/limits.h"
#include "base/strbuf.h"
#include "fx/fx_build.h"
#include "fx/fx.h"
#include "fx/fx_control.h"
#include "capture/export.h"
#include "meta/meta_infer.h"
#include "meta/meta_rules.h"
#include "capture/py_guard.h"
#include "capture/py_values.h"
#include "capture/ts_normalize.h"
#include "capture/py_eval_internal.h"


/* ---- control flow ------------------------------------------------------------------------- */

void pe_frame_init(frame *f, const fx_graph *src, out_graph *out)
{
    memset(f, 0, sizeof *f);
    f->src = src;
    f->out = out;
    hm_init(&f->env);
}

/* Runs sub with its placeholders bound to args; returns what it returns (a TUPLE). */
static pv *inline_graph(pe *E, frame *f, const fx_module *sub, pv **args, size_t n_args)
{
    if (!sub || !sub->graph)
        return pe_fail(E, NULL, "a branch or body subgraph is missing");
    frame c;
    pe_frame_init(&c, sub->graph, f->out);
    c.args = args;
    c.n_args = n_args;
    pv *r = pe_run_graph(E, &c);
    hm_free(&c.env);
    return r;
}

const fx_module *pe_module_of(pe *E, frame *f, const fx_node *n)
{
    (void)E;
    pv *v = hm_get(&f->env, n->name);
    return v && v->kind == PV_MODULE ? v->u.mod : NULL;
}

static pv **values_of(pe *E, frame *f, const fx_arg *seq, size_t *n)
{
    *n = seq && (seq->kind == FX_ARG_TUPLE || seq->kind == FX_ARG_LIST) ? seq->u.seq.len : 0;
    pv **v = arena_alloc(&E->a, (*n + 1) * sizeof *v);
    for (size_t i = 0; i < *n; i++)
        if (!(v[i] = pe_from_arg(E, f, seq->u.seq.items[i])))
            return NULL;
    return v;
}

/* A value that can be folded into a subgraph instead of being passed (a known Python value
 * holding no node). */
static bool foldable(const pv *v)
{
    if (v->kind == PV_NODE || v->kind == PV_MODULE)
        return false;
    if (v->kind == PV_LIST || v->kind == PV_TUPLE || v->kind == PV_SLICE)
        for (size_t i = 0; i < v->u.seq.n; i++)
            if (!foldable(v->u.seq.items[i]))
                return false;
    return true;
}

/* Records a subgraph of a kept control-flow node: a new child module of f's graph, replayed
 * with placeholders for the operands ops[0..n) (metas[i] giving placeholder i's meta when ops
 * does not; those in fold taken as the known values themselves), after n_index loop-index
 * placeholders; returns the get_attr node naming it. */
static fx_node *record_subgraph(pe *E, frame *f, const fx_module *sub, pv **ops, const fx_value **metas, size_t n,
                                const bool *fold, size_t n_index)
{
    if (!sub || !sub->graph) {
        pe_fail(E, NULL, "a branch or body subgraph is missing");
        return NULL;
    }
    /* true_graph_0 → true_graph_N with the first free N, as torch numbers them */
    char base[128];
    snprintf(base, sizeof base, "%s", sub->name);
    char *us = strrchr(base, '_');
    if (us && us[1] && strspn(us + 1, "0123456789") == strlen(us + 1))
        *us = 0;
    fx_module *m = fx_control_new_subgraph(f->out->g->owner, base);
    fx_node *attr = fx_node_new(f->out->g, m->name, FX_OP_GET_ATTR, m->name);
    fx_graph_append(f->out->g, attr);
    frame c;
    pe_frame_init(&c, sub->graph, pe_out_new(E, m->graph));
    c.emit = true;
    c.n_index = n_index;
    c.n_args = n + n_index;
    c.args = arena_alloc(&E->a, (c.n_args + 1) * sizeof *c.args);
    c.metas = arena_alloc(&E->a, (c.n_args + 1) * sizeof *c.metas);
    bool *fl = arena_alloc(&E->a, c.n_args + 1);
    for (size_t i = 0; i < c.n_args; i++) {
        size_t j = i - n_index;
        c.args[i] = i >= n_index && ops ? ops[j] : NULL;
        c.metas[i] = i >= n_index && metas ? metas[j] : NULL;
        fl[i] = i >= n_index && fold && fold[j];
    }
    c.fold = fl;
    pe_run_graph(E, &c);
    hm_free(&c.env);
    return E->failed ? NULL : attr;
}

/* The operands of a kept node as an argument tuple, without the folded ones. */
static fx_arg *operand_tuple(pe *E, frame *f, const fx_node *at, pv **ops, size_t n, const bool *fold)
{
    fx_arg **items = arena_alloc(&E->a, (n + 1) * sizeof *items);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (fold && fold[i])
            continue;
        if (!(items[k++] = pe_to_arg(E, at, ops[i], f->out->g)))
            return NULL;
    }
    return pe_tuple_arg(E, items, k);
}

/* A Python `if` / torch.cond that stays: both branches replayed, known operands folded in. */
static pv *keep_if(pe *E, frame *f, const fx_node *n, const fx_control_view *v, pv *cond)
{
    size_t no;
    pv **ops = values_of(E, f, v->operands, &no);
    if (!ops)
        return NULL;
    bool *fold = arena_alloc(&E->a, no + 1);
    for (size_t i = 0; i < no; i++)
        fold[i] = foldable(ops[i]);
    fx_arg *c = pe_to_arg(E, n, cond, f->out->g);
    fx_node *ta = c ? record_subgraph(E, f, v->sub[0], ops, NULL, no, fold, 0) : NULL;
    fx_node *fa = ta ? record_subgraph(E, f, v->sub[1], ops, NULL, no, fold, 0) : NULL;
    fx_arg *tup = fa ? operand_tuple(E, f, n, ops, no, fold) : NULL;
    if (!tup)
        return NULL;
    fx_arg *a[4] = {c, fx_arg_node(E->dst, ta), fx_arg_node(E->dst, fa), tup};
    return pv_node(&E->a, pe_group_with_attrs(E, pe_record(E, f, n, v->kind == FX_CTRL_IF ? "if" : NULL, n->target,
                                                 pe_tuple_arg(E, a, 4), NULL)));
}

/* A loop that stays: python_for / python_while with its body replayed (index placeholder new,
 * carried values passed, captured known values folded). */
static pv *keep_loop(pe *E, frame *f, const fx_node *n, const fx_control_view *v, pv *trip, pv *cond, pv **carried,
                     size_t nc)
{
    size_t ncap;
    pv **cap = values_of(E, f, v->captured, &ncap);
    if (!cap)
        return NULL;
    pv **ops = arena_alloc(&E->a, (nc + ncap + 1) * sizeof *ops);
    bool *fold = arena_alloc(&E->a, nc + ncap + 1);
    for (size_t i = 0; i < nc; i++) {
        ops[i] = carried[i];
        fold[i] = false;
    }
    for (size_t i = 0; i < ncap; i++) {
        ops[nc + i] = cap[i];
        fold[nc + i] = foldable(cap[i]);
    }
    fx_arg *ta = pe_to_arg(E, n, trip, f->out->g), *ca = cond ? pe_to_arg(E, n, cond, f->out->g) : NULL;
    if (!ta || (cond && !ca))
        return NULL;
    fx_node *body = record_subgraph(E, f, v->sub[0], ops, NULL, nc + ncap, fold, 1);
    fx_arg *ct = body ? operand_tuple(E, f, n, ops, nc, NULL) : NULL;
    fx_arg *kt = ct ? operand_tuple(E, f, n, ops + nc, ncap, fold + nc) : NULL;
    if (!kt)
        return NULL;
    fx_arg *a[5];
    size_t k = 0;
    a[k++] = ta;
    if (cond)
        a[k++] = ca;
    a[k++] = fx_arg_node(E->dst, body);
    a[k++] = ct;
    a[k++] = kt;
    return pv_node(&E->a, pe_group_with_attrs(E, pe_record(E, f, n, v->kind == FX_CTRL_FOR ? "for" : "while", n->target,
                                                 pe_tuple_arg(E, a, k), NULL)));
}

/* Code of torch's own library (nn.functional checks, module forwards, the builtins TorchScript
 * compiles from "<string>"): its decisions are not worth a note each. */
static bool library_code(const fx_node *n)
{
    const char *st = n->meta.stack_trace ? n->meta.stack_trace : n->meta.source;
    return st && (strstr(st, "/dist-packages/torch/") || strstr(st, "/site-packages/torch/") ||
                  strstr(st, "\"<string>\"") || !strncmp(st, "<string>", 8));
}

/* n's name qualified by the subgraphs holding it ("true_graph_0.if_1"), as `rewrite` takes it. */
const char *pe_qualified_name(pe *E, const fx_node *n)
{
    strbuf sb;
    sb_init(&sb);
    const char *parts[64];
    size_t k = 0;
    for (const fx_module *m = n->graph->owner; m && m->parent && k < 64; m = m->parent)
        parts[k++] = m->name;
    while (k-- > 0)
        sb_printf(&sb, "%s.", parts[k]);
    sb_puts(&sb, n->name);
    const char *r = fx_strdup(E->dst, sb.s);
    sb_free(&sb);
    return r;
}

pv *pe_kept(pe *E, const fx_node *src, pv *v)
{
    if (v && E->o && E->o->origins)
        hm_put(E->o->origins, v->u.node->name, (void *)pe_qualified_name(E, src));
    return v;
}

/* A `while` body whose exit test reads a tensor (a `break` on a tensor, a tensor test): torch
 * fails in the first iteration, so the loop is kept whole. */
static bool exit_reads_tensor(const fx_module *body)
{
    const fx_arg *r = body && body->graph ? fx_control_graph_result(body->graph) : NULL;
    const fx_arg *next = r && (r->kind == FX_ARG_TUPLE || r->kind == FX_ARG_LIST) && r->u.seq.len ? r->u.seq.items[0]
                                                                                                   : NULL;
    const fx_value *nv = next && next->kind == FX_ARG_NODE ? next->u.node->meta.val : NULL;
    if (nv && nv->kind == FX_VAL_TENSOR)
        return true;
    for (const fx_node *x = body ? body->graph->first : NULL; x; x = x->next) {
        fx_control_view iv;
        const fx_value *cv = fx_control_kind_of(x) == FX_CTRL_IF && fx_control_inspect(x, &iv) &&
                                     iv.cond->kind == FX_ARG_NODE
                                 ? iv.cond->u.node->meta.val
                                 : NULL;
        if (cv && cv->kind == FX_VAL_TENSOR)
            return true;
    }
    return false;
}

/* The trip count of a `for` the TorchScript exporter's route unrolls: a literal range. */
static bool literal_trip(const fx_control_view *v) { return v->trip && v->trip->kind == FX_ARG_INT; }

/* A loop body that computes tensors (rather than only Python values: sizes, lists of them).
 * The TorchScript exporter's route keeps only those as loops; the others are folded. */
static bool body_has_tensor_ops(const fx_module *body)
{
    for (const fx_node *x = body && body->graph ? body->graph->first : NULL; x; x = x->next) {
        if (x->op != FX_OP_CALL_FUNCTION)
            continue;
        fx_control_view iv;
        if (fx_control_kind_of(x) != FX_CTRL_NONE && fx_control_inspect(x, &iv) &&
            (body_has_tensor_ops(iv.sub[0]) || body_has_tensor_ops(iv.sub[1])))
            return true;
        if (!strncmp(x->target, "torch.ops.", 10) && strncmp(x->target, "torch.ops.aten.sym_", 19) &&
            strcmp(x->target, "torch.ops.aten.dim.default"))
            return true;
    }
    return false;
}

/* Whether a branch only raises (the else of a scripted `torch._check(c)` / `assert c`). */
static bool only_raises(const fx_module *b)
{
    bool raises = false;
    for (const fx_node *x = b && b->graph ? b->graph->first : NULL; x; x = x->next) {
        if (x->op != FX_OP_CALL_FUNCTION) continue;
        if (x->target && !strcmp(x->target, "fxsh.prim.RaiseException")) raises = true;
        else if (x->target && strncmp(x->target, "builtins.", 9) && strncmp(x->target, "operator.", 9)) return false;
    }
    return raises;
}

/* A token u<N> / zuf<N> in a SymBool's text: the condition reads a value out of a tensor. */
static bool reads_unbacked(const char *text)
{
    for (const char *p = text; p && *p; p++) {
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
        const char *q = !strncmp(p, "zuf", 3) ? p + 3 : *p == 'u' ? p + 1 : NULL;
        if (q && isdigit((unsigned char)*q)) return true;
    }
    return false;
}

/* `torch._check(c)` scripted (an `if c` whose else only raises) on a condition torch.export
 * cannot decide (it reads an unbacked symbol): torch records it as a runtime assertion,
 * _assert_scalar(c, "Runtime assertion failed for expression c on node 'ge_1'"), and goes on
 * as if it held. The condition's value on the branch that goes on (1: the else raises), or -1
 * when the if is not such a check. */
static int check_branch(pe *E, frame *f, const fx_node *n, const fx_control_view *v, const pv *cond)
{
    const fx_value *m = cond->kind == PV_NODE ? cond->u.node->meta.val : NULL;
    if (!m || m->kind != FX_VAL_SYM || !reads_unbacked(m->text) || !v->sub[1]) return -1;
    bool raise0 = only_raises(v->sub[0]), raise1 = only_raises(v->sub[1]);
    if (raise0 == raise1) return -1;
    const char *text = raise0 ? arena_printf(&E->a, "~(%s)", m->text) : m->text;
    fx_arg *a[2] = {fx_arg_node(E->dst, cond->u.node),
                    fx_arg_str(E->dst, FX_ARG_STR, arena_printf(&E->a, "Runtime assertion failed for expression %s on node '%s'", text,
                                                    cond->u.node->name))};
    pe_record(E, f, n, "_assert_scalar_default", "torch.ops.aten._assert_scalar.default", pe_tuple_arg(E, a, 2), NULL);
    return raise1;   /* the condition's value on the branch that goes on */
}

pv *pe_control(pe *E, frame *f, const fx_node *n)
{
    fx_control_view v;
    if (!fx_control_inspect(n, &v))
        return pe_fail(E, n, "a control-flow node of unexpected shape");
    if (v.kind == FX_CTRL_IF || v.kind == FX_CTRL_COND) {
        pv *cond = pe_from_arg(E, f, v.cond);
        if (!cond)
            return NULL;
        int t = pv_truth(cond);
        bool guarded = false;   /* a size `if` on a dynamic dimension, decided as torch guards it */
        if (v.kind == FX_CTRL_IF && t < 0 && !(E->o && E->o->keep_loops)) {
            t = check_branch(E, f, n, &v, cond);
            guarded = t >= 0;
        }
        if (v.kind == FX_CTRL_IF && t < 0 && cond->kind == PV_NODE && !(E->o && E->o->keep_loops) && v.sub[1]) {
            const char *const br[2] = {v.sub[0]->name, v.sub[1]->name};
            t = py_guard_decide(cond->u.node, E->src, E->o, pe_qualified_name(E, n), br, pe_loc(E, n), E->d);
            if (t == -2) {   /* torch's "Constraints violated", reported */
                E->failed = true;
                return NULL;
            }
            guarded = t >= 0;
        }
        if (v.kind == FX_CTRL_IF && t >= 0) {
            size_t no;
            pv **ops = values_of(E, f, v.operands, &no);
            if (!library_code(n) && !guarded && v.sub[t ? 0 : 1])
                diag_note(E->d, pe_loc(E, n),
                          "%%%s: the condition is %s for the example shapes; specialized to %s (guard recorded)",
                          pe_qualified_name(E, n), t ? "True" : "False", v.sub[t ? 0 : 1]->name);
            return ops ? inline_graph(E, f, v.sub[t ? 0 : 1], ops, no) : NULL;
        }
        return pe_kept(E, n, keep_if(E, f, n, &v, cond));
    }
    size_t nc, ncap;
    pv **carried = values_of(E, f, v.operands, &nc), **cap = values_of(E, f, v.captured, &ncap);
    pv *trip = carried && cap ? pe_from_arg(E, f, v.trip) : NULL;
    if (!trip)
        return NULL;
    pv c;
    if (trip->kind == PV_NODE && pv_node_const(trip->u.node, &c))
        *trip = c;
    bool unroll = !(E->o && E->o->keep_loops) || literal_trip(&v) || !body_has_tensor_ops(v.sub[0]);
    pv **args = arena_alloc(&E->a, (1 + nc + ncap + 1) * sizeof *args);
    memcpy(args + 1 + nc, cap, ncap * sizeof *cap);
    if (v.kind == FX_CTRL_FOR) {
        if (!unroll || trip->kind != PV_INT)
            return pe_kept(E, n, keep_loop(E, f, n, &v, trip, NULL, carried, nc));
        /* a trip count whose iterations cannot all be replayed is refused before the first:
         * the TorchScript exporter's route keeps such a loop a loop, torch.export's fails */
        size_t per = pe_body_steps(v.sub[0]);
        if (trip->u.i > 0 && ((uint64_t)trip->u.i > (E->max_steps - E->steps) / per)) {
            if (E->o && E->o->keep_loops) {
                diag_note(E->d, pe_loc(E, n), "%%%s: `for` over range(%" PRId64 ") kept as a loop: unrolling it would take "
                          "more than %" PRIu64 " steps (" FXSH_MAX_REPLAY_STEPS_ENV ")", pe_qualified_name(E, n), trip->u.i,
                          E->max_steps);
                return pe_kept(E, n, keep_loop(E, f, n, &v, trip, NULL, carried, nc));
            }
            char what[96];
            snprintf(what, sizeof what, "the `for` loop runs %" PRId64 " iterations of %zu nodes", trip->u.i, per);
            E->loop = n;
            return pe_too_long(E, n, what);
        }
        const fx_node *outer = E->loop;
        E->loop = n;
        if (!library_code(n))
            diag_note(E->d, pe_loc(E, n), "%%%s: `for` over range(%" PRId64 ") unrolled", pe_qualified_name(E, n),
                      trip->u.i);
        for (int64_t it = 0; it < trip->u.i; it++) {
            args[0] = pv_int(&E->a, it);
            memcpy(args + 1, carried, nc * sizeof *carried);
            pv *r = inline_graph(E, f, v.sub[0], args, 1 + nc + ncap);
            if (!r || !pv_is_seq(r) || r->u.seq.n < nc)
                return r ? pe_fail(E, n, "the loop body returns fewer values than it carries") : NULL;
            carried = r->u.seq.items;
        }
        E->loop = outer;
        pv *res = pv_seq(&E->a, PV_TUPLE, nc);
        for (size_t i = 0; i < nc; i++)
            pv_push(&E->a, res, carried[i]);
        return res;
    }
    /* python_while: body(i, *carried, *captured) returns (next test, *carried) */
    pv *cond = pe_from_arg(E, f, v.cond);
    if (!cond)
        return NULL;
    int64_t max = trip->kind == PV_INT ? trip->u.i : INT64_MAX;
    bool tensor_exit = exit_reads_tensor(v.sub[0]);
    const fx_node *outer = E->loop;
    E->loop = n;
    for (int64_t it = 0;; it++) {
        int t = pv_truth(cond);
        if (!unroll || t < 0 || tensor_exit) {
            E->loop = outer;
            return pe_kept(E, n, keep_loop(E, f, n, &v, trip->kind == PV_INT ? pv_int(&E->a, max - it) : trip, cond, carried, nc));
        }
        if (!t || it >= max) {
            E->loop = outer;
            pv *res = pv_seq(&E->a, PV_TUPLE, nc);
            for (size_t i = 0; i < nc; i++)
                pv_push(&E->a, res, carried[i]);
            return res;
        }
        args[0] = pv_int(&E->a, it);
        memcpy(args + 1, carried, nc * sizeof *carried);
        pv *r = inline_graph(E, f, v.sub[0], args, 1 + nc + ncap);
        if (!r || !pv_is_seq(r) || r->u.seq.n < nc + 1)
            return r ? pe_fail(E, n, "the loop body returns fewer values than it carries") : NULL;
        cond = r->u.seq.items[0];
        carried = r->u.seq.items + 1;
    }
}

/* The meta of one step's slice of a scanned tensor (dim 0 dropped). */
static const fx_value *slice_meta(pe *E, const pv *x)
{
    const fx_value *v = x->kind == PV_NODE ? x->u.node->meta.val : NULL;
    if (!v || v->kind != FX_VAL_TENSOR || !v->rank)
        return NULL;
    fx_value *s = fx_copy_value(E->dst, v);
    s->rank = v->rank - 1;
    s->sizes = s->sizes + 1;
    s->strides = NULL;
    return s;
}

/* Appends the values of a TUPLE / LIST argument to ops (and their metas, sliced for scan's xs). */
static bool add_operands(pe *E, frame *f, const fx_arg *seq, bool sliced, pv **ops, const fx_value **metas, size_t *n)
{
    size_t k;
    pv **v = values_of(E, f, seq, &k);
    if (!v)
        return false;
    for (size_t i = 0; i < k; i++) {
        ops[*n] = sliced ? NULL : v[i];
        metas[*n] = sliced ? slice_meta(E, v[i]) : NULL;
        (*n)++;
    }
    return true;
}

/* while_loop / scan and other calls taking subgraphs: replayed with every operand passed;
 * the subgraphs' placeholders take while_loop's carried + additional inputs, scan's init,
 * one slice of each xs and additional inputs. */
pv *pe_keep_hop(pe *E, frame *f, const fx_node *n)
{
    size_t na = n->args->u.seq.len, nops = 0;
    fx_arg **a = arena_alloc(&E->a, (na + 1) * sizeof *a);
    pv *ops[256];
    const fx_value *metas[256];
    bool scan = !strcmp(n->target, "torch.ops.higher_order.scan");
    size_t first = scan ? 1 : 2;
    for (size_t i = first; i < na && i < first + 3; i++) {
        size_t len = n->args->u.seq.items[i]->kind == FX_ARG_TUPLE || n->args->u.seq.items[i]->kind == FX_ARG_LIST
                         ? n->args->u.seq.items[i]->u.seq.len
                         : 0;
        if (nops + len > 256)
            return pe_fail(E, n, "too many operands");
        if (!add_operands(E, f, n->args->u.seq.items[i], scan && i == 2, ops, metas, &nops))
            return NULL;
    }
    for (size_t i = 0; i < na; i++) {
        const fx_arg *x = n->args->u.seq.items[i];
        const fx_module *m = x->kind == FX_ARG_NODE ? pe_module_of(E, f, x->u.node) : NULL;
        if (m) {
            fx_node *attr = record_subgraph(E, f, m, ops, metas, nops, NULL, 0);
            if (!attr)
                return NULL;
            a[i] = fx_arg_node(E->dst, attr);
            continue;
        }
        pv *v = pe_from_arg(E, f, x);
        if (!v || !(a[i] = pe_to_arg(E, n, v, f->out->g)))
            return NULL;
    }
    return pv_node(&E->a, pe_group_with_attrs(E, pe_record(E, f, n, NULL, n->target, pe_tuple_arg(E, a, na), NULL)));
}

