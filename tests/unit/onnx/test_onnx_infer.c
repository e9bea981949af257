/* test_onnx_infer.c — ONNX type and shape inference (onnx/onnx_infer.h) against onnx's own:
 * each model of tests/fixtures/infer/models.txt is typed by oi_type_graph_values and printed, and
 * must print as expected.txt, which is onnx.shape_inference.infer_shapes's result for it (made
 * with onnx 1.20 by scripts/dev/infer_goldens.py). onnx names the dimensions it cannot tell
 * unk__N; fxsh leaves them unknown ("?", as torch.onnx's builder does), so those compare as "?".
 * Also: a contradiction between a declared and an inferred shape is a checker error naming the
 * node, and a node whose inputs contradict its operator is one too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_paths.h"
#include "base/strbuf.h"
#include "onnx/onnx_check.h"
#include "onnx/onnx_infer.h"
#include "onnx/onnx_parse.h"
#include "onnx/onnx_print.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

/* The text after "=== name\n" up to the next "=== " (or the end), in a malloc'd copy. */
static char *block(const char *all, const char *name)
{
    char head[128];
    snprintf(head, sizeof head, "=== %s\n", name);
    const char *p = strstr(all, head);
    assert_non_null(p);
    p += strlen(head);
    const char *e = strstr(p, "\n=== ");
    size_t n = e ? (size_t)(e - p) + 1 : strlen(p);
    char *s = malloc(n + 1);
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

/* unk__N → ?, and trailing blank lines dropped */
static void normalize(char *s)
{
    char *w = s;
    for (const char *r = s; *r;) {
        if (!strncmp(r, "unk__", 5)) {
            *w++ = '?';
            r += 5;
            while (*r >= '0' && *r <= '9') r++;
        } else {
            *w++ = *r++;
        }
    }
    while (w > s && (w[-1] == '\n' || w[-1] == ' ')) w--;
    *w = 0;
}

static void check_model(const char *name)
{
    char *models = slurp(TEST_FIXTURES "/infer" "/models.txt"), *expected = slurp(TEST_FIXTURES "/infer" "/expected.txt");
    char *text = block(models, name), *want = block(expected, name);
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_parse_model(text, strlen(text), name, &d);
    assert_non_null(m);
    oi_type_graph_values(m, m->proto->graph, ox_model_opset(m, ""));
    strbuf sb = {0};
    ox_print_graph(m->proto->graph, &sb, NULL);
    char *got = strdup(sb.s);
    normalize(got);
    normalize(want);
    if (strcmp(got, want)) fprintf(stderr, "%s: got\n%s\nexpected\n%s\n", name, got, want);
    assert_string_equal(got, want);
    /* what inference wrote, the checker's inference agrees with */
    assert_int_equal(ox_check(m, &d), 0);
    free(got);
    sb_free(&sb);
    ox_model_free(m);
    diag_free(&d);
    free(text);
    free(want);
    free(models);
    free(expected);
}

static void test_broadcast(void **s) { (void)s; check_model("broadcast"); }
static void test_reshape(void **s) { (void)s; check_model("reshape"); }
static void test_squeeze(void **s) { (void)s; check_model("squeeze"); }
static void test_shape_ops(void **s) { (void)s; check_model("shape_ops"); }
static void test_concat_split(void **s) { (void)s; check_model("concat_split"); }
static void test_slice(void **s) { (void)s; check_model("slice"); }
static void test_matmul(void **s) { (void)s; check_model("matmul"); }
static void test_reduce(void **s) { (void)s; check_model("reduce"); }
static void test_misc(void **s) { (void)s; check_model("misc"); }
static void test_conv_pool(void **s) { (void)s; check_model("conv_pool"); }
static void test_pool_opset22(void **s) { (void)s; check_model("pool_opset22"); }
static void test_stft(void **s) { (void)s; check_model("stft"); }
static void test_gather_nd(void **s) { (void)s; check_model("gather_nd"); }
static void test_det(void **s) { (void)s; check_model("det"); }

/* ReverseSequence: the input's type, whatever its element type, and shape once both shapes are
 * known; a rank-1 input or a sequence_lens not of rank 1 contradicts the operator. */
static void test_reverse_sequence(void **s)
{
    (void)s;
    const char *text = "<ir_version: 10, opset_import: [\"\" : 20]>\n"
                       "g (float[3,2] a, int64[2] l) => (float[3,2] y) {\n"
                       "  y = ReverseSequence <batch_axis = 1, time_axis = 0> (a, l)\n}\n";
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_parse_model(text, strlen(text), "t", &d);
    assert_non_null(m);
    const Onnx__NodeProto *n = m->proto->graph->node[0];
    static const int elems[] = {ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, ONNX__TENSOR_PROTO__DATA_TYPE__STRING,
                                ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16,
                                ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128, ONNX__TENSOR_PROTO__DATA_TYPE__UINT8};
    for (size_t e = 0; e < sizeof elems / sizeof *elems; e++) {
        oi_type in[2] = {{.elem = elems[e], .rank = 3, .d = {{3, NULL}, {-1, "N"}, {5, NULL}}},
                         {.elem = ONNX__TENSOR_PROTO__DATA_TYPE__INT64, .rank = 1, .d = {{-1, "N"}}}};
        oi_type out;
        assert_int_equal(oi_infer_node(n, 20, in, 2, &out, 1, NULL, 0), 0);
        assert_int_equal(out.elem, elems[e]);
        assert_int_equal(out.rank, 3);
        assert_int_equal(out.d[0].v, 3);
        assert_string_equal(out.d[1].sym, "N");
        assert_int_equal(out.d[2].v, 5);
        /* sequence_lens of unknown shape: the type only */
        in[1].rank = -1;
        assert_int_equal(oi_infer_node(n, 20, in, 2, &out, 1, NULL, 0), 0);
        assert_int_equal(out.elem, elems[e]);
        assert_int_equal(out.rank, -1);
    }
    char why[128];
    oi_type bad[2] = {{.elem = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, .rank = 1, .d = {{4, NULL}}},
                      {.elem = ONNX__TENSOR_PROTO__DATA_TYPE__INT64, .rank = 1, .d = {{4, NULL}}}};
    oi_type out;
    assert_int_equal(oi_infer_node(n, 20, bad, 2, &out, 1, why, sizeof why), -1);
    assert_string_equal(why, "'input' must have rank >= 2");
    bad[0].rank = 2;
    bad[0].d[1] = (oi_dim){2, NULL};
    bad[1].rank = 2;
    bad[1].d[1] = (oi_dim){1, NULL};
    assert_int_equal(oi_infer_node(n, 20, bad, 2, &out, 1, why, sizeof why), -1);
    assert_string_equal(why, "'sequence_lens' must have rank of 1");
    ox_model_free(m);
    diag_free(&d);
}

/* Errors: a declared shape inference contradicts, and inputs that contradict the operator. */
static void expect_check_error(const char *text, const char *needle)
{
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_parse_model(text, strlen(text), "t", &d);
    assert_non_null(m);
    assert_true(ox_check(m, &d) > 0);
    bool found = false;
    for (size_t i = 0; i < d.len; i++) found |= strstr(d.items[i].message, needle) != NULL;
    if (!found)
        for (size_t i = 0; i < d.len; i++) fprintf(stderr, "message: %s\n", d.items[i].message);
    assert_true(found);
    ox_model_free(m);
    diag_free(&d);
}

static void test_check_errors(void **s)
{
    (void)s;
    expect_check_error("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                       "g (float[2,3] a, float[3,4] b) => (float[2,5] y) {\n  y = MatMul (a, b)\n}\n",
                       "g: node 0 (MatMul): [ShapeInferenceError] output 'y' is inferred [2,4], but the model declares [2,5]: dimension 1 differs");
    expect_check_error("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                       "g (float[2,3] a, float[4] b) => (float[2,3] y) {\n  y = Add (a, b)\n}\n",
                       "[ShapeInferenceError] incompatible dimensions 3 and 4");
    expect_check_error("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                       "g (float[2,3,4] a) => (float[2,3] y) {\n  y = Transpose (a)\n}\n",
                       "output 'y' is inferred of rank 3 [4,3,2], but the model declares rank 2 [2,3]");
    /* the backward slice of an empty dimension: onnx infers 1 there (its clamping order), and
     * its checker rejects a declared 0, as torch.onnx writes for flip; so does fxsh's */
    expect_check_error("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                       "g (float[5,0] a) => (float[5,0] y) {\n"
                       "  s = Constant <value_ints = [-1]> ()\n  e = Constant <value_ints = [-9223372036854775807]> ()\n"
                       "  ax = Constant <value_ints = [1]> ()\n  y = Slice (a, s, e, ax, s)\n}\n",
                       "is inferred [5,1], but the model declares [5,0]: dimension 1 differs");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broadcast), cmocka_unit_test(test_reshape),   cmocka_unit_test(test_squeeze),
        cmocka_unit_test(test_shape_ops), cmocka_unit_test(test_concat_split), cmocka_unit_test(test_slice),
        cmocka_unit_test(test_matmul),    cmocka_unit_test(test_reduce),    cmocka_unit_test(test_misc), cmocka_unit_test(test_conv_pool), cmocka_unit_test(test_pool_opset22),
        cmocka_unit_test(test_stft), cmocka_unit_test(test_gather_nd),
        cmocka_unit_test(test_det),
        cmocka_unit_test(test_reverse_sequence),
        cmocka_unit_test(test_check_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
