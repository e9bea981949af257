/* translate_version.c — the opset conversion torch.onnx runs on the translated model: torchlib writes
 * its nodes at opset 18 and onnxscript's version_converter brings them to the model's opset, an
 * adapter replacing the nodes whose form changed (GridSample 19 → 20: mode "bilinear" / "bicubic"
 * became "linear" / "cubic"). A replaced node is a new node: the graph's name authority names it
 * node_<Op>_<N> with the next automatic number, and it carries the attributes the adapter passes. */
#include "config.h"

#include <string.h>

#include "onnx/onnx_ir.h"
#include "translate/translate_internal.h"

#define MAX_VERSION_DEPTH 64

static Onnx__AttributeProto *attr_of(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, name)) return n->attribute[i];
    return NULL;
}

static const char *str_attr(tx *t, const Onnx__NodeProto *n, const char *name, const char *dflt)
{
    const Onnx__AttributeProto *a = attr_of(n, name);
    if (!a || a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING) return dflt;
    return arena_strndup(&t->a, (const char *)a->s.data, a->s.len);
}

/* onnxscript's gridsample_19_20: GridSample(x, grid, align_corners, mode, padding_mode) with the
 * mode renamed; a node already in the new names (nearest) stays as it is. */
static void gridsample_19_20(tx *t, Onnx__NodeProto *n)
{
    const char *mode = str_attr(t, n, "mode", "linear");
    const char *to = !strcmp(mode, "bilinear") ? "linear" : !strcmp(mode, "bicubic") ? "cubic" : NULL;
    if (!to) return;
    const Onnx__AttributeProto *ac = attr_of(n, "align_corners");
    int64_t align = ac && ac->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT ? ac->i : 0;
    const char *pad = str_attr(t, n, "padding_mode", "zeros");
    n->n_attribute = 0;
    ox_attr_int(t->m, n, "align_corners", align);
    ox_attr_string(t->m, n, "mode", to);
    ox_attr_string(t->m, n, "padding_mode", pad);
    n->name = ox_strdup(t->m, arena_printf(&t->a, "node_GridSample_%d", t->nnode++));
}

static void convert_graph(tx *t, Onnx__GraphProto *g, int depth)
{
    if (!g || depth > MAX_VERSION_DEPTH) return;
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        if (n->domain && *n->domain) continue;
        if (!strcmp(n->op_type, "GridSample") && t->opset >= 20) {
            gridsample_19_20(t, n);
            continue;
        }
        for (size_t a = 0; a < n->n_attribute; a++) {
            Onnx__AttributeProto *at = n->attribute[a];
            convert_graph(t, at->g, depth + 1);
            for (size_t k = 0; k < at->n_graphs; k++) convert_graph(t, at->graphs[k], depth + 1);
        }
    }
}

void tx_convert_version(tx *t)
{
    if (t->opset > 18) convert_graph(t, t->m->proto->graph, 0);
}
