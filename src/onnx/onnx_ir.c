/* onnx_ir.c — ONNX IR: arena-backed protobuf-c structs, builders, lookups, walks, dtype table. */
#include "onnx/onnx_ir.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/shape.h"

/* Capacities of arrays grown by ox_append, keyed by array address. protobuf-c keeps only a
 * count, and arrays from unpack are exact-sized, so the capacity must live beside the proto.
 * Arena memory is never reused while the model lives, so stale keys can never collide. */
typedef struct ox_cap_slot {
    const void *key;
    size_t cap;
} ox_cap_slot;

struct ox_cap_table {
    ox_cap_slot *slots;
    size_t cap, len;
};

static size_t ptr_hash(const void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static size_t *cap_find(ox_cap_table *t, const void *key, bool insert)
{
    if (insert && (t->len + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 64;
        ox_cap_slot *ns = xcalloc(ncap, sizeof *ns);
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].key) continue;
            size_t j = ptr_hash(t->slots[i].key) & (ncap - 1);
            while (ns[j].key) j = (j + 1) & (ncap - 1);
            ns[j] = t->slots[i];
        }
        free(t->slots);
        t->slots = ns;
        t->cap = ncap;
    }
    if (!t->cap) return NULL;
    size_t j = ptr_hash(key) & (t->cap - 1);
    while (t->slots[j].key) {
        if (t->slots[j].key == key) return &t->slots[j].cap;
        j = (j + 1) & (t->cap - 1);
    }
    if (!insert) return NULL;
    t->slots[j].key = key;
    t->len++;
    return &t->slots[j].cap;
}

static void *pb_alloc(void *data, size_t size)
{
    return arena_alloc((arena *)data, size);
}

static void pb_free(void *data, void *p)
{
    (void)data;
    (void)p;   /* arena memory is released with the model */
}

ox_model *ox_model_new_empty(void)
{
    ox_model *m = xcalloc(1, sizeof *m);
    arena_init(&m->arena);
    m->alloc.alloc = pb_alloc;
    m->alloc.free = pb_free;
    m->alloc.allocator_data = &m->arena;
    m->caps = xcalloc(1, sizeof *m->caps);
    m->proto = arena_alloc(&m->arena, sizeof *m->proto);
    onnx__model_proto__init(m->proto);
    return m;
}

ox_model *ox_model_new(int64_t ir_version)
{
    ox_model *m = ox_model_new_empty();
    m->proto->has_ir_version = 1;
    m->proto->ir_version = ir_version;
    m->proto->graph = ox_graph_new(m, NULL);
    return m;
}

void ox_model_free(ox_model *m)
{
    if (!m) return;
    for (size_t i = 0; i < m->n_maps; i++) fmap_unref(m->maps[i]);
    free(m->maps);
    arena_free(&m->arena);
    if (m->caps) free(m->caps->slots);
    free(m->caps);
    free(m);
}

void ox_model_hold(ox_model *m, fmap *f)
{
    for (size_t i = 0; i < m->n_maps; i++)
        if (m->maps[i] == f) return;
    xgrow((void **)&m->maps, &m->cap_maps, m->n_maps + 1, sizeof *m->maps);
    m->maps[m->n_maps++] = fmap_ref(f);
}

fmap *ox_model_map_of(const ox_model *m, const void *p, size_t len)
{
    if (!p) return NULL;
    for (size_t i = 0; i < m->n_maps; i++)
        if (fmap_holds(m->maps[i], p, len)) return m->maps[i];
    return NULL;
}

void *ox_alloc(ox_model *m, size_t n) { return arena_alloc(&m->arena, n); }
char *ox_strdup(ox_model *m, const char *s) { return arena_strdup(&m->arena, s); }

void *ox_append(ox_model *m, void *items_ptr, size_t *n, size_t elem_size, const void *elem)
{
    char **items = items_ptr;
    size_t *capp = *items ? cap_find(m->caps, *items, false) : NULL;
    size_t cap = capp ? *capp : *n;
    if (*n >= cap) {
        size_t ncap = cap < 4 ? 4 : cap * 2;
        char *na = arena_alloc(&m->arena, ncap * elem_size);
        if (*n) memcpy(na, *items, *n * elem_size);
        *items = na;
        *cap_find(m->caps, na, true) = ncap;
    }
    char *slot = *items + *n * elem_size;
    memcpy(slot, elem, elem_size);
    (*n)++;
    return slot;
}

/* ---- builders ---------------------------------------------------------------------------- */

Onnx__OperatorSetIdProto *ox_model_set_opset(ox_model *m, const char *domain, int64_t version)
{
    Onnx__ModelProto *p = m->proto;
    for (size_t i = 0; i < p->n_opset_import; i++) {
        Onnx__OperatorSetIdProto *o = p->opset_import[i];
        if (strcmp(o->domain ? o->domain : "", domain ? domain : "") == 0) {
            o->has_version = 1;
            o->version = version;
            return o;
        }
    }
    Onnx__OperatorSetIdProto *o = ox_alloc(m, sizeof *o);
    onnx__operator_set_id_proto__init(o);
    o->domain = ox_strdup(m, domain ? domain : "");
    o->has_version = 1;
    o->version = version;
    OX_PUSH(m, p->opset_import, p->n_opset_import, o);
    return o;
}

void ox_function_set_opset(ox_model *m, Onnx__FunctionProto *f, const char *domain, int64_t version)
{
    Onnx__OperatorSetIdProto *o = ox_alloc(m, sizeof *o);
    onnx__operator_set_id_proto__init(o);
    o->domain = ox_strdup(m, domain ? domain : "");
    o->has_version = 1;
    o->version = version;
    OX_PUSH(m, f->opset_import, f->n_opset_import, o);
}

static Onnx__StringStringEntryProto *string_entry(ox_model *m, const char *key, const char *value)
{
    Onnx__StringStringEntryProto *e = ox_alloc(m, sizeof *e);
    onnx__string_string_entry_proto__init(e);
    e->key = ox_strdup(m, key);
    e->value = ox_strdup(m, value);
    return e;
}

void ox_model_add_metadata(ox_model *m, const char *key, const char *value)
{
    OX_PUSH(m, m->proto->metadata_props, m->proto->n_metadata_props, string_entry(m, key, value));
}

void ox_graph_add_metadata(ox_model *m, Onnx__GraphProto *g, const char *key, const char *value)
{
    OX_PUSH(m, g->metadata_props, g->n_metadata_props, string_entry(m, key, value));
}

void ox_node_add_metadata(ox_model *m, Onnx__NodeProto *n, const char *key, const char *value)
{
    OX_PUSH(m, n->metadata_props, n->n_metadata_props, string_entry(m, key, value));
}

void ox_value_add_metadata(ox_model *m, Onnx__ValueInfoProto *v, const char *key, const char *value)
{
    OX_PUSH(m, v->metadata_props, v->n_metadata_props, string_entry(m, key, value));
}

Onnx__GraphProto *ox_graph_new(ox_model *m, const char *name)
{
    Onnx__GraphProto *g = ox_alloc(m, sizeof *g);
    onnx__graph_proto__init(g);
    g->name = ox_strdup(m, name);
    return g;
}

Onnx__FunctionProto *ox_model_add_function(ox_model *m, const char *domain, const char *name)
{
    Onnx__FunctionProto *f = ox_alloc(m, sizeof *f);
    onnx__function_proto__init(f);
    f->domain = ox_strdup(m, domain);
    f->name = ox_strdup(m, name);
    OX_PUSH(m, m->proto->functions, m->proto->n_functions, f);
    return f;
}

Onnx__NodeProto *ox_node_new(ox_model *m, const char *op_type, const char *domain, const char *name)
{
    Onnx__NodeProto *n = ox_alloc(m, sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = ox_strdup(m, op_type);
    n->domain = ox_strdup(m, domain);
    n->name = ox_strdup(m, name);
    return n;
}

Onnx__NodeProto *ox_graph_add_node(ox_model *m, Onnx__GraphProto *g, const char *op_type,
                                   const char *name)
{
    Onnx__NodeProto *n = ox_node_new(m, op_type, NULL, name);
    OX_PUSH(m, g->node, g->n_node, n);
    return n;
}

Onnx__NodeProto *ox_function_add_node(ox_model *m, Onnx__FunctionProto *f, const char *op_type,
                                      const char *name)
{
    Onnx__NodeProto *n = ox_node_new(m, op_type, NULL, name);
    OX_PUSH(m, f->node, f->n_node, n);
    return n;
}

void ox_node_add_input(ox_model *m, Onnx__NodeProto *n, const char *name)
{
    OX_PUSH(m, n->input, n->n_input, ox_strdup(m, name ? name : ""));
}

void ox_node_add_output(ox_model *m, Onnx__NodeProto *n, const char *name)
{
    OX_PUSH(m, n->output, n->n_output, ox_strdup(m, name ? name : ""));
}

void ox_function_add_input(ox_model *m, Onnx__FunctionProto *f, const char *name)
{
    OX_PUSH(m, f->input, f->n_input, ox_strdup(m, name ? name : ""));
}

void ox_function_add_output(ox_model *m, Onnx__FunctionProto *f, const char *name)
{
    OX_PUSH(m, f->output, f->n_output, ox_strdup(m, name ? name : ""));
}

void ox_function_add_attribute_name(ox_model *m, Onnx__FunctionProto *f, const char *name)
{
    OX_PUSH(m, f->attribute, f->n_attribute, ox_strdup(m, name ? name : ""));
}

Onnx__AttributeProto *ox_attr_new(ox_model *m, Onnx__NodeProto *n, const char *name,
                                  Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto *a = ox_alloc(m, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = ox_strdup(m, name);
    a->has_type = 1;
    a->type = type;
    if (n) OX_PUSH(m, n->attribute, n->n_attribute, a);
    return a;
}

Onnx__AttributeProto *ox_attr_float(ox_model *m, Onnx__NodeProto *n, const char *name, float v)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
    return a;
}

Onnx__AttributeProto *ox_attr_int(ox_model *m, Onnx__NodeProto *n, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
    return a;
}

static ProtobufCBinaryData bin_dup(ox_model *m, const void *data, size_t len)
{
    ProtobufCBinaryData b;
    b.len = len;
    b.data = ox_alloc(m, len + 1);   /* NUL-terminated so string values can be used as C strings */
    if (len) memcpy(b.data, data, len);
    return b;
}

Onnx__AttributeProto *ox_attr_bytes(ox_model *m, Onnx__NodeProto *n, const char *name,
                                    const void *data, size_t len)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1;
    a->s = bin_dup(m, data, len);
    return a;
}

Onnx__AttributeProto *ox_attr_string(ox_model *m, Onnx__NodeProto *n, const char *name, const char *v)
{
    return ox_attr_bytes(m, n, name, v, strlen(v));
}

Onnx__AttributeProto *ox_attr_floats(ox_model *m, Onnx__NodeProto *n, const char *name,
                                     const float *v, size_t count)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    a->n_floats = count;
    a->floats = ox_alloc(m, count * sizeof *v);
    if (count) memcpy(a->floats, v, count * sizeof *v);
    return a;
}

Onnx__AttributeProto *ox_attr_ints(ox_model *m, Onnx__NodeProto *n, const char *name,
                                   const int64_t *v, size_t count)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->n_ints = count;
    a->ints = ox_alloc(m, count * sizeof *v);
    if (count) memcpy(a->ints, v, count * sizeof *v);
    return a;
}

Onnx__AttributeProto *ox_attr_strings(ox_model *m, Onnx__NodeProto *n, const char *name,
                                      const char *const *v, size_t count)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
    a->n_strings = count;
    a->strings = ox_alloc(m, count * sizeof *a->strings);
    for (size_t i = 0; i < count; i++) a->strings[i] = bin_dup(m, v[i], strlen(v[i]));
    return a;
}

Onnx__AttributeProto *ox_attr_tensor(ox_model *m, Onnx__NodeProto *n, const char *name,
                                     Onnx__TensorProto *t)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
    a->t = t;
    return a;
}

Onnx__AttributeProto *ox_attr_tensors(ox_model *m, Onnx__NodeProto *n, const char *name,
                                      Onnx__TensorProto **t, size_t count)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS);
    a->n_tensors = count;
    a->tensors = ox_alloc(m, count * sizeof *t);
    if (count) memcpy(a->tensors, t, count * sizeof *t);
    return a;
}

Onnx__AttributeProto *ox_attr_graph(ox_model *m, Onnx__NodeProto *n, const char *name,
                                    Onnx__GraphProto *g)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
    a->g = g;
    return a;
}

Onnx__AttributeProto *ox_attr_graphs(ox_model *m, Onnx__NodeProto *n, const char *name,
                                     Onnx__GraphProto **g, size_t count)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS);
    a->n_graphs = count;
    a->graphs = ox_alloc(m, count * sizeof *g);
    if (count) memcpy(a->graphs, g, count * sizeof *g);
    return a;
}

Onnx__AttributeProto *ox_attr_type(ox_model *m, Onnx__NodeProto *n, const char *name,
                                   Onnx__TypeProto *tp)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO);
    a->tp = tp;
    return a;
}

Onnx__AttributeProto *ox_attr_types(ox_model *m, Onnx__NodeProto *n, const char *name,
                                    Onnx__TypeProto **tp, size_t count)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS);
    a->n_type_protos = count;
    a->type_protos = ox_alloc(m, count * sizeof *tp);
    if (count) memcpy(a->type_protos, tp, count * sizeof *tp);
    return a;
}

Onnx__AttributeProto *ox_attr_sparse(ox_model *m, Onnx__NodeProto *n, const char *name,
                                     Onnx__SparseTensorProto *sp)
{
    Onnx__AttributeProto *a =
        ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR);
    a->sparse_tensor = sp;
    return a;
}

Onnx__AttributeProto *ox_attr_ref(ox_model *m, Onnx__NodeProto *n, const char *name,
                                  Onnx__AttributeProto__AttributeType type, const char *ref)
{
    Onnx__AttributeProto *a = ox_attr_new(m, n, name, type);
    a->ref_attr_name = ox_strdup(m, ref);
    return a;
}

Onnx__TensorProto *ox_tensor_new(ox_model *m, const char *name, int32_t data_type,
                                 const int64_t *dims, size_t ndims)
{
    Onnx__TensorProto *t = ox_alloc(m, sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = ox_strdup(m, name);
    t->has_data_type = 1;
    t->data_type = data_type;
    t->n_dims = ndims;
    t->dims = ox_alloc(m, ndims * sizeof *dims);
    if (ndims) memcpy(t->dims, dims, ndims * sizeof *dims);
    return t;
}

void ox_tensor_set_raw(ox_model *m, Onnx__TensorProto *t, const void *data, size_t len)
{
    t->has_raw_data = 1;
    t->raw_data = bin_dup(m, data, len);
}

void ox_tensor_set_view(ox_model *m, Onnx__TensorProto *t, const void *data, size_t len, fmap *f)
{
    ox_model_hold(m, f);
    t->has_raw_data = 1;
    t->raw_data.data = (uint8_t *)data;
    t->raw_data.len = len;
}

#define SET_TYPED(field, n_field)                                                             \
    do {                                                                                      \
        t->n_field = count;                                                                   \
        t->field = ox_alloc(m, count * sizeof *v);                                            \
        if (count) memcpy(t->field, v, count * sizeof *v);                                    \
    } while (0)

void ox_tensor_set_floats(ox_model *m, Onnx__TensorProto *t, const float *v, size_t count)
{
    SET_TYPED(float_data, n_float_data);
}
void ox_tensor_set_doubles(ox_model *m, Onnx__TensorProto *t, const double *v, size_t count)
{
    SET_TYPED(double_data, n_double_data);
}
void ox_tensor_set_int32s(ox_model *m, Onnx__TensorProto *t, const int32_t *v, size_t count)
{
    SET_TYPED(int32_data, n_int32_data);
}
void ox_tensor_set_int64s(ox_model *m, Onnx__TensorProto *t, const int64_t *v, size_t count)
{
    SET_TYPED(int64_data, n_int64_data);
}
void ox_tensor_set_uint64s(ox_model *m, Onnx__TensorProto *t, const uint64_t *v, size_t count)
{
    SET_TYPED(uint64_data, n_uint64_data);
}

void ox_tensor_add_string(ox_model *m, Onnx__TensorProto *t, const void *data, size_t len)
{
    OX_PUSH(m, t->string_data, t->n_string_data, bin_dup(m, data, len));
}

void ox_tensor_add_external(ox_model *m, Onnx__TensorProto *t, const char *key, const char *value)
{
    Onnx__StringStringEntryProto *e = ox_alloc(m, sizeof *e);
    onnx__string_string_entry_proto__init(e);
    e->key = ox_strdup(m, key);
    e->value = ox_strdup(m, value);
    OX_PUSH(m, t->external_data, t->n_external_data, e);
    t->has_data_location = 1;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
}

int64_t ox_tensor_numel(const Onnx__TensorProto *t)
{
    int64_t n = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        int64_t d = t->dims[i];
        if (d < 0) return -1;
        if (d && n > INT64_MAX / d) return -1;
        n *= d;
    }
    return n;
}

const char *ox_tensor_problem(const Onnx__TensorProto *t, char *buf, size_t cap)
{
    const ox_dtype_info *di = ox_dtype(t->data_type);
    int bits = di ? di->bits : 0;
    int64_t numel;
    uint64_t bytes;
    char why[128];
    /* element size in bytes for the shape check; sub-byte types are checked as packed below */
    const char *bad = shape_problem(t->dims, t->n_dims, bits >= 8 ? (size_t)bits / 8 : 1, &numel, &bytes, why,
                                    sizeof why);
    if (bad) {
        snprintf(buf, cap, "its shape is invalid: %s", bad);
        return buf;
    }
    if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return NULL;
    if (bits > 0 && bits < 8) bytes = ((uint64_t)numel * (uint64_t)bits + 7) / 8;
    const char *type = di ? di->name : "undefined";
    if (t->has_raw_data) {
        if (bits == 0) {
            snprintf(buf, cap, "raw_data of data type %s", type);
            return buf;
        }
        if (t->raw_data.len != bytes) {
            snprintf(buf, cap, "%s data of %" PRId64 " elements needs %" PRIu64 " bytes of raw_data but it holds %zu",
                     type, numel, bytes, t->raw_data.len);
            return buf;
        }
        return NULL;
    }
    /* the typed field the data type uses, and how many values it must hold */
    size_t have = 0;
    const char *field = NULL;
    uint64_t want = (uint64_t)numel, packed = bits > 0 && bits < 8 ? (bytes + 0) : want;
    switch (t->data_type) {
    case 1: field = "float_data"; have = t->n_float_data; break;
    case 14: field = "float_data"; have = t->n_float_data; want *= 2; packed = want; break;
    case 11: field = "double_data"; have = t->n_double_data; break;
    case 15: field = "double_data"; have = t->n_double_data; want *= 2; packed = want; break;
    case 7: field = "int64_data"; have = t->n_int64_data; break;
    case 12: case 13: field = "uint64_data"; have = t->n_uint64_data; break;
    case 8: field = "string_data"; have = t->n_string_data; break;
    default: field = "int32_data"; have = t->n_int32_data; break;
    }
    /* values in another field than the data type's */
    size_t total = t->n_float_data + t->n_double_data + t->n_int64_data + t->n_uint64_data + t->n_string_data +
                   t->n_int32_data;
    if (total == 0) return NULL;
    if (have != total) {
        snprintf(buf, cap, "%s data is stored in another field than %s", type, field);
        return buf;
    }
    if (have != want && have != packed) {
        snprintf(buf, cap, "%s data of %" PRId64 " elements needs %" PRIu64 " values in %s but it holds %zu", type,
                 numel, want, field, have);
        return buf;
    }
    return NULL;
}

void ox_shape_add_dim(ox_model *m, Onnx__TensorShapeProto *s, const char *dim)
{
    Onnx__TensorShapeProto__Dimension *d = ox_alloc(m, sizeof *d);
    onnx__tensor_shape_proto__dimension__init(d);
    if (dim && *dim && strcmp(dim, "?") != 0) {
        char *end;
        long long v = strtoll(dim, &end, 10);
        if (*end == '\0' && (dim[0] == '-' || (dim[0] >= '0' && dim[0] <= '9'))) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = v;
        } else {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = ox_strdup(m, dim);
        }
    }
    OX_PUSH(m, s->dim, s->n_dim, d);
}

static Onnx__TensorShapeProto *make_shape(ox_model *m, const char *const *dims, size_t ndims,
                                          bool known_rank)
{
    if (!known_rank && ndims == 0) return NULL;
    Onnx__TensorShapeProto *s = ox_alloc(m, sizeof *s);
    onnx__tensor_shape_proto__init(s);
    for (size_t i = 0; i < ndims; i++) ox_shape_add_dim(m, s, dims[i]);
    return s;
}

static Onnx__TypeProto *type_new(ox_model *m, Onnx__TypeProto__ValueCase c)
{
    Onnx__TypeProto *tp = ox_alloc(m, sizeof *tp);
    onnx__type_proto__init(tp);
    tp->value_case = c;
    return tp;
}

Onnx__TypeProto *ox_type_tensor(ox_model *m, int32_t elem_type, const char *const *dims,
                                size_t ndims, bool known_rank)
{
    Onnx__TypeProto *tp = type_new(m, ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE);
    tp->tensor_type = ox_alloc(m, sizeof *tp->tensor_type);
    onnx__type_proto__tensor__init(tp->tensor_type);
    tp->tensor_type->has_elem_type = 1;
    tp->tensor_type->elem_type = elem_type;
    tp->tensor_type->shape = make_shape(m, dims, ndims, known_rank);
    return tp;
}

Onnx__TypeProto *ox_type_sparse(ox_model *m, int32_t elem_type, const char *const *dims,
                                size_t ndims, bool known_rank)
{
    Onnx__TypeProto *tp = type_new(m, ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE);
    tp->sparse_tensor_type = ox_alloc(m, sizeof *tp->sparse_tensor_type);
    onnx__type_proto__sparse_tensor__init(tp->sparse_tensor_type);
    tp->sparse_tensor_type->has_elem_type = 1;
    tp->sparse_tensor_type->elem_type = elem_type;
    tp->sparse_tensor_type->shape = make_shape(m, dims, ndims, known_rank);
    return tp;
}

Onnx__TypeProto *ox_type_sequence(ox_model *m, Onnx__TypeProto *elem)
{
    Onnx__TypeProto *tp = type_new(m, ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE);
    tp->sequence_type = ox_alloc(m, sizeof *tp->sequence_type);
    onnx__type_proto__sequence__init(tp->sequence_type);
    tp->sequence_type->elem_type = elem;
    return tp;
}

Onnx__TypeProto *ox_type_optional(ox_model *m, Onnx__TypeProto *elem)
{
    Onnx__TypeProto *tp = type_new(m, ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE);
    tp->optional_type = ox_alloc(m, sizeof *tp->optional_type);
    onnx__type_proto__optional__init(tp->optional_type);
    tp->optional_type->elem_type = elem;
    return tp;
}

Onnx__TypeProto *ox_type_map(ox_model *m, int32_t key_type, Onnx__TypeProto *value)
{
    Onnx__TypeProto *tp = type_new(m, ONNX__TYPE_PROTO__VALUE_MAP_TYPE);
    tp->map_type = ox_alloc(m, sizeof *tp->map_type);
    onnx__type_proto__map__init(tp->map_type);
    tp->map_type->has_key_type = 1;
    tp->map_type->key_type = key_type;
    tp->map_type->value_type = value;
    return tp;
}

Onnx__TypeProto *ox_type_opaque(ox_model *m, const char *domain, const char *name)
{
    Onnx__TypeProto *tp = type_new(m, ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE);
    tp->opaque_type = ox_alloc(m, sizeof *tp->opaque_type);
    onnx__type_proto__opaque__init(tp->opaque_type);
    tp->opaque_type->domain = ox_strdup(m, domain);
    tp->opaque_type->name = ox_strdup(m, name);
    return tp;
}

Onnx__ValueInfoProto *ox_value_info_new(ox_model *m, const char *name, Onnx__TypeProto *type)
{
    Onnx__ValueInfoProto *v = ox_alloc(m, sizeof *v);
    onnx__value_info_proto__init(v);
    v->name = ox_strdup(m, name ? name : "");
    v->type = type;
    return v;
}

Onnx__ValueInfoProto *ox_graph_add_input(ox_model *m, Onnx__GraphProto *g, const char *name,
                                         Onnx__TypeProto *type)
{
    Onnx__ValueInfoProto *v = ox_value_info_new(m, name, type);
    OX_PUSH(m, g->input, g->n_input, v);
    return v;
}

Onnx__ValueInfoProto *ox_graph_add_output(ox_model *m, Onnx__GraphProto *g, const char *name,
                                          Onnx__TypeProto *type)
{
    Onnx__ValueInfoProto *v = ox_value_info_new(m, name, type);
    OX_PUSH(m, g->output, g->n_output, v);
    return v;
}

Onnx__ValueInfoProto *ox_graph_add_value_info(ox_model *m, Onnx__GraphProto *g, const char *name,
                                              Onnx__TypeProto *type)
{
    Onnx__ValueInfoProto *v = ox_value_info_new(m, name, type);
    OX_PUSH(m, g->value_info, g->n_value_info, v);
    return v;
}

void ox_graph_add_initializer(ox_model *m, Onnx__GraphProto *g, Onnx__TensorProto *t)
{
    OX_PUSH(m, g->initializer, g->n_initializer, t);
}

/* ---- lookups ----------------------------------------------------------------------------- */

Onnx__AttributeProto *ox_node_attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0) return n->attribute[i];
    return NULL;
}

static bool is_default_domain(const char *d)
{
    return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

int64_t ox_model_opset(const ox_model *m, const char *domain)
{
    /* the last import of a domain is the one in force, as onnx's checker and inference read them */
    int64_t v = -1;
    for (size_t i = 0; i < m->proto->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->proto->opset_import[i];
        bool match = is_default_domain(domain) ? is_default_domain(o->domain)
                                               : (o->domain && strcmp(o->domain, domain) == 0);
        if (match) v = o->has_version ? o->version : 0;
    }
    return v;
}

bool ox_node_has_subgraph(const Onnx__NodeProto *n)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->g || n->attribute[i]->n_graphs) return true;
    return false;
}

static int walk(Onnx__GraphProto *g, int depth, int max_depth, ox_graph_fn fn, void *ctx)
{
    if (depth > max_depth) return -2;
    int r = fn(g, depth, ctx);
    if (r) return r;
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        for (size_t j = 0; j < n->n_attribute; j++) {
            Onnx__AttributeProto *a = n->attribute[j];
            if (a->g && (r = walk(a->g, depth + 1, max_depth, fn, ctx))) return r;
            for (size_t k = 0; k < a->n_graphs; k++)
                if ((r = walk(a->graphs[k], depth + 1, max_depth, fn, ctx))) return r;
        }
    }
    return 0;
}

int ox_graph_walk(Onnx__GraphProto *g, int max_depth, ox_graph_fn fn, void *ctx)
{
    return g ? walk(g, 0, max_depth, fn, ctx) : 0;
}

int ox_model_walk_graphs(ox_model *m, int max_depth, ox_graph_fn fn, void *ctx)
{
    int r = ox_graph_walk(m->proto->graph, max_depth, fn, ctx);
    for (size_t f = 0; !r && f < m->proto->n_functions; f++) {
        Onnx__FunctionProto *fp = m->proto->functions[f];
        for (size_t i = 0; !r && i < fp->n_node; i++)
            for (size_t j = 0; !r && j < fp->node[i]->n_attribute; j++) {
                Onnx__AttributeProto *a = fp->node[i]->attribute[j];
                if (a->g) r = walk(a->g, 1, max_depth, fn, ctx);
                for (size_t k = 0; !r && k < a->n_graphs; k++)
                    r = walk(a->graphs[k], 1, max_depth, fn, ctx);
            }
    }
    return r;
}

/* ---- data types -------------------------------------------------------------------------- */

static const ox_dtype_info dtypes[OX_DTYPE_MAX + 1] = {
    {0, "undefined", "UNDEFINED", 0, NULL},
    {1, "float", "FLOAT", 32, "torch.float32"},
    {2, "uint8", "UINT8", 8, "torch.uint8"},
    {3, "int8", "INT8", 8, "torch.int8"},
    {4, "uint16", "UINT16", 16, "torch.uint16"},
    {5, "int16", "INT16", 16, "torch.int16"},
    {6, "int32", "INT32", 32, "torch.int32"},
    {7, "int64", "INT64", 64, "torch.int64"},
    {8, "string", "STRING", 0, NULL},
    {9, "bool", "BOOL", 8, "torch.bool"},
    {10, "float16", "FLOAT16", 16, "torch.float16"},
    {11, "double", "DOUBLE", 64, "torch.float64"},
    {12, "uint32", "UINT32", 32, "torch.uint32"},
    {13, "uint64", "UINT64", 64, "torch.uint64"},
    {14, "complex64", "COMPLEX64", 64, "torch.complex64"},
    {15, "complex128", "COMPLEX128", 128, "torch.complex128"},
    {16, "bfloat16", "BFLOAT16", 16, "torch.bfloat16"},
    {17, "float8e4m3fn", "FLOAT8E4M3FN", 8, "torch.float8_e4m3fn"},
    {18, "float8e4m3fnuz", "FLOAT8E4M3FNUZ", 8, "torch.float8_e4m3fnuz"},
    {19, "float8e5m2", "FLOAT8E5M2", 8, "torch.float8_e5m2"},
    {20, "float8e5m2fnuz", "FLOAT8E5M2FNUZ", 8, "torch.float8_e5m2fnuz"},
    {21, "uint4", "UINT4", 4, NULL},
    {22, "int4", "INT4", 4, NULL},
    {23, "float4e2m1", "FLOAT4E2M1", 4, "torch.float4_e2m1fn_x2"},
    {24, "float8e8m0", "FLOAT8E8M0", 8, "torch.float8_e8m0fnu"},
    {25, "uint2", "UINT2", 2, NULL},
    {26, "int2", "INT2", 2, NULL},
};

const ox_dtype_info *ox_dtype(int code)
{
    return code >= 0 && code <= OX_DTYPE_MAX ? &dtypes[code] : NULL;
}

const char *ox_dtype_name(int code)
{
    return code >= 0 && code <= OX_DTYPE_MAX ? dtypes[code].name : "undefined";
}

int ox_dtype_from_name(const char *name)
{
    for (int i = 0; i <= OX_DTYPE_MAX; i++)
        if (strcmp(dtypes[i].name, name) == 0 || strcasecmp(dtypes[i].enum_name, name) == 0) return i;
    return -1;
}

int ox_dtype_from_torch(const char *torch_name)
{
    const char *s = strncmp(torch_name, "torch.", 6) == 0 ? torch_name + 6 : torch_name;
    static const struct { const char *alias; int code; } aliases[] = {
        {"float", 1}, {"half", 10}, {"long", 7}, {"int", 6}, {"short", 5}, {"cfloat", 14},
        {"cdouble", 15}, {"double", 11},
    };
    for (int i = 0; i <= OX_DTYPE_MAX; i++)
        if (dtypes[i].torch && strcmp(dtypes[i].torch + 6, s) == 0) return i;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].alias, s) == 0) return aliases[i].code;
    return -1;
}

size_t ox_dtype_size(int code)
{
    const ox_dtype_info *d = ox_dtype(code);
    if (!d || d->bits == 0) return 0;
    return d->bits < 8 ? 1 : (size_t)d->bits / 8;
}

/* ---- tensors ------------------------------------------------------------------------------ */

static int visit_attr_tensors(Onnx__NodeProto *const *nodes, size_t n, ox_tensor_fn fn, void *ctx)
{
    int r;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < nodes[i]->n_attribute; j++) {
            Onnx__AttributeProto *a = nodes[i]->attribute[j];
            if (a->t && (r = fn(a->t, ctx))) return r;
            for (size_t k = 0; k < a->n_tensors; k++)
                if ((r = fn(a->tensors[k], ctx))) return r;
            if (a->sparse_tensor) {
                if (a->sparse_tensor->values && (r = fn(a->sparse_tensor->values, ctx))) return r;
                if (a->sparse_tensor->indices && (r = fn(a->sparse_tensor->indices, ctx))) return r;
            }
        }
    return 0;
}

typedef struct visit_ctx {
    ox_tensor_fn fn;
    void *ctx;
    bool initializers_only;
} visit_ctx;

static int visit_graph(Onnx__GraphProto *g, int depth, void *vctx)
{
    visit_ctx *v = vctx;
    int r;
    for (size_t i = 0; i < g->n_initializer; i++)
        if ((r = v->fn(g->initializer[i], v->ctx))) return r;
    if (v->initializers_only) return 0;
    for (size_t i = 0; i < g->n_sparse_initializer; i++) {
        Onnx__SparseTensorProto *s = g->sparse_initializer[i];
        if (s->values && (r = v->fn(s->values, v->ctx))) return r;
        if (s->indices && (r = v->fn(s->indices, v->ctx))) return r;
    }
    return visit_attr_tensors(g->node, g->n_node, v->fn, v->ctx);
}

int ox_model_walk_tensors(ox_model *m, bool initializers_only, ox_tensor_fn fn, void *ctx)
{
    visit_ctx v = {fn, ctx, initializers_only};
    int r = ox_model_walk_graphs(m, OX_MAX_GRAPH_DEPTH_WALK, visit_graph, &v);
    if (r || initializers_only) return r;
    for (size_t i = 0; i < m->proto->n_functions; i++) {
        Onnx__FunctionProto *f = m->proto->functions[i];
        if ((r = visit_attr_tensors(f->node, f->n_node, fn, ctx))) return r;
    }
    return 0;
}
