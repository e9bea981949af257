/* onnx_edit.c — copy a model, rename values across graphs, make input dims symbolic. */
#include "onnx/onnx_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
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

/* ---- extract: a model made of some nodes of another -------------------------------------------- */

/* Calls fn for every name node n reads: its inputs, and the names the nodes of its subgraphs read
 * (an If branch reads outer values by name; the ones the branch makes itself are not the outer
 * graph's, and the caller finds no producer for them). */
static void each_read(const Onnx__NodeProto *n, int depth, void (*fn)(const char *name, void *ctx), void *ctx)
{
    for (size_t i = 0; i < n->n_input; i++)
        if (n->input[i] && *n->input[i]) fn(n->input[i], ctx);
    if (depth >= MAX_DEPTH) return;
    for (size_t a = 0; a < n->n_attribute; a++) {
        const Onnx__AttributeProto *at = n->attribute[a];
        const Onnx__GraphProto *gs[1] = {at->g};
        size_t ng = at->g ? 1 : 0;
        for (size_t k = 0; k < ng + at->n_graphs; k++) {
            const Onnx__GraphProto *sg = k < ng ? gs[k] : at->graphs[k - ng];
            for (size_t j = 0; sg && j < sg->n_node; j++) each_read(sg->node[j], depth + 1, fn, ctx);
        }
    }
}

void ox_node_each_read(const Onnx__NodeProto *n, void (*fn)(const char *name, void *ctx), void *ctx)
{
    each_read(n, 0, fn, ctx);
}

typedef struct extract_ctx {
    ox_model *m;
    Onnx__GraphProto *g;         /* the copy's main graph */
    hashmap made;                /* value -> producer index + 1, over the kept nodes */
    hashmap produced;            /* every value a node of the main graph makes */
    hashmap seen;                /* names already made inputs or initializers */
    hashmap inits, inputs, declared;   /* of the source graph: name -> proto */
    VEC(Onnx__TensorProto *) new_inits;
    VEC(Onnx__ValueInfoProto *) graph_inputs, cut_inputs;
    ox_type_fn type_of;
    void *type_ctx;
    diag_sink *d;
    bool failed;
} extract_ctx;

/* The type of a value that becomes a graph input or output: the caller's (what it evaluated),
 * else the one the model declares. */
static Onnx__TypeProto *type_for(extract_ctx *c, const char *name)
{
    int32_t et = 0;
    const int64_t *dims = NULL;
    size_t rank = 0;
    if (c->type_of && c->type_of(name, c->type_ctx, &et, &dims, &rank)) {
        char buf[32];
        const char **dt = xmalloc((rank ? rank : 1) * sizeof *dt);
        for (size_t i = 0; i < rank; i++) {
            snprintf(buf, sizeof buf, "%lld", (long long)dims[i]);
            dt[i] = ox_strdup(c->m, buf);
        }
        Onnx__TypeProto *t = ox_type_tensor(c->m, et, dt, rank, true);
        free(dt);
        return t;
    }
    const Onnx__ValueInfoProto *vi = hm_get(&c->declared, name);
    return vi ? vi->type : NULL;
}

static void add_read(const char *name, void *vctx)
{
    extract_ctx *c = vctx;
    if (hm_has(&c->made, name) || hm_has(&c->seen, name)) return;
    Onnx__TensorProto *init = hm_get(&c->inits, name);
    Onnx__ValueInfoProto *in = hm_get(&c->inputs, name);
    if (!init && !in && !hm_has(&c->produced, name)) return;   /* a subgraph's own value */
    hm_put(&c->seen, name, (void *)name);
    if (init) {
        vec_push(&c->new_inits, init);
    } else if (in) {
        vec_push(&c->graph_inputs, in);
    } else {
        Onnx__TypeProto *t = type_for(c, name);
        if (!t) {
            diag_error(c->d, (diag_loc){0}, "extract: the value '%s' becomes an input, but its type is unknown", name);
            c->failed = true;
        }
        vec_push(&c->cut_inputs, ox_value_info_new(c->m, name, t));
    }
}

ox_model *ox_extract(const ox_model *src, const bool *keep, const char *const *outputs, size_t n_out, ox_type_fn type_of,
                     void *type_ctx, diag_sink *d)
{
    if (!src->proto->graph) {
        diag_error(d, (diag_loc){0}, "extract: the model has no graph");
        return NULL;
    }
    ox_model *m = ox_model_copy(src, d);
    if (!m) return NULL;
    Onnx__GraphProto *g = m->proto->graph;
    extract_ctx c = {.m = m, .g = g, .type_of = type_of, .type_ctx = type_ctx, .d = d};
    hm_init(&c.made);
    hm_init(&c.produced);
    hm_init(&c.seen);
    hm_init(&c.inits);
    hm_init(&c.inputs);
    hm_init(&c.declared);
    for (size_t i = 0; i < g->n_initializer; i++) hm_put(&c.inits, g->initializer[i]->name, g->initializer[i]);
    for (size_t i = 0; i < g->n_input; i++) {
        if (!hm_has(&c.inits, g->input[i]->name)) hm_put(&c.inputs, g->input[i]->name, g->input[i]);
        hm_put(&c.declared, g->input[i]->name, g->input[i]);
    }
    for (size_t i = 0; i < g->n_value_info; i++) hm_put(&c.declared, g->value_info[i]->name, g->value_info[i]);
    for (size_t i = 0; i < g->n_output; i++) hm_put(&c.declared, g->output[i]->name, g->output[i]);
    size_t n = g->n_node;
    Onnx__NodeProto **old = g->node;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < old[i]->n_output; k++)
            if (*old[i]->output[k]) {
                hm_put(&c.produced, old[i]->output[k], (void *)(i + 1));
                if (keep[i]) hm_put(&c.made, old[i]->output[k], (void *)(i + 1));
            }
    for (size_t i = 0; i < n && !c.failed; i++)
        if (keep[i]) each_read(old[i], 0, add_read, &c);
    /* the outputs: each must be made by a kept node or be an input */
    Onnx__ValueInfoProto **outs = xmalloc((n_out ? n_out : 1) * sizeof *outs);
    for (size_t k = 0; k < n_out && !c.failed; k++) {
        if (!hm_has(&c.made, outputs[k]) && !hm_has(&c.seen, outputs[k])) {
            diag_error(d, (diag_loc){0}, "extract: no kept node makes the value '%s'", outputs[k]);
            c.failed = true;
            break;
        }
        outs[k] = ox_value_info_new(m, outputs[k], type_for(&c, outputs[k]));
    }
    if (!c.failed) {
        Onnx__ValueInfoProto **vi = g->value_info;
        size_t nvi = g->n_value_info;
        g->node = NULL;
        g->n_node = 0;
        for (size_t i = 0; i < n; i++)
            if (keep[i]) OX_PUSH(m, g->node, g->n_node, old[i]);
        g->input = NULL;
        g->n_input = 0;
        for (size_t i = 0; i < c.graph_inputs.len; i++) OX_PUSH(m, g->input, g->n_input, c.graph_inputs.items[i]);
        for (size_t i = 0; i < c.cut_inputs.len; i++) OX_PUSH(m, g->input, g->n_input, c.cut_inputs.items[i]);
        g->initializer = NULL;
        g->n_initializer = 0;
        for (size_t i = 0; i < c.new_inits.len; i++) OX_PUSH(m, g->initializer, g->n_initializer, c.new_inits.items[i]);
        g->output = NULL;
        g->n_output = 0;
        for (size_t k = 0; k < n_out; k++) OX_PUSH(m, g->output, g->n_output, outs[k]);
        /* value_info of the values the kept nodes make, outputs excepted (onnx lists them once) */
        g->value_info = NULL;
        g->n_value_info = 0;
        for (size_t i = 0; i < nvi; i++) {
            bool is_out = false;
            for (size_t k = 0; k < n_out; k++) is_out |= !strcmp(vi[i]->name, outputs[k]);
            if (!is_out && hm_has(&c.made, vi[i]->name)) OX_PUSH(m, g->value_info, g->n_value_info, vi[i]);
        }
    }
    free(outs);
    hm_free(&c.made);
    hm_free(&c.produced);
    hm_free(&c.seen);
    hm_free(&c.inits);
    hm_free(&c.inputs);
    hm_free(&c.declared);
    vec_free(&c.new_inits);
    vec_free(&c.graph_inputs);
    vec_free(&c.cut_inputs);
    if (c.failed) {
        ox_model_free(m);
        return NULL;
    }
    return m;
}
