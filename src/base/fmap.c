/* fmap.c — reference-counted read-only file mappings and adopted heap blocks. */
#include "base/fmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"

fmap *fmap_open(const char *path, diag_sink *d)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    int err = 0;
    if (fd < 0) err = errno;
    else if (fstat(fd, &st) != 0) err = errno;
    else if (!S_ISREG(st.st_mode)) err = EINVAL;
    if (err) {
        if (fd >= 0) close(fd);
        if (d) diag_error(d, (diag_loc){path, 0, 0}, "cannot map '%s': %s", path,
                          err == EINVAL ? "not a regular file" : strerror(err));
        errno = err;
        return NULL;
    }
    fmap *f = xcalloc(1, sizeof *f);
    f->refs = 1;
    f->fd = -1;
    if (st.st_size == 0) {   /* mmap refuses empty files */
        close(fd);
        f->data = xcalloc(1, 1);
        return f;
    }
    if ((uint64_t)st.st_size > SIZE_MAX) err = EFBIG;
    void *addr = err ? MAP_FAILED : mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED && !err) err = errno;
    if (addr == MAP_FAILED) {
        close(fd);
        free(f);
        if (d) diag_error(d, (diag_loc){path, 0, 0}, "cannot map '%s': %s", path, strerror(err));
        errno = err;
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    f->data = addr;
    f->len = (size_t)st.st_size;
    f->mapped = true;
    f->fd = fd;
    return f;
}

fmap *fmap_adopt(void *data, size_t len)
{
    fmap *f = xcalloc(1, sizeof *f);
    f->refs = 1;
    f->fd = -1;
    f->data = data ? data : xcalloc(1, 1);
    f->len = data ? len : 0;
    return f;
}

fmap *fmap_ref(fmap *f)
{
    if (f) f->refs++;
    return f;
}

void fmap_unref(fmap *f)
{
    if (!f || --f->refs) return;
    if (f->mapped) munmap((void *)f->data, f->len);
    else free((void *)f->data);
    if (f->fd >= 0) close(f->fd);
    free(f);
}

bool fmap_holds(const fmap *f, const void *p, size_t len)
{
    uintptr_t a = (uintptr_t)f->data, q = (uintptr_t)p;
    return q >= a && q - a <= f->len && len <= f->len - (q - a);
}
