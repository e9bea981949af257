/* test_export_corpus.c — conformance: export / decompose output printed as print(gm.graph)
 * equals the corpus (exported.fx.txt, decomposed.fx.txt, onnx_decomposed.fx.txt).
 * Skips (77) without the corpus. FXSH_VERBOSE=1 shows the first differing line per case.
 * The graph signature part of show program is compared with exported.program.txt too.
 * The test fails when fewer cases match than the floors below (a regression guard). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_paths.h"
#include "base/file.h"
#include "base/alloc.h"
#include "base/diag.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "load/load.h"
#include "load/fx_weight_source.h"
#include "load/pt2_load.h"
#include "decompose/decompose.h"
#include "capture/export.h"

static char *slurp(const char *path, size_t *len)
{
    return file_slurp(path, len);
}

static bool verbose;

/* Example input dtypes and shapes declared from io.json, as a user would with --input; a case whose
 * model.py declares dynamic_shapes keeps its dims undeclared (symbolic). */
typedef struct decls {
    arena a;
    export_input_decl in[16];
    export_options opt;
} decls;

static const export_options *declare_inputs(decls *dc, const char *dir, const char *cas)
{
    char path[4400];
    size_t len;
    arena_init(&dc->a);
    snprintf(path, sizeof path, "%s/%s/model.py", dir, cas);
    char *py = slurp(path, &len);
    bool dynamic = py && strstr(py, "def dynamic_shapes");
    free(py);
    if (dynamic)
        return NULL;
    snprintf(path, sizeof path, "%s/%s/io.json", dir, cas);
    char *js = slurp(path, &len);
    if (!js)
        return NULL;
    diag_sink d;
    diag_init(&d);
    json_value *root = json_parse(&dc->a, js, len, &(json_options){ .allow_nan_inf = true }, &d);
    json_value *ins = root ? json_get(root, "inputs") : NULL;
    size_t n = 0;
    for (size_t i = 0; ins && i < json_len(ins) && n < 16; i++) {
        json_value *e = json_at(ins, i), *shape = json_get(e, "shape");
        const char *name = json_str(json_get(e, "name"));
        if (!name || !shape)
            continue;
        size_t rank = json_len(shape);
        const char **dims = arena_alloc(&dc->a, (rank + 1) * sizeof *dims);
        for (size_t k = 0; k < rank; k++) {
            int64_t v = 0;
            json_int(json_at(shape, k), &v);
            dims[k] = arena_printf(&dc->a, "%lld", (long long)v);
        }
        const char *dt = json_str(json_get(e, "dtype"));
        fx_dtype dtype = dt ? fx_dtype_from_torch_name(dt, strlen(dt)) : FX_DT_UNKNOWN;
        dc->in[n++] = (export_input_decl){ arena_strdup(&dc->a, name), dtype, rank, dims };
    }
    diag_free(&d);
    free(js);
    dc->opt = (export_options){ dc->in, n };
    return n ? &dc->opt : NULL;
}

/* Compares printed program with expected text; reports the first differing line. */
static bool same(const char *cas, const char *what, const fx_program *p, const char *expected)
{
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_GRAPH, &sb);
    bool eq = strcmp(sb.s ? sb.s : "", expected) == 0;
    if (!eq && verbose) {
        const char *a = sb.s ? sb.s : "", *b = expected;
        while (*a && *a == *b) {
            a++;
            b++;
        }
        while (a > sb.s && a[-1] != '\n') {
            a--;
            b--;
        }
        const char *ae = strchr(a, '\n'), *be = strchr(b, '\n');
        fprintf(stderr, "  %s %s differs:\n    got:  %.*s\n    want: %.*s\n", cas, what,
                (int)(ae ? ae - a : (long)strlen(a)), a, (int)(be ? be - b : (long)strlen(b)), b);
    }
    sb_free(&sb);
    return eq;
}

/* The "Graph signature:" part of print(ep), up to "Range constraints:" (NULL if absent). */
static const char *signature_part(const char *text, size_t *len)
{
    const char *s = strstr(text, "\nGraph signature:");
    const char *e = s ? strstr(s, "\nRange constraints:") : NULL;
    if (!e)
        return NULL;
    *len = (size_t)(e - s);
    return s;
}

/* show program's signature part equals exported.program.txt's. */
static bool same_signature(const char *cas, const fx_program *p, const char *expected)
{
    strbuf sb;
    sb_init(&sb);
    diag_sink d;
    diag_init(&d);
    size_t gl = 0, wl = 0;
    const char *got = fx_print_program(p, &sb, &d) ? signature_part(sb.s, &gl) : NULL;
    const char *want = signature_part(expected, &wl);
    bool eq = got && want && gl == wl && memcmp(got, want, gl) == 0;
    if (!eq && verbose)
        fprintf(stderr, "  %s exported.program.txt signature differs:\n    got:%.*s\n    want:%.*s\n", cas, (int)gl,
                got ? got : "", (int)wl, want ? want : "");
    diag_free(&d);
    sb_free(&sb);
    return eq;
}

static void first_error(const char *cas, const char *what, diag_sink *d)
{
    if (verbose && d->len)
        fprintf(stderr, "  %s %s failed: %s\n", cas, what, d->items[0].message);
}

int main(void)
{
    const char *corpus = getenv("FXSH_CORPUS");
    if (!corpus || !*corpus)
        corpus = TEST_CORPUS_DEFAULT;
    verbose = getenv("FXSH_VERBOSE") != NULL;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fx", corpus);
    DIR *top = opendir(dir);
    if (!top) {
        printf("SKIP: no corpus at %s\n", dir);
        return 77;
    }
    int ex_ok = 0, ex_n = 0, sig_ok = 0, de_ok = 0, de_n = 0, on_ok = 0, on_n = 0;
    struct dirent *ce;
    while ((ce = readdir(top))) {
        if (ce->d_name[0] == '.')
            continue;
        char path[4400];
        size_t len, elen;
        diag_sink d;
        diag_init(&d);
        snprintf(path, sizeof path, "%s/%s/exported.fx.txt", dir, ce->d_name);
        char *exp = slurp(path, &elen);
        snprintf(path, sizeof path, "%s/%s/torch_level.module.txt", dir, ce->d_name);
        char *tl = slurp(path, &len);
        if (tl && exp) {
            ex_n++;
            fx_program *p = fxp_parse_module_text(tl, len, path, &d);
            /* the weights a user would attach (load --weights): the archive's values, or the
             * program JSON's dtypes and shapes when no archive was kept */
            char wpath[4400];
            snprintf(wpath, sizeof wpath, "%s/%s/program.pt2", dir, ce->d_name);
            if (access(wpath, R_OK) != 0)
                snprintf(wpath, sizeof wpath, "%s/%s/program.json", dir, ce->d_name);
            diag_sink wd;
            diag_init(&wd);
            if (p && access(wpath, R_OK) == 0)
                load_attach_weights(p, wpath, NULL, &wd);   /* a program without weights has none to attach */
            diag_free(&wd);
            decls dc;
            const export_options *opt = declare_inputs(&dc, dir, ce->d_name);
            fx_program *e = p ? export_program(p, opt, &d) : NULL;
            arena_free(&dc.a);
            if (e && same(ce->d_name, "export", e, exp))
                ex_ok++;
            else if (!e)
                first_error(ce->d_name, "export", &d);
            snprintf(path, sizeof path, "%s/%s/exported.program.txt", dir, ce->d_name);
            size_t plen;
            char *prog = slurp(path, &plen);
            if (e && prog && same_signature(ce->d_name, e, prog))
                sig_ok++;
            free(prog);
            fx_program_free(e);
            fx_program_free(p);
        }
        free(tl);
        free(exp);
        diag_clear(&d);
        /* decompose starts from the stored torch.export program (signature + shapes). */
        snprintf(path, sizeof path, "%s/%s/program.json", dir, ce->d_name);
        char *js = slurp(path, &len);
        fx_program *ep = js ? pt2_load_json(js, len, path, &d) : NULL;
        static const char *const outs[2] = { "decomposed.fx.txt", "onnx_decomposed.fx.txt" };
        for (int k = 0; k < 2 && ep; k++) {
            snprintf(path, sizeof path, "%s/%s/%s", dir, ce->d_name, outs[k]);
            char *want = slurp(path, &elen);
            if (!want)
                continue;
            diag_clear(&d);
            k ? on_n++ : de_n++;
            fx_program *dp = decompose_program(ep, k ? DECOMP_ONNX : DECOMP_DEFAULT, &d);
            if (dp && same(ce->d_name, outs[k], dp, want))
                k ? on_ok++ : de_ok++;
            else if (!dp)
                first_error(ce->d_name, outs[k], &d);
            fx_program_free(dp);
            free(want);
        }
        fx_program_free(ep);
        free(js);
        diag_free(&d);
    }
    closedir(top);
    printf("export: %d/%d exported.fx.txt match\n", ex_ok, ex_n);
    printf("export: %d/%d graph signatures of exported.program.txt match\n", sig_ok, ex_n);
    printf("decompose: %d/%d decomposed.fx.txt match\n", de_ok, de_n);
    printf("decompose: %d/%d onnx_decomposed.fx.txt match\n", on_ok, on_n);
    return ex_ok >= test_floor("EXPORT_FLOOR") && sig_ok >= test_floor("SIGNATURE_FLOOR") && de_ok >= test_floor("DECOMP_FLOOR") && on_ok >= test_floor("ONNX_FLOOR") ? 0 : 1;
}
