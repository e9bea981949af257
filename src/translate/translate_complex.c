/* translate_complex.c — torchlib's complex=True functions that need C: view of a complex tensor
 * (the size with the real form's last dim of 2 appended, merged as common_ops.merge_dims does). */
#include "translate/translate_internal.h"

/* b: self, size — aten_view_complex: Reshape <allowzero: 1> (self, merge_dims([*size, 2])) */
static bool b_view_complex(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    if (!b[0] || b[0]->kind != FX_ARG_NODE || !b[1] || (b[1]->kind != FX_ARG_LIST && b[1]->kind != FX_ARG_TUPLE)) {
        tx_fail_node(t, n, "view of a complex tensor needs a tensor and a size list");
        return false;
    }
    const char *self = tx_single(t, n, b[0]->u.node);
    if (!self) return false;
    size_t k = b[1]->u.seq.len;
    fx_arg *two = arena_alloc(&t->a, sizeof *two);
    two->kind = FX_ARG_INT;
    two->u.i = 2;
    fx_arg *size = arena_alloc(&t->a, sizeof *size);
    size->kind = FX_ARG_LIST;
    size->u.seq.items = arena_alloc(&t->a, (k + 1) * sizeof *size->u.seq.items);
    for (size_t i = 0; i < k; i++) size->u.seq.items[i] = b[1]->u.seq.items[i];
    size->u.seq.items[k] = two;
    size->u.seq.keys = NULL;
    size->u.seq.len = k + 1;
    const char *shape = tx_merge_dims_input(t, n, size, false);
    if (!shape) return false;
    Onnx__NodeProto *r = tx_emit(t, "Reshape", "", tx_node_name_of(t, n));
    ox_attr_int(t->m, r, "allowzero", 1);
    ox_node_add_input(t->m, r, self);
    ox_node_add_input(t->m, r, shape);
    ox_node_add_output(t->m, r, tx_one_output(t, n));
    return true;
}

static const tx_builtin_entry builtins[] = {
    { "view_complex", b_view_complex, 2 },
};

const builtin_family tx_complex_builtins = BUILTIN_FAMILY("complex", builtins);
