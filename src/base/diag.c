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

/* Longest source line echoed whole; a longer one is shown as a window of about this many
 * bytes around the column, with "…" where it was cut. */
#define ECHO_MAX 160

static bool utf8_cont(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

/* The source line (or the window of it around col) and the caret line under col. */
static void render_source(strbuf *sb, const char *line, int col, bool color)
{
    size_t len = strlen(line), from = 0, to = len;
    size_t at = col > 0 ? (size_t)col - 1 : 0;   /* byte offset of the column */
    if (at > len) at = len;
    if (len > ECHO_MAX) {
        from = at > ECHO_MAX / 2 ? at - ECHO_MAX / 2 : 0;
        to = from + ECHO_MAX < len ? from + ECHO_MAX : len;
        if (to == len && len - from < ECHO_MAX) from = len > ECHO_MAX ? len - ECHO_MAX : 0;
        while (from > 0 && from < len && utf8_cont(line[from])) from++;   /* never cut a UTF-8 sequence */
        while (to < len && utf8_cont(line[to])) to--;
        if (at < from) at = from;
    }
    bool cut_left = from > 0, cut_right = to < len;
    sb_puts(sb, "    ");
    if (cut_left) sb_puts(sb, "\xe2\x80\xa6");   /* … */
    sb_putn(sb, line + from, to - from);
    if (cut_right) sb_puts(sb, "\xe2\x80\xa6");   /* … */
    sb_putc(sb, '\n');
    if (col <= 0) return;
    sb_puts(sb, "    ");
    if (cut_left) sb_putc(sb, ' ');
    /* one column per character; keep tabs so the caret lines up under tab-indented source */
    for (size_t i = from; i < at && i < to; i++) {
        if (utf8_cont(line[i])) continue;
        sb_putc(sb, line[i] == '\t' ? '\t' : ' ');
    }
    sb_puts(sb, color ? "\033[1;32m^\033[0m\n" : "^\n");
}

void diag_render(const diagnostic *dg, FILE *out, const char *prefix, bool color)
{
    /* the whole diagnostic is built first and written at once: stderr is unbuffered, and one
     * write per character made long lines slow */
    strbuf sb;
    sb_init(&sb);
    if (prefix) sb_puts(&sb, prefix);
    if (dg->file) {
        sb_puts(&sb, dg->file);
        if (dg->line > 0) sb_printf(&sb, ":%d", dg->line);
        if (dg->line > 0 && dg->col > 0) sb_printf(&sb, ":%d", dg->col);
        sb_puts(&sb, ": ");
    }
    if (color) sb_printf(&sb, "%s%s:\033[0m ", sev_color(dg->severity), sev_name(dg->severity));
    else sb_printf(&sb, "%s: ", sev_name(dg->severity));
    sb_puts(&sb, dg->message);
    sb_putc(&sb, '\n');
    if (dg->source_line) render_source(&sb, dg->source_line, dg->col, color);
    if (dg->hint) sb_printf(&sb, "  hint: %s\n", dg->hint);
    fwrite(sb.s, 1, sb.len, out);
    fflush(out);
    sb_free(&sb);
}

void diag_render_all(const diag_sink *d, FILE *out, const char *prefix, bool color)
{
    for (size_t i = 0; i < d->len; i++) diag_render(&d->items[i], out, prefix, color);
}
