/* onnx_op.h — one record per ONNX operator, as onnx's OpSchema is: its domain and name, the
 * signature of each of its versions (inputs, outputs, type constraints, attributes; generated
 * into onnx_schema_data.c), its attributes with their defaults at torch.onnx's tracing opset
 * (generated into onnx_schema_defaults.c) and its type and shape inference function, found by
 * one hashed lookup. The registry (onnx_ops.c) holds a line per operator; adding an operator is
 * adding its line. The evaluator (src/eval, later in the pipeline) keys its kernels by the
 * record's id, so that the same lookup finds the kernel too.
 *
 * Ownership: static data of the process, read-only to callers. */
#ifndef FXSH_ONNX_OP_H
#define FXSH_ONNX_OP_H

#include <stddef.h>
#include <stdint.h>

#include "onnx/onnx_schema.h"

/* What an inference function sees (onnx_infer.c); the function pointer of a record. */
typedef struct oi_ctx oi_ctx;
typedef int (*ox_infer_fn)(oi_ctx *c);

typedef struct ox_op {
    const char *domain;                   /* "" for ai.onnx */
    const char *name;
    ox_infer_fn infer;                    /* NULL: inference tells nothing of its outputs */
    int infer_arg;                        /* what infer needs beyond the node (see onnx_infer_internal.h) */
    /* From the generated tables, joined when the registry is first used: */
    const ox_op_schema *versions;         /* every version, oldest first; NULL when none is generated */
    size_t n_versions;
    const ox_op_attr_defaults *defaults;  /* attributes at opset 18, or NULL (newer op, other domain) */
    size_t id;                            /* 0 .. ox_op_count() - 1 */
} ox_op;

/* The record of op_type in domain (NULL, "" and "ai.onnx" are the default domain), or NULL. */
const ox_op *ox_op_find(const char *domain, const char *op_type);
/* The version a model importing the op's domain at `opset` uses: the latest at or before it;
 * NULL when the op is newer or has no generated signature. */
const ox_op_schema *ox_op_version(const ox_op *op, int64_t opset);
/* How many records there are, and record `id` (NULL past the end). */
size_t ox_op_count(void);
const ox_op *ox_op_at(size_t id);

#endif
