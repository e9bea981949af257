/* onnx_dot.h — Graphviz DOT rendering of an ONNX model's main graph and its subgraphs.
 *
 * Ownership: reads the model only; text is appended to the caller's strbuf. */
#ifndef FXSH_ONNX_DOT_H
#define FXSH_ONNX_DOT_H

#include "base/strbuf.h"
#include "onnx/onnx_ir.h"

/* Appends a "digraph": one box per node labelled "name\nOpType" plus a few short attributes,
 * graph inputs (green ellipses), outputs (blue ellipses) and initializers (grey notes) as
 * distinct shapes, edges labelled "tensor: type" when the type is known, and each If/Loop/Scan
 * body as a "subgraph cluster_..." holding its own nodes only: the edges from outer producers to
 * the body's nodes, and a dashed edge from each body (its first output, leaving the cluster) into
 * its If/Loop/Scan node, are written at the top level, after the graph. */
void view_dot(const ox_model *m, strbuf *out);

#endif
