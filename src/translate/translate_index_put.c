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

/* Adds one index entry (a tensor, not None) to L. */
static bool add_index(tx *t, const fx_node *n, const fx_arg *e, index_list *L)
{
    int er = e->kind == FX_ARG_NODE ? tx_rank_of_node(e->u.node) : -1;
    const char *en = e->kind == FX_ARG_NODE ? tx_single(t, n, e->u.node) : NULL;
    bool mask = en && tx_onnx_dtype_of_node(e->u.node) == 9;
    if (!en || er < 0 || (mask && er == 0) || L->k + (mask ? (size_t)er : 1) > MAX_IDX) {
        tx_fail_node(t, n, "index_put: an index is not a tensor of known rank (or a 0-d bool mask)");
        return false;
    }
    if (!mask) {
        L->idx[L->k] = en, L->ranks[L->k] = er, L->dims[L->k++] = (int64_t)L->d++;
        return true;
    }
    const char *nz = tx_emit1(t, "NonZero", en, NULL, NULL);
    for (int j = 0; j < er; j++) {
        const char *row = tx_emit2(t, "Gather", nz, tx_const_scalar(t, 7, 0, j, false), NULL, NULL);
        ox_attr_int(t->m, last_node(t), "axis", 0);
        L->idx[L->k] = row, L->ranks[L->k] = 1, L->dims[L->k++] = (int64_t)L->d++;
    }
    return true;
}

static bool collect_indices(tx *t, const fx_node *n, const fx_arg *ix, index_list *L)
{
    memset(L, 0, sizeof *L);
    for (size_t i = 0; i < ix->u.seq.len; i++) {
        const fx_arg *e = ix->u.seq.items[i];
        if (e->kind == FX_ARG_NONE) L->d++;
        else if (!add_index(t, n, e, L)) return false;
    }
    return true;
}

/* A node of op with the given inputs and a fresh output. */
static const char *emit_n(tx *t, const char *op, const char *const *in, size_t nin)
{
    Onnx__NodeProto *nd = tx_emit(t, op, "", NULL);
    for (size_t i = 0; i < nin; i++)
        ox_node_add_input(t->m, nd, in[i]);
    const char *o = tx_fresh_val(t);
    ox_node_add_output(t->m, nd, o);
    return o;
}

/* Transpose written even when perm is the identity, as torchlib writes it. */
static const char *transpose_always(tx *t, const char *x, const int64_t *perm, size_t r, const char *out,
                                    const char *node_name)
{
    const char *y = tx_emit1(t, "Transpose", x, out, node_name);
    ox_attr_ints(t->m, last_node(t), "perm", perm, r);
    return y;
}

/* Slice(Shape(x), [start], [end], [0]): the list arguments as the tracer makes Python lists. */
static const char *shape_slice(tx *t, const char *x, int64_t start, int64_t end)
{
    int64_t zero = 0;
    const char *sh = tx_emit1(t, "Shape", x, NULL, NULL);
    const char *in[4] = { sh, tx_const_ints(t, &start, 1), tx_const_ints(t, &end, 1), tx_const_ints(t, &zero, 1) };
    return emit_n(t, "Slice", in, 4);
}

/* The ScatterND of index_put, named as the node when it is the last: reduction "add" when
 * accumulating, else left out (torchlib passes None). */
static const char *scatter_nd(tx *t, const fx_node *n, const char *x, const char *idx, const char *upd, bool acc,
                              bool last)
{
    const char *out = last ? tx_one_output(t, n) : tx_fresh_val(t);
    Onnx__NodeProto *sc = tx_emit(t, "ScatterND", "", last ? tx_node_name_of(t, n) : NULL);
    ox_node_add_input(t->m, sc, x);
    ox_node_add_input(t->m, sc, idx);
    ox_node_add_input(t->m, sc, upd);
    ox_node_add_output(t->m, sc, out);
    if (acc) ox_attr_string(t->m, sc, "reduction", "add");
    else tx_attr_none(t->m, sc, "reduction");
    return out;
}

/* The entries of an index_put index list, one per dim of self (trailing Nones added). */
typedef struct put_slot {
    const char *idx;          /* NULL: None */
    int rank;
    const fx_value *meta;
} put_slot;

/* Whether the shapes of the advanced indices are all known and equal (torchlib's same_shape). */
static bool same_index_shapes(const put_slot *s, const int64_t *adv, size_t na)
{
    const fx_value *a = s[adv[0]].meta;
    if (!a || !a->sizes) return false;
    for (size_t i = 1; i < na; i++) {
        const fx_value *b = s[adv[i]].meta;
        if (!b || !b->sizes || b->rank != a->rank) return false;
        for (size_t d = 0; d < a->rank; d++)
            if (!a->sizes[d] || !b->sizes[d] || strcmp(a->sizes[d], b->sizes[d])) return false;
    }
    return true;
}

/* torchlib's aten_index_put for integer indices: the advanced indices (broadcast together) stacked
 * into ScatterND's coordinates, self transposed to put their dims first, the values (unsqueezed
 * and reordered like self when the indexed dims are adjacent) expanded to the target shape, and
 * the result transposed back. */
static bool index_put_int(tx *t, const fx_node *n, const char *x, int r, const char *v, int vr, put_slot *s,
                          bool acc)
{
    int64_t adv[MAX_IDX], none[MAX_IDX], m1 = -1;
    size_t na = 0, nnone = 0;
    for (int i = 0; i < r; i++) {
        if (s[i].idx) adv[na++] = i;
        else none[nnone++] = i;
    }
    const char *self_shape = tx_emit1(t, "Shape", x, NULL, NULL);
    if (!na) {
        tx_emit2(t, "Expand", v, self_shape, tx_one_output(t, n), tx_node_name_of(t, n));
        return true;
    }
    const char *adv_shape;
    int adv_rank = s[adv[0]].rank;
    if (na > 1 && !same_index_shapes(s, adv, na)) {
        const char *shapes[MAX_IDX];
        for (size_t i = 0; i < na; i++)
            adv_rank = s[adv[i]].rank > adv_rank ? s[adv[i]].rank : adv_rank;
        for (size_t i = 0; i < na; i++) {
            shapes[i] = tx_emit1(t, "Shape", s[adv[i]].idx, NULL, NULL);
            if (s[adv[i]].rank < adv_rank) {
                int64_t ones[MAX_IDX];
                size_t np = (size_t)(adv_rank - s[adv[i]].rank);
                for (size_t j = 0; j < np; j++) ones[j] = 1;
                const char *cat[2] = { tx_own_ints(t, ones, np), shapes[i] };
                shapes[i] = emit_n(t, "Concat", cat, 2);
                ox_attr_int(t->m, last_node(t), "axis", 0);
            }
        }
        adv_shape = emit_n(t, "Max", shapes, na);
        for (size_t i = 0; i < na; i++)
            s[adv[i]].idx = tx_emit2(t, "Expand", s[adv[i]].idx, adv_shape, NULL, NULL);
    } else {
        adv_shape = tx_emit1(t, "Shape", s[adv[0]].idx, NULL, NULL);
    }
    const char *none_shape = tx_emit2(t, "Gather", self_shape, tx_own_ints(t, none, nnone), NULL, NULL);
    ox_attr_int(t->m, last_node(t), "axis", 0);
    const char *cat[2] = { adv_shape, none_shape };
    const char *target = emit_n(t, "Concat", cat, 2);
    ox_attr_int(t->m, last_node(t), "axis", 0);
    int target_rank = adv_rank + (int)nnone;
    const char *minus_one = tx_own_ints(t, &m1, 1), *cols[MAX_IDX];
    for (size_t i = 0; i < na; i++)
        cols[i] = tx_emit2(t, "Unsqueeze", s[adv[i]].idx, minus_one, NULL, NULL);
    const char *coords = emit_n(t, "Concat", cols, na);
    ox_attr_int(t->m, last_node(t), "axis", -1);
    bool contiguous = adv[na - 1] - adv[0] + 1 == (int64_t)na;
    int64_t perm[MAX_IDX], inv[MAX_IDX];
    memcpy(perm, adv, na * sizeof *perm);
    memcpy(perm + na, none, nnone * sizeof *perm);
    const char *xt = transpose_always(t, x, perm, (size_t)r, NULL, NULL);
    if (contiguous) {
        if (vr > target_rank) {
            tx_fail_node(t, n, arena_printf(&t->a, "index_put: the values (rank %d) have more dims than self[indices] (rank %d)",
                                            vr, target_rank));
            return false;
        }
        if (target_rank > vr) {
            int64_t dims[2 * MAX_IDX];
            for (int j = 0; j < target_rank - vr; j++) dims[j] = j;
            v = tx_emit2(t, "Unsqueeze", v, tx_own_ints(t, dims, (size_t)(target_rank - vr)), NULL, NULL);
        }
        /* the broadcast dims (where the indexed dims were) first, then the others in order */
        int64_t vp[2 * MAX_IDX], p0 = adv[0];
        size_t nv = 0;
        for (int64_t j = p0; j < p0 + adv_rank; j++) vp[nv++] = j;
        for (int64_t j = 0; j < p0; j++) vp[nv++] = j;
        for (int64_t j = p0 + adv_rank; j < target_rank; j++) vp[nv++] = j;
        v = transpose_always(t, v, vp, nv, NULL, NULL);
    }
    const char *upd = tx_emit2(t, "Expand", v, target, NULL, NULL);
    const char *y = scatter_nd(t, n, xt, coords, upd, acc, false);
    for (int i = 0; i < r; i++) inv[perm[i]] = i;
    transpose_always(t, y, inv, (size_t)r, tx_one_output(t, n), tx_node_name_of(t, n));
    return true;
}

/* torchlib's _aten_index_put_bool for one bool mask: the mask broadcast over self's trailing
 * dims, its NonZero coordinates, the values expanded to [count, *trailing] and flattened. */
static bool index_put_mask(tx *t, const fx_node *n, const char *x, int r, const char *v, const char *mask, int mr,
                           bool acc)
{
    int64_t m1 = -1;
    int64_t perm10[2] = { 1, 0 };
    const char *neg_1 = tx_own_ints(t, &m1, 1), *em = mask;
    for (int i = mr; i < r; i++)
        em = tx_emit2(t, "Unsqueeze", em, neg_1, NULL, NULL);
    em = tx_emit2(t, "Expand", em, tx_emit1(t, "Shape", x, NULL, NULL), NULL, NULL);
    const char *sel = transpose_always(t, tx_emit1(t, "NonZero", em, NULL, NULL), perm10, 2, NULL, NULL);
    const char *flat_mask = tx_emit2(t, "Reshape", mask, neg_1, NULL, NULL);
    const char *count = tx_emit1(t, "Cast", flat_mask, NULL, NULL);
    ox_attr_int(t->m, last_node(t), "to", OT_INT64);
    count = tx_emit1(t, "ReduceSum", count, NULL, NULL);
    ox_attr_int(t->m, last_node(t), "keepdims", 1);
    const char *cat[2] = { count, shape_slice(t, x, mr, r) };
    const char *sel_shape = emit_n(t, "Concat", cat, 2);
    ox_attr_int(t->m, last_node(t), "axis", 0);
    const char *flat = tx_emit2(t, "Reshape", tx_emit2(t, "Expand", v, sel_shape, NULL, NULL), neg_1, NULL, NULL);
    scatter_nd(t, n, x, sel, flat, acc, true);
    return true;
}

/* torchlib's _aten_index_put_bool for several 1-D bool masks (no None): the positions of each
 * paired, the values expanded to [count, *the dims after them]. */
static bool index_put_masks(tx *t, const fx_node *n, const char *x, int r, const char *v, const char **masks,
                            size_t k, bool acc)
{
    int64_t m1 = -1, perm10[2] = { 1, 0 };
    const char *minus_one = tx_own_ints(t, &m1, 1), *cols[MAX_IDX], *first = NULL;
    for (size_t i = 0; i < k; i++) {
        const char *nz = transpose_always(t, tx_emit1(t, "NonZero", masks[i], NULL, NULL), perm10, 2, NULL, NULL);
        const char *pos = tx_emit2(t, "Reshape", nz, minus_one, NULL, NULL);
        if (!i) first = pos;
        cols[i] = tx_emit2(t, "Unsqueeze", pos, minus_one, NULL, NULL);
    }
    const char *coords = emit_n(t, "Concat", cols, k);
    ox_attr_int(t->m, last_node(t), "axis", -1);
    const char *cat[2] = { tx_emit1(t, "Shape", first, NULL, NULL), NULL };
    cat[1] = shape_slice(t, x, (int64_t)k, r);
    const char *target = emit_n(t, "Concat", cat, 2);
    ox_attr_int(t->m, last_node(t), "axis", 0);
    scatter_nd(t, n, x, coords, tx_emit2(t, "Expand", v, target, NULL, NULL), acc, true);
    return true;
}

/* b: self, indices, values, accumulate. As torchlib's aten_index_put; a bool mask torchlib refuses
 * (beside None or integer indices, or several masks not all 1-D) indexes by its NonZero rows. */
bool tx_index_put_general(tx *t, const fx_node *n, const fx_arg **b)
{
    const fx_arg *ix = b[1];
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    int vr = b[2] && b[2]->kind == FX_ARG_NODE ? tx_rank_of_node(b[2]->u.node) : -1;
    if (r < 0 || vr < 0 || !tx_seq_arg(ix) || r > MAX_IDX) {
        tx_fail_node(t, n, "index_put needs self and values of known rank and a list of indices");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node), *v = tx_single(t, n, b[2]->u.node);
    if (!x || !v) return false;
    bool acc = b[3] && b[3]->kind == FX_ARG_BOOL && b[3]->u.b;
    size_t len = ix->u.seq.len, nmask = 0, n1d = 0;
    if (len > (size_t)r) {
        tx_fail_node(t, n, arena_printf(&t->a, "index_put: %zu indices for a tensor of rank %d", len, r));
        return false;
    }
    const char *masks[MAX_IDX];
    for (size_t i = 0; i < len; i++) {
        const fx_arg *e = ix->u.seq.items[i];
        if (e->kind == FX_ARG_NODE && tx_onnx_dtype_of_node(e->u.node) == OT_BOOL) {
            masks[nmask++] = tx_single(t, n, e->u.node);
            if (!masks[nmask - 1]) return false;
            n1d += tx_rank_of_node(e->u.node) == 1;
        }
    }
    if (nmask == 1 && len == 1)
        return index_put_mask(t, n, x, r, v, masks[0], tx_rank_of_node(ix->u.seq.items[0]->u.node), acc);
    if (nmask > 1 && nmask == len && n1d == len)
        return index_put_masks(t, n, x, r, v, masks, len, acc);
    put_slot s[MAX_IDX];
    memset(s, 0, sizeof s);
    int d = 0;
    for (size_t i = 0; i < len; i++) {
        const fx_arg *e = ix->u.seq.items[i];
        if (e->kind == FX_ARG_NONE) { d++; continue; }
        index_list L;   /* one index tensor, or a mask's NonZero rows */
        memset(&L, 0, sizeof L);
        if (!add_index(t, n, e, &L)) return false;
        if (d + (int)L.k > r) {
            tx_fail_node(t, n, "index_put: the indices cover more dims than self has");
            return false;
        }
        for (size_t j = 0; j < L.k; j++, d++) {
            s[d].idx = L.idx[j], s[d].rank = L.ranks[j];
            s[d].meta = L.k == 1 ? tx_node_val(e->u.node) : NULL;
            if (L.k == 1 && tx_onnx_dtype_of_node(e->u.node) != OT_INT64) {   /* ScatterND takes int64 */
                s[d].idx = tx_emit1(t, "Cast", s[d].idx, NULL, NULL);
                ox_attr_int(t->m, last_node(t), "to", OT_INT64);
            }
        }
    }
    return index_put_int(t, n, x, r, v, vr, s, acc);
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
