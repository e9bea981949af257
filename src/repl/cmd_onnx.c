/* cmd_onnx.c — commands on ONNX models: summary, check, dot (FX programs too), save. */
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "onnx/onnx_check.h"
#include "view/onnx_dot.h"
#include "onnx/onnx_ir.h"
#include "onnx/onnx_pb.h"
#include "onnx/onnx_print.h"
#include "view/onnx_summary.h"
#include "repl/cmd_handlers.h"

/* The current stage if it is an ONNX model; otherwise reports why not and returns NULL. */
static stage *need_onnx(session *s, const char *cmd)
{
    stage *st = session_current(s);
    if (!st) {
        session_error(s, "%s: nothing loaded (use `load FILE` first)", cmd);
        return NULL;
    }
    if (st->kind != PL_ONNX) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "%s: the %s stage is an FX program, not an ONNX model",
                                    cmd, st->name);
        /* the program is on its way to ONNX: the next step is the export that makes the model */
        diag_set_hint(dg, "run `export` first (or `step` until the onnx stage): it makes the ONNX model `%s` works on",
                      cmd);
        return NULL;
    }
    return st;
}

int cmd_summary(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 0, &json)) return 1;
    stage *st = need_onnx(s, "summary");
    if (!st) return 1;
    strbuf sb;
    sb_init(&sb);
    if (json) cmd_json_summary(st, &sb);
    else view_summary(st->onnx, &sb);
    session_write(s, sb.s, sb.len);
    sb_free(&sb);
    return 0;
}

int cmd_check(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 0, &json)) return 1;
    stage *st = need_onnx(s, "check");
    if (!st) return 1;
    if (json) {   /* the problems are the document; the status still says whether there were any */
        diag_sink found;
        diag_init(&found);
        int n = ox_check(st->onnx, &found);
        strbuf sb;
        sb_init(&sb);
        cmd_json_check(st, &found, &sb);
        session_write(s, sb.s, sb.len);
        sb_free(&sb);
        diag_free(&found);
        return n ? 1 : 0;
    }
    int problems = ox_check(st->onnx, &s->diag);
    if (problems) {
        session_error(s, "check: %d problem%s found", problems, problems == 1 ? "" : "s");
        return 1;
    }
    fputs("check: ok\n", s->out);
    return 0;
}

int cmd_dot(session *s, int argc, char **argv)
{
    const char *svg = NULL;
    if (argc > 1 && !strcmp(argv[1], "--svg")) {
        if (argc != 3) {
            session_error(s, "dot --svg: which file? (dot --svg FILE.svg)");
            return 1;
        }
        svg = argv[2];
    } else if (argc > 2) {
        session_error(s, "dot: unexpected '%s' (usage: dot [FILE] | dot --svg FILE.svg)", argv[2]);
        return 1;
    }
    stage *st = session_current(s);   /* an FX stage draws too: the graph before export */
    if (!st) {
        session_error(s, "dot: nothing loaded (use `load FILE` first)");
        return 1;
    }
    strbuf sb;
    sb_init(&sb);
    if (st->kind == PL_FX) fx_print_dot(st->fx, &sb);
    else view_dot(st->onnx, &sb);
    int rc = 0;
    if (svg) {
        rc = render_svg(s, sb.s, sb.len, svg) ? 0 : 1;
    } else if (argc > 1) {
        atomic_file af;
        if (!file_create(&af, argv[1], &s->diag)) {
            rc = 1;
        } else {
            if (file_write(&af, sb.s, sb.len, &s->diag)) rc = file_commit(&af, &s->diag) ? 0 : 1;
            else {
                file_abort(&af);
                rc = 1;
            }
            s->committed = rc == 0;
        }
    } else {
        session_write(s, sb.s, sb.len);
    }
    sb_free(&sb);
    return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* On a terminal: one line saying what was written. */
static void confirm_save(session *s, const char *path, const char *what)
{
    if (!session_confirm(s)) return;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
        fprintf(s->out, "saved %s (%s, %lld bytes)\n", path, what, (long long)sb.st_size);
    else
        fprintf(s->out, "saved %s (%s)\n", path, what);
}

int cmd_save(session *s, int argc, char **argv)
{
    stage *st = need_onnx(s, "save");
    if (!st) return 1;
    const char *path = NULL;
    bool text = false, external = s->settings.external_data;   /* `set external_data True` */
    bool force = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--text") == 0) text = true;
        else if (strcmp(argv[i], "--external-data") == 0) external = true;
        else if (strcmp(argv[i], "--force") == 0) force = true;
        else if (argv[i][0] == '-' && argv[i][1]) {
            session_error(s, "save: unknown option '%s' (usage: save FILE [--text] [--external-data] [--force])", argv[i]);
            return 1;
        } else if (path) {
            session_error(s, "save: more than one file name ('%s', '%s')", path, argv[i]);
            return 1;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        session_error(s, "save: no file name (usage: save FILE [--text] [--external-data] [--force])");
        return 1;
    }
    /* A model fxsh's own checker rejects is not written unless asked: onnx.checker and ONNX
     * Runtime would reject it too. */
    if (!force) {
        int problems = ox_check(st->onnx, &s->diag);
        if (problems) {
            diagnostic *dg = diag_error(&s->diag, (diag_loc){path, 0, 0}, "save: not written: the model fails `check` (%d problem%s)",
                                        problems, problems == 1 ? "" : "s");
            diag_set_hint(dg, "fix the model, or write it as it is with `save %s --force`", path);
            return 1;
        }
    }
    if (text || ends_with(path, ".txt")) {
        if (external && !s->settings.external_data) {
            session_error(s, "save: --external-data applies to binary .onnx files only");
            return 1;
        }
        strbuf sb;
        sb_init(&sb);
        ox_print_model(st->onnx->proto, &sb, NULL);
        atomic_file af;
        int rc = 1;
        if (file_create(&af, path, &s->diag)) {
            if (file_write(&af, sb.s, sb.len, &s->diag)) rc = file_commit(&af, &s->diag) ? 0 : 1;
            else file_abort(&af);
        }
        sb_free(&sb);
        s->committed = rc == 0;   /* renamed: saved, whatever Ctrl-C does now */
        if (!rc) confirm_save(s, path, "ONNX text");
        return rc;
    }
    ox_save_opts opts = {.external_data = external};
    if (ox_save_file(st->onnx, path, &opts, &s->diag)) return 1;
    s->committed = true;   /* renamed: saved, whatever Ctrl-C does now */
    confirm_save(s, path, external ? "ONNX protobuf, tensors of 1 KiB and more in FILE.data" : "ONNX protobuf");
    return 0;
}
