/* onnx_check_internal.h — what the structural checker (onnx_check.c) shares with the operator
 * signature checks (onnx_check_types.c): problem reporting and node descriptions. Not a public API. */
#ifndef FXSH_ONNX_CHECK_INTERNAL_H
#define FXSH_ONNX_CHECK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "onnx/onnx_ir.h"

typedef struct ox_check_report {
    const ox_model *m;
    diag_sink *d;
    int problems;
} ox_check_report;

/* Reports one problem (an error at the model's path) and counts it. */
void ox_check_problem(ox_check_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reports what onnx's checker lets pass but a runtime may refuse (a warning, not counted). */
void ox_check_warning(ox_check_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "WHERE: node 3 ("conv1", Conv)" */
void ox_check_node_desc(strbuf *sb, const char *where, size_t idx, const Onnx__NodeProto *n);
/* The model-level checks: ir_version, opset imports, typed main-graph inputs and outputs, metadata
 * keys, external data files (onnx_check_model.c). */
void ox_check_model_level(ox_check_report *r, const ox_model *m);
/* The field-level rules: UTF-8 string fields, named graphs, typed attributes, opset versions ≥ 1
 * (onnx_check_fields.c). */
void ox_check_fields(ox_check_report *r, const ox_model *m);
/* Whether onnx has a schema for n's operator (ai.onnx, ai.onnx.ml, the training preview, or a
 * model-local function): onnx's strict inference drops the errors of the nodes after one it has
 * none for (onnx_check_shapes.c). */
bool ox_check_onnx_knows(const ox_model *m, const Onnx__NodeProto *n);
/* The operator-level checks of every ai.onnx node (onnx_check_types.c). */
void ox_check_types(ox_check_report *r, const ox_model *m);
/* Shape inference of the main graph's nodes against the declared types (onnx_check_shapes.c). */
void ox_check_shapes(ox_check_report *r, const ox_model *m);

#endif
