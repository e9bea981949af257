/* translate_scatter_reduce.c — aten.scatter_reduce.two as torchlib's aten_scatter_reduce lowers it:
 * one ScatterElements with the reduction (sum → add, prod → mul, amax → max, amin → min), and for
 * include_self=False a first ScatterElements that resets the scattered places of self to a value
 * that cannot change the reduction (the lowest value of the dtype for amax, the highest for amin,
 * 0 for sum, 1 for prod); a 0-d self is reshaped to [1] and squeezed back. mean is not here: the
 * table's mean lowerings divide by the counts (torchlib scatters without reducing). */
#include <stdint.h>
#include <string.h>

#include "translate/translate_internal.h"

enum { OT_UINT16 = 4, OT_UINT32 = 12, OT_UINT64 = 13 };

/* The reset value of reduction red ("max": the lowest of dt, "min": the highest, "add": 0,
 * "mul": 1) as little-endian bytes of one element of dt; its size, 0 for a dtype without one. */
static size_t reset_value(int dt, const char *red, unsigned char *out)
{
    bool lowest = !strcmp(red, "max"), highest = !strcmp(red, "min"), one = !strcmp(red, "mul");
    union { float f; double d; int64_t i; uint64_t u; uint16_t h; unsigned char b[8]; } v;
    memset(&v, 0, sizeof v);
    size_t size;
    switch (dt) {
    case OT_FLOAT:   /* numpy's finfo(float32).min / max */
        v.f = lowest ? -3.4028234663852886e38f : highest ? 3.4028234663852886e38f : one ? 1.0f : 0.0f;
        size = 4;
        break;
    case OT_DOUBLE:
        v.d = lowest ? -1.7976931348623157e308 : highest ? 1.7976931348623157e308 : one ? 1.0 : 0.0;
        size = 8;
        break;
    case OT_FLOAT16:   /* -65504, 65504, 1 */
        v.h = lowest ? 0xFBFF : highest ? 0x7BFF : one ? 0x3C00 : 0;
        size = 2;
        break;
    case OT_BFLOAT16:  /* torch.finfo(torch.bfloat16).min / max, 1 */
        v.h = lowest ? 0xFF7F : highest ? 0x7F7F : one ? 0x3F80 : 0;
        size = 2;
        break;
    case OT_BOOL:
        v.b[0] = lowest ? 0 : highest ? 1 : one ? 1 : 0;
        size = 1;
        break;
    case OT_INT8: case OT_INT16: case OT_INT32: case OT_INT64: {
        size = dt == OT_INT8 ? 1 : dt == OT_INT16 ? 2 : dt == OT_INT32 ? 4 : 8;
        int64_t hi = (int64_t)((UINT64_C(1) << (8 * size - 1)) - 1);
        v.i = lowest ? -hi - 1 : highest ? hi : one ? 1 : 0;
        break;
    }
    case OT_UINT8: case OT_UINT16: case OT_UINT32: case OT_UINT64:
        size = dt == OT_UINT8 ? 1 : dt == OT_UINT16 ? 2 : dt == OT_UINT32 ? 4 : 8;
        v.u = lowest ? 0 : highest ? (size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1) : one ? 1 : 0;
        break;
    default:
        return 0;
    }
    memcpy(out, v.b, size);   /* the low bytes: fxsh builds for little-endian hosts, as ONNX's raw_data is */
    return size;
}

static const char *scatter_elements(tx *t, const char *x, const char *idx, const char *src, int64_t axis,
                                    const char *red, const char *out, const char *name)
{
    Onnx__NodeProto *nd = tx_emit(t, "ScatterElements", "", name);
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, idx);
    ox_node_add_input(t->m, nd, src);
    const char *o = out ? out : tx_fresh_val(t);
    ox_node_add_output(t->m, nd, o);
    ox_attr_int(t->m, nd, "axis", axis);
    ox_attr_string(t->m, nd, "reduction", red);
    return o;
}

/* A ConstantOfShape of Shape(like) filled with the reset value of red ("add": 0, "mul": 1, ...). */
static const char *filled_like(tx *t, const char *like, int dt, const char *red)
{
    unsigned char bytes[8];
    size_t size = reset_value(dt, red, bytes);
    int64_t one = 1;
    Onnx__TensorProto *tp = ox_tensor_new(t->m, NULL, dt, &one, 1);
    ox_tensor_set_raw(t->m, tp, bytes, size);
    const char *c = tx_emit1(t, "ConstantOfShape", tx_emit1(t, "Shape", like, NULL, NULL), NULL, NULL);
    ox_attr_tensor(t->m, t->sc->g->node[t->sc->g->n_node - 1], "value", tp);
    return c;
}

/* torchlib's scatter_reduce on ONNX values (red: add, mul, max, min); the result named as n's
 * when last. */
static void reduce_core(tx *t, const fx_node *n, const char *x, const char *idx, const char *src, int dt, int64_t axis,
                        const char *red, bool include_self, bool last)
{
    if (!include_self) {
        bool add_or_mul = !strcmp(red, "add") || !strcmp(red, "mul");
        const char *cst = filled_like(t, src, dt, red);
        x = scatter_elements(t, x, idx, cst, axis, add_or_mul ? "none" : !strcmp(red, "max") ? "min" : "max", NULL,
                             NULL);
    }
    scatter_elements(t, x, idx, src, axis, red, last ? tx_one_output(t, n) : NULL, last ? tx_node_name_of(t, n) : NULL);
}

/* b: self, dim, index, src, reduce, include_self */
static bool b_scatter_reduce(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    static const char *const map[][2] = { { "sum", "add" }, { "prod", "mul" }, { "amax", "max" }, { "amin", "min" } };
    const char *red = NULL;
    if (b[4] && b[4]->kind == FX_ARG_STR)
        for (size_t i = 0; i < sizeof map / sizeof *map; i++)
            if (!strcmp(b[4]->u.s, map[i][0])) red = map[i][1];
    bool include_self = !b[5] || b[5]->kind != FX_ARG_BOOL || b[5]->u.b;
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    if (!red || r < 0 || !b[1] || b[1]->kind != FX_ARG_INT || !b[2] || b[2]->kind != FX_ARG_NODE || !b[3] ||
        b[3]->kind != FX_ARG_NODE) {
        tx_fail_node(t, n, "scatter_reduce needs self of known rank, a constant dim, index and src tensors and a "
                           "reduce of sum, prod, amax or amin (mean is exact only for floating tensors)");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node), *idx = tx_single(t, n, b[2]->u.node),
               *src = tx_single(t, n, b[3]->u.node);
    if (!x || !idx || !src) return false;
    int dt = tx_onnx_dtype_of_node(b[3]->u.node);
    if (!dt) dt = tx_onnx_dtype_of_node(b[0]->u.node);
    unsigned char bytes[8];
    if (!reset_value(dt, red, bytes)) {
        tx_fail_node(t, n, "scatter_reduce: no reset value for this dtype");
        return false;
    }
    bool scalar = r == 0;
    if (scalar) {   /* index and src are 0-d too */
        int64_t m1 = -1;
        const char *neg_1 = tx_own_ints(t, &m1, 1);
        x = tx_emit2(t, "Reshape", x, neg_1, NULL, NULL);
        idx = tx_emit2(t, "Reshape", idx, neg_1, NULL, NULL);
        src = tx_emit2(t, "Reshape", src, neg_1, NULL, NULL);
    }
    int64_t axis = b[1]->u.i;
    reduce_core(t, n, x, idx, src, dt, axis, red, include_self, !scalar);
    if (scalar) {
        const char *y = t->sc->g->node[t->sc->g->n_node - 1]->output[0];
        tx_emit1(t, "Squeeze", y, tx_one_output(t, n), tx_node_name_of(t, n));
    }
    return true;
}

/* index_reduce (torch.onnx has no lowering): each index names the place along dim that the
 * source slice at its position reduces into, which is scatter_reduce with the index reshaped
 * along dim and expanded to the source's shape. prod, amax and amin as scatter_reduce; mean
 * divides the sum by the count (self counted when included; places no index names keep self),
 * for floating tensors. 0-d operands are reshaped to [1] and the result squeezed back.
 * b: self, dim, index, source, reduce, include_self */
static bool b_index_reduce(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    static const char *const map[][2] = { { "prod", "mul" }, { "amax", "max" }, { "amin", "min" }, { "mean", "add" } };
    const char *red = NULL;
    if (b[4] && b[4]->kind == FX_ARG_STR)
        for (size_t i = 0; i < sizeof map / sizeof *map; i++)
            if (!strcmp(b[4]->u.s, map[i][0])) red = map[i][1];
    bool mean = red && !strcmp(b[4]->u.s, "mean"), include_self = !b[5] || b[5]->kind != FX_ARG_BOOL || b[5]->u.b;
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    int dt = r >= 0 ? tx_onnx_dtype_of_node(b[0]->u.node) : 0;
    unsigned char bytes[8];
    if (!red || r < 0 || r > 16 || !b[1] || b[1]->kind != FX_ARG_INT || !b[2] || b[2]->kind != FX_ARG_NODE || !b[3] ||
        b[3]->kind != FX_ARG_NODE || !reset_value(dt, red, bytes) || (mean && !tx_is_float_type(dt))) {
        tx_fail_node(t, n, "index_reduce needs self of known rank and dtype, a constant dim, index and source "
                           "tensors and a reduce of prod, amax, amin or mean (mean for floating tensors)");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node), *idx = tx_single(t, n, b[2]->u.node),
               *src = tx_single(t, n, b[3]->u.node);
    if (!x || !idx || !src) return false;
    int64_t axis = b[1]->u.i, m1 = -1, shape[16];
    bool scalar = r == 0;
    if (scalar) {
        const char *neg_1 = tx_const_ints(t, &m1, 1);
        x = tx_emit2(t, "Reshape", x, neg_1, NULL, NULL);
        src = tx_emit2(t, "Reshape", src, neg_1, NULL, NULL);
        r = 1, axis = 0;
    }
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) {
        tx_fail_node(t, n, "index_reduce: dim out of range");
        return false;
    }
    for (int i = 0; i < r; i++) shape[i] = i == axis ? -1 : 1;
    idx = tx_emit2(t, "Reshape", idx, tx_const_ints(t, shape, (size_t)r), NULL, NULL);
    idx = tx_emit2(t, "Expand", idx, tx_emit1(t, "Shape", src, NULL, NULL), NULL, NULL);
    if (!mean) {
        reduce_core(t, n, x, idx, src, dt, axis, red, include_self, !scalar);
    } else {
        const char *base = include_self ? x : scatter_elements(t, x, idx, filled_like(t, src, dt, "add"), axis, "none",
                                                               NULL, NULL);
        const char *sum = scatter_elements(t, base, idx, src, axis, "add", NULL, NULL);
        const char *ones = filled_like(t, src, dt, "mul");
        const char *count0 = filled_like(t, x, dt, include_self ? "mul" : "add");
        const char *count = scatter_elements(t, count0, idx, ones, axis, "add", NULL, NULL);
        const char *avg = tx_emit2(t, "Div", sum, count, NULL, NULL);
        if (include_self) {   /* every count is at least 1 */
            if (scalar) tx_emit1(t, "Identity", avg, NULL, NULL);
            else tx_emit1(t, "Identity", avg, tx_one_output(t, n), tx_node_name_of(t, n));
        } else {   /* places no index names keep self (their count is 0) */
            const char *hit = tx_emit2(t, "Greater", count, filled_like(t, x, dt, "add"), NULL, NULL);
            Onnx__NodeProto *w = tx_emit(t, "Where", "", scalar ? NULL : tx_node_name_of(t, n));
            ox_node_add_input(t->m, w, hit);
            ox_node_add_input(t->m, w, avg);
            ox_node_add_input(t->m, w, x);
            ox_node_add_output(t->m, w, scalar ? tx_fresh_val(t) : tx_one_output(t, n));
        }
    }
    if (scalar) {
        const char *y = t->sc->g->node[t->sc->g->n_node - 1]->output[0];
        tx_emit1(t, "Squeeze", y, tx_one_output(t, n), tx_node_name_of(t, n));
    }
    return true;
}

static const tx_builtin_entry builtins[] = {
    { "scatter_reduce", b_scatter_reduce, 6 }, { "index_reduce", b_index_reduce, 6 },
};

const builtin_family tx_scatter_reduce_builtins = BUILTIN_FAMILY("scatter_reduce", builtins);
