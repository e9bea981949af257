/* test_fx_corpus.c — conformance: every *.fx.txt, *.readable.txt and *.module.txt under the
 * corpus loads and prints back byte for byte in its source form, is a complete REPL block,
 * and (readable / module text) prints as the graph text torch printed for the same program.
 * Skips (77) without corpus. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_paths.h"
#include "base/file.h"
#include "fx/fx.h"
#include "load/load.h"

static const char *const kinds[3] = {".fx.txt", ".readable.txt", ".module.txt"};

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static char *slurp(const char *path, size_t *len)
{
    return file_slurp(path, len);
}

int main(void)
{
    const char *corpus = getenv("FXSH_CORPUS");
    if (!corpus || !*corpus)
        corpus = TEST_CORPUS_DEFAULT;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fx", corpus);
    DIR *top = opendir(dir);
    if (!top) {
        printf("SKIP: no corpus at %s\n", dir);
        return 77;
    }
    int pass[3] = {0}, total[3] = {0}, incomplete = 0, cross_pass = 0, cross_total = 0;
    struct dirent *ce;
    while ((ce = readdir(top))) {
        if (ce->d_name[0] == '.')
            continue;
        char cdir[8192];
        snprintf(cdir, sizeof cdir, "%s/%s", dir, ce->d_name);
        DIR *cd = opendir(cdir);
        if (!cd)
            continue;
        struct dirent *fe;
        while ((fe = readdir(cd))) {
            int k = -1;
            for (int i = 0; i < 3; i++)
                if (ends_with(fe->d_name, kinds[i]))
                    k = i;
            if (k < 0)
                continue;
            char path[16384];
            snprintf(path, sizeof path, "%s/%s", cdir, fe->d_name);
            size_t len;
            char *text = slurp(path, &len);
            if (!text)
                continue;
            total[k]++;
            /* a whole file pasted into the REPL is a complete block */
            if (!load_fx_text_complete(text, len)) {
                printf("FAIL (not complete) %s\n", path);
                incomplete++;
            }
            diag_sink d;
            diag_init(&d);
            fx_program *p = load_fx_text(text, len, path, &d);
            if (!p) {
                printf("FAIL (load) %s\n", path);
                diag_render_all(&d, stdout, NULL, false);
            } else {
                strbuf sb;
                sb_init(&sb);
                fx_print(p, fx_program_source_form(p), &sb);
                if (sb.len == len && memcmp(sb.s, text, len) == 0)
                    pass[k]++;
                else
                    printf("FAIL (differs) %s\n", path);
                /* readable code and print(gm) must give the graph torch printed for the same
                 * program: <stem>.readable.txt / <stem>.module.txt vs <stem>.fx.txt */
                if (k > 0) {
                    char gpath[16384];
                    size_t stem = strlen(path) - strlen(kinds[k]);
                    snprintf(gpath, sizeof gpath, "%.*s.fx.txt", (int)stem, path);
                    size_t glen;
                    char *gtext = slurp(gpath, &glen);
                    if (gtext) {
                        cross_total++;
                        sb_reset(&sb);
                        fx_print(p, FX_FORM_GRAPH, &sb);
                        if (sb.len == glen && memcmp(sb.s, gtext, glen) == 0)
                            cross_pass++;
                        else
                            printf("FAIL (graph view differs from %s) %s\n", gpath, path);
                        free(gtext);
                    }
                }
                sb_free(&sb);
                fx_program_free(p);
            }
            diag_free(&d);
            free(text);
        }
        closedir(cd);
    }
    closedir(top);
    int ok = 1;
    for (int i = 0; i < 3; i++) {
        printf("round trip %-14s %d/%d\n", kinds[i], pass[i], total[i]);
        if (pass[i] != total[i])
            ok = 0;
    }
    printf("graph view of readable/module text %d/%d\n", cross_pass, cross_total);
    if (cross_pass != cross_total)
        ok = 0;
    return ok && !incomplete && total[0] > 0 ? 0 : 1;
}
