/* translate_diagonal.c — aten.diagonal / diagonal_copy as torchlib lowers them: the two dims moved
 * last, multiplied by an EyeLike mask shifted by offset, summed over dim1, and the valid part of
 * the diagonal sliced out. */
#include <stdint.h>
#include <string.h>

#include "translate/translate_internal.h"

/* Size d of x as a 1-D tensor [size]: Reshape(Gather(Shape(x), d), neg_1), a Shape of its own. */
static const char *dim_size(tx *t, const char *x, int64_t d, const char *neg_1)
{
    const char *shape = tx_emit1(t, "Shape", x, NULL, NULL);
    const char *g = tx_emit2(t, "Gather", shape, tx_const_scalar(t, 7, 0, d, false), NULL, NULL);
    return tx_emit2(t, "Reshape", g, neg_1, NULL, NULL);
}

static void set_int(tx *t, const char *name, int64_t v)
{
    ox_attr_int(t->m, t->sc->g->node[t->sc->g->n_node - 1], name, v);
}

/* b: self, offset, dim1, dim2 */
static bool b_diagonal(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    int64_t offset = 0, d1 = 0, d2 = 1;
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    if (r < 2 || (b[1] && !tx_int_of(b[1], &offset)) || (b[2] && !tx_int_of(b[2], &d1)) ||
        (b[3] && !tx_int_of(b[3], &d2))) {
        tx_fail_node(t, n, "diagonal needs a tensor of known rank >= 2 and constant offset and dims");
        return false;
    }
    if (d1 < 0) d1 += r;
    if (d2 < 0) d2 += r;
    if (d1 < 0 || d1 >= r || d2 < 0 || d2 >= r || d1 == d2) {
        tx_fail_node(t, n, "diagonal dimensions out of range or equal");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    int dt = tx_onnx_dtype_of_node(b[0]->u.node);
    bool is_bool = dt == 9;
    int64_t perm[16], k = 0, axis = r - 2;
    for (int64_t i = 0; i < r; i++)
        if (i != d1 && i != d2) perm[k++] = i;
    perm[k++] = d1;
    perm[k++] = d2;
    /* in torchlib's order: the sizes, the mask, the masked product summed over dim1, the length
     * of the diagonal (offset and the min of the sizes), the slice */
    int64_t m1 = -1, zero = 0;
    const char *neg_1 = tx_own_ints(t, &m1, 1);
    const char *rows = dim_size(t, x, d1, neg_1), *cols = dim_size(t, x, d2, neg_1);
    const char *mshape = tx_emit2(t, "Concat", rows, cols, NULL, NULL);
    set_int(t, "axis", 0);
    const char *zeros = tx_emit1(t, "ConstantOfShape", mshape, NULL, NULL);
    const char *mask = tx_emit1(t, "EyeLike", zeros, NULL, NULL);
    set_int(t, "k", offset);
    if (is_bool) {
        x = tx_emit1(t, "Cast", x, NULL, NULL);
        set_int(t, "to", 7);
        mask = tx_emit1(t, "Cast", mask, NULL, NULL);
        set_int(t, "to", 7);
    } else {
        mask = tx_emit2(t, "CastLike", mask, x, NULL, NULL);
    }
    x = tx_emit1(t, "Transpose", x, NULL, NULL);
    ox_attr_ints(t->m, t->sc->g->node[t->sc->g->n_node - 1], "perm", perm, (size_t)r);
    const char *prod = tx_emit2(t, "Mul", x, mask, NULL, NULL);
    const char *axes = tx_const_ints(t, &axis, 1);
    const char *sum = tx_emit2(t, "ReduceSum", prod, axes, NULL, NULL);
    set_int(t, "keepdims", 0);
    const char *mind = tx_emit2(t, "Min", rows, cols, NULL, NULL);
    const char *off = tx_own_ints(t, &offset, 1);
    const char *len = offset < 0 ? tx_emit2(t, "Add", rows, off, NULL, NULL) : tx_emit2(t, "Sub", cols, off, NULL, NULL);
    const char *start = offset < 0 ? tx_own_ints(t, &zero, 1) : off;
    len = tx_emit2(t, "Min", len, mind, NULL, NULL);
    len = tx_emit2(t, "Max", len, tx_own_ints(t, &zero, 1), NULL, NULL);
    const char *end = tx_emit2(t, "Add", start, len, NULL, NULL);
    const char *out = tx_one_output(t, n);
    if (!is_bool) {
        tx_emitn(t, "Slice", (const char *[]){ sum, start, end, axes }, 4, out, tx_node_name_of(t, n));
        return true;
    }
    const char *sl = tx_emitn(t, "Slice", (const char *[]){ sum, start, end, axes }, 4, NULL, NULL);
    tx_emit1(t, "Cast", sl, out, tx_node_name_of(t, n));
    ox_attr_int(t->m, t->sc->g->node[t->sc->g->n_node - 1], "to", 9);
    return true;
}

static const tx_builtin_entry builtins[] = {
    { "diagonal", b_diagonal, 4 },
};

const builtin_family tx_diagonal_builtins = BUILTIN_FAMILY("diagonal", builtins);
