/* test_optimize_passes.c — unit tests of each optimizer pass on small models written as ONNX text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval/onnx_eval.h"
#include "onnx/onnx_parse.h"
#include "onnx/onnx_pb.h"
#include "optimize/optimize.h"

static ox_model *parse(const char *text)
{
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_parse_model(text, strlen(text), "test.onnxtext", &d);
    if (!m) diag_render_all(&d, stderr, NULL, false);
    diag_free(&d);
    assert_non_null(m);
    return m;
}

static Onnx__NodeProto *find_node(Onnx__GraphProto *g, const char *op)
{
    for (size_t i = 0; i < g->n_node; i++)
        if (!strcmp(g->node[i]->op_type, op)) return g->node[i];
    return NULL;
}

static size_t count_op(Onnx__GraphProto *g, const char *op)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n_node; i++) {
        if (!op || !strcmp(g->node[i]->op_type, op)) n++;
        for (size_t j = 0; j < g->node[i]->n_attribute; j++)
            if (g->node[i]->attribute[j]->g) n += count_op(g->node[i]->attribute[j]->g, op);
    }
    return n;
}

static Onnx__TensorProto *find_init(Onnx__GraphProto *g, const char *name)
{
    for (size_t i = 0; i < g->n_initializer; i++)
        if (!strcmp(g->initializer[i]->name, name)) return g->initializer[i];
    return NULL;
}

/* Asserts that initializer `name` holds the given int64 (or float) values. */
static void expect_init(Onnx__GraphProto *g, const char *name, int dtype, size_t n, const double *v)
{
    Onnx__TensorProto *p = find_init(g, name);
    assert_non_null(p);
    oe_tensor t;
    assert_int_equal(ot_from_proto(p, 0, &t), OE_OK);
    assert_int_equal(t.dtype, dtype);
    assert_int_equal(t.numel, n);
    for (size_t i = 0; i < n; i++) assert_float_equal(ot_get_f(&t, (int64_t)i), v[i], 1e-6);
    ot_tensor_free(&t);
}

static void test_fold_and_lift(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[2,3] x) => (float[2,3] y, int64[2] s)\n"
                        "<int64[1] one = {1}>\n"
                        "{\n"
                        "  a = Constant <value_ints = [2, 3]> ()\n"
                        "  b = Add (a, one)\n"
                        "  sh = Shape (x)\n"
                        "  s = Mul (sh, b)\n"
                        "  f = Constant <value_float = 2.0> ()\n"
                        "  y = Mul (x, f)\n"
                        "}\n");
    optimize_stats st = {0};
    diag_sink d;
    diag_init(&d);
    assert_true(opt_fold_constants(m, NULL, &st, &d));
    Onnx__GraphProto *g = m->proto->graph;
    /* b, sh (static shape) and s are folded into Constant nodes */
    assert_int_equal(st.folded, 3);
    assert_int_equal(count_op(g, "Add"), 0);
    assert_int_equal(count_op(g, "Shape"), 0);
    assert_int_equal(count_op(g, "Mul"), 1);
    assert_true(opt_lift_constants(m, NULL, &st, &d));
    assert_true(opt_remove_dead(m, NULL, &st, &d));
    /* s is a graph output folded from Mul: an initializer at once, as onnxscript's folder makes
     * it (torch.onnx's `full` output); f is lifted under its value name */
    assert_null(find_node(g, "Constant"));
    Onnx__TensorProto *sp = find_init(g, "s");
    assert_non_null(sp);
    oe_tensor t;
    assert_int_equal(ot_from_proto(sp, 0, &t), OE_OK);
    assert_int_equal(ot_get_i(&t, 0), 6);
    assert_int_equal(ot_get_i(&t, 1), 12);
    ot_tensor_free(&t);
    expect_init(g, "f", 1, 1, (double[]){2});
    assert_null(find_init(g, "one"));   /* unused after folding */
    assert_null(find_init(g, "a"));
    assert_int_equal(g->n_node, 1);
    assert_false(diag_has_errors(&d));
    diag_free(&d);
    ox_model_free(m);
}

static void test_fold_respects_limits_and_inputs(void **state)
{
    (void)state;
    /* w is an initializer that is also a graph input: not a constant. n has a dynamic dim. */
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[2] w, float[N] n) => (float[2] y, int64[1] s, float[2000] z)\n"
                        "<float[2] w = {1, 2}>\n"
                        "{\n"
                        "  y = Neg (w)\n"
                        "  s = Shape (n)\n"
                        "  k = Constant <value_ints = [2000]> ()\n"
                        "  o = Constant <value_float = 1.0> ()\n"
                        "  z = Expand (o, k)\n"
                        "}\n");
    optimize_stats st = {0};
    optimize_options o;
    optimize_options_default(&o);
    o.fold_output_limit = 1024;
    assert_true(opt_fold_constants(m, &o, &st, NULL));
    assert_int_equal(st.folded, 0);   /* z would have 2000 > 1024 elements */
    o.fold_output_limit = 4096;
    assert_true(opt_fold_constants(m, &o, &st, NULL));
    assert_int_equal(st.folded, 1);
    assert_int_equal(count_op(m->proto->graph, "Expand"), 0);
    assert_int_equal(count_op(m->proto->graph, "Neg"), 1);
    assert_int_equal(count_op(m->proto->graph, "Shape"), 1);
    ox_model_free(m);
}

static void test_dead_code(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20, \"unused\" : 1, \"pkg\" : 1]>\n"
                        "g (float[2] x, bool c) => (float[2] y)\n"
                        "<float[2] w = {1, 2}, float[2] dead_w = {3, 4}>\n"
                        "{\n"
                        "  d1 = Add (x, dead_w)\n"
                        "  d2 = Relu (d1)\n"
                        "  outer = Mul (x, w)\n"
                        "  y = If (c) <then_branch: graph = t () => (float[2] ty) { ty = Identity (outer) },"
                        " else_branch: graph = e () => (float[2] ey) { unused_in = Neg (x) ey = Identity (x) }>\n"
                        "}\n"
                        "<domain: \"pkg\", opset_import: [\"\" : 20]>\n"
                        "lonely (a) => (b) { b = Neg (a) }\n");
    optimize_stats st = {0};
    assert_true(opt_remove_dead(m, NULL, &st, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(g->n_node, 2);                 /* outer (used inside then_branch) and If */
    assert_string_equal(g->node[0]->output[0], "outer");
    assert_int_equal(st.removed_nodes, 3);          /* d1, d2, unused_in */
    assert_non_null(find_init(g, "w"));
    assert_null(find_init(g, "dead_w"));
    assert_int_equal(m->proto->n_functions, 0);
    assert_int_equal(m->proto->n_opset_import, 1);
    assert_string_equal(m->proto->opset_import[0]->domain, "");
    ox_model_free(m);
}

static void test_dead_functions_transitive(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20, \"a\" : 1, \"b\" : 1, \"c\" : 1]>\n"
                        "g (float[2] x) => (float[2] y)\n"
                        "{\n"
                        "  y = a.f (x)\n"
                        "}\n"
                        "<domain: \"a\", opset_import: [\"\" : 20, \"b\" : 1]>\n"
                        "f (p) => (q) { q = b.h (p) }\n"
                        "<domain: \"b\", opset_import: [\"\" : 20]>\n"
                        "h (p) => (q) { q = Neg (p) }\n"
                        "<domain: \"c\", opset_import: [\"\" : 20]>\n"
                        "unused (p) => (q) { q = Neg (p) }\n");
    optimize_stats st = {0};
    assert_true(opt_remove_dead(m, NULL, &st, NULL));
    assert_int_equal(m->proto->n_functions, 2);
    assert_int_equal(st.removed_functions, 1);
    assert_int_equal(m->proto->n_opset_import, 3);   /* "", a, b */
    for (size_t i = 0; i < m->proto->n_opset_import; i++)
        assert_string_not_equal(m->proto->opset_import[i]->domain, "c");
    ox_model_free(m);
}

static void test_inline(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20, \"pkg.torch.__subgraph__\" : 1]>\n"
                        "g (float[2] x, bool c) => (float[2] y, float[2] z)\n"
                        "{\n"
                        "  [call1] y = pkg.torch.__subgraph__.scale <alpha: float = 3.0> (x)\n"
                        "  z = If (c) <then_branch: graph = t () => (float[2] ty) {"
                        " [call2] ty = pkg.torch.__subgraph__.scale (x) },"
                        " else_branch: graph = e () => (float[2] ey) { ey = Identity (x) }>\n"
                        "}\n"
                        "<domain: \"pkg.torch.__subgraph__\", opset_import: [\"\" : 20]>\n"
                        "scale <alpha: float = 2.0> (a) => (b) {\n"
                        "  k = Constant <value_float: float = @alpha> ()\n"
                        "  b = Mul (a, k)\n"
                        "}\n");
    optimize_stats st = {0};
    assert_true(opt_inline_functions(m, NULL, &st, NULL));
    assert_int_equal(st.inlined, 2);
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(count_op(g, "scale"), 0);
    assert_int_equal(count_op(g, "Mul"), 2);
    /* the inner value k got a unique name per call site, and the attribute was substituted */
    Onnx__NodeProto *k = find_node(g, "Constant");
    assert_non_null(k);
    assert_string_equal(k->output[0], "call1__k");
    assert_float_equal(k->attribute[0]->f, 3.0, 1e-9);
    Onnx__NodeProto *mul = find_node(g, "Mul");
    assert_string_equal(mul->output[0], "y");
    assert_string_equal(mul->input[0], "x");
    assert_string_equal(mul->input[1], "call1__k");
    Onnx__GraphProto *t = find_node(g, "If")->attribute[0]->g;
    Onnx__NodeProto *k2 = find_node(t, "Constant");
    assert_string_equal(k2->output[0], "call2__k");
    assert_float_equal(k2->attribute[0]->f, 2.0, 1e-9);   /* the function's default */
    assert_string_equal(find_node(t, "Mul")->output[0], "ty");
    /* then the function and its domain import go away */
    assert_true(opt_remove_dead(m, NULL, &st, NULL));
    assert_int_equal(m->proto->n_functions, 0);
    assert_int_equal(m->proto->n_opset_import, 1);
    ox_model_free(m);
}

static void test_inline_recursion_is_an_error(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20, \"loc\" : 1]>\n"
                        "g (float[2] x) => (float[2] y)\n"
                        "{\n"
                        "  y = loc.f (x)\n"
                        "}\n"
                        "<domain: \"loc\", opset_import: [\"\" : 20, \"loc\" : 1]>\n"
                        "f (a) => (b) { t = loc.f (a) u = loc.f (t) b = Add (t, u) }\n");
    diag_sink d;
    diag_init(&d);
    assert_false(opt_inline_functions(m, NULL, NULL, &d));
    assert_true(diag_has_errors(&d));
    assert_non_null(strstr(d.items[0].message, "calls itself"));
    /* The model is still well formed: the innermost calls are left in place. */
    assert_int_equal(count_op(m->proto->graph, "f"), 2);
    assert_int_equal(count_op(m->proto->graph, "Add"), 1);
    diag_free(&d);
    ox_model_free(m);
}

static void test_dedup_and_cse(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[2] x) => (float[2] y, float[2] z)\n"
                        "<float[2] a = {1, 2}, float[2] b = {1, 2}, float[2] c = {1, 3}>\n"
                        "{\n"
                        "  p = Add (x, a)\n"
                        "  q = Add (x, b)\n"
                        "  r = Add (x, c)\n"
                        "  s1 = Mul (p, q)\n"
                        "  s2 = Mul (p, p)\n"
                        "  y = Sub (s1, r)\n"
                        "  z = Sub (s2, r)\n"
                        "}\n");
    optimize_stats st = {0};
    assert_true(opt_dedup_initializers(m, NULL, &st, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(st.deduped, 1);
    assert_int_equal(g->n_initializer, 2);
    assert_string_equal(g->node[1]->input[1], "a");
    assert_true(opt_cse(m, NULL, &st, NULL));
    /* q ≡ p, hence s1 ≡ s2; y and z are graph outputs and both stay */
    assert_int_equal(st.cse, 2);
    assert_int_equal(g->n_node, 5);
    assert_string_equal(find_node(g, "Sub")->input[0], "s1");
    assert_string_equal(g->node[g->n_node - 1]->input[0], "s1");
    ox_model_free(m);
}

static void test_noops(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[2,3] x) => (float[2,3] y, float[2,3] z)\n"
                        "<int64[2] shp = {2, 3}>\n"
                        "{\n"
                        "  i1 = Identity (x)\n"
                        "  c1 = Cast <to = 1> (i1)\n"
                        "  r1 = Reshape (c1, shp)\n"
                        "  t = Relu (r1)\n"
                        "  y = Identity (t)\n"
                        "  z = Identity (x)\n"
                        "}\n");
    /* the Cast and Reshape need the input's type: x's is known, i1 is the same value */
    optimize_stats st = {0};
    assert_true(opt_remove_noops(m, NULL, &st, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(st.noops, 4);   /* i1, c1, r1, and y (Relu now writes y directly) */
    assert_int_equal(g->n_node, 2);
    Onnx__NodeProto *relu = find_node(g, "Relu");
    assert_string_equal(relu->input[0], "x");
    assert_string_equal(relu->output[0], "y");
    /* z = Identity(x) joins two graph-level names: it must stay */
    assert_non_null(find_node(g, "Identity"));
    ox_model_free(m);
}

static void test_castlike_expand_transpose(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[2,3] x) => (float[3,2] y, float[2,3] z, float[2,3] w)\n"
                        "<double[1] h = {0.5}, int64[2] shp = {1, 3}>\n"
                        "{\n"
                        "  k = CastLike (h, x)\n"
                        "  e = Expand (x, shp)\n"
                        "  t1 = Transpose <perm = [1, 0]> (e)\n"
                        "  t2 = Transpose <perm = [1, 0]> (t1)\n"
                        "  c = CastLike (t2, x)\n"
                        "  z = Mul (c, k)\n"
                        "  y = Transpose <perm = [1, 0]> (t2)\n"
                        "  w = Relu (t2)\n"
                        "}\n");
    optimize_stats st = {0};
    assert_true(optimize_model(m, NULL, &st, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    /* CastLike(h, x) folds from x's static type; the cancelling Transpose pair and the
     * same-type CastLike disappear; y's double Transpose becomes one. The Expand to [1, 3], a
     * shape x broadcasts to but not x's own, stays: onnxscript's ExpandIdentity compares the
     * dims as they are (checked with onnxscript 0.7.2, which leaves these four nodes). */
    expect_init(g, "k", 1, 1, (double[]){0.5});
    assert_int_equal(count_op(g, "Expand"), 1);
    assert_int_equal(count_op(g, "CastLike"), 0);
    assert_int_equal(count_op(g, "Transpose"), 1);
    Onnx__NodeProto *t = find_node(g, "Transpose");
    assert_string_equal(t->input[0], "e");
    assert_string_equal(t->output[0], "y");
    assert_string_equal(find_node(g, "Mul")->input[0], "e");
    assert_string_equal(find_node(g, "Relu")->input[0], "e");
    assert_int_equal(g->n_node, 4);
    ox_model_free(m);
}

/* Weights: two views of the same mapped bytes are equal without a comparison; equal bytes in
 * different places are equal; one differing byte, or the same bytes with other dims, is not. */
static void test_dedup_weights(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[256] x) => (float[256] y)\n"
                        "{\n"
                        "  y = Identity (x)\n"
                        "}\n");
    enum { N = 256 };
    float *v = malloc(3 * N * sizeof *v);
    for (int i = 0; i < N; i++) v[i] = v[N + i] = v[2 * N + i] = (float)i * 0.125f;
    v[2 * N + 200] = -1;
    fmap *f = fmap_adopt(v, 3 * N * sizeof *v);
    const char *names[] = {"w0", "w0_view", "w1_copy", "w2_differs", "w0_flat"};
    const float *data[] = {v, v, v + N, v + 2 * N, v};
    Onnx__GraphProto *g = m->proto->graph;
    for (int i = 0; i < 5; i++) {
        int64_t dims[2] = {16, 16}, flat = N;
        Onnx__TensorProto *t = i == 4 ? ox_tensor_new(m, names[i], 1, &flat, 1)
                                      : ox_tensor_new(m, names[i], 1, dims, 2);
        ox_tensor_set_view(m, t, data[i], N * sizeof *v, f);
        ox_graph_add_initializer(m, g, t);
        Onnx__NodeProto *n = ox_graph_add_node(m, g, "Identity", NULL);
        ox_node_add_input(m, n, names[i]);
        ox_node_add_output(m, n, names[i] + 1);
    }
    fmap_unref(f);   /* the model holds it */
    optimize_stats st = {0};
    assert_true(opt_dedup_initializers(m, NULL, &st, NULL));
    assert_int_equal(st.deduped, 2);
    assert_int_equal(g->n_initializer, 3);
    assert_string_equal(g->initializer[0]->name, "w0");
    assert_string_equal(g->initializer[1]->name, "w2_differs");
    assert_string_equal(g->initializer[2]->name, "w0_flat");
    assert_string_equal(g->node[2]->input[0], "w0");   /* w0_view's user */
    assert_string_equal(g->node[3]->input[0], "w0");   /* w1_copy's user */
    assert_string_equal(g->node[4]->input[0], "w2_differs");
    ox_model_free(m);
}

/* A rows x cols float initializer holding 0, 1, 2, ... */
static void add_big_init(ox_model *m, const char *name, int64_t rows, int64_t cols)
{
    float *v = calloc((size_t)(rows * cols), sizeof *v);
    for (int64_t i = 0; i < rows * cols; i++) v[i] = (float)i;
    Onnx__TensorProto *t = ox_tensor_new(m, name, 1, (int64_t[]){rows, cols}, 2);
    ox_tensor_set_raw(m, t, v, (size_t)(rows * cols) * sizeof *v);
    ox_graph_add_initializer(m, m->proto->graph, t);
    free(v);
}

static void test_fold_policy_like_onnxscript(void **state)
{
    (void)state;
    /* W (100x100 = 10000 > 8192 elements) is transposed by its only consumer: folded.
     * V is as large but read twice: its Neg is not folded, and neither is its Transpose.
     * ConstantOfShape is kept; Shape of a large initializer folds from its dims. */
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[2,100] x) => (float[2,100] y, float[100,100] a, float[100,100] b,"
                        " float[3] z, int64[2] s)\n"
                        "<int64[1] three = {3}>\n"
                        "{\n"
                        "  wt = Transpose <perm = [1, 0]> (W)\n"
                        "  y = MatMul (x, wt)\n"
                        "  a = Neg (V)\n"
                        "  b = Transpose <perm = [1, 0]> (V)\n"
                        "  z = ConstantOfShape (three)\n"
                        "  s = Shape (V)\n"
                        "}\n");
    add_big_init(m, "W", 100, 100);
    add_big_init(m, "V", 100, 100);
    optimize_stats st = {0};
    assert_true(optimize_model(m, NULL, &st, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(count_op(g, "Transpose"), 1);
    assert_string_equal(find_node(g, "Transpose")->output[0], "b");
    assert_int_equal(count_op(g, "Neg"), 1);
    assert_int_equal(count_op(g, "ConstantOfShape"), 1);
    assert_int_equal(count_op(g, "Shape"), 0);
    assert_null(find_init(g, "W"));
    Onnx__TensorProto *wt = find_init(g, "wt");
    assert_non_null(wt);
    oe_tensor t;
    assert_int_equal(ot_from_proto(wt, 0, &t), OE_OK);
    assert_float_equal(ot_get_f(&t, 1), 100.0, 0);   /* wt[0][1] = W[1][0] */
    assert_float_equal(ot_get_f(&t, 100), 1.0, 0);   /* wt[1][0] = W[0][1] */
    ot_tensor_free(&t);
    /* s is a graph output folded from Shape: onnxscript's Shape rule makes a Constant node (not
     * an initializer, as other folded values are) and the lifting pass skips graph outputs, so
     * s stays a Constant node holding V's dims (as onnxscript.optimizer.optimize_ir leaves it) */
    assert_null(find_init(g, "s"));
    Onnx__NodeProto *sn = find_node(g, "Constant");
    assert_non_null(sn);
    assert_string_equal(sn->output[0], "s");
    Onnx__TensorProto *sp = sn->attribute[0]->t;
    assert_non_null(sp);
    assert_int_equal(ot_from_proto(sp, 0, &t), OE_OK);
    assert_int_equal(ot_get_i(&t, 0), 100);
    assert_int_equal(ot_get_i(&t, 1), 100);
    ot_tensor_free(&t);
    ox_model_free(m);
}

/* A Constant node that is itself a graph output stays a node: onnx-ir's lifting pass skips it
 * (only a value the folder computes becomes an initializer at once). */
static void test_constant_output_stays_a_node(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[2] x) => (float[2] y, float c)\n"
                        "{\n"
                        "  c = Constant <value_float = 1.5> ()\n"
                        "  y = Add (x, x)\n"
                        "}\n");
    assert_true(optimize_model(m, NULL, NULL, NULL));
    Onnx__NodeProto *c = find_node(m->proto->graph, "Constant");
    assert_non_null(c);
    assert_string_equal(c->output[0], "c");
    assert_null(find_init(m->proto->graph, "c"));
    ox_model_free(m);
}

static void test_split_to_sequence(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[2,6] x) => (float[2,2] a, float[2,2] b, float[2,2] c2, float[2,1] p, float[2,5] q)\n"
                        "<int64 two = {2}, int64 i0 = {0}, int64 i1 = {1}, int64 im1 = {-1}, int64[2] sz = {1, 5}>\n"
                        "{\n"
                        "  s = SplitToSequence <axis = -1> (x, two)\n"
                        "  a = SequenceAt (s, i0)\n"
                        "  b = SequenceAt (s, i1)\n"
                        "  c2 = SequenceAt (s, im1)\n"
                        "  t = SplitToSequence <axis = 1> (x, sz)\n"
                        "  p = SequenceAt (t, i0)\n"
                        "  q = SequenceAt (t, i1)\n"
                        "  u = SplitToSequence <axis = 1> (x, sz)\n"
                        "  n = SequenceLength (u)\n"
                        "}\n");
    optimize_stats st = {0};
    assert_true(opt_rewrite_split_to_sequence(m, NULL, &st, NULL));
    assert_int_equal(st.rewritten, 2);
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(count_op(g, "SequenceAt"), 0);
    assert_int_equal(count_op(g, "Split"), 2);
    assert_int_equal(count_op(g, "SplitToSequence"), 1);   /* u is used by SequenceLength */
    Onnx__NodeProto *sp = g->node[0];
    assert_string_equal(sp->op_type, "Split");
    assert_int_equal(sp->n_input, 1);
    assert_int_equal(sp->n_output, 3);
    assert_string_equal(sp->output[0], "a");
    assert_string_equal(sp->output[2], "c2");
    assert_int_equal(ox_node_attr(sp, "axis")->i, 1);
    assert_int_equal(ox_node_attr(sp, "num_outputs")->i, 3);
    Onnx__NodeProto *sp2 = g->node[1];
    assert_string_equal(sp2->op_type, "Split");
    assert_int_equal(sp2->n_input, 2);
    assert_string_equal(sp2->input[1], "sz");
    assert_string_equal(sp2->output[1], "q");
    /* onnx-ir's counter as onnxscript's folder spends it: Split, SequenceConstruct and an Identity
     * per SequenceAt for s (0..4), then t's Split is 5 */
    assert_string_equal(sp->name, "node_Split_0");
    assert_string_equal(sp2->name, "node_Split_5");
    ox_model_free(m);
}

static void test_conv_bn_fusion(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[1,1,2,2] x) => (float[1,2,2,2] y)\n"
                        "<float[2,1,1,1] W = {2, 3}, float[2] sc = {1, 4}, float[2] be = {0.5, 0},"
                        " float[2] mu = {1, 2}, float[2] var = {3, 15}>\n"
                        "{\n"
                        "  c = Conv (x, W)\n"
                        "  y = BatchNormalization <epsilon = 1.0> (c, sc, be, mu, var)\n"
                        "}\n");
    optimize_stats st = {0};
    assert_true(optimize_model(m, NULL, &st, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(g->n_node, 1);
    Onnx__NodeProto *conv = g->node[0];
    assert_string_equal(conv->op_type, "Conv");
    assert_string_equal(conv->output[0], "y");
    assert_int_equal(conv->n_input, 3);
    /* f = sc / sqrt(var + eps) = {0.5, 1}; W' = W * f; B' = (0 - mu) * f + be */
    assert_string_equal(conv->input[1], "W");
    expect_init(g, "W", 1, 2, (double[]){1, 3});
    expect_init(g, conv->input[2], 1, 2, (double[]){0, -2});
    assert_int_equal(g->n_initializer, 2);
    ox_model_free(m);
}

static void test_inferred_types_and_neutral_operands(void **state)
{
    (void)state;
    /* r has no declared type: Relu keeps x's float, so CastLike(h, r) folds to float and
     * CastLike(r, x) is a no-op. r + 0 and 1 * r are r; r - z with a float[1,1,1] zero would
     * broadcast r (rank 2) to rank 3 and must stay. */
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[2,3] x) => (float[2,3] y, float[2,3] w, float[1,2,3] v, float[2,3] u)\n"
                        "<double h = {0.5}, float zero = {0}, float one = {1}, float[1,1,1] z = {0}>\n"
                        "{\n"
                        "  r = Relu (x)\n"
                        "  k = CastLike (h, r)\n"
                        "  c = CastLike (r, x)\n"
                        "  a = Add (c, zero)\n"
                        "  y = Mul (one, a)\n"
                        "  w = Mul (r, k)\n"
                        "  v = Sub (r, z)\n"
                        "  u = Div (r, one)\n"
                        "}\n");
    optimize_stats st = {0};
    assert_true(optimize_model(m, NULL, &st, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(count_op(g, "CastLike"), 0);
    assert_int_equal(count_op(g, "Add"), 0);
    assert_int_equal(count_op(g, "Sub"), 1);
    expect_init(g, "k", 1, 1, (double[]){0.5});
    /* y is a graph output: Relu now writes y; v, w and u read it. */
    Onnx__NodeProto *relu = find_node(g, "Relu");
    assert_string_equal(relu->output[0], "y");
    assert_string_equal(find_node(g, "Sub")->input[0], "y");
    /* u = y / 1 would join two graph outputs: it stays */
    assert_int_equal(count_op(g, "Div"), 1);
    assert_string_equal(find_node(g, "Div")->input[0], "y");
    ox_model_free(m);
}

static void test_variadic_and_shape_noops(void **state)
{
    (void)state;
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (int64[N] i, float[2,3] x) => (int64[N] y, float[2,3] z, int64[M] w)\n"
                        "{\n"
                        "  a = Max (i)\n"
                        "  b = Max (a, a)\n"
                        "  s = Shape <start = 0> (b)\n"
                        "  e = Expand (b, s)\n"
                        "  c = Concat <axis = 0> (e)\n"
                        "  y = Neg (c)\n"
                        "  t = Transpose <perm = [0, 1]> (x)\n"
                        "  z = Relu (t)\n"
                        "  w = Concat <axis = 0> (i, y)\n"
                        "}\n");
    optimize_stats st = {0};
    assert_true(optimize_model(m, NULL, &st, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(g->n_node, 3);   /* Neg, Relu, and the two-input Concat */
    assert_string_equal(find_node(g, "Neg")->input[0], "i");
    assert_string_equal(find_node(g, "Relu")->input[0], "x");
    assert_int_equal(find_node(g, "Concat")->n_input, 2);
    ox_model_free(m);
}

static void test_reshape_chains(void **state)
{
    (void)state;
    /* Reshape(Squeeze(v), [-1]) reads v directly, and then reshapes v ([1]) to [1]: gone.
     * Reshape(Unsqueeze(x), [0, 6]) must stay as it is (0 copies a dim of its input). */
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (int64[1] v, float[2,3] x) => (int64[2] y, float[2,6] z)\n"
                        "<int64[1] m1 = {-1}, int64[2] shp = {0, 6}, int64[1] ax = {0}, int64[1] four = {4}>\n"
                        "{\n"
                        "  s = Squeeze (v)\n"
                        "  r = Reshape (s, m1)\n"
                        "  y = Concat <axis = 0> (r, four)\n"
                        "  u = Unsqueeze (x, ax)\n"
                        "  z = Reshape (u, shp)\n"
                        "}\n");
    assert_true(optimize_model(m, NULL, NULL, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(count_op(g, "Squeeze"), 0);
    assert_string_equal(find_node(g, "Concat")->input[0], "v");
    assert_string_equal(find_node(g, "Reshape")->input[0], "u");
    assert_int_equal(g->n_node, 3);
    /* value_ints Constants are normalised to `value` tensors and the result is a fixpoint */
    size_t l1, l2;
    uint8_t *a = ox_pack(m, &l1);
    assert_true(optimize_model(m, NULL, NULL, NULL));
    uint8_t *b = ox_pack(m, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(a, b, l1);
    free(a);
    free(b);
    ox_model_free(m);
}

static void test_expand_after_reshape(void **state)
{
    (void)state;
    /* r has no declared type, but Reshape to the constant [3,2,1] fixes its shape; Expand to
     * [3,2,1] then changes nothing. Expand to [2,1] changes nothing either, but onnxscript's
     * ExpandIdentity keeps it (the dims differ), and Expand to [3,2,4] does change r. */
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[N] x) => (float[3,2,1] y, float[3,2,1] y2, float[3,2,4] z)\n"
                        "<int64[3] s = {3, 2, 1}, int64[2] s2 = {2, 1}, int64[3] big = {3, 2, 4}>\n"
                        "{\n"
                        "  r = Reshape (x, s)\n"
                        "  e = Expand (r, s)\n"
                        "  y = Neg (e)\n"
                        "  e2 = Expand (r, s2)\n"
                        "  y2 = Abs (e2)\n"
                        "  z = Expand (r, big)\n"
                        "}\n");
    assert_true(optimize_model(m, NULL, NULL, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(count_op(g, "Expand"), 2);
    assert_string_equal(find_node(g, "Neg")->input[0], "r");
    assert_string_equal(find_node(g, "Abs")->input[0], "e2");
    ox_model_free(m);
}

static void test_shape_of_known_rank(void **state)
{
    (void)state;
    /* Shape(x)[0:1] has shape [1] whatever x's dims are, but onnxscript's folder removes a
     * Reshape only when its target equals the input's shape as written ([-1] is not [1]), so
     * the Reshape stays, as onnxscript.optimizer.optimize_ir leaves it; Shape(x)[1:] of
     * float[N,2,3] folds to {2, 3}. */
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[N,2,3] x) => (int64[3] y)\n"
                        "<int64[1] m1 = {-1}>\n"
                        "{\n"
                        "  s = Shape <start = 0, end = 1> (x)\n"
                        "  r = Reshape (s, m1)\n"
                        "  t = Shape <start = 1> (x)\n"
                        "  y = Concat <axis = 0> (r, t)\n"
                        "}\n");
    assert_true(optimize_model(m, NULL, NULL, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(count_op(g, "Reshape"), 1);
    assert_string_equal(find_node(g, "Reshape")->input[0], "s");
    assert_int_equal(count_op(g, "Shape"), 1);
    Onnx__NodeProto *cc = find_node(g, "Concat");
    assert_string_equal(cc->input[0], "r");
    expect_init(g, cc->input[1], 7, 2, (double[]){2, 3});
    ox_model_free(m);
}

static void test_reshape_to_minus_one_stays(void **state)
{
    (void)state;
    /* A Reshape to [-1] of a 1-D tensor is left, as onnxscript leaves it (checked with
     * onnxscript 0.7.2: both Reshapes stay); only Reshape(Squeeze(x), [-1]) of a 1-D x is x. */
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (int64[1] v, float[4] x) => (int64[2] y, float[4] z)\n"
                        "<int64[1] m1 = {-1}, int64[1] four = {4}>\n"
                        "{\n"
                        "  r = Reshape (v, m1)\n"
                        "  y = Concat <axis = 0> (r, four)\n"
                        "  z = Reshape (x, m1)\n"
                        "}\n");
    assert_true(optimize_model(m, NULL, NULL, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(count_op(g, "Reshape"), 2);
    assert_string_equal(find_node(g, "Concat")->input[0], "r");
    ox_model_free(m);
}

static void test_castlike_to_cast(void **state)
{
    (void)state;
    /* CastLike of an int64 value like a float one is a Cast to float, a new node named by the
     * graph's node counter (none numbered yet: 0), as onnxscript.optimizer.optimize_ir leaves it:
     * [node_Cast_0] c = Cast <to: int = 1> (i) */
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (int64[3] i, float[3] f) => (float[3] z)\n"
                        "{\n"
                        "  c = CastLike (i, f)\n"
                        "  z = Add (c, f)\n"
                        "}\n");
    assert_true(optimize_model(m, NULL, NULL, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(count_op(g, "CastLike"), 0);
    Onnx__NodeProto *c = find_node(g, "Cast");
    assert_non_null(c);
    assert_string_equal(c->name, "node_Cast_0");
    assert_int_equal(c->n_input, 1);
    assert_string_equal(c->input[0], "i");
    assert_string_equal(c->output[0], "c");
    assert_int_equal(c->n_attribute, 1);
    assert_string_equal(c->attribute[0]->name, "to");
    assert_int_equal(c->attribute[0]->i, 1);
    ox_model_free(m);
}

static void test_static_reshape_target(void **state)
{
    (void)state;
    /* Reshape(x, [dim0(x), -1]) on float[batch,2,3] becomes Reshape(x, [-1, 6]); with two
     * dynamic dims nothing changes. */
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[batch,2,3] x, float[a,b,3] w) => (float[batch,6] y, float[a,?] z)\n"
                        "<int64[1] m1 = {-1}>\n"
                        "{\n"
                        "  s = Shape <start = 0, end = 1> (x)\n"
                        "  t = Concat <axis = 0> (s, m1)\n"
                        "  y = Reshape <allowzero = 1> (x, t)\n"
                        "  s2 = Shape <start = 0, end = 1> (w)\n"
                        "  t2 = Concat <axis = 0> (s2, m1)\n"
                        "  z = Reshape (w, t2)\n"
                        "}\n");
    assert_true(optimize_model(m, NULL, NULL, NULL));
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(count_op(g, "Concat"), 1);
    Onnx__NodeProto *y = NULL;
    for (size_t i = 0; i < g->n_node; i++)
        if (!strcmp(g->node[i]->output[0], "y")) y = g->node[i];
    assert_non_null(y);
    assert_string_equal(y->input[0], "x");
    expect_init(g, y->input[1], 7, 2, (double[]){-1, 6});
    ox_model_free(m);
}

static const char *full_model =
    "<ir_version: 10, opset_import: [\"\" : 20, \"pkg.torch.__subgraph__\" : 1]>\n"
    "g (float[2,3] x, bool c) => (float[2,3] y, float[2,3] z)\n"
    "<float[3] w1 = {1, 2, 3}, float[3] w2 = {1, 2, 3}>\n"
    "{\n"
    "  sh = Shape (x)\n"
    "  n = ReduceProd <keepdims = 0> (sh)\n"
    "  nf = Cast <to = 1> (n)\n"
    "  a = Add (x, w1)\n"
    "  b = Add (x, w2)\n"
    "  s = Mul (a, nf)\n"
    "  u = Mul (b, nf)\n"
    "  y = pkg.torch.__subgraph__.f (s, u)\n"
    "  z = If (c) <then_branch: graph = t () => (float[2,3] ty) { ty = Identity (y) },"
    " else_branch: graph = e () => (float[2,3] ey) { k = Constant <value_float = 5.0> ()"
    " ey = Mul (x, k) }>\n"
    "}\n"
    "<domain: \"pkg.torch.__subgraph__\", opset_import: [\"\" : 20]>\n"
    "f (p, q) => (r) { t1 = Identity (p) r = Sub (t1, q) }\n";

static void test_full_and_idempotent(void **state)
{
    (void)state;
    ox_model *m = parse(full_model);
    optimize_stats st = {0};
    diag_sink d;
    diag_init(&d);
    assert_true(optimize_model(m, NULL, &st, &d));
    Onnx__GraphProto *g = m->proto->graph;
    /* Shape/ReduceProd/Cast folded, a≡b after dedup, s≡u by CSE, Identity inside f gone,
     * the else-branch Constant lifted to the main graph. */
    assert_int_equal(count_op(g, "Shape"), 0);
    assert_int_equal(count_op(g, "Add"), 1);
    assert_int_equal(count_op(g, "Mul"), 2);
    assert_int_equal(count_op(g, "Sub"), 1);
    assert_int_equal(count_op(g, "Constant"), 0);
    assert_int_equal(m->proto->n_functions, 0);
    expect_init(g, "nf", 1, 1, (double[]){6});
    expect_init(g, "k", 1, 1, (double[]){5});
    assert_int_equal(g->n_initializer, 3);
    size_t len1, len2;
    uint8_t *once = ox_pack(m, &len1);
    assert_true(optimize_model(m, NULL, &st, &d));
    uint8_t *twice = ox_pack(m, &len2);
    assert_int_equal(len1, len2);
    assert_memory_equal(once, twice, len1);
    free(once);
    free(twice);
    assert_false(diag_has_errors(&d));
    diag_free(&d);
    ox_model_free(m);
}

static void test_bad_models_do_not_crash(void **state)
{
    (void)state;
    /* Broadcast mismatch among constants, a dangling input, a division by zero: nothing folds
     * wrongly and nothing crashes. */
    ox_model *m = parse("<ir_version: 10, opset_import: [\"\" : 20]>\n"
                        "g (float[2] x) => (float[2] y, int64[2] q)\n"
                        "<float[3] a = {1, 2, 3}, float[2] b = {1, 2}, int64[2] i = {1, 2}, int64[2] zero = {0, 0}>\n"
                        "{\n"
                        "  bad = Add (a, b)\n"
                        "  y = Add (x, missing)\n"
                        "  q = Div (i, zero)\n"
                        "}\n");
    diag_sink d;
    diag_init(&d);
    assert_true(optimize_model(m, NULL, NULL, &d));
    assert_int_equal(count_op(m->proto->graph, "Div"), 1);
    assert_int_equal(count_op(m->proto->graph, "Add"), 1);
    /* the folding failures are warnings naming the node, not errors */
    assert_false(diag_has_errors(&d));
    assert_true(d.len >= 1);
    bool saw_div = false;
    for (size_t i = 0; i < d.len; i++) saw_div |= strstr(d.items[i].message, "division by zero") != NULL;
    assert_true(saw_div);
    diag_free(&d);
    ox_model_free(m);
    /* A model with no graph at all. */
    ox_model *e = ox_model_new_empty();
    assert_true(optimize_model(e, NULL, NULL, NULL));
    ox_model_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fold_and_lift),
        cmocka_unit_test(test_constant_output_stays_a_node),
        cmocka_unit_test(test_fold_respects_limits_and_inputs),
        cmocka_unit_test(test_dead_code),
        cmocka_unit_test(test_dead_functions_transitive),
        cmocka_unit_test(test_inline),
        cmocka_unit_test(test_inline_recursion_is_an_error),
        cmocka_unit_test(test_dedup_and_cse),
        cmocka_unit_test(test_dedup_weights),
        cmocka_unit_test(test_noops),
        cmocka_unit_test(test_castlike_expand_transpose),
        cmocka_unit_test(test_fold_policy_like_onnxscript),
        cmocka_unit_test(test_split_to_sequence),
        cmocka_unit_test(test_conv_bn_fusion),
        cmocka_unit_test(test_inferred_types_and_neutral_operands),
        cmocka_unit_test(test_variadic_and_shape_noops),
        cmocka_unit_test(test_reshape_chains),
        cmocka_unit_test(test_expand_after_reshape),
        cmocka_unit_test(test_shape_of_known_rank),
        cmocka_unit_test(test_reshape_to_minus_one_stays),
        cmocka_unit_test(test_castlike_to_cast),
        cmocka_unit_test(test_static_reshape_target),
        cmocka_unit_test(test_full_and_idempotent),
        cmocka_unit_test(test_bad_models_do_not_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
