/* translate_meta.h — provenance metadata on translated ONNX, as torch.onnx writes it.
 *
 * torch's exporter records where each ONNX node came from in NodeProto.metadata_props
 * (`namespace`, `pkg.torch.onnx.class_hierarchy`, `.fx_node`, `.name_scopes`, `.stack_trace`),
 * the export signature on the main graph, and each input/output's InputSpec/OutputSpec kind on
 * its value. Every ONNX node made for one FX node carries that FX node's provenance, so a tool
 * (and fxsh's `node` command) can lead from an ONNX node back to the model's source line.
 *
 * Ownership: strings in translate_provenance live in the arena given (or in the FX program);
 * the ox_* calls copy them into the model. */
#ifndef FXSH_TRANSLATE_META_H
#define FXSH_TRANSLATE_META_H

#include "base/alloc.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_ir.h"

typedef struct translate_provenance {
    const char *keys[5];
    const char *values[5];
    size_t n;
} translate_provenance;

/* The five entries for FX node n (stack_trace only when n has one). */
void translate_node_provenance(const fx_node *n, translate_provenance *out, arena *a);
void translate_attach_provenance(ox_model *m, Onnx__NodeProto *node, const translate_provenance *pv);
/* Main-graph metadata: the export signature and range constraints (programs with a signature). */
void translate_graph_metadata(ox_model *m, const fx_program *p);
/* InputSpec kind/persistent (+ original FX name for weights) on a graph input or initializer's
 * value_info; spec NULL means a user input of a program without a signature. */
void translate_input_metadata(ox_model *m, Onnx__ValueInfoProto *v, const fx_input_spec *spec, const char *fx_name);
void translate_output_metadata(ox_model *m, Onnx__ValueInfoProto *v, fx_output_kind kind);

#endif
