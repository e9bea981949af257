/* strbuf.c — growable byte string (see strbuf.h). */
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"

static char sb_empty[1];

void sb_init(strbuf *sb)
{
    sb->s = sb_empty;
    sb->len = sb->cap = 0;
}

void sb_free(strbuf *sb)
{
    if (sb->cap) free(sb->s);
    sb_init(sb);
}

char *sb_detach(strbuf *sb)
{
    char *s = sb->cap ? sb->s : xstrdup("");
    sb_init(sb);
    return s;
}

void sb_reset(strbuf *sb)
{
    sb->len = 0;
    if (sb->cap) sb->s[0] = '\0';
}

static void sb_reserve(strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap) return;
    size_t c = sb->cap ? sb->cap : 64;
    while (c < need) c *= 2;
    if (sb->cap) {
        sb->s = xrealloc(sb->s, c);
    } else {
        sb->s = xmalloc(c);
        sb->s[0] = '\0';
    }
    sb->cap = c;
}

void sb_putn(strbuf *sb, const char *s, size_t n)
{
    sb_reserve(sb, n);
    memcpy(sb->s + sb->len, s, n);
    sb->len += n;
    sb->s[sb->len] = '\0';
}

void sb_putc(strbuf *sb, char c)
{
    sb_reserve(sb, 1);
    sb->s[sb->len++] = c;
    sb->s[sb->len] = '\0';
}

void sb_puts(strbuf *sb, const char *s)
{
    sb_putn(sb, s, strlen(s));
}

void sb_vprintf(strbuf *sb, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n <= 0) return;
    sb_reserve(sb, (size_t)n);
    vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

void sb_spaces(strbuf *sb, size_t n)
{
    sb_reserve(sb, n);
    memset(sb->s + sb->len, ' ', n);
    sb->len += n;
    sb->s[sb->len] = '\0';
}

void sb_truncate(strbuf *sb, size_t len)
{
    if (len < sb->len) {
        sb->len = len;
        sb->s[len] = '\0';
    }
}

int sb_flush_to(strbuf *sb, FILE *f)
{
    size_t n = sb->len ? fwrite(sb->s, 1, sb->len, f) : 0;
    int ok = n == sb->len;
    sb_reset(sb);
    return ok ? 0 : -1;
}

bool str_contains(const char *hay, const char *needle, bool fold_case)
{
    if (!hay) return false;
    if (!fold_case) return strstr(hay, needle) != NULL;
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n)) return true;
    return !*needle;
}
