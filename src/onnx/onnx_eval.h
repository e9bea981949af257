/* onnx_eval.h — reference evaluator of ONNX operators on small in-memory tensors.
 *
 * Used by the optimizer's constant folding; written so that more operators can be added one
 * kernel at a time. Supported element types: float, double, int32, int64, bool (ONNX codes).
 *
 * Ownership: an oe_tensor owns its data buffer (malloc'd through the x* funnel); release it with
 * oe_tensor_free(). Output tensors filled by oe_eval_node()/oe_from_proto() belong to the
 * caller. oe_to_proto() returns a tensor allocated in the model's arena.
 * Shape and Size read only dims/rank of their input, so callers may pass a shape-only tensor
 * (numel 0, data NULL) for a value whose shape is known but whose data is not. */
#ifndef FXSH_ONNX_EVAL_H
#define FXSH_ONNX_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "onnx/onnx_ir.h"

#define OE_MAX_RANK 8

typedef struct oe_tensor {
    int dtype;                    /* ONNX TensorProto.DataType code */
    int rank;
    int64_t dims[OE_MAX_RANK];
    int64_t numel;
    void *data;                   /* numel elements of dtype, row-major; NULL when numel == 0 */
} oe_tensor;

/* Result codes of the evaluator. */
enum { OE_OK = 0, OE_UNSUPPORTED = 1, OE_ERROR = -1 };

/* True if the evaluator can hold elements of this type. */
bool oe_dtype_supported(int dtype);
/* Allocates a tensor of the given type and shape with zeroed data; OE_ERROR on a bad shape
 * (negative dim, rank > OE_MAX_RANK, more than max_numel elements). */
int oe_tensor_init(oe_tensor *t, int dtype, const int64_t *dims, int rank);
void oe_tensor_free(oe_tensor *t);
/* Deep copy. */
void oe_tensor_copy(oe_tensor *dst, const oe_tensor *src);
bool oe_tensor_equal(const oe_tensor *a, const oe_tensor *b);

/* Element access with conversion (bool reads as 0/1; writes of a double to an integer type
 * truncate toward zero like a C cast, writes to bool test != 0). */
double oe_get_f(const oe_tensor *t, int64_t i);
int64_t oe_get_i(const oe_tensor *t, int64_t i);
void oe_set_f(oe_tensor *t, int64_t i, double v);
void oe_set_i(oe_tensor *t, int64_t i, int64_t v);

/* Convenience constructors for tests and folding (data is copied). */
int oe_tensor_from_f(oe_tensor *t, int dtype, const int64_t *dims, int rank, const double *v);
int oe_tensor_from_i(oe_tensor *t, int dtype, const int64_t *dims, int rank, const int64_t *v);

/* Reads a TensorProto (raw_data or typed fields). OE_UNSUPPORTED for external data, strings,
 * unsupported types or more than max_numel elements (0 = no limit); OE_ERROR if the data does
 * not match the shape. */
int oe_from_proto(const Onnx__TensorProto *p, int64_t max_numel, oe_tensor *out);
/* Builds a TensorProto (raw_data, little-endian like torch writes it) in m's arena. */
Onnx__TensorProto *oe_to_proto(ox_model *m, const oe_tensor *t, const char *name);

/* Evaluates node n (default domain) at opset `opset` on inputs in[0..nin) (an absent optional
 * input is NULL) into out[0..nout) (which the caller then owns and frees).
 * OE_UNSUPPORTED when the op, a dtype or an attribute form is not implemented (nothing is
 * reported); OE_ERROR (reported to d, may be NULL) when the inputs are invalid for the op. */
int oe_eval_node(const Onnx__NodeProto *n, int64_t opset, oe_tensor *const *in, size_t nin,
                 oe_tensor *out, size_t nout, diag_sink *d);
/* True if oe_eval_node implements op_type (default domain). */
bool oe_op_supported(const char *op_type);

#endif
