/* strbuf.h — growable byte string used by every printer.
 *
 * Ownership: a strbuf owns its buffer; sb_free releases it, sb_detach hands it to the caller
 * (free() it). sb->s is always NUL-terminated (also when empty after sb_init). */
#ifndef FXSH_STRBUF_H
#define FXSH_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct strbuf {
    char *s;
    size_t len, cap;
} strbuf;

void sb_init(strbuf *sb);
void sb_free(strbuf *sb);
char *sb_detach(strbuf *sb);
void sb_reset(strbuf *sb);                       /* len = 0, keeps capacity */
void sb_putc(strbuf *sb, char c);
void sb_puts(strbuf *sb, const char *s);
void sb_putn(strbuf *sb, const char *s, size_t n);
void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(strbuf *sb, const char *fmt, va_list ap);
void sb_spaces(strbuf *sb, size_t n);
void sb_truncate(strbuf *sb, size_t len);
/* Writes the buffer to f and resets it; used by printers that stream large output. */
int sb_flush_to(strbuf *sb, FILE *f);

/* Whether hay contains needle; fold_case compares ASCII letters without case (names and op
 * types are ASCII: `find softmax` finds Softmax). A NULL hay contains nothing. */
bool str_contains(const char *hay, const char *needle, bool fold_case);

#endif
