/* test_onnx_parse.c — unit tests of the ONNX text parser: syntax forms, values, errors, fuzzing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx_parse.h"
#include "onnx/onnx_print.h"

static ox_model *parse_ok(const char *text)
{
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_parse_model(text, strlen(text), "t.onnxtxt", &d);
    if (!m)
        diag_render_all(&d, stderr, NULL, false);
    assert_non_null(m);
    assert_int_equal(d.errors, 0);
    diag_free(&d);
    return m;
}

/* Parses text expecting an error at line:col whose message contains want. */
static void parse_err(const char *text, int line, int col, const char *want)
{
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_parse_model(text, strlen(text), "bad.txt", &d);
    if (m)
        fprintf(stderr, "unexpectedly parsed: %s\n", text);
    assert_null(m);
    assert_int_equal(d.len, 1);
    if (d.items[0].line != line || d.items[0].col != col || !strstr(d.items[0].message, want))
        diag_render_all(&d, stderr, NULL, false);
    assert_int_equal(d.items[0].line, line);
    assert_int_equal(d.items[0].col, col);
    assert_non_null(strstr(d.items[0].message, want));
    assert_string_equal(d.items[0].file, "bad.txt");
    assert_non_null(d.items[0].source_line);
    diag_free(&d);
}

static const Onnx__AttributeProto *attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (strcmp(n->attribute[i]->name, name) == 0)
            return n->attribute[i];
    fail_msg("no attribute %s", name);
    return NULL;
}

static void test_model_header(void **state)
{
    (void)state;
    ox_model *m = parse_ok("<\n ir_version: 8, opset_import: [\"\" : 18, \"com.microsoft\" : 1],\n"
                           " producer_name: \"pytorch\", producer_version: \"2.14\", domain: \"d\",\n"
                           " model_version: 3, doc_string: \"a \\\"doc\\\"\",\n"
                           " metadata_props: [\"k\": \"v\", \"k2\": \"v2\"]\n>\n"
                           "g (float x) => (float y) { y = Relu(x) }");
    Onnx__ModelProto *p = m->proto;
    assert_true(p->has_ir_version);
    assert_int_equal(p->ir_version, 8);
    assert_int_equal(p->n_opset_import, 2);
    assert_string_equal(p->opset_import[0]->domain, "");
    assert_int_equal(p->opset_import[0]->version, 18);
    assert_string_equal(p->opset_import[1]->domain, "com.microsoft");
    assert_string_equal(p->producer_name, "pytorch");
    assert_string_equal(p->producer_version, "2.14");
    assert_string_equal(p->domain, "d");
    assert_int_equal(p->model_version, 3);
    assert_string_equal(p->doc_string, "a \"doc\"");
    assert_int_equal(p->n_metadata_props, 2);
    assert_string_equal(p->metadata_props[1]->value, "v2");
    assert_string_equal(p->graph->name, "g");
    assert_int_equal(p->graph->n_node, 1);
    ox_model_free(m);
}

static void test_graph_io_and_inits(void **state)
{
    (void)state;
    ox_model *m = parse_ok("agraph (float y = {1.0}, float[N] z) => (float[N] w)\n"
                           "<float[2] w1 = {1.0, 2.0}, float[3] w2 = {4.0, 5.0, 6.0}, float[N] x,\n"
                           " float[3, 2] m1 = [\"location\": \"weight_1.bin\", \"offset\": \"17\"]>\n"
                           "{ x = foo(y, z, w1)  w = bar(x, y, w2) }");
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(g->n_input, 2);
    assert_int_equal(g->n_output, 1);
    assert_int_equal(g->n_initializer, 4);   /* y (input with value), w1, w2, m1 */
    assert_string_equal(g->initializer[0]->name, "y");
    assert_int_equal(g->initializer[0]->n_dims, 0);
    assert_int_equal(g->initializer[0]->n_float_data, 1);
    assert_string_equal(g->initializer[2]->name, "w2");
    assert_int_equal(g->initializer[2]->n_float_data, 3);
    assert_true(g->initializer[2]->float_data[2] == 6.0f);
    const Onnx__TensorProto *ext = g->initializer[3];
    assert_int_equal(ext->data_location, ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
    assert_int_equal(ext->n_external_data, 2);
    assert_string_equal(ext->external_data[1]->key, "offset");
    assert_string_equal(ext->external_data[1]->value, "17");
    assert_int_equal(ext->n_dims, 2);
    assert_int_equal(g->n_value_info, 1);
    assert_string_equal(g->value_info[0]->name, "x");
    const Onnx__TypeProto *t = g->input[1]->type;
    assert_int_equal(t->value_case, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE);
    assert_string_equal(t->tensor_type->shape->dim[0]->dim_param, "N");
    assert_int_equal(g->n_node, 2);
    assert_string_equal(g->node[1]->op_type, "bar");
    ox_model_free(m);
}

static void test_node_forms(void **state)
{
    (void)state;
    ox_model *m = parse_ok("g (x, y, z) => () {\n"
                           "  [node1] a = foo(y, z)\n"
                           "  b = com.example.foo:ov2 (y, z)\n"
                           "  c = SomeOp(y, , z)\n"
                           "  , = SomeOp (,)\n"
                           "  ,d = SomeOp (,y)\n"
                           "  e = SomeOp (x,)\n"
                           "  f = SomeOp (\"\")\n"
                           "  [\"my node/1\"] = Print (t1)\n"
                           "  [] g = K <axis = 1> ()\n"
                           "  h = L (x) <axis = 2>\n"
                           "}");
    Onnx__GraphProto *g = m->proto->graph;
    Onnx__NodeProto **n = g->node;
    assert_string_equal(n[0]->name, "node1");
    assert_null(n[1]->name);
    assert_string_equal(n[1]->domain, "com.example");
    assert_string_equal(n[1]->op_type, "foo");
    assert_string_equal(n[1]->overload, "ov2");
    assert_string_equal(n[0]->domain, "");
    assert_int_equal(n[2]->n_input, 3);
    assert_string_equal(n[2]->input[1], "");
    assert_int_equal(n[3]->n_input, 1);
    assert_string_equal(n[3]->input[0], "");
    assert_int_equal(n[3]->n_output, 1);
    assert_int_equal(n[4]->n_input, 2);
    assert_string_equal(n[4]->input[0], "");
    assert_string_equal(n[4]->input[1], "y");
    assert_int_equal(n[5]->n_input, 1);
    assert_int_equal(n[6]->n_input, 1);
    assert_string_equal(n[6]->input[0], "");
    assert_string_equal(n[7]->name, "my node/1");
    assert_int_equal(n[7]->n_output, 0);
    assert_string_equal(n[8]->name, "");
    assert_int_equal(n[8]->n_input, 0);
    assert_int_equal(attr(n[8], "axis")->i, 1);
    assert_int_equal(attr(n[9], "axis")->i, 2);
    ox_model_free(m);
}

static void test_attribute_kinds(void **state)
{
    (void)state;
    ox_model *m = parse_ok(
        "g (x) => (y) {\n"
        "  y = Op <i = -3, f = 0.5, fi: float = 2, s = \"a\\\\b\", is = [1, 2], fs = [0.5, 1],\n"
        "          ss = [\"p\", \"q\"], ei: ints = [], r: float = @alpha, ni = -inf, nn = nan,\n"
        "          t = float[2] val {1, 2.5}, tp = seq(float[3]), tp2: type_proto = int64[],\n"
        "          ts: tensor = int64 {7}, big = 9223372036854775807,\n"
        "          gs: graphs = [a () => () {}, b () => () {}],\n"
        "          body = sub (float q) => (float r) { r = Neg(q) }> (x)\n"
        "}");
    const Onnx__NodeProto *n = m->proto->graph->node[0];
    assert_int_equal(attr(n, "i")->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    assert_int_equal(attr(n, "i")->i, -3);
    assert_true(attr(n, "f")->f == 0.5f);
    assert_int_equal(attr(n, "fi")->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    assert_true(attr(n, "fi")->f == 2.0f);
    assert_int_equal(attr(n, "s")->s.len, 3);
    assert_memory_equal(attr(n, "s")->s.data, "a\\b", 3);
    assert_int_equal(attr(n, "is")->n_ints, 2);
    assert_int_equal(attr(n, "fs")->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    assert_true(attr(n, "fs")->floats[1] == 1.0f);
    assert_int_equal(attr(n, "ss")->n_strings, 2);
    assert_int_equal(attr(n, "ei")->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    assert_int_equal(attr(n, "ei")->n_ints, 0);
    assert_string_equal(attr(n, "r")->ref_attr_name, "alpha");
    assert_int_equal(attr(n, "r")->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    assert_true(isinf(attr(n, "ni")->f) && attr(n, "ni")->f < 0);
    assert_true(isnan(attr(n, "nn")->f));
    const Onnx__TensorProto *t = attr(n, "t")->t;
    assert_non_null(t);
    assert_string_equal(t->name, "val");
    assert_int_equal(t->n_float_data, 2);
    assert_int_equal(attr(n, "tp")->type, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO);
    assert_int_equal(attr(n, "tp")->tp->value_case, ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE);
    assert_null(attr(n, "tp2")->tp->tensor_type->shape);
    assert_int_equal(attr(n, "ts")->t->int64_data[0], 7);
    assert_int_equal(attr(n, "big")->i, INT64_MAX);
    assert_int_equal(attr(n, "gs")->n_graphs, 2);
    assert_string_equal(attr(n, "gs")->graphs[1]->name, "b");
    const Onnx__GraphProto *b = attr(n, "body")->g;
    assert_string_equal(b->name, "sub");
    assert_int_equal(b->n_node, 1);
    ox_model_free(m);
}

static void test_tensor_dtypes(void **state)
{
    (void)state;
    ox_model *m = parse_ok(
        "g () => () <int32[5] a = {1, 2, 3, 4, 5}, double[2] b = {1e1, -2.5E-1},\n"
        " int64[2] c = {-9223372036854775808, 5}, uint64[1] d = {18446744073709551615},\n"
        " string[2] e = {\"Use a \\\"quoted\\\" word\", \"back \\\\ slash\"}, bool[2] f = {1, 0},\n"
        " float16[1] h = {15360}, float[3] i = {inf, -inf, 5.}, int8 j = {-128},\n"
        " complex64[1] k = {1, 2}, float[0] l = {}> {}");
    Onnx__TensorProto **t = m->proto->graph->initializer;
    assert_int_equal(t[0]->data_type, 6);
    assert_int_equal(t[0]->n_int32_data, 5);
    assert_int_equal(t[1]->n_double_data, 2);
    assert_true(t[1]->double_data[1] == -0.25);
    assert_int_equal(t[2]->int64_data[0], INT64_MIN);
    assert_true(t[3]->uint64_data[0] == UINT64_MAX);
    assert_int_equal(t[4]->n_string_data, 2);
    assert_int_equal(t[4]->string_data[0].len, strlen("Use a \"quoted\" word"));
    assert_memory_equal(t[4]->string_data[1].data, "back \\ slash", 12);
    assert_int_equal(t[5]->int32_data[0], 1);
    assert_int_equal(t[6]->int32_data[0], 15360);
    assert_true(isinf(t[7]->float_data[1]) && t[7]->float_data[2] == 5.0f);
    assert_int_equal(t[8]->int32_data[0], -128);
    assert_int_equal(t[9]->n_float_data, 2);
    assert_int_equal(t[10]->n_float_data, 0);
    assert_int_equal(t[10]->n_dims, 1);
    ox_model_free(m);
}

static void test_types(void **state)
{
    (void)state;
    ox_model *m = parse_ok(
        "g (float[N,?,3,-1] x, float[\"M + N\"] \"a b\", int64[] unk, double scal,\n"
        "   seq(bfloat16[]) sq, map(string, float) mp, optional(seq(float16[])) op,\n"
        "   sparse_tensor(float[10]) sp, opaque(d.e, T) opq, float8e4m3fn[] f8, int2 i2, notype)\n"
        "  => () {}");
    Onnx__ValueInfoProto **in = m->proto->graph->input;
    assert_int_equal(m->proto->graph->n_input, 12);
    Onnx__TensorShapeProto *sh = in[0]->type->tensor_type->shape;
    assert_int_equal(sh->n_dim, 4);
    assert_int_equal(sh->dim[1]->value_case, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET);
    assert_int_equal(sh->dim[3]->dim_value, -1);
    assert_string_equal(in[1]->name, "a b");
    assert_string_equal(in[1]->type->tensor_type->shape->dim[0]->dim_param, "M + N");
    assert_null(in[2]->type->tensor_type->shape);
    assert_int_equal(in[3]->type->tensor_type->shape->n_dim, 0);
    assert_int_equal(in[4]->type->sequence_type->elem_type->tensor_type->elem_type, 16);
    assert_int_equal(in[5]->type->map_type->key_type, 8);
    assert_int_equal(in[6]->type->value_case, ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE);
    assert_int_equal(in[7]->type->sparse_tensor_type->shape->dim[0]->dim_value, 10);
    assert_string_equal(in[8]->type->opaque_type->domain, "d.e");
    assert_string_equal(in[8]->type->opaque_type->name, "T");
    assert_int_equal(in[9]->type->tensor_type->elem_type, 17);
    assert_int_equal(in[10]->type->tensor_type->elem_type, 26);
    assert_null(in[11]->type);
    ox_model_free(m);
}

static void test_functions_and_comments(void **state)
{
    (void)state;
    ox_model *m = parse_ok(
        "# leading comment\n"
        "<ir_version: 8, opset_import: [\"\" : 18, \"local\" : 1]>\n"
        "g (float[N] x) => (float[N] y) {  # trailing\n"
        "  y = local.foo <alpha = 2.0> (x)\n"
        "}\n"
        "<domain: \"local\", overload: \"ov\", opset_import: [\"\" : 18]>\n"
        "foo <alpha: float = 4.0, gamma> (X, \"my in\") => (float C) <float t> {\n"
        "  t = Constant <value_float: float = @alpha> ()\n"
        "  C = Mul (X, t)\n"
        "}\n"
        "<domain: \"local\", opset_import: []> bar () => () {}");
    Onnx__ModelProto *p = m->proto;
    assert_int_equal(p->n_functions, 2);
    Onnx__FunctionProto *f = p->functions[0];
    assert_string_equal(f->name, "foo");
    assert_string_equal(f->domain, "local");
    assert_string_equal(f->overload, "ov");
    assert_int_equal(f->n_opset_import, 1);
    assert_int_equal(f->n_attribute, 1);
    assert_string_equal(f->attribute[0], "gamma");
    assert_int_equal(f->n_attribute_proto, 1);
    assert_string_equal(f->attribute_proto[0]->name, "alpha");
    assert_true(f->attribute_proto[0]->f == 4.0f);
    assert_int_equal(f->n_input, 2);
    assert_string_equal(f->input[1], "my in");
    assert_int_equal(f->n_output, 1);
    assert_int_equal(f->n_value_info, 2);   /* typed output C and <float t> */
    assert_int_equal(f->n_node, 2);
    assert_string_equal(p->functions[1]->name, "bar");
    assert_int_equal(p->functions[1]->n_opset_import, 0);
    ox_model_free(m);
}

static void test_no_separators(void **state)
{
    (void)state;
    ox_model *m = parse_ok("g(x)=>(y){y=Foo(x)z=Bar(y)}");
    assert_int_equal(m->proto->graph->n_node, 2);
    assert_string_equal(m->proto->graph->node[1]->op_type, "Bar");
    ox_model_free(m);
}

static void test_graph_only_entry(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    const char *t = "g (x) => (y) { y = Id(x) }";
    ox_model *m = ox_parse_graph_model(t, strlen(t), NULL, &d);
    assert_non_null(m);
    assert_int_equal(m->proto->graph->n_node, 1);
    ox_model_free(m);
    const char *t2 = "g (x) => (y) { y = Id(x) } extra";
    assert_null(ox_parse_graph_model(t2, strlen(t2), NULL, &d));
    assert_int_equal(d.errors, 1);
    assert_int_equal(d.items[0].col, 28);
    diag_free(&d);
}

static void test_errors(void **state)
{
    (void)state;
    parse_err("g (x) => (y) {\n  y = Relu(x\n}", 3, 1, "expected ')', found '}'");
    parse_err("g (x) = > (y) {}", 1, 8, "expected '>' right after '='");
    {
        diag_sink d;
        diag_init(&d);
        assert_null(ox_parse_model("g (x) = > (y) {}", 16, NULL, &d));
        assert_non_null(d.items[0].hint);
        assert_non_null(strstr(d.items[0].hint, "no space"));
        diag_free(&d);
    }
    parse_err("<ir_version: 8, bogus: 1>\ng () => () {}", 1, 17, "expected a model key");
    parse_err("<>\ng () => () {}", 1, 2, "expected a model key");
    parse_err("g () => () {\n  y = Op <a = \"x> ()\n}", 2, 15, "unterminated string");
    parse_err("g () => () <int32[] t = {1, 2}> {}", 1, 13, "known shape");
    parse_err("g () => () <int32[N] t = {1, 2}> {}", 1, 13, "numeric dimensions");
    parse_err("g () => () {\n y = Op <a: ints = 1.5> ()\n}", 2, 20, "does not match");
    parse_err("g () => () {\n y = Op <a = []> ()\n}", 2, 14, "empty list needs a type");
    parse_err("g () => () {\n y = Op <> ()\n}", 2, 10, "expected an attribute name, found '>'");
    parse_err("g () => () <int8 t = {3000000000}> {}", 1, 23, "fits int32");
    parse_err("g () => () <int64 t = {1.5}> {}", 1, 24, "int64");
    parse_err("g () => () {\n y = Op <a = inf1> ()\n}", 2, 18, "expected '=', found '>'");
    parse_err("g () => () {\n y = Op <a = 99999999999999999999> ()\n}", 2, 14, "out of range");
    parse_err("g (x) => (y) {", 1, 15, "expected a node or '}', found end of input");
    parse_err("", 1, 1, "expected a graph name, found end of input");
    parse_err("g () => () {}\n<domain: \"d\"> f () => () {\n", 3, 1, "found end of input");
}

/* Every prefix and many single-byte corruptions of a rich model must fail cleanly (or parse),
 * never crash or read past the end (valgrind run of this test checks the latter). */
static void test_truncation_and_mutation(void **state)
{
    (void)state;
    const char *text =
        "<ir_version: 8, opset_import: [\"\" : 18, \"l\" : 1], producer_name: \"p\">\n"
        "g (float[N,3] x, float y = {1}) => (float[N] w) <float[2] c = {1, 2}, int64 s> {\n"
        "  [n0] a = If <then_branch: graph = t () => (float z) { z = Constant <value: tensor = float {1}> () },\n"
        "              else_branch: graph = e () => (float z) { z = Identity (y) }> (x)\n"
        "  w = l.f <k: ints = [1, -2], s: strings = [\"u\", \"v\\\"\"], r = @q, tp = seq(map(int64, float[?]))> (a, , c)\n"
        "}\n"
        "<domain: \"l\", opset_import: [\"\" : 18]> f <q: float = 1.5, k> (A, B, C) => (D) { D = Add (A, B) }";
    size_t len = strlen(text);
    ox_model *full = parse_ok(text);
    ox_model_free(full);
    diag_sink d;
    diag_init(&d);
    size_t failures = 0;
    for (size_t n = 0; n < len; n++) {
        /* copy into an exact-size buffer so any over-read is caught by valgrind/ASan */
        char *buf = malloc(n ? n : 1);
        memcpy(buf, text, n);
        ox_model *m = ox_parse_model(buf, n, "trunc", &d);
        if (!m)
            failures++;
        ox_model_free(m);
        free(buf);
        diag_clear(&d);
    }
    assert_true(failures > len * 9 / 10);
    srand(12345);
    static const char junk[] = "<>{}()[],:=@\"\\#.-0123456789eE_azxN \n";
    for (int it = 0; it < 3000; it++) {
        char *buf = malloc(len);
        memcpy(buf, text, len);
        int edits = 1 + rand() % 3;
        for (int e = 0; e < edits; e++)
            buf[rand() % len] = junk[rand() % (sizeof junk - 1)];
        ox_model *m = ox_parse_model(buf, len, "mut", &d);
        assert_true(m != NULL || d.errors == 1);
        ox_model_free(m);
        free(buf);
        diag_clear(&d);
    }
    diag_free(&d);
}

static void test_deep_nesting(void **state)
{
    (void)state;
    size_t depth = 5000;
    char *buf = malloc(depth * 5 + 64);
    char *p = buf;
    p += sprintf(p, "g (");
    for (size_t i = 0; i < depth; i++)
        p += sprintf(p, "seq(");
    p += sprintf(p, "float");
    for (size_t i = 0; i < depth; i++)
        *p++ = ')';
    p += sprintf(p, " x) => () {}");
    diag_sink d;
    diag_init(&d);
    assert_null(ox_parse_model(buf, (size_t)(p - buf), NULL, &d));
    assert_non_null(strstr(d.items[0].message, "too deep"));
    diag_free(&d);
    free(buf);
}

/* Printer output that onnx's own parser rejects but fxsh reads back: raw non-identifier
 * dim_params (onnx <= 1.21) and "..." for undecodable raw data (kept empty, with a warning). */
static void test_printer_quirks(void **state)
{
    (void)state;
    const char *t = "g (float[Ifonnx::Concat_15_dim_0,a/b] x) => (bool y) \n"
                    "   <bool lt = ...>\n{\n   y = Constant <value: tensor = bool...> ()\n}";
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_parse_model(t, strlen(t), "q", &d);
    assert_non_null(m);
    assert_int_equal(d.errors, 0);
    assert_int_equal(d.len, 2);
    assert_int_equal(d.items[0].severity, DIAG_WARNING);
    assert_int_equal(d.items[0].line, 2);
    assert_int_equal(d.items[0].col, 15);
    const Onnx__TensorShapeProto *sh = m->proto->graph->input[0]->type->tensor_type->shape;
    assert_string_equal(sh->dim[0]->dim_param, "Ifonnx::Concat_15_dim_0");
    assert_string_equal(sh->dim[1]->dim_param, "a/b");
    assert_true(m->proto->graph->initializer[0]->has_raw_data);
    char *again = ox_graph_to_text(m->proto->graph);
    assert_string_equal(again, t);
    free(again);
    ox_model_free(m);
    diag_free(&d);
}

/* The onnx repo's parser_test harness property: text1 = print(parse(x)); print(parse(text1))
 * must equal text1, for its verbatim inputs (graph-level ones here). */
static void test_print_parse_idempotent(void **state)
{
    (void)state;
    static const char *const inputs[] = {
        "agraph (float y = {1.0}, float[N] z) => (float[N] w)\n"
        "<float[2] w1 = {1.0, 2.0}, float[3] w2 = {4.0, 5.0, 6.0}, float[N] x>\n"
        "{ x = foo(y, z, w1)  w = bar(x, y, w2) }",
        "agraph (float y = {1.0}, float[N] z) => (w) <\n"
        "    float[3, 2] m1 = [\"location\": \"weight_1.bin\", \"offset\": \"17\"], float[2, 1] m2 = {1.0, 2.0} > "
        "{ w = foo(m1, m2, z) }",
        "\"a graph name\" (float[N, 128] \"input/X\", float[128,10] \"input W\", float[10] B) => (float[N] C) "
        "{ C = Gemm (\"input/X\", \"input W\", B) }",
        "g (x, y, z) => (a) { a = foo <d = [5, 10], e = [0.55, 0.66], f = [\"str1\", \"str2\"]> (y, z)\n"
        " [node1] b = com.example.foo(y, , z) c = SomeOp (,) }",
        "g () => () <int32[5] T = {1, 2, 3, 4, 5}, float[5] F = {1e1, 2.0e-1, 3.1E-1, 4E+1, 5.5e-10},\n"
        " string[2] S = { \"Use a \\\"quoted\\\" word\", \"Use a backslash \\\\ like this.\" }> {}",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        diag_sink d;
        diag_init(&d);
        ox_model *m = ox_parse_graph_model(inputs[i], strlen(inputs[i]), NULL, &d);
        if (!m)
            diag_render_all(&d, stderr, NULL, false);
        assert_non_null(m);
        char *t1 = ox_graph_to_text(m->proto->graph);
        ox_model *m2 = ox_parse_graph_model(t1, strlen(t1), NULL, &d);
        assert_non_null(m2);
        char *t2 = ox_graph_to_text(m2->proto->graph);
        assert_string_equal(t1, t2);
        free(t1);
        free(t2);
        ox_model_free(m);
        ox_model_free(m2);
        diag_free(&d);
    }
}

static void test_text_complete(void **state)
{
    (void)state;
#define C(s) ox_text_complete(s, strlen(s))
    assert_false(C(""));
    assert_false(C("<ir_version: 8>"));
    assert_false(C("g (x) => (y) {"));
    assert_false(C("g (x) => (y) {\n y = If <then_branch: graph = t () => () {"));
    assert_true(C("g (x) => (y) {\n y = Id (x)\n}\n"));
    assert_false(C("g (x) => (y) { y = Op <s = \"}\"> (x)"));
    assert_true(C("g (x) => (y) { y = Op <s = \"}\"> (x) }"));
    assert_false(C("g (x) => (y) { # }\n"));
    assert_false(C("g () => () { y = Op <s = \"unterminated"));
    assert_true(C("}"));
#undef C
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_header),
        cmocka_unit_test(test_graph_io_and_inits),
        cmocka_unit_test(test_node_forms),
        cmocka_unit_test(test_attribute_kinds),
        cmocka_unit_test(test_tensor_dtypes),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_functions_and_comments),
        cmocka_unit_test(test_no_separators),
        cmocka_unit_test(test_graph_only_entry),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_truncation_and_mutation),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_printer_quirks),
        cmocka_unit_test(test_print_parse_idempotent),
        cmocka_unit_test(test_text_complete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
