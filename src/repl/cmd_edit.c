/* cmd_edit.c — patching the current FX stage: node surgery (replace, set, rewire, insert, delete,
 * rename), undo / redo / history, and save-patch. Every edit works on a copy of the stage and
 * keeps the original on the undo stack; the stages after the edited one are dropped as stale. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/json_write.h"
#include "base/strbuf.h"
#include "base/suggest.h"
#include "fx/fx.h"
#include "fx/fx_ir.h"
#include "rewrite/rewrite.h"
#include "rewrite/surgery.h"
#include "repl/cmd_edit.h"
#include "repl/cmd_handlers.h"
#include "repl/tokenize.h"

static void push(edit_record **items, size_t *n, size_t *cap, edit_record r)
{
    xgrow((void **)items, cap, *n + 1, sizeof **items);
    (*items)[(*n)++] = r;
}

static void drop_later_stages(session *s, int idx)
{
    for (int i = idx + 1; i < SESSION_MAX_STAGES; i++) {
        if (s->stages[i].kind == PL_FX) session_set_fx(s, i, NULL, NULL);
        else if (s->stages[i].kind == PL_ONNX) session_set_onnx(s, i, NULL, NULL);
        s->stages[i].kind = PL_EMPTY;
    }
    s->current = idx;
}

/* The stage edits apply to: the loaded program (the first FX stage), because `export` replays
 * the pipeline from it; the stages made from it are dropped by the edit. */
static int edit_stage(session *s, const char *cmd)
{
    for (int i = 0; i < SESSION_MAX_STAGES; i++)
        if (s->stages[i].kind == PL_FX) {
            s->current = i;
            return i;
        }
    diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "%s: %s", cmd,
                                session_current(s) ? "an ONNX model has no FX program to patch"
                                                   : "nothing loaded (use `load FILE` first)");
    diag_set_hint(dg, "patches apply to FX programs: load FX text, a .pt2 or TorchScript IR");
    return -1;
}

int edit_commit(session *s, int argc, char **argv, struct fx_program *edited)
{
    int idx = s->current;
    stage *st = &s->stages[idx];
    edit_record r = {idx, st->fx, NULL, tokens_join(argc, argv)};
    st->fx = edited;   /* the old program moves to the undo stack instead of being freed */
    push(&s->undo, &s->n_undo, &s->cap_undo, r);
    for (size_t i = 0; i < s->n_redo; i++) {
        fx_program_free(s->redo[i].after);
        free(s->redo[i].command);
    }
    s->n_redo = 0;
    drop_later_stages(s, idx);
    return 0;
}

typedef enum { OP_REPLACE, OP_SET, OP_REWIRE, OP_INSERT, OP_DELETE, OP_RENAME } edit_op;

static int run_edit(session *s, int argc, char **argv, edit_op op)
{
    if (edit_stage(s, argv[0]) < 0) return 1;
    fx_program *copy = fx_program_clone(s->stages[s->current].fx);
    diag_sink *d = &s->diag;
    bool ok = false;
    switch (op) {
    case OP_REPLACE: ok = surgery_replace_target(copy, argv[1], argv[2], d); break;
    case OP_SET: {
        char *eq = strchr(argv[2], '=');
        if (!eq) {
            session_error(s, "set: write ARG=VALUE, e.g. set %%add 1=2.0 or set %%sum_1 dim=[0]");
            break;
        }
        *eq = '\0';
        /* approximate="tanh" reaches us without its quotes (the command line took them): a bare
         * word that is no Python constant is the string the user quoted */
        const char *v = eq + 1;
        bool word = (isalpha((unsigned char)v[0]) || v[0] == '_') && strcmp(v, "True") && strcmp(v, "False") &&
                    strcmp(v, "None") && strcmp(v, "inf") && strcmp(v, "nan");
        for (const char *c = v; word && *c; c++) word = isalnum((unsigned char)*c) || *c == '_';
        char *quoted = NULL;
        if (word) {
            size_t n = strlen(v) + 3;
            quoted = xmalloc(n);
            snprintf(quoted, n, "'%s'", v);
        }
        ok = surgery_set_arg(copy, argv[1], argv[2], quoted ? quoted : v, d);
        free(quoted);
        *eq = '=';
        break;
    }
    case OP_REWIRE: ok = surgery_set_arg(copy, argv[1], argv[2], argv[3], d); break;
    case OP_INSERT: ok = surgery_insert(copy, argv[1], argv[2], argv[3], argc > 4 ? argv[4] : "()", d); break;
    case OP_DELETE: ok = surgery_delete(copy, argv[1], argc > 2 ? argv[2] : NULL, d); break;
    case OP_RENAME: ok = surgery_rename(copy, argv[1], argv[2], d); break;
    }
    if (!ok) {
        fx_program_free(copy);
        return 1;
    }
    return edit_commit(s, argc, argv, copy);
}

int cmd_replace(session *s, int argc, char **argv) { return run_edit(s, argc, argv, OP_REPLACE); }
int cmd_rewire(session *s, int argc, char **argv) { return run_edit(s, argc, argv, OP_REWIRE); }
int cmd_insert(session *s, int argc, char **argv) { return run_edit(s, argc, argv, OP_INSERT); }
int cmd_delete(session *s, int argc, char **argv) { return run_edit(s, argc, argv, OP_DELETE); }
int cmd_rename(session *s, int argc, char **argv) { return run_edit(s, argc, argv, OP_RENAME); }
int cmd_set_node(session *s, int argc, char **argv) { return run_edit(s, argc, argv, OP_SET); }

/* rewrite NODE cond|scan|while_loop [--clone]: Python control flow into the higher-order op
 * torch exports. */
int cmd_rewrite(session *s, int argc, char **argv)
{
    bool clone = argc > 3 && !strcmp(argv[3], "--clone");
    if (argc > 3 && !clone) {
        session_error(s, "rewrite: unexpected '%s' (usage: rewrite NODE cond|scan|while_loop [--clone])", argv[3]);
        return 1;
    }
    static const struct {
        const char *name, *hop, *shows;
        fx_program *(*fn)(const fx_program *, const char *, bool, diag_sink *);
    } rewrites[] = {
        {"cond", "torch.ops.higher_order.cond", "the branches", rewrite_if_to_cond_ex},
        {"scan", "torch.ops.higher_order.scan", "the combine function", rewrite_for_to_scan},
        {"while_loop", "torch.ops.higher_order.while_loop", "cond_fn and body_fn", rewrite_loop_to_while},
    };
    size_t which = sizeof rewrites / sizeof rewrites[0];
    for (size_t i = 0; i < sizeof rewrites / sizeof rewrites[0]; i++)
        if (!strcmp(argv[2], rewrites[i].name)) which = i;
    if (which == sizeof rewrites / sizeof rewrites[0]) {
        static const char *const kinds[] = {"cond", "scan", "while_loop"};
        const char *near = suggest_closest(argv[2], kinds, 3);
        diagnostic *dg = near ? diag_error(&s->diag, (diag_loc){0}, "rewrite: no rewrite named '%s'; did you mean '%s'?",
                                           argv[2], near)
                              : diag_error(&s->diag, (diag_loc){0}, "rewrite: no rewrite named '%s'", argv[2]);
        diag_set_hint(dg, "`rewrite NODE cond` turns a Python `if` on a tensor into torch.cond, `rewrite NODE scan` "
                          "a `for` over the rows of tensors into scan, `rewrite NODE while_loop` a `while` (or a "
                          "`for` that stops early) into while_loop; see `help rewrite`");
        return 1;
    }
    if (edit_stage(s, argv[0]) < 0) return 1;
    size_t mark = s->diag.len;
    fx_program *out = rewrites[which].fn(s->stages[s->current].fx, argv[1], clone, &s->diag);
    if (!out) {
        rewrite_check_hints(s->stages[s->current].fx, argv[1], &s->diag, mark);
        return 1;
    }
    edit_commit(s, argc, argv, out);
    if (session_confirm(s))   /* a confirmation: on a terminal only, as load's and save's */
        fprintf(s->out, "rewrote %s into %s (`show code` shows %s; `export` re-runs the pipeline)\n", argv[1],
            rewrites[which].hop, rewrites[which].shows);
    return 0;
}

int cmd_undo(session *s, int argc, char **argv)
{
    if (!s->n_undo) {
        session_error(s, "undo: nothing to undo");
        return 1;
    }
    edit_record r = s->undo[--s->n_undo];
    stage *st = &s->stages[r.stage];
    r.after = st->fx;
    st->fx = r.before;
    st->kind = PL_FX;
    r.before = NULL;
    push(&s->redo, &s->n_redo, &s->cap_redo, r);
    drop_later_stages(s, r.stage);
    if (session_confirm(s)) fprintf(s->out, "undone: %s\n", r.command);
    return 0;
}

int cmd_redo(session *s, int argc, char **argv)
{
    if (!s->n_redo) {
        session_error(s, "redo: nothing to redo");
        return 1;
    }
    edit_record r = s->redo[--s->n_redo];
    stage *st = &s->stages[r.stage];
    r.before = st->fx;
    st->fx = r.after;
    st->kind = PL_FX;
    r.after = NULL;
    push(&s->undo, &s->n_undo, &s->cap_undo, r);
    drop_later_stages(s, r.stage);
    if (session_confirm(s)) fprintf(s->out, "redone: %s\n", r.command);
    return 0;
}

int cmd_history(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 0, &json)) return 1;
    if (json) {   /* {"edits": [{"stage", "command", "undone"}]}, oldest first, the undone after */
        strbuf sb;
        sb_init(&sb);
        json_writer w;
        cmd_json_begin(&w, &sb, "history", NULL);
        jw_key(&w, "edits");
        jw_array(&w);
        for (size_t k = 0; k < s->n_undo + s->n_redo; k++) {
            const edit_record *e = k < s->n_undo ? &s->undo[k] : &s->redo[s->n_redo - 1 - (k - s->n_undo)];
            jw_object(&w);
            jw_kstring(&w, "stage", session_stage_name(e->stage));
            jw_kstring(&w, "command", e->command);
            jw_kbool(&w, "undone", k >= s->n_undo);
            jw_object_end(&w);
        }
        jw_array_end(&w);
        cmd_json_end(&w);
        session_write(s, sb.s, sb.len);
        sb_free(&sb);
        return 0;
    }
    if (!s->n_undo && !s->n_redo) {
        fputs("no edits\n", s->out);
        return 0;
    }
    for (size_t i = 0; i < s->n_undo; i++)
        fprintf(s->out, "%3zu  %-10s  %s\n", i + 1, session_stage_name(s->undo[i].stage), s->undo[i].command);
    for (size_t i = s->n_redo; i-- > 0;)
        fprintf(s->out, "  -  %-10s  %s  (undone)\n", session_stage_name(s->redo[i].stage), s->redo[i].command);
    return 0;
}

int cmd_save_patch(session *s, int argc, char **argv)
{
    if (!s->n_undo) {
        session_error(s, "save-patch: no edits to save");
        return 1;
    }
    atomic_file af;
    if (!file_create(&af, argv[1], &s->diag)) return 1;
    const stage *first = &s->stages[s->undo[0].stage];
    fprintf(af.f, "# fxsh patch: %zu edit%s of the %s stage", s->n_undo, s->n_undo == 1 ? "" : "s", first->name);
    if (first->source) fprintf(af.f, " loaded from %s", first->source);
    if (s->load_command) {   /* the load as it was run, options included: the replay starts from it */
        fputs(".\n# Replay it: fxsh -f THIS_FILE (or `source` it); it loads the program as it was loaded.\n", af.f);
        fprintf(af.f, "%s\n", s->load_command);
    } else {
        fputs(".\n# Replay it on the original program: fxsh ORIGINAL -f THIS_FILE (or `source` it after `load`).\n",
              af.f);
    }
    for (size_t i = 0; i < s->n_undo; i++) fprintf(af.f, "%s\n", s->undo[i].command);
    s->committed = file_commit(&af, &s->diag);
    return s->committed ? 0 : 1;
}
