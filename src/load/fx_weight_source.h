/* fx_weight_source.h — attach weights to a program from another file: a .pt2 archive, an .onnx
 * model (initializers by state-dict name) or a .safetensors file; the JSON of a .pt2 alone gives
 * their shapes and dtypes only (a warning says so).
 *
 * Ownership: the bytes are copied into the program's arena, so they live as long as the program
 * and the source file is closed before returning. */
#ifndef FXSH_FX_WEIGHT_SOURCE_H
#define FXSH_FX_WEIGHT_SOURCE_H

#include <stdbool.h>

#include "base/diag.h"
#include "fx/fx_ir.h"

/* Adds (or fills) one program weight per tensor of the file, keyed by FQN. Returns false after
 * reporting to d when the file cannot be read or holds no tensors. *count gets the number
 * of tensors attached (may be NULL). */
bool load_attach_weights(fx_program *p, const char *path, size_t *count, diag_sink *d);
/* The same for a file already in memory (buf, len); path names it in diagnostics and locates an
 * .onnx file's external data. */
bool load_attach_weights_buffer(fx_program *p, const char *buf, size_t len, const char *path, size_t *count,
                              diag_sink *d);

/* Graph text of an exported program (print(ep.graph), print_readable(), print(gm)) names each
 * lifted weight by its placeholder, as torch.export names them (fx_lifted_name: p_fc1_weight for
 * fc1.weight, b_ buffers, c_ constants): binds each such placeholder to the attached weight of that
 * name, gives it the weight's dtype and shape, and writes the signature torch.export would have
 * (the other placeholders user inputs). A placeholder without a weight, a weight without a
 * placeholder (extra_ok: tolerated when some bind, as an .onnx file also holds constants) or an
 * annotation that is not the weight's type is an error listing both sides with a did-you-mean.
 * Does nothing to a program that has a signature. */
bool load_bind_lifted(fx_program *p, const char *path, bool extra_ok, diag_sink *d);

/* What a weights file holds, by its first bytes (as load_attach_weights tells them apart). */
typedef enum fx_weight_format {
    FX_WEIGHTS_UNREADABLE, FX_WEIGHTS_PT2, FX_WEIGHTS_PT2_JSON, FX_WEIGHTS_SAFETENSORS, FX_WEIGHTS_ONNX,
} fx_weight_format;
fx_weight_format load_weight_file_format(const char *path);

#endif
