/* ts_normalize.h — the ATen calls of a program loaded from TorchScript IR, with their arguments
 * in the form torch.export records them.
 *
 * TorchScript passes every schema argument positionally, defaults included, and prints the c10
 * enum numbers of ScalarType / MemoryFormat / Layout arguments. torch's dispatcher hands a call
 * to FX (and so to torch.export's graph) with trailing positional arguments equal to their
 * default dropped, keyword-only arguments by keyword (only those not at their default), and
 * torch.dtype / torch.memory_format / torch.layout values. tsn_normalize_program_with rewrites each
 * call whose overload has a schema in the meta tables (share/fxsh/meta) that way; calls without
 * one are left as the loader made them. It also sets the cudnn_enabled flags of the norm ops to
 * False: TorchScript froze torch.backends.cudnn.enabled into the graph when it scripted the
 * model, and torch.export traces with cuDNN disabled.
 *
 * Ownership: the program is edited in place (new arguments in its arena); the rules are the
 * caller's. */
#ifndef FXSH_CAPTURE_TS_NORMALIZE_H
#define FXSH_CAPTURE_TS_NORMALIZE_H

#include <stdbool.h>

#include "base/diag.h"
#include "fx/fx_ir.h"
#include "meta/meta_rules.h"

/* Normalizes one call of p (its arguments may have become literals since the load: export
 * replays the Python code that computed them). */
void tsn_normalize_node(fx_program *p, const meta_rules *rules, fx_node *n);

/* Normalizes every call of p (root graph and subgraphs). Linear in the number of nodes. */
void tsn_normalize_program_with(fx_program *p, const meta_rules *rules);

/* After a TorchScript load: normalizes p and infers its value meta (meta/meta_infer.h), as
 * `load` does. Notes about values left without meta go to d; false only when the tables cannot
 * be loaded. */
bool tsn_prepare_program(fx_program *p, diag_sink *d);

#endif
