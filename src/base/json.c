/* json.c — strict RFC 8259 JSON parser (recursive descent, depth-limited) into an arena DOM. */
#include "base/json.h"
#include "base/utf8.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/vec.h"

#define JSON_DEFAULT_DEPTH 512
/* Objects with more members than this get a hash index; smaller ones are scanned. */
#define JSON_INDEX_MIN 8
/* Source lines longer than this are not copied into diagnostics (minified JSON is one line). */
#define JSON_MAX_SOURCE_LINE 400

typedef struct parser {
    arena *a;
    const char *s;
    size_t len, pos;
    int line;
    size_t line_start;
    int depth, max_depth;
    bool allow_nan_inf;
    const char *filename;
    diag_sink *d;
} parser;

static void perr_at(parser *p, size_t at, const char *fmt, const char *detail)
{
    /* Column is counted in bytes from the start of the line holding `at`. */
    size_t ls = p->line_start;
    int line = p->line;
    if (at < ls) { /* only happens for errors reported at an earlier position on the same line */
        at = ls;
    }
    if (at > p->len) at = p->len;
    diag_loc loc = { p->filename, line, (int)(at - ls) + 1 };
    diagnostic *dg = diag_error(p->d, loc, fmt, detail ? detail : "");
    size_t le = ls;
    while (le < p->len && p->s[le] != '\n' && p->s[le] != '\r') le++;
    if (le - ls <= JSON_MAX_SOURCE_LINE) diag_set_source(dg, p->s + ls, le - ls);
}

static void perr(parser *p, const char *fmt, const char *detail) { perr_at(p, p->pos, fmt, detail); }

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c == '\n') {
            p->pos++;
            p->line++;
            p->line_start = p->pos;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            p->pos++;
        } else {
            break;
        }
    }
}

static json_value *new_value(parser *p, json_kind k)
{
    json_value *v = arena_alloc(p->a, sizeof *v);
    v->kind = k;
    v->line = p->line;
    v->col = (int)(p->pos - p->line_start) + 1;
    return v;
}

static bool match_word(parser *p, const char *w)
{
    size_t n = strlen(w);
    if (p->len - p->pos >= n && memcmp(p->s + p->pos, w, n) == 0) {
        p->pos += n;
        return true;
    }
    return false;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool read_hex4(parser *p, size_t at, unsigned *out)
{
    if (p->len - at < 4) return false;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p->s[at + i]);
        if (h < 0) return false;
        v = v << 4 | (unsigned)h;
    }
    *out = v;
    return true;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Parses a string starting at the opening quote; the decoded text goes to the arena. */
static bool parse_string(parser *p, const char **out, size_t *out_len)
{
    size_t start = ++p->pos; /* after '"' */
    /* First pass: validate and find the end, so the output buffer is allocated once. */
    size_t i = start;
    while (1) {
        if (i >= p->len) {
            p->pos = i;
            perr(p, "unterminated string%s", NULL);
            return false;
        }
        unsigned char c = (unsigned char)p->s[i];
        if (c == '"') break;
        if (c == '\\') {
            if (i + 1 >= p->len) { p->pos = i; perr(p, "unterminated string%s", NULL); return false; }
            char e = p->s[i + 1];
            if (e == 'u') {
                unsigned cp;
                if (!read_hex4(p, i + 2, &cp)) { p->pos = i; perr(p, "invalid \\u escape%s", NULL); return false; }
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    unsigned lo;
                    if (p->len - i < 12 || p->s[i + 6] != '\\' || p->s[i + 7] != 'u' || !read_hex4(p, i + 8, &lo) ||
                        lo < 0xDC00 || lo > 0xDFFF) {
                        p->pos = i;
                        perr(p, "unpaired UTF-16 surrogate in \\u escape%s", NULL);
                        return false;
                    }
                    i += 12;
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    p->pos = i;
                    perr(p, "unpaired UTF-16 surrogate in \\u escape%s", NULL);
                    return false;
                } else {
                    i += 6;
                }
            } else if (strchr("\"\\/bfnrt", e) && e != '\0') {
                i += 2;
            } else {
                p->pos = i;
                perr(p, "invalid escape sequence in string%s", NULL);
                return false;
            }
        } else if (c < 0x20) {
            p->pos = i;
            perr(p, "control character in string (must be escaped)%s", NULL);
            return false;
        } else {
            size_t n = utf8_seq_len((const unsigned char *)p->s + i, p->len - i);
            if (n == 0) { p->pos = i; perr(p, "invalid UTF-8 in string%s", NULL); return false; }
            i += n;
        }
    }
    size_t end = i;
    char *o = arena_alloc(p->a, end - start + 1);
    size_t n = 0;
    for (i = start; i < end;) {
        char c = p->s[i];
        if (c != '\\') { o[n++] = c; i++; continue; }
        char e = p->s[i + 1];
        switch (e) {
        case 'b': o[n++] = '\b'; i += 2; break;
        case 'f': o[n++] = '\f'; i += 2; break;
        case 'n': o[n++] = '\n'; i += 2; break;
        case 'r': o[n++] = '\r'; i += 2; break;
        case 't': o[n++] = '\t'; i += 2; break;
        case 'u': {
            unsigned cp, lo;
            read_hex4(p, i + 2, &cp);
            i += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                read_hex4(p, i + 2, &lo);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
            n += put_utf8(o + n, cp);
            break;
        }
        default: o[n++] = e; i += 2; break;
        }
    }
    o[n] = '\0';
    p->pos = end + 1;
    *out = o;
    *out_len = n;
    return true;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static json_value *parse_number(parser *p)
{
    json_value *v = new_value(p, JSON_NUMBER);
    size_t start = p->pos, i = p->pos;
    bool integral = true;
    if (i < p->len && p->s[i] == '-') i++;
    if (p->allow_nan_inf && p->len - i >= 8 && memcmp(p->s + i, "Infinity", 8) == 0) {
        i += 8;
        v->u.num.d = p->s[start] == '-' ? -INFINITY : INFINITY;
        v->u.num.text = arena_strndup(p->a, p->s + start, i - start);
        p->pos = i;
        return v;
    }
    if (i >= p->len || !is_digit(p->s[i])) { p->pos = i; perr(p, "invalid number: expected a digit%s", NULL); return NULL; }
    if (p->s[i] == '0') {
        i++;
        if (i < p->len && is_digit(p->s[i])) { p->pos = i; perr(p, "invalid number: leading zero%s", NULL); return NULL; }
    } else {
        while (i < p->len && is_digit(p->s[i])) i++;
    }
    if (i < p->len && p->s[i] == '.') {
        integral = false;
        i++;
        if (i >= p->len || !is_digit(p->s[i])) { p->pos = i; perr(p, "invalid number: expected a digit after '.'%s", NULL); return NULL; }
        while (i < p->len && is_digit(p->s[i])) i++;
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        integral = false;
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-')) i++;
        if (i >= p->len || !is_digit(p->s[i])) { p->pos = i; perr(p, "invalid number: expected a digit in the exponent%s", NULL); return NULL; }
        while (i < p->len && is_digit(p->s[i])) i++;
    }
    /* The copy is NUL-terminated, so strtoll/strtod cannot run past the literal. */
    char *text = arena_strndup(p->a, p->s + start, i - start);
    v->u.num.text = text;
    v->u.num.d = strtod(text, NULL);
    if (integral) {
        errno = 0;
        long long ll = strtoll(text, NULL, 10);
        if (errno == 0) {
            v->u.num.is_int = true;
            v->u.num.i = (int64_t)ll;
        }
    }
    p->pos = i;
    return v;
}

static json_value *parse_value(parser *p);

static void build_index(parser *p, json_value *v)
{
    size_t cap = 16;
    while (cap < v->u.obj.len * 2) cap <<= 1;
    uint32_t *idx = arena_alloc(p->a, cap * sizeof *idx);
    for (size_t m = 0; m < v->u.obj.len; m++) {
        size_t h = hm_hash(v->u.obj.members[m].key) & (cap - 1);
        while (idx[h] != 0) {
            /* Duplicate key: the later member replaces the earlier one (Python semantics). */
            if (strcmp(v->u.obj.members[idx[h] - 1].key, v->u.obj.members[m].key) == 0) break;
            h = (h + 1) & (cap - 1);
        }
        idx[h] = (uint32_t)(m + 1);
    }
    v->u.obj.index = idx;
    v->u.obj.index_cap = cap;
}

static json_value *parse_object(parser *p)
{
    json_value *v = new_value(p, JSON_OBJECT);
    p->pos++; /* '{' */
    VEC(json_member) ms = {0};
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == '}') {
        p->pos++;
        return v;
    }
    while (1) {
        skip_ws(p);
        if (p->pos >= p->len || p->s[p->pos] != '"') {
            perr(p, p->pos >= p->len ? "unexpected end of input: expected an object key%s"
                                     : "expected a string key in object%s", NULL);
            goto fail;
        }
        json_member m;
        if (!parse_string(p, &m.key, &m.key_len)) goto fail;
        skip_ws(p);
        if (p->pos >= p->len || p->s[p->pos] != ':') { perr(p, "expected ':' after object key%s", NULL); goto fail; }
        p->pos++;
        m.value = parse_value(p);
        if (!m.value) goto fail;
        vec_push(&ms, m);
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') { p->pos++; continue; }
        if (p->pos < p->len && p->s[p->pos] == '}') { p->pos++; break; }
        perr(p, p->pos >= p->len ? "unexpected end of input: expected ',' or '}'%s" : "expected ',' or '}' in object%s", NULL);
        goto fail;
    }
    v->u.obj.len = ms.len;
    v->u.obj.members = arena_alloc(p->a, ms.len * sizeof *ms.items);
    memcpy(v->u.obj.members, ms.items, ms.len * sizeof *ms.items);
    vec_free(&ms);
    if (v->u.obj.len > JSON_INDEX_MIN) build_index(p, v);
    return v;
fail:
    vec_free(&ms);
    return NULL;
}

static json_value *parse_array(parser *p)
{
    json_value *v = new_value(p, JSON_ARRAY);
    p->pos++; /* '[' */
    VEC(json_value *) items = {0};
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == ']') {
        p->pos++;
        return v;
    }
    while (1) {
        json_value *it = parse_value(p);
        if (!it) goto fail;
        vec_push(&items, it);
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') { p->pos++; continue; }
        if (p->pos < p->len && p->s[p->pos] == ']') { p->pos++; break; }
        perr(p, p->pos >= p->len ? "unexpected end of input: expected ',' or ']'%s" : "expected ',' or ']' in array%s", NULL);
        goto fail;
    }
    v->u.arr.len = items.len;
    v->u.arr.items = arena_alloc(p->a, items.len * sizeof *items.items);
    memcpy(v->u.arr.items, items.items, items.len * sizeof *items.items);
    vec_free(&items);
    return v;
fail:
    vec_free(&items);
    return NULL;
}

static json_value *parse_value(parser *p)
{
    skip_ws(p);
    if (p->pos >= p->len) {
        perr(p, "unexpected end of input: expected a value%s", NULL);
        return NULL;
    }
    char c = p->s[p->pos];
    json_value *v;
    switch (c) {
    case '{':
    case '[':
        if (p->depth >= p->max_depth) {
            char num[32];
            snprintf(num, sizeof num, "%d", p->max_depth);
            perr(p, "nesting deeper than %s levels", num);
            return NULL;
        }
        p->depth++;
        v = c == '{' ? parse_object(p) : parse_array(p);
        p->depth--;
        return v;
    case '"':
        v = new_value(p, JSON_STRING);
        return parse_string(p, &v->u.str.s, &v->u.str.len) ? v : NULL;
    case 't':
    case 'f':
    case 'n':
        v = new_value(p, c == 'n' ? JSON_NULL : JSON_BOOL);
        if (match_word(p, "true")) { v->u.boolean = true; return v; }
        if (match_word(p, "false")) return v;
        if (match_word(p, "null")) return v;
        break;
    case 'N':
        if (p->allow_nan_inf) {
            v = new_value(p, JSON_NUMBER);
            if (match_word(p, "NaN")) {
                v->u.num.text = "NaN";
                v->u.num.d = NAN;
                return v;
            }
        }
        break;
    case 'I':
        if (p->allow_nan_inf) return parse_number(p);
        break;
    default:
        if (c == '-' || is_digit(c)) return parse_number(p);
        break;
    }
    char what[16];
    unsigned char uc = (unsigned char)c;
    if (uc >= 0x20 && uc < 0x7f) snprintf(what, sizeof what, "'%c'", c);
    else snprintf(what, sizeof what, "byte 0x%02x", uc);
    perr(p, "unexpected %s: expected a value", what);
    return NULL;
}

json_value *json_parse(arena *a, const char *text, size_t len, const json_options *opts, diag_sink *d)
{
    parser p = {0};
    p.a = a;
    p.s = text;
    p.len = len;
    p.line = 1;
    p.d = d;
    p.max_depth = opts && opts->max_depth > 0 ? opts->max_depth : JSON_DEFAULT_DEPTH;
    p.allow_nan_inf = opts && opts->allow_nan_inf;
    p.filename = opts ? opts->filename : NULL;
    /* A UTF-8 byte order mark is not JSON (RFC 8259 §8.1) but tolerated by most readers. */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) p.pos = p.line_start = 3;
    json_value *root = parse_value(&p);
    if (!root) return NULL;
    skip_ws(&p);
    if (p.pos < p.len) {
        perr(&p, "unexpected data after the JSON value%s", NULL);
        return NULL;
    }
    return root;
}

json_value *json_get(const json_value *obj, const char *key)
{
    if (!obj || obj->kind != JSON_OBJECT || !key) return NULL;
    if (obj->u.obj.index) {
        size_t cap = obj->u.obj.index_cap;
        size_t h = hm_hash(key) & (cap - 1);
        while (obj->u.obj.index[h] != 0) {
            const json_member *m = &obj->u.obj.members[obj->u.obj.index[h] - 1];
            if (strcmp(m->key, key) == 0) return m->value;
            h = (h + 1) & (cap - 1);
        }
        return NULL;
    }
    for (size_t i = obj->u.obj.len; i-- > 0;)
        if (strcmp(obj->u.obj.members[i].key, key) == 0) return obj->u.obj.members[i].value;
    return NULL;
}

json_value *json_at(const json_value *arr, size_t i)
{
    if (!arr || arr->kind != JSON_ARRAY || i >= arr->u.arr.len) return NULL;
    return arr->u.arr.items[i];
}

size_t json_len(const json_value *v)
{
    if (!v) return 0;
    if (v->kind == JSON_ARRAY) return v->u.arr.len;
    if (v->kind == JSON_OBJECT) return v->u.obj.len;
    return 0;
}

const char *json_str(const json_value *v) { return v && v->kind == JSON_STRING ? v->u.str.s : NULL; }

bool json_int(const json_value *v, int64_t *out)
{
    if (!v || v->kind != JSON_NUMBER || !v->u.num.is_int) return false;
    *out = v->u.num.i;
    return true;
}

bool json_num(const json_value *v, double *out)
{
    if (!v || v->kind != JSON_NUMBER) return false;
    *out = v->u.num.d;
    return true;
}

bool json_is_null(const json_value *v) { return v && v->kind == JSON_NULL; }

const char *json_kind_name(json_kind k)
{
    static const char *const names[] = { "null", "boolean", "number", "string", "array", "object" };
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}
