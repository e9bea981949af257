/* test_pt2_load.c — .pt2 / program JSON loading: printed forms, weights in place, bad archives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_paths.h"
#include "base/file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "fx/fx.h"
#include "load/pt2_archive.h"
#include "load/pt2_load.h"

#define FIX TEST_FIXTURES "/pt2/"

static char *slurp(const char *path, size_t *len)
{
    return file_slurp(path, len);
}

static void expect_form(fx_program *p, int form, const char *expected_path)
{
    strbuf sb;
    sb_init(&sb);
    diag_sink d;
    diag_init(&d);
    if (form < 0) assert_true(fx_print_program(p, &sb, &d));
    else fx_print(p, (fx_form)form, &sb);
    char *want = slurp(expected_path, NULL);
    if (strcmp(sb.s, want) != 0) fail_msg("%s differs; got:\n%s", expected_path, sb.s);
    free(want);
    sb_free(&sb);
    diag_free(&d);
}

static void test_mlp_pt2_prints_like_torch(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    fx_program *p = pt2_load_file(FIX "mlp.pt2", &d);
    if (!p) { diag_render_all(&d, stderr, NULL, false); fail(); }
    expect_form(p, FX_FORM_GRAPH, FIX "mlp.exported.fx.txt");
    expect_form(p, FX_FORM_CODE, FIX "mlp.exported.readable.txt");
    expect_form(p, -1, FIX "mlp.exported.program.txt");
    fx_program_free(p);
    diag_free(&d);
}

static void test_cond_json_prints_like_torch(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    fx_program *p = pt2_load_file(FIX "cond_dynamic.json", &d);
    if (!p) { diag_render_all(&d, stderr, NULL, false); fail(); }
    expect_form(p, FX_FORM_GRAPH, FIX "cond_dynamic.exported.fx.txt");
    expect_form(p, FX_FORM_CODE, FIX "cond_dynamic.exported.readable.txt");
    expect_form(p, -1, FIX "cond_dynamic.exported.program.txt");
    /* HOP subgraphs became child modules; the symbolic size and its range survived. */
    assert_non_null(fx_module_child(p->root, "true_graph_0"));
    assert_non_null(fx_module_child(p->root, "false_graph_0"));
    assert_int_equal(p->n_ranges, 1);
    assert_string_equal(p->ranges[0].symbol, "s77");
    assert_string_equal(p->ranges[0].max, "1024");
    fx_node *x = fx_graph_lookup(fx_program_graph(p), "x");
    assert_string_equal(x->meta.val->sizes[0], "s77");
    fx_program_free(p);
    diag_free(&d);
}

static void test_mlp_weights_in_place(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    fx_program *p = pt2_load_file(FIX "mlp.pt2", &d);
    assert_non_null(p);
    assert_int_equal(p->n_weights, 6);
    const fx_weight *w = fx_program_weight(p, "fc1.weight");
    assert_non_null(w);
    assert_false(w->owned); /* stored member: points into the mapping */
    assert_int_equal(w->nbytes, 512);
    assert_int_equal(w->rank, 2);
    assert_int_equal(w->shape[0], 16);
    float f0;
    memcpy(&f0, w->data, 4);
    assert_true(f0 == -0.0026469905860722065f); /* first element of fc1.weight in the archive */
    strbuf sb;
    sb_init(&sb);
    assert_true(fx_program_params(p, &sb, &d));
    assert_non_null(strstr(sb.s, "total: 6 tensors, 484 elements, 1936 bytes"));
    sb_reset(&sb);
    assert_true(fx_program_weight_summary(p, "p_fc1_weight", &sb, &d));
    assert_non_null(strstr(sb.s, "shape [16, 8]"));
    assert_non_null(strstr(sb.s, "min -0.352679  max 0.351479  mean -0.014189"));
    sb_reset(&sb);
    assert_true(fx_program_signature(p, &sb, &d));
    assert_non_null(strstr(sb.s, "PARAMETER    p_fc3_bias: f32[4] <- fc3.bias\n"));
    assert_non_null(strstr(sb.s, "USER_OUTPUT  linear_2\n"));
    sb_reset(&sb);
    assert_false(fx_program_weight_summary(p, "nope", &sb, &d));
    assert_true(diag_has_errors(&d));
    sb_free(&sb);
    fx_program_free(p);
    diag_free(&d);
}

static void test_json_has_no_weight_data(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    fx_program *p = pt2_load_file(FIX "mlp.json", &d);
    assert_non_null(p);
    expect_form(p, FX_FORM_GRAPH, FIX "mlp.exported.fx.txt");
    assert_false(fx_program_has_weight_data(p));
    const fx_weight *w = fx_program_weight(p, "fc2.weight");
    assert_non_null(w); /* metadata from the graph */
    assert_int_equal(w->shape[1], 16);
    strbuf sb;
    sb_init(&sb);
    assert_false(fx_program_weight_summary(p, "fc2.weight", &sb, &d));
    assert_non_null(strstr(d.items[d.len - 1].message, "no data"));
    sb_free(&sb);
    fx_program_free(p);
    diag_free(&d);
}

static void test_sniff(void **state)
{
    (void)state;
    assert_true(pt2_sniff((const unsigned char *)"PK\x03\x04rest", 8));
    const char *js = "{\n \"graph_module\": {}}";
    assert_true(pt2_sniff((const unsigned char *)js, strlen(js)));
    assert_false(pt2_sniff((const unsigned char *)"graph():\n", 9));
    assert_false(pt2_sniff((const unsigned char *)"{\"a\": 1}", 8));
    assert_false(pt2_sniff((const unsigned char *)"", 0));
}

/* ---- archives built by the test --------------------------------------------------------------- */

typedef struct variant {
    const char *drop;          /* member (full name) left out */
    const char *replace;       /* member whose content is replaced */
    const char *data;          /* ... by this */
    size_t len;
    const char *rename_from, *rename_to;
    const char *extra;         /* extra member added (content "x") */
    const char *root;          /* replaces the "program" root folder ("" = no folder) */
    bool deflate;
} variant;

static const char *build(const variant *v, char *path)
{
    strcpy(path, "/tmp/fxsh_pt2_test_XXXXXX");
    int fd = mkstemp(path);
    close(fd);
    int err;
    zip_t *src = zip_open(FIX "mlp.pt2", ZIP_RDONLY, &err);
    assert_non_null(src);
    zip_t *dst = zip_open(path, ZIP_TRUNCATE, &err);
    assert_non_null(dst);
    zip_int64_t n = zip_get_num_entries(src, 0);
    for (zip_int64_t i = 0; i < n; i++) {
        const char *nm = zip_get_name(src, (zip_uint64_t)i, 0);
        if (v->drop && !strcmp(nm, v->drop)) continue;
        zip_stat_t st;
        zip_stat_index(src, (zip_uint64_t)i, 0, &st);
        char *buf = malloc(st.size + 1);
        zip_file_t *zf = zip_fopen_index(src, (zip_uint64_t)i, 0);
        assert_int_equal(zip_fread(zf, buf, st.size), (zip_int64_t)st.size);
        zip_fclose(zf);
        size_t len = st.size;
        if (v->replace && !strcmp(nm, v->replace)) {
            free(buf);
            buf = malloc(v->len + 1);
            memcpy(buf, v->data, v->len);
            len = v->len;
        }
        const char *out_name = v->rename_from && !strcmp(nm, v->rename_from) ? v->rename_to : nm;
        char rooted[256];
        if (v->root && !strncmp(out_name, "program/", 8)) {
            snprintf(rooted, sizeof rooted, "%s%s%s", v->root, *v->root ? "/" : "", out_name + 8);
            out_name = rooted;
        }
        zip_source_t *s = zip_source_buffer(dst, buf, len, 1);
        zip_int64_t idx = zip_file_add(dst, out_name, s, ZIP_FL_ENC_UTF_8);
        assert_true(idx >= 0);
        zip_set_file_compression(dst, (zip_uint64_t)idx, v->deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
    }
    if (v->extra) {
        zip_source_t *s = zip_source_buffer(dst, "x", 1, 0);
        zip_file_add(dst, v->extra, s, 0);
    }
    assert_int_equal(zip_close(dst), 0);
    zip_discard(src);
    return path;
}

/* Loads the variant; expects failure with a message containing needle. */
static void expect_bad(const variant *v, const char *needle)
{
    char path[64];
    build(v, path);
    diag_sink d;
    diag_init(&d);
    fx_program *p = pt2_load_file(path, &d);
    if (p) fail_msg("loaded a bad archive (expected '%s')", needle);
    bool found = false;
    for (size_t i = 0; i < d.len; i++)
        if (d.items[i].severity == DIAG_ERROR && strstr(d.items[i].message, needle)) found = true;
    if (!found) fail_msg("no error mentioning '%s' (first: %s)", needle, d.len ? d.items[0].message : "none");
    diag_free(&d);
    unlink(path);
}

static void test_bad_archives(void **state)
{
    (void)state;
    expect_bad(&(variant){ .drop = "program/archive_format" }, "no 'archive_format' member");
    expect_bad(&(variant){ .replace = "program/archive_format", .data = "zip", .len = 3 }, "expected 'pt2'");
    expect_bad(&(variant){ .drop = "program/models/model.json" }, "models/<name>.json");
    expect_bad(&(variant){ .drop = "program/data/weights/weight_2" }, "missing archive member 'program/data/weights/weight_2'");
    /* fc1.weight is 16x8 float32 = 512 bytes; give it 500. */
    static char short_blob[500];
    expect_bad(&(variant){ .replace = "program/data/weights/weight_0", .data = short_blob, .len = sizeof short_blob },
               "program/data/weights/weight_0' holds 500 bytes");
    expect_bad(&(variant){ .replace = "program/models/model.json", .data = "{\"graph_module\": [1,", .len = 20 },
               "unexpected end of input");
    expect_bad(&(variant){ .extra = "program/../evil" }, "'..'");
    expect_bad(&(variant){ .extra = "/etc/passwd" }, "absolute path");
    expect_bad(&(variant){ .replace = "program/data/weights/model_weights_config.json", .data = "{\"config\": 3}", .len = 13 },
               "expected {\"config\"");
    expect_bad(&(variant){ .drop = "program/data/weights/model_weights_config.json" }, "has no entry in the archive's weights");
}

static void test_deflated_and_renamed_config(void **state)
{
    (void)state;
    char path[64];
    build(&(variant){ .deflate = true, .rename_from = "program/data/weights/model_weights_config.json",
                      .rename_to = "program/data/weights/model_model_param_config.json" },
          path);
    diag_sink d;
    diag_init(&d);
    fx_program *p = pt2_load_file(path, &d);
    if (!p) { diag_render_all(&d, stderr, NULL, false); fail(); }
    const fx_weight *w = fx_program_weight(p, "fc1.weight");
    assert_true(w->owned); /* inflated copy */
    float f0;
    memcpy(&f0, w->data, 4);
    assert_true(f0 == -0.0026469905860722065f);
    expect_form(p, FX_FORM_CODE, FIX "mlp.exported.readable.txt");
    fx_program_free(p);
    diag_free(&d);
    unlink(path);
}

static void test_other_roots(void **state)
{
    (void)state;
    static const char *const roots[] = { "model", "" };
    for (int r = 0; r < 2; r++) {
        char path[64];
        build(&(variant){ .root = roots[r] }, path);
        diag_sink d;
        diag_init(&d);
        pt2_archive *ar = pt2_archive_open(path, &d);
        assert_non_null(ar);
        assert_string_equal(pt2_archive_root(ar), roots[r]);
        assert_int_equal(pt2_archive_n_models(ar), 1);
        assert_string_equal(pt2_archive_model(ar, 0), "model");
        assert_true(pt2_archive_has(ar, "data/sample_inputs/model.pt"));
        pt2_archive_close(ar);
        fx_program *p = pt2_load_file(path, &d);
        assert_non_null(p);
        assert_true(fx_program_has_weight_data(p));
        fx_program_free(p);
        diag_free(&d);
        unlink(path);
    }
}

static void test_truncated_and_not_zip(void **state)
{
    (void)state;
    size_t len;
    char *buf = slurp(FIX "mlp.pt2", &len);
    diag_sink d;
    diag_init(&d);
    for (size_t cut = 0; cut < len; cut += len / 7) {
        /* Exact-size copies so any overread is visible to valgrind. */
        unsigned char *c = malloc(cut ? cut : 1);
        memcpy(c, buf, cut);
        fx_program *p = pt2_load_buffer(c, cut, "cut.pt2", &d);
        assert_null(p);
        assert_true(diag_has_errors(&d));
        diag_clear(&d);
        free(c);
    }
    assert_null(pt2_load_buffer((const unsigned char *)"hello world", 11, "x.pt2", &d));
    assert_non_null(strstr(d.items[0].message, "not a .pt2 archive"));
    diag_clear(&d);
    assert_null(pt2_load_file(FIX "does-not-exist.pt2", &d));
    assert_non_null(strstr(d.items[0].message, "cannot open"));
    diag_free(&d);
    free(buf);
}

static void test_bad_json_programs(void **state)
{
    (void)state;
    size_t len;
    char *js = slurp(FIX "mlp.json", &len);
    diag_sink d;
    diag_init(&d);
    /* Unknown major schema version: named in the error. */
    char *v = strstr(js, "\"major\": 8");
    assert_non_null(v);
    v[9] = '9';
    assert_null(pt2_load_json(js, len, "mlp.json", &d));
    assert_non_null(strstr(d.items[0].message, "unsupported torch.export schema version 9.20"));
    v[9] = '8';
    diag_clear(&d);
    /* A node argument naming an undefined value. */
    char *r = strstr(js, "\"name\": \"p_fc1_bias\"\n"); /* the graph input */
    assert_non_null(r);
    r = strstr(r + 1, "\"name\": \"p_fc1_bias\"\n");   /* its first use */
    assert_non_null(r);
    memcpy(r + 9, "q", 1);
    assert_null(pt2_load_json(js, len, "mlp.json", &d));
    assert_non_null(strstr(d.items[0].message, "unknown value 'q_fc1_bias'"));
    assert_true(d.items[0].line > 0);
    assert_non_null(d.items[0].source_line);
    assert_non_null(strstr(d.items[0].source_line, "\"name\": \"q_fc1_bias\""));
    diag_clear(&d);
    assert_null(pt2_load_json("[1, 2]", 6, "a.json", &d));
    assert_non_null(strstr(d.items[0].message, "graph_module"));
    diag_clear(&d);
    const char *bad_node = "{\"graph_module\": {\"graph\": {\"inputs\": [], \"outputs\": [], \"nodes\": [{\"target\": 3}]}}}";
    assert_null(pt2_load_json(bad_node, strlen(bad_node), "b.json", &d));
    assert_true(diag_has_errors(&d));
    diag_free(&d);
    free(js);
}

/* Argument unions the corpus does not exercise, in a hand-written program (the expected
 * strings are how torch prints these Python values: device(...), torch.channels_last, ...). */
static void test_synthetic_argument_unions(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    fx_program *p = pt2_load_file(FIX "synthetic_args.json", &d);
    if (!p) { diag_render_all(&d, stderr, NULL, false); fail(); }
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_GRAPH, &sb);
    assert_non_null(strstr(sb.s, "call_function[target=operator.mul](args = (%sym_size_int, 2)"));
    assert_non_null(strstr(sb.s, "(args = (%x, [None, %b_buf]), kwargs = {})"));
    assert_non_null(strstr(sb.s, "kwargs = {dtype: torch.bfloat16, layout: torch.strided, device: cuda:1, memory_format: torch.channels_last}"));
    assert_non_null(strstr(sb.s, "(args = (%to, [[0, 1], [2]]), kwargs = {correction: (1.5-2j), keepdim: True, eps: inf, low: -inf, nan: [1.5, nan]})"));
    /* The unused first output gets no getitem node; the used one keeps its index. */
    assert_null(strstr(sb.s, "var_mean_unused_0"));
    assert_non_null(strstr(sb.s, "%getitem_1 : [num_users=1] = call_function[target=operator.getitem](args = (%var_mean, 1)"));
    assert_non_null(strstr(sb.s, "return (getitem_1, sym_size_int)"));
    /* list[list[TensorArgument]] and list[list[float]] (serde's as_nested_tensors, as_float_lists) */
    assert_non_null(strstr(sb.s, "(args = ([[%x, %b_buf], [%x]], [[1.5, 2.0], [], [-0.25]]), kwargs = {})"));
    sb_reset(&sb);
    assert_true(fx_print_program(p, &sb, &d));
    assert_non_null(strstr(sb.s, "def forward(self, x: \"f32[s0, 4]\", b_buf):"));
    assert_non_null(strstr(sb.s, "sym_size_int: \"Sym(s0)\" = torch.ops.aten.sym_size.int(x, 0)"));
    assert_non_null(strstr(sb.s, "device = device(type='cuda', index=1)"));
    assert_non_null(strstr(sb.s, "b_buf: BUFFER target='buf' persistent=False\n"));
    assert_non_null(strstr(sb.s, "Range constraints: {s0: VR[2, int_oo], u0: VR[0, 9223372036854775807]}\n"));
    sb_free(&sb);
    fx_program_free(p);
    diag_free(&d);
}

/* A nested list with an element of the wrong kind is an error at that element. */
static void test_nested_list_bad_element(void **state)
{
    (void)state;
    size_t len;
    char *js = slurp(FIX "synthetic_args.json", &len);
    char *at = strstr(js, "[[1.5, 2.0], [], [-0.25]]");
    assert_non_null(at);
    memcpy(at, "[[1.5, \"x\"], [], [0.250]]", 25);   /* same length: the rest of the text is unchanged */
    diag_sink d;
    diag_init(&d);
    fx_program *p = pt2_load_json(js, len, "bad.json", &d);
    assert_null(p);
    assert_true(d.errors > 0);
    assert_non_null(strstr(d.items[0].message, "bad element in 'as_floats'"));
    assert_int_equal(d.items[0].line, 22);
    diag_free(&d);
    free(js);
}

/* Byte corruptions of a real program JSON and of a real archive: errors or success, never a
 * crash or an out-of-bounds read (run under valgrind). */
static void test_corruptions_never_crash(void **state)
{
    (void)state;
    size_t len, zlen;
    char *js = slurp(FIX "mlp.json", &len);
    char *zip = slurp(FIX "mlp.pt2", &zlen);
    char *buf = malloc(len > zlen ? len : zlen);
    diag_sink d;
    diag_init(&d);
    static const char subst[] = { '"', '0', '}', 'x', '[' };
    size_t loaded = 0;
    for (size_t i = 0; i < len; i += 11) {
        memcpy(buf, js, len);
        buf[i] = subst[i % sizeof subst];
        fx_program *p = pt2_load_json(buf, len, "c.json", &d);
        if (p) loaded++;
        fx_program_free(p);
        diag_clear(&d);
    }
    assert_true(loaded > 0); /* e.g. corruptions inside stack-trace strings still load */
    for (size_t i = 0; i < zlen; i += 29) {
        memcpy(buf, zip, zlen);
        buf[i] ^= 0x5a;
        fx_program *p = pt2_load_buffer((unsigned char *)buf, zlen, "c.pt2", &d);
        fx_program_free(p);
        diag_clear(&d);
    }
    diag_free(&d);
    free(buf);
    free(js);
    free(zip);
}

/* A session that loads file after file keeps open only the files its programs still use: with
 * 32 descriptors allowed, 200 archives (each a file of its own, loaded and freed, half of them
 * failing to load) all load. The mapping cache once kept every file open until exit. */
static void test_many_files_few_descriptors(void **state)
{
    (void)state;
    size_t len;
    char *good = slurp(TEST_FIXTURES "/pt2/mlp.pt2", &len);
    assert_non_null(good);
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    low = old;
    low.rlim_cur = 32;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    char dir[] = "/tmp/fxsh-pt2-files-XXXXXX";
    assert_non_null(mkdtemp(dir));
    for (int i = 0; i < 200; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/m%d.pt2", dir, i);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        /* odd ones are cut short: a load that fails must let its file go too */
        assert_int_equal(fwrite(good, 1, i % 2 ? len / 2 : len, f), i % 2 ? len / 2 : len);
        assert_int_equal(fclose(f), 0);
        diag_sink d;
        diag_init(&d);
        fx_program *p = pt2_load_file(path, &d);
        if (i % 2 == 0) assert_non_null(p);
        for (size_t k = 0; k < d.len; k++) assert_null(strstr(d.items[k].message, "Too many open files"));
        fx_program_free(p);
        diag_free(&d);
        unlink(path);
    }
    rmdir(dir);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    free(good);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mlp_pt2_prints_like_torch),
        cmocka_unit_test(test_cond_json_prints_like_torch),
        cmocka_unit_test(test_mlp_weights_in_place),
        cmocka_unit_test(test_json_has_no_weight_data),
        cmocka_unit_test(test_sniff),
        cmocka_unit_test(test_bad_archives),
        cmocka_unit_test(test_deflated_and_renamed_config),
        cmocka_unit_test(test_truncated_and_not_zip),
        cmocka_unit_test(test_other_roots),
        cmocka_unit_test(test_bad_json_programs),
        cmocka_unit_test(test_corruptions_never_crash),
        cmocka_unit_test(test_synthetic_argument_unions),
        cmocka_unit_test(test_nested_list_bad_element),
        cmocka_unit_test(test_many_files_few_descriptors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
