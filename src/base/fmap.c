/* fmap.c — reference-counted read-only file mappings, adopted heap blocks and lazy regions. */
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

/* The live lazy regions, for the readers that hold a pointer and no fmap (few: one per pass that
 * derives weights, per model alive). */
enum { FAULT_AROUND = 64 << 10 };

static fmap **lazy_maps;
static size_t n_lazy, cap_lazy;

static size_t page_size(void)
{
    static size_t ps;
    if (!ps) {
        long v = sysconf(_SC_PAGESIZE);
        ps = v > 0 ? (size_t)v : 4096;
    }
    return ps;
}

fmap *fmap_lazy(size_t len, void (*fill)(void *ctx, size_t off, unsigned char *dst, size_t n),
                void (*release)(void *ctx), void *ctx)
{
    size_t ps = page_size(), span = len ? (len + ps - 1) / ps * ps : ps;
    /* address space only: no memory is committed until a page is materialised */
    void *addr = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (addr == MAP_FAILED) xalloc_failed();
    fmap *f = xcalloc(1, sizeof *f);
    f->refs = 1;
    f->fd = -1;
    f->data = addr;
    f->len = len;
    f->mapped = true;
    f->fill = fill;
    f->release = release;
    f->ctx = ctx;
    f->ready = xcalloc(span / ps, 1);
    xgrow((void **)&lazy_maps, &cap_lazy, n_lazy + 1, sizeof *lazy_maps);
    lazy_maps[n_lazy++] = f;
    return f;
}

fmap *fmap_lazy_of(const void *p, size_t len)
{
    for (size_t i = 0; i < n_lazy && p; i++)
        if (fmap_holds(lazy_maps[i], p, len)) return lazy_maps[i];
    return NULL;
}

static bool pages_ready(const fmap *f, const void *p, size_t len)
{
    size_t ps = page_size(), off = (size_t)((const unsigned char *)p - f->data);
    for (size_t pg = off / ps; len && pg <= (off + len - 1) / ps; pg++)
        if (!f->ready[pg]) return false;
    return true;
}

bool fmap_ready(const void *p, size_t len)
{
    fmap *f = n_lazy ? fmap_lazy_of(p, len) : NULL;
    return !f || pages_ready(f, p, len);
}

void fmap_copy_out(const void *p, void *dst, size_t len)
{
    fmap *f = n_lazy && len ? fmap_lazy_of(p, len) : NULL;
    if (!f || pages_ready(f, p, len)) {
        if (len) memcpy(dst, p, len);
        return;
    }
    f->fill(f->ctx, (size_t)((const unsigned char *)p - f->data), dst, len);
}

void fmap_need(const void *p, size_t len)
{
    fmap *f = n_lazy && len ? fmap_lazy_of(p, len) : NULL;
    if (!f) return;
    size_t ps = page_size(), off = (size_t)((const unsigned char *)p - f->data);
    size_t pg = off / ps, last = (off + len - 1) / ps;
    while (pg <= last) {
        if (f->ready[pg]) {
            pg++;
            continue;
        }
        size_t run = pg;   /* the run of pages not yet there: mapped, computed, made read-only */
        while (run <= last && !f->ready[run]) run++;
        unsigned char *at = (unsigned char *)f->data + pg * ps;
        size_t span = (run - pg) * ps;
        if (mmap(at, span, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
            xalloc_failed();
        size_t from = pg * ps, to = from + span < f->len ? from + span : f->len;
        if (to > from) f->fill(f->ctx, from, at, to - from);
        mprotect(at, span, PROT_READ);
        memset(f->ready + pg, 1, run - pg);
        pg = run;
    }
}

void fmap_drop_pages(const fmap *f, const void *p, size_t len)
{
    if (!f || !f->mapped || f->fd < 0 || f->fill || !len || !fmap_holds(f, p, len)) return;
    /* widened to the window the kernel maps around a faulting page (fault_around_bytes, 64 KB),
     * so a small read leaves nothing behind */
    size_t ps = page_size(), w = ps > FAULT_AROUND ? ps : FAULT_AROUND;
    uintptr_t a = (uintptr_t)p / w * w, b = ((uintptr_t)p + len + w - 1) / w * w;
    /* never past the mapping itself: what lies beyond is another mapping's memory */
    uintptr_t lo = (uintptr_t)f->data, hi = ((uintptr_t)f->data + f->len + ps - 1) / ps * ps;
    if (a < lo) a = lo;
    if (b > hi) b = hi;
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
}

fmap *fmap_ref(fmap *f)
{
    if (f) f->refs++;
    return f;
}

void fmap_unref(fmap *f)
{
    if (!f || --f->refs) return;
    if (f->fill) {
        for (size_t i = 0; i < n_lazy; i++)
            if (lazy_maps[i] == f) lazy_maps[i] = lazy_maps[--n_lazy];
        if (f->release) f->release(f->ctx);
        size_t ps = page_size();
        munmap((void *)f->data, f->len ? (f->len + ps - 1) / ps * ps : ps);
        free(f->ready);
        free(f);
        return;
    }
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
