/* test_ts_export_corpus.c — TorchScript IR → export against torch.export's own program: for every
 * corpus case with a torchscript.txt and an exported program (python_if_*: the program of its
 * hand-written _as_cond twin, after the data-dependent ifs are rewritten into cond), load the
 * TorchScript text as `load F --weights W --input ...` does, export it, and compare the code
 * print_readable shows, comment lines aside (they quote TorchScript's source ranges where torch
 * quotes its own stack traces). Skips without the corpus; the count must not fall below the
 * floor (test_floor("TS_EXPORT_FLOOR")). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_paths.h"
#include "base/file.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "fx/fx_control.h"
#include "load/ts_load.h"
#include "rewrite/rewrite.h"
#include "pipeline/pipeline.h"


/* Module attributes the scripted code reads at run time (self.heads): TorchScript's text does
 * not hold their values, model.py's constructor arguments do (`load --attr`). */
static const struct {
    const char *name, *attr;
} case_attrs[] = {{"attention", "heads=4"}, {"transformer_stack", "heads=8"}};

static char *read_file(const char *dir, const char *name, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *b = file_slurp(path, &len);
    if (n)
        *n = len;
    return b;
}

static bool exists(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* The code lines of print_readable's text: comment lines dropped, trailing newlines too. */
static void code_of(const char *s, strbuf *out)
{
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        size_t k = 0;
        while (k < n && s[k] == ' ')
            k++;
        if (k == n || s[k] != '#') {
            sb_putn(out, s, n);
            sb_putc(out, '\n');
        }
        s += n + (e ? 1 : 0);
    }
    while (out->len && out->s[out->len - 1] == '\n')
        sb_truncate(out, out->len - 1);
}

/* The symbol torch gave a dynamic dimension of input `name` in the reference's signature
 * (x: "f32[s77, 2, 3]"), or NULL for a static one. */
static bool symbolic_dim(const char *ref, const char *name, size_t k, char *out, size_t cap)
{
    const char *fw = strstr(ref, "def forward(self");
    char key[96];
    snprintf(key, sizeof key, " %s: \"", name);
    const char *p = fw ? strstr(fw, key) : NULL;
    const char *eol = fw ? strchr(fw, '\n') : NULL;
    if (!p || (eol && p > eol))
        return false;
    p = strchr(p, '[');
    for (size_t i = 0; p && i < k; i++)
        p = strchr(p + 1, ',');
    if (!p)
        return false;
    p++;
    while (*p == ' ')
        p++;
    size_t n = strcspn(p, ",]");
    if (!n || (*p >= '0' && *p <= '9') || n >= cap)
        return false;
    snprintf(out, cap, "%.*s", (int)n, p);
    return true;
}

/* The example inputs of io.json as `load --input` declarations. */
static size_t input_decls(const char *dir, const char *ref, ts_input_decl *in, size_t cap)
{
    size_t n;
    char *text = read_file(dir, "io.json", &n);
    assert_non_null(text);
    arena a;
    arena_init(&a);
    diag_sink d;
    diag_init(&d);
    json_value *root = json_parse(&a, text, n, NULL, &d);
    assert_non_null(root);
    const json_value *ins = json_get(root, "inputs");
    size_t k = 0;
    for (size_t i = 0; i < json_len(ins) && k < cap; i++) {
        const json_value *x = json_at(ins, i), *shape = json_get(x, "shape");
        strbuf spec;
        sb_init(&spec);
        sb_printf(&spec, "%s=%s[", json_str(json_get(x, "name")), json_str(json_get(x, "dtype")));
        for (size_t j = 0; j < json_len(shape); j++) {
            int64_t v = 0;
            char sym[24];
            assert_true(json_int(json_at(shape, j), &v));
            if (symbolic_dim(ref, json_str(json_get(x, "name")), j, sym, sizeof sym))
                sb_printf(&spec, "%s%s", j ? "," : "", sym);
            else
                sb_printf(&spec, "%s%lld", j ? "," : "", (long long)v);
        }
        sb_putc(&spec, ']');
        assert_true(ts_parse_input_decl(spec.s, &in[k]));
        k++;
        sb_free(&spec);
    }
    diag_free(&d);
    arena_free(&a);
    free(text);
    return k;
}

/* The Python ifs on tensors, deepest first (a nested if is rewritten before the one holding it),
 * by the qualified names `rewrite` takes. */
static void collect_ifs(const fx_module *m, const char *prefix, int depth, char names[][128], int *depths, size_t *n,
                        size_t cap)
{
    for (const fx_node *x = m->graph ? m->graph->first : NULL; x; x = x->next) {
        fx_control_view v;
        if (fx_control_kind_of(x) != FX_CTRL_IF || !fx_control_inspect(x, &v) || v.cond->kind != FX_ARG_NODE)
            continue;
        const fx_value *cv = v.cond->u.node->meta.val;
        if (!cv || cv->kind != FX_VAL_TENSOR || *n == cap)
            continue;
        snprintf(names[*n], 128, "%s%s", prefix, x->name);
        depths[(*n)++] = depth;
    }
    for (const fx_module *c = m->first_child; c; c = c->next_sibling) {
        char p[128];
        snprintf(p, sizeof p, "%s%s.", prefix, c->name);
        collect_ifs(c, p, depth + 1, names, depths, n, cap);
    }
}

static fx_program *rewrite_data_ifs(fx_program *p, diag_sink *d)
{
    char names[16][128];
    int depths[16];
    size_t n = 0;
    collect_ifs(p->root, "", 0, names, depths, &n, 16);
    for (int depth = 16; depth >= 0 && p; depth--)
        for (size_t i = 0; i < n && p; i++)
            if (depths[i] == depth) {
                /* torch.cond refuses a branch returning its input: x.clone(), as torch suggests */
                fx_program *q = rewrite_if_to_cond_ex(p, names[i], true, d);
                fx_program_free(p);
                p = q;
            }
    return p;
}

/* The case exported as `load; [rewrite ... cond]; export; show exported code` gives it, or NULL:
 * the pipeline's own load and capture stage, as the shell runs them. */
static char *export_code(const char *dir, const char *src_dir, const char *name, const char *ref, diag_sink *d)
{
    char path[1024], wpath[1024];
    snprintf(path, sizeof path, "%s/torchscript.txt", dir);
    ts_input_decl in[8];
    ts_attr_decl attrs[2];
    pl_load_options o = {.inputs = in, .attrs = attrs};
    o.n_inputs = input_decls(dir, ref, in, 8);
    /* the weights: the twin's archive, or its JSON (shapes only) where the archive was too big */
    const char *fw = strstr(ref, "def forward(self, ");
    bool has_weights = fw && (!strncmp(fw + 18, "p_", 2) || !strncmp(fw + 18, "b_", 2));
    if (has_weights) {
        snprintf(wpath, sizeof wpath, "%s/%s", src_dir, exists(src_dir, "program.pt2") ? "program.pt2" : "program.json");
        o.weights = wpath;
    }
    for (size_t i = 0; i < sizeof case_attrs / sizeof *case_attrs; i++)
        if (!strcmp(case_attrs[i].name, name))
            assert_true(ts_parse_attr_decl(case_attrs[i].attr, &attrs[o.n_attrs++]));
    pl_loaded l;
    if (!pl_load_file(path, &o, &l, d)) return NULL;
    fx_program *p = rewrite_data_ifs(l.fx, d);
    if (!p) return NULL;
    pl_stage stages[PL_N_STAGES];
    pl_stages_init(stages);
    pl_stage_set_fx(&stages[PL_STAGE_FX], p, path);
    export_settings cfg;
    settings_init(&cfg);
    struct ops_registry *ops = NULL;
    pl_env env = {.diag = d, .ops = &ops};
    char *code = NULL;
    if (pl_run_stage(stages, PL_STAGE_EXPORTED, &cfg, NULL, &env)) {
        strbuf sb;
        sb_init(&sb);
        fx_print(stages[PL_STAGE_EXPORTED].fx, FX_FORM_CODE, &sb);
        code = sb_detach(&sb);
    }
    for (int i = 0; i < PL_N_STAGES; i++) pl_stage_clear(&stages[i]);
    settings_free(&cfg);
    pl_free_ops(ops);
    return code;
}

/* The first line where got and want differ, for the record of what is left. */
static void first_difference(const char *got, const char *want, char *out, size_t cap)
{
    size_t line = 1;
    const char *g = got, *w = want;
    while (*g && *w) {
        size_t gn = strcspn(g, "\n"), wn = strcspn(w, "\n");
        if (gn != wn || strncmp(g, w, gn)) {
            snprintf(out, cap, "line %zu: got `%.*s`, torch `%.*s`", line, (int)(gn > 160 ? 160 : gn), g,
                     (int)(wn > 160 ? 160 : wn), w);
            return;
        }
        g += gn + (g[gn] ? 1 : 0);
        w += wn + (w[wn] ? 1 : 0);
        line++;
    }
    snprintf(out, cap, "line %zu: one program is longer", line);
}

static void test_corpus(void **state)
{
    (void)state;
    const char *root = getenv("FXSH_CORPUS") ? getenv("FXSH_CORPUS") : TEST_CORPUS_DEFAULT;
    char fxdir[512];
    snprintf(fxdir, sizeof fxdir, "%s/fx", root);
    DIR *dd = opendir(fxdir);
    if (!dd)
        skip();
    struct dirent *e;
    size_t total = 0, same = 0;
    while ((e = readdir(dd))) {
        char dir[1024], src_dir[1100];
        snprintf(dir, sizeof dir, "%s/%s", fxdir, e->d_name);
        if (e->d_name[0] == '.' || !exists(dir, "torchscript.txt"))
            continue;
        /* a Python if on a tensor does not export: its hand-written cond twin did */
        snprintf(src_dir, sizeof src_dir, "%s", dir);
        if (!exists(dir, "exported.readable.txt"))
            snprintf(src_dir, sizeof src_dir, "%s_as_cond", dir);
        char *ref = read_file(src_dir, "exported.readable.txt", NULL);
        if (!ref)
            continue;
        total++;
        diag_sink d;
        diag_init(&d);
        char *code = export_code(dir, src_dir, e->d_name, ref, &d);
        strbuf got, want;
        sb_init(&got);
        sb_init(&want);
        code_of(ref, &want);
        if (code)
            code_of(code, &got);
        char why[400] = "";
        if (!code) {
            const char *msg = "?";
            for (size_t i = 0; i < d.len; i++)
                if (d.items[i].severity == DIAG_ERROR) {
                    msg = d.items[i].message;
                    break;
                }
            snprintf(why, sizeof why, "export failed: %.300s", msg);
        } else if (strcmp(got.s ? got.s : "", want.s ? want.s : "")) {
            first_difference(got.s ? got.s : "", want.s ? want.s : "", why, sizeof why);
        } else {
            same++;
        }
        fprintf(stderr, "%-26s %s%s\n", e->d_name, why[0] ? "differs: " : "same as torch.export", why);
        sb_free(&got);
        sb_free(&want);
        free(code);
        free(ref);
        diag_free(&d);
    }
    closedir(dd);
    fprintf(stderr, "TorchScript -> export equal to torch.export's program: %zu/%zu (floor %d)\n", same, total,
            test_floor("TS_EXPORT_FLOOR"));
    assert_true(total > 0);
    assert_true(same >= test_floor("TS_EXPORT_FLOOR"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
