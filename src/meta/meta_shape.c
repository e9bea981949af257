/* meta_shape.c — the `shape:` rule functions for tensor-generic ops: elementwise (same shape,
 * broadcasting), reductions, joins, advanced indexing, factories and SymInt queries (views and
 * splits are in meta_views.c). Each computes the output sizes torch's meta kernel computes, and
 * the strides where the op decides them. */
#include <math.h>
#include <string.h>

#include "meta/meta_internal.h"
#include "meta/meta_promote.h"

/* ---- elementwise ------------------------------------------------------------------------------ */

/* same(x[, dim]): x's shape, TensorIterator strides over x; dim (an op's dimension argument:
 * softmax, cumsum) must name one of x's dims, as ATen wraps it. */
static bool sh_same(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    if (!x)
        return false;
    int64_t d;
    size_t wrapped;
    if (c->np > 1 && !mi_is_none(c, 1) && (!mi_int_param(c, 1, &d) || !mi_wrap_dim(c, d, x->rank, &wrapped)))
        return false;
    mi_tensor *t = mi_out_one(c, o, x->rank);
    memcpy(t->size, x->size, sizeof t->size);
    mi_elementwise_strides(c, t, &x, 1);
    return true;
}

/* self(x): x itself (in-place ops and aliases return their input: same sizes and strides). */
static bool sh_self(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_strided_param(c, 0);
    if (!x)
        return false;
    mi_tensor *t = mi_out_one(c, o, x->rank);
    *t = *x;
    t->dtype = FX_DT_UNKNOWN;
    return true;
}

/* One broadcast dimension: 1 yields to the other; torch guards two symbols equal (and a symbol
 * against a number specializes it), so the first non-1 size stands. */
static sx *broadcast_dim(mi_ctx *c, sx *a, sx *b)
{
    if (!a || sx_eq_int(a, 1))
        return b;
    if (!b || sx_eq_int(b, 1) || sx_same_value(a, b))
        return a;
    int64_t x, y;
    bool ia = sx_is_int(a, &x), ib = sx_is_int(b, &y);
    if (ia && ib) {
        mi_fail(c, "sizes %lld and %lld do not broadcast", (long long)x, (long long)y);
        return NULL;
    }
    if (ia != ib)
        mi_specialize(c, ia ? b : a, ia ? x : y);   /* a symbol broadcast against a number other than 1 */
    return ib ? b : a;
}

static bool broadcast_shapes(mi_ctx *c, mi_tensor *const *in, size_t n, mi_tensor *t)
{
    size_t r = 0;
    for (size_t k = 0; k < n; k++)
        r = in[k]->rank > r ? in[k]->rank : r;
    t->rank = r;
    for (size_t i = 0; i < r; i++) {
        sx *s = NULL;
        for (size_t k = 0; k < n; k++) {
            size_t off = r - in[k]->rank;
            if (i >= off && !(s = broadcast_dim(c, s, in[k]->size[i - off])))
                return false;
        }
        t->size[i] = s ? s : sx_int(c->a, 1);
    }
    return true;
}

/* broadcast(a, b, ...): the broadcast shape of the tensor parameters (numbers are scalars). */
static bool sh_broadcast(mi_ctx *c, mi_out *o)
{
    return mi_broadcast_params(c, o, c->np);
}

bool mi_broadcast_params(mi_ctx *c, mi_out *o, size_t np)
{
    mi_tensor *in[8];
    size_t n, all = c->np;
    c->np = np < all ? np : all;   /* only the first np parameters are operands */
    bool ok = mi_tensor_params(c, in, &n, 8);
    c->np = all;
    if (!ok)
        return false;
    if (!n)
        return mi_fail(c, "no tensor operand");
    mi_tensor *t = mi_out_one(c, o, 0);
    if (!broadcast_shapes(c, in, n, t))
        return false;
    mi_elementwise_strides(c, t, in, n);
    return true;
}

/* ---- reductions ------------------------------------------------------------------------------- */

/* reduce(self, dim, keepdim[, nout]): dim None or [] reduces every dim. */
static bool sh_reduce(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    if (!x)
        return false;
    bool red[MI_MAX_RANK] = { false };
    int64_t dims[MI_MAX_RANK];
    size_t nd = 0;
    if (!mi_is_none(c, 1) && !mi_int_list_param(c, 1, dims, &nd, MI_MAX_RANK))
        return false;
    for (size_t k = 0; k < nd; k++) {
        size_t d;
        if (!mi_wrap_dim(c, dims[k], x->rank, &d))
            return false;
        if (x->rank)
            red[d] = true;
    }
    if (!nd)
        for (size_t i = 0; i < x->rank; i++)
            red[i] = true;
    bool keep = mi_bool_param(c, 2, false);
    int64_t nout = 1;
    if (c->np > 3 && !mi_int_param(c, 3, &nout))
        return false;
    mi_tensor *t = mi_out_alloc(c, o, (size_t)nout);
    o->list = nout > 1;
    for (size_t i = 0; i < x->rank; i++) {
        if (!red[i])
            t->size[t->rank++] = x->size[i];
        else if (keep)
            t->size[t->rank++] = sx_int(c->a, 1);
    }
    mi_contiguous(c, t);
    for (int64_t k = 1; k < nout; k++)
        o->t[k] = *t;
    return true;
}

/* ---- joins ------------------------------------------------------------------------- */

static bool cat_of(mi_ctx *c, mi_out *o, mi_tensor **in, size_t n, int64_t d)
{
    mi_tensor *ref = NULL;
    for (size_t k = 0; k < n && !ref; k++)   /* legacy: 1-d empty tensors are skipped */
        if (!(in[k]->rank == 1 && sx_eq_int(in[k]->size[0], 0)))
            ref = in[k];
    if (!ref)
        return mi_fail(c, "cat of empty tensors");
    size_t dd;
    if (!mi_wrap_dim(c, d, ref->rank, &dd))
        return false;
    mi_tensor *t = mi_out_one(c, o, ref->rank);
    memcpy(t->size, ref->size, sizeof t->size);
    sx *sum = sx_int(c->a, 0);
    for (size_t k = 0; k < n; k++) {
        if (in[k]->rank == 1 && sx_eq_int(in[k]->size[0], 0))
            continue;
        if (in[k]->rank != ref->rank)
            return mi_fail(c, "cat: tensors must have the same number of dimensions");
        sum = sx_add(c->a, sum, in[k]->size[dd]);
    }
    t->size[dd] = sum;
    mi_contiguous(c, t);
    return true;
}

static bool sh_cat(mi_ctx *c, mi_out *o)
{
    mi_tensor *in[256];
    size_t n;
    int64_t d = 0;
    if (!mi_tensor_list_param(c, 0, in, &n, 256, false) || (!mi_is_none(c, 1) && !mi_int_param(c, 1, &d)))
        return false;
    return cat_of(c, o, in, n, d);
}

static mi_tensor *unsqueezed(mi_ctx *c, const mi_tensor *x, size_t d)
{
    mi_tensor *u = arena_alloc(c->a, sizeof *u);
    *u = *x;
    u->strided = false;
    u->rank = x->rank + 1;
    for (size_t i = 0, j = 0; i < u->rank; i++)
        u->size[i] = i == d ? sx_int(c->a, 1) : x->size[j++];
    return u;
}

/* stack(tensors, dim): cat of the tensors unsqueezed at dim. */
static bool sh_stack(mi_ctx *c, mi_out *o)
{
    mi_tensor *in[256];
    size_t n, dd;
    int64_t d = 0;
    if (!mi_tensor_list_param(c, 0, in, &n, 256, false) || (!mi_is_none(c, 1) && !mi_int_param(c, 1, &d)))
        return false;
    if (!n)
        return mi_fail(c, "stack expects a non-empty list");
    if (in[0]->rank + 1 > MI_MAX_RANK || !mi_wrap_dim(c, d, in[0]->rank + 1, &dd))
        return false;
    for (size_t k = 0; k < n; k++)
        in[k] = unsqueezed(c, in[k], dd);
    return cat_of(c, o, in, n, (int64_t)dd);
}

static mi_tensor *at_least_1d(mi_ctx *c, mi_tensor *x)
{
    return x->rank ? x : unsqueezed(c, x, 0);
}

/* hstack(tensors): cat along dim 0 of 1-d tensors, else along dim 1. */
static bool sh_hstack(mi_ctx *c, mi_out *o)
{
    mi_tensor *in[256];
    size_t n;
    if (!mi_tensor_list_param(c, 0, in, &n, 256, false))
        return false;
    if (!n)
        return mi_fail(c, "hstack expects a non-empty list");
    for (size_t k = 0; k < n; k++)
        in[k] = at_least_1d(c, in[k]);
    return cat_of(c, o, in, n, in[0]->rank == 1 ? 0 : 1);
}

/* x as torch.atleast_<want>d makes it: rank 0 all ones, a vector [1, n] (or [1, n, 1]), a
 * matrix [a, b, 1] for want 3. */
static mi_tensor *at_least_nd(mi_ctx *c, mi_tensor *x, int64_t want)
{
    if (x->rank == 0)
        for (int64_t i = 0; i < want; i++)
            x = unsqueezed(c, x, 0);
    else if (x->rank == 1 && want >= 2)
        x = unsqueezed(c, x, 0);
    if (x->rank == 2 && want == 3)
        x = unsqueezed(c, x, 2);
    return x;
}

/* atleast_1d(tensors[, n]): the list form returns a list; tensors below rank n (default 1) are
 * given leading / trailing ones as torch.atleast_nd does. */
static bool sh_atleast_1d(mi_ctx *c, mi_out *o)
{
    const fx_arg *a = mi_param(c, 0);
    mi_tensor *in[256];
    size_t n = 1;
    int64_t want = 1;
    bool list = a && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE);
    if (list ? !mi_tensor_list_param(c, 0, in, &n, 256, false) : !(in[0] = mi_tensor_param(c, 0)))
        return false;
    if (c->np > 1 && (!mi_int_param(c, 1, &want) || want < 1 || want > 3))
        return false;
    mi_out_alloc(c, o, n);
    o->list = list;
    for (size_t k = 0; k < n; k++) {
        o->t[k] = *at_least_nd(c, in[k], want);
        o->t[k].dtype = in[k]->dtype;
        if (!in[k]->strided || !in[k]->rank)
            mi_contiguous(c, &o->t[k]);
    }
    return true;
}

/* ---- indexing --------------------------------------------------------------------------------- */

/* index(self, indices): advanced indexing. The index tensors broadcast to one shape B; when they
 * are adjacent B replaces the indexed dims in place, otherwise it goes first. A bool (or uint8)
 * mask of rank r stands for r index tensors, its nonzero() columns: each of an unbacked length
 * u<N> that torch.export cannot know (x[x > 0] is 1-D of u0 elements). */
static bool sh_index(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0), *idx[MI_MAX_RANK];
    size_t n;
    if (!x || !mi_tensor_list_param(c, 1, idx, &n, MI_MAX_RANK, true))
        return false;
    /* the index of each of x's dims (NULL: taken whole), a mask spread over the dims it covers */
    mi_tensor *at[MI_MAX_RANK] = { NULL }, *masks = NULL;
    size_t dims = 0;
    for (size_t k = 0; k < n; k++) {
        bool mask = idx[k] && (idx[k]->dtype == FX_DT_BOOL || idx[k]->dtype == FX_DT_U8);
        size_t r = mask ? idx[k]->rank : 1;
        if (dims + r > x->rank)
            return mi_fail(c, "too many indices for tensor of dimension %zu", x->rank);
        if (!mask) {
            at[dims++] = idx[k];
            continue;
        }
        for (size_t j = 0; j < r; j++) {
            int64_t a, b;
            if (sx_is_int(idx[k]->size[j], &a) && sx_is_int(x->size[dims + j], &b) && a != b)
                return mi_fail(c, "The shape of the mask [%lld] at index %zu does not match the shape of the indexed "
                                  "tensor [%lld] at index %zu", (long long)a, j, (long long)b, dims + j);
        }
        if (!masks)
            masks = arena_alloc(c->a, MI_MAX_RANK * sizeof *masks);
        mi_tensor *col = &masks[k];   /* one [u] column shared by the dims the mask covers */
        memset(col, 0, sizeof *col);
        col->rank = 1;
        col->dtype = FX_DT_I64;
        col->size[0] = sx_sym(c->a, mi_fresh_unbacked(c, "u"));
        for (size_t j = 0; j < r; j++)
            at[dims + j] = col;
        dims += r;
        if (!r)   /* a 0-dim mask adds a dim of 0 or 1: not followed here */
            return mi_cannot(c, "a 0-dim boolean mask index");
    }
    mi_tensor *given[MI_MAX_RANK];
    size_t ng = 0, first = 0, last = 0;
    bool gap = false;
    for (size_t k = 0; k < dims; k++) {
        if (!at[k])
            continue;
        if (ng && k != last + 1)
            gap = true;
        if (!ng)
            first = k;
        last = k;
        given[ng++] = at[k];
    }
    if (!ng)
        return sh_self(c, o);
    mi_tensor b;
    memset(&b, 0, sizeof b);
    if (!broadcast_shapes(c, given, ng, &b))
        return false;
    if (x->rank - ng + b.rank > MI_MAX_RANK)
        return mi_fail(c, "too many dimensions");
    mi_tensor *t = mi_out_one(c, o, 0);
    if (gap) {
        for (size_t i = 0; i < b.rank; i++)
            t->size[t->rank++] = b.size[i];
        for (size_t i = 0; i < x->rank; i++)
            if (i >= dims || !at[i])
                t->size[t->rank++] = x->size[i];
    } else {
        for (size_t i = 0; i < first; i++)
            t->size[t->rank++] = x->size[i];
        for (size_t i = 0; i < b.rank; i++)
            t->size[t->rank++] = b.size[i];
        for (size_t i = last + 1; i < x->rank; i++)
            t->size[t->rank++] = x->size[i];
    }
    mi_contiguous(c, t);
    return true;
}

/* nonzero(self): int64 [u, rank] — one row per element that is not zero, a count torch.export
 * cannot know (an unbacked u<N>); masked_select(self, mask): the selected elements, [u]. */
static bool sh_nonzero(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    if (!x)
        return false;
    mi_tensor *t = mi_out_one(c, o, 0);
    t->size[t->rank++] = sx_sym(c->a, mi_fresh_unbacked(c, "u"));
    t->size[t->rank++] = sx_int(c->a, (int64_t)x->rank);
    t->dtype = FX_DT_I64;
    mi_contiguous(c, t);
    return true;
}

static bool sh_masked_select(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0), *m = mi_tensor_param(c, 1);
    if (!x || !m)
        return false;
    mi_tensor *in[2] = {x, m}, b;
    memset(&b, 0, sizeof b);
    if (!broadcast_shapes(c, in, 2, &b))   /* the mask broadcasts with self, as ATen checks */
        return false;
    mi_tensor *t = mi_out_one(c, o, 0);
    t->size[t->rank++] = sx_sym(c->a, mi_fresh_unbacked(c, "u"));
    mi_contiguous(c, t);
    return true;
}

/* index_select(self, dim, index): dim takes the number of indices. */
static bool sh_index_select(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0), *ix = mi_tensor_param(c, 2);
    int64_t d;
    size_t dd;
    if (!x || !ix || !mi_int_param(c, 1, &d) || !mi_wrap_dim(c, d, x->rank, &dd))
        return false;
    mi_tensor *t = mi_out_one(c, o, x->rank);
    memcpy(t->size, x->size, sizeof t->size);
    if (x->rank)
        t->size[dd] = mi_numel(c, ix);
    mi_contiguous(c, t);
    return true;
}

/* embedding(weight, indices): the indices' shape plus the embedding dim. */
static bool sh_embedding(mi_ctx *c, mi_out *o)
{
    mi_tensor *w = mi_tensor_param(c, 0), *ix = mi_tensor_param(c, 1);
    if (!w || !ix)
        return false;
    if (w->rank != 2)
        return mi_fail(c, "'weight' must be 2-D");
    if (ix->rank + 1 > MI_MAX_RANK)
        return mi_fail(c, "too many dimensions");
    mi_tensor *t = mi_out_one(c, o, ix->rank + 1);
    memcpy(t->size, ix->size, ix->rank * sizeof *t->size);
    t->size[ix->rank] = w->size[1];
    mi_contiguous(c, t);
    return true;
}

/* topk(self, k, dim) and sort(self, dim): values and indices, dim resized to k. */
static bool sh_topk(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    sx *k = mi_sx_param(c, 1);
    int64_t d = -1;
    size_t dd = 0;
    if (!x || !k || (!mi_is_none(c, 2) && !mi_int_param(c, 2, &d)) || (x->rank && !mi_wrap_dim(c, d, x->rank, &dd)))
        return false;
    /* ATen's topk: 0 <= k <= the size of dim (1 for a 0-dim tensor) */
    int64_t kv, size = 1;
    bool size_known = !x->rank || sx_is_int(x->size[dd], &size);
    if (sx_is_int(k, &kv) && (kv < 0 || (size_known && kv > size)))
        return mi_fail(c, "selected index k out of range");
    mi_out_alloc(c, o, 2);
    o->list = true;
    for (int j = 0; j < 2; j++) {
        o->t[j].rank = x->rank;
        memcpy(o->t[j].size, x->size, sizeof x->size);
        if (x->rank)
            o->t[j].size[dd] = k;
        mi_contiguous(c, &o->t[j]);
    }
    return true;
}

/* ---- factories and layout-preserving copies --------------------------------------------------- */

/* full(size): a new contiguous tensor of the given sizes. */
static bool sh_full(mi_ctx *c, mi_out *o)
{
    sx *sz[MI_MAX_RANK];
    size_t n;
    if (!mi_sx_list_param(c, 0, sz, &n, MI_MAX_RANK))
        return false;
    mi_tensor *t = mi_out_one(c, o, n);
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        if (sx_is_int(sz[i], &v) && v < 0)
            return mi_fail(c, "negative dimension %lld", (long long)v);
        t->size[i] = sz[i];
    }
    mi_contiguous(c, t);
    return true;
}

/* scalar(): a 0-d tensor. */
static bool sh_scalar(mi_ctx *c, mi_out *o)
{
    mi_tensor *t = mi_out_one(c, o, 0);
    t->strided = true;
    return true;
}

/* dims(n[, m]): a new 1-D tensor of n (linspace's steps, histc's bins) or 2-D of [n, m] (eye:
 * m defaults to n), each size an int or SymInt and not negative. */
static bool sh_dims(mi_ctx *c, mi_out *o)
{
    sx *d[2] = {mi_sx_param(c, 0), c->np > 1 && !mi_is_none(c, 1) ? mi_sx_param(c, 1) : NULL};
    if (!d[0])
        return false;
    size_t rank = c->np > 1 ? 2 : 1;
    if (rank == 2 && !d[1])
        d[1] = d[0];
    mi_tensor *t = mi_out_one(c, o, rank);
    for (size_t i = 0; i < rank; i++) {
        int64_t v;
        if (sx_is_int(d[i], &v) && v < 0)
            return mi_fail(c, "negative dimension %lld", (long long)v);
        t->size[i] = d[i];
    }
    mi_contiguous(c, t);
    return true;
}

/* halve(x, dim): x's shape with dim halved (glu: the two halves multiply); the dim must be even. */
static bool sh_halve(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    int64_t d, v;
    size_t k;
    if (!x || !mi_int_param(c, 1, &d) || !mi_wrap_dim(c, d, x->rank, &k))
        return false;
    if (!x->rank)
        return mi_fail(c, "glu does not support scalars because halving size must be even");
    if (sx_is_int(x->size[k], &v) && v % 2)
        return mi_fail(c, "Halving dimension must be even, but dimension %zu is size %lld", k, (long long)v);
    mi_tensor *t = mi_out_one(c, o, x->rank);
    memcpy(t->size, x->size, sizeof t->size);
    t->size[k] = sx_floordiv(c->a, x->size[k], sx_int(c->a, 2));
    mi_contiguous(c, t);
    return true;
}

/* pixel_shuffle(x, r, inverse): [.., C, H, W] to [.., C / r^2, H * r, W * r] (inverse:
 * pixel_unshuffle, [.., C * r^2, H / r, W / r]), with ATen's divisibility checks. */
static bool sh_pixel_shuffle(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    int64_t r, inverse, v;
    if (!x || !mi_int_param(c, 1, &r) || !mi_int_param(c, 2, &inverse))
        return false;
    if (x->rank < 3)
        return mi_fail(c, "pixel_%sshuffle expects input to have at least 3 dimensions, but got input with %zu dimension(s)",
                       inverse ? "un" : "", x->rank);
    if (r <= 0)
        return mi_fail(c, "pixel_%sshuffle expects a positive %s_factor, but got %lld", inverse ? "un" : "",
                       inverse ? "downscale" : "upscale", (long long)r);
    size_t C = x->rank - 3, H = C + 1, W = C + 2;
    sx *rr = sx_int(c->a, r), *r2 = sx_int(c->a, r * r);
    if (!inverse && sx_is_int(x->size[C], &v) && v % (r * r))
        return mi_fail(c, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                          "upscale_factor, but input.size(-3)=%lld is not divisible by %lld", (long long)v, (long long)(r * r));
    for (size_t i = H; inverse && i <= W; i++)
        if (sx_is_int(x->size[i], &v) && v % r)
            return mi_fail(c, "pixel_unshuffle expects %s to be divisible by downscale_factor, but input.size(%d)=%lld is "
                              "not divisible by %lld", i == H ? "height" : "width", i == H ? -2 : -1, (long long)v, (long long)r);
    mi_tensor *t = mi_out_one(c, o, x->rank);
    memcpy(t->size, x->size, sizeof t->size);
    t->size[C] = inverse ? sx_mul(c->a, x->size[C], r2) : sx_floordiv(c->a, x->size[C], r2);
    t->size[H] = inverse ? sx_floordiv(c->a, x->size[H], rr) : sx_mul(c->a, x->size[H], rr);
    t->size[W] = inverse ? sx_floordiv(c->a, x->size[W], rr) : sx_mul(c->a, x->size[W], rr);
    mi_contiguous(c, t);
    return true;
}

/* like(self[, memory_format]): self's shape; its layout unless contiguous_format is asked. */
static bool sh_like(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    if (!x)
        return false;
    mi_tensor *t = mi_out_one(c, o, x->rank);
    memcpy(t->size, x->size, sizeof t->size);
    const fx_arg *mf = mi_param(c, 1);
    if (mf && mf->kind == FX_ARG_MEMFMT && !strcmp(mf->u.s, "contiguous_format"))
        mi_contiguous(c, t);
    else
        mi_preserve_strides(c, x, t);
    return true;
}

/* arange(start, end, step): ceil((end - start) / step) entries; integer bounds may be SymInts
 * (then the count is (end - start + step - 1) // step as torch builds it). */
static bool sh_arange(mi_ctx *c, mi_out *o)
{
    bool floats = false;
    double v[3] = { 0, 0, 1 };
    sx *b[3];
    for (int k = 0; k < 3; k++) {
        const fx_arg *p = mi_param(c, k);
        int64_t iv;
        b[k] = NULL;
        if (!p || p->kind == FX_ARG_NONE) {
            if (k == 1)
                return mi_fail(c, "arange: end is missing");
            b[k] = sx_int(c->a, k == 2 ? 1 : 0);
        } else if (p->kind == FX_ARG_FLOAT) {
            floats = true;
            v[k] = p->u.f;
        } else if (!(b[k] = mi_sx_of(c, p))) {
            return mi_fail(c, "arange: start, end and step must be numbers");
        }
        if (b[k] && sx_is_int(b[k], &iv))
            v[k] = (double)iv;
        else if (b[k] && floats)
            return mi_fail(c, "arange: symbolic bounds with a float bound");
    }
    if (v[2] == 0)
        return mi_fail(c, "arange: step must be nonzero");
    mi_tensor *t = mi_out_one(c, o, 1);
    if (floats) {
        double len = ceil((v[1] - v[0]) / v[2]);
        if (!(len >= 0 && len < 9e15))
            return mi_fail(c, "arange: upper bound and larger bound inconsistent with step sign");
        t->size[0] = sx_int(c->a, (int64_t)len);
    } else {
        int64_t st;
        if (!sx_is_int(b[2], &st))
            return mi_fail(c, "arange: symbolic step");
        sx *span = st > 0 ? sx_sub(c->a, b[1], b[0]) : sx_sub(c->a, b[0], b[1]);
        int64_t a = st > 0 ? st : -st;
        sx *len = sx_floordiv(c->a, sx_add(c->a, span, sx_int(c->a, a - 1)), sx_int(c->a, a));
        int64_t n;
        if (!len || (sx_is_int(len, &n) && n < 0))
            return mi_fail(c, "arange: upper bound and larger bound inconsistent with step sign");
        t->size[0] = len;
    }
    mi_contiguous(c, t);
    return true;
}

/* pad(self, pad): pad = [before_last, after_last, before_prev, after_prev, ...]. */
static bool sh_pad(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    sx *pad[2 * MI_MAX_RANK];
    size_t n;
    if (!x || !mi_sx_list_param(c, 1, pad, &n, 2 * MI_MAX_RANK))
        return false;
    if (n % 2 || n / 2 > x->rank)
        return mi_fail(c, "padding length must be even and at most twice the number of dimensions");
    mi_tensor *t = mi_out_one(c, o, x->rank);
    memcpy(t->size, x->size, sizeof t->size);
    for (size_t k = 0; k < n / 2; k++) {
        size_t d = x->rank - 1 - k;
        t->size[d] = sx_add(c->a, t->size[d], sx_add(c->a, pad[2 * k], pad[2 * k + 1]));
    }
    mi_contiguous(c, t);
    return true;
}

/* repeat(self, repeats): sizes (padded with leading 1s) times repeats. */
static bool sh_repeat(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    sx *rep[MI_MAX_RANK];
    size_t n;
    if (!x || !mi_sx_list_param(c, 1, rep, &n, MI_MAX_RANK))
        return false;
    if (n < x->rank)
        return mi_fail(c, "number of repeat dims can not be smaller than number of dimensions of tensor");
    mi_tensor *t = mi_out_one(c, o, n);
    size_t off = n - x->rank;
    for (size_t i = 0; i < n; i++)
        t->size[i] = i < off ? rep[i] : sx_mul(c->a, x->size[i - off], rep[i]);
    mi_contiguous(c, t);
    return true;
}

/* tile(self, dims): repeat after padding the shorter of self's shape and dims with leading ones. */
static bool sh_tile(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    sx *rep[MI_MAX_RANK];
    size_t n;
    if (!x || !mi_sx_list_param(c, 1, rep, &n, MI_MAX_RANK))
        return false;
    size_t r = n > x->rank ? n : x->rank;
    mi_tensor *t = mi_out_one(c, o, r);
    for (size_t i = 0; i < r; i++) {
        sx *size = i + x->rank >= r ? x->size[i + x->rank - r] : sx_int(c->a, 1);
        sx *times = i + n >= r ? rep[i + n - r] : sx_int(c->a, 1);
        t->size[i] = sx_mul(c->a, size, times);
    }
    mi_contiguous(c, t);
    return true;
}

/* distance(x1, x2, kind): cdist (kind 0) [*batch, P, M] x [*batch, R, M] -> [*batch, P, R], the
 * batch dims broadcast; pairwise_distance (kind 1, keepdim in the 3rd parameter) the broadcast of
 * x1 and x2 without its last dim. */
static bool sh_distance(mi_ctx *c, mi_out *o)
{
    mi_tensor *a = mi_tensor_param(c, 0), *b = mi_tensor_param(c, 1);
    int64_t kind;
    if (!a || !b || !mi_int_param(c, 2, &kind))
        return false;
    if (kind == 0) {
        if (a->rank < 2 || b->rank < 2)
            return mi_fail(c, "cdist only supports at least 2D tensors, X1 got: %zuD, X2 got: %zuD", a->rank, b->rank);
        int64_t m1, m2;
        if (sx_is_int(a->size[a->rank - 1], &m1) && sx_is_int(b->size[b->rank - 1], &m2) && m1 != m2)
            return mi_fail(c, "X1 and X2 must have the same number of columns. X1: %lld X2: %lld", (long long)m1,
                           (long long)m2);
        mi_tensor ba = *a, bb = *b;   /* the batch dims only */
        ba.rank -= 2;
        bb.rank -= 2;
        mi_tensor *in[2] = {&ba, &bb};
        mi_tensor *t = mi_out_one(c, o, 0);
        if (!broadcast_shapes(c, in, 2, t))
            return false;
        t->size[t->rank++] = a->size[a->rank - 2];
        t->size[t->rank++] = b->size[b->rank - 2];
        mi_contiguous(c, t);
        return true;
    }
    bool keepdim = c->np > 3 && mi_bool_param(c, 3, false);
    mi_tensor *in[2] = {a, b};
    mi_tensor *t = mi_out_one(c, o, 0);
    if (!broadcast_shapes(c, in, 2, t) || !t->rank)
        return t->rank ? false : mi_fail(c, "pairwise_distance needs at least one dimension");
    if (keepdim) t->size[t->rank - 1] = sx_int(c->a, 1);
    else t->rank--;
    mi_contiguous(c, t);
    return true;
}

static bool sh_none(mi_ctx *c, mi_out *o)
{
    o->none = true;
    return true;
}

/* sym_size(self, dim), sym_stride(self, dim), sym_numel(self): SymInt results. */
static bool sym_query(mi_ctx *c, mi_out *o, int what)
{
    mi_tensor *x = what == 1 ? mi_strided_param(c, 0) : mi_tensor_param(c, 0);
    if (!x)
        return false;
    if (what == 2) {
        o->sym = mi_numel(c, x);
        return true;
    }
    int64_t d;
    size_t dd;
    if (!mi_int_param(c, 1, &d) || !mi_wrap_dim(c, d, x->rank, &dd))
        return false;
    if (!x->rank)
        return mi_fail(c, "a 0-dim tensor has no dimension %lld", (long long)d);
    o->sym = what == 1 ? x->stride[dd] : x->size[dd];
    return true;
}

static bool sh_sym_size(mi_ctx *c, mi_out *o) { return sym_query(c, o, 0); }

/* sizes(self): x.size() as a list of SymInts (read with getitem). */
static bool sh_sizes(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    if (!x)
        return false;
    o->syms = arena_alloc(c->a, (x->rank ? x->rank : 1) * sizeof *o->syms);
    memcpy(o->syms, x->size, x->rank * sizeof *o->syms);
    o->nsyms = x->rank;
    o->list = true;
    return true;
}
static bool sh_sym_stride(mi_ctx *c, mi_out *o) { return sym_query(c, o, 1); }
static bool sh_sym_numel(mi_ctx *c, mi_out *o) { return sym_query(c, o, 2); }

/* item(self): Tensor.item() / _local_scalar_dense of a one-element tensor: an unbacked symbol,
 * u<N> for an integer (a SymInt), zuf<N> for a floating one, numbered as torch.export numbers
 * them (mi_fresh_unbacked). A bool's value is a SymBool. */
static bool sh_item(mi_ctx *c, mi_out *o)
{
    mi_tensor *x = mi_tensor_param(c, 0);
    if (!x)
        return false;
    int64_t numel = 1, d;
    bool known = true;
    for (size_t i = 0; i < x->rank; i++) {
        if (!sx_is_int(x->size[i], &d)) known = false;
        else numel = d && numel > INT64_MAX / d ? INT64_MAX : numel * d;
    }
    if (known && numel != 1)
        return mi_fail(c, "a Tensor with %lld elements cannot be converted to Scalar", (long long)numel);
    /* torch counts float symbols (zuf) apart from the others (u, a bool's included) */
    const char *name = mi_fresh_unbacked(c, md_is_floating(x->dtype) ? "zuf" : "u");
    if (x->dtype == FX_DT_BOOL || md_is_floating(x->dtype)) {
        /* a Python bool / float: printed as its symbol (no size arithmetic reads it) */
        o->text = x->dtype == FX_DT_BOOL ? arena_printf(c->a, "Eq(%s, 1)", name) : name;
        return true;
    }
    o->sym = sx_sym(c->a, name);
    return true;
}

static const mi_fn_entry shape_fns[] = {
    MI_FN("same", 1, 2, sh_same), MI_FN("self", 1, 1, sh_self), MI_FN("broadcast", 1, 8, sh_broadcast),
    MI_FN("reduce", 3, 4, sh_reduce), MI_FN("cat", 2, 2, sh_cat), MI_FN("stack", 2, 2, sh_stack),
    MI_FN("hstack", 1, 1, sh_hstack), MI_FN("atleast_1d", 1, 2, sh_atleast_1d), MI_FN("index", 2, 2, sh_index),
    MI_FN("index_select", 3, 3, sh_index_select), MI_FN("embedding", 2, 2, sh_embedding),
    MI_FN("topk", 3, 3, sh_topk), MI_FN("full", 1, 1, sh_full), MI_FN("scalar", 0, 0, sh_scalar),
    MI_FN("like", 1, 2, sh_like), MI_FN("arange", 3, 3, sh_arange), MI_FN("pad", 2, 2, sh_pad),
    MI_FN("repeat", 2, 2, sh_repeat), MI_FN("none", 0, 0, sh_none), MI_FN("sym_size", 2, 2, sh_sym_size),
    MI_FN("sym_stride", 2, 2, sh_sym_stride), MI_FN("sym_numel", 1, 1, sh_sym_numel),
    MI_FN("sizes", 1, 1, sh_sizes), MI_FN("item", 1, 1, sh_item), MI_FN("nonzero", 1, 1, sh_nonzero),
    MI_FN("masked_select", 2, 2, sh_masked_select), MI_FN("dims", 1, 2, sh_dims), MI_FN("halve", 2, 2, sh_halve),
    MI_FN("pixel_shuffle", 3, 3, sh_pixel_shuffle), MI_FN("tile", 2, 2, sh_tile), MI_FN("distance", 3, 4, sh_distance),
};

const builtin_family mi_shape_builtins = BUILTIN_FAMILY("shape", shape_fns);
