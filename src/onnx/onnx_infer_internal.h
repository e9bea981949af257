/* onnx_infer_internal.h — the inference functions of onnx_infer.c that operator records
 * (onnx_ops.c) name. Each reads the node, its inputs' types and the record's infer_arg from the
 * context and fills the outputs; 0, or -1 with the reason when the inputs contradict the op. */
#ifndef FXSH_ONNX_INFER_INTERNAL_H
#define FXSH_ONNX_INFER_INTERNAL_H

#include <stdbool.h>

#include "onnx/onnx_infer.h"
#include "onnx/onnx_op.h"

int oi_infer_same(oi_ctx *c);              /* arg: output element type, 0 = the input's */
int oi_infer_broadcast(oi_ctx *c);         /* arg: output element type, 0 = the first input's */
int oi_infer_where(oi_ctx *c);
int oi_infer_cast(oi_ctx *c);              /* arg: 1 = CastLike */
int oi_infer_shape(oi_ctx *c);
int oi_infer_size(oi_ctx *c);
int oi_infer_reshape(oi_ctx *c);
int oi_infer_unsqueeze(oi_ctx *c);         /* arg: 1 = Squeeze */
int oi_infer_transpose(oi_ctx *c);
int oi_infer_concat(oi_ctx *c);
int oi_infer_gather(oi_ctx *c);            /* arg: 1 = GatherElements */
int oi_infer_gather_nd(oi_ctx *c);
int oi_infer_det(oi_ctx *c);
int oi_infer_slice(oi_ctx *c);
int oi_infer_split(oi_ctx *c);
int oi_infer_expand(oi_ctx *c);
int oi_infer_constant_of_shape(oi_ctx *c);
int oi_infer_eye_like(oi_ctx *c);
int oi_infer_matmul(oi_ctx *c);
int oi_infer_gemm(oi_ctx *c);
int oi_infer_reduce(oi_ctx *c);            /* every Reduce* */
int oi_infer_argmax(oi_ctx *c);            /* ArgMax, ArgMin */
int oi_infer_pad(oi_ctx *c);
int oi_infer_reverse_sequence(oi_ctx *c);
int oi_infer_tile(oi_ctx *c);
int oi_infer_range(oi_ctx *c);
int oi_infer_topk(oi_ctx *c);
int oi_infer_stft(oi_ctx *c);
int oi_infer_constant(oi_ctx *c);
int oi_infer_nonzero(oi_ctx *c);
int oi_infer_conv_pool(oi_ctx *c);         /* Conv, ConvTranspose, MaxPool, AveragePool, LpPool */

/* Control flow (onnx_infer_control.c): the graph walker (onnx_infer_graph.c) infers a body with
 * body_fn, its inputs bound to the types the node gives them; 0, or -1 with the reason. */
typedef int (*oi_body_fn)(void *walker, const Onnx__GraphProto *body, const oi_type *bound, size_t n_bound,
                          oi_type *outs, size_t n_outs, char *why, size_t why_cap);
bool oi_is_control(const Onnx__NodeProto *n);   /* an ai.onnx If, Loop or Scan */
int oi_infer_control(const Onnx__NodeProto *n, int64_t opset, const oi_type *in, size_t nin, oi_type *out, size_t nout,
                     oi_body_fn body_fn, void *walker, char *why, size_t why_cap);

#endif
