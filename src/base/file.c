/* file.c — whole-file reading and atomic writing (see file.h). */
#include "base/file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
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

bool file_create(atomic_file *af, const char *path, diag_sink *d)
{
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s.tmp.XXXXXX", path);
    af->tmp = sb_detach(&sb);
    af->path = xstrdup(path);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        diag_error(d, (diag_loc){path, 0, 0}, "cannot create: %s", strerror(errno));
        free(af->tmp);
        free(af->path);
        af->tmp = af->path = NULL;
        af->f = NULL;
        return false;
    }
    fchmod(fd, 0644 & ~umask(umask(0)));
    af->f = fdopen(fd, "wb");
    return true;
}

bool file_commit(atomic_file *af, diag_sink *d)
{
    bool ok = fflush(af->f) == 0 && !ferror(af->f);
    int err = errno;
    if (fclose(af->f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    af->f = NULL;
    if (ok && rename(af->tmp, af->path) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        diag_error(d, (diag_loc){af->path, 0, 0}, "cannot write: %s", strerror(err));
        unlink(af->tmp);
    }
    free(af->tmp);
    free(af->path);
    af->tmp = af->path = NULL;
    return ok;
}

void file_abort(atomic_file *af)
{
    if (af->f) fclose(af->f);
    if (af->tmp) unlink(af->tmp);
    free(af->tmp);
    free(af->path);
    af->f = NULL;
    af->tmp = af->path = NULL;
}
