/* onnx_lex.c — the ONNX text syntax's lexer: blanks and comments, identifiers, strings, numbers
 * (with inf/nan), and the errors that name the place and what was expected. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/interrupt.h"
#include "base/strbuf.h"
#include "onnx/onnx_pb.h"
#include "onnx/onnx_parse_internal.h"

/* ---------------------------------------------------------------------------------------- */
/* errors */

static void describe_here(parser *p, strbuf *sb)
{
    if (p->pos >= p->len) {
        sb_puts(sb, "end of input");
        return;
    }
    unsigned char c = (unsigned char)p->s[p->pos];
    if (isalpha(c) || c == '_') {
        size_t e = p->pos;
        while (e < p->len && e - p->pos < 40 && (isalnum((unsigned char)p->s[e]) || p->s[e] == '_'))
            e++;
        sb_printf(sb, "'%.*s'", (int)(e - p->pos), p->s + p->pos);
    } else if (isdigit(c) || c == '-') {
        size_t e = p->pos + 1;
        while (e < p->len && e - p->pos < 40 && (isalnum((unsigned char)p->s[e]) || p->s[e] == '.'))
            e++;
        sb_printf(sb, "'%.*s'", (int)(e - p->pos), p->s + p->pos);
    } else if (c == '"') {
        sb_puts(sb, "a string");
    } else if (isspace(c)) {
        sb_puts(sb, c == '\n' ? "end of line" : "whitespace");
    } else if (c < 32 || c >= 127) {
        sb_printf(sb, "byte 0x%02x", c);
    } else {
        sb_printf(sb, "'%c'", c);
    }
}

diagnostic *oxp_report_at(parser *p, size_t at, diag_severity sev, const char *msg)
{
    int line = 1;
    size_t ls = 0;
    for (size_t i = 0; i < at && i < p->len; i++)
        if (p->s[i] == '\n') {
            line++;
            ls = i + 1;
        }
    size_t le = ls;
    while (le < p->len && p->s[le] != '\n')
        le++;
    diag_loc loc = {p->file, line, (int)(at - ls) + 1};
    diagnostic *dg = diag_report(p->d, sev, loc, "%s", msg);
    diag_set_source(dg, p->s + ls, le - ls);
    return dg;
}

_Noreturn void oxp_fail_msg_hint(parser *p, const char *msg, const char *hint)
{
    diagnostic *dg = oxp_report_at(p, p->pos, DIAG_ERROR, msg);
    if (hint)
        diag_set_hint(dg, "%s", hint);
    longjmp(p->fail, 1);
}

_Noreturn void oxp_fail_msg(parser *p, const char *msg) { oxp_fail_msg_hint(p, msg, NULL); }

_Noreturn void oxp_fail_expected_hint(parser *p, const char *what, const char *hint)
{
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "expected %s, found ", what);
    describe_here(p, &sb);
    diagnostic *dg = oxp_report_at(p, p->pos, DIAG_ERROR, sb.s);
    if (hint)
        diag_set_hint(dg, "%s", hint);
    sb_free(&sb);
    longjmp(p->fail, 1);
}

_Noreturn void oxp_fail_expected(parser *p, const char *what)
{
    oxp_fail_expected_hint(p, what, NULL);
}


void *oxp_alist_slot(parser *p, alist *l, size_t elsz)
{
    if (l->len == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 4;
        void *n = arena_alloc(p->a, nc * elsz);
        if (l->len)
            memcpy(n, l->items, l->len * elsz);
        l->items = n;
        l->cap = nc;
    }
    return (char *)l->items + elsz * l->len++;
}


/* ---------------------------------------------------------------------------------------- */
/* lexer */

void oxp_skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r') {
            p->pos++;
        } else if (c == '#') {
            while (p->pos < p->len && p->s[p->pos] != '\n')
                p->pos++;
        } else {
            break;
        }
    }
}

int oxp_peekc(parser *p)
{
    oxp_skip_ws(p);
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

bool oxp_match(parser *p, char c)
{
    if (oxp_peekc(p) == (unsigned char)c) {
        p->pos++;
        return true;
    }
    return false;
}

void oxp_expect(parser *p, char c)
{
    if (!oxp_match(p, c)) {
        char what[8] = {'\'', c, '\'', 0};
        oxp_fail_expected(p, what);
    }
}

bool oxp_id_start(int c) { return c >= 0 && (isalpha(c) || c == '_'); }
static bool id_char(int c) { return c >= 0 && (isalnum(c) || c == '_'); }

/* Length of the identifier at the current position (after whitespace), 0 if none. */
size_t oxp_peek_id(parser *p)
{
    if (!oxp_id_start(oxp_peekc(p)))
        return 0;
    size_t e = p->pos + 1;
    while (e < p->len && id_char((unsigned char)p->s[e]))
        e++;
    return e - p->pos;
}

bool oxp_peek_keyword(parser *p, const char *kw)
{
    size_t n = oxp_peek_id(p);
    return n && n == strlen(kw) && memcmp(p->s + p->pos, kw, n) == 0;
}

char *oxp_parse_id(parser *p, const char *what)
{
    size_t n = oxp_peek_id(p);
    if (!n)
        oxp_fail_expected(p, what);
    char *r = arena_strndup(p->a, p->s + p->pos, n);
    p->pos += n;
    return r;
}

/* A "..." string with \x -> x escapes. The result is NUL-terminated; *out_len (if non-NULL)
 * receives the byte length, which may include embedded NULs. */
char *oxp_parse_str(parser *p, size_t *out_len)
{
    if (oxp_peekc(p) != '"')
        oxp_fail_expected(p, "a string");
    size_t start = p->pos++;
    size_t n = 0;
    for (size_t i = p->pos;; i++) {
        if (i >= p->len) {
            p->pos = start;
            oxp_fail_msg(p, "unterminated string");
        }
        if (p->s[i] == '"')
            break;
        if (p->s[i] == '\\') {
            i++;
            if (i >= p->len) {
                p->pos = start;
                oxp_fail_msg(p, "unterminated string");
            }
        }
        n++;
    }
    char *r = arena_alloc(p->a, n + 1);
    size_t k = 0;
    while (p->s[p->pos] != '"') {
        if (p->s[p->pos] == '\\')
            p->pos++;
        r[k++] = p->s[p->pos++];
    }
    p->pos++;
    r[k] = 0;
    if (out_len)
        *out_len = k;
    return r;
}

char *oxp_parse_qid(parser *p, const char *what)
{
    if (oxp_peekc(p) == '"')
        return oxp_parse_str(p, NULL);
    return oxp_parse_id(p, what);
}


/* Case-insensitive inf/infinity/nan at q, not followed by an identifier character. */
size_t oxp_special_float_len(parser *p, size_t q)
{
    static const char *const words[] = {"infinity", "inf", "nan"};
    for (int w = 0; w < 3; w++) {
        size_t n = strlen(words[w]);
        if (q + n <= p->len && strncasecmp(p->s + q, words[w], n) == 0 &&
            !(q + n < p->len && id_char((unsigned char)p->s[q + n])))
            return n;
    }
    return 0;
}

bool oxp_at_number(parser *p)
{
    int c = oxp_peekc(p);
    if (c >= 0 && isdigit(c))
        return true;
    if (c == '-' && p->pos + 1 < p->len) {
        unsigned char d = (unsigned char)p->s[p->pos + 1];
        return isdigit(d) || oxp_special_float_len(p, p->pos + 1) > 0;
    }
    return false;
}

void oxp_parse_number(parser *p, literal *lit)
{
    oxp_skip_ws(p);
    size_t start = p->pos, q = p->pos;
    bool neg = false;
    if (q < p->len && p->s[q] == '-') {
        neg = true;
        q++;
    }
    size_t sp = oxp_special_float_len(p, q);
    if (sp) {
        char buf[16];
        snprintf(buf, sizeof buf, "%s%.*s", neg ? "-" : "", (int)sp, p->s + q);
        lit->kind = LIT_FLOAT;
        lit->f = strtod(buf, NULL);
        p->pos = q + sp;
        return;
    }
    if (q >= p->len || !isdigit((unsigned char)p->s[q]))
        oxp_fail_expected(p, "a number");
    bool is_float = false, dot = false;
    while (q < p->len && (isdigit((unsigned char)p->s[q]) || (p->s[q] == '.' && !dot))) {
        if (p->s[q] == '.')
            dot = is_float = true;
        q++;
    }
    if (q < p->len && (p->s[q] == 'e' || p->s[q] == 'E')) {
        is_float = true;
        q++;
        if (q < p->len && (p->s[q] == '+' || p->s[q] == '-'))
            q++;
        if (q >= p->len || !isdigit((unsigned char)p->s[q])) {
            p->pos = q;
            oxp_fail_expected(p, "exponent digits");
        }
        while (q < p->len && isdigit((unsigned char)p->s[q]))
            q++;
    }
    size_t n = q - start;
    char small[64];
    char *buf = n < sizeof small ? small : arena_alloc(p->a, n + 1);
    memcpy(buf, p->s + start, n);
    buf[n] = 0;
    errno = 0;
    if (is_float) {
        lit->kind = LIT_FLOAT;
        lit->f = strtod(buf, NULL);
        if (errno == ERANGE && isinf(lit->f))
            oxp_fail_msg(p, "float literal out of range");
    } else {
        lit->kind = LIT_INT;
        lit->i = strtoll(buf, NULL, 10);
        lit->u_only = false;
        if (errno == ERANGE) {
            errno = 0;
            lit->u = neg ? 0 : strtoull(buf, NULL, 10);
            if (neg || errno == ERANGE)
                oxp_fail_msg(p, "integer literal out of range");
            lit->u_only = true;
        } else {
            lit->u = (uint64_t)lit->i;
        }
        lit->f = lit->u_only ? (double)lit->u : (double)lit->i;
    }
    p->pos = q;
}

void oxp_parse_literal(parser *p, literal *lit, const char *what)
{
    memset(lit, 0, sizeof *lit);
    if (oxp_peekc(p) == '"') {
        lit->kind = LIT_STRING;
        lit->s = oxp_parse_str(p, &lit->slen);
    } else if (oxp_at_number(p) || oxp_special_float_len(p, p->pos)) {
        oxp_parse_number(p, lit);
    } else {
        oxp_fail_expected(p, what);
    }
}

int64_t oxp_parse_int(parser *p, const char *what)
{
    if (!oxp_at_number(p))
        oxp_fail_expected(p, what);
    size_t at = p->pos;
    literal lit;
    oxp_parse_number(p, &lit);
    if (lit.kind != LIT_INT || lit.u_only) {
        p->pos = at;
        oxp_fail_expected(p, what);
    }
    return lit.i;
}

void oxp_enter(parser *p)
{
    if (++p->depth > MAX_DEPTH)
        oxp_fail_msg(p, "nesting too deep");
}
