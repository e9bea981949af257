/* session.c — stages of a session and error rendering (see session.h). */
#include "repl/session.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/interrupt.h"
#include "base/strbuf.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_ir.h"


void session_init(session *s)
{
    memset(s, 0, sizeof *s);
    pl_stages_init(s->stages);
    s->current = -1;
    diag_init(&s->diag);
    s->out = stdout;
    s->err = stderr;
    settings_init(&s->settings);
}

void session_free(session *s)
{
    for (int i = 0; i < SESSION_MAX_STAGES; i++) pl_stage_clear(&s->stages[i]);
    diag_free(&s->diag);
    settings_free(&s->settings);
    free(s->load_command);
    free(s->failure_text);
    session_clear_edits(s);
    free(s->undo);
    free(s->redo);
    pl_free_ops(s->ops);
    py_guard_log_clear(&s->guards);
}

void session_clear_edits(session *s)
{
    for (size_t i = 0; i < s->n_undo; i++) {
        fx_program_free(s->undo[i].before);
        free(s->undo[i].command);
    }
    for (size_t i = 0; i < s->n_redo; i++) {
        fx_program_free(s->redo[i].after);
        free(s->redo[i].command);
    }
    s->n_undo = s->n_redo = 0;
}

void session_reset(session *s)
{
    session_clear_edits(s);
    for (int i = 0; i < SESSION_MAX_STAGES; i++) pl_stage_clear(&s->stages[i]);
    s->current = -1;
    free(s->load_command);
    s->load_command = NULL;
    py_guard_log_clear(&s->guards);
}

void session_stash_stages(session *s, int from, stage_stash *st)
{
    memset(st, 0, sizeof *st);
    st->from = from;
    st->current = s->current;
    for (int i = from; i < SESSION_MAX_STAGES; i++) {
        st->stages[i] = s->stages[i];
        memset(&s->stages[i], 0, sizeof s->stages[i]);
        s->stages[i].name = pl_stage_name(i);
    }
    if (s->current >= from) {   /* the last stage left holding something is current */
        s->current = -1;
        for (int i = from - 1; i >= 0 && s->current < 0; i--)
            if (s->stages[i].kind != PL_EMPTY) s->current = i;
    }
}

void session_restore_stages(session *s, stage_stash *st)
{
    for (int i = st->from; i < SESSION_MAX_STAGES; i++) {
        pl_stage_clear(&s->stages[i]);
        s->stages[i] = st->stages[i];
    }
    s->current = st->current;
    memset(st, 0, sizeof *st);
}

void session_drop_stash(stage_stash *st)
{
    for (int i = st->from; i < SESSION_MAX_STAGES; i++) pl_stage_clear(&st->stages[i]);
    memset(st, 0, sizeof *st);
}

int session_stage_index(const char *name)
{
    return pl_stage_index(name);
}

const char *session_stage_name(int index)
{
    return pl_stage_name(index);
}

void session_set_fx(session *s, int index, struct fx_program *p, const char *source)
{
    pl_stage_set_fx(&s->stages[index], p, source);
    s->current = index;
}

void session_set_onnx(session *s, int index, struct ox_model *m, const char *source)
{
    pl_stage_set_onnx(&s->stages[index], m, source);
    s->current = index;
}

stage *session_current(session *s)
{
    return s->current >= 0 ? &s->stages[s->current] : NULL;
}

void session_flush_diag(session *s)
{
    if (s->quiet) diag_drop_notes(&s->diag, 0);
    if (!s->diag.len) return;
    fflush(s->out);
    char prefix[512];
    prefix[0] = '\0';
    if (!s->interactive && s->input_name)
        snprintf(prefix, sizeof prefix, "%s:%d: ", s->input_name, s->input_line);
    diag_render_all(&s->diag, s->err, prefix[0] ? prefix : NULL, s->color);
    fflush(s->err);
    diag_clear(&s->diag);
}

void session_error(session *s, const char *fmt, ...)
{
    strbuf sb;
    sb_init(&sb);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    diag_error(&s->diag, (diag_loc){0}, "%s", sb.s);
    sb_free(&sb);
}

bool session_write(session *s, const char *buf, size_t len)
{
    s->json_written |= s->json && len;
    while (len) {
        if (interrupt_pending()) return false;
        size_t n = len < 65536 ? len : 65536;
        if (fwrite(buf, 1, n, s->out) != n) return false;
        buf += n;
        len -= n;
    }
    return true;
}

int session_width(const session *s)
{
    int w = 0;
    struct winsize ws;
    if (s->terminal && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) w = ws.ws_col;
    const char *env = getenv("COLUMNS");
    if (!w && env) w = atoi(env);
    if (!w) w = 80;
    return w < 40 ? 40 : w > 200 ? 200 : w;
}

bool session_confirm(const session *s)
{
    return !s->quiet && s->terminal;
}

/* torch's own lines: progress on stdout (not with -q), its messages on stderr after whatever was
 * printed before them. */
static void print_torch_text(void *ctx, pl_print_kind kind, const char *text)
{
    session *s = ctx;
    if (kind == PL_PRINT_PROGRESS) {
        if (s->quiet) return;
        fputs(text, s->out);
        fflush(s->out);
        return;
    }
    fflush(s->out);
    fputs(text, s->err);
}

pl_env session_env(session *s)
{
    return (pl_env){.diag = &s->diag, .ops = &s->ops, .print = print_torch_text, .print_ctx = s,
                    .load_command = s->load_command, .guards = &s->guards};
}
