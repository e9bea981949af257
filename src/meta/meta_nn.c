/* meta_nn.c — the `shape:` rule functions for the matmul family, convolution, pooling,
 * upsampling, normalization, attention and torch.onnx.ops.symbolic: output sizes by the formulas
 * of torch's meta kernels (conv/pool sizes as torch's SymInt arithmetic builds them). */
#include <math.h>
#include <string.h>

#include "meta/meta_internal.h"

static sx *I(mi_ctx *c, int64_t v) { return sx_int(c->a, v); }

/* The contracted sizes must agree (torch: "mat1 and mat2 shapes cannot be multiplied"); two
 * symbols, or a symbol and a number, are what torch would guard equal. */
static bool contractible(mi_ctx *c, const sx *k1, const sx *k2)
{
    int64_t a, b;
    bool ia = sx_is_int(k1, &a), ib = sx_is_int(k2, &b);
    if (ia && ib && a != b)
        return mi_fail(c, "shapes cannot be multiplied (inner sizes %lld and %lld)", (long long)a, (long long)b);
    if (ia != ib)
        mi_specialize(c, ia ? k2 : k1, ia ? a : b);   /* a symbol against a number: pinned to it */
    return true;
}

/* mm(self, mat2) / bmm(self, mat2): [(b,) n, m] x [(b,) m, p] → [(b,) n, p]. */
static bool fixed_mm(mi_ctx *c, mi_out *o, size_t rank, const char *name)
{
    mi_tensor *a = mi_tensor_param(c, 0), *b = mi_tensor_param(c, 1);
    if (!a || !b)
        return false;
    if (a->rank != rank || b->rank != rank)
        return mi_fail(c, "%s: both arguments must be %zu-D (got %zu-D and %zu-D)", name, rank, a->rank, b->rank);
    if (!contractible(c, a->size[rank - 1], b->size[rank - 2]))
        return false;
    mi_tensor *t = mi_out_one(c, o, rank);
    memcpy(t->size, a->size, (rank - 1) * sizeof *t->size);
    t->size[rank - 1] = b->size[rank - 1];
    mi_contiguous(c, t);
    return true;
}

static bool sh_mm(mi_ctx *c, mi_out *o) { return fixed_mm(c, o, 2, "mm"); }
static bool sh_bmm(mi_ctx *c, mi_out *o) { return fixed_mm(c, o, 3, "bmm"); }

/* matmul(self, other): numpy semantics (1-D operands promoted and the added dim dropped,
 * batch dims broadcast). */
static bool sh_matmul(mi_ctx *c, mi_out *o)
{
    mi_tensor *a = mi_tensor_param(c, 0), *b = mi_tensor_param(c, 1);
    if (!a || !b)
        return false;
    if (!a->rank || !b->rank)
        return mi_fail(c, "matmul: both arguments need at least 1 dimension");
    if (!contractible(c, a->size[a->rank - 1], b->size[b->rank >= 2 ? b->rank - 2 : 0]))
        return false;
    mi_tensor *t = mi_out_one(c, o, 0);
    if (a->rank == 1 && b->rank == 1) {
        mi_contiguous(c, t);
        return true;
    }
    size_t ab = a->rank >= 2 ? a->rank - 2 : 0, bb = b->rank >= 2 ? b->rank - 2 : 0;
    size_t nb = ab > bb ? ab : bb;
    for (size_t i = 0; i < nb; i++) {
        sx *x = i + ab >= nb ? a->size[i + ab - nb] : NULL, *y = i + bb >= nb ? b->size[i + bb - nb] : NULL;
        if (!x || sx_eq_int(x, 1))
            x = y;
        t->size[t->rank++] = x ? x : I(c, 1);
    }
    if (a->rank >= 2)
        t->size[t->rank++] = a->size[a->rank - 2];
    if (b->rank >= 2)
        t->size[t->rank++] = b->size[b->rank - 1];
    mi_contiguous(c, t);
    return true;
}

/* linear(input, weight): input's leading dims and weight's out_features. */
static bool sh_linear(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0), *w = mi_tensor_param(c, 1);
    if (!x || !w)
        return false;
    if (!x->rank || w->rank < 1 || w->rank > 2)
        return mi_cannot(c, "linear: unsupported ranks %zu-D input, %zu-D weight", x->rank, w->rank);
    if (!contractible(c, x->size[x->rank - 1], w->size[w->rank - 1]))
        return false;
    mi_tensor *t = mi_out_one(c, o, x->rank - 1);
    memcpy(t->size, x->size, (x->rank - 1) * sizeof *t->size);
    if (w->rank == 2)
        t->size[t->rank++] = w->size[0];
    mi_contiguous(c, t);
    return true;
}

/* An int[N] argument: a single number (or a one-entry list) stands for all N entries. */
static bool int_n(mi_ctx *c, size_t i, size_t nd, sx **out, int64_t dflt)
{
    size_t n;
    if (mi_is_none(c, i)) {
        for (size_t k = 0; k < nd; k++)
            out[k] = I(c, dflt);
        return true;
    }
    /* out holds nd entries: a longer list is refused before it is written */
    const fx_arg *a = mi_param(c, i);
    if ((a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE) && a->u.seq.len > nd)
        return mi_fail(c, "expected %zu values, got %zu", nd, a->u.seq.len);
    if (!mi_sx_list_param(c, i, out, &n, nd))
        return false;
    if (n == 0) {   /* stride=[]: the kernel size (pooling); filled by the caller */
        for (size_t k = 0; k < nd; k++)
            out[k] = NULL;
        return true;
    }
    if (n == 1)
        for (size_t k = 1; k < nd; k++)
            out[k] = out[0];
    else if (n != nd)
        return mi_fail(c, "expected %zu values, got %zu", nd, n);
    return true;
}

/* ATen's argument checks of convolution and pooling: each known entry of v at least min, else
 * torch's message (what, then the values). Symbolic entries are left to the guards. */
static bool check_at_least(mi_ctx *c, sx *const *v, size_t n, int64_t min, const char *msg)
{
    for (size_t i = 0; i < n; i++) {
        int64_t x;
        if (v[i] && sx_is_int(v[i], &x) && x < min)
            return mi_fail(c, "%s, but got %lld", msg, (long long)x);
    }
    return true;
}

/* ATen's expand_param_if_needed for a convolution: a list argument holds one value (for every
 * spatial dim) or one per spatial dim; [] is refused (pooling's [] is the kernel size, not
 * here). */
static bool conv_list_ok(mi_ctx *c, size_t i, size_t nd, const char *name)
{
    const fx_arg *a = mi_param(c, i);
    if (!a || (a->kind != FX_ARG_LIST && a->kind != FX_ARG_TUPLE) || a->u.seq.len == 1 || a->u.seq.len == nd)
        return true;
    return mi_fail(c, "expected %s to be a single integer value or a list of %zu values to match the convolution "
                      "dimensions, but got %s of length %zu", name, nd, name, a->u.seq.len);
}

/* conv(input, weight, stride, padding, dilation, transposed, output_padding, groups). */
static bool sh_conv(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0), *w = mi_tensor_param(c, 1);
    if (!x || !w)
        return false;
    if (w->rank < 3)
        return mi_fail(c, "convolution weight must have at least 3 dimensions");
    size_t nd = w->rank - 2;
    if (x->rank != nd + 2 && x->rank != nd + 1)
        return mi_fail(c, "expected %zu-D or %zu-D input for a %zu-D convolution", nd + 1, nd + 2, nd);
    if (!conv_list_ok(c, 2, nd, "stride") || !conv_list_ok(c, 3, nd, "padding") || !conv_list_ok(c, 4, nd, "dilation") ||
        !conv_list_ok(c, 6, nd, "output_padding"))
        return false;
    bool batched = x->rank == nd + 2, transposed = mi_bool_param(c, 5, false);
    sx *st[MI_MAX_RANK], *pad[MI_MAX_RANK], *dil[MI_MAX_RANK], *opad[MI_MAX_RANK];
    const fx_arg *pa = mi_param(c, 3);
    bool same = false;
    if (pa && pa->kind == FX_ARG_STR) {   /* conv2d.padding: 'valid' or 'same' */
        same = !strcmp(pa->u.s, "same");
        if (!same && strcmp(pa->u.s, "valid"))
            return mi_fail(c, "invalid padding string '%s'", pa->u.s);
        for (size_t k = 0; k < nd; k++)
            pad[k] = I(c, 0);
    } else if (!int_n(c, 3, nd, pad, 0)) {
        return false;
    }
    int64_t groups = 1;
    if (!int_n(c, 2, nd, st, 1) || !int_n(c, 4, nd, dil, 1) || !int_n(c, 6, nd, opad, 0) ||
        (!mi_is_none(c, 7) && !mi_int_param(c, 7, &groups)))
        return false;
    for (size_t k = 0; k < nd; k++) {
        if (!st[k]) st[k] = I(c, 1);
        if (!dil[k]) dil[k] = I(c, 1);
        if (!pad[k]) pad[k] = I(c, 0);
        if (!opad[k]) opad[k] = I(c, 0);
    }
    if (!check_at_least(c, st, nd, 1, "non-positive stride is not supported") ||
        !check_at_least(c, pad, nd, 0, "negative padding is not supported") ||
        !check_at_least(c, opad, nd, 0, "negative output_padding is not supported") ||
        !check_at_least(c, dil, nd, 1, "dilation should be greater than zero"))
        return false;
    mi_tensor *t = mi_out_one(c, o, x->rank);
    size_t sp = batched ? 2 : 1;
    if (batched)
        t->size[0] = x->size[0];
    t->size[sp - 1] = transposed ? sx_mul(c->a, w->size[1], I(c, groups)) : w->size[0];
    for (size_t k = 0; k < nd; k++) {
        sx *in = x->size[sp + k], *kk = w->size[2 + k];
        sx *span = sx_mul(c->a, dil[k], sx_sub(c->a, kk, I(c, 1)));   /* dilation * (kernel - 1) */
        sx *r;
        if (same)
            r = in;
        else if (transposed)   /* (in - 1) * stride - 2 * pad + dilation * (k - 1) + output_padding + 1 */
            r = sx_add(c->a, sx_add(c->a, sx_sub(c->a, sx_mul(c->a, sx_sub(c->a, in, I(c, 1)), st[k]),
                                                 sx_mul(c->a, I(c, 2), pad[k])), span),
                       sx_add(c->a, opad[k], I(c, 1)));
        else   /* (in + 2 * pad - dilation * (k - 1) - 1) // stride + 1 */
            r = sx_add(c->a, sx_floordiv(c->a, sx_sub(c->a, sx_add(c->a, in, sx_mul(c->a, I(c, 2), pad[k])),
                                                      sx_add(c->a, span, I(c, 1))), st[k]), I(c, 1));
        if (!r)
            return mi_fail(c, "convolution output size overflows");
        int64_t v;
        if (sx_is_int(r, &v) && v <= 0)
            return mi_fail(c, "convolution output size is too small (%lld)", (long long)v);
        t->size[sp + k] = r;
    }
    mi_contiguous(c, t);
    return true;
}

/* pool(nd, self, kernel_size, stride, padding, dilation, ceil_mode[, nout]): ATen's
 * pooling_output_shape for each of the last nd dims. */
static bool sh_pool(mi_ctx *c, mi_out *o)
{
    int64_t nd, nout = 1;
    if (!mi_int_param(c, 0, &nd) || nd < 1 || nd > 3 || (c->np > 7 && !mi_int_param(c, 7, &nout)))
        return false;
    mi_tensor *x = mi_tensor_param(c, 1);
    if (!x)
        return false;
    if (x->rank != (size_t)nd + 1 && x->rank != (size_t)nd + 2)
        return mi_fail(c, "expected %lld-D or %lld-D input to %lld-D pooling", (long long)nd + 1,
                       (long long)nd + 2, (long long)nd);
    sx *k[3], *st[3], *pad[3], *dil[3];
    if (!int_n(c, 2, (size_t)nd, k, 1) || !int_n(c, 3, (size_t)nd, st, 1) || !int_n(c, 4, (size_t)nd, pad, 0) ||
        !int_n(c, 5, (size_t)nd, dil, 1))
        return false;
    if (!check_at_least(c, k, (size_t)nd, 1, "kernel size should be greater than zero") ||
        !check_at_least(c, st, (size_t)nd, 1, "stride should be greater than zero") ||
        !check_at_least(c, pad, (size_t)nd, 0, "pad must be non-negative") ||
        !check_at_least(c, dil, (size_t)nd, 1, "dilation should be greater than zero"))
        return false;
    bool ceil_mode = mi_bool_param(c, 6, false);
    mi_tensor *t = mi_out_alloc(c, o, (size_t)nout);
    o->list = nout > 1;
    t->rank = x->rank;
    memcpy(t->size, x->size, sizeof t->size);
    size_t sp = x->rank - (size_t)nd;
    for (size_t i = 0; i < (size_t)nd; i++) {
        if (!k[i])
            return mi_fail(c, "kernel_size must be given");
        sx *s = st[i] ? st[i] : k[i], *in = x->size[sp + i];
        int64_t sv;
        if (!sx_is_int(s, &sv) || sv <= 0)
            return mi_fail(c, "stride should be a positive number");
        sx *num = sx_sub(c->a, sx_add(c->a, in, sx_mul(c->a, I(c, 2), pad[i])),
                         sx_add(c->a, sx_mul(c->a, dil[i], sx_sub(c->a, k[i], I(c, 1))), I(c, 1)));
        if (ceil_mode)
            num = sx_add(c->a, num, I(c, sv - 1));
        sx *r = sx_add(c->a, sx_floordiv(c->a, num, s), I(c, 1));
        /* ceil_mode: the last window must start inside the input (or its left padding) */
        if (ceil_mode && r && mi_cmp(sx_mul(c->a, sx_sub(c->a, r, I(c, 1)), s), sx_add(c->a, in, pad[i])) >= 0)
            r = sx_sub(c->a, r, I(c, 1));
        int64_t v;
        if (!r || (sx_is_int(r, &v) && v <= 0))
            return mi_fail(c, "pooling output size is too small");
        t->size[sp + i] = r;
    }
    mi_contiguous(c, t);
    for (int64_t j = 1; j < nout; j++)
        o->t[j] = *t;
    return true;
}

/* "[2, 3, s77]": t's sizes as torch prints them in its messages. */
static const char *sizes_text(mi_ctx *c, const mi_tensor *t, char *buf, size_t cap)
{
    (void)c;
    size_t at = (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < t->rank && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s", i ? ", " : "", sx_str(t->size[i]));
    if (at < cap) snprintf(buf + at, cap - at, "]");
    return buf;
}

/* grid_sampler(input, grid): [N, C, *grid's spatial dims], after ATen's
 * check_grid_sampler_common / _2d / _3d. */
static bool sh_grid_sampler(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0), *g = mi_tensor_param(c, 1);
    if (!x || !g)
        return false;
    char a[160], b[160];
    if ((x->rank != 4 && x->rank != 5) || g->rank != x->rank)
        return mi_fail(c, "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input "
                          "with sizes %s and grid with sizes %s", sizes_text(c, x, a, sizeof a), sizes_text(c, g, b, sizeof b));
    int64_t nx, ng, last;
    if (sx_is_int(x->size[0], &nx) && sx_is_int(g->size[0], &ng) && nx != ng)
        return mi_fail(c, "grid_sampler(): expected grid and input to have same batch size, but got input with sizes %s "
                          "and grid with sizes %s", sizes_text(c, x, a, sizeof a), sizes_text(c, g, b, sizeof b));
    if (sx_is_int(g->size[g->rank - 1], &last) && last != (int64_t)x->rank - 2)
        return mi_fail(c, "grid_sampler(): expected grid to have size %zu in last dimension, but got grid with sizes %s",
                       x->rank - 2, sizes_text(c, g, b, sizeof b));
    for (size_t i = 2; i < x->rank; i++) {
        int64_t v;
        if (sx_is_int(x->size[i], &v) && v <= 0)
            return mi_fail(c, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes %s "
                              "with dimension %zu being empty", sizes_text(c, x, a, sizeof a), i);
    }
    mi_tensor *t = mi_out_one(c, o, x->rank);
    t->size[0] = x->size[0];
    t->size[1] = x->size[1];
    for (size_t i = 2; i < x->rank; i++)
        t->size[i] = g->size[i - 1];
    mi_contiguous(c, t);
    return true;
}

/* loss(self, target, reduction): an elementwise loss (l1, huber, soft margin, BCE with logits):
 * the broadcast of self and target with reduction 'none' (0), a scalar with 'mean' / 'sum'. */
static bool sh_loss(mi_ctx *c, mi_out *o)
{
    int64_t reduction = 1;
    if (!mi_is_none(c, 2) && !mi_int_param(c, 2, &reduction))
        return false;
    if (reduction < 0 || reduction > 2)
        return mi_fail(c, "%lld is not a valid value for reduction", (long long)reduction);
    if (!mi_broadcast_params(c, o, 2))
        return false;
    if (reduction == 0)
        return true;
    mi_tensor *t = mi_out_one(c, o, 0);
    mi_contiguous(c, t);
    return true;
}

/* adaptive_pool(self, output_size[, nout]): the last dims become output_size. */
static bool sh_adaptive_pool(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    sx *os[MI_MAX_RANK];
    size_t n;
    int64_t nout = 1;
    if (!x || !mi_sx_list_param(c, 1, os, &n, MI_MAX_RANK) || (c->np > 2 && !mi_int_param(c, 2, &nout)))
        return false;
    if (n > x->rank)
        return mi_fail(c, "output_size has more entries than the input has dims");
    if (!check_at_least(c, os, n, 0, "elements of output_size must be greater than or equal to 0"))
        return false;
    mi_tensor *t = mi_out_alloc(c, o, (size_t)nout);
    o->list = nout > 1;
    t->rank = x->rank;
    memcpy(t->size, x->size, sizeof t->size);
    for (size_t i = 0; i < n; i++)
        t->size[x->rank - n + i] = os[i];
    mi_contiguous(c, t);
    for (int64_t j = 1; j < nout; j++)
        o->t[j] = *t;
    return true;
}

/* upsample(self, output_size, scale_factors): spatial dims from output_size, else
 * floor(size * scale). */
static bool sh_upsample(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    if (!x)
        return false;
    if (x->rank < 3)
        return mi_fail(c, "upsampling expects a batched input with spatial dims");
    size_t nd = x->rank - 2;
    mi_tensor *t = mi_out_one(c, o, x->rank);
    memcpy(t->size, x->size, sizeof t->size);
    if (!mi_is_none(c, 1)) {
        sx *os[MI_MAX_RANK];
        size_t n;
        if (!mi_sx_list_param(c, 1, os, &n, MI_MAX_RANK))
            return false;
        if (n != nd)
            return mi_fail(c, "output_size must have %zu entries", nd);
        memcpy(t->size + 2, os, nd * sizeof *os);
    } else {
        const fx_arg *sf = mi_param(c, 2);
        if (!sf || (sf->kind != FX_ARG_LIST && sf->kind != FX_ARG_TUPLE) || sf->u.seq.len != nd)
            return mi_fail(c, "either output_size or scale_factors must be given");
        for (size_t i = 0; i < nd; i++) {
            const fx_arg *e = sf->u.seq.items[i];
            double s = e->kind == FX_ARG_FLOAT ? e->u.f : e->kind == FX_ARG_INT ? (double)e->u.i : NAN;
            int64_t in;
            if (isnan(s) || s <= 0)
                return mi_fail(c, "scale factors must be positive numbers");
            if (sx_is_int(x->size[2 + i], &in))
                t->size[2 + i] = I(c, (int64_t)floor((double)in * s));
            else if (s == floor(s))
                t->size[2 + i] = sx_mul(c->a, x->size[2 + i], I(c, (int64_t)s));
            else
                return mi_fail(c, "a fractional scale of a symbolic size");
        }
    }
    mi_contiguous(c, t);
    return true;
}

/* layer_norm(input, normalized_shape[, nout]): the output, then mean and rstd whose normalized
 * dims are 1. */
static bool sh_layer_norm(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    sx *ns[MI_MAX_RANK];
    size_t n;
    int64_t nout = 1;
    if (!x || !mi_sx_list_param(c, 1, ns, &n, MI_MAX_RANK) || (c->np > 2 && !mi_int_param(c, 2, &nout)))
        return false;
    if (n > x->rank)
        return mi_fail(c, "normalized_shape has more dims than the input");
    mi_out_alloc(c, o, (size_t)nout);
    o->list = nout > 1;
    for (int64_t j = 0; j < nout; j++) {
        mi_tensor *t = &o->t[j];
        t->rank = x->rank;
        for (size_t i = 0; i < x->rank; i++)
            t->size[i] = (j == 0 || i < x->rank - n) ? x->size[i] : I(c, 1);
        mi_contiguous(c, t);
    }
    return true;
}

/* batch_norm(input, training, nout[, weight, bias, running_mean, running_var]): the output, then saved mean / invstd: [C] when training,
 * [0] in eval mode (ATen allocates empty stats). */
static bool sh_batch_norm(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    int64_t nout = 1;
    if (!x || (c->np > 2 && !mi_int_param(c, 2, &nout)))
        return false;
    if (x->rank < 2)
        return mi_fail(c, "batch_norm expects at least 2-D input");
    /* weight, bias, running_mean, running_var (when given): one entry per channel, as ATen's
     * check_dims_match_num_input_features has it */
    static const char *const stats[] = {"weight", "bias", "running_mean", "running_var"};
    int64_t ch, numel;
    for (size_t i = 0; i < 4 && 3 + i < c->np; i++) {
        if (mi_is_none(c, 3 + i))
            continue;
        mi_tensor *p = mi_tensor_param(c, 3 + i);
        if (!p)
            return false;
        if (sx_is_int(x->size[1], &ch) && sx_is_int(mi_numel(c, p), &numel) && numel != ch)
            return mi_fail(c, "%s should contain %lld elements not %lld", stats[i], (long long)ch, (long long)numel);
    }
    bool training = mi_bool_param(c, 1, false);
    mi_out_alloc(c, o, (size_t)nout);
    o->list = nout > 1;
    o->t[0].rank = x->rank;
    memcpy(o->t[0].size, x->size, sizeof x->size);
    mi_preserve_strides(c, x, &o->t[0]);
    for (int64_t j = 1; j < nout; j++) {
        o->t[j].rank = 1;
        o->t[j].size[0] = training ? x->size[1] : I(c, 0);
        mi_contiguous(c, &o->t[j]);
    }
    return true;
}

/* group_norm(input, group, nout): the output, then mean and rstd of shape [N, group]. */
static bool sh_group_norm(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    sx *g = mi_sx_param(c, 1);
    int64_t nout = 1;
    if (!x || !g || (c->np > 2 && !mi_int_param(c, 2, &nout)))
        return false;
    if (x->rank < 2)
        return mi_fail(c, "group_norm expects at least 2-D input");
    mi_out_alloc(c, o, (size_t)nout);
    o->list = nout > 1;
    o->t[0].rank = x->rank;
    memcpy(o->t[0].size, x->size, sizeof x->size);
    mi_contiguous(c, &o->t[0]);
    for (int64_t j = 1; j < nout; j++) {
        o->t[j].rank = 2;
        o->t[j].size[0] = x->size[0];
        o->t[j].size[1] = g;
        mi_contiguous(c, &o->t[j]);
    }
    return true;
}

/* dup(x, n): n results of x's shape (native_dropout's output and mask). */
static bool sh_dup(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    int64_t n;
    if (!x || !mi_int_param(c, 1, &n) || n < 1 || n > 8)
        return false;
    mi_out_alloc(c, o, (size_t)n);
    o->list = true;
    for (int64_t j = 0; j < n; j++) {
        o->t[j].rank = x->rank;
        memcpy(o->t[j].size, x->size, sizeof x->size);
        mi_elementwise_strides(c, &o->t[j], &x, 1);
    }
    return true;
}

/* sdpa(query, key, value): query's shape with value's last dim. */
static bool sh_sdpa(mi_ctx *c, mi_out *o)
{
    mi_tensor *q = mi_tensor_param(c, 0), *k = mi_tensor_param(c, 1), *v = mi_tensor_param(c, 2);
    if (!q || !k || !v)
        return false;
    if (q->rank < 2 || v->rank < 2)
        return mi_fail(c, "attention expects at least 2-D query and value");
    mi_tensor *t = mi_out_one(c, o, q->rank);
    memcpy(t->size, q->size, sizeof t->size);
    t->size[q->rank - 1] = v->size[v->rank - 1];
    mi_contiguous(c, t);
    return true;
}

/* rnn(input, hx, batch_first, bidirectional): aten.lstm.input (hx [h0, c0]) and aten.gru.input (hx
 * one tensor): the output [seq, batch, dirs * h0.size(2)] (batch first: [batch, seq, ...]), then
 * the final states of the initial states' shapes, as ATen's _rnn_impl allocates them. */
static bool sh_rnn(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0), *hx[2];
    size_t nh = 0;
    const fx_arg *h = mi_param(c, 1);
    if (h && h->kind == FX_ARG_LIST) {
        if (!mi_tensor_list_param(c, 1, hx, &nh, 2, false))
            return false;
    } else if ((hx[0] = mi_tensor_param(c, 1)) != NULL) {
        nh = 1;
    }
    if (!x || !nh)
        return false;
    bool batch_first = mi_bool_param(c, 2, false), bidir = mi_bool_param(c, 3, false);
    if (x->rank != 3)
        return mi_fail(c, "input must have 3 dimensions, got %zu", x->rank);
    for (size_t i = 0; i < nh; i++)
        if (hx[i]->rank != 3)
            return mi_fail(c, "hidden state must have 3 dimensions, got %zu", hx[i]->rank);
    mi_out_alloc(c, o, 1 + nh);
    o->list = true;
    mi_tensor *y = &o->t[0];
    y->rank = 3;
    y->size[0] = x->size[0];
    y->size[1] = x->size[1];
    y->size[2] = bidir ? sx_mul(c->a, I(c, 2), hx[0]->size[2]) : hx[0]->size[2];
    mi_contiguous(c, y);
    (void)batch_first;   /* batch first or not, the output keeps the input's first two dims */
    for (size_t i = 0; i < nh; i++) {
        o->t[1 + i].rank = 3;
        memcpy(o->t[1 + i].size, hx[i]->size, sizeof hx[i]->size);
        mi_contiguous(c, &o->t[1 + i]);
    }
    return true;
}

/* symbolic_multi(onnx_dtypes, shapes): torch.onnx.ops.symbolic_multi_out's declared outputs. */
static bool sh_symbolic_multi(mi_ctx *c, mi_out *o)
{
    int64_t dts[64];
    size_t nd;
    const fx_arg *sh = mi_param(c, 1);
    if (!mi_int_list_param(c, 0, dts, &nd, 64))
        return false;
    if (!sh || (sh->kind != FX_ARG_LIST && sh->kind != FX_ARG_TUPLE) || sh->u.seq.len != nd)
        return mi_fail(c, "one shape per output dtype expected");
    mi_out_alloc(c, o, nd);
    o->list = true;
    for (size_t j = 0; j < nd; j++) {
        mi_ctx sub = *c;
        const fx_arg *one[1] = { sh->u.seq.items[j] };
        sub.prm = one;
        sub.np = 1;
        size_t n;
        if (!mi_sx_list_param(&sub, 0, o->t[j].size, &n, MI_MAX_RANK))
            return mi_fail(c, "%s", sub.why);
        o->t[j].rank = n;
        o->t[j].dtype = fx_dtype_from_onnx((int)dts[j]);
        mi_contiguous(c, &o->t[j]);
    }
    return true;
}

static const mi_fn_entry nn_fns[] = {
    MI_FN("mm", 2, 2, sh_mm), MI_FN("bmm", 2, 2, sh_bmm), MI_FN("matmul", 2, 2, sh_matmul),
    MI_FN("linear", 2, 2, sh_linear), MI_FN("conv", 8, 8, sh_conv), MI_FN("pool", 7, 8, sh_pool),
    MI_FN("adaptive_pool", 2, 3, sh_adaptive_pool), MI_FN("upsample", 3, 3, sh_upsample),
    MI_FN("layer_norm", 2, 3, sh_layer_norm), MI_FN("batch_norm", 3, 7, sh_batch_norm),
    MI_FN("group_norm", 3, 3, sh_group_norm), MI_FN("dup", 2, 2, sh_dup), MI_FN("sdpa", 3, 3, sh_sdpa), MI_FN("grid_sampler", 2, 2, sh_grid_sampler), MI_FN("loss", 3, 3, sh_loss),
    MI_FN("symbolic_multi", 2, 2, sh_symbolic_multi), MI_FN("rnn", 4, 4, sh_rnn),
};

const builtin_family mi_nn_builtins = BUILTIN_FAMILY("nn", nn_fns);
