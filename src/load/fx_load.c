/* fx_load.c — sniff an FX text form by content and dispatch; REPL block completeness. */
#include <string.h>

#include "fx/fx.h"
#include "load/fx_parse_internal.h"

typedef enum { SNIFF_NONE, SNIFF_GRAPH, SNIFF_CODE, SNIFF_MODULE, SNIFF_PROGRAM } sniff_kind;

static sniff_kind sniff(const fx_lines *lines, size_t *first)
{
    size_t i = 0;
    while (i < lines->len && fxp_line_blank(&lines->items[i]))
        i++;
    *first = i;
    if (i == lines->len)
        return SNIFF_NONE;
    const fx_line *l = &lines->items[i];
    size_t k = fxp_indent_of(l);
    const char *s = l->s + k;
    size_t n = l->len - k;
    if (n >= 6 && memcmp(s, "graph(", 6) == 0)
        return SNIFF_GRAPH;
    if (n >= 6 && memcmp(s, "class ", 6) == 0)
        return SNIFF_CODE;
    if (k == 0 && n >= 16 && memcmp(s, "ExportedProgram:", 16) == 0)
        return SNIFF_PROGRAM;
    return SNIFF_MODULE;
}

fx_program *load_fx_text(const char *text, size_t len, const char *file, diag_sink *d)
{
    fx_lines lines = {0};
    fxp_split_lines(text, len, &lines);
    size_t first;
    sniff_kind k = sniff(&lines, &first);
    int lineno = lines.len ? lines.items[lines.len - 1].no : 1;
    vec_free(&lines);
    switch (k) {
    case SNIFF_GRAPH: return fxp_parse_graph_text(text, len, file, d);
    case SNIFF_CODE: return fxp_parse_code_text(text, len, file, d);
    case SNIFF_MODULE: return fxp_parse_module_text(text, len, file, d);
    case SNIFF_PROGRAM: return fxp_parse_exported_text(text, len, file, d);
    default: {
        diag_loc loc = {file, lineno, 1};
        diagnostic *dg = diag_error(d, loc, "empty input: no FX graph, readable code or module text");
        diag_set_hint(dg, "paste the output of print(gm.graph), gm.print_readable(), print(gm) or print(ep)");
        return NULL;
    }
    }
}

static bool starts(const fx_line *l, size_t k, const char *lit)
{
    size_t n = strlen(lit);
    return l->len - k >= n && memcmp(l->s + k, lit, n) == 0;
}

bool load_fx_text_complete(const char *text, size_t len)
{
    fx_lines lines = {0};
    fxp_split_lines(text, len, &lines);
    size_t first;
    sniff_kind kind = sniff(&lines, &first);
    bool done = false;
    if (kind == SNIFF_GRAPH) {
        for (size_t i = first + 1; i < lines.len && !done; i++) {
            size_t k = fxp_indent_of(&lines.items[i]);
            done = starts(&lines.items[i], k, "return");
        }
    } else if (kind == SNIFF_CODE) {
        /* complete once every opened forward has returned, the last non-blank line is a
         * return, and every subgraph handed to a higher-order op ("x = self.x" later used on a
         * torch.ops.higher_order line) has had its nested class printed: print_readable puts
         * those classes after the forward that uses them */
        size_t open_defs = 0, needed = 0, nested = 0;
        bool last_return = false;
        VEC(fx_line) attrs = {0};   /* names bound by "name = self.target" in this forward */
        for (size_t i = first; i < lines.len; i++) {
            const fx_line *l = &lines.items[i];
            if (fxp_line_blank(l))
                continue;
            size_t k = fxp_indent_of(l);
            last_return = false;
            if (starts(l, k, "def forward(")) {
                open_defs++;
                attrs.len = 0;
            } else if (starts(l, k, "class ")) {
                nested += k > 0;
            } else if (starts(l, k, "return") && open_defs) {
                open_defs--;
                last_return = true;
            } else {
                size_t e = k;
                while (e < l->len && fx_is_ident_char(l->s[e]))
                    e++;
                if (e > k && l->len - e > 8 && memcmp(l->s + e, " = self.", 8) == 0) {
                    fx_line nm = {l->s + k, e - k, 0};
                    vec_push(&attrs, nm);
                }
                const char *hop = "torch.ops.higher_order.";
                size_t hl = strlen(hop);
                bool is_hop = false;
                for (size_t j = k; j + hl <= l->len && !is_hop; j++)
                    is_hop = memcmp(l->s + j, hop, hl) == 0;
                for (size_t a = 0; is_hop && a < attrs.len; a++) {
                    /* whole-word occurrence of the attribute name on the line */
                    const fx_line *nm = &attrs.items[a];
                    for (size_t j = e; j + nm->len <= l->len; j++)
                        if (memcmp(l->s + j, nm->s, nm->len) == 0 && !fx_is_ident_char(l->s[j - 1]) &&
                            (j + nm->len == l->len || !fx_is_ident_char(l->s[j + nm->len]))) {
                            needed++;
                            attrs.items[a--] = attrs.items[--attrs.len];
                            break;
                        }
                }
            }
        }
        vec_free(&attrs);
        done = last_return && open_defs == 0 && nested >= needed;
    } else if (kind == SNIFF_PROGRAM) {
        for (size_t i = first; i < lines.len && !done; i++)
            done = starts(&lines.items[i], 0, "Range constraints:");
    } else if (kind == SNIFF_MODULE) {
        for (size_t i = first; i < lines.len && !done; i++)
            done = starts(&lines.items[i], 0, "# To see more debug info");
    }
    vec_free(&lines);
    return done;
}
