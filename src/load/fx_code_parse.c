/* fx_code_parse.c — loader for gm.print_readable() text, and the forward-body parser that the
 * print(gm) loader shares. */
#include <string.h>

#include "base/interrupt.h"
#include "fx/fx.h"
#include "load/fx_parse_internal.h"


static void set_line(fxp *c, const fx_line *l)
{
    c->line = l->s;
    c->line_len = l->len;
    c->lineno = l->no;
    c->s = l->s;
    c->end = l->s + l->len;
}

/* Finds the first occurrence of lit at bracket depth 0 outside quotes in [s, e). */
static const char *find_top(const char *s, const char *e, const char *lit)
{
    size_t n = strlen(lit);
    int depth = 0;
    for (const char *p = s; p < e; p++) {
        char ch = *p;
        if (ch == '\'' || ch == '"') {
            p++;
            while (p < e && *p != ch) {
                if (*p == '\\')
                    p++;
                p++;
            }
            continue;
        }
        if (depth == 0 && (size_t)(e - p) >= n && memcmp(p, lit, n) == 0)
            return p;
        if (ch == '(' || ch == '[' || ch == '{')
            depth++;
        else if (ch == ')' || ch == ']' || ch == '}')
            depth--;
    }
    return NULL;
}

static fx_arg *parse_span(fxp *c, const char *s, const char *e)
{
    const char *save = c->end;
    c->s = s;
    c->end = e;
    fx_arg *a = fxp_arg(c, FXA_REPR);
    if (a) {
        fxp_skip_ws(c);
        if (c->s != c->end) {
            fxp_error(c, c->s, "unexpected text '%.*s'", (int)(c->end - c->s), c->s);
            a = NULL;
        }
    }
    c->end = save;
    return a;
}

/* "(a, b, k = v)" with c->s just after '('; fills a TUPLE of positionals and a DICT. */
static bool parse_call(fxp *c, fx_arg *first, fx_arg **args, fx_arg **kwargs)
{
    VEC(fx_arg *) pos = {0};
    VEC(fx_arg *) kv = {0};
    VEC(const char *) keys = {0};
    const char *open = c->s - 1;
    bool ok = false;
    if (first)
        vec_push(&pos, first);
    fxp_skip_ws(c);
    while (c->s < c->end && *c->s != ')') {
        const char *id = c->s;
        while (id < c->end && fx_is_ident_char(*id))
            id++;
        if (id > c->s && (size_t)(c->end - id) >= 3 && memcmp(id, " = ", 3) == 0) {
            const char *key = fx_strndup(c->p, c->s, (size_t)(id - c->s));
            c->s = id + 3;
            fx_arg *v = fxp_arg(c, FXA_REPR);
            if (!v)
                goto out;
            vec_push(&keys, key);
            vec_push(&kv, v);
        } else {
            if (kv.len) {
                fxp_error(c, c->s, "positional argument after keyword argument");
                goto out;
            }
            fx_arg *v = fxp_arg(c, FXA_REPR);
            if (!v)
                goto out;
            vec_push(&pos, v);
        }
        fxp_skip_ws(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            fxp_skip_ws(c);
        } else if (c->s < c->end && *c->s != ')') {
            fxp_error(c, c->s, "expected ',' or ')'");
            goto out;
        }
    }
    if (c->s >= c->end) {
        fxp_error(c, open, "unbalanced '(': no matching ')' on this line");
        goto out;
    }
    c->s++;
    *args = fx_arg_seq(c->p, FX_ARG_TUPLE, pos.items, NULL, pos.len);
    *kwargs = fx_arg_seq(c->p, FX_ARG_DICT, kv.items, keys.items, kv.len);
    ok = true;
out:
    vec_free(&pos);
    vec_free(&kv);
    vec_free(&keys);
    return ok;
}

static const char *const infix_ops[] = {
    " // ", " ** ", " << ", " >> ", " == ", " != ", " <= ", " >= ",
    " + ", " - ", " * ", " / ", " % ", " & ", " | ", " ^ ", " @ ", " < ", " > ",
};
static const char *const infix_names[] = {
    "floordiv", "pow", "lshift", "rshift", "eq", "ne", "le", "ge",
    "add", "sub", "mul", "truediv", "mod", "and_", "or_", "xor", "matmul", "lt", "gt",
};

/* Reads "self.a.b" / getattr(self.a, "0").b chains (the inverse of _format_target); returns
 * the position after the chain and the dotted target, or NULL if s does not start with one. */
static const char *self_chain(fx_program *p, const char *s, const char *e, char **target)
{
    int k = 0;
    const char *q = s;
    while (e - q >= 8 && memcmp(q, "getattr(", 8) == 0) {
        k++;
        q += 8;
    }
    if (e - q < 5 || memcmp(q, "self", 4) != 0 || fx_is_ident_char(q[4]))
        return NULL;
    q += 4;
    strbuf t;
    sb_init(&t);
    for (;;) {
        if (q < e && *q == '.' && q + 1 < e && fx_is_ident_char(q[1])) {
            const char *st = ++q;
            while (q < e && fx_is_ident_char(*q))
                q++;
            if (t.len)
                sb_putc(&t, '.');
            sb_putn(&t, st, (size_t)(q - st));
        } else if (k > 0 && e - q >= 4 && memcmp(q, ", \"", 3) == 0) {
            const char *st = q + 3;
            const char *en = memchr(st, '"', (size_t)(e - st));
            if (!en || en + 1 >= e || en[1] != ')')
                break;
            if (t.len)
                sb_putc(&t, '.');
            sb_putn(&t, st, (size_t)(en - st));
            q = en + 2;
            k--;
        } else {
            break;
        }
    }
    const char *res = NULL;
    if (k == 0 && t.len) {
        *target = fx_strdup(p, t.s);
        res = q;
    }
    sb_free(&t);
    return res;
}

/* Parses one node statement's right-hand side [s, e) into n's op/target/args. */
static bool parse_rhs(fxp *c, const char *s, const char *e, fx_opcode *op, char **target,
                      fx_arg **args, fx_arg **kwargs)
{
    fx_program *p = c->p;
    *kwargs = NULL;
    if (s >= e) {
        fxp_error(c, s, "expected an expression after '='");
        return false;
    }
    const char *after = self_chain(p, s, e, target);
    if (after == e) {
        *op = FX_OP_GET_ATTR;
        *args = NULL;
        return true;
    }
    if (after && *after == '(' && e[-1] == ')') {
        *op = FX_OP_CALL_MODULE;
        c->s = after + 1;
        c->end = e;
        return parse_call(c, NULL, args, kwargs) && c->s == e;
    }
    /* dotted path at the start */
    const char *q = s;
    while (q < e && (fx_is_ident_char(*q) || *q == '.'))
        q++;
    size_t plen = (size_t)(q - s);
    bool is_self = plen > 5 && memcmp(s, "self.", 5) == 0;
    const char *dot = plen ? memchr(s, '.', plen) : NULL;
    fx_node *base = NULL;
    if (dot && !is_self) {
        char *b = fx_strndup(p, s, (size_t)(dot - s));
        base = fx_graph_lookup(c->g, b);
    }
    if (plen && q == e) {
        if (is_self) {
            *op = FX_OP_GET_ATTR;
            *target = fx_strndup(p, s + 5, plen - 5);
            *args = NULL;
            return true;
        }
        if (base && !memchr(dot + 1, '.', (size_t)(e - dot - 1))) {
            *op = FX_OP_CALL_FUNCTION;
            *target = fx_strdup(p, "builtins.getattr");
            fx_arg *it[2] = {fx_arg_node(p, base), fx_arg_str(p, FX_ARG_STR, fx_strndup(p, dot + 1, (size_t)(e - dot - 1)))};
            *args = fx_arg_seq(p, FX_ARG_TUPLE, it, NULL, 2);
            return true;
        }
    }
    if (plen && q < e && *q == '(' && e[-1] == ')' && find_top(q + 1, e - 1, ")") == NULL) {
        c->s = q + 1;
        c->end = e;
        if (is_self) {
            *op = FX_OP_CALL_MODULE;
            *target = fx_strndup(p, s + 5, plen - 5);
            return parse_call(c, NULL, args, kwargs) && c->s == e;
        }
        if (base && !memchr(dot + 1, '.', (size_t)(q - dot - 1))) {
            *op = FX_OP_CALL_METHOD;
            *target = fx_strndup(p, dot + 1, (size_t)(q - dot - 1));
            return parse_call(c, fx_arg_node(p, base), args, kwargs) && c->s == e;
        }
        *op = FX_OP_CALL_FUNCTION;
        *target = dot ? fx_strndup(p, s, plen) : arena_printf(&p->arena, "builtins.%.*s", (int)plen, s);
        return parse_call(c, NULL, args, kwargs) && c->s == e;
    }
    *op = FX_OP_CALL_FUNCTION;
    /* unary operators */
    if ((*s == '-' || *s == '~' || *s == '+') && s + 1 < e && (fx_is_ident_char(s[1]) || s[1] == '(') &&
        !(s[1] >= '0' && s[1] <= '9')) {
        fx_arg *a = parse_span(c, s + 1, e);
        if (!a)
            return false;
        *target = fx_strdup(p, *s == '-' ? "operator.neg" : *s == '~' ? "operator.invert" : "operator.pos");
        *args = fx_arg_seq(p, FX_ARG_TUPLE, &a, NULL, 1);
        return true;
    }
    /* binary operators: the first top-level operator */
    const char *best = NULL;
    size_t bi = 0;
    for (size_t i = 0; i < sizeof infix_ops / sizeof *infix_ops; i++) {
        const char *f = find_top(s, e, infix_ops[i]);
        if (f && (!best || f < best)) {
            best = f;
            bi = i;
        }
    }
    if (best) {
        fx_arg *it[2];
        it[0] = parse_span(c, s, best);
        if (!it[0])
            return false;
        it[1] = parse_span(c, best + strlen(infix_ops[bi]), e);
        if (!it[1])
            return false;
        *target = arena_printf(&p->arena, "operator.%s", infix_names[bi]);
        *args = fx_arg_seq(p, FX_ARG_TUPLE, it, NULL, 2);
        return true;
    }
    /* subscript a[b] */
    if (e[-1] == ']') {
        const char *br = find_top(s, e, "[");
        if (br && br > s) {
            fx_arg *it[2];
            it[0] = parse_span(c, s, br);
            if (!it[0])
                return false;
            it[1] = parse_span(c, br + 1, e - 1);
            if (!it[1])
                return false;
            *target = fx_strdup(p, "operator.getitem");
            *args = fx_arg_seq(p, FX_ARG_TUPLE, it, NULL, 2);
            return true;
        }
    }
    fxp_error(c, s, "cannot read this statement as an FX node");
    return false;
}

/* Forward signature "def forward(self, a: "f32[2]", b = 1):" → placeholders. */
static bool parse_signature(fxp *c)
{
    if (!fxp_lit(c, "def forward(self")) {
        fxp_error(c, c->s, "expected 'def forward(self, ...):'");
        return false;
    }
    if (c->end - c->s < 2 || (memcmp(c->end - 2, "):", 2) != 0 && !find_top(c->s, c->end, ") -> "))) {
        fxp_error(c, c->end, "unbalanced '(': expected '):' at the end of the signature");
        return false;
    }
    const char *e = c->end - 2;
    const char *ret_type = NULL;
    {
        const char *arrow = find_top(c->s, c->end, ") -> ");
        if (arrow && c->end[-1] == ':') {
            ret_type = fx_strndup(c->p, arrow + 5, (size_t)(c->end - 1 - arrow - 5));
            e = arrow;
        }
    }
    c->ret_type = ret_type;
    while (c->s < e) {
        if (!fxp_lit(c, ", ")) {
            fxp_error(c, c->s, "expected ', ' between parameters");
            return false;
        }
        const char *ns = c->s;
        while (c->s < e && (fx_is_ident_char(*c->s) || *c->s == '*'))
            c->s++;
        if (c->s == ns) {
            fxp_error(c, ns, "expected a parameter name");
            return false;
        }
        char *name = fx_strndup(c->p, ns, (size_t)(c->s - ns));
        if (fx_graph_lookup(c->g, name)) {
            fxp_error(c, ns, "duplicate parameter '%s'", name);
            return false;
        }
        fx_value *val = NULL;
        if (fxp_lit(c, ": \"")) {
            const char *as = c->s;
            while (c->s < e && *c->s != '"')
                c->s++;
            if (c->s >= e) {
                fxp_error(c, as - 1, "unterminated annotation string");
                return false;
            }
            val = fxp_value_parse(c->p, as, (size_t)(c->s - as));
            c->s++;
        }
        const char *type_text = NULL;
        if (fxp_lit(c, " : ")) {
            const char *ts = c->s;
            const char *te = find_top(ts, e, ", ");
            const char *eq = find_top(ts, te ? te : e, " = ");
            te = eq ? eq : te ? te : e;
            type_text = fx_strndup(c->p, ts, (size_t)(te - ts));
            c->s = te;
        }
        fx_arg *def = NULL;
        if (fxp_lit(c, " = ")) {
            const char *ds = c->s;
            const char *de = find_top(ds, e, ", ");
            if (!de)
                de = e;
            def = parse_span(c, ds, de);
            c->end = e + 2;
            if (!def)
                return false;
            c->s = de;
        }
        fx_node *n = fx_node_new(c->g, name, FX_OP_PLACEHOLDER, name);
        n->meta.val = val;
        n->type_text = type_text;
        n->src_line = c->lineno;
        if (def)
            fx_node_set_args(n, fx_arg_seq(c->p, FX_ARG_TUPLE, &def, NULL, 1), NULL);
        fx_graph_append(c->g, n);
    }
    return true;
}

/* Parses a forward() at lines[*i] (the def line, indent def_indent) and its body; stops at
 * the first line after the return. */
bool fxp_parse_forward(fxp *c, const fx_lines *lines, size_t *i, size_t def_indent, bool verbose)
{
    const fx_line *l = &lines->items[*i];
    set_line(c, l);
    c->s += def_indent;
    if (!parse_signature(c))
        return false;
    (*i)++;
    const char *source = NULL, *annotation = NULL;
    int group = 0;
    size_t body = def_indent + 4;
    for (; *i < lines->len; (*i)++) {
        l = &lines->items[*i];
        if (fxp_line_blank(l))
            continue;
        set_line(c, l);
        if (interrupt_pending()) {
            fxp_error(c, c->s, "interrupted");
            return false;
        }
        size_t ind = fxp_indent_of(l);
        if (ind != body) {
            fxp_error(c, l->s + ind, ind < body ? "truncated forward(): missing 'return' line"
                                                : "unexpected indentation");
            return false;
        }
        c->s += ind;
        if (*c->s == '#') {
            if (fxp_lit(c, "# File: ")) {
                source = fx_strndup(c->p, c->s, (size_t)(c->end - c->s));
                annotation = NULL;
                group++;
            } else if (fxp_lit(c, "# Annotation: ")) {
                const char *f = find_top(c->s, c->end, " File: ");
                if (!f)
                    f = c->end;
                annotation = fx_strndup(c->p, c->s, (size_t)(f - c->s));
                source = f + 7 <= c->end ? fx_strndup(c->p, f + 7, (size_t)(c->end - f - 7)) : NULL;
                group++;
            } else if (fxp_lit(c, "# No stacktrace found for following nodes")) {
                source = NULL;
                annotation = NULL;
                group++;
            }
            continue;
        }
        if (fxp_lit(c, "return ")) {
            fx_arg *v = parse_span(c, c->s, c->end);
            if (!v)
                return false;
            fx_node *out = fx_node_new(c->g, "output", FX_OP_OUTPUT, "output");
            fx_node_set_args(out, fx_arg_seq(c->p, FX_ARG_TUPLE, &v, NULL, 1), NULL);
            out->type_text = c->ret_type;
            out->src_line = c->lineno;
            fx_graph_append(c->g, out);
            (*i)++;
            return true;
        }
        const char *stmt_end = find_top(c->s, c->end, ";  ");
        if (!stmt_end)
            stmt_end = c->end;
        const char *ns = c->s;
        while (c->s < stmt_end && fx_is_ident_char(*c->s))
            c->s++;
        if (c->s == ns) {
            fxp_error(c, ns, "expected 'name = ...' or 'return ...'");
            return false;
        }
        char *name = fx_strndup(c->p, ns, (size_t)(c->s - ns));
        if (fx_graph_lookup(c->g, name)) {
            fxp_error(c, ns, "duplicate node name '%s'", name);
            return false;
        }
        fx_value *val = NULL;
        if (fxp_lit(c, ": \"")) {
            const char *as = c->s;
            while (c->s < stmt_end && *c->s != '"')
                c->s++;
            if (c->s >= stmt_end) {
                fxp_error(c, as - 1, "unterminated annotation string");
                return false;
            }
            val = fxp_value_parse(c->p, as, (size_t)(c->s - as));
            c->s++;
        }
        const char *type_text = NULL;
        if (fxp_lit(c, " : ")) {
            const char *ts = c->s;
            const char *te = find_top(ts, stmt_end, " = ");
            if (!te) {
                fxp_error(c, ts, "expected ' = ' after the type");
                return false;
            }
            type_text = fx_strndup(c->p, ts, (size_t)(te - ts));
            c->s = te;
        }
        if (!fxp_lit(c, " = ")) {
            fxp_error(c, c->s, "expected ' = ' after '%s'", name);
            return false;
        }
        fx_opcode op;
        char *target = NULL;
        fx_arg *args = NULL, *kwargs = NULL;
        const char *rhs = c->s;
        if (!parse_rhs(c, rhs, stmt_end, &op, &target, &args, &kwargs)) {
            fxp_error(c, rhs, "cannot read this statement as an FX node");
            return false;
        }
        fx_node *n = fx_node_new(c->g, name, op, target);
        fx_node_set_args(n, args, kwargs);
        n->meta.val = val;
        n->type_text = type_text;
        n->src_line = c->lineno;
        if (verbose) {
            n->meta.source = source;
            n->meta.annotation = annotation;
            n->meta.trace_group = group;
        }
        fx_graph_append(c->g, n);
    }
    set_line(c, &lines->items[lines->len - 1]);
    fxp_error(c, c->end, "truncated forward(): missing 'return' line");
    return false;
}

static bool parse_class_header(fxp *c, const fx_line *l, size_t indent, const char **name)
{
    set_line(c, l);
    c->s += indent;
    if (!fxp_lit(c, "class ")) {
        fxp_error(c, c->s, "expected 'class <Name>(torch.nn.Module):'");
        return false;
    }
    const char *ns = c->s;
    while (c->s < c->end && fx_is_ident_char(*c->s))
        c->s++;
    *name = fx_strndup(c->p, ns, (size_t)(c->s - ns));
    if (c->s == ns || !fxp_lit(c, "(torch.nn.Module):") || c->s != c->end) {
        fxp_error(c, c->s, "expected 'class <Name>(torch.nn.Module):'");
        return false;
    }
    return true;
}

static bool parse_class(fxp *c, const fx_lines *lines, size_t *i, size_t indent, fx_module *m)
{
    (*i)++;   /* header already read */
    while (*i < lines->len && fxp_line_blank(&lines->items[*i]))
        (*i)++;
    if (*i >= lines->len) {
        set_line(c, &lines->items[lines->len - 1]);
        fxp_error(c, c->end, "truncated class: missing 'def forward'");
        return false;
    }
    if (fxp_indent_of(&lines->items[*i]) != indent + 4) {
        set_line(c, &lines->items[*i]);
        fxp_error(c, c->s, "expected 'def forward' indented by %zu", indent + 4);
        return false;
    }
    c->g = fx_module_ensure_graph(m);
    if (!fxp_parse_forward(c, lines, i, indent + 4, true))
        return false;
    for (;;) {
        while (*i < lines->len && fxp_line_blank(&lines->items[*i]))
            (*i)++;
        if (*i >= lines->len)
            return true;
        const fx_line *l = &lines->items[*i];
        size_t ind = fxp_indent_of(l);
        if (ind <= indent)
            return true;
        if (ind != indent + 4) {
            set_line(c, l);
            fxp_error(c, l->s + ind, "unexpected indentation");
            return false;
        }
        const char *name;
        if (!parse_class_header(c, l, ind, &name))
            return false;
        if (fx_module_child(m, name)) {
            fxp_error(c, l->s + ind + 6, "duplicate subgraph class '%s'", name);
            return false;
        }
        fx_module *ch = fx_module_add_child(m, name, "GraphModule", NULL);
        if (!parse_class(c, lines, i, ind, ch))
            return false;
    }
}

static void prescan_names(fx_program *p, const fx_lines *lines, hashmap *all)
{
    for (size_t i = 0; i < lines->len; i++) {
        const fx_line *l = &lines->items[i];
        size_t k = fxp_indent_of(l), e = k;
        while (e < l->len && fx_is_ident_char(l->s[e]))
            e++;
        if (e > k && e < l->len && (l->s[e] == ':' || (l->len - e >= 3 && memcmp(l->s + e, " = ", 3) == 0)))
        {
            char *nm = fx_strndup(p, l->s + k, e - k);
            if (!hm_has(all, nm))
                hm_put(all, nm, (void *)(uintptr_t)l->no);
        }
    }
}

void fxp_prescan_names(fx_program *p, const fx_lines *lines, hashmap *all)
{
    prescan_names(p, lines, all);
}

fx_program *fxp_parse_code_text(const char *text, size_t len, const char *file, diag_sink *d)
{
    fx_lines lines = {0};
    fxp_split_lines(text, len, &lines);
    fx_program *p = fx_program_new(NULL);
    p->file = file ? fx_strdup(p, file) : NULL;
    p->source_form = FX_FORM_CODE;
    hashmap all;
    hm_init(&all);
    prescan_names(p, &lines, &all);
    fxp c = {.p = p, .g = fx_program_graph(p), .d = d, .file = file, .all_names = &all};
    size_t i = 0;
    while (i < lines.len && fxp_line_blank(&lines.items[i]))
        i++;
    const char *name;
    if (i == lines.len) {
        c.lineno = lines.len ? lines.items[lines.len - 1].no : 1;
        fxp_error(&c, NULL, "empty text: expected 'class GraphModule(torch.nn.Module):'");
    } else if (parse_class_header(&c, &lines.items[i], 0, &name)) {
        p->root->name = p->root->type = name;
        bool ok = parse_class(&c, &lines, &i, 0, p->root);
        if (!ok && !c.failed)
            fxp_error(&c, c.s, "could not read this line");   /* safety net: never half-load */
        if (ok && i < lines.len) {
            set_line(&c, &lines.items[i]);
            fxp_error(&c, c.s, "unexpected text after the module");
        }
    }
    hm_free(&all);
    vec_free(&lines);
    if (c.failed || !fx_program_check_shapes(p, d)) {
        fx_program_free(p);
        return NULL;
    }
    fx_program_refresh(p);
    return p;
}
