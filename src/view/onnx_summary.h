/* onnx_summary.h — Polygraphy-style one-screen overview of an ONNX model.
 *
 * Ownership: reads the model only; text is appended to the caller's strbuf. */
#ifndef FXSH_ONNX_SUMMARY_H
#define FXSH_ONNX_SUMMARY_H

#include <stdint.h>

#include "base/strbuf.h"
#include "onnx/onnx_ir.h"

/* Appends "key: value" lines: ir_version, producer, opsets, graph name, inputs and outputs with
 * dtype and shape, node counts (top level and with subgraphs), an op histogram (count desc,
 * then name), initializer count and bytes, functions and the number of subgraphs. */
void view_summary(const ox_model *m, strbuf *out);

/* Appends a type in ONNX text syntax: "float[N,3]", "seq(int64[])", "map(string, float)";
 * nothing for a NULL type. Used by the summary and the DOT writer. */
void view_summary_type(strbuf *out, const Onnx__TypeProto *t);

/* Bytes a tensor holds: raw bytes when present (or the length of its external data), else
 * elements times element size. */
uint64_t view_tensor_bytes(const Onnx__TensorProto *t);

/* `params` of an ONNX model: one line per initializer (name, dtype, shape, bytes; "(external
 * data)" for one stored outside the model), then the total, as polygraphy inspect lists them. */
void view_show_params(const ox_model *m, strbuf *out);

#endif
