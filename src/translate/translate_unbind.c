/* translate_unbind.c — aten.unbind.int as torchlib's aten_unbind: along a dimension of static size
 * N, N Slice + Squeeze pairs (one value per piece, named after the getitem that reads it, the
 * Squeeze making piece i named node_<unbind>__<i>); along a dynamic one, one SplitToSequence. */
#include <stdint.h>
#include <stdlib.h>

#include "translate/translate_internal.h"

/* The static size of dim d of n's tensor meta (d may count from the end); false if symbolic. */
static bool static_dim(const fx_node *n, int64_t d, int64_t *size)
{
    const fx_value *v = tx_node_val(n);
    if (!v || v->kind != FX_VAL_TENSOR) return false;
    if (d < 0) d += (int64_t)v->rank;
    if (d < 0 || d >= (int64_t)v->rank) return false;
    char *end;
    *size = strtoll(v->sizes[d], &end, 10);
    return !*end && end != v->sizes[d] && *size >= 0;
}

/* b: self, dim */
static bool b_unbind(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    if (b[0]->kind != FX_ARG_NODE || b[1]->kind != FX_ARG_INT) {
        tx_fail_node(t, n, "unbind needs a tensor and a constant dim");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    int64_t dim = b[1]->u.i, size;
    if (!static_dim(b[0]->u.node, dim, &size)) {
        Onnx__NodeProto *sp = tx_emit(t, "SplitToSequence", "", tx_node_name_of(t, n));
        ox_attr_int(t->m, sp, "axis", dim);
        ox_attr_int(t->m, sp, "keepdims", 0);
        ox_node_add_input(t->m, sp, x);
        const char **res = tx_output_names_ex(t, n, 1, false);
        ox_node_add_output(t->m, sp, res[0]);
        tx_set_results(t, n, &rule->schema, res, 1);
        return true;
    }
    const char **res = tx_output_names_ex(t, n, (size_t)size, true);
    const fx_value *v = tx_node_val(n);
    for (int64_t i = 0; i < size; i++) {
        int64_t end = i + 1;
        const char *starts = tx_own_ints(t, &i, 1), *ends = tx_own_ints(t, &end, 1);
        const char *axes = tx_own_ints(t, &dim, 1);
        const char *piece = tx_emitn(t, "Slice", (const char *[]){ x, starts, ends, axes }, 4, NULL, NULL);
        tx_emit2(t, "Squeeze", piece, tx_const_ints(t, &dim, 1), res[i],
                 arena_printf(&t->a, "node_%s__%lld", n->name, (long long)i));
        if (v && v->kind == FX_VAL_TUPLE && (size_t)i < v->n_items) tx_add_value_info(t, res[i], v->items[i]);
    }
    tx_set_val(t, n, res, (size_t)size);
    return true;
}

static const tx_builtin_entry builtins[] = {
    { "unbind", b_unbind, 2 },
};

const builtin_family tx_unbind_builtins = BUILTIN_FAMILY("unbind", builtins);
