/* shape.h — checked element counts and byte sizes of tensor shapes: every loader refuses a
 * negative dimension, and a shape whose element count or byte size overflows 64 bits, once at
 * load, so that later code can multiply dimensions without checks.
 *
 * Ownership: nothing is allocated; shape_problem writes into the caller's buffer. */
#ifndef FXSH_SHAPE_H
#define FXSH_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest byte size a tensor may have (sizes are int64 in torch and ONNX). */
#define SHAPE_MAX_BYTES ((uint64_t)INT64_MAX)

/* Product of dims[0..rank). False when a dimension is negative or the product overflows
 * int64; *bad (may be NULL) then gets the index of the offending dimension. */
bool shape_numel(const int64_t *dims, size_t rank, int64_t *numel, size_t *bad);
/* numel elements of elem_size bytes (0: a 4-bit type, two elements per byte) as bytes; false
 * when that exceeds SHAPE_MAX_BYTES. */
bool shape_bytes(int64_t numel, size_t elem_size, uint64_t *bytes);
/* NULL when the shape is valid (numel and bytes, if not NULL, get its sizes); otherwise what is
 * wrong with it, e.g. "dimension 1 is -3 (negative)", written to buf (cap bytes). */
const char *shape_problem(const int64_t *dims, size_t rank, size_t elem_size, int64_t *numel, uint64_t *bytes,
                          char *buf, size_t cap);
/* A dimension written as decimal digits ("12", "-3", "99999999999999999999"): 1 and *out set when
 * it is a valid size, -1 when it is a number but negative or out of int64's range, 0 when it
 * is not a plain integer (a symbol such as "s77", an expression). */
int shape_parse_dim(const char *s, int64_t *out);
/* shape_problem for sizes written as text (a declared input "x=f32[3,s77]"): concrete sizes are
 * checked and multiplied, symbols are skipped. */
const char *shape_text_problem(const char *const *dims, size_t rank, size_t elem_size, char *buf, size_t cap);

#endif
