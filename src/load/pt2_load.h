/* pt2_load.h — torch.export programs (.pt2 archives or their models/<name>.json) into the FX IR,
 * plus the REPL-facing summaries of a loaded program (signature, params, weights, print(ep)).
 *
 * Ownership: loaders return a new fx_program the caller frees with fx_program_free. Weight data
 * of stored archive members points into a process-lifetime mapping of the file (see
 * pt2_archive.h), compressed members are copied into memory owned by the program.
 * The summary functions append to a caller-owned strbuf. */
#ifndef FXSH_LOAD_PT2_LOAD_H
#define FXSH_LOAD_PT2_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "fx/fx_ir.h"

/* True if buf looks like a .pt2 (zip local header magic) or a serialized ExportedProgram JSON
 * (a JSON object mentioning "graph_module" near its start). */
bool pt2_sniff(const unsigned char *buf, size_t len);

/* Loads a .pt2 archive or a bare program JSON, chosen by content. NULL + diagnostics on error. */
fx_program *pt2_load_file(const char *path, diag_sink *d);
/* Decodes serialized-ExportedProgram JSON text (no weights: the weights table has metadata but
 * no data). name is used in diagnostics. */
fx_program *pt2_load_json(const char *text, size_t len, const char *name, diag_sink *d);
/* Loads from a .pt2 already in memory (buf must outlive the program: weights point into it). */
fx_program *pt2_load_buffer(const unsigned char *buf, size_t len, const char *name, diag_sink *d);

#endif
