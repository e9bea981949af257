/* onnx_infer_misc.c — type and shape inference of the operators that make or select data rather
 * than compute on it elementwise: random generators, windows and the mel matrix, Unique,
 * NonMaxSuppression, Compress, the string operators, TfIdfVectorizer, DFT, ImageDecoder, the
 * scalar answers of Optional / Sequence ops and the training preview's optimizers, as onnx/defs
 * computes them. */
#include <string.h>

#include "onnx/onnx_infer_internal.h"

#define T_FLOAT ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
#define T_INT32 ONNX__TENSOR_PROTO__DATA_TYPE__INT32
#define T_INT64 ONNX__TENSOR_PROTO__DATA_TYPE__INT64
#define T_BOOL ONNX__TENSOR_PROTO__DATA_TYPE__BOOL
#define T_UINT8 ONNX__TENSOR_PROTO__DATA_TYPE__UINT8
#define T_STRING ONNX__TENSOR_PROTO__DATA_TYPE__STRING

static oi_dim dim(int64_t v) { return (oi_dim){v, NULL, false}; }
static const oi_dim unknown_dim = {-1, NULL, false};

/* RandomNormal / RandomUniform: the shape attribute, dtype (float by default). The *Like forms
 * and Bernoulli: the input's shape, dtype or the input's type. */
int oi_infer_random(oi_ctx *c)
{
    const char *op = c->n->op_type;
    if (!strcmp(op, "RandomNormal") || !strcmp(op, "RandomUniform")) {
        int64_t sh[OE_MAX_RANK];
        int n = oi_attr_ints(c, "shape", sh, OE_MAX_RANK);
        c->out[0] = (oi_type){.elem = (int)oi_attr_i(c, "dtype", T_FLOAT), .rank = n};
        for (int i = 0; i < n; i++) c->out[0].d[i] = dim(sh[i]);
        return 0;
    }
    const oi_type *x = oi_in(c, 0);
    int elem = (int)oi_attr_i(c, "dtype", 0);
    if (!oi_known(x)) {
        if (elem) c->out[0] = (oi_type){.elem = elem, .rank = -1};
        return 0;
    }
    oi_like(&c->out[0], x, elem);
    return 0;
}

/* Multinomial: [batch, sample_size] of dtype (int32 by default). */
int oi_infer_multinomial(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    c->out[0] = (oi_type){.elem = (int)oi_attr_i(c, "dtype", T_INT32), .rank = 2};
    c->out[0].d[0] = oi_shaped(x) && x->rank == 2 ? x->d[0] : unknown_dim;
    c->out[0].d[1] = dim(oi_attr_i(c, "sample_size", 1));
    if (oi_shaped(x) && x->rank != 2) return oi_fail(c, "Input tensor must have rank 2");
    return 0;
}

/* HannWindow, HammingWindow, BlackmanWindow: [size] of output_datatype (float by default). */
int oi_infer_window(oi_ctx *c)
{
    int64_t n[1];
    bool size = oi_const_ints(c, 0, n, 1) == 1;   /* not constant: onnx infers the element type only */
    c->out[0] = (oi_type){.elem = (int)oi_attr_i(c, "output_datatype", T_FLOAT), .rank = size ? 1 : -1};
    if (size) c->out[0].d[0] = dim(n[0]);
    return 0;
}

/* MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins]. */
int oi_infer_mel(oi_ctx *c)
{
    int64_t bins[1], len[1];
    c->out[0] = (oi_type){.elem = (int)oi_attr_i(c, "output_datatype", T_FLOAT), .rank = -1};
    /* onnx infers the shape only when both are constant */
    if (oi_const_ints(c, 1, len, 1) != 1 || oi_const_ints(c, 0, bins, 1) != 1) return 0;
    c->out[0].rank = 2;
    c->out[0].d[0] = dim(len[0] / 2 + 1);
    c->out[0].d[1] = dim(bins[0]);
    return 0;
}

/* Unique: Y flat [?] (or the input's shape with the axis unknown); indices, inverse_indices and
 * counts int64 [?]. */
int oi_infer_unique(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    c->out[0] = (oi_type){.elem = x->elem, .rank = 1, .d = {{.v = -1}}};
    const Onnx__AttributeProto *ax = ox_node_attr(c->n, "axis");
    if (ax && oi_shaped(x)) {
        if (ax->i < -x->rank || ax->i >= x->rank) return oi_fail(c, "axis out of range");
        oi_like(&c->out[0], x, 0);
        c->out[0].d[oi_norm_axis(ax->i, x->rank)] = unknown_dim;
    } else if (ax) {
        c->out[0].rank = -1;
    }
    for (size_t i = 1; i < c->nout && i < 4; i++) c->out[i] = (oi_type){.elem = T_INT64, .rank = 1, .d = {{.v = -1}}};
    return 0;
}

/* NonMaxSuppression: int64 [?, 3]. */
int oi_infer_nms(oi_ctx *c)
{
    c->out[0] = (oi_type){.elem = T_INT64, .rank = 2, .d = {{.v = -1}, {.v = 3}}};
    return 0;
}

/* Compress: with axis the input's rank, that dimension unknown; without, flat [?]. */
int oi_infer_compress(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    const Onnx__AttributeProto *ax = ox_node_attr(c->n, "axis");
    if (!ax) {
        c->out[0] = (oi_type){.elem = x->elem, .rank = 1, .d = {{.v = -1}}};
        return 0;
    }
    oi_like(&c->out[0], x, 0);
    if (!oi_shaped(x)) return 0;
    if (ax->i < -x->rank || ax->i >= x->rank) return oi_fail(c, "axis out of range");
    c->out[0].d[oi_norm_axis(ax->i, x->rank)] = unknown_dim;
    return 0;
}

/* StringNormalizer: strings, [C] → [?], [1, C] → [1, ?]. */
int oi_infer_string_normalizer(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    c->out[0] = (oi_type){.elem = T_STRING, .rank = -1};
    if (!oi_shaped(x)) return 0;
    if (x->rank == 1) {
        c->out[0].rank = 1;
        c->out[0].d[0] = unknown_dim;
    } else if (x->rank == 2) {
        if (x->d[0].v >= 0 && x->d[0].v != 1) return oi_fail(c, "Input shape must have either [C] or [1,C] dimensions");
        c->out[0].rank = 2;
        c->out[0].d[0] = dim(1);
        c->out[0].d[1] = unknown_dim;
    } else {
        return oi_fail(c, "Input shape must have either [C] or [1,C] dimensions");
    }
    return 0;
}

/* StringSplit: Y strings of X's shape and one more (unknown, or maxsplit + 1 ... left unknown),
 * Z int64 of X's shape. StringConcat: broadcast strings. RegexFullMatch: bool of X's shape. */
int oi_infer_strings(oi_ctx *c)
{
    const char *op = c->n->op_type;
    const oi_type *x = oi_in(c, 0);
    if (!strcmp(op, "StringConcat")) {
        const oi_type *y = oi_in(c, 1);
        if (!oi_known(x) || !oi_known(y)) {
            c->out[0] = (oi_type){.elem = T_STRING, .rank = -1};
            return 0;
        }
        const oi_type *ts[2] = {x, y};
        c->out[0].elem = T_STRING;
        return oi_broadcast(c, ts, 2, &c->out[0]);
    }
    if (!strcmp(op, "RegexFullMatch")) {
        if (oi_known(x)) oi_like(&c->out[0], x, T_BOOL);
        else c->out[0] = (oi_type){.elem = T_BOOL, .rank = -1};
        return 0;
    }
    c->out[0] = (oi_type){.elem = T_STRING, .rank = -1};
    if (c->nout > 1) c->out[1] = (oi_type){.elem = T_INT64, .rank = -1};
    if (!oi_shaped(x) || x->rank + 1 > OE_MAX_RANK) return 0;
    oi_like(&c->out[0], x, T_STRING);
    c->out[0].rank = x->rank + 1;
    c->out[0].d[x->rank] = unknown_dim;
    if (c->nout > 1) oi_like(&c->out[1], x, T_INT64);
    return 0;
}

/* TfIdfVectorizer: float; [C] → [max(ngram_indexes) + 1], [N, C] → [N, that]. */
int oi_infer_tfidf(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    c->out[0] = (oi_type){.elem = T_FLOAT, .rank = -1};
    const Onnx__AttributeProto *ix = ox_node_attr(c->n, "ngram_indexes");
    int64_t size = 0;
    for (size_t i = 0; ix && i < ix->n_ints; i++)
        if (ix->ints[i] + 1 > size) size = ix->ints[i] + 1;
    if (!oi_shaped(x)) return 0;
    if (x->rank == 1) {
        c->out[0].rank = 1;
        c->out[0].d[0] = dim(size);
    } else if (x->rank == 2) {
        c->out[0].rank = 2;
        c->out[0].d[0] = x->d[0];
        c->out[0].d[1] = dim(size);
    } else {
        return oi_fail(c, "Input tensor must have rank 1 or 2");
    }
    return 0;
}

/* DFT: the input's shape with the last dim 2 (complex); along the axis dft_length (when
 * constant) and, onesided, half of it plus one. The axis: an attribute (opset 17, default 1) or
 * input 2 (opset 20, default -2). */
int oi_infer_dft(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    oi_like(&c->out[0], x, 0);
    if (!oi_shaped(x)) return 0;
    int r = x->rank;
    if (r < 2) return oi_fail(c, "the input has rank %d; DFT takes [batch, ..., 1 or 2]", r);
    int64_t axis, v[1];
    if (c->opset >= 20) {
        int n = oi_in(c, 2) ? oi_const_ints(c, 2, v, 1) : 0;
        if (n < 0) {
            /* the axis not constant: the last dim holds the complex pair; the others stay unless
             * a length or onesided changes the (unknown) axis */
            if (oi_in(c, 1) || oi_attr_i(c, "onesided", 0)) oi_unknown_dims(&c->out[0], r);
            c->out[0].d[r - 1] = dim(2);
            return 0;
        }
        axis = n == 1 ? v[0] : -2;
    } else {
        axis = oi_attr_i(c, "axis", 1);
    }
    if (axis < -r || axis >= r - 1 + (axis < 0)) return oi_fail(c, "axis attribute value %lld is invalid for a tensor of rank %d", (long long)axis, r);
    int a = oi_norm_axis(axis, r);
    if (a == r - 1) return oi_fail(c, "axis attribute value %lld is invalid for a tensor of rank %d", (long long)axis, r);
    oi_type *o = &c->out[0];
    o->d[r - 1] = dim(2);
    if (oi_in(c, 1)) {
        int n = oi_const_ints(c, 1, v, 1);
        o->d[a] = n == 1 ? dim(v[0]) : unknown_dim;
        if (n == 1 && v[0] < 1) return oi_fail(c, "dft_length must be greater than zero");
    }
    if (oi_attr_i(c, "onesided", 0) && oi_attr_i(c, "inverse", 0))
        return oi_fail(c, "is_onesided and inverse attributes cannot be enabled at the same time");
    if (oi_attr_i(c, "onesided", 0))
        o->d[a] = o->d[a].v >= 0 ? dim(o->d[a].v / 2 + 1) : unknown_dim;
    return 0;
}

/* ImageDecoder: uint8 [H, W, C], none of them known before decoding (onnx infers no more). */
int oi_infer_image_decoder(oi_ctx *c)
{
    c->out[0] = (oi_type){.elem = T_UINT8, .rank = 3, .d = {{.v = -1}, {.v = -1}, {.v = -1}}};
    return 0;
}

/* OptionalHasElement: a bool scalar; SequenceLength: an int64 scalar. */
int oi_infer_scalar(oi_ctx *c)
{
    c->out[0] = (oi_type){.elem = c->arg, .rank = 0};
    return 0;
}

/* Adagrad, Adam, Momentum (ai.onnx.preview.training): inputs R, T, then n tensors X, n
 * gradients G and the n-tensor state groups (Adagrad H; Momentum V; Adam V, H); outputs the new
 * X and each new state group, each like its old one. */
int oi_infer_optimizer(oi_ctx *c)
{
    size_t groups = !strcmp(c->n->op_type, "Adam") ? 4 : 3;   /* input groups after R and T */
    if (c->nin < 2 || (c->nin - 2) % groups) return 0;
    size_t n = (c->nin - 2) / groups;
    if (!n || c->nout % n) return 0;
    for (size_t k = 0; k < c->nout; k++) {
        size_t g = k / n, i = k % n;   /* output group 0 is X, the others the states after G */
        const oi_type *t = oi_in(c, 2 + (g ? g + 1 : 0) * n + i);
        if (oi_known(t)) oi_like(&c->out[k], t, 0);
    }
    return 0;
}
