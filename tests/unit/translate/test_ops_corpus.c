/* test_ops_corpus.c — op coverage on real programs: every corpus torch.export program, decomposed
 * with the default table (decomposed.fx.txt), with the ONNX exporter's table and as exported,
 * translates to a model that fxsh's checker accepts.
 *
 * The programs come from program.pt2 (with the weights) or, where the archive was too large to
 * keep, program.json. A case fails with the first diagnostic of the stage that refused it; a
 * missing lowering names the ATen target. Skips (77) without the corpus.
 *
 * FXSH_OPS_DUMP=DIR saves each model as DIR/<case>.<stage>.onnx, so that ONNX Runtime can run it
 * on the case's io.json during development (`onnx-check run`). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_paths.h"
#include "base/file.h"
#include "onnx/onnx_pb.h"
#include "load/pt2_load.h"
#include "onnx/onnx_check.h"
#include "decompose/decompose.h"
#include "translate/translate.h"

/* Cases another pass refuses before translation has anything to do: accepted only with this
 * reason (decompose cannot functionalize writes through views yet; translate refuses the in-place
 * write of the exported program for the same reason). Documented, not hidden. */
static const struct { const char *cas, *reason; } refused[] = {
    {"indexing", "writes through"},
};

static bool expected_refusal(const char *cas, const char *msg)
{
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        if (!strcmp(cas, refused[i].cas) && msg && strstr(msg, refused[i].reason)) {
            printf("%s: refused as documented: %s\n", cas, msg);
            return true;
        }
    return false;
}

typedef struct tally {
    int programs, translated, checked;
} tally;

/* One program through translate and the checker; false (with the reason printed) on failure. */
static bool translate_and_check(const ops_registry *reg, const char *cas, const char *stage, const fx_program *p,
                                tally *t)
{
    diag_sink d;
    diag_init(&d);
    translate_options o;
    translate_options_init(&o);
    o.registry = reg;
    t->programs++;
    ox_model *m = translate_program(p, &o, &d);
    bool ok = false;
    if (!m) {
        if (expected_refusal(cas, d.len ? d.items[0].message : NULL)) ok = true;
        else fprintf(stderr, "FAIL %s (%s): translate: %s\n", cas, stage, d.len ? d.items[0].message : "?");
    } else {
        t->translated++;
        int problems = ox_check(m, &d);
        if (problems)
            fprintf(stderr, "FAIL %s (%s): %d checker problems, first: %s\n", cas, stage, problems,
                    d.len ? d.items[0].message : "?");
        else
            t->checked++;
        ok = problems == 0;
        const char *dump = getenv("FXSH_OPS_DUMP");
        if (ok && dump && *dump) {
            char path[4400];
            snprintf(path, sizeof path, "%s/%s.%s.onnx", dump, cas, stage);
            if (ox_save_file(m, path, NULL, &d)) fprintf(stderr, "cannot write %s\n", path);
        }
        ox_model_free(m);
    }
    diag_free(&d);
    return ok;
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
    setenv("FXSH_SHAREDIR", TEST_SHAREDIR, 1);
    ops_registry reg;
    ops_registry_init(&reg);
    diag_sink ld;
    diag_init(&ld);
    if (!ops_load_default(&reg, &ld)) {
        diag_render_all(&ld, stderr, NULL, false);
        return 1;
    }
    diag_free(&ld);
    static const struct { const char *name; int table; } stages[] = {
        {"exported", -1}, {"decomposed", DECOMP_DEFAULT}, {"onnx_decomposed", DECOMP_ONNX},
    };
    tally t[3] = {{0}};
    int failures = 0, cases = 0;
    struct dirent *ce;
    while ((ce = readdir(top))) {
        if (ce->d_name[0] == '.')
            continue;
        char path[4400];
        size_t len;
        diag_sink d;
        diag_init(&d);
        fx_program *ep = NULL;
        char *js = NULL;
        snprintf(path, sizeof path, "%s/%s/program.pt2", dir, ce->d_name);
        FILE *f = fopen(path, "rb");
        if (f) {
            fclose(f);
            ep = pt2_load_file(path, &d);
        } else {
            snprintf(path, sizeof path, "%s/%s/program.json", dir, ce->d_name);
            if (!(js = file_slurp(path, &len))) {
                diag_free(&d);
                continue;
            }
            ep = pt2_load_json(js, len, path, &d);
        }
        cases++;
        if (!ep) {
            fprintf(stderr, "FAIL %s: %s: %s\n", ce->d_name, path, d.len ? d.items[0].message : "?");
            failures++;
        }
        for (int s = 0; ep && s < 3; s++) {
            diag_clear(&d);
            fx_program *p = stages[s].table < 0 ? ep : decompose_program(ep, (decomp_table)stages[s].table, &d);
            if (!p) {
                if (expected_refusal(ce->d_name, d.len ? d.items[0].message : NULL))
                    continue;
                fprintf(stderr, "FAIL %s (%s): decompose: %s\n", ce->d_name, stages[s].name,
                        d.len ? d.items[0].message : "?");
                failures++;
                continue;
            }
            if (!translate_and_check(&reg, ce->d_name, stages[s].name, p, &t[s]))
                failures++;
            if (p != ep)
                fx_program_free(p);
        }
        fx_program_free(ep);
        free(js);
        diag_free(&d);
    }
    closedir(top);
    for (int s = 0; s < 3; s++)
        printf("%s: %d programs, %d translated, %d accepted by the checker\n", stages[s].name, t[s].programs,
               t[s].translated, t[s].checked);
    ops_registry_free(&reg);
    return cases > 0 && failures == 0 ? 0 : 1;
}
