/* onnx_inspect.h — inspection views of an ONNX model for the REPL: nodes, node, find, stats.
 *
 * Output goes to a caller-owned strbuf. Nodes are named by their NodeProto name; a nameless node
 * is addressed as `#N` (its index in the main graph) or by its first output. Nodes of subgraphs
 * appear as `<parent node>/<branch attribute>/<node>`. */
#ifndef FXSH_ONNX_INSPECT_H
#define FXSH_ONNX_INSPECT_H

#include <stddef.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "onnx/onnx_ir.h"

void view_show_nodes(const ox_model *m, strbuf *out);
/* Returns -1 if no node has that name (or output name). */
int view_show_node(const ox_model *m, const char *name, strbuf *out);
/* Nodes whose name, op type or outputs contain text (fold_case: ASCII case ignored); returns
 * how many matched. */
size_t view_find(const ox_model *m, const char *text, bool fold_case, strbuf *out);
/* Where node n came from, from the metadata torch.onnx (and fxsh) write: "module:  ...",
 * "fx node: ..." and "stack:" with one "  file:line in fn: code" line a frame; nothing without it. */
void view_show_provenance(const Onnx__NodeProto *n, strbuf *out);
void view_show_stats(const ox_model *m, strbuf *out);
void view_each_node_name(const ox_model *m, void (*cb)(const char *name, void *ctx), void *ctx);
/* numpy-like summary of initializer `name`; reports to d and returns -1 if absent or unreadable. */
int view_show_initializer(const ox_model *m, const char *name, strbuf *out, diag_sink *d);

#endif
