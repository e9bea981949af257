/* test_onnx_pb.c — protobuf load/save: round trips, external data, malformed input. */
#define _GNU_SOURCE
#include "test_paths.h"
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/file.h"
#include "base/strbuf.h"
#include "onnx/onnx_edit.h"
#include "onnx/onnx_ir.h"
#include "onnx/onnx_pb.h"
#include "onnx/onnx_print.h"


#define T_FLOAT ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT

static char tmpdir[256];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fxsh_pb_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *read_all(const char *path, size_t *len)
{
    return file_slurp(path, len);
}

static int has_message(const diag_sink *d, const char *needle)
{
    for (size_t i = 0; i < d->len; i++)
        if (strstr(d->items[i].message, needle)) return 1;
    return 0;
}

/* A small model with a big (2 KiB) and a small initializer. */
static ox_model *make_model(void)
{
    ox_model *m = ox_model_new(10);
    ox_model_set_opset(m, "", 20);
    m->proto->producer_name = ox_strdup(m, "fxsh-test");
    Onnx__GraphProto *g = m->proto->graph;
    g->name = ox_strdup(m, "main_graph");
    const char *dims[] = {"batch", "512"};
    ox_graph_add_input(m, g, "x", ox_type_tensor(m, T_FLOAT, dims, 2, true));
    ox_graph_add_output(m, g, "y", ox_type_tensor(m, T_FLOAT, dims, 2, true));
    int64_t n = 512, four = 4;
    Onnx__TensorProto *big = ox_tensor_new(m, "big.weight", T_FLOAT, &n, 1);
    float buf[512];
    for (int i = 0; i < 512; i++) buf[i] = (float)i * 0.5f;
    ox_tensor_set_raw(m, big, buf, sizeof buf);
    ox_graph_add_initializer(m, g, big);
    Onnx__TensorProto *small = ox_tensor_new(m, "small", T_FLOAT, &four, 1);
    ox_tensor_set_raw(m, small, buf, 16);
    ox_graph_add_initializer(m, g, small);
    Onnx__NodeProto *node = ox_graph_add_node(m, g, "Add", "node_add");
    ox_node_add_input(m, node, "x");
    ox_node_add_input(m, node, "big.weight");
    ox_node_add_output(m, node, "y");
    return m;
}

static void test_round_trip(void **state)
{
    (void)state;
    ox_model *m = make_model();
    char path[512];
    snprintf(path, sizeof path, "%s/m.onnx", tmpdir);
    diag_sink d;
    diag_init(&d);
    assert_int_equal(ox_save_file(m, path, NULL, &d), 0);
    size_t len1, len2;
    uint8_t *b1 = ox_pack(m, &len1);
    ox_model *m2 = ox_load_file(path, &d);
    assert_non_null(m2);
    assert_string_equal(m2->path, path);
    uint8_t *b2 = ox_pack(m2, &len2);
    assert_int_equal(len1, len2);
    assert_memory_equal(b1, b2, len1);
    char *t1 = ox_model_to_text(m->proto), *t2 = ox_model_to_text(m2->proto);
    assert_string_equal(t1, t2);
    assert_non_null(strstr(t1, "float[512] \"big.weight\" =  {0,0.5,1,"));
    /* no temporary file is left behind */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls '%s' | wc -l) -eq 1", tmpdir);
    assert_int_equal(system(cmd), 0);
    free(t1);
    free(t2);
    free(b1);
    free(b2);
    ox_model_free(m2);
    ox_model_free(m);
    diag_free(&d);
}

static void test_unknown_fields_survive(void **state)
{
    (void)state;
    /* ModelProto { ir_version: 8, field 999 (varint) = 5, producer_name: "p" } */
    const uint8_t bytes[] = {0x08, 0x08, 0xb8, 0x3e, 0x05, 0x12, 0x01, 'p'};
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_load_bytes(bytes, sizeof bytes, NULL, &d);
    assert_non_null(m);
    assert_int_equal(m->proto->ir_version, 8);
    size_t len;
    uint8_t *out = ox_pack(m, &len);
    assert_int_equal(len, sizeof bytes);
    /* protobuf-c writes unknown fields after the known ones */
    assert_non_null(memmem(out, len, "\xb8\x3e\x05", 3));
    free(out);
    ox_model_free(m);
    diag_free(&d);
}

static void test_external_data(void **state)
{
    (void)state;
    ox_model *m = make_model();
    char *before = ox_model_to_text(m->proto);
    char path[512], data[512];
    snprintf(path, sizeof path, "%s/ext.onnx", tmpdir);
    snprintf(data, sizeof data, "%s/ext.onnx.data", tmpdir);
    diag_sink d;
    diag_init(&d);
    ox_save_opts so = {.external_data = true};
    assert_int_equal(ox_save_file(m, path, &so, &d), 0);
    /* the in-memory model is untouched */
    char *after = ox_model_to_text(m->proto);
    assert_string_equal(before, after);
    struct stat st;
    assert_int_equal(stat(data, &st), 0);
    assert_int_equal(st.st_size, 2048);   /* only the 2 KiB tensor moved out */
    /* without loading the data, the reference is what onnx prints */
    ox_load_opts keep = {.keep_external = true};
    ox_model *ref = ox_load_file_opts(path, &keep, &d);
    assert_non_null(ref);
    char *rt = ox_model_to_text(ref->proto);
    assert_non_null(strstr(rt, "float[512] \"big.weight\" = [\"location\": \"ext.onnx.data\", "
                               "\"offset\": \"0\", \"length\": \"2048\"]"));
    assert_non_null(strstr(rt, "float[4] small =  {0,0.5,1,1.5}"));
    free(rt);
    ox_model_free(ref);
    /* loading resolves it next to the model */
    ox_model *m2 = ox_load_file(path, &d);
    assert_non_null(m2);
    char *t2 = ox_model_to_text(m2->proto);
    assert_string_equal(t2, before);
    free(t2);
    ox_model_free(m2);
    assert_false(diag_has_errors(&d));
    /* missing data file: a clear error naming the tensor and the file */
    assert_int_equal(unlink(data), 0);
    assert_null(ox_load_file(path, &d));
    assert_true(has_message(&d, "tensor 'big.weight'"));
    assert_true(has_message(&d, "ext.onnx.data"));
    diag_clear(&d);
    ox_load_opts warn = {.missing_is_warning = true};
    m2 = ox_load_file_opts(path, &warn, &d);
    assert_non_null(m2);
    assert_false(diag_has_errors(&d));
    assert_int_equal(d.len, 1);
    ox_model_free(m2);
    /* a data file too short for offset + length */
    FILE *f = fopen(data, "wb");
    fputs("short", f);
    fclose(f);
    diag_clear(&d);
    assert_null(ox_load_file(path, &d));
    assert_true(has_message(&d, "goes past its end"));
    free(before);
    free(after);
    ox_model_free(m);
    diag_free(&d);
}

static void test_external_path_escape(void **state)
{
    (void)state;
    ox_model *m = ox_model_new(10);
    int64_t two = 2;
    Onnx__TensorProto *t = ox_tensor_new(m, "w", T_FLOAT, &two, 1);
    ox_tensor_add_external(m, t, "location", "../../etc/passwd");
    ox_graph_add_initializer(m, m->proto->graph, t);
    size_t len;
    uint8_t *bytes = ox_pack(m, &len);
    char path[512];
    snprintf(path, sizeof path, "%s/x.onnx", tmpdir);
    diag_sink d;
    diag_init(&d);
    assert_null(ox_load_bytes(bytes, len, path, &d));
    assert_true(has_message(&d, "outside the model's directory"));
    free(bytes);
    ox_model_free(m);
    diag_free(&d);
}

static void test_save_errors(void **state)
{
    (void)state;
    ox_model *m = make_model();
    diag_sink d;
    diag_init(&d);
    assert_int_equal(ox_save_file(m, "/nonexistent-dir/x/m.onnx", NULL, &d), -1);
    assert_true(diag_has_errors(&d));
    assert_null(ox_load_file("/nonexistent-dir/x/m.onnx", &d));
    ox_model_free(m);
    diag_free(&d);
}

static void test_truncated_prefixes(void **state)
{
    (void)state;
    size_t len;
    char path[512];
    snprintf(path, sizeof path, "%s/test_if/model.onnx", TEST_FIXTURES "/onnx");
    uint8_t *bytes = (uint8_t *)read_all(path, &len);
    assert_non_null(bytes);
    assert_true(len > 100);
    int rejected = 0;
    for (size_t n = 0; n < len; n++) {
        /* a fresh heap copy of exactly n bytes so valgrind catches any read past the end */
        uint8_t *prefix = xmalloc(n ? n : 1);
        memcpy(prefix, bytes, n);
        diag_sink d;
        diag_init(&d);
        ox_model *m = ox_load_bytes(prefix, n, NULL, &d);
        if (m) {
            char *t = ox_model_to_text(m->proto);   /* whatever loaded must print */
            free(t);
            ox_model_free(m);
        } else {
            assert_true(diag_has_errors(&d));
            rejected++;
        }
        diag_free(&d);
        free(prefix);
    }
    assert_true(rejected > (int)len / 2);
    /* random corruption: flip bytes, never crash */
    uint32_t seed = 12345;
    for (int round = 0; round < 300; round++) {
        uint8_t *c = xmalloc(len);
        memcpy(c, bytes, len);
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            c[(seed >> 8) % len] = (uint8_t)(seed >> 20);
        }
        diag_sink d;
        diag_init(&d);
        ox_model *m = ox_load_bytes(c, len, NULL, &d);
        if (m) {
            char *t = ox_model_to_text(m->proto);
            free(t);
            ox_model_free(m);
        }
        diag_free(&d);
        free(c);
    }
    free(bytes);
}

static void test_bad_wire(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    /* ModelProto.graph (7) sent as a varint */
    const uint8_t wrong_type[] = {0x38, 0x01};
    assert_null(ox_load_bytes(wrong_type, sizeof wrong_type, "w.onnx", &d));
    assert_true(has_message(&d, "ModelProto.graph has wire type varint"));
    diag_clear(&d);
    /* a graph declaring 4 GiB */
    const uint8_t absurd[] = {0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00};
    assert_null(ox_load_bytes(absurd, sizeof absurd, "a.onnx", &d));
    assert_true(has_message(&d, "declared length"));
    diag_clear(&d);
    /* groups and invalid wire types */
    const uint8_t group[] = {0xa3, 0x06, 0xa4, 0x06};
    assert_null(ox_load_bytes(group, sizeof group, "g.onnx", &d));
    assert_true(has_message(&d, "unsupported wire type"));
    diag_clear(&d);
    const uint8_t overlong[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    assert_null(ox_load_bytes(overlong, sizeof overlong, "v.onnx", &d));
    diag_clear(&d);
    /* packed floats with a partial element */
    const uint8_t partial[] = {0x3a, 0x07, 0x2a, 0x05, 0x22, 0x03, 0x00, 0x00, 0x80};
    assert_null(ox_load_bytes(partial, sizeof partial, "p.onnx", &d));
    assert_true(has_message(&d, "partial element"));
    diag_free(&d);
}

/* Wraps body as a length-delimited field. */
static void wrap(strbuf *out, int field, const strbuf *body)
{
    sb_reset(out);
    sb_putc(out, (char)(field << 3 | 2));
    size_t n = body->len;
    do {
        sb_putc(out, (char)((n & 0x7f) | (n > 0x7f ? 0x80 : 0)));
        n >>= 7;
    } while (n);
    sb_putn(out, body->s, body->len);
}

/* ModelProto whose graph nests `levels` If-like subgraphs (graph.node.attribute.g). */
static uint8_t *nested_graphs(int levels, size_t *len)
{
    strbuf cur, tmp;
    sb_init(&cur);
    sb_init(&tmp);
    for (int i = 0; i < levels; i++) {
        wrap(&tmp, 6, &cur);    /* AttributeProto.g */
        sb_putn(&tmp, "\xa0\x01\x05", 3);   /* AttributeProto.type = GRAPH */
        wrap(&cur, 5, &tmp);    /* NodeProto.attribute */
        wrap(&tmp, 1, &cur);    /* GraphProto.node */
        sb_reset(&cur);
        sb_putn(&cur, tmp.s, tmp.len);
    }
    wrap(&tmp, 7, &cur);        /* ModelProto.graph */
    sb_free(&cur);
    *len = tmp.len;
    return (uint8_t *)sb_detach(&tmp);
}

static void test_deep_nesting(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    size_t len;
    uint8_t *ok = nested_graphs(20, &len);
    ox_model *m = ox_load_bytes(ok, len, NULL, &d);
    assert_non_null(m);
    char *t = ox_model_to_text(m->proto);
    /* the innermost (20th) graph closes at 3 * 20 spaces */
    char want[80];
    snprintf(want, sizeof want, "\n%60s}>\n", "");
    assert_non_null(strstr(t, want));
    snprintf(want, sizeof want, "\n%63s}", "");
    assert_null(strstr(t, want));
    free(t);
    ox_model_free(m);
    free(ok);
    uint8_t *deep = nested_graphs(OX_MAX_GRAPH_DEPTH + 5, &len);
    assert_null(ox_load_bytes(deep, len, "deep.onnx", &d));
    assert_true(has_message(&d, "subgraphs nested more than 64 levels"));
    free(deep);
    diag_clear(&d);
    /* 2000 nested TypeProto.sequence_type.elem_type in a graph input: no stack overflow */
    strbuf cur, tmp;
    sb_init(&cur);
    sb_init(&tmp);
    for (int i = 0; i < 1000; i++) {
        wrap(&tmp, 1, &cur);   /* Sequence.elem_type */
        wrap(&cur, 4, &tmp);   /* TypeProto.sequence_type */
    }
    wrap(&tmp, 2, &cur);       /* ValueInfoProto.type */
    wrap(&cur, 11, &tmp);      /* GraphProto.input */
    wrap(&tmp, 7, &cur);       /* ModelProto.graph */
    assert_null(ox_load_bytes(tmp.s, tmp.len, "types.onnx", &d));
    assert_true(has_message(&d, "nested more than 512 levels"));
    sb_free(&cur);
    sb_free(&tmp);
    diag_free(&d);
}

static Onnx__TensorProto *initializer(ox_model *m, const char *name)
{
    Onnx__GraphProto *g = m->proto->graph;
    for (size_t i = 0; g && i < g->n_initializer; i++)
        if (!strcmp(g->initializer[i]->name, name)) return g->initializer[i];
    return NULL;
}

/* Loaded weights are views into the file's mapping; small tensors are owned; a copy shares the
 * views, and they stay readable after the model they came from is freed. */
static void test_weights_are_views(void **state)
{
    (void)state;
    ox_model *m = make_model();
    char path[512];
    snprintf(path, sizeof path, "%s/views.onnx", tmpdir);
    diag_sink d;
    diag_init(&d);
    assert_int_equal(ox_save_file(m, path, NULL, &d), 0);
    ox_model *m2 = ox_load_file(path, &d);
    assert_non_null(m2);
    Onnx__TensorProto *big = initializer(m2, "big.weight"), *small = initializer(m2, "small");
    assert_int_equal(m2->n_maps, 1);
    assert_ptr_equal(ox_model_map_of(m2, big->raw_data.data, big->raw_data.len), m2->maps[0]);
    assert_null(ox_model_map_of(m2, small->raw_data.data, small->raw_data.len));
    assert_memory_equal(big->raw_data.data, initializer(m, "big.weight")->raw_data.data, 2048);
    char *text = ox_model_to_text(m->proto);
    ox_model *copy = ox_model_copy(m2, &d);
    assert_non_null(copy);
    assert_ptr_equal(initializer(copy, "big.weight")->raw_data.data, big->raw_data.data);
    assert_ptr_not_equal(initializer(copy, "small")->raw_data.data, small->raw_data.data);
    /* the original is as it was */
    char *t2 = ox_model_to_text(m2->proto);
    assert_string_equal(t2, text);
    free(t2);
    ox_model_free(m2);
    assert_int_equal(unlink(path), 0);   /* the mapping outlives the file's name too */
    t2 = ox_model_to_text(copy->proto);
    assert_string_equal(t2, text);
    free(t2);
    /* a copy of a model whose bytes it owns copies them */
    ox_model *own = ox_model_copy(m, &d);
    assert_non_null(own);
    assert_int_equal(own->n_maps, 0);
    assert_ptr_not_equal(initializer(own, "big.weight")->raw_data.data,
                         initializer(m, "big.weight")->raw_data.data);
    ox_model_free(own);
    ox_model_free(copy);
    assert_false(diag_has_errors(&d));
    free(text);
    ox_model_free(m);
    diag_free(&d);
}

/* External data is mapped, not read: the tensor is a view into the data file, which stays
 * valid after the file is removed; a view saved again (inline) gives the same bytes. */
static void test_external_views(void **state)
{
    (void)state;
    ox_model *m = make_model();
    char *text = ox_model_to_text(m->proto);
    char path[512], data[512], again[512];
    snprintf(path, sizeof path, "%s/xv.onnx", tmpdir);
    snprintf(data, sizeof data, "%s/xv.onnx.data", tmpdir);
    snprintf(again, sizeof again, "%s/again.onnx", tmpdir);
    diag_sink d;
    diag_init(&d);
    ox_save_opts so = {.external_data = true};
    assert_int_equal(ox_save_file(m, path, &so, &d), 0);
    ox_model *m2 = ox_load_file(path, &d);
    assert_non_null(m2);
    Onnx__TensorProto *big = initializer(m2, "big.weight");
    assert_false(big->has_data_location);
    fmap *f = ox_model_map_of(m2, big->raw_data.data, big->raw_data.len);
    assert_non_null(f);
    assert_int_equal(f->len, 2048);   /* the data file, not the model */
    assert_int_equal(unlink(data), 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(ox_save_file(m2, again, NULL, &d), 0);
    ox_model_free(m2);
    m2 = ox_load_file(again, &d);
    assert_non_null(m2);
    char *t2 = ox_model_to_text(m2->proto);
    assert_string_equal(t2, text);
    free(t2);
    ox_model_free(m2);
    assert_false(diag_has_errors(&d));
    free(text);
    ox_model_free(m);
    diag_free(&d);
}

/* What the zero-copy load cannot place is unpacked the ordinary way: small raw_data that reads
 * like its marker (a magic, then an index), and a large tensor in training_info, which the
 * tensor walk does not visit. Either way the model loads with its exact bytes. */
static void test_view_fallbacks(void **state)
{
    (void)state;
    static const uint8_t marker[16] = {0xf7, 'f', 'x', 's', 'h', 0x9d, 'v', 0x01};   /* index 0 */
    char path[512];
    snprintf(path, sizeof path, "%s/fb.onnx", tmpdir);
    diag_sink d;
    diag_init(&d);
    for (int variant = 0; variant < 2; variant++) {
        ox_model *m = make_model();
        if (variant == 0) {
            ox_tensor_set_raw(m, initializer(m, "small"), marker, sizeof marker);
        } else {
            Onnx__TrainingInfoProto *ti = ox_alloc(m, sizeof *ti);
            onnx__training_info_proto__init(ti);
            ti->initialization = ox_graph_new(m, "init");
            int64_t n = 512;
            Onnx__TensorProto *t = ox_tensor_new(m, "train.w", T_FLOAT, &n, 1);
            float v[512];
            for (int i = 0; i < 512; i++) v[i] = (float)-i;
            ox_tensor_set_raw(m, t, v, sizeof v);
            ox_graph_add_initializer(m, ti->initialization, t);
            OX_PUSH(m, m->proto->training_info, m->proto->n_training_info, ti);
        }
        assert_int_equal(ox_save_file(m, path, NULL, &d), 0);
        size_t len1, len2;
        uint8_t *b1 = ox_pack(m, &len1);
        ox_model *m2 = ox_load_file(path, &d);
        assert_non_null(m2);
        uint8_t *b2 = ox_pack(m2, &len2);
        assert_int_equal(len1, len2);
        assert_memory_equal(b1, b2, len1);
        free(b1);
        free(b2);
        ox_model_free(m2);
        ox_model_free(m);
    }
    assert_false(diag_has_errors(&d));
    diag_free(&d);
}

/* A model larger than FXSH_MAX_PROTOBUF (2 GB by default; lowered here) is saved with its
 * weights as external data, and says so; tensors of 1 MiB and more are streamed in one write. */
static void test_too_large_goes_external(void **state)
{
    (void)state;
    ox_model *m = make_model();
    int64_t n = 1 << 19;   /* 2 MiB */
    Onnx__TensorProto *t = ox_tensor_new(m, "huge", T_FLOAT, &n, 1);
    float *v = malloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = (float)(i % 1000) * 0.25f;
    ox_tensor_set_raw(m, t, v, (size_t)n * sizeof *v);
    free(v);
    ox_graph_add_initializer(m, m->proto->graph, t);
    char *text = ox_model_to_text(m->proto);
    char path[512], data[512];
    snprintf(path, sizeof path, "%s/big.onnx", tmpdir);
    snprintf(data, sizeof data, "%s/big.onnx.data", tmpdir);
    diag_sink d;
    diag_init(&d);
    struct stat st;
    /* under the limit: one file */
    assert_int_equal(ox_save_file(m, path, NULL, &d), 0);
    assert_int_not_equal(stat(data, &st), 0);
    assert_int_equal(d.len, 0);
    setenv("FXSH_MAX_PROTOBUF", "1M", 1);
    assert_int_equal(ox_save_file(m, path, NULL, &d), 0);
    unsetenv("FXSH_MAX_PROTOBUF");
    assert_true(has_message(&d, "more than a protobuf can hold (1048576)"));
    assert_true(has_message(&d, "external data in 'big.onnx.data'"));
    assert_false(diag_has_errors(&d));
    assert_int_equal(stat(data, &st), 0);
    assert_int_equal(st.st_size, 2048 + (2 << 20));
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size < 4096);
    char *t2 = ox_model_to_text(m->proto);   /* the model in memory is untouched */
    assert_string_equal(t2, text);
    free(t2);
    ox_model *m2 = ox_load_file(path, &d);
    assert_non_null(m2);
    t2 = ox_model_to_text(m2->proto);
    assert_string_equal(t2, text);
    free(t2);
    ox_model_free(m2);
    free(text);
    ox_model_free(m);
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_unknown_fields_survive),
        cmocka_unit_test(test_external_data),
        cmocka_unit_test(test_external_path_escape),
        cmocka_unit_test(test_save_errors),
        cmocka_unit_test(test_truncated_prefixes),
        cmocka_unit_test(test_bad_wire),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_weights_are_views),
        cmocka_unit_test(test_external_views),
        cmocka_unit_test(test_view_fallbacks),
        cmocka_unit_test(test_too_large_goes_external),
    };
    return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
