/* export.h — the export pass: torch-level FX program (symbolic_trace) → ATen program (torch.export).
 *
 * Ownership: export_program returns a new fx_program the caller frees
 * with fx_program_free(), or NULL after reporting at least one error to d. The input program is
 * never modified. export_options and its arrays stay owned by the caller. */
#ifndef FXSH_CAPTURE_EXPORT_H
#define FXSH_CAPTURE_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/hashmap.h"
#include "fx/fx_ir.h"

/* An example input as declared by the user: dims are text, a number for a static dimension,
 * anything else ("s77", "batch") for a dynamic one. */
typedef struct export_input_decl {
    const char *name;
    fx_dtype dtype;
    size_t rank;
    const char *const *dims;
} export_input_decl;

typedef struct export_options {
    const export_input_decl *inputs;
    size_t n_inputs;
} export_options;

/* Torch-level program → ATen program with lifted parameters/buffers and a graph signature.
 * An already exported program (signature present or aten targets) is copied unchanged.
 * opt may be NULL. */
fx_program *export_program(const fx_program *torch_level, const export_options *opt, diag_sink *d);

/* The state-dict names export would lift from a torch-level program (root get_attr targets, then
 * each module's parameters and buffers as its settings keep them, e.g. no fc.bias for
 * Linear(bias=False)), in lifting order: what `load --weights` may give values to. False after
 * reporting when the module tables cannot be loaded. */
bool export_weight_names(const fx_program *torch_level, void (*cb)(const char *fqn, void *ctx), void *ctx,
                         diag_sink *d);

/* Where torch.export had to guard on a data-dependent value (a Python `if` on a tensor). The
 * control-flow node of the FX IR will supply these fields; export stops there the way torch does. */
typedef struct export_guard_site {
    const char *expr;         /* sympy guard, e.g. "Eq(u0, 1)" for `if tensor:` (export_truthiness_expr) */
    const char *file;         /* source of the model ("/src/models/m/model.py"), NULL if unknown */
    int line;                 /* 1-based, 0 if unknown */
    const char *code;         /* the source line without indentation, e.g. "if x.sum():" */
    const char *node;         /* name of the control-flow node, for the rewrite hint */
} export_guard_site;

/* Reports torch's GuardOnDataDependentSymNode failure (the text torch.export prints) as an
 * error at the site, with the offending line attached and a hint naming the cond rewrite. */
void export_report_data_dependent(diag_sink *d, const export_guard_site *site);
/* The guard torch creates for Python truthiness of the n-th unbacked value: "Eq(u<n>, 1)". */
const char *export_truthiness_expr(unsigned n, char *buf, size_t cap);

#endif
