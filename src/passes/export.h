/* export.h — the export pass: torch-level FX program (symbolic_trace) → ATen program (torch.export).
 *
 * Ownership: export_program and export_copy_program return a new fx_program the caller frees
 * with fx_program_free(), or NULL after reporting at least one error to d. The input program is
 * never modified. export_options and its arrays stay owned by the caller. */
#ifndef FXSH_PASSES_EXPORT_H
#define FXSH_PASSES_EXPORT_H

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

/* True when p already is an ATen-level (exported) program. */
bool export_is_aten_program(const fx_program *p);

/* Deep copy of a whole program (module tree, graphs, meta, signature, ranges, weights table;
 * weight data is borrowed by the copy, never owned). */
fx_program *export_copy_program(const fx_program *p);
/* The same without graph nodes: every graph of the copy is empty (for passes that rebuild). */
fx_program *export_copy_program_shell(const fx_program *p);

/* Deep copy of value meta into dst (NULL stays NULL). */
fx_value *export_copy_value(fx_program *dst, const fx_value *v);

/* Copies argument tree a into dst, replacing node references through map (a NULL result of
 * map keeps None in its place). */
fx_arg *export_copy_arg(fx_program *dst, const fx_arg *a,
                        fx_node *(*map)(const fx_node *n, void *ctx), void *ctx);

/* The FX base name torch.export gives a node calling an aten target:
 * "torch.ops.aten.relu_.default" → "relu_", "torch.ops.aten.sym_size.int" → "sym_size_int".
 * Writes into buf (cap bytes) and returns it. */
const char *export_node_base_name(const char *target, char *buf, size_t cap);

/* Parses a Python literal (int, float, True/False, None, 'str', tuple, list, torch.<memfmt>)
 * from [s, end) into p; NULL if the text is not one. */
fx_arg *export_parse_literal(fx_program *p, const char *s, const char *end);

/* Node names chosen the way torch.fx's _Namespace does: a trailing _N is split off as a
 * counter, Python builtins and keywords are avoided ("sum" -> "sum_1"), and each base name
 * remembers its last counter. Names are reserved in g's name map only when the node is
 * created with the returned name. */
typedef struct fx_namer {
    fx_graph *g;
    hashmap counts;         /* base name -> (void *)(intptr_t)last counter */
} fx_namer;

void fx_namer_init(fx_namer *nm, fx_graph *g);
void fx_namer_free(fx_namer *nm);
/* Returns an arena string (in g's program) not used in g. */
const char *fx_namer_name(fx_namer *nm, const char *candidate);

#endif
