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
#include "onnx/onnx_parse_internal.h"

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
/* types */

static bool peek_type(parser *p)
{
    size_t n = oxp_peek_id(p);
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
    size_t n = oxp_peek_id(p);
    int dt = n ? dtype_code(p->s + p->pos, n) : 0;
    if (!dt)
        oxp_fail_expected(p, "an element type");
    p->pos += n;
    return dt;
}

/* "[" dims "]" after a prim type: NULL when absent (scalar gets an empty shape, "[]" none). */
static Onnx__TensorShapeProto *parse_shape_opt(parser *p, bool *unknown_rank)
{
    *unknown_rank = false;
    if (!oxp_match(p, '['))
        return NEWMSG(p, Onnx__TensorShapeProto, onnx__tensor_shape_proto__init);
    if (oxp_match(p, ']')) {
        *unknown_rank = true;
        return NULL;
    }
    Onnx__TensorShapeProto *sh = NEWMSG(p, Onnx__TensorShapeProto, onnx__tensor_shape_proto__init);
    alist dims = {0};
    do {
        Onnx__TensorShapeProto__Dimension *dm =
            NEWMSG(p, Onnx__TensorShapeProto__Dimension, onnx__tensor_shape_proto__dimension__init);
        int c = oxp_peekc(p);
        if (c == '?') {
            p->pos++;
        } else if (c == '"') {
            dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            dm->dim_param = oxp_parse_str(p, NULL);
        } else if (oxp_id_start(c)) {
            dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            /* onnx <= 1.21 prints dim_params raw even when they are not identifiers
             * ("Ifonnx::Concat_15_dim_0"); take everything up to the next delimiter. */
            size_t e = p->pos;
            while (e < p->len && !strchr(" \t\r\n\v\f,]#", p->s[e]))
                e++;
            dm->dim_param = arena_strndup(p->a, p->s + p->pos, e - p->pos);
            p->pos = e;
        } else if (oxp_at_number(p)) {
            dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            dm->dim_value = oxp_parse_int(p, "a dimension");
        } else {
            oxp_fail_expected(p, "a dimension");
        }
        APUSH(p, &dims, Onnx__TensorShapeProto__Dimension *, dm);
    } while (oxp_match(p, ','));
    oxp_expect(p, ']');
    sh->n_dim = dims.len;
    sh->dim = dims.items;
    return sh;
}

static Onnx__TypeProto *parse_type(parser *p)
{
    oxp_enter(p);
    Onnx__TypeProto *t = NEWMSG(p, Onnx__TypeProto, onnx__type_proto__init);
    bool unk;
    if (oxp_peek_keyword(p, "seq") || oxp_peek_keyword(p, "optional")) {
        bool seq = oxp_peek_keyword(p, "seq");
        p->pos += seq ? 3 : 8;
        oxp_expect(p, '(');
        Onnx__TypeProto *el = parse_type(p);
        oxp_expect(p, ')');
        if (seq) {
            t->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
            t->sequence_type = NEWMSG(p, Onnx__TypeProto__Sequence, onnx__type_proto__sequence__init);
            t->sequence_type->elem_type = el;
        } else {
            t->value_case = ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
            t->optional_type = NEWMSG(p, Onnx__TypeProto__Optional, onnx__type_proto__optional__init);
            t->optional_type->elem_type = el;
        }
    } else if (oxp_peek_keyword(p, "map")) {
        p->pos += 3;
        oxp_expect(p, '(');
        t->value_case = ONNX__TYPE_PROTO__VALUE_MAP_TYPE;
        t->map_type = NEWMSG(p, Onnx__TypeProto__Map, onnx__type_proto__map__init);
        t->map_type->has_key_type = true;
        t->map_type->key_type = parse_prim_type(p);
        oxp_expect(p, ',');
        t->map_type->value_type = parse_type(p);
        oxp_expect(p, ')');
    } else if (oxp_peek_keyword(p, "sparse_tensor")) {
        p->pos += 13;
        oxp_expect(p, '(');
        t->value_case = ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE;
        t->sparse_tensor_type =
            NEWMSG(p, Onnx__TypeProto__SparseTensor, onnx__type_proto__sparse_tensor__init);
        t->sparse_tensor_type->has_elem_type = true;
        t->sparse_tensor_type->elem_type = parse_prim_type(p);
        t->sparse_tensor_type->shape = parse_shape_opt(p, &unk);
        oxp_expect(p, ')');
    } else if (oxp_peek_keyword(p, "opaque")) {
        p->pos += 6;
        oxp_expect(p, '(');
        t->value_case = ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE;
        t->opaque_type = NEWMSG(p, Onnx__TypeProto__Opaque, onnx__type_proto__opaque__init);
        if (oxp_peek_id(p)) {
            strbuf sb;
            sb_init(&sb);
            /* copy into the arena before anything can fail, so sb never leaks */
            char *first = oxp_parse_id(p, "an identifier");
            sb_puts(&sb, first);
            while (oxp_peekc(p) == '.' && p->pos + 1 < p->len && oxp_id_start((unsigned char)p->s[p->pos + 1])) {
                p->pos++;
                size_t n = oxp_peek_id(p);
                sb_putc(&sb, '.');
                sb_putn(&sb, p->s + p->pos, n);
                p->pos += n;
            }
            char *dotted = arena_strdup(p->a, sb.s);
            sb_free(&sb);
            if (oxp_match(p, ',')) {
                t->opaque_type->domain = dotted;
                t->opaque_type->name = oxp_parse_id(p, "an opaque type name");
            } else {
                t->opaque_type->name = dotted;
            }
        }
        oxp_expect(p, ')');
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
    kv->key = oxp_parse_str(p, NULL);
    oxp_expect(p, ':');
    kv->value = oxp_parse_str(p, NULL);
    return kv;
}

static void tensor_elem(parser *p, Onnx__TensorProto *t, alist *l)
{
    size_t at = (oxp_skip_ws(p), p->pos);
    literal lit;
    oxp_parse_literal(p, &lit, "a tensor element");
    switch (t->data_type) {
    case 1: case 14: case 11: case 15:
        if (lit.kind == LIT_STRING) {
            p->pos = at;
            oxp_fail_expected(p, "a number");
        }
        if (t->data_type == 1 || t->data_type == 14)
            APUSH(p, l, float, (float)lit.f);
        else
            APUSH(p, l, double, lit.f);
        break;
    case 7:
        if (lit.kind != LIT_INT || lit.u_only) {
            p->pos = at;
            oxp_fail_expected(p, "an int64 literal");
        }
        APUSH(p, l, int64_t, lit.i);
        break;
    case 12: case 13:
        if (lit.kind != LIT_INT || (!lit.u_only && lit.i < 0)) {
            p->pos = at;
            oxp_fail_expected(p, "an unsigned integer literal");
        }
        APUSH(p, l, uint64_t, lit.u);
        break;
    case 8:
        if (lit.kind != LIT_STRING) {
            p->pos = at;
            oxp_fail_expected(p, "a string literal");
        }
        APUSH(p, l, ProtobufCBinaryData, ((ProtobufCBinaryData){lit.slen, (uint8_t *)lit.s}));
        break;
    case 2: case 3: case 4: case 5: case 6: case 9: case 10: case 16: case 17: case 18: case 19:
    case 20: case 21: case 22: case 23: case 24: case 25: case 26:
        if (lit.kind != LIT_INT || lit.u_only || lit.i < INT32_MIN || lit.i > INT32_MAX) {
            p->pos = at;
            oxp_fail_expected(p, "an integer literal that fits int32");
        }
        APUSH(p, l, int32_t, (int32_t)lit.i);
        break;
    default:
        p->pos = at;
        oxp_fail_msg(p, "unhandled tensor element type");
    }
}

/* "{elems}" or "[ "k": "v", ... ]" (external data), or nothing. */
static bool at_ellipsis(parser *p)
{
    return oxp_peekc(p) == '.' && p->pos + 3 <= p->len && memcmp(p->s + p->pos, "...", 3) == 0;
}

static void parse_tensor_body(parser *p, Onnx__TensorProto *t)
{
    int c = oxp_peekc(p);
    if (at_ellipsis(p)) {
        /* The printer writes "..." for raw data it cannot decode. The values are lost; keep an
         * empty raw_data so printing gives "..." again, and say so. */
        oxp_report_at(p, p->pos, DIAG_WARNING,
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
        if (!oxp_match(p, ']')) {
            do
                APUSH(p, &kvs, Onnx__StringStringEntryProto *, parse_kv(p));
            while (oxp_match(p, ','));
            oxp_expect(p, ']');
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
    if (!oxp_match(p, '}')) {
        do
            tensor_elem(p, t, &l);
        while (oxp_match(p, ','));
        oxp_expect(p, '}');
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
        oxp_fail_msg_hint(p, "a tensor value needs a tensor type with a known shape",
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
                oxp_fail_msg_hint(p, "a tensor value needs numeric dimensions",
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
    *type_at = (oxp_skip_ws(p), p->pos);
    if (peek_type(p))
        vi->type = parse_type(p);
    vi->name = oxp_parse_qid(p, "a value name");
    return vi;
}

/* id-list: items may be empty; a trailing implicit empty item is dropped. */
static void parse_id_list(parser *p, size_t *n, char ***items)
{
    alist l = {0};
    bool last_implicit;
    do {
        int c = oxp_peekc(p);
        if (c == '"' || oxp_id_start(c)) {
            APUSH(p, &l, char *, oxp_parse_qid(p, "a name"));
            last_implicit = false;
        } else {
            APUSH(p, &l, char *, arena_strdup(p->a, ""));
            last_implicit = true;
        }
    } while (oxp_match(p, ','));
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
    int c = oxp_peekc(p);
    if (c == '@') {
        p->pos++;
        v->kind = V_REF;
        v->ref = oxp_parse_qid(p, "an attribute reference");
        return;
    }
    if (oxp_id_start(c)) {
        size_t at = p->pos;
        if (peek_type(p)) {
            Onnx__TypeProto *ty = parse_type(p);
            int n = oxp_peekc(p);
            bool quoted_name = n == '"' && (annot == 4 || annot == 9);
            if (n == '{' || n == '=' || oxp_id_start(n) || quoted_name || (n == '[' && annot == 4) ||
                at_ellipsis(p)) {
                char *name = NULL;
                if (oxp_id_start(n) || quoted_name)
                    name = oxp_parse_qid(p, "a tensor name");
                oxp_match(p, '=');
                v->kind = V_TENSOR;
                v->t = tensor_from_type(p, ty, name, at);
                parse_tensor_body(p, v->t);
            } else {
                v->kind = V_TYPE;
                v->tp = ty;
            }
            return;
        }
        if (oxp_special_float_len(p, p->pos)) {
            oxp_parse_number(p, &v->lit);
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
    oxp_parse_literal(p, &v->lit, "an attribute value");
    v->kind = v->lit.kind == LIT_INT ? V_INT : v->lit.kind == LIT_FLOAT ? V_FLOAT : V_STRING;
    if (v->kind == V_INT && v->lit.u_only)
        oxp_fail_msg(p, "integer literal out of range");
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
    if (oxp_match(p, ':')) {
        size_t n = oxp_peek_id(p);
        int t = n ? attr_type_from_name(p->s + p->pos, n) : -1;
        if (t < 0)
            oxp_fail_expected_hint(p, "an attribute type",
                               "one of float, int, string, tensor, graph, sparse_tensor, type_proto "
                               "and their plurals floats, ints, ...");
        p->pos += n;
        annot = t;
    }
    oxp_expect(p, '=');
    size_t vat = (oxp_skip_ws(p), p->pos);
    if (oxp_peekc(p) == '@') {
        avalue v;
        parse_single(p, &v, annot);
        a->ref_attr_name = v.ref;
        a->has_type = true;
        a->type = annot;
        return;
    }
    if (oxp_match(p, '[')) {
        alist ints = {0}, floats = {0}, strs = {0}, tens = {0}, graphs = {0}, tps = {0};
        int elem = 0;   /* 2 int, 1 float (ints promote), 3 string, 4/5/13 others */
        if (!oxp_match(p, ']')) {
            do {
                size_t at = (oxp_skip_ws(p), p->pos);
                avalue v;
                parse_single(p, &v, annot == 6 ? 1 : annot == 7 ? 2 : annot == 8 ? 3 :
                                 annot == 9 ? 4 : annot == 10 ? 5 : annot == 14 ? 13 : 0);
                int st = single_type(v.kind);
                if (st == 0) {
                    p->pos = at;
                    oxp_fail_expected(p, "a list element");
                }
                if (elem == 0 || (elem == 2 && st == 1))
                    elem = st;
                else if (!(elem == st || (elem == 1 && st == 2))) {
                    p->pos = at;
                    oxp_fail_msg(p, "list elements of different kinds");
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
            } while (oxp_match(p, ','));
            oxp_expect(p, ']');
        }
        int lt = elem == 2 ? 7 : elem == 1 ? 6 : elem == 3 ? 8 : elem == 4 ? 9 : elem == 5 ? 10 : elem == 13 ? 14 : 0;
        if (annot) {
            bool ok = annot == lt || lt == 0 || (annot == 6 && lt == 7);
            if (!ok || annot < 6 || annot == 11 || annot == 13) {
                p->pos = vat;
                oxp_fail_msg(p, "attribute value does not match its declared type");
            }
            lt = annot;
        } else if (lt == 0) {
            p->pos = vat;
            oxp_fail_msg(p, "an empty list needs a type annotation, e.g. 'x: ints = []'");
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
        oxp_fail_msg(p, "attribute value does not match its declared type");
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
    a->name = oxp_parse_id(p, "an attribute name");
    parse_attr_rest(p, a);
    return a;
}

static void parse_attr_list(parser *p, size_t *n, Onnx__AttributeProto ***items)
{
    oxp_expect(p, '<');
    alist l = {0};
    do
        APUSH(p, &l, Onnx__AttributeProto *, parse_attr(p));
    while (oxp_match(p, ','));
    oxp_expect(p, '>');
    *n = l.len;
    *items = l.items;
}

static Onnx__NodeProto *parse_node(parser *p)
{
    Onnx__NodeProto *nd = NEWMSG(p, Onnx__NodeProto, onnx__node_proto__init);
    if (oxp_match(p, '[')) {
        nd->name = oxp_match(p, ']') ? arena_strdup(p->a, "") : NULL;
        if (!nd->name) {
            nd->name = oxp_parse_qid(p, "a node name");
            oxp_expect(p, ']');
        }
    }
    parse_id_list(p, &nd->n_output, &nd->output);
    oxp_expect(p, '=');
    /* op-name = { id "." } id: everything before the last dot is the domain */
    size_t start = (oxp_skip_ws(p), p->pos);
    oxp_parse_id(p, "an operator name");
    size_t last = start;
    while (p->pos < p->len && p->s[p->pos] == '.') {
        p->pos++;
        last = p->pos;
        if (!oxp_id_start(p->pos < p->len ? (unsigned char)p->s[p->pos] : -1))
            oxp_fail_expected(p, "an operator name");
        oxp_parse_id(p, "an operator name");
    }
    nd->op_type = arena_strndup(p->a, p->s + last, p->pos - last);
    nd->domain = arena_strndup(p->a, p->s + start, last > start ? last - start - 1 : 0);
    if (oxp_match(p, ':'))
        nd->overload = oxp_parse_id(p, "an overload name");
    bool attrs = false;
    if (oxp_peekc(p) == '<') {
        parse_attr_list(p, &nd->n_attribute, &nd->attribute);
        attrs = true;
    }
    oxp_expect(p, '(');
    parse_id_list(p, &nd->n_input, &nd->input);
    oxp_expect(p, ')');
    if (!attrs && oxp_peekc(p) == '<')
        parse_attr_list(p, &nd->n_attribute, &nd->attribute);
    return nd;
}

static void parse_node_list(parser *p, size_t *n, Onnx__NodeProto ***items)
{
    oxp_expect(p, '{');
    alist l = {0};
    while (!oxp_match(p, '}')) {
        if (oxp_peekc(p) < 0)
            oxp_fail_expected(p, "a node or '}'");
        if (interrupt_pending())
            oxp_fail_msg(p, "interrupted");
        APUSH(p, &l, Onnx__NodeProto *, parse_node(p));
    }
    *n = l.len;
    *items = l.items;
}

static void expect_arrow(parser *p)
{
    oxp_expect(p, '=');
    if (p->pos >= p->len || p->s[p->pos] != '>')
        oxp_fail_expected_hint(p, "'>' right after '=' (the '=>' arrow)",
                           "write '=>' with no space between '=' and '>'");
    p->pos++;
}

static Onnx__GraphProto *parse_graph(parser *p)
{
    oxp_enter(p);
    Onnx__GraphProto *g = NEWMSG(p, Onnx__GraphProto, onnx__graph_proto__init);
    g->name = oxp_parse_qid(p, "a graph name");
    alist ins = {0}, outs = {0}, inits = {0}, vis = {0};
    if (oxp_match(p, '(')) {
        if (!oxp_match(p, ')')) {
            do {
                size_t at;
                Onnx__ValueInfoProto *vi = parse_value_info(p, &at);
                APUSH(p, &ins, Onnx__ValueInfoProto *, vi);
                if (oxp_match(p, '=')) {
                    Onnx__TensorProto *t = tensor_from_type(p, vi->type, vi->name, at);
                    parse_tensor_body(p, t);
                    APUSH(p, &inits, Onnx__TensorProto *, t);
                }
            } while (oxp_match(p, ','));
            oxp_expect(p, ')');
        }
    }
    expect_arrow(p);
    oxp_expect(p, '(');
    if (!oxp_match(p, ')')) {
        do {
            size_t at;
            APUSH(p, &outs, Onnx__ValueInfoProto *, parse_value_info(p, &at));
        } while (oxp_match(p, ','));
        oxp_expect(p, ')');
    }
    if (oxp_match(p, '<')) {
        if (!oxp_match(p, '>')) {
            do {
                size_t at;
                Onnx__ValueInfoProto *vi = parse_value_info(p, &at);
                if (oxp_match(p, '=')) {
                    Onnx__TensorProto *t = tensor_from_type(p, vi->type, vi->name, at);
                    parse_tensor_body(p, t);
                    APUSH(p, &inits, Onnx__TensorProto *, t);
                } else {
                    APUSH(p, &vis, Onnx__ValueInfoProto *, vi);
                }
            } while (oxp_match(p, ','));
            oxp_expect(p, '>');
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
    oxp_expect(p, '[');
    alist l = {0};
    if (!oxp_match(p, ']')) {
        do {
            Onnx__OperatorSetIdProto *o =
                NEWMSG(p, Onnx__OperatorSetIdProto, onnx__operator_set_id_proto__init);
            o->domain = oxp_parse_str(p, NULL);
            oxp_expect(p, ':');
            o->has_version = true;
            o->version = oxp_parse_int(p, "an opset version");
            APUSH(p, &l, Onnx__OperatorSetIdProto *, o);
        } while (oxp_match(p, ','));
        oxp_expect(p, ']');
    }
    *n = l.len;
    *items = l.items;
}

/* Function header key and function body. */
static Onnx__FunctionProto *parse_function(parser *p)
{
    Onnx__FunctionProto *f = NEWMSG(p, Onnx__FunctionProto, onnx__function_proto__init);
    if (oxp_match(p, '<')) {
        do {
            if (oxp_peek_keyword(p, "opset_import")) {
                p->pos += 12;
                oxp_expect(p, ':');
                parse_opsets(p, &f->n_opset_import, &f->opset_import);
            } else if (oxp_peek_keyword(p, "domain") || oxp_peek_keyword(p, "doc_string") ||
                       oxp_peek_keyword(p, "overload")) {
                char **dst = oxp_peek_keyword(p, "domain") ? &f->domain
                             : oxp_peek_keyword(p, "overload") ? &f->overload : &f->doc_string;
                p->pos += oxp_peek_id(p);
                oxp_expect(p, ':');
                *dst = oxp_parse_str(p, NULL);
            } else {
                oxp_fail_expected(p, "a function key (domain, opset_import, overload, doc_string)");
            }
        } while (oxp_match(p, ','));
        oxp_expect(p, '>');
    }
    f->name = oxp_parse_qid(p, "a function name");
    if (oxp_match(p, '<')) {
        alist names = {0}, defs = {0};
        do {
            char *nm = oxp_parse_qid(p, "an attribute name");
            int c = oxp_peekc(p);
            if (c == ':' || c == '=') {
                Onnx__AttributeProto *full = NEWMSG(p, Onnx__AttributeProto, onnx__attribute_proto__init);
                full->name = nm;
                parse_attr_rest(p, full);
                APUSH(p, &defs, Onnx__AttributeProto *, full);
            } else {
                APUSH(p, &names, char *, nm);
            }
        } while (oxp_match(p, ','));
        oxp_expect(p, '>');
        f->n_attribute = names.len;
        f->attribute = names.items;
        f->n_attribute_proto = defs.len;
        f->attribute_proto = defs.items;
    }
    alist vis = {0};
    for (int side = 0; side < 2; side++) {
        alist names = {0};
        oxp_expect(p, '(');
        if (!oxp_match(p, ')')) {
            do {
                size_t at;
                Onnx__ValueInfoProto *vi = parse_value_info(p, &at);
                APUSH(p, &names, char *, vi->name);
                if (vi->type)
                    APUSH(p, &vis, Onnx__ValueInfoProto *, vi);
            } while (oxp_match(p, ','));
            oxp_expect(p, ')');
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
    if (oxp_match(p, '<')) {
        if (!oxp_match(p, '>')) {
            do {
                size_t at;
                APUSH(p, &vis, Onnx__ValueInfoProto *, parse_value_info(p, &at));
            } while (oxp_match(p, ','));
            oxp_expect(p, '>');
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
    if (oxp_match(p, '<')) {
        do {
            size_t n = oxp_peek_id(p);
            const char *k = p->s + p->pos;
#define KW(s) (n == sizeof(s) - 1 && memcmp(k, s, n) == 0)
            if (!n)
                oxp_fail_expected_hint(p, "a model key", "an empty '<>' header is not allowed; drop it");
            if (KW("ir_version") || KW("model_version")) {
                bool ir = KW("ir_version");
                p->pos += n;
                oxp_expect(p, ':');
                int64_t v = oxp_parse_int(p, "an integer");
                if (ir) {
                    m->has_ir_version = true;
                    m->ir_version = v;
                } else {
                    m->has_model_version = true;
                    m->model_version = v;
                }
            } else if (KW("opset_import")) {
                p->pos += n;
                oxp_expect(p, ':');
                parse_opsets(p, &m->n_opset_import, &m->opset_import);
            } else if (KW("producer_name") || KW("producer_version") || KW("domain") ||
                       KW("doc_string")) {
                char **dst = KW("producer_name") ? &m->producer_name
                             : KW("producer_version") ? &m->producer_version
                             : KW("domain") ? &m->domain : &m->doc_string;
                p->pos += n;
                oxp_expect(p, ':');
                *dst = oxp_parse_str(p, NULL);
            } else if (KW("metadata_props")) {
                p->pos += n;
                oxp_expect(p, ':');
                oxp_expect(p, '[');
                alist l = {0};
                if (!oxp_match(p, ']')) {
                    do
                        APUSH(p, &l, Onnx__StringStringEntryProto *, parse_kv(p));
                    while (oxp_match(p, ','));
                    oxp_expect(p, ']');
                }
                m->n_metadata_props = l.len;
                m->metadata_props = l.items;
            } else {
                oxp_fail_expected_hint(p, "a model key",
                                   "model keys are ir_version, opset_import, producer_name, "
                                   "producer_version, domain, model_version, doc_string, "
                                   "metadata_props");
            }
#undef KW
        } while (oxp_match(p, ','));
        oxp_expect(p, '>');
    }
    m->graph = parse_graph(p);
    alist fns = {0};
    while (oxp_peekc(p) >= 0)
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
    if (oxp_peekc(p) >= 0)
        oxp_fail_expected(p, "end of input");
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
