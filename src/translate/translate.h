/* translate.h — the translate pass: an ATen-level FX program (torch.export) → an ONNX model.
 *
 * Follows torch.onnx's dynamo exporter: graph "main_graph", ir_version 10, user inputs as graph
 * inputs, parameters/buffers/constants as initializers named by state-dict FQN, values named
 * after FX nodes, producers "node_<fxname>", temporaries "val_N", Python scalars as shared
 * Constants, cond → If. Lowerings come from the op registry (share/fxsh/translate, one YAML file per topic) and the
 * builtin C lowerings named there.
 *
 * Ownership: translate_program returns a new model the caller frees with ox_model_free (NULL on
 * error, with the reason in d). The input program and registry are only read. */
#ifndef FXSH_TRANSLATE_H
#define FXSH_TRANSLATE_H
#include <stdbool.h>

#include "base/diag.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_ir.h"
#include "tables/ops.h"

typedef struct translate_options {
    int opset;                      /* default opset of the "" domain; 0 → 20 */
    const ops_registry *registry;   /* NULL → the tables shipped with fxsh (loaded per call) */
    const char *producer_name;      /* NULL → "fxsh" */
    bool value_info;                /* emit value_info for FX values with known meta (default on) */
    bool export_params;             /* weights become initializers (default on); off: graph inputs */
    bool keep_initializers_as_inputs; /* initializers are also listed as graph inputs (default off) */
} translate_options;

void translate_options_init(translate_options *o);

ox_model *translate_program(const fx_program *exported, const translate_options *opts, diag_sink *d);

/* ops_registry_init, with translate's C lowerings as the names a rule's `builtin:` may give: an
 * unknown name is then an error at load, naming the file and line. */
void translate_registry_init(ops_registry *r);
/* Whether a rule's `builtin:` may name name; the registered name nearest to a mistyped one (for a
 * hint), or NULL. */
bool translate_builtin_exists(const char *name);
const char *translate_builtin_suggest(const char *name);

#endif
