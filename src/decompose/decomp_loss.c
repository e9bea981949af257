/* decomp_loss.c — the losses whose decompositions branch on their options (cosine_embedding_loss,
 * multi_margin_loss, multilabel_margin_loss and its _forward): ATen's composite and
 * torch._decomp's code, call by call, for every p, weight and reduction the schemas accept. */
#include <stdio.h>
#include <string.h>

#include "decompose/decompose_internal.h"
#include "meta/meta_layout.h"

#define OP(c, target, ...) nd(c, dc_callv(c, "torch.ops.aten." target, NULL, NULL, 0, \
                                        sizeof((fx_arg *[]){ __VA_ARGS__ }) / sizeof(fx_arg *), __VA_ARGS__))

static fx_arg *nd(dctx *c, fx_node *n) { return n ? fx_arg_node(c->dst, n) : NULL; }
static fx_arg *I(dctx *c, int64_t v) { return fx_arg_int(c->dst, v); }
static fx_arg *F(dctx *c, double v) { return fx_arg_float(c->dst, v); }
static fx_arg *dup(dctx *c, const fx_arg *a) { return a ? dc_dup(c, a) : NULL; }

static fx_arg *ints(dctx *c, const int64_t *v, size_t n)
{
    fx_arg *items[DL_MAX_RANK + 2];
    for (size_t i = 0; i < n && i < DL_MAX_RANK + 2; i++)
        items[i] = fx_arg_int(c->dst, v[i]);
    return fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, n);
}

static fx_arg *list1(dctx *c, fx_arg *a)
{
    return a ? fx_arg_seq(c->dst, FX_ARG_LIST, &a, NULL, 1) : NULL;
}

/* a number argument (int, float or bool) as a double; def when absent */
static bool num_of(const fx_arg *a, double def, double *v)
{
    if (!a) {
        *v = def;
        return true;
    }
    if (a->kind == FX_ARG_INT)
        *v = (double)a->u.i;
    else if (a->kind == FX_ARG_FLOAT)
        *v = a->u.f;
    else if (a->kind == FX_ARG_BOOL)
        *v = a->u.b;
    else
        return false;
    return true;
}

static bool int_of(const fx_arg *a, int64_t def, int64_t *v)
{
    if (!a) {
        *v = def;
        return true;
    }
    if (a->kind != FX_ARG_INT)
        return false;
    *v = a->u.i;
    return true;
}

/* arange(n | device=x's device, pin_memory=False), as torch._decomp writes torch.arange(n, device=) */
static fx_arg *arange_like(dctx *c, int64_t n, const fx_arg *x)
{
    const fx_value *m = dc_meta_of(x);
    if (!m || !m->device)
        return NULL;
    const char *kn[2] = { "device", "pin_memory" };
    fx_arg *kv[2] = { fx_arg_str(c->dst, FX_ARG_DEVICE, m->device), fx_arg_bool(c->dst, false) };
    return nd(c, dc_callv(c, "torch.ops.aten.arange.default", kn, kv, 2, 1, I(c, n)));
}

/* Reduction 0 none, 1 mean, 2 sum (at::Reduction) of a loss's elements, apply_loss_reduction */
static fx_arg *reduce(dctx *c, fx_arg *x, int64_t reduction)
{
    if (reduction == 1)
        return OP(c, "mean.default", x);
    if (reduction == 2)
        return OP(c, "sum.default", x);
    return x;
}

/* cosine_embedding_loss(input1, input2, target, margin, reduction) (ATen's Loss.cpp): the cosine
 * along target's rank, 1 - cos where target is 1, max(cos - margin, 0) where it is -1 */
static fx_arg *cosine_embedding_loss(dctx *c, const binding *b)
{
    const fx_value *tm = dc_meta_of(b->src[2]);
    double margin;
    int64_t reduction;
    if (!tm || !b->src[0] || !b->src[1] || !num_of(b->src[3], 0.0, &margin) || !int_of(b->src[4], 1, &reduction) ||
        reduction < 0 || reduction > 2)
        return NULL;
    const double eps = (double)(float)1e-12;   /* EPSILON, a float */
    int64_t d = (int64_t)tm->rank;
    fx_arg *m = OP(c, "mul.Tensor", dup(c, b->src[0]), dup(c, b->src[1]));
    fx_arg *prod = OP(c, "sum.dim_IntList", m, ints(c, &d, 1));
    fx_arg *m1 = OP(c, "mul.Tensor", dup(c, b->src[0]), dup(c, b->src[0]));
    fx_arg *s1 = OP(c, "sum.dim_IntList", m1, ints(c, &d, 1));
    fx_arg *a1 = OP(c, "add.Scalar", s1, F(c, eps));
    fx_arg *m2 = OP(c, "mul.Tensor", dup(c, b->src[1]), dup(c, b->src[1]));
    fx_arg *s2 = OP(c, "sum.dim_IntList", m2, ints(c, &d, 1));
    fx_arg *a2 = OP(c, "add.Scalar", s2, F(c, eps));
    fx_arg *m3 = OP(c, "mul.Tensor", a1, a2);
    fx_arg *den = OP(c, "sqrt.default", m3);
    fx_arg *cos = OP(c, "div.Tensor", prod, den);
    if (!cos)
        return NULL;
    const char *kn[1] = { "memory_format" };
    fx_arg *kc[1] = { fx_arg_str(c->dst, FX_ARG_MEMFMT, "contiguous_format") };
    fx_arg *kp[1] = { fx_arg_str(c->dst, FX_ARG_MEMFMT, "preserve_format") };
    fx_arg *zeros = nd(c, dc_callv(c, "torch.ops.aten.zeros_like.default", kn, kc, 1, 1, dup(c, cos)));
    fx_arg *empty = nd(c, dc_callv(c, "torch.ops.aten.empty_like.default", kn, kp, 1, 1, dup(c, cos)));
    fx_arg *one = OP(c, "fill.Scalar", empty, I(c, 1));
    fx_arg *pos = OP(c, "sub.Tensor", one, dup(c, cos));
    fx_arg *sm = OP(c, "sub.Scalar", dup(c, cos), F(c, margin));
    fx_arg *neg = OP(c, "clamp_min.default", sm, I(c, 0));
    fx_arg *e1 = OP(c, "eq.Scalar", dup(c, b->src[2]), I(c, 1));
    fx_arg *w1 = OP(c, "where.self", e1, pos, dup(c, zeros));
    fx_arg *e2 = OP(c, "eq.Scalar", dup(c, b->src[2]), I(c, -1));
    fx_arg *w2 = OP(c, "where.self", e2, neg, dup(c, zeros));
    fx_arg *out = OP(c, "add.Tensor", w1, w2);
    return out ? reduce(c, out, reduction) : NULL;
}

/* multi_margin_loss(input, target, p, margin, weight, reduction) (torch._decomp): per row,
 * max(margin - input[target] + input, 0) (squared for p = 2, times weight[target]) off the
 * target column; mean, sum / columns, or the per-row mean */
static fx_arg *multi_margin_loss(dctx *c, const binding *b)
{
    double margin;
    int64_t p, reduction;
    const fx_arg *weight = dc_is_none(b->src[4]) ? NULL : b->src[4];
    if (!b->src[0] || !b->src[1] || !int_of(b->src[2], 1, &p) || (p != 1 && p != 2) ||
        !num_of(b->src[3], 1.0, &margin) || !int_of(b->src[5], 1, &reduction) || reduction < 0 || reduction > 2)
        return NULL;
    fx_arg *in = OP(c, "atleast_2d.default", dup(c, b->src[0]));
    fx_arg *tg = OP(c, "atleast_1d.default", dup(c, b->src[1]));
    dl_tensor t;
    if (!in || !tg || !dl_static(dc_meta_of(in), &t) || t.rank != 2)
        return NULL;
    int64_t dim = t.size[1];
    fx_arg *t2 = OP(c, "unsqueeze.default", dup(c, tg), I(c, 1));
    fx_arg *u = OP(c, "gather.default", dup(c, in), I(c, 1), dup(c, t2));
    fx_arg *z = OP(c, "sub.Tensor", F(c, margin), u);
    z = OP(c, "add.Tensor", z, dup(c, in));
    z = OP(c, "clamp_min.default", z, I(c, 0));
    if (p == 2 && z)
        z = OP(c, "mul.Tensor", z, dup(c, z));
    if (weight && z) {
        fx_arg *w = OP(c, "atleast_1d.default", dup(c, weight));
        fx_arg *wi = OP(c, "index.Tensor", w, list1(c, dup(c, tg)));
        fx_arg *wu = OP(c, "unsqueeze.default", wi, I(c, 1));
        z = OP(c, "mul.Tensor", z, wu);
    }
    fx_arg *idx = z ? arange_like(c, dim, in) : NULL;
    fx_arg *ne = OP(c, "ne.Tensor", idx, dup(c, t2));
    z = OP(c, "where.ScalarOther", ne, z, I(c, 0));
    if (!z)
        return NULL;
    if (reduction == 1)
        return OP(c, "mean.default", z);
    if (reduction == 2)
        return OP(c, "div.Tensor", OP(c, "sum.default", z), I(c, dim));
    return OP(c, "mean.dim", z, ints(c, (int64_t[]){ 1 }, 1));
}

/* multilabel_margin_loss_forward(input, target, reduction) (torch._decomp): the targets up to
 * the first -1 of each row, hinge 1 - input[target] + input / columns summed over the columns that
 * are not targets; (loss, is_target) — out_both false returns the loss only */
static fx_arg *multilabel(dctx *c, const binding *b, bool out_both)
{
    int64_t reduction;
    const fx_value *im = dc_meta_of(b->src[0]), *tm = dc_meta_of(b->src[1]);
    if (!im || !tm || im->rank > 2 || !int_of(b->src[2], 1, &reduction) || reduction < 0 || reduction > 2)
        return NULL;
    dl_tensor ot;
    if (!dl_static(tm, &ot))
        return NULL;
    fx_arg *in = OP(c, "atleast_2d.default", dup(c, b->src[0]));
    fx_arg *tg = OP(c, "atleast_2d.default", dup(c, b->src[1]));
    dl_tensor t;
    if (!in || !tg || !dl_static(dc_meta_of(in), &t) || t.rank != 2)
        return NULL;
    int64_t dim = t.size[1];
    fx_arg *idx = arange_like(c, dim, b->src[1]);
    fx_arg *is_end = OP(c, "eq.Scalar", dup(c, tg), I(c, -1));
    fx_arg *w = OP(c, "where.ScalarOther", is_end, dup(c, idx), I(c, dim));
    fx_arg *end = OP(c, "amin.default", w, ints(c, (int64_t[]){ -1 }, 1), fx_arg_bool(c->dst, true));
    fx_arg *mask = OP(c, "lt.Tensor", dup(c, idx), end);
    fx_arg *t0 = OP(c, "where.ScalarOther", dup(c, mask), dup(c, tg), I(c, 0));
    fx_arg *u = OP(c, "gather.default", dup(c, in), I(c, -1), t0);
    fx_arg *t1 = OP(c, "where.ScalarOther", dup(c, mask), dup(c, tg), I(c, -1));
    fx_arg *tu = OP(c, "unsqueeze.default", t1, I(c, -1));
    fx_arg *eq = OP(c, "eq.Tensor", dup(c, idx), tu);
    fx_arg *is_target = OP(c, "any.dim", eq, I(c, 1));
    fx_arg *ut = OP(c, "permute.default", u, ints(c, (int64_t[]){ 1, 0 }, 2));
    fx_arg *uu = OP(c, "unsqueeze.default", ut, I(c, -1));
    fx_arg *z = OP(c, "sub.Tensor", F(c, 1.0), uu);
    z = OP(c, "add.Tensor", z, dup(c, in));
    z = OP(c, "clamp_min.default", z, I(c, 0));
    z = OP(c, "div.Tensor", z, I(c, dim));
    z = OP(c, "where.ScalarSelf", dup(c, is_target), I(c, 0), z);
    fx_arg *mt = OP(c, "permute.default", dup(c, mask), ints(c, (int64_t[]){ 1, 0 }, 2));
    fx_arg *mu = OP(c, "unsqueeze.default", mt, I(c, -1));
    z = OP(c, "where.ScalarOther", mu, z, I(c, 0));
    if (!z)
        return NULL;
    int64_t both[2] = { 0, -1 };
    if (reduction == 1)
        z = OP(c, "mean.default", OP(c, "sum.dim_IntList", z, ints(c, both, 2)));
    else if (reduction == 2)
        z = OP(c, "sum.default", z);
    else
        z = OP(c, "sum.dim_IntList", z, ints(c, both, 2));
    if (!out_both || !z)
        return z;
    const char *kn[1] = { "dtype" };
    fx_arg *kv[1] = { fx_arg_dtype(c->dst, im->dtype) };
    fx_arg *cast = nd(c, dc_callv(c, "torch.ops.aten._to_copy.default", kn, kv, 1, 1, dup(c, is_target)));
    fx_arg *it = OP(c, "reshape.default", cast, ints(c, ot.size, ot.rank));
    if (!it)
        return NULL;
    fx_arg *items[2] = { z, it };
    return fx_arg_seq(c->dst, FX_ARG_TUPLE, items, NULL, 2);
}

static fx_arg *multilabel_margin_loss(dctx *c, const binding *b) { return multilabel(c, b, false); }
static fx_arg *multilabel_margin_loss_forward(dctx *c, const binding *b) { return multilabel(c, b, true); }

static const dc_builtin_entry loss_builtins[] = {
    {"cosine_embedding_loss", cosine_embedding_loss},
    {"multi_margin_loss", multi_margin_loss},
    {"multilabel_margin_loss", multilabel_margin_loss},
    {"multilabel_margin_loss_forward", multilabel_margin_loss_forward},
};

const builtin_family dc_loss_builtins = BUILTIN_FAMILY("loss", loss_builtins);
