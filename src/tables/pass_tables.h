/* pass_tables.h — the data tables of the export and decompose passes (share/fxsh/capture,
 * share/fxsh/decompose): YAML files holding one list of flat records (key: string or list of strings).
 *
 * Ownership: a pass_table owns every record and string (one arena) until pass_table_free.
 * Loading never prints: problems go to the diag_sink with file:line:col. */
#ifndef FXSH_TABLES_PASS_TABLES_H
#define FXSH_TABLES_PASS_TABLES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/alloc.h"
#include "base/diag.h"

typedef struct pt_record {
    const char **keys;
    const char **values;      /* a YAML list is joined with "," */
    size_t n;
    const char *list;         /* the top-level key of the list holding the record */
    const char *file;
    int line;
} pt_record;

typedef struct pass_table {
    arena arena;
    pt_record *recs;
    size_t n, cap;
} pass_table;

void pass_table_init(pass_table *t);
void pass_table_free(pass_table *t);
/* Appends the records of the list under list_key (NULL: of every top-level list) in YAML text
 * (name is used in diagnostics). On error nothing of this text is kept. */
bool pass_table_load_string(pass_table *t, const char *name, const char *text, size_t len,
                            const char *list_key, diag_sink *d);
bool pass_table_load_file(pass_table *t, const char *path, const char *list_key, diag_sink *d);
/* Loads the list_key lists of every *.yaml of <share>/<subdir> in name order, share being
 * $FXSH_SHAREDIR, else the installed pkgdatadir, else the source tree's share/fxsh. A file
 * without that list is skipped (a directory may hold several kinds); none having it is an error. */
bool pass_table_load_default(pass_table *t, const char *subdir, const char *list_key, diag_sink *d);
/* The value of key in r, NULL if absent. */
const char *pt_get(const pt_record *r, const char *key);

#endif
