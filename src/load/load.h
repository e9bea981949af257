/* load.h — the public interface of src/load: turns a user's file into the FX IR.
 *
 * FX text in its three printed forms (below), torch.export programs (load/pt2_load.h),
 * TorchScript IR (load/ts_load.h) and weights from other files (load/fx_weight_source.h).
 *
 * Ownership: loaders return a new fx_program the caller frees with fx_program_free(), or NULL
 * after reporting at least one error to d (nothing else is left behind). */
#ifndef FXSH_LOAD_H
#define FXSH_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "fx/fx_ir.h"
#include "load/fx_weight_source.h"
#include "load/pt2_load.h"
#include "load/ts_load.h"

/* print(gm.graph) text: "graph():" + "%x : [num_users=N] = op[target=T](...)" lines + return. */
fx_program *fxp_parse_graph_text(const char *text, size_t len, const char *file, diag_sink *d);
/* gm.print_readable() text: "class GraphModule(torch.nn.Module):" + def forward + nested classes. */
fx_program *fxp_parse_code_text(const char *text, size_t len, const char *file, diag_sink *d);
/* print(gm) text: module tree repr, blank lines, generated forward, debug-info trailer. */
fx_program *fxp_parse_module_text(const char *text, size_t len, const char *file, diag_sink *d);

/* print(ep) text: "ExportedProgram:", the readable code, "Graph signature:", "Range constraints:". */
fx_program *fxp_parse_exported_text(const char *text, size_t len, const char *file, diag_sink *d);

/* Sniffs the form from the content (not the file name) and dispatches to a parser above. */
fx_program *load_fx_text(const char *text, size_t len, const char *file, diag_sink *d);
/* True when a pasted block is complete:
 *  - graph text: a "return" line has been seen at graph indentation;
 *  - readable text: every forward opened so far has its return line, the last non-blank
 *    line is such a return, and every subgraph passed to a torch.ops.higher_order op (bound
 *    by "name = self.name") has had its nested class (print_readable prints them after the
 *    forward that uses them), so the cond/scan/while_loop branches are not cut off;
 *  - module text: the "# To see more debug info" trailer line has been seen, or a forward
 *    at column 0 has returned.
 * Blank text is not complete. */
bool load_fx_text_complete(const char *text, size_t len);

#endif
