/* onnx_infer_internal.h — the inference functions of onnx_infer*.c that operator records
 * (onnx_ops.c) name, and the helpers they share. Each reads the node, its inputs' types and the record's infer_arg from the
 * context and fills the outputs; 0, or -1 with the reason when the inputs contradict the op. */
#ifndef FXSH_ONNX_INFER_INTERNAL_H
#define FXSH_ONNX_INFER_INTERNAL_H

#include <stdbool.h>

#include "onnx/onnx_infer.h"
#include "onnx/onnx_op.h"

/* What an inference function sees: the node, its inputs' types, the outputs to fill. */
struct oi_ctx {
    const Onnx__NodeProto *n;
    int64_t opset;
    const oi_type *in;
    size_t nin;
    oi_type *out;
    size_t nout;
    char *why;
    size_t why_cap;
    int arg;                 /* the record's infer_arg */
};

/* Helpers every family shares (onnx_infer.c). */
int oi_fail(oi_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));   /* -1, the reason in why */
const oi_type *oi_in(const oi_ctx *c, size_t i);     /* input i, NULL when absent */
bool oi_known(const oi_type *t);                     /* an element type is known */
bool oi_shaped(const oi_type *t);                    /* ... and a rank */
void oi_unknown_dims(oi_type *t, int rank);          /* rank dims, each unknown */
int64_t oi_attr_i(const oi_ctx *c, const char *name, int64_t def);
int oi_attr_ints(const oi_ctx *c, const char *name, int64_t *v, int cap);   /* count, -1 when absent */
int oi_const_ints(const oi_ctx *c, size_t i, int64_t *v, int cap);          /* count, -1 when not constant */
int oi_norm_axis(int64_t a, int rank);
void oi_like(oi_type *out, const oi_type *in, int elem);   /* in's type and shape, element type elem (0: in's) */
int oi_broadcast(oi_ctx *c, const oi_type *const *ts, size_t k, oi_type *out);   /* ONNX multidirectional */

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
int oi_infer_conv_pool(oi_ctx *c);         /* Conv, ConvTranspose, MaxPool, AveragePool, LpPool, DeformConv */

/* onnx_infer_nn.c */
int oi_infer_like_first(oi_ctx *c);        /* Y like X: GroupNorm, RMSNorm, RotaryEmbedding, Swish; Dropout's mask */
int oi_infer_batch_norm(oi_ctx *c);
int oi_infer_softmax(oi_ctx *c);          /* Softmax, LogSoftmax, Hardmax */
int oi_infer_layer_norm(oi_ctx *c);
int oi_infer_flatten(oi_ctx *c);
int oi_infer_global_pool(oi_ctx *c);
int oi_infer_depth_space(oi_ctx *c);       /* arg: 0 DepthToSpace, 1 SpaceToDepth */
int oi_infer_resize(oi_ctx *c);            /* Resize, Upsample */
int oi_infer_grid_sample(oi_ctx *c);
int oi_infer_affine_grid(oi_ctx *c);
int oi_infer_col2im(oi_ctx *c);
int oi_infer_roi(oi_ctx *c);               /* RoiAlign, MaxRoiPool */
int oi_infer_center_crop_pad(oi_ctx *c);
int oi_infer_max_unpool(oi_ctx *c);
int oi_infer_attention(oi_ctx *c);
int oi_infer_rnn(oi_ctx *c);               /* RNN, GRU, LSTM */
int oi_infer_loss(oi_ctx *c);              /* arg: 0 NegativeLogLikelihoodLoss, 1 SoftmaxCrossEntropyLoss */
int oi_infer_one_hot(oi_ctx *c);
int oi_infer_einsum(oi_ctx *c);

/* onnx_infer_quant.c */
int oi_infer_quantize(oi_ctx *c);
int oi_infer_dequantize(oi_ctx *c);
int oi_infer_dynamic_quantize(oi_ctx *c);
int oi_infer_matmul_int(oi_ctx *c);        /* MatMulInteger, QLinearMatMul */
int oi_infer_conv_int(oi_ctx *c);          /* ConvInteger, QLinearConv */

/* onnx_infer_seq.c */
int oi_infer_sequence_construct(oi_ctx *c);
int oi_infer_sequence_empty(oi_ctx *c);
int oi_infer_sequence_edit(oi_ctx *c);     /* SequenceInsert, SequenceErase */
int oi_infer_sequence_at(oi_ctx *c);
int oi_infer_split_to_sequence(oi_ctx *c);
int oi_infer_concat_from_sequence(oi_ctx *c);
int oi_infer_optional(oi_ctx *c);
int oi_infer_optional_get(oi_ctx *c);

/* onnx_infer_misc.c */
int oi_infer_random(oi_ctx *c);            /* RandomNormal(Like), RandomUniform(Like), Bernoulli */
int oi_infer_multinomial(oi_ctx *c);
int oi_infer_window(oi_ctx *c);            /* Hann, Hamming, Blackman */
int oi_infer_mel(oi_ctx *c);
int oi_infer_unique(oi_ctx *c);
int oi_infer_nms(oi_ctx *c);
int oi_infer_compress(oi_ctx *c);
int oi_infer_string_normalizer(oi_ctx *c);
int oi_infer_strings(oi_ctx *c);           /* StringSplit, StringConcat, RegexFullMatch */
int oi_infer_tfidf(oi_ctx *c);
int oi_infer_dft(oi_ctx *c);
int oi_infer_image_decoder(oi_ctx *c);
int oi_infer_scalar(oi_ctx *c);            /* arg: the element type of the scalar */
int oi_infer_optimizer(oi_ctx *c);

/* onnx_infer_ml.c */
int oi_infer_label_encoder(oi_ctx *c);
int oi_infer_tree_ensemble(oi_ctx *c);         /* Adagrad, Adam, Momentum */

/* Control flow (onnx_infer_control.c): the graph walker (onnx_infer_graph.c) infers a body with
 * body_fn, its inputs bound to the types the node gives them; 0, or -1 with the reason. */
typedef int (*oi_body_fn)(void *walker, const Onnx__GraphProto *body, const oi_type *bound, size_t n_bound,
                          oi_type *outs, size_t n_outs, char *why, size_t why_cap);
bool oi_is_control(const Onnx__NodeProto *n);   /* an ai.onnx If, Loop, Scan or SequenceMap */
int oi_infer_control(const Onnx__NodeProto *n, int64_t opset, const oi_type *in, size_t nin, oi_type *out, size_t nout,
                     oi_body_fn body_fn, void *walker, char *why, size_t why_cap);

#endif
