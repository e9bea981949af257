/* translate_norm.c — aten.linalg_vector_norm as torchlib's aten_linalg_vector_norm emits it: the
 * optional Cast to dtype, the input flattened when dim is None (keepdim then False) or the dims
 * reshaped to 1-D (no dim with keepdim reduces every axis, keeping them, as torch does), then by ord: Abs and ReduceMax / ReduceMin (±inf), a Cast to bool and back
 * summed (0), ReduceL1 (1), ReduceL2 (2), else Pow, ReduceSum and Pow by 1/ord (Abs first unless
 * ord is a positive even number). Constants are made where torchlib's tracer makes them, so the
 * val_N numbering is torch's. */
#include <math.h>
#include <stdint.h>

#include "translate/translate_internal.h"

/* A reduction node: op (x[, axes]) with keepdims; fin: the FX node it computes (NULL: a fresh value). */
static const char *reduce(tx *t, const char *op, const char *x, const char *axes, int64_t keepdim,
                          const fx_node *fin)
{
    const char *name = fin ? tx_node_name_of(t, fin) : NULL;
    return tx_emit_reduce(t, op, x, axes, keepdim, fin ? tx_one_output(t, fin) : NULL, name);
}

/* The dims of `int[1]? dim` (an int or a list of ints); false if they are not constants. */
static bool dims_of(tx *t, const fx_arg *a, int64_t **v, size_t *n)
{
    if (a->kind == FX_ARG_INT) {
        *v = arena_alloc(&t->a, sizeof **v);
        (*v)[0] = a->u.i;
        *n = 1;
        return true;
    }
    if (a->kind != FX_ARG_LIST && a->kind != FX_ARG_TUPLE) return false;
    *n = a->u.seq.len;
    *v = arena_alloc(&t->a, (*n + 1) * sizeof **v);
    for (size_t i = 0; i < *n; i++) {
        if (a->u.seq.items[i]->kind != FX_ARG_INT) return false;
        (*v)[i] = a->u.seq.items[i]->u.i;
    }
    return true;
}

/* b: self, ord, dim, keepdim, dtype */
static bool b_linalg_vector_norm(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    bool ord_int = b[1]->kind == FX_ARG_INT;
    double ord = ord_int ? (double)b[1]->u.i : b[1]->kind == FX_ARG_FLOAT ? b[1]->u.f : NAN;
    int64_t *dv = NULL;
    size_t nd = 0;
    bool has_dim = b[2]->kind != FX_ARG_NONE;
    if (b[0]->kind != FX_ARG_NODE || isnan(ord) || (has_dim && !dims_of(t, b[2], &dv, &nd)) ||
        (b[3]->kind != FX_ARG_BOOL && b[3]->kind != FX_ARG_INT) ||
        (b[4]->kind != FX_ARG_NONE && b[4]->kind != FX_ARG_DTYPE)) {
        tx_fail_node(t, n, "linalg_vector_norm needs a tensor, a constant ord and constant dims");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    int64_t keepdim = b[3]->kind == FX_ARG_BOOL ? b[3]->u.b : b[3]->u.i != 0;
    if (b[4]->kind == FX_ARG_DTYPE) x = tx_emit_cast(t, x, fx_dtype_get(b[4]->u.dtype)->onnx_type, NULL, NULL);
    int64_t m1 = -1;
    const char *axes = NULL;
    if (!has_dim && keepdim) {
        /* torchlib flattens and drops keepdim here, a result of rank 0 where torch keeps every
         * dim as 1: reducing all axes with keepdims gives torch's shape */
    } else if (!has_dim) {
        x = tx_emit2(t, "Reshape", x, tx_own_ints(t, &m1, 1), NULL, NULL);
    } else {
        const char *shape = tx_own_ints(t, &m1, 1);
        axes = tx_emit2(t, "Reshape", tx_const_ints(t, dv, nd), shape, NULL, NULL);
    }
    if (isinf(ord)) {
        x = tx_emit1(t, "Abs", x, NULL, NULL);
        reduce(t, ord > 0 ? "ReduceMax" : "ReduceMin", x, axes, keepdim, n);
    } else if (ord == 0) {
        const char *nz = tx_emit_cast(t, x, OT_BOOL, NULL, NULL);
        reduce(t, "ReduceSum", tx_emit2(t, "CastLike", nz, x, NULL, NULL), axes, keepdim, n);
    } else if (ord == 1 || ord == 2) {
        reduce(t, ord == 1 ? "ReduceL1" : "ReduceL2", x, axes, keepdim, n);
    } else {
        if (ord < 0 || fmod(ord, 2.0) != 0) x = tx_emit1(t, "Abs", x, NULL, NULL);
        /* torchlib's Python ord becomes an int64 or a float constant, as the tracer types it */
        const char *p = ord_int ? tx_const_scalar(t, OT_INT64, 0, b[1]->u.i, false)
                                : tx_const_scalar(t, OT_FLOAT, ord, 0, true);
        const char *pw = tx_emit2(t, "Pow", x, p, NULL, NULL);
        const char *inv = tx_emit2(t, "CastLike", tx_const_scalar(t, OT_FLOAT, 1.0 / ord, 0, true), x, NULL, NULL);
        const char *sum = reduce(t, "ReduceSum", pw, axes, keepdim, NULL);
        const char *name = tx_node_name_of(t, n);
        tx_emit2(t, "Pow", sum, inv, tx_one_output(t, n), name);
    }
    return true;
}

static const tx_builtin_entry builtins[] = {
    { "linalg_vector_norm", b_linalg_vector_norm, 5 },
};

const builtin_family tx_norm_builtins = BUILTIN_FAMILY("norm", builtins);
