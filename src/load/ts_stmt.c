/* ts_stmt.c — TorchScript IR text → lines → statements (outputs, their types, the op, attributes,
 * arguments and source location), and the type and literal forms statements use. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/strbuf.h"
#include "fx/fx_control.h"
#include "load/fx_weight_source.h"
#include "load/ts_load.h"
#include "load/ts_load_internal.h"

/* ---- lines -------------------------------------------------------------------------------- */

void tsl_err(loader *L, const ts_line *ln, const char *msg)
{
    diagnostic *dg = diag_error(L->d, (diag_loc){L->file, ln ? ln->lineno : 0, ln ? (int)ln->indent + 1 : 0},
                                "%s", msg);
    if (ln)
        diag_set_source(dg, ln->s - ln->indent, ln->len + ln->indent);
    L->failed = true;
}

void tsl_split_lines(loader *L, const char *text, size_t len)
{
    size_t cap = 0;
    int lineno = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        lineno++;
        size_t k = i;
        while (k < j && (text[k] == ' ' || text[k] == '\t'))
            k++;
        size_t e = j;
        while (e > k && (text[e - 1] == '\r' || text[e - 1] == ' '))
            e--;
        if (e > k) {
            xgrow((void **)&L->lines, &cap, L->n_lines + 1, sizeof *L->lines);
            L->lines[L->n_lines++] = (ts_line){text + k, e - k, k - i, lineno};
        }
        i = j + 1;
    }
}

char tsl_type_kind(const char *t, size_t n)
{
    if (n >= 6 && strncmp(t, "Tensor", 6) == 0 && (n == 6 || t[6] == '?'))
        return 'T';
    if (n >= 3 && strncmp(t, "int", 3) == 0 && (n == 3 || t[3] == '?'))
        return 'i';
    if (n >= 5 && strncmp(t, "float", 5) == 0 && (n == 5 || t[5] == '?'))
        return 'f';
    if (n >= 4 && strncmp(t, "bool", 4) == 0 && (n == 4 || t[4] == '?'))
        return 'b';
    if (n == 3 && strncmp(t, "str", 3) == 0)
        return 's';
    if (n == 8 && strncmp(t, "NoneType", 8) == 0)
        return 'n';
    if (n >= 2 && t[n - 2] == '[' && t[n - 1] == ']')
        return 'l';
    if (n >= 3 && t[n - 3] == '[' && t[n - 1] == '?')
        return 'l';
    return 'o';
}

/* ---- statement parsing ------------------------------------------------------------------------ */

bool tsl_is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Reads "%name" at *i; returns arena name or NULL. */
const char *tsl_read_value(loader *L, const char *s, size_t n, size_t *i)
{
    if (*i >= n || s[*i] != '%')
        return NULL;
    size_t st = ++*i;
    while (*i < n && tsl_is_name_char(s[*i]))
        ++*i;
    if (*i == st)
        return NULL;
    return fx_strndup(L->p, s + st, *i - st);
}

/* Reads a type up to a top-level ',' or ')' (or end); returns its span. */
void tsl_read_type(const char *s, size_t n, size_t *i, size_t *ts, size_t *te)
{
    int depth = 0;
    *ts = *i;
    while (*i < n) {
        char c = s[*i];
        if (c == '(' || c == '[')
            depth++;
        else if ((c == ')' || c == ']') && depth > 0)
            depth--;
        else if ((c == ',' || c == ')') && depth == 0)
            break;
        else if (c == ' ' && depth == 0 && *i + 2 < n && s[*i + 1] == '=' && s[*i + 2] == ' ')
            break;
        ++*i;
    }
    *te = *i;
}

void tsl_skip_sp(const char *s, size_t n, size_t *i)
{
    while (*i < n && s[*i] == ' ')
        ++*i;
}

/* The length of the statement text before its trailing source range (" # file:line:col"),
 * which goes to st->src_file / src_line. */
static size_t strip_source_range(loader *L, const char *s, size_t n, stmt *st)
{
    for (size_t k = n; k >= 3; k--) {
        if (s[k - 3] == ' ' && s[k - 2] == '#' && s[k - 1] == ' ') {
            const char *r = s + k;
            size_t rn = n - k;
            size_t c2 = rn, c1;
            while (c2 > 0 && r[c2 - 1] != ':')
                c2--;
            c1 = c2 ? c2 - 1 : 0;
            while (c1 > 0 && r[c1 - 1] != ':')
                c1--;
            if (c2 && c1) {
                st->src_file = fx_strndup(L->p, r, c1 - 1);
                st->src_line = atoi(r + c1);
            }
            return k - 3;
        }
        if (s[k - 1] == '"' || s[k - 1] == ']')
            break;   /* inside an attribute: no source range */
    }
    return n;
}

/* The outputs "%a : T, %b : U" at *i; false after reporting. */
static bool parse_outputs(loader *L, const ts_line *ln, const char *s, size_t n, size_t *pi, stmt *st)
{
    size_t i = *pi;
    while (i < n && s[i] == '%') {
        if (st->n_out == MAX_OUTS) {
            tsl_err(L, ln, "too many outputs");
            return false;
        }
        const char *name = tsl_read_value(L, s, n, &i);
        size_t ts, te;
        if (!name || i + 3 > n || strncmp(s + i, " : ", 3) != 0) {
            tsl_err(L, ln, "expected '%name : type'");
            return false;
        }
        i += 3;
        tsl_read_type(s, n, &i, &ts, &te);
        st->out_tk[st->n_out] = tsl_type_kind(s + ts, te - ts);
        if (st->n_out == 0) {
            st->type0 = s + ts;
            st->type0_len = te - ts;
        }
        st->out[st->n_out++] = name;
        if (i < n && s[i] == ',') {
            i++;
            tsl_skip_sp(s, n, &i);
        }
    }
    *pi = i;
    return true;
}

/* The attributes "[name="w"]" / "[value=...]" after the operator name, from the '[' at *i to
 * just past the ']'; false after reporting. */
static bool parse_attrs(loader *L, const ts_line *ln, const char *s, size_t n, size_t *pi, stmt *st)
{
    size_t i = *pi;
    i++;
    while (i < n && s[i] != ']') {
        tsl_skip_sp(s, n, &i);
        size_t as = i;
        while (i < n && s[i] != '=' && s[i] != ']')
            i++;
        if (i >= n || s[i] != '=')
            break;
        bool is_name = i - as == 4 && strncmp(s + as, "name", 4) == 0;
        i++;
        strbuf v;
        sb_init(&v);
        bool quoted = i < n && s[i] == '"';
        if (quoted) {
            i++;
            while (i < n && s[i] != '"') {
                if (s[i] == '\\' && i + 1 < n) {
                    char e = s[++i];
                    sb_putc(&v, e == 'n' ? '\n' : e == 't' ? '\t' : e);
                } else {
                    sb_putc(&v, s[i]);
                }
                i++;
            }
            i++;
        } else {
            int depth = 0;
            while (i < n && !(depth == 0 && (s[i] == ',' || s[i] == ']'))) {
                if (s[i] == '(' || s[i] == '[')
                    depth++;
                else if (s[i] == ')' || s[i] == ']')
                    depth--;
                sb_putc(&v, s[i++]);
            }
        }
        const char *val = fx_strndup(L->p, v.s ? v.s : "", v.len);
        sb_free(&v);
        if (is_name) {
            st->attr_name = val;
        } else {
            st->attr_value = val;
            st->value_is_str = quoted;
            st->has_value = true;
        }
        if (i < n && s[i] == ',')
            i++;
    }
    if (i >= n) {
        tsl_err(L, ln, "unterminated attribute list");
        return false;
    }
    *pi = i + 1;
    return true;
}

bool tsl_parse_stmt(loader *L, const ts_line *ln, stmt *st)
{
    memset(st, 0, sizeof *st);
    st->ln = ln;
    const char *s = ln->s;
    size_t n = ln->len, i = 0;
    n = strip_source_range(L, s, n, st);
    if (!parse_outputs(L, ln, s, n, &i, st))
        return false;
    tsl_skip_sp(s, n, &i);
    if (i >= n || s[i] != '=') {
        tsl_err(L, ln, "expected '=' in a TorchScript statement");
        return false;
    }
    i++;
    tsl_skip_sp(s, n, &i);
    size_t ks = i;
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == ':'))
        i++;
    if (i == ks) {
        tsl_err(L, ln, "expected an operator name");
        return false;
    }
    st->kind = fx_strndup(L->p, s + ks, i - ks);
    if (i < n && s[i] == '[' && !parse_attrs(L, ln, s, n, &i, st))
        return false;
    if (i >= n || s[i] != '(') {
        tsl_err(L, ln, "expected '(' after the operator name");
        return false;
    }
    i++;
    tsl_skip_sp(s, n, &i);
    while (i < n && s[i] != ')') {
        if (st->n_args == MAX_ARGS) {
            tsl_err(L, ln, "too many arguments");
            return false;
        }
        const char *a = tsl_read_value(L, s, n, &i);
        if (!a) {
            tsl_err(L, ln, "expected a %value argument");
            return false;
        }
        st->args[st->n_args++] = a;
        tsl_skip_sp(s, n, &i);
        if (i < n && s[i] == ',') {
            i++;
            tsl_skip_sp(s, n, &i);
        }
    }
    if (i >= n) {
        tsl_err(L, ln, "expected ')'");
        return false;
    }
    return true;
}

/* A Python literal as an argument (ts_parse_attr_decl checked it). */
fx_arg *tsl_attr_value(fx_program *p, const char *v)
{
    if (!strcmp(v, "True") || !strcmp(v, "False"))
        return fx_arg_bool(p, v[0] == 'T');
    if (!strcmp(v, "None"))
        return fx_arg_none(p);
    if (v[0] == '\'' || v[0] == '"')
        return fx_arg_str(p, FX_ARG_STR, fx_strndup(p, v + 1, strlen(v) - 2));
    char *end;
    long long i = strtoll(v, &end, 10);
    if (!*end)
        return fx_arg_int(p, i);
    return fx_arg_float(p, strtod(v, NULL));
}
