/* onnx_eval.h — reference evaluator of ONNX: operator kernels and whole graphs on in-memory
 * tensors, with the numerics of onnx.reference (numpy).
 *
 * Two users: the optimizer's constant folding (oe_eval_node on one node, only for the ops
 * oe_op_supported lists) and `run` / `verify` (oe_eval_model on a whole model, If / Loop / Scan,
 * sequences and optionals included). Element types: float, double, float16, bfloat16, the
 * signed and unsigned integers, bool (ONNX codes); no strings or complex numbers.
 *
 * Ownership: an oe_tensor owns its data buffer and, for a sequence or optional, its items
 * (malloc'd through the x* funnel); release it with oe_tensor_free(). Output tensors filled by
 * oe_eval_node() / oe_eval_model() / oe_from_proto() belong to the caller. oe_to_proto() returns
 * a tensor allocated in the model's arena.
 * Shape and Size read only dims/rank of their input, so callers may pass a shape-only tensor
 * (numel 0, data NULL) for a value whose shape is known but whose data is not. */
#ifndef FXSH_ONNX_EVAL_H
#define FXSH_ONNX_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "onnx/onnx_ir.h"

#define OE_MAX_RANK 8

/* What a value is: a tensor, a sequence of values, or an optional (no value or one). */
enum { OE_KIND_TENSOR = 0, OE_KIND_SEQUENCE = 1, OE_KIND_OPTIONAL = 2 };

typedef struct oe_tensor {
    int dtype;                    /* ONNX TensorProto.DataType code (element type of a sequence) */
    int rank;
    int64_t dims[OE_MAX_RANK];
    int64_t numel;
    void *data;                   /* numel elements of dtype, row-major; NULL when numel == 0 */
    int kind;                     /* OE_KIND_*; 0 (a tensor) for every zero-initialized value */
    struct oe_tensor *items;      /* a sequence's elements; an optional's value (n_items 0 or 1) */
    int64_t n_items;
} oe_tensor;

/* Result codes of the evaluator. */
enum { OE_OK = 0, OE_UNSUPPORTED = 1, OE_ERROR = -1 };

/* True if the evaluator can hold elements of this type. */
bool oe_dtype_supported(int dtype);
/* Bytes per element of a supported type (0 otherwise). */
size_t oe_dtype_bytes(int dtype);
/* Allocates a tensor of the given type and shape with zeroed data; OE_ERROR on a bad shape
 * (negative dim, rank > OE_MAX_RANK, more elements than the evaluator's hard limit). */
int oe_tensor_init(oe_tensor *t, int dtype, const int64_t *dims, int rank);
void oe_tensor_free(oe_tensor *t);
/* Deep copy (sequences and optionals too). */
void oe_tensor_copy(oe_tensor *dst, const oe_tensor *src);
bool oe_tensor_equal(const oe_tensor *a, const oe_tensor *b);

/* Element access with conversion (bool reads as 0/1; writes of a double to an integer type
 * truncate toward zero like a C cast, writes to bool test != 0, writes to float16 round). */
double oe_get_f(const oe_tensor *t, int64_t i);
int64_t oe_get_i(const oe_tensor *t, int64_t i);
void oe_set_f(oe_tensor *t, int64_t i, double v);
void oe_set_i(oe_tensor *t, int64_t i, int64_t v);

/* Convenience constructors for tests and folding (data is copied). */
int oe_tensor_from_f(oe_tensor *t, int dtype, const int64_t *dims, int rank, const double *v);
int oe_tensor_from_i(oe_tensor *t, int dtype, const int64_t *dims, int rank, const int64_t *v);

/* out = t with its axes permuted (out[i] has t's axis perm[i]); OE_ERROR on a bad perm. */
int oe_transpose(const oe_tensor *t, const int64_t *perm, oe_tensor *out);

/* Sequences and optionals: an empty sequence of elem_dtype; appending moves *item into it (item
 * is left empty); an optional holding *value (moved) or nothing (value NULL). */
void oe_seq_init(oe_tensor *t, int elem_dtype);
void oe_seq_push(oe_tensor *seq, oe_tensor *item);
void oe_optional_init(oe_tensor *t, int elem_dtype, oe_tensor *value);

/* Reads a TensorProto (raw_data or typed fields). OE_UNSUPPORTED for external data, strings,
 * unsupported types or more than max_numel elements (0 = no limit); OE_ERROR if the data does
 * not match the shape. */
int oe_from_proto(const Onnx__TensorProto *p, int64_t max_numel, oe_tensor *out);
/* Builds a TensorProto (raw_data, little-endian like torch writes it) in m's arena. */
Onnx__TensorProto *oe_to_proto(ox_model *m, const oe_tensor *t, const char *name);

/* Evaluates node n (default domain) at opset `opset` on inputs in[0..nin) (an absent optional
 * input is NULL) into out[0..nout) (which the caller then owns and frees). Nodes with
 * subgraphs need oe_eval_model.
 * OE_UNSUPPORTED when the op, a dtype or an attribute form is not implemented (nothing is
 * reported); OE_ERROR (reported to d, may be NULL) when the inputs are invalid for the op. */
int oe_eval_node(const Onnx__NodeProto *n, int64_t opset, oe_tensor *const *in, size_t nin,
                 oe_tensor *out, size_t nout, diag_sink *d);
/* True if constant folding may evaluate op_type (default domain): the ops the optimizer has
 * always folded, a subset of what the evaluator implements. */
bool oe_op_supported(const char *op_type);
/* True if the evaluator implements the op (domain "" / "ai.onnx", or a model-local function
 * is the caller's business). */
bool oe_op_evaluable(const char *domain, const char *op_type);
/* Calls fn for every op type the evaluator implements (default domain), in table order. */
void oe_each_op(void (*fn)(const char *op_type, void *ctx), void *ctx);

/* ---- whole models ------------------------------------------------------------------------------ */

/* Called after each node with each output value (borrowed; valid during the call only). `once`
 * is true for a node of the main graph or of an If branch outside any Loop / Scan body or
 * function: it runs at most once per evaluation and its output names are the model's own (a
 * body's values repeat per iteration, a function's names are local to it). */
typedef void (*oe_observe_fn)(void *ctx, const Onnx__NodeProto *n, const char *name,
                              const oe_tensor *value, bool once);

typedef struct oe_model_opts {
    int max_depth;               /* nesting of If / Loop / Scan / functions; 0 → 64 */
    int64_t max_loop_iters;      /* a Loop without a trip count stops with an error after this
                                    many iterations; 0 → 10,000,000 */
    oe_observe_fn observe;       /* may be NULL */
    void *observe_ctx;
} oe_model_opts;

typedef struct oe_named {
    const char *name;
    const oe_tensor *value;      /* borrowed */
} oe_named;

/* Evaluates the main graph of m. Every graph input must be given by name in inputs[0..nin),
 * except those with an initializer (its value is the default). Fills outputs[0..n_output) in
 * the graph's output order (owned by the caller; freed on failure). OE_ERROR with a message
 * naming the node (to d) on failure: an unsupported op reads "node NAME (Op) is not supported
 * by the evaluator". */
int oe_eval_model(const ox_model *m, const oe_named *inputs, size_t nin, oe_tensor *outputs,
                  const oe_model_opts *opts, diag_sink *d);
/* The graph inputs a caller must provide: those without an initializer, in graph order
 * (pointers into the model). Returns the count; *out is malloc'd (free it). */
size_t oe_model_user_inputs(const ox_model *m, const Onnx__ValueInfoProto ***out);

#endif
