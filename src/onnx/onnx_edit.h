/* onnx_edit.h — whole-model edits used by the pipeline: copy, rename a value, I/O settings.
 *
 * Ownership: ox_model_copy returns a new model the caller frees with ox_model_free (NULL after
 * reporting to d). The rename functions edit the model in place; names are copied into it. */
#ifndef FXSH_ONNX_EDIT_H
#define FXSH_ONNX_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "onnx/onnx_ir.h"

ox_model *ox_model_copy(const ox_model *m, diag_sink *d);
/* Renames value `from` to `to` everywhere in the main graph and the subgraphs that see it:
 * graph inputs/outputs, initializers, value_info, node inputs and outputs. Returns the number
 * of places changed (0 if `from` does not occur). */
size_t ox_rename_value(ox_model *m, const char *from, const char *to);
/* Makes dimension `axis` of graph input `input` symbolic with the name `param`; false if there
 * is no such input or axis. */
bool ox_set_input_dim_param(ox_model *m, const char *input, int axis, const char *param);

/* Calls fn for every name node n reads: its inputs and the outer values its subgraphs read. */
void ox_node_each_read(const Onnx__NodeProto *n, void (*fn)(const char *name, void *ctx), void *ctx);

/* The type a caller gives a value that becomes a graph input or output: true with its element type
 * and dims (borrowed), false to use the type the model declares. */
typedef bool (*ox_type_fn)(const char *name, void *ctx, int32_t *elem_type, const int64_t **dims, size_t *rank);
/* A new model made of the main-graph nodes keep[i] (graph order) of m and returning the values
 * outputs[0..n_out): the graph inputs and initializers the kept nodes read stay so; every other
 * value they read that a left-out node makes becomes a graph input typed by type_of (may be NULL)
 * or by the model's value_info. Functions, opsets and metadata are kept. The caller frees it;
 * NULL after reporting to d. */
ox_model *ox_extract(const ox_model *m, const bool *keep, const char *const *outputs, size_t n_out, ox_type_fn type_of,
                     void *type_ctx, diag_sink *d);

#endif
