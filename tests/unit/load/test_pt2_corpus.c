/* test_pt2_corpus.c — conformance: every corpus program.pt2 / program.json prints as torch printed it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_paths.h"
#include "base/file.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fx/fx.h"
#include "load/pt2_load.h"


static const char *corpus_dir(void)
{
    const char *c = getenv("FXSH_CORPUS");
    return c && *c ? c : TEST_CORPUS_DEFAULT;
}

static char *slurp(const char *path)
{
    size_t len;
    return file_slurp(path, &len);
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void test_corpus(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/fx", corpus_dir());
    DIR *dir = opendir(path);
    if (!dir) skip();
    char *names[512];
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && nn < 512)
        if (e->d_name[0] != '.') names[nn++] = strdup(e->d_name);
    closedir(dir);
    qsort(names, nn, sizeof *names, cmp_names);
    static const char *const srcs[] = { "program.pt2", "program.json" };
    static const char *const expected[] = { "exported.fx.txt", "exported.readable.txt", "exported.program.txt" };
    int total = 0, pass = 0, loaded = 0, files = 0;
    for (size_t i = 0; i < nn; i++) {
        for (int s = 0; s < 2; s++) {
            snprintf(path, sizeof path, "%s/fx/%s/%s", corpus_dir(), names[i], srcs[s]);
            struct stat st;
            if (stat(path, &st) != 0) continue;
            files++;
            diag_sink d;
            diag_init(&d);
            fx_program *p = pt2_load_file(path, &d);
            if (!p) {
                fprintf(stderr, "LOAD FAIL %s/%s\n", names[i], srcs[s]);
                diag_render_all(&d, stderr, "  ", false);
                diag_free(&d);
                total += 3;
                continue;
            }
            loaded++;
            for (int f = 0; f < 3; f++) {
                snprintf(path, sizeof path, "%s/fx/%s/%s", corpus_dir(), names[i], expected[f]);
                char *want = slurp(path);
                if (!want) continue;
                strbuf sb;
                sb_init(&sb);
                if (f == 0) fx_print(p, FX_FORM_GRAPH, &sb);
                else if (f == 1) fx_print(p, FX_FORM_CODE, &sb);
                else fx_print_program(p, &sb, &d);
                total++;
                if (strcmp(sb.s, want) == 0) pass++;
                else fprintf(stderr, "MISMATCH %s/%s %s\n", names[i], srcs[s], expected[f]);
                sb_free(&sb);
                free(want);
            }
            fx_program_free(p);
            diag_free(&d);
        }
    }
    for (size_t i = 0; i < nn; i++) free(names[i]);
    fprintf(stderr, "pt2 corpus: %d/%d files loaded, %d/%d printed forms match\n", loaded, files, pass, total);
    assert_true(files > 0);
    assert_int_equal(loaded, files);
    assert_int_equal(pass, total);
}

int main(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fx", corpus_dir());
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "corpus not found at %s: skipping\n", path);
        return 77;
    }
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_corpus) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
