/* decompose.h — the decompose pass: ATen program → run_decompositions() output (core ATen or
 * the ONNX exporter's table), with in-place ops functionalized into mutation outputs.
 *
 * Ownership: decompose_program returns a new fx_program the caller frees with
 * fx_program_free(), or NULL after reporting at least one error to d. The input is never
 * modified. */
#ifndef FXSH_DECOMPOSE_DECOMPOSE_H
#define FXSH_DECOMPOSE_DECOMPOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "fx/fx_ir.h"

typedef enum decomp_table {
    DECOMP_DEFAULT,   /* ep.run_decompositions(): torch.export.default_decompositions() */
    DECOMP_ONNX       /* the ONNX exporter's table: keeps ops torchlib implements, + type promotion */
} decomp_table;

fx_program *decompose_program(const fx_program *exported, decomp_table which, diag_sink *d);

/* Compiles decomposition rules from YAML text (`rules:` and `views:` lists in the syntax of
 * share/fxsh/decompose) as the pass compiles its tables when they load; false after reporting
 * each bad rule at name:line. */
bool decompose_rules_check(const char *name, const char *text, size_t len, diag_sink *d);

/* The program with its torch.autocast regions' casts made explicit (decomp_autocast.c), a copy
 * the caller frees; NULL when it has no region to rewrite, or after reporting (*failed: a region
 * on a device whose policy fxsh does not apply). */
fx_program *decompose_apply_autocast(const fx_program *src, diag_sink *d, bool *failed);

/* The program with its torch.vmap regions mapped over their static batch (decomp_vmap.c), a copy
 * the caller frees; NULL when it has none, or after reporting (*failed: a dynamic batch, a body
 * too large to copy per index). */
fx_program *decompose_unbatch_vmap(const fx_program *src, diag_sink *d, bool *failed);

#endif
