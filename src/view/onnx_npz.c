/* onnx_npz.c — numpy .npy / .npz reading and writing (libzip for the archive). */
#include "view/onnx_npz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/limits.h"
#include "base/strbuf.h"

bool npy_is_npy(const void *data, size_t len)
{
    return len >= 6 && !memcmp(data, "\x93NUMPY", 6);
}

bool npy_is_zip(const void *data, size_t len)
{
    return len >= 4 && !memcmp(data, "PK\x03\x04", 4);
}

/* numpy descr (without the byte-order character) ↔ ONNX element type. */
static const struct {
    const char *code;
    int dtype;
} descr_map[] = {
    {"f4", 1}, {"f8", 11}, {"f2", 10}, {"i8", 7}, {"i4", 6}, {"i2", 5}, {"i1", 3}, {"u1", 2},
    {"u2", 4}, {"u4", 12}, {"u8", 13}, {"b1", 9}, {"?", 9},
};

static int dtype_of_descr(const char *code)
{
    for (size_t i = 0; i < sizeof descr_map / sizeof *descr_map; i++)
        if (!strcmp(descr_map[i].code, code)) return descr_map[i].dtype;
    return 0;
}

static const char *descr_of_dtype(int dtype)
{
    for (size_t i = 0; i < sizeof descr_map / sizeof *descr_map; i++)
        if (descr_map[i].dtype == dtype) return descr_map[i].code;
    return NULL;
}

/* The value text after 'key': in a header dict, or NULL. */
static const char *dict_value(const char *h, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *p = strstr(h, pat);
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ' || *p == ':') p++;
    return p;
}

typedef struct npy_header {
    int dtype;
    bool big_endian, fortran, complex;
    int rank;
    int64_t dims[OE_MAX_RANK];
} npy_header;

static int parse_header(const char *h, const char *what, npy_header *out, diag_sink *d)
{
    memset(out, 0, sizeof *out);
    const char *descr = dict_value(h, "descr"), *fo = dict_value(h, "fortran_order"), *shape = dict_value(h, "shape");
    if (!descr || *descr != '\'' || !fo || !shape || *shape != '(') {
        diag_error(d, (diag_loc){0}, "%s: not a valid .npy header", what);
        return -1;
    }
    char code[16] = "";
    const char *end = strchr(descr + 1, '\'');
    size_t n = end ? (size_t)(end - descr - 1) : 0;
    if (!end || n == 0 || n >= sizeof code) {
        diag_error(d, (diag_loc){0}, "%s: not a valid .npy header", what);
        return -1;
    }
    memcpy(code, descr + 1, n);
    code[n] = 0;
    const char *c = code;
    if (*c == '<' || *c == '|' || *c == '=' || *c == '>') {
        out->big_endian = *c == '>';
        c++;
    }
    /* complex arrays read as their real view (..., 2), as torch.onnx represents them */
    out->complex = !strcmp(c, "c8") || !strcmp(c, "c16");
    out->dtype = !strcmp(c, "c8") ? 1 : !strcmp(c, "c16") ? 11 : dtype_of_descr(c);
    if (!out->dtype) {
        diag_error(d, (diag_loc){0}, "%s: element type '%s' is not supported (numeric and bool arrays only)", what, code);
        return -1;
    }
    out->fortran = !strncmp(fo, "True", 4);
    for (const char *p = shape + 1; *p && *p != ')';) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == ')') break;
        char *e;
        long long v = strtoll(p, &e, 10);
        if (e == p || v < 0 || out->rank >= OE_MAX_RANK) {
            diag_error(d, (diag_loc){0}, "%s: bad shape in the .npy header (rank at most %d)", what, OE_MAX_RANK);
            return -1;
        }
        out->dims[out->rank++] = v;
        p = e;
    }
    if (out->complex) {
        if (out->rank >= OE_MAX_RANK) {
            diag_error(d, (diag_loc){0}, "%s: bad shape in the .npy header (rank at most %d)", what, OE_MAX_RANK - 1);
            return -1;
        }
        out->dims[out->rank++] = 2;
    }
    return 0;
}

/* Reverses each element's bytes. */
static void byteswap(void *data, int64_t n, size_t es)
{
    unsigned char *b = data;
    for (int64_t i = 0; i < n; i++, b += es)
        for (size_t k = 0; k < es / 2; k++) {
            unsigned char t = b[k];
            b[k] = b[es - 1 - k];
            b[es - 1 - k] = t;
        }
}

int npy_decode(const void *data, size_t len, const char *what, oe_tensor *out, diag_sink *d)
{
    const unsigned char *p = data;
    memset(out, 0, sizeof *out);
    if (!npy_is_npy(data, len) || len < 10) {
        diag_error(d, (diag_loc){0}, "%s: not a .npy array", what);
        return -1;
    }
    size_t hl = p[6] == 1 ? (size_t)(p[8] | p[9] << 8) : len >= 12 ? (size_t)(p[8] | p[9] << 8 | p[10] << 16 | (size_t)p[11] << 24) : len;
    size_t off = p[6] == 1 ? 10 : 12;
    if (off + hl > len) {
        diag_error(d, (diag_loc){0}, "%s: truncated .npy header", what);
        return -1;
    }
    char *h = xstrndup((const char *)p + off, hl);
    npy_header hd;
    int rc = parse_header(h, what, &hd, d);
    free(h);
    if (rc) return -1;
    /* Fortran order is the C order of the reversed shape (a complex pair stays last) */
    int64_t dims[OE_MAX_RANK], perm[OE_MAX_RANK];
    int base = hd.rank - (hd.complex ? 1 : 0);
    for (int i = 0; i < hd.rank; i++) {
        dims[i] = hd.fortran && i < base ? hd.dims[base - 1 - i] : hd.dims[i];
        perm[i] = i < base ? base - 1 - i : i;
    }
    if (ot_tensor_init(out, hd.dtype, dims, hd.rank)) {
        diag_error(d, (diag_loc){0}, "%s: the array is too large", what);
        return -1;
    }
    size_t es = ot_dtype_bytes(hd.dtype), bytes = (size_t)out->numel * es;
    if (len - off - hl < bytes) {
        ot_tensor_free(out);
        diag_error(d, (diag_loc){0}, "%s: the data is shorter than the shape says (%zu bytes, need %zu)", what,
                   len - off - hl, bytes);
        return -1;
    }
    if (bytes) memcpy(out->data, p + off + hl, bytes);
    if (hd.big_endian && es > 1) byteswap(out->data, out->numel, es);
    if (hd.fortran && base > 1) {
        oe_tensor t;
        if (oe_transpose(out, perm, &t)) {
            ot_tensor_free(out);
            return -1;
        }
        ot_tensor_free(out);
        *out = t;
    }
    return 0;
}

void *npy_encode(const oe_tensor *t0, size_t *len)
{
    if (t0->kind != OE_KIND_TENSOR) return NULL;
    oe_tensor conv = {0};
    const oe_tensor *t = t0;
    if (t0->dtype == 16) {   /* bfloat16 → float32 */
        ot_tensor_init(&conv, 1, t0->dims, t0->rank);
        for (int64_t i = 0; i < t0->numel; i++) ot_set_f(&conv, i, ot_get_f(t0, i));
        t = &conv;
    }
    const char *code = descr_of_dtype(t->dtype);
    if (!code) return NULL;
    strbuf h;
    sb_init(&h);
    sb_printf(&h, "{'descr': '%s%s', 'fortran_order': False, 'shape': (", ot_dtype_bytes(t->dtype) == 1 ? "|" : "<", code);
    for (int i = 0; i < t->rank; i++) sb_printf(&h, "%lld,%s", (long long)t->dims[i], i + 1 < t->rank ? " " : "");
    sb_puts(&h, "), }");
    while ((10 + h.len + 1) % 64) sb_putc(&h, ' ');
    sb_putc(&h, '\n');
    size_t bytes = (size_t)t->numel * ot_dtype_bytes(t->dtype);
    unsigned char *buf = xmalloc(10 + h.len + bytes + 1);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(h.len & 0xff);
    buf[9] = (unsigned char)(h.len >> 8);
    memcpy(buf + 10, h.s, h.len);
    if (bytes) memcpy(buf + 10 + h.len, t->data, bytes);
    *len = 10 + h.len + bytes;
    sb_free(&h);
    ot_tensor_free(&conv);
    return buf;
}

/* ---- .npz -------------------------------------------------------------------------------------- */

void npz_entries_free(npz_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(e[i].name);
        ot_tensor_free(&e[i].value);
    }
    free(e);
}

/* Reads member i into e; *left is what the members may still inflate to (limit_max_inflate),
 * checked against the declared size before anything is allocated. */
static int read_member(zip_t *z, zip_uint64_t i, const char *what, uint64_t *left, npz_entry *e, diag_sink *d)
{
    const char *nm = zip_get_name(z, i, ZIP_FL_ENC_RAW);
    zip_stat_t st;
    if (!nm || zip_stat_index(z, i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
        diag_error(d, (diag_loc){0}, "%s: cannot read member %llu", what, (unsigned long long)i);
        return -1;
    }
    if (st.size > *left) {
        diagnostic *dg = diag_error(d, (diag_loc){0}, "%s: member '%s' declares %llu bytes, more than fxsh allows for this archive",
                                    what, nm, (unsigned long long)st.size);
        diag_set_hint(dg, "a damaged archive or a zip bomb: set " FXSH_MAX_INFLATE_ENV "=BYTES (K, M, G suffixes) to allow more");
        return -1;
    }
    *left -= st.size;
    size_t nlen = strlen(nm);
    e->name = xstrndup(nm, nlen >= 4 && !strcmp(nm + nlen - 4, ".npy") ? nlen - 4 : nlen);
    zip_file_t *zf = zip_fopen_index(z, i, 0);
    unsigned char *buf = xmalloc(st.size + 1);
    zip_int64_t got = zf ? zip_fread(zf, buf, st.size) : -1;
    if (zf) zip_fclose(zf);
    char *label = xmalloc(strlen(what) + nlen + 2);
    sprintf(label, "%s:%s", what, nm);
    int rc = 0;
    if (got < 0 || (zip_uint64_t)got != st.size) {
        diag_error(d, (diag_loc){0}, "%s: cannot read the member (damaged archive)", label);
        rc = -1;
    } else {
        rc = npy_decode(buf, st.size, label, &e->value, d);
    }
    free(label);
    free(buf);
    return rc;
}

int npz_decode(const void *data, size_t len, const char *what, npz_entry **out, size_t *n, diag_sink *d)
{
    *out = NULL;
    *n = 0;
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t *src = zip_source_buffer_create(data, len, 0, &err);
    zip_t *z = src ? zip_open_from_source(src, ZIP_RDONLY, &err) : NULL;
    if (!z) {
        diag_error(d, (diag_loc){0}, "%s: not a readable .npz archive: %s", what, zip_error_strerror(&err));
        if (src) zip_source_free(src);
        zip_error_fini(&err);
        return -1;
    }
    zip_error_fini(&err);
    zip_int64_t count = zip_get_num_entries(z, 0);
    npz_entry *e = xcalloc((size_t)(count > 0 ? count : 1), sizeof *e);
    int rc = 0;
    uint64_t left = limit_max_inflate(len);
    for (zip_int64_t i = 0; i < count && rc == 0; i++, (*n)++) rc = read_member(z, (zip_uint64_t)i, what, &left, &e[i], d);
    zip_discard(z);
    if (rc) {
        npz_entries_free(e, (size_t)count);
        *n = 0;
        return -1;
    }
    *out = e;
    return 0;
}

/* Builds the archive in memory (libzip), then writes it through the safe-writing helper
 * (temporary file, fsync, rename; a symbolic link's target is written). */
int npz_write(const char *path, const char *const *names, const oe_tensor *const *values, size_t n, diag_sink *d)
{
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t *mem = zip_source_buffer_create(NULL, 0, 0, &err);
    zip_t *z = mem ? zip_open_from_source(mem, ZIP_TRUNCATE, &err) : NULL;
    zip_error_fini(&err);
    if (!z) {
        if (mem) zip_source_free(mem);
        diag_error(d, (diag_loc){0}, "%s: cannot create the archive", path);
        return -1;
    }
    zip_source_keep(mem);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t blen;
        void *img = npy_encode(values[i], &blen);
        char *member = xmalloc(strlen(names[i]) + 5);
        sprintf(member, "%s.npy", names[i]);
        zip_source_t *s = img ? zip_source_buffer(z, img, blen, 1) : NULL;
        zip_int64_t idx = s ? zip_file_add(z, member, s, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) : -1;
        if (idx < 0) {
            if (s) zip_source_free(s);
            else free(img);
            diag_error(d, (diag_loc){0}, "%s: cannot store %s (%s)", path, names[i],
                       img ? "archive error" : "sequences and optionals have no .npy form");
            rc = -1;
        } else {
            zip_set_file_compression(z, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
        }
        free(member);
    }
    if (rc || zip_close(z) != 0) {
        if (!rc) diag_error(d, (diag_loc){0}, "%s: cannot finish the archive: %s", path, zip_strerror(z));
        zip_discard(z);
        zip_source_free(mem);
        return -1;
    }
    zip_stat_t st;
    void *bytes = NULL;
    zip_int64_t got = -1;
    if (zip_source_stat(mem, &st) == 0 && zip_source_open(mem) == 0) {
        bytes = xmalloc(st.size + 1);
        got = zip_source_read(mem, bytes, st.size);
        zip_source_close(mem);
    }
    zip_source_free(mem);
    atomic_file af;
    if (got < 0 || !file_create(&af, path, d)) {
        if (got < 0) diag_error(d, (diag_loc){0}, "%s: cannot read back the archive", path);
        free(bytes);
        return -1;
    }
    bool ok = file_write(&af, bytes, (size_t)got, d);
    free(bytes);
    if (!ok) {
        file_abort(&af);
        return -1;
    }
    return file_commit(&af, d) ? 0 : -1;
}
