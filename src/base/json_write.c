/* json_write.c — streaming JSON writer: separators, nesting and string escapes. */
#include "base/json_write.h"
#include "base/utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void jw_init(json_writer *w, strbuf *out)
{
    w->out = out;
    w->depth = 0;
    w->first[0] = true;
    w->after_key = false;
}

/* The comma before a value (not after a key, not first at its depth). */
static void before_value(json_writer *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (!w->first[w->depth]) sb_putc(w->out, ',');
    w->first[w->depth] = false;
}

static void jw_open(json_writer *w, char c)
{
    before_value(w);
    sb_putc(w->out, c);
    if (w->depth + 1 < JSON_WRITE_MAX_DEPTH) w->depth++;
    w->first[w->depth] = true;
}

static void jw_close(json_writer *w, char c)
{
    if (w->depth > 0) w->depth--;
    sb_putc(w->out, c);
}

void jw_object(json_writer *w) { jw_open(w, '{'); }
void jw_object_end(json_writer *w) { jw_close(w, '}'); }
void jw_array(json_writer *w) { jw_open(w, '['); }
void jw_array_end(json_writer *w) { jw_close(w, ']'); }

static void put_string(strbuf *out, const char *s)
{
    sb_putc(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            sb_putc(out, '\\');
            sb_putc(out, (char)c);
            p++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n': sb_puts(out, "\\n"); break;
            case '\t': sb_puts(out, "\\t"); break;
            case '\r': sb_puts(out, "\\r"); break;
            default: sb_printf(out, "\\u%04x", c); break;
            }
            p++;
        } else {
            /* s ends in NUL, which no sequence continues past: 4 is always safe to pass */
            size_t n = utf8_seq_len(p, 4);
            if (n) sb_putn(out, (const char *)p, (size_t)n);
            else sb_puts(out, "\\ufffd");
            p += n ? n : 1;
        }
    }
    sb_putc(out, '"');
}

void jw_key(json_writer *w, const char *key)
{
    before_value(w);
    put_string(w->out, key);
    sb_putc(w->out, ':');
    w->after_key = true;
}

void jw_string(json_writer *w, const char *s)
{
    if (!s) {
        jw_null(w);
        return;
    }
    before_value(w);
    put_string(w->out, s);
}

void jw_int(json_writer *w, int64_t v)
{
    before_value(w);
    sb_printf(w->out, "%" PRId64, v);
}

void jw_uint(json_writer *w, uint64_t v)
{
    before_value(w);
    sb_printf(w->out, "%" PRIu64, v);
}

/* The fewest significant digits (%g) that read back as v. */
static void put_double(strbuf *out, double v)
{
    char buf[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    sb_puts(out, buf);
}

void jw_double(json_writer *w, double v)
{
    before_value(w);
    if (isfinite(v)) put_double(w->out, v);
    else sb_puts(w->out, "null");
}

void jw_double_named(json_writer *w, double v)
{
    if (isfinite(v)) jw_double(w, v);
    else jw_string(w, isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
}

void jw_number_text(json_writer *w, const char *text)
{
    before_value(w);
    sb_puts(w->out, text);
}

void jw_kdouble_named(json_writer *w, const char *key, double v)
{
    jw_key(w, key);
    jw_double_named(w, v);
}

void jw_bool(json_writer *w, bool v)
{
    before_value(w);
    sb_puts(w->out, v ? "true" : "false");
}

void jw_null(json_writer *w)
{
    before_value(w);
    sb_puts(w->out, "null");
}

void jw_kstring(json_writer *w, const char *key, const char *s)
{
    jw_key(w, key);
    jw_string(w, s);
}

void jw_kint(json_writer *w, const char *key, int64_t v)
{
    jw_key(w, key);
    jw_int(w, v);
}

void jw_kbool(json_writer *w, const char *key, bool v)
{
    jw_key(w, key);
    jw_bool(w, v);
}
