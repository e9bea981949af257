/* onnx_check.h — checker for an ONNX model: structure (names, SSA, order, opsets, types) and each
 * ai.onnx node against its operator's signature, as onnx.checker.check_model(full_check) does.
 *
 * Ownership: reads the model only; every problem goes to the diag_sink (which copies it). */
#ifndef FXSH_ONNX_CHECK_H
#define FXSH_ONNX_CHECK_H

#include "base/diag.h"
#include "onnx/onnx_ir.h"

/* Checks the model and reports each problem as an error naming the graph, the node index, name
 * and op, and the value. Returns the number of problems (0 = valid). Checked, as
 * onnx.checker.check_model(full_check=True) checks: the ir_version range, opset imports, typed
 * main-graph inputs and outputs, external data files present (onnx_check_model.c); every name
 * used is defined before use (graph inputs, initializers, earlier node outputs, and outer-scope
 * names inside subgraphs), single assignment, graph outputs are produced, opset imports cover
 * every node domain, calls into model-local function domains resolve, If/Loop/Scan body arity,
 * and types and tensors use known element types; then, on a model whose names resolve, that each
 * ai.onnx operator exists (not deprecated) at the imported opset, its input/output counts, its
 * attributes and element types; then ONNX shape inference of every node, bodies included, whose
 * inferred element type, rank or dimension must agree with each declared one (onnx_check_shapes.c).
 * What onnx lets pass but a runtime may refuse is a warning; a declaration fxsh cannot verify, a
 * note. */
int ox_check(const ox_model *m, diag_sink *d);

#endif
