/* onnx_parse.c — recursive-descent parser for the ONNX text syntax into protobuf-c messages. */
#include "onnx/onnx_parse.h"

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

/* Deep nesting (graphs in attributes, seq(seq(...))) recurses; cap it so hostile input cannot
 * overflow the C stack. */
#define MAX_DEPTH 256

typedef struct parser {
    const char *s;
    size_t len, pos;
    const char *file;
    diag_sink *d;
    arena *a;
    int depth;
    jmp_buf fail;   /* every allocation lives in the arena, so unwinding by longjmp leaks nothing */
} parser;

/* ---------------------------------------------------------------------------------------- */
/* dtypes */

static const char *const dtype_names[] = {
    "undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool",
    "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16",
    "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4", "int4",
    "float4e2m1", "float8e8m0", "uint2", "int2",
};
#define N_DTYPES ((int)(sizeof dtype_names / sizeof dtype_names[0]))

static int dtype_code(const char *name, size_t n)
{
    for (int i = 1; i < N_DTYPES; i++)
        if (strlen(dtype_names[i]) == n && memcmp(dtype_names[i], name, n) == 0)
            return i;
    return 0;
}

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

static diagnostic *report_at(parser *p, size_t at, diag_severity sev, const char *msg)
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

static _Noreturn void fail_msg_hint(parser *p, const char *msg, const char *hint)
{
    diagnostic *dg = report_at(p, p->pos, DIAG_ERROR, msg);
    if (hint)
        diag_set_hint(dg, "%s", hint);
    longjmp(p->fail, 1);
}

static _Noreturn void fail_msg(parser *p, const char *msg) { fail_msg_hint(p, msg, NULL); }

static _Noreturn void fail_expected_hint(parser *p, const char *what, const char *hint)
{
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "expected %s, found ", what);
    describe_here(p, &sb);
    diagnostic *dg = report_at(p, p->pos, DIAG_ERROR, sb.s);
    if (hint)
        diag_set_hint(dg, "%s", hint);
    sb_free(&sb);
    longjmp(p->fail, 1);
}

static _Noreturn void fail_expected(parser *p, const char *what)
{
    fail_expected_hint(p, what, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* arena-backed growable arrays (plain vec.h would leak on the longjmp error path) */

typedef struct alist {
    void *items;
    size_t len, cap;
} alist;

static void *alist_slot(parser *p, alist *l, size_t elsz)
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

#define APUSH(p, l, T, v) (*(T *)alist_slot((p), (l), sizeof(T)) = (v))

#define NEWMSG(p, T, initfn)                                                                   \
    ({                                                                                         \
        T *m_ = arena_alloc((p)->a, sizeof(T));                                                \
        initfn(m_);                                                                            \
        m_;                                                                                    \
    })

/* ---------------------------------------------------------------------------------------- */
/* lexer */

static void skip_ws(parser *p)
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

static int peekc(parser *p)
{
    skip_ws(p);
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static bool match(parser *p, char c)
{
    if (peekc(p) == (unsigned char)c) {
        p->pos++;
        return true;
    }
    return false;
}

static void expect(parser *p, char c)
{
    if (!match(p, c)) {
        char what[8] = {'\'', c, '\'', 0};
        fail_expected(p, what);
    }
}

static bool id_start(int c) { return c >= 0 && (isalpha(c) || c == '_'); }
static bool id_char(int c) { return c >= 0 && (isalnum(c) || c == '_'); }

/* Length of the identifier at the current position (after whitespace), 0 if none. */
static size_t peek_id(parser *p)
{
    if (!id_start(peekc(p)))
        return 0;
    size_t e = p->pos + 1;
    while (e < p->len && id_char((unsigned char)p->s[e]))
        e++;
    return e - p->pos;
}

static bool peek_keyword(parser *p, const char *kw)
{
    size_t n = peek_id(p);
    return n && n == strlen(kw) && memcmp(p->s + p->pos, kw, n) == 0;
}

static char *parse_id(parser *p, const char *what)
{
    size_t n = peek_id(p);
    if (!n)
        fail_expected(p, what);
    char *r = arena_strndup(p->a, p->s + p->pos, n);
    p->pos += n;
    return r;
}

/* A "..." string with \x -> x escapes. The result is NUL-terminated; *out_len (if non-NULL)
 * receives the byte length, which may include embedded NULs. */
static char *parse_str(parser *p, size_t *out_len)
{
    if (peekc(p) != '"')
        fail_expected(p, "a string");
    size_t start = p->pos++;
    size_t n = 0;
    for (size_t i = p->pos;; i++) {
        if (i >= p->len) {
            p->pos = start;
            fail_msg(p, "unterminated string");
        }
        if (p->s[i] == '"')
            break;
        if (p->s[i] == '\\') {
            i++;
            if (i >= p->len) {
                p->pos = start;
                fail_msg(p, "unterminated string");
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

static char *parse_qid(parser *p, const char *what)
{
    if (peekc(p) == '"')
        return parse_str(p, NULL);
    return parse_id(p, what);
}

typedef enum lit_kind { LIT_INT, LIT_FLOAT, LIT_STRING } lit_kind;
typedef struct literal {
    lit_kind kind;
    int64_t i;
    uint64_t u;          /* for uint64 tensor data: the magnitude when it does not fit int64 */
    bool u_only;         /* i is not valid: value > INT64_MAX */
    double f;
    char *s;
    size_t slen;
} literal;

/* Case-insensitive inf/infinity/nan at q, not followed by an identifier character. */
static size_t special_float_len(parser *p, size_t q)
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

static bool at_number(parser *p)
{
    int c = peekc(p);
    if (c >= 0 && isdigit(c))
        return true;
    if (c == '-' && p->pos + 1 < p->len) {
        unsigned char d = (unsigned char)p->s[p->pos + 1];
        return isdigit(d) || special_float_len(p, p->pos + 1) > 0;
    }
    return false;
}

static void parse_number(parser *p, literal *lit)
{
    skip_ws(p);
    size_t start = p->pos, q = p->pos;
    bool neg = false;
    if (q < p->len && p->s[q] == '-') {
        neg = true;
        q++;
    }
    size_t sp = special_float_len(p, q);
    if (sp) {
        char buf[16];
        snprintf(buf, sizeof buf, "%s%.*s", neg ? "-" : "", (int)sp, p->s + q);
        lit->kind = LIT_FLOAT;
        lit->f = strtod(buf, NULL);
        p->pos = q + sp;
        return;
    }
    if (q >= p->len || !isdigit((unsigned char)p->s[q]))
        fail_expected(p, "a number");
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
            fail_expected(p, "exponent digits");
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
            fail_msg(p, "float literal out of range");
    } else {
        lit->kind = LIT_INT;
        lit->i = strtoll(buf, NULL, 10);
        lit->u_only = false;
        if (errno == ERANGE) {
            errno = 0;
            lit->u = neg ? 0 : strtoull(buf, NULL, 10);
            if (neg || errno == ERANGE)
                fail_msg(p, "integer literal out of range");
            lit->u_only = true;
        } else {
            lit->u = (uint64_t)lit->i;
        }
        lit->f = lit->u_only ? (double)lit->u : (double)lit->i;
    }
    p->pos = q;
}

static void parse_literal(parser *p, literal *lit, const char *what)
{
    memset(lit, 0, sizeof *lit);
    if (peekc(p) == '"') {
        lit->kind = LIT_STRING;
        lit->s = parse_str(p, &lit->slen);
    } else if (at_number(p) || special_float_len(p, p->pos)) {
        parse_number(p, lit);
    } else {
        fail_expected(p, what);
    }
}

static int64_t parse_int(parser *p, const char *what)
{
    if (!at_number(p))
        fail_expected(p, what);
    size_t at = p->pos;
    literal lit;
    parse_number(p, &lit);
    if (lit.kind != LIT_INT || lit.u_only) {
        p->pos = at;
        fail_expected(p, what);
    }
    return lit.i;
}

static void enter(parser *p)
{
    if (++p->depth > MAX_DEPTH)
        fail_msg(p, "nesting too deep");
}

/* ---------------------------------------------------------------------------------------- */
/* types */

static bool peek_type(parser *p)
{
    size_t n = peek_id(p);
    if (!n)
        return false;
    const char *w = p->s + p->pos;
    if (dtype_code(w, n))
        return true;
    static const char *const kws[] = {"seq", "map", "optional", "sparse_tensor", "opaque"};
    for (int i = 0; i < 5; i++)
        if (n == strlen(kws[i]) && memcmp(w, kws[i], n) == 0)
            return true;
    return false;
}

static int parse_prim_type(parser *p)
{
    size_t n = peek_id(p);
    int dt = n ? dtype_code(p->s + p->pos, n) : 0;
    if (!dt)
        fail_expected(p, "an element type");
    p->pos += n;
    return dt;
}

/* "[" dims "]" after a prim type: NULL when absent (scalar gets an empty shape, "[]" none). */
static Onnx__TensorShapeProto *parse_shape_opt(parser *p, bool *unknown_rank)
{
    *unknown_rank = false;
    if (!match(p, '['))
        return NEWMSG(p, Onnx__TensorShapeProto, onnx__tensor_shape_proto__init);
    if (match(p, ']')) {
        *unknown_rank = true;
        return NULL;
    }
    Onnx__TensorShapeProto *sh = NEWMSG(p, Onnx__TensorShapeProto, onnx__tensor_shape_proto__init);
    alist dims = {0};
    do {
        Onnx__TensorShapeProto__Dimension *dm =
            NEWMSG(p, Onnx__TensorShapeProto__Dimension, onnx__tensor_shape_proto__dimension__init);
        int c = peekc(p);
        if (c == '?') {
            p->pos++;
        } else if (c == '"') {
            dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            dm->dim_param = parse_str(p, NULL);
        } else if (id_start(c)) {
            dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            /* onnx <= 1.21 prints dim_params raw even when they are not identifiers
             * ("Ifonnx::Concat_15_dim_0"); take everything up to the next delimiter. */
            size_t e = p->pos;
            while (e < p->len && !strchr(" \t\r\n\v\f,]#", p->s[e]))
                e++;
            dm->dim_param = arena_strndup(p->a, p->s + p->pos, e - p->pos);
            p->pos = e;
        } else if (at_number(p)) {
            dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            dm->dim_value = parse_int(p, "a dimension");
        } else {
            fail_expected(p, "a dimension");
        }
        APUSH(p, &dims, Onnx__TensorShapeProto__Dimension *, dm);
    } while (match(p, ','));
    expect(p, ']');
    sh->n_dim = dims.len;
    sh->dim = dims.items;
    return sh;
}

static Onnx__TypeProto *parse_type(parser *p)
{
    enter(p);
    Onnx__TypeProto *t = NEWMSG(p, Onnx__TypeProto, onnx__type_proto__init);
    bool unk;
    if (peek_keyword(p, "seq") || peek_keyword(p, "optional")) {
        bool seq = peek_keyword(p, "seq");
        p->pos += seq ? 3 : 8;
        expect(p, '(');
        Onnx__TypeProto *el = parse_type(p);
        expect(p, ')');
        if (seq) {
            t->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
            t->sequence_type = NEWMSG(p, Onnx__TypeProto__Sequence, onnx__type_proto__sequence__init);
            t->sequence_type->elem_type = el;
        } else {
            t->value_case = ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
            t->optional_type = NEWMSG(p, Onnx__TypeProto__Optional, onnx__type_proto__optional__init);
            t->optional_type->elem_type = el;
        }
    } else if (peek_keyword(p, "map")) {
        p->pos += 3;
        expect(p, '(');
        t->value_case = ONNX__TYPE_PROTO__VALUE_MAP_TYPE;
        t->map_type = NEWMSG(p, Onnx__TypeProto__Map, onnx__type_proto__map__init);
        t->map_type->has_key_type = true;
        t->map_type->key_type = parse_prim_type(p);
        expect(p, ',');
        t->map_type->value_type = parse_type(p);
        expect(p, ')');
    } else if (peek_keyword(p, "sparse_tensor")) {
        p->pos += 13;
        expect(p, '(');
        t->value_case = ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE;
        t->sparse_tensor_type =
            NEWMSG(p, Onnx__TypeProto__SparseTensor, onnx__type_proto__sparse_tensor__init);
        t->sparse_tensor_type->has_elem_type = true;
        t->sparse_tensor_type->elem_type = parse_prim_type(p);
        t->sparse_tensor_type->shape = parse_shape_opt(p, &unk);
        expect(p, ')');
    } else if (peek_keyword(p, "opaque")) {
        p->pos += 6;
        expect(p, '(');
        t->value_case = ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE;
        t->opaque_type = NEWMSG(p, Onnx__TypeProto__Opaque, onnx__type_proto__opaque__init);
        if (peek_id(p)) {
            strbuf sb;
            sb_init(&sb);
            /* copy into the arena before anything can fail, so sb never leaks */
            char *first = parse_id(p, "an identifier");
            sb_puts(&sb, first);
            while (peekc(p) == '.' && p->pos + 1 < p->len && id_start((unsigned char)p->s[p->pos + 1])) {
                p->pos++;
                size_t n = peek_id(p);
                sb_putc(&sb, '.');
                sb_putn(&sb, p->s + p->pos, n);
                p->pos += n;
            }
            char *dotted = arena_strdup(p->a, sb.s);
            sb_free(&sb);
            if (match(p, ',')) {
                t->opaque_type->domain = dotted;
                t->opaque_type->name = parse_id(p, "an opaque type name");
            } else {
                t->opaque_type->name = dotted;
            }
        }
        expect(p, ')');
    } else {
        t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
        t->tensor_type = NEWMSG(p, Onnx__TypeProto__Tensor, onnx__type_proto__tensor__init);
        t->tensor_type->has_elem_type = true;
        t->tensor_type->elem_type = parse_prim_type(p);
        t->tensor_type->shape = parse_shape_opt(p, &unk);
    }
    p->depth--;
    return t;
}

/* ---------------------------------------------------------------------------------------- */
/* tensors */

static Onnx__StringStringEntryProto *parse_kv(parser *p)
{
    Onnx__StringStringEntryProto *kv =
        NEWMSG(p, Onnx__StringStringEntryProto, onnx__string_string_entry_proto__init);
    kv->key = parse_str(p, NULL);
    expect(p, ':');
    kv->value = parse_str(p, NULL);
    return kv;
}

static void tensor_elem(parser *p, Onnx__TensorProto *t, alist *l)
{
    size_t at = (skip_ws(p), p->pos);
    literal lit;
    parse_literal(p, &lit, "a tensor element");
    switch (t->data_type) {
    case 1: case 14: case 11: case 15:
        if (lit.kind == LIT_STRING) {
            p->pos = at;
            fail_expected(p, "a number");
        }
        if (t->data_type == 1 || t->data_type == 14)
            APUSH(p, l, float, (float)lit.f);
        else
            APUSH(p, l, double, lit.f);
        break;
    case 7:
        if (lit.kind != LIT_INT || lit.u_only) {
            p->pos = at;
            fail_expected(p, "an int64 literal");
        }
        APUSH(p, l, int64_t, lit.i);
        break;
    case 12: case 13:
        if (lit.kind != LIT_INT || (!lit.u_only && lit.i < 0)) {
            p->pos = at;
            fail_expected(p, "an unsigned integer literal");
        }
        APUSH(p, l, uint64_t, lit.u);
        break;
    case 8:
        if (lit.kind != LIT_STRING) {
            p->pos = at;
            fail_expected(p, "a string literal");
        }
        APUSH(p, l, ProtobufCBinaryData, ((ProtobufCBinaryData){lit.slen, (uint8_t *)lit.s}));
        break;
    case 2: case 3: case 4: case 5: case 6: case 9: case 10: case 16: case 17: case 18: case 19:
    case 20: case 21: case 22: case 23: case 24: case 25: case 26:
        if (lit.kind != LIT_INT || lit.u_only || lit.i < INT32_MIN || lit.i > INT32_MAX) {
            p->pos = at;
            fail_expected(p, "an integer literal that fits int32");
        }
        APUSH(p, l, int32_t, (int32_t)lit.i);
        break;
    default:
        p->pos = at;
        fail_msg(p, "unhandled tensor element type");
    }
}

/* "{elems}" or "[ "k": "v", ... ]" (external data), or nothing. */
static bool at_ellipsis(parser *p)
{
    return peekc(p) == '.' && p->pos + 3 <= p->len && memcmp(p->s + p->pos, "...", 3) == 0;
}

static void parse_tensor_body(parser *p, Onnx__TensorProto *t)
{
    int c = peekc(p);
    if (at_ellipsis(p)) {
        /* The printer writes "..." for raw data it cannot decode. The values are lost; keep an
         * empty raw_data so printing gives "..." again, and say so. */
        report_at(p, p->pos, DIAG_WARNING,
                  "tensor data elided as '...': the tensor is kept without its values");
        p->pos += 3;
        t->has_raw_data = true;
        t->raw_data.len = 0;
        t->raw_data.data = (uint8_t *)arena_alloc(p->a, 1);
        return;
    }
    if (c == '[') {
        p->pos++;
        alist kvs = {0};
        if (!match(p, ']')) {
            do
                APUSH(p, &kvs, Onnx__StringStringEntryProto *, parse_kv(p));
            while (match(p, ','));
            expect(p, ']');
        }
        t->n_external_data = kvs.len;
        t->external_data = kvs.items;
        t->has_data_location = true;
        t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
        return;
    }
    if (c != '{')
        return;
    p->pos++;
    alist l = {0};
    if (!match(p, '}')) {
        do
            tensor_elem(p, t, &l);
        while (match(p, ','));
        expect(p, '}');
    }
    switch (t->data_type) {
    case 1: case 14: t->n_float_data = l.len; t->float_data = l.items; break;
    case 11: case 15: t->n_double_data = l.len; t->double_data = l.items; break;
    case 7: t->n_int64_data = l.len; t->int64_data = l.items; break;
    case 12: case 13: t->n_uint64_data = l.len; t->uint64_data = l.items; break;
    case 8: t->n_string_data = l.len; t->string_data = l.items; break;
    default: t->n_int32_data = l.len; t->int32_data = l.items; break;
    }
}

/* A tensor whose type was already parsed: dims must all be numeric. at = where the type began. */
static Onnx__TensorProto *tensor_from_type(parser *p, const Onnx__TypeProto *ty, char *name, size_t at)
{
    if (!ty || ty->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !ty->tensor_type->shape) {
        p->pos = at;
        fail_msg_hint(p, "a tensor value needs a tensor type with a known shape",
                      "give every dimension, e.g. 'float[2] w = {1, 2}' or 'float s = {1}'");
    }
    Onnx__TensorProto *t = NEWMSG(p, Onnx__TensorProto, onnx__tensor_proto__init);
    t->has_data_type = true;
    t->data_type = ty->tensor_type->elem_type;
    const Onnx__TensorShapeProto *sh = ty->tensor_type->shape;
    if (sh->n_dim) {
        t->n_dims = sh->n_dim;
        t->dims = arena_alloc(p->a, sh->n_dim * sizeof(int64_t));
        for (size_t i = 0; i < sh->n_dim; i++) {
            if (sh->dim[i]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
                p->pos = at;
                fail_msg_hint(p, "a tensor value needs numeric dimensions",
                              "give every dimension, e.g. 'float[2] w = {1, 2}' or 'float s = {1}'");
            }
            t->dims[i] = sh->dim[i]->dim_value;
        }
    }
    t->name = name;
    return t;
}

/* ---------------------------------------------------------------------------------------- */
/* graphs, nodes, attributes */

static Onnx__GraphProto *parse_graph(parser *p);

static Onnx__ValueInfoProto *parse_value_info(parser *p, size_t *type_at)
{
    Onnx__ValueInfoProto *vi = NEWMSG(p, Onnx__ValueInfoProto, onnx__value_info_proto__init);
    *type_at = (skip_ws(p), p->pos);
    if (peek_type(p))
        vi->type = parse_type(p);
    vi->name = parse_qid(p, "a value name");
    return vi;
}

/* id-list: items may be empty; a trailing implicit empty item is dropped. */
static void parse_id_list(parser *p, size_t *n, char ***items)
{
    alist l = {0};
    bool last_implicit;
    do {
        int c = peekc(p);
        if (c == '"' || id_start(c)) {
            APUSH(p, &l, char *, parse_qid(p, "a name"));
            last_implicit = false;
        } else {
            APUSH(p, &l, char *, arena_strdup(p->a, ""));
            last_implicit = true;
        }
    } while (match(p, ','));
    if (last_implicit)
        l.len--;
    *n = l.len;
    *items = l.items;
}

typedef enum vkind { V_INT, V_FLOAT, V_STRING, V_TENSOR, V_GRAPH, V_TYPE, V_REF } vkind;
typedef struct avalue {
    vkind kind;
    literal lit;
    Onnx__TensorProto *t;
    Onnx__GraphProto *g;
    Onnx__TypeProto *tp;
    char *ref;
} avalue;

static int attr_type_from_name(const char *s, size_t n)
{
    static const struct { const char *n; int t; } m[] = {
        {"float", 1}, {"int", 2}, {"string", 3}, {"tensor", 4}, {"graph", 5},
        {"sparse_tensor", 11}, {"type_proto", 13}, {"floats", 6}, {"ints", 7}, {"strings", 8},
        {"tensors", 9}, {"graphs", 10}, {"sparse_tensors", 12}, {"type_protos", 14},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (strlen(m[i].n) == n && memcmp(m[i].n, s, n) == 0)
            return m[i].t;
    return -1;
}

static void parse_single(parser *p, avalue *v, int annot)
{
    memset(v, 0, sizeof *v);
    int c = peekc(p);
    if (c == '@') {
        p->pos++;
        v->kind = V_REF;
        v->ref = parse_qid(p, "an attribute reference");
        return;
    }
    if (id_start(c)) {
        size_t at = p->pos;
        if (peek_type(p)) {
            Onnx__TypeProto *ty = parse_type(p);
            int n = peekc(p);
            bool quoted_name = n == '"' && (annot == 4 || annot == 9);
            if (n == '{' || n == '=' || id_start(n) || quoted_name || (n == '[' && annot == 4) ||
                at_ellipsis(p)) {
                char *name = NULL;
                if (id_start(n) || quoted_name)
                    name = parse_qid(p, "a tensor name");
                match(p, '=');
                v->kind = V_TENSOR;
                v->t = tensor_from_type(p, ty, name, at);
                parse_tensor_body(p, v->t);
            } else {
                v->kind = V_TYPE;
                v->tp = ty;
            }
            return;
        }
        if (special_float_len(p, p->pos)) {
            parse_number(p, &v->lit);
            v->kind = V_FLOAT;
            return;
        }
        v->kind = V_GRAPH;
        v->g = parse_graph(p);
        return;
    }
    if (c == '"' && (annot == 5 || annot == 10)) {
        v->kind = V_GRAPH;
        v->g = parse_graph(p);
        return;
    }
    parse_literal(p, &v->lit, "an attribute value");
    v->kind = v->lit.kind == LIT_INT ? V_INT : v->lit.kind == LIT_FLOAT ? V_FLOAT : V_STRING;
    if (v->kind == V_INT && v->lit.u_only)
        fail_msg(p, "integer literal out of range");
}

static int single_type(vkind k)
{
    switch (k) {
    case V_INT: return 2;
    case V_FLOAT: return 1;
    case V_STRING: return 3;
    case V_TENSOR: return 4;
    case V_GRAPH: return 5;
    case V_TYPE: return 13;
    default: return 0;
    }
}

/* "[: type] = value" after the attribute name. */
static void parse_attr_rest(parser *p, Onnx__AttributeProto *a)
{
    int annot = 0;
    if (match(p, ':')) {
        size_t n = peek_id(p);
        int t = n ? attr_type_from_name(p->s + p->pos, n) : -1;
        if (t < 0)
            fail_expected_hint(p, "an attribute type",
                               "one of float, int, string, tensor, graph, sparse_tensor, type_proto "
                               "and their plurals floats, ints, ...");
        p->pos += n;
        annot = t;
    }
    expect(p, '=');
    size_t vat = (skip_ws(p), p->pos);
    if (peekc(p) == '@') {
        avalue v;
        parse_single(p, &v, annot);
        a->ref_attr_name = v.ref;
        a->has_type = true;
        a->type = annot;
        return;
    }
    if (match(p, '[')) {
        alist ints = {0}, floats = {0}, strs = {0}, tens = {0}, graphs = {0}, tps = {0};
        int elem = 0;   /* 2 int, 1 float (ints promote), 3 string, 4/5/13 others */
        if (!match(p, ']')) {
            do {
                size_t at = (skip_ws(p), p->pos);
                avalue v;
                parse_single(p, &v, annot == 6 ? 1 : annot == 7 ? 2 : annot == 8 ? 3 :
                                 annot == 9 ? 4 : annot == 10 ? 5 : annot == 14 ? 13 : 0);
                int st = single_type(v.kind);
                if (st == 0) {
                    p->pos = at;
                    fail_expected(p, "a list element");
                }
                if (elem == 0 || (elem == 2 && st == 1))
                    elem = st;
                else if (!(elem == st || (elem == 1 && st == 2))) {
                    p->pos = at;
                    fail_msg(p, "list elements of different kinds");
                }
                switch (v.kind) {
                case V_INT: APUSH(p, &ints, int64_t, v.lit.i); APUSH(p, &floats, float, (float)v.lit.f); break;
                case V_FLOAT: APUSH(p, &floats, float, (float)v.lit.f); break;
                case V_STRING:
                    APUSH(p, &strs, ProtobufCBinaryData, ((ProtobufCBinaryData){v.lit.slen, (uint8_t *)v.lit.s}));
                    break;
                case V_TENSOR: APUSH(p, &tens, Onnx__TensorProto *, v.t); break;
                case V_GRAPH: APUSH(p, &graphs, Onnx__GraphProto *, v.g); break;
                case V_TYPE: APUSH(p, &tps, Onnx__TypeProto *, v.tp); break;
                default: break;
                }
            } while (match(p, ','));
            expect(p, ']');
        }
        int lt = elem == 2 ? 7 : elem == 1 ? 6 : elem == 3 ? 8 : elem == 4 ? 9 : elem == 5 ? 10 : elem == 13 ? 14 : 0;
        if (annot) {
            bool ok = annot == lt || lt == 0 || (annot == 6 && lt == 7);
            if (!ok || annot < 6 || annot == 11 || annot == 13) {
                p->pos = vat;
                fail_msg(p, "attribute value does not match its declared type");
            }
            lt = annot;
        } else if (lt == 0) {
            p->pos = vat;
            fail_msg(p, "an empty list needs a type annotation, e.g. 'x: ints = []'");
        }
        a->has_type = true;
        a->type = lt;
        switch (lt) {
        case 7: a->n_ints = ints.len; a->ints = ints.items; break;
        case 6: a->n_floats = floats.len; a->floats = floats.items; break;
        case 8: a->n_strings = strs.len; a->strings = strs.items; break;
        case 9: a->n_tensors = tens.len; a->tensors = tens.items; break;
        case 10: a->n_graphs = graphs.len; a->graphs = graphs.items; break;
        case 14: a->n_type_protos = tps.len; a->type_protos = tps.items; break;
        default: break;
        }
        return;
    }
    avalue v;
    parse_single(p, &v, annot);
    int st = single_type(v.kind);
    if (annot && !(annot == st || (annot == 1 && st == 2))) {
        p->pos = vat;
        fail_msg(p, "attribute value does not match its declared type");
    }
    a->has_type = true;
    a->type = annot ? annot : st;
    switch (a->type) {
    case 1: a->has_f = true; a->f = (float)v.lit.f; break;
    case 2: a->has_i = true; a->i = v.lit.i; break;
    case 3: a->has_s = true; a->s = (ProtobufCBinaryData){v.lit.slen, (uint8_t *)v.lit.s}; break;
    case 4: a->t = v.t; break;
    case 5: a->g = v.g; break;
    case 13: a->tp = v.tp; break;
    default: break;
    }
    return;
}

static Onnx__AttributeProto *parse_attr(parser *p)
{
    Onnx__AttributeProto *a = NEWMSG(p, Onnx__AttributeProto, onnx__attribute_proto__init);
    a->name = parse_id(p, "an attribute name");
    parse_attr_rest(p, a);
    return a;
}

static void parse_attr_list(parser *p, size_t *n, Onnx__AttributeProto ***items)
{
    expect(p, '<');
    alist l = {0};
    do
        APUSH(p, &l, Onnx__AttributeProto *, parse_attr(p));
    while (match(p, ','));
    expect(p, '>');
    *n = l.len;
    *items = l.items;
}

static Onnx__NodeProto *parse_node(parser *p)
{
    Onnx__NodeProto *nd = NEWMSG(p, Onnx__NodeProto, onnx__node_proto__init);
    if (match(p, '[')) {
        nd->name = match(p, ']') ? arena_strdup(p->a, "") : NULL;
        if (!nd->name) {
            nd->name = parse_qid(p, "a node name");
            expect(p, ']');
        }
    }
    parse_id_list(p, &nd->n_output, &nd->output);
    expect(p, '=');
    /* op-name = { id "." } id: everything before the last dot is the domain */
    size_t start = (skip_ws(p), p->pos);
    parse_id(p, "an operator name");
    size_t last = start;
    while (p->pos < p->len && p->s[p->pos] == '.') {
        p->pos++;
        last = p->pos;
        if (!id_start(p->pos < p->len ? (unsigned char)p->s[p->pos] : -1))
            fail_expected(p, "an operator name");
        parse_id(p, "an operator name");
    }
    nd->op_type = arena_strndup(p->a, p->s + last, p->pos - last);
    nd->domain = arena_strndup(p->a, p->s + start, last > start ? last - start - 1 : 0);
    if (match(p, ':'))
        nd->overload = parse_id(p, "an overload name");
    bool attrs = false;
    if (peekc(p) == '<') {
        parse_attr_list(p, &nd->n_attribute, &nd->attribute);
        attrs = true;
    }
    expect(p, '(');
    parse_id_list(p, &nd->n_input, &nd->input);
    expect(p, ')');
    if (!attrs && peekc(p) == '<')
        parse_attr_list(p, &nd->n_attribute, &nd->attribute);
    return nd;
}

static void parse_node_list(parser *p, size_t *n, Onnx__NodeProto ***items)
{
    expect(p, '{');
    alist l = {0};
    while (!match(p, '}')) {
        if (peekc(p) < 0)
            fail_expected(p, "a node or '}'");
        if (interrupt_pending())
            fail_msg(p, "interrupted");
        APUSH(p, &l, Onnx__NodeProto *, parse_node(p));
    }
    *n = l.len;
    *items = l.items;
}

static void expect_arrow(parser *p)
{
    expect(p, '=');
    if (p->pos >= p->len || p->s[p->pos] != '>')
        fail_expected_hint(p, "'>' right after '=' (the '=>' arrow)",
                           "write '=>' with no space between '=' and '>'");
    p->pos++;
}

static Onnx__GraphProto *parse_graph(parser *p)
{
    enter(p);
    Onnx__GraphProto *g = NEWMSG(p, Onnx__GraphProto, onnx__graph_proto__init);
    g->name = parse_qid(p, "a graph name");
    alist ins = {0}, outs = {0}, inits = {0}, vis = {0};
    if (match(p, '(')) {
        if (!match(p, ')')) {
            do {
                size_t at;
                Onnx__ValueInfoProto *vi = parse_value_info(p, &at);
                APUSH(p, &ins, Onnx__ValueInfoProto *, vi);
                if (match(p, '=')) {
                    Onnx__TensorProto *t = tensor_from_type(p, vi->type, vi->name, at);
                    parse_tensor_body(p, t);
                    APUSH(p, &inits, Onnx__TensorProto *, t);
                }
            } while (match(p, ','));
            expect(p, ')');
        }
    }
    expect_arrow(p);
    expect(p, '(');
    if (!match(p, ')')) {
        do {
            size_t at;
            APUSH(p, &outs, Onnx__ValueInfoProto *, parse_value_info(p, &at));
        } while (match(p, ','));
        expect(p, ')');
    }
    if (match(p, '<')) {
        if (!match(p, '>')) {
            do {
                size_t at;
                Onnx__ValueInfoProto *vi = parse_value_info(p, &at);
                if (match(p, '=')) {
                    Onnx__TensorProto *t = tensor_from_type(p, vi->type, vi->name, at);
                    parse_tensor_body(p, t);
                    APUSH(p, &inits, Onnx__TensorProto *, t);
                } else {
                    APUSH(p, &vis, Onnx__ValueInfoProto *, vi);
                }
            } while (match(p, ','));
            expect(p, '>');
        }
    }
    parse_node_list(p, &g->n_node, &g->node);
    g->n_input = ins.len;
    g->input = ins.items;
    g->n_output = outs.len;
    g->output = outs.items;
    g->n_initializer = inits.len;
    g->initializer = inits.items;
    g->n_value_info = vis.len;
    g->value_info = vis.items;
    p->depth--;
    return g;
}

static void parse_opsets(parser *p, size_t *n, Onnx__OperatorSetIdProto ***items)
{
    expect(p, '[');
    alist l = {0};
    if (!match(p, ']')) {
        do {
            Onnx__OperatorSetIdProto *o =
                NEWMSG(p, Onnx__OperatorSetIdProto, onnx__operator_set_id_proto__init);
            o->domain = parse_str(p, NULL);
            expect(p, ':');
            o->has_version = true;
            o->version = parse_int(p, "an opset version");
            APUSH(p, &l, Onnx__OperatorSetIdProto *, o);
        } while (match(p, ','));
        expect(p, ']');
    }
    *n = l.len;
    *items = l.items;
}

/* Function header key and function body. */
static Onnx__FunctionProto *parse_function(parser *p)
{
    Onnx__FunctionProto *f = NEWMSG(p, Onnx__FunctionProto, onnx__function_proto__init);
    if (match(p, '<')) {
        do {
            if (peek_keyword(p, "opset_import")) {
                p->pos += 12;
                expect(p, ':');
                parse_opsets(p, &f->n_opset_import, &f->opset_import);
            } else if (peek_keyword(p, "domain") || peek_keyword(p, "doc_string") ||
                       peek_keyword(p, "overload")) {
                char **dst = peek_keyword(p, "domain") ? &f->domain
                             : peek_keyword(p, "overload") ? &f->overload : &f->doc_string;
                p->pos += peek_id(p);
                expect(p, ':');
                *dst = parse_str(p, NULL);
            } else {
                fail_expected(p, "a function key (domain, opset_import, overload, doc_string)");
            }
        } while (match(p, ','));
        expect(p, '>');
    }
    f->name = parse_qid(p, "a function name");
    if (match(p, '<')) {
        alist names = {0}, defs = {0};
        do {
            char *nm = parse_qid(p, "an attribute name");
            int c = peekc(p);
            if (c == ':' || c == '=') {
                Onnx__AttributeProto *full = NEWMSG(p, Onnx__AttributeProto, onnx__attribute_proto__init);
                full->name = nm;
                parse_attr_rest(p, full);
                APUSH(p, &defs, Onnx__AttributeProto *, full);
            } else {
                APUSH(p, &names, char *, nm);
            }
        } while (match(p, ','));
        expect(p, '>');
        f->n_attribute = names.len;
        f->attribute = names.items;
        f->n_attribute_proto = defs.len;
        f->attribute_proto = defs.items;
    }
    alist vis = {0};
    for (int side = 0; side < 2; side++) {
        alist names = {0};
        expect(p, '(');
        if (!match(p, ')')) {
            do {
                size_t at;
                Onnx__ValueInfoProto *vi = parse_value_info(p, &at);
                APUSH(p, &names, char *, vi->name);
                if (vi->type)
                    APUSH(p, &vis, Onnx__ValueInfoProto *, vi);
            } while (match(p, ','));
            expect(p, ')');
        }
        if (side == 0) {
            f->n_input = names.len;
            f->input = names.items;
            expect_arrow(p);
        } else {
            f->n_output = names.len;
            f->output = names.items;
        }
    }
    if (match(p, '<')) {
        if (!match(p, '>')) {
            do {
                size_t at;
                APUSH(p, &vis, Onnx__ValueInfoProto *, parse_value_info(p, &at));
            } while (match(p, ','));
            expect(p, '>');
        }
    }
    f->n_value_info = vis.len;
    f->value_info = vis.items;
    parse_node_list(p, &f->n_node, &f->node);
    return f;
}

static Onnx__ModelProto *parse_model(parser *p)
{
    Onnx__ModelProto *m = NEWMSG(p, Onnx__ModelProto, onnx__model_proto__init);
    if (match(p, '<')) {
        do {
            size_t n = peek_id(p);
            const char *k = p->s + p->pos;
#define KW(s) (n == sizeof(s) - 1 && memcmp(k, s, n) == 0)
            if (!n)
                fail_expected_hint(p, "a model key", "an empty '<>' header is not allowed; drop it");
            if (KW("ir_version") || KW("model_version")) {
                bool ir = KW("ir_version");
                p->pos += n;
                expect(p, ':');
                int64_t v = parse_int(p, "an integer");
                if (ir) {
                    m->has_ir_version = true;
                    m->ir_version = v;
                } else {
                    m->has_model_version = true;
                    m->model_version = v;
                }
            } else if (KW("opset_import")) {
                p->pos += n;
                expect(p, ':');
                parse_opsets(p, &m->n_opset_import, &m->opset_import);
            } else if (KW("producer_name") || KW("producer_version") || KW("domain") ||
                       KW("doc_string")) {
                char **dst = KW("producer_name") ? &m->producer_name
                             : KW("producer_version") ? &m->producer_version
                             : KW("domain") ? &m->domain : &m->doc_string;
                p->pos += n;
                expect(p, ':');
                *dst = parse_str(p, NULL);
            } else if (KW("metadata_props")) {
                p->pos += n;
                expect(p, ':');
                expect(p, '[');
                alist l = {0};
                if (!match(p, ']')) {
                    do
                        APUSH(p, &l, Onnx__StringStringEntryProto *, parse_kv(p));
                    while (match(p, ','));
                    expect(p, ']');
                }
                m->n_metadata_props = l.len;
                m->metadata_props = l.items;
            } else {
                fail_expected_hint(p, "a model key",
                                   "model keys are ir_version, opset_import, producer_name, "
                                   "producer_version, domain, model_version, doc_string, "
                                   "metadata_props");
            }
#undef KW
        } while (match(p, ','));
        expect(p, '>');
    }
    m->graph = parse_graph(p);
    alist fns = {0};
    while (peekc(p) >= 0)
        APUSH(p, &fns, Onnx__FunctionProto *, parse_function(p));
    m->n_functions = fns.len;
    m->functions = fns.items;
    return m;
}

static void parser_init(parser *p, arena *a, const char *text, size_t len, const char *file,
                        diag_sink *d)
{
    memset(p, 0, sizeof *p);
    p->s = text ? text : "";
    p->len = text ? len : 0;
    p->file = file;
    p->d = d;
    p->a = a;
}

Onnx__ModelProto *ox_parse_model_proto(arena *a, const char *text, size_t len, const char *file,
                                       diag_sink *d)
{
    parser p;
    parser_init(&p, a, text, len, file, d);
    if (setjmp(p.fail))
        return NULL;
    return parse_model(&p);
}

static void expect_end(parser *p)
{
    if (peekc(p) >= 0)
        fail_expected(p, "end of input");
}

Onnx__GraphProto *ox_parse_graph_proto(arena *a, const char *text, size_t len, const char *file,
                                       diag_sink *d)
{
    parser p;
    parser_init(&p, a, text, len, file, d);
    if (setjmp(p.fail))
        return NULL;
    Onnx__GraphProto *g = parse_graph(&p);
    expect_end(&p);
    return g;
}

Onnx__FunctionProto *ox_parse_function_proto(arena *a, const char *text, size_t len,
                                             const char *file, diag_sink *d)
{
    parser p;
    parser_init(&p, a, text, len, file, d);
    if (setjmp(p.fail))
        return NULL;
    Onnx__FunctionProto *f = parse_function(&p);
    expect_end(&p);
    return f;
}

ox_model *ox_parse_model(const char *text, size_t len, const char *file, diag_sink *d)
{
    ox_model *m = ox_model_new_empty();
    Onnx__ModelProto *mp = ox_parse_model_proto(&m->arena, text, len, file, d);
    if (!mp) {
        ox_model_free(m);
        return NULL;
    }
    m->proto = mp;
    m->path = arena_strdup(&m->arena, file);
    if (ox_check_tensors(m, file, true, d)) {
        ox_model_free(m);
        return NULL;
    }
    return m;
}

ox_model *ox_parse_graph_model(const char *text, size_t len, const char *file, diag_sink *d)
{
    ox_model *m = ox_model_new_empty();
    Onnx__GraphProto *g = ox_parse_graph_proto(&m->arena, text, len, file, d);
    if (!g) {
        ox_model_free(m);
        return NULL;
    }
    m->proto->graph = g;
    m->path = arena_strdup(&m->arena, file);
    if (ox_check_tensors(m, file, true, d)) {
        ox_model_free(m);
        return NULL;
    }
    return m;
}

bool ox_text_complete(const char *text, size_t len)
{
    long depth = 0;
    bool opened = false;
    char last = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '#') {
            while (i < len && text[i] != '\n')
                i++;
            continue;
        }
        if (c == '"') {
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\')
                    i++;
            if (i >= len)
                return false;   /* unterminated string: more input will close it */
            last = '"';
            continue;
        }
        if (c == '{') {
            depth++;
            opened = true;
        } else if (c == '}') {
            if (--depth < 0)
                return true;
        }
        if (!isspace((unsigned char)c))
            last = c;
    }
    return opened && depth == 0 && last == '}';
}
