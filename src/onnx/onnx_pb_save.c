/* onnx_pb_save.c — writing .onnx files: streamed packing, external data, the 2 GB switch.
 *
 * Nothing is serialized into one buffer: protobuf-c's pack_to_buffer produces the framing (tags,
 * lengths) into a small staging buffer and hands each bytes field over as one piece, which goes
 * to the file in one write straight from where the bytes are (the arena), or, for a view of a
 * mapped file, is copied by the kernel from that file (copy_file_range, as cp does), or, for a
 * derived weight (onnx_derive.h), is computed a chunk at a time into a small buffer and written. */
#include "onnx/onnx_pb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/fmap.h"
#include "base/limits.h"
#include "base/vec.h"

enum { STAGE = 1 << 20, DIRECT_MIN = 64 << 10, DERIVED_CHUNK = 1 << 20 };

/* ---- streaming sink ------------------------------------------------------------------------ */

/* A derived weight not materialised: computed DERIVED_CHUNK bytes at a time (the chunk stays in
 * the cache between the kernel and the write) — the weight is never whole in memory. */
static bool put_derived(atomic_file *af, const uint8_t *data, size_t len, diag_sink *d)
{
    uint8_t *buf = xmalloc(len < DERIVED_CHUNK ? len : DERIVED_CHUNK);
    bool ok = true;
    for (size_t done = 0; ok && done < len; done += DERIVED_CHUNK) {
        size_t n = len - done < DERIVED_CHUNK ? len - done : DERIVED_CHUNK;
        fmap_copy_out(data + done, buf, n);
        ok = file_write(af, buf, n, d);
    }
    free(buf);
    return ok;
}

/* Writes a tensor's bytes: from the file they are mapped from with copy_file_range when they are
 * a view (nothing passes through this process: no page of the mapping is touched), computed
 * chunk by chunk when they are a derived weight, else from memory in one write. */
static bool put_bytes(atomic_file *af, const ox_model *m, const uint8_t *data, size_t len, diag_sink *d)
{
    fmap *f = ox_model_map_of(m, data, len);
    if (f && f->fd >= 0) return file_copy_range(af, f->fd, (uint64_t)(data - f->data), data, len, d);
    if (f && f->fill && !fmap_ready(data, len)) return put_derived(af, data, len, d);
    return file_write(af, data, len, d);
}

typedef struct stream {
    ProtobufCBuffer base;
    const ox_model *m;
    atomic_file *af;
    diag_sink *d;
    uint8_t *stage;
    size_t n;
    bool failed;
} stream;

static void stream_flush(stream *s)
{
    if (s->n && !s->failed) s->failed = !file_write(s->af, s->stage, s->n, s->d);
    s->n = 0;
}

static void stream_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
    stream *s = (stream *)b;
    if (s->failed || len == 0) return;   /* an empty bytes field may have no address */
    if (len >= DIRECT_MIN) {   /* a tensor's bytes: one write from where they are */
        stream_flush(s);
        if (!s->failed) s->failed = !put_bytes(s->af, s->m, data, len, s->d);
        return;
    }
    if (s->n + len > STAGE) stream_flush(s);
    fmap_copy_out(data, s->stage + s->n, len);   /* a small derived weight is computed here */
    s->n += len;
}

/* Writes the model's protobuf to af; false after reporting to d. */
static bool write_model(const ox_model *m, atomic_file *af, diag_sink *d)
{
    stream s = {{stream_append}, m, af, d, xmalloc(STAGE), 0, false};
    protobuf_c_message_pack_to_buffer(&m->proto->base, &s.base);
    stream_flush(&s);
    free(s.stage);
    return !s.failed;
}

/* Packing into one buffer: each piece copied with fmap_copy_out, so a derived weight is
 * computed into the buffer rather than materialised where it is. */
typedef struct packer {
    ProtobufCBuffer base;
    uint8_t *buf;
    size_t n;
} packer;

static void packer_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
    packer *p = (packer *)b;
    if (len) fmap_copy_out(data, p->buf + p->n, len);
    p->n += len;
}

uint8_t *ox_pack_message(const ProtobufCMessage *msg, size_t *len)
{
    size_t n = protobuf_c_message_get_packed_size(msg);
    packer p = {{packer_append}, xmalloc(n ? n : 1), 0};
    protobuf_c_message_pack_to_buffer(msg, &p.base);
    *len = p.n;
    return p.buf;
}

uint8_t *ox_pack(const ox_model *m, size_t *len)
{
    return ox_pack_message(&m->proto->base, len);
}

/* ---- external data ------------------------------------------------------------------------- */

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
    atomic_file *data;
    diag_sink *d;
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
    if (!put_bytes(c->data, c->m, t->raw_data.data, t->raw_data.len, c->d)) {   /* one write per tensor */
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
    t->has_data_location = 1;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
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

/* Opens the side file beside the model file really written (a link's target), where the
 * model's relative location finds it; the location's name in *location (model's arena). */
static bool open_side_file(ox_model *m, const char *path, atomic_file *mf, const ox_save_opts *opts,
                           atomic_file *df, const char **location, diag_sink *d)
{
    diag_loc loc = {path, 0, 0};
    if (!mf->tmp) {
        diag_error(d, loc, "external data needs a regular file beside the model, not a device");
        return false;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *loc_name = opts && opts->external_file ? xstrdup(opts->external_file) : NULL;
    if (!loc_name) {
        size_t n = strlen(base) + 6;
        loc_name = xmalloc(n);
        snprintf(loc_name, n, "%s.data", base);
    }
    if (loc_name[0] == '/' || strstr(loc_name, "..") || !*loc_name) {
        diag_error(d, loc, "external data file '%s' must be a plain name next to the model", loc_name);
        free(loc_name);
        return false;
    }
    const char *slash = strrchr(mf->path, '/');
    size_t dlen = slash ? (size_t)(slash - mf->path) + 1 : 0;
    char *data_final = xmalloc(dlen + strlen(loc_name) + 1);
    memcpy(data_final, mf->path, dlen);
    strcpy(data_final + dlen, loc_name);
    *location = ox_strdup(m, loc_name);
    free(loc_name);
    bool opened = file_create(df, data_final, d);
    free(data_final);
    return opened;
}

/* ---- save ---------------------------------------------------------------------------------- */

/* Whether the model must go to external data: its protobuf would pass FXSH_MAX_PROTOBUF
 * (*size: its size). */
static bool too_large(const ox_model *m, uint64_t *size)
{
    *size = protobuf_c_message_get_packed_size(&m->proto->base);
    return *size > limit_from_env(FXSH_MAX_PROTOBUF_ENV, FXSH_MAX_PROTOBUF_DEFAULT);
}

int ox_save_file(ox_model *m, const char *path, const ox_save_opts *opts, diag_sink *d)
{
    diag_loc loc = {path, 0, 0};
    atomic_file mf, df = {0};
    if (!file_create(&mf, path, d)) return -1;
    save_ctx c = {0};
    uint64_t size = 0;
    bool asked = opts && opts->external_data, external = asked || too_large(m, &size);
    ox_save_opts auto_opts = {.external_data = true};
    if (external) {
        if (!open_side_file(m, path, &mf, opts ? opts : &auto_opts, &df, &c.location, d)) {
            file_abort(&mf);
            return -1;
        }
        c.m = m;
        c.threshold = opts && opts->threshold ? opts->threshold : 1024;
        c.data = &df;
        c.d = d;
        ox_model_walk_tensors(m, true, move_out, &c);
        if (c.failed) {
            diag_error(d, loc, "cannot write external data file '%s'", df.shown);
            restore_moved(&c);
            file_abort(&df);
            file_abort(&mf);
            return -1;
        }
    }
    size_t n_moved = c.moved.len;
    if (!asked && n_moved)   /* say so: the user did not ask for a second file */
        diag_note(d, loc, "the model is %" PRIu64 " bytes, more than a protobuf can hold (%" PRIu64 "): "
                  "its %zu tensor%s of %zu bytes or more %s saved as external data in '%s' beside it, "
                  "as torch.onnx does", size, limit_from_env(FXSH_MAX_PROTOBUF_ENV, FXSH_MAX_PROTOBUF_DEFAULT),
                  n_moved, n_moved == 1 ? "" : "s", c.threshold, n_moved == 1 ? "is" : "are", c.location);
    bool ok = protobuf_c_message_get_packed_size(&m->proto->base) <= (size_t)INT32_MAX;
    if (ok) ok = write_model(m, &mf, d);
    else diag_error(d, loc, "the model is too large to serialize, even with its weights as external data");
    restore_moved(&c);
    if (external && n_moved == 0) file_abort(&df);   /* nothing was large enough: no side file, like onnx */
    /* both synced before either is renamed: a failure leaves the old pair as it was */
    if (ok && df.f) ok = file_sync(&df, d) && file_sync(&mf, d);
    if (ok && df.f) ok = file_commit(&df, d);
    else if (df.f) file_abort(&df);
    if (ok) ok = file_commit(&mf, d);
    else file_abort(&mf);
    if (ok) m->path = ox_strdup(m, path);
    return ok ? 0 : -1;
}
