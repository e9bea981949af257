/* onnx_eval.h — reference evaluator of ONNX: operator kernels and whole graphs on in-memory
 * tensors, with the numerics of onnx.reference (numpy).
 *
 * Two users: the optimizer's constant folding (oe_eval_node on one node, only for the ops
 * oe_op_supported lists) and `run` / `verify` (oe_eval_model on a whole model, If / Loop / Scan,
 * sequences and optionals included). Element types: float, double, float16, bfloat16, the
 * signed and unsigned integers, bool (ONNX codes); no strings or complex numbers.
 *
 * Values (oe_tensor) are onnx/onnx_tensor.h's, owned as it says. Output tensors filled by
 * oe_eval_node() / oe_eval_model() belong to the caller (free them with ot_tensor_free()).
 * Shape and Size read only dims/rank of their input, so callers may pass a shape-only tensor
 * (numel 0, data NULL) for a value whose shape is known but whose data is not. */
#ifndef FXSH_ONNX_EVAL_H
#define FXSH_ONNX_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "onnx/onnx_ir.h"
#include "onnx/onnx_tensor.h"

/* out = t with its axes permuted (out[i] has t's axis perm[i]); OE_ERROR on a bad perm. */
int oe_transpose(const oe_tensor *t, const int64_t *perm, oe_tensor *out);

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
    uint64_t seed;               /* the random operators' stream (a node's seed attribute wins) */
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
