/* pt2_save.h — writing a program as a torch.export archive (.pt2) that torch.export.load and
 * fxsh's own loader read: the serde JSON of its graph and signature, its weights as raw bytes.
 *
 * What it writes is what torch.export.save writes for ATen calls (sym_size.int's SymInts too),
 * getitems of multi-output calls, higher-order ops (cond, while_loop, scan) with their subgraphs,
 * sizes that are integers, symbols or products of them (a dynamic batch: s77, 6*s77) and the
 * symbols' ranges (`reduce` saves its reproducers so). A call of anything else (Python arithmetic
 * on sizes, operator.mul) or another symbolic expression is refused with an error naming the node.
 * Ownership: reads p, keeps nothing. */
#ifndef FXSH_LOAD_PT2_SAVE_H
#define FXSH_LOAD_PT2_SAVE_H

#include <stdbool.h>

#include "base/diag.h"
#include "fx/fx_ir.h"

/* Writes p to path as base/file.h writes files (temporary, fsync, rename). false after reporting. */
bool pt2_save(const fx_program *p, const char *path, diag_sink *d);

#endif
