/* diag.c — diagnostics sink and its rendering (see diag.h). */
#include "base/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"

void diag_init(diag_sink *d)
{
    d->items = NULL;
    d->len = d->cap = d->errors = 0;
}

void diag_clear(diag_sink *d)
{
    for (size_t i = 0; i < d->len; i++) {
        free(d->items[i].file);
        free(d->items[i].message);
        free(d->items[i].hint);
        free(d->items[i].source_line);
    }
    d->len = 0;
    d->errors = 0;
}

void diag_drop_notes(diag_sink *d, size_t from)
{
    size_t k = from;
    for (size_t i = from; i < d->len; i++) {
        diagnostic *dg = &d->items[i];
        if (dg->severity == DIAG_NOTE) {
            free(dg->file);
            free(dg->message);
            free(dg->hint);
            free(dg->source_line);
        } else {
            d->items[k++] = *dg;
        }
    }
    if (k < d->len) d->len = k;
}

void diag_free(diag_sink *d)
{
    diag_clear(d);
    free(d->items);
    diag_init(d);
}

static diagnostic *vreport(diag_sink *d, diag_severity sev, diag_loc loc, const char *fmt, va_list ap)
{
    xgrow((void **)&d->items, &d->cap, d->len + 1, sizeof *d->items);
    diagnostic *dg = &d->items[d->len++];
    strbuf sb;
    sb_init(&sb);
    sb_vprintf(&sb, fmt, ap);
    dg->severity = sev;
    dg->file = loc.file ? xstrdup(loc.file) : NULL;
    dg->line = loc.line;
    dg->col = loc.col;
    dg->message = sb_detach(&sb);
    dg->hint = NULL;
    dg->source_line = NULL;
    if (sev == DIAG_ERROR) d->errors++;
    return dg;
}

diagnostic *diag_report(diag_sink *d, diag_severity sev, diag_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diagnostic *dg = vreport(d, sev, loc, fmt, ap);
    va_end(ap);
    return dg;
}

diagnostic *diag_error(diag_sink *d, diag_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diagnostic *dg = vreport(d, DIAG_ERROR, loc, fmt, ap);
    va_end(ap);
    return dg;
}

diagnostic *diag_warning(diag_sink *d, diag_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diagnostic *dg = vreport(d, DIAG_WARNING, loc, fmt, ap);
    va_end(ap);
    return dg;
}

diagnostic *diag_note(diag_sink *d, diag_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diagnostic *dg = vreport(d, DIAG_NOTE, loc, fmt, ap);
    va_end(ap);
    return dg;
}

void diag_set_hint(diagnostic *dg, const char *fmt, ...)
{
    strbuf sb;
    sb_init(&sb);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    free(dg->hint);
    dg->hint = sb_detach(&sb);
}

void diag_set_source(diagnostic *dg, const char *line, size_t len)
{
    free(dg->source_line);
    dg->source_line = xstrndup(line, len);
}

bool diag_has_errors(const diag_sink *d)
{
    return d->errors > 0;
}

static const char *sev_name(diag_severity s)
{
    return s == DIAG_ERROR ? "error" : s == DIAG_WARNING ? "warning" : "note";
}

static const char *sev_color(diag_severity s)
{
    return s == DIAG_ERROR ? "\033[1;31m" : s == DIAG_WARNING ? "\033[1;35m" : "\033[1;36m";
}

void diag_render(const diagnostic *dg, FILE *out, const char *prefix, bool color)
{
    if (prefix) fputs(prefix, out);
    if (dg->file) {
        fputs(dg->file, out);
        if (dg->line > 0) fprintf(out, ":%d", dg->line);
        if (dg->line > 0 && dg->col > 0) fprintf(out, ":%d", dg->col);
        fputs(": ", out);
    }
    if (color) fprintf(out, "%s%s:\033[0m ", sev_color(dg->severity), sev_name(dg->severity));
    else fprintf(out, "%s: ", sev_name(dg->severity));
    fputs(dg->message, out);
    fputc('\n', out);
    if (dg->source_line) {
        fprintf(out, "    %s\n", dg->source_line);
        if (dg->col > 0) {
            fputs("    ", out);
            /* Keep tabs so the caret lines up under tab-indented source. */
            for (int i = 0; i < dg->col - 1 && dg->source_line[i]; i++)
                fputc(dg->source_line[i] == '\t' ? '\t' : ' ', out);
            fputs(color ? "\033[1;32m^\033[0m\n" : "^\n", out);
        }
    }
    if (dg->hint) fprintf(out, "  hint: %s\n", dg->hint);
}

void diag_render_all(const diag_sink *d, FILE *out, const char *prefix, bool color)
{
    for (size_t i = 0; i < d->len; i++) diag_render(&d->items[i], out, prefix, color);
}
