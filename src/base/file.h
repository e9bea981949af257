/* file.h — whole-file reading and safe writing (temporary file, fsync, rename).
 *
 * Ownership: file_read returns a malloc'd buffer (NUL-terminated for convenience) the caller
 * frees; errors go to the diag sink with the file name. */
#ifndef FXSH_FILE_H
#define FXSH_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/diag.h"

char *file_read(const char *path, size_t *len, diag_sink *d);
/* The same without diagnostics: NULL (errno set) when the file cannot be read; len may be NULL. */
char *file_slurp(const char *path, size_t *len);

/* Safe writing, shared by every command that writes a file (save, dot FILE, save-patch):
 *   - a symbolic link is followed: the file written is the one the link names (a dangling
 *     link gets its target created), never the link replaced;
 *   - a regular file (or a new one) is written to "<path>.tmp.XXXXXX" in the same directory,
 *     fsync'ed and renamed over it; an existing file keeps its mode (and, as root, its owner);
 *   - a character device (/dev/null, /dev/tty) is written directly, and /dev/stdout,
 *     /dev/stderr, /dev/fd/N and /proc/self/fd/N write into that open descriptor (after
 *     flushing stdout and stderr), so the output lands where the stream is;
 *   - a directory, FIFO, socket or block device is refused with a clear error.
 * file_create opens af->f; file_write writes a buffer (in chunks, stopping when an interrupt is
 * pending); file_commit flushes, syncs, closes and renames, reporting any write error (a full
 * disk, /dev/full); file_abort closes and removes the temporary. A failed, aborted or
 * interrupted write leaves the old file intact and no temporary behind. */
typedef struct atomic_file {
    FILE *f;
    char *path;     /* the file written: the link's target when path was a symbolic link */
    char *tmp;      /* the temporary renamed over path, NULL when writing directly */
    char *shown;    /* the name the user gave, for messages */
    uint64_t writeback;   /* bytes of the temporary already handed to the disk's writeback */
} atomic_file;

bool file_create(atomic_file *af, const char *path, diag_sink *d);
bool file_write(atomic_file *af, const void *buf, size_t len, diag_sink *d);
/* Appends len bytes of the file open as src_fd, from offset on, with copy_file_range (the kernel
 * copies, nothing is read into this process), or sendfile where copy_file_range cannot (another
 * file system, a device such as /dev/stdout); where neither can, writes the same bytes from mem,
 * which must hold them. */
bool file_copy_range(atomic_file *af, int src_fd, uint64_t offset, const void *mem, size_t len,
                     diag_sink *d);
/* Flushes and fsyncs without closing (a caller committing two files syncs both first). */
bool file_sync(atomic_file *af, diag_sink *d);
bool file_commit(atomic_file *af, diag_sink *d);
void file_abort(atomic_file *af);
/* The whole of buf written to path as above (create, write, commit; aborted on failure). */
bool file_write_whole(const char *path, const void *buf, size_t len, diag_sink *d);

#endif
