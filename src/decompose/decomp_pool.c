/* decomp_pool.c — adaptive average pooling as the exporter's table decomposes it: adaptive_avg_pool1d
 * (ATen: a 2-d pool of the input unsqueezed at -2) and _adaptive_avg_pool2d (torch._decomp's
 * adaptive_avg_pool2d: avg_pool2d when the sizes divide evenly, else each window's elements
 * gathered with index.Tensor, masked where windows are shorter, summed and divided), and im2col
 * (the image windows of nn.functional.unfold, by strided slices). */
#include <string.h>

#include "decompose/decompose_internal.h"
#include "meta/meta_layout.h"

static fx_arg *int_pair(dctx *c, int64_t a, int64_t b)
{
    fx_arg *items[2] = { dc_int(c, a), dc_int(c, b) };
    return fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, 2);
}

/* torch.arange(n, device=..., dtype=torch.int64) */
static fx_arg *arange_i64(dctx *c, int64_t n, const char *device)
{
    const char *kn[3] = { "dtype", "device", "pin_memory" };
    fx_arg *kv[3] = { fx_arg_dtype(c->dst, FX_DT_I64), fx_arg_str(c->dst, FX_ARG_DEVICE, device),
                      fx_arg_bool(c->dst, false) };
    return dc_nd(c, dc_callv(c, "torch.ops.aten.arange.default", kn, kv, 3, 1, dc_int(c, n)));
}

/* x.unsqueeze(-1) until x has rank dims (torch._decomp's _unsqueeze_to_dim) */
static fx_arg *unsqueeze_to(dctx *c, fx_arg *x, size_t rank, size_t dims)
{
    for (size_t r = rank; x && r < dims; r++)
        x = DC_OP(c, "unsqueeze.default", x, dc_int(c, -1));
    return x;
}

/* One dim's windows (compute_idx): idx (out, maxlength) source indices, the window length (a
 * tensor when windows differ, *adaptive), range_max. */
typedef struct pool_dim {
    fx_arg *idx, *length, *range_max;
    int64_t const_length;
    bool adaptive;
} pool_dim;

static bool compute_idx(dctx *c, int64_t in, int64_t out, const char *device, pool_dim *p)
{
    fx_arg *orange = arange_i64(c, out, device);
    fx_arg *mul = orange ? DC_OP(c, "mul.Tensor", orange, dc_int(c, in)) : NULL;
    const char *kn[1] = { "rounding_mode" };
    fx_arg *kv[1] = { fx_arg_str(c->dst, FX_ARG_STR, "trunc") };
    fx_arg *i0 = mul ? dc_nd(c, dc_callv(c, "torch.ops.aten.div.Tensor_mode", kn, kv, 1, 2, mul, dc_int(c, out)))
                     : NULL;
    int64_t maxlength = in / out + 1, mod = in % out;
    p->adaptive = !(mod == 0 || out % mod == 0);
    if (p->adaptive)
        maxlength++;
    else if (mod == 0)
        maxlength--;
    p->range_max = i0 ? arange_i64(c, maxlength, device) : NULL;
    fx_arg *u = p->range_max ? DC_OP(c, "unsqueeze.default", i0, dc_int(c, -1)) : NULL;
    p->idx = u ? DC_OP(c, "add.Tensor", u, p->range_max) : NULL;
    p->const_length = maxlength;
    p->length = NULL;
    if (!p->adaptive || !p->idx)
        return p->idx != NULL;
    const char *sk[3] = { "dtype", "device", "pin_memory" };
    fx_arg *sv[3] = { fx_arg_dtype(c->dst, FX_DT_I64), fx_arg_str(c->dst, FX_ARG_DEVICE, device), fx_arg_bool(c->dst, false) };
    fx_arg *maxval = dc_nd(c, dc_callv(c, "torch.ops.aten.scalar_tensor.default", sk, sv, 3, 1, dc_int(c, in - 1)));
    p->idx = maxval ? DC_OP(c, "minimum.default", p->idx, maxval) : NULL;
    /* end_index: ((orange + 1) * in + out - 1) // out */
    fx_arg *a = p->idx ? DC_OP(c, "add.Tensor", orange, dc_int(c, 1)) : NULL;
    fx_arg *m = a ? DC_OP(c, "mul.Tensor", a, dc_int(c, in)) : NULL;
    fx_arg *a2 = m ? DC_OP(c, "add.Tensor", m, dc_int(c, out)) : NULL;
    fx_arg *s = a2 ? DC_OP(c, "sub.Tensor", a2, dc_int(c, 1)) : NULL;
    fx_arg *i1 = s ? dc_nd(c, dc_callv(c, "torch.ops.aten.div.Tensor_mode", kn, kv, 1, 2, s, dc_int(c, out))) : NULL;
    p->length = i1 ? DC_OP(c, "sub.Tensor", i1, i0) : NULL;
    return p->length != NULL;
}

/* maybe_mask: windows shorter than maxlength have their extra elements zeroed; the length
 * unsqueezed to broadcast against the dim's position (-2 or -1) */
static fx_arg *mask_dim(dctx *c, fx_arg *vals, pool_dim *p, int dim)
{
    if (!p->adaptive || !vals)
        return vals;
    fx_arg *u = DC_OP(c, "unsqueeze.default", p->length, dc_int(c, -1));
    fx_arg *mask = u ? DC_OP(c, "ge.Tensor", p->range_max, u) : NULL;
    if (dim == -2)
        mask = unsqueeze_to(c, mask, 2, 4);
    vals = mask ? DC_OP(c, "masked_fill.Scalar", vals, mask, fx_arg_float(c->dst, 0.0)) : NULL;
    if (dim == -2 && vals)
        p->length = unsqueeze_to(c, p->length, 1, 2);
    return p->length ? vals : NULL;
}

/* _adaptive_avg_pool2d(input, output_size) */
static fx_arg *adaptive_avg_pool2d(dctx *c, const binding *b)
{
    dl_tensor t;
    const fx_arg *x = b->src[0], *os = b->src[1];
    const fx_value *m = dc_meta_of(x);
    if (!x || x->kind != FX_ARG_NODE || !dl_static(m, &t) || (t.rank != 3 && t.rank != 4) ||
        (m->dtype != FX_DT_F32 && m->dtype != FX_DT_F64) || !os || os->kind != FX_ARG_LIST || os->u.seq.len != 2 ||
        os->u.seq.items[0]->kind != FX_ARG_INT || os->u.seq.items[1]->kind != FX_ARG_INT)
        return NULL;
    int64_t ih = t.size[t.rank - 2], iw = t.size[t.rank - 1];
    int64_t oh = os->u.seq.items[0]->u.i, ow = os->u.seq.items[1]->u.i;
    if (ih <= 0 || iw <= 0 || oh <= 0 || ow <= 0)
        return NULL;
    const char *device = m->device ? m->device : "cpu";
    if (ih % oh == 0 && iw % ow == 0) {   /* the evenly divisible case: a plain average pool */
        int64_t sh = ih / oh, sw = iw / ow;
        return DC_OP(c, "avg_pool2d.default", dc_dup(c, x), int_pair(c, ih - (oh - 1) * sh, iw - (ow - 1) * sw),
                  int_pair(c, sh, sw));
    }
    pool_dim h, w;
    if (!compute_idx(c, ih, oh, device, &h) || !compute_idx(c, iw, ow, device, &w))
        return NULL;
    fx_arg *items[4];
    size_t n = 0;
    for (size_t i = 0; i + 2 < t.rank; i++)
        items[n++] = fx_arg_none(c->dst);
    items[n++] = unsqueeze_to(c, h.idx, 2, 4);
    items[n++] = w.idx;
    if (!items[n - 2])
        return NULL;
    fx_arg *vals = DC_OP(c, "index.Tensor", dc_dup(c, x), fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, n));
    if (!h.adaptive && !w.adaptive) {
        fx_arg *dims[2] = { dc_int(c, -3), dc_int(c, -1) };
        return vals ? DC_OP(c, "mean.dim", vals, fx_arg_seq(c->dst, FX_ARG_LIST, dims, NULL, 2)) : NULL;
    }
    vals = mask_dim(c, vals, &h, -2);
    vals = mask_dim(c, vals, &w, -1);
    const fx_value *vm = vals ? dc_meta_of(vals) : NULL;
    if (!vm || vm->rank < 3)
        return NULL;
    int64_t r = (int64_t)vm->rank, windows;
    if (__builtin_mul_overflow(h.const_length, w.const_length, &windows) || windows > INT64_MAX / 3 ||
        !dc_reserve(c, (uint64_t)windows * 3))   /* three nodes per window element */
        return dc_reserve(c, UINT64_MAX), NULL;   /* reported (a count past uint64 as well) */
    fx_arg *ret = NULL;
    for (int64_t i = 0; i < h.const_length; i++)   /* vals[..., i, :, j], unrolled */
        for (int64_t j = 0; j < w.const_length; j++) {
            fx_arg *s = DC_OP(c, "select.int", vals, dc_int(c, r - 3), dc_int(c, i));
            fx_arg *v = s ? DC_OP(c, "select.int", s, dc_int(c, r - 2), dc_int(c, j)) : NULL;
            ret = !v ? NULL : ret ? DC_OP(c, "add.Tensor", ret, v) : v;
            if (!ret)
                return NULL;
        }
    fx_arg *len;
    if (h.adaptive && w.adaptive)
        len = DC_OP(c, "mul.Tensor", h.length, w.length);
    else if (h.adaptive)
        len = DC_OP(c, "mul.Tensor", h.length, dc_int(c, w.const_length));
    else
        len = DC_OP(c, "mul.Tensor", w.length, dc_int(c, h.const_length));   /* int * tensor: the tensor's mul */
    return len ? DC_OP(c, "div.Tensor", ret, len) : NULL;
}

/* adaptive_avg_pool1d(self, output_size): adaptive_avg_pool2d(self.unsqueeze(-2), [1, L]).squeeze(-2) */
static fx_arg *adaptive_avg_pool1d(dctx *c, const binding *b)
{
    const fx_arg *x = b->src[0], *os = b->src[1];
    const fx_value *m = dc_meta_of(x);
    if (!x || x->kind != FX_ARG_NODE || !m || (m->rank != 2 && m->rank != 3) || !os ||
        (os->kind != FX_ARG_LIST && os->kind != FX_ARG_TUPLE) || os->u.seq.len != 1 || os->u.seq.items[0]->kind != FX_ARG_INT)
        return NULL;
    fx_arg *u = DC_OP(c, "unsqueeze.default", dc_dup(c, x), dc_int(c, -2));
    fx_arg *p = u ? DC_OP(c, "adaptive_avg_pool2d.default", u, int_pair(c, 1, os->u.seq.items[0]->u.i)) : NULL;
    return p ? DC_OP(c, "squeeze.dim", p, dc_int(c, -2)) : NULL;
}

/* The two ints of an int[2] argument (an int repeats). */
static bool pair_of(const fx_arg *a, int64_t v[2])
{
    if (a && a->kind == FX_ARG_INT)
        return v[0] = v[1] = a->u.i, true;
    if (!a || (a->kind != FX_ARG_LIST && a->kind != FX_ARG_TUPLE) || a->u.seq.len < 1 || a->u.seq.len > 2)
        return false;
    for (size_t i = 0; i < 2; i++) {
        const fx_arg *e = a->u.seq.items[a->u.seq.len == 1 ? 0 : i];
        if (e->kind != FX_ARG_INT)
            return false;
        v[i] = e->u.i;
    }
    return true;
}

/* im2col (nn.functional.unfold of images; static sizes): the input padded, one strided slice of
 * the last two dims per kernel offset (row-major), stacked after the channel dim and flattened to
 * [N, C * kh * kw, oh * ow] — the channel-major order ATen's im2col writes. */
static fx_arg *im2col(dctx *c, const binding *b)
{
    dl_tensor t;
    int64_t k[2], d[2], p[2], s[2], o[2];
    const fx_arg *x = b->src[0];
    if (!x || x->kind != FX_ARG_NODE || !dl_static(dc_meta_of(x), &t) || (t.rank != 3 && t.rank != 4) ||
        !pair_of(b->src[1], k) || !pair_of(b->src[2], d) || !pair_of(b->src[3], p) || !pair_of(b->src[4], s))
        return NULL;
    size_t h = t.rank - 2;
    for (int i = 0; i < 2; i++) {
        if (k[i] <= 0 || d[i] <= 0 || s[i] <= 0 || p[i] < 0)
            return NULL;
        o[i] = (t.size[h + i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
        if (o[i] <= 0)
            return NULL;
    }
    if (k[0] * k[1] > 4096)   /* one slice per kernel offset */
        return NULL;
    fx_arg *in = dc_dup(c, x);
    if (p[0] || p[1]) {
        int64_t pad[4] = { p[1], p[1], p[0], p[0] };
        in = DC_OP(c, "constant_pad_nd.default", in, dc_int_list(c->dst, pad, 4), fx_arg_float(c->dst, 0.0));
    }
    size_t nk = (size_t)(k[0] * k[1]);
    fx_arg **parts = fx_alloc(c->dst, nk * sizeof *parts);
    for (int64_t i = 0; i < k[0]; i++)
        for (int64_t j = 0; j < k[1]; j++) {
            int64_t r0 = i * d[0], c0 = j * d[1];
            fx_arg *rows = DC_OP(c, "slice.Tensor", in ? dc_dup(c, in) : NULL, dc_int(c, (int64_t)h), dc_int(c, r0),
                                 dc_int(c, r0 + s[0] * (o[0] - 1) + 1), dc_int(c, s[0]));
            parts[i * k[1] + j] = DC_OP(c, "slice.Tensor", rows, dc_int(c, (int64_t)h + 1), dc_int(c, c0),
                                        dc_int(c, c0 + s[1] * (o[1] - 1) + 1), dc_int(c, s[1]));
            if (!parts[i * k[1] + j])
                return NULL;
        }
    fx_arg *st = DC_OP(c, "stack.default", fx_arg_seq(c->dst, FX_ARG_LIST, parts, NULL, nk), dc_int(c, (int64_t)h));
    int64_t shape[3], r = 0;
    if (t.rank == 4)
        shape[r++] = t.size[0];
    shape[r++] = t.size[h - 1] * (int64_t)nk;
    shape[r++] = o[0] * o[1];
    return DC_OP(c, "reshape.default", st, dc_int_list(c->dst, shape, (size_t)r));
}

static const dc_builtin_entry pool_builtins[] = {
    {"adaptive_avg_pool2d", adaptive_avg_pool2d}, {"adaptive_avg_pool1d", adaptive_avg_pool1d}, {"im2col", im2col},
};

const builtin_family dc_pool_builtins = BUILTIN_FAMILY("pool", pool_builtins);
