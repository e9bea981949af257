/* decomp_loss.c — the losses whose decompositions branch on their options (cosine_embedding_loss,
 * multi_margin_loss, multilabel_margin_loss and its _forward): ATen's composite and
 * torch._decomp's code, call by call, for every p, weight and reduction the schemas accept. */
#include <stdio.h>
#include <string.h>

#include "decompose/decompose_internal.h"
#include "meta/meta_layout.h"

static fx_arg *F(dctx *c, double v) { return fx_arg_float(c->dst, v); }

static fx_arg *list1(dctx *c, fx_arg *a)
{
    return a ? fx_arg_seq(c->dst, FX_ARG_LIST, &a, NULL, 1) : NULL;
}

/* arange(n | device=x's device, pin_memory=False), as torch._decomp writes torch.arange(n, device=) */
static fx_arg *arange_like(dctx *c, int64_t n, const fx_arg *x)
{
    const fx_value *m = dc_meta_of(x);
    if (!m || !m->device)
        return NULL;
    const char *kn[2] = { "device", "pin_memory" };
    fx_arg *kv[2] = { fx_arg_str(c->dst, FX_ARG_DEVICE, m->device), fx_arg_bool(c->dst, false) };
    return dc_nd(c, dc_callv(c, "torch.ops.aten.arange.default", kn, kv, 2, 1, dc_int(c, n)));
}

/* Reduction 0 none, 1 mean, 2 sum (at::Reduction) of a loss's elements, apply_loss_reduction */
static fx_arg *reduce(dctx *c, fx_arg *x, int64_t reduction)
{
    if (reduction == 1)
        return DC_OP(c, "mean.default", x);
    if (reduction == 2)
        return DC_OP(c, "sum.default", x);
    return x;
}

/* cosine_embedding_loss(input1, input2, target, margin, reduction) (ATen's Loss.cpp): the cosine
 * along target's rank, 1 - cos where target is 1, max(cos - margin, 0) where it is -1 */
static fx_arg *cosine_embedding_loss(dctx *c, const binding *b)
{
    const fx_value *tm = dc_meta_of(b->src[2]);
    double margin;
    int64_t reduction;
    if (!tm || !b->src[0] || !b->src[1] || !dc_num_or(b->src[3], 0.0, &margin) ||
        !dc_int_or(b->src[4], 1, &reduction) || reduction < 0 || reduction > 2)
        return NULL;
    const double eps = (double)(float)1e-12;   /* EPSILON, a float */
    int64_t d = (int64_t)tm->rank;
    fx_arg *m = DC_OP(c, "mul.Tensor", dc_dup_null(c, b->src[0]), dc_dup_null(c, b->src[1]));
    fx_arg *prod = DC_OP(c, "sum.dim_IntList", m, dc_int_list(c->dst, &d, 1));
    fx_arg *m1 = DC_OP(c, "mul.Tensor", dc_dup_null(c, b->src[0]), dc_dup_null(c, b->src[0]));
    fx_arg *s1 = DC_OP(c, "sum.dim_IntList", m1, dc_int_list(c->dst, &d, 1));
    fx_arg *a1 = DC_OP(c, "add.Scalar", s1, F(c, eps));
    fx_arg *m2 = DC_OP(c, "mul.Tensor", dc_dup_null(c, b->src[1]), dc_dup_null(c, b->src[1]));
    fx_arg *s2 = DC_OP(c, "sum.dim_IntList", m2, dc_int_list(c->dst, &d, 1));
    fx_arg *a2 = DC_OP(c, "add.Scalar", s2, F(c, eps));
    fx_arg *m3 = DC_OP(c, "mul.Tensor", a1, a2);
    fx_arg *den = DC_OP(c, "sqrt.default", m3);
    fx_arg *cos = DC_OP(c, "div.Tensor", prod, den);
    if (!cos)
        return NULL;
    const char *kn[1] = { "memory_format" };
    fx_arg *kc[1] = { fx_arg_str(c->dst, FX_ARG_MEMFMT, "contiguous_format") };
    fx_arg *kp[1] = { fx_arg_str(c->dst, FX_ARG_MEMFMT, "preserve_format") };
    fx_arg *zeros = dc_nd(c, dc_callv(c, "torch.ops.aten.zeros_like.default", kn, kc, 1, 1, dc_dup_null(c, cos)));
    fx_arg *empty = dc_nd(c, dc_callv(c, "torch.ops.aten.empty_like.default", kn, kp, 1, 1, dc_dup_null(c, cos)));
    fx_arg *one = DC_OP(c, "fill.Scalar", empty, dc_int(c, 1));
    fx_arg *pos = DC_OP(c, "sub.Tensor", one, dc_dup_null(c, cos));
    fx_arg *sm = DC_OP(c, "sub.Scalar", dc_dup_null(c, cos), F(c, margin));
    fx_arg *neg = DC_OP(c, "clamp_min.default", sm, dc_int(c, 0));
    fx_arg *e1 = DC_OP(c, "eq.Scalar", dc_dup_null(c, b->src[2]), dc_int(c, 1));
    fx_arg *w1 = DC_OP(c, "where.self", e1, pos, dc_dup_null(c, zeros));
    fx_arg *e2 = DC_OP(c, "eq.Scalar", dc_dup_null(c, b->src[2]), dc_int(c, -1));
    fx_arg *w2 = DC_OP(c, "where.self", e2, neg, dc_dup_null(c, zeros));
    fx_arg *out = DC_OP(c, "add.Tensor", w1, w2);
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
    if (!b->src[0] || !b->src[1] || !dc_int_or(b->src[2], 1, &p) || (p != 1 && p != 2) ||
        !dc_num_or(b->src[3], 1.0, &margin) || !dc_int_or(b->src[5], 1, &reduction) || reduction < 0 || reduction > 2)
        return NULL;
    fx_arg *in = DC_OP(c, "atleast_2d.default", dc_dup_null(c, b->src[0]));
    fx_arg *tg = DC_OP(c, "atleast_1d.default", dc_dup_null(c, b->src[1]));
    dl_tensor t;
    if (!in || !tg || !dl_static(dc_meta_of(in), &t) || t.rank != 2)
        return NULL;
    int64_t dim = t.size[1];
    fx_arg *t2 = DC_OP(c, "unsqueeze.default", dc_dup_null(c, tg), dc_int(c, 1));
    fx_arg *u = DC_OP(c, "gather.default", dc_dup_null(c, in), dc_int(c, 1), dc_dup_null(c, t2));
    fx_arg *z = DC_OP(c, "sub.Tensor", F(c, margin), u);
    z = DC_OP(c, "add.Tensor", z, dc_dup_null(c, in));
    z = DC_OP(c, "clamp_min.default", z, dc_int(c, 0));
    if (p == 2 && z)
        z = DC_OP(c, "mul.Tensor", z, dc_dup_null(c, z));
    if (weight && z) {
        fx_arg *w = DC_OP(c, "atleast_1d.default", dc_dup_null(c, weight));
        fx_arg *wi = DC_OP(c, "index.Tensor", w, list1(c, dc_dup_null(c, tg)));
        fx_arg *wu = DC_OP(c, "unsqueeze.default", wi, dc_int(c, 1));
        z = DC_OP(c, "mul.Tensor", z, wu);
    }
    fx_arg *idx = z ? arange_like(c, dim, in) : NULL;
    fx_arg *ne = DC_OP(c, "ne.Tensor", idx, dc_dup_null(c, t2));
    z = DC_OP(c, "where.ScalarOther", ne, z, dc_int(c, 0));
    if (!z)
        return NULL;
    if (reduction == 1)
        return DC_OP(c, "mean.default", z);
    if (reduction == 2)
        return DC_OP(c, "div.Tensor", DC_OP(c, "sum.default", z), dc_int(c, dim));
    return DC_OP(c, "mean.dim", z, dc_int_list(c->dst, (int64_t[]){ 1 }, 1));
}

/* multilabel_margin_loss_forward(input, target, reduction) (torch._decomp): the targets up to
 * the first -1 of each row, hinge 1 - input[target] + input / columns summed over the columns that
 * are not targets; (loss, is_target) — out_both false returns the loss only */
static fx_arg *multilabel(dctx *c, const binding *b, bool out_both)
{
    int64_t reduction;
    const fx_value *im = dc_meta_of(b->src[0]), *tm = dc_meta_of(b->src[1]);
    if (!im || !tm || im->rank > 2 || !dc_int_or(b->src[2], 1, &reduction) || reduction < 0 || reduction > 2)
        return NULL;
    dl_tensor ot;
    if (!dl_static(tm, &ot))
        return NULL;
    fx_arg *in = DC_OP(c, "atleast_2d.default", dc_dup_null(c, b->src[0]));
    fx_arg *tg = DC_OP(c, "atleast_2d.default", dc_dup_null(c, b->src[1]));
    dl_tensor t;
    if (!in || !tg || !dl_static(dc_meta_of(in), &t) || t.rank != 2)
        return NULL;
    int64_t dim = t.size[1];
    fx_arg *idx = arange_like(c, dim, b->src[1]);
    fx_arg *is_end = DC_OP(c, "eq.Scalar", dc_dup_null(c, tg), dc_int(c, -1));
    fx_arg *w = DC_OP(c, "where.ScalarOther", is_end, dc_dup_null(c, idx), dc_int(c, dim));
    fx_arg *end = DC_OP(c, "amin.default", w, dc_int_list(c->dst, (int64_t[]){ -1 }, 1), fx_arg_bool(c->dst, true));
    fx_arg *mask = DC_OP(c, "lt.Tensor", dc_dup_null(c, idx), end);
    fx_arg *t0 = DC_OP(c, "where.ScalarOther", dc_dup_null(c, mask), dc_dup_null(c, tg), dc_int(c, 0));
    fx_arg *u = DC_OP(c, "gather.default", dc_dup_null(c, in), dc_int(c, -1), t0);
    fx_arg *t1 = DC_OP(c, "where.ScalarOther", dc_dup_null(c, mask), dc_dup_null(c, tg), dc_int(c, -1));
    fx_arg *tu = DC_OP(c, "unsqueeze.default", t1, dc_int(c, -1));
    fx_arg *eq = DC_OP(c, "eq.Tensor", dc_dup_null(c, idx), tu);
    fx_arg *is_target = DC_OP(c, "any.dim", eq, dc_int(c, 1));
    fx_arg *ut = DC_OP(c, "permute.default", u, dc_int_list(c->dst, (int64_t[]){ 1, 0 }, 2));
    fx_arg *uu = DC_OP(c, "unsqueeze.default", ut, dc_int(c, -1));
    fx_arg *z = DC_OP(c, "sub.Tensor", F(c, 1.0), uu);
    z = DC_OP(c, "add.Tensor", z, dc_dup_null(c, in));
    z = DC_OP(c, "clamp_min.default", z, dc_int(c, 0));
    z = DC_OP(c, "div.Tensor", z, dc_int(c, dim));
    z = DC_OP(c, "where.ScalarSelf", dc_dup_null(c, is_target), dc_int(c, 0), z);
    fx_arg *mt = DC_OP(c, "permute.default", dc_dup_null(c, mask), dc_int_list(c->dst, (int64_t[]){ 1, 0 }, 2));
    fx_arg *mu = DC_OP(c, "unsqueeze.default", mt, dc_int(c, -1));
    z = DC_OP(c, "where.ScalarOther", mu, z, dc_int(c, 0));
    if (!z)
        return NULL;
    int64_t both[2] = { 0, -1 };
    if (reduction == 1)
        z = DC_OP(c, "mean.default", DC_OP(c, "sum.dim_IntList", z, dc_int_list(c->dst, both, 2)));
    else if (reduction == 2)
        z = DC_OP(c, "sum.default", z);
    else
        z = DC_OP(c, "sum.dim_IntList", z, dc_int_list(c->dst, both, 2));
    if (!out_both || !z)
        return z;
    const char *kn[1] = { "dtype" };
    fx_arg *kv[1] = { fx_arg_dtype(c->dst, im->dtype) };
    fx_arg *cast = dc_nd(c, dc_callv(c, "torch.ops.aten._to_copy.default", kn, kv, 1, 1, dc_dup_null(c, is_target)));
    fx_arg *it = DC_OP(c, "reshape.default", cast, dc_int_list(c->dst, ot.size, ot.rank));
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
