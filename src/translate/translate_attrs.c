/* translate_attrs.c — every node's attributes as torch.onnx's tracer writes them: each attribute
 * the operator's schema (at torchlib's opset 18) gives a default is written out, and all appear
 * in onnx.defs' order (torch/onnx/_internal/exporter/_building.py fills them from the OpSignature).
 * Nodes of an inlined torchlib function (named n0, n1_2, ... as the function names them) keep what
 * the function wrote: onnxscript compiles those without defaults. An attribute torchlib passes as
 * None (ScatterND's reduction in aten_index_put) is dropped by the tracer and gets no default:
 * tx_attr_none marks it, and the marker goes when the node is completed. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "onnx/onnx_schema.h"
#include "translate/translate.h"
#include "translate/translate_internal.h"

static bool inlined_function_node(const char *name)
{
    if (!name || name[0] != 'n' || name[1] < '0' || name[1] > '9') return false;
    const char *p = name + 1;
    while (*p >= '0' && *p <= '9') p++;
    if (*p == '_') {
        p++;
        if (*p < '0' || *p > '9') return false;
        while (*p >= '0' && *p <= '9') p++;
    }
    return !*p;
}

static Onnx__AttributeProto *find_attr(Onnx__NodeProto *n, const char *name, size_t len)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && strlen(n->attribute[i]->name) == len && !strncmp(n->attribute[i]->name, name, len))
            return n->attribute[i];
    return NULL;
}

static bool none_marker(const Onnx__AttributeProto *a)
{
    return a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

void tx_attr_none(ox_model *m, Onnx__NodeProto *n, const char *name)
{
    ox_attr_new(m, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED);
}

/* Removes the None markers of n (keeping the other attributes in their order). */
static void drop_none_markers(Onnx__NodeProto *n)
{
    size_t k = 0;
    for (size_t i = 0; i < n->n_attribute; i++)
        if (!none_marker(n->attribute[i])) n->attribute[k++] = n->attribute[i];
    n->n_attribute = k;
}

/* Adds the missing defaults and puts the attributes in the schema's order (ones the schema does
 * not list, if any, after them in their own order). */
static void complete_node(ox_model *m, Onnx__NodeProto *n)
{
    const ox_op_attr_defaults *sd = ox_op_attr_defaults_find(n->op_type);
    if (!sd || !*sd->attributes) return;
    size_t cap = n->n_attribute, k = 0;
    for (const char *p = sd->attributes; *p; p++) cap += *p == ',';
    Onnx__AttributeProto **order = xmalloc((cap + 2) * sizeof *order);
    bool *placed = xcalloc(n->n_attribute + 1, 1);
    size_t given = n->n_attribute;
    for (const char *p = sd->attributes; *p;) {
        const char *end = strchr(p, ','), *colon;
        if (!end) end = p + strlen(p);
        colon = memchr(p, ':', (size_t)(end - p));
        size_t nlen = (size_t)((colon ? colon : end) - p);
        Onnx__AttributeProto *a = find_attr(n, p, nlen);
        if (a && none_marker(a)) {
            /* passed None: no default; drop_none_markers removes it */
        } else if (a) {
            for (size_t i = 0; i < given; i++)
                if (n->attribute[i] == a) placed[i] = true;
            order[k++] = a;
        } else if (colon && colon + 2 < end && colon[2] == '=') {
            char name[64], val[128];
            size_t vlen = (size_t)(end - colon - 3);
            if (nlen < sizeof name && vlen < sizeof val) {
                memcpy(name, p, nlen); name[nlen] = 0;
                memcpy(val, colon + 3, vlen); val[vlen] = 0;
                if (colon[1] == 'i') a = ox_attr_int(m, n, name, strtoll(val, NULL, 10));
                else if (colon[1] == 'f') a = ox_attr_float(m, n, name, strtof(val, NULL));
                else if (colon[1] == 's') a = ox_attr_string(m, n, name, val);
                if (a) order[k++] = a;
            }
        }
        p = *end ? end + 1 : end;
    }
    for (size_t i = 0; i < given; i++)
        if (!placed[i]) order[k++] = n->attribute[i];
    if (k) memcpy(n->attribute, order, k * sizeof *order);   /* none: the node may have no array */
    n->n_attribute = k;
    free(placed);
    free(order);
}

void tx_complete_attributes(ox_model *m, Onnx__GraphProto *g, int depth)
{
    if (!g || depth > 64) return;
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        bool has_graph = false;
        for (size_t k = 0; k < n->n_attribute; k++) {
            Onnx__AttributeProto *a = n->attribute[k];
            if (a->g) tx_complete_attributes(m, a->g, depth + 1);
            for (size_t j = 0; j < a->n_graphs; j++) tx_complete_attributes(m, a->graphs[j], depth + 1);
            has_graph |= a->g || a->n_graphs;
        }
        /* If / Loop / Scan come from torch.onnx's own handling of cond, while_loop and scan,
         * which builds the node with its branches in its own order, not through the tracer */
        if (!has_graph && !(n->domain && *n->domain) && !inlined_function_node(n->name)) complete_node(m, n);
        drop_none_markers(n);
    }
}
