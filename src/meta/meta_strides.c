/* meta_strides.c — output strides as torch's meta kernels compute them: contiguous, TensorIterator
 * (elementwise ops), empty_like(preserve_format), computeStride (view), plus the `strides:` rule
 * functions of the tables. */
#include <string.h>

#include "meta/meta_internal.h"

int mi_cmp(const sx *x, const sx *y)
{
    if (sx_eq(x, y))
        return 0;
    int64_t a, b;
    if (!sx_estimate(x, &a) || !sx_estimate(y, &b))
        return 0;
    return (a > b) - (a < b);
}

sx *mi_numel(mi_ctx *c, const mi_tensor *t)
{
    sx *n = sx_int(c->a, 1);
    for (size_t i = 0; i < t->rank; i++)
        n = sx_mul(c->a, n, t->size[i]);
    return n;
}

void mi_contiguous(mi_ctx *c, mi_tensor *t)
{
    sx *acc = sx_int(c->a, 1);
    for (size_t i = t->rank; i-- > 0;) {
        t->stride[i] = acc;
        /* torch multiplies by max(size, 1): a 0-size dim does not zero the outer strides */
        acc = sx_eq_int(t->size[i], 0) ? acc : sx_mul(c->a, acc, t->size[i]);
    }
    t->strided = true;
    for (size_t i = 0; i < t->rank; i++)
        if (!t->stride[i])
            t->strided = false;
}

bool mi_is_contiguous(const mi_tensor *t)
{
    if (!t->strided)
        return true;   /* no strides recorded: torch made it, so it is the default layout */
    arena tmp;
    arena_init(&tmp);
    sx *expect = sx_int(&tmp, 1);
    bool ok = true;
    for (size_t i = t->rank; ok && i-- > 0;) {
        if (sx_eq_int(t->size[i], 1))
            continue;   /* size-1 dims do not count (torch's is_contiguous) */
        if (sx_eq_int(t->size[i], 0))
            break;
        ok = sx_same_value(t->stride[i], expect);
        expect = sx_mul(&tmp, expect, t->size[i]);
    }
    arena_free(&tmp);
    return ok;
}

/* c10's compute_non_overlapping_and_dense. */
bool mi_non_overlapping_dense(const mi_tensor *t)
{
    if (!t->strided)
        return true;
    int64_t s0;
    if (t->rank == 1)
        return (sx_is_int(t->size[0], &s0) && s0 < 2) || sx_eq_int(t->stride[0], 1);
    size_t perm[MI_MAX_RANK];
    for (size_t i = 0; i < t->rank; i++)
        perm[i] = i;
    /* sort dims by stride, dims of size < 2 last */
    for (size_t i = 1; i < t->rank; i++)
        for (size_t j = i; j > 0; j--) {
            size_t a = perm[j - 1], b = perm[j];
            int64_t sa = 2, sb = 2;
            bool small_a = sx_is_int(t->size[a], &sa) && sa < 2, small_b = sx_is_int(t->size[b], &sb) && sb < 2;
            bool swap = !small_b && (small_a || mi_cmp(t->stride[b], t->stride[a]) < 0);
            if (!swap)
                break;
            perm[j - 1] = b;
            perm[j] = a;
        }
    arena tmp;
    arena_init(&tmp);
    sx *require = sx_int(&tmp, 1);
    bool ok = true;
    for (size_t k = 0; k < t->rank && ok; k++) {
        size_t d = perm[k];
        int64_t s;
        if (sx_is_int(t->size[d], &s) && s < 2)
            break;
        ok = sx_same_value(t->stride[d], require);
        require = sx_mul(&tmp, require, t->size[d]);
    }
    arena_free(&tmp);
    return ok;
}

/* Strides of a dense tensor laid out in the physical order perm (outermost first). */
static void strides_in_order(mi_ctx *c, mi_tensor *t, const size_t *perm)
{
    sx *acc = sx_int(c->a, 1);
    for (size_t k = t->rank; k-- > 0;) {
        size_t d = perm[k];
        t->stride[d] = acc;
        acc = sx_mul(c->a, acc, t->size[d]);
    }
    t->strided = true;
}

/* TensorIterator: fast path for inputs of the output's shape that are all contiguous or share
 * one dense layout; otherwise reorder_dimensions' insertion sort on the inputs' strides
 * (broadcast dims have stride 0 and do not vote), then strides dense in that order. */
void mi_elementwise_strides(mi_ctx *c, mi_tensor *t, mi_tensor *const *in, size_t n)
{
    size_t r = t->rank;
    if (r <= 1) {
        mi_contiguous(c, t);
        return;
    }
    bool same_shape = n > 0, all_contig = true, same_dense = n > 0;
    for (size_t k = 0; k < n; k++) {
        bool shape_eq = in[k]->rank == r;
        for (size_t i = 0; shape_eq && i < r; i++)
            shape_eq = sx_same_value(in[k]->size[i], t->size[i]);
        same_shape &= shape_eq;
        all_contig &= mi_is_contiguous(in[k]);
        bool dense = in[k]->strided && mi_non_overlapping_dense(in[k]);
        for (size_t i = 0; dense && k > 0 && i < r; i++)
            dense = in[0]->strided && sx_eq(in[k]->stride[i], in[0]->stride[i]);
        same_dense &= dense;
    }
    if (same_shape && all_contig) {
        mi_contiguous(c, t);
        return;
    }
    if (same_shape && same_dense) {
        for (size_t i = 0; i < r; i++)
            t->stride[i] = in[0]->stride[i];
        t->strided = true;
        return;
    }
    /* operand strides broadcast to the output shape */
    sx *zero = sx_int(c->a, 0);
    sx *st[8][MI_MAX_RANK];
    size_t nop = 0;
    for (size_t k = 0; k < n && nop < 8; k++) {
        if (!in[k]->strided)
            mi_contiguous(c, in[k]);
        if (in[k]->rank > r)
            continue;
        size_t off = r - in[k]->rank;
        for (size_t i = 0; i < r; i++) {
            if (i < off) {
                st[nop][i] = zero;
                continue;
            }
            const sx *s = in[k]->size[i - off];
            st[nop][i] = (sx_eq_int(s, 1) && !sx_eq_int(t->size[i], 1)) ? zero : in[k]->stride[i - off];
        }
        nop++;
    }
    /* perm starts n-1 .. 0 (fastest dim first); should_swap as in TensorIteratorBase */
    size_t perm[MI_MAX_RANK];
    for (size_t i = 0; i < r; i++)
        perm[i] = r - 1 - i;
    for (size_t i = 1; i < r; i++) {
        size_t dim1 = i;
        for (size_t dim0 = i; dim0-- > 0;) {
            int cmp = 0;
            for (size_t k = 0; k < nop && !cmp; k++) {
                const sx *s0 = st[k][perm[dim0]], *s1 = st[k][perm[dim1]];
                if (sx_eq_int(s0, 0) || sx_eq_int(s1, 0))
                    continue;
                int sc = mi_cmp(s0, s1);
                if (sc) {
                    cmp = sc;
                    break;
                }
                if (mi_cmp(t->size[perm[dim0]], t->size[perm[dim1]]) > 0)
                    cmp = 1;
            }
            if (cmp > 0) {
                size_t s = perm[dim0];
                perm[dim0] = perm[dim1];
                perm[dim1] = s;
                dim1 = dim0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    /* perm lists dims fastest first; lay them out outermost first */
    size_t order[MI_MAX_RANK];
    for (size_t i = 0; i < r; i++)
        order[i] = perm[r - 1 - i];
    strides_in_order(c, t, order);
}

void mi_preserve_strides(mi_ctx *c, const mi_tensor *src, mi_tensor *t)
{
    if (src->strided && mi_non_overlapping_dense(src) && src->rank == t->rank) {
        for (size_t i = 0; i < t->rank; i++)
            t->stride[i] = src->stride[i];
        t->strided = true;
        return;
    }
    mi_tensor *one = (mi_tensor *)src;
    mi_elementwise_strides(c, t, &one, 1);
}

bool mi_view_strides(mi_ctx *c, const mi_tensor *src, mi_tensor *dst)
{
    if (!src->strided) {
        mi_contiguous(c, dst);
        return true;
    }
    if (src->rank == 0) {
        for (size_t i = 0; i < dst->rank; i++)
            dst->stride[i] = sx_int(c->a, 1);
        dst->strided = true;
        return true;
    }
    for (size_t i = 0; i < src->rank; i++)
        if (sx_eq_int(src->size[i], 0)) {
            mi_contiguous(c, dst);
            return true;
        }
    /* ATen computeStride: walk the old dims from the innermost, in chunks of dims that are
     * contiguous with each other; each chunk must be covered exactly by new dims */
    long view_d = (long)dst->rank - 1;
    sx *chunk_base = src->stride[src->rank - 1];
    sx *tensor_numel = sx_int(c->a, 1), *view_numel = sx_int(c->a, 1);
    for (long td = (long)src->rank - 1; td >= 0; td--) {
        tensor_numel = sx_mul(c->a, tensor_numel, src->size[td]);
        if (td == 0 || (!sx_eq_int(src->size[td - 1], 1) &&
                        !sx_same_value(src->stride[td - 1], sx_mul(c->a, tensor_numel, chunk_base)))) {
            while (view_d >= 0 && (mi_cmp(view_numel, tensor_numel) < 0 || sx_eq_int(dst->size[view_d], 1))) {
                dst->stride[view_d] = sx_mul(c->a, view_numel, chunk_base);
                view_numel = sx_mul(c->a, view_numel, dst->size[view_d]);
                view_d--;
            }
            if (!sx_same_value(view_numel, tensor_numel))
                return false;
            if (td > 0) {
                chunk_base = src->stride[td - 1];
                tensor_numel = sx_int(c->a, 1);
                view_numel = sx_int(c->a, 1);
            }
        }
    }
    if (view_d != -1)
        return false;
    for (size_t i = 0; i < dst->rank; i++)
        if (!dst->stride[i])
            return false;
    dst->strided = true;
    return true;
}

/* ---- `strides:` rule functions ------------------------------------------------------------------ */

static bool st_contiguous(mi_ctx *c, mi_tensor *t)
{
    mi_contiguous(c, t);
    return true;
}

/* elementwise(a, b, ...): TensorIterator over the tensor parameters (others are scalars). */
static bool st_elementwise(mi_ctx *c, mi_tensor *t)
{
    mi_tensor *in[8];
    size_t n;
    if (!mi_tensor_params(c, in, &n, 8))
        return false;
    mi_elementwise_strides(c, t, in, n);
    return true;
}

static bool st_preserve(mi_ctx *c, mi_tensor *t)
{
    mi_tensor *s = mi_tensor_param(c, 0);
    if (!s)
        return false;
    mi_preserve_strides(c, s, t);
    return true;
}

/* same(x): x's strides as they are (in-place ops and aliases return their input). */
static bool st_same(mi_ctx *c, mi_tensor *t)
{
    mi_tensor *s = mi_tensor_param(c, 0);
    if (!s)
        return false;
    if (!s->strided || s->rank != t->rank) {
        mi_contiguous(c, t);
        return true;
    }
    memcpy(t->stride, s->stride, sizeof t->stride);
    t->strided = true;
    return true;
}

/* permuted(p0, p1, ...): dense in the physical order p (sdpa's output is (B, L, H, E) in memory). */
static bool st_permuted(mi_ctx *c, mi_tensor *t)
{
    if (c->np != t->rank) {
        mi_contiguous(c, t);
        return true;
    }
    size_t order[MI_MAX_RANK];
    for (size_t i = 0; i < t->rank; i++) {
        int64_t d;
        if (!mi_int_param(c, i, &d) || d < 0 || (size_t)d >= t->rank)
            return mi_fail(c, "permuted(): bad dimension");
        order[i] = (size_t)d;
    }
    strides_in_order(c, t, order);
    return true;
}

static const mi_fn_entry strides_fns[] = {
    MI_FN("contiguous", 0, 0, st_contiguous),
    MI_FN("elementwise", 1, 8, st_elementwise),
    MI_FN("preserve", 1, 1, st_preserve),
    MI_FN("same", 1, 1, st_same),
    MI_FN("permuted", 1, MI_MAX_RANK, st_permuted),
};

const builtin_family mi_strides_builtins = BUILTIN_FAMILY("strides", strides_fns);
