/* translate_histc.c — aten.histc. With min < max, as torchlib's aten_histc: the bins + 1 edges
 * min + (max - min) / bins * i as a constant (the last one nudged up so that max counts), each
 * element in range (NaN and the others moved below min) compared with every edge, the counts
 * below each edge differenced. torchlib refuses min == max, where torch takes the range from the
 * data (widened by 1 when it is one value): there each element goes to torch's CPU kernel's bin
 * floor((x - min) * bins / (max - min)), max itself to the last, matched with a range of bin
 * numbers and summed per bin. */
#include <math.h>
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

/* A Python number in a one-element list ([min] in torchlib): int64[1] or float[1], from the farm.
 * An int beyond int64 (min - 1 of int64's minimum) is written as a float: it is cast to x's
 * floating type next anyway. */
static const char *list1(tx *t, const fx_arg *a, double v)
{
    bool fits = v >= -9223372036854775808.0 && v < 9223372036854775808.0;
    if ((a && a->kind == FX_ARG_FLOAT) || !fits) {
        float f = (float)v;
        return tx_const_floats(t, &f, 1);
    }
    int64_t i = (int64_t)v;
    return tx_const_ints(t, &i, 1);
}

/* torchlib's aten_histc for min < max: x is self, dt its (float) ONNX type. */
static bool histc_edges(tx *t, const fx_node *n, const fx_arg **b, const char *x, int dt, int64_t bins, double lo,
                        double hi)
{
    int64_t m1 = -1, zero = 0, one = 1;
    const char *flat = tx_emit2(t, "Reshape", x, tx_const_ints(t, &m1, 1), NULL, NULL);
    const char *ge = tx_emit2(t, "GreaterOrEqual", flat, tx_emit2(t, "CastLike", list1(t, b[2], lo), x, NULL, NULL),
                              NULL, NULL);
    const char *le = tx_emit2(t, "LessOrEqual", flat, tx_emit2(t, "CastLike", list1(t, b[3], hi), x, NULL, NULL),
                              NULL, NULL);
    const char *cond = tx_emit2(t, "And", ge, le, NULL, NULL);
    cond = tx_emit2(t, "And", cond, tx_emit1(t, "Not", tx_emit1(t, "IsNaN", flat, NULL, NULL), NULL, NULL), NULL, NULL);
    /* the edges, computed in double as torchlib's Python does, then stored in x's type */
    int64_t ne = bins + 1;
    double delta = (hi - lo) / (double)bins;
    Onnx__TensorProto *tp = ox_tensor_new(t->m, NULL, dt, &ne, 1);
    if (dt == OT_DOUBLE) {
        double *v = arena_alloc(&t->a, (size_t)ne * sizeof *v);
        for (int64_t i = 0; i < ne; i++) v[i] = lo + delta * (double)i;
        v[bins] = nextafter(v[bins], INFINITY);
        ox_tensor_set_doubles(t->m, tp, v, (size_t)ne);
    } else {
        float *v = arena_alloc(&t->a, (size_t)ne * sizeof *v);
        for (int64_t i = 0; i < ne; i++) v[i] = (float)(lo + delta * (double)i);
        v[bins] = nextafterf(v[bins], INFINITY);
        ox_tensor_set_floats(t->m, tp, v, (size_t)ne);
    }
    Onnx__NodeProto *c = tx_emit(t, "Constant", "", NULL);
    ox_attr_tensor(t->m, c, "value", tp);
    const char *edges = tx_fresh_val(t);
    ox_node_add_output(t->m, c, edges);
    const fx_arg below = {.kind = b[2] && b[2]->kind == FX_ARG_FLOAT ? FX_ARG_FLOAT : FX_ARG_INT};
    const char *below_like = tx_emit2(t, "CastLike", list1(t, &below, lo - 1), x, NULL, NULL);
    const char *clipped = tx_emitn(t, "Where", (const char *[]){ cond, flat, below_like }, 3, NULL, NULL);
    const char *col = tx_emit2(t, "Unsqueeze", edges, tx_const_ints(t, &one, 1), NULL, NULL);
    const char *row = tx_emit2(t, "Unsqueeze", clipped, tx_const_ints(t, &zero, 1), NULL, NULL);
    const char *lt = tx_emit2(t, "Less", row, col, NULL, NULL);
    Onnx__NodeProto *cast = tx_emit(t, "Cast", "", NULL);
    ox_attr_int(t->m, cast, "to", dt);
    ox_node_add_input(t->m, cast, lt);
    const char *less = tx_fresh_val(t);
    ox_node_add_output(t->m, cast, less);
    const char *axis1 = tx_const_ints(t, &one, 1);
    Onnx__NodeProto *sum = tx_emit(t, "ReduceSum", "", NULL);
    ox_attr_int(t->m, sum, "keepdims", 0);
    ox_node_add_input(t->m, sum, less);
    ox_node_add_input(t->m, sum, axis1);
    const char *sums = tx_fresh_val(t);
    ox_node_add_output(t->m, sum, sums);
    const char *shape = tx_emit1(t, "Shape", sums, NULL, NULL);
    const char *c1 = tx_const_ints(t, &one, 1), *c0 = tx_const_ints(t, &zero, 1), *cm1 = tx_const_ints(t, &m1, 1);
    const char *ins[2][4] = {{sums, c1, shape, c0}, {sums, c0, cm1, c0}};
    const char *sl[2];
    for (int k = 0; k < 2; k++) sl[k] = tx_emitn(t, "Slice", ins[k], 4, NULL, NULL);
    tx_emit2(t, "Sub", sl[0], sl[1], tx_one_output(t, n), tx_node_name_of(t, n));
    return true;
}

/* b: self, bins, min, max */
static bool b_histc(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
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
    if (lo_v < hi_v) return histc_edges(t, n, b, x, dt, bins, lo_v, hi_v);
    int64_t m1 = -1, one_i = 1;
    x = tx_emit2(t, "Reshape", x, tx_const_ints(t, &m1, 1), NULL, NULL);
    const char *lo, *hi;
    if (lo_v == hi_v) {
        const char *one = tx_const_scalar(t, dt, 1.0, 0, true);
        lo = tx_emit_reduce(t, "ReduceMin", x, NULL, 0, NULL, NULL);
        hi = tx_emit_reduce(t, "ReduceMax", x, NULL, 0, NULL, NULL);
        const char *same = tx_emit2(t, "Equal", lo, hi, NULL, NULL);
        lo = tx_emitn(t, "Where", (const char *[]){ same, tx_emit2(t, "Sub", lo, one, NULL, NULL), lo }, 3, NULL, NULL);
        hi = tx_emitn(t, "Where", (const char *[]){ same, tx_emit2(t, "Add", hi, one, NULL, NULL), hi }, 3, NULL, NULL);
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
    pos = tx_emitn(t, "Where", (const char *[]){ in, pos, tx_const_scalar(t, dt, -1.0, 0, true) }, 3, NULL, NULL);
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

static const tx_builtin_entry builtins[] = {
    { "histc", b_histc, 4 },
};

const builtin_family tx_histc_builtins = BUILTIN_FAMILY("histc", builtins);
