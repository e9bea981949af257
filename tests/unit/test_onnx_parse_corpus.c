/* test_onnx_parse_corpus.c — parse every corpus ONNX text (expected.txt of onnx.printer) and check it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/strbuf.h"
#include "onnx/onnx_check.h"
#include "onnx/onnx_parse.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    strbuf sb;
    sb_init(&sb);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_putn(&sb, buf, n);
    fclose(f);
    *len = sb.len;
    return sb_detach(&sb);
}

typedef struct tally {
    int files, parse_fail, check_fail;
} tally;

/* Parses one printed model; it must parse, and the checker must accept it. */
static void one(const char *path, tally *t, bool verbose)
{
    size_t len;
    char *text = slurp(path, &len);
    if (!text)
        return;
    t->files++;
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_parse_model(text, len, path, &d);
    if (!m) {
        t->parse_fail++;
        if (verbose)
            diag_render_all(&d, stderr, NULL, false);
    } else if (ox_check(m, &d) != 0) {
        t->check_fail++;
        if (verbose)
            diag_render_all(&d, stderr, NULL, false);
    }
    ox_model_free(m);
    diag_free(&d);
    free(text);
}

static void test_fixtures(void **state)
{
    (void)state;
    DIR *dir = opendir(FXSH_FIXTURES);
    assert_non_null(dir);
    tally t = {0};
    struct dirent *e;
    while ((e = readdir(dir))) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 4, ".txt") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", FXSH_FIXTURES, e->d_name);
        one(path, &t, true);
    }
    closedir(dir);
    assert_true(t.files >= 5);
    assert_int_equal(t.parse_fail, 0);
    assert_int_equal(t.check_fail, 0);
}

static const char *corpus_dir(void)
{
    const char *c = getenv("FXSH_CORPUS");
    return c && *c ? c : FXSH_CORPUS_DEFAULT;
}

static void test_corpus(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/onnx_text/manifest.tsv", corpus_dir());
    FILE *mf = fopen(path, "r");
    if (!mf)
        skip();
    tally t = {0};
    char line[1024];
    while (fgets(line, sizeof line, mf)) {
        char group[256], name[512];
        if (sscanf(line, "%255s %511s", group, name) != 2 || strcmp(group, "group") == 0)
            continue;
        snprintf(path, sizeof path, "%s/onnx_text/%s/%s/expected.txt", corpus_dir(), group, name);
        one(path, &t, getenv("FXSH_VERBOSE") != NULL);
    }
    fclose(mf);
    fprintf(stderr, "onnx_text corpus: %d files, %d parse failures, %d checker rejections\n",
            t.files, t.parse_fail, t.check_fail);
    assert_true(t.files > 1000);
    assert_int_equal(t.parse_fail, 0);
    assert_int_equal(t.check_fail, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_corpus),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/onnx_text/manifest.tsv", corpus_dir());
    struct stat st;
    if (!failed && stat(path, &st) != 0)
        return 77;   /* the fixtures passed, but the conformance part could not run */
    return failed;
}
