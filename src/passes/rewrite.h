/* rewrite.h — source-level rewrites of Python control flow into torch's higher-order ops.
 *
 * Ownership: each rewrite returns a new program (a rewritten copy; p is untouched) the caller
 * frees with fx_program_free, or NULL after reporting why the rewrite is refused to d. */
#ifndef FXSH_PASSES_REWRITE_H
#define FXSH_PASSES_REWRITE_H

#include <stdbool.h>

#include "base/diag.h"
#include "fx/fx_ir.h"

/* `rewrite NODE cond`: the fxsh.python_if node (name, %name or sub.path.name) becomes the graph
 * torch.export produces for the torch.cond version of the code: predicate from Python
 * truthiness (a non-bool tensor c → ne = aten.ne.Scalar(c, 0); bool tensors and SymBools as
 * they are), torch.ops.higher_order.cond(pred, true_graph_N, false_graph_N, (operands...)),
 * results via operator.getitem. Refused, with torch's text where torch has one, when: the node
 * is not a python_if; a branch still holds a python_if (rewrite the inner one first); the
 * branches return different structures or metadata; a branch returns one of its inputs
 * unchanged (torch's aliasing error; see rewrite_if_to_cond_ex). */
fx_program *rewrite_if_to_cond(const fx_program *p, const char *node, diag_sink *d);
/* The same; clone_aliased = true applies torch's suggested fix instead of refusing: a branch
 * output that is an input becomes aten.clone.default(input) ("return x.clone()"). */
fx_program *rewrite_if_to_cond_ex(const fx_program *p, const char *node, bool clone_aliased, diag_sink *d);

#endif
