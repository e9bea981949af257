/* onnx_edit.c — copy a model, rename values across graphs, make input dims symbolic. */
#include "onnx/onnx_edit.h"

#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "onnx/onnx_pb.h"

enum { MAX_DEPTH = 64 };

/* The large raw_data of a model being copied, in ox_model_walk_tensors order: detached before
 * packing, given back to the original and to the copy after. */
typedef struct held_bytes {
    size_t index;                /* the tensor's rank in the walk */
    ProtobufCBinaryData raw;
} held_bytes;

typedef struct detach_ctx {
    size_t seen;
    VEC(held_bytes) held;
    size_t next;                 /* reattaching: the next held entry */
    ox_model *from, *to;         /* reattaching: NULL while detaching */
} detach_ctx;

enum { SHARE_MIN = 1 };   /* every view stays a view */

static int detach(Onnx__TensorProto *t, void *vctx)
{
    detach_ctx *c = vctx;
    size_t i = c->seen++;
    if (!t->has_raw_data || t->raw_data.len < SHARE_MIN) return 0;
    held_bytes h = {i, t->raw_data};
    vec_push(&c->held, h);
    t->raw_data.data = NULL;
    t->raw_data.len = 0;
    return 0;
}

static int reattach(Onnx__TensorProto *t, void *vctx)
{
    detach_ctx *c = vctx;
    size_t i = c->seen++;
    if (c->next >= c->held.len || c->held.items[c->next].index != i) return 0;
    ProtobufCBinaryData raw = c->held.items[c->next++].raw;
    if (!c->to) {   /* the original */
        t->raw_data = raw;
        return 0;
    }
    fmap *f = ox_model_map_of(c->from, raw.data, raw.len);
    if (f) ox_tensor_set_view(c->to, t, raw.data, raw.len, f);
    else ox_tensor_set_raw(c->to, t, raw.data, raw.len);
    return 0;
}

ox_model *ox_model_copy(const ox_model *m, diag_sink *d)
{
    /* Pack and unpack: exact (unknown fields included) and linear in the model size. The
     * weights are not packed: views share the original's fmaps, owned bytes are copied once. */
    ox_model *src = (ox_model *)m;   /* restored as it was before returning */
    detach_ctx c = {0};
    ox_model_walk_tensors(src, false, detach, &c);
    size_t len;
    uint8_t *buf = ox_pack(m, &len);
    c.seen = 0;
    ox_model_walk_tensors(src, false, reattach, &c);
    ox_load_opts lo = {.keep_external = true, .missing_is_warning = true, .unchecked = true};
    ox_model *copy = ox_load_bytes_opts(buf, len, NULL, &lo, d);
    free(buf);
    if (copy) {
        c.seen = c.next = 0;
        c.from = src;
        c.to = copy;
        ox_model_walk_tensors(copy, false, reattach, &c);
        if (ox_check_tensors(copy, "<model>", false, d)) {
            ox_model_free(copy);
            copy = NULL;
        }
    }
    vec_free(&c.held);
    if (copy && m->path) copy->path = ox_strdup(copy, m->path);
    return copy;
}

static size_t rename_in(ox_model *m, char **slot, const char *from, const char *to)
{
    if (*slot && strcmp(*slot, from) == 0) {
        *slot = ox_strdup(m, to);
        return 1;
    }
    return 0;
}

static size_t rename_graph(ox_model *m, Onnx__GraphProto *g, const char *from, const char *to, int depth)
{
    if (!g || depth > MAX_DEPTH) return 0;
    size_t n = 0;
    for (size_t i = 0; i < g->n_input; i++) n += rename_in(m, &g->input[i]->name, from, to);
    for (size_t i = 0; i < g->n_output; i++) n += rename_in(m, &g->output[i]->name, from, to);
    for (size_t i = 0; i < g->n_value_info; i++) n += rename_in(m, &g->value_info[i]->name, from, to);
    for (size_t i = 0; i < g->n_initializer; i++) n += rename_in(m, &g->initializer[i]->name, from, to);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *node = g->node[i];
        for (size_t k = 0; k < node->n_input; k++) n += rename_in(m, &node->input[k], from, to);
        for (size_t k = 0; k < node->n_output; k++) n += rename_in(m, &node->output[k], from, to);
        for (size_t a = 0; a < node->n_attribute; a++) {
            Onnx__AttributeProto *at = node->attribute[a];
            n += rename_graph(m, at->g, from, to, depth + 1);
            for (size_t k = 0; k < at->n_graphs; k++) n += rename_graph(m, at->graphs[k], from, to, depth + 1);
        }
    }
    return n;
}

size_t ox_rename_value(ox_model *m, const char *from, const char *to)
{
    return m->proto ? rename_graph(m, m->proto->graph, from, to, 0) : 0;
}

bool ox_set_input_dim_param(ox_model *m, const char *input, int axis, const char *param)
{
    Onnx__GraphProto *g = m->proto ? m->proto->graph : NULL;
    for (size_t i = 0; g && i < g->n_input; i++) {
        Onnx__ValueInfoProto *vi = g->input[i];
        if (!vi->name || strcmp(vi->name, input) != 0) continue;
        if (!vi->type || !vi->type->tensor_type || !vi->type->tensor_type->shape) return false;
        Onnx__TensorShapeProto *s = vi->type->tensor_type->shape;
        if (axis < 0 || (size_t)axis >= s->n_dim) return false;
        Onnx__TensorShapeProto__Dimension *dim = s->dim[axis];
        dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
        dim->dim_param = ox_strdup(m, param);
        return true;
    }
    return false;
}
