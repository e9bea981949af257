/* fx_load.c — sniff an FX text form by content and dispatch; REPL block completeness. */
#include <string.h>

#include "fx/fx.h"
#include "fx/fx_internal.h"

typedef enum { SNIFF_NONE, SNIFF_GRAPH, SNIFF_CODE, SNIFF_MODULE } sniff_kind;

static sniff_kind sniff(const fx_lines *lines, size_t *first)
{
    size_t i = 0;
    while (i < lines->len && fx_line_blank(&lines->items[i]))
        i++;
    *first = i;
    if (i == lines->len)
        return SNIFF_NONE;
    const fx_line *l = &lines->items[i];
    size_t k = fx_indent_of(l);
    const char *s = l->s + k;
    size_t n = l->len - k;
    if (n >= 6 && memcmp(s, "graph(", 6) == 0)
        return SNIFF_GRAPH;
    if (n >= 6 && memcmp(s, "class ", 6) == 0)
        return SNIFF_CODE;
    return SNIFF_MODULE;
}

fx_program *fx_load_text(const char *text, size_t len, const char *file, diag_sink *d)
{
    fx_lines lines = {0};
    fx_split_lines(text, len, &lines);
    size_t first;
    sniff_kind k = sniff(&lines, &first);
    int lineno = lines.len ? lines.items[lines.len - 1].no : 1;
    vec_free(&lines);
    switch (k) {
    case SNIFF_GRAPH: return fx_parse_graph_text(text, len, file, d);
    case SNIFF_CODE: return fx_parse_code_text(text, len, file, d);
    case SNIFF_MODULE: return fx_parse_module_text(text, len, file, d);
    default: {
        diag_loc loc = {file, lineno, 1};
        diagnostic *dg = diag_error(d, loc, "empty input: no FX graph, readable code or module text");
        diag_set_hint(dg, "paste the output of print(gm.graph), gm.print_readable() or print(gm)");
        return NULL;
    }
    }
}

static bool starts(const fx_line *l, size_t k, const char *lit)
{
    size_t n = strlen(lit);
    return l->len - k >= n && memcmp(l->s + k, lit, n) == 0;
}

bool fx_text_complete(const char *text, size_t len)
{
    fx_lines lines = {0};
    fx_split_lines(text, len, &lines);
    size_t first;
    sniff_kind kind = sniff(&lines, &first);
    bool done = false;
    if (kind == SNIFF_GRAPH) {
        for (size_t i = first + 1; i < lines.len && !done; i++) {
            size_t k = fx_indent_of(&lines.items[i]);
            done = starts(&lines.items[i], k, "return");
        }
    } else if (kind == SNIFF_CODE) {
        /* complete once every opened forward has returned and the last non-blank line is a
         * return; a following nested class reopens it */
        size_t open_defs = 0;
        bool last_return = false;
        for (size_t i = first; i < lines.len; i++) {
            const fx_line *l = &lines.items[i];
            if (fx_line_blank(l))
                continue;
            size_t k = fx_indent_of(l);
            last_return = false;
            if (starts(l, k, "def forward("))
                open_defs++;
            else if (starts(l, k, "return") && open_defs) {
                open_defs--;
                last_return = true;
            }
        }
        done = last_return && open_defs == 0;
    } else if (kind == SNIFF_MODULE) {
        for (size_t i = first; i < lines.len && !done; i++)
            done = starts(&lines.items[i], 0, "# To see more debug info");
    }
    vec_free(&lines);
    return done;
}
