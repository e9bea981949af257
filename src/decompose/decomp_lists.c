/* decomp_lists.c — decompositions over lists of tensors or into lists (broadcast_tensors,
 * meshgrid, cartesian_prod, column_stack, block_diag, unbind_copy, hsplit/vsplit/dsplit, diff, rot90, tensordot,
 * diag_embed / diag / diagflat, trapz, float_power, gradient, index_copy, index_add,
 * _unsafe_masked_index_put_accumulate): torch._refs' loops, which a template cannot write. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decompose/decompose_internal.h"
#include "meta/meta_layout.h"

#define MAX_ITEMS 64

static fx_node *call2(dctx *c, const char *target, fx_arg *a, fx_arg *b)
{
    fx_arg *args[2] = { a, b };
    return dc_calla(c, target, args, b ? 2 : 1, NULL, NULL, 0);
}

static fx_arg *list(dctx *c, fx_arg **items, size_t n) { return fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, n); }

/* The tensors of a list argument with static sizes; false (the rule does not apply) otherwise. */
static bool tensor_list(const fx_arg *a, const fx_arg **items, dl_tensor *t, size_t *n)
{
    if (!a || (a->kind != FX_ARG_LIST && a->kind != FX_ARG_TUPLE) || !a->u.seq.len || a->u.seq.len > MAX_ITEMS)
        return false;
    *n = a->u.seq.len;
    for (size_t i = 0; i < *n; i++) {
        items[i] = a->u.seq.items[i];
        if (items[i]->kind != FX_ARG_NODE || !dl_static(dc_meta_of(items[i]), &t[i]))
            return false;
    }
    return true;
}

static int64_t numel(const dl_tensor *t)
{
    int64_t p = 1;
    for (size_t i = 0; i < t->rank; i++)
        p *= t->size[i];
    return p;
}

/* broadcast_tensors (torch._refs._maybe_broadcast): each tensor whose shape is not the common
 * one is expanded to it; the others are returned as they are. */
/* broadcast_tensors of tensors with symbolic sizes: when every tensor already has the common
 * shape (the same rank and size expressions, as torch's guards make a dynamic mse_loss's or
 * add's operands), each is returned as it is; an expand to symbolic sizes is left undone. */
static fx_arg *broadcast_symbolic(dctx *c, const fx_arg *a)
{
    size_t n = a && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE) ? a->u.seq.len : 0;
    if (!n || n > MAX_ITEMS)
        return NULL;
    const fx_value *v0 = dc_meta_of(a->u.seq.items[0]);
    fx_arg *out[MAX_ITEMS];
    for (size_t i = 0; i < n; i++) {
        const fx_arg *it = a->u.seq.items[i];
        const fx_value *v = it->kind == FX_ARG_NODE ? dc_meta_of(it) : NULL;
        if (!v || !v0 || v->rank != v0->rank)
            return NULL;
        for (size_t d = 0; d < v->rank; d++)
            if (!v->sizes[d] || !v0->sizes[d] || strcmp(v->sizes[d], v0->sizes[d]))
                return NULL;
        out[i] = dc_dup(c, it);
    }
    return list(c, out, n);
}

static fx_arg *broadcast_tensors(dctx *c, const binding *b)
{
    const fx_arg *in[MAX_ITEMS];
    dl_tensor t[MAX_ITEMS];
    size_t n, rank = 0;
    int64_t shape[DL_MAX_RANK];
    if (!tensor_list(b->src[0], in, t, &n))
        return broadcast_symbolic(c, b->src[0]);
    for (size_t i = 0; i < n; i++)
        rank = t[i].rank > rank ? t[i].rank : rank;
    for (size_t d = 0; d < rank; d++) {
        shape[d] = 1;
        for (size_t i = 0; i < n; i++) {
            if (d + t[i].rank < rank)
                continue;
            int64_t s = t[i].size[d + t[i].rank - rank];
            if (s != 1 && shape[d] != 1 && s != shape[d])
                return NULL;
            if (s != 1)
                shape[d] = s;
        }
    }
    fx_arg *out[MAX_ITEMS];
    for (size_t i = 0; i < n; i++) {
        bool same = t[i].rank == rank && !memcmp(t[i].size, shape, rank * sizeof *shape);
        fx_node *e = same ? NULL
                          : call2(c, "torch.ops.aten.expand.default", dc_dup(c, in[i]), dc_int_list(c->dst, shape, rank));
        if (!same && !e)
            return NULL;
        out[i] = same ? dc_dup(c, in[i]) : dc_nd(c, e);
    }
    return list(c, out, n);
}

/* The grids of meshgrid(tensors, indexing='ij') over 0-d / 1-d tensors, in the order given:
 * tensor i viewed as [1, .., -1 (at i), .., 1] and expanded to the sizes of all. */
static bool grids(dctx *c, const fx_arg **in, const dl_tensor *t, size_t n, fx_arg **out)
{
    int64_t shape[DL_MAX_RANK], view[DL_MAX_RANK];
    if (n > DL_MAX_RANK)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (t[i].rank > 1)
            return false;
        shape[i] = numel(&t[i]);
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < n; k++)
            view[k] = k == i ? -1 : 1;
        fx_node *v = call2(c, "torch.ops.aten.view.default", dc_dup(c, in[i]), dc_int_list(c->dst, view, n));
        fx_node *e = v ? call2(c, "torch.ops.aten.expand.default", dc_nd(c, v), dc_int_list(c->dst, shape, n)) : NULL;
        if (!e)
            return false;
        out[i] = dc_nd(c, e);
    }
    return true;
}

/* meshgrid (torch._refs): 'xy' swaps the first two tensors before and the first two grids after */
static fx_arg *meshgrid(dctx *c, const binding *b)
{
    const fx_arg *in[MAX_ITEMS];
    dl_tensor t[MAX_ITEMS];
    size_t n;
    const fx_arg *ix = b->n > 1 ? b->src[1] : NULL;
    bool xy = ix && ix->kind == FX_ARG_STR && !strcmp(ix->u.s, "xy");
    if (ix && ix->kind == FX_ARG_STR && !xy && strcmp(ix->u.s, "ij"))
        return NULL;
    if (!tensor_list(b->src[0], in, t, &n))
        return NULL;
    if (xy && n >= 2) {
        const fx_arg *a = in[0];
        dl_tensor ta = t[0];
        in[0] = in[1], t[0] = t[1];
        in[1] = a, t[1] = ta;
    }
    fx_arg *out[MAX_ITEMS];
    if (!grids(c, in, t, n, out))
        return NULL;
    if (xy && n >= 2) {
        fx_arg *a = out[0];
        out[0] = out[1];
        out[1] = a;
    }
    return list(c, out, n);
}

/* cartesian_prod: one tensor is itself; else the 'ij' grids, each flattened, stacked along 1 */
static fx_arg *cartesian_prod(dctx *c, const binding *b)
{
    const fx_arg *in[MAX_ITEMS];
    dl_tensor t[MAX_ITEMS];
    size_t n;
    if (!tensor_list(b->src[0], in, t, &n))
        return NULL;
    if (n == 1)
        return t[0].rank == 1 ? dc_dup(c, in[0]) : NULL;
    fx_arg *g[MAX_ITEMS], *flat[MAX_ITEMS];
    if (!grids(c, in, t, n, g))
        return NULL;
    int64_t total = 1;
    for (size_t i = 0; i < n; i++)
        total *= numel(&t[i]);
    for (size_t i = 0; i < n; i++) {
        fx_node *r = call2(c, "torch.ops.aten.reshape.default", g[i], dc_int_list(c->dst, &total, 1));
        if (!r)
            return NULL;
        flat[i] = dc_nd(c, r);
    }
    fx_node *s = call2(c, "torch.ops.aten.stack.default", list(c, flat, n), fx_arg_int(c->dst, 1));
    return s ? dc_nd(c, s) : NULL;
}

/* column_stack (torch._refs): 0-d and 1-d tensors viewed as columns [numel, 1], then atleast_1d
 * of the list and cat along 1 */
static fx_arg *column_stack(dctx *c, const binding *b)
{
    const fx_arg *in[MAX_ITEMS];
    dl_tensor t[MAX_ITEMS];
    size_t n;
    if (!tensor_list(b->src[0], in, t, &n))
        return NULL;
    fx_arg *cols[MAX_ITEMS], *items[MAX_ITEMS];
    for (size_t i = 0; i < n; i++) {
        if (t[i].rank > 1) {
            cols[i] = dc_dup(c, in[i]);
            continue;
        }
        int64_t shape[2] = { numel(&t[i]), 1 };
        fx_node *v = call2(c, "torch.ops.aten.view.default", dc_dup(c, in[i]), dc_int_list(c->dst, shape, 2));
        if (!v)
            return NULL;
        cols[i] = dc_nd(c, v);
    }
    fx_node *a = call2(c, "torch.ops.aten.atleast_1d.Sequence", list(c, cols, n), NULL);
    if (!a)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        fx_node *g = call2(c, "operator.getitem", dc_nd(c, a), fx_arg_int(c->dst, (int64_t)i));
        if (!g)
            return NULL;
        items[i] = dc_nd(c, g);
    }
    fx_node *r = call2(c, "torch.ops.aten.cat.default", list(c, items, n), fx_arg_int(c->dst, 1));
    return r ? dc_nd(c, r) : NULL;
}

/* zeros(size | dtype, device, pin_memory=False) like x */
static fx_node *zeros_like_of(dctx *c, const fx_arg *x, const int64_t *size, size_t n)
{
    const fx_value *m = dc_meta_of(x);
    if (!m || !m->device)
        return NULL;
    const char *kn[3] = { "dtype", "device", "pin_memory" };
    fx_arg *kv[3] = { fx_arg_dtype(c->dst, m->dtype), fx_arg_str(c->dst, FX_ARG_DEVICE, m->device),
                      fx_arg_bool(c->dst, false) };
    fx_arg *args[1] = { dc_int_list(c->dst, size, n) };
    return dc_calla(c, "torch.ops.aten.zeros.default", args, 1, kn, kv, 3);
}

/* block_diag (torch._refs): 0-d and 1-d tensors viewed as rows [1, -1]; each block padded with
 * zeros to the left and right (cat along 1), the rows stacked (cat along 0). All tensors must
 * share a dtype (torch would convert to the promoted one). */
static fx_arg *block_diag(dctx *c, const binding *b)
{
    const fx_arg *in[MAX_ITEMS];
    dl_tensor t[MAX_ITEMS];
    size_t n;
    if (!tensor_list(b->src[0], in, t, &n))
        return NULL;
    fx_arg *blk[MAX_ITEMS], *rows[MAX_ITEMS];
    int64_t r[MAX_ITEMS], k[MAX_ITEMS], total = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].rank > 2 || t[i].dtype != t[0].dtype)
            return NULL;
        r[i] = t[i].rank == 2 ? t[i].size[0] : 1;
        k[i] = t[i].rank == 2 ? t[i].size[1] : numel(&t[i]);
        total += k[i];
    }
    for (size_t i = 0; i < n; i++) {
        blk[i] = dc_dup(c, in[i]);
        if (t[i].rank == 2)
            continue;
        int64_t shape[2] = { 1, -1 };
        fx_node *v = call2(c, "torch.ops.aten.view.default", blk[i], dc_int_list(c->dst, shape, 2));
        if (!v)
            return NULL;
        blk[i] = dc_nd(c, v);
    }
    int64_t before = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t left[2] = { r[i], before }, right[2] = { r[i], total - before - k[i] };
        fx_node *zl = zeros_like_of(c, in[i], left, 2);
        fx_node *zr = zl ? zeros_like_of(c, in[i], right, 2) : NULL;
        if (!zr)
            return NULL;
        fx_arg *parts[3] = { dc_nd(c, zl), blk[i], dc_nd(c, zr) };
        fx_node *row = call2(c, "torch.ops.aten.cat.default", list(c, parts, 3), fx_arg_int(c->dst, 1));
        if (!row)
            return NULL;
        rows[i] = dc_nd(c, row);
        before += k[i];
    }
    fx_node *res = call2(c, "torch.ops.aten.cat.default", list(c, rows, n), NULL);
    return res ? dc_nd(c, res) : NULL;
}

/* unbind_copy (torch._refs): unbind, then a contiguous clone of each piece */
static fx_arg *unbind_copy(dctx *c, const binding *b)
{
    dl_tensor t;
    int64_t dim = 0;
    const fx_arg *x = b->src[0];
    if (!x || x->kind != FX_ARG_NODE || !dl_static(dc_meta_of(x), &t) || (b->src[1] && !dc_int_of(b->src[1], &dim)) ||
        !t.rank || !dc_wrap_dim(&dim, t.rank) || t.size[dim] > MAX_ITEMS)
        return NULL;
    fx_node *u = call2(c, "torch.ops.aten.unbind.int", dc_dup(c, x), b->src[1] ? dc_dup(c, b->src[1]) : NULL);
    if (!u)
        return NULL;
    size_t n = (size_t)t.size[dim];
    fx_node *g[MAX_ITEMS];
    fx_arg *out[MAX_ITEMS];
    for (size_t i = 0; i < n; i++)
        if (!(g[i] = call2(c, "operator.getitem", dc_nd(c, u), fx_arg_int(c->dst, (int64_t)i))))
            return NULL;
    const char *kn[1] = { "memory_format" };
    for (size_t i = 0; i < n; i++) {
        fx_arg *kv[1] = { fx_arg_str(c->dst, FX_ARG_MEMFMT, "contiguous_format") }, *args[1] = { dc_nd(c, g[i]) };
        fx_node *cl = dc_calla(c, "torch.ops.aten.clone.default", args, 1, kn, kv, 1);
        if (!cl)
            return NULL;
        out[i] = dc_nd(c, cl);
    }
    return list(c, out, n);
}

/* the argument bound to name (NULL if not given or None) */
static const fx_arg *bound(const binding *b, const char *name)
{
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->names[i], name))
            return dc_is_none(b->src[i]) ? NULL : b->src[i];
    return NULL;
}

/* x's slice [lo, hi) along dim (hi absent: to the end), as ATen's at::slice traces */
static fx_arg *slice_of(dctx *c, const fx_arg *x, int64_t dim, int64_t lo, const int64_t *hi)
{
    fx_arg *a[4] = { dc_dup(c, x), fx_arg_int(c->dst, dim), fx_arg_int(c->dst, lo), hi ? fx_arg_int(c->dst, *hi) : NULL };
    fx_node *n = dc_calla(c, "torch.ops.aten.slice.Tensor", a, hi ? 4 : 3, NULL, NULL, 0);
    return n ? dc_nd(c, n) : NULL;
}

static fx_arg *bin(dctx *c, const char *target, fx_arg *a, fx_arg *b)
{
    fx_node *n = a && b ? call2(c, target, a, b) : NULL;
    return n ? dc_nd(c, n) : NULL;
}

/* gradient with scalar spacings (ATen's gradient_helper_float): per dim, central differences
 * (x[2:] - x[:-2]) / h / 2 between one-sided edges of edge_order 1 or 2, concatenated. The
 * overloads: spacing a Scalar or a list (one per dim), dim an int, a list or None (every dim). */
static fx_arg *gradient(dctx *c, const binding *b)
{
    dl_tensor t;
    const fx_arg *x = b->src[0], *sp = bound(b, "spacing"), *dm = bound(b, "dim"), *eo = bound(b, "edge_order");
    int64_t order = 1, dims[DL_MAX_RANK];
    size_t nd = 0;
    if (!x || x->kind != FX_ARG_NODE || !dl_static(dc_meta_of(x), &t) || !t.rank || (eo && !dc_int_of(eo, &order)) ||
        (order != 1 && order != 2))
        return NULL;
    if (!dm) {
        for (size_t i = 0; i < t.rank; i++)
            dims[nd++] = (int64_t)i;
    } else if (dm->kind == FX_ARG_INT) {
        dims[nd++] = dm->u.i;
    } else if ((dm->kind == FX_ARG_LIST || dm->kind == FX_ARG_TUPLE) && dm->u.seq.len <= DL_MAX_RANK) {
        for (size_t i = 0; i < dm->u.seq.len; i++)
            if (!dc_int_of(dm->u.seq.items[i], &dims[nd++]))
                return NULL;
    } else {
        return NULL;
    }
    bool sp_list = sp && (sp->kind == FX_ARG_LIST || sp->kind == FX_ARG_TUPLE);
    if (sp_list && sp->u.seq.len != nd)
        return NULL;
    fx_arg *out[DL_MAX_RANK];
    for (size_t i = 0; i < nd; i++) {
        int64_t d = dims[i];
        if (!dc_wrap_dim(&d, t.rank) || t.size[d] < order + 1)
            return NULL;
        const fx_arg *h = sp_list ? sp->u.seq.items[i] : sp;
        if (h && h->kind != FX_ARG_INT && h->kind != FX_ARG_FLOAT)
            return NULL;
        fx_arg *hv = h ? dc_dup(c, h) : fx_arg_float(c->dst, 1.0);
        int64_t m2 = -2, m1 = -1, one = 1, two = 2, three = 3;
        fx_arg *lo = slice_of(c, x, d, 0, &m2);
        fx_arg *hi = slice_of(c, x, d, 2, NULL);
        fx_arg *center = bin(c, "torch.ops.aten.div.Scalar", bin(c, "torch.ops.aten.sub.Tensor", hi, lo), hv);
        fx_arg *pre, *app;
        if (order == 1) {
            fx_arg *a0 = slice_of(c, x, d, 0, &one), *a1 = slice_of(c, x, d, 1, &two);
            pre = bin(c, "torch.ops.aten.div.Scalar", bin(c, "torch.ops.aten.sub.Tensor", a1, a0), dc_dup(c, hv));
            fx_arg *z0 = slice_of(c, x, d, -2, &m1), *z1 = slice_of(c, x, d, -1, NULL);
            app = bin(c, "torch.ops.aten.div.Scalar", bin(c, "torch.ops.aten.sub.Tensor", z1, z0), dc_dup(c, hv));
        } else {
            fx_arg *p0 = bin(c, "torch.ops.aten.mul.Tensor", slice_of(c, x, d, 0, &one), fx_arg_float(c->dst, -1.5));
            fx_arg *p1 = bin(c, "torch.ops.aten.mul.Tensor", slice_of(c, x, d, 1, &two), fx_arg_int(c->dst, 2));
            fx_arg *p2 = bin(c, "torch.ops.aten.mul.Tensor", slice_of(c, x, d, 2, &three), fx_arg_float(c->dst, 0.5));
            fx_arg *ps = bin(c, "torch.ops.aten.sub.Tensor", bin(c, "torch.ops.aten.add.Tensor", p0, p1), p2);
            pre = bin(c, "torch.ops.aten.div.Scalar", ps, dc_dup(c, hv));
            fx_arg *q0 = bin(c, "torch.ops.aten.mul.Tensor", slice_of(c, x, d, -3, &m2), fx_arg_float(c->dst, 0.5));
            fx_arg *q1 = bin(c, "torch.ops.aten.mul.Tensor", slice_of(c, x, d, -2, &m1), fx_arg_int(c->dst, 2));
            fx_arg *q2 = bin(c, "torch.ops.aten.mul.Tensor", slice_of(c, x, d, -1, NULL), fx_arg_float(c->dst, 1.5));
            fx_arg *qs = bin(c, "torch.ops.aten.add.Tensor", bin(c, "torch.ops.aten.sub.Tensor", q0, q1), q2);
            app = bin(c, "torch.ops.aten.div.Scalar", qs, dc_dup(c, hv));
        }
        fx_arg *half = bin(c, "torch.ops.aten.div.Scalar", center, fx_arg_int(c->dst, 2));
        if (!pre || !app || !half)
            return NULL;
        fx_arg *parts[3] = { pre, half, app };
        fx_node *cat = call2(c, "torch.ops.aten.cat.default", list(c, parts, 3), d ? fx_arg_int(c->dst, d) : NULL);
        if (!cat)
            return NULL;
        out[i] = dc_nd(c, cat);
    }
    return list(c, out, nd);
}

/* hsplit / vsplit / dsplit (torch._refs, by tensor_split): slices along dim 1 (0 for a vector),
 * 0 or 2; sections split evenly (the size must divide), an index list at its indices */
static fx_arg *xsplit(dctx *c, const binding *b, char which)
{
    dl_tensor t;
    const fx_arg *x = b->src[0], *s = b->src[1];
    if (!x || x->kind != FX_ARG_NODE || !dl_static(dc_meta_of(x), &t) || !s)
        return NULL;
    int64_t dim = which == 'h' ? (t.rank == 1 ? 0 : 1) : which == 'v' ? 0 : 2;
    if ((int64_t)t.rank <= dim || (which == 'v' && t.rank < 2) || (which == 'd' && t.rank < 3))
        return NULL;
    int64_t size = t.size[dim], bounds[MAX_ITEMS + 1], sections;
    size_t nb = 0;
    bounds[nb++] = 0;
    if (dc_int_of(s, &sections)) {
        if (sections <= 0 || sections > MAX_ITEMS || size % sections)
            return NULL;
        for (int64_t i = 1; i <= sections; i++)
            bounds[nb++] = size / sections * i;
    } else if ((s->kind == FX_ARG_LIST || s->kind == FX_ARG_TUPLE) && s->u.seq.len < MAX_ITEMS) {
        for (size_t i = 0; i < s->u.seq.len; i++)
            if (!dc_int_of(s->u.seq.items[i], &bounds[nb++]))
                return NULL;
        bounds[nb++] = size;
    } else {
        return NULL;
    }
    fx_arg *out[MAX_ITEMS];
    for (size_t i = 0; i + 1 < nb; i++) {
        fx_arg *args[4] = { dc_dup(c, x), fx_arg_int(c->dst, dim), fx_arg_int(c->dst, bounds[i]),
                            fx_arg_int(c->dst, bounds[i + 1]) };
        fx_node *sl = dc_calla(c, "torch.ops.aten.slice.Tensor", args, 4, NULL, NULL, 0);
        if (!sl)
            return NULL;
        out[i] = dc_nd(c, sl);
    }
    return list(c, out, nb - 1);
}

/* diff(self, n, dim, prepend, append): prepend / append concatenated along dim (of self's rank),
 * then n times the difference of neighbours, slice [1:] - slice [:-1]; n = 0 copies self into
 * zeros_like (torch's composite). */
/* The static size of dim d of a tensor's meta, or -1 when it is symbolic or unknown. */
static int64_t static_dim(const fx_value *v, int64_t d)
{
    char *end;
    if (!v || d < 0 || (size_t)d >= v->rank || !v->sizes[d])
        return -1;
    long long n = strtoll(v->sizes[d], &end, 10);
    return *end || end == v->sizes[d] ? -1 : (int64_t)n;
}

static fx_arg *diff(dctx *c, const binding *b)
{
    int64_t n = 1, dim = -1, given;
    const fx_arg *x = b->src[0], *pre = b->src[3], *app = b->src[4];
    const fx_value *xv = x && x->kind == FX_ARG_NODE ? dc_meta_of(x) : NULL;
    if (!xv || !xv->rank || (b->src[1] && !dc_int_of(b->src[1], &n)) || (b->src[2] && !dc_int_of(b->src[2], &dim)) ||
        n < 0)
        return NULL;
    given = dim;   /* torch passes dim on as given (-1 stays -1) */
    if (!dc_wrap_dim(&dim, xv->rank))
        return NULL;
    pre = dc_is_none(pre) ? NULL : pre;
    app = dc_is_none(app) ? NULL : app;
    if (n == 0 && !pre && !app) {
        fx_node *z = call2(c, "torch.ops.aten.zeros_like.default", dc_dup(c, x), NULL);
        fx_node *cp = z ? call2(c, "torch.ops.aten.copy.default", dc_nd(c, z), dc_dup(c, x)) : NULL;
        return cp ? dc_nd(c, cp) : NULL;
    }
    /* ATen's diff_helper: bool tensors differ by logical_xor, others by sub */
    const char *op = xv->dtype == FX_DT_BOOL ? "torch.ops.aten.logical_xor.default" : "torch.ops.aten.sub.Tensor";
    fx_arg *cur = dc_dup(c, x);
    /* only the size of the differenced dim matters; -1 when symbolic */
    int64_t len = static_dim(xv, dim);
    if (pre || app) {
        fx_arg *parts[3];
        size_t np = 0;
        for (int k = 0; k < 2; k++) {
            const fx_arg *e = k ? app : pre;
            if (!e)
                continue;
            const fx_value *ev = e->kind == FX_ARG_NODE ? dc_meta_of(e) : NULL;
            if (!ev || ev->rank != xv->rank)
                return NULL;
            int64_t el = static_dim(ev, dim);
            len = len < 0 || el < 0 ? -1 : len + el;
        }
        if (pre)
            parts[np++] = dc_dup(c, pre);
        parts[np++] = cur;
        if (app)
            parts[np++] = dc_dup(c, app);
        fx_node *cat = call2(c, "torch.ops.aten.cat.default", list(c, parts, np), given ? fx_arg_int(c->dst, given) : NULL);
        if (!cat)
            return NULL;
        cur = dc_nd(c, cat);
    }
    if (len < 0) {
        /* a symbolic size: x[1:] - x[:-1] by slices that need no size; n is clamped to the dim's
         * size by torch's guard, which a symbolic size cannot answer beyond one step */
        if (n > 1)
            return NULL;
        fx_arg *hi[4] = { dc_dup(c, cur), fx_arg_int(c->dst, given), fx_arg_int(c->dst, 1),
                          fx_arg_int(c->dst, INT64_MAX) };
        fx_node *bb = dc_calla(c, "torch.ops.aten.slice.Tensor", hi, 4, NULL, NULL, 0);
        fx_arg *lo[4] = { cur, fx_arg_int(c->dst, given), fx_arg_int(c->dst, 0), fx_arg_int(c->dst, -1) };
        fx_node *a = bb ? dc_calla(c, "torch.ops.aten.slice.Tensor", lo, 4, NULL, NULL, 0) : NULL;
        fx_node *s = a ? call2(c, op, dc_nd(c, bb), dc_nd(c, a)) : NULL;
        return s ? dc_nd(c, s) : NULL;
    }
    if (n > len)   /* ATen clamps n to the dim's size */
        n = len;
    if (n > 0 && (n > INT64_MAX / 3 || !dc_reserve(c, (uint64_t)n * 3)))   /* three nodes per step */
        return dc_reserve(c, UINT64_MAX), NULL;
    for (int64_t k = 0; k < n; k++, len--) {
        fx_arg *lo[4] = { cur, fx_arg_int(c->dst, given), fx_arg_int(c->dst, 0), fx_arg_int(c->dst, len - 1) };
        fx_node *a = dc_calla(c, "torch.ops.aten.slice.Tensor", lo, 4, NULL, NULL, 0);
        fx_arg *hi[4] = { dc_dup(c, cur), fx_arg_int(c->dst, given), fx_arg_int(c->dst, 1), fx_arg_int(c->dst, len) };
        fx_node *bb = a ? dc_calla(c, "torch.ops.aten.slice.Tensor", hi, 4, NULL, NULL, 0) : NULL;
        fx_node *s = bb ? call2(c, op, dc_nd(c, bb), dc_nd(c, a)) : NULL;
        if (!s)
            return NULL;
        cur = dc_nd(c, s);
    }
    return cur;
}

/* rot90(self, k, dims) as ATen writes it: k mod 4 quarter turns in the plane of dims — 1 flips
 * dims[1] and transposes, 2 flips both dims, 3 flips dims[0] and transposes, 0 is a contiguous
 * clone. Only the rank is needed (symbolic sizes are fine). */
static fx_arg *rot90(dctx *c, const binding *b)
{
    const fx_arg *x = b->src[0], *dl = b->src[2];
    const fx_value *xv = x && x->kind == FX_ARG_NODE ? dc_meta_of(x) : NULL;
    int64_t k = 1, d[2] = { 0, 1 }, w[2];
    if (!xv || xv->rank < 2 || (b->src[1] && !dc_int_of(b->src[1], &k)))
        return NULL;
    if (dl && !dc_is_none(dl)) {
        if ((dl->kind != FX_ARG_LIST && dl->kind != FX_ARG_TUPLE) || dl->u.seq.len != 2 ||
            !dc_int_of(dl->u.seq.items[0], &d[0]) || !dc_int_of(dl->u.seq.items[1], &d[1]))
            return NULL;
    }
    w[0] = d[0];
    w[1] = d[1];
    if (!dc_wrap_dim(&w[0], xv->rank) || !dc_wrap_dim(&w[1], xv->rank) || w[0] == w[1])
        return NULL;
    k = ((k % 4) + 4) % 4;
    if (k == 0) {
        const char *kn[1] = { "memory_format" };
        fx_arg *kv[1] = { fx_arg_str(c->dst, FX_ARG_MEMFMT, "contiguous_format") };
        fx_arg *ca[1] = { dc_dup(c, x) };
        fx_node *cl = dc_calla(c, "torch.ops.aten.clone.default", ca, 1, kn, kv, 1);
        return cl ? dc_nd(c, cl) : NULL;
    }
    fx_node *f = call2(c, "torch.ops.aten.flip.default", dc_dup(c, x),
                       k == 2 ? dc_int_list(c->dst, d, 2) : dc_int_list(c->dst, &d[k == 1 ? 1 : 0], 1));
    if (!f || k == 2)
        return f ? dc_nd(c, f) : NULL;
    fx_arg *ta[3] = { dc_nd(c, f), fx_arg_int(c->dst, d[0]), fx_arg_int(c->dst, d[1]) };
    fx_node *t = dc_calla(c, "torch.ops.aten.transpose.int", ta, 3, NULL, NULL, 0);
    return t ? dc_nd(c, t) : NULL;
}

/* tensordot(self, other, dims_self, dims_other) as ATen writes it (static sizes): self permuted
 * to its free dims then the contracted ones (as given), other to the contracted ones then its
 * free dims, both reshaped to matrices, mm, and the free sizes back. */
/* tensordot of tensors with symbolic sizes: one einsum, its equation from the dims (self's free
 * dims then other's, as tensordot orders them), its meta the node's own. */
static fx_arg *tensordot_einsum(dctx *c, const binding *b)
{
    const fx_arg *x[2] = { b->src[0], b->src[1] }, *dl[2] = { b->src[2], b->src[3] };
    const fx_value *v[2] = { dc_meta_of(x[0]), dc_meta_of(x[1]) };
    if (!v[0] || !v[1] || v[0]->kind != FX_VAL_TENSOR || v[1]->kind != FX_VAL_TENSOR || !dl[0] || !dl[1] ||
        v[0]->rank + v[1]->rank > 26 || dl[0]->u.seq.len != dl[1]->u.seq.len || !c->cur)
        return NULL;
    char letter[2][DL_MAX_RANK];
    bool contracted[2][DL_MAX_RANK] = { { false } };
    for (size_t r = 0; r < v[0]->rank; r++) letter[0][r] = (char)('a' + r);
    for (size_t r = 0; r < v[1]->rank; r++) letter[1][r] = (char)('a' + v[0]->rank + r);
    for (size_t k = 0; k < dl[0]->u.seq.len; k++) {
        int64_t d0, d1;
        if (!dc_int_of(dl[0]->u.seq.items[k], &d0) || !dc_int_of(dl[1]->u.seq.items[k], &d1) ||
            !dc_wrap_dim(&d0, v[0]->rank) || !dc_wrap_dim(&d1, v[1]->rank) || contracted[0][d0] || contracted[1][d1])
            return NULL;
        contracted[0][d0] = contracted[1][d1] = true;
        letter[1][d1] = letter[0][d0];
    }
    char eq[96];
    size_t at = 0;
    for (int i = 0; i < 2; i++) {
        for (size_t r = 0; r < v[i]->rank; r++) eq[at++] = letter[i][r];
        eq[at++] = i ? '-' : ',';
    }
    eq[at++] = '>';
    for (int i = 0; i < 2; i++)
        for (size_t r = 0; r < v[i]->rank; r++)
            if (!contracted[i][r]) eq[at++] = letter[i][r];
    eq[at] = '\0';
    fx_arg *ops[2] = { dc_dup(c, x[0]), dc_dup(c, x[1]) };
    fx_arg *args[2] = { fx_arg_str(c->dst, FX_ARG_STR, eq), list(c, ops, 2) };
    fx_node *e = dc_call_node(c, "torch.ops.aten.einsum.default", args, 2, c->cur->meta.val);
    return e ? dc_nd(c, e) : NULL;
}

static fx_arg *tensordot(dctx *c, const binding *b)
{
    dl_tensor t[2];
    const fx_arg *x[2] = { b->src[0], b->src[1] }, *dl[2] = { b->src[2], b->src[3] };
    int64_t given[2][DL_MAX_RANK], w[2][DL_MAX_RANK];
    size_t n = 0;
    for (int i = 0; i < 2; i++)
        if (x[i] && x[i]->kind == FX_ARG_NODE && !dl_static(dc_meta_of(x[i]), &t[i]) && dl[i] &&
            (dl[i]->kind == FX_ARG_LIST || dl[i]->kind == FX_ARG_TUPLE))
            return tensordot_einsum(c, b);   /* symbolic sizes: no static matrices to reshape to */
    for (int i = 0; i < 2; i++) {
        if (!x[i] || x[i]->kind != FX_ARG_NODE || !dl_static(dc_meta_of(x[i]), &t[i]) || !dl[i] ||
            (dl[i]->kind != FX_ARG_LIST && dl[i]->kind != FX_ARG_TUPLE) || dl[i]->u.seq.len > t[i].rank)
            return NULL;
        if (i && dl[i]->u.seq.len != n)
            return NULL;
        n = dl[i]->u.seq.len;
        for (size_t k = 0; k < n; k++) {
            if (!dc_int_of(dl[i]->u.seq.items[k], &given[i][k]))
                return NULL;
            w[i][k] = given[i][k];
            if (!dc_wrap_dim(&w[i][k], t[i].rank))
                return NULL;
        }
    }
    int64_t contract = 1;
    for (size_t k = 0; k < n; k++) {
        if (t[0].size[w[0][k]] != t[1].size[w[1][k]])
            return NULL;
        contract *= t[0].size[w[0][k]];
    }
    int64_t perm[2][DL_MAX_RANK], out[2 * DL_MAX_RANK], freen[2] = { 1, 1 };
    size_t np[2] = { 0, 0 }, no = 0;
    for (int i = 0; i < 2; i++) {
        bool used[DL_MAX_RANK] = { false };
        for (size_t k = 0; k < n; k++) {
            if (used[w[i][k]])
                return NULL;
            used[w[i][k]] = true;
        }
        if (i == 1)
            for (size_t k = 0; k < n; k++) perm[1][np[1]++] = given[1][k];
        for (size_t d = 0; d < t[i].rank; d++)
            if (!used[d]) {
                perm[i][np[i]++] = (int64_t)d;
                freen[i] *= t[i].size[d];
                out[no++] = t[i].size[d];
            }
        if (i == 0)
            for (size_t k = 0; k < n; k++) perm[0][np[0]++] = given[0][k];
    }
    fx_node *p0 = call2(c, "torch.ops.aten.permute.default", dc_dup(c, x[0]), dc_int_list(c->dst, perm[0], np[0]));
    int64_t m0[2] = { freen[0], contract }, m1[2] = { contract, freen[1] };
    fx_node *v0 = p0 ? call2(c, "torch.ops.aten.reshape.default", dc_nd(c, p0), dc_int_list(c->dst, m0, 2)) : NULL;
    fx_node *p1 = v0 ? call2(c, "torch.ops.aten.permute.default", dc_dup(c, x[1]), dc_int_list(c->dst, perm[1], np[1]))
                     : NULL;
    fx_node *v1 = p1 ? call2(c, "torch.ops.aten.reshape.default", dc_nd(c, p1), dc_int_list(c->dst, m1, 2)) : NULL;
    fx_node *mm = v1 ? call2(c, "torch.ops.aten.mm.default", dc_nd(c, v0), dc_nd(c, v1)) : NULL;
    fx_node *r = mm ? call2(c, "torch.ops.aten.reshape.default", dc_nd(c, mm), dc_int_list(c->dst, out, no)) : NULL;
    return r ? dc_nd(c, r) : NULL;
}

/* arange(args | dtype=int64, device, pin_memory=False) on x's device */
static fx_node *arange_on(dctx *c, const char *target, const fx_arg *x, fx_arg **args, size_t na)
{
    const fx_value *m = dc_meta_of(x);
    if (!m || !m->device)
        return NULL;
    const char *kn[3] = { "dtype", "device", "pin_memory" };
    fx_arg *kv[3] = { fx_arg_dtype(c->dst, FX_DT_I64), fx_arg_str(c->dst, FX_ARG_DEVICE, m->device),
                      fx_arg_bool(c->dst, false) };
    return dc_calla(c, target, args, na, kn, kv, 3);
}

/* diag_embed(x, offset, dim1, dim2) as torch._refs writes it: x padded with |offset| zeros on the
 * last dim, unsqueezed at dim1, its last dim moved to dim2 (movedim's permute), and kept where
 * the broadcast comparison arange(n) == arange(offset, n + offset)[:, None] holds. */
static fx_arg *embed(dctx *c, fx_arg *x, int64_t offset, int64_t d1, int64_t d2)
{
    dl_tensor t;
    if (x->kind != FX_ARG_NODE || !dl_static(dc_meta_of(x), &t) || !t.rank || t.rank + 1 > DL_MAX_RANK)
        return NULL;
    size_t rank = t.rank + 1;
    if (!dc_wrap_dim(&d1, rank) || !dc_wrap_dim(&d2, rank) || d1 == d2)
        return NULL;
    if (d1 > d2) {
        int64_t k = d1;
        d1 = d2, d2 = k, offset = -offset;
    }
    int64_t last = t.size[t.rank - 1], ao = offset < 0 ? -offset : offset;
    if (offset) {
        int64_t zs[DL_MAX_RANK];
        memcpy(zs, t.size, t.rank * sizeof *zs);
        zs[t.rank - 1] = ao;
        fx_node *z = zeros_like_of(c, x, zs, t.rank);
        if (!z)
            return NULL;
        fx_arg *pair[2] = { offset > 0 ? dc_nd(c, z) : x, offset > 0 ? x : dc_nd(c, z) };
        fx_node *cat = call2(c, "torch.ops.aten.cat.default", list(c, pair, 2), fx_arg_int(c->dst, -1));
        if (!cat)
            return NULL;
        x = dc_nd(c, cat);
        last += ao;
    }
    fx_node *u = call2(c, "torch.ops.aten.unsqueeze.default", x, fx_arg_int(c->dst, d1));
    if (!u)
        return NULL;
    /* movedim(-1, d2): the last dim at d2, the others in order */
    int64_t perm[DL_MAX_RANK], si = 0, src = (int64_t)rank - 1;
    for (int64_t di = 0; di < (int64_t)rank; di++) {
        if (di == d2) {
            perm[di] = src;
            continue;
        }
        if (si == src)
            si++;
        perm[di] = si++;
    }
    fx_node *p = call2(c, "torch.ops.aten.permute.default", dc_nd(c, u), dc_int_list(c->dst, perm, rank));
    fx_arg *a1[1] = { fx_arg_int(c->dst, last) }, *a2[2] = { fx_arg_int(c->dst, offset), fx_arg_int(c->dst, last + offset) };
    fx_node *ar = p ? arange_on(c, "torch.ops.aten.arange.default", x, a1, 1) : NULL;
    fx_node *br = ar ? arange_on(c, "torch.ops.aten.arange.start", x, a2, 2) : NULL;
    fx_node *bu = br ? call2(c, "torch.ops.aten.unsqueeze.default", dc_nd(c, br), fx_arg_int(c->dst, -1)) : NULL;
    fx_node *eq = bu ? call2(c, "torch.ops.aten.eq.Tensor", dc_nd(c, ar), dc_nd(c, bu)) : NULL;
    if (!eq)
        return NULL;
    int64_t cs[DL_MAX_RANK];
    for (size_t i = 0; i < rank; i++)
        cs[i] = (int64_t)i == d1 || (int64_t)i == d2 ? last : 1;
    fx_node *cond = call2(c, "torch.ops.aten.reshape.default", dc_nd(c, eq), dc_int_list(c->dst, cs, rank));
    if (!cond)
        return NULL;
    fx_node *r;
    if (t.dtype == FX_DT_BOOL) {
        r = call2(c, "torch.ops.aten.logical_and.default", dc_nd(c, cond), dc_nd(c, p));
    } else {
        fx_arg *wa[3] = { dc_nd(c, cond), dc_nd(c, p), fx_arg_int(c->dst, 0) };
        r = dc_calla(c, "torch.ops.aten.where.ScalarOther", wa, 3, NULL, NULL, 0);
    }
    return r ? dc_nd(c, r) : NULL;
}

static bool opt_int(const binding *b, size_t i, int64_t *v)
{
    return i >= b->n || !b->src[i] || dc_int_of(b->src[i], v);
}

/* diag_embed(self, offset=0, dim1=-2, dim2=-1) */
static fx_arg *diag_embed(dctx *c, const binding *b)
{
    int64_t offset = 0, d1 = -2, d2 = -1;
    if (!b->src[0] || !opt_int(b, 1, &offset) || !opt_int(b, 2, &d1) || !opt_int(b, 3, &d2))
        return NULL;
    return embed(c, dc_dup(c, b->src[0]), offset, d1, d2);
}

/* diag(self, diagonal=0): a vector's diag_embed, a matrix's diagonal_copy */
static fx_arg *diag(dctx *c, const binding *b)
{
    int64_t offset = 0;
    const fx_value *m = dc_meta_of(b->src[0]);
    if (!m || !opt_int(b, 1, &offset) || (m->rank != 1 && m->rank != 2))
        return NULL;
    if (m->rank == 1)
        return embed(c, dc_dup(c, b->src[0]), offset, 0, 1);
    fx_node *d = call2(c, "torch.ops.aten.diagonal_copy.default", dc_dup(c, b->src[0]),
                       offset ? fx_arg_int(c->dst, offset) : NULL);
    return d ? dc_nd(c, d) : NULL;
}

/* diagflat(self, offset=0): self.contiguous().view(-1), then its diag */
static fx_arg *diagflat(dctx *c, const binding *b)
{
    int64_t offset = 0, m1 = -1;
    if (!b->src[0] || !dl_contiguous(dc_meta_of(b->src[0])) || !opt_int(b, 1, &offset))
        return NULL;
    fx_node *v = call2(c, "torch.ops.aten.view.default", dc_dup(c, b->src[0]), dc_int_list(c->dst, &m1, 1));
    return v ? embed(c, dc_nd(c, v), offset, 0, 1) : NULL;
}

/* trapz.x / trapezoid.x(y, x, dim=-1) as torch's composite: x viewed to y's rank (a vector
 * along dim, a lower rank with leading ones), dx = x[1:] - x[:-1] along dim, then
 * sum((y[:-1] + y[1:]) * dx, dim) / 2 */
static fx_arg *trapz(dctx *c, const binding *b)
{
    dl_tensor ty, tx_;
    int64_t dim = -1;
    const fx_arg *y = b->src[0], *x = b->src[1];
    if (!y || !x || y->kind != FX_ARG_NODE || x->kind != FX_ARG_NODE || !dl_static(dc_meta_of(y), &ty) ||
        !dl_static(dc_meta_of(x), &tx_) || !opt_int(b, 2, &dim) || !ty.rank || !dc_wrap_dim(&dim, ty.rank) ||
        !ty.size[dim] || tx_.rank > ty.rank || !tx_.rank)
        return NULL;
    fx_arg *xv = dc_dup(c, x);
    if (tx_.rank == 1 || tx_.rank < ty.rank) {
        int64_t shape[DL_MAX_RANK];
        for (size_t i = 0; i < ty.rank; i++)
            shape[i] = 1;
        if (tx_.rank == 1)
            shape[dim] = tx_.size[0];
        else
            memcpy(shape + ty.rank - tx_.rank, tx_.size, tx_.rank * sizeof *shape);
        fx_node *v = call2(c, "torch.ops.aten.view.default", xv, dc_int_list(c->dst, shape, ty.rank));
        if (!v)
            return NULL;
        xv = dc_nd(c, v);
    }
    fx_arg *args[4];
    fx_node *part[4];
    for (int k = 0; k < 4; k++) {
        /* x[:-1], x[1:], y[:-1], y[1:] */
        args[0] = k < 2 ? dc_dup(c, xv) : dc_dup(c, y);
        args[1] = fx_arg_int(c->dst, dim);
        args[2] = fx_arg_int(c->dst, k % 2);
        args[3] = fx_arg_int(c->dst, -1);
        if (!(part[k] = dc_calla(c, "torch.ops.aten.slice.Tensor", args, k % 2 ? 3 : 4, NULL, NULL, 0)))
            return NULL;
        if (k == 1) {
            fx_node *dx = call2(c, "torch.ops.aten.sub.Tensor", dc_nd(c, part[1]), dc_nd(c, part[0]));
            if (!dx)
                return NULL;
            part[1] = dx;
        }
    }
    fx_node *sum = call2(c, "torch.ops.aten.add.Tensor", dc_nd(c, part[2]), dc_nd(c, part[3]));
    fx_node *m = sum ? call2(c, "torch.ops.aten.mul.Tensor", dc_nd(c, sum), dc_nd(c, part[1])) : NULL;
    fx_node *r = m ? call2(c, "torch.ops.aten.sum.dim_IntList", dc_nd(c, m), dc_int_list(c->dst, &dim, 1)) : NULL;
    fx_node *d = r ? call2(c, "torch.ops.aten.div.Scalar", dc_nd(c, r), fx_arg_float(c->dst, 2.0)) : NULL;
    return d ? dc_nd(c, d) : NULL;
}

/* float_power (torch._refs): both operands converted to float64 (the exponent first; a tensor
 * already float64 is not converted), then pow */
static fx_arg *float_power(dctx *c, const binding *b)
{
    fx_arg *ops[2];
    for (int k = 1; k >= 0; k--) {
        const fx_arg *a = b->src[k];
        if (!a)
            return NULL;
        const fx_value *m = a->kind == FX_ARG_NODE ? dc_meta_of(a) : NULL;
        if (a->kind == FX_ARG_NODE && (!m || m->dtype == FX_DT_UNKNOWN || (m->dtype >= FX_DT_C32 && m->dtype <= FX_DT_C128)))
            return NULL;
        if (a->kind != FX_ARG_NODE || m->dtype == FX_DT_F64) {
            ops[k] = a->kind == FX_ARG_INT ? fx_arg_float(c->dst, (double)a->u.i) : dc_dup(c, a);
            continue;
        }
        const char *kn[1] = { "dtype" };
        fx_arg *kv[1] = { fx_arg_dtype(c->dst, FX_DT_F64) }, *args[1] = { dc_dup(c, a) };
        fx_node *cv = dc_calla(c, "torch.ops.aten._to_copy.default", args, 1, kn, kv, 1);
        if (!cv)
            return NULL;
        ops[k] = dc_nd(c, cv);
    }
    const char *target = ops[0]->kind != FX_ARG_NODE ? "torch.ops.aten.pow.Scalar"
                         : ops[1]->kind != FX_ARG_NODE ? "torch.ops.aten.pow.Tensor_Scalar" : "torch.ops.aten.pow.Tensor_Tensor";
    fx_node *p = call2(c, target, ops[0], ops[1]);
    return p ? dc_nd(c, p) : NULL;
}

/* index_copy (torch._decomp): a 0-d self and a 0-d index unsqueezed, then index_put with the
 * index at dim (None before it), a 0-d result squeezed back */
static fx_arg *index_copy(dctx *c, const binding *b)
{
    int64_t dim;
    const fx_arg *x = b->src[0], *ix = b->src[2], *src = b->src[3];
    const fx_value *mx = dc_meta_of(x), *mi = dc_meta_of(ix);
    if (!mx || !mi || !src || !dc_int_of(b->src[1], &dim) || !dc_wrap_dim(&dim, mx->rank) || mi->rank > 1 ||
        dim + 1 > DL_MAX_RANK)
        return NULL;
    fx_arg *x1 = dc_dup(c, x), *i1 = dc_dup(c, ix);
    if (mx->rank == 0) {
        fx_node *u = call2(c, "torch.ops.aten.unsqueeze.default", x1, fx_arg_int(c->dst, 0));
        if (!u)
            return NULL;
        x1 = dc_nd(c, u);
    }
    if (mi->rank == 0) {
        fx_node *u = call2(c, "torch.ops.aten.unsqueeze.default", i1, fx_arg_int(c->dst, 0));
        if (!u)
            return NULL;
        i1 = dc_nd(c, u);
    }
    fx_arg *items[DL_MAX_RANK + 1];
    for (int64_t i = 0; i < dim; i++)
        items[i] = fx_arg_none(c->dst);
    items[dim] = i1;
    fx_arg *args[3] = { x1, list(c, items, (size_t)dim + 1), dc_dup(c, src) };
    fx_node *put = dc_calla(c, "torch.ops.aten.index_put.default", args, 3, NULL, NULL, 0);
    if (!put || mx->rank)
        return put ? dc_nd(c, put) : NULL;
    fx_node *sq = call2(c, "torch.ops.aten.squeeze.dim", dc_nd(c, put), fx_arg_int(c->dst, 0));
    return sq ? dc_nd(c, sq) : NULL;
}

/* index_add (torch._refs' _index_add): source scaled by alpha when it is not 1, an accumulating
 * index_put with the index at dim (None before it); a 0-d self is unsqueezed and squeezed back */
static fx_arg *index_add(dctx *c, const binding *b)
{
    int64_t dim, one;
    const fx_arg *x = b->src[0], *ix = b->src[2], *src = b->src[3], *alpha = b->src[4];
    const fx_value *mx = dc_meta_of(x), *mi = dc_meta_of(ix);
    if (!mx || !mi || !src || !dc_int_of(b->src[1], &dim) || !dc_wrap_dim(&dim, mx->rank ? mx->rank : 1) ||
        mi->rank > 1 || dim + 1 > DL_MAX_RANK)
        return NULL;
    fx_arg *s1 = dc_dup(c, src);
    bool unit = !alpha || dc_is_none(alpha) || (dc_int_of(alpha, &one) && one == 1) ||
                (alpha->kind == FX_ARG_FLOAT && alpha->u.f == 1.0);
    if (!unit) {
        fx_node *m = call2(c, "torch.ops.aten.mul.Tensor", s1, dc_dup(c, alpha));
        if (!m)
            return NULL;
        s1 = dc_nd(c, m);
    }
    fx_arg *x1 = dc_dup(c, x);
    if (mx->rank == 0) {
        fx_node *u = call2(c, "torch.ops.aten.unsqueeze.default", x1, fx_arg_int(c->dst, 0));
        if (!u)
            return NULL;
        x1 = dc_nd(c, u);
    }
    fx_arg *items[DL_MAX_RANK + 1];
    for (int64_t i = 0; i < dim; i++)
        items[i] = fx_arg_none(c->dst);
    items[dim] = dc_dup(c, ix);
    fx_arg *args[4] = { x1, list(c, items, (size_t)dim + 1), s1, fx_arg_bool(c->dst, true) };
    fx_node *put = dc_calla(c, "torch.ops.aten.index_put.default", args, 4, NULL, NULL, 0);
    if (!put || mx->rank)
        return put ? dc_nd(c, put) : NULL;
    int64_t zero = 0;
    fx_node *sq = call2(c, "torch.ops.aten.squeeze.dims", dc_nd(c, put), dc_int_list(c->dst, &zero, 1));
    return sq ? dc_nd(c, sq) : NULL;
}

/* _unsafe_masked_index_put_accumulate (torch._decomp): each index clamped to [-size, size - 1]
 * of its dim, the values zeroed where the mask is false, then an accumulating _unsafe_index_put */
static fx_arg *masked_index_put_acc(dctx *c, const binding *b)
{
    dl_tensor t;
    const fx_arg *x = b->src[0], *mask = b->src[1], *ix = b->src[2], *vals = b->src[3];
    if (!x || !mask || !vals || !dl_static(dc_meta_of(x), &t) || !ix || ix->kind != FX_ARG_LIST ||
        ix->u.seq.len > t.rank || ix->u.seq.len > DL_MAX_RANK)
        return NULL;
    fx_arg *items[DL_MAX_RANK];
    for (size_t i = 0; i < ix->u.seq.len; i++) {
        const fx_arg *e = ix->u.seq.items[i];
        if (e->kind == FX_ARG_NONE) {
            items[i] = fx_arg_none(c->dst);
            continue;
        }
        fx_arg *args[3] = { dc_dup(c, e), fx_arg_int(c->dst, -t.size[i]), fx_arg_int(c->dst, t.size[i] - 1) };
        fx_node *cl = dc_calla(c, "torch.ops.aten.clamp.default", args, 3, NULL, NULL, 0);
        if (!cl)
            return NULL;
        items[i] = dc_nd(c, cl);
    }
    fx_node *nm = call2(c, "torch.ops.aten.bitwise_not.default", dc_dup(c, mask), NULL);
    fx_arg *fa[3] = { dc_dup(c, vals), nm ? dc_nd(c, nm) : NULL, fx_arg_int(c->dst, 0) };
    fx_node *mf = nm ? dc_calla(c, "torch.ops.aten.masked_fill.Scalar", fa, 3, NULL, NULL, 0) : NULL;
    fx_arg *pa[4] = { dc_dup(c, x), list(c, items, ix->u.seq.len), mf ? dc_nd(c, mf) : NULL, fx_arg_bool(c->dst, true) };
    fx_node *put = mf ? dc_calla(c, "torch.ops.aten._unsafe_index_put.default", pa, 4, NULL, NULL, 0) : NULL;
    return put ? dc_nd(c, put) : NULL;
}

static fx_arg *hsplit(dctx *c, const binding *b) { return xsplit(c, b, 'h'); }
static fx_arg *vsplit(dctx *c, const binding *b) { return xsplit(c, b, 'v'); }
static fx_arg *dsplit(dctx *c, const binding *b) { return xsplit(c, b, 'd'); }

static const dc_builtin_entry list_builtins[] = {
    {"broadcast_tensors", broadcast_tensors}, {"meshgrid", meshgrid}, {"cartesian_prod", cartesian_prod},
    {"column_stack", column_stack}, {"block_diag", block_diag}, {"unbind_copy", unbind_copy},
    {"hsplit", hsplit}, {"vsplit", vsplit}, {"dsplit", dsplit}, {"diff", diff}, {"rot90", rot90}, {"tensordot", tensordot}, {"index_add", index_add},
    {"diag_embed", diag_embed}, {"diag", diag}, {"diagflat", diagflat}, {"trapz", trapz},
    {"float_power", float_power}, {"gradient", gradient}, {"index_copy", index_copy}, {"masked_index_put_acc", masked_index_put_acc},
};

const builtin_family dc_lists_builtins = BUILTIN_FAMILY("lists", list_builtins);
