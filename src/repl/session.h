/* session.h — a session: the named stages (loaded program, each pass's output) and settings.
 *
 * Ownership: the session owns every stage's program/model and frees it when the stage is
 * replaced or the session ends. Getters return borrowed pointers valid until the stage changes. */
#ifndef FXSH_SESSION_H
#define FXSH_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/diag.h"
#include "capture/py_eval.h"
#include "pipeline/pipeline.h"

struct fx_program;
struct ox_model;
struct ops_registry;

/* The stages are the pipeline's (pipeline/pipeline.h); the session holds one set of them. */
typedef pl_stage stage;

enum { SESSION_MAX_STAGES = PL_N_STAGES };

/* Reads one more line of the current input for commands that take a multi-line block (load -). */
typedef char *(*session_read_fn)(void *ctx, const char *prompt);

/* One applied edit of an FX stage: the program before it, so that undo can restore it. */
typedef struct edit_record {
    int stage;                   /* index of the stage edited */
    struct fx_program *before;   /* owned: the stage's program before the edit */
    struct fx_program *after;    /* owned only while on the redo stack */
    char *command;               /* the command line, replayed by save-patch */
} edit_record;

typedef struct session {
    stage stages[SESSION_MAX_STAGES];
    int current;                 /* index into stages, -1 if nothing loaded */
    diag_sink diag;
    FILE *out;                   /* command output (stdout) */
    FILE *err;                   /* diagnostics (stderr) */
    bool interactive;
    bool color;
    bool quiet;                  /* -q: no progress lines, notes or confirmations */
    bool terminal;               /* standard output is a terminal (s->out may be a pager's buffer) */
    bool quit;
    bool json;                   /* the running command was given --json (command_dispatch) */
    bool json_written;           /* ...and wrote its document (session_write) */
    /* The running command's file was renamed into place (save, dot FILE, save-patch): that is its
     * outcome, decided at the rename, and a Ctrl-C arriving after it does not turn it into
     * "interrupted" (the REPL reports one outcome; a script still stops there, exit 130). */
    bool committed;
    const char *input_name;      /* current input: script file, "<stdin>" or "-c" */
    int input_line;
    session_read_fn read_more;
    void *read_ctx;
    export_settings settings;    /* `set`: defaults of `export` */
    char *failure_text;          /* what torch printed when the last export failed (report), or NULL */
    char *load_command;          /* the `load` that made the stages, as a command line (hints, save-patch) */
    struct ops_registry *ops;    /* op tables, loaded on first use (NULL until then) */
    py_guard_log guards;         /* the guards of the last capture (`guards`) */
    edit_record *undo;           /* applied edits, oldest first */
    size_t n_undo, cap_undo;
    edit_record *redo;           /* undone edits, most recently undone last */
    size_t n_redo, cap_redo;
} session;

void session_init(session *s);
void session_free(session *s);
/* Stage names in pipeline order; returns -1 for an unknown name. */
int session_stage_index(const char *name);
const char *session_stage_name(int index);
/* Empties every stage: a newly loaded program starts a new pipeline. */
void session_reset(session *s);
/* Replaces stage `index` (freeing what was there) and makes it current. Takes ownership. */
void session_set_fx(session *s, int index, struct fx_program *p, const char *source);
void session_set_onnx(session *s, int index, struct ox_model *m, const char *source);
stage *session_current(session *s);  /* NULL if nothing is loaded */
/* Stages from..last taken out of the session (left empty there) by a command that may be
 * cancelled: session_restore_stages puts them back as they were (freeing what replaced them,
 * and making the same stage current), session_drop_stash frees them. */
typedef struct stage_stash {
    stage stages[SESSION_MAX_STAGES];
    int from, current;
} stage_stash;
void session_stash_stages(session *s, int from, stage_stash *st);
void session_restore_stages(session *s, stage_stash *st);
void session_drop_stash(stage_stash *st);
/* Forgets every edit (a new program was loaded). */
void session_clear_edits(session *s);
/* Renders and clears pending diagnostics, prefixed with "input:line: " when not interactive. */
void session_flush_diag(session *s);
/* Writes command output to s->out in chunks, stopping early when an interrupt is pending (a
 * big `show` cut short by Ctrl-C). Returns false when it stopped or the stream failed. */
bool session_write(session *s, const char *buf, size_t len);
/* Columns to wrap text for: the terminal's width when s->out is one, else $COLUMNS, else 80
 * (kept within 40..200). */
int session_width(const session *s);
/* Whether to print a confirmation line ("loaded ...", "attached ...", "saved ...", "loaded rules
 * from ...", "wrote the report ..."): on a terminal, without -q; never when the output is piped or
 * redirected, interactive or not, so that a script's stdout is its results only (one rule for
 * every command; fxsh(1), OUTPUT). */
bool session_confirm(const session *s);
/* Reports a command-level error (no source location of its own). */
void session_error(session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The pipeline's view of the session: its diagnostics, op tables, the `load` command line, and
 * torch's own lines printed to its streams. */
pl_env session_env(session *s);

#endif
