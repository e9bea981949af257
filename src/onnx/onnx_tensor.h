/* onnx_tensor.h — ONNX values in memory: tensors (every element type the evaluator holds),
 * sequences and optionals, element access and TensorProto conversion. The IR's value type,
 * shared by inference (constant inputs), the evaluator (src/eval) and the value files and
 * views of the shell (src/view).
 *
 * Ownership: an oe_tensor owns its data buffer and, for a sequence or optional, its items
 * (malloc'd through the x* funnel); release it with ot_tensor_free(). Tensors filled by
 * ot_from_proto() belong to the caller. ot_to_proto() returns a tensor allocated in the model's
 * arena. */
#ifndef FXSH_ONNX_TENSOR_H
#define FXSH_ONNX_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "onnx/onnx_ir.h"

#define OE_MAX_RANK 8

/* What a value is: a tensor, a sequence of values, or an optional (no value or one). */
enum { OE_KIND_TENSOR = 0, OE_KIND_SEQUENCE = 1, OE_KIND_OPTIONAL = 2 };

typedef struct oe_tensor {
    int dtype;                    /* ONNX TensorProto.DataType code (element type of a sequence) */
    int rank;
    int64_t dims[OE_MAX_RANK];
    int64_t numel;
    void *data;                   /* numel elements of dtype, row-major; NULL when numel == 0 */
    int kind;                     /* OE_KIND_*; 0 (a tensor) for every zero-initialized value */
    struct oe_tensor *items;      /* a sequence's elements; an optional's value (n_items 0 or 1) */
    int64_t n_items;
} oe_tensor;

/* Result codes of the evaluator. */
enum { OE_OK = 0, OE_UNSUPPORTED = 1, OE_ERROR = -1 };

/* True if the evaluator can hold elements of this type. */
bool ot_dtype_supported(int dtype);
/* Bytes per element of a supported type (0 otherwise). */
size_t ot_dtype_bytes(int dtype);
/* Allocates a tensor of the given type and shape with zeroed data; OE_ERROR on a bad shape
 * (negative dim, rank > OE_MAX_RANK, more elements than the evaluator's hard limit). */
int ot_tensor_init(oe_tensor *t, int dtype, const int64_t *dims, int rank);
void ot_tensor_free(oe_tensor *t);
/* Deep copy (sequences and optionals too). */
void ot_tensor_copy(oe_tensor *dst, const oe_tensor *src);
bool ot_tensor_equal(const oe_tensor *a, const oe_tensor *b);

/* Element access with conversion (bool reads as 0/1; writes of a double to an integer type
 * truncate toward zero like a C cast, writes to bool test != 0, writes to float16 round). */
double ot_get_f(const oe_tensor *t, int64_t i);
int64_t ot_get_i(const oe_tensor *t, int64_t i);
void ot_set_f(oe_tensor *t, int64_t i, double v);
void ot_set_i(oe_tensor *t, int64_t i, int64_t v);

/* Convenience constructors for tests and folding (data is copied). */
int ot_tensor_from_f(oe_tensor *t, int dtype, const int64_t *dims, int rank, const double *v);
int ot_tensor_from_i(oe_tensor *t, int dtype, const int64_t *dims, int rank, const int64_t *v);

/* Sequences and optionals: an empty sequence of elem_dtype; appending moves *item into it (item
 * is left empty); an optional holding *value (moved) or nothing (value NULL). */
void ot_seq_init(oe_tensor *t, int elem_dtype);
void ot_seq_push(oe_tensor *seq, oe_tensor *item);
void ot_optional_init(oe_tensor *t, int elem_dtype, oe_tensor *value);

/* Reads a TensorProto (raw_data or typed fields). OE_UNSUPPORTED for external data, strings,
 * unsupported types or more than max_numel elements (0 = no limit); OE_ERROR if the data does
 * not match the shape. */
int ot_from_proto(const Onnx__TensorProto *p, int64_t max_numel, oe_tensor *out);
/* Builds a TensorProto (raw_data, little-endian like torch writes it) in m's arena. */
Onnx__TensorProto *ot_to_proto(ox_model *m, const oe_tensor *t, const char *name);

/* ONNX TensorProto.DataType codes the element helpers and kernels test for. */
enum {
    T_FLOAT = 1, T_UINT8 = 2, T_INT8 = 3, T_UINT16 = 4, T_INT16 = 5, T_INT32 = 6, T_INT64 = 7,
    T_STRING = 8, T_BOOL = 9, T_FLOAT16 = 10, T_DOUBLE = 11, T_UINT32 = 12, T_UINT64 = 13,
    T_BFLOAT16 = 16
};

/* Hard cap on any tensor the evaluator materialises, so hostile shapes cannot exhaust memory. */
#define OE_HARD_MAX_NUMEL ((int64_t)1 << 28)

/* ---- element helpers -------------------------------------------------------------------------- */

size_t ot_esize(int dtype);
static inline bool oe_is_float(int dtype)
{
    return dtype == T_FLOAT || dtype == T_DOUBLE || dtype == T_FLOAT16 || dtype == T_BFLOAT16;
}
static inline bool oe_is_unsigned(int dtype)
{
    return dtype == T_UINT8 || dtype == T_UINT16 || dtype == T_UINT32 || dtype == T_UINT64;
}
static inline bool oe_is_int(int dtype)
{
    return !oe_is_float(dtype) && dtype != T_BOOL && dtype != T_STRING;
}
/* Rounds v to what dtype can hold (float32, float16 ... rounding; integers truncate and wrap). */
double ot_round_to(int dtype, double v);
float ot_half_to_float(uint16_t h);
uint16_t ot_float_to_half(double x);
float ot_bf16_to_float(uint16_t h);
uint16_t ot_float_to_bf16(double x);

/* A malloc'd array of the tensor's elements as doubles (NULL for an empty tensor). */
double *ot_doubles(const oe_tensor *t);
/* Writes numel doubles into t (already initialized), rounding to its dtype. */
void ot_store_doubles(oe_tensor *t, const double *v);
/* Copies element si of s into element di of d (same dtype). */
static inline void oe_copy_elem(oe_tensor *d, int64_t di, const oe_tensor *s, int64_t si)
{
    size_t es = ot_esize(s->dtype);
    memcpy((char *)d->data + di * es, (const char *)s->data + si * es, es);
}

/* An allocation count: n, or 1 for an empty buffer (so that malloc never gets 0). */
static inline size_t oe_cnt(int64_t n)
{
    return n > 0 ? (size_t)n : 1;
}

void ot_strides(const int64_t *dims, int rank, int64_t *st);
int64_t ot_numel_of(const int64_t *dims, int rank);

#endif
