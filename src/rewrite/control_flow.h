/* control_flow.h — export-time handling of Python control flow (fxsh.python_if/for/while).
 *
 * Ownership: control_flow_specialize returns a new program the caller frees with
 * fx_program_free (NULL + diagnostics on error). control_flow_export_check appends to the
 * caller's strbuf and never keeps pointers into p. */
#ifndef FXSH_REWRITE_CONTROL_FLOW_H
#define FXSH_REWRITE_CONTROL_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "capture/py_eval.h"
#include "fx/fx_ir.h"

/* A dimension of a user input marked dynamic (the dynamic_shapes setting "x:0=batch"). */
typedef struct cf_dynamic_dim {
    const char *input;   /* placeholder name */
    int axis;
    const char *name;    /* "batch" */
    py_dim_kind kind;    /* and the rest as py_eval_dynamic_dim's (capture/py_eval.h) */
    int64_t min, max;
    int64_t *lo, *hi;
} cf_dynamic_dim;

typedef struct control_flow_options {
    const cf_dynamic_dim *dynamic;
    size_t n_dynamic;
    /* if set, the guards the replay decides (capture/py_eval.h) */
    py_guard_log *guards;
    /* the TorchScript exporter's route (export --legacy script): loops stay loops (ONNX Loop),
     * only Python ifs are checked, and only `for` over a literal range is unrolled */
    bool keep_loops;
} control_flow_options;

/* Does what torch.export does on reaching the first Python control flow of the root graph it
 * cannot trace (o may be NULL: no dynamic dims, dynamo's route):
 * - a python_if or python_while whose test is a tensor (data-dependent): appends to report the
 *   partial graph torch prints (placeholders arg<i>_1, the nodes up to the test, then
 *   ne.Scalar(c, 0) and item "Sym(Eq(u0, 1))") and torch's GuardOnDataDependentSymNode text;
 * - a bounded python_while (TorchScript's `for` with a break) whose body tests a tensor: the
 *   same, with iteration 0 of the body inlined up to the test, as torch traced it;
 * - a python_for over range(x.shape[k]) of a dimension marked dynamic: torch's "Constraints
 *   violated" text (the dimension specialized to its example size);
 * - any other loop fxsh cannot unroll (unknown trip count, a while on Python values);
 * then returns 1 after reporting an error naming the node and its source line with the hint
 * "rewrite %<node> cond|scan|while_loop". Returns 0 (report untouched) otherwise. */
int control_flow_export_check_ex(const fx_program *p, const control_flow_options *o, diag_sink *d, strbuf *report);
int control_flow_export_check(const fx_program *p, diag_sink *d, strbuf *report);

/* A copy where every python_if whose condition is a constant or is computed from sizes only
 * (sym_size, dim, len and integer arithmetic on known shapes) has its taken branch inlined,
 * with a note of the guard, and every python_for over a constant trip count is unrolled
 * (i becomes 0, 1, ...). Other control flow is left as it is. */
fx_program *control_flow_specialize(const fx_program *p, diag_sink *d);
/* The same; with o->keep_loops only a `for` over a literal range is unrolled (TorchScript
 * unrolled those when scripting; other loops became ONNX Loop). */
fx_program *control_flow_specialize_ex(const fx_program *p, const control_flow_options *o, diag_sink *d);

/* The TorchScript exporter's route: a copy where every python_if (at any depth) whose branches
 * return only the constants True / False is replaced by its condition's truthiness (or its
 * negation), so that what TorchScript made of a `break` is a bool tensor. */
fx_program *control_flow_fold_bool_ifs(const fx_program *p, diag_sink *d);

/* The value of a size-only integer / bool expression (int and bool literals, sym_size.int and
 * x.size()[k] of tensors with known shapes, dim(), Python integer arithmetic and comparisons);
 * false when it depends on data or unknown sizes. */
bool control_flow_eval_int(const fx_arg *a, int64_t *out);

/* The TorchScript exporter's tracing route (export --legacy trace) runs the model on the example
 * inputs: a Python `if` on a tensor is decided by the tensor's value there and only the branch
 * taken is recorded. These give the pieces: the first python_if of p's root graph whose condition
 * is a tensor (NULL if none); a copy of p whose root returns only that if's condition (what it
 * does not need removed), to evaluate; and a copy with the if replaced by branch `which` (0: the
 * true branch) inlined. The copies are new programs (fx_program_free); NULL after reporting. */
const fx_node *control_flow_first_tensor_if(const fx_program *p);
fx_program *control_flow_condition_program(const fx_program *p, const char *if_name, diag_sink *d);
fx_program *control_flow_take_branch(const fx_program *p, const char *if_name, int which, diag_sink *d);

#endif
