/* test_onnx_eval.c — unit tests of the constant evaluator's kernels (eval/onnx_eval.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "eval/onnx_eval.h"
#include "onnx/onnx_op.h"

enum { F32 = 1, I32 = 6, I64 = 7, BOOL = 9, F64 = 11 };

/* A node in a scratch model; the model owns it. */
static Onnx__NodeProto *node(ox_model *m, const char *op, size_t nin)
{
    Onnx__NodeProto *n = ox_node_new(m, op, "", "n");
    for (size_t i = 0; i < nin; i++) ox_node_add_input(m, n, "x");
    ox_node_add_output(m, n, "y");
    return n;
}

static int run(const Onnx__NodeProto *n, oe_tensor **in, size_t nin, oe_tensor *out)
{
    return oe_eval_node(n, 20, in, nin, out, 1, NULL);
}

static void expect_i(const oe_tensor *t, int dtype, int rank, const int64_t *dims, const int64_t *v)
{
    assert_int_equal(t->dtype, dtype);
    assert_int_equal(t->rank, rank);
    for (int i = 0; i < rank; i++) assert_int_equal(t->dims[i], dims[i]);
    for (int64_t i = 0; i < t->numel; i++) assert_int_equal(ot_get_i(t, i), v[i]);
}

static void expect_f(const oe_tensor *t, int dtype, int rank, const int64_t *dims, const double *v)
{
    assert_int_equal(t->dtype, dtype);
    assert_int_equal(t->rank, rank);
    for (int i = 0; i < rank; i++) assert_int_equal(t->dims[i], dims[i]);
    for (int64_t i = 0; i < t->numel; i++) assert_float_equal(ot_get_f(t, i), v[i], 1e-6);
}

static void test_add_broadcast(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    oe_tensor a, b, y;
    ot_tensor_from_f(&a, F32, (int64_t[]){2, 3}, 2, (double[]){1, 2, 3, 4, 5, 6});
    ot_tensor_from_f(&b, F32, (int64_t[]){3}, 1, (double[]){10, 20, 30});
    oe_tensor *in[] = {&a, &b};
    assert_int_equal(run(node(m, "Add", 2), in, 2, &y), OE_OK);
    expect_f(&y, F32, 2, (int64_t[]){2, 3}, (double[]){11, 22, 33, 14, 25, 36});
    ot_tensor_free(&y);
    assert_int_equal(run(node(m, "Sub", 2), in, 2, &y), OE_OK);
    expect_f(&y, F32, 2, (int64_t[]){2, 3}, (double[]){-9, -18, -27, -6, -15, -24});
    ot_tensor_free(&y);
    assert_int_equal(run(node(m, "Mul", 2), (oe_tensor *[]){&b, &a}, 2, &y), OE_OK);
    expect_f(&y, F32, 2, (int64_t[]){2, 3}, (double[]){10, 40, 90, 40, 100, 180});
    ot_tensor_free(&y);
    /* incompatible shapes are an error, not a crash */
    oe_tensor c;
    ot_tensor_from_f(&c, F32, (int64_t[]){2}, 1, (double[]){1, 2});
    diag_sink d;
    diag_init(&d);
    assert_int_equal(oe_eval_node(node(m, "Add", 2), 20, (oe_tensor *[]){&a, &c}, 2, &y, 1, &d), OE_ERROR);
    assert_true(diag_has_errors(&d));
    diag_free(&d);
    ot_tensor_free(&a);
    ot_tensor_free(&b);
    ot_tensor_free(&c);
    ox_model_free(m);
}

static void test_int_div_pow_cmp(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    oe_tensor a, b, y;
    ot_tensor_from_i(&a, I64, (int64_t[]){4}, 1, (int64_t[]){7, -7, 9, 2});
    ot_tensor_from_i(&b, I64, (int64_t[]){4}, 1, (int64_t[]){2, 2, 3, 10});
    oe_tensor *in[] = {&a, &b};
    assert_int_equal(run(node(m, "Div", 2), in, 2, &y), OE_OK);
    expect_i(&y, I64, 1, (int64_t[]){4}, (int64_t[]){3, -3, 3, 0});
    ot_tensor_free(&y);
    assert_int_equal(run(node(m, "Pow", 2), in, 2, &y), OE_OK);
    expect_i(&y, I64, 1, (int64_t[]){4}, (int64_t[]){49, 49, 729, 1024});
    ot_tensor_free(&y);
    assert_int_equal(run(node(m, "Less", 2), in, 2, &y), OE_OK);
    expect_i(&y, BOOL, 1, (int64_t[]){4}, (int64_t[]){0, 1, 0, 1});
    ot_tensor_free(&y);
    assert_int_equal(run(node(m, "Equal", 2), (oe_tensor *[]){&a, &a}, 2, &y), OE_OK);
    expect_i(&y, BOOL, 1, (int64_t[]){4}, (int64_t[]){1, 1, 1, 1});
    ot_tensor_free(&y);
    oe_tensor z;
    ot_tensor_from_i(&z, I64, (int64_t[]){4}, 1, (int64_t[]){1, 0, 1, 1});
    assert_int_equal(run(node(m, "Div", 2), (oe_tensor *[]){&a, &z}, 2, &y), OE_ERROR);
    ot_tensor_free(&z);
    ot_tensor_free(&a);
    ot_tensor_free(&b);
    ox_model_free(m);
}

static void test_unary(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    oe_tensor a, y;
    ot_tensor_from_f(&a, F64, (int64_t[]){3}, 1, (double[]){4, 1, 0.25});
    assert_int_equal(run(node(m, "Sqrt", 1), (oe_tensor *[]){&a}, 1, &y), OE_OK);
    expect_f(&y, F64, 1, (int64_t[]){3}, (double[]){2, 1, 0.5});
    ot_tensor_free(&y);
    assert_int_equal(run(node(m, "Log", 1), (oe_tensor *[]){&a}, 1, &y), OE_OK);
    expect_f(&y, F64, 1, (int64_t[]){3}, (double[]){log(4), 0, log(0.25)});
    ot_tensor_free(&y);
    assert_int_equal(run(node(m, "Exp", 1), (oe_tensor *[]){&a}, 1, &y), OE_OK);
    expect_f(&y, F64, 1, (int64_t[]){3}, (double[]){exp(4), exp(1), exp(0.25)});
    ot_tensor_free(&y);
    assert_int_equal(run(node(m, "Neg", 1), (oe_tensor *[]){&a}, 1, &y), OE_OK);
    expect_f(&y, F64, 1, (int64_t[]){3}, (double[]){-4, -1, -0.25});
    ot_tensor_free(&y);
    oe_tensor i;
    ot_tensor_from_i(&i, I32, (int64_t[]){2}, 1, (int64_t[]){-3, 5});
    assert_int_equal(run(node(m, "Abs", 1), (oe_tensor *[]){&i}, 1, &y), OE_OK);
    expect_i(&y, I32, 1, (int64_t[]){2}, (int64_t[]){3, 5});
    ot_tensor_free(&y);
    /* Sqrt of an integer tensor is not a valid ONNX op: not folded */
    assert_int_equal(run(node(m, "Sqrt", 1), (oe_tensor *[]){&i}, 1, &y), OE_UNSUPPORTED);
    ot_tensor_free(&i);
    ot_tensor_free(&a);
    ox_model_free(m);
}

static void test_cast_where(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    oe_tensor a, y;
    ot_tensor_from_f(&a, F32, (int64_t[]){3}, 1, (double[]){1.7, -2.5, 0});
    Onnx__NodeProto *n = node(m, "Cast", 1);
    ox_attr_int(m, n, "to", I64);
    assert_int_equal(run(n, (oe_tensor *[]){&a}, 1, &y), OE_OK);
    expect_i(&y, I64, 1, (int64_t[]){3}, (int64_t[]){1, -2, 0});
    ot_tensor_free(&y);
    n = node(m, "Cast", 1);
    ox_attr_int(m, n, "to", BOOL);
    assert_int_equal(run(n, (oe_tensor *[]){&a}, 1, &y), OE_OK);
    expect_i(&y, BOOL, 1, (int64_t[]){3}, (int64_t[]){1, 1, 0});
    oe_tensor cond, other;
    ot_tensor_from_f(&other, F32, NULL, 0, (double[]){9});
    assert_int_equal(run(node(m, "Where", 3), (oe_tensor *[]){&y, &a, &other}, 3, &cond), OE_OK);
    expect_f(&cond, F32, 1, (int64_t[]){3}, (double[]){1.7f, -2.5, 9});
    ot_tensor_free(&cond);
    oe_tensor like;
    ot_tensor_from_i(&like, I32, NULL, 0, (int64_t[]){0});
    assert_int_equal(run(node(m, "CastLike", 2), (oe_tensor *[]){&a, &like}, 2, &cond), OE_OK);
    expect_i(&cond, I32, 1, (int64_t[]){3}, (int64_t[]){1, -2, 0});
    ot_tensor_free(&cond);
    ot_tensor_free(&like);
    ot_tensor_free(&other);
    ot_tensor_free(&y);
    ot_tensor_free(&a);
    ox_model_free(m);
}

static void test_shape_ops(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    oe_tensor x, y, idx, s2;
    ot_tensor_from_f(&x, F32, (int64_t[]){2, 3, 4}, 3, (double[24]){0});
    assert_int_equal(run(node(m, "Shape", 1), (oe_tensor *[]){&x}, 1, &y), OE_OK);
    expect_i(&y, I64, 1, (int64_t[]){3}, (int64_t[]){2, 3, 4});
    /* Gather(shape, 1) → scalar 3; Gather with a negative index */
    ot_tensor_from_i(&idx, I64, NULL, 0, (int64_t[]){-1});
    assert_int_equal(run(node(m, "Gather", 2), (oe_tensor *[]){&y, &idx}, 2, &s2), OE_OK);
    expect_i(&s2, I64, 0, NULL, (int64_t[]){4});
    ot_tensor_free(&s2);
    ot_tensor_free(&idx);
    /* Unsqueeze(axes=[0]) on a 1-D tensor → [1,3] */
    oe_tensor axes, u;
    ot_tensor_from_i(&axes, I64, (int64_t[]){1}, 1, (int64_t[]){0});
    assert_int_equal(run(node(m, "Unsqueeze", 2), (oe_tensor *[]){&y, &axes}, 2, &u), OE_OK);
    expect_i(&u, I64, 2, (int64_t[]){1, 3}, (int64_t[]){2, 3, 4});
    oe_tensor sq;
    assert_int_equal(run(node(m, "Squeeze", 2), (oe_tensor *[]){&u, &axes}, 2, &sq), OE_OK);
    expect_i(&sq, I64, 1, (int64_t[]){3}, (int64_t[]){2, 3, 4});
    ot_tensor_free(&sq);
    ot_tensor_free(&u);
    /* Concat(shape, shape) along 0 */
    Onnx__NodeProto *cn = node(m, "Concat", 2);
    ox_attr_int(m, cn, "axis", 0);
    oe_tensor cc;
    assert_int_equal(run(cn, (oe_tensor *[]){&y, &y}, 2, &cc), OE_OK);
    expect_i(&cc, I64, 1, (int64_t[]){6}, (int64_t[]){2, 3, 4, 2, 3, 4});
    ot_tensor_free(&cc);
    /* Reshape x to [-1, 4] and [0, 12] */
    oe_tensor shp, r;
    ot_tensor_from_i(&shp, I64, (int64_t[]){2}, 1, (int64_t[]){-1, 4});
    assert_int_equal(run(node(m, "Reshape", 2), (oe_tensor *[]){&x, &shp}, 2, &r), OE_OK);
    assert_int_equal(r.rank, 2);
    assert_int_equal(r.dims[0], 6);
    ot_tensor_free(&r);
    ot_tensor_free(&shp);
    ot_tensor_from_i(&shp, I64, (int64_t[]){2}, 1, (int64_t[]){0, 12});
    assert_int_equal(run(node(m, "Reshape", 2), (oe_tensor *[]){&x, &shp}, 2, &r), OE_OK);
    assert_int_equal(r.dims[0], 2);
    assert_int_equal(r.dims[1], 12);
    ot_tensor_free(&r);
    ot_tensor_free(&shp);
    ot_tensor_from_i(&shp, I64, (int64_t[]){2}, 1, (int64_t[]){5, 5});
    assert_int_equal(run(node(m, "Reshape", 2), (oe_tensor *[]){&x, &shp}, 2, &r), OE_ERROR);
    ot_tensor_free(&shp);
    ot_tensor_free(&axes);
    ot_tensor_free(&y);
    assert_int_equal(run(node(m, "Size", 1), (oe_tensor *[]){&x}, 1, &y), OE_OK);
    expect_i(&y, I64, 0, NULL, (int64_t[]){24});
    ot_tensor_free(&y);
    ot_tensor_free(&x);
    ox_model_free(m);
}

static void test_slice_range_transpose(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    oe_tensor x, st, en, ax, sp, y;
    ot_tensor_from_i(&x, I64, (int64_t[]){2, 4}, 2, (int64_t[]){0, 1, 2, 3, 4, 5, 6, 7});
    ot_tensor_from_i(&st, I64, (int64_t[]){1}, 1, (int64_t[]){-1});
    ot_tensor_from_i(&en, I64, (int64_t[]){1}, 1, (int64_t[]){INT64_MIN});
    ot_tensor_from_i(&ax, I64, (int64_t[]){1}, 1, (int64_t[]){1});
    ot_tensor_from_i(&sp, I64, (int64_t[]){1}, 1, (int64_t[]){-2});
    assert_int_equal(run(node(m, "Slice", 5), (oe_tensor *[]){&x, &st, &en, &ax, &sp}, 5, &y), OE_OK);
    expect_i(&y, I64, 2, (int64_t[]){2, 2}, (int64_t[]){3, 1, 7, 5});
    ot_tensor_free(&y);
    ot_tensor_free(&st);
    ot_tensor_free(&en);
    ot_tensor_from_i(&st, I64, (int64_t[]){1}, 1, (int64_t[]){1});
    ot_tensor_from_i(&en, I64, (int64_t[]){1}, 1, (int64_t[]){INT64_MAX});
    assert_int_equal(run(node(m, "Slice", 4), (oe_tensor *[]){&x, &st, &en, &ax}, 4, &y), OE_OK);
    expect_i(&y, I64, 2, (int64_t[]){2, 3}, (int64_t[]){1, 2, 3, 5, 6, 7});
    ot_tensor_free(&y);
    assert_int_equal(run(node(m, "Transpose", 1), (oe_tensor *[]){&x}, 1, &y), OE_OK);
    expect_i(&y, I64, 2, (int64_t[]){4, 2}, (int64_t[]){0, 4, 1, 5, 2, 6, 3, 7});
    ot_tensor_free(&y);
    oe_tensor a, b, c;
    ot_tensor_from_i(&a, I64, NULL, 0, (int64_t[]){10});
    ot_tensor_from_i(&b, I64, NULL, 0, (int64_t[]){1});
    ot_tensor_from_i(&c, I64, NULL, 0, (int64_t[]){-3});
    assert_int_equal(run(node(m, "Range", 3), (oe_tensor *[]){&a, &b, &c}, 3, &y), OE_OK);
    expect_i(&y, I64, 1, (int64_t[]){3}, (int64_t[]){10, 7, 4});
    ot_tensor_free(&y);
    ot_tensor_free(&a);
    ot_tensor_free(&b);
    ot_tensor_free(&c);
    ot_tensor_free(&st);
    ot_tensor_free(&en);
    ot_tensor_free(&ax);
    ot_tensor_free(&sp);
    ot_tensor_free(&x);
    ox_model_free(m);
}

static void test_constant_expand_reduce(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    oe_tensor shp, y, e;
    ot_tensor_from_i(&shp, I64, (int64_t[]){2}, 1, (int64_t[]){2, 2});
    Onnx__NodeProto *n = node(m, "ConstantOfShape", 1);
    Onnx__TensorProto *v = ox_tensor_new(m, "", I32, (int64_t[]){1}, 1);
    ox_tensor_set_int32s(m, v, (int32_t[]){7}, 1);
    ox_attr_tensor(m, n, "value", v);
    assert_int_equal(run(n, (oe_tensor *[]){&shp}, 1, &y), OE_OK);
    expect_i(&y, I32, 2, (int64_t[]){2, 2}, (int64_t[]){7, 7, 7, 7});
    ot_tensor_free(&y);
    oe_tensor col;
    ot_tensor_from_f(&col, F32, (int64_t[]){2, 1}, 2, (double[]){1, 2});
    assert_int_equal(run(node(m, "Expand", 2), (oe_tensor *[]){&col, &shp}, 2, &e), OE_OK);
    expect_f(&e, F32, 2, (int64_t[]){2, 2}, (double[]){1, 1, 2, 2});
    oe_tensor axes, r;
    ot_tensor_from_i(&axes, I64, (int64_t[]){1}, 1, (int64_t[]){0});
    Onnx__NodeProto *rs = node(m, "ReduceSum", 2);
    ox_attr_int(m, rs, "keepdims", 0);
    assert_int_equal(run(rs, (oe_tensor *[]){&e, &axes}, 2, &r), OE_OK);
    expect_f(&r, F32, 1, (int64_t[]){2}, (double[]){3, 3});
    ot_tensor_free(&r);
    assert_int_equal(run(node(m, "ReduceMean", 1), (oe_tensor *[]){&e}, 1, &r), OE_OK);
    expect_f(&r, F32, 2, (int64_t[]){1, 1}, (double[]){1.5});
    ot_tensor_free(&r);
    assert_int_equal(run(node(m, "ReduceMax", 2), (oe_tensor *[]){&e, &axes}, 2, &r), OE_OK);
    expect_f(&r, F32, 2, (int64_t[]){1, 2}, (double[]){2, 2});
    ot_tensor_free(&r);
    assert_int_equal(run(node(m, "ReduceMin", 2), (oe_tensor *[]){&e, &axes}, 2, &r), OE_OK);
    expect_f(&r, F32, 2, (int64_t[]){1, 2}, (double[]){1, 1});
    ot_tensor_free(&r);
    /* Constant value_ints */
    Onnx__NodeProto *cn = ox_node_new(m, "Constant", "", "c");
    ox_node_add_output(m, cn, "k");
    ox_attr_ints(m, cn, "value_ints", (int64_t[]){4, 5}, 2);
    assert_int_equal(oe_eval_node(cn, 20, NULL, 0, &r, 1, NULL), OE_OK);
    expect_i(&r, I64, 1, (int64_t[]){2}, (int64_t[]){4, 5});
    ot_tensor_free(&r);
    ot_tensor_free(&axes);
    ot_tensor_free(&e);
    ot_tensor_free(&col);
    ot_tensor_free(&shp);
    ox_model_free(m);
}

static void test_trilu(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    oe_tensor a, k, y;
    ot_tensor_from_i(&a, I64, (int64_t[]){3, 3}, 2, (int64_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
    Onnx__NodeProto *n = node(m, "Trilu", 1);
    ox_attr_int(m, n, "upper", 0);
    assert_int_equal(run(n, (oe_tensor *[]){&a}, 1, &y), OE_OK);
    expect_i(&y, I64, 2, (int64_t[]){3, 3}, (int64_t[]){1, 0, 0, 4, 5, 0, 7, 8, 9});
    ot_tensor_free(&y);
    ot_tensor_from_i(&k, I64, NULL, 0, (int64_t[]){1});
    assert_int_equal(run(node(m, "Trilu", 2), (oe_tensor *[]){&a, &k}, 2, &y), OE_OK);
    expect_i(&y, I64, 2, (int64_t[]){3, 3}, (int64_t[]){0, 2, 3, 0, 0, 6, 0, 0, 0});
    ot_tensor_free(&y);
    ot_tensor_free(&k);
    ot_tensor_free(&a);
    ox_model_free(m);
}

static void test_proto_roundtrip(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    Onnx__TensorProto *p = ox_tensor_new(m, "w", F32, (int64_t[]){2}, 1);
    ox_tensor_set_floats(m, p, (float[]){1.5f, -2}, 2);
    oe_tensor t, u;
    assert_int_equal(ot_from_proto(p, 0, &t), OE_OK);
    expect_f(&t, F32, 1, (int64_t[]){2}, (double[]){1.5, -2});
    Onnx__TensorProto *q = ot_to_proto(m, &t, "w2");
    assert_true(q->has_raw_data);
    assert_int_equal(q->raw_data.len, 8);
    assert_int_equal(ot_from_proto(q, 0, &u), OE_OK);
    assert_true(ot_tensor_equal(&t, &u));
    ot_tensor_free(&u);
    /* data that does not match the shape is an error; limits say unsupported */
    Onnx__TensorProto *bad = ox_tensor_new(m, "b", F32, (int64_t[]){3}, 1);
    ox_tensor_set_floats(m, bad, (float[]){1}, 1);
    assert_int_equal(ot_from_proto(bad, 0, &u), OE_ERROR);
    assert_int_equal(ot_from_proto(p, 1, &u), OE_UNSUPPORTED);
    Onnx__TensorProto *neg = ox_tensor_new(m, "n", F32, (int64_t[]){-1}, 1);
    assert_int_equal(ot_from_proto(neg, 0, &u), OE_ERROR);
    ot_tensor_free(&t);
    ox_model_free(m);
}

/* MatMul over more rows than the GEMM's four-row block (the block and the remainder rows), and
 * IEEE products: 0 * inf is NaN, as in numpy, not skipped as a zero. */
static void test_matmul_rows_and_nan(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    oe_tensor a, b, y;
    ot_tensor_from_f(&a, F32, (int64_t[]){5, 3}, 2, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
    ot_tensor_from_f(&b, F32, (int64_t[]){3, 2}, 2, (double[]){1, 0, 0, 1, 1, 1});
    assert_int_equal(run(node(m, "MatMul", 2), (oe_tensor *[]){&a, &b}, 2, &y), OE_OK);
    expect_f(&y, F32, 2, (int64_t[]){5, 2}, (double[]){4, 5, 10, 11, 16, 17, 22, 23, 28, 29});
    ot_tensor_free(&y);
    ot_tensor_free(&a);
    ot_tensor_free(&b);
    ot_tensor_from_f(&a, F32, (int64_t[]){1, 2}, 2, (double[]){0, 1});
    ot_tensor_from_f(&b, F32, (int64_t[]){2, 1}, 2, (double[]){INFINITY, 1});
    assert_int_equal(run(node(m, "MatMul", 2), (oe_tensor *[]){&a, &b}, 2, &y), OE_OK);
    assert_true(isnan(ot_get_f(&y, 0)));
    ot_tensor_free(&y);
    ot_tensor_free(&a);
    ot_tensor_free(&b);
    ox_model_free(m);
}

/* Every kernel of the family tables hangs on an operator record (a kernel whose name has no
 * record would never be found), and the record's lookup finds it. */
/* The random generators: their distributions (moments within several standard errors of 20000
 * draws), a seed attribute's reproducibility, exact results where the probability is 0 or 1. */
static double mean_of(const oe_tensor *t, double *sd)
{
    double s = 0, q = 0;
    for (int64_t i = 0; i < t->numel; i++) s += ot_get_f(t, i);
    double m = s / (double)t->numel;
    for (int64_t i = 0; i < t->numel; i++) q += (ot_get_f(t, i) - m) * (ot_get_f(t, i) - m);
    if (sd) *sd = sqrt(q / (double)t->numel);
    return m;
}

static void test_random(void **state)
{
    (void)state;
    enum { N = 20000 };
    ox_model *m = ox_model_new(10);
    static double zeros[N], probs[N];
    for (int i = 0; i < N; i++) probs[i] = i % 2 ? 1.0 : 0.0;
    oe_tensor z, y, y2, p;
    ot_tensor_from_f(&z, F32, (int64_t[]){N}, 1, zeros);
    oe_tensor *in[] = {&z};
    /* uniform in [low, high): mean (low + high) / 2 */
    Onnx__NodeProto *u = node(m, "RandomUniformLike", 1);
    ox_attr_float(m, u, "low", -2);
    ox_attr_float(m, u, "high", 3);
    assert_int_equal(run(u, in, 1, &y), OE_OK);
    assert_int_equal(y.dtype, F32);
    for (int64_t i = 0; i < y.numel; i++) assert_true(ot_get_f(&y, i) >= -2 && ot_get_f(&y, i) < 3);
    assert_float_equal(mean_of(&y, NULL), 0.5, 0.05);
    /* without a seed two runs differ; with one they are the same */
    assert_int_equal(run(u, in, 1, &y2), OE_OK);
    assert_true(memcmp(y.data, y2.data, (size_t)N * 4) != 0);
    ot_tensor_free(&y);
    ot_tensor_free(&y2);
    ox_attr_float(m, u, "seed", 7);
    assert_int_equal(run(u, in, 1, &y), OE_OK);
    assert_int_equal(run(u, in, 1, &y2), OE_OK);
    assert_memory_equal(y.data, y2.data, (size_t)N * 4);
    ot_tensor_free(&y);
    ot_tensor_free(&y2);
    /* normal: mean and scale, in the dtype asked for */
    Onnx__NodeProto *nn = ox_node_new(m, "RandomNormal", "", "n");
    ox_node_add_output(m, nn, "y");
    ox_attr_ints(m, nn, "shape", (int64_t[]){N / 100, 100}, 2);
    ox_attr_float(m, nn, "mean", 1);
    ox_attr_float(m, nn, "scale", 2);
    ox_attr_int(m, nn, "dtype", F64);
    assert_int_equal(run(nn, NULL, 0, &y), OE_OK);
    assert_int_equal(y.dtype, F64);
    assert_int_equal(y.rank, 2);
    double sd;
    assert_float_equal(mean_of(&y, &sd), 1.0, 0.1);
    assert_float_equal(sd, 2.0, 0.1);
    ot_tensor_free(&y);
    /* bernoulli: exactly 0 and 1 where the probability is; 0.3 on average; int64 when asked */
    ot_tensor_from_f(&p, F32, (int64_t[]){N}, 1, probs);
    Onnx__NodeProto *b = node(m, "Bernoulli", 1);
    ox_attr_int(m, b, "dtype", I64);
    assert_int_equal(run(b, (oe_tensor *[]){&p}, 1, &y), OE_OK);
    assert_int_equal(y.dtype, I64);
    for (int64_t i = 0; i < N; i++) assert_int_equal(ot_get_i(&y, i), i % 2);
    ot_tensor_free(&y);
    ot_tensor_free(&p);
    for (int i = 0; i < N; i++) probs[i] = 0.3;
    ot_tensor_from_f(&p, F32, (int64_t[]){N}, 1, probs);
    assert_int_equal(run(node(m, "Bernoulli", 1), (oe_tensor *[]){&p}, 1, &y), OE_OK);
    assert_float_equal(mean_of(&y, NULL), 0.3, 0.03);
    ot_tensor_free(&y);
    ot_tensor_free(&p);
    ot_tensor_from_f(&p, F32, (int64_t[]){1}, 1, (double[]){1.5});
    assert_int_equal(run(node(m, "Bernoulli", 1), (oe_tensor *[]){&p}, 1, &y), OE_ERROR);
    ot_tensor_free(&p);
    /* multinomial: never a class of probability 0 (log -inf); 3 to 1 odds */
    ot_tensor_from_f(&p, F32, (int64_t[]){2, 3}, 2, (double[]){-INFINITY, 0, -INFINITY, log(3.0), -INFINITY, 0});
    Onnx__NodeProto *mn = node(m, "Multinomial", 1);
    ox_attr_int(m, mn, "sample_size", 4000);
    ox_attr_int(m, mn, "dtype", I64);
    assert_int_equal(run(mn, (oe_tensor *[]){&p}, 1, &y), OE_OK);
    assert_int_equal(y.dims[0], 2);
    assert_int_equal(y.dims[1], 4000);
    int64_t zeros_drawn = 0;
    for (int64_t i = 0; i < 4000; i++) {
        assert_int_equal(ot_get_i(&y, i), 1);
        int64_t v = ot_get_i(&y, 4000 + i);
        assert_true(v == 0 || v == 2);
        zeros_drawn += v == 0;
    }
    assert_float_equal((double)zeros_drawn / 4000, 0.75, 0.04);
    ot_tensor_free(&y);
    ot_tensor_free(&p);
    ot_tensor_free(&z);
    ox_model_free(m);
}

static void each_kernel(const char *name, void *ctx)
{
    size_t *n = ctx;
    const char *dot = strrchr(name, '.');
    char domain[64] = "";
    if (dot) {
        assert_true((size_t)(dot - name) < sizeof domain);
        memcpy(domain, name, (size_t)(dot - name));
        domain[dot - name] = 0;
    }
    const ox_op *op = ox_op_find(domain, dot ? dot + 1 : name);
    if (!op) fail_msg("kernel %s has no operator record", name);
    assert_true(oe_op_evaluable(domain, op->name));
    (*n)++;
}

static void test_kernels_have_records(void **state)
{
    (void)state;
    size_t n = 0;
    oe_each_op(each_kernel, &n);
    assert_true(n > 150);
    assert_true(oe_op_evaluable("", "Add"));
    assert_true(oe_op_evaluable("ai.onnx", "Add"));
    assert_false(oe_op_evaluable("", "Adam"));
    assert_false(oe_op_evaluable("com.example", "Add"));
    assert_false(oe_op_evaluable("", "NoSuchOp"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_broadcast),
        cmocka_unit_test(test_int_div_pow_cmp),
        cmocka_unit_test(test_unary),
        cmocka_unit_test(test_cast_where),
        cmocka_unit_test(test_shape_ops),
        cmocka_unit_test(test_slice_range_transpose),
        cmocka_unit_test(test_constant_expand_reduce),
        cmocka_unit_test(test_trilu),
        cmocka_unit_test(test_proto_roundtrip),
        cmocka_unit_test(test_matmul_rows_and_nan),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_kernels_have_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
