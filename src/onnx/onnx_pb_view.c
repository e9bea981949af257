/* onnx_pb_view.c — unpacking a ModelProto whose large raw_data stay in the file's mapping.
 *
 * protobuf-c copies every bytes field it unpacks. So the wire is first rewritten, once and
 * linearly, with each large TensorProto.raw_data replaced by a 16-byte marker (a magic and the
 * index of the original bytes); the rewritten message, small, is unpacked; then the tensors are
 * walked and each marker becomes a view of the original bytes. A rewritten message's length is
 * written as a 5-byte varint (non-minimal, which protobuf accepts), so the rewrite is a single
 * pass that patches each length when its message ends. Should anything not line up (a marker
 * the tensor walk does not reach — a tensor of a TrainingInfoProto —, or small raw_data that
 * happens to look like a marker), the original bytes are unpacked the ordinary way. */
#include "onnx/onnx_pb_internal.h"

#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/vec.h"

enum { RAW_DATA_FIELD = 9, MARK_LEN = 16 };
static const uint8_t MAGIC[8] = {0xf7, 'f', 'x', 's', 'h', 0x9d, 'v', 0x01};

typedef struct span {
    const uint8_t *p;
    size_t len;
    bool used;
} span;

typedef struct rw_ctx {
    strbuf out;
    VEC(span) marks;
    bool lookalike;    /* small raw_data that reads as a marker: do not rewrite */
} rw_ctx;

static uint64_t varint(const uint8_t **p)
{
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
}

static void put_varint5(uint8_t *at, uint64_t v)
{
    for (int i = 0; i < 4; i++, v >>= 7) at[i] = (uint8_t)(0x80 | (v & 0x7f));
    at[4] = (uint8_t)(v & 0x7f);
}

/* Copies the message p[0, end) into c->out, rewriting as the file comment says. The buffer was
 * validated: lengths fit, nesting is bounded. */
static void rewrite(rw_ctx *c, const uint8_t *p, const uint8_t *end, const ProtobufCMessageDescriptor *desc)
{
    bool tensor = desc == &onnx__tensor_proto__descriptor;
    while (p < end) {
        const uint8_t *field = p;
        uint64_t tag = varint(&p);
        const uint8_t *after_tag = p;
        int wt = (int)(tag & 7);
        if (wt != 2) {
            if (wt == 0) varint(&p);
            else p += wt == 1 ? 8 : 4;
            sb_putn(&c->out, (const char *)field, (size_t)(p - field));
            continue;
        }
        uint64_t len = varint(&p);
        const uint8_t *body = p;
        p += len;
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field(desc, (unsigned)(tag >> 3));
        if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
            sb_putn(&c->out, (const char *)field, (size_t)(after_tag - field));
            size_t at = c->out.len;
            sb_putn(&c->out, "\0\0\0\0\0", 5);
            rewrite(c, body, p, f->descriptor);
            put_varint5((uint8_t *)c->out.s + at, c->out.len - at - 5);
        } else if (tensor && tag >> 3 == RAW_DATA_FIELD && len >= OX_VIEW_MIN) {
            uint8_t mark[2 + MARK_LEN];
            uint64_t idx = c->marks.len;
            mark[0] = (uint8_t)(RAW_DATA_FIELD << 3 | 2);
            mark[1] = MARK_LEN;
            memcpy(mark + 2, MAGIC, 8);
            memcpy(mark + 10, &idx, 8);
            sb_putn(&c->out, (const char *)mark, sizeof mark);
            span sp = {body, (size_t)len, false};
            vec_push(&c->marks, sp);
        } else {
            if (tensor && tag >> 3 == RAW_DATA_FIELD && len == MARK_LEN && !memcmp(body, MAGIC, 8))
                c->lookalike = true;
            sb_putn(&c->out, (const char *)field, (size_t)(p - field));
        }
    }
}

typedef struct resolve_ctx {
    ox_model *m;
    rw_ctx *rw;
    fmap *map;
    size_t resolved;
} resolve_ctx;

static int resolve(Onnx__TensorProto *t, void *vctx)
{
    resolve_ctx *c = vctx;
    if (!t->has_raw_data || t->raw_data.len != MARK_LEN || memcmp(t->raw_data.data, MAGIC, 8))
        return 0;
    uint64_t idx;
    memcpy(&idx, t->raw_data.data + 8, 8);
    if (idx >= c->rw->marks.len || c->rw->marks.items[idx].used) return -1;
    span *sp = &c->rw->marks.items[idx];
    sp->used = true;
    ox_tensor_set_view(c->m, t, sp->p, sp->len, c->map);
    c->resolved++;
    return 0;
}

static Onnx__ModelProto *unpack(ox_model *m, const uint8_t *buf, size_t len)
{
    return (Onnx__ModelProto *)protobuf_c_message_unpack(&onnx__model_proto__descriptor, &m->alloc, len, buf);
}

Onnx__ModelProto *ox_unpack_views(ox_model *m, const uint8_t *buf, size_t len, fmap *map)
{
    rw_ctx c = {0};
    sb_init(&c.out);
    if ((uint64_t)len < ((uint64_t)1 << 35)) rewrite(&c, buf, buf + len, &onnx__model_proto__descriptor);
    Onnx__ModelProto *p = NULL;
    if (c.marks.len && !c.lookalike) {
        p = unpack(m, (const uint8_t *)c.out.s, c.out.len);
        if (p) {
            Onnx__ModelProto *saved = m->proto;
            m->proto = p;
            resolve_ctx rc = {m, &c, map, 0};
            int r = ox_model_walk_tensors(m, false, resolve, &rc);
            m->proto = saved;
            if (r || rc.resolved != c.marks.len) p = NULL;   /* the ordinary way below */
        }
    }
    sb_free(&c.out);
    vec_free(&c.marks);
    return p ? p : unpack(m, buf, len);
}
