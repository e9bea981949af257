/* decomp_upsample.c — _upsample_nearest_exact1d/2d/3d (and their .vec forms) as torch._decomp's
 * _upsample_nearest writes them: per output dim, source indices (arange + 0.5) * in / out cast to
 * int64 (unsqueezed to broadcast), then one _unsafe_index with None for batch and channels. */
#include <string.h>

#include "decompose/decompose_internal.h"
#include "meta/meta_layout.h"

#define OP(c, target, ...) nd(c, dc_callv(c, "torch.ops.aten." target, NULL, NULL, 0, \
                                           sizeof((fx_arg *[]){ __VA_ARGS__ }) / sizeof(fx_arg *), __VA_ARGS__))

static fx_arg *nd(dctx *c, fx_node *n) { return n ? fx_arg_node(c->dst, n) : NULL; }

static bool is_seq(const fx_arg *a) { return a && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE); }

static bool num_of(const fx_arg *a, double *v)
{
    if (a && a->kind == FX_ARG_INT)
        *v = (double)a->u.i;
    else if (a && a->kind == FX_ARG_FLOAT)
        *v = a->u.f;
    else
        return false;
    return true;
}

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
        if (s && !num_of(s, &scales[d]))
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
        fx_arg *a = nd(c, dc_callv(c, "torch.ops.aten.arange.default", kn, kv, 3, 1, fx_arg_int(c->dst, osize[d])));
        fx_arg *add = OP(c, "add.Tensor", a, fx_arg_float(c->dst, 0.5));
        fx_arg *mul = OP(c, "mul.Tensor", add, fx_arg_float(c->dst, scale));
        const char *kd[1] = { "dtype" };
        fx_arg *kl[1] = { fx_arg_dtype(c->dst, FX_DT_I64) };
        fx_arg *idx = mul ? nd(c, dc_callv(c, "torch.ops.aten._to_copy.default", kd, kl, 1, 1, mul)) : NULL;
        for (size_t u = 0; idx && u + 1 + d < k; u++)
            idx = OP(c, "unsqueeze.default", idx, fx_arg_int(c->dst, -1));
        if (!idx)
            return NULL;
        items[2 + d] = idx;
    }
    fx_arg *ix = fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, k + 2);
    return OP(c, "_unsafe_index.Tensor", dc_dup(c, x), ix);
}

static fx_arg *exact1d(dctx *c, const binding *b) { return nearest_exact(c, b, 1, false); }
static fx_arg *exact2d(dctx *c, const binding *b) { return nearest_exact(c, b, 2, false); }
static fx_arg *exact3d(dctx *c, const binding *b) { return nearest_exact(c, b, 3, false); }
static fx_arg *exact1d_vec(dctx *c, const binding *b) { return nearest_exact(c, b, 1, true); }
static fx_arg *exact2d_vec(dctx *c, const binding *b) { return nearest_exact(c, b, 2, true); }
static fx_arg *exact3d_vec(dctx *c, const binding *b) { return nearest_exact(c, b, 3, true); }

static const struct {
    const char *name;
    fx_arg *(*fn)(dctx *c, const binding *b);
} upsample_builtins[] = {
    {"upsample_nearest_exact1d", exact1d}, {"upsample_nearest_exact2d", exact2d},
    {"upsample_nearest_exact3d", exact3d}, {"upsample_nearest_exact1d_vec", exact1d_vec},
    {"upsample_nearest_exact2d_vec", exact2d_vec}, {"upsample_nearest_exact3d_vec", exact3d_vec},
};

bool dc_known_upsample_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof upsample_builtins / sizeof *upsample_builtins; i++)
        if (!strcmp(upsample_builtins[i].name, name))
            return true;
    return false;
}

fx_arg *dc_upsample_builtin(dctx *c, const char *name, const binding *b, bool *known)
{
    for (size_t i = 0; i < sizeof upsample_builtins / sizeof *upsample_builtins; i++)
        if (!strcmp(upsample_builtins[i].name, name)) {
            *known = true;
            return upsample_builtins[i].fn(c, b);
        }
    *known = false;
    return NULL;
}
