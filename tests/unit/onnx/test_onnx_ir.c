/* test_onnx_ir.c — ONNX IR builders, repeated-field growth, lookups, walks, dtype table. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "onnx/onnx_ir.h"
#include "onnx/onnx_pb.h"

static void test_builders(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    assert_non_null(m->proto->graph);
    assert_true(m->proto->has_ir_version);
    Onnx__NodeProto *n = ox_graph_add_node(m, m->proto->graph, "Gemm", "node_linear");
    ox_attr_float(m, n, "beta", 1.0f);
    ox_attr_int(m, n, "transB", 1);
    ox_attr_string(m, n, "mode", "constant");
    assert_int_equal(n->n_attribute, 3);
    Onnx__AttributeProto *a = ox_node_attr(n, "transB");
    assert_non_null(a);
    assert_int_equal(a->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    assert_true(a->has_i);
    assert_int_equal(a->i, 1);
    a = ox_node_attr(n, "mode");
    assert_int_equal(a->s.len, 8);
    assert_memory_equal(a->s.data, "constant", 8);
    assert_null(ox_node_attr(n, "alpha"));
    assert_false(ox_node_has_subgraph(n));
    ox_attr_graph(m, n, "body", ox_graph_new(m, "b"));
    assert_true(ox_node_has_subgraph(n));
    /* dims: numbers, params, unknown */
    const char *dims[] = {"batch", "3", "?", "-1"};
    Onnx__TypeProto *tp = ox_type_tensor(m, 1, dims, 4, true);
    Onnx__TensorShapeProto *s = tp->tensor_type->shape;
    assert_int_equal(s->n_dim, 4);
    assert_int_equal(s->dim[0]->value_case, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM);
    assert_string_equal(s->dim[0]->dim_param, "batch");
    assert_int_equal(s->dim[1]->dim_value, 3);
    assert_int_equal(s->dim[2]->value_case, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET);
    assert_int_equal(s->dim[3]->dim_value, -1);
    assert_null(ox_type_tensor(m, 1, NULL, 0, false)->tensor_type->shape);
    assert_non_null(ox_type_tensor(m, 1, NULL, 0, true)->tensor_type->shape);
    /* numel */
    int64_t d[] = {2, 3, 4};
    assert_int_equal(ox_tensor_numel(ox_tensor_new(m, "t", 1, d, 3)), 24);
    assert_int_equal(ox_tensor_numel(ox_tensor_new(m, "s", 1, NULL, 0)), 1);
    int64_t neg[] = {2, -1};
    assert_int_equal(ox_tensor_numel(ox_tensor_new(m, "n", 1, neg, 2)), -1);
    int64_t huge[] = {INT64_MAX, 2};
    assert_int_equal(ox_tensor_numel(ox_tensor_new(m, "h", 1, huge, 2)), -1);
    ox_model_free(m);
}

static void test_append_growth(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    Onnx__NodeProto *n = ox_graph_add_node(m, m->proto->graph, "Concat", NULL);
    char name[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "x%d", i);
        ox_node_add_input(m, n, name);
    }
    assert_int_equal(n->n_input, 5000);
    for (int i = 0; i < 5000; i += 997) {
        snprintf(name, sizeof name, "x%d", i);
        assert_string_equal(n->input[i], name);
    }
    /* geometric growth: total arena use stays linear (well under 5000^2 pointers) */
    assert_true(m->arena.bytes < 1000000);
    /* appending to exact-sized arrays that came from unpack */
    size_t len;
    uint8_t *bytes = ox_pack(m, &len);
    diag_sink dg;
    diag_init(&dg);
    ox_model *m2 = ox_load_bytes(bytes, len, NULL, &dg);
    assert_non_null(m2);
    Onnx__NodeProto *n2 = m2->proto->graph->node[0];
    for (int i = 0; i < 10; i++) ox_node_add_input(m2, n2, "more");
    assert_int_equal(n2->n_input, 5010);
    assert_string_equal(n2->input[4999], "x4999");
    assert_string_equal(n2->input[5009], "more");
    ox_graph_add_node(m2, m2->proto->graph, "Relu", NULL);
    assert_int_equal(m2->proto->graph->n_node, 2);
    free(bytes);
    ox_model_free(m2);
    ox_model_free(m);
    diag_free(&dg);
}

static void test_opsets(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    assert_int_equal(ox_model_opset(m, ""), -1);
    ox_model_set_opset(m, "", 18);
    ox_model_set_opset(m, "com.microsoft", 1);
    ox_model_set_opset(m, "", 20);   /* replaces */
    assert_int_equal(m->proto->n_opset_import, 2);
    assert_int_equal(ox_model_opset(m, ""), 20);
    assert_int_equal(ox_model_opset(m, "ai.onnx"), 20);
    assert_int_equal(ox_model_opset(m, NULL), 20);
    assert_int_equal(ox_model_opset(m, "com.microsoft"), 1);
    assert_int_equal(ox_model_opset(m, "pkg.onnxscript"), -1);
    ox_model_free(m);
}

static int count_graph(Onnx__GraphProto *g, int depth, void *ctx)
{
    int *c = ctx;
    c[0]++;
    if (depth > c[1]) c[1] = depth;
    return 0;
}

static int stop_at_b(Onnx__GraphProto *g, int depth, void *ctx)
{
    (void)depth;
    (void)ctx;
    return g->name && strcmp(g->name, "b") == 0 ? 7 : 0;
}

static void test_walk(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    Onnx__NodeProto *n = ox_graph_add_node(m, m->proto->graph, "If", NULL);
    Onnx__GraphProto *a = ox_graph_new(m, "a"), *b = ox_graph_new(m, "b");
    ox_attr_graph(m, n, "then_branch", a);
    ox_attr_graph(m, n, "else_branch", b);
    Onnx__NodeProto *inner = ox_graph_add_node(m, a, "Loop", NULL);
    Onnx__GraphProto *gs[] = {ox_graph_new(m, "c"), ox_graph_new(m, "d")};
    ox_attr_graphs(m, inner, "bodies", gs, 2);
    Onnx__FunctionProto *f = ox_model_add_function(m, "local", "fn");
    Onnx__NodeProto *fn = ox_function_add_node(m, f, "Scan", NULL);
    ox_attr_graph(m, fn, "body", ox_graph_new(m, "e"));
    int c[2] = {0, 0};
    assert_int_equal(ox_model_walk_graphs(m, 64, count_graph, c), 0);
    assert_int_equal(c[0], 6);   /* main, a, c, d, b, e */
    assert_int_equal(c[1], 2);
    c[0] = c[1] = 0;
    assert_int_equal(ox_graph_walk(m->proto->graph, 1, count_graph, c), -2);
    assert_int_equal(ox_graph_walk(m->proto->graph, 64, stop_at_b, NULL), 7);
    ox_model_free(m);
}

static void test_dtypes(void **state)
{
    (void)state;
    assert_string_equal(ox_dtype_name(1), "float");
    assert_string_equal(ox_dtype_name(16), "bfloat16");
    assert_string_equal(ox_dtype_name(23), "float4e2m1");
    assert_string_equal(ox_dtype_name(24), "float8e8m0");
    assert_string_equal(ox_dtype_name(25), "uint2");
    assert_string_equal(ox_dtype_name(26), "int2");
    assert_string_equal(ox_dtype_name(27), "undefined");
    assert_string_equal(ox_dtype_name(-3), "undefined");
    assert_int_equal(ox_dtype_from_name("float8e4m3fn"), 17);
    assert_int_equal(ox_dtype_from_name("INT64"), 7);
    assert_int_equal(ox_dtype_from_name("nope"), -1);
    assert_int_equal(ox_dtype_from_torch("torch.float32"), 1);
    assert_int_equal(ox_dtype_from_torch("torch.float64"), 11);
    assert_int_equal(ox_dtype_from_torch("torch.long"), 7);
    assert_int_equal(ox_dtype_from_torch("bool"), 9);
    assert_int_equal(ox_dtype_from_torch("torch.float8_e5m2"), 19);
    assert_int_equal(ox_dtype_from_torch("torch.quint8"), -1);
    assert_string_equal(ox_dtype(10)->torch, "torch.float16");
    assert_null(ox_dtype(8)->torch);
    assert_int_equal(ox_dtype_size(1), 4);
    assert_int_equal(ox_dtype_size(15), 16);
    assert_int_equal(ox_dtype_size(9), 1);
    assert_int_equal(ox_dtype_size(8), 0);
    assert_int_equal(ox_dtype(22)->bits, 4);
    assert_int_equal(ox_dtype(26)->bits, 2);
    /* every code round-trips through its printer name */
    for (int i = 0; i <= OX_DTYPE_MAX; i++) assert_int_equal(ox_dtype_from_name(ox_dtype_name(i)), i);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builders),
        cmocka_unit_test(test_append_growth),
        cmocka_unit_test(test_opsets),
        cmocka_unit_test(test_walk),
        cmocka_unit_test(test_dtypes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
