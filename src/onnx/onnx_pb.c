/* onnx_pb.c — ONNX protobuf load/save: wire validation, protobuf-c unpack, external data. */
#include "onnx/onnx_pb.h"
#include "onnx/onnx_pb_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/fmap.h"
#include "base/strbuf.h"
#include "base/vec.h"

/* ---- wire validation ----------------------------------------------------------------------
 * protobuf-c's unpack recurses once per nested message and trusts nothing but the buffer
 * bounds; a crafted file nesting a few hundred thousand messages would overflow the C stack.
 * So before unpacking, one pass walks the wire format against the descriptors: every length
 * must fit inside its parent, every known field must have a wire type its declared type
 * accepts, and message / graph nesting is capped. Nothing is allocated here. */

typedef struct scan_ctx {
    const uint8_t *base;
    const char *name;
    diag_sink *d;
} scan_ctx;

static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*p >= end) return -1;
        uint8_t b = *(*p)++;
        if (shift == 63 && b > 1) return -1;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

static int scan_error(scan_ctx *c, const uint8_t *at, const char *fmt, const char *a, const char *b)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, b);
    diag_error(c->d, (diag_loc){c->name, 0, 0}, "invalid ONNX protobuf at byte %zu: %s",
               (size_t)(at - c->base), msg);
    return -1;
}

static int expected_wire(ProtobufCType t)
{
    switch (t) {
    case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_FLOAT:
        return 5;
    case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
        return 1;
    case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES: case PROTOBUF_C_TYPE_MESSAGE:
        return 2;
    default:
        return 0;
    }
}

static const char *wire_name(int wt)
{
    static const char *names[] = {"varint", "64-bit", "length-delimited", "group start",
                                  "group end", "32-bit", "invalid (6)", "invalid (7)"};
    return names[wt & 7];
}

static int scan_msg(scan_ctx *c, const uint8_t *p, const uint8_t *end,
                    const ProtobufCMessageDescriptor *desc, int depth, int graph_depth)
{
    if (depth > OX_MAX_MESSAGE_DEPTH)
        return scan_error(c, p, "messages nested more than %s levels deep (in %s)", "512",
                          desc->short_name);
    if (desc == &onnx__graph_proto__descriptor && graph_depth > OX_MAX_GRAPH_DEPTH)
        return scan_error(c, p, "subgraphs nested more than %s levels deep (%s)", "64",
                          "the limit guards against crafted files");
    while (p < end) {
        const uint8_t *field_start = p;
        uint64_t tag;
        if (read_varint(&p, end, &tag)) return scan_error(c, field_start, "truncated field tag in %s%s", desc->short_name, "");
        int wt = (int)(tag & 7);
        uint64_t id = tag >> 3;
        if (id == 0 || id > 536870911) return scan_error(c, field_start, "field number 0 or out of range in %s%s", desc->short_name, "");
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field(desc, (unsigned)id);
        if (f) {
            int want = expected_wire(f->type);
            bool packed_ok = f->label == PROTOBUF_C_LABEL_REPEATED && want != 2 && wt == 2;
            if (wt != want && !packed_ok) {
                char fname[256];
                snprintf(fname, sizeof fname, "%s.%s", desc->short_name, f->name);
                return scan_error(c, field_start, "field %s has wire type %s", fname, wire_name(wt));
            }
        }
        uint64_t v;
        switch (wt) {
        case 0:
            if (read_varint(&p, end, &v)) return scan_error(c, field_start, "truncated varint in %s%s", desc->short_name, "");
            break;
        case 1:
            if (end - p < 8) return scan_error(c, field_start, "truncated 64-bit value in %s%s", desc->short_name, "");
            p += 8;
            break;
        case 5:
            if (end - p < 4) return scan_error(c, field_start, "truncated 32-bit value in %s%s", desc->short_name, "");
            p += 4;
            break;
        case 2: {
            if (read_varint(&p, end, &v)) return scan_error(c, field_start, "truncated length in %s%s", desc->short_name, "");
            if (v > (uint64_t)(end - p)) {
                char what[128];
                snprintf(what, sizeof what, "%" PRIu64 " bytes but only %zu remain", v, (size_t)(end - p));
                return scan_error(c, field_start, "declared length of %s is %s", desc->short_name, what);
            }
            const uint8_t *sub_end = p + v;
            if (f && f->type == PROTOBUF_C_TYPE_STRING && memchr(p, 0, (size_t)v)) {
                /* legal protobuf, but a name cut at its NUL would be another name (or none) */
                char fname[256];
                snprintf(fname, sizeof fname, "%s.%s", desc->short_name, f->name);
                return scan_error(c, field_start, "string field %s contains a NUL byte, which %s", fname,
                                  "fxsh cannot keep in a name");
            }
            if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
                const ProtobufCMessageDescriptor *sd = f->descriptor;
                int gd = graph_depth + (sd == &onnx__graph_proto__descriptor);
                if (scan_msg(c, p, sub_end, sd, depth + 1, gd)) return -1;
            } else if (f && wt == 2 && expected_wire(f->type) != 2) {
                /* packed repeated scalars: whole values only */
                int w = expected_wire(f->type);
                if (w == 0) {
                    const uint8_t *q = p;
                    while (q < sub_end)
                        if (read_varint(&q, sub_end, &v)) return scan_error(c, q, "truncated packed varint in %s.%s", desc->short_name, f->name);
                } else if ((size_t)(sub_end - p) % (w == 5 ? 4 : 8)) {
                    return scan_error(c, field_start, "packed field %s.%s has a partial element", desc->short_name, f->name);
                }
            }
            p = sub_end;
            break;
        }
        default:
            return scan_error(c, field_start, "unsupported wire type %s in %s", wire_name(wt), desc->short_name);
        }
    }
    return 0;
}

int ox_pb_validate(const void *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                   const char *name, diag_sink *d)
{
    scan_ctx c = {buf, name, d};
    return scan_msg(&c, buf, (const uint8_t *)buf + len, desc, 0,
                    desc == &onnx__graph_proto__descriptor);
}

/* ---- load ---------------------------------------------------------------------------------- */

typedef struct ext_ctx {
    ox_model *m;
    const char *dir;     /* directory of the model, "" for the current one */
    const char *model;   /* model path for diagnostics */
    diag_sink *d;
    bool missing_is_warning;
    /* a missing data file is reported once with the number of tensors it holds, not per tensor */
    const char *missing_file, *first_missing;
    int missing_errno;
    size_t n_missing;
    /* each data file is mapped once (a reference per file, dropped after the load; the model
     * holds its own) and read only when a tensor's bytes are first touched */
    VEC(char *) files;
    VEC(fmap *) maps;
} ext_ctx;

static fmap *data_file_map(ext_ctx *c, const char *real)
{
    for (size_t i = 0; i < c->files.len; i++)
        if (strcmp(c->files.items[i], real) == 0) return c->maps.items[i];
    fmap *f = fmap_open(real, NULL);
    if (!f) return NULL;
    vec_push(&c->files, xstrdup(real));
    vec_push(&c->maps, f);
    return f;
}

static void ext_ctx_free(ext_ctx *c)
{
    for (size_t i = 0; i < c->files.len; i++) {
        free(c->files.items[i]);
        fmap_unref(c->maps.items[i]);
    }
    vec_free(&c->files);
    vec_free(&c->maps);
}

static void report_missing(ext_ctx *c)
{
    if (!c->n_missing) return;
    diag_loc loc = {c->model, 0, 0};
    if (c->n_missing == 1)
        diag_warning(c->d, loc, "tensor '%s': external data file '%s' not loaded: %s", c->first_missing,
                     c->missing_file, strerror(c->missing_errno));
    else
        diag_warning(c->d, loc, "%zu tensors ('%s', ...): external data file '%s' not loaded: %s", c->n_missing,
                     c->first_missing, c->missing_file, strerror(c->missing_errno));
    c->n_missing = 0;
}

static const char *ext_value(const Onnx__TensorProto *t, const char *key)
{
    for (size_t i = 0; i < t->n_external_data; i++)
        if (t->external_data[i]->key && strcmp(t->external_data[i]->key, key) == 0)
            return t->external_data[i]->value ? t->external_data[i]->value : "";
    return NULL;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || *s == '-') return -1;
    *out = v;
    return 0;
}

static int load_external(Onnx__TensorProto *t, void *vctx)
{
    ext_ctx *c = vctx;
    if (!t->has_data_location || t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return 0;
    const char *tname = t->name ? t->name : "";
    diag_loc loc = {c->model, 0, 0};
    const char *location = ext_value(t, "location");
    if (!location || !*location) {
        diag_error(c->d, loc, "tensor '%s' is stored externally but has no \"location\"", tname);
        return -1;
    }
    if (location[0] == '/' || strstr(location, "..")) {
        diagnostic *dg = diag_error(c->d, loc, "tensor '%s': external data location '%s' points outside the model's directory",
                                    tname, location);
        diag_set_hint(dg, "external data files must sit next to the model (onnx refuses such paths too)");
        return -1;
    }
    uint64_t offset = 0, length = 0;
    const char *so = ext_value(t, "offset"), *sl = ext_value(t, "length");
    if (so && parse_u64(so, &offset)) {
        diag_error(c->d, loc, "tensor '%s': bad external data offset '%s'", tname, so);
        return -1;
    }
    if (sl && parse_u64(sl, &length)) {
        diag_error(c->d, loc, "tensor '%s': bad external data length '%s'", tname, sl);
        return -1;
    }
    char *file = *c->dir ? arena_printf(&c->m->arena, "%s/%s", c->dir, location)
                         : arena_strdup(&c->m->arena, location);
    /* Resolve the path (symlinks included) and refuse what leaves the model's folder or is not
     * a regular file, before opening it: a FIFO or a device would block or never end, and a
     * link to another file would put that file's bytes into the model (onnx's checker refuses
     * both). */
    char *real = realpath(file, NULL);
    if (!real && c->missing_is_warning) {
        if (c->n_missing && strcmp(c->missing_file, file)) report_missing(c);
        if (!c->n_missing) {
            c->missing_file = file;
            c->first_missing = tname;
            c->missing_errno = errno;
        }
        c->n_missing++;
        return 0;
    }
    if (!real) {
        diagnostic *dg = diag_error(c->d, loc, "tensor '%s': cannot open external data file '%s': %s",
                                    tname, file, strerror(errno));
        diag_set_hint(dg, "external data is looked up next to the model file");
        return -1;
    }
    char *real_dir = realpath(*c->dir ? c->dir : ".", NULL);
    size_t rl = real_dir ? strlen(real_dir) : 0;
    bool inside = real_dir && strncmp(real, real_dir, rl) == 0 &&
                  (real[rl] == '/' || (rl == 1 && real_dir[0] == '/')) && strcmp(real, real_dir) != 0;
    if (!inside) {
        diagnostic *dg = diag_error(c->d, loc, "tensor '%s': external data '%s' resolves to '%s', outside the model's folder '%s'",
                                    tname, file, real, real_dir ? real_dir : c->dir);
        diag_set_hint(dg, "external data files must sit next to the model, not behind a link that leaves its folder "
                          "(onnx refuses such paths too)");
        free(real);
        free(real_dir);
        return -1;
    }
    free(real_dir);
    struct stat st = {0};
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        diag_error(c->d, loc, "tensor '%s': external data '%s' is not a regular file%s", tname, file,
                   S_ISFIFO(st.st_mode) ? " (a FIFO)" : S_ISDIR(st.st_mode) ? " (a directory)"
                   : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? " (a device)" : "");
        free(real);
        return -1;
    }
    /* fmap_open refuses what is not a regular file (it may have been replaced since) */
    fmap *f = data_file_map(c, real);
    free(real);
    if (!f) {
        diag_error(c->d, loc, "tensor '%s': cannot map external data file '%s': %s", tname, file,
                   errno == EINVAL ? "not a regular file" : strerror(errno));
        return -1;
    }
    uint64_t size = (uint64_t)f->len;
    if (!sl) length = offset <= size ? size - offset : 0;
    if (offset > size || length > size - offset) {
        diag_error(c->d, loc,
                   "tensor '%s': external data file '%s' has %" PRIu64 " bytes, but offset %" PRIu64
                   " + length %" PRIu64 " goes past its end", tname, file, size, offset, length);
        return -1;
    }
    ox_tensor_set_view(c->m, t, f->data + offset, (size_t)length, f);
    t->has_data_location = 0;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
    t->n_external_data = 0;
    t->external_data = NULL;
    return 0;
}

ox_model *ox_load_bytes(const void *data, size_t len, const char *path, diag_sink *d)
{
    return ox_load_bytes_opts(data, len, path, NULL, d);
}

/* map: the fmap data lies in (large raw_data become views into it), or NULL (copied) */
static ox_model *load_impl(const void *data, size_t len, const char *path, const ox_load_opts *opts,
                           fmap *map, diag_sink *d)
{
    ox_load_opts defaults = {0};
    if (!opts) opts = &defaults;
    const char *name = path ? path : "<model>";
    if (ox_pb_validate(data, len, &onnx__model_proto__descriptor, name, d)) return NULL;
    ox_model *m = ox_model_new_empty();
    Onnx__ModelProto *p = map ? ox_unpack_views(m, data, len, map)
                              : (Onnx__ModelProto *)protobuf_c_message_unpack(
                                    &onnx__model_proto__descriptor, &m->alloc, len, data);
    if (!p) {
        diag_error(d, (diag_loc){name, 0, 0}, "not a valid ONNX model: protobuf decoding failed");
        ox_model_free(m);
        return NULL;
    }
    m->proto = p;
    if (path) m->path = ox_strdup(m, path);
    if (path && !opts->keep_external) {
        const char *slash = strrchr(path, '/');
        char *dir = slash ? arena_strndup(&m->arena, path, (size_t)(slash - path + (slash == path)))
                          : arena_strdup(&m->arena, "");
        ext_ctx c = {m, dir, name, d, opts->missing_is_warning, NULL, NULL, 0, 0, {0}, {0}};
        int failed = ox_model_walk_tensors(m, false, load_external, &c);
        report_missing(&c);
        ext_ctx_free(&c);
        if (failed) {
            ox_model_free(m);
            return NULL;
        }
    }
    if (!opts->unchecked && ox_check_tensors(m, name, false, d)) {
        ox_model_free(m);
        return NULL;
    }
    return m;
}

ox_model *ox_load_bytes_opts(const void *data, size_t len, const char *path,
                             const ox_load_opts *opts, diag_sink *d)
{
    return load_impl(data, len, path, opts, NULL, d);
}

typedef struct check_ctx {
    const char *name;
    diag_sink *d;
    bool elided_ok;
} check_ctx;

static int check_tensor(Onnx__TensorProto *t, void *vctx)
{
    check_ctx *c = vctx;
    if (c->elided_ok && t->has_raw_data && t->raw_data.len == 0) return 0;
    char why[200];
    const char *bad = ox_tensor_problem(t, why, sizeof why);
    if (!bad) return 0;
    diagnostic *dg = diag_error(c->d, (diag_loc){c->name, 0, 0}, "tensor '%s': %s", t->name ? t->name : "", bad);
    diag_set_hint(dg, "a tensor holds exactly one value per element of its shape (is the file truncated?)");
    return -1;
}

int ox_check_tensors(ox_model *m, const char *name, bool elided_ok, diag_sink *d)
{
    check_ctx c = {name, d, elided_ok};
    int r = ox_model_walk_tensors(m, false, check_tensor, &c);
    if (r == -2)
        diag_error(d, (diag_loc){name, 0, 0}, "subgraphs are nested more than %d deep", OX_MAX_GRAPH_DEPTH);
    return r ? -1 : 0;
}

ox_model *ox_load_file(const char *path, diag_sink *d)
{
    return ox_load_file_opts(path, NULL, d);
}

ox_model *ox_load_file_opts(const char *path, const ox_load_opts *opts, diag_sink *d)
{
    /* mapped, not read: the weights stay in the mapping (views), the rest is unpacked */
    fmap *f = fmap_open(path, NULL);
    if (!f) {
        if (errno == EINVAL)
            diag_error(d, (diag_loc){path, 0, 0}, "'%s' is not a regular file", path);
        else
            diag_error(d, (diag_loc){path, 0, 0}, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    ox_model *m = load_impl(f->data, f->len, path, opts, f, d);
    fmap_unref(f);
    return m;
}
