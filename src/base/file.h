/* file.h — whole-file reading and atomic writing (temporary file + rename).
 *
 * Ownership: file_read returns a malloc'd buffer (NUL-terminated for convenience) the caller
 * frees; errors go to the diag sink with the file name. */
#ifndef FXSH_FILE_H
#define FXSH_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/diag.h"

char *file_read(const char *path, size_t *len, diag_sink *d);
/* The same without diagnostics: NULL (errno set) when the file cannot be read; len may be NULL. */
char *file_slurp(const char *path, size_t *len);

/* Atomic write: file_create opens "<path>.tmp.XXXXXX" beside path; file_commit flushes, closes
 * and renames it over path; file_abort closes and removes it. A failed or aborted write never
 * leaves a partial file at path. */
typedef struct atomic_file {
    FILE *f;
    char *path;
    char *tmp;
} atomic_file;

bool file_create(atomic_file *af, const char *path, diag_sink *d);
bool file_commit(atomic_file *af, diag_sink *d);
void file_abort(atomic_file *af);

#endif
