/* tokenize.c — shell-like word splitting for command lines. */
#include "repl/tokenize.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/vec.h"

char **tokenize(const char *line, int *argc, const char **error)
{
    VEC(char *) words = {0};
    const char *p = line;
    *error = NULL;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '#') break;
        strbuf w;
        sb_init(&w);
        char quote = 0;
        for (; *p; p++) {
            if (quote) {
                if (*p == quote) quote = 0;
                else if (*p == '\\' && quote == '"' && (p[1] == '"' || p[1] == '\\')) sb_putc(&w, *++p);
                else sb_putc(&w, *p);
            } else if (*p == '\'' || *p == '"') {
                quote = *p;
            } else if (*p == '\\' && p[1]) {
                sb_putc(&w, *++p);
            } else if (*p == ' ' || *p == '\t') {
                break;
            } else {
                sb_putc(&w, *p);
            }
        }
        if (quote) {
            sb_free(&w);
            for (size_t i = 0; i < words.len; i++) free(words.items[i]);
            vec_free(&words);
            *error = quote == '"' ? "unterminated \" quote" : "unterminated ' quote";
            return NULL;
        }
        vec_push(&words, sb_detach(&w));
    }
    vec_push(&words, (char *)NULL);
    *argc = (int)words.len - 1;
    return words.items;
}

void tokens_free(char **argv)
{
    if (!argv) return;
    for (char **a = argv; *a; a++) free(*a);
    free(argv);
}

char *tokens_join(int argc, char *const *argv)
{
    strbuf sb;
    sb_init(&sb);
    for (int i = 0; i < argc; i++) {
        if (i) sb_putc(&sb, ' ');
        bool quote = !argv[i][0] || strpbrk(argv[i], " \t'\"#\\") != NULL;
        if (!quote) {
            sb_puts(&sb, argv[i]);
            continue;
        }
        sb_putc(&sb, '"');
        for (const char *c = argv[i]; *c; c++) {
            if (*c == '"' || *c == '\\') sb_putc(&sb, '\\');
            sb_putc(&sb, *c);
        }
        sb_putc(&sb, '"');
    }
    return sb_detach(&sb);
}
