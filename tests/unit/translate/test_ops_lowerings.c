/* test_ops_lowerings.c — every lowering rule on a small program: it translates, fxsh's checker
 * accepts the model, the expected ONNX ops are there and, when fxsh's evaluator implements every
 * op of the model, the outputs equal values derived by hand from the op's documented semantics.
 *
 * The cases live in tests/fixtures/ops/lowerings/ (*.txt, one file per topic):
 *
 *   === hardtanh                          a case (unique name)
 *   in x f32[4] = -3 -0.5 1.5 3           an input: graph input name, type, row-major values
 *   out f32[4] = -1 -0.5 1.5 2            the expected graph outputs, in order
 *   ops: Clip                             ONNX op types the model must contain
 *   opset: 18                             default 20
 *   fails: no alternative                 translation must fail with this text in the message
 *   class GraphModule(torch.nn.Module):   the program, as gm.print_readable() prints it
 *       def forward(self, x: "f32[4]"):
 *           ...
 *
 * Types: f32 f64 i32 i64 b8 with [dims] ([] or none for a scalar); values may be nan, inf, -inf.
 * Every target of the shipped tables must appear in some case (higher-order and symbolic ops are
 * covered by test_translate_corpus and the examples).
 *
 * FXSH_OPS_DUMP=DIR writes every case with expected outputs as DIR/<case>.onnx and
 * DIR/<case>.json (the IO layout of `onnx-check run`), so that the same hand-derived values can
 * be checked in ONNX Runtime during development. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_paths.h"
#include "base/file.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "load/load.h"
#include "onnx/onnx_check.h"
#include "eval/onnx_eval.h"
#include "onnx/onnx_pb.h"
#include "translate/translate.h"

enum { F32 = 1, I32 = 6, I64 = 7, BOOL = 9, F64 = 11 };

typedef struct tval {
    char *name;              /* inputs only */
    int dtype;
    int rank;
    int64_t dims[OE_MAX_RANK];
    double *v;
    int64_t n;
} tval;

typedef struct ocase {
    char *name, *file;
    int line;
    VEC(tval) in, out;
    char *ops;               /* space-separated op types, or NULL */
    char *fails;             /* expected failure text, or NULL */
    int opset;
    strbuf program;
} ocase;

static ops_registry reg;
static hashmap covered;      /* targets used by some case → non-NULL */
static arena names;          /* keys of covered */
static int n_cases, n_evaluated, n_dumped;

/* ---- reading the case files ---- */

static const struct { const char *s; int dt; } type_names[] = {
    {"f32", F32}, {"f64", F64}, {"i32", I32}, {"i64", I64}, {"b8", BOOL},
};

/* "f32[2, 3] = 1 2 3 4 5 6" → t; false on a malformed line. */
static bool parse_tval(const char *s, tval *t)
{
    memset(t, 0, sizeof *t);
    while (*s == ' ') s++;
    for (size_t i = 0; i < sizeof type_names / sizeof *type_names; i++) {
        size_t l = strlen(type_names[i].s);
        if (!strncmp(s, type_names[i].s, l) && (s[l] == '[' || s[l] == ' ' || !s[l])) {
            t->dtype = type_names[i].dt;
            s += l;
            break;
        }
    }
    if (!t->dtype) return false;
    int64_t numel = 1;
    if (*s == '[') {
        s++;
        while (*s && *s != ']') {
            char *e;
            long long d = strtoll(s, &e, 10);
            if (e == s || t->rank == OE_MAX_RANK) return false;
            t->dims[t->rank++] = d;
            numel *= d;
            s = e;
            while (*s == ',' || *s == ' ') s++;
        }
        if (*s++ != ']') return false;
    }
    while (*s == ' ') s++;
    if (*s++ != '=') return false;
    t->v = calloc((size_t)numel + 1, sizeof *t->v);
    for (;;) {
        while (*s == ' ') s++;
        if (!*s) break;
        if (t->n == numel) return false;
        char *e;
        double x;
        if (!strncmp(s, "nan", 3)) { x = NAN; e = (char *)s + 3; }
        else if (!strncmp(s, "inf", 3)) { x = INFINITY; e = (char *)s + 3; }
        else if (!strncmp(s, "-inf", 4)) { x = -INFINITY; e = (char *)s + 4; }
        else if (!strncmp(s, "true", 4)) { x = 1; e = (char *)s + 4; }
        else if (!strncmp(s, "false", 5)) { x = 0; e = (char *)s + 5; }
        else x = strtod(s, &e);
        if (e == s) return false;
        t->v[t->n++] = x;
        s = e;
    }
    return t->n == numel;
}

static void case_free(ocase *c)
{
    for (size_t i = 0; i < c->in.len; i++) { free(c->in.items[i].name); free(c->in.items[i].v); }
    for (size_t i = 0; i < c->out.len; i++) free(c->out.items[i].v);
    vec_free(&c->in);
    vec_free(&c->out);
    free(c->name);
    free(c->ops);
    free(c->fails);
    sb_free(&c->program);
    memset(c, 0, sizeof *c);
}

/* ---- running a model in fxsh's evaluator ---- */

/* Every node (subgraphs and functions included) is one fxsh's evaluator implements. */
static bool graph_evaluable(const Onnx__GraphProto *g)
{
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        if (!oe_op_evaluable(n->domain ? n->domain : "", n->op_type)) return false;
        for (size_t a = 0; a < n->n_attribute; a++) {
            if (n->attribute[a]->g && !graph_evaluable(n->attribute[a]->g)) return false;
            for (size_t k = 0; k < n->attribute[a]->n_graphs; k++)
                if (!graph_evaluable(n->attribute[a]->graphs[k])) return false;
        }
    }
    return true;
}

static void tval_to_tensor(const tval *t, oe_tensor *o)
{
    int rc = ot_tensor_from_f(o, t->dtype, t->dims, t->rank, t->v);
    assert_int_equal(rc, OE_OK);
}

/* Runs g on the case inputs; fills outs[0..n_output) (caller frees). */
/* The model on the case's inputs, with fxsh's whole-model evaluator (control flow included). */
static void run_model(const ocase *c, const ox_model *m, oe_tensor *outs)
{
    const Onnx__GraphProto *g = m->proto->graph;
    oe_named *in = calloc(g->n_input + 1, sizeof *in);
    oe_tensor *vals = calloc(g->n_input + 1, sizeof *vals);
    for (size_t i = 0; i < g->n_input; i++) {
        const tval *t = NULL;
        for (size_t k = 0; k < c->in.len; k++)
            if (!strcmp(c->in.items[k].name, g->input[i]->name)) t = &c->in.items[k];
        /* an input the model renamed (returned as it is, torch.onnx names it after the node) is
         * the case's input at the same place */
        if (!t && i < c->in.len && g->n_input == c->in.len) t = &c->in.items[i];
        if (!t) fail_msg("%s: no value for graph input %s", c->name, g->input[i]->name);
        tval_to_tensor(t, &vals[i]);
        in[i] = (oe_named){g->input[i]->name, &vals[i]};
    }
    diag_sink d;
    diag_init(&d);
    if (oe_eval_model(m, in, g->n_input, outs, NULL, &d) != OE_OK)
        fail_msg("%s: evaluating the model failed: %s", c->name, d.len ? d.items[0].message : "?");
    diag_free(&d);
    for (size_t i = 0; i < g->n_input; i++) ot_tensor_free(&vals[i]);
    free(vals);
    free(in);
}

static void compare(const ocase *c, size_t idx, const oe_tensor *got, const tval *want)
{
    if (got->dtype != want->dtype)
        fail_msg("%s: output %zu has ONNX type %d, expected %d", c->name, idx, got->dtype, want->dtype);
    if (got->rank != want->rank) fail_msg("%s: output %zu has rank %d, expected %d", c->name, idx, got->rank, want->rank);
    for (int i = 0; i < got->rank; i++)
        if (got->dims[i] != want->dims[i])
            fail_msg("%s: output %zu dim %d is %lld, expected %lld", c->name, idx, i, (long long)got->dims[i],
                     (long long)want->dims[i]);
    for (int64_t i = 0; i < want->n; i++) {
        double g = ot_get_f(got, i), w = want->v[i];
        bool ok = isnan(w) ? isnan(g) : isinf(w) ? g == w : fabs(g - w) <= 1e-5 + 1e-4 * fabs(w);
        if (!ok) fail_msg("%s: output %zu element %lld is %.9g, expected %.9g", c->name, idx, (long long)i, g, w);
    }
}

/* ---- development aid: the case as a model + IO file for onnx-check run ---- */

static const char *json_dtype(int dt)
{
    return dt == F32 ? "float32" : dt == F64 ? "float64" : dt == I32 ? "int32" : dt == I64 ? "int64" : "bool";
}

static void json_tval(strbuf *sb, const char *name, const tval *t)
{
    sb_printf(sb, "{\"name\": \"%s\", \"dtype\": \"%s\", \"shape\": [", name, json_dtype(t->dtype));
    for (int i = 0; i < t->rank; i++) sb_printf(sb, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
    sb_puts(sb, "], \"data\": [");
    for (int64_t i = 0; i < t->n; i++) {
        double x = t->v[i];
        if (i) sb_puts(sb, ", ");
        if (t->dtype == BOOL) sb_puts(sb, x != 0 ? "true" : "false");
        else if (isnan(x)) sb_puts(sb, "NaN");
        else if (isinf(x)) sb_puts(sb, x > 0 ? "Infinity" : "-Infinity");
        else if (t->dtype == F32 || t->dtype == F64) sb_printf(sb, "%.9g", x);
        else sb_printf(sb, "%lld", (long long)x);
    }
    sb_puts(sb, "]}");
}

static void dump_case(const ocase *c, ox_model *m, const char *dir)
{
    strbuf p;
    sb_init(&p);
    sb_printf(&p, "%s/%s.onnx", dir, c->name);
    diag_sink d;
    diag_init(&d);
    if (ox_save_file(m, p.s, NULL, &d)) fail_msg("%s: cannot write %s", c->name, p.s);
    diag_free(&d);
    strbuf js;
    sb_init(&js);
    sb_puts(&js, "{\"inputs\": [");
    for (size_t i = 0; i < c->in.len; i++) {
        if (i) sb_puts(&js, ", ");
        json_tval(&js, c->in.items[i].name, &c->in.items[i]);
    }
    sb_puts(&js, "], \"outputs\": [");
    const Onnx__GraphProto *g = m->proto->graph;
    for (size_t i = 0; i < c->out.len; i++) {
        if (i) sb_puts(&js, ", ");
        json_tval(&js, i < g->n_output ? g->output[i]->name : "out", &c->out.items[i]);
    }
    sb_puts(&js, "]}\n");
    sb_reset(&p);
    sb_printf(&p, "%s/%s.json", dir, c->name);
    FILE *f = fopen(p.s, "w");
    if (!f) fail_msg("%s: cannot write %s", c->name, p.s);
    fputs(js.s, f);
    fclose(f);
    sb_free(&js);
    sb_free(&p);
    n_dumped++;
}

/* ---- one case ---- */

static void record_targets(const fx_program *p)
{
    for (const fx_node *n = fx_program_graph(p)->first; n; n = n->next) {
        if (n->op != FX_OP_CALL_FUNCTION || !n->target) continue;
        const char *t = !strncmp(n->target, "torch.ops.", 10) ? n->target + 10 : n->target;
        if (!hm_has(&covered, t)) hm_put(&covered, arena_strdup(&names, t), (void *)1);
    }
}

static void run_case(ocase *c)
{
    n_cases++;
    diag_sink d;
    diag_init(&d);
    fx_program *p = fxp_parse_code_text(c->program.s, c->program.len, c->file, &d);
    if (!p) {
        diag_render_all(&d, stderr, NULL, false);
        fail_msg("%s (%s:%d): the program does not parse", c->name, c->file, c->line);
    }
    record_targets(p);
    translate_options o;
    translate_options_init(&o);
    o.registry = &reg;
    if (c->opset) o.opset = c->opset;
    ox_model *m = translate_program(p, &o, &d);
    if (c->fails) {
        if (m) fail_msg("%s (%s:%d): translated, expected a failure", c->name, c->file, c->line);
        bool found = false;
        for (size_t i = 0; i < d.len; i++) found |= strstr(d.items[i].message, c->fails) != NULL;
        if (!found) {
            diag_render_all(&d, stderr, NULL, false);
            fail_msg("%s (%s:%d): no diagnostic says '%s'", c->name, c->file, c->line, c->fails);
        }
        goto done;
    }
    if (!m) {
        diag_render_all(&d, stderr, NULL, false);
        fail_msg("%s (%s:%d): translation failed", c->name, c->file, c->line);
    }
    if (ox_check(m, &d)) {
        diag_render_all(&d, stderr, NULL, false);
        fail_msg("%s (%s:%d): the checker rejects the model", c->name, c->file, c->line);
    }
    Onnx__GraphProto *g = m->proto->graph;
    for (char *op = c->ops ? strtok(c->ops, " ") : NULL; op; op = strtok(NULL, " ")) {
        bool has = false;
        for (size_t i = 0; i < g->n_node; i++) has |= !strcmp(g->node[i]->op_type, op);
        if (!has) fail_msg("%s (%s:%d): no %s node in the model", c->name, c->file, c->line, op);
    }
    if (c->out.len) {
        if (g->n_output != c->out.len)
            fail_msg("%s: the model has %zu outputs, the case expects %zu", c->name, g->n_output, c->out.len);
        const char *dir = getenv("FXSH_OPS_DUMP");
        if (dir && *dir) dump_case(c, m, dir);
        if (graph_evaluable(g)) {
            oe_tensor *outs = calloc(g->n_output, sizeof *outs);
            run_model(c, m, outs);
            for (size_t i = 0; i < g->n_output; i++) {
                compare(c, i, &outs[i], &c->out.items[i]);
                ot_tensor_free(&outs[i]);
            }
            free(outs);
            n_evaluated++;
        }
    }
    ox_model_free(m);
done:
    fx_program_free(p);
    diag_free(&d);
}

static void run_file(const char *path)
{
    size_t len;
    char *text = file_slurp(path, &len);
    assert_non_null(text);
    ocase c = {0};
    bool in_program = false;
    int lineno = 0;
    for (char *line = text; line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        lineno++;
        if (!strncmp(line, "=== ", 4)) {
            if (c.name) run_case(&c);
            case_free(&c);
            c.name = strdup(line + 4);
            c.file = (char *)path;
            c.line = lineno;
            sb_init(&c.program);
            in_program = false;
        } else if ((in_program && (!*line || *line == ' ' || *line == '\t')) || !strncmp(line, "class ", 6)) {
            /* the program: from "class" through its indented (and blank) lines */
            if (!c.name) fail_msg("%s:%d: program before the first '=== name'", path, lineno);
            in_program = true;
            sb_puts(&c.program, line);
            sb_putc(&c.program, '\n');
        } else if (!*line || *line == '#') {
            in_program = false;   /* blank or comment */
        } else if (!c.name) {
            fail_msg("%s:%d: text before the first '=== name'", path, lineno);
        } else if (!strncmp(line, "in ", 3)) {
            tval t;
            const char *s = line + 3, *sp = strchr(s, ' ');
            if (!sp || !parse_tval(sp, &t)) fail_msg("%s:%d: bad input line", path, lineno);
            t.name = strndup(s, (size_t)(sp - s));
            vec_push(&c.in, t);
        } else if (!strncmp(line, "out ", 4)) {
            tval t;
            if (!parse_tval(line + 4, &t)) fail_msg("%s:%d: bad output line", path, lineno);
            vec_push(&c.out, t);
        } else if (!strncmp(line, "ops: ", 5)) {
            c.ops = strdup(line + 5);
        } else if (!strncmp(line, "fails: ", 7)) {
            c.fails = strdup(line + 7);
        } else if (!strncmp(line, "opset: ", 7)) {
            c.opset = atoi(line + 7);
        } else {
            fail_msg("%s:%d: unknown line '%s'", path, lineno, line);
        }
        line = nl ? nl + 1 : NULL;
    }
    if (c.name) run_case(&c);
    case_free(&c);
    free(text);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_lowerings(void **state)
{
    (void)state;
    DIR *dh = opendir(TEST_FIXTURES "/ops/lowerings");
    assert_non_null(dh);
    VEC(char *) files = {0};
    struct dirent *e;
    while ((e = readdir(dh))) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".txt")) {
            strbuf p;
            sb_init(&p);
            sb_printf(&p, "%s/%s", TEST_FIXTURES "/ops/lowerings", e->d_name);
            vec_push(&files, sb_detach(&p));
        }
    }
    closedir(dh);
    qsort(files.items, files.len, sizeof *files.items, cmp_str);
    for (size_t i = 0; i < files.len; i++) {
        run_file(files.items[i]);
        free(files.items[i]);
    }
    vec_free(&files);
    print_message("%d cases, %d evaluated by fxsh's evaluator%s\n", n_cases, n_evaluated,
                  n_dumped ? ", dumped for onnx-check" : "");
    assert_true(n_cases > 0);
}

/* Every target of the shipped tables has a case (run after test_lowerings). */
static void test_every_target_has_a_case(void **state)
{
    (void)state;
    size_t missing = 0;
    for (size_t i = 0; i < reg.ntargets; i++) {
        const char *t = reg.targets[i];
        /* ops with subgraphs are built by C builtins and tested where their subgraphs are: cond,
         * scan, while_loop by the corpus and test_translate_basic, fxsh.python_for/while by the
         * --legacy script transcripts (examples/while_loop.t, tests/transcripts/pipeline.t) */
        if (!strncmp(t, "higher_order.", 13) || !strncmp(t, "onnx_symbolic.", 14) || !strncmp(t, "fxsh.python_", 12)) continue;
        if (!hm_has(&covered, t)) {
            fprintf(stderr, "no case uses %s\n", t);
            missing++;
        }
    }
    assert_int_equal(missing, 0);
}

static int setup(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    ops_registry_init(&reg);
    hm_init(&covered);
    arena_init(&names);
    setenv("FXSH_SHAREDIR", TEST_SHAREDIR, 1);
    bool ok = ops_load_default(&reg, &d);
    if (!ok) diag_render_all(&d, stderr, NULL, false);
    diag_free(&d);
    return ok ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ops_registry_free(&reg);
    hm_free(&covered);
    arena_free(&names);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lowerings),
        cmocka_unit_test(test_every_target_has_a_case),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
