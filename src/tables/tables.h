/* tables.h — share/fxsh, the data tables of every stage: where it is, and each table parsed once.
 *
 * share/fxsh has one folder per stage (capture/, meta/, decompose/, translate/). The folder is
 * $FXSH_SHAREDIR, else the installed pkgdatadir, else the source tree's share/fxsh. A stage asks
 * for its table here instead of reading YAML itself: the first request parses and validates the
 * files, later ones get the same read-only table, for the life of the process. A table that fails
 * to load is not remembered, so the next request reports the problem again.
 *
 * Ownership: tables_pass returns a table owned by this module; never free or modify it. */
#ifndef FXSH_TABLES_TABLES_H
#define FXSH_TABLES_TABLES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "tables/pass_tables.h"

/* Writes "<share>/<subdir>" of the first share folder that has that subfolder into buf (cap
 * bytes) and returns true; false, with an error naming FXSH_SHAREDIR, when none has it. */
bool tables_stage_dir(const char *subdir, char *buf, size_t cap, diag_sink *d);

/* The *.yaml file names of dir in name order (caller frees each and the array); (size_t)-1
 * after reporting to d when dir cannot be read. */
size_t tables_yaml_files(const char *dir, char ***names, diag_sink *d);

/* The records of the list_key lists (NULL: every top-level list) of the *.yaml files of
 * share/fxsh/<subdir>, parsed on first use; NULL after reporting to d when the tables cannot be loaded. */
const pass_table *tables_pass(const char *subdir, const char *list_key, diag_sink *d);

/* How many times YAML table folders were parsed in this process (for tests and `make bench`). */
size_t tables_parse_count(void);

#endif
