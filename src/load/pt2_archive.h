/* pt2_archive.h — read access to torch.export .pt2 archives (zip): root folder, members, blobs.
 *
 * The file is memory-mapped; stored (uncompressed) members are returned as pointers into the
 * mapping (no copy), compressed members are inflated into malloc'd memory.
 * Ownership: the mapping is a reference-counted fmap; a process-wide cache holds one reference
 * (later opens of the same unchanged file share it), the archive one until pt2_archive_close,
 * and each weight pointing into it one more (pt2_archive_map, fx_weight_set_map). pt2_blob.data is borrowed when !owned, else the caller frees it (pt2_blob_free). */
#ifndef FXSH_LOAD_PT2_ARCHIVE_H
#define FXSH_LOAD_PT2_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/fmap.h"

typedef struct pt2_archive pt2_archive;

typedef struct pt2_blob {
    const unsigned char *data;
    size_t size;
    bool owned;       /* malloc'd (member was compressed); free with pt2_blob_free */
} pt2_blob;

/* Opens and validates path: a zip with an `archive_format` member containing "pt2", no entry
 * with an absolute path or a `..` component. NULL + diagnostic on error. */
pt2_archive *pt2_archive_open(const char *path, diag_sink *d);
/* Same for a zip already in memory (buf must outlive the archive and what is read from it). */
pt2_archive *pt2_archive_open_buffer(const unsigned char *buf, size_t len, const char *name, diag_sink *d);
void pt2_archive_close(pt2_archive *ar);

const char *pt2_archive_root(const pt2_archive *ar);     /* "program" (no slash), "" if none */
const char *pt2_archive_path(const pt2_archive *ar);
/* The file's mapping, which stored members point into (NULL for an archive opened from a
 * buffer): a weight borrowing a stored member takes a reference to it (fx_weight_set_map). */
fmap *pt2_archive_map(const pt2_archive *ar);
/* Model names found as models/<name>.json, in archive order. */
size_t pt2_archive_n_models(const pt2_archive *ar);
const char *pt2_archive_model(const pt2_archive *ar, size_t i);

/* Whether the member root/rel exists. */
bool pt2_archive_has(const pt2_archive *ar, const char *rel);
/* Reads root/rel. Missing member → false + error naming it (only if d != NULL). */
bool pt2_archive_read(pt2_archive *ar, const char *rel, pt2_blob *out, diag_sink *d);
void pt2_blob_free(pt2_blob *b);

#endif
