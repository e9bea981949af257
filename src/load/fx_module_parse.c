/* fx_module_parse.c — loader for print(gm): module tree repr + forward code (fx_print_module.c prints it). */
#include <string.h>

#include "fx/fx.h"
#include "load/fx_parse_internal.h"

/* the last line print(gm) prints (fx_print_module writes it), skipped when reading */
static const char trailer[] = "# To see more debug info, please use `graph_module.print_readable()`";

/* ---- parsing ------------------------------------------------------------------------- */

static void set_line(fxp *c, const fx_line *l)
{
    c->line = l->s;
    c->line_len = l->len;
    c->lineno = l->no;
    c->s = l->s;
    c->end = l->s + l->len;
}

/* c->s at "Type(" on lines[*i] with the module's own indent ind; fills m. */
static bool parse_repr(fxp *c, const fx_lines *lines, size_t *i, size_t ind, fx_module *m, int depth)
{
    if (depth > 100) {
        fxp_error(c, c->s, "modules nested too deeply");
        return false;
    }
    const char *ts = c->s;
    while (c->s < c->end && *c->s != '(')
        c->s++;
    if (c->s == ts || c->s >= c->end) {
        fxp_error(c, ts, "expected 'ModuleType(...)'");
        return false;
    }
    m->type = fx_strndup(c->p, ts, (size_t)(c->s - ts));
    c->s++;
    if (c->s < c->end) {
        /* one-line form: Type(extra) */
        if (c->end[-1] != ')') {
            fxp_error(c, c->end, "unbalanced '(': module repr is not closed");
            return false;
        }
        m->extra_repr = fx_strndup(c->p, c->s, (size_t)(c->end - 1 - c->s));
        m->repr = fx_strndup(c->p, ts, (size_t)(c->end - ts));
        (*i)++;
        return true;
    }
    (*i)++;
    strbuf extra;
    sb_init(&extra);
    bool ok = false;
    for (; *i < lines->len; ) {
        const fx_line *l = &lines->items[*i];
        set_line(c, l);
        size_t k = fxp_indent_of(l);
        if (k == ind && l->len == k + 1 && l->s[k] == ')') {
            (*i)++;
            ok = true;
            break;
        }
        if (k < ind + 2) {
            fxp_error(c, l->s + k, "unbalanced '(': expected ')' closing %s(", m->type);
            break;
        }
        c->s += ind + 2;
        if (k == ind + 2 && c->s < c->end && *c->s == '(') {   /* a line of spaces only ends here */
            const char *close = memchr(c->s, ')', (size_t)(c->end - c->s));
            if (close && c->end - close >= 3 && memcmp(close, "): ", 3) == 0) {
                char *name = fx_strndup(c->p, c->s + 1, (size_t)(close - c->s - 1));
                fx_module *ch = fx_module_add_child(m, name, NULL, NULL);
                c->s = close + 3;
                if (!parse_repr(c, lines, i, ind + 2, ch, depth + 1))
                    break;
                continue;
            }
        }
        if (m->first_child) {
            fxp_error(c, c->s, "module text after the child modules");
            break;
        }
        if (extra.len)
            sb_putc(&extra, '\n');
        sb_putn(&extra, c->s, (size_t)(c->end - c->s));
        (*i)++;
    }
    if (ok) {
        m->extra_repr = extra.len ? fx_strdup(c->p, extra.s) : NULL;
    } else if (!c->failed) {
        set_line(c, &lines->items[lines->len - 1]);
        fxp_error(c, c->end, "truncated module repr: missing ')'");
    }
    sb_free(&extra);
    return ok;
}

fx_program *fxp_parse_module_text(const char *text, size_t len, const char *file, diag_sink *d)
{
    fx_lines lines = {0};
    fxp_split_lines(text, len, &lines);
    fx_program *p = fx_program_new(NULL);
    p->file = file ? fx_strdup(p, file) : NULL;
    p->source_form = FX_FORM_MODULE;
    hashmap all;
    hm_init(&all);
    fxp_prescan_names(p, &lines, &all);
    fxp c = {.p = p, .g = fx_program_graph(p), .d = d, .file = file, .all_names = &all};
    size_t i = 0;
    while (i < lines.len && fxp_line_blank(&lines.items[i]))
        i++;
    if (i == lines.len) {
        c.lineno = lines.len ? lines.items[lines.len - 1].no : 1;
        fxp_error(&c, NULL, "empty text: expected a module repr such as 'GraphModule()'");
        goto done;
    }
    set_line(&c, &lines.items[i]);
    if (fxp_indent_of(&lines.items[i]) != 0) {
        fxp_error(&c, c.s, "the module repr must start at column 1");
        goto done;
    }
    if (!parse_repr(&c, &lines, &i, 0, p->root, 0)) {
        if (!c.failed)
            fxp_error(&c, c.s, "could not read the module repr");
        goto done;
    }
    p->root->name = p->root->type;
    p->root->repr = NULL;
    while (i < lines.len && fxp_line_blank(&lines.items[i]))
        i++;
    if (i == lines.len) {
        set_line(&c, &lines.items[lines.len - 1]);
        fxp_error(&c, c.end, "truncated text: missing 'def forward(self, ...):'");
        goto done;
    }
    if (!fxp_parse_forward(&c, &lines, &i, 0, false)) {
        if (!c.failed)
            fxp_error(&c, c.s, "could not read this line");   /* safety net: never half-load */
        goto done;
    }
    for (; i < lines.len; i++) {
        const fx_line *l = &lines.items[i];
        if (fxp_line_blank(l) || (l->len == sizeof trailer - 1 && memcmp(l->s, trailer, l->len) == 0))
            continue;
        set_line(&c, l);
        fxp_error(&c, c.s, "unexpected text after forward()");
        break;
    }
done:
    hm_free(&all);
    vec_free(&lines);
    if (c.failed || !fx_program_check_shapes(p, d)) {
        fx_program_free(p);
        return NULL;
    }
    fx_program_refresh(p);
    return p;
}
