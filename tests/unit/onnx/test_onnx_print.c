/* test_onnx_print.c — the ONNX text printer against outputs of the real onnx printer.
 *
 * Expected strings are the [verified] outputs of onnx's printer.cc quoted in
 * reference/onnx_text.md (adjusted to the 1.20 rules where that document says 1.20 differs)
 * and the fixtures copied from the corpus (tests/fixtures/onnx/<name>/{model.onnx,expected.txt}). */
#include "test_paths.h"
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/file.h"
#include "base/strbuf.h"
#include "onnx/onnx_ir.h"
#include "onnx/onnx_pb.h"
#include "onnx/onnx_print.h"


#define T_FLOAT ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
#define T_INT64 ONNX__TENSOR_PROTO__DATA_TYPE__INT64

static char *read_all(const char *path, size_t *len)
{
    return file_slurp(path, len);
}

static void test_fixtures(void **state)
{
    (void)state;
    static const char *names[] = {"test_if", "test_regex_full_match_email_domain", "test_Conv1d",
                                  "light_bvlc_alexnet", "test_ai_onnx_ml_label_encoder_string_int",
                                  "cond_dynamic"};
    char tmp[] = "/tmp/fxsh_print_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024], exp[1024];
        snprintf(path, sizeof path, "%s/%s/model.onnx", TEST_FIXTURES "/onnx", names[i]);
        snprintf(exp, sizeof exp, "%s/%s/expected.txt", TEST_FIXTURES "/onnx", names[i]);
        char *want = read_all(exp, NULL);
        assert_non_null(want);
        diag_sink d;
        diag_init(&d);
        ox_model *m = ox_load_file(path, &d);
        assert_non_null(m);
        char *got = ox_model_to_text(m->proto);
        assert_string_equal(got, want);
        /* streaming to a FILE gives the same bytes */
        FILE *f = tmpfile();
        strbuf sb;
        sb_init(&sb);
        assert_int_equal(ox_print_model(m->proto, &sb, f), 0);
        assert_int_equal(sb.len, 0);
        rewind(f);
        char *streamed = xcalloc(strlen(want) + 2, 1);
        size_t n = fread(streamed, 1, strlen(want) + 1, f);
        assert_int_equal(n, strlen(want));
        assert_string_equal(streamed, want);
        free(streamed);
        fclose(f);
        sb_free(&sb);
        /* save → load → print is stable */
        assert_int_equal(ox_save_file(m, tmp, NULL, &d), 0);
        ox_model *m2 = ox_load_file(tmp, &d);
        assert_non_null(m2);
        char *got2 = ox_model_to_text(m2->proto);
        assert_string_equal(got2, want);
        free(got2);
        ox_model_free(m2);
        free(got);
        free(want);
        ox_model_free(m);
        assert_false(diag_has_errors(&d));
        diag_free(&d);
    }
    unlink(tmp);
}

static void test_numbers(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(ox_format_float(b, 0.1f), "0.1");
    assert_string_equal(ox_format_float(b, 1e-5f), "1e-05");
    assert_string_equal(ox_format_float(b, 100000.0f), "100000");
    assert_string_equal(ox_format_float(b, 1e6f), "1e+06");
    assert_string_equal(ox_format_float(b, 123456.7f), "123457");
    assert_string_equal(ox_format_float(b, 3.4028235e38f), "3.40282e+38");
    assert_string_equal(ox_format_float(b, 1e-45f), "1.4013e-45");
    assert_string_equal(ox_format_float(b, 2.0f / 3.0f), "0.666667");
    assert_string_equal(ox_format_float(b, 1.0 / 3.0), "0.333333");
    assert_string_equal(ox_format_float(b, 1e100), "1e+100");
    assert_string_equal(ox_format_float(b, -0.0f), "-0");
    assert_string_equal(ox_format_float(b, (float)INFINITY), "inf");
    assert_string_equal(ox_format_float(b, -(float)INFINITY), "-inf");
    assert_string_equal(ox_format_float(b, (float)NAN), "nan");
    assert_string_equal(ox_format_float(b, -(float)NAN), "-nan");
}

/* §2: presence decides, strings are escaped and newlines written raw. */
static void test_model_header(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(7);
    m->proto->producer_name = ox_strdup(m, "pro\"d\\uc\ner");
    m->proto->producer_version = ox_strdup(m, "");
    ox_model_set_opset(m, "", 18);
    ox_model_set_opset(m, "com.microsoft", 1);
    m->proto->graph->name = ox_strdup(m, "g");
    char *got = ox_model_to_text(m->proto);
    assert_string_equal(got, "<\n"
                             "   ir_version: 7,\n"
                             "   opset_import: [\"\" : 18, \"com.microsoft\" : 1],\n"
                             "   producer_name: \"pro\\\"d\\\\uc\ner\",\n"
                             "   producer_version: \"\"\n"
                             ">\n"
                             "g () => () {\n}");
    free(got);
    ox_model_free(m);
}

static char *graph_text(Onnx__GraphProto *g)
{
    return ox_graph_to_text(g);
}

/* §4: node names, quoting, no outputs, empty inputs, domains and overloads. */
static void test_nodes(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    Onnx__GraphProto *g = m->proto->graph;
    g->name = ox_strdup(m, "torch-jit-export");
    Onnx__NodeProto *n = ox_graph_add_node(m, g, "Print", "my node/1");
    n->overload = ox_strdup(m, "v2");
    ox_node_add_input(m, n, "t1");
    n = ox_graph_add_node(m, g, "LabelEncoder", NULL);
    n->domain = ox_strdup(m, "ai.onnx.ml");
    ox_attr_string(m, n, "default_string", "");
    ox_node_add_input(m, n, "X");
    ox_node_add_output(m, n, "Y");
    n = ox_graph_add_node(m, g, "SomeOp", "");
    ox_node_add_input(m, n, "");
    ox_node_add_input(m, n, "mlp.0.bias");
    ox_node_add_output(m, n, "0");
    ox_node_add_output(m, n, "_ok9");
    n = ox_graph_add_node(m, g, "Constant", NULL);
    ox_node_add_output(m, n, "c");
    ox_attr_ints(m, n, "e", NULL, 0);
    char *got = graph_text(g);
    assert_string_equal(got,
                        "\"torch-jit-export\" () => () {\n"
                        "   [\"my node/1\"]  = Print:v2 (t1)\n"
                        "   Y = ai.onnx.ml.LabelEncoder <default_string: string = \"\"> (X)\n"
                        "   [\"\"] \"0\", _ok9 = SomeOp (\"\", \"mlp.0.bias\")\n"
                        "   c = Constant <e: ints = []> ()\n"
                        "}");
    free(got);
    ox_model_free(m);
}

/* §6: every attribute kind, including the 1.20 quirks. */
static void test_attributes(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    Onnx__NodeProto *n = ox_graph_add_node(m, m->proto->graph, "Op", NULL);
    ox_attr_int(m, n, "axis", -1);
    ox_attr_float(m, n, "alpha", 0.2f);
    ox_attr_string(m, n, "mode", "(\\W|^)\"q\"");
    ox_attr_ref(m, n, "ref", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, "alpha");
    ox_attr_strings(m, n, "ss", NULL, 0);
    const char *two[] = {"a", "b c"};
    ox_attr_strings(m, n, "s2", two, 2);
    float fl[] = {1e-5f, 1e6f, -0.0f};
    ox_attr_floats(m, n, "fs", fl, 3);
    Onnx__TypeProto *tps[] = {ox_type_tensor(m, T_FLOAT, NULL, 0, false),
                              ox_type_tensor(m, T_INT64, NULL, 0, false)};
    ox_attr_types(m, n, "tps", tps, 2);
    int64_t one = 1;
    int32_t i2[] = {1, 2};
    int64_t d2 = 2;
    Onnx__TensorProto *ts[] = {ox_tensor_new(m, NULL, T_INT64, NULL, 0),
                               ox_tensor_new(m, NULL, ONNX__TENSOR_PROTO__DATA_TYPE__INT32, &d2, 1)};
    ox_tensor_set_int64s(m, ts[0], &one, 1);
    ox_tensor_set_int32s(m, ts[1], i2, 2);
    ox_attr_tensors(m, n, "ts", ts, 2);
    ox_attr_new(m, n, "undef", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED);
    ox_attr_sparse(m, n, "sp", NULL);
    const char *dims[] = {"5"};
    ox_attr_type(m, n, "type", ox_type_sequence(m, ox_type_tensor(m, T_FLOAT, dims, 1, true)));
    Onnx__TensorProto *t = ox_tensor_new(m, "s", ONNX__TENSOR_PROTO__DATA_TYPE__STRING, NULL, 0);
    ox_tensor_add_string(m, t, "s", 1);
    ox_attr_tensor(m, n, "value", t);
    char *got = ox_graph_to_text(m->proto->graph);
    assert_string_equal(
        got, "\"\" () => () {\n"
             "    = Op <axis: int = -1, alpha: float = 0.2, mode: string = \"(\\W|^)\"q\"\", "
             "ref: float = @alpha, ss: strings = ], s2: strings = [\"a\", \"b c\"], "
             "fs: floats = [1e-05, 1e+06, -0], tps: type_protos = [float[], int64[]], "
             "ts: tensors = [int64 {1}, int32[2] {1,2}], undef: undefined = , "
             "sp: sparse_tensor = , type: type_proto = seq(float[5]), "
             "value: tensor = string s{\"s\"}> ()\n"
             "}");
    free(got);
    ox_model_free(m);
}

/* §3: subgraph indentation and the <...> block, nested two deep. */
static void test_nested_subgraphs(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    Onnx__GraphProto *g = m->proto->graph;
    g->name = ox_strdup(m, "G");
    Onnx__NodeProto *n3 = ox_graph_add_node(m, g, "If", "n3");
    ox_node_add_input(m, n3, "c");
    ox_node_add_output(m, n3, "y");
    ox_attr_int(m, n3, "a0", 1);
    Onnx__GraphProto *then = ox_graph_new(m, "then");
    const char *N[] = {"N"};
    ox_graph_add_output(m, then, "yt", ox_type_tensor(m, T_FLOAT, N, 1, true));
    Onnx__TensorProto *c1 = ox_tensor_new(m, "c1", T_FLOAT, NULL, 0);
    float v = 2.5f;
    ox_tensor_set_floats(m, c1, &v, 1);
    ox_graph_add_initializer(m, then, c1);
    ox_graph_add_value_info(m, then, "z", ox_type_tensor(m, T_FLOAT, NULL, 0, true));
    Onnx__NodeProto *loop = ox_graph_add_node(m, then, "Loop", NULL);
    ox_node_add_input(m, loop, "");
    ox_node_add_input(m, loop, "");
    ox_node_add_output(m, loop, "yt");
    Onnx__GraphProto *body = ox_graph_new(m, "body");
    ox_graph_add_input(m, body, "i", ox_type_tensor(m, T_INT64, NULL, 0, true));
    ox_graph_add_value_info(m, body, "q", ox_type_tensor(m, T_FLOAT, NULL, 0, true));
    Onnx__NodeProto *q = ox_graph_add_node(m, body, "Identity", NULL);
    ox_node_add_input(m, q, "i");
    ox_node_add_output(m, q, "q");
    ox_attr_graph(m, loop, "body", body);
    Onnx__NodeProto *z = ox_graph_add_node(m, then, "Neg", NULL);
    ox_node_add_input(m, z, "yt");
    ox_node_add_output(m, z, "z");
    ox_attr_graph(m, n3, "then_branch", then);
    Onnx__GraphProto *gs[2];
    for (int k = 0; k < 2; k++) {
        gs[k] = ox_graph_new(m, k ? "g1" : "g0");
        Onnx__NodeProto *o = ox_graph_add_node(m, gs[k], "Id", NULL);
        ox_node_add_input(m, o, "i");
        ox_node_add_output(m, o, "o");
    }
    ox_attr_graphs(m, n3, "gs", gs, 2);
    char *got = ox_graph_to_text(g);
    assert_string_equal(got, "G () => () {\n"
                             "   [n3] y = If (c) <a0: int = 1, then_branch: graph = then () => (float[N] yt) \n"
                             "      <float c1 =  {2.5}, float z>\n"
                             "{\n"
                             "      yt = Loop (\"\", \"\") <body: graph = body (int64 i) => () \n"
                             "         <float q>\n"
                             "{\n"
                             "         q = Identity (i)\n"
                             "      }>\n"
                             "      z = Neg (yt)\n"
                             "   }, gs: graphs = [g0 () => () {\n"
                             "      o = Id (i)\n"
                             "   }, g1 () => () {\n"
                             "      o = Id (i)\n"
                             "   }]>\n"
                             "}");
    free(got);
    ox_model_free(m);
}

/* §5: tensor data forms in an initializer block, 1.20 rules. */
static void test_tensors(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    Onnx__GraphProto *g = m->proto->graph;
    g->name = ox_strdup(m, "g");
    int64_t two = 2, zero = 0;
    Onnx__TensorProto *t = ox_tensor_new(m, "w_ht", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16, &two, 1);
    int32_t h[] = {15360, 49152};
    ox_tensor_set_int32s(m, t, h, 2);
    ox_graph_add_initializer(m, g, t);
    t = ox_tensor_new(m, "w_d", ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, &two, 1);
    double dd[] = {1.0 / 3.0, 1e100};
    ox_tensor_set_doubles(m, t, dd, 2);
    ox_graph_add_initializer(m, g, t);
    t = ox_tensor_new(m, "w_s", ONNX__TENSOR_PROTO__DATA_TYPE__STRING, &two, 1);
    ox_tensor_add_string(m, t, "a\"b", 3);
    ox_tensor_add_string(m, t, "", 0);
    ox_graph_add_initializer(m, g, t);
    ox_graph_add_initializer(m, g, ox_tensor_new(m, "w_s0", ONNX__TENSOR_PROTO__DATA_TYPE__STRING, &zero, 1));
    t = ox_tensor_new(m, "w.i8", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, &two, 1);
    ox_tensor_set_raw(m, t, "\xff\x02", 2);
    ox_graph_add_initializer(m, g, t);
    t = ox_tensor_new(m, "w_ext", T_FLOAT, &two, 1);
    ox_tensor_add_external(m, t, "location", "w.bin");
    ox_tensor_add_external(m, t, "offset", "0");
    ox_graph_add_initializer(m, g, t);
    t = ox_tensor_new(m, "w_i64", T_INT64, NULL, 0);
    int64_t m5 = -5;
    ox_tensor_set_int64s(m, t, &m5, 1);
    ox_graph_add_initializer(m, g, t);
    int64_t one = 1;
    ox_graph_add_initializer(m, g, ox_tensor_new(m, "w_c64", ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64, &one, 1));
    ox_graph_add_initializer(m, g, ox_tensor_new(m, "w_empty", T_FLOAT, &zero, 1));
    ox_graph_add_initializer(m, g, ox_tensor_new(m, "w_nodata", T_FLOAT, &two, 1));
    /* raw float32 with nan / -inf, and a raw buffer too short for its dims (1.20 ignores dims) */
    t = ox_tensor_new(m, "r", T_FLOAT, &two, 1);
    float rf[] = {-(float)INFINITY, -(float)NAN};
    ox_tensor_set_raw(m, t, rf, sizeof rf);
    ox_graph_add_initializer(m, g, t);
    t = ox_tensor_new(m, "short", T_FLOAT, &two, 1);
    ox_tensor_set_raw(m, t, rf, 6);
    ox_graph_add_initializer(m, g, t);
    char *got = ox_graph_to_text(g);
    assert_string_equal(got,
                        "g () => () \n"
                        "   <float16[2] w_ht = , double[2] w_d =  {0.333333,1e+100}, "
                        "string[2] w_s = {\"a\\\"b\", \"\"}, string[0] w_s0 = }, int8[2] \"w.i8\" = ..., "
                        "float[2] w_ext = [\"location\": \"w.bin\", \"offset\": \"0\"], int64 w_i64 =  {-5}, "
                        "complex64[1] w_c64 = , float[0] w_empty =  {}, float[2] w_nodata =  {}, "
                        "float[2] r =  {-inf,-nan}, float[2] short =  {-inf}>\n"
                        "{\n}");
    free(got);
    ox_model_free(m);
}

/* §7: value types, and local functions. */
static void test_types_and_functions(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    Onnx__GraphProto *g = m->proto->graph;
    g->name = ox_strdup(m, "g");
    const char *d1[] = {"N", "?", "3", "-1"}, *d2[] = {"M + N"}, *d10[] = {"10"};
    ox_graph_add_input(m, g, "x", ox_type_tensor(m, T_FLOAT, d1, 4, true));
    ox_graph_add_input(m, g, "a b", ox_type_tensor(m, T_FLOAT, d2, 1, true));
    ox_graph_add_input(m, g, "unk", ox_type_tensor(m, T_INT64, NULL, 0, false));
    ox_graph_add_input(m, g, "scal", ox_type_tensor(m, ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, NULL, 0, true));
    ox_graph_add_input(m, g, "notype", NULL);
    ox_graph_add_input(m, g, "sq", ox_type_sequence(m, ox_type_tensor(m, ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16, NULL, 0, false)));
    ox_graph_add_input(m, g, "mp", ox_type_map(m, ONNX__TENSOR_PROTO__DATA_TYPE__STRING, ox_type_tensor(m, T_FLOAT, NULL, 0, true)));
    ox_graph_add_input(m, g, "op", ox_type_optional(m, ox_type_sequence(m, ox_type_tensor(m, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16, NULL, 0, false))));
    ox_graph_add_input(m, g, "sp", ox_type_sparse(m, T_FLOAT, d10, 1, true));
    ox_graph_add_input(m, g, "opq", ox_type_opaque(m, "d.e", "T"));
    ox_graph_add_input(m, g, "f8", ox_type_tensor(m, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E4M3FN, NULL, 0, false));
    ox_graph_add_input(m, g, "i4", ox_type_tensor(m, ONNX__TENSOR_PROTO__DATA_TYPE__INT4, NULL, 0, false));
    ox_graph_add_input(m, g, "und", ox_type_tensor(m, 0, NULL, 0, false));
    ox_graph_add_input(m, g, "u2", ox_type_tensor(m, ONNX__TENSOR_PROTO__DATA_TYPE__UINT2, NULL, 0, true));
    ox_graph_add_input(m, g, "e8", ox_type_tensor(m, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT8E8M0, NULL, 0, true));
    ox_graph_add_input(m, g, "bad", ox_type_tensor(m, 99, NULL, 0, true));
    Onnx__FunctionProto *f = ox_model_add_function(m, "local", "fn");
    f->overload = ox_strdup(m, "ov");
    ox_function_set_opset(m, f, "", 18);
    ox_function_set_opset(m, f, "local", 1);
    ox_function_add_attribute_name(m, f, "alpha");
    ox_function_add_attribute_name(m, f, "beta");
    ox_function_add_input(m, f, "X");
    ox_function_add_input(m, f, "my in");
    ox_function_add_output(m, f, "Y");
    Onnx__NodeProto *n = ox_function_add_node(m, f, "Constant", NULL);
    ox_node_add_output(m, n, "Y");
    ox_attr_ref(m, n, "value_float", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, "alpha");
    f = ox_model_add_function(m, "", "fn2");
    n = ox_function_add_node(m, f, "Relu", NULL);
    ox_node_add_input(m, n, "X");
    ox_node_add_output(m, n, "Y");
    char *got = ox_model_to_text(m->proto);
    assert_string_equal(got,
                        "<\n   ir_version: 10,\n   opset_import: []\n>\n"
                        "g (float[N,?,3,-1] x, float[M + N] \"a b\", int64[] unk, double scal,  notype, "
                        "seq(bfloat16[]) sq, map(string, float) mp, optional(seq(float16[])) op, "
                        "sparse_tensor(float[10]) sp,  opq, float8e4m3fn[] f8, int4[] i4, undefined[] und, "
                        "uint2 u2, float8e8m0 e8, undefined bad) => () {\n"
                        "}\n"
                        "<\n"
                        "  domain: \"local\",\n"
                        "  overload: \"ov\",\n"
                        "  opset_import: [\"\" : 18,\"local\" : 1]\n"
                        ">\n"
                        "fn <alpha,beta>(X, \"my in\") => (Y)\n"
                        "{\n"
                        "   Y = Constant <value_float: float = @alpha> ()\n"
                        "}\n"
                        "<\n"
                        "  domain: \"\",\n"
                        "  opset_import: []\n"
                        ">\n"
                        "fn2 () => ()\n"
                        "{\n"
                        "   Y = Relu (X)\n"
                        "}");
    free(got);
    /* a lone node prints with three spaces and a newline */
    strbuf sb;
    sb_init(&sb);
    ox_print_node(n, &sb, NULL);
    assert_string_equal(sb.s, "   Y = Relu (X)\n");
    sb_free(&sb);
    ox_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_model_header),
        cmocka_unit_test(test_nodes),
        cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_nested_subgraphs),
        cmocka_unit_test(test_tensors),
        cmocka_unit_test(test_types_and_functions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
