/* py_eval.c — replays the Python-level code of a loaded program on its example shapes, as
 * torch.export's tracing runs it, and records the tensor ops into a new program. */
#include "capture/py_eval.h"

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
#include "capture/py_values.h"
#include "capture/ts_normalize.h"
#include "capture/py_eval_internal.h"


/* ---- diagnostics --------------------------------------------------------------------------- */

diag_loc pe_loc(pe *E, const fx_node *n)
{
    return (diag_loc){E->src->file, n ? n->src_line : 0, 0};
}

pv *pe_fail(pe *E, const fx_node *n, const char *fmt, ...)
{
    if (!E->failed) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        diag_error(E->d, pe_loc(E, n), "export: %s (node %%%s)", msg, n ? n->name : "?");
    }
    E->failed = true;
    return NULL;
}

/* A module attribute TorchScript reads at run time (the loader's opaque "self.heads"): its value
 * is not in the program, so nothing that uses it can be replayed. */
static bool unknown_attr(pe *E, const fx_node *n, const pv *v)
{
    if (v->kind != PV_OPAQUE || strncmp(v->u.s, "self.", 5) != 0)
        return false;
    if (!E->failed) {
        const char *dot = strrchr(v->u.s, '.');
        diagnostic *dg = diag_error(E->d, pe_loc(E, n),
                                    "export: the value of %s is not known: TorchScript reads module attributes at "
                                    "run time and its text does not hold them (node %%%s)",
                                    v->u.s, n ? n->name : "?");
        diag_set_hint(dg, "give it when loading: load ... --attr %s=VALUE", dot + 1);
    }
    E->failed = true;
    return true;
}

/* The replay ran (or would run) more than E->max_steps Python-level steps: a loop with a huge
 * trip count, or a `while` that does not end on the example inputs. What to do about it is in
 * the hint: torch.export would unroll it too. */
pv *pe_too_long(pe *E, const fx_node *n, const char *what)
{
    if (!E->failed) {
        const fx_node *loop = E->loop;
        diagnostic *dg = diag_error(E->d, pe_loc(E, n),
                                    "export: %s: replaying it as torch.export's tracing does would take more than %" PRIu64
                                    " Python-level steps (node %%%s)",
                                    what, E->max_steps, n ? n->name : "?");
        if (loop)
            diag_set_hint(dg, "torch.export unrolls the loop %%%s too; make it one loop op with `rewrite %s scan` (or "
                              "while_loop), or raise the limit with the environment variable " FXSH_MAX_REPLAY_STEPS_ENV "=N",
                          loop->name, pe_qualified_name(E, loop));
        else
            diag_set_hint(dg, "raise the limit with the environment variable " FXSH_MAX_REPLAY_STEPS_ENV "=N");
    }
    E->failed = true;
    return NULL;
}

/* Nodes of a subgraph, nested loop bodies counted once: a lower bound of one iteration's steps. */
size_t pe_body_steps(const fx_module *body)
{
    return body && body->graph && body->graph->n_nodes ? body->graph->n_nodes : 1;
}

/* ---- values of the source program ---------------------------------------------------------------- */

pv *pe_from_arg(pe *E, frame *f, const fx_arg *a)
{
    switch (a->kind) {
    case FX_ARG_NONE: return pv_new(&E->a, PV_NONE);
    case FX_ARG_INT: return pv_int(&E->a, a->u.i);
    case FX_ARG_FLOAT: return pv_float(&E->a, a->u.f);
    case FX_ARG_BOOL: return pv_bool(&E->a, a->u.b);
    case FX_ARG_STR: return pv_str(&E->a, PV_STR, a->u.s);
    case FX_ARG_DEVICE: return pv_str(&E->a, PV_DEVICE, a->u.s);
    case FX_ARG_MEMFMT: return pv_str(&E->a, PV_MEMFMT, a->u.s);
    case FX_ARG_LAYOUT: return pv_str(&E->a, PV_LAYOUT, a->u.s);
    case FX_ARG_OPAQUE: return pv_str(&E->a, PV_OPAQUE, a->u.s);
    case FX_ARG_ELLIPSIS: return pv_new(&E->a, PV_ELLIPSIS);
    case FX_ARG_DTYPE: {
        pv *v = pv_new(&E->a, PV_DTYPE);
        v->u.dt = a->u.dtype;
        return v;
    }
    case FX_ARG_NODE: {
        pv *v = hm_get(&f->env, a->u.node->name);
        return v ? v : pe_fail(E, a->u.node, "the value of %%%s is not known here", a->u.node->name);
    }
    case FX_ARG_LIST: case FX_ARG_TUPLE: case FX_ARG_SLICE: {
        pv *v = pv_seq(&E->a, a->kind == FX_ARG_LIST ? PV_LIST : a->kind == FX_ARG_TUPLE ? PV_TUPLE : PV_SLICE,
                       a->u.seq.len);
        for (size_t i = 0; i < a->u.seq.len; i++) {
            pv *it = pe_from_arg(E, f, a->u.seq.items[i]);
            if (!it)
                return NULL;
            pv_push(&E->a, v, it);
        }
        return v;
    }
    case FX_ARG_DICT: break;
    }
    return pe_fail(E, NULL, "an argument of an unexpected kind");
}

static fx_node *materialize_lift(pe *E, const fx_node *at, pv *v, fx_graph *g);

/* A value as an argument of a node of graph g of the new program; NULL (reported) when it is
 * not one (a subgraph, a value of another graph). */
fx_arg *pe_to_arg(pe *E, const fx_node *at, const pv *v, const fx_graph *g)
{
    fx_program *p = E->dst;
    if (v->kind == PV_LIFT && !materialize_lift(E, at, (pv *)v, (fx_graph *)g))
        return NULL;
    switch (v->kind) {
    case PV_NONE: return fx_arg_none(p);
    case PV_BOOL: return fx_arg_bool(p, v->u.b);
    case PV_INT: return fx_arg_int(p, v->u.i);
    case PV_FLOAT: return fx_arg_float(p, v->u.f);
    case PV_STR: return fx_arg_str(p, FX_ARG_STR, v->u.s);
    case PV_DEVICE: return fx_arg_str(p, FX_ARG_DEVICE, v->u.s);
    case PV_MEMFMT: return fx_arg_str(p, FX_ARG_MEMFMT, v->u.s);
    case PV_LAYOUT: return fx_arg_str(p, FX_ARG_LAYOUT, v->u.s);
    case PV_OPAQUE: return unknown_attr(E, at, v) ? NULL : fx_arg_str(p, FX_ARG_OPAQUE, v->u.s);
    case PV_ELLIPSIS: return fx_arg_ellipsis(p);
    case PV_DTYPE: return fx_arg_dtype(p, v->u.dt);
    case PV_NODE:
        if (v->u.node->graph != g) {
            pe_fail(E, at, "%%%s is used inside a subgraph it was not passed into", v->u.node->name);
            return NULL;
        }
        return fx_arg_node(p, v->u.node);
    case PV_LIST: case PV_TUPLE: case PV_SLICE: {
        size_t n = v->u.seq.n;
        fx_arg **items = arena_alloc(&E->a, (n ? n : 1) * sizeof *items);
        for (size_t i = 0; i < n; i++)
            if (!(items[i] = pe_to_arg(E, at, v->u.seq.items[i], g)))
                return NULL;
        return fx_arg_seq(p, v->kind == PV_LIST ? FX_ARG_LIST : v->kind == PV_TUPLE ? FX_ARG_TUPLE : FX_ARG_SLICE,
                          items, NULL, n);
    }
    case PV_MODULE: case PV_LIFT: break;
    }
    pe_fail(E, at, "a subgraph is used as a value");
    return NULL;
}

/* ---- recording ------------------------------------------------------------------------------- */

static const char *dup_text(fx_program *p, const char *s) { return s ? fx_strdup(p, s) : NULL; }

/* src's source location and module stack, copied into the new program (the program replayed
 * may be freed before the result); the value meta is left to inference. */
static void take_meta(pe *E, fx_node *n, const fx_node *src)
{
    n->meta = src->meta;
    n->meta.val = NULL;
    n->meta.stack_trace = dup_text(E->dst, src->meta.stack_trace);
    n->meta.source = dup_text(E->dst, src->meta.source);
    n->meta.annotation = dup_text(E->dst, src->meta.annotation);
    n->meta.nn_module_stack = dup_text(E->dst, src->meta.nn_module_stack);
    n->meta.source_fn_stack = dup_text(E->dst, src->meta.source_fn_stack);
    n->meta.torch_fn = dup_text(E->dst, src->meta.torch_fn);
    n->src_line = src->src_line;
}

out_graph *pe_out_new(pe *E, fx_graph *g)
{
    out_graph *o = xcalloc(1, sizeof *o);
    o->g = g;
    fx_namer_init(&o->nm, g);
    o->next = E->outs;
    E->outs = o;
    return o;
}

/* Appends target(args | kwargs) to f's graph, named as torch names it, with src's stack trace
 * and a value meta inferred from its arguments. */
fx_node *pe_record(pe *E, frame *f, const fx_node *src, const char *name_base, const char *target, fx_arg *args,
                       fx_arg *kwargs)
{
    char base[128];
    if (!name_base)
        name_base = fx_node_base_name(target, base, sizeof base);
    fx_node *n = fx_node_new(f->out->g, fx_namer_name(&f->out->nm, name_base), FX_OP_CALL_FUNCTION, target);
    fx_node_set_args(n, args, kwargs ? kwargs : fx_arg_seq(E->dst, FX_ARG_DICT, NULL, NULL, 0));
    /* arguments the Python code computed are literals now: those at their default go */
    tsn_normalize_node(E->dst, E->rules, n);
    fx_graph_append(f->out->g, n);
    if (src) {
        take_meta(E, n, src);
        if (f->emit) {
            /* torch traces a subgraph from the code dynamo generated for it, one line per call:
             * the nodes of one source call print as one group, apart from their neighbours */
            if (src != E->group_src) {
                E->group_src = src;
                E->group = ++E->next_group;
            }
            n->meta.trace_group = E->group;
        }
    }
    meta_inferer_node(E->mi, n);
    return n;
}

/* A kept control-flow node prints as one group with the get_attrs of its subgraphs before it
 * and the getitems of its results after it (torch's node for the call and its outputs). */
fx_node *pe_group_with_attrs(pe *E, fx_node *n)
{
    int g = ++E->next_group;
    n->meta.trace_group = g;
    for (fx_node *x = n->prev; x && x->op == FX_OP_GET_ATTR; x = x->prev) {
        x->meta = n->meta;
        x->meta.val = NULL;
    }
    return n;
}

fx_arg *pe_tuple_arg(pe *E, fx_arg **items, size_t n)
{
    return fx_arg_seq(E->dst, FX_ARG_TUPLE, items, NULL, n);
}

/* Records src's call with its arguments' current values. */
static pv *record_call(pe *E, frame *f, const fx_node *src, const char *name_base)
{
    size_t na = src->args->u.seq.len, nk = src->kwargs->u.seq.len;
    fx_arg **a = arena_alloc(&E->a, (na + 1) * sizeof *a), **kv = arena_alloc(&E->a, (nk + 1) * sizeof *kv);
    for (size_t i = 0; i < na; i++) {
        pv *v = pe_from_arg(E, f, src->args->u.seq.items[i]);
        if (!v || !(a[i] = pe_to_arg(E, src, v, f->out->g)))
            return NULL;
    }
    for (size_t i = 0; i < nk; i++) {
        pv *v = pe_from_arg(E, f, src->kwargs->u.seq.items[i]);
        if (!v || !(kv[i] = pe_to_arg(E, src, v, f->out->g)))
            return NULL;
    }
    fx_node *n = pe_record(E, f, src, name_base, src->target, pe_tuple_arg(E, a, na),
                        fx_arg_seq(E->dst, FX_ARG_DICT, kv, src->kwargs->u.seq.keys, nk));
    return pv_node(&E->a, n);
}

/* torch.export checks self's metadata before a Tensor.to (aten.to.*). */
static void record_metadata_assert(pe *E, frame *f, const fx_node *src, fx_node *self)
{
    const fx_value *v = self->meta.val;
    if (!v || v->kind != FX_VAL_TENSOR)
        return;
    const char *keys[3];
    fx_arg *kv[3];
    size_t nk = 0;
    if (v->dtype != FX_DT_UNKNOWN) {
        keys[nk] = "dtype";
        kv[nk++] = fx_arg_dtype(E->dst, v->dtype);
    }
    keys[nk] = "device";
    kv[nk++] = fx_arg_str(E->dst, FX_ARG_DEVICE, v->device ? v->device : "cpu");
    keys[nk] = "layout";
    kv[nk++] = fx_arg_str(E->dst, FX_ARG_LAYOUT, "strided");
    fx_arg *a = fx_arg_node(E->dst, self);
    pe_record(E, f, src, "_assert_tensor_metadata_default", "torch.ops.aten._assert_tensor_metadata.default",
           pe_tuple_arg(E, &a, 1), fx_arg_seq(E->dst, FX_ARG_DICT, kv, keys, nk));
}

/* ---- sizes and Python calls ------------------------------------------------------------------------ */

/* A size of the tensor a node computes: a number, or NULL when it is symbolic (or declared
 * dynamic) and must be read with sym_size at run time. */
static bool static_size(pe *E, const fx_node *t, int64_t k, int64_t *out)
{
    const fx_value *v = t->meta.val;
    if (!v || v->kind != FX_VAL_TENSOR || k < 0 || (size_t)k >= v->rank)
        return false;
    for (size_t i = 0; E->o && i < E->o->n_dynamic; i++)
        if (t->op == FX_OP_PLACEHOLDER && !strcmp(E->o->dynamic[i].input, t->name) && E->o->dynamic[i].axis == k)
            return false;
    char *end;
    long long s = strtoll(v->sizes[k], &end, 10);
    if (!*v->sizes[k] || *end)
        return false;
    *out = s;
    return true;
}

/* x.size(k): the number, or a recorded sym_size.int. */
static pv *size_of(pe *E, frame *f, const fx_node *src, fx_node *t, int64_t k)
{
    const fx_value *v = t->meta.val;
    if (!v || v->kind != FX_VAL_TENSOR)
        return pe_fail(E, src, "the size of %%%s is read, but its shape is not known", t->name);
    if (k < 0)
        k += (int64_t)v->rank;
    int64_t s;
    if (static_size(E, t, k, &s))
        return pv_int(&E->a, s);
    if (k < 0 || (size_t)k >= v->rank)
        return pe_fail(E, src, "dimension %" PRId64 " of %%%s is out of range", k, t->name);
    fx_arg *a[2] = {fx_arg_node(E->dst, t), fx_arg_int(E->dst, k)};
    /* torch.export's symbolic-size nodes come out of an earlier trace already counted once
     * (as the export pass names them) */
    return pv_node(&E->a, pe_record(E, f, src, "sym_size_int_1", "torch.ops.aten.sym_size.int", pe_tuple_arg(E, a, 2), NULL));
}

static pv *tensor_arg(pe *E, const fx_node *src, pv *v)
{
    if (v->kind != PV_NODE || !v->u.node->meta.val || v->u.node->meta.val->kind != FX_VAL_TENSOR)
        return pe_fail(E, src, "expected a tensor with known shape");
    return v;
}

pv *pe_control(pe *E, frame *f, const fx_node *n);

/* A Python-level call: its value, computed; NULL with E->failed on an error; the recorded call
 * when its operands are not all known (SymInts of dynamic sizes). */
/* Each python_* handler below takes a call whose target it knows, with its arguments' values.
 * With *final set, what it returns is the call's value (NULL: reported); otherwise it did not
 * know the operands (SymInts of dynamic sizes) and the call is recorded, as torch records it. */
/* operator.* on known values (indexing, arithmetic, comparisons). */
static pv *python_operator(pe *E, frame *f, const fx_node *n, pv **a, size_t na, bool *final)
{
    const char *t = n->target;
    pv *r = NULL;
    *final = true;
    if (!strncmp(t, "operator.", 9)) {
        const char *op = t + 9;
        /* every Python operator takes an operand (an edited file can call one with none) */
        if (na == 0)
            return pe_fail(E, n, "%s called without an operand", t);
        if (!strcmp(op, "getitem") && na == 2) {
            r = py_getitem(&E->a, a[0], a[1]);
            if (!r && a[0]->kind == PV_NODE) {
                r = record_call(E, f, n, "getitem");
                fx_node *of = a[0]->u.node;
                if (r && (fx_control_kind_of(of) != FX_CTRL_NONE || !strncmp(of->target, "torch.ops.higher_order.", 23))) {
                    r->u.node->meta.stack_trace = of->meta.stack_trace;
                    r->u.node->meta.source = of->meta.source;
                    r->u.node->meta.trace_group = of->meta.trace_group;
                }
                return r;
            }
            if (!r && f->emit)
                return record_call(E, f, n, "getitem");   /* a kept branch indexing what it does not know */
            if (!r)
                return pe_fail(E, n, "cannot index this value");
            return r;
        }
        const char *error = NULL;
        r = py_operator(&E->a, op, a[0], na > 1 ? a[1] : NULL, &error);
        if (error)
            return pe_fail(E, n, "%s", error);
    }
    *final = false;
    return r;
}

/* What a Python-level query of a tensor gives: dim(), sizes, dtype, device. */
static pv *python_tensor_query(pe *E, frame *f, const fx_node *n, pv **a, size_t na, bool *final)
{
    const char *t = n->target;
    pv *r = NULL;
    *final = true;
    if (!strcmp(t, "torch.ops.aten.dim.default") && na == 1) {
        if (!tensor_arg(E, n, a[0]))
            return NULL;
        return pv_int(&E->a, (int64_t)a[0]->u.node->meta.val->rank);
    } else if (!strcmp(t, "torch.ops.aten.sym_size.int") && na == 2 && a[1]->kind == PV_INT) {
        if (!tensor_arg(E, n, a[0]))
            return NULL;
        return size_of(E, f, n, a[0]->u.node, a[1]->u.i);
    } else if (!strcmp(t, "torch.ops.aten.sym_size.default") && na == 1) {
        if (!tensor_arg(E, n, a[0]))
            return NULL;
        size_t rank = a[0]->u.node->meta.val->rank;
        r = pv_seq(&E->a, PV_LIST, rank);
        for (size_t k = 0; k < rank; k++) {
            pv *s = size_of(E, f, n, a[0]->u.node, (int64_t)k);
            if (!s)
                return NULL;
            pv_push(&E->a, r, s);
        }
        return r;
    } else if (!strcmp(t, "fxsh.prim.dtype") && na == 1) {
        if (!tensor_arg(E, n, a[0]))
            return NULL;
        r = pv_new(&E->a, PV_DTYPE);
        r->u.dt = a[0]->u.node->meta.val->dtype;
        return r;
    } else if (!strcmp(t, "fxsh.prim.device") && na == 1) {
        if (!tensor_arg(E, n, a[0]))
            return NULL;
        const char *dev = a[0]->u.node->meta.val->device;
        return pv_str(&E->a, PV_DEVICE, dev ? dev : "cpu");
    }
    *final = false;
    return r;
}

/* Python builtins and math on known values (len, int, float, bool, abs, min, max, list, str.format). */
static pv *python_builtin(pe *E, frame *f, const fx_node *n, pv **a, size_t na, bool *final)
{
    const char *t = n->target;
    pv *r = NULL;
    *final = true;
    if (!strcmp(t, "builtins.len") && na == 1) {
        if (pv_is_seq(a[0]))
            return pv_int(&E->a, (int64_t)a[0]->u.seq.n);
        if (a[0]->kind == PV_STR)
            return pv_int(&E->a, (int64_t)strlen(a[0]->u.s));
    } else if (!strcmp(t, "builtins.int") && na == 1 && a[0]->kind == PV_NODE && a[0]->u.node->target &&
               (!strcmp(a[0]->u.node->target, "torch.ops.aten.item.default") ||
                !strcmp(a[0]->u.node->target, "torch.ops.aten._local_scalar_dense.default"))) {
        /* TorchScript's aten::Int of a Scalar from .item(): its typing's conversion (a slice
         * bound takes an int), which Python does not make: the SymInt itself */
        return a[0];
    } else if ((!strcmp(t, "builtins.int") || !strcmp(t, "math.floor") || !strcmp(t, "math.ceil")) && na == 1) {
        if (a[0]->kind == PV_FLOAT) {
            double v = t[5] == 'f' ? floor(a[0]->u.f) : t[5] == 'c' ? ceil(a[0]->u.f) : trunc(a[0]->u.f);
            return pv_int(&E->a, (int64_t)v);
        }
        if (a[0]->kind == PV_INT || a[0]->kind == PV_BOOL)
            return pv_int(&E->a, a[0]->kind == PV_INT ? a[0]->u.i : a[0]->u.b);
    } else if (!strcmp(t, "builtins.float") && na == 1 && pv_is_num(a[0])) {
        return pv_float(&E->a, pv_num(a[0]));
    } else if (!strcmp(t, "builtins.bool") && na == 1) {
        int v = pv_truth(a[0]);
        if (v >= 0)
            return pv_bool(&E->a, v);
    } else if (!strcmp(t, "math.sqrt") && na == 1 && pv_is_num(a[0])) {
        return pv_float(&E->a, sqrt(pv_num(a[0])));
    } else if (!strcmp(t, "builtins.abs") && na == 1 && pv_is_num(a[0])) {
        return a[0]->kind == PV_FLOAT ? pv_float(&E->a, fabs(a[0]->u.f)) : pv_int(&E->a, llabs(a[0]->u.i));
    } else if ((!strcmp(t, "builtins.min") || !strcmp(t, "builtins.max")) && na >= 1) {
        pv **it = a;
        size_t k = na;
        if (na == 1 && pv_is_seq(a[0])) {
            it = a[0]->u.seq.items;
            k = a[0]->u.seq.n;
        }
        pv *best = NULL;
        for (size_t i = 0; i < k; i++) {
            if (!pv_is_num(it[i]))
                break;
            if (!best || (t[11] == 'i' ? pv_num(it[i]) < pv_num(best) : pv_num(it[i]) > pv_num(best)))
                best = it[i];
            if (i + 1 == k)
                return best;
        }
    } else if (!strcmp(t, "builtins.list") && na <= 1) {
        r = pv_seq(&E->a, PV_LIST, na && pv_is_seq(a[0]) ? a[0]->u.seq.n : 4);
        if (na && !pv_is_seq(a[0]))
            return record_call(E, f, n, NULL);
        for (size_t i = 0; na && i < a[0]->u.seq.n; i++)
            pv_push(&E->a, r, a[0]->u.seq.items[i]);
        return r;
    } else if (!strcmp(t, "builtins.str.format")) {
        r = py_format(&E->a, a, na);
    }
    *final = false;
    return r;
}

/* fxsh's own pseudo-calls of TorchScript code: list append, warnings, raise. */
static pv *python_fxsh(pe *E, frame *f, const fx_node *n, pv **a, size_t na, bool *final)
{
    const char *t = n->target;
    *final = true;
    if (!strcmp(t, "fxsh.list_append") && na == 2) {
        if (a[0]->kind != PV_LIST)
            return f->emit ? record_call(E, f, n, "append") : pe_fail(E, n, "append to a value that is not a list");
        pv_push(&E->a, a[0], a[1]);
        return pv_new(&E->a, PV_NONE);
    } else if (!strcmp(t, "fxsh.warn")) {
        return pv_new(&E->a, PV_NONE);
    } else if (!strcmp(t, "fxsh.prim.RaiseException")) {
        if (f->emit)
            return record_call(E, f, n, "raise_exception");
        strbuf msg;
        sb_init(&msg);
        if (na > 0)
            pv_str_of(a[0], &msg);
        const char *cls = na > 1 && a[1]->kind == PV_STR ? a[1]->u.s : "builtins.Exception";
        const char *dot = strrchr(cls, '.');
        pe_fail(E, n, "the model raises %s: %s", dot ? dot + 1 : cls, msg.s ? msg.s : "");
        sb_free(&msg);
        return NULL;
    }
    *final = false;
    return NULL;
}

static pv *python_call(pe *E, frame *f, const fx_node *n, bool *handled)
{
    const char *t = n->target;
    size_t na = n->args->u.seq.len;
    *handled = true;
    bool py = !strncmp(t, "operator.", 9) || !strncmp(t, "builtins.", 9) || !strncmp(t, "math.", 5) ||
              !strncmp(t, "fxsh.", 5) || !strcmp(t, "torch.ops.aten.dim.default") ||
              !strncmp(t, "torch.ops.aten.sym_size.", 24);
    if (!py) {
        *handled = false;
        return NULL;
    }
    pv **a = arena_alloc(&E->a, (na + 1) * sizeof *a);
    for (size_t i = 0; i < na; i++)
        if (!(a[i] = pe_from_arg(E, f, n->args->u.seq.items[i])))
            return NULL;
    for (size_t i = 0; i < na; i++)
        if (unknown_attr(E, n, a[i]))
            return NULL;
    /* a SymInt node whose meta is a known number is that number */
    for (size_t i = 0; i < na; i++) {
        pv c;
        if (a[i]->kind == PV_NODE && pv_node_const(a[i]->u.node, &c)) {
            pv *k = pv_new(&E->a, c.kind);
            *k = c;
            a[i] = k;
        }
    }
    bool final = false;
    pv *r;
    if (!strncmp(t, "operator.", 9))
        r = python_operator(E, f, n, a, na, &final);
    else if (!strncmp(t, "torch.ops.aten.", 15) || !strncmp(t, "fxsh.prim.dtype", 15) || !strncmp(t, "fxsh.prim.device", 16))
        r = python_tensor_query(E, f, n, a, na, &final);
    else if (!strncmp(t, "builtins.", 9) || !strncmp(t, "math.", 5))
        r = python_builtin(E, f, n, a, na, &final);
    else
        r = python_fxsh(E, f, n, a, na, &final);
    if (final || r)
        return r;
    if (E->failed)
        return NULL;
    /* operands fxsh does not know (SymInts of dynamic sizes): torch records the call */
    return record_call(E, f, n, NULL);
}

/* ---- the walk ------------------------------------------------------------------------------- */

pv *pe_placeholder(pe *E, frame *f, const fx_node *n, size_t k)
{
    bool root = !f->args && !f->emit;
    if (!root && !f->emit)
        return k < f->n_args ? f->args[k] : pv_new(&E->a, PV_NONE);
    if (f->emit && k < f->n_args && f->fold && f->fold[k])
        return f->args[k];
    fx_node *ph = fx_node_new(f->out->g, n->name, FX_OP_PLACEHOLDER, NULL);
    ph->target = ph->name;
    take_meta(E, ph, n);
    fx_graph_append(f->out->g, ph);
    if (f->emit) {
        /* the operand's meta; a loop index is a SymInt named after its placeholder */
        const pv *op = k < f->n_args ? f->args[k] : NULL;
        const fx_value *m = op && op->kind == PV_NODE ? op->u.node->meta.val : k < f->n_args ? f->metas[k] : NULL;
        ph->meta.val = fx_copy_value(E->dst, m);
        if (k < f->n_index) {
            ph->meta.val = fx_value_new(E->dst, FX_VAL_SYM);
            ph->meta.val->text = ph->name;
        }
    } else {
        ph->meta.val = fx_copy_value(E->dst, n->meta.val);
        /* a dimension export treats as dynamic is its symbol, not the example's number */
        fx_value *m = ph->meta.val;
        for (size_t i = 0; E->o && m && m->kind == FX_VAL_TENSOR && i < E->o->n_dynamic; i++)
            if (!strcmp(E->o->dynamic[i].input, n->name) && E->o->dynamic[i].axis >= 0 &&
                (size_t)E->o->dynamic[i].axis < m->rank && E->o->dynamic[i].name) {
                m->sizes[E->o->dynamic[i].axis] = fx_strdup(E->dst, E->o->dynamic[i].name);
                m->strides = NULL;
            }
    }
    return pv_node(&E->a, ph);
}

static pv *output(pe *E, frame *f, const fx_node *n)
{
    pv *r = n->args->u.seq.len ? pe_from_arg(E, f, n->args->u.seq.items[0]) : pv_seq(&E->a, PV_TUPLE, 1);
    if (!r)
        return NULL;
    if (!f->args && !f->emit) {
        /* the root returns a flat tuple of user outputs */
        pv *flat = pv_seq(&E->a, PV_TUPLE, 8);
        if (pv_is_seq(r))
            for (size_t i = 0; i < r->u.seq.n; i++)
                pv_push(&E->a, flat, r->u.seq.items[i]);
        else
            pv_push(&E->a, flat, r);
        r = flat;
    }
    if (f->emit || (!f->args && !f->emit)) {
        fx_arg *a = pe_to_arg(E, n, r, f->out->g);
        if (!a)
            return NULL;
        fx_node *o = fx_node_new(f->out->g, "output", FX_OP_OUTPUT, "output");
        fx_node_set_args(o, pe_tuple_arg(E, &a, 1), fx_arg_seq(E->dst, FX_ARG_DICT, NULL, NULL, 0));
        fx_graph_append(f->out->g, o);
    }
    return r;
}

/* ---- Python indexing and tensor constants ------------------------------------------------------ */

static int64_t int_or(const pv *v, int64_t dflt)
{
    return v && (v->kind == PV_INT || v->kind == PV_BOOL) ? (v->kind == PV_INT ? v->u.i : v->u.b) : dflt;
}

/* The i-th positional argument's value (NULL when dropped at its default). */
static pv *arg_value(pe *E, frame *f, const fx_node *n, size_t i)
{
    return i < n->args->u.seq.len ? pe_from_arg(E, f, n->args->u.seq.items[i]) : NULL;
}

/* x[a:b:c] as torch's __getitem__ records it (TorchScript lowers indexing to aten::slice):
 * None bounds are 0 and INT64_MAX, the dimension counts from the front, and an open slice `:`
 * records nothing. */
static pv *python_slice(pe *E, frame *f, const fx_node *n)
{
    pv *x = arg_value(E, f, n, 0);
    if (!x || !tensor_arg(E, n, x))
        return NULL;
    const fx_value *v = x->u.node->meta.val;
    pv *dim = arg_value(E, f, n, 1), *st = arg_value(E, f, n, 2), *en = arg_value(E, f, n, 3),
       *sp = arg_value(E, f, n, 4);
    int64_t d = int_or(dim, 0), step = int_or(sp, 1), size;
    if (d < 0)
        d += (int64_t)v->rank;
    if (E->failed || (dim && dim->kind != PV_INT) || (sp && sp->kind != PV_INT) || d < 0 || (size_t)d >= v->rank)
        return record_call(E, f, n, NULL);
    pv *start = !st || st->kind == PV_NONE ? pv_int(&E->a, 0) : st;
    pv *end = !en || en->kind == PV_NONE ? pv_int(&E->a, INT64_MAX) : en;
    /* only an open slice `:` is elided: x[:n] records its slice even when n is x's size
     * (transformer_stack's self.pos[: ids.shape[1]]) */
    if (step == 1 && start->kind == PV_INT && start->u.i == 0 && end->kind == PV_INT && end->u.i == INT64_MAX &&
        static_size(E, x->u.node, d, &size))
        return x;
    fx_arg *a[5] = {fx_arg_node(E->dst, x->u.node), fx_arg_int(E->dst, d), pe_to_arg(E, n, start, f->out->g),
                    pe_to_arg(E, n, end, f->out->g), fx_arg_int(E->dst, step)};
    if (!a[2] || !a[3])
        return NULL;
    return pv_node(&E->a, pe_record(E, f, n, NULL, n->target, pe_tuple_arg(E, a, step == 1 ? 4 : 5), NULL));
}

/* x[..., i]: torch's __getitem__ counts the dimension from the front. */
static pv *python_select(pe *E, frame *f, const fx_node *n)
{
    pv *x = arg_value(E, f, n, 0), *dim = arg_value(E, f, n, 1), *ix = arg_value(E, f, n, 2);
    if (!x || !tensor_arg(E, n, x) || !dim || !ix)
        return NULL;
    int64_t d = int_or(dim, 0);
    if (d < 0)
        d += (int64_t)x->u.node->meta.val->rank;
    fx_arg *a[3] = {fx_arg_node(E->dst, x->u.node), fx_arg_int(E->dst, d), pe_to_arg(E, n, ix, f->out->g)};
    return a[2] ? pv_node(&E->a, pe_record(E, f, n, NULL, n->target, pe_tuple_arg(E, a, 3), NULL)) : NULL;
}

/* x[i] = v with a number v: TorchScript copies a 0-d tensor into the view, torch's __setitem__
 * fills the view with it (copy_to uses fill_ when the source is a 0-d CPU tensor). */
static pv *python_copy(pe *E, frame *f, const fx_node *n)
{
    pv *dst = arg_value(E, f, n, 0), *src = arg_value(E, f, n, 1);
    if (!dst || !src)
        return NULL;
    const fx_value *dv = dst->kind == PV_NODE ? dst->u.node->meta.val : NULL;
    const fx_value *sv = src->kind == PV_NODE ? src->u.node->meta.val : NULL;
    bool scalar = src->kind == PV_LIFT ||
                  (sv && sv->kind == FX_VAL_TENSOR && sv->rank == 0 && (!sv->device || !strcmp(sv->device, "cpu")));
    if (!dv || dv->kind != FX_VAL_TENSOR || dv->rank == 0 || !scalar)
        return record_call(E, f, n, NULL);
    fx_arg *a[2] = {fx_arg_node(E->dst, dst->u.node), pe_to_arg(E, n, src, f->out->g)};
    if (!a[1])
        return NULL;
    return pv_node(&E->a, pe_record(E, f, n, NULL, "torch.ops.aten.fill_.Tensor", pe_tuple_arg(E, a, 2), NULL));
}

/* torch.tensor(number): torch.export lifts the constant into a placeholder c_lifted_tensor_N
 * (a CONSTANT_TENSOR input) and reads it through lift_fresh_copy where it is used. */
/* The value of keyword argument key of n (NULL when absent). */
static pv *kwarg_value(pe *E, frame *f, const fx_node *n, const char *key)
{
    for (size_t i = 0; i < n->kwargs->u.seq.len; i++)
        if (!strcmp(n->kwargs->u.seq.keys[i], key))
            return pe_from_arg(E, f, n->kwargs->u.seq.items[i]);
    return NULL;
}

static pv *python_tensor(pe *E, frame *f, const fx_node *n)
{
    pv *data = arg_value(E, f, n, 0), *dt = kwarg_value(E, f, n, "dtype");
    if (!data || !pv_is_num(data) || f->emit || f->out->g != fx_program_graph(E->dst))
        return E->failed ? NULL : record_call(E, f, n, NULL);
    fx_dtype dtype = dt && dt->kind == PV_DTYPE ? dt->u.dt
                     : data->kind == PV_FLOAT ? FX_DT_F32 : data->kind == PV_BOOL ? FX_DT_BOOL : FX_DT_I64;
    if (dtype != FX_DT_F32 && dtype != FX_DT_F64 && dtype != FX_DT_I64 && dtype != FX_DT_I32 && dtype != FX_DT_BOOL)
        return record_call(E, f, n, NULL);
    pv *v = pv_new(&E->a, PV_LIFT);
    v->u.lift.value = pv_num(data);
    v->u.lift.dtype = dtype;
    /* TorchScript's x[i] = v reads v's dtype from the view: prim::dtype(view) */
    const fx_arg *da = NULL;
    for (size_t i = 0; i < n->kwargs->u.seq.len; i++)
        if (!strcmp(n->kwargs->u.seq.keys[i], "dtype"))
            da = n->kwargs->u.seq.items[i];
    v->u.lift.setitem = da && da->kind == FX_ARG_NODE && !strcmp(da->u.node->target, "fxsh.prim.dtype");
    return v;
}

static bool is_view_op(const fx_node *n)
{
    return n->op == FX_OP_CALL_FUNCTION && (!strcmp(n->target, "torch.ops.aten.select.int") ||
                                            !strcmp(n->target, "torch.ops.aten.slice.Tensor"));
}

static fx_node *materialize_lift(pe *E, const fx_node *at, pv *v, fx_graph *g)
{
    if (g != fx_program_graph(E->dst)) {
        pe_fail(E, at, "a tensor constant is used inside a subgraph");
        return NULL;
    }
    fx_dtype dtype = v->u.lift.dtype;
    size_t esz = fx_dtype_get(dtype)->elem_size;
    unsigned char *bytes = fx_alloc(E->dst, esz ? esz : 1);
    double x = v->u.lift.value;
    if (dtype == FX_DT_F32) {
        float f = (float)x;
        memcpy(bytes, &f, sizeof f);
    } else if (dtype == FX_DT_F64) {
        memcpy(bytes, &x, sizeof x);
    } else if (dtype == FX_DT_I64) {
        int64_t i = (int64_t)x;
        memcpy(bytes, &i, sizeof i);
    } else if (dtype == FX_DT_I32) {
        int32_t i = (int32_t)x;
        memcpy(bytes, &i, sizeof i);
    } else {
        bytes[0] = x != 0;
    }
    char fqn[48], name[48];
    snprintf(fqn, sizeof fqn, "lifted_tensor_%zu", E->n_lifted);
    snprintf(name, sizeof name, "c_lifted_tensor_%zu", E->n_lifted++);
    fx_program_add_weight(E->dst, fqn, FX_TENSOR_CONSTANT, dtype, NULL, 0, bytes, esz, false);
    /* the placeholder goes after the parameters and buffers, before the user inputs */
    fx_signature *sig = &E->dst->sig;
    size_t k = 0;
    while (k < sig->n_inputs && sig->inputs[k].kind != FX_IN_USER_INPUT)
        k++;
    fx_node *first_user = k < sig->n_inputs ? fx_graph_lookup(g, sig->inputs[k].name) : NULL;
    fx_node *ph = fx_node_new(g, name, FX_OP_PLACEHOLDER, NULL);
    ph->target = ph->name;
    fx_value *m = fx_value_new(E->dst, FX_VAL_TENSOR);
    m->dtype = dtype;
    m->device = "cpu";
    m->sizes = fx_alloc(E->dst, sizeof *m->sizes);
    m->strides = fx_alloc(E->dst, sizeof *m->strides);
    ph->meta.val = m;
    if (first_user)
        fx_graph_insert_before(g, first_user, ph);
    else
        fx_graph_append(g, ph);
    fx_input_spec *ins = fx_alloc(E->dst, (sig->n_inputs + 2) * sizeof *ins);
    memcpy(ins, sig->inputs, k * sizeof *ins);
    ins[k] = (fx_input_spec){FX_IN_CONSTANT_TENSOR, ph->name, fx_strdup(E->dst, fqn), false};
    memcpy(ins + k + 1, sig->inputs + k, (sig->n_inputs - k) * sizeof *ins);
    sig->inputs = ins;
    sig->n_inputs++;
    /* lift_fresh_copy where the value is first used; the value of x[i] = v comes before the
     * indexing of x (the views recorded just before) */
    out_graph *o = E->outs;
    while (o && o->g != g)
        o = o->next;
    fx_node *before = NULL;
    if (v->u.lift.setitem)
        for (fx_node *x = g->last; x && is_view_op(x); x = x->prev)
            before = x;
    fx_arg *a = fx_arg_node(E->dst, ph);
    fx_node *lf = fx_node_new(g, fx_namer_name(&o->nm, "lift_fresh_copy"), FX_OP_CALL_FUNCTION,
                              "torch.ops.aten.lift_fresh_copy.default");
    fx_node_set_args(lf, pe_tuple_arg(E, &a, 1), fx_arg_seq(E->dst, FX_ARG_DICT, NULL, NULL, 0));
    if (before)
        fx_graph_insert_before(g, before, lf);
    else
        fx_graph_append(g, lf);
    take_meta(E, lf, at);
    meta_inferer_node(E->mi, lf);
    v->kind = PV_NODE;
    v->u.node = lf;
    return lf;
}

static pv *call(pe *E, frame *f, const fx_node *n)
{
    if (fx_control_kind_of(n) != FX_CTRL_NONE)
        return pe_control(E, f, n);
    bool handled;
    pv *r = python_call(E, f, n, &handled);
    if (handled || E->failed)
        return r;
    for (size_t i = 0; i < n->args->u.seq.len; i++) {
        const fx_arg *x = n->args->u.seq.items[i];
        if (x->kind == FX_ARG_NODE && pe_module_of(E, f, x->u.node))
            return pe_kept(E, n, pe_keep_hop(E, f, n));
    }
    if (!strcmp(n->target, "torch.ops.aten.slice.Tensor"))
        return python_slice(E, f, n);
    if (!strcmp(n->target, "torch.ops.aten.select.int"))
        return python_select(E, f, n);
    if (!strcmp(n->target, "torch.ops.aten.copy_.default"))
        return python_copy(E, f, n);
    if (!strcmp(n->target, "torch.ops.aten.tensor.default"))
        return python_tensor(E, f, n);
    if (!strncmp(n->target, "torch.ops.aten.to.", 18) && n->args->u.seq.len > 0) {
        pv *self = pe_from_arg(E, f, n->args->u.seq.items[0]);
        if (!self)
            return NULL;
        if (self->kind == PV_NODE)
            record_metadata_assert(E, f, n, self->u.node);
    }
    return record_call(E, f, n, NULL);
}

pv *pe_run_graph(pe *E, frame *f)
{
    size_t k = 0;
    for (const fx_node *n = f->src->first; n && !E->failed; n = n->next) {
        if (++E->steps > E->max_steps)
            return pe_too_long(E, n, "the Python code runs too long on the example inputs");
        if (interrupt_pending())
            return pe_fail(E, n, "interrupted");
        pv *v = NULL;
        switch (n->op) {
        case FX_OP_PLACEHOLDER: v = pe_placeholder(E, f, n, k++); break;
        case FX_OP_GET_ATTR: {
            const fx_module *m = f->src->owner ? fx_module_find(f->src->owner, n->target) : NULL;
            if (m && m->graph) {
                v = pv_new(&E->a, PV_MODULE);
                v->u.mod = m;
            } else {
                fx_node *c = fx_node_new(f->out->g, fx_namer_name(&f->out->nm, n->name), FX_OP_GET_ATTR, n->target);
                take_meta(E, c, n);
                fx_graph_append(f->out->g, c);
                v = pv_node(&E->a, c);
            }
            break;
        }
        case FX_OP_CALL_FUNCTION: v = call(E, f, n); break;
        case FX_OP_OUTPUT:
            f->result = output(E, f, n);
            return f->result;
        default: v = record_call(E, f, n, NULL); break;
        }
        if (!v)
            return pe_fail(E, n, "cannot replay %s", n->target);
        hm_put(&f->env, n->name, v);
    }
    return E->failed ? NULL : pe_fail(E, NULL, "a graph ends without an output");
}

/* ---- entry -------------------------------------------------------------------------------- */

fx_program *py_eval_program(const fx_program *p, const py_eval_options *o, diag_sink *d)
{
    pe E;
    memset(&E, 0, sizeof E);
    E.src = p;
    E.o = o;
    E.d = d;
    E.max_steps = limit_from_env(FXSH_MAX_REPLAY_STEPS_ENV, FXSH_MAX_REPLAY_STEPS_DEFAULT);
    if (!E.max_steps)
        E.max_steps = 1;
    E.rules = meta_rules_shipped(d);
    if (!E.rules)
        return NULL;
    arena_init(&E.a);
    diag_init(&E.quiet);
    E.dst = fx_program_copy_shell(p);
    /* subgraphs are recorded again as the code reaches them */
    while (E.dst->root->first_child)
        fx_control_drop_subgraph(E.dst->root, E.dst->root->first_child);
    E.mi = meta_inferer_new(E.dst, E.rules, &E.quiet);
    frame f;
    pe_frame_init(&f, fx_program_graph(p), pe_out_new(&E, fx_program_graph(E.dst)));
    pv *r = fx_program_graph(p) ? pe_run_graph(&E, &f) : pe_fail(&E, NULL, "the program has no graph");
    hm_free(&f.env);
    fx_program_refresh(E.dst);
    meta_inferer_finish(E.mi, !E.failed);   /* subgraph nodes recorded before their inputs' meta */
    if (r && !E.failed) {
        /* the user outputs are what the root now returns */
        fx_signature *s = &E.dst->sig;
        s->n_outputs = r->u.seq.n;
        s->outputs = fx_alloc(E.dst, (r->u.seq.n + 1) * sizeof *s->outputs);
        for (size_t i = 0; i < r->u.seq.n; i++) {
            strbuf t;
            sb_init(&t);
            const pv *v = r->u.seq.items[i];
            if (v->kind == PV_NODE)
                sb_puts(&t, v->u.node->name);
            else
                pv_str_of(v, &t);
            s->outputs[i].kind = FX_OUT_USER_OUTPUT;
            s->outputs[i].name = fx_strdup(E.dst, t.s ? t.s : "None");
            s->outputs[i].target = NULL;
            sb_free(&t);
        }
    }
    for (out_graph *g = E.outs, *nx; g; g = nx) {
        nx = g->next;
        fx_namer_free(&g->nm);
        free(g);
    }
    diag_free(&E.quiet);
    arena_free(&E.a);
    if (E.failed) {
        fx_program_free(E.dst);
        return NULL;
    }
    return E.dst;
}
