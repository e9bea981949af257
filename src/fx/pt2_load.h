/* pt2_load.h — torch.export programs (.pt2 archives or their models/<name>.json) into the FX IR,
 * plus the REPL-facing summaries of a loaded program (signature, params, weights, print(ep)).
 *
 * Ownership: loaders return a new fx_program the caller frees with fx_program_free. Weight data
 * of stored archive members points into a process-lifetime mapping of the file (see
 * pt2_archive.h), compressed members are copied into memory owned by the program.
 * The summary functions append to a caller-owned strbuf. */
#ifndef FXSH_PT2_LOAD_H
#define FXSH_PT2_LOAD_H

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

/* True when p was loaded from a torch.export program and carries weight data. */
bool pt2_program_has_weight_data(const fx_program *p);

/* REPL commands. Return false (and report to d) when the request cannot be served, e.g. an
 * unknown weight name, or `weights` on a program loaded from bare JSON. */
bool fx_program_signature(const fx_program *p, strbuf *out, diag_sink *d);
bool fx_program_params(const fx_program *p, strbuf *out, diag_sink *d);
bool fx_program_weight_summary(const fx_program *p, const char *name, strbuf *out, diag_sink *d);

/* print(ep): "ExportedProgram:\n    <readable code>\nGraph signature: ...\nRange constraints: {...}\n". */
bool fx_print_program(const fx_program *p, strbuf *out, diag_sink *d);

#endif
