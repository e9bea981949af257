/* cmd_inspect.c — looking at the current stage: show, nodes, node, find, stats. */
#include <string.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "base/suggest.h"
#include "fx/fx.h"
#include "fx/fx_ir.h"
#include "load/pt2_load.h"
#include "view/onnx_inspect.h"
#include "onnx/onnx_ir.h"
#include "onnx/onnx_print.h"
#include "rewrite/lint.h"
#include "repl/cmd_handlers.h"

/* The printed forms `show` knows, by the word the user types. Stage names are never forms:
 * `show fx` is the fx stage. SHOW_DEFAULT is the form of a stage's kind (graph text for an FX
 * program, to_text for an ONNX model), whatever was loaded; SHOW_LOADED the form the file was
 * written in (a load and show round trip). */
typedef enum show_form {
    SHOW_DEFAULT, SHOW_LOADED, SHOW_GRAPH, SHOW_CODE, SHOW_MODULE, SHOW_TABULAR, SHOW_PROGRAM, SHOW_TEXT,
} show_form;

static int form_by_name(const char *w)
{
    static const struct { const char *name; show_form form; } forms[] = {
        {"graph", SHOW_GRAPH},     {"code", SHOW_CODE},   {"readable", SHOW_CODE},
        {"module", SHOW_MODULE},   {"tabular", SHOW_TABULAR}, {"program", SHOW_PROGRAM},
        {"text", SHOW_TEXT},       {"loaded", SHOW_LOADED},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (strcmp(forms[i].name, w) == 0) return (int)forms[i].form;
    return -1;
}

static stage *need_stage(session *s, const char *cmd)
{
    stage *st = session_current(s);
    if (!st) session_error(s, "%s: nothing loaded (use `load FILE` first)", cmd);
    return st;
}

/* Writes a printed form followed by one newline, exactly as Python's print() of the string
 * that torch / onnx return (so `show` output equals the corpus file plus "\n"). */
static void emit(session *s, strbuf *sb)
{
    session_write(s, sb->s, sb->len);
    fputc('\n', s->out);
}

static int show_fx(session *s, const stage *st, show_form form)
{
    strbuf sb;
    sb_init(&sb);
    int rc = 0;
    switch (form) {
    case SHOW_LOADED: fx_print(st->fx, fx_program_source_form(st->fx), &sb); break;
    case SHOW_DEFAULT:
    case SHOW_GRAPH: fx_print(st->fx, FX_FORM_GRAPH, &sb); break;
    case SHOW_CODE: fx_print(st->fx, FX_FORM_CODE, &sb); break;
    case SHOW_MODULE: fx_print(st->fx, FX_FORM_MODULE, &sb); break;
    case SHOW_TABULAR: fx_print(st->fx, FX_FORM_TABULAR, &sb); break;
    case SHOW_PROGRAM:
        if (!st->fx->sig.present) {
            session_error(s, "show program: the %s stage is not a torch.export program (no graph signature)",
                          st->name);
            rc = 1;
        } else {
            rc = fx_print_program(st->fx, &sb, &s->diag) ? 0 : 1;
        }
        break;
    case SHOW_TEXT:
        session_error(s, "show text: the %s stage is an FX program; `text` is the ONNX form", st->name);
        rc = 1;
        break;
    }
    if (!rc) emit(s, &sb);
    sb_free(&sb);
    return rc;
}

/* How `show` prints tensor values of an ONNX model: all of them (to_text's bytes), none, or the
 * small ones only (the default on a terminal). */
typedef enum show_values { VALUES_AUTO, VALUES_ALL, VALUES_NONE } show_values;

/* Tensors of more elements than this print as "{... N values}" on a terminal. */
enum { SHOW_TERMINAL_VALUES = 16 };

static int show_onnx(session *s, const stage *st, show_form form, show_values values)
{
    if (form != SHOW_DEFAULT && form != SHOW_LOADED && form != SHOW_TEXT) {
        session_error(s, "show: the %s stage is an ONNX model; it prints only as ONNX text", st->name);
        return 1;
    }
    /* Streamed: a model with large initializers prints in bounded memory. */
    strbuf sb;
    sb_init(&sb);
    bool terminal = s->terminal;
    ox_print_opts po = {.elide_values = values == VALUES_NONE || (values == VALUES_AUTO && terminal),
                        .elide_over = values == VALUES_NONE ? 0 : SHOW_TERMINAL_VALUES};
    int rc = ox_print_model_opts(st->onnx->proto, &sb, s->out, &po);
    fputc('\n', s->out);
    sb_free(&sb);
    if (rc) session_error(s, "show: write error");
    return rc ? 1 : 0;
}

static bool is_option(const char *word, void *ctx)
{
    (void)ctx;
    return word[0] == '-' && word[1];
}

int cmd_show(session *s, int argc, char **argv)
{
    stage *st = session_current(s);
    show_values values = VALUES_AUTO;
    /* options anywhere: --values (every value, exactly as to_text), --no-values (shapes only) */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--values")) values = VALUES_ALL;
        else if (!strcmp(argv[i], "--no-values")) values = VALUES_NONE;
        else if (argv[i][0] == '-' && argv[i][1]) {
            session_error(s, "show: unknown option '%s' (usage: %s)", argv[i], "show [STAGE] [FORM] [--values|--no-values]");
            return 1;
        }
    }
    argc -= args_partition(argc, argv, is_option, NULL);
    int argi = 1;
    if (argi < argc) {
        int idx = session_stage_index(argv[argi]);
        if (idx >= 0) {
            st = &s->stages[idx];
            if (st->kind == PL_EMPTY) {
                diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "show: the %s stage is empty", st->name);
                const stage *cur = session_current(s);
                if (cur && cur->kind == PL_FX && idx == 0)   /* a .pt2 loads into `exported` */
                    diag_set_hint(dg, "the program was loaded into the %s stage: `show %s` (`show graph` is "
                                      "print(gm.graph) of the current stage)", cur->name, cur->name);
                else
                    diag_set_hint(dg, "`stages` lists what each holds; `export` or `step` fills them");
                return 1;
            }
            argi++;
        }
    }
    show_form form = SHOW_DEFAULT;
    if (argi < argc) {
        int f = form_by_name(argv[argi]);
        if (f < 0) {
            static const char *const words[] = {"fx", "exported", "decomposed", "onnx", "optimized", "graph",
                                                "code", "module", "tabular", "program", "text", "loaded"};
            const char *near = suggest_closest(argv[argi], words, sizeof words / sizeof words[0]);
            diagnostic *dg = near ? diag_error(&s->diag, (diag_loc){0}, "show: unknown stage or form '%s'; did you mean '%s'?",
                                               argv[argi], near)
                                  : diag_error(&s->diag, (diag_loc){0}, "show: unknown stage or form '%s'", argv[argi]);
            diag_set_hint(dg, "stages: fx exported decomposed onnx optimized; forms: graph code module tabular program text loaded");
            return 1;
        }
        form = (show_form)f;
        argi++;
    }
    if (argi < argc) {
        session_error(s, "show: unexpected '%s'", argv[argi]);
        return 1;
    }
    if (!st) return need_stage(s, "show") ? 0 : 1;
    return st->kind == PL_FX ? show_fx(s, st, form) : show_onnx(s, st, form, values);
}

int cmd_nodes(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 0, &json)) return 1;
    stage *st = need_stage(s, "nodes");
    if (!st) return 1;
    strbuf sb;
    sb_init(&sb);
    if (json) cmd_json_nodes(st, &sb);
    else if (st->kind == PL_FX) fx_print_nodes(st->fx, &sb);
    else view_show_nodes(st->onnx, &sb);
    session_write(s, sb.s, sb.len);
    sb_free(&sb);
    return 0;
}

static void suggest_cb(const char *name, void *ctx)
{
    suggester_add(ctx, name);
}

int cmd_node(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 1, &json)) return 1;
    if (argc < 2) {
        session_error(s, "node: which node? (usage: node NAME [--json])");
        return 1;
    }
    stage *st = need_stage(s, "node");
    if (!st) return 1;
    strbuf sb;
    sb_init(&sb);
    int rc = json ? cmd_json_node(st, argv[1], &sb)
         : st->kind == PL_FX ? fx_print_node(st->fx, argv[1], &sb) : view_show_node(st->onnx, argv[1], &sb);
    if (rc < 0) {
        suggester sg;
        suggester_init(&sg, argv[1][0] == '%' ? argv[1] + 1 : argv[1]);
        session_each_node_name(s, suggest_cb, &sg);
        const char *near = suggester_result(&sg);
        diagnostic *dg = near ? diag_error(&s->diag, (diag_loc){0}, "node: no node named '%s' in the %s stage; did you mean '%s'?",
                                           argv[1], st->name, near)
                              : diag_error(&s->diag, (diag_loc){0}, "node: no node named '%s' in the %s stage",
                                           argv[1], st->name);
        suggester_free(&sg);
        diag_set_hint(dg, "`nodes` lists them; `find TEXT` searches names and targets");
    } else {
        session_write(s, sb.s, sb.len);
    }
    sb_free(&sb);
    return rc < 0;
}

static bool is_case_option(const char *word, void *ctx)
{
    (void)ctx;
    return !strcmp(word, "--case-sensitive");
}

/* find TEXT [--case-sensitive] [--json]: without case by default, as a user typing `softmax`
 * for the ONNX op Softmax expects (grep -i); the option for names that differ only in case. */
int cmd_find(session *s, int argc, char **argv)
{
    int case_options = args_partition(argc, argv, is_case_option, NULL);
    bool fold_case = case_options == 0;
    argc -= case_options;
    bool json;
    if (!cmd_json_option(s, &argc, argv, 1, &json)) return 1;
    if (argc < 2 || (argv[1][0] == '-' && argv[1][1])) {
        session_error(s, "find: %s%s (usage: find TEXT [--case-sensitive] [--json])", argc < 2 ? "what to find?" : "unknown option ",
                      argc < 2 ? "" : argv[1]);
        return 1;
    }
    stage *st = need_stage(s, "find");
    if (!st) return 1;
    strbuf sb;
    sb_init(&sb);
    size_t n = json ? cmd_json_find(st, argv[1], fold_case, &sb)
             : st->kind == PL_FX ? fx_find(st->fx, argv[1], fold_case, &sb) : view_find(st->onnx, argv[1], fold_case, &sb);
    session_write(s, sb.s, sb.len);
    sb_free(&sb);
    if (!n) {   /* the JSON document says so too: "nodes": [] */
        session_error(s, "find: nothing matches '%s'%s", argv[1], fold_case ? "" : " (case-sensitive)");
        return 1;
    }
    return 0;
}

int cmd_stats(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 0, &json)) return 1;
    stage *st = need_stage(s, "stats");
    if (!st) return 1;
    strbuf sb;
    sb_init(&sb);
    if (json) cmd_json_stats(st, &sb);
    else if (st->kind == PL_FX) fx_print_stats(st->fx, &sb);
    else view_show_stats(st->onnx, &sb);
    session_write(s, sb.s, sb.len);
    sb_free(&sb);
    return 0;
}

/* lint: the nodes tracing would get wrong, as warnings with their fix; a summary line after.
 * With --json the warnings are the document ({"pitfalls": [{"message", "hint", "file", "line"}],
 * "count"}) and not diagnostics: a pitfall is lint's result, not a failure. */
int cmd_lint(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 0, &json)) return 1;
    stage *st = need_stage(s, "lint");
    if (!st) return 1;
    if (st->kind != PL_FX) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "lint: the %s stage is an ONNX model; lint reads FX programs", st->name);
        diag_set_hint(dg, "load the TorchScript IR or FX text of the model");
        return 1;
    }
    if (json) {
        diag_sink found;
        diag_init(&found);
        lint_tracing(st->fx, &found);
        strbuf sb;
        sb_init(&sb);
        cmd_json_lint(st, &found, &sb);
        session_write(s, sb.s, sb.len);
        sb_free(&sb);
        diag_free(&found);
        return 0;
    }
    size_t n = lint_tracing(st->fx, &s->diag);
    session_flush_diag(s);   /* the warnings, then the count */
    fprintf(s->out, "lint: %zu tracing pitfall%s in the %s stage%s\n", n, n == 1 ? "" : "s", st->name,
            n ? " (each with its fix; torch.export with the rewrites avoids them)" : "");
    return 0;
}

void session_each_node_name(session *s, void (*cb)(const char *name, void *ctx), void *ctx)
{
    stage *st = session_current(s);
    if (!st) return;
    if (st->kind == PL_FX) fx_each_node_name(st->fx, cb, ctx);
    else if (st->kind == PL_ONNX) view_each_node_name(st->onnx, cb, ctx);
}
