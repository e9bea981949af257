/* translate_composite.c — torchlib compositions whose ONNX depends on the rank or on constant
 * arguments, written in C: cross / linalg_cross (Split into components, the cross-product
 * formula, Concat) and repeat_interleave.self_int (Unsqueeze, Expand by a tile, Reshape). */
#include <stdint.h>
#include <string.h>

#include "translate/translate_internal.h"

static bool int_of(const fx_arg *a, int64_t *v)
{
    if (!a || a->kind != FX_ARG_INT)
        return false;
    *v = a->u.i;
    return true;
}

static Onnx__NodeProto *last_node(tx *t) { return t->sc->g->node[t->sc->g->n_node - 1]; }

/* cross(self, other, dim): dim None (cross.default) is the first dimension of size 3, as torch
 * chooses it; linalg_cross's dim defaults to -1. */
bool tx_b_cross(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    if (!b[0] || !b[1] || b[0]->kind != FX_ARG_NODE || b[1]->kind != FX_ARG_NODE) {
        tx_fail_node(t, n, "cross expects two tensors");
        return false;
    }
    const fx_value *va = tx_node_val(b[0]->u.node), *vb = tx_node_val(b[1]->u.node);
    int64_t dim = -1;
    if (b[2] && b[2]->kind != FX_ARG_NONE) {
        if (!int_of(b[2], &dim)) {
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
bool tx_b_repeat_interleave(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    int64_t reps = 0, dim = 0;
    bool flat = !b[2] || b[2]->kind == FX_ARG_NONE, sym = b[1] && b[1]->kind == FX_ARG_NODE;
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    if (r < 0 || (!sym && !int_of(b[1], &reps)) || (!flat && !int_of(b[2], &dim))) {
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
        Onnx__NodeProto *c = tx_emit(t, "Concat", "", NULL);
        ox_attr_int(t->m, c, "axis", 0);
        ox_node_add_input(t->m, c, before);
        ox_node_add_input(t->m, c, rr);
        ox_node_add_input(t->m, c, after);
        tiles = tx_fresh_val(t);
        ox_node_add_output(t->m, c, tiles);
    }
    const char *tiled = tx_emit2(t, "Expand", u, tiles, NULL, NULL);
    const char *head = tx_emit1(t, "Shape", x, NULL, NULL);   /* torchlib's Shape(self, start=0, end=dim) */
    ox_attr_int(t->m, last_node(t), "end", dim);
    ox_attr_int(t->m, last_node(t), "start", 0);
    const char *minus1 = tx_own_ints(t, &m1, 1);
    const char *tail = tx_emit1(t, "Shape", x, NULL, NULL);
    ox_attr_int(t->m, last_node(t), "start", pos + 1);
    Onnx__NodeProto *cat = tx_emit(t, "Concat", "", NULL);
    ox_node_add_input(t->m, cat, head);
    ox_node_add_input(t->m, cat, minus1);
    ox_node_add_input(t->m, cat, tail);
    const char *shape = tx_fresh_val(t);
    ox_node_add_output(t->m, cat, shape);
    ox_attr_int(t->m, cat, "axis", 0);
    tx_emit2(t, "Reshape", tiled, shape, tx_one_output(t, n), tx_node_name_of(t, n));
    return true;
}

/* The [in, out] matrix of an adaptive average over one dimension: column j averages the window
 * [floor(j * in / out), ceil((j + 1) * in / out)). */
static const char *window_matrix(tx *t, int64_t in, int64_t out)
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
    return tx_emit2(t, "Reshape", flat, tx_const_ints(t, shape, 2), NULL, NULL);
}

/* x (rank r) with its last two dims swapped */
static const char *swap_last(tx *t, const char *x, size_t r, const char *out, const char *name)
{
    int64_t perm[16];
    for (size_t i = 0; i < r; i++)
        perm[i] = (int64_t)i;
    perm[r - 2] = (int64_t)r - 1, perm[r - 1] = (int64_t)r - 2;
    const char *y = tx_emit1(t, "Transpose", x, out, name);
    ox_attr_ints(t->m, last_node(t), "perm", perm, r);
    return y;
}

/* adaptive_avg_pool over the last k (1 to 3) dims of x, whose windows differ in width (what one
 * AveragePool cannot express): the average is separable, so each pooled dim is a MatMul with
 * its window matrix on the right: W directly, H between two transposes of the last two dims, D
 * the same after folding H and W into one dim. Only right-hand matrices, so that an empty batch
 * broadcasts (ONNX Runtime rejects a 2-D left operand against one). Exact up to float rounding;
 * sizes must be static. */
bool tx_adaptive_avg_by_matmul(tx *t, const fx_node *n, const char *x, const int64_t *sz, size_t r,
                               const int64_t *os, size_t k)
{
    if (k < 1 || k > 3 || r < k + 1 || r > 16) {
        tx_fail_node(t, n, "adaptive average pool of more than 3 dims");
        return false;
    }
    const char *out = tx_one_output(t, n), *name = tx_node_name_of(t, n);
    const int64_t *in = sz + r - k;
    int64_t numel = 1, *oshape = arena_alloc(&t->a, r * sizeof *oshape);
    for (size_t i = 0; i < r; i++) {
        numel *= sz[i];
        oshape[i] = i + k < r ? sz[i] : os[i + k - r];
    }
    if (!numel) {
        /* an empty batch: nothing to average (ONNX Runtime's MatMul rejects empty broadcasts) */
        tx_emit2(t, "Reshape", x, tx_const_ints(t, oshape, r), out, name);
        return true;
    }
    const char *y = tx_emit2(t, "MatMul", x, window_matrix(t, in[k - 1], os[k - 1]), k == 1 ? out : NULL,
                             k == 1 ? name : NULL);
    if (k == 1)
        return true;
    y = swap_last(t, y, r, NULL, NULL);
    y = tx_emit2(t, "MatMul", y, window_matrix(t, in[k - 2], os[k - 2]), NULL, NULL);
    y = swap_last(t, y, r, k == 2 ? out : NULL, k == 2 ? name : NULL);
    if (k == 2)
        return true;
    /* (.., D, oh, ow) -> (.., D, oh * ow) -> pooled over D -> (.., od, oh, ow) */
    int64_t *s1 = arena_alloc(&t->a, (r + 1) * sizeof *s1), *s2 = arena_alloc(&t->a, (r + 1) * sizeof *s2);
    for (size_t i = 0; i + 3 < r; i++)
        s1[i] = s2[i] = sz[i];
    s1[r - 3] = in[0], s1[r - 2] = os[1] * os[2];
    s2[r - 3] = os[0], s2[r - 2] = os[1], s2[r - 1] = os[2];
    y = tx_emit2(t, "Reshape", y, tx_const_ints(t, s1, r - 1), NULL, NULL);
    y = swap_last(t, y, r - 1, NULL, NULL);
    y = tx_emit2(t, "MatMul", y, window_matrix(t, in[0], os[0]), NULL, NULL);
    y = swap_last(t, y, r - 1, NULL, NULL);
    tx_emit2(t, "Reshape", y, tx_const_ints(t, s2, r), out, name);
    return true;
}
