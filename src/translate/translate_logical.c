/* translate_logical.c — any / all over dims as torchlib's aten_any_dim(s) / aten_all_dim(s): a Cast
 * to bool and to int64, ReduceMax (any) or ReduceMin (all) over each dim in turn with keepdims (the
 * dim reshaped to 1-D), a Cast back to bool, then one Squeeze of the dims unless keepdim; no dims
 * reduce everything at once. A rank-0 input is its truth value (torchlib reduces an axis a scalar
 * does not have there). */
#include <stdint.h>
#include <string.h>

#include "translate/translate_internal.h"

/* b: self, dim (an int, an int list or None), keepdim; the rule's target says any or all */
static bool b_any_all_dims(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    const char *op = strstr(rule->target, ".all.") || !strncmp(rule->target, "aten.all.", 9) ? "ReduceMin" : "ReduceMax";
    const fx_arg *dim = b[1];
    size_t nd = dim->kind == FX_ARG_INT ? 1 : dim->kind == FX_ARG_LIST || dim->kind == FX_ARG_TUPLE ? dim->u.seq.len : 0;
    int64_t *dv = arena_alloc(&t->a, (nd + 1) * sizeof *dv);
    bool ok = b[0]->kind == FX_ARG_NODE && (dim->kind == FX_ARG_NONE || dim->kind == FX_ARG_INT || nd == dim->u.seq.len) &&
              (b[2]->kind == FX_ARG_BOOL || b[2]->kind == FX_ARG_INT);
    for (size_t i = 0; ok && i < nd; i++) {
        const fx_arg *d = dim->kind == FX_ARG_INT ? dim : dim->u.seq.items[i];
        ok = d->kind == FX_ARG_INT;
        if (ok) dv[i] = d->u.i;
    }
    if (!ok) {
        tx_fail_node(t, n, "any / all need a tensor, constant dims and a constant keepdim");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    int64_t keepdim = b[2]->kind == FX_ARG_BOOL ? b[2]->u.b : b[2]->u.i != 0;
    const char *name = tx_node_name_of(t, n);
    if (tx_rank_of_node(b[0]->u.node) == 0) {
        tx_emit_cast(t, x, OT_BOOL, tx_one_output(t, n), name);
        return true;
    }
    if (!nd) {
        const char *i = tx_emit_cast(t, tx_emit_cast(t, x, OT_BOOL, NULL, NULL), OT_INT64, NULL, NULL);
        tx_emit_cast(t, tx_emit_reduce(t, op, i, NULL, keepdim, NULL, NULL), OT_BOOL, tx_one_output(t, n), name);
        return true;
    }
    bool squeeze = !keepdim && dim->kind != FX_ARG_INT;
    for (size_t k = 0; k < nd; k++) {
        const char *i = tx_emit_cast(t, tx_emit_cast(t, x, OT_BOOL, NULL, NULL), OT_INT64, NULL, NULL);
        int64_t m1 = -1;
        const char *shape = tx_own_ints(t, &m1, 1);
        const char *axes = tx_emit2(t, "Reshape", tx_const_scalar(t, OT_INT64, 0, dv[k], false), shape, NULL, NULL);
        /* any.dim keeps the dim only with keepdim; any.dims keeps each and squeezes them after */
        const char *r = tx_emit_reduce(t, op, i, axes, dim->kind == FX_ARG_INT ? keepdim : 1, NULL, NULL);
        bool last = k + 1 == nd && !squeeze;
        x = tx_emit_cast(t, r, OT_BOOL, last ? tx_one_output(t, n) : NULL, last ? name : NULL);
    }
    if (squeeze) tx_emit2(t, "Squeeze", x, tx_const_ints(t, dv, nd), tx_one_output(t, n), name);
    return true;
}

static const tx_builtin_entry builtins[] = {
    { "any_all_dims", b_any_all_dims, 3 },
};

const builtin_family tx_logical_builtins = BUILTIN_FAMILY("logical", builtins);
