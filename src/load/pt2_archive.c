/* pt2_archive.c — .pt2 zip access: libzip for listing/inflating, own central-directory walk to
 * point into the mapping for stored members. */
#include "load/pt2_archive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "base/alloc.h"
#include "base/fmap.h"
#include "base/hashmap.h"
#include "base/limits.h"
#include "base/vec.h"

/* ---- process-wide mappings ------------------------------------------------------------- */

/* Reopening an unchanged file reuses its mapping while something still uses it: every weight
 * borrowing from a mapping holds its own reference (fx_weight.map), and the cache one more. A
 * mapping only the cache holds is let go at the next open, so that a session loading file after
 * file (a script, a fuzzer) keeps no more files open than its programs use. */
typedef struct mapping {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    fmap *f;
} mapping;
static VEC(mapping) g_maps;
static bool g_atexit_set;

static void unmap_all(void)
{
    for (size_t i = 0; i < g_maps.len; i++) fmap_unref(g_maps.items[i].f);
    vec_free(&g_maps);
}

static fmap *map_file(const char *path, diag_sink *d)
{
    diag_loc loc = { path, 0, 0 };
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag_error(d, loc, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        diag_error(d, loc, "not a regular file");
        close(fd);
        return NULL;
    }
    close(fd);
    if (st.st_size == 0) {
        diag_error(d, loc, "empty file");
        return NULL;
    }
    size_t kept = 0;
    for (size_t i = 0; i < g_maps.len; i++) {
        if (g_maps.items[i].f->refs == 1) fmap_unref(g_maps.items[i].f);   /* nobody borrows from it */
        else g_maps.items[kept++] = g_maps.items[i];
    }
    g_maps.len = kept;
    for (size_t i = 0; i < g_maps.len; i++) {
        mapping *m = &g_maps.items[i];
        if (m->dev == st.st_dev && m->ino == st.st_ino && m->size == st.st_size &&
            m->mtime.tv_sec == st.st_mtim.tv_sec && m->mtime.tv_nsec == st.st_mtim.tv_nsec)
            return m->f;
    }
    fmap *f = fmap_open(path, NULL);
    if (!f) {
        diag_error(d, loc, "cannot map file: %s", strerror(errno));
        return NULL;
    }
    mapping m = { st.st_dev, st.st_ino, st.st_size, st.st_mtim, f };
    vec_push(&g_maps, m);
    if (!g_atexit_set) {
        atexit(unmap_all);
        g_atexit_set = true;
    }
    return f;
}

/* ---- central directory ------------------------------------------------------------------- */

typedef struct cd_entry {
    char *name;
    uint64_t local_off;
} cd_entry;

struct pt2_archive {
    char *path;
    const unsigned char *buf;
    size_t len;
    fmap *map;              /* the file's mapping (buf), one reference; NULL for a buffer */
    zip_t *zip;
    zip_source_t *src;
    char *root;             /* "" or "program" */
    VEC(char *) models;
    VEC(cd_entry) cd;
    hashmap cd_index;       /* name -> cd_entry index + 1 */
    uint64_t inflated;      /* bytes inflated from compressed members so far */
    uint64_t max_inflate;   /* cap on inflated, in all (FXSH_MAX_INFLATE) */
};

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* Records each entry's local header offset. Failure is not an error: members it cannot place
 * are then read through libzip (copied) instead. */
static void walk_central_directory(pt2_archive *ar)
{
    const unsigned char *b = ar->buf;
    size_t n = ar->len;
    if (n < 22) return;
    size_t lo = n > 22 + 65535 ? n - 22 - 65535 : 0;
    size_t eocd = (size_t)-1;
    for (size_t i = n - 22 + 1; i-- > lo;) {
        if (rd32(b + i) == 0x06054b50) { eocd = i; break; }
    }
    if (eocd == (size_t)-1) return;
    uint64_t count = rd16(b + eocd + 10), cd_size = rd32(b + eocd + 12), cd_off = rd32(b + eocd + 16);
    if ((count == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_off == 0xFFFFFFFFu) && eocd >= 20 &&
        rd32(b + eocd - 20) == 0x07064b50) {
        uint64_t z = rd64(b + eocd - 20 + 8);
        if (z > n || n - z < 56 || rd32(b + z) != 0x06064b50) return;
        count = rd64(b + z + 32);
        cd_size = rd64(b + z + 40);
        cd_off = rd64(b + z + 48);
    }
    if (cd_off > n || cd_size > n - cd_off) return;
    size_t p = (size_t)cd_off, end = (size_t)(cd_off + cd_size);
    for (uint64_t e = 0; e < count; e++) {
        if (end - p < 46 || rd32(b + p) != 0x02014b50) return;
        size_t nl = rd16(b + p + 28), el = rd16(b + p + 30), cl = rd16(b + p + 32);
        if (end - p - 46 < nl + el + cl) return;
        uint64_t usize = rd32(b + p + 24), csize = rd32(b + p + 20), off = rd32(b + p + 42);
        /* zip64 extra: present fields in order usize, csize, offset (only those saturated). */
        const unsigned char *x = b + p + 46 + nl, *xe = x + el;
        while (xe - x >= 4) {
            uint16_t id = rd16(x), sz = rd16(x + 2);
            if ((size_t)(xe - x - 4) < sz) break;
            if (id == 1) {
                const unsigned char *f = x + 4, *fe = f + sz;
                if (usize == 0xFFFFFFFFu && fe - f >= 8) { usize = rd64(f); f += 8; }
                if (csize == 0xFFFFFFFFu && fe - f >= 8) { csize = rd64(f); f += 8; }
                if (off == 0xFFFFFFFFu && fe - f >= 8) off = rd64(f);
            }
            x += 4 + sz;
        }
        cd_entry ce = { xstrndup((const char *)b + p + 46, nl), off };
        vec_push(&ar->cd, ce);
        p += 46 + nl + el + cl;
    }
    for (size_t i = 0; i < ar->cd.len; i++) hm_put(&ar->cd_index, ar->cd.items[i].name, (void *)(uintptr_t)(i + 1));
}

/* ---- open / close ------------------------------------------------------------------------ */

static bool bad_entry_name(const char *nm)
{
    if (nm[0] == '/' || nm[0] == '\\') return true;
    if (((nm[0] >= 'A' && nm[0] <= 'Z') || (nm[0] >= 'a' && nm[0] <= 'z')) && nm[1] == ':') return true;
    for (const char *s = nm; *s;) {
        const char *e = s;
        while (*e && *e != '/' && *e != '\\') e++;
        if (e - s == 2 && s[0] == '.' && s[1] == '.') return true;
        s = *e ? e + 1 : e;
    }
    return false;
}

void pt2_archive_close(pt2_archive *ar)
{
    if (!ar) return;
    if (ar->zip) zip_discard(ar->zip);
    else if (ar->src) zip_source_free(ar->src);
    for (size_t i = 0; i < ar->models.len; i++) free(ar->models.items[i]);
    vec_free(&ar->models);
    for (size_t i = 0; i < ar->cd.len; i++) free(ar->cd.items[i].name);
    vec_free(&ar->cd);
    hm_free(&ar->cd_index);
    free(ar->root);
    free(ar->path);
    fmap_unref(ar->map);
    free(ar);
}

static char *member_name(const pt2_archive *ar, const char *rel)
{
    size_t rl = strlen(ar->root), l = strlen(rel);
    char *s = xmalloc(rl + 1 + l + 1);
    memcpy(s, ar->root, rl);
    if (rl) s[rl++] = '/';
    memcpy(s + rl, rel, l + 1);
    return s;
}

pt2_archive *pt2_archive_open_buffer(const unsigned char *buf, size_t len, const char *name, diag_sink *d)
{
    diag_loc loc = { name, 0, 0 };
    pt2_archive *ar = xcalloc(1, sizeof *ar);
    ar->path = xstrdup(name ? name : "<buffer>");
    ar->buf = buf;
    ar->len = len;
    ar->max_inflate = limit_max_inflate(len);
    hm_init(&ar->cd_index);
    zip_error_t err;
    zip_error_init(&err);
    ar->src = zip_source_buffer_create(buf, len, 0, &err);
    if (ar->src) ar->zip = zip_open_from_source(ar->src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
    if (!ar->zip) {
        diag_error(d, loc, "not a .pt2 archive: %s", zip_error_strerror(&err));
        zip_error_fini(&err);
        pt2_archive_close(ar);
        return NULL;
    }
    zip_error_fini(&err);
    zip_int64_t n = zip_get_num_entries(ar->zip, 0);
    const char *format_entry = NULL;
    for (zip_int64_t i = 0; i < n; i++) {
        const char *nm = zip_get_name(ar->zip, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
        if (!nm) continue;
        if (bad_entry_name(nm)) {
            diag_error(d, loc, "archive entry '%s' has an absolute path or a '..' component; refusing to read the archive", nm);
            pt2_archive_close(ar);
            return NULL;
        }
        const char *base = strrchr(nm, '/');
        base = base ? base + 1 : nm;
        /* The root folder is the one directly holding archive_format (zero or one level deep). */
        if (strcmp(base, "archive_format") == 0 && (base == nm || memchr(nm, '/', (size_t)(base - nm - 1)) == NULL)) {
            if (!format_entry || strlen(nm) < strlen(format_entry)) format_entry = nm;
        }
    }
    if (!format_entry) {
        diagnostic *dg = diag_error(d, loc, "not a .pt2 archive: no 'archive_format' member among its %lld entries", (long long)n);
        diag_set_hint(dg, "create it with torch.export.save(ep, \"model.pt2\")");
        pt2_archive_close(ar);
        return NULL;
    }
    ar->root = xstrndup(format_entry, strlen(format_entry) - strlen("archive_format") - (strchr(format_entry, '/') ? 1 : 0));
    walk_central_directory(ar);
    pt2_blob fmt;
    if (!pt2_archive_read(ar, "archive_format", &fmt, d)) {
        pt2_archive_close(ar);
        return NULL;
    }
    size_t fl = fmt.size;
    while (fl > 0 && (fmt.data[fl - 1] == '\n' || fmt.data[fl - 1] == '\r' || fmt.data[fl - 1] == ' ')) fl--;
    bool ok = fl == 3 && memcmp(fmt.data, "pt2", 3) == 0;
    if (!ok) {
        char shown[24];
        size_t k = fl < 16 ? fl : 16;
        for (size_t i = 0; i < k; i++) shown[i] = fmt.data[i] >= 0x20 && fmt.data[i] < 0x7f ? (char)fmt.data[i] : '?';
        shown[k] = '\0';
        diag_error(d, loc, "not a .pt2 archive: member '%s/archive_format' says '%s%s', expected 'pt2'", ar->root, shown,
                   fl > 16 ? "..." : "");
    }
    pt2_blob_free(&fmt);
    if (!ok) {
        pt2_archive_close(ar);
        return NULL;
    }
    char *prefix = member_name(ar, "models/");
    size_t pl = strlen(prefix);
    for (zip_int64_t i = 0; i < n; i++) {
        const char *nm = zip_get_name(ar->zip, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
        size_t l = nm ? strlen(nm) : 0;
        if (nm && l > pl + 5 && strncmp(nm, prefix, pl) == 0 && strcmp(nm + l - 5, ".json") == 0 && !strchr(nm + pl, '/'))
            vec_push(&ar->models, xstrndup(nm + pl, l - pl - 5));
    }
    free(prefix);
    return ar;
}

pt2_archive *pt2_archive_open(const char *path, diag_sink *d)
{
    fmap *f = map_file(path, d);
    if (!f) return NULL;
    pt2_archive *ar = pt2_archive_open_buffer(f->data, f->len, path, d);
    if (ar) ar->map = fmap_ref(f);
    return ar;
}

fmap *pt2_archive_map(const pt2_archive *ar) { return ar->map; }

const char *pt2_archive_root(const pt2_archive *ar) { return ar->root; }
const char *pt2_archive_path(const pt2_archive *ar) { return ar->path; }
size_t pt2_archive_n_models(const pt2_archive *ar) { return ar->models.len; }
const char *pt2_archive_model(const pt2_archive *ar, size_t i) { return i < ar->models.len ? ar->models.items[i] : NULL; }

bool pt2_archive_has(const pt2_archive *ar, const char *rel)
{
    char *nm = member_name(ar, rel);
    bool ok = zip_name_locate(ar->zip, nm, ZIP_FL_ENC_RAW) >= 0;
    free(nm);
    return ok;
}

void pt2_blob_free(pt2_blob *b)
{
    if (b->owned) free((void *)b->data);
    b->data = NULL;
    b->size = 0;
    b->owned = false;
}

bool pt2_archive_read(pt2_archive *ar, const char *rel, pt2_blob *out, diag_sink *d)
{
    out->data = NULL;
    out->size = 0;
    out->owned = false;
    diag_loc loc = { ar->path, 0, 0 };
    char *nm = member_name(ar, rel);
    zip_int64_t idx = zip_name_locate(ar->zip, nm, ZIP_FL_ENC_RAW);
    zip_stat_t st;
    if (idx < 0 || zip_stat_index(ar->zip, (zip_uint64_t)idx, 0, &st) != 0) {
        if (d) diag_error(d, loc, "missing archive member '%s'", nm);
        free(nm);
        return false;
    }
    /* Stored and unencrypted: point into the mapping. */
    uintptr_t ci = (uintptr_t)hm_get(&ar->cd_index, nm);
    if (ci && (st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method == ZIP_CM_STORE &&
        (!(st.valid & ZIP_STAT_ENCRYPTION_METHOD) || st.encryption_method == ZIP_EM_NONE)) {
        uint64_t lho = ar->cd.items[ci - 1].local_off;
        if (lho <= ar->len && ar->len - lho >= 30 && rd32(ar->buf + lho) == 0x04034b50) {
            uint64_t data = lho + 30 + rd16(ar->buf + lho + 26) + rd16(ar->buf + lho + 28);
            if (data > ar->len || ar->len - data < st.size) {
                if (d) diag_error(d, loc, "archive member '%s' is truncated: %llu bytes declared, %llu present", nm,
                                  (unsigned long long)st.size,
                                  (unsigned long long)(data > ar->len ? 0 : ar->len - data));
                free(nm);
                return false;
            }
            out->data = ar->buf + data;
            out->size = st.size;
            free(nm);
            return true;
        }
    }
    /* Compressed: the declared size is checked against the cap before inflating, and the bytes
     * are counted while reading (a member may inflate to more than it declares). */
    uint64_t left = ar->max_inflate > ar->inflated ? ar->max_inflate - ar->inflated : 0;
    bool sized = (st.valid & ZIP_STAT_SIZE) != 0;
    if (sized && st.size > left) {
        if (d) {
            diagnostic *dg = diag_error(d, loc, "archive member '%s' inflates to %llu bytes, more than fxsh allows for this "
                                        "%llu-byte archive (%llu bytes in all, %llu already used)",
                                        nm, (unsigned long long)st.size, (unsigned long long)ar->len,
                                        (unsigned long long)ar->max_inflate, (unsigned long long)ar->inflated);
            diag_set_hint(dg, "a zip bomb, or a very compressible member: set " FXSH_MAX_INFLATE_ENV
                              "=BYTES (K, M, G suffixes) to allow more");
        }
        free(nm);
        return false;
    }
    zip_file_t *zf = zip_fopen_index(ar->zip, (zip_uint64_t)idx, 0);
    if (!zf) {
        if (d) diag_error(d, loc, "cannot read archive member '%s': %s", nm, zip_strerror(ar->zip));
        free(nm);
        return false;
    }
    size_t cap = sized ? (size_t)st.size : 0, got = 0;
    unsigned char *buf = xmalloc(cap ? cap : 1);
    bool ok = true, over = false;
    for (;;) {
        if (got == cap) {
            if (sized && got == st.size) {
                /* read one byte more: a member that inflates past its declared size is corrupt */
                unsigned char extra;
                zip_int64_t x = zip_fread(zf, &extra, 1);
                if (x != 0) ok = false;
                break;
            }
            size_t ncap = cap ? cap * 2 : 65536;
            if (ncap > left) ncap = (size_t)left + 1;
            if (ncap <= cap) {
                over = true;
                break;
            }
            buf = xrealloc(buf, ncap);
            cap = ncap;
        }
        zip_int64_t r = zip_fread(zf, buf + got, cap - got);
        if (r < 0) {
            ok = false;
            break;
        }
        if (r == 0) break;
        got += (size_t)r;
        if (got > left) {
            over = true;
            break;
        }
    }
    if (sized && ok && !over && got != st.size) ok = false;
    if (over && d) {
        diagnostic *dg = diag_error(d, loc, "archive member '%s' inflates to more than fxsh allows for this %llu-byte "
                                    "archive (%llu bytes in all)", nm, (unsigned long long)ar->len,
                                    (unsigned long long)ar->max_inflate);
        diag_set_hint(dg, "a zip bomb, or a very compressible member: set " FXSH_MAX_INFLATE_ENV
                          "=BYTES (K, M, G suffixes) to allow more");
    } else if (!ok && d) {
        diag_error(d, loc, "archive member '%s' is truncated or corrupt: %s", nm,
                   got < (size_t)st.size ? zip_file_strerror(zf) : "it inflates to another size than it declares");
    }
    zip_fclose(zf);
    free(nm);
    if (!ok || over) {
        free(buf);
        return false;
    }
    ar->inflated += got;
    st.size = got;
    out->data = buf;
    out->size = st.size;
    out->owned = true;
    return true;
}
