/* file.c — whole-file reading and safe writing (see file.h). */
#define _GNU_SOURCE   /* copy_file_range, sync_file_range */
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/interrupt.h"
#include "base/strbuf.h"

char *file_read(const char *path, size_t *len, diag_sink *d)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        diag_error(d, (diag_loc){path, 0, 0}, "is a directory");
        return NULL;
    }
    char *text = file_slurp(path, len);
    if (!text) diag_error(d, (diag_loc){path, 0, 0}, "cannot open: %s", strerror(errno));
    return text;
}

char *file_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    strbuf sb;
    sb_init(&sb);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&sb, buf, n);
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        sb_free(&sb);
        return NULL;
    }
    if (len) *len = sb.len;
    return sb_detach(&sb);
}

/*==== safe writing ====*/

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: a descriptor already open. */
static int descriptor_of(const char *p)
{
    if (!strcmp(p, "/dev/stdout")) return STDOUT_FILENO;
    if (!strcmp(p, "/dev/stderr")) return STDERR_FILENO;
    const char *num = !strncmp(p, "/dev/fd/", 8) ? p + 8 : !strncmp(p, "/proc/self/fd/", 14) ? p + 14 : NULL;
    if (!num || !*num) return -1;
    char *end;
    long fd = strtol(num, &end, 10);
    return *end || fd < 0 || fd > INT_MAX ? -1 : (int)fd;
}

/* Follows the symbolic links of the last component of path: the name the data must go to
 * (malloc'd). *fd is set when the chain reaches an open descriptor. NULL, errno set, on a loop. */
static char *resolve_target(const char *path, int *fd)
{
    char *cur = xstrdup(path);
    *fd = -1;
    for (int hops = 0; hops < 40; hops++) {
        if ((*fd = descriptor_of(cur)) >= 0) return cur;
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        char buf[PATH_MAX];
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0) return cur;
        buf[n] = '\0';
        const char *slash = strrchr(cur, '/');
        strbuf next;
        sb_init(&next);
        if (buf[0] != '/' && slash) sb_putn(&next, cur, (size_t)(slash - cur) + 1);
        sb_puts(&next, buf);
        free(cur);
        cur = sb_detach(&next);
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

static const char *kind_name(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISBLK(m)) return "a block device";
    return "not a regular file";
}

static void af_free(atomic_file *af)
{
    free(af->path);
    free(af->tmp);
    free(af->shown);
    af->path = af->tmp = af->shown = NULL;
    af->f = NULL;
}

static bool af_fail(atomic_file *af, diag_sink *d, const char *what, int err)
{
    diag_error(d, (diag_loc){af->shown, 0, 0}, "%s: %s", what, strerror(err));
    af_free(af);
    return false;
}

/* Opens the file or device directly (no temporary). */
static bool open_direct(atomic_file *af, int fd, diag_sink *d)
{
    af->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!af->f) {
        int err = errno;
        if (fd >= 0) close(fd);
        return af_fail(af, d, "cannot write", err);
    }
    return true;
}

bool file_create(atomic_file *af, const char *path, diag_sink *d)
{
    memset(af, 0, sizeof *af);
    af->shown = xstrdup(path);
    int fdnum;
    af->path = resolve_target(path, &fdnum);
    if (!af->path) return af_fail(af, d, "cannot write", errno);
    if (fdnum >= 0) {   /* the stream itself: what was printed before goes first */
        fflush(stdout);
        fflush(stderr);
        return open_direct(af, dup(fdnum), d);
    }
    struct stat st;
    bool exists = stat(af->path, &st) == 0;
    if (!exists && errno != ENOENT) return af_fail(af, d, "cannot write", errno);
    if (exists && S_ISCHR(st.st_mode)) return open_direct(af, open(af->path, O_WRONLY | O_NOCTTY | O_CLOEXEC), d);
    if (exists && !S_ISREG(st.st_mode)) {
        diagnostic *dg = diag_error(d, (diag_loc){af->shown, 0, 0}, "is %s: not replaced", kind_name(st.st_mode));
        diag_set_hint(dg, "fxsh writes regular files (a new name, or an existing file) and character devices such as /dev/stdout");
        af_free(af);
        return false;
    }
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = exists ? st.st_mode & 07777 : 0666 & ~mask;
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s.tmp.XXXXXX", af->path);
    af->tmp = sb_detach(&sb);
    int fd = mkstemp(af->tmp);
    if (fd < 0 && errno == ENAMETOOLONG) {   /* a name at the limit: a short hidden one beside it */
        const char *slash = strrchr(af->path, '/');
        sb_init(&sb);
        if (slash) sb_putn(&sb, af->path, (size_t)(slash - af->path) + 1);
        sb_puts(&sb, ".fxsh.tmp.XXXXXX");
        free(af->tmp);
        af->tmp = sb_detach(&sb);
        fd = mkstemp(af->tmp);
    }
    if (fd < 0) return af_fail(af, d, "cannot create", errno);
    interrupt_add_temp(af->tmp);
    fchmod(fd, mode);
    if (exists && geteuid() == 0 && (st.st_uid != 0 || st.st_gid != 0)) (void)!fchown(fd, st.st_uid, st.st_gid);
    af->f = fdopen(fd, "wb");
    if (!af->f) {
        int err = errno;
        close(fd);
        unlink(af->tmp);
        interrupt_remove_temp(af->tmp);
        return af_fail(af, d, "cannot create", err);
    }
    return true;
}

/* Large buffers bypass stdio: what is buffered is flushed, then the bytes go to the file from
 * where they are, in one write(2) per DIRECT_CHUNK (one per tensor when saving weights). */
enum { DIRECT_MIN = 1 << 20, DIRECT_CHUNK = 1 << 28, WRITEBACK_STEP = 8 << 20 };

/* A temporary that will be fsync'ed has its written pages handed to the disk every
 * WRITEBACK_STEP bytes (sync_file_range, which starts the writes and does not wait for them):
 * the disk writes while the rest is computed and copied, so the final fsync waits only for the
 * tail, where it would otherwise write the whole file after everything else was done (a
 * 100 MB weight file: 190 ms of fsync at the end on this machine's disk). */
static void start_writeback(atomic_file *af)
{
    if (!af->tmp) return;
    int fd = fileno(af->f);
    off_t at = lseek(fd, 0, SEEK_CUR);
    if (at < 0 || (uint64_t)at < af->writeback + WRITEBACK_STEP) return;
    if (sync_file_range(fd, (off_t)af->writeback, at - (off_t)af->writeback, SYNC_FILE_RANGE_WRITE) == 0)
        af->writeback = (uint64_t)at;
}

static bool write_direct(atomic_file *af, const char *p, size_t len, diag_sink *d)
{
    if (fflush(af->f) != 0) {
        diag_error(d, (diag_loc){af->shown, 0, 0}, "cannot write: %s", strerror(errno));
        return false;
    }
    while (len) {
        if (interrupt_pending()) {
            diag_error(d, (diag_loc){af->shown, 0, 0}, "not written: interrupted");
            return false;
        }
        ssize_t n = write(fileno(af->f), p, len < DIRECT_CHUNK ? len : DIRECT_CHUNK);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            diag_error(d, (diag_loc){af->shown, 0, 0}, "cannot write: %s", n < 0 ? strerror(errno) : "no progress");
            return false;
        }
        p += n;
        len -= (size_t)n;
        start_writeback(af);
    }
    return true;
}

bool file_copy_range(atomic_file *af, int src_fd, uint64_t offset, const void *mem, size_t len,
                     diag_sink *d)
{
    if (fflush(af->f) != 0) return file_write(af, mem, len, d);   /* reports the error */
    size_t done = 0;
    bool use_sendfile = false;
    while (done < len) {
        if (interrupt_pending()) {
            diag_error(d, (diag_loc){af->shown, 0, 0}, "not written: interrupted");
            return false;
        }
        loff_t off = (loff_t)(offset + done);
        size_t n = len - done < DIRECT_CHUNK ? len - done : DIRECT_CHUNK;
        ssize_t got = use_sendfile ? -1 : copy_file_range(src_fd, &off, fileno(af->f), NULL, n, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && !use_sendfile) {   /* another file system, a device: sendfile still copies in the kernel */
            use_sendfile = true;
            continue;
        }
        if (use_sendfile) {
            off = (loff_t)(offset + done);
            got = sendfile(fileno(af->f), src_fd, &off, n);
            if (got < 0 && errno == EINTR) continue;
        }
        if (got <= 0) break;   /* neither works here, or the source is shorter: write the rest */
        done += (size_t)got;
        start_writeback(af);
    }
    return done == len || write_direct(af, (const char *)mem + done, len - done, d);
}

bool file_write(atomic_file *af, const void *buf, size_t len, diag_sink *d)
{
    const char *p = buf;
    if (len >= DIRECT_MIN) return write_direct(af, p, len, d);
    while (len) {
        if (interrupt_pending()) {
            diag_error(d, (diag_loc){af->shown, 0, 0}, "not written: interrupted");
            return false;
        }
        size_t n = len < (1u << 20) ? len : (1u << 20);
        if (fwrite(p, 1, n, af->f) != n) {
            diag_error(d, (diag_loc){af->shown, 0, 0}, "cannot write: %s", strerror(errno));
            return false;
        }
        p += n;
        len -= n;
    }
    return true;
}

bool file_sync(atomic_file *af, diag_sink *d)
{
    int err = 0;
    if (fflush(af->f) != 0 || ferror(af->f)) err = errno ? errno : EIO;
    else if (af->tmp && fsync(fileno(af->f)) != 0) err = errno;
    if (!err) return true;
    diag_error(d, (diag_loc){af->shown, 0, 0}, "cannot write: %s", strerror(err));
    return false;
}

bool file_commit(atomic_file *af, diag_sink *d)
{
    int err = 0;
    bool interrupted = interrupt_pending();
    errno = 0;
    if (!interrupted) {
        if (fflush(af->f) != 0 || ferror(af->f)) err = errno ? errno : EIO;
        else if (af->tmp && fsync(fileno(af->f)) != 0) err = errno;
    }
    if (fclose(af->f) != 0 && !err && !interrupted) err = errno;
    af->f = NULL;
    if (!err && !interrupted && af->tmp && rename(af->tmp, af->path) != 0) err = errno;
    if (af->tmp && (err || interrupted)) unlink(af->tmp);
    if (af->tmp) interrupt_remove_temp(af->tmp);
    if (interrupted) diag_error(d, (diag_loc){af->shown, 0, 0}, "not written: interrupted");
    else if (err) diag_error(d, (diag_loc){af->shown, 0, 0}, "cannot write: %s", strerror(err));
    af_free(af);
    return !err && !interrupted;
}

void file_abort(atomic_file *af)
{
    if (af->f) fclose(af->f);
    if (af->tmp) {
        unlink(af->tmp);
        interrupt_remove_temp(af->tmp);
    }
    af_free(af);
}

bool file_write_whole(const char *path, const void *buf, size_t len, diag_sink *d)
{
    atomic_file af;
    if (!file_create(&af, path, d)) return false;
    if (!file_write(&af, buf, len, d)) {
        file_abort(&af);
        return false;
    }
    return file_commit(&af, d);
}
