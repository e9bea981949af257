/* dot_write.c — Graphviz DOT quoting (see dot_write.h). */
#include "base/dot_write.h"

void dot_escape(strbuf *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\n') {
            sb_puts(out, "\\n");
            continue;
        }
        if (*s == '"' || *s == '\\') sb_putc(out, '\\');
        sb_putc(out, *s);
    }
}

void dot_quote(strbuf *out, const char *s)
{
    sb_putc(out, '"');
    dot_escape(out, s);
    sb_putc(out, '"');
}
