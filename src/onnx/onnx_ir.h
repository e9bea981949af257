/* onnx_ir.h — the ONNX IR: protobuf-c structs of proto/onnx.proto in a per-model arena.
 *
 * The IR *is* the generated Onnx__* structs, so proto2 presence (has_x / NULL) and unknown
 * fields survive a load/save untouched. Every struct, array and string reachable from
 * ox_model.proto lives in the model's arena, and the whole model is freed by ox_model_free().
 *
 * Ownership: everything returned by an ox_* builder or lookup belongs to the model passed in
 * (or found) and stays valid until ox_model_free(); callers never free() it. Repeated fields
 * grown through the ox_*_add helpers reallocate inside the arena, so do not keep pointers to a
 * repeated field's array across an append (pointers to the elements themselves stay valid).
 * Strings passed in are copied into the arena.
 *
 * Tensor bytes: a TensorProto's raw_data is either OWNED — in the model's arena, freed with it —
 * or a VIEW of bytes inside an fmap (base/fmap.h: a file mapping, or an adopted heap block) the
 * model holds a reference to in ox_model.maps. The weights of a loaded .onnx (inline or external
 * data) and of a .pt2 are views into the file's mapping, and a model made from another (a
 * translation, a copy) takes a reference to the same fmap instead of copying the bytes, so the
 * bytes live as long as any model or program that shows them. Views are read-only: code that
 * changes a tensor's data gives it new bytes (ox_tensor_set_raw), never writes through
 * raw_data.data. ox_model_map_of tells which held fmap a view is in (NULL: owned). */
#ifndef FXSH_ONNX_IR_H
#define FXSH_ONNX_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/fmap.h"
#include "proto/onnx.pb-c.h"

typedef struct ox_cap_table ox_cap_table;

typedef struct ox_model {
    arena arena;                 /* owns every proto struct, array and string of the model */
    Onnx__ModelProto *proto;     /* never NULL */
    char *path;                  /* file it was loaded from / saved to (arena), or NULL */
    ProtobufCAllocator alloc;    /* arena-backed allocator handed to protobuf-c */
    ox_cap_table *caps;          /* capacities of repeated fields grown by the builders */
    fmap **maps;                 /* fmaps raw_data views point into, one reference each */
    size_t n_maps, cap_maps;
} ox_model;

/* ---- model lifetime ---------------------------------------------------------------------- */

/* A new model with ir_version set and an empty, unnamed main graph (no opsets). */
ox_model *ox_model_new(int64_t ir_version);
/* An empty shell (proto == an empty ModelProto, no graph): used by the loaders. */
ox_model *ox_model_new_empty(void);
void ox_model_free(ox_model *m);
/* Makes m hold a reference to f (once: holding an fmap twice adds nothing). */
void ox_model_hold(ox_model *m, fmap *f);
/* The held fmap whose region contains [p, p + len), or NULL (owned bytes, or no data). */
fmap *ox_model_map_of(const ox_model *m, const void *p, size_t len);
/* Copies s into the model's arena (NULL stays NULL). */
char *ox_strdup(ox_model *m, const char *s);
void *ox_alloc(ox_model *m, size_t n);

/* ---- repeated fields --------------------------------------------------------------------- */

/* Appends elem (of elem_size bytes) to the array *items of *n elements, growing geometrically
 * inside the arena; returns the address of the new slot. Works on arrays built by protobuf-c
 * (exact size) as well as on arrays grown here. */
void *ox_append(ox_model *m, void *items_ptr, size_t *n, size_t elem_size, const void *elem);

#define OX_PUSH(m, arr, count, value)                                                        \
    do {                                                                                     \
        __typeof__(*(arr)) ox_push_tmp_ = (value);                                           \
        ox_append((m), &(arr), &(count), sizeof ox_push_tmp_, &ox_push_tmp_);                \
    } while (0)

/* ---- builders ---------------------------------------------------------------------------- */

Onnx__OperatorSetIdProto *ox_model_set_opset(ox_model *m, const char *domain, int64_t version);
Onnx__GraphProto *ox_graph_new(ox_model *m, const char *name);
Onnx__FunctionProto *ox_model_add_function(ox_model *m, const char *domain, const char *name);
void ox_model_add_metadata(ox_model *m, const char *key, const char *value);
/* metadata_props entries (key, value copied) on a graph, a node, a value (input/output/value_info). */
void ox_graph_add_metadata(ox_model *m, Onnx__GraphProto *g, const char *key, const char *value);
void ox_node_add_metadata(ox_model *m, Onnx__NodeProto *n, const char *key, const char *value);
void ox_value_add_metadata(ox_model *m, Onnx__ValueInfoProto *v, const char *key, const char *value);

Onnx__NodeProto *ox_node_new(ox_model *m, const char *op_type, const char *domain, const char *name);
Onnx__NodeProto *ox_graph_add_node(ox_model *m, Onnx__GraphProto *g, const char *op_type,
                                   const char *name);
Onnx__NodeProto *ox_function_add_node(ox_model *m, Onnx__FunctionProto *f, const char *op_type,
                                      const char *name);
void ox_node_add_input(ox_model *m, Onnx__NodeProto *n, const char *name);
void ox_node_add_output(ox_model *m, Onnx__NodeProto *n, const char *name);
void ox_function_add_input(ox_model *m, Onnx__FunctionProto *f, const char *name);
void ox_function_add_output(ox_model *m, Onnx__FunctionProto *f, const char *name);
void ox_function_add_attribute_name(ox_model *m, Onnx__FunctionProto *f, const char *name);
void ox_function_set_opset(ox_model *m, Onnx__FunctionProto *f, const char *domain, int64_t version);

/* Attributes: each appends a new attribute of the given kind to the node and returns it. */
Onnx__AttributeProto *ox_attr_new(ox_model *m, Onnx__NodeProto *n, const char *name,
                                  Onnx__AttributeProto__AttributeType type);
Onnx__AttributeProto *ox_attr_float(ox_model *m, Onnx__NodeProto *n, const char *name, float v);
Onnx__AttributeProto *ox_attr_int(ox_model *m, Onnx__NodeProto *n, const char *name, int64_t v);
Onnx__AttributeProto *ox_attr_string(ox_model *m, Onnx__NodeProto *n, const char *name, const char *v);
Onnx__AttributeProto *ox_attr_bytes(ox_model *m, Onnx__NodeProto *n, const char *name,
                                    const void *data, size_t len);
Onnx__AttributeProto *ox_attr_floats(ox_model *m, Onnx__NodeProto *n, const char *name,
                                     const float *v, size_t count);
Onnx__AttributeProto *ox_attr_ints(ox_model *m, Onnx__NodeProto *n, const char *name,
                                   const int64_t *v, size_t count);
Onnx__AttributeProto *ox_attr_strings(ox_model *m, Onnx__NodeProto *n, const char *name,
                                      const char *const *v, size_t count);
Onnx__AttributeProto *ox_attr_tensor(ox_model *m, Onnx__NodeProto *n, const char *name,
                                     Onnx__TensorProto *t);
Onnx__AttributeProto *ox_attr_tensors(ox_model *m, Onnx__NodeProto *n, const char *name,
                                      Onnx__TensorProto **t, size_t count);
Onnx__AttributeProto *ox_attr_graph(ox_model *m, Onnx__NodeProto *n, const char *name,
                                    Onnx__GraphProto *g);
Onnx__AttributeProto *ox_attr_graphs(ox_model *m, Onnx__NodeProto *n, const char *name,
                                     Onnx__GraphProto **g, size_t count);
Onnx__AttributeProto *ox_attr_type(ox_model *m, Onnx__NodeProto *n, const char *name,
                                   Onnx__TypeProto *tp);
Onnx__AttributeProto *ox_attr_types(ox_model *m, Onnx__NodeProto *n, const char *name,
                                    Onnx__TypeProto **tp, size_t count);
Onnx__AttributeProto *ox_attr_sparse(ox_model *m, Onnx__NodeProto *n, const char *name,
                                     Onnx__SparseTensorProto *sp);
/* A reference to the enclosing function's attribute: name: type = @ref. */
Onnx__AttributeProto *ox_attr_ref(ox_model *m, Onnx__NodeProto *n, const char *name,
                                  Onnx__AttributeProto__AttributeType type, const char *ref);

/* Tensors. dims may be NULL when ndims == 0 (a scalar). */
Onnx__TensorProto *ox_tensor_new(ox_model *m, const char *name, int32_t data_type,
                                 const int64_t *dims, size_t ndims);
/* Copies data into the model's arena: the tensor owns its bytes. */
void ox_tensor_set_raw(ox_model *m, Onnx__TensorProto *t, const void *data, size_t len);
/* No copy: raw_data becomes a view of data, which lies inside f; m holds a reference to f. */
void ox_tensor_set_view(ox_model *m, Onnx__TensorProto *t, const void *data, size_t len, fmap *f);
void ox_tensor_set_floats(ox_model *m, Onnx__TensorProto *t, const float *v, size_t count);
void ox_tensor_set_doubles(ox_model *m, Onnx__TensorProto *t, const double *v, size_t count);
void ox_tensor_set_int32s(ox_model *m, Onnx__TensorProto *t, const int32_t *v, size_t count);
void ox_tensor_set_int64s(ox_model *m, Onnx__TensorProto *t, const int64_t *v, size_t count);
void ox_tensor_set_uint64s(ox_model *m, Onnx__TensorProto *t, const uint64_t *v, size_t count);
void ox_tensor_add_string(ox_model *m, Onnx__TensorProto *t, const void *data, size_t len);
void ox_tensor_add_external(ox_model *m, Onnx__TensorProto *t, const char *key, const char *value);
/* Number of elements (product of dims; 1 for a scalar); -1 on a negative dim or overflow. */
int64_t ox_tensor_numel(const Onnx__TensorProto *t);
/* NULL when t's dims are valid (none negative, element count and byte size within int64) and
 * the data it holds, if any, is exactly what its data type and dims need (raw_data bytes or the
 * typed field's count; external data is not checked until it is read); otherwise what is
 * wrong, written to buf. A tensor without any data passes. */
const char *ox_tensor_problem(const Onnx__TensorProto *t, char *buf, size_t cap);

/* Types. A dim is given as a string: a decimal number → dim_value, "?" or "" → unknown,
 * anything else → dim_param. dims == NULL with ndims == 0 and known_rank false → no shape. */
Onnx__TypeProto *ox_type_tensor(ox_model *m, int32_t elem_type, const char *const *dims,
                                size_t ndims, bool known_rank);
Onnx__TypeProto *ox_type_sparse(ox_model *m, int32_t elem_type, const char *const *dims,
                                size_t ndims, bool known_rank);
Onnx__TypeProto *ox_type_sequence(ox_model *m, Onnx__TypeProto *elem);
Onnx__TypeProto *ox_type_optional(ox_model *m, Onnx__TypeProto *elem);
Onnx__TypeProto *ox_type_map(ox_model *m, int32_t key_type, Onnx__TypeProto *value);
Onnx__TypeProto *ox_type_opaque(ox_model *m, const char *domain, const char *name);
void ox_shape_add_dim(ox_model *m, Onnx__TensorShapeProto *s, const char *dim);

Onnx__ValueInfoProto *ox_value_info_new(ox_model *m, const char *name, Onnx__TypeProto *type);
Onnx__ValueInfoProto *ox_graph_add_input(ox_model *m, Onnx__GraphProto *g, const char *name,
                                         Onnx__TypeProto *type);
Onnx__ValueInfoProto *ox_graph_add_output(ox_model *m, Onnx__GraphProto *g, const char *name,
                                          Onnx__TypeProto *type);
Onnx__ValueInfoProto *ox_graph_add_value_info(ox_model *m, Onnx__GraphProto *g, const char *name,
                                              Onnx__TypeProto *type);
void ox_graph_add_initializer(ox_model *m, Onnx__GraphProto *g, Onnx__TensorProto *t);

/* ---- lookups ----------------------------------------------------------------------------- */

Onnx__AttributeProto *ox_node_attr(const Onnx__NodeProto *n, const char *name);  /* NULL if absent */
/* Opset version imported for domain ("" and "ai.onnx" are the same); -1 if not imported. */
int64_t ox_model_opset(const ox_model *m, const char *domain);
/* True if the node has a GRAPH or GRAPHS attribute (or any attribute with g set). */
bool ox_node_has_subgraph(const Onnx__NodeProto *n);

/* Calls fn(g, depth, ctx) for g and every graph nested in its node attributes, depth-first in
 * proto order (g itself has depth 0). Stops and returns the first non-zero fn result.
 * Recursion is bounded by max_depth: deeper graphs are not visited and the walk returns -2. */
typedef int (*ox_graph_fn)(Onnx__GraphProto *g, int depth, void *ctx);
int ox_graph_walk(Onnx__GraphProto *g, int max_depth, ox_graph_fn fn, void *ctx);
/* Calls fn on the main graph (with subgraphs), then on every function's nodes' subgraphs. */
int ox_model_walk_graphs(ox_model *m, int max_depth, ox_graph_fn fn, void *ctx);

/* Calls fn(t, ctx) on every tensor of the model in a fixed order — each graph's initializers,
 * then (unless initializers_only) its sparse initializers and node attribute tensors, through
 * every subgraph, then the tensors of function nodes — and returns the first non-zero result;
 * -2 when subgraphs nest deeper than OX_MAX_GRAPH_DEPTH_WALK. Two models of the same structure
 * (a model and its copy) are visited in the same order. */
#define OX_MAX_GRAPH_DEPTH_WALK 65
typedef int (*ox_tensor_fn)(Onnx__TensorProto *t, void *ctx);
int ox_model_walk_tensors(ox_model *m, bool initializers_only, ox_tensor_fn fn, void *ctx);

/* ---- data types -------------------------------------------------------------------------- */

typedef struct ox_dtype_info {
    int code;                /* TensorProto.DataType value */
    const char *name;        /* onnx.printer name: "float", "int64", "float8e4m3fn" ... */
    const char *enum_name;   /* "FLOAT", "INT64", ... */
    int bits;                /* element size in bits (4 for int4, 2 for int2; 0 for string) */
    const char *torch;       /* "torch.float32", ... or NULL when torch has no such dtype */
} ox_dtype_info;

#define OX_DTYPE_MAX 26
/* The newest IR version onnx 1.20's checker accepts. */
#define OX_IR_VERSION_MAX 13
/* Info for a data type code; NULL when out of range. Code 0 is "undefined". */
const ox_dtype_info *ox_dtype(int code);
/* The printer's name ("undefined" for unknown codes). */
const char *ox_dtype_name(int code);
/* Code from a printer name ("float") or a torch dtype ("torch.float32"/"float32"); -1 if none. */
int ox_dtype_from_name(const char *name);
int ox_dtype_from_torch(const char *torch_name);
/* Element size in bytes rounded up (0 for string, undefined, and sub-byte types report 1). */
size_t ox_dtype_size(int code);

#endif
