/* meta_views.c — the `shape:` rule functions for views and splits: view / reshape (with -1,
 * strides by ATen's computeStride), flatten, unflatten, expand, permute, transpose, unsqueeze,
 * squeeze, select, slice, narrow, prims.broadcast_in_dim, and split / chunk / unbind, whose
 * pieces are views of their input. */
#include <stdio.h>
#include <string.h>

#include "meta/meta_internal.h"

/* ---- views ------------------------------------------------------------------------------------ */

/* t = x without the dims drop marks (or without dim `only` when drop is NULL), strides kept. */
static void keep_dims(mi_tensor *t, const mi_tensor *x, const bool *drop, size_t only)
{
    t->rank = 0;
    for (size_t i = 0; i < x->rank; i++)
        if (drop ? !drop[i] : i != only) {
            t->size[t->rank] = x->size[i];
            t->stride[t->rank++] = x->stride[i];
        }
    t->strided = true;
}

bool mi_infer_size(mi_ctx *c, const mi_tensor *x, sx **sz, size_t n)
{
    sx *numel = mi_numel(c, x), *known = sx_int(c->a, 1);
    long neg = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        if (!sz[i])
            return mi_fail(c, "a size overflows");
        /* ATen's infer_size: -1 is the one negative size a shape may hold */
        if (sx_is_int(sz[i], &v) && v < -1)
            return mi_fail(c, "invalid shape dimension %lld", (long long)v);
        if (sx_eq_int(sz[i], -1)) {
            if (neg >= 0)
                return mi_fail(c, "only one dimension can be inferred");
            neg = (long)i;
        } else {
            known = sx_mul(c->a, known, sz[i]);
            if (!known)
                return mi_fail(c, "the number of elements of the shape overflows");
        }
    }
    if (neg >= 0) {
        sx *q = sx_div_exact(c->a, numel, known);
        if (!q)
            return mi_fail(c, "shape is invalid for input of size %s", sx_str(numel));
        sz[neg] = q;
        return true;
    }
    int64_t a, b;
    if (sx_is_int(numel, &a) && sx_is_int(known, &b) && a != b)
        return mi_fail(c, "shape is invalid for input of size %lld", (long long)a);
    return true;
}

static bool reshape_to(mi_ctx *c, mi_out *o, mi_tensor *x, sx **sz, size_t n, bool must_view)
{
    if (n > MI_MAX_RANK)
        return mi_fail(c, "too many dimensions");
    if (!mi_infer_size(c, x, sz, n))
        return false;
    mi_tensor *t = mi_out_one(c, o, n);
    memcpy(t->size, sz, n * sizeof *sz);
    if (mi_view_strides(c, x, t))
        return true;
    if (must_view)
        return mi_fail(c, "view size is not compatible with input tensor's size and stride; use reshape");
    mi_contiguous(c, t);   /* reshape copies when it cannot view */
    return true;
}

static bool sh_view(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    sx *sz[MI_MAX_RANK];
    size_t n;
    return x && mi_sx_list_param(c, 1, sz, &n, MI_MAX_RANK) && reshape_to(c, o, x, sz, n, true);
}

static bool sh_reshape(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    sx *sz[MI_MAX_RANK];
    size_t n;
    return x && mi_sx_list_param(c, 1, sz, &n, MI_MAX_RANK) && reshape_to(c, o, x, sz, n, false);
}

/* flatten(self, start_dim, end_dim): a reshape merging dims start..end. */
static bool sh_flatten(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    int64_t s = 0, e = -1;
    if (!x || (!mi_is_none(c, 1) && !mi_int_param(c, 1, &s)) || (!mi_is_none(c, 2) && !mi_int_param(c, 2, &e)))
        return false;
    if (x->rank == 0) {
        sx *one = sx_int(c->a, 1);
        return reshape_to(c, o, x, &one, 1, false);
    }
    size_t ds, de;
    if (!mi_wrap_dim(c, s, x->rank, &ds) || !mi_wrap_dim(c, e, x->rank, &de))
        return false;
    if (ds > de)
        return mi_fail(c, "flatten() has invalid args: start_dim cannot come after end_dim");
    sx *sz[MI_MAX_RANK];
    size_t n = 0;
    for (size_t i = 0; i < ds; i++)
        sz[n++] = x->size[i];
    sx *m = sx_int(c->a, 1);
    for (size_t i = ds; i <= de; i++)
        m = sx_mul(c->a, m, x->size[i]);
    sz[n++] = m;
    for (size_t i = de + 1; i < x->rank; i++)
        sz[n++] = x->size[i];
    return reshape_to(c, o, x, sz, n, false);
}

/* unflatten(self, dim, sizes): dim split into sizes (one may be -1). */
static bool sh_unflatten(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    int64_t d;
    size_t dd, k;
    sx *parts[MI_MAX_RANK];
    if (!x || !mi_int_param(c, 1, &d) || !mi_wrap_dim(c, d, x->rank, &dd) ||
        !mi_sx_list_param(c, 2, parts, &k, MI_MAX_RANK))
        return false;
    if (x->rank - 1 + k > MI_MAX_RANK)
        return mi_fail(c, "too many dimensions");
    sx *sz[MI_MAX_RANK];
    size_t n = 0;
    for (size_t i = 0; i < x->rank; i++) {
        if (i != dd) {
            sz[n++] = x->size[i];
            continue;
        }
        for (size_t j = 0; j < k; j++)
            sz[n++] = parts[j];
    }
    return reshape_to(c, o, x, sz, n, false);
}

/* expand(self, size): new leading dims and 1 → n dims get stride 0; -1 keeps a size. */
static bool sh_expand(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    sx *sz[MI_MAX_RANK];
    size_t n;
    if (!x || !mi_sx_list_param(c, 1, sz, &n, MI_MAX_RANK))
        return false;
    if (n < x->rank)
        return mi_fail(c, "the number of sizes provided (%zu) must be at least the number of dimensions (%zu)", n,
                       x->rank);
    mi_tensor *t = mi_out_one(c, o, n);
    size_t off = n - x->rank;
    sx *zero = sx_int(c->a, 0);
    for (size_t i = 0; i < n; i++) {
        if (i < off) {
            if (sx_eq_int(sz[i], -1))
                return mi_fail(c, "-1 is not allowed in a leading, non-existing dimension");
            t->size[i] = sz[i];
            t->stride[i] = zero;
            continue;
        }
        sx *s = x->size[i - off];
        if (sx_eq_int(sz[i], -1) || sx_eq(sz[i], s)) {
            t->size[i] = s;
            t->stride[i] = x->stride[i - off];
        } else if (sx_eq_int(s, 1)) {
            t->size[i] = sz[i];
            t->stride[i] = zero;
        } else {
            int64_t a, b;
            if (sx_is_int(s, &a) && sx_is_int(sz[i], &b))
                return mi_fail(c, "the expanded size %lld must match the existing size %lld", (long long)b,
                               (long long)a);
            t->size[i] = sz[i];   /* a symbol against a number: torch specializes it */
            t->stride[i] = x->stride[i - off];
        }
    }
    t->strided = true;
    return true;
}

static bool permute_to(mi_ctx *c, mi_out *o, const mi_tensor *x, const size_t *perm)
{
    mi_tensor *t = mi_out_one(c, o, x->rank);
    for (size_t i = 0; i < x->rank; i++) {
        t->size[i] = x->size[perm[i]];
        t->stride[i] = x->stride[perm[i]];
    }
    t->strided = true;
    return true;
}

static bool sh_permute(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    int64_t dims[MI_MAX_RANK];
    size_t n;
    if (!x || !mi_int_list_param(c, 1, dims, &n, MI_MAX_RANK))
        return false;
    if (n != x->rank)
        return mi_fail(c, "permute: %zu dims for a tensor of %zu", n, x->rank);
    size_t perm[MI_MAX_RANK];
    bool seen[MI_MAX_RANK] = { false };
    for (size_t i = 0; i < n; i++) {
        if (!mi_wrap_dim(c, dims[i], x->rank, &perm[i]))
            return false;
        if (seen[perm[i]])
            return mi_fail(c, "permute: repeated dim %lld", (long long)dims[i]);
        seen[perm[i]] = true;
    }
    return permute_to(c, o, x, perm);
}

/* transpose(self, dim0, dim1); t(self) is transpose(0, 1) of a matrix (a no-op below 2-D). */
static bool sh_transpose(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    int64_t a = 0, b = 1;
    if (!x || (c->np > 1 && (!mi_int_param(c, 1, &a) || !mi_int_param(c, 2, &b))))
        return false;
    size_t perm[MI_MAX_RANK];
    for (size_t i = 0; i < x->rank; i++)
        perm[i] = i;
    if (x->rank >= 2 || c->np > 1) {
        size_t da, db;
        if (!mi_wrap_dim(c, a, x->rank, &da) || !mi_wrap_dim(c, b, x->rank, &db))
            return false;
        if (x->rank) {
            perm[da] = db;
            perm[db] = da;
        }
    }
    return permute_to(c, o, x, perm);
}

static bool sh_unsqueeze(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    int64_t d;
    size_t dd;
    if (!x || !mi_int_param(c, 1, &d) || !mi_wrap_dim(c, d, x->rank + 1, &dd))
        return false;
    if (x->rank + 1 > MI_MAX_RANK)
        return mi_fail(c, "too many dimensions");
    mi_tensor *t = mi_out_one(c, o, x->rank + 1);
    for (size_t i = 0, j = 0; i < t->rank; i++) {
        if (i == dd) {
            t->size[i] = sx_int(c->a, 1);
            /* ATen: the new dim's stride is size*stride of the dim it lands before (1 at the end) */
            t->stride[i] = dd >= x->rank ? sx_int(c->a, 1) : sx_mul(c->a, x->size[dd], x->stride[dd]);
            continue;
        }
        t->size[i] = x->size[j];
        t->stride[i] = x->stride[j++];
    }
    t->strided = true;
    return true;
}

/* squeeze(self[, dim]): drops the given dims (or every dim) of size 1. */
static bool sh_squeeze(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    if (!x)
        return false;
    bool drop[MI_MAX_RANK] = { false };
    if (mi_is_none(c, 1)) {
        for (size_t i = 0; i < x->rank; i++)
            drop[i] = sx_eq_int(x->size[i], 1);
    } else {
        int64_t dims[MI_MAX_RANK];
        size_t n;
        if (!mi_int_list_param(c, 1, dims, &n, MI_MAX_RANK))
            return false;
        for (size_t k = 0; k < n; k++) {
            size_t d;
            if (!mi_wrap_dim(c, dims[k], x->rank, &d))
                return false;
            if (x->rank)
                drop[d] = sx_eq_int(x->size[d], 1);
        }
    }
    keep_dims(mi_out_one(c, o, 0), x, drop, 0);
    return true;
}

static bool sh_select(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    int64_t d;
    size_t dd;
    if (!x || !mi_int_param(c, 1, &d))
        return false;
    if (x->rank == 0)
        return mi_fail(c, "select() cannot be applied to a 0-dim tensor");
    if (!mi_wrap_dim(c, d, x->rank, &dd))
        return false;
    int64_t idx, size;
    if (mi_int_param(c, 2, &idx) && sx_is_int(x->size[dd], &size) && (idx < -size || idx >= size))
        return mi_fail(c, "select(): index %lld out of range for size %lld", (long long)idx, (long long)size);
    keep_dims(mi_out_one(c, o, 0), x, NULL, dd);
    return true;
}

/* diagonal(self, offset=0, dim1=0, dim2=1): dim1 and dim2 dropped, the diagonal's length last
 * (min(size1 + min(offset, 0), size2 - max(offset, 0)), not below 0) with stride stride1 +
 * stride2. Symbolic sizes are known when both are the same expression at offset 0. */
static bool sh_diagonal(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    int64_t off = 0, d1 = 0, d2 = 1;
    size_t a, b;
    if (!x || (c->np > 1 && !mi_int_param(c, 1, &off)) || (c->np > 2 && !mi_int_param(c, 2, &d1)) ||
        (c->np > 3 && !mi_int_param(c, 3, &d2)))
        return false;
    if (x->rank < 2)
        return mi_fail(c, "diagonal needs a tensor of at least 2 dims");
    if (!mi_wrap_dim(c, d1, x->rank, &a) || !mi_wrap_dim(c, d2, x->rank, &b))
        return false;
    if (a == b)
        return mi_fail(c, "diagonal dimensions cannot be identical %lld, %lld", (long long)d1, (long long)d2);
    int64_t s1, s2;
    sx *len;
    if (sx_is_int(x->size[a], &s1) && sx_is_int(x->size[b], &s2)) {
        int64_t n = off >= 0 ? (s1 < s2 - off ? s1 : s2 - off) : (s1 + off < s2 ? s1 + off : s2);
        len = sx_int(c->a, n > 0 ? n : 0);
    } else if (off == 0 && sx_eq(x->size[a], x->size[b])) {
        len = x->size[a];
    } else if (off == 0) {
        /* min of two sizes, one or both symbolic: sympy's Min, its arguments in sympy's order
         * (numbers first, then by name), an atom of its own for the rest of the arithmetic */
        const char *p = sx_str(x->size[a]), *q = sx_str(x->size[b]);
        bool swap = sx_is_int(x->size[b], NULL) || (!sx_is_int(x->size[a], NULL) && strcmp(p, q) > 0);
        char text[256];
        snprintf(text, sizeof text, "Min(%s, %s)", swap ? q : p, swap ? p : q);
        len = sx_parse(c->a, text);
        if (!len)
            return mi_fail(c, "diagonal of symbolic sizes: cannot represent %s", text);
    } else {
        return mi_fail(c, "diagonal of symbolic sizes: its length is a min() fxsh does not represent");
    }
    bool drop[MI_MAX_RANK] = { false };
    drop[a] = drop[b] = true;
    mi_tensor *t = mi_out_one(c, o, 0);
    keep_dims(t, x, drop, 0);
    t->size[t->rank] = len;
    t->stride[t->rank++] = sx_add(c->a, x->stride[a], x->stride[b]);
    return true;
}

/* Clamps a slice bound the way ATen's slice does. */
static sx *clamp_bound(mi_ctx *c, sx *v, sx *size, sx *lo)
{
    int64_t iv;
    if (sx_is_int(v, &iv) && iv < 0)
        v = sx_add(c->a, v, size);
    if (sx_is_int(v, &iv) && iv < 0)
        v = sx_int(c->a, 0);
    if (lo && mi_cmp(v, lo) < 0)
        return lo;
    return mi_cmp(v, size) > 0 ? size : v;
}

/* slice(self, dim, start, end, step): (end - start + step - 1) // step entries, stride * step. */
static bool sh_slice(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    int64_t d = 0, step = 1;
    size_t dd;
    if (!x || (!mi_is_none(c, 1) && !mi_int_param(c, 1, &d)) || (!mi_is_none(c, 4) && !mi_int_param(c, 4, &step)))
        return false;
    if (x->rank == 0)
        return mi_fail(c, "slice() cannot be applied to a 0-dim tensor");
    if (!mi_wrap_dim(c, d, x->rank, &dd))
        return false;
    if (step <= 0)
        return mi_fail(c, "slice step must be positive");
    sx *size = x->size[dd];
    sx *start = mi_is_none(c, 2) ? sx_int(c->a, 0) : mi_sx_param(c, 2);
    sx *end = mi_is_none(c, 3) ? size : mi_sx_param(c, 3);
    if (!start || !end)
        return mi_fail(c, "slice bounds are not integers");
    int64_t width, n;
    sx *len;
    if (mi_unbacked(start) || mi_unbacked(end)) {
        /* a bound read out of a tensor (x[:, :t.item()]): torch.export cannot clamp it against
         * the size, so the length is a new unbacked symbol (u1, with 0 <= u1 <= size asserted),
         * unless torch._check said the end is in range (then it is the end itself) */
        bool checked = sx_eq_int(start, 0) && step == 1 && mi_unbacked_in_range(c, end, size);
        len = checked ? end : sx_sym(c->a, mi_fresh_unbacked(c, "u"));
    } else if (!sx_is_int(start, NULL) && sx_is_int(sx_sub(c->a, end, start), &width) && width >= 0 &&
        sx_is_int(size, &n) && width <= n) {
        /* x[i:i+k] at a symbolic index (a loop's i): k rows, the in-range index torch's guard
         * on the example would have assumed; clamping against a stand-in value would not know */
        len = sx_int(c->a, width / step + (width % step != 0));   /* ceil, no overflow for a huge step */
    } else if (sx_is_int(start, NULL) && sx_is_int(end, NULL) && sx_is_int(size, NULL)) {
        int64_t a, b;   /* known bounds: ceil((end - start) / step) computed without overflow */
        start = clamp_bound(c, start, size, NULL);
        end = start ? clamp_bound(c, end, size, start) : NULL;
        if (!start || !end || !sx_is_int(start, &a) || !sx_is_int(end, &b))
            return mi_fail(c, "slice bounds out of range");
        len = sx_int(c->a, (b - a) / step + ((b - a) % step != 0));
    } else {
        start = clamp_bound(c, start, size, NULL);
        end = clamp_bound(c, end, size, start);
        len = sx_floordiv(c->a, sx_add(c->a, sx_sub(c->a, end, start), sx_int(c->a, step - 1)), sx_int(c->a, step));
    }
    if (!len)
        return mi_fail(c, "slice length overflows");
    mi_tensor *t = mi_out_one(c, o, x->rank);
    *t = *x;
    t->dtype = FX_DT_UNKNOWN;
    t->size[dd] = len;
    t->stride[dd] = sx_mul(c->a, x->stride[dd], sx_int(c->a, step));
    return true;
}

/* narrow(self, dim, start, length). */
static bool sh_narrow(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    int64_t d;
    size_t dd;
    sx *len = mi_sx_param(c, 3);
    if (!x || !len || !mi_int_param(c, 1, &d) || !mi_wrap_dim(c, d, x->rank, &dd))
        return false;
    mi_tensor *t = mi_out_one(c, o, x->rank);
    *t = *x;
    t->dtype = FX_DT_UNKNOWN;
    t->size[dd] = len;
    return true;
}

/* ---- splits ----------------------------------------------------------------------------------- */

/* Views of x along dim dd with the given sizes (split / split_with_sizes / chunk). */
static bool split_into(mi_ctx *c, mi_out *o, const mi_tensor *x, size_t dd, sx **sizes, size_t n)
{
    mi_out_alloc(c, o, n);
    o->list = true;
    for (size_t k = 0; k < n; k++) {
        o->t[k] = *x;
        o->t[k].dtype = FX_DT_UNKNOWN;
        o->t[k].size[dd] = sizes[k];
    }
    return true;
}

/* split(self, split_size, dim): pieces of split_size, the last one what remains. */
static bool sh_split(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    int64_t ss, d = 0, size;
    size_t dd;
    if (!x || !mi_int_param(c, 1, &ss) || (!mi_is_none(c, 2) && !mi_int_param(c, 2, &d)) ||
        !mi_wrap_dim(c, d, x->rank, &dd))
        return false;
    if (!sx_is_int(x->size[dd], &size))
        return mi_cannot(c, "split of a symbolic size (%s) makes a data-dependent number of pieces",
                       sx_str(x->size[dd]));
    if (ss <= 0 && size > 0)
        return mi_fail(c, "split_size must be positive");
    size_t n = size == 0 ? 1 : (size_t)((size + ss - 1) / ss);
    if (n > 4096)
        return mi_fail(c, "split into too many pieces");
    sx **sizes = arena_alloc(c->a, n * sizeof *sizes);
    for (size_t k = 0; k < n; k++)
        sizes[k] = sx_int(c->a, (int64_t)k + 1 < (int64_t)n ? ss : size - ss * (int64_t)(n - 1));
    return split_into(c, o, x, dd, sizes, n);
}

static bool sh_split_with_sizes(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    sx *parts[256];
    size_t n, dd;
    int64_t d = 0;
    if (!x || !mi_sx_list_param(c, 1, parts, &n, 256) || (!mi_is_none(c, 2) && !mi_int_param(c, 2, &d)) ||
        !mi_wrap_dim(c, d, x->rank, &dd))
        return false;
    sx *sum = sx_int(c->a, 0);
    int64_t a, b;
    for (size_t k = 0; k < n && sum; k++) {
        if (sx_is_int(parts[k], &a) && a < 0)
            return mi_fail(c, "split_with_sizes expects split_sizes have only non-negative entries, but got %lld",
                           (long long)a);
        sum = sx_add(c->a, sum, parts[k]);
    }
    if (!sum)
        return mi_fail(c, "split_with_sizes: the split sizes overflow");
    if (sx_is_int(sum, &a) && sx_is_int(x->size[dd], &b) && a != b)
        return mi_fail(c, "split_with_sizes expects split_sizes to sum exactly to %lld", (long long)b);
    return split_into(c, o, x, dd, parts, n);
}

/* chunk(self, chunks, dim): split with split_size = ceil(size / chunks). */
static bool sh_chunk(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    int64_t chunks, d = 0, size;
    size_t dd;
    if (!x || !mi_int_param(c, 1, &chunks) || (!mi_is_none(c, 2) && !mi_int_param(c, 2, &d)) ||
        !mi_wrap_dim(c, d, x->rank, &dd))
        return false;
    if (chunks <= 0)
        return mi_fail(c, "chunk expects a positive number of chunks");
    if (!sx_is_int(x->size[dd], &size))
        return mi_fail(c, "chunk of a symbolic size (%s)", sx_str(x->size[dd]));
    /* ceil divisions written so that they cannot overflow (chunks may be int64's maximum) */
    int64_t ss = size / chunks + (size % chunks != 0);
    int64_t np = ss ? size / ss + (size % ss != 0) : 1;
    if (np > 65536)
        return mi_fail(c, "chunk into %lld pieces: more than fxsh follows (65536)", (long long)np);
    size_t n = (size_t)np;
    sx **sizes = arena_alloc(c->a, (n ? n : 1) * sizeof *sizes);
    for (size_t k = 0; k < n; k++)
        sizes[k] = sx_int(c->a, k + 1 < n ? ss : size - ss * (int64_t)(n - 1));
    return split_into(c, o, x, dd, sizes, n);
}

/* unbind(self, dim): one select per index. */
static bool sh_unbind(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    int64_t d = 0, size;
    size_t dd;
    if (!x || (!mi_is_none(c, 1) && !mi_int_param(c, 1, &d)) || !mi_wrap_dim(c, d, x->rank, &dd))
        return false;
    if (!sx_is_int(x->size[dd], &size) || size > 4096)
        return mi_fail(c, "unbind of a symbolic or huge size (%s)", sx_str(x->size[dd]));
    mi_out_alloc(c, o, (size_t)size);
    o->list = true;
    for (int64_t k = 0; k < size; k++)
        keep_dims(&o->t[k], x, NULL, dd);
    return true;
}

/* prims.broadcast_in_dim(a, shape, broadcast_dimensions): a view; new and broadcast dims get
 * stride 0. */
static bool sh_broadcast_in_dim(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    sx *sz[MI_MAX_RANK];
    int64_t bd[MI_MAX_RANK];
    size_t n, nb;
    if (!x || !mi_sx_list_param(c, 1, sz, &n, MI_MAX_RANK) || !mi_int_list_param(c, 2, bd, &nb, MI_MAX_RANK))
        return false;
    if (nb != x->rank)
        return mi_fail(c, "broadcast_dimensions must name every input dim");
    int64_t v, w;
    for (size_t i = 0; i < n; i++)
        if (sx_is_int(sz[i], &v) && v < 0)
            return mi_fail(c, "broadcast_in_dim: shape[%zu] is %lld; sizes are non-negative", i, (long long)v);
    mi_tensor *t = mi_out_one(c, o, n);
    for (size_t i = 0; i < n; i++) {
        t->size[i] = sz[i];
        t->stride[i] = sx_int(c->a, 0);
    }
    for (size_t j = 0; j < nb; j++) {
        if (bd[j] < 0 || (size_t)bd[j] >= n)
            return mi_fail(c, "broadcast dimension %lld out of range", (long long)bd[j]);
        /* prims' meta: each operand dim is 1 or the size it is broadcast to */
        if (sx_is_int(x->size[j], &v) && sx_is_int(sz[bd[j]], &w) && v != 1 && v != w)
            return mi_fail(c, "broadcast_in_dim: operand dimension %zu has size %lld, which cannot become %lld", j,
                           (long long)v, (long long)w);
        if (sx_eq(x->size[j], sz[bd[j]]))
            t->stride[bd[j]] = x->stride[j];
    }
    t->strided = true;
    return true;
}

static const mi_fn_entry view_fns[] = {
    MI_FN("view", 2, 2, sh_view), MI_FN("reshape", 2, 2, sh_reshape), MI_FN("flatten", 3, 3, sh_flatten),
    MI_FN("unflatten", 3, 3, sh_unflatten), MI_FN("expand", 2, 2, sh_expand),
    MI_FN("permute", 2, 2, sh_permute), MI_FN("transpose", 1, 3, sh_transpose),
    MI_FN("unsqueeze", 2, 2, sh_unsqueeze), MI_FN("squeeze", 1, 2, sh_squeeze),
    MI_FN("select", 3, 3, sh_select), MI_FN("diagonal", 1, 4, sh_diagonal), MI_FN("slice", 5, 5, sh_slice), MI_FN("narrow", 4, 4, sh_narrow),
    MI_FN("split", 3, 3, sh_split), MI_FN("split_with_sizes", 3, 3, sh_split_with_sizes),
    MI_FN("chunk", 3, 3, sh_chunk), MI_FN("unbind", 2, 2, sh_unbind),
    MI_FN("broadcast_in_dim", 3, 3, sh_broadcast_in_dim),
};

const builtin_family mi_view_builtins = BUILTIN_FAMILY("views", view_fns);
