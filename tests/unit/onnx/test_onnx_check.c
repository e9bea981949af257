/* test_onnx_check.c — the ONNX checker accepts valid models and names each kind of breakage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "onnx/onnx_check.h"
#include "onnx/onnx_parse.h"

#define HDR "<ir_version: 8, opset_import: [\"\" : 18]>\n"

/* Parses text (which must parse), checks it, and returns the problem count; when want is
 * non-NULL some diagnostic must contain it. */
static int check_text(const char *text, const char *want)
{
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_parse_model(text, strlen(text), "c.txt", &d);
    if (!m)
        diag_render_all(&d, stderr, NULL, false);
    assert_non_null(m);
    int n = ox_check(m, &d);
    assert_int_equal((size_t)n, d.errors);
    if (want) {
        bool found = false;
        for (size_t i = 0; i < d.len; i++)
            found |= strstr(d.items[i].message, want) != NULL;
        if (!found)
            diag_render_all(&d, stderr, NULL, false);
        assert_true(found);
    }
    ox_model_free(m);
    diag_free(&d);
    return n;
}

static void test_valid(void **state)
{
    (void)state;
    assert_int_equal(check_text(HDR "g (float[N] x) => (float[N] y) <float[1] w = {2}> {\n"
                                    "  a = Mul (x, w)\n  y = Relu (a)\n}", NULL), 0);
    /* outer-scope names are visible in subgraphs; empty optional inputs are fine */
    assert_int_equal(check_text(HDR "g (bool c, float x) => (float y) {\n"
                                    "  y = If (c) <then_branch: graph = t () => (float o) { o = Identity (x) },\n"
                                    "              else_branch: graph = e () => (float o2) { o2 = Clip (x, , ) }>\n}",
                                NULL), 0);
    /* a call into a model-local function */
    assert_int_equal(check_text("<ir_version: 8, opset_import: [\"\" : 18, \"loc\" : 1]>\n"
                                "g (float x) => (float y) { y = loc.f (x) }\n"
                                "<domain: \"loc\", opset_import: [\"\" : 18]> f (a) => (b) { b = Neg (a) }",
                                NULL), 0);
}

static void test_undefined_and_order(void **state)
{
    (void)state;
    assert_int_equal(check_text(HDR "g (float x) => (float y) {\n  y = Add (x, nope)\n}",
                                "node 0 (Add): input 'nope' is not defined"), 1);
    assert_int_equal(check_text(HDR "g (float x) => (float y) {\n  [late] y = Relu (a)\n  a = Neg (x)\n}",
                                "node 0 (\"late\", Relu): input 'a' is used before it is produced"), 1);
    assert_int_equal(check_text(HDR "g (float x) => (float y, float z) {\n  y = Relu (x)\n}",
                                "output 'z' is never produced"), 1);
    /* a subgraph name does not leak out to the outer graph */
    assert_true(check_text(HDR "g (bool c, float x) => (float y) {\n"
                               "  y = If (c) <then_branch: graph = t () => (float o) { o = Identity (x) },\n"
                               "              else_branch: graph = e () => (float o) { o = Identity (x) }>\n"
                               "  z = Neg (o)\n}", "input 'o' is not defined") >= 1);
}

static void test_ssa(void **state)
{
    (void)state;
    assert_int_equal(check_text(HDR "g (float x) => (float y) {\n  y = Relu (x)\n  y = Neg (x)\n}",
                                "node 1 (Neg): output 'y' is assigned more than once"), 1);
    assert_int_equal(check_text(HDR "g (float x) => (float x2) {\n  x = Relu (x)\n  x2 = Neg (x)\n}",
                                "output 'x' is assigned more than once"), 1);
    assert_int_equal(check_text(HDR "g (float x, float x) => (float x) {}", "declared more than once"), 1);
    /* two nodes of one graph with one name: ONNX Runtime refuses the model */
    assert_int_equal(check_text(HDR "g (float x) => (float z) {\n  [n] y = Relu (x)\n  [n] z = Neg (y)\n}",
                                "node 1 (\"n\", Neg): another node of this graph has the name 'n'"), 1);
    /* the same name in a subgraph and in its graph is allowed */
    assert_int_equal(check_text(HDR "g (bool c, float x) => (float y) {\n"
                                    "  [n] y = If (c) <then_branch: graph = t () => (float o) { [n] o = Identity (x) },\n"
                                    "              else_branch: graph = e () => (float o2) { [n] o2 = Neg (x) }>\n}",
                                NULL), 0);
}

static void test_opsets_and_functions(void **state)
{
    (void)state;
    assert_int_equal(check_text(HDR "g (float x) => (float y) {\n  y = com.ms.Gelu (x)\n}",
                                "domain 'com.ms' is not in opset_import"), 1);
    assert_int_equal(check_text("<ir_version: 8, opset_import: [\"\" : 18, \"loc\" : 1]>\n"
                                "g (float x) => (float y) { y = loc.missing (x) }\n"
                                "<domain: \"loc\", opset_import: [\"\" : 18]> f (a) => (b) { b = Neg (a) }",
                                "no function 'missing' in domain 'loc'"), 1);
    assert_int_equal(check_text("<ir_version: 8, opset_import: [\"\" : 18, \"loc\" : 1]>\n"
                                "g (float x) => (float y) { y = loc.f (x) }\n"
                                "<domain: \"loc\", opset_import: []> f (a) => (b) { b = Neg (q) }",
                                "function 'f': node 0 (Neg): input 'q' is not defined"),
                     2);   /* and: the function does not import the default domain */
}

static void test_control_flow_arity(void **state)
{
    (void)state;
    assert_true(check_text(HDR "g (bool c) => (float y) {\n"
                               "  y = If (c) <then_branch: graph = t () => (float o, float p) { o = Constant <value_float = 1.0> ()\n"
                               "  p = Constant <value_float = 1.0> () }, else_branch: graph = e () => (float o) { o = Constant <value_float = 2.0> () }>\n}",
                           "If has 1 outputs but then_branch has 2") >= 1);
    assert_true(check_text(HDR "g (bool c) => (float y) {\n  y = If (c) <then_branch: graph = t () => () {}>\n}",
                           "If needs then_branch and else_branch") >= 1);
    assert_true(check_text(HDR "g (int64 m, bool c, float v) => (float r) {\n"
                               "  r = Loop (m, c, v) <body: graph = b (int64 i, bool ci) => (bool co, float vo) {\n"
                               "    co = Identity (ci)\n    vo = Identity (ci) }>\n}",
                           "Loop body has 2 inputs, expected 3") >= 1);
    assert_true(check_text(HDR "g (float s, float xs) => (float r, float ys) {\n"
                               "  r, ys = Scan (s, xs) <num_scan_inputs = 3, body: graph = b (float a, float x) => (float a2, float y) {\n"
                               "    a2 = Add (a, x)\n    y = Identity (a2) }>\n}",
                           "num_scan_inputs") >= 1);
}

static void test_types(void **state)
{
    (void)state;
    /* onnx's checker lets a negative dimension pass (its function expansions write -1): a warning */
    assert_int_equal(check_text(HDR "g (float[-3] x) => (float[-3] y) { y = Relu (x) }",
                                "dimension 0 is negative (-3)"), 0);
    assert_int_equal(check_text(HDR "g (map(float, int64) m) => (map(float, int64) o) { o = Identity (m) }",
                                "map key type float"), 2);
    /* a tensor attribute with an out-of-range dtype is built directly in the proto */
    diag_sink d;
    diag_init(&d);
    const char *t = HDR "g () => (float y) { y = Constant <value: tensor = float[1] {1}> () }";
    ox_model *m = ox_parse_model(t, strlen(t), NULL, &d);
    assert_non_null(m);
    m->proto->graph->node[0]->attribute[0]->t->data_type = 99;
    m->proto->graph->output[0]->type->tensor_type->elem_type = 0;
    assert_int_equal(ox_check(m, &d), 2);
    ox_model_free(m);
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_undefined_and_order),
        cmocka_unit_test(test_ssa),
        cmocka_unit_test(test_opsets_and_functions),
        cmocka_unit_test(test_control_flow_arity),
        cmocka_unit_test(test_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
