/* fx_text_parse.c — loader for print(gm.graph) text ("graph():" + "%x : [num_users=N] = ..."). */
#include <stdlib.h>
#include <string.h>

#include "base/interrupt.h"
#include "fx/fx.h"
#include "load/fx_parse_internal.h"

/* The outermost opening bracket of [s, end) that no closing bracket matches (quoted strings
 * skipped), or NULL when the brackets balance. */
static const char *unclosed_bracket(const char *s, const char *end)
{
    const char *stack[256];
    size_t depth = 0;
    char quote = 0;
    for (const char *p = s; p < end; p++) {
        if (quote) {
            if (*p == '\\' && p + 1 < end) p++;
            else if (*p == quote) quote = 0;
        } else if (*p == '\'' || *p == '"') {
            quote = *p;
        } else if (*p == '(' || *p == '[' || *p == '{') {
            if (depth < 256) stack[depth] = p;
            depth++;
        } else if ((*p == ')' || *p == ']' || *p == '}') && depth) {
            depth--;
        }
    }
    return depth ? stack[0] : NULL;
}

static void set_line(fxp *c, const fx_line *l)
{
    c->line = l->s;
    c->line_len = l->len;
    c->lineno = l->no;
    c->s = l->s;
    c->end = l->s + l->len;
}

/* "%name : [type ][num_users=N] = op[target=T]..." ; c is positioned after the indent. */
/* The node's type annotation (NULL when empty) and "[num_users=N]" (or "[#users=N]"), up to the
 * ' = ' before the opcode; false after reporting. */
static bool parse_type_and_users(fxp *c, const char **type_text, long *users)
{
    const char *type_s = c->s;
    const char *bracket = NULL;
    for (const char *q = c->s; q < c->end; q++)
        if (*q == '[' && (((size_t)(c->end - q) >= 11 && memcmp(q, "[num_users=", 11) == 0) ||
                          ((size_t)(c->end - q) >= 8 && memcmp(q, "[#users=", 8) == 0))) {
            bracket = q;
            break;
        }
    if (!bracket) {
        fxp_error(c, c->s, "expected '[num_users=N]'");
        return false;
    }
    *type_text = NULL;
    if (bracket > type_s) {
        const char *te = bracket;
        while (te > type_s && te[-1] == ' ')
            te--;
        *type_text = fx_strndup(c->p, type_s, (size_t)(te - type_s));
    }
    c->s = bracket + (bracket[1] == '#' ? 8 : 11);
    /* the text is not NUL-terminated: read the digits by hand */
    const char *endp = c->s;
    long nu = 0;
    while (endp < c->end && *endp >= '0' && *endp <= '9' && nu < 100000000)
        nu = nu * 10 + (*endp++ - '0');
    if (endp == c->s || endp >= c->end || *endp != ']') {
        fxp_error(c, c->s, "expected a user count and ']'");
        return false;
    }
    c->s = endp + 1;
    *users = nu;
    return true;
}

/* A placeholder's "(default=VALUE)", from just after "(default=" to the end of the line: the
 * args tuple (VALUE,); NULL after reporting. */
static fx_arg *parse_placeholder_default(fxp *c)
{
    /* str(default): parse up to the final ')' of the line */
    if (c->end[-1] != ')') {
        fxp_error(c, c->s, "unbalanced '(': default value is not closed");
        return NULL;
    }
    const char *save_end = c->end;
    c->end--;
    fx_arg *dv = fxp_arg(c, FXA_FX);
    if (!dv)
        return NULL;
    fxp_skip_ws(c);
    if (c->s != c->end) {
        fxp_error(c, c->s, "unexpected text in default value");
        return NULL;
    }
    c->end = save_end;
    c->s = c->end;
    return fx_arg_seq(c->p, FX_ARG_TUPLE, &dv, NULL, 1);
}

/* "(args = (...), kwargs = {...})" of a call node into *args / *kwargs; false after reporting. */
static bool parse_call_args(fxp *c, fx_arg **args, fx_arg **kwargs)
{
    const char *call_start = c->s;
    if (!fxp_lit(c, "(args = (")) {
        fxp_error(c, c->s, "expected '(args = (' after the target");
        return false;
    }
    *args = fxp_seq(c, FXA_FX, ')', FX_ARG_TUPLE);
    if (!*args)
        return false;
    if (!fxp_lit(c, ", kwargs = {")) {
        /* Usually a bracket left open inside the arguments swallowed the kwargs: say so, at
         * the bracket, rather than where the parser ran out of text. */
        const char *open = unclosed_bracket(call_start, c->end);
        if (open) {
            diagnostic *dg = fxp_error(c, open, "unbalanced brackets: this '%c' is never closed", *open);
            diag_set_hint(dg, "every ( [ { in the arguments needs its ) ] }");
        } else {
            fxp_error(c, c->s, "expected ', kwargs = {...}'");
        }
        return false;
    }
    c->s--;
    *kwargs = fxp_arg(c, FXA_FX);
    if (!*kwargs)
        return false;
    if (!fxp_lit(c, ")")) {
        fxp_error(c, c->s, "unbalanced '(': expected ')' closing the argument list");
        return false;
    }
    return true;
}

static bool parse_node_line(fxp *c)
{
    const char *at = c->s;
    c->s++;   /* '%' */
    const char *ns = c->s;
    while (c->s < c->end && fx_is_ident_char(*c->s))
        c->s++;
    if (c->s == ns) {
        fxp_error(c, at, "expected a node name after '%%'");
        return false;
    }
    char *name = fx_strndup(c->p, ns, (size_t)(c->s - ns));
    if (fx_graph_lookup(c->g, name)) {
        fxp_error(c, at, "duplicate node name '%%%s'", name);
        return false;
    }
    if (!fxp_lit(c, " : ")) {
        fxp_error(c, c->s, "expected ' : ' after '%%%s'", name);
        return false;
    }
    const char *type_text;
    long nu = 0;
    if (!parse_type_and_users(c, &type_text, &nu))
        return false;
    if (!fxp_lit(c, " = ")) {
        fxp_error(c, c->s, "expected ' = ' before the opcode");
        return false;
    }
    const char *os = c->s;
    while (c->s < c->end && *c->s != '[')
        c->s++;
    fx_opcode op;
    if (!fx_opcode_from_name(os, (size_t)(c->s - os), &op) || op == FX_OP_OUTPUT) {
        diagnostic *dg = fxp_error(c, os, "bad opcode '%.*s'", (int)(c->s - os), os);
        if (dg)
            diag_set_hint(dg, "expected placeholder, get_attr, call_function, call_method or call_module");
        return false;
    }
    if (!fxp_lit(c, "[target=")) {
        fxp_error(c, c->s, "expected '[target=...]' after the opcode");
        return false;
    }
    const char *ts = c->s;
    const char *te = NULL;
    for (const char *q = c->s; q < c->end; q++)
        if (*q == ']' && (q + 1 == c->end || q[1] == '(')) {
            te = q;
            break;
        }
    if (!te) {
        fxp_error(c, ts - 1, "unbalanced '[': target is not closed by ']'");
        return false;
    }
    char *target = fx_strndup(c->p, ts, (size_t)(te - ts));
    c->s = te + 1;
    fx_arg *args = NULL, *kwargs = NULL;
    if (op == FX_OP_PLACEHOLDER || op == FX_OP_GET_ATTR) {
        if (op == FX_OP_PLACEHOLDER && fxp_lit(c, "(default=") && !(args = parse_placeholder_default(c)))
            return false;
    } else {
        if (!parse_call_args(c, &args, &kwargs))
            return false;
    }
    fxp_skip_ws(c);
    if (c->s != c->end) {
        fxp_error(c, c->s, "unexpected text after the node");
        return false;
    }
    fx_node *n = fx_node_new(c->g, name, op, target);
    n->type_text = type_text;
    n->declared_users = (int)nu;
    n->src_line = c->lineno;
    fx_node_set_args(n, args, kwargs);
    fx_graph_append(c->g, n);
    return true;
}

fx_program *fxp_parse_graph_text(const char *text, size_t len, const char *file, diag_sink *d)
{
    fx_lines lines = {0};
    fxp_split_lines(text, len, &lines);
    fx_program *p = fx_program_new(NULL);
    p->file = file ? fx_strdup(p, file) : NULL;
    p->source_form = FX_FORM_GRAPH;
    hashmap all;
    hm_init(&all);
    fxp c = {.p = p, .g = fx_program_graph(p), .d = d, .file = file, .all_names = &all};
    /* Pre-scan definitions so "used before definition" and "undefined" can be told apart. */
    for (size_t i = 0; i < lines.len; i++) {
        fx_line *l = &lines.items[i];
        size_t k = fxp_indent_of(l);
        if (k < l->len && l->s[k] == '%') {
            size_t e = k + 1;
            while (e < l->len && fx_is_ident_char(l->s[e]))
                e++;
            char *nm = fx_strndup(p, l->s + k + 1, e - k - 1);
            if (!hm_has(&all, nm))
                hm_put(&all, nm, (void *)(uintptr_t)l->no);
        }
    }
    size_t i = 0;
    while (i < lines.len && fxp_line_blank(&lines.items[i]))
        i++;
    bool returned = false;
    if (i == lines.len) {
        c.line = NULL;
        c.lineno = lines.len ? lines.items[lines.len - 1].no : 1;
        fxp_error(&c, NULL, "empty graph text: expected 'graph():'");
        goto done;
    }
    {
        fx_line *l = &lines.items[i++];
        set_line(&c, l);
        fxp_skip_ws(&c);
        if (!fxp_lit(&c, "graph(") || l->s[l->len - 1] != ':') {
            fxp_error(&c, c.s, "expected 'graph():' header");
            goto done;
        }
    }
    for (; i < lines.len && !c.failed; i++) {
        fx_line *l = &lines.items[i];
        if (fxp_line_blank(l))
            continue;
        set_line(&c, l);
        if (interrupt_pending()) {
            fxp_error(&c, c.s, "interrupted");
            break;
        }
        fxp_skip_ws(&c);
        if (returned) {
            fxp_error(&c, c.s, "unexpected text after the return line");
            break;
        }
        if (*c.s == '%') {
            if (!parse_node_line(&c) && !c.failed)
                fxp_error(&c, c.s, "could not read this node line");
        } else if (fxp_lit(&c, "return ") || (fxp_lit(&c, "return") && c.s == c.end)) {
            fx_arg *v = c.s == c.end ? fx_arg_none(p) : fxp_arg(&c, FXA_REPR);
            if (!v)
                break;
            fxp_skip_ws(&c);
            if (c.s != c.end) {
                fxp_error(&c, c.s, "unexpected text after the return value");
                break;
            }
            fx_node *out = fx_node_new(c.g, "output", FX_OP_OUTPUT, "output");
            fx_node_set_args(out, fx_arg_seq(p, FX_ARG_TUPLE, &v, NULL, 1), NULL);
            fx_graph_append(c.g, out);
            returned = true;
        } else {
            fxp_error(&c, c.s, "expected a node line ('%%name : ...') or 'return'");
        }
    }
    if (!c.failed && !returned) {
        fx_line *l = &lines.items[lines.len - 1];
        set_line(&c, l);
        diagnostic *dg = fxp_error(&c, l->s + l->len, "truncated graph text: missing 'return' line");
        if (dg)
            diag_set_hint(dg, "print(gm.graph) ends with a 'return ...' line; paste the whole output");
    }
done:
    hm_free(&all);
    vec_free(&lines);
    if (c.failed) {
        fx_program_free(p);
        return NULL;
    }
    fx_graph_recompute_users(c.g);
    for (fx_node *n = c.g->first; n; n = n->next)
        if (n->declared_users >= 0 && (size_t)n->declared_users != n->n_users) {
            diag_loc loc = {file, n->src_line, 1};
            diag_warning(d, loc, "node '%%%s' says num_users=%d but has %zu users", n->name,
                         n->declared_users, n->n_users);
        }
    if (!fx_program_check_shapes(p, d)) {
        fx_program_free(p);
        return NULL;
    }
    return p;
}
