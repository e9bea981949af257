/* onnx_derive.h — derived weights: tensors an optimization computes from other tensors, kept as
 * a recipe and computed only when their bytes are read.
 *
 * A pass that rewrites a weight (BatchNormalization folded into a Conv's weight, a Transpose of
 * an initializer folded) does not compute it: it records the source bytes and a typed kernel,
 * and the new tensor's raw_data is a view into a lazy region (base/fmap.h) that the model holds
 * like a file mapping. `save` streams the region chunk by chunk (fmap_copy_out: the kernel runs
 * on one chunk at a time, in typed loops over the element type, on source bytes read from their
 * file with pread — a transpose, which reads its whole source, reads it through the mapping and
 * drops its pages when done); a reader of the values (the evaluator, `show`, compare) gets them through
 * fmap_copy_out or fmap_need. So a rewritten weight is computed once, when it is written, and the
 * process holds neither a full copy of it nor the whole mapped source.
 *
 * The bytes are exactly those the evaluator's element accessors give (ot_get_f / ot_set_f: the
 * arithmetic in double, rounded once to the tensor's type), whether computed lazily or at once.
 * A source that is not a view of an fmap the model holds (bytes in the model's arena, typed
 * fields) is small in practice and has no lifetime of its own: its derived tensor is computed at
 * once into the model's arena.
 *
 * Ownership: ox_derive_begin returns a builder the pass ends with ox_derive_end. The tensors it
 * fills belong to the model; their bytes live in regions the model holds (ox_model_hold), each
 * of which holds a reference to the fmaps its sources lie in, so a derived tensor stays valid in
 * every copy of the model, after the builder and the original model are gone. */
#ifndef FXSH_ONNX_DERIVE_H
#define FXSH_ONNX_DERIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "onnx/onnx_ir.h"

typedef struct ox_derive ox_derive;

ox_derive *ox_derive_begin(ox_model *m);
void ox_derive_end(ox_derive *d);

/* Whether ox_derive_scale computes tensors of this element type (float32, float16, bfloat16,
 * float64). */
bool ox_derive_scale_supported(int dtype);

/* out (a new tensor of src's element type and dims, no data) becomes src with every element
 * multiplied by factor[k], k its index along axis (n_factor == dims[axis]): the fused weight of a
 * Conv followed by BatchNormalization (axis 0). False (out untouched) when src's data cannot be
 * read as such (external data, a type ox_derive_scale_supported refuses, a size that does not
 * match). factor is copied. */
bool ox_derive_scale(ox_derive *d, Onnx__TensorProto *out, const Onnx__TensorProto *src, int axis,
                     const double *factor, int64_t n_factor);

/* out (a new tensor of src's element type, dims permuted by perm, no data) becomes the
 * transpose of src (ONNX Transpose: out dim i is src dim perm[i]). False as above. */
bool ox_derive_transpose(ox_derive *d, Onnx__TensorProto *out, const Onnx__TensorProto *src,
                         const int64_t *perm);

#endif
