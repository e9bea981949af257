/* test_onnx_compare.c — unit tests of view/onnx_compare.h: tolerances, summaries, and the
 * node-by-node comparison of two models (names matched within their scope, temporaries not). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "view/onnx_compare.h"
#include "onnx/onnx_parse.h"

enum { F32 = 1 };

static void test_diff(void **state)
{
    (void)state;
    oe_tensor a, b, c;
    ot_tensor_from_f(&a, F32, (int64_t[]){2, 2}, 2, (double[]){1, 2, NAN, 4});
    ot_tensor_from_f(&b, F32, (int64_t[]){2, 2}, 2, (double[]){1, 2.001, NAN, 3});
    ot_tensor_from_f(&c, F32, (int64_t[]){4}, 1, (double[]){1, 2, 3, 4});
    oe_diff df = {0};
    view_diff_values(&a, &a, 1e-4, 1e-3, &df);
    assert_true(view_diff_ok(&df));                 /* NaN equals NaN */
    memset(&df, 0, sizeof df);
    view_diff_values(&a, &b, 1e-4, 1e-3, &df);      /* 2 vs 2.001 within rtol; 4 vs 3 not */
    assert_false(view_diff_ok(&df));
    assert_int_equal(df.bad, 1);
    assert_int_equal(df.worst, 3);
    assert_float_equal(df.max_abs, 1, 1e-6);
    memset(&df, 0, sizeof df);
    view_diff_values(&a, &c, 1e-4, 1e-3, &df);
    assert_string_equal(df.problem, "shape");
    strbuf sb;
    sb_init(&sb);
    view_value_summary(&b, &sb);
    assert_string_equal(sb.s, "float32[2, 2] min 1 max 3 mean 2.00033, 1 NaN");
    sb_reset(&sb);
    view_index_text(&a, 3, &sb);
    assert_string_equal(sb.s, "[1, 1]");
    sb_free(&sb);
    ot_tensor_free(&a);
    ot_tensor_free(&b);
    ot_tensor_free(&c);
}

static ox_model *parse(const char *text)
{
    ox_model *m = ox_parse_model(text, strlen(text), "test", NULL);
    assert_non_null(m);
    return m;
}

/* Runs compare on x = [[-1, 2], [3, -4]]; returns OE_OK or OE_ERROR. */
static int compare(const ox_model *a, const ox_model *b, oe_compare_result *r)
{
    oe_tensor x;
    ot_tensor_from_f(&x, F32, (int64_t[]){2, 2}, 2, (double[]){-1, 2, 3, -4});
    oe_named in = {"x", &x};
    oe_compare_opts o = {.atol = 1e-4, .rtol = 1e-3};
    int rc = view_compare_models(a, "a", &in, 1, b, "b", &in, 1, &o, r, NULL);
    ot_tensor_free(&x);
    return rc;
}

#define HEADER "<ir_version: 10, opset_import: [\"\" : 20]>\n"

static void test_first_divergence(void **state)
{
    (void)state;
    /* b is the reference; a's relu became an Abs (same name), so relu and everything after it
     * differ: the first is relu. val_0 is a temporary in both, never matched. */
    ox_model *b = parse(HEADER "g (float[2,2] x) => (float[2,2] out) {\n"
                               "  neg = Neg (x)\n  relu = Relu (neg)\n  val_0 = Constant <value = float {2}> ()\n"
                               "  out = Mul (relu, val_0)\n}");
    ox_model *a = parse(HEADER "g (float[2,2] x) => (float[2,2] out) {\n"
                               "  neg = Neg (x)\n  relu = Abs (neg)\n  val_0 = Constant <value = float {3}> ()\n"
                               "  out = Mul (relu, val_0)\n}");
    oe_compare_result r;
    assert_int_equal(compare(a, b, &r), OE_OK);
    assert_int_equal(r.n_matched, 3);             /* neg, relu, out */
    assert_int_equal(r.n_checked, 3);
    assert_true(r.diverged);
    assert_string_equal(r.name, "relu");
    assert_string_equal(r.node_a->op_type, "Abs");
    assert_string_equal(r.node_b->op_type, "Relu");
    assert_int_equal(r.n_diverged, 2);
    assert_int_equal(r.diff.bad, 2);              /* |-2| vs 0 and |-3| vs 0 */
    assert_float_equal(ot_get_f(&r.value_a, 0), 1, 1e-6);
    view_compare_result_free(&r);
    /* a model against itself: nothing differs */
    assert_int_equal(compare(b, b, &r), OE_OK);
    assert_false(r.diverged);
    assert_int_equal(r.n_checked, 3);
    view_compare_result_free(&r);
    ox_model_free(a);
    ox_model_free(b);
}

static void test_scopes(void **state)
{
    (void)state;
    /* `t` is a branch value in a and a main-graph value in b: not the same value, not matched */
    ox_model *a = parse(HEADER "g (float[2,2] x) => (float[2,2] y) {\n"
                               "  c = Constant <value = bool {1}> ()\n"
                               "  y = If (c) <then_branch = g1 () => (float[2,2] t) { t = Neg (x) },"
                               " else_branch = g2 () => (float[2,2] e) { e = Abs (x) }>\n}");
    ox_model *b = parse(HEADER "g (float[2,2] x) => (float[2,2] y) {\n"
                               "  t = Abs (x)\n  y = Neg (x)\n}");
    oe_compare_result r;
    assert_int_equal(compare(a, b, &r), OE_OK);
    assert_int_equal(r.n_matched, 1);             /* y only (c is a only, t is scoped apart) */
    assert_false(r.diverged);
    assert_int_equal(r.n_only_a, 3);              /* c, and the branches' t and e */
    assert_int_equal(r.n_only_b, 1);              /* b's t */
    view_compare_result_free(&r);
    ox_model_free(a);
    ox_model_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diff),
        cmocka_unit_test(test_first_divergence),
        cmocka_unit_test(test_scopes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
