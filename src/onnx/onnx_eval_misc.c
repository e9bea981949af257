/* onnx_eval_misc.c — kernels outside the other families: quantization (QuantizeLinear,
 * DequantizeLinear, DynamicQuantizeLinear, MatMulInteger), window functions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx_eval_internal.h"

const oe_op_def oe_ops_misc[] = {
    {NULL, NULL, 0, false},
};
