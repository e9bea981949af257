/* translate_sample.c — aten.grid_sampler / grid_sampler_2d / grid_sampler_3d as one GridSample,
 * torch's interpolation and padding enums turned into its attributes. The mode is torchlib's name
 * (GridSample-16's bilinear / nearest / bicubic, 4-d); at opset 20 translate_version.c converts it
 * as torch.onnx's version converter does (N-d grids, linear / cubic). */
#include <stdint.h>

#include "translate/translate_internal.h"

/* b: input, grid, interpolation_mode, padding_mode, align_corners */
static bool b_grid_sampler(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    static const char *const modes[] = { "bilinear", "nearest", "bicubic" };   /* GridSample-16 */
    static const char *const pads[] = { "zeros", "border", "reflection" };
    if (!b[0] || b[0]->kind != FX_ARG_NODE || !b[1] || b[1]->kind != FX_ARG_NODE) {
        tx_fail_node(t, n, arena_printf(&t->a, "%s needs tensor input and grid", rule->target));
        return false;
    }
    if (!b[2] || b[2]->kind != FX_ARG_INT || b[2]->u.i < 0 || b[2]->u.i > 2 || !b[3] || b[3]->kind != FX_ARG_INT ||
        b[3]->u.i < 0 || b[3]->u.i > 2 || !b[4] || b[4]->kind != FX_ARG_BOOL) {
        tx_fail_node(t, n, arena_printf(&t->a, "%s needs constant interpolation_mode (0-2), padding_mode (0-2) and "
                                        "align_corners", rule->target));
        return false;
    }
    int r = tx_rank_of_node(b[0]->u.node);
    if (t->opset < 16 || (t->opset < 20 && r != 4)) {
        tx_fail_node(t, n, arena_printf(&t->a, "%s needs opset >= 16 (4-d input) or >= 20 (5-d input)", rule->target));
        return false;
    }
    if (r != 4 && r != 5) {
        tx_fail_node(t, n, arena_printf(&t->a, "%s needs a 4-d or 5-d input of known rank", rule->target));
        return false;
    }
    if (r == 5 && b[2]->u.i == 2) {
        tx_fail_node(t, n, arena_printf(&t->a, "%s: bicubic interpolation is only defined for 4-d inputs",
                                        rule->target));
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node), *g = tx_single(t, n, b[1]->u.node);
    if (!x || !g) return false;
    Onnx__NodeProto *nd = tx_emit(t, "GridSample", "", tx_node_name_of(t, n));
    ox_attr_int(t->m, nd, "align_corners", b[4]->u.b ? 1 : 0);
    ox_attr_string(t->m, nd, "mode", modes[b[2]->u.i]);
    ox_attr_string(t->m, nd, "padding_mode", pads[b[3]->u.i]);
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, g);
    ox_node_add_output(t->m, nd, tx_one_output(t, n));
    return true;
}

static const tx_builtin_entry builtins[] = {
    { "grid_sampler", b_grid_sampler, 5 },
};

const builtin_family tx_sample_builtins = BUILTIN_FAMILY("sample", builtins);
