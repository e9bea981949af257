/* diag.h — the diagnostics sink: libraries report here, only the REPL prints.
 *
 * A diagnostic has a severity, a location (file, line, column; 0 = unknown), a message, an
 * optional hint and an optional copy of the offending source line (rendered with a caret).
 * Ownership: the sink owns copies of every string passed in; diag_clear/diag_free release them. */
#ifndef FXSH_DIAG_H
#define FXSH_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum diag_severity { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR } diag_severity;

typedef struct diag_loc {
    const char *file;   /* may be NULL */
    int line, col;      /* 1-based; 0 = unknown */
} diag_loc;

typedef struct diagnostic {
    diag_severity severity;
    char *file;
    int line, col;
    char *message;
    char *hint;         /* NULL if none */
    char *source_line;  /* the offending line without its newline, NULL if none */
} diagnostic;

typedef struct diag_sink {
    diagnostic *items;
    size_t len, cap;
    size_t errors;      /* count of DIAG_ERROR entries since the last clear */
} diag_sink;

void diag_init(diag_sink *d);
void diag_free(diag_sink *d);
void diag_clear(diag_sink *d);
/* Removes the notes among the diagnostics from index `from` on (what a step that then failed
 * noted about a result nobody will see). */
void diag_drop_notes(diag_sink *d, size_t from);
/* Adds a diagnostic; returns it so callers can attach a hint or source line. */
diagnostic *diag_report(diag_sink *d, diag_severity sev, diag_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
diagnostic *diag_error(diag_sink *d, diag_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
diagnostic *diag_warning(diag_sink *d, diag_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
diagnostic *diag_note(diag_sink *d, diag_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_set_hint(diagnostic *dg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_set_source(diagnostic *dg, const char *line, size_t len);
bool diag_has_errors(const diag_sink *d);

/* Rendering (used by the REPL): "file:line:col: error: message", then the source line and a
 * caret under the column, then "  hint: ...". prefix (may be NULL) goes before everything,
 * e.g. "script.fxsh:3: " for non-interactive input. */
void diag_render(const diagnostic *dg, FILE *out, const char *prefix, bool color);
void diag_render_all(const diag_sink *d, FILE *out, const char *prefix, bool color);

#endif
