/* onnx_pb.c — ONNX protobuf load/save: wire validation, protobuf-c unpack, external data. */
#include "onnx/onnx_pb.h"

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

/* ---- tensor visiting (external data) ------------------------------------------------------ */

typedef int (*tensor_fn)(Onnx__TensorProto *t, void *ctx);

static int visit_attr_tensors(Onnx__NodeProto *const *nodes, size_t n, tensor_fn fn, void *ctx)
{
    int r;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < nodes[i]->n_attribute; j++) {
            Onnx__AttributeProto *a = nodes[i]->attribute[j];
            if (a->t && (r = fn(a->t, ctx))) return r;
            for (size_t k = 0; k < a->n_tensors; k++)
                if ((r = fn(a->tensors[k], ctx))) return r;
            if (a->sparse_tensor) {
                if (a->sparse_tensor->values && (r = fn(a->sparse_tensor->values, ctx))) return r;
                if (a->sparse_tensor->indices && (r = fn(a->sparse_tensor->indices, ctx))) return r;
            }
        }
    return 0;
}

typedef struct visit_ctx {
    tensor_fn fn;
    void *ctx;
    bool initializers_only;
} visit_ctx;

static int visit_graph(Onnx__GraphProto *g, int depth, void *vctx)
{
    visit_ctx *v = vctx;
    int r;
    for (size_t i = 0; i < g->n_initializer; i++)
        if ((r = v->fn(g->initializer[i], v->ctx))) return r;
    if (v->initializers_only) return 0;
    for (size_t i = 0; i < g->n_sparse_initializer; i++) {
        Onnx__SparseTensorProto *s = g->sparse_initializer[i];
        if (s->values && (r = v->fn(s->values, v->ctx))) return r;
        if (s->indices && (r = v->fn(s->indices, v->ctx))) return r;
    }
    return visit_attr_tensors(g->node, g->n_node, v->fn, v->ctx);
}

static int visit_tensors(ox_model *m, bool initializers_only, tensor_fn fn, void *ctx)
{
    visit_ctx v = {fn, ctx, initializers_only};
    int r = ox_model_walk_graphs(m, OX_MAX_GRAPH_DEPTH + 1, visit_graph, &v);
    if (r || initializers_only) return r;
    for (size_t i = 0; i < m->proto->n_functions; i++) {
        Onnx__FunctionProto *f = m->proto->functions[i];
        if ((r = visit_attr_tensors(f->node, f->n_node, fn, ctx))) return r;
    }
    return 0;
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
} ext_ctx;

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
    /* O_NONBLOCK: if it was replaced by a FIFO since, opening still returns at once */
    int fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    free(real);
    FILE *fp = NULL;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        diag_error(c->d, loc, "tensor '%s': external data '%s' is not a regular file", tname, file);
        close(fd);
        return -1;
    }
    if (fd >= 0) {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        fp = fdopen(fd, "rb");
        if (!fp) close(fd);
    }
    if (!fp) {
        diagnostic *dg = diag_error(c->d, loc, "tensor '%s': cannot open external data file '%s': %s",
                                    tname, file, strerror(errno));
        diag_set_hint(dg, "external data is looked up next to the model file");
        return -1;
    }
    uint64_t size = (uint64_t)st.st_size;
    if (!sl) length = offset <= size ? size - offset : 0;
    if (offset > size || length > size - offset) {
        diag_error(c->d, loc,
                   "tensor '%s': external data file '%s' has %" PRIu64 " bytes, but offset %" PRIu64
                   " + length %" PRIu64 " goes past its end", tname, file, size, offset, length);
        fclose(fp);
        return -1;
    }
    uint8_t *buf = ox_alloc(c->m, (size_t)length + 1);
    if (fseeko(fp, (off_t)offset, SEEK_SET) != 0 || fread(buf, 1, (size_t)length, fp) != length) {
        diag_error(c->d, loc, "tensor '%s': cannot read external data file '%s'", tname, file);
        fclose(fp);
        return -1;
    }
    fclose(fp);
    t->has_raw_data = 1;
    t->raw_data.data = buf;
    t->raw_data.len = (size_t)length;
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

ox_model *ox_load_bytes_opts(const void *data, size_t len, const char *path,
                             const ox_load_opts *opts, diag_sink *d)
{
    ox_load_opts defaults = {0};
    if (!opts) opts = &defaults;
    const char *name = path ? path : "<model>";
    if (ox_pb_validate(data, len, &onnx__model_proto__descriptor, name, d)) return NULL;
    ox_model *m = ox_model_new_empty();
    Onnx__ModelProto *p = (Onnx__ModelProto *)protobuf_c_message_unpack(
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
        ext_ctx c = {m, dir, name, d, opts->missing_is_warning, NULL, NULL, 0, 0};
        int failed = visit_tensors(m, false, load_external, &c);
        report_missing(&c);
        if (failed) {
            ox_model_free(m);
            return NULL;
        }
    }
    if (ox_check_tensors(m, name, false, d)) {
        ox_model_free(m);
        return NULL;
    }
    return m;
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
    int r = visit_tensors(m, false, check_tensor, &c);
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
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        diag_error(d, (diag_loc){path, 0, 0}, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        diag_error(d, (diag_loc){path, 0, 0}, "'%s' is not a regular file", path);
        fclose(fp);
        return NULL;
    }
    size_t len = (size_t)st.st_size;
    uint8_t *buf = xmalloc(len ? len : 1);
    size_t got = fread(buf, 1, len, fp);
    fclose(fp);
    if (got != len) {
        diag_error(d, (diag_loc){path, 0, 0}, "cannot read '%s'", path);
        free(buf);
        return NULL;
    }
    ox_model *m = ox_load_bytes_opts(buf, len, path, opts, d);
    free(buf);
    return m;
}

/* ---- save ---------------------------------------------------------------------------------- */

uint8_t *ox_pack(const ox_model *m, size_t *len)
{
    size_t n = protobuf_c_message_get_packed_size(&m->proto->base);
    uint8_t *buf = xmalloc(n ? n : 1);
    *len = protobuf_c_message_pack(&m->proto->base, buf);
    return buf;
}

/* What a tensor looked like before being moved out, to restore the model after packing. */
typedef struct moved_tensor {
    Onnx__TensorProto *t;
    protobuf_c_boolean has_raw_data, has_data_location;
    ProtobufCBinaryData raw;
    size_t n_external;
    Onnx__StringStringEntryProto **external;
    Onnx__TensorProto__DataLocation location;
} moved_tensor;

typedef struct save_ctx {
    ox_model *m;
    size_t threshold;
    const char *location;
    FILE *data;
    uint64_t offset;
    VEC(moved_tensor) moved;
    int failed;
} save_ctx;

static int move_out(Onnx__TensorProto *t, void *vctx)
{
    save_ctx *c = vctx;
    if (!t->has_raw_data || t->raw_data.len < c->threshold) return 0;
    if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return 0;
    moved_tensor mv = {t, t->has_raw_data, t->has_data_location, t->raw_data, t->n_external_data,
                       t->external_data, t->data_location};
    if (fwrite(t->raw_data.data, 1, t->raw_data.len, c->data) != t->raw_data.len) {
        c->failed = 1;
        return -1;
    }
    vec_push(&c->moved, mv);
    uint64_t off = c->offset;
    c->offset += t->raw_data.len;
    t->has_raw_data = 0;
    t->raw_data.len = 0;
    t->raw_data.data = NULL;
    t->n_external_data = 0;
    t->external_data = NULL;
    char num[32];
    ox_tensor_add_external(c->m, t, "location", c->location);
    snprintf(num, sizeof num, "%" PRIu64, off);
    ox_tensor_add_external(c->m, t, "offset", num);
    snprintf(num, sizeof num, "%zu", mv.raw.len);
    ox_tensor_add_external(c->m, t, "length", num);
    return 0;
}

static void restore_moved(save_ctx *c)
{
    for (size_t i = 0; i < c->moved.len; i++) {
        moved_tensor *mv = &c->moved.items[i];
        mv->t->has_raw_data = mv->has_raw_data;
        mv->t->raw_data = mv->raw;
        mv->t->n_external_data = mv->n_external;
        mv->t->external_data = mv->external;
        mv->t->has_data_location = mv->has_data_location;
        mv->t->data_location = mv->location;
    }
    vec_free(&c->moved);
}

int ox_save_file(ox_model *m, const char *path, const ox_save_opts *opts, diag_sink *d)
{
    diag_loc loc = {path, 0, 0};
    /* the model's file first: the side file goes beside the file really written (a symbolic
     * link's target), where the model's relative location finds it */
    atomic_file mf, df = {0};
    if (!file_create(&mf, path, d)) return -1;
    save_ctx c = {0};
    bool external = opts && opts->external_data;
    if (external) {
        if (!mf.tmp) {
            diag_error(d, loc, "external data needs a regular file beside the model, not a device");
            file_abort(&mf);
            return -1;
        }
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        char *loc_name = opts->external_file ? xstrdup(opts->external_file) : NULL;
        if (!loc_name) {
            size_t n = strlen(base) + 6;
            loc_name = xmalloc(n);
            snprintf(loc_name, n, "%s.data", base);
        }
        if (loc_name[0] == '/' || strstr(loc_name, "..") || !*loc_name) {
            diag_error(d, loc, "external data file '%s' must be a plain name next to the model", loc_name);
            free(loc_name);
            file_abort(&mf);
            return -1;
        }
        const char *slash = strrchr(mf.path, '/');
        size_t dlen = slash ? (size_t)(slash - mf.path) + 1 : 0;
        char *data_final = xmalloc(dlen + strlen(loc_name) + 1);
        memcpy(data_final, mf.path, dlen);
        strcpy(data_final + dlen, loc_name);
        c.m = m;
        c.threshold = opts->threshold ? opts->threshold : 1024;
        c.location = ox_strdup(m, loc_name);
        free(loc_name);
        bool opened = file_create(&df, data_final, d);
        free(data_final);
        if (!opened) {
            file_abort(&mf);
            return -1;
        }
        c.data = df.f;
        visit_tensors(m, true, move_out, &c);
        if (c.failed) {
            diag_error(d, loc, "cannot write external data file '%s': %s", df.shown, strerror(errno));
            restore_moved(&c);
            file_abort(&df);
            file_abort(&mf);
            return -1;
        }
    }
    size_t len;
    uint8_t *buf = ox_pack(m, &len);
    size_t n_moved = c.moved.len;
    restore_moved(&c);
    if (external && n_moved == 0) file_abort(&df);   /* nothing was large enough: no side file, like onnx */
    bool ok = buf && file_write(&mf, buf, len, d);
    /* both synced before either is renamed: a failure leaves the old pair as it was */
    if (ok && df.f) ok = file_sync(&df, d) && file_sync(&mf, d);
    if (ok && df.f) ok = file_commit(&df, d);
    else if (df.f) file_abort(&df);
    if (ok) ok = file_commit(&mf, d);
    else file_abort(&mf);
    if (!buf) diag_error(d, loc, "the model is too large to serialize");
    if (ok) m->path = ox_strdup(m, path);
    free(buf);
    return ok ? 0 : -1;
}
