/* onnx_schema.h — the signatures of onnx's operators (ai.onnx, ai.onnx.ml, ai.onnx.preview.training), every version (generated from onnx's
 * own op definitions into onnx_schema_data.c by scripts/dev/onnx_schemas.py): formal inputs and
 * outputs, type constraints and attributes, as onnx's checker and type inference read them.
 *
 * Ownership: static read-only data. */
#ifndef FXSH_ONNX_SCHEMA_H
#define FXSH_ONNX_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

typedef struct ox_op_schema {
    const char *name;
    const char *domain;        /* "" for ai.onnx */
    int since_version;
    int min_inputs, max_inputs, min_outputs, max_outputs;
    /* formal parameters "NAME:TYPE:OPT|...": TYPE a type variable of `constraints` or a type
     * ("tensor(int64)"); OPT s single, o optional, v variadic of one type, h variadic of any */
    const char *inputs, *outputs;
    const char *constraints;   /* "T=tensor(float),tensor(double);I=tensor(int64)" */
    const char *attributes;    /* "NAME[!]:CODE,...": ! required; CODE f i s t g F I S T G p P x X */
    int deprecated;            /* onnx marks this version deprecated: its checker refuses a node of it */
} ox_op_schema;

extern const ox_op_schema ox_op_schema_table[];   /* sorted by name, then domain, then version */
extern const size_t ox_op_schema_count;

/* The version of op_type a model importing `domain` (NULL, "" and "ai.onnx" are ai.onnx) at
 * version `opset` uses (the latest at or before it), or NULL; *first (if non-NULL) is the op's
 * first version, 0 when the domain has no such op. */
const ox_op_schema *ox_op_schema_find(const char *domain, const char *op_type, int64_t opset, int *first);

/* An operator's attributes at torch.onnx's tracing opset (18, torchlib's), in onnx.defs' order:
 * "NAME:CODE=DEFAULT" for one with a default (CODE i, f or s), "NAME" for one without
 * (generated into onnx_schema_defaults.c by scripts/dev/onnx_attr_defaults.py). */
typedef struct ox_op_attr_defaults {
    const char *name;
    int since_version;
    const char *attributes;
} ox_op_attr_defaults;

extern const ox_op_attr_defaults ox_op_attr_defaults_table[];   /* sorted by name */
extern const size_t ox_op_attr_defaults_count;

/* The entry of op_type, or NULL (an operator newer than opset 18, or none). */
const ox_op_attr_defaults *ox_op_attr_defaults_find(const char *op_type);

#endif
