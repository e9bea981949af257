/* onnx_check.h — structural checker for an ONNX model (names, SSA, order, opsets, types).
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
 * and tensors use known element types and non-negative dimensions. */
int ox_check(const ox_model *m, diag_sink *d);

#endif
