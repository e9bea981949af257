/* onnx_check.h — checker for an ONNX model: structure (names, SSA, order, opsets, types) and each
 * ai.onnx node against its operator's signature, as onnx.checker.check_model(full_check) does.
 *
 * Ownership: reads the model only; every problem goes to the diag_sink (which copies it). */
#ifndef FXSH_ONNX_CHECK_H
#define FXSH_ONNX_CHECK_H

#include "base/diag.h"
#include "onnx/onnx_ir.h"

/* Checks the model and reports each problem as an error naming the graph, the node index, name
 * and op. Returns the number of problems (0 = valid). Checked: every name used is defined
 * before use (graph inputs, initializers, earlier node outputs, and outer-scope names inside
 * subgraphs), single assignment, graph outputs are produced, opset imports cover every node
 * domain, calls into model-local function domains resolve, If/Loop/Scan body arity, and types
 * and tensors use known element types and non-negative dimensions; then, on a model whose names
 * resolve, that each ai.onnx operator exists at the imported opset, its input/output counts, its
 * attributes (required, known, of the right type) and element types (each type variable bound
 * to one allowed type; declared types agree with what the signature gives). Shapes are not
 * inferred. */
int ox_check(const ox_model *m, diag_sink *d);

#endif
