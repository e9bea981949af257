/* py_guard.h — the guards torch.export's tracing decides on dynamic sizes: a Python `if` whose
 * condition reads a dimension marked dynamic (`if x.shape[0] > 2` with dynamic_shapes x:0=batch)
 * is decided by torch's ShapeEnv for the example's size (the symbol's hint), and the branch taken
 * is traced; the guard only narrows the symbol's range (batch >= 3), which the ONNX model does not
 * keep. Internal to src/capture (py_eval.c). */
#ifndef FXSH_CAPTURE_PY_GUARD_H
#define FXSH_CAPTURE_PY_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "capture/py_eval.h"
#include "fx/fx_ir.h"

/* The truth of condition node `cond` (of the program being built: sym_size.int of inputs,
 * Python integer arithmetic and comparisons) with each dynamic dimension at its example size in
 * `src`; -1 when it reads anything else. A condition on one dynamic dimension is a guard on its
 * range, taken as torch.export takes it: the sizes where it keeps its truth (an interval for
 * comparisons) narrow the range of a Dim.AUTO / Dim.DYNAMIC dimension (its lo / hi; AUTO may be
 * pinned to the example), with a warning that the ONNX model does not keep the range; a named Dim
 * whose range it would narrow or pin is torch's "Constraints violated" error with the suggested
 * fix, reported to d at loc, and -2 is returned. */
int py_guard_decide(const fx_node *cond, const fx_program *src, const py_eval_options *o, const char *name,
                    const char *const branches[2], diag_loc loc, diag_sink *d);

#endif
