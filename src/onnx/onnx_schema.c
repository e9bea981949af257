/* onnx_schema.c — lookup in the generated ai.onnx signature table (onnx_schema_data.c). */
#include "onnx/onnx_schema.h"

#include <string.h>

const ox_op_schema *ox_op_schema_find(const char *op_type, int64_t opset, int *first)
{
    if (first) *first = 0;
    if (!op_type) return NULL;
    /* binary search for the op's first version, then walk its versions */
    size_t lo = 0, hi = ox_op_schema_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ox_op_schema_table[mid].name, op_type) < 0) lo = mid + 1;
        else hi = mid;
    }
    const ox_op_schema *best = NULL;
    for (size_t i = lo; i < ox_op_schema_count && !strcmp(ox_op_schema_table[i].name, op_type); i++) {
        if (first && !*first) *first = ox_op_schema_table[i].since_version;
        if (ox_op_schema_table[i].since_version <= opset) best = &ox_op_schema_table[i];
    }
    return best;
}

const ox_op_attr_defaults *ox_op_attr_defaults_find(const char *op_type)
{
    if (!op_type) return NULL;
    size_t lo = 0, hi = ox_op_attr_defaults_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ox_op_attr_defaults_table[mid].name, op_type);
        if (!c) return &ox_op_attr_defaults_table[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}
