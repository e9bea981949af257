/* onnx_schema.c — the generated signature and default tables read through the operator records
 * (onnx_op.h): what the checker and translate's attribute writer ask by op type. */
#include "onnx/onnx_schema.h"

#include "onnx/onnx_op.h"

const ox_op_schema *ox_op_schema_find(const char *domain, const char *op_type, int64_t opset, int *first)
{
    const ox_op *op = ox_op_find(domain, op_type);
    if (first) *first = op && op->n_versions ? op->versions[0].since_version : 0;
    return ox_op_version(op, opset);
}

const ox_op_attr_defaults *ox_op_attr_defaults_find(const char *op_type)
{
    const ox_op *op = ox_op_find("", op_type);
    return op ? op->defaults : NULL;
}
