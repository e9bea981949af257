/* onnx_npz.h — numpy's .npy and .npz files to and from evaluator tensors.
 *
 * .npy: format versions 1.0-3.0, little- or big-endian, C or Fortran order, the element types
 * ONNX shares with numpy (no strings or objects); complex64/128 arrays read as their real view
 * (shape + [2], float32/64), which is how torch.onnx represents complex tensors. .npz: a zip of NAME.npy members,
 * stored or deflated; written uncompressed, as numpy.savez does.
 * Ownership: tensors and names returned belong to the caller (ot_tensor_free / free). */
#ifndef FXSH_ONNX_NPZ_H
#define FXSH_ONNX_NPZ_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "eval/onnx_eval.h"

/* True if the bytes start like a .npy / a zip archive. */
bool npy_is_npy(const void *data, size_t len);
bool npy_is_zip(const void *data, size_t len);

/* Decodes one .npy image; `what` names it in errors (a file, or file:member). */
int npy_decode(const void *data, size_t len, const char *what, oe_tensor *out, diag_sink *d);
/* Encodes t as a .npy image (malloc'd, *len bytes). bfloat16 is written as float32 (numpy has
 * no bfloat16). Returns NULL for sequences and optionals. */
void *npy_encode(const oe_tensor *t, size_t *len);

/* One array of an .npz file. */
typedef struct npz_entry {
    char *name;          /* member name without ".npy" */
    oe_tensor value;
} npz_entry;

/* Reads every member of an .npz image, in archive order; -1 after reporting. */
int npz_decode(const void *data, size_t len, const char *what, npz_entry **out, size_t *n, diag_sink *d);
void npz_entries_free(npz_entry *e, size_t n);
/* Writes an uncompressed .npz to path atomically (a temporary file renamed over path). */
int npz_write(const char *path, const char *const *names, const oe_tensor *const *values, size_t n, diag_sink *d);

#endif
