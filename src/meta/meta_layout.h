/* meta_layout.h — the layout questions torch's decompositions branch on (Tensor.is_contiguous(),
 * whether a reshape can be a view, the innermost stride), asked of the value meta that meta
 * inference records (meta/meta_infer.h), and a value's static sizes and strides, which the
 * decomposition templates spell out as int lists and matmul's fold test reads.
 *
 * Sizes may be symbolic: the stride model of meta inference (meta_strides.c) answers where it
 * can, comparing sizes the way torch's guards settle them on the example input. Where the meta
 * cannot answer (sizes or strides that are not integer expressions, a layout that is not
 * recorded), each predicate gives the answer of a contiguous layout, as decompose has always
 * assumed for what it could not see.
 *
 * Ownership: nothing here allocates beyond the call. */
#ifndef FXSH_META_DECOMP_LAYOUT_H
#define FXSH_META_DECOMP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fx/fx_ir.h"

#define DL_MAX_RANK 16

/* A tensor value whose sizes are all integers. */
typedef struct dl_tensor {
    fx_dtype dtype;
    size_t rank;
    int64_t size[DL_MAX_RANK];
    int64_t stride[DL_MAX_RANK];   /* contiguous when the meta records none */
} dl_tensor;

/* v's sizes (and strides) when v is a tensor whose sizes and recorded strides are all integers;
 * false otherwise (NULL included). */
bool dl_static(const fx_value *v, dl_tensor *t);

/* Tensor.is_contiguous(): size-1 dimensions may have any stride; no recorded strides count as
 * contiguous. false when v is not a tensor meta whose sizes can be read. */
bool dl_contiguous(const fx_value *v);

/* The innermost stride is 1 (or v is 0-d); true when it is not an integer or not known. */
bool dl_last_stride_1(const fx_value *v);

/* v.reshape(shape) needs no copy (ATen's computeStride finds view strides). shape is the int
 * list argument as given to reshape: ints or SymInt nodes, at most one -1. true when it cannot
 * be decided (v or shape unreadable, sizes without an ordering). */
bool dl_viewable(const fx_value *v, const fx_arg *shape);

#endif
