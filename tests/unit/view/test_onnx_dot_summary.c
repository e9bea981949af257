/* test_onnx_dot_summary.c — DOT structure/quoting and the model summary's counts and lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "view/onnx_dot.h"
#include "onnx/onnx_parse.h"
#include "view/onnx_summary.h"

static const char *MODEL =
    "<ir_version: 8, opset_import: [\"\" : 18, \"loc\" : 1], producer_name: \"pytorch\",\n"
    " producer_version: \"2.14\">\n"
    "main_graph (float[N,3] x, bool c) => (float[N,3] y)\n"
    "<float[3] w = {1, 2, 3}, int64[2] s = {1, 2}, float[N,3] a>\n"
    "{\n"
    "  [\"conv \\\"1\\\"\"] a = Mul (x, w)\n"
    "  b = Relu (a)\n"
    "  d = Relu (b)\n"
    "  y = If (c) <then_branch: graph = then_body () => (float[N,3] t) { t = Identity (d) },\n"
    "              else_branch: graph = else_body () => (float[N,3] e) { e = loc.f (a) }>\n"
    "}\n"
    "<domain: \"loc\", opset_import: [\"\" : 18]> f (p) => (q) { q = Neg (p)\n r = Abs (p) }";

static ox_model *load(void)
{
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_parse_model(MODEL, strlen(MODEL), NULL, &d);
    assert_non_null(m);
    diag_free(&d);
    return m;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_summary(void **state)
{
    (void)state;
    ox_model *m = load();
    strbuf sb;
    sb_init(&sb);
    view_summary(m, &sb);
    const char *s = sb.s;
    assert_non_null(strstr(s, "ir_version: 8\n"));
    assert_non_null(strstr(s, "producer: pytorch 2.14\n"));
    assert_non_null(strstr(s, "opsets: ai.onnx:18 loc:1\n"));
    assert_non_null(strstr(s, "graph: main_graph\n"));
    assert_non_null(strstr(s, "inputs: 2\n  input x: float[N,3]\n  input c: bool\n"));
    assert_non_null(strstr(s, "outputs: 1\n  output y: float[N,3]\n"));
    assert_non_null(strstr(s, "nodes: 4\n"));
    assert_non_null(strstr(s, "nodes_with_subgraphs: 6\n"));
    assert_non_null(strstr(s, "subgraphs: 2\n"));
    /* histogram: count descending, then name */
    assert_non_null(strstr(s, "ops: 5 distinct\n  op Relu: 2\n  op Identity: 1\n  op If: 1\n"
                              "  op Mul: 1\n  op loc.f: 1\n"));
    assert_non_null(strstr(s, "initializers: 2\n"));
    assert_non_null(strstr(s, "initializer_bytes: 28 (28 B)\n"));
    assert_non_null(strstr(s, "functions: 1\n  function loc.f: 2 nodes\n"));
    sb_free(&sb);
    ox_model_free(m);
}

static void test_dot(void **state)
{
    (void)state;
    ox_model *m = load();
    strbuf sb;
    sb_init(&sb);
    view_dot(m, &sb);
    const char *s = sb.s;
    assert_true(strncmp(s, "digraph \"main_graph\" {\n", 23) == 0);
    assert_true(sb.len > 2 && strcmp(s + sb.len - 2, "}\n") == 0);
    /* braces balance outside quoted strings */
    int depth = 0;
    bool inq = false;
    for (const char *p = s; *p; p++) {
        if (inq) {
            if (*p == '\\')
                p++;
            else if (*p == '"')
                inq = false;
        } else if (*p == '"') {
            inq = true;
        } else if (*p == '{') {
            depth++;
        } else if (*p == '}') {
            assert_true(--depth >= 0);
        }
    }
    assert_false(inq);
    assert_int_equal(depth, 0);
    /* node label: name, op type; the embedded quotes are escaped */
    assert_non_null(strstr(s, "label=\"conv \\\"1\\\"\\nMul\""));
    /* distinct shapes for inputs, outputs and initializers */
    assert_int_equal(count(s, "fillcolor=\"#c8e6c9\""), 2);
    assert_int_equal(count(s, "fillcolor=\"#bbdefb\""), 3);   /* y, t, e */
    assert_int_equal(count(s, "shape=note"), 2);
    assert_int_equal(count(s, "shape=box"), 6);
    assert_int_equal(count(s, "subgraph \"cluster_"), 2);
    assert_non_null(strstr(s, "label=\"If then_branch: then_body\""));
    /* edges carry the tensor name and its type when known */
    assert_non_null(strstr(s, "\"g0_in0\" -> \"g0_n0\" [label=\"x\\nfloat[N,3]\"]"));
    assert_non_null(strstr(s, "\"g0_init0\" -> \"g0_n0\" [label=\"w\"]"));
    /* an outer-scope use inside a branch draws an edge from the outer producer */
    assert_non_null(strstr(s, "\"g0_n2\" -> \"g1_n0\" [label=\"d\"]"));
    assert_non_null(strstr(s, "\"g0_n3\" -> \"g0_out0\""));
    /* ... written outside every cluster (finding 10: Graphviz drew the outer node inside the
     * branch's box): a cluster's block names only its own graph's nodes */
    for (const char *c = strstr(s, "subgraph \"cluster_"); c; c = strstr(c + 1, "subgraph \"cluster_")) {
        const char *end = strstr(c, "\n  }\n");
        assert_non_null(end);
        const char *outer = strstr(c, "\"g0_");
        assert_true(!outer || outer > end);
    }
    /* each branch has an edge into its If node, from its output across the cluster's border */
    assert_non_null(strstr(s, "compound=true;"));
    assert_non_null(strstr(s, "\"g1_out0\" -> \"g0_n3\" [ltail=\"cluster_g0_n3_then_branch\", style=dashed, label=\"then_branch\"]"));
    assert_non_null(strstr(s, "\"g2_out0\" -> \"g0_n3\" [ltail=\"cluster_g0_n3_else_branch\", style=dashed, label=\"else_branch\"]"));
    sb_free(&sb);
    ox_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_dot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
