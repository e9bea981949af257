/* lint.h — the tracing-pitfalls lint: nodes of a TorchScript or FX program that tracing would get wrong.
 *
 * Ownership: reads the program only; reports to the caller's sink. */
#ifndef FXSH_REWRITE_LINT_H
#define FXSH_REWRITE_LINT_H

#include <stddef.h>

#include "base/diag.h"
#include "fx/fx_ir.h"

/* Reports one warning per node that torch.jit.trace (and the legacy exporter's tracer, which run
 * the model once on the example inputs and record the tensor ops) would get wrong, each with the
 * rewrite or change that fixes it: a Python `if` on a tensor (one branch recorded; the hint is
 * the `rewrite ... cond` that works), a `while` or a `for` over a size (unrolled for the
 * example), .item() / .tolist() / .numpy() (a constant), an in-place update of an input, a
 * shape used as a Python int (the example's size). torch's own library code is skipped.
 * Returns the number of warnings. */
size_t lint_tracing(const fx_program *p, diag_sink *d);

#endif
