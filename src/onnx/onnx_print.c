/* onnx_print.c — ONNX text printer, a port of onnx 1.20 onnx/defs/printer.cc (ProtoPrinter). */
#include "onnx/onnx_print.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/numfmt.h"

/* Flush to the FILE once this much text is buffered: few, large writes. */
#define FLUSH_AT (1024 * 1024)

typedef struct printer {
    strbuf *sb;
    FILE *out;
    int indent;
    int err;
    const ox_print_opts *opts;   /* NULL: exactly to_text */
} printer;

static void maybe_flush(printer *p)
{
    if (p->out && p->sb->len >= FLUSH_AT && sb_flush_to(p->sb, p->out) != 0) p->err = 1;
}

const char *ox_format_float(char *buf, double v)
{
    /* exactly "%g" (glibc spells NaN with its sign bit as "-nan", which is what the C++ stream
     * writes too), without a printf per element: weights are most of a model's text */
    fmt_g(buf, v);
    return buf;
}

static void put_float(printer *p, double v)
{
    char buf[FMT_NUM_MAX];
    sb_putn(p->sb, buf, fmt_g(buf, v));
}

static void put_i64(printer *p, int64_t v)
{
    char buf[FMT_NUM_MAX];
    sb_putn(p->sb, buf, fmt_i64(buf, v));
}

static void spaces(printer *p, int n)
{
    if (n > 0) sb_spaces(p->sb, (size_t)n);
}

int ox_is_identifier(const char *s)
{
    if (!s || !*s) return 0;
    unsigned char c = (unsigned char)s[0];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_')) return 0;
    for (s++; *s; s++) {
        c = (unsigned char)*s;
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return 1;
}

/* printQuoted of 1.20: escapes '"' and '\', and stops at the first NUL (it walks c_str()). */
static void put_quoted(printer *p, const char *s)
{
    sb_putc(p->sb, '"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') sb_putc(p->sb, '\\');
        sb_putc(p->sb, *s);
    }
    sb_putc(p->sb, '"');
}

/* put_quoted for protobuf bytes, which are not NUL-terminated. */
static void put_quoted_bytes(printer *p, const uint8_t *s, size_t len)
{
    sb_putc(p->sb, '"');
    for (size_t i = 0; i < len && s[i]; i++) {
        if (s[i] == '"' || s[i] == '\\') sb_putc(p->sb, '\\');
        sb_putc(p->sb, (char)s[i]);
    }
    sb_putc(p->sb, '"');
}

/* 1.20 wrote string attribute values, strings lists and opset / function domains raw between
 * quotes: every byte, no escaping (printQuoted took them over only in 1.21). */
static void put_raw_quoted(printer *p, const char *s, size_t len)
{
    sb_putc(p->sb, '"');
    if (s) sb_putn(p->sb, s, len);
    sb_putc(p->sb, '"');
}

static void put_raw_quoted_str(printer *p, const char *s)
{
    put_raw_quoted(p, s, s ? strlen(s) : 0);
}

static void put_id(printer *p, const char *s)
{
    if (ox_is_identifier(s))
        sb_puts(p->sb, s);
    else
        put_quoted(p, s ? s : "");
}

static const char *attr_type_name(int t)
{
    static const char *names[] = {"undefined", "float", "int", "string", "tensor", "graph",
                                  "floats", "ints", "strings", "tensors", "graphs",
                                  "sparse_tensor", "sparse_tensors", "type_proto", "type_protos"};
    return t >= 0 && t <= 14 ? names[t] : "undefined";
}

static void print_graph(printer *p, const Onnx__GraphProto *g);
static void print_type(printer *p, const Onnx__TypeProto *t);

/* ---- types -------------------------------------------------------------------------------- */

static void print_shape_dims(printer *p, const Onnx__TensorShapeProto *s)
{
    sb_putc(p->sb, '[');
    for (size_t i = 0; i < s->n_dim; i++) {
        if (i) sb_putc(p->sb, ',');
        const Onnx__TensorShapeProto__Dimension *d = s->dim[i];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            put_i64(p, d->dim_value);
        else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
            sb_puts(p->sb, d->dim_param ? d->dim_param : "");
        else
            sb_putc(p->sb, '?');
    }
    sb_putc(p->sb, ']');
}

static void print_elem_shape(printer *p, int32_t elem, const Onnx__TensorShapeProto *shape)
{
    sb_puts(p->sb, ox_dtype_name(elem));
    if (!shape)
        sb_puts(p->sb, "[]");
    else if (shape->n_dim > 0)
        print_shape_dims(p, shape);
}

static void print_type(printer *p, const Onnx__TypeProto *t)
{
    if (!t) return;
    switch (t->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
        print_elem_shape(p, t->tensor_type->elem_type, t->tensor_type->shape);
        break;
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
        sb_puts(p->sb, "seq(");
        print_type(p, t->sequence_type->elem_type);
        sb_putc(p->sb, ')');
        break;
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
        sb_puts(p->sb, "map(");
        sb_puts(p->sb, ox_dtype_name(t->map_type->key_type));
        sb_puts(p->sb, ", ");
        print_type(p, t->map_type->value_type);
        sb_putc(p->sb, ')');
        break;
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
        sb_puts(p->sb, "optional(");
        print_type(p, t->optional_type->elem_type);
        sb_putc(p->sb, ')');
        break;
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
        sb_puts(p->sb, "sparse_tensor(");
        print_elem_shape(p, t->sparse_tensor_type->elem_type, t->sparse_tensor_type->shape);
        sb_putc(p->sb, ')');
        break;
    default:   /* opaque and unset print nothing in 1.20 */
        break;
    }
}

static void print_value_info(printer *p, const Onnx__ValueInfoProto *v)
{
    print_type(p, v->type);
    sb_putc(p->sb, ' ');
    put_id(p, v->name);
}

static void print_value_infos(printer *p, Onnx__ValueInfoProto *const *v, size_t n)
{
    sb_putc(p->sb, '(');
    for (size_t i = 0; i < n; i++) {
        if (i) sb_puts(p->sb, ", ");
        print_value_info(p, v[i]);
    }
    sb_putc(p->sb, ')');
}

/* ---- tensors ------------------------------------------------------------------------------ */

static void print_string_entries(printer *p, Onnx__StringStringEntryProto *const *e, size_t n)
{
    sb_putc(p->sb, '[');
    for (size_t i = 0; i < n; i++) {
        if (i) sb_puts(p->sb, ", ");
        put_quoted(p, e[i]->key ? e[i]->key : "");
        sb_puts(p->sb, ": ");
        put_quoted(p, e[i]->value ? e[i]->value : "");
    }
    sb_putc(p->sb, ']');
}

static void print_raw(printer *p, const Onnx__TensorProto *t)
{
    const uint8_t *d = t->raw_data.data;
    size_t len = t->raw_data.len;
    fmap_need(d, len);   /* a derived weight's values are computed where they are */
    /* 1.20 counts elements as raw_data.size() / sizeof(T) and ignores dims. */
    switch (t->data_type) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
        break;
    default:
        sb_puts(p->sb, "...");
        return;
    }
    sb_puts(p->sb, " {");
    size_t sz = t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE ||
                        t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ? 8 : 4;
    for (size_t i = 0; i + sz <= len; i += sz) {
        if (i) sb_putc(p->sb, ',');
        switch (t->data_type) {
        case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: {
            float f;
            memcpy(&f, d + i, 4);
            put_float(p, f);
            break;
        }
        case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: {
            double f;
            memcpy(&f, d + i, 8);
            put_float(p, f);
            break;
        }
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: {
            int32_t v;
            memcpy(&v, d + i, 4);
            put_i64(p, v);
            break;
        }
        default: {
            int64_t v;
            memcpy(&v, d + i, 8);
            put_i64(p, v);
            break;
        }
        }
        maybe_flush(p);
    }
    sb_putc(p->sb, '}');
}

static void print_tensor(printer *p, const Onnx__TensorProto *t, int is_initializer)
{
    sb_puts(p->sb, ox_dtype_name(t->data_type));
    if (t->n_dims) {
        sb_putc(p->sb, '[');
        for (size_t i = 0; i < t->n_dims; i++) {
            if (i) sb_putc(p->sb, ',');
            put_i64(p, t->dims[i]);
        }
        sb_putc(p->sb, ']');
    }
    if (t->name && *t->name) {
        sb_putc(p->sb, ' ');
        put_id(p, t->name);
    }
    if (is_initializer) sb_puts(p->sb, " = ");
    if (p->opts && p->opts->elide_values) {   /* shapes only, as polygraphy inspect shows them */
        size_t count = 1;
        for (size_t i = 0; i < t->n_dims; i++) count *= t->dims[i] > 0 ? (size_t)t->dims[i] : 0;
        if (count > p->opts->elide_over) {
            sb_printf(p->sb, " {... %zu value%s}", count, count == 1 ? "" : "s");
            return;
        }
    }
    if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        print_string_entries(p, t->external_data, t->n_external_data);
        return;
    }
    if (t->has_raw_data) {
        print_raw(p, t);
        return;
    }
    size_t i;
    switch (t->data_type) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16: case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
        sb_puts(p->sb, " {");
        for (i = 0; i < t->n_int32_data; i++) {
            if (i) sb_putc(p->sb, ',');
            put_i64(p, t->int32_data[i]);
            maybe_flush(p);
        }
        sb_putc(p->sb, '}');
        break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
        sb_puts(p->sb, " {");
        for (i = 0; i < t->n_int64_data; i++) {
            if (i) sb_putc(p->sb, ',');
            put_i64(p, t->int64_data[i]);
            maybe_flush(p);
        }
        sb_putc(p->sb, '}');
        break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
        sb_puts(p->sb, " {");
        for (i = 0; i < t->n_uint64_data; i++) {
            if (i) sb_putc(p->sb, ',');
            {
                char buf[FMT_NUM_MAX];
                sb_putn(p->sb, buf, fmt_u64(buf, t->uint64_data[i]));
            }
            maybe_flush(p);
        }
        sb_putc(p->sb, '}');
        break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
        sb_puts(p->sb, " {");
        for (i = 0; i < t->n_float_data; i++) {
            if (i) sb_putc(p->sb, ',');
            put_float(p, t->float_data[i]);
            maybe_flush(p);
        }
        sb_putc(p->sb, '}');
        break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
        sb_puts(p->sb, " {");
        for (i = 0; i < t->n_double_data; i++) {
            if (i) sb_putc(p->sb, ',');
            put_float(p, t->double_data[i]);
            maybe_flush(p);
        }
        sb_putc(p->sb, '}');
        break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__STRING:
        /* the "{" is only written before the first element: an empty list prints "}" */
        for (i = 0; i < t->n_string_data; i++) {
            sb_puts(p->sb, i ? ", " : "{");
            put_quoted_bytes(p, t->string_data[i].data, t->string_data[i].len);
            maybe_flush(p);
        }
        sb_putc(p->sb, '}');
        break;
    default:
        break;
    }
}

/* ---- attributes and nodes ----------------------------------------------------------------- */

static void print_attr(printer *p, const Onnx__AttributeProto *a)
{
    sb_puts(p->sb, a->name ? a->name : "");
    sb_puts(p->sb, ": ");
    sb_puts(p->sb, attr_type_name(a->type));
    sb_puts(p->sb, " = ");
    if (a->ref_attr_name) {
        sb_putc(p->sb, '@');
        sb_puts(p->sb, a->ref_attr_name);
        return;
    }
    size_t i;
    switch (a->type) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        put_float(p, a->f);
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
        put_i64(p, a->i);
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
        put_raw_quoted(p, (const char *)a->s.data, a->s.len);
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
        sb_putc(p->sb, '[');
        for (i = 0; i < a->n_floats; i++) {
            if (i) sb_puts(p->sb, ", ");
            put_float(p, a->floats[i]);
        }
        sb_putc(p->sb, ']');
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
        sb_putc(p->sb, '[');
        for (i = 0; i < a->n_ints; i++) {
            if (i) sb_puts(p->sb, ", ");
            put_i64(p, a->ints[i]);
        }
        sb_putc(p->sb, ']');
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
        /* the "[" is only written before the first element: an empty list prints "]" */
        for (i = 0; i < a->n_strings; i++) {
            sb_puts(p->sb, i ? ", " : "[");
            put_raw_quoted(p, (const char *)a->strings[i].data, a->strings[i].len);
        }
        sb_putc(p->sb, ']');
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
        if (a->t) print_tensor(p, a->t, 0);
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS:
        sb_putc(p->sb, '[');
        for (i = 0; i < a->n_tensors; i++) {
            if (i) sb_puts(p->sb, ", ");
            print_tensor(p, a->tensors[i], 0);
        }
        sb_putc(p->sb, ']');
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
        p->indent += 3;
        if (a->g) print_graph(p, a->g);
        p->indent -= 3;
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS:
        p->indent += 3;
        sb_putc(p->sb, '[');
        for (i = 0; i < a->n_graphs; i++) {
            if (i) sb_puts(p->sb, ", ");
            print_graph(p, a->graphs[i]);
        }
        sb_putc(p->sb, ']');
        p->indent -= 3;
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO:
        print_type(p, a->tp);
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS:
        sb_putc(p->sb, '[');
        for (i = 0; i < a->n_type_protos; i++) {
            if (i) sb_puts(p->sb, ", ");
            print_type(p, a->type_protos[i]);
        }
        sb_putc(p->sb, ']');
        break;
    default:   /* sparse tensors and undefined print nothing */
        break;
    }
}

static void print_attrs(printer *p, const Onnx__NodeProto *n)
{
    sb_puts(p->sb, " <");
    for (size_t i = 0; i < n->n_attribute; i++) {
        if (i) sb_puts(p->sb, ", ");
        print_attr(p, n->attribute[i]);
    }
    sb_putc(p->sb, '>');
}

static void print_node(printer *p, const Onnx__NodeProto *n)
{
    spaces(p, p->indent);
    if (n->name) {
        sb_putc(p->sb, '[');
        put_id(p, n->name);
        sb_puts(p->sb, "] ");
    }
    for (size_t i = 0; i < n->n_output; i++) {
        if (i) sb_puts(p->sb, ", ");
        put_id(p, n->output[i]);
    }
    sb_puts(p->sb, " = ");
    if (n->domain && *n->domain) {
        sb_puts(p->sb, n->domain);
        sb_putc(p->sb, '.');
    }
    sb_puts(p->sb, n->op_type ? n->op_type : "");
    if (n->overload && *n->overload) {
        sb_putc(p->sb, ':');
        sb_puts(p->sb, n->overload);
    }
    bool sub = ox_node_has_subgraph(n);
    if (!sub && n->n_attribute) print_attrs(p, n);
    sb_puts(p->sb, " (");
    for (size_t i = 0; i < n->n_input; i++) {
        if (i) sb_puts(p->sb, ", ");
        put_id(p, n->input[i]);
    }
    sb_putc(p->sb, ')');
    if (sub && n->n_attribute) print_attrs(p, n);
    sb_putc(p->sb, '\n');
    maybe_flush(p);
}

static void print_node_list(printer *p, Onnx__NodeProto *const *nodes, size_t n)
{
    sb_puts(p->sb, "{\n");
    for (size_t i = 0; i < n; i++) print_node(p, nodes[i]);
    if (p->indent > 3) spaces(p, p->indent - 3);
    sb_putc(p->sb, '}');
}

static void print_graph(printer *p, const Onnx__GraphProto *g)
{
    put_id(p, g->name);
    sb_putc(p->sb, ' ');
    print_value_infos(p, g->input, g->n_input);
    sb_puts(p->sb, " => ");
    print_value_infos(p, g->output, g->n_output);
    sb_putc(p->sb, ' ');
    if (g->n_initializer || g->n_value_info) {
        sb_putc(p->sb, '\n');
        spaces(p, p->indent);
        sb_putc(p->sb, '<');
        size_t k = 0;
        for (size_t i = 0; i < g->n_initializer; i++, k++) {
            if (k) sb_puts(p->sb, ", ");
            print_tensor(p, g->initializer[i], 1);
            maybe_flush(p);
        }
        for (size_t i = 0; i < g->n_value_info; i++, k++) {
            if (k) sb_puts(p->sb, ", ");
            print_value_info(p, g->value_info[i]);
        }
        sb_puts(p->sb, ">\n");
    }
    print_node_list(p, g->node, g->n_node);
}

static void print_opsets(printer *p, Onnx__OperatorSetIdProto *const *o, size_t n, const char *sep)
{
    sb_putc(p->sb, '[');
    for (size_t i = 0; i < n; i++) {
        if (i) sb_puts(p->sb, sep);
        put_raw_quoted_str(p, o[i]->domain);
        sb_puts(p->sb, " : ");
        put_i64(p, o[i]->version);
    }
    sb_putc(p->sb, ']');
}

static void print_function(printer *p, const Onnx__FunctionProto *f)
{
    sb_puts(p->sb, "<\n  domain: ");
    put_raw_quoted_str(p, f->domain);
    sb_puts(p->sb, ",\n");
    if (f->overload && *f->overload) {
        sb_puts(p->sb, "  overload: ");
        put_raw_quoted_str(p, f->overload);
        sb_puts(p->sb, ",\n");
    }
    sb_puts(p->sb, "  opset_import: ");
    print_opsets(p, f->opset_import, f->n_opset_import, ",");
    sb_puts(p->sb, "\n>\n");
    put_id(p, f->name);
    sb_putc(p->sb, ' ');
    if (f->n_attribute) {
        sb_putc(p->sb, '<');
        for (size_t i = 0; i < f->n_attribute; i++) {
            if (i) sb_putc(p->sb, ',');
            sb_puts(p->sb, f->attribute[i] ? f->attribute[i] : "");
        }
        sb_putc(p->sb, '>');
    }
    sb_putc(p->sb, '(');
    for (size_t i = 0; i < f->n_input; i++) {
        if (i) sb_puts(p->sb, ", ");
        put_id(p, f->input[i]);
    }
    sb_puts(p->sb, ") => (");
    for (size_t i = 0; i < f->n_output; i++) {
        if (i) sb_puts(p->sb, ", ");
        put_id(p, f->output[i]);
    }
    sb_puts(p->sb, ")\n");
    print_node_list(p, f->node, f->n_node);
}

static void print_model(printer *p, const Onnx__ModelProto *m)
{
    sb_puts(p->sb, "<\n   ir_version: ");
    put_i64(p, m->ir_version);
    sb_puts(p->sb, ",\n   opset_import: ");
    print_opsets(p, m->opset_import, m->n_opset_import, ", ");
    if (m->producer_name) {
        sb_puts(p->sb, ",\n   producer_name: ");
        put_quoted(p, m->producer_name);
    }
    if (m->producer_version) {
        sb_puts(p->sb, ",\n   producer_version: ");
        put_quoted(p, m->producer_version);
    }
    if (m->domain) {
        sb_puts(p->sb, ",\n   domain: ");
        put_quoted(p, m->domain);
    }
    if (m->has_model_version) {
        sb_puts(p->sb, ",\n   model_version: ");
        put_i64(p, m->model_version);
    }
    if (m->doc_string) {
        sb_puts(p->sb, ",\n   doc_string: ");
        put_quoted(p, m->doc_string);
    }
    if (m->n_metadata_props) {
        sb_puts(p->sb, ",\n   metadata_props: ");
        print_string_entries(p, m->metadata_props, m->n_metadata_props);
    }
    sb_puts(p->sb, "\n>\n");
    if (m->graph) {
        print_graph(p, m->graph);
    } else {
        /* an absent graph prints as the default GraphProto */
        Onnx__GraphProto empty = ONNX__GRAPH_PROTO__INIT;
        print_graph(p, &empty);
    }
    for (size_t i = 0; i < m->n_functions; i++) {
        sb_putc(p->sb, '\n');
        print_function(p, m->functions[i]);
        maybe_flush(p);
    }
}

static int finish(printer *p)
{
    if (p->out && sb_flush_to(p->sb, p->out) != 0) p->err = 1;
    return p->err ? -1 : 0;
}

int ox_print_model(const Onnx__ModelProto *m, strbuf *sb, FILE *out)
{
    printer p = {sb, out, 3, 0, NULL};
    print_model(&p, m);
    return finish(&p);
}

int ox_print_model_opts(const Onnx__ModelProto *m, strbuf *sb, FILE *out, const ox_print_opts *o)
{
    printer p = {sb, out, 3, 0, o};
    print_model(&p, m);
    return finish(&p);
}

int ox_print_graph(const Onnx__GraphProto *g, strbuf *sb, FILE *out)
{
    printer p = {sb, out, 3, 0, NULL};
    print_graph(&p, g);
    return finish(&p);
}

int ox_print_function(const Onnx__FunctionProto *f, strbuf *sb, FILE *out)
{
    printer p = {sb, out, 3, 0, NULL};
    print_function(&p, f);
    return finish(&p);
}

int ox_print_node(const Onnx__NodeProto *n, strbuf *sb, FILE *out)
{
    printer p = {sb, out, 3, 0, NULL};
    print_node(&p, n);
    return finish(&p);
}

int ox_print_attribute(const Onnx__AttributeProto *a, strbuf *sb)
{
    printer p = {sb, NULL, 0, 0, NULL};
    print_attr(&p, a);
    return finish(&p);
}

char *ox_model_to_text(const Onnx__ModelProto *m)
{
    strbuf sb;
    sb_init(&sb);
    ox_print_model(m, &sb, NULL);
    return sb_detach(&sb);
}

char *ox_graph_to_text(const Onnx__GraphProto *g)
{
    strbuf sb;
    sb_init(&sb);
    ox_print_graph(g, &sb, NULL);
    return sb_detach(&sb);
}

char *ox_function_to_text(const Onnx__FunctionProto *f)
{
    strbuf sb;
    sb_init(&sb);
    ox_print_function(f, &sb, NULL);
    return sb_detach(&sb);
}
