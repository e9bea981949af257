/* onnx_check_fields.c — the field-level rules a model must meet before onnx can even read it:
 * every protobuf `string` field is valid UTF-8 (onnx.load refuses the file otherwise: protobuf
 * decodes those fields as text), every graph has a name, every attribute says its type, and every
 * opset import of an onnx domain has a version ≥ 1. One walk over the whole message tree, driven by
 * the protobuf descriptors, so a string field onnx adds later is covered without a change here. */
#include <stdint.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/utf8.h"
#include "onnx/onnx_check_internal.h"
#include "onnx/onnx_pb.h"

/* More bad strings than this in one model are summarized: they are usually one mutation. */
#define MAX_STRING_REPORTS 8

typedef struct walk {
    ox_check_report *r;
    strbuf path;          /* "graph.node[3].name" of the field being looked at */
    size_t bad_strings;
} walk;

static void check_string(walk *w, const char *s)
{
    size_t bad;
    if (!s || utf8_valid(s, strlen(s), &bad)) return;
    if (++w->bad_strings <= MAX_STRING_REPORTS)
        ox_check_problem(w->r, "model: %s is not valid UTF-8 (byte 0x%02x at offset %zu); onnx cannot read the model",
                         w->path.s, (unsigned char)s[bad], bad);
}

static bool onnx_domain(const char *d)
{
    return !d || !d[0] || !strcmp(d, "ai.onnx") || !strcmp(d, "ai.onnx.ml") || !strcmp(d, "ai.onnx.preview.training");
}

/* The rules that belong to one message type, not to its fields' types. */
static void check_message_rules(walk *w, const ProtobufCMessage *m)
{
    if (m->descriptor == &onnx__graph_proto__descriptor) {
        const Onnx__GraphProto *g = (const Onnx__GraphProto *)m;
        if (!g->name || !g->name[0])
            ox_check_problem(w->r, "model: %s has no name (onnx's checker requires every graph to have one)",
                             w->path.len ? w->path.s : "graph");
    } else if (m->descriptor == &onnx__attribute_proto__descriptor) {
        const Onnx__AttributeProto *a = (const Onnx__AttributeProto *)m;
        if (!a->has_type || a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
            ox_check_problem(w->r, "model: %s (attribute '%s') does not say its type", w->path.s,
                             a->name ? a->name : "");
    } else if (m->descriptor == &onnx__operator_set_id_proto__descriptor) {
        const Onnx__OperatorSetIdProto *o = (const Onnx__OperatorSetIdProto *)m;
        if (onnx_domain(o->domain) && (!o->has_version || o->version < 1 || o->version > INT32_MAX))
            ox_check_problem(w->r, "model: %s imports domain '%s' at version %lld; onnx reads versions from 1 to 2147483647",
                             w->path.s, o->domain ? o->domain : "", (long long)o->version);
    }
}

static void walk_message(walk *w, const ProtobufCMessage *m, int depth)
{
    if (!m || depth > OX_MAX_MESSAGE_DEPTH) return;   /* load refused deeper files already */
    check_message_rules(w, m);
    const ProtobufCMessageDescriptor *desc = m->descriptor;
    for (unsigned i = 0; i < desc->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &desc->fields[i];
        if (f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_MESSAGE) continue;
        const char *base = (const char *)m;
        if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
            *(const uint32_t *)(base + f->quantifier_offset) != f->id)
            continue;   /* another member of the oneof is set */
        size_t keep = w->path.len;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + f->quantifier_offset);
            void *const *items = *(void *const *const *)(base + f->offset);
            for (size_t k = 0; k < n; k++) {
                sb_truncate(&w->path, keep);
                sb_printf(&w->path, "%s%s[%zu]", keep ? "." : "", f->name, k);
                if (f->type == PROTOBUF_C_TYPE_STRING) check_string(w, items[k]);
                else walk_message(w, items[k], depth + 1);
            }
        } else {
            sb_printf(&w->path, "%s%s", keep ? "." : "", f->name);
            const void *v = *(const void *const *)(base + f->offset);
            if (f->type == PROTOBUF_C_TYPE_STRING) check_string(w, v);
            else walk_message(w, v, depth + 1);
        }
        sb_truncate(&w->path, keep);
    }
}

void ox_check_fields(ox_check_report *r, const ox_model *m)
{
    walk w = {.r = r};
    sb_init(&w.path);
    walk_message(&w, &m->proto->base, 0);
    if (w.bad_strings > MAX_STRING_REPORTS)
        ox_check_problem(r, "model: %zu more string fields are not valid UTF-8", w.bad_strings - MAX_STRING_REPORTS);
    sb_free(&w.path);
}
