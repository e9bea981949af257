/* test_decompose_ops.c — the decompositions of share/fxsh/decompose on one-op programs in shapes
 * and arguments the OpInfo corpus does not use: each tests/fixtures/decompose/ops/<case>/ holds
 * torch.export's program.json and onnx_decomposed.fx.txt, the graph torch.onnx's decomposition
 * step gave for it (recorded with scripts/dev/gen_decompose_ops.py, real torch 2.14); fxsh's
 * onnx-table decomposition must print the same graph. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_paths.h"
#include "base/diag.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "decompose/decompose.h"
#include "fx/fx.h"
#include "load/pt2_load.h"

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void test_ops_fixtures(void **state)
{
    (void)state;
    DIR *dir = opendir(TEST_FIXTURES "/decompose/ops");
    assert_non_null(dir);
    char *names[256];
    size_t n = 0, failed = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < 256)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(dir);
    qsort(names, n, sizeof *names, by_name);
    assert_true(n >= 30);
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        size_t len, wlen;
        snprintf(path, sizeof path, "%s/%s/program.json", TEST_FIXTURES "/decompose/ops", names[i]);
        char *js = file_slurp(path, &len);
        snprintf(path, sizeof path, "%s/%s/onnx_decomposed.fx.txt", TEST_FIXTURES "/decompose/ops", names[i]);
        char *want = file_slurp(path, &wlen);
        assert_non_null(js);
        assert_non_null(want);
        diag_sink d;
        diag_init(&d);
        fx_program *ep = pt2_load_json(js, len, path, &d);
        fx_program *r = ep ? decompose_program(ep, DECOMP_ONNX, &d) : NULL;
        char *got = NULL;
        if (r) {
            strbuf sb;
            sb_init(&sb);
            fx_print(r, FX_FORM_GRAPH, &sb);
            got = sb_detach(&sb);
        }
        if (!got || strcmp(got, want)) {
            failed++;
            fprintf(stderr, "%s: decomposition differs from torch's\n--- torch\n%s--- fxsh\n%s\n", names[i], want,
                    got ? got : (d.len ? d.items[0].message : "(no graph)"));
        }
        free(got);
        fx_program_free(r);
        fx_program_free(ep);
        diag_free(&d);
        free(js);
        free(want);
        free(names[i]);
    }
    assert_int_equal(failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_fixtures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
