/* rewrite.h — source-level rewrites of Python control flow into torch's higher-order ops.
 *
 * Ownership: each rewrite returns a new program (a rewritten copy; p is untouched) the caller
 * frees with fx_program_free, or NULL after reporting why the rewrite is refused to d. */
#ifndef FXSH_REWRITE_REWRITE_H
#define FXSH_REWRITE_REWRITE_H

#include <stdbool.h>

#include "base/diag.h"
#include "base/strbuf.h"
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

/* `rewrite NODE scan`: the fxsh.python_for node `for i in range(n)` becomes the graph torch.export
 * produces for the torch.ops.higher_order.scan version of the loop:
 *   scan_combine_graph_N = self.scan_combine_graph_N
 *   scan = torch.ops.higher_order.scan(scan_combine_graph_N, [init...], [xs...], (additional...))
 *   getitem = scan[0] ...                  carries first, then the stacked outputs
 * The loop's carried values are the carries; every tensor x the body reads as a row x[i]
 * (select(x, 0, i), or x[i:i+1] which becomes row.unsqueeze(0)) is scanned; every tensor out
 * the body writes as a row (out[i] = v / out[i, :] = v: copy_ into select(out, 0, i)) is a
 * stacked output that replaces out after the loop; other tensors the body uses are additional
 * inputs. The combine graph takes (carries, rows, additional) as arg0_1, arg1_1, ... and
 * returns [new carries..., rows written...]. A loop with no carried value carries its first
 * additional input unchanged (returned as .clone()), since scan() needs init leaves.
 * Refused, naming the node and the reason, when: n is not the first dimension of every scanned
 * and written tensor; the body uses i other than as such a row index; it reads a row of a
 * tensor it writes (a value another iteration writes) or any other row than i; a carried value
 * is not a tensor; the body holds Python control flow (rewrite that first); the combine graph
 * would return one of its inputs or one value twice (torch's aliasing error; clone_aliased
 * applies torch's `.clone()` fix instead). */
fx_program *rewrite_for_to_scan(const fx_program *p, const char *node, bool clone_aliased, diag_sink *d);

/* `rewrite NODE while_loop`: a fxsh.python_while (or a python_for, whose count becomes a
 * tensor) becomes torch.ops.higher_order.while_loop(while_loop_cond_graph_N,
 * while_loop_body_graph_N, (carried...), (additional...)) as torch.export prints it; both
 * graphs take (carried, additional) as arg0_1, ...; cond returns one bool tensor, body the new
 * carried tuple; additional inputs are ordered as dynamo orders them (used by both graphs,
 * then cond only, then body only, each sorted by name).
 * - `while test(state):` (TorchScript tests before the loop and again at the end of the
 *   body): the test before the loop becomes cond_fn; the body's re-test must compute the
 *   same expression on the new state (else refused).
 * - `for i in range(n)` (n known), possibly with a data-dependent exit (a bounded python_while
 *   starting True whose body computes the next test, e.g. TorchScript's `break`): a counter
 *   it = zeros((), int64) is carried first (cond: it < n) and, for an exit, a bool flag next
 *   (cond: (it < n) & flag; body: flag = the truthiness of the exit test).
 * Refused, naming the node and the reason, when a carried value is not a tensor, the body uses
 * the loop index, the body changes a carried value's dtype or shape, the body holds Python
 * control flow other than the exit test, or the body returns one of its inputs / one value
 * twice (torch's aliasing error; clone_aliased applies the `.clone()` fix). */
fx_program *rewrite_loop_to_while(const fx_program *p, const char *node, bool clone_aliased, diag_sink *d);

/* The `rewrite` commands that turn the control flow at `node` (kind "cond", "scan" or
 * "while_loop") into the higher-order op and that work, as the hint a failure gives: for cond,
 * the ifs nested in its branches first, innermost first; --clone where a branch or body returns
 * its input (torch's aliasing rule), with the reason. Appends "rewrite %a cond, then rewrite %b
 * cond --clone (...)" to plan and returns true; false (plan partly written) when some step is
 * refused for another reason, which that rewrite itself reports. */
bool rewrite_plan(const fx_program *p, const char *node, const char *kind, strbuf *plan);

/* After `rewrite node ...` on p was refused (its errors in d from index mark on): a hint naming
 * another rewrite is checked, and replaced by the reason when that one is refused too (the hints
 * of scan and while_loop must not send the user back and forth); a `for` over a constant count
 * gets the hint that no rewrite is needed, since export unrolls it as torch.export does. */
void rewrite_check_hints(const fx_program *p, const char *node, diag_sink *d, size_t mark);

#endif
