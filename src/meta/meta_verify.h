/* meta_verify.h — a program checked against itself on load: each node's declared value meta
 * against what its operator computes from its arguments' declared metas (meta_infer's rules). */
#ifndef FXSH_META_META_VERIFY_H
#define FXSH_META_META_VERIFY_H

#include <stdbool.h>

#include "base/diag.h"
#include "fx/fx_ir.h"

/* Every call_function node of p (root graph and subgraphs) that has a declared value and an
 * inference rule is inferred again from its arguments' metas; a rule that rejects the arguments,
 * or a result whose dtype, rank or sizes differ from the declared one, is an error at the node
 * naming both values (sizes compared where both are integers: symbolic ones depend on range
 * constraints the rules do not know). What
 * fxsh cannot infer is not checked, nor anything when the rule tables cannot be read (the pass
 * that needs them reports it). false when an error was reported. p is not changed. Linear
 * in the number of nodes. */
bool meta_verify_program(fx_program *p, diag_sink *d);
/* Only the calls' arguments against their ATen schemas (a program without recorded values, as
 * TorchScript prints it): a bool argument given a number, a keyword the schema does not name.
 * false after reporting each at its node. */
bool meta_check_calls(fx_program *p, diag_sink *d);

#endif
