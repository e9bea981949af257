/* translate_index_put.c — advanced indexing as torchlib does it, read (aten_index: index.Tensor,
 * _unsafe_index.Tensor) and write (aten_index_put: index_put, _unsafe_index_put): self transposed
 * to put the indexed dims first, the index tensors broadcast and stacked into GatherND's /
 * ScatterND's coordinates, bool masks by their NonZero coordinates. Where torchlib refuses a list
 * or gets it wrong (a mask beside integer indices or None), each mask indexes by its NonZero rows;
 * integer indices other than int64 are cast first. */
#include <stdint.h>
#include <string.h>

#include "translate/translate_internal.h"

#define MAX_IDX 16

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
        tx_fail_node(t, n, "an index is not a tensor of known rank (or is a 0-d bool mask)");
        return false;
    }
    if (!mask) {
        L->idx[L->k] = en, L->ranks[L->k] = er, L->dims[L->k++] = (int64_t)L->d++;
        return true;
    }
    const char *nz = tx_emit1(t, "NonZero", en, NULL, NULL);
    for (int j = 0; j < er; j++) {
        const char *row = tx_emit2(t, "Gather", nz, tx_const_scalar(t, 7, 0, j, false), NULL, NULL);
        ox_attr_int(t->m, tx_last_node(t), "axis", 0);
        L->idx[L->k] = row, L->ranks[L->k] = 1, L->dims[L->k++] = (int64_t)L->d++;
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
    ox_attr_ints(t->m, tx_last_node(t), "perm", perm, r);
    return y;
}

/* Slice(Shape(x), [start], [end], [0]): the list arguments as the tracer makes Python lists. */
static const char *shape_slice(tx *t, const char *x, int64_t start, int64_t end)
{
    int64_t zero = 0;
    const char *in[4];   /* in this order: the Shape, then the list constants as the tracer makes them */
    in[0] = tx_emit1(t, "Shape", x, NULL, NULL);
    in[1] = tx_const_ints(t, &start, 1);
    in[2] = tx_const_ints(t, &end, 1);
    in[3] = tx_const_ints(t, &zero, 1);
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
                ox_attr_int(t->m, tx_last_node(t), "axis", 0);
            }
        }
        adv_shape = emit_n(t, "Max", shapes, na);
        for (size_t i = 0; i < na; i++)
            s[adv[i]].idx = tx_emit2(t, "Expand", s[adv[i]].idx, adv_shape, NULL, NULL);
    } else {
        adv_shape = tx_emit1(t, "Shape", s[adv[0]].idx, NULL, NULL);
    }
    const char *none_shape = tx_emit2(t, "Gather", self_shape, tx_own_ints(t, none, nnone), NULL, NULL);
    ox_attr_int(t->m, tx_last_node(t), "axis", 0);
    const char *cat[2] = { adv_shape, none_shape };
    const char *target = emit_n(t, "Concat", cat, 2);
    ox_attr_int(t->m, tx_last_node(t), "axis", 0);
    int target_rank = adv_rank + (int)nnone;
    const char *minus_one = tx_own_ints(t, &m1, 1), *cols[MAX_IDX];
    for (size_t i = 0; i < na; i++)
        cols[i] = tx_emit2(t, "Unsqueeze", s[adv[i]].idx, minus_one, NULL, NULL);
    const char *coords = emit_n(t, "Concat", cols, na);
    ox_attr_int(t->m, tx_last_node(t), "axis", -1);
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
    ox_attr_int(t->m, tx_last_node(t), "to", OT_INT64);
    count = tx_emit1(t, "ReduceSum", count, NULL, NULL);
    ox_attr_int(t->m, tx_last_node(t), "keepdims", 1);
    const char *cat[2] = { count, shape_slice(t, x, mr, r) };
    const char *sel_shape = emit_n(t, "Concat", cat, 2);
    ox_attr_int(t->m, tx_last_node(t), "axis", 0);
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
    ox_attr_int(t->m, tx_last_node(t), "axis", -1);
    const char *cat[2] = { tx_emit1(t, "Shape", first, NULL, NULL), NULL };
    cat[1] = shape_slice(t, x, (int64_t)k, r);
    const char *target = emit_n(t, "Concat", cat, 2);
    ox_attr_int(t->m, tx_last_node(t), "axis", 0);
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
                ox_attr_int(t->m, tx_last_node(t), "to", OT_INT64);
            }
        }
    }
    return index_put_int(t, n, x, r, v, vr, s, acc);
}

/* A GatherND with batch_dims 0; the node's result (named as it) when last. */
static const char *gather_nd(tx *t, const fx_node *n, const char *x, const char *coords, bool last)
{
    const char *out = last ? tx_one_output(t, n) : tx_fresh_val(t);
    Onnx__NodeProto *g = tx_emit(t, "GatherND", "", last ? tx_node_name_of(t, n) : NULL);
    ox_node_add_input(t->m, g, x);
    ox_node_add_input(t->m, g, coords);
    ox_node_add_output(t->m, g, out);
    ox_attr_int(t->m, g, "batch_dims", 0);
    return out;
}

/* torchlib's _aten_index_onnx: idx[i] (NULL: None) for the first len dims of self. self with the
 * indexed dims first, the indices broadcast (Shape of their Max) and stacked, GatherND, and, unless
 * a None sits between indices, the broadcast dims moved to where the indexed dims were. */
static bool index_onnx(tx *t, const fx_node *n, const char *x, int r, const char **idx, const int *ranks, size_t len)
{
    int64_t perm[MAX_IDX], m1 = -1;
    const char *nn[MAX_IDX];
    size_t k = 0, np = 0;
    int adv_rank = 0;
    for (size_t i = 0; i < len; i++)
        if (idx[i]) perm[np++] = (int64_t)i, nn[k++] = idx[i], adv_rank = ranks[i] > adv_rank ? ranks[i] : adv_rank;
    for (size_t i = 0; i < len; i++)
        if (!idx[i]) perm[np++] = (int64_t)i;
    for (int64_t i = (int64_t)len; i < r; i++) perm[np++] = i;
    bool none_in_middle = perm[k - 1] - perm[0] + 1 != (int64_t)k;
    const char *xt = transpose_always(t, x, perm, (size_t)r, NULL, NULL);
    const char *bshape = tx_emit1(t, "Shape", emit_n(t, "Max", nn, k), NULL, NULL);
    const char *cols[MAX_IDX];
    for (size_t i = 0; i < k; i++) {
        const char *e = tx_emit2(t, "Expand", nn[i], bshape, NULL, NULL);   /* before the [-1] constant */
        cols[i] = tx_emit2(t, "Unsqueeze", e, tx_const_ints(t, &m1, 1), NULL, NULL);
    }
    const char *coords = emit_n(t, "Concat", cols, k);
    ox_attr_int(t->m, tx_last_node(t), "axis", -1);
    const char *g = gather_nd(t, n, xt, coords, none_in_middle);
    if (none_in_middle) return true;
    int64_t back = adv_rank + perm[0], result_rank = r - (int64_t)k + adv_rank, p2[2 * MAX_IDX];
    size_t n2 = 0;
    for (int64_t i = adv_rank; i < back; i++) p2[n2++] = i;
    for (int64_t i = 0; i < adv_rank; i++) p2[n2++] = i;
    for (int64_t i = back; i < result_rank; i++) p2[n2++] = i;
    transpose_always(t, g, p2, n2, tx_one_output(t, n), tx_node_name_of(t, n));
    return true;
}

/* torchlib's _aten_index_bool for one mask of rank > 1 after Nones only: self's dims rotated left
 * once per None, GatherND by the mask's NonZero coordinates, the result rotated back. */
static bool index_one_mask(tx *t, const fx_node *n, const char *x, int r, const fx_arg *ix)
{
    int64_t rot[MAX_IDX], perm10[2] = { 1, 0 };
    for (int i = 0; i < r; i++) rot[i] = (i + 1) % r;
    int nones = 0;
    for (size_t i = 0; i < ix->u.seq.len; i++) {
        const fx_arg *e = ix->u.seq.items[i];
        if (e->kind == FX_ARG_NONE) {
            x = transpose_always(t, x, rot, (size_t)r, NULL, NULL);
            nones++;
            continue;
        }
        const char *mask = tx_single(t, n, e->u.node);
        if (!mask) return false;
        const char *nz = transpose_always(t, tx_emit1(t, "NonZero", mask, NULL, NULL), perm10, 2, NULL, NULL);
        const char *res = gather_nd(t, n, x, nz, !nones);
        int final_rank = r - (tx_rank_of_node(e->u.node) - 1);
        int64_t back[MAX_IDX];
        for (int j = 0; j < final_rank; j++) back[j] = (j + final_rank - 1) % final_rank;
        for (int j = 0; j < nones; j++) {
            bool last = j == nones - 1;
            res = transpose_always(t, res, back, (size_t)final_rank, last ? tx_one_output(t, n) : NULL,
                                   last ? tx_node_name_of(t, n) : NULL);
        }
        return true;
    }
    return false;
}

/* index.Tensor / _unsafe_index.Tensor (b: self, indices) as torchlib's aten_index: integer indices
 * by _aten_index_onnx; 1-D bool masks (and only those) by their NonZero positions; one mask of
 * higher rank after Nones by _aten_index_bool's rotations. Lists torchlib gets wrong or refuses
 * (masks beside integer indices, several masks of rank > 1) index by each mask's NonZero rows;
 * integer indices other than int64 are cast for GatherND. */
bool tx_index_general(tx *t, const fx_node *n, const fx_arg **b)
{
    const fx_arg *ix = b[1];
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    if (r < 0 || !tx_seq_arg(ix) || r > MAX_IDX || ix->u.seq.len > (size_t)r) {
        tx_fail_node(t, n, "index.Tensor needs self of known rank and a list of at most that many indices");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    size_t len = ix->u.seq.len, nint = 0, nmask = 0, nmask1 = 0;
    for (size_t i = 0; i < len; i++) {
        const fx_arg *e = ix->u.seq.items[i];
        if (e->kind == FX_ARG_NONE) continue;
        if (e->kind != FX_ARG_NODE || tx_rank_of_node(e->u.node) < 0) {
            tx_fail_node(t, n, "index.Tensor: an index is not a tensor of known rank");
            return false;
        }
        bool mask = tx_onnx_dtype_of_node(e->u.node) == OT_BOOL;
        nint += !mask, nmask += mask, nmask1 += mask && tx_rank_of_node(e->u.node) == 1;
    }
    if (!nint && !nmask) {
        tx_fail_node(t, n, "index.Tensor: no index tensor");
        return false;
    }
    const char *idx[MAX_IDX] = { 0 };
    int ranks[MAX_IDX] = { 0 };
    if (!nint && nmask == nmask1) {   /* 1-D masks: each one's positions */
        int64_t perm10[2] = { 1, 0 }, one = 1;
        for (size_t i = 0; i < len; i++) {
            const fx_arg *e = ix->u.seq.items[i];
            if (e->kind == FX_ARG_NONE) continue;
            const char *m = tx_single(t, n, e->u.node);
            if (!m) return false;
            idx[i] = transpose_always(t, tx_emit1(t, "NonZero", m, NULL, NULL), perm10, 2, NULL, NULL);
            ranks[i] = 1;
        }
        for (size_t i = 0; i < len; i++)
            if (idx[i]) idx[i] = tx_emit2(t, "Squeeze", idx[i], tx_const_ints(t, &one, 1), NULL, NULL);
        return index_onnx(t, n, x, r, idx, ranks, len);
    }
    if (!nint && nmask == 1) return index_one_mask(t, n, x, r, ix);
    /* integer indices (cast to int64), masks as the rows of their NonZero */
    size_t d = 0;
    for (size_t i = 0; i < len; i++) {
        const fx_arg *e = ix->u.seq.items[i];
        if (e->kind == FX_ARG_NONE) { d++; continue; }
        index_list L;
        memset(&L, 0, sizeof L);
        if (!add_index(t, n, e, &L)) return false;
        if (d + L.k > (size_t)r) {
            tx_fail_node(t, n, "index.Tensor: the indices cover more dims than self has");
            return false;
        }
        for (size_t j = 0; j < L.k; j++, d++) {
            idx[d] = L.idx[j], ranks[d] = L.ranks[j];
            int dt = tx_onnx_dtype_of_node(e->u.node);
            if (L.k == 1 && dt != OT_INT64 && dt != OT_BOOL) {
                idx[d] = tx_emit1(t, "Cast", idx[d], NULL, NULL);
                ox_attr_int(t->m, tx_last_node(t), "to", OT_INT64);
            }
        }
    }
    return index_onnx(t, n, x, r, idx, ranks, d);
}
