/* surgery.h — general node surgery on an FX program: retarget, set or rewire an argument,
 * insert, delete and rename nodes. Each edits the program in place (the REPL hands it a copy of
 * the stage, so that undo can restore the original) and reports refusals to d with the node.
 *
 * Node names may be given with or without '%', and as `subgraph.node` for subgraph nodes. */
#ifndef FXSH_SURGERY_H
#define FXSH_SURGERY_H

#include <stdbool.h>

#include "base/diag.h"
#include "fx/fx_ir.h"

bool surgery_replace_target(fx_program *p, const char *node, const char *target, diag_sink *d);
/* arg is a position ("0", "1") or a keyword name; value is FX argument text: %name, a number,
 * True/False/None, 'str', a tuple/list, torch.float32 ... */
bool surgery_set_arg(fx_program *p, const char *node, const char *arg, const char *value, diag_sink *d);
/* Inserts `name = target(args)` after node `after`; args is FX argument text like "(%x, 1)". */
bool surgery_insert(fx_program *p, const char *after, const char *name, const char *target,
                    const char *args, diag_sink *d);
/* Deletes a node without users; with replacement (a node name), its users are rewired to the
 * replacement first. */
bool surgery_delete(fx_program *p, const char *node, const char *replacement, diag_sink *d);
bool surgery_rename(fx_program *p, const char *node, const char *new_name, diag_sink *d);

#endif
