/* translate_histc.c — aten.histc as torch's CPU kernel counts: each element in [min, max] goes to
 * bin floor((x - min) * bins / (max - min)) (max itself to the last bin), NaN and elements out of
 * range to none; min == max takes the range from the data (widened by 1 when it is one value).
 * The bins are compared with a range of bin numbers and the matches summed per bin. */
#include <stdint.h>

#include "translate/translate_internal.h"

#define MAX_HISTC_BINS ((int64_t)1 << 20)

static bool num_of(const fx_arg *a, double *v)
{
    if (a && a->kind == FX_ARG_INT)
        *v = (double)a->u.i;
    else if (a && a->kind == FX_ARG_FLOAT)
        *v = a->u.f;
    else
        return false;
    return true;
}

static const char *reduce(tx *t, const char *op, const char *x)
{
    Onnx__NodeProto *nd = tx_emit(t, op, "", NULL);
    ox_attr_int(t->m, nd, "keepdims", 0);
    ox_node_add_input(t->m, nd, x);
    const char *o = tx_fresh_val(t);
    ox_node_add_output(t->m, nd, o);
    return o;
}

static const char *where(tx *t, const char *c, const char *a, const char *b)
{
    Onnx__NodeProto *nd = tx_emit(t, "Where", "", NULL);
    ox_node_add_input(t->m, nd, c);
    ox_node_add_input(t->m, nd, a);
    ox_node_add_input(t->m, nd, b);
    const char *o = tx_fresh_val(t);
    ox_node_add_output(t->m, nd, o);
    return o;
}

/* b: self, bins, min, max */
bool tx_b_histc(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    double lo_v = 0, hi_v = 0;
    int64_t bins = b[1] ? (b[1]->kind == FX_ARG_INT ? b[1]->u.i : -1) : 100;
    if (!b[0] || b[0]->kind != FX_ARG_NODE || (b[2] && !num_of(b[2], &lo_v)) || (b[3] && !num_of(b[3], &hi_v))) {
        tx_fail_node(t, n, "histc needs a tensor and constant bins, min and max");
        return false;
    }
    if (bins <= 0 || bins > MAX_HISTC_BINS) {
        tx_fail_node(t, n, "histc needs a constant number of bins between 1 and 2^20");
        return false;
    }
    if (lo_v > hi_v) {
        tx_fail_node(t, n, "histc: max must be larger than min");
        return false;
    }
    int dt = tx_onnx_dtype_of_node(b[0]->u.node);
    if (!tx_is_float_type(dt)) {
        tx_fail_node(t, n, "histc needs a floating-point tensor (as torch.histc)");
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    int64_t m1 = -1, one_i = 1;
    x = tx_emit2(t, "Reshape", x, tx_const_ints(t, &m1, 1), NULL, NULL);
    const char *lo, *hi;
    if (lo_v == hi_v) {
        const char *one = tx_const_scalar(t, dt, 1.0, 0, true);
        lo = reduce(t, "ReduceMin", x);
        hi = reduce(t, "ReduceMax", x);
        const char *same = tx_emit2(t, "Equal", lo, hi, NULL, NULL);
        lo = where(t, same, tx_emit2(t, "Sub", lo, one, NULL, NULL), lo);
        hi = where(t, same, tx_emit2(t, "Add", hi, one, NULL, NULL), hi);
    } else {
        lo = tx_const_scalar(t, dt, lo_v, 0, true);
        hi = tx_const_scalar(t, dt, hi_v, 0, true);
    }
    const char *in = tx_emit2(t, "And", tx_emit2(t, "GreaterOrEqual", x, lo, NULL, NULL),
                              tx_emit2(t, "LessOrEqual", x, hi, NULL, NULL), NULL, NULL);
    const char *scaled = tx_emit2(t, "Mul", tx_emit2(t, "Sub", x, lo, NULL, NULL),
                                  tx_const_scalar(t, dt, (double)bins, 0, true), NULL, NULL);
    const char *pos = tx_emit1(t, "Floor", tx_emit2(t, "Div", scaled, tx_emit2(t, "Sub", hi, lo, NULL, NULL), NULL, NULL),
                               NULL, NULL);
    pos = tx_emit2(t, "Min", pos, tx_const_scalar(t, dt, (double)(bins - 1), 0, true), NULL, NULL);
    pos = where(t, in, pos, tx_const_scalar(t, dt, -1.0, 0, true));
    Onnx__NodeProto *cast = tx_emit(t, "Cast", "", NULL);
    ox_attr_int(t->m, cast, "to", 7);
    ox_node_add_input(t->m, cast, pos);
    const char *pi = tx_fresh_val(t);
    ox_node_add_output(t->m, cast, pi);
    int64_t *ids = arena_alloc(&t->a, (size_t)bins * sizeof *ids);
    for (int64_t i = 0; i < bins; i++) ids[i] = i;
    const char *col = tx_emit2(t, "Unsqueeze", pi, tx_const_ints(t, &one_i, 1), NULL, NULL);
    const char *hit = tx_emit2(t, "Equal", col, tx_const_ints(t, ids, (size_t)bins), NULL, NULL);
    Onnx__NodeProto *hc = tx_emit(t, "Cast", "", NULL);
    ox_attr_int(t->m, hc, "to", dt);
    ox_node_add_input(t->m, hc, hit);
    const char *hf = tx_fresh_val(t);
    ox_node_add_output(t->m, hc, hf);
    int64_t zero = 0;
    const char *axes = tx_const_ints(t, &zero, 1);   /* constants first: a node's inputs precede it */
    Onnx__NodeProto *sum = tx_emit(t, "ReduceSum", "", tx_node_name_of(t, n));
    ox_attr_int(t->m, sum, "keepdims", 0);
    ox_node_add_input(t->m, sum, hf);
    ox_node_add_input(t->m, sum, axes);
    ox_node_add_output(t->m, sum, tx_one_output(t, n));
    return true;
}
