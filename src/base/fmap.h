/* fmap.h — shared, reference-counted byte regions: a read-only file mapping or a heap block.
 *
 * Weights are never copied between stages: a tensor's bytes that come from a file stay in the
 * file's mapping, and every holder (an FX program's weight, an ONNX model) keeps a reference to
 * the fmap the bytes live in, so the mapping outlives each of them and is unmapped when the last
 * reference goes.
 *
 * Ownership: fmap_open and fmap_adopt return an fmap with one reference, owned by the caller;
 * fmap_ref adds one, fmap_unref drops one (NULL is ignored) and unmaps / frees the region when
 * none are left. A file mapping is PROT_READ and MAP_PRIVATE: the bytes must never be written
 * (a write faults), and the file must not be truncated while mapped (saving over it is safe:
 * base/file.h writes a new file and renames it, the mapping keeps the old one). Pages are read
 * from the disk when first touched, so mapping a multi-GB file costs nothing until it is read. */
#ifndef FXSH_FMAP_H
#define FXSH_FMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

typedef struct fmap {
    const unsigned char *data;   /* the region; never NULL (an empty file maps to a 1-byte block) */
    size_t len;
    unsigned refs;
    bool mapped;                 /* munmap'd when released; else free()d */
    int fd;                      /* the mapped file, open read-only until released (saving copies
                                  * from it with copy_file_range); -1 for a heap block */
} fmap;

/* Maps the regular file at path read-only (the caller checked what it must: a model's folder,
 * not a FIFO...). NULL after reporting to d (may be NULL: errno is then set). */
fmap *fmap_open(const char *path, diag_sink *d);
/* Takes ownership of the malloc'd block data of len bytes (freed with the last reference). */
fmap *fmap_adopt(void *data, size_t len);
fmap *fmap_ref(fmap *f);
void fmap_unref(fmap *f);
/* Whether [p, p + len) lies inside f's region. */
bool fmap_holds(const fmap *f, const void *p, size_t len);

#endif
