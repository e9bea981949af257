/* fx_arg_parse.c — parsing what the FX printers write: argument trees, value annotations, lines. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "load/fx_parse_internal.h"

/* ---- parsing ---------------------------------------------------------------------------- */

static diagnostic *fxp_vreport(fxp *c, diag_severity sev, const char *at, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    int col = at && at >= c->line && at <= c->line + c->line_len ? (int)(at - c->line) + 1 : 1;
    diag_loc loc = {c->file, c->lineno, col};
    diagnostic *dg = diag_report(c->d, sev, loc, "%s", msg);
    if (dg && c->line)
        diag_set_source(dg, c->line, c->line_len);
    return dg;
}

diagnostic *fxp_error(fxp *c, const char *at, const char *fmt, ...)
{
    if (c->failed)
        return NULL;   /* one error per parse keeps the report readable */
    va_list ap;
    va_start(ap, fmt);
    diagnostic *dg = fxp_vreport(c, DIAG_ERROR, at, fmt, ap);
    va_end(ap);
    c->failed = true;
    return dg;
}

diagnostic *fxp_warning(fxp *c, const char *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diagnostic *dg = fxp_vreport(c, DIAG_WARNING, at, fmt, ap);
    va_end(ap);
    return dg;
}

/* Errors for a name that is not (yet) defined, with a hint saying where it is. */
static void undefined_name(fxp *c, const char *at, const char *sigil, const char *name)
{
    uintptr_t def_line = c->all_names ? (uintptr_t)hm_get(c->all_names, name) : 0;
    diagnostic *dg;
    if (def_line) {
        dg = fxp_error(c, at, "'%s%s' is used before it is defined", sigil, name);
        if (dg)
            diag_set_hint(dg, "it is defined on line %lu; a node can only use nodes defined above it",
                          (unsigned long)def_line);
    } else {
        dg = fxp_error(c, at, "undefined name '%s%s'", sigil, name);
        if (dg)
            diag_set_hint(dg, "no line of this text defines '%s'", name);
    }
}

void fxp_skip_ws(fxp *c)
{
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\t'))
        c->s++;
}

bool fxp_lit(fxp *c, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(c->end - c->s) >= n && memcmp(c->s, lit, n) == 0) {
        c->s += n;
        return true;
    }
    return false;
}

static bool span_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* Python string literal at c->s (quote char already checked). */
static fx_arg *parse_py_string(fxp *c)
{
    const char *start = c->s;
    char q = *c->s++;
    strbuf sb;
    sb_init(&sb);
    while (c->s < c->end && *c->s != q) {
        char ch = *c->s++;
        if (ch == '\\' && c->s < c->end) {
            char e = *c->s++;
            switch (e) {
            case 'n': sb_putc(&sb, '\n'); break;
            case 't': sb_putc(&sb, '\t'); break;
            case 'r': sb_putc(&sb, '\r'); break;
            case 'x':
                if (c->end - c->s >= 2 && isxdigit((unsigned char)c->s[0]) && isxdigit((unsigned char)c->s[1])) {
                    char hex[3] = {c->s[0], c->s[1], 0};
                    sb_putc(&sb, (char)strtol(hex, NULL, 16));
                    c->s += 2;
                } else {
                    sb_putc(&sb, '\\');
                    sb_putc(&sb, 'x');
                }
                break;
            default: sb_putc(&sb, e); break;
            }
        } else {
            sb_putc(&sb, ch);
        }
    }
    if (c->s >= c->end) {
        sb_free(&sb);
        fxp_error(c, start, "unterminated string literal");
        return NULL;
    }
    c->s++;
    fx_arg *a = fx_arg_str(c->p, FX_ARG_STR, sb.s);
    sb_free(&sb);
    return a;
}

/* Scans a bare token up to a depth-0 ',', ')', ']', '}' (brackets and quotes balanced). */
static const char *scan_token(fxp *c)
{
    const char *p = c->s;
    int depth = 0;
    while (p < c->end) {
        char ch = *p;
        if (ch == '\'' || ch == '"') {
            p++;
            while (p < c->end && *p != ch) {
                if (*p == '\\' && p + 1 < c->end)   /* a final backslash escapes nothing */
                    p++;
                p++;
            }
            if (p < c->end)
                p++;
            continue;
        }
        if (ch == '(' || ch == '[' || ch == '{')
            depth++;
        else if (ch == ')' || ch == ']' || ch == '}') {
            if (depth == 0)
                break;
            depth--;
        } else if (ch == ',' && depth == 0)
            break;
        p++;
    }
    /* a token never ends in spaces (", " separators) */
    while (p > c->s && p[-1] == ' ')
        p--;
    return p;
}

static bool parse_number(fxp *c, const char *s, size_t n, fx_arg **out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (strcmp(buf, "inf") == 0 || strcmp(buf, "-inf") == 0 || strcmp(buf, "nan") == 0) {
        *out = fx_arg_float(c->p, strcmp(buf, "nan") == 0 ? NAN : buf[0] == '-' ? -INFINITY : INFINITY);
        return true;
    }
    const char *q = buf[0] == '-' ? buf + 1 : buf;
    if (!isdigit((unsigned char)*q))
        return false;
    bool is_float = false;
    for (const char *r = q; *r; r++) {
        if (*r == '.' || *r == 'e' || *r == 'E')
            is_float = true;
        else if (!isdigit((unsigned char)*r) && !((*r == '-' || *r == '+') && (r[-1] == 'e' || r[-1] == 'E')))
            return false;
    }
    char *endp;
    errno = 0;
    if (is_float) {
        double v = strtod(buf, &endp);
        if (*endp)
            return false;
        *out = fx_arg_float(c->p, v);
    } else {
        long long v = strtoll(buf, &endp, 10);
        if (*endp || errno == ERANGE)
            return false;   /* out of int64: keep the text (opaque) */
        *out = fx_arg_int(c->p, v);
    }
    return true;
}

static bool is_device_text(const char *s, size_t n)
{
    static const char *const devs[] = {"cpu", "cuda", "meta", "mps", "xpu", "hpu", "xla"};
    size_t base = n;
    const char *colon = memchr(s, ':', n);
    if (colon) {
        base = (size_t)(colon - s);
        if (base + 1 >= n)
            return false;
        for (const char *r = colon + 1; r < s + n; r++)
            if (!isdigit((unsigned char)*r))
                return false;
    }
    for (size_t i = 0; i < sizeof devs / sizeof *devs; i++)
        if (span_is(s, base, devs[i]))
            return true;
    return false;
}

static bool is_ident(const char *s, size_t n)
{
    if (!n || isdigit((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!fx_is_ident_char(s[i]))
            return false;
    return true;
}

/* Classifies a bare token: constants, dtypes, layouts, devices, node names. */
static fx_arg *classify_token(fxp *c, const char *s, size_t n, fxa_mode mode)
{
    fx_arg *a = NULL;
    if (span_is(s, n, "None"))
        return fx_arg_none(c->p);
    if (span_is(s, n, "True") || span_is(s, n, "False"))
        return fx_arg_bool(c->p, s[0] == 'T');
    if (span_is(s, n, "Ellipsis") || span_is(s, n, "..."))
        return fx_arg_ellipsis(c->p);
    if (parse_number(c, s, n, &a))
        return a;
    if (n > 6 && memcmp(s, "torch.", 6) == 0) {
        fx_dtype dt = fx_dtype_from_torch_name(s, n);
        if (dt != FX_DT_UNKNOWN && is_ident(s + 6, n - 6))
            return fx_arg_dtype(c->p, dt);
        if ((n > 13 && memcmp(s + n - 7, "_format", 7) == 0 && is_ident(s + 6, n - 6)) ||
            span_is(s, n, "torch.channels_last") || span_is(s, n, "torch.channels_last_3d")) {
            char *t = fx_strndup(c->p, s + 6, n - 6);
            return fx_arg_str(c->p, FX_ARG_MEMFMT, t);
        }
        if (span_is(s, n, "torch.strided") || span_is(s, n, "torch.sparse_coo") ||
            span_is(s, n, "torch.sparse_csr") || span_is(s, n, "torch._mkldnn") ||
            span_is(s, n, "torch.jagged")) {
            char *t = fx_strndup(c->p, s + 6, n - 6);
            return fx_arg_str(c->p, FX_ARG_LAYOUT, t);
        }
    }
    if (n > 14 && memcmp(s, "device(type='", 13) == 0 && s[n - 1] == ')') {
        /* device(type='cuda', index=0) */
        const char *q = memchr(s + 13, '\'', n - 13);
        if (q) {
            strbuf sb;
            sb_init(&sb);
            sb_putn(&sb, s + 13, (size_t)(q - (s + 13)));
            const char *idx = NULL;
            for (const char *r = q; r + 6 <= s + n && !idx; r++)
                if (memcmp(r, "index=", 6) == 0)
                    idx = r;
            if (idx) {
                sb_putc(&sb, ':');
                const char *e = idx + 6;
                while (e < s + n && isdigit((unsigned char)*e))
                    sb_putc(&sb, *e++);
            }
            a = fx_arg_str(c->p, FX_ARG_DEVICE, sb.s);
            sb_free(&sb);
            return a;
        }
    }
    if (mode == FXA_REPR && is_ident(s, n)) {
        char *name = fx_strndup(c->p, s, n);
        fx_node *node = fx_graph_lookup(c->g, name);
        if (node)
            return fx_arg_node(c->p, node);
        undefined_name(c, s, "", name);
        return NULL;
    }
    if (mode == FXA_FX && is_device_text(s, n))
        return fx_arg_str(c->p, FX_ARG_DEVICE, fx_strndup(c->p, s, n));
    char *t = fx_strndup(c->p, s, n);
    return fx_arg_str(c->p, mode == FXA_FX ? FX_ARG_STR : FX_ARG_OPAQUE, t);
}

fx_arg *fxp_seq(fxp *c, fxa_mode mode, char close, fx_arg_kind kind)
{
    VEC(fx_arg *) items = {0};
    const char *open = c->s - 1;
    fx_arg *res = NULL;
    fxp_skip_ws(c);
    while (c->s < c->end && *c->s != close) {
        fx_arg *it = fxp_arg(c, mode);
        if (!it)
            goto out;
        vec_push(&items, it);
        fxp_skip_ws(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            fxp_skip_ws(c);
        } else if (c->s < c->end && *c->s != close) {
            fxp_error(c, c->s, "expected ',' or '%c'", close);
            goto out;
        }
    }
    if (c->s >= c->end) {
        diagnostic *dg = fxp_error(c, open, "unbalanced '%c': no matching '%c' on this line", *open, close);
        if (dg)
            diag_set_hint(dg, "every node is one line; check that its brackets are closed");
        goto out;
    }
    c->s++;
    res = fx_arg_seq(c->p, kind, items.items, NULL, items.len);
out:
    vec_free(&items);
    return res;
}

static fx_arg *parse_dict(fxp *c, fxa_mode mode)
{
    VEC(fx_arg *) items = {0};
    VEC(const char *) keys = {0};
    const char *open = c->s - 1;
    fx_arg *res = NULL;
    fxp_skip_ws(c);
    while (c->s < c->end && *c->s != '}') {
        const char *ks = c->s;
        char *key;
        if (*c->s == '\'' || *c->s == '"') {
            fx_arg *k = parse_py_string(c);
            if (!k)
                goto out;
            key = (char *)k->u.s;
        } else {
            while (c->s < c->end && *c->s != ':' && *c->s != '}' && *c->s != ',')
                c->s++;
            key = fx_strndup(c->p, ks, (size_t)(c->s - ks));
        }
        if (!fxp_lit(c, ":")) {
            fxp_error(c, c->s, "expected ':' after dict key");
            goto out;
        }
        fxp_skip_ws(c);
        fx_arg *v = fxp_arg(c, mode);
        if (!v)
            goto out;
        vec_push(&keys, key);
        vec_push(&items, v);
        fxp_skip_ws(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            fxp_skip_ws(c);
        } else if (c->s < c->end && *c->s != '}') {
            fxp_error(c, c->s, "expected ',' or '}'");
            goto out;
        }
    }
    if (c->s >= c->end) {
        fxp_error(c, open, "unbalanced '{': no matching '}' on this line");
        goto out;
    }
    c->s++;
    res = fx_arg_seq(c->p, FX_ARG_DICT, items.items, keys.items, items.len);
out:
    vec_free(&items);
    vec_free(&keys);
    return res;
}

fx_arg *fxp_arg(fxp *c, fxa_mode mode)
{
    fxp_skip_ws(c);
    if (c->s >= c->end) {
        fxp_error(c, c->s, "expected an argument, found end of line");
        return NULL;
    }
    if (c->depth > 200) {
        fxp_error(c, c->s, "arguments nested too deeply");
        return NULL;
    }
    c->depth++;
    fx_arg *a = NULL;
    char ch = *c->s;
    if (ch == '(') {
        c->s++;
        a = fxp_seq(c, mode, ')', FX_ARG_TUPLE);
    } else if (ch == '[') {
        c->s++;
        a = fxp_seq(c, mode, ']', FX_ARG_LIST);
    } else if (ch == '{') {
        c->s++;
        a = parse_dict(c, mode);
    } else if (ch == '\'' || ch == '"') {
        a = parse_py_string(c);
    } else if (ch == ')' || ch == ']' || ch == '}' || ch == ',') {
        fxp_error(c, c->s, "unexpected '%c'", ch);
    } else if (ch == '%') {
        const char *st = ++c->s;
        while (c->s < c->end && fx_is_ident_char(*c->s))
            c->s++;
        char *name = fx_strndup(c->p, st, (size_t)(c->s - st));
        fx_node *n = *name ? fx_graph_lookup(c->g, name) : NULL;
        if (n)
            a = fx_arg_node(c->p, n);
        else if (!*name)
            fxp_error(c, st - 1, "expected a node name after '%%'");
        else
            undefined_name(c, st - 1, "%", name);
    } else if (fxp_lit(c, "slice(")) {
        fx_arg *t = fxp_seq(c, FXA_REPR, ')', FX_ARG_TUPLE);
        if (t && t->u.seq.len == 3)
            a = fx_arg_seq(c->p, FX_ARG_SLICE, t->u.seq.items, NULL, 3);
        else if (t)
            fxp_error(c, c->s - 1, "slice() takes 3 items here, got %zu", t->u.seq.len);
    } else {
        const char *st = c->s;
        const char *e = scan_token(c);
        if (e == st) {
            fxp_error(c, st, "expected an argument");
        } else {
            c->s = e;
            a = classify_token(c, st, (size_t)(e - st), mode);
        }
    }
    c->depth--;
    return c->failed ? NULL : a;
}

/* ---- value annotations ---------------------------------------------------------------- */

fx_value *fxp_value_parse(fx_program *p, const char *s, size_t n)
{
    if (n > 5 && memcmp(s, "Sym(", 4) == 0 && s[n - 1] == ')') {
        fx_value *v = fx_value_new(p, FX_VAL_SYM);
        v->text = fx_strndup(p, s + 4, n - 5);
        return v;
    }
    const char *br = memchr(s, '[', n);
    fx_dtype dt = br ? fx_dtype_from_abbr(s, (size_t)(br - s)) : FX_DT_UNKNOWN;
    if (dt != FX_DT_UNKNOWN && s[n - 1] == ']' && !memchr(br + 1, '[', (size_t)(s + n - br - 1))) {
        fx_value *v = fx_value_new(p, FX_VAL_TENSOR);
        v->dtype = dt;
        const char *q = br + 1, *e = s + n - 1;
        size_t rank = 0;
        if (q < e) {
            rank = 1;
            for (const char *r = q; r < e; r++)
                rank += *r == ',';
        }
        v->rank = rank;
        v->sizes = fx_alloc(p, (rank ? rank : 1) * sizeof *v->sizes);
        for (size_t i = 0; i < rank; i++) {
            const char *comma = memchr(q, ',', (size_t)(e - q));
            const char *de = comma ? comma : e;
            v->sizes[i] = fx_strndup(p, q, (size_t)(de - q));
            q = de + (comma ? 2 : 0);
            if (q > e)
                q = e;
        }
        return v;
    }
    fx_value *v = fx_value_new(p, FX_VAL_OPAQUE);
    v->text = fx_strndup(p, s, n);
    return v;
}

/* ---- lines ------------------------------------------------------------------------------ */

void fxp_split_lines(const char *text, size_t len, fx_lines *out)
{
    size_t i = 0;
    int no = 1;
    while (i <= len) {
        const char *nl = i < len ? memchr(text + i, '\n', len - i) : NULL;
        size_t e = nl ? (size_t)(nl - text) : len;
        if (!nl && e == i && i == len && out->len > 0 && i > 0 && text[i - 1] == '\n') {
            /* text ending in '\n' has no empty line after it, as Python's splitlines */
            break;
        }
        fx_line l = {text + i, e - i, no++};
        if (l.len && l.s[l.len - 1] == '\r')
            l.len--;
        vec_push(out, l);
        if (!nl)
            break;
        i = e + 1;
    }
}

size_t fxp_indent_of(const fx_line *l)
{
    size_t k = 0;
    while (k < l->len && l->s[k] == ' ')
        k++;
    return k;
}

bool fxp_line_blank(const fx_line *l)
{
    return fxp_indent_of(l) == l->len;
}
