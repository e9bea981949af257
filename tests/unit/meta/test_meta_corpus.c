/* test_meta_corpus.c — conformance of meta inference with the value meta torch recorded.
 *
 * exported: every program.json and program.pt2 of the corpus is loaded, the meta of every
 *   node but the placeholders is erased (root and HOP subgraphs), meta_infer_program fills it
 *   again, and dtype, sizes and strides are compared with what torch recorded.
 * torch-decomposed: torch's own decomposed.readable.txt / onnx_decomposed.readable.txt are
 *   loaded and checked the same way (dtype and sizes: print_readable shows no strides).
 * fxsh-decomposed: program.json goes through fxsh's decompose pass (default and ONNX tables);
 *   where the result is torch's graph (its print(gm.graph) equals decomposed.fx.txt /
 *   onnx_decomposed.fx.txt, so node names line up), every non-placeholder meta is erased and
 *   inferred and compared by node name with torch's annotations in the readable text.
 * fxsh-decomposed as emitted: the same programs with the metas the decompose pass gave them
 *   (the source's, or inferred for what it emits), compared before anything is erased.
 *
 * One cmocka test per comparison prints its match count (per op with FXSH_VERBOSE=1, which also
 * shows each mismatch) and fails when it drops below its floor. Skips (77) without the corpus. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_paths.h"
#include "base/alloc.h"
#include "base/diag.h"
#include "base/file.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "load/load.h"
#include "load/pt2_load.h"
#include "decompose/decompose.h"
#include "meta/meta_infer.h"

static bool verbose;

/* Per-op tallies. */
typedef struct op_stat {
    const char *op;
    int seen, equal, differ, missing;
} op_stat;

typedef struct tally {
    arena a;
    hashmap by_op;
    VEC(op_stat *) ops;
    int seen, equal, differ, missing;
} tally;

static void tally_init(tally *t)
{
    memset(t, 0, sizeof *t);
    arena_init(&t->a);
    hm_init(&t->by_op);
}

static void tally_free(tally *t)
{
    vec_free(&t->ops);
    hm_free(&t->by_op);
    arena_free(&t->a);
}

static op_stat *stat_of(tally *t, const fx_node *n)
{
    const char *op = n->op == FX_OP_CALL_FUNCTION ? n->target : fx_opcode_name(n->op);
    op_stat *s = hm_get(&t->by_op, op);
    if (!s) {
        s = arena_alloc(&t->a, sizeof *s);
        s->op = arena_strdup(&t->a, op);
        hm_put(&t->by_op, s->op, s);
        vec_push(&t->ops, s);
    }
    return s;
}

static void value_text(strbuf *sb, const fx_value *v, bool strides)
{
    if (!v) {
        sb_puts(sb, "(none)");
        return;
    }
    if (v->kind == FX_VAL_SYM) {
        sb_printf(sb, "Sym(%s)", v->text);
        return;
    }
    if (v->kind == FX_VAL_TUPLE) {
        sb_puts(sb, "(");
        for (size_t i = 0; i < v->n_items; i++) {
            if (i)
                sb_puts(sb, ", ");
            value_text(sb, v->items[i], strides);
        }
        sb_puts(sb, ")");
        return;
    }
    if (v->kind != FX_VAL_TENSOR) {
        sb_puts(sb, v->text ? v->text : "?");
        return;
    }
    sb_printf(sb, "%s[", fx_dtype_get(v->dtype)->abbr);
    for (size_t i = 0; i < v->rank; i++)
        sb_printf(sb, "%s%s", i ? ", " : "", v->sizes[i]);
    sb_puts(sb, "]");
    if (strides && v->strides) {
        sb_puts(sb, "[");
        for (size_t i = 0; i < v->rank; i++)
            sb_printf(sb, "%s%s", i ? ", " : "", v->strides[i]);
        sb_puts(sb, "]");
    }
}

/* Equal as torch would print it: dtype and sizes, strides too when both are recorded. */
static bool same_value(const fx_value *want, const fx_value *got, bool strides)
{
    strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    bool st = strides && want && got && want->kind == FX_VAL_TENSOR && got->kind == FX_VAL_TENSOR && want->strides &&
              got->strides;
    value_text(&a, want, st);
    value_text(&b, got, st);
    bool eq = !strcmp(a.s, b.s);
    sb_free(&a);
    sb_free(&b);
    return eq;
}

static void count(tally *t, const char *cas, const char *where, const fx_node *n, const fx_value *want,
                  const fx_value *got, bool strides)
{
    op_stat *s = stat_of(t, n);
    s->seen++;
    t->seen++;
    if (!got) {
        s->missing++;
        t->missing++;
    } else if (same_value(want, got, strides)) {
        s->equal++;
        t->equal++;
        return;
    } else {
        s->differ++;
        t->differ++;
    }
    if (verbose) {
        strbuf a, b;
        sb_init(&a);
        sb_init(&b);
        value_text(&a, want, strides);
        value_text(&b, got, strides);
        fprintf(stderr, "  %s %s %%%s (%s): torch %s, inferred %s\n", cas, where, n->name,
                n->op == FX_OP_CALL_FUNCTION ? n->target : fx_opcode_name(n->op), a.s, b.s);
        sb_free(&a);
        sb_free(&b);
    }
}

/* Calls cb for every node of every graph, with the module path of its graph. */
static void each_node(fx_module *m, const char *path, void (*cb)(fx_node *n, const char *path, void *ctx), void *ctx)
{
    if (m->graph)
        for (fx_node *n = m->graph->first; n; n = n->next)
            cb(n, path, ctx);
    for (fx_module *c = m->first_child; c; c = c->next_sibling) {
        char sub[1024];
        snprintf(sub, sizeof sub, "%s/%s", path, c->name);
        each_node(c, sub, cb, ctx);
    }
}

static void erase(fx_node *n, const char *path, void *ctx)
{
    (void)path;
    (void)ctx;
    if (n->op != FX_OP_PLACEHOLDER)
        n->meta.val = NULL;
}

typedef struct index_ctx {
    arena *a;
    hashmap *map;
} index_ctx;

static void index_node(fx_node *n, const char *path, void *ctx)
{
    index_ctx *ic = ctx;
    if (n->op == FX_OP_PLACEHOLDER || n->op == FX_OP_OUTPUT || !n->meta.val)
        return;
    hm_put(ic->map, arena_printf(ic->a, "%s:%s", path, n->name), n);
}

typedef struct cmp_ctx {
    tally *t;
    const char *cas, *where;
    hashmap *want;
    bool strides;
    arena *a;
} cmp_ctx;

static void compare_node(fx_node *n, const char *path, void *ctx)
{
    cmp_ctx *cc = ctx;
    if (n->op == FX_OP_PLACEHOLDER || n->op == FX_OP_OUTPUT)
        return;
    char key[1400];
    snprintf(key, sizeof key, "%s:%s", path, n->name);
    const fx_node *w = hm_get(cc->want, key);
    if (!w)
        return;   /* torch recorded nothing here (multi-output values, HOP nodes) */
    count(cc->t, cc->cas, cc->where, n, w->meta.val, n->meta.val, cc->strides);
}

/* Erases and infers got's metas (rules NULL: compares them as they are); compares them with
 * want's recorded ones by path and name. */
static void check(tally *t, const meta_rules *rules, const char *cas, const char *where, fx_program *got,
                  fx_program *want, bool strides)
{
    arena a;
    arena_init(&a);
    hashmap map;
    hm_init(&map);
    index_ctx ic = { &a, &map };
    each_node(want->root, "", index_node, &ic);
    if (rules) {
        each_node(got->root, "", erase, NULL);
        diag_sink d;
        diag_init(&d);
        meta_infer_program_with(got, rules, &d);
        if (verbose)
            for (size_t i = 0; i < d.len; i++)
                fprintf(stderr, "  %s %s note: %s\n", cas, where, d.items[i].message);
        diag_free(&d);
    }
    cmp_ctx cc = { t, cas, where, &map, strides, &a };
    each_node(got->root, "", compare_node, &cc);
    hm_free(&map);
    arena_free(&a);
}

static void print_tally(const char *what, tally *t)
{
    printf("%s: %d/%d node metas equal to torch's (%d differ, %d not inferred)\n", what, t->equal, t->seen, t->differ,
           t->missing);
    if (!verbose)
        return;
    for (size_t i = 0; i < t->ops.len; i++) {
        op_stat *s = t->ops.items[i];
        printf("  %-55s %4d/%-4d%s\n", s->op, s->equal, s->seen,
               s->equal == s->seen ? "" : s->missing == s->seen ? "  (no rule)" : "  (some differ)");
    }
}

/* The three tallies, filled once by the group setup from one walk over the corpus. */
typedef struct corpus_run {
    tally ex, td, de, em;
    int de_cases, de_skipped;
} corpus_run;

static const char *corpus_dir(char *buf, size_t cap)
{
    const char *corpus = getenv("FXSH_CORPUS");
    snprintf(buf, cap, "%s/fx", corpus && *corpus ? corpus : TEST_CORPUS_DEFAULT);
    return buf;
}

static void walk_case(corpus_run *cr, const meta_rules *rules, const char *dir, const char *cas, diag_sink *d)
{
    char path[4400];
    size_t len;
    /* exported: program.json and program.pt2 against their own recorded metas */
    snprintf(path, sizeof path, "%s/%s/program.json", dir, cas);
    char *js = file_slurp(path, &len);
    fx_program *ep = js ? pt2_load_json(js, len, path, d) : NULL;
    free(js);
    if (ep) {
        fx_program *got = fx_program_clone(ep);
        check(&cr->ex, rules, cas, "program.json", got, ep, true);
        fx_program_free(got);
    }
    snprintf(path, sizeof path, "%s/%s/program.pt2", dir, cas);
    fx_program *pt = access(path, R_OK) == 0 ? pt2_load_file(path, d) : NULL;
    if (pt) {
        fx_program *got = fx_program_clone(pt);
        check(&cr->ex, rules, cas, "program.pt2", got, pt, true);
        fx_program_free(got);
        fx_program_free(pt);
    }
    static const char *const stage[2] = { "decomposed", "onnx_decomposed" };
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s/%s.readable.txt", dir, cas, stage[k]);
        char *txt = file_slurp(path, &len);
        fx_program *want = txt ? fxp_parse_code_text(txt, len, path, d) : NULL;
        free(txt);
        if (!want)
            continue;
        /* torch's decomposition, as torch printed it */
        fx_program *got = fx_program_clone(want);
        check(&cr->td, rules, cas, stage[k], got, want, false);
        fx_program_free(got);
        /* fxsh's decomposition, where it is torch's graph */
        snprintf(path, sizeof path, "%s/%s/%s.fx.txt", dir, cas, stage[k]);
        char *fxt = file_slurp(path, &len);
        fx_program *dp = ep && fxt ? decompose_program(ep, k ? DECOMP_ONNX : DECOMP_DEFAULT, d) : NULL;
        if (dp) {
            strbuf sb;
            sb_init(&sb);
            fx_print(dp, FX_FORM_GRAPH, &sb);
            if (!strcmp(sb.s ? sb.s : "", fxt)) {
                cr->de_cases++;
                check(&cr->em, NULL, cas, stage[k], dp, want, false);
                check(&cr->de, rules, cas, stage[k], dp, want, false);
            } else {
                cr->de_skipped++;
            }
            sb_free(&sb);
        }
        fx_program_free(dp);
        fx_program_free(want);
        free(fxt);
    }
    fx_program_free(ep);
}

static int setup(void **state)
{
    static corpus_run cr;
    char dir[4096];
    DIR *top = opendir(corpus_dir(dir, sizeof dir));
    if (!top)
        return -1;
    diag_sink d;
    diag_init(&d);
    meta_rules rules;
    meta_rules_init(&rules);
    if (!meta_rules_load_default(&rules, &d)) {
        diag_render_all(&d, stderr, NULL, false);
        closedir(top);
        return -1;
    }
    tally_init(&cr.ex);
    tally_init(&cr.td);
    tally_init(&cr.de);
    tally_init(&cr.em);
    struct dirent *ce;
    while ((ce = readdir(top))) {
        if (ce->d_name[0] != '.')
            walk_case(&cr, &rules, dir, ce->d_name, &d);
        diag_clear(&d);
    }
    closedir(top);
    meta_rules_free(&rules);
    diag_free(&d);
    *state = &cr;
    return 0;
}

static int teardown(void **state)
{
    corpus_run *cr = *state;
    tally_free(&cr->ex);
    tally_free(&cr->td);
    tally_free(&cr->de);
    tally_free(&cr->em);
    return 0;
}

static void exported_metas(void **state)
{
    corpus_run *cr = *state;
    print_tally("exported (program.json, program.pt2)", &cr->ex);
    assert_true(cr->ex.equal >= test_floor("EXPORT_META_FLOOR"));
}

static void torch_decomposed_metas(void **state)
{
    corpus_run *cr = *state;
    print_tally("torch-decomposed (decomposed / onnx_decomposed.readable.txt)", &cr->td);
    assert_true(cr->td.equal >= test_floor("TORCH_DECOMP_META_FLOOR"));
}

static void fxsh_decomposed_metas(void **state)
{
    corpus_run *cr = *state;
    char what[160];
    snprintf(what, sizeof what, "fxsh-decomposed (%d programs equal to torch's; %d others not compared)",
             cr->de_cases, cr->de_skipped);
    print_tally(what, &cr->de);
    assert_true(cr->de.equal >= test_floor("DECOMP_META_FLOOR"));
}

static void fxsh_decompose_emitted_metas(void **state)
{
    corpus_run *cr = *state;
    print_tally("fxsh-decomposed as emitted (same programs, metas from the decompose pass)", &cr->em);
    assert_true(cr->em.equal >= test_floor("EMITTED_META_FLOOR"));
}

int main(void)
{
    verbose = getenv("FXSH_VERBOSE") != NULL;
    char dir[4096];
    DIR *top = opendir(corpus_dir(dir, sizeof dir));
    if (!top) {
        printf("SKIP: no corpus at %s\n", dir);
        return 77;
    }
    closedir(top);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exported_metas),
        cmocka_unit_test(torch_decomposed_metas),
        cmocka_unit_test(fxsh_decomposed_metas),
        cmocka_unit_test(fxsh_decompose_emitted_metas),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
