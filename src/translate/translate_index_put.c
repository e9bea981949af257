/* translate_index_put.c — advanced indexing with any index list, read (index.Tensor) and write
 * (index_put / _unsafe_index_put): None entries, several index tensors broadcast together, bool
 * masks (their NonZero coordinates), indexed dims adjacent or not. The indexed dims are transposed
 * to the front and the index tensors stacked into GatherND's / ScatterND's coordinates. index_put
 * also wraps negative indices, broadcasts the values to the shape self[indices] has, orders them
 * like the transposed tensor and transposes the result back; index moves the broadcast dims to
 * where the indexed dims were when these are adjacent (torch's rule), else leaves them first. */
#include <stdint.h>
#include <string.h>

#include "translate/translate_internal.h"

#define MAX_IDX 16

static Onnx__NodeProto *last_node(tx *t) { return t->sc->g->node[t->sc->g->n_node - 1]; }

/* A Shape node with start / end attributes (end INT64_MAX: none). */
static const char *shape_of(tx *t, const char *x, int64_t start, int64_t end)
{
    const char *s = tx_emit1(t, "Shape", x, NULL, NULL);
    if (start)
        ox_attr_int(t->m, last_node(t), "start", start);
    if (end != INT64_MAX)
        ox_attr_int(t->m, last_node(t), "end", end);
    return s;
}

static const char *transpose(tx *t, const char *x, const int64_t *perm, size_t r)
{
    bool identity = true;
    for (size_t i = 0; i < r; i++)
        identity &= perm[i] == (int64_t)i;
    if (identity)
        return x;
    const char *y = tx_emit1(t, "Transpose", x, NULL, NULL);
    ox_attr_ints(t->m, last_node(t), "perm", perm, r);
    return y;
}

static const char *concat(tx *t, const char **in, size_t n, int64_t axis)
{
    Onnx__NodeProto *c = tx_emit(t, "Concat", "", NULL);
    for (size_t i = 0; i < n; i++)
        ox_node_add_input(t->m, c, in[i]);
    const char *o = tx_fresh_val(t);
    ox_node_add_output(t->m, c, o);
    ox_attr_int(t->m, c, "axis", axis);
    return o;
}

/* The index tensors of an index list with the dim each indexes (None entries skip a dim; a
 * bool mask of rank m indexes m dims by the rows of its NonZero). */
typedef struct index_list {
    const char *idx[MAX_IDX];
    int64_t dims[MAX_IDX];
    int ranks[MAX_IDX];
    size_t k, d;     /* index tensors, dims consumed */
} index_list;

static bool collect_indices(tx *t, const fx_node *n, const fx_arg *ix, index_list *L)
{
    memset(L, 0, sizeof *L);
    for (size_t i = 0; i < ix->u.seq.len; i++) {
        const fx_arg *e = ix->u.seq.items[i];
        if (e->kind == FX_ARG_NONE) {
            L->d++;
            continue;
        }
        int er = e->kind == FX_ARG_NODE ? tx_rank_of_node(e->u.node) : -1;
        const char *en = e->kind == FX_ARG_NODE ? tx_single(t, n, e->u.node) : NULL;
        bool mask = en && tx_onnx_dtype_of_node(e->u.node) == 9;
        if (!en || er < 0 || (mask && er == 0) || L->k + (mask ? (size_t)er : 1) > MAX_IDX) {
            tx_fail_node(t, n, "index_put: an index is not a tensor of known rank (or a 0-d bool mask)");
            return false;
        }
        if (!mask) {
            L->idx[L->k] = en, L->ranks[L->k] = er, L->dims[L->k++] = (int64_t)L->d++;
            continue;
        }
        const char *nz = tx_emit1(t, "NonZero", en, NULL, NULL);
        for (int j = 0; j < er; j++) {
            const char *row = tx_emit2(t, "Gather", nz, tx_const_scalar(t, 7, 0, j, false), NULL, NULL);
            ox_attr_int(t->m, last_node(t), "axis", 0);
            L->idx[L->k] = row, L->ranks[L->k] = 1, L->dims[L->k++] = (int64_t)L->d++;
        }
    }
    return true;
}

/* ScatterND's coordinates: each index cast to int64, wrapped (negative + size of its dim),
 * broadcast to B (bshape), stacked on a new last axis */
static const char *coordinates(tx *t, const char *x, const index_list *L, const char *bshape)
{
    int64_t one_m[1] = { -1 };
    const char *xshape = tx_emit1(t, "Shape", x, NULL, NULL), *cols[MAX_IDX];
    for (size_t i = 0; i < L->k; i++) {
        const char *c = tx_emit2(t, "CastLike", L->idx[i], tx_const_ints(t, one_m, 1), NULL, NULL);
        const char *size = tx_emit2(t, "Gather", xshape, tx_const_scalar(t, 7, 0, L->dims[i], false), NULL, NULL);
        ox_attr_int(t->m, last_node(t), "axis", 0);
        const char *neg = tx_emit2(t, "Less", c, tx_const_scalar(t, 7, 0, 0, false), NULL, NULL);
        const char *wrapped = tx_emit2(t, "Add", c, size, NULL, NULL);
        Onnx__NodeProto *w = tx_emit(t, "Where", "", NULL);
        ox_node_add_input(t->m, w, neg);
        ox_node_add_input(t->m, w, wrapped);
        ox_node_add_input(t->m, w, c);
        const char *wv = tx_fresh_val(t);
        ox_node_add_output(t->m, w, wv);
        const char *ex = tx_emit2(t, "Expand", wv, bshape, NULL, NULL);
        cols[i] = tx_emit2(t, "Unsqueeze", ex, tx_const_ints(t, one_m, 1), NULL, NULL);
    }
    return L->k == 1 ? cols[0] : concat(t, cols, L->k, -1);
}

/* b: self, indices, values, accumulate */
bool tx_index_put_general(tx *t, const fx_node *n, const fx_arg **b)
{
    const fx_arg *ix = b[1];
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    if (r < 0 || !tx_seq_arg(ix) || !ix->u.seq.len || b[2]->kind != FX_ARG_NODE || r > MAX_IDX) {
        tx_fail_node(t, n, "index_put needs self of known rank, a list of indices and a values tensor");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node), *v = tx_single(t, n, b[2]->u.node);
    index_list L;
    if (!x || !v || !collect_indices(t, n, ix, &L))
        return false;
    if (L.d > (size_t)r || !L.k) {
        tx_fail_node(t, n, "index_put: more indices than dimensions, or none");
        return false;
    }
    size_t k = L.k;
    const int64_t *dims = L.dims;
    int rb = 0;
    int64_t one_m[1] = { -1 };
    bool adjacent = true;
    for (size_t i = 1; i < k; i++)
        adjacent &= dims[i] == dims[i - 1] + 1;
    for (size_t i = 0; i < k; i++)
        rb = L.ranks[i] > rb ? L.ranks[i] : rb;
    /* B, the broadcast shape of the indices: the shape of their sum */
    const char *sum = tx_emit2(t, "CastLike", L.idx[0], tx_const_ints(t, one_m, 1), NULL, NULL);
    for (size_t i = 1; i < k; i++)
        sum = tx_emit2(t, "Add", sum, tx_emit2(t, "CastLike", L.idx[i], tx_const_ints(t, one_m, 1), NULL, NULL), NULL, NULL);
    const char *bshape = tx_emit1(t, "Shape", sum, NULL, NULL);
    const char *coords = coordinates(t, x, &L, bshape);
    /* self with the indexed dims first */
    int64_t perm[MAX_IDX], inv[MAX_IDX];
    size_t np = 0;
    for (size_t i = 0; i < k; i++)
        perm[np++] = dims[i];
    for (int64_t i = 0; i < r; i++) {
        bool used = false;
        for (size_t j = 0; j < k; j++)
            used |= dims[j] == i;
        if (!used)
            perm[np++] = i;
    }
    for (int64_t i = 0; i < r; i++)
        inv[perm[i]] = i;
    const char *xt = transpose(t, x, perm, (size_t)r);
    /* the values broadcast to self[indices]'s shape (before + B + after when the indexed dims are
     * adjacent, else B + rest), then ordered B + rest */
    int64_t p0 = adjacent ? dims[0] : 0, rest = r - (int64_t)k;
    const char *restshape = shape_of(t, xt, (int64_t)k, INT64_MAX);
    const char *parts[3];
    size_t npart = 0;
    for (int side = 0; side < 2; side++) {
        /* the remaining dims before the indexed ones (side 0), then B, then those after */
        if (side == 1)
            parts[npart++] = bshape;
        int64_t s0 = side ? p0 : 0, e0 = side ? INT64_MAX : p0, ax = 0;
        if (side ? rest - p0 <= 0 : p0 <= 0)
            continue;
        const char *a = tx_const_ints(t, &s0, 1), *bb = tx_const_ints(t, &e0, 1), *c = tx_const_ints(t, &ax, 1);
        Onnx__NodeProto *sl = tx_emit(t, "Slice", "", NULL);
        ox_node_add_input(t->m, sl, restshape);
        ox_node_add_input(t->m, sl, a);
        ox_node_add_input(t->m, sl, bb);
        ox_node_add_input(t->m, sl, c);
        parts[npart] = tx_fresh_val(t);
        ox_node_add_output(t->m, sl, parts[npart++]);
    }
    const char *rshape = npart == 1 ? parts[0] : concat(t, parts, npart, 0);
    const char *vc = tx_emit2(t, "CastLike", v, x, NULL, NULL);
    const char *upd = tx_emit2(t, "Expand", vc, rshape, NULL, NULL);
    if (p0 > 0) {
        int64_t vp[2 * MAX_IDX];
        size_t nv = 0, vr = (size_t)(rest + rb);
        for (int j = 0; j < rb; j++)
            vp[nv++] = p0 + j;
        for (int64_t j = 0; j < p0; j++)
            vp[nv++] = j;
        for (size_t j = (size_t)(p0 + rb); j < vr; j++)
            vp[nv++] = (int64_t)j;
        upd = transpose(t, upd, vp, vr);
    }
    bool inverse_needed = xt != x;
    const char *out = tx_one_output(t, n);
    Onnx__NodeProto *sc = tx_emit(t, "ScatterND", "", inverse_needed ? NULL : tx_node_name_of(t, n));
    if (b[3] && b[3]->kind == FX_ARG_BOOL && b[3]->u.b)
        ox_attr_string(t->m, sc, "reduction", "add");
    ox_node_add_input(t->m, sc, xt);
    ox_node_add_input(t->m, sc, coords);
    ox_node_add_input(t->m, sc, upd);
    const char *y = inverse_needed ? tx_fresh_val(t) : out;
    ox_node_add_output(t->m, sc, y);
    if (inverse_needed) {
        tx_emit1(t, "Transpose", y, out, tx_node_name_of(t, n));
        ox_attr_ints(t->m, last_node(t), "perm", inv, (size_t)r);
    }
    return true;
}

/* GatherND takes int64 coordinates: the index tensors of other integer types are cast (a bool
 * mask's rows already are). */
static void cast_indices(tx *t, const fx_arg *ix, index_list *L)
{
    size_t j = 0;
    for (size_t i = 0; i < ix->u.seq.len && j < L->k; i++) {
        const fx_arg *e = ix->u.seq.items[i];
        if (e->kind != FX_ARG_NODE)
            continue;
        int dt = tx_onnx_dtype_of_node(e->u.node);
        if (dt == 9) {
            j += (size_t)tx_rank_of_node(e->u.node);
            continue;
        }
        if (dt != 7) {
            L->idx[j] = tx_emit1(t, "Cast", L->idx[j], NULL, NULL);
            ox_attr_int(t->m, last_node(t), "to", 7);
        }
        j++;
    }
}

/* The broadcast shape of the index tensors of L, as torchlib computes it: Shape(Max(indices)). */
static const char *broadcast_shape(tx *t, const index_list *L)
{
    Onnx__NodeProto *mx = tx_emit(t, "Max", "", NULL);
    for (size_t i = 0; i < L->k; i++)
        ox_node_add_input(t->m, mx, L->idx[i]);
    const char *m = tx_fresh_val(t);
    ox_node_add_output(t->m, mx, m);
    return tx_emit1(t, "Shape", m, NULL, NULL);
}

/* index.Tensor / _unsafe_index.Tensor with any index list (b: self, indices). GatherND of self
 * with the indexed dims first; when the indexed dims are adjacent and not leading, the broadcast
 * dims move back to where they were. */
bool tx_index_general(tx *t, const fx_node *n, const fx_arg **b)
{
    const fx_arg *ix = b[1];
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    if (r < 0 || !tx_seq_arg(ix) || !ix->u.seq.len || r > MAX_IDX) {
        tx_fail_node(t, n, "index.Tensor needs self of known rank and a list of indices");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node);
    index_list L;
    if (!x || !collect_indices(t, n, ix, &L))
        return false;
    if (L.d > (size_t)r || !L.k) {
        tx_fail_node(t, n, "index.Tensor: more indices than dimensions, or none");
        return false;
    }
    size_t k = L.k;
    int rb = 0;
    bool adjacent = true;
    for (size_t i = 1; i < k; i++)
        adjacent &= L.dims[i] == L.dims[i - 1] + 1;
    for (size_t i = 0; i < k; i++)
        rb = L.ranks[i] > rb ? L.ranks[i] : rb;
    int64_t perm[MAX_IDX], one_m[1] = { -1 };
    size_t np = 0;
    for (size_t i = 0; i < k; i++)
        perm[np++] = L.dims[i];
    for (int64_t i = 0; i < r; i++) {
        bool used = false;
        for (size_t j = 0; j < k; j++)
            used |= L.dims[j] == i;
        if (!used)
            perm[np++] = i;
    }
    const char *xt = transpose(t, x, perm, (size_t)r), *cols[MAX_IDX];
    cast_indices(t, ix, &L);
    const char *bshape = k > 1 ? broadcast_shape(t, &L) : NULL;
    for (size_t i = 0; i < k; i++) {
        const char *v = bshape ? tx_emit2(t, "Expand", L.idx[i], bshape, NULL, NULL) : L.idx[i];
        cols[i] = tx_emit2(t, "Unsqueeze", v, tx_const_ints(t, one_m, 1), NULL, NULL);
    }
    const char *coords = k == 1 ? cols[0] : concat(t, cols, k, -1);
    int64_t p0 = adjacent ? L.dims[0] : 0;
    size_t out_rank = (size_t)r - k + (size_t)rb;
    const char *out = tx_one_output(t, n);
    Onnx__NodeProto *g = tx_emit(t, "GatherND", "", p0 ? NULL : tx_node_name_of(t, n));
    ox_node_add_input(t->m, g, xt);
    ox_node_add_input(t->m, g, coords);
    const char *y = p0 ? tx_fresh_val(t) : out;
    ox_node_add_output(t->m, g, y);
    ox_attr_int(t->m, g, "batch_dims", 0);
    if (p0) {   /* [B, front, back] -> [front, B, back] */
        int64_t vp[2 * MAX_IDX];
        size_t nv = 0;
        for (int64_t j = 0; j < p0; j++)
            vp[nv++] = rb + j;
        for (int j = 0; j < rb; j++)
            vp[nv++] = j;
        for (size_t j = (size_t)(p0 + rb); j < out_rank; j++)
            vp[nv++] = (int64_t)j;
        tx_emit1(t, "Transpose", y, out, tx_node_name_of(t, n));
        ox_attr_ints(t->m, last_node(t), "perm", vp, out_rank);
    }
    return true;
}
