/* test_optimize_corpus.c — the optimizer on real torch.onnx exports (fixtures and the corpus).
 *
 * Goldens come from torch's own optimizer: onnx_dynamo_opt.onnx is what ONNXProgram.optimize()
 * made of onnx_dynamo.onnx. For the fixtures our node count must equal torch's; over the whole
 * corpus (skipped when absent) we must leave no more nodes than torch, must not grow torch's own
 * output, and on the export must keep the graph's interface and be idempotent. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "test_paths.h"
#include "onnx/onnx_pb.h"
#include "optimize/optimize.h"

static size_t count_nodes(const Onnx__GraphProto *g)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n_node; i++) {
        n++;
        for (size_t j = 0; j < g->node[i]->n_attribute; j++) {
            const Onnx__AttributeProto *a = g->node[i]->attribute[j];
            if (a->g) n += count_nodes(a->g);
            for (size_t k = 0; k < a->n_graphs; k++) n += count_nodes(a->graphs[k]);
        }
    }
    return n;
}

static ox_model *load(const char *path)
{
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_load_file(path, &d);
    diag_free(&d);
    return m;
}

/* Optimizes dir/onnx_dynamo.onnx and checks the invariants; returns our node count (or -1 when
 * the model cannot be loaded, e.g. its external weights are not stored). */
static long check_case(const char *dir, long *torch_nodes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/onnx_dynamo_opt.onnx", dir);
    ox_model *t = load(path);
    *torch_nodes = -1;
    if (t) {
        size_t before = count_nodes(t->proto->graph);
        *torch_nodes = (long)before;
        diag_sink d;
        diag_init(&d);
        assert_true(optimize_model(t, NULL, NULL, &d));
        /* Never worse than torch; occasionally better (e.g. a Transpose pair it leaves). */
        assert_true(count_nodes(t->proto->graph) <= before);
        diag_free(&d);
        ox_model_free(t);
    }
    snprintf(path, sizeof path, "%s/onnx_dynamo.onnx", dir);
    ox_model *m = load(path);
    if (!m) return -1;
    Onnx__GraphProto *g = m->proto->graph;
    size_t before = count_nodes(g), nin = g->n_input, nout = g->n_output;
    diag_sink d;
    diag_init(&d);
    assert_true(optimize_model(m, NULL, NULL, &d));
    assert_false(diag_has_errors(&d));
    diag_free(&d);
    size_t after = count_nodes(g);
    assert_true(after <= before);
    assert_int_equal(g->n_input, nin);
    assert_int_equal(g->n_output, nout);
    size_t l1, l2;
    uint8_t *once = ox_pack(m, &l1);
    assert_true(optimize_model(m, NULL, NULL, NULL));
    uint8_t *twice = ox_pack(m, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(once, twice, l1);
    free(once);
    free(twice);
    ox_model_free(m);
    return (long)after;
}

static void test_fixtures_match_torch(void **state)
{
    (void)state;
    static const char *cases[] = {"python_if_shape", "scan_cumsum", "cond_dynamic", "mlp_cond",
                                  "python_for_const", "sequence_ops", "conv_bn_relu",
                                  "dynamic_batch", "dtype_ops"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", TEST_FIXTURES "/optimize", cases[i]);
        long torch_nodes, ours = check_case(dir, &torch_nodes);
        assert_true(ours >= 0);
        assert_true(torch_nodes >= 0);
        if (ours != torch_nodes) fprintf(stderr, "%s: %ld nodes, torch %ld\n", cases[i], ours, torch_nodes);
        assert_int_equal(ours, torch_nodes);
    }
}

static void test_corpus(void **state)
{
    (void)state;
    const char *corpus = getenv("FXSH_CORPUS");
    if (!corpus || !*corpus) corpus = TEST_CORPUS_DEFAULT;
    char fx[2048];
    snprintf(fx, sizeof fx, "%s/fx", corpus);
    DIR *dp = opendir(fx);
    if (!dp) skip();
    struct dirent *e;
    int n = 0;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.') continue;
        char dir[2400], f[2600];
        snprintf(dir, sizeof dir, "%s/%s", fx, e->d_name);
        snprintf(f, sizeof f, "%s/onnx_dynamo.onnx", dir);
        struct stat sb;
        if (stat(f, &sb)) continue;
        long torch_nodes, ours = check_case(dir, &torch_nodes);
        if (ours >= 0) {
            n++;
            printf("# %-28s ours %4ld  torch %4ld\n", e->d_name, ours, torch_nodes);
            /* never more nodes than torch's own optimizer leaves */
            if (torch_nodes >= 0) assert_true(ours <= torch_nodes);
        }
    }
    closedir(dp);
    assert_true(n > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_match_torch),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
