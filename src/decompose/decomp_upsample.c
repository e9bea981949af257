/* decomp_upsample.c — _upsample_nearest_exact1d/2d/3d (and their .vec forms) as torch._decomp's
 * _upsample_nearest writes them: per output dim, source indices (arange + 0.5) * in / out cast to
 * int64 (unsqueezed to broadcast), then one _unsafe_index with None for batch and channels; and
 * upsample_linear1d.vec as its _upsample_linear writes it. */
#include <string.h>

#include "decompose/decompose_internal.h"
#include "meta/meta_layout.h"

static bool is_seq(const fx_arg *a) { return a && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE); }

/* b: input, output_size (None or k ints), then scales: for .vec one list (None or k floats), for
 * the plain overloads k optional floats; k is the number of spatial dims (1-3) */
static fx_arg *nearest_exact(dctx *c, const binding *b, size_t k, bool vec)
{
    dl_tensor t;
    const fx_arg *x = b->src[0], *os = dc_is_none(b->src[1]) ? NULL : b->src[1];
    if (!x || x->kind != FX_ARG_NODE || !dl_static(dc_meta_of(x), &t) || t.rank != k + 2)
        return NULL;
    const fx_value *m = dc_meta_of(x);
    double scales[3];
    bool has_scale[3] = { false, false, false };
    int64_t osize[3];
    for (size_t d = 0; d < k; d++) {
        const fx_arg *s = NULL;
        if (vec) {
            const fx_arg *l = dc_is_none(b->src[2]) ? NULL : b->src[2];
            if (l && (!is_seq(l) || l->u.seq.len != k))
                return NULL;
            s = l ? l->u.seq.items[d] : NULL;
        } else {
            s = dc_is_none(b->src[2 + d]) ? NULL : b->src[2 + d];
        }
        if (s && !dc_num_of(s, &scales[d]))
            return NULL;
        int64_t isz = t.size[2 + d];
        if (os) {
            if (!is_seq(os) || os->u.seq.len != k || os->u.seq.items[d]->kind != FX_ARG_INT)
                return NULL;
            osize[d] = os->u.seq.items[d]->u.i;
        } else if (s) {   /* upsample_compute_output_size */
            osize[d] = scales[d] == (double)(int64_t)scales[d] ? isz * (int64_t)scales[d]
                                                                : (int64_t)((double)isz * scales[d]);
        } else {
            return NULL;
        }
        if (osize[d] <= 0)
            return NULL;
        has_scale[d] = s && scales[d] > 0;   /* compute_scales_value: a scale <= 0 is ignored */
    }
    fx_arg *items[5] = { fx_arg_none(c->dst), fx_arg_none(c->dst) };
    for (size_t d = 0; d < k; d++) {
        int64_t isz = t.size[2 + d];
        double scale = has_scale[d] ? (double)isz / ((double)isz * scales[d]) : (double)isz / (double)osize[d];
        const char *kn[3] = { "dtype", "device", "pin_memory" };
        fx_arg *kv[3] = { fx_arg_dtype(c->dst, FX_DT_F32), fx_arg_str(c->dst, FX_ARG_DEVICE, m->device ? m->device : "cpu"),
                          fx_arg_bool(c->dst, false) };
        fx_arg *a = dc_nd(c, dc_callv(c, "torch.ops.aten.arange.default", kn, kv, 3, 1, fx_arg_int(c->dst, osize[d])));
        fx_arg *add = DC_OP(c, "add.Tensor", a, fx_arg_float(c->dst, 0.5));
        fx_arg *mul = DC_OP(c, "mul.Tensor", add, fx_arg_float(c->dst, scale));
        const char *kd[1] = { "dtype" };
        fx_arg *kl[1] = { fx_arg_dtype(c->dst, FX_DT_I64) };
        fx_arg *idx = mul ? dc_nd(c, dc_callv(c, "torch.ops.aten._to_copy.default", kd, kl, 1, 1, mul)) : NULL;
        for (size_t u = 0; idx && u + 1 + d < k; u++)
            idx = DC_OP(c, "unsqueeze.default", idx, fx_arg_int(c->dst, -1));
        if (!idx)
            return NULL;
        items[2 + d] = idx;
    }
    fx_arg *ix = fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, k + 2);
    return DC_OP(c, "_unsafe_index.Tensor", dc_dup(c, x), ix);
}

/* upsample_linear1d.vec(input, output_size, align_corners, scale_factors): torch._decomp's
 * _upsample_linear for one spatial dim (the exporter's table keeps the other linear upsamples):
 * source positions (arange * scale, or (arange + 0.5) * scale - 0.5 without align_corners)
 * clamped at 0, their floor and next index (clamped at the last), the two gathered rows
 * blended by the clamped fraction. */
static fx_arg *linear1d_vec(dctx *c, const binding *b)
{
    dl_tensor t;
    const fx_arg *x = b->src[0], *os = dc_is_none(b->src[1]) ? NULL : b->src[1];
    const fx_arg *ac = b->src[2], *sf = dc_is_none(b->src[3]) ? NULL : b->src[3];
    const fx_value *m = dc_meta_of(x);
    if (!x || x->kind != FX_ARG_NODE || !dl_static(m, &t) || t.rank != 3 || (m->dtype != FX_DT_F32 && m->dtype != FX_DT_F64) ||
        !ac || ac->kind != FX_ARG_BOOL || (os && (!is_seq(os) || os->u.seq.len != 1 || os->u.seq.items[0]->kind != FX_ARG_INT)) ||
        (sf && (!is_seq(sf) || sf->u.seq.len != 1)))
        return NULL;
    int64_t in = t.size[2], out;
    double scale = 0;
    bool has_scale = sf && dc_num_of(sf->u.seq.items[0], &scale);
    if (sf && !has_scale)
        return NULL;
    if (os)
        out = os->u.seq.items[0]->u.i;
    else if (has_scale)   /* upsample_compute_output_size: floor(in * scale) */
        out = (int64_t)((double)in * scale);
    else
        return NULL;
    if (out <= 0 || in <= 0)
        return NULL;
    bool align = ac->u.b;
    fx_arg *sc;   /* _compute_scale */
    if (align)
        sc = out > 1 ? fx_arg_float(c->dst, ((double)in - 1.0) / ((double)out - 1.0)) : fx_arg_int(c->dst, 0);
    else
        sc = fx_arg_float(c->dst, has_scale && scale > 0 ? 1.0 / scale : (double)in / (double)out);
    const char *kn[2] = { "device", "pin_memory" };
    fx_arg *kv[2] = { fx_arg_str(c->dst, FX_ARG_DEVICE, m->device ? m->device : "cpu"), fx_arg_bool(c->dst, false) };
    fx_arg *ar = dc_nd(c, dc_callv(c, "torch.ops.aten.arange.default", kn, kv, 2, 1, fx_arg_int(c->dst, out)));
    const char *kd[1] = { "dtype" };
    fx_arg *kf[1] = { fx_arg_dtype(c->dst, m->dtype) };
    fx_arg *i = ar ? dc_nd(c, dc_callv(c, "torch.ops.aten._to_copy.default", kd, kf, 1, 1, ar)) : NULL;
    fx_arg *src;   /* _compute_source_index */
    if (align) {
        src = i ? DC_OP(c, "mul.Tensor", i, sc) : NULL;
    } else {
        fx_arg *a = i ? DC_OP(c, "add.Tensor", i, fx_arg_float(c->dst, 0.5)) : NULL;
        fx_arg *mu = a ? DC_OP(c, "mul.Tensor", a, sc) : NULL;
        src = mu ? DC_OP(c, "sub.Tensor", mu, fx_arg_float(c->dst, 0.5)) : NULL;
    }
    fx_arg *cl = src ? DC_OP(c, "clamp.default", src, fx_arg_float(c->dst, 0.0)) : NULL;
    fx_arg *shape[1] = { fx_arg_int(c->dst, out) };
    fx_arg *xf = cl ? DC_OP(c, "view.default", cl, fx_arg_seq(c->dst, FX_ARG_LIST, shape, NULL, 1)) : NULL;
    fx_arg *kl[1] = { fx_arg_dtype(c->dst, FX_DT_I64) };
    fx_arg *xi = xf ? dc_nd(c, dc_callv(c, "torch.ops.aten._to_copy.default", kd, kl, 1, 1, xf)) : NULL;
    fx_arg *p1 = xi ? DC_OP(c, "add.Tensor", xi, fx_arg_int(c->dst, 1)) : NULL;
    fx_arg *xp1 = p1 ? DC_OP(c, "clamp.default", p1, fx_arg_none(c->dst), fx_arg_int(c->dst, in - 1)) : NULL;
    fx_arg *v[2] = { NULL, NULL };
    for (int k = 0; k < 2 && xp1; k++) {
        fx_arg *items[3] = { fx_arg_none(c->dst), fx_arg_none(c->dst), k ? xp1 : xi };
        v[k] = DC_OP(c, "_unsafe_index.Tensor", dc_dup(c, x), fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, 3));
    }
    fx_arg *d = v[1] ? DC_OP(c, "sub.Tensor", xf, xi) : NULL;
    fx_arg *w = d ? DC_OP(c, "clamp.default", d, fx_arg_float(c->dst, 0.0), fx_arg_float(c->dst, 1.0)) : NULL;
    fx_arg *diff = w ? DC_OP(c, "sub.Tensor", v[1], v[0]) : NULL;
    fx_arg *mw = diff ? DC_OP(c, "mul.Tensor", diff, w) : NULL;
    return mw ? DC_OP(c, "add.Tensor", v[0], mw) : NULL;
}

static fx_arg *exact1d(dctx *c, const binding *b) { return nearest_exact(c, b, 1, false); }
static fx_arg *exact2d(dctx *c, const binding *b) { return nearest_exact(c, b, 2, false); }
static fx_arg *exact3d(dctx *c, const binding *b) { return nearest_exact(c, b, 3, false); }
static fx_arg *exact1d_vec(dctx *c, const binding *b) { return nearest_exact(c, b, 1, true); }
static fx_arg *exact2d_vec(dctx *c, const binding *b) { return nearest_exact(c, b, 2, true); }
static fx_arg *exact3d_vec(dctx *c, const binding *b) { return nearest_exact(c, b, 3, true); }

static const dc_builtin_entry upsample_builtins[] = {
    {"upsample_nearest_exact1d", exact1d}, {"upsample_nearest_exact2d", exact2d},
    {"upsample_nearest_exact3d", exact3d}, {"upsample_nearest_exact1d_vec", exact1d_vec},
    {"upsample_nearest_exact2d_vec", exact2d_vec}, {"upsample_nearest_exact3d_vec", exact3d_vec},
    {"upsample_linear1d_vec", linear1d_vec},
};

const builtin_family dc_upsample_builtins = BUILTIN_FAMILY("upsample", upsample_builtins);
