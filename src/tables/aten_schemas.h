/* aten_schemas.h — the schema of every ATen operator overload torch has (share/fxsh/aten/schemas.txt,
 * generated from torch's own registry by scripts/dev/aten_schemas.py), so that hints and argument
 * defaults are torch's for ops fxsh has no table entry for.
 *
 * The table is read once per process, on first use. Targets may be given as torch prints them
 * ("torch.ops.aten.diff.default"), as the registry writes them ("aten.diff.default", "aten.diff"
 * for the default overload) or as TorchScript does ("aten::diff", "aten::add.Tensor").
 *
 * Ownership: returned strings belong to this module and live for the whole process. */
#ifndef FXSH_TABLES_ATEN_SCHEMAS_H
#define FXSH_TABLES_ATEN_SCHEMAS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "tables/ops.h"

/* The schema of target as torch prints it ("aten::diff(Tensor self, int n=1, ...) -> Tensor"),
 * or NULL when torch has no such overload, or the table cannot be read (reported to d when d is
 * non-NULL). */
const char *aten_schemas_lookup(const char *target, diag_sink *d);

/* The schemas of every overload of op `name` ("diff", "add"), in name order: up to cap of them
 * into out; returns how many there are (0 if none or the table cannot be read). */
size_t aten_schemas_overloads(const char *name, const char **out, size_t cap, diag_sink *d);

/* How many overloads the table has (0 if it cannot be read), and the i-th schema (i < count). */
size_t aten_schemas_count(diag_sink *d);
const char *aten_schemas_at(size_t i);

/* target's schema parsed as the registry parses its own ("diff(Tensor self, ...) -> Tensor", the
 * "aten::" prefix dropped), strings in a; false when there is none or it does not parse. */
bool aten_schemas_parse(arena *a, const char *target, aten_schema *out, diag_sink *d);

#endif
