/* onnx_edit.h — whole-model edits used by the pipeline: copy, rename a value, I/O settings.
 *
 * Ownership: ox_model_copy returns a new model the caller frees with ox_model_free (NULL after
 * reporting to d). The rename functions edit the model in place; names are copied into it. */
#ifndef FXSH_ONNX_EDIT_H
#define FXSH_ONNX_EDIT_H

#include <stdbool.h>

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

#endif
