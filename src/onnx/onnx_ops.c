/* onnx_ops.c — the operator registry: one record per ONNX operator (onnx_op.h), its lookup, and
 * the join with the generated signature and default tables. Adding an operator is adding its
 * line here (and its kernel to the evaluator's family table, keyed by this record). */
#include "onnx/onnx_op.h"

#include <stdbool.h>
#include <string.h>

#include "base/hashmap.h"
#include "onnx/onnx_infer_internal.h"
#include "onnx/onnx_tensor.h"

/* An operator: its name, inference function (NULL: none) and the function's argument; of ai.onnx,
 * or of another domain. */
#define OP(n, fn, a) {.domain = "", .name = (n), .infer = (fn), .infer_arg = (a)}
#define DOMAIN_OP(d, n, fn, a) {.domain = (d), .name = (n), .infer = (fn), .infer_arg = (a)}

/* Sorted by domain ("" first), then name; every operator of onnx_schema_data.c has a line
 * (tests/unit/onnx/test_onnx_ops checks it). */
static ox_op ops[] = {
    OP("Abs", oi_infer_same, 0),
    OP("Acos", oi_infer_same, 0),
    OP("Acosh", oi_infer_same, 0),
    OP("Add", oi_infer_broadcast, 0),
    OP("AffineGrid", oi_infer_affine_grid, 0),
    OP("And", oi_infer_broadcast, 0),
    OP("ArgMax", oi_infer_argmax, 0),
    OP("ArgMin", oi_infer_argmax, 0),
    OP("Asin", oi_infer_same, 0),
    OP("Asinh", oi_infer_same, 0),
    OP("Atan", oi_infer_same, 0),
    OP("Atanh", oi_infer_same, 0),
    OP("Attention", oi_infer_attention, 0),
    OP("AveragePool", oi_infer_conv_pool, 0),
    OP("BatchNormalization", oi_infer_batch_norm, 0),
    OP("Bernoulli", oi_infer_random, 0),
    OP("BitShift", oi_infer_broadcast, 0),
    OP("BitwiseAnd", oi_infer_broadcast, 0),
    OP("BitwiseNot", oi_infer_same, 0),
    OP("BitwiseOr", oi_infer_broadcast, 0),
    OP("BitwiseXor", oi_infer_broadcast, 0),
    OP("BlackmanWindow", oi_infer_window, 0),
    OP("Cast", oi_infer_cast, 0),
    OP("CastLike", oi_infer_cast, 1),
    OP("Ceil", oi_infer_same, 0),
    OP("Celu", oi_infer_same, 0),
    OP("CenterCropPad", oi_infer_center_crop_pad, 0),
    OP("Clip", oi_infer_same, 0),
    OP("Col2Im", oi_infer_col2im, 0),
    OP("Compress", oi_infer_compress, 0),
    OP("Concat", oi_infer_concat, 0),
    OP("ConcatFromSequence", oi_infer_concat_from_sequence, 0),
    OP("Constant", oi_infer_constant, 0),
    OP("ConstantOfShape", oi_infer_constant_of_shape, 0),
    OP("Conv", oi_infer_conv_pool, 0),
    OP("ConvInteger", oi_infer_conv_int, 0),
    OP("ConvTranspose", oi_infer_conv_pool, 0),
    OP("Cos", oi_infer_same, 0),
    OP("Cosh", oi_infer_same, 0),
    OP("CumSum", oi_infer_same, 0),
    OP("DFT", oi_infer_dft, 0),
    OP("DeformConv", oi_infer_conv_pool, 0),
    OP("DepthToSpace", oi_infer_depth_space, 0),
    OP("DequantizeLinear", oi_infer_dequantize, 0),
    OP("Det", oi_infer_det, 0),
    OP("Div", oi_infer_broadcast, 0),
    OP("Dropout", oi_infer_like_first, 0),
    OP("DynamicQuantizeLinear", oi_infer_dynamic_quantize, 0),
    OP("Einsum", oi_infer_einsum, 0),
    OP("Elu", oi_infer_same, 0),
    OP("Equal", oi_infer_broadcast, T_BOOL),
    OP("Erf", oi_infer_same, 0),
    OP("Exp", oi_infer_same, 0),
    OP("Expand", oi_infer_expand, 0),
    OP("EyeLike", oi_infer_eye_like, 0),
    OP("Flatten", oi_infer_flatten, 0),
    OP("Floor", oi_infer_same, 0),
    OP("GRU", oi_infer_rnn, 0),
    OP("Gather", oi_infer_gather, 0),
    OP("GatherElements", oi_infer_gather, 1),
    OP("GatherND", oi_infer_gather_nd, 0),
    OP("Gelu", oi_infer_same, 0),
    OP("Gemm", oi_infer_gemm, 0),
    OP("GlobalAveragePool", oi_infer_global_pool, 0),
    OP("GlobalLpPool", oi_infer_global_pool, 0),
    OP("GlobalMaxPool", oi_infer_global_pool, 0),
    OP("Greater", oi_infer_broadcast, T_BOOL),
    OP("GreaterOrEqual", oi_infer_broadcast, T_BOOL),
    OP("GridSample", oi_infer_grid_sample, 0),
    OP("GroupNormalization", oi_infer_like_first, 1),
    OP("HammingWindow", oi_infer_window, 0),
    OP("HannWindow", oi_infer_window, 0),
    OP("HardSigmoid", oi_infer_same, 0),
    OP("HardSwish", oi_infer_same, 0),
    OP("Hardmax", oi_infer_softmax, 0),
    OP("Identity", oi_infer_same, 0),
    OP("If", NULL, 0),
    OP("ImageDecoder", oi_infer_image_decoder, 0),
    OP("InstanceNormalization", oi_infer_same, 0),
    OP("IsInf", oi_infer_same, T_BOOL),
    OP("IsNaN", oi_infer_same, T_BOOL),
    OP("LRN", oi_infer_same, 0),
    OP("LSTM", oi_infer_rnn, 0),
    OP("LayerNormalization", oi_infer_layer_norm, 0),
    OP("LeakyRelu", oi_infer_same, 0),
    OP("Less", oi_infer_broadcast, T_BOOL),
    OP("LessOrEqual", oi_infer_broadcast, T_BOOL),
    OP("Log", oi_infer_same, 0),
    OP("LogSoftmax", oi_infer_softmax, 0),
    OP("Loop", NULL, 0),
    OP("LpNormalization", oi_infer_same, 0),
    OP("LpPool", oi_infer_conv_pool, 0),
    OP("MatMul", oi_infer_matmul, 0),
    OP("MatMulInteger", oi_infer_matmul_int, 0),
    OP("Max", oi_infer_broadcast, 0),
    OP("MaxPool", oi_infer_conv_pool, 0),
    OP("MaxRoiPool", oi_infer_roi, 0),
    OP("MaxUnpool", oi_infer_max_unpool, 0),
    OP("Mean", oi_infer_broadcast, 0),
    OP("MeanVarianceNormalization", oi_infer_same, 0),
    OP("MelWeightMatrix", oi_infer_mel, 0),
    OP("Min", oi_infer_broadcast, 0),
    OP("Mish", oi_infer_same, 0),
    OP("Mod", oi_infer_broadcast, 0),
    OP("Mul", oi_infer_broadcast, 0),
    OP("Multinomial", oi_infer_multinomial, 0),
    OP("Neg", oi_infer_same, 0),
    OP("NegativeLogLikelihoodLoss", oi_infer_loss, 0),
    OP("NonMaxSuppression", oi_infer_nms, 0),
    OP("NonZero", oi_infer_nonzero, 0),
    OP("Not", oi_infer_same, 0),
    OP("OneHot", oi_infer_one_hot, 0),
    OP("Optional", oi_infer_optional, 0),
    OP("OptionalGetElement", oi_infer_optional_get, 0),
    OP("OptionalHasElement", oi_infer_scalar, T_BOOL),
    OP("Or", oi_infer_broadcast, 0),
    OP("PRelu", oi_infer_same, 0),
    OP("Pad", oi_infer_pad, 0),
    OP("Pow", oi_infer_broadcast, 0),
    OP("QLinearConv", oi_infer_conv_int, 0),
    OP("QLinearMatMul", oi_infer_matmul_int, 0),
    OP("QuantizeLinear", oi_infer_quantize, 0),
    OP("RMSNormalization", oi_infer_like_first, 0),
    OP("RNN", oi_infer_rnn, 0),
    OP("RandomNormal", oi_infer_random, 0),
    OP("RandomNormalLike", oi_infer_random, 0),
    OP("RandomUniform", oi_infer_random, 0),
    OP("RandomUniformLike", oi_infer_random, 0),
    OP("Range", oi_infer_range, 0),
    OP("Reciprocal", oi_infer_same, 0),
    OP("ReduceL1", oi_infer_reduce, 0),
    OP("ReduceL2", oi_infer_reduce, 0),
    OP("ReduceLogSum", oi_infer_reduce, 0),
    OP("ReduceLogSumExp", oi_infer_reduce, 0),
    OP("ReduceMax", oi_infer_reduce, 0),
    OP("ReduceMean", oi_infer_reduce, 0),
    OP("ReduceMin", oi_infer_reduce, 0),
    OP("ReduceProd", oi_infer_reduce, 0),
    OP("ReduceSum", oi_infer_reduce, 0),
    OP("ReduceSumSquare", oi_infer_reduce, 0),
    OP("RegexFullMatch", oi_infer_strings, 0),
    OP("Relu", oi_infer_same, 0),
    OP("Reshape", oi_infer_reshape, 0),
    OP("Resize", oi_infer_resize, 0),
    OP("ReverseSequence", oi_infer_reverse_sequence, 0),
    OP("RoiAlign", oi_infer_roi, 0),
    OP("RotaryEmbedding", oi_infer_like_first, 0),
    OP("Round", oi_infer_same, 0),
    OP("STFT", oi_infer_stft, 0),
    OP("Scan", NULL, 0),
    OP("Scatter", oi_infer_same, 0),
    OP("ScatterElements", oi_infer_same, 0),
    OP("ScatterND", oi_infer_same, 0),
    OP("Selu", oi_infer_same, 0),
    OP("SequenceAt", oi_infer_sequence_at, 0),
    OP("SequenceConstruct", oi_infer_sequence_construct, 0),
    OP("SequenceEmpty", oi_infer_sequence_empty, 0),
    OP("SequenceErase", oi_infer_sequence_edit, 0),
    OP("SequenceInsert", oi_infer_sequence_edit, 0),
    OP("SequenceLength", oi_infer_scalar, T_INT64),
    OP("SequenceMap", NULL, 0),
    OP("Shape", oi_infer_shape, 0),
    OP("Shrink", oi_infer_same, 0),
    OP("Sigmoid", oi_infer_same, 0),
    OP("Sign", oi_infer_same, 0),
    OP("Sin", oi_infer_same, 0),
    OP("Sinh", oi_infer_same, 0),
    OP("Size", oi_infer_size, 0),
    OP("Slice", oi_infer_slice, 0),
    OP("Softmax", oi_infer_softmax, 0),
    OP("SoftmaxCrossEntropyLoss", oi_infer_loss, 1),
    OP("Softplus", oi_infer_same, 0),
    OP("Softsign", oi_infer_same, 0),
    OP("SpaceToDepth", oi_infer_depth_space, 1),
    OP("Split", oi_infer_split, 0),
    OP("SplitToSequence", oi_infer_split_to_sequence, 0),
    OP("Sqrt", oi_infer_same, 0),
    OP("Squeeze", oi_infer_unsqueeze, 1),
    OP("StringConcat", oi_infer_strings, 0),
    OP("StringNormalizer", oi_infer_string_normalizer, 0),
    OP("StringSplit", oi_infer_strings, 0),
    OP("Sub", oi_infer_broadcast, 0),
    OP("Sum", oi_infer_broadcast, 0),
    OP("Swish", oi_infer_like_first, 0),
    OP("Tan", oi_infer_same, 0),
    OP("Tanh", oi_infer_same, 0),
    OP("TensorScatter", oi_infer_same, 0),
    OP("TfIdfVectorizer", oi_infer_tfidf, 0),
    OP("ThresholdedRelu", oi_infer_same, 0),
    OP("Tile", oi_infer_tile, 0),
    OP("TopK", oi_infer_topk, 0),
    OP("Transpose", oi_infer_transpose, 0),
    OP("Trilu", oi_infer_same, 0),
    OP("Unique", oi_infer_unique, 0),
    OP("Unsqueeze", oi_infer_unsqueeze, 0),
    OP("Upsample", oi_infer_resize, 0),
    OP("Where", oi_infer_where, 0),
    OP("Xor", oi_infer_broadcast, 0),
    /* ai.onnx.ml: inference where onnx has it */
    DOMAIN_OP("ai.onnx.ml", "ArrayFeatureExtractor", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "Binarizer", oi_infer_same, 0),
    DOMAIN_OP("ai.onnx.ml", "CastMap", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "CategoryMapper", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "DictVectorizer", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "FeatureVectorizer", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "Imputer", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "LabelEncoder", oi_infer_label_encoder, 0),
    DOMAIN_OP("ai.onnx.ml", "LinearClassifier", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "LinearRegressor", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "Normalizer", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "OneHotEncoder", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "SVMClassifier", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "SVMRegressor", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "Scaler", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "TreeEnsemble", oi_infer_tree_ensemble, 0),
    DOMAIN_OP("ai.onnx.ml", "TreeEnsembleClassifier", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "TreeEnsembleRegressor", NULL, 0),
    DOMAIN_OP("ai.onnx.ml", "ZipMap", NULL, 0),
    DOMAIN_OP("ai.onnx.preview.training", "Adagrad", oi_infer_optimizer, 0),
    DOMAIN_OP("ai.onnx.preview.training", "Adam", oi_infer_optimizer, 0),
    DOMAIN_OP("ai.onnx.preview.training", "Gradient", NULL, 0),
    DOMAIN_OP("ai.onnx.preview.training", "Momentum", oi_infer_optimizer, 0),
};
enum { N_OPS = sizeof ops / sizeof *ops };

static hashmap by_name;        /* name -> first record of that name (any domain) */
static size_t next_named[N_OPS];   /* the next record of the same name, N_OPS at the end */
static bool ready;

/* The rows of the sorted table rows[0..n) (stride bytes apart, the name first) named name. */
static size_t first_row(const void *rows, size_t n, size_t stride, const char *name, size_t *count)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(*(const char *const *)((const char *)rows + mid * stride), name) < 0) lo = mid + 1;
        else hi = mid;
    }
    size_t k = 0;
    while (lo + k < n && !strcmp(*(const char *const *)((const char *)rows + (lo + k) * stride), name)) k++;
    *count = k;
    return lo;
}

/* The signature rows of op: those of its name (sorted by domain next) in its domain. */
static void join_signatures(ox_op *op)
{
    size_t k, at = first_row(ox_op_schema_table, ox_op_schema_count, sizeof *ox_op_schema_table, op->name, &k);
    size_t end = at + k;
    while (at < end && strcmp(ox_op_schema_table[at].domain, op->domain)) at++;
    size_t n = 0;
    while (at + n < end && !strcmp(ox_op_schema_table[at + n].domain, op->domain)) n++;
    op->versions = n ? &ox_op_schema_table[at] : NULL;
    op->n_versions = n;
}

static void init(void)
{
    if (ready) return;
    hm_init(&by_name);
    for (size_t i = N_OPS; i-- > 0;) {   /* backwards, so each chain runs in table order */
        ox_op *op = &ops[i];
        op->id = i;
        ox_op *first = hm_put(&by_name, op->name, op);
        next_named[i] = first ? first->id : N_OPS;
        join_signatures(op);
        if (*op->domain) continue;   /* the defaults (torch.onnx's opset 18) are ai.onnx's */
        size_t k, at = first_row(ox_op_attr_defaults_table, ox_op_attr_defaults_count, sizeof *ox_op_attr_defaults_table,
                       op->name, &k);
        op->defaults = k ? &ox_op_attr_defaults_table[at] : NULL;
    }
    ready = true;
}

const ox_op *ox_op_find(const char *domain, const char *op_type)
{
    if (!op_type) return NULL;
    init();
    if (!domain || !strcmp(domain, "ai.onnx")) domain = "";
    for (const ox_op *op = hm_get(&by_name, op_type); op; op = next_named[op->id] < N_OPS ? &ops[next_named[op->id]] : NULL)
        if (!strcmp(op->domain, domain)) return op;
    return NULL;
}

const ox_op_schema *ox_op_version(const ox_op *op, int64_t opset)
{
    const ox_op_schema *best = NULL;
    for (size_t i = 0; op && i < op->n_versions && op->versions[i].since_version <= opset; i++) best = &op->versions[i];
    return best;
}

size_t ox_op_count(void)
{
    return N_OPS;
}

const ox_op *ox_op_at(size_t id)
{
    init();
    return id < N_OPS ? &ops[id] : NULL;
}
