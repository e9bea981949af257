/* translate_composite.c — torchlib compositions whose ONNX depends on the rank or on constant
 * arguments, written in C: cross / linalg_cross (Split into components, the cross-product
 * formula, Concat), repeat_interleave.self_int (Unsqueeze, Expand by a tile, Reshape), tile (dims
 * or the input padded with ones to one rank), stack (an Unsqueeze per tensor, Concat), cat (legacy
 * empty tensors dropped, Concat), roll (two Slices and a Concat per dim) and unfold (a Gather of
 * window indices, a Transpose). */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "translate/translate_internal.h"

/* tile(self, dims) as torchlib's aten_tile: dims padded with leading ones to self's rank (the
 * padded list is Tile's input, made where Tile uses it), or self reshaped to as many dims as dims
 * has, leading ones first (a Constant <value_ints> of its own, Shape, Concat, Reshape with
 * allowzero). A scalar with no dims is a copy: ONNX's Tile takes one repeat per dimension. */
static bool b_tile(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    if (!b[0] || b[0]->kind != FX_ARG_NODE || !tx_seq_arg(b[1])) {
        tx_fail_node(t, n, "tile expects a tensor and a list of ints");
        return false;
    }
    int r = tx_rank_of_node(b[0]->u.node);
    if (r < 0) {
        tx_fail_node(t, n, "tile needs the rank of its input (tensor meta)");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    size_t k = b[1]->u.seq.len;
    if (r == 0 && k == 0) {
        tx_emit1(t, "Identity", x, tx_one_output(t, n), tx_node_name_of(t, n));
        return true;
    }
    const fx_arg *dims = b[1];
    if ((size_t)r > k) {
        fx_arg *padded = arena_alloc(&t->a, sizeof *padded);
        padded->kind = FX_ARG_LIST;
        padded->u.seq.len = (size_t)r;
        padded->u.seq.items = arena_alloc(&t->a, ((size_t)r + 1) * sizeof *padded->u.seq.items);
        for (size_t i = 0; i < (size_t)r - k; i++) {
            fx_arg *one = arena_alloc(&t->a, sizeof *one);
            one->kind = FX_ARG_INT;
            one->u.i = 1;
            padded->u.seq.items[i] = one;
        }
        for (size_t i = 0; i < k; i++) padded->u.seq.items[(size_t)r - k + i] = dims->u.seq.items[i];
        dims = padded;
    } else if ((size_t)r < k) {
        int64_t *ones = arena_alloc(&t->a, (k - (size_t)r) * sizeof *ones);
        for (size_t i = 0; i < k - (size_t)r; i++) ones[i] = 1;
        const char *lead = tx_own_ints(t, ones, k - (size_t)r);
        const char *shape = tx_emit1(t, "Shape", x, NULL, NULL);
        Onnx__NodeProto *cat = tx_emit(t, "Concat", "", NULL);
        ox_attr_int(t->m, cat, "axis", 0);
        ox_node_add_input(t->m, cat, lead);
        ox_node_add_input(t->m, cat, shape);
        const char *full = tx_fresh_val(t);
        ox_node_add_output(t->m, cat, full);
        x = tx_emit2(t, "Reshape", x, full, NULL, NULL);
        ox_attr_int(t->m, tx_last_node(t), "allowzero", 1);
    }
    const char *reps = tx_int_list_input(t, n, dims);
    if (!reps) return false;
    tx_emit2(t, "Tile", x, reps, tx_one_output(t, n), tx_node_name_of(t, n));
    return true;
}

/* stack(tensors, dim) as torchlib's aten_stack: each tensor unsqueezed at dim by a Constant
 * <value_ints> of its own (op.Constant in its list comprehension), then one Concat on dim. */
static bool b_stack(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    int64_t dim = 0;
    if (!tx_seq_arg(b[0]) || !tx_int_of(b[1], &dim)) {
        tx_fail_node(t, n, "stack expects a list of tensors and an int dim");
        return false;
    }
    size_t k = b[0]->u.seq.len;
    if (!k) {
        tx_fail_node(t, n, "stack expects a non-empty list of tensors (torch.stack fails on an empty one)");
        return false;
    }
    const char **parts = arena_alloc(&t->a, (k + 1) * sizeof *parts);
    for (size_t i = 0; i < k; i++) {
        const fx_arg *x = b[0]->u.seq.items[i];
        if (x->kind != FX_ARG_NODE) {
            tx_fail_node(t, n, "stack expects every element of its list to be a tensor");
            return false;
        }
        const char *v = tx_single(t, n, x->u.node);
        if (!v) return false;
        parts[i] = tx_emit2(t, "Unsqueeze", v, tx_own_ints(t, &dim, 1), NULL, NULL);
    }
    const char *out = tx_one_output(t, n);
    Onnx__NodeProto *cat = tx_emit(t, "Concat", "", tx_node_name_of(t, n));
    ox_attr_int(t->m, cat, "axis", dim);
    for (size_t i = 0; i < k; i++) ox_node_add_input(t->m, cat, parts[i]);
    ox_node_add_output(t->m, cat, out);
    return true;
}

/* A 1-D tensor of static size 0: what torch.cat skips whatever its other operands' ranks (the
 * legacy empty tensor, as a transformers cache starts). */
static bool legacy_empty(const fx_arg *x)
{
    const fx_value *v = x && x->kind == FX_ARG_NODE ? tx_node_val(x->u.node) : NULL;
    return v && v->kind == FX_VAL_TENSOR && v->rank == 1 && !strcmp(v->sizes[0], "0");
}

/* cat(tensors, dim) as torchlib's aten_cat: None and 1-D empty tensors dropped (torch.cat skips
 * them, and ONNX's Concat would refuse their rank); one tensor left is an Identity, more a Concat
 * on dim. All of them empty: their Concat, an empty tensor as torch's. */
static bool b_cat(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    int64_t dim = 0;
    if (!tx_seq_arg(b[0]) || (b[1] && b[1]->kind != FX_ARG_NONE && !tx_int_of(b[1], &dim))) {
        tx_fail_node(t, n, "cat expects a list of tensors and an int dim");
        return false;
    }
    size_t k = b[0]->u.seq.len, kept = 0;
    const char **parts = arena_alloc(&t->a, (k + 1) * sizeof *parts);
    bool all_empty = true;
    for (size_t i = 0; i < k; i++)
        if (b[0]->u.seq.items[i]->kind != FX_ARG_NONE && !legacy_empty(b[0]->u.seq.items[i]))
            all_empty = false;
    for (size_t i = 0; i < k; i++) {
        const fx_arg *x = b[0]->u.seq.items[i];
        if (x->kind == FX_ARG_NONE || (!all_empty && legacy_empty(x)))
            continue;
        if (x->kind != FX_ARG_NODE) {
            tx_fail_node(t, n, "cat expects every element of its list to be a tensor");
            return false;
        }
        if (!(parts[kept++] = tx_single(t, n, x->u.node)))
            return false;
    }
    if (!kept) {
        tx_fail_node(t, n, "cat expects a non-empty list of tensors (torch.cat fails on an empty one)");
        return false;
    }
    const char *out = tx_one_output(t, n);
    Onnx__NodeProto *cat = tx_emit(t, kept == 1 ? "Identity" : "Concat", "", tx_node_name_of(t, n));
    if (kept > 1) ox_attr_int(t->m, cat, "axis", dim);
    for (size_t i = 0; i < kept; i++) ox_node_add_input(t->m, cat, parts[i]);
    ox_node_add_output(t->m, cat, out);
    return true;
}

/* cross(self, other, dim): dim None (cross.default) is the first dimension of size 3, as torch
 * chooses it; linalg_cross's dim defaults to -1. */
static bool b_cross(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    if (!b[0] || !b[1] || b[0]->kind != FX_ARG_NODE || b[1]->kind != FX_ARG_NODE) {
        tx_fail_node(t, n, "cross expects two tensors");
        return false;
    }
    const fx_value *va = tx_node_val(b[0]->u.node), *vb = tx_node_val(b[1]->u.node);
    int64_t dim = -1;
    if (b[2] && b[2]->kind != FX_ARG_NONE) {
        if (!tx_int_of(b[2], &dim)) {
            tx_fail_node(t, n, "cross needs a constant dim");
            return false;
        }
    } else if (strstr(rule->target, "linalg_cross") == NULL) {
        /* the first dimension of size 3 of the broadcast shape (both operands, right-aligned) */
        size_t ra = va ? va->rank : 0, rb = vb ? vb->rank : 0, r = ra > rb ? ra : rb;
        dim = -1;
        for (size_t i = 0; i < r && dim < 0 && va && vb; i++) {
            const char *sa = i + ra >= r ? va->sizes[i + ra - r] : "1";
            const char *sb = i + rb >= r ? vb->sizes[i + rb - r] : "1";
            if (!strcmp(sa, "3") || (!strcmp(sa, "1") && !strcmp(sb, "3")))
                dim = (int64_t)i;
        }
        if (dim < 0) {
            tx_fail_node(t, n, "cross: no dimension of size 3 (give dim)");
            return false;
        }
    }
    /* torchlib's function takes dim None as -1: where that is torch's dim, torch's graph is it */
    size_t rank = va && vb ? (va->rank > vb->rank ? va->rank : vb->rank) : 0;
    for (size_t i = 0; i < rule->nalts && dim == (int64_t)rank - 1; i++)
        if (rule->alts[i].function) return tx_run_function(t, n, rule, &rule->alts[i], b);
    const char *x = tx_single(t, n, b[0]->u.node), *y = tx_single(t, n, b[1]->u.node);
    if (!x || !y)
        return false;
    const char *pa[3], *pb[3];
    for (int k = 0; k < 2; k++) {
        Onnx__NodeProto *sp = tx_emit(t, "Split", "", NULL);
        ox_node_add_input(t->m, sp, k ? y : x);
        for (int i = 0; i < 3; i++) {
            const char *o = tx_fresh_val(t);
            ox_node_add_output(t->m, sp, o);
            (k ? pb : pa)[i] = o;
        }
        ox_attr_int(t->m, sp, "axis", dim);
        ox_attr_int(t->m, sp, "num_outputs", 3);
    }
    /* c1 = a2 b3 - a3 b2, c2 = a3 b1 - a1 b3, c3 = a1 b2 - a2 b1 */
    const char *c[3];
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        const char *l = tx_emit2(t, "Mul", pa[j], pb[k], NULL, NULL);
        const char *r = tx_emit2(t, "Mul", pa[k], pb[j], NULL, NULL);
        c[i] = tx_emit2(t, "Sub", l, r, NULL, NULL);
    }
    Onnx__NodeProto *cat = tx_emit(t, "Concat", "", tx_node_name_of(t, n));
    for (int i = 0; i < 3; i++)
        ox_node_add_input(t->m, cat, c[i]);
    ox_node_add_output(t->m, cat, tx_one_output(t, n));
    ox_attr_int(t->m, cat, "axis", dim);
    return true;
}

/* repeat_interleave.self_int(self, repeats, dim=None) as torchlib's: each element repeated along
 * a new axis after dim (Unsqueeze, Expand by the tiles: a constant, or for a SymInt repeats a
 * Concat of ones around it), then merged into dim (Reshape to head dims, -1, tail dims); dim None
 * works on the flattened tensor. */
static bool b_repeat_interleave(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    int64_t reps = 0, dim = 0;
    bool flat = !b[2] || b[2]->kind == FX_ARG_NONE, sym = b[1] && b[1]->kind == FX_ARG_NODE;
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    if (r < 0 || (!sym && !tx_int_of(b[1], &reps)) || (!flat && !tx_int_of(b[2], &dim))) {
        tx_fail_node(t, n, "repeat_interleave needs a tensor of known rank, an int or SymInt repeats and a constant dim");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node), *rv = sym ? tx_single(t, n, b[1]->u.node) : "";
    if (!x || !rv)
        return false;
    int64_t m1 = -1;
    if (flat || r == 0) {   /* torch treats a 0-d tensor as 1-d here */
        x = tx_emit2(t, "Reshape", x, tx_const_ints(t, &m1, 1), NULL, NULL);
        r = 1;
    }
    int64_t pos = (dim % r + r) % r, ax = pos + 1, ones[16];
    if (r + 1 > 16) {
        tx_fail_node(t, n, "repeat_interleave: rank too large");
        return false;
    }
    const char *u = tx_emit2(t, "Unsqueeze", x, tx_const_ints(t, &ax, 1), NULL, NULL);
    const char *tiles;
    for (int64_t i = 0; i <= r; i++) ones[i] = i == ax ? reps : 1;
    if (!sym) {
        tiles = tx_own_int_tensor(t, ones, (size_t)r + 1);
    } else {
        /* the count goes on the new axis pos + 1: torchlib's symbolic branch puts it one axis
         * early ([1] * pos), which Expand then broadcasts against the wrong dim */
        for (int64_t i = 0; i <= r; i++) ones[i] = 1;
        const char *before = tx_own_int_tensor(t, ones, (size_t)pos + 1);
        const char *rr = tx_emit2(t, "Reshape", rv, tx_own_int_tensor(t, &m1, 1), NULL, NULL);
        const char *after = tx_own_int_tensor(t, ones, (size_t)(r - pos - 1));
        tiles = tx_emit_concat3(t, before, rr, after);
    }
    const char *tiled = tx_emit2(t, "Expand", u, tiles, NULL, NULL);
    const char *head = tx_emit1(t, "Shape", x, NULL, NULL);   /* torchlib's Shape(self, start=0, end=dim) */
    ox_attr_int(t->m, tx_last_node(t), "end", dim);
    ox_attr_int(t->m, tx_last_node(t), "start", 0);
    const char *minus1 = tx_own_ints(t, &m1, 1);
    const char *tail = tx_emit1(t, "Shape", x, NULL, NULL);
    ox_attr_int(t->m, tx_last_node(t), "start", pos + 1);
    const char *shape = tx_emit_concat3(t, head, minus1, tail);
    tx_emit2(t, "Reshape", tiled, shape, tx_one_output(t, n), tx_node_name_of(t, n));
    return true;
}

/* The largest window matrix (in * out floats, 64 MB) an adaptive average is lowered with. */
#define TX_MAX_WINDOW_CELLS ((int64_t)1 << 24)

/* The [in, out] matrix of an adaptive average over one dimension: column j averages the window
 * [floor(j * in / out), ceil((j + 1) * in / out)). */
static const char *window_matrix(tx *t, int64_t in, int64_t out, int dtype)
{
    float *m = arena_alloc(&t->a, (size_t)(in * out) * sizeof *m);
    memset(m, 0, (size_t)(in * out) * sizeof *m);
    for (int64_t j = 0; j < out; j++) {
        int64_t s = j * in / out, e = ((j + 1) * in + out - 1) / out;
        for (int64_t i = s; i < e; i++)
            m[i * out + j] = 1.0f / (float)(e - s);
    }
    const char *flat = tx_const_floats(t, m, (size_t)(in * out));
    int64_t shape[2] = { in, out };
    const char *w = tx_emit2(t, "Reshape", flat, tx_const_ints(t, shape, 2), NULL, NULL);
    /* MatMul's operands share one type: a float16 / bfloat16 / float64 input gets its own */
    return dtype > 0 && dtype != OT_FLOAT ? tx_emit_cast(t, w, dtype, NULL, NULL) : w;
}

/* x (rank r) with its last two dims swapped */
static const char *swap_last(tx *t, const char *x, size_t r, const char *out, const char *name)
{
    int64_t perm[16];
    for (size_t i = 0; i < r; i++)
        perm[i] = (int64_t)i;
    perm[r - 2] = (int64_t)r - 1, perm[r - 1] = (int64_t)r - 2;
    const char *y = tx_emit1(t, "Transpose", x, out, name);
    ox_attr_ints(t->m, tx_last_node(t), "perm", perm, r);
    return y;
}

/* adaptive_avg_pool over the last k (1 to 3) dims of x, whose windows differ in width (what one
 * AveragePool cannot express): the average is separable, so each pooled dim is a MatMul with
 * its window matrix on the right: W directly, H between two transposes of the last two dims, D
 * the same after folding H and W into one dim. Only right-hand matrices, so that an empty batch
 * broadcasts (ONNX Runtime rejects a 2-D left operand against one). Exact up to float rounding;
 * the pooled sizes must be static; a leading size of -1 is a dynamic one (a batch), kept as it
 * is by Reshape's 0. */
bool tx_adaptive_avg_by_matmul(tx *t, const fx_node *n, const char *x, const int64_t *sz, size_t r,
                               const int64_t *os, size_t k)
{
    if (k < 1 || k > 3 || r < k + 1 || r > 16) {
        tx_fail_node(t, n, "adaptive average pool of more than 3 dims");
        return false;
    }
    const char *out = tx_one_output(t, n), *name = tx_node_name_of(t, n);
    const int64_t *in = sz + r - k;
    int dt = tx_onnx_dtype_of_node(n);
    /* each pooled dim becomes an [in, out] matrix of constants: both sizes known and positive,
     * and the matrix of a size a model can carry */
    for (size_t i = 0; i < k; i++) {
        int64_t cells;
        if (in[i] <= 0 || os[i] <= 0 || __builtin_mul_overflow(in[i], os[i], &cells) || cells > TX_MAX_WINDOW_CELLS) {
            char what[200];
            snprintf(what, sizeof what, "adaptive average pool from %lld to %lld: the window matrix needs positive sizes "
                     "of at most %lld cells in all", (long long)in[i], (long long)os[i], (long long)TX_MAX_WINDOW_CELLS);
            tx_fail_node(t, n, what);
            return false;
        }
    }
    int64_t numel = 1, *oshape = arena_alloc(&t->a, r * sizeof *oshape);
    for (size_t i = 0; i < r; i++) {
        numel = sz[i] < 0 || numel < 0 ? -1 : numel * sz[i];
        oshape[i] = i + k < r ? sz[i] : os[i + k - r];
    }
    if (!numel) {
        /* an empty batch: nothing to average (ONNX Runtime's MatMul rejects empty broadcasts) */
        tx_emit2(t, "Reshape", x, tx_const_ints(t, oshape, r), out, name);
        return true;
    }
    const char *y = tx_emit2(t, "MatMul", x, window_matrix(t, in[k - 1], os[k - 1], dt), k == 1 ? out : NULL,
                             k == 1 ? name : NULL);
    if (k == 1)
        return true;
    y = swap_last(t, y, r, NULL, NULL);
    y = tx_emit2(t, "MatMul", y, window_matrix(t, in[k - 2], os[k - 2], dt), NULL, NULL);
    y = swap_last(t, y, r, k == 2 ? out : NULL, k == 2 ? name : NULL);
    if (k == 2)
        return true;
    /* (.., D, oh, ow) -> (.., D, oh * ow) -> pooled over D -> (.., od, oh, ow) */
    int64_t *s1 = arena_alloc(&t->a, (r + 1) * sizeof *s1), *s2 = arena_alloc(&t->a, (r + 1) * sizeof *s2);
    for (size_t i = 0; i + 3 < r; i++)
        s1[i] = s2[i] = sz[i] < 0 ? 0 : sz[i];   /* Reshape's 0: the input's own (dynamic) size */
    s1[r - 3] = in[0], s1[r - 2] = os[1] * os[2];
    s2[r - 3] = os[0], s2[r - 2] = os[1], s2[r - 1] = os[2];
    y = tx_emit2(t, "Reshape", y, tx_const_ints(t, s1, r - 1), NULL, NULL);
    y = swap_last(t, y, r - 1, NULL, NULL);
    y = tx_emit2(t, "MatMul", y, window_matrix(t, in[0], os[0], dt), NULL, NULL);
    y = swap_last(t, y, r - 1, NULL, NULL);
    tx_emit2(t, "Reshape", y, tx_const_ints(t, s2, r), out, name);
    return true;
}

/* A static size of a tensor meta ("4"); false for a symbolic one ("s77"). */
static bool sym_or_int(const char *size, int64_t *out)
{
    char *end;
    long long v = strtoll(size, &end, 10);
    if (end == size || *end) return false;
    *out = v;
    return true;
}

/* A Slice of x from start to end on axes (NULL: all), a fresh value. */
static const char *slice4(tx *t, const char *x, const char *start, const char *end, const char *axes)
{
    Onnx__NodeProto *nd = tx_emit(t, "Slice", "", NULL);
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, start);
    ox_node_add_input(t->m, nd, end);
    if (axes) ox_node_add_input(t->m, nd, axes);
    const char *v = tx_fresh_val(t);
    ox_node_add_output(t->m, nd, v);
    return v;
}

static const char *concat2(tx *t, const char *a, const char *b, int64_t axis, const char *out, const char *name)
{
    out = tx_emit2(t, "Concat", a, b, out, name);
    ox_attr_int(t->m, tx_last_node(t), "axis", axis);
    return out;
}

/* torchlib's roll of x by shift along dim (the whole flattened x when dim is NULL): the prefix
 * (the last `shift` entries) Concat the suffix, split at slice_length = [-shift] for a negative
 * shift, else size - [shift]. Right for -size <= shift <= 2 * size, which the caller ensures. */
static const char *roll_torchlib(tx *t, const char *x, int64_t shift, const int64_t *dim, const char *out,
                                 const char *name)
{
    int64_t m1 = -1, zero = 0, neg = -shift;
    const char *neg_1 = tx_own_ints(t, &m1, 1), *axes = dim ? tx_own_ints(t, dim, 1) : NULL;
    if (!dim) x = tx_emit2(t, "Reshape", x, neg_1, NULL, NULL);
    const char *len;
    if (shift < 0) {
        len = tx_own_ints(t, &neg, 1);
    } else {
        const char *size;
        if (dim) {
            size = tx_emit1(t, "Shape", x, NULL, NULL);
            ox_attr_int(t->m, tx_last_node(t), "start", *dim);
            if (*dim != -1) ox_attr_int(t->m, tx_last_node(t), "end", *dim + 1);   /* end 0 would be empty */
        } else {
            size = tx_emit1(t, "Size", x, NULL, NULL);
        }
        len = tx_emit2(t, "Sub", size, tx_own_ints(t, &shift, 1), NULL, NULL);
    }
    const char *suffix = slice4(t, x, tx_own_ints(t, &zero, 1), len, axes);
    const char *numel = tx_emit2(t, "Reshape", tx_emit1(t, "Size", x, NULL, NULL), neg_1, NULL, NULL);
    const char *prefix = slice4(t, x, len, numel, axes);
    return concat2(t, prefix, suffix, dim ? *dim : 0, dim ? out : NULL, dim ? name : NULL);
}

/* The same roll for any shift and a size known only at run time: the split point is
 * -(shift mod size), from the dim's size in the graph. */
static const char *roll_any(tx *t, const char *x, int64_t shift, int64_t dim, const char *out, const char *name)
{
    int64_t zero = 0, big = INT64_MAX;
    const char *axis = tx_const_ints(t, &dim, 1);
    const char *size = tx_emit2(t, "Gather", tx_emit1(t, "Shape", x, NULL, NULL), axis, NULL, NULL);
    const char *neg = tx_emit1(t, "Neg", tx_emit2(t, "Mod", tx_const_ints(t, &shift, 1), size, NULL, NULL), NULL, NULL);
    const char *tail = slice4(t, x, neg, tx_const_ints(t, &big, 1), axis);
    const char *head = slice4(t, x, tx_const_ints(t, &zero, 1), neg, axis);
    return concat2(t, tail, head, dim, out, name);
}

/* roll(self, shifts, dims) as torchlib's aten_roll: a 0-d or empty (first dim 0) tensor is a copy;
 * no dims rolls the flattened tensor by the one shift and reshapes it back; else one roll per
 * (shift, dim). torchlib's split point is right for -size <= shift <= 2 * size: a shift beyond
 * (static size) is first reduced mod size, and a size known only at run time takes the mod in the
 * graph, so every shift rolls as torch does. */
static bool b_roll(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const fx_value *v = b[0] && b[0]->kind == FX_ARG_NODE ? tx_node_val(b[0]->u.node) : NULL;
    if (!v || v->kind != FX_VAL_TENSOR) {
        tx_fail_node(t, n, "roll needs a tensor input with its meta (rank and sizes)");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    size_t r = v->rank, ns = tx_seq_arg(b[1]) ? b[1]->u.seq.len : 1, nd = tx_seq_arg(b[2]) ? b[2]->u.seq.len : 1;
    if (b[2]->kind == FX_ARG_NONE) nd = 0;
    int64_t *shifts = arena_alloc(&t->a, (ns + 1) * sizeof *shifts), *dims = arena_alloc(&t->a, (nd + 1) * sizeof *dims);
    for (size_t i = 0; i < ns; i++)
        if (!tx_int_of(tx_seq_arg(b[1]) ? b[1]->u.seq.items[i] : b[1], &shifts[i])) {
            tx_fail_node(t, n, "roll needs constant int shifts");
            return false;
        }
    for (size_t i = 0; i < nd; i++)
        if (!tx_int_of(tx_seq_arg(b[2]) ? b[2]->u.seq.items[i] : b[2], &dims[i]) || dims[i] < -(int64_t)r ||
            dims[i] >= (int64_t)r) {
            tx_fail_node(t, n, "roll needs constant int dims within the input's rank");
            return false;
        }
    if (nd ? ns != nd : ns != 1) {
        tx_fail_node(t, n, "roll needs one shift per dim, or one shift without dims");
        return false;
    }
    const char *out = tx_one_output(t, n), *name = tx_node_name_of(t, n);
    if (r == 0 || !strcmp(v->sizes[0], "0")) {
        tx_emit1(t, "Identity", x, out, name);
        return true;
    }
    /* the static size rolled over: dims[k]'s, or the element count without dims (-1: dynamic) */
    int64_t numel = 1;
    for (size_t i = 0; i < r && numel >= 0; i++) {
        int64_t d;
        if (!sym_or_int(v->sizes[i], &d)) numel = -1;
        else numel *= d;
    }
    if (!nd) {
        int64_t s = shifts[0];
        if (numel < 0) {   /* flattened, rolled with the size from the graph, reshaped back */
            int64_t m1 = -1;
            const char *shape = tx_emit1(t, "Shape", x, NULL, NULL);
            const char *flat = tx_emit2(t, "Reshape", x, tx_const_ints(t, &m1, 1), NULL, NULL);
            tx_emit2(t, "Reshape", roll_any(t, flat, s, 0, NULL, NULL), shape, out, name);
            return true;
        }
        if (numel && (s < -numel || s > 2 * numel)) s = ((s % numel) + numel) % numel;
        const char *rolled = roll_torchlib(t, x, s, NULL, NULL, NULL);
        tx_emit2(t, "Reshape", rolled, tx_emit1(t, "Shape", x, NULL, NULL), out, name);
        return true;
    }
    for (size_t k = 0; k < nd; k++) {
        bool last = k + 1 == nd;
        int64_t d = dims[k] < 0 ? dims[k] + (int64_t)r : dims[k], size, s = shifts[k];
        if (!sym_or_int(v->sizes[d], &size)) {
            x = roll_any(t, x, s, dims[k], last ? out : NULL, last ? name : NULL);
            continue;
        }
        if (size && (s < -size || s > 2 * size)) s = ((s % size) + size) % size;
        x = roll_torchlib(t, x, s, &dims[k], last ? out : NULL, last ? name : NULL);
    }
    return true;
}

/* unfold(self, dimension, size, step) as torchlib's aten_unfold: the window starts
 * Range(0, size_d - (size - 1), step) plus [0 .. size) give a [windows, size] index matrix, one
 * Gather along dimension, and a Transpose that moves the window axis last; a 0-d self is
 * Unsqueezed. The dim's size is read with a 0-d Gather so that Range gets the scalar limit its
 * schema asks for (torchlib passes a 1-element tensor). Works for symbolic sizes. */
static bool b_unfold(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    int64_t dim, size, step;
    if (r < 0 || !tx_int_of(b[1], &dim) || !tx_int_of(b[2], &size) || !tx_int_of(b[3], &step) || size < 0 || step <= 0 ||
        r + 1 > 16) {
        tx_fail_node(t, n, "unfold needs a tensor of known rank and constant dimension, size >= 0 and step > 0");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    const char *out = tx_one_output(t, n), *name = tx_node_name_of(t, n);
    if (r == 0) {
        int64_t zero = 0;
        tx_emit2(t, "Unsqueeze", x, tx_const_ints(t, &zero, 1), out, name);
        return true;
    }
    dim = (dim % r + r) % r;
    const char *shape = tx_emit1(t, "Shape", x, NULL, NULL);
    const char *dsize = tx_emit2(t, "Gather", shape, tx_own_scalar(t, OT_INT64, 0, dim, false), NULL, NULL);
    ox_attr_int(t->m, tx_last_node(t), "axis", 0);
    const char *limit = tx_emit2(t, "Sub", dsize, tx_own_scalar(t, OT_INT64, 0, size - 1, false), NULL, NULL);
    const char *rin[3] = { tx_own_scalar(t, OT_INT64, 0, 0, false), limit, tx_own_scalar(t, OT_INT64, 0, step, false) };
    const char *starts = tx_emitn(t, "Range", rin, 3, NULL, NULL);
    int64_t one = 1, zero = 0;
    const char *col = tx_emit2(t, "Unsqueeze", starts, tx_own_ints(t, &one, 1), NULL, NULL);
    int64_t *offs = arena_alloc(&t->a, (size_t)(size ? size : 1) * sizeof *offs);
    for (int64_t i = 0; i < size; i++) offs[i] = i;
    const char *row = tx_emit2(t, "Unsqueeze", tx_own_int_tensor(t, offs, (size_t)size), tx_own_ints(t, &zero, 1), NULL, NULL);
    const char *idx = tx_emit2(t, "Add", col, row, NULL, NULL);
    const char *g = tx_emit2(t, "Gather", x, idx, NULL, NULL);
    ox_attr_int(t->m, tx_last_node(t), "axis", dim);
    int64_t perm[17];
    for (int64_t i = 0, k = 0; i <= r; i++)
        if (i != dim + 1) perm[k++] = i;
    perm[r] = dim + 1;
    tx_emit1(t, "Transpose", g, out, name);
    ox_attr_ints(t->m, tx_last_node(t), "perm", perm, (size_t)r + 1);
    return true;
}

static const tx_builtin_entry builtins[] = {
    { "roll", b_roll, 3 }, { "cross", b_cross, 3 }, { "repeat_interleave", b_repeat_interleave, 3 },
    { "stack", b_stack, 2 }, { "tile", b_tile, 2 }, { "cat", b_cat, 2 }, { "unfold", b_unfold, 4 },
};

const builtin_family tx_composite_builtins = BUILTIN_FAMILY("composite", builtins);
