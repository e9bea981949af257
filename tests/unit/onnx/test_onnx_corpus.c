/* test_onnx_corpus.c — printer conformance: every corpus .onnx must print exactly its .txt.
 *
 * Covers onnx_text/<group>/<test>/model.onnx → expected.txt and fx/<case>/<x>.onnx → <x>.txt.
 * Each model is also saved, reloaded and printed again, which must give the same text.
 * Prints "N passed, N failed" and the failing files; exits 77 (skip) without the corpus.
 * Usage: test_onnx_corpus [substring-filter] */
#include "test_paths.h"
#include "base/file.h"
#include "config.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "onnx/onnx_pb.h"
#include "onnx/onnx_print.h"


static char *read_all(const char *path, size_t *len)
{
    return file_slurp(path, len);
}

static void show_diff(const char *want, size_t wlen, const char *got, size_t glen)
{
    size_t i = 0;
    while (i < wlen && i < glen && want[i] == got[i]) i++;
    size_t line = 1, ls = 0;
    for (size_t k = 0; k < i; k++)
        if (want[k] == '\n') line++, ls = k + 1;
    fprintf(stderr, "    first difference at line %zu col %zu\n", line, i - ls + 1);
    fprintf(stderr, "    want: %.*s\n", (int)(strcspn(want + ls, "\n") > 200 ? 200 : strcspn(want + ls, "\n")), want + ls);
    fprintf(stderr, "    got:  %.*s\n", (int)(ls <= glen ? (strcspn(got + ls, "\n") > 200 ? 200 : strcspn(got + ls, "\n")) : 0), ls <= glen ? got + ls : "");
}

static int check(const char *model, const char *expected, const char *tmpfile, int *failed)
{
    size_t wlen;
    char *want = read_all(expected, &wlen);
    if (!want) return 0;   /* no expected text: the tool could not print it either */
    diag_sink d;
    diag_init(&d);
    /* the .txt files were printed from onnx.load(file, load_external_data=False) */
    ox_load_opts lo = {.keep_external = true};
    ox_model *m = ox_load_file_opts(model, &lo, &d);
    int ok = 0;
    if (!m) {
        fprintf(stderr, "FAIL %s: load error\n", model);
        diag_render_all(&d, stderr, "    ", false);
    } else {
        char *got = ox_model_to_text(m->proto);
        size_t glen = strlen(got);
        if (glen == wlen && memcmp(got, want, wlen) == 0) {
            ok = 1;
        } else {
            fprintf(stderr, "FAIL %s\n", model);
            show_diff(want, wlen, got, glen);
        }
        if (ok) {   /* save → load → print must be stable */
            ok = 0;
            if (ox_save_file(m, tmpfile, NULL, &d) == 0) {
                ox_model *m2 = ox_load_file_opts(tmpfile, &lo, &d);
                if (m2) {
                    char *got2 = ox_model_to_text(m2->proto);
                    ok = strcmp(got2, got) == 0;
                    free(got2);
                    ox_model_free(m2);
                }
            }
            if (!ok) fprintf(stderr, "FAIL %s: save/load/print not stable\n", model);
        }
        free(got);
        ox_model_free(m);
    }
    if (!ok) (*failed)++;
    diag_free(&d);
    free(want);
    return 1;
}

int main(int argc, char **argv)
{
    const char *corpus = getenv("FXSH_CORPUS");
    if (!corpus || !*corpus) corpus = TEST_CORPUS_DEFAULT;
    const char *filter = argc > 1 ? argv[1] : NULL;
    struct stat st;
    char pat[4096];
    snprintf(pat, sizeof pat, "%s/onnx_text", corpus);
    if (stat(pat, &st) != 0) {
        fprintf(stderr, "corpus not found at %s: skipping\n", corpus);
        return 77;
    }
    char tmpfile[] = "/tmp/fxsh_onnx_corpus_XXXXXX";
    int fd = mkstemp(tmpfile);
    if (fd < 0) return 99;
    close(fd);
    int total = 0, failed = 0;
    const char *patterns[] = {"%s/onnx_text/*/*/model.onnx", "%s/fx/*/*.onnx"};
    for (int k = 0; k < 2; k++) {
        glob_t g;
        snprintf(pat, sizeof pat, patterns[k], corpus);
        if (glob(pat, 0, NULL, &g) != 0) continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            const char *model = g.gl_pathv[i];
            if (filter && !strstr(model, filter)) continue;
            char expected[4096];
            if (k == 0) {
                snprintf(expected, sizeof expected, "%s", model);
                strcpy(strrchr(expected, '/') + 1, "expected.txt");
            } else {
                snprintf(expected, sizeof expected, "%.*s.txt", (int)(strlen(model) - 5), model);
            }
            total += check(model, expected, tmpfile, &failed);
        }
        globfree(&g);
    }
    unlink(tmpfile);
    printf("%d passed, %d failed\n", total - failed, failed);
    return failed ? 1 : 0;
}
