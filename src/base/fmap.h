/* fmap.h — shared, reference-counted byte regions: a read-only file mapping, a heap block, or a
 * region computed on demand.
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
 * from the disk when first touched, so mapping a multi-GB file costs nothing until it is read.
 *
 * A LAZY region (fmap_lazy) is address space with no memory behind it (PROT_NONE) whose bytes a
 * callback computes on request: weights an optimization derives from others (onnx/onnx_derive.h)
 * live there, so that they have an address — views of them are shared like views of a file —
 * but cost nothing until read. fmap_copy_out computes bytes into a caller's buffer (save streams
 * them so, chunk by chunk); fmap_need materialises pages where they are, for code that reads
 * through the pointer. Reading a lazy page that was not materialised faults: every reader of
 * weight bytes goes through fmap_copy_out or fmap_need first (both accept any pointer, and cost a
 * compare when no lazy region exists). */
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
    /* a lazy region: fill computes bytes [off, off + n) into dst; release frees ctx */
    void (*fill)(void *ctx, size_t off, unsigned char *dst, size_t n);
    void (*release)(void *ctx);
    void *ctx;
    unsigned char *ready;        /* per page of a lazy region: materialised where it is */
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

/* A lazy region of len bytes (see above), page-aligned; fill and release are called with ctx
 * (release once, with the last reference). fill must give the same bytes for the same range
 * every time: a range may be computed more than once. */
fmap *fmap_lazy(size_t len, void (*fill)(void *ctx, size_t off, unsigned char *dst, size_t n),
                void (*release)(void *ctx), void *ctx);
/* The live lazy region holding [p, p + len), or NULL (p is ordinary memory). */
fmap *fmap_lazy_of(const void *p, size_t len);
/* Copies the len bytes at p into dst: computed when they lie in a lazy region and are not all
 * materialised, else memcpy. */
void fmap_copy_out(const void *p, void *dst, size_t len);
/* Whether the len bytes at p can be read through p (ordinary memory, or materialised). */
bool fmap_ready(const void *p, size_t len);
/* Makes the len bytes at p readable through p: the lazy pages covering them are computed into
 * memory mapped where they are (kept until the region is released). */
void fmap_need(const void *p, size_t len);
/* Tells the kernel this process is done with [p, p + len) of a file mapping for now: its pages
 * leave the process (the page cache keeps them, a later read faults them back), so streaming a
 * mapped file does not grow the resident set by the file's size. A no-op for other kinds. */
void fmap_drop_pages(const fmap *f, const void *p, size_t len);

#endif
