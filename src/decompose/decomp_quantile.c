/* decomp_quantile.c — quantile / nanquantile (q a number or a tensor of rank <= 1, dim None or
 * an int, keepdim, every interpolation) as ATen's quantile_compute: the reduced dim moved last,
 * q turned into ranks among the (non-NaN) values, the sorted values gathered at the ranks below
 * and above and interpolated; the q dim first, kept dims restored. */
#include <math.h>
#include <string.h>

#include "decompose/decompose_internal.h"
#include "meta/meta_layout.h"

/* x._to_copy(dtype=dt) */
static fx_arg *to(dctx *c, fx_arg *x, fx_dtype dt)
{
    const char *kn[1] = { "dtype" };
    fx_arg *kv[1] = { fx_arg_dtype(c->dst, dt) };
    return x ? dc_nd(c, dc_callv(c, "torch.ops.aten._to_copy.default", kn, kv, 1, 1, x)) : NULL;
}

/* r: the kept dims (d removed, or none), then the q dim (size 1 for a number): the q dim moved
 * first (a number's dropped), then the reduced dims back as 1s with keepdim */
static fx_arg *layout(dctx *c, fx_arg *r, const dl_tensor *t, bool has_dim, int64_t d, bool keep, size_t qrank)
{
    size_t out_rank = has_dim ? (t->rank ? t->rank - 1 : 0) : 0;
    if (qrank == 0) {
        r = DC_OP(c, "squeeze.dim", r, dc_int(c, -1));
    } else if (out_rank) {
        int64_t perm[DL_MAX_RANK + 1];
        perm[0] = (int64_t)out_rank;
        for (size_t i = 0; i < out_rank; i++)
            perm[i + 1] = (int64_t)i;
        r = DC_OP(c, "permute.default", r, dc_int_list(c->dst, perm, out_rank + 1));
    }
    if (!keep || !r)
        return r;
    if (!has_dim) {
        int64_t shape[DL_MAX_RANK + 1];
        size_t k = 0;
        if (qrank)
            shape[k++] = -1;
        for (size_t i = 0; i < t->rank; i++)
            shape[k++] = 1;
        return DC_OP(c, "reshape.default", r, dc_int_list(c->dst, shape, k));
    }
    return t->rank ? DC_OP(c, "unsqueeze.default", r, dc_int(c, d + (qrank ? 1 : 0))) : r;
}

/* b: self, q, dim, keepdim, interpolation; ignore_nan for nanquantile */
static fx_arg *quantile(dctx *c, const binding *b, bool ignore_nan)
{
    dl_tensor t;
    const fx_arg *self = b->src[0], *q = b->src[1], *dm = dc_is_none(b->src[2]) ? NULL : b->src[2];
    const fx_arg *kd = b->src[3], *ip = b->src[4];
    const fx_value *m = dc_meta_of(self);
    if (!self || self->kind != FX_ARG_NODE || !m || !dl_static(m, &t) || !q || (dm && dm->kind != FX_ARG_INT))
        return NULL;
    bool keep = kd && kd->kind == FX_ARG_BOOL && kd->u.b;
    const char *mode = ip && ip->kind == FX_ARG_STR ? ip->u.s : "linear";
    if (strcmp(mode, "linear") && strcmp(mode, "lower") && strcmp(mode, "higher") && strcmp(mode, "nearest") &&
        strcmp(mode, "midpoint"))
        return NULL;
    int64_t d = dm ? dm->u.i : 0;
    if (dm && (d < -(int64_t)(t.rank ? t.rank : 1) || d >= (int64_t)(t.rank ? t.rank : 1)))
        return NULL;
    if (d < 0)
        d += t.rank ? (int64_t)t.rank : 1;
    /* q: a number, or a tensor of rank 0 or 1 */
    fx_arg *qt;
    size_t qrank = 0;
    if (q->kind == FX_ARG_FLOAT || q->kind == FX_ARG_INT) {
        const char *kn[3] = { "dtype", "layout", "device" };
        fx_arg *kv[3] = { fx_arg_dtype(c->dst, m->dtype), fx_arg_str(c->dst, FX_ARG_LAYOUT, "strided"),
                          fx_arg_str(c->dst, FX_ARG_DEVICE, m->device ? m->device : "cpu") };
        qt = dc_nd(c, dc_callv(c, "torch.ops.aten.scalar_tensor.default", kn, kv, 3, 1, dc_dup(c, q)));
    } else if (q->kind == FX_ARG_NODE && dc_meta_of(q) && dc_meta_of(q)->rank <= 1) {
        qt = dc_dup(c, q);
        qrank = dc_meta_of(q)->rank;
    } else {
        return NULL;
    }
    /* x: the values to reduce along its last dim */
    fx_arg *x;
    int64_t n;
    if (!dm) {
        x = DC_OP(c, "reshape.default", dc_dup(c, self), dc_int_list(c->dst, (int64_t[]){ -1 }, 1));
        n = 1;
        for (size_t i = 0; i < t.rank; i++)
            n *= t.size[i];
    } else if (t.rank <= 1 || d == (int64_t)t.rank - 1) {
        x = t.rank ? dc_dup(c, self)
                   : DC_OP(c, "reshape.default", dc_dup(c, self), dc_int_list(c->dst, (int64_t[]){ 1 }, 1));
        n = t.rank ? t.size[d] : 1;
    } else {
        int64_t perm[DL_MAX_RANK];
        size_t k = 0;
        for (size_t i = 0; i < t.rank; i++)
            if ((int64_t)i != d)
                perm[k++] = (int64_t)i;
        perm[k++] = d;
        x = DC_OP(c, "permute.default", dc_dup(c, self), dc_int_list(c->dst, perm, k));
        n = t.size[d];
    }
    if (n == 0)
        return NULL;
    fx_arg *qd = to(c, qt, FX_DT_F64), *ranks, *nan_out;
    fx_arg *nan = DC_OP(c, "isnan.default", dc_dup_null(c, x));
    if (ignore_nan) {
        /* sum counts in int64 */
        fx_arg *valid = to(c, DC_OP(c, "logical_not.default", dc_dup_null(c, nan)), FX_DT_I64);
        fx_arg *cnt = DC_OP(c, "sum.dim_IntList", valid, dc_int_list(c->dst, (int64_t[]){ -1 }, 1),
                            fx_arg_bool(c->dst, true));
        fx_arg *r = DC_OP(c, "mul.Tensor", qd,
                          to(c, DC_OP(c, "sub.Scalar", dc_dup_null(c, cnt), dc_int(c, 1)), FX_DT_F64));
        fx_arg *neg = DC_OP(c, "lt.Scalar", dc_dup_null(c, r), dc_int(c, 0));
        ranks = DC_OP(c, "masked_fill.Scalar", r, neg, dc_int(c, 0));
        nan_out = DC_OP(c, "eq.Scalar", cnt, dc_int(c, 0));   /* every value NaN */
    } else {
        /* any value NaN */
        nan_out = DC_OP(c, "any.dim", dc_dup_null(c, nan), dc_int(c, -1), fx_arg_bool(c->dst, true));
        fx_arg *r = DC_OP(c, "mul.Scalar", qd, dc_int(c, n - 1));
        ranks = DC_OP(c, "where.ScalarSelf", dc_dup_null(c, nan_out), dc_int(c, n - 1), r);   /* broadcast as torch's */
    }
    /* NaN sorts last in torch; ONNX's TopK leaves its place open, so NaN becomes +inf for the sort
     * (the ranks never reach those places) and the NaN results are set at the end */
    x = DC_OP(c, "where.ScalarSelf", nan, fx_arg_float(c->dst, INFINITY), x);
    if (!strcmp(mode, "lower"))
        ranks = DC_OP(c, "floor.default", ranks);
    else if (!strcmp(mode, "higher"))
        ranks = DC_OP(c, "ceil.default", ranks);
    else if (!strcmp(mode, "nearest"))
        ranks = DC_OP(c, "round.default", ranks);
    fx_arg *below = to(c, dc_dup_null(c, ranks), FX_DT_I64);
    fx_node *srt = dc_callv(c, "torch.ops.aten.sort.default", NULL, NULL, 0, 1, x);
    fx_arg *sorted = srt ? dc_nd(c, dc_callv(c, "operator.getitem", NULL, NULL, 0, 2, dc_nd(c, srt), dc_int(c, 0)))
                         : NULL;
    fx_arg *r = DC_OP(c, "gather.default", sorted, dc_int(c, -1), dc_dup_null(c, below));
    if (!strcmp(mode, "linear") || !strcmp(mode, "midpoint")) {
        fx_arg *w;
        if (!strcmp(mode, "midpoint")) {
            const char *kn[1] = { "dtype" };
            fx_arg *kv[1] = { fx_arg_dtype(c->dst, m->dtype) };
            w = ranks ? dc_nd(c, dc_callv(c, "torch.ops.aten.full_like.default", kn, kv, 1, 2, dc_dup_null(c, ranks),
                                      fx_arg_float(c->dst, 0.5))) : NULL;
        } else {
            w = to(c, DC_OP(c, "sub.Tensor", dc_dup_null(c, ranks), to(c, dc_dup_null(c, below), FX_DT_F64)), m->dtype);
        }
        fx_arg *above = to(c, DC_OP(c, "ceil.default", dc_dup_null(c, ranks)), FX_DT_I64);
        fx_arg *va = DC_OP(c, "gather.default", dc_dup_null(c, sorted), dc_int(c, -1), above);
        r = DC_OP(c, "lerp.Tensor", r, va, w);
    }
    r = DC_OP(c, "where.ScalarSelf", nan_out, fx_arg_float(c->dst, NAN), r);
    if (!r)
        return NULL;
    return layout(c, r, &t, dm != NULL, d, keep, qrank);
}

static fx_arg *quantile_q(dctx *c, const binding *b) { return quantile(c, b, false); }
static fx_arg *nanquantile_q(dctx *c, const binding *b) { return quantile(c, b, true); }

static const dc_builtin_entry quantile_builtins[] = {
    {"quantile", quantile_q}, {"nanquantile", nanquantile_q},
};

const builtin_family dc_quantile_builtins = BUILTIN_FAMILY("quantile", quantile_builtins);
