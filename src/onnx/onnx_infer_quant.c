/* onnx_infer_quant.c — type and shape inference of the quantization operators (QuantizeLinear,
 * DequantizeLinear, DynamicQuantizeLinear, the integer and QLinear matmuls and convolutions) as
 * onnx/defs/quantization and math compute it. */
#include <string.h>

#include "onnx/onnx_infer_internal.h"

#define T_FLOAT ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
#define T_UINT8 ONNX__TENSOR_PROTO__DATA_TYPE__UINT8
#define T_INT32 ONNX__TENSOR_PROTO__DATA_TYPE__INT32

/* QuantizeLinear: x's shape; the zero point's type, else output_dtype (opset 21+), else uint8. */
int oi_infer_quantize(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0), *zp = oi_in(c, 2);
    int elem = oi_known(zp) ? zp->elem : (int)oi_attr_i(c, "output_dtype", 0);
    if (!elem) elem = T_UINT8;
    if (!oi_known(x)) {
        c->out[0] = (oi_type){.elem = elem, .rank = -1};
        return 0;
    }
    oi_like(&c->out[0], x, elem);
    return 0;
}

/* DequantizeLinear: x's shape; the scale's type (float before opset 19), or output_dtype. */
int oi_infer_dequantize(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0), *s = oi_in(c, 1);
    int elem = (int)oi_attr_i(c, "output_dtype", 0);
    if (!elem) elem = c->opset >= 19 ? (oi_known(s) ? s->elem : 0) : T_FLOAT;
    if (!elem) return 0;
    if (!oi_known(x)) {
        c->out[0] = (oi_type){.elem = elem, .rank = -1};
        return 0;
    }
    oi_like(&c->out[0], x, elem);
    return 0;
}

/* DynamicQuantizeLinear: y uint8 of x's shape, y_scale a float scalar, y_zero_point a uint8 one. */
int oi_infer_dynamic_quantize(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (oi_known(x)) oi_like(&c->out[0], x, T_UINT8);
    else c->out[0] = (oi_type){.elem = T_UINT8, .rank = -1};
    if (c->nout > 1) c->out[1] = (oi_type){.elem = T_FLOAT, .rank = 0};
    if (c->nout > 2) c->out[2] = (oi_type){.elem = T_UINT8, .rank = 0};
    return 0;
}

/* MatMul's shape of inputs a and b (indices), element type elem. */
static int matmul_of(oi_ctx *c, size_t a, size_t b, int elem)
{
    const oi_type *A = oi_in(c, a), *B = oi_in(c, b);
    if (!oi_known(A) || !oi_known(B)) {
        c->out[0] = (oi_type){.elem = elem, .rank = -1};
        return 0;
    }
    oi_type ins[2] = {*A, *B};
    oi_ctx sub = *c;   /* the matmul rule reads inputs 0 and 1 */
    sub.in = ins;
    sub.nin = 2;
    int rc = oi_infer_matmul(&sub);
    c->out[0].elem = elem;
    return rc;
}

/* MatMulInteger: int32; QLinearMatMul: the output zero point's type. */
int oi_infer_matmul_int(oi_ctx *c)
{
    if (!strcmp(c->n->op_type, "MatMulInteger")) return matmul_of(c, 0, 1, T_INT32);
    const oi_type *zp = oi_in(c, 7);
    if (c->n->n_input < 8) return 0;
    return matmul_of(c, 0, 3, oi_known(zp) ? zp->elem : 0);
}

/* ConvInteger (x, w: int32 out) and QLinearConv (x at 0, w at 3, the output zero point's type). */
int oi_infer_conv_int(oi_ctx *c)
{
    bool qlinear = !strcmp(c->n->op_type, "QLinearConv");
    size_t w = qlinear ? 3 : 1;
    const oi_type *X = oi_in(c, 0), *W = oi_in(c, w), *zp = qlinear ? oi_in(c, 7) : NULL;
    int elem = qlinear ? (oi_known(zp) ? zp->elem : 0) : T_INT32;
    if (!oi_known(X) || !oi_known(W) || !elem) {
        c->out[0] = (oi_type){.elem = elem, .rank = -1};
        return 0;
    }
    oi_type ins[2] = {*X, *W};
    oi_ctx sub = *c;   /* the convolution rule reads x at 0 and w at 1 */
    sub.in = ins;
    sub.nin = 2;
    int rc = oi_infer_conv_pool(&sub);
    c->out[0].elem = elem;
    return rc;
}
