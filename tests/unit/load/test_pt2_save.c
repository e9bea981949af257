/* test_pt2_save.c — pt2_save: programs written as .pt2 archives read back the same (graph,
 * signature, weights, subgraphs, printed as print(ep) prints them), and what it cannot write
 * (Python arithmetic on sizes, weights without values) refused with the node named and no file
 * left. torch.export.load reads these files back with graphs, signatures, ranges and state dicts
 * equal to the originals (checked in the reference environment when this was written). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "fx/fx.h"
#include "load/pt2_load.h"
#include "load/pt2_save.h"

static char scratch[64];

static int setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "/tmp/fxsh_pt2_save_XXXXXX");
    return mkdtemp(scratch) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/program.pt2", scratch);
    unlink(path);
    rmdir(scratch);
    return 0;
}

static void printed(const fx_program *p, strbuf *out)
{
    diag_sink d;
    diag_init(&d);
    assert_true(fx_print_program(p, out, &d));
    diag_free(&d);
}

/* load, save, load again: the same program, the same weights */
static void round_trip(const char *fixture)
{
    diag_sink d;
    diag_init(&d);
    fx_program *p = pt2_load_file(fixture, &d);
    if (!p) fail_msg("%s: %s", fixture, d.len ? d.items[0].message : "?");
    char path[128];
    snprintf(path, sizeof path, "%s/program.pt2", scratch);
    if (!pt2_save(p, path, &d)) fail_msg("pt2_save %s: %s", fixture, d.len ? d.items[0].message : "?");
    fx_program *q = pt2_load_file(path, &d);
    if (!q) fail_msg("reading back %s: %s", fixture, d.len ? d.items[0].message : "?");
    strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    printed(p, &a);
    printed(q, &b);
    assert_string_equal(a.s, b.s);
    assert_int_equal(p->n_weights, q->n_weights);
    for (fx_weight *w = p->weights; w; w = w->next) {
        fx_weight *v = fx_program_weight(q, w->fqn);
        assert_non_null(v);
        assert_int_equal(w->nbytes, v->nbytes);
        assert_memory_equal(w->data, v->data, w->nbytes);
    }
    sb_free(&a);
    sb_free(&b);
    fx_program_free(p);
    fx_program_free(q);
    diag_free(&d);
}

static void test_mlp_with_weights(void **state)
{
    (void)state;
    round_trip(TEST_FIXTURES "/pt2/mlp.pt2");
}

static void test_opinfo_program(void **state)
{
    (void)state;
    /* 38 ATen calls: lists of ints and tensors, optional tensors, keyword arguments, None */
    round_trip(TEST_FIXTURES "/reduce/mha_dropout.pt2");
}

static void test_higher_order_ops(void **state)
{
    (void)state;
    /* cond, while_loop and scan: each subgraph written inside the call that runs it */
    round_trip(FXSH_TEST_TOP "/examples/data/mlp_cond.pt2");
    round_trip(FXSH_TEST_TOP "/examples/data/while_loop_counter.pt2");
    round_trip(FXSH_TEST_TOP "/examples/data/scan_cumsum.pt2");
}

static void test_model_fixtures(void **state)
{
    (void)state;
    /* transformers and torchaudio models: dynamic batches (symbols and their ranges), buffers
     * outside the state dict, calls that return nothing, subgraphs of set_grad_enabled regions */
    static const char *const models[] = {"adaptive_pool_dyn_batch", "chunk_dyn_batch", "gpt2_tiny", "llama_tiny",
                                         "llama_cache_tiny", "w2v_tiny", "melspec_tiny", "index_forms",
                                         "weight_norm_forms", "grad_regions", "decomp_onnx_table"};
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        char path[512];
        snprintf(path, sizeof path, TEST_FIXTURES "/models/%s/program.pt2", models[i]);
        round_trip(path);
    }
}

static void test_refused(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    char *json = NULL;
    size_t len = 0;
    FILE *f = fopen(TEST_FIXTURES "/pt2/cond_dynamic.json", "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    rewind(f);
    json = malloc(len + 1);
    assert_int_equal(fread(json, 1, len, f), len);
    fclose(f);
    fx_program *p = pt2_load_json(json, len, "cond_dynamic.json", &d);
    assert_non_null(p);
    char path[128];
    snprintf(path, sizeof path, "%s/program.pt2", scratch);
    /* weights without values (a program JSON): refused, naming the placeholder */
    assert_false(pt2_save(p, path, &d));
    assert_true(d.len > 0);
    assert_non_null(strstr(d.items[d.len - 1].message, "program.pt2: node %"));
    assert_int_equal(access(path, F_OK), -1);
    fx_program_free(p);
    free(json);
    diag_free(&d);
}

static void test_python_arithmetic_refused(void **state)
{
    (void)state;
    /* index_mask compares a size with operator.ge: not an ATen call, refused at that node */
    diag_sink d;
    diag_init(&d);
    fx_program *p = pt2_load_file(TEST_FIXTURES "/models/index_mask/program.pt2", &d);
    assert_non_null(p);
    char path[128];
    snprintf(path, sizeof path, "%s/program.pt2", scratch);
    assert_false(pt2_save(p, path, &d));
    assert_string_equal(d.items[d.len - 1].message,
                        "program.pt2: node %ge: only ATen calls and higher-order ops are written, not operator.ge");
    assert_int_equal(access(path, F_OK), -1);
    fx_program_free(p);
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_mlp_with_weights, setup, teardown),
        cmocka_unit_test_setup_teardown(test_opinfo_program, setup, teardown),
        cmocka_unit_test_setup_teardown(test_higher_order_ops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_model_fixtures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_python_arithmetic_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
