/* test_onnx_values.c — value files (.npy/.npz, .pb, JSON), numpy's repr, and whole-model
 * evaluation with a subgraph (onnx_npz.h, onnx_values.h, onnx_repr.h, oe_eval_model). */
#define _GNU_SOURCE
#include <dirent.h>
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
#include "eval/onnx_eval.h"
#include "view/onnx_npz.h"
#include "onnx/onnx_parse.h"
#include "view/onnx_repr.h"
#include "view/onnx_values.h"

enum { F32 = 1, U8 = 2, I8 = 3, I64 = 7, BOOL = 9, F16 = 10, F64 = 11 };

static char tmpdir[256];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fxsh_values_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void expect_repr(const oe_tensor *t, const char *want)
{
    strbuf sb;
    sb_init(&sb);
    view_repr(t, &sb);
    assert_string_equal(sb.s, want);
    sb_free(&sb);
}

static void test_npy_roundtrip(void **state)
{
    (void)state;
    int dtypes[] = {F32, F64, F16, I64, I8, U8, BOOL};
    for (size_t k = 0; k < sizeof dtypes / sizeof *dtypes; k++) {
        oe_tensor t, u;
        assert_int_equal(ot_tensor_from_f(&t, dtypes[k], (int64_t[]){2, 3}, 2, (double[]){1, 0, 3, 1, 5, 0.5}), OE_OK);
        size_t len;
        void *img = npy_encode(&t, &len);
        assert_non_null(img);
        assert_int_equal(len % 64, (size_t)t.numel * ot_dtype_bytes(t.dtype) % 64);   /* header padded to 64 */
        diag_sink d;
        diag_init(&d);
        assert_int_equal(npy_decode(img, len, "t.npy", &u, &d), 0);
        assert_true(ot_tensor_equal(&t, &u));
        /* a truncated image is an error, not a crash */
        oe_tensor v;
        assert_int_equal(npy_decode(img, len - 1 > 10 ? len - 1 : 10, "t.npy", &v, &d), t.numel ? -1 : 0);
        assert_true(d.len >= 1);
        diag_free(&d);
        free(img);
        ot_tensor_free(&t);
        ot_tensor_free(&u);
    }
}

/* A hand-written Fortran-order, big-endian int16 .npy decodes to the C-order values. */
static void test_npy_fortran_big_endian(void **state)
{
    (void)state;
    const char hdr[] = "{'descr': '>i2', 'fortran_order': True, 'shape': (2, 3), }";
    unsigned char img[128] = "\x93NUMPY\x01\x00";
    size_t hl = sizeof hdr - 1;
    img[8] = (unsigned char)hl;
    memcpy(img + 10, hdr, hl);
    /* column-major [[1, 2, 3], [4, 5, 6]]: 1 4 2 5 3 6 */
    int16_t vals[] = {1, 4, 2, 5, 3, 6};
    for (int i = 0; i < 6; i++) {
        img[10 + hl + 2 * i] = (unsigned char)(vals[i] >> 8);
        img[10 + hl + 2 * i + 1] = (unsigned char)(vals[i] & 0xff);
    }
    oe_tensor t;
    diag_sink d;
    diag_init(&d);
    assert_int_equal(npy_decode(img, 10 + hl + 12, "f.npy", &t, &d), 0);
    assert_int_equal(t.rank, 2);
    assert_int_equal(t.dims[0], 2);
    assert_int_equal(t.dims[1], 3);
    for (int i = 0; i < 6; i++) assert_int_equal(ot_get_i(&t, i), i + 1);
    ot_tensor_free(&t);
    diag_free(&d);
}

static void test_npz_write_read(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/out.npz", tmpdir);
    oe_tensor a, b;
    ot_tensor_from_f(&a, F32, (int64_t[]){2}, 1, (double[]){1.5, -2});
    ot_tensor_from_i(&b, I64, NULL, 0, (int64_t[]){7});
    const char *names[] = {"x", "output_0"};
    const oe_tensor *vals[] = {&a, &b};
    diag_sink d;
    diag_init(&d);
    assert_int_equal(npz_write(path, names, vals, 2, &d), 0);
    /* nothing but the archive is left in the folder (the temporary file was renamed) */
    DIR *dir = opendir(tmpdir);
    int files = 0;
    for (struct dirent *e; (e = readdir(dir));) files += e->d_name[0] != '.';
    closedir(dir);
    assert_int_equal(files, 1);
    oe_values v;
    assert_int_equal(view_values_read(path, &v, &d), 0);
    assert_int_equal(v.len, 2);
    assert_string_equal(v.items[0].name, "x");
    assert_true(ot_tensor_equal(&v.items[0].value, &a));
    assert_int_equal(v.items[1].role, OE_ROLE_OUTPUT);
    const char *graph_out[] = {"y"};
    const oe_value *picked = view_values_pick(&v, OE_ROLE_OUTPUT, "y", 0, graph_out, 1);
    assert_non_null(picked);
    assert_string_equal(picked->name, "output_0");
    view_values_free(&v);
    ot_tensor_free(&a);
    ot_tensor_free(&b);
    diag_free(&d);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_json_values(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/in.json", tmpdir);
    diag_sink d;
    diag_init(&d);
    oe_values v;
    write_text(path, "{\"x\": [[1, 2.5], [3, 4]], \"flag\": true, \"n\": {\"dtype\": \"int32\", \"data\": [1, 2]}}");
    assert_int_equal(view_values_read(path, &v, &d), 0);
    assert_int_equal(v.len, 3);
    assert_int_equal(v.items[0].value.dtype, F32);
    assert_true(v.items[0].untyped);
    assert_int_equal(v.items[0].value.dims[1], 2);
    assert_int_equal(v.items[1].value.dtype, BOOL);
    assert_int_equal(v.items[2].value.dtype, 6);
    assert_false(v.items[2].untyped);
    view_values_free(&v);
    write_text(path, "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [2, 1], \"data\": [1, 2]}],"
                     " \"outputs\": [{\"name\": \"y\", \"dtype\": \"float64\", \"shape\": [], \"data\": [3]}]}");
    assert_int_equal(view_values_read(path, &v, &d), 0);
    assert_int_equal(v.len, 2);
    assert_int_equal(v.items[0].role, OE_ROLE_INPUT);
    assert_int_equal(v.items[1].role, OE_ROLE_OUTPUT);
    assert_int_equal(v.items[1].value.rank, 0);
    view_values_free(&v);
    /* ragged lists and short data are errors naming the file and value */
    write_text(path, "{\"x\": [[1, 2], [3]]}");
    assert_int_equal(view_values_read(path, &v, &d), -1);
    assert_non_null(strstr(d.items[d.len - 1].message, "x"));
    write_text(path, "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [3], \"data\": [1, 2]}]}");
    assert_int_equal(view_values_read(path, &v, &d), -1);
    diag_free(&d);
}

static void test_pb_values(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    Onnx__TensorProto *p = ox_tensor_new(m, "w", F32, (int64_t[]){2}, 1);
    ox_tensor_set_floats(m, p, (float[]){1, 2}, 2);
    size_t len = onnx__tensor_proto__get_packed_size(p);
    uint8_t *buf = malloc(len);
    onnx__tensor_proto__pack(p, buf);
    oe_tensor t;
    char *name;
    diag_sink d;
    diag_init(&d);
    assert_int_equal(view_value_from_pb(buf, len, -1, "w.pb", &t, &name, &d), 0);
    assert_string_equal(name, "w");
    assert_int_equal(t.numel, 2);
    ot_tensor_free(&t);
    free(name);
    /* the same bytes as a sequence: one tensor in it */
    Onnx__SequenceProto s = ONNX__SEQUENCE_PROTO__INIT;
    s.n_tensor_values = 1;
    s.tensor_values = &p;
    size_t slen = onnx__sequence_proto__get_packed_size(&s);
    uint8_t *sbuf = malloc(slen);
    onnx__sequence_proto__pack(&s, sbuf);
    assert_int_equal(view_value_from_pb(sbuf, slen, OE_KIND_SEQUENCE, "s.pb", &t, NULL, &d), 0);
    assert_int_equal(t.kind, OE_KIND_SEQUENCE);
    assert_int_equal(t.n_items, 1);
    expect_repr(&t, "[array([1., 2.], dtype=float32)]");
    ot_tensor_free(&t);
    free(sbuf);
    free(buf);
    diag_free(&d);
    ox_model_free(m);
}

static void test_repr(void **state)
{
    (void)state;
    oe_tensor t;
    ot_tensor_from_f(&t, F32, (int64_t[]){3}, 1, (double[]){-1.5, 0.333333333, 1.0 / 0.0});
    expect_repr(&t, "array([-1.5       ,  0.33333334,         inf], dtype=float32)");
    ot_tensor_free(&t);
    ot_tensor_from_f(&t, F64, (int64_t[]){2}, 1, (double[]){1e-5, 1});
    expect_repr(&t, "array([1.e-05, 1.e+00])");
    ot_tensor_free(&t);
    ot_tensor_from_i(&t, I64, (int64_t[]){2, 2}, 2, (int64_t[]){1, -20, 3, 4});
    expect_repr(&t, "array([[  1, -20],\n       [  3,   4]])");
    ot_tensor_free(&t);
    ot_tensor_from_f(&t, F16, NULL, 0, (double[]){0.1});
    expect_repr(&t, "array(0.1, dtype=float16)");
    ot_tensor_free(&t);
    double v[1001];
    for (int i = 0; i < 1001; i++) v[i] = i;
    ot_tensor_from_f(&t, F64, (int64_t[]){1001}, 1, v);
    expect_repr(&t, "array([   0.,    1.,    2., ...,  998.,  999., 1000.], shape=(1001,))");
    ot_tensor_free(&t);
    ot_tensor_from_f(&t, F32, (int64_t[]){2, 0}, 2, v);
    expect_repr(&t, "array([], shape=(2, 0), dtype=float32)");
    ot_tensor_free(&t);
}

/* A model with an If: the branch sees the outer x; an unknown op names its node. */
static void test_model_with_if(void **state)
{
    (void)state;
    const char *text =
        "<ir_version: 8, opset_import: [\"\" : 18]>\n"
        "g (float[2] x, bool c) => (float[2] y) {\n"
        "   y = If (c) <then_branch = t () => (float[2] a) { a = Neg (x) },"
        " else_branch = e () => (float[2] b) { b = Abs (x) }>\n"
        "}\n";
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_parse_model(text, strlen(text), "if.txt", &d);
    assert_non_null(m);
    oe_tensor x, c, y;
    ot_tensor_from_f(&x, F32, (int64_t[]){2}, 1, (double[]){-1, 2});
    ot_tensor_from_i(&c, BOOL, NULL, 0, (int64_t[]){1});
    oe_named in[] = {{"x", &x}, {"c", &c}};
    assert_int_equal(oe_eval_model(m, in, 2, &y, NULL, &d), OE_OK);
    assert_true(ot_get_f(&y, 0) == 1 && ot_get_f(&y, 1) == -2);
    ot_tensor_free(&y);
    ot_set_i(&c, 0, 0);
    assert_int_equal(oe_eval_model(m, in, 2, &y, NULL, &d), OE_OK);
    assert_true(ot_get_f(&y, 0) == 1 && ot_get_f(&y, 1) == 2);
    ot_tensor_free(&y);
    /* a missing input is an error, not a crash */
    assert_int_equal(oe_eval_model(m, in, 1, &y, NULL, &d), OE_ERROR);
    ox_model_free(m);
    const char *bad = "<ir_version: 8, opset_import: [\"\" : 18]>\ng (float[2] x) => (float[2] y) { y = Frobnicate (x) }\n";
    m = ox_parse_model(bad, strlen(bad), "bad.txt", &d);
    assert_non_null(m);
    diag_clear(&d);
    assert_int_equal(oe_eval_model(m, in, 1, &y, NULL, &d), OE_ERROR);
    assert_string_equal(d.items[0].message, "node y (Frobnicate) is not supported by the evaluator");
    ox_model_free(m);
    ot_tensor_free(&x);
    ot_tensor_free(&c);
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_npy_roundtrip),
        cmocka_unit_test(test_npy_fortran_big_endian),
        cmocka_unit_test(test_npz_write_read),
        cmocka_unit_test(test_json_values),
        cmocka_unit_test(test_pb_values),
        cmocka_unit_test(test_repr),
        cmocka_unit_test(test_model_with_if),
    };
    return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
