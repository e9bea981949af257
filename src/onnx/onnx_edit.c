/* onnx_edit.c — copy a model, rename values across graphs, make input dims symbolic. */
#include "onnx/onnx_edit.h"

#include <stdlib.h>
#include <string.h>

#include "onnx/onnx_pb.h"

enum { MAX_DEPTH = 64 };

ox_model *ox_model_copy(const ox_model *m, diag_sink *d)
{
    /* Pack and unpack: exact (unknown fields included) and linear in the model size. */
    size_t len;
    uint8_t *buf = ox_pack(m, &len);
    ox_load_opts lo = {.keep_external = true, .missing_is_warning = true};
    ox_model *copy = ox_load_bytes_opts(buf, len, NULL, &lo, d);
    free(buf);
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
