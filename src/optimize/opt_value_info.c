/* opt_value_info.c — the last pass: value_info as onnx-ir's serializer writes it (torch.onnx's
 * models are written by it), so that fxsh's optimized model prints like torch's.
 *
 * onnx-ir writes, for each graph and subgraph: first every initializer that is not also a graph
 * input, in initializer order (with its type: a constant lifted out of a node keeps the type its
 * node output had), then every node output that is not a graph output, in node order, when its
 * type is known. Nothing else: graph inputs and names no node produces have no entry. */
#include "base/hashmap.h"
#include "onnx/onnx_infer.h"
#include "optimize/optimize_internal.h"

/* The type an initializer declares: its data type and dims. */
static Onnx__TypeProto *initializer_type(ox_model *m, const Onnx__TensorProto *t)
{
    oi_type ty = {.elem = t->data_type, .rank = t->n_dims <= OE_MAX_RANK ? (int)t->n_dims : -1};
    for (int i = 0; i < ty.rank; i++) ty.d[i] = (oi_dim){t->dims[i], NULL, false};
    return oi_to_proto(m, &ty);
}

static void order_graph(ox_model *m, Onnx__GraphProto *g, int depth, int max_depth)
{
    if (depth > max_depth) return;
    hashmap known, inputs, outputs;
    hm_init(&known);
    hm_init(&inputs);
    hm_init(&outputs);
    for (size_t i = 0; i < g->n_value_info; i++)
        if (g->value_info[i]->name) hm_put(&known, g->value_info[i]->name, g->value_info[i]);
    opt_graph_inputs(g, &inputs);
    opt_graph_outputs(g, &outputs);
    size_t cap = g->n_initializer + g->n_value_info, k = 0;
    Onnx__ValueInfoProto **out = ox_alloc(m, (cap ? cap : 1) * sizeof *out);
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        if (!t->name || !*t->name || hm_has(&inputs, t->name)) continue;
        Onnx__ValueInfoProto *vi = hm_get(&known, t->name);
        if (vi) hm_remove(&known, t->name);  /* one entry per name */
        else {
            Onnx__TypeProto *tp = initializer_type(m, t);
            vi = tp ? ox_value_info_new(m, t->name, tp) : NULL;
        }
        if (vi) out[k++] = vi;
    }
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        for (size_t q = 0; q < n->n_output; q++) {
            const char *name = n->output[q];
            if (!*opt_str(name) || hm_has(&outputs, name)) continue;
            Onnx__ValueInfoProto *vi = hm_get(&known, name);
            if (!vi || k == cap) continue;
            hm_remove(&known, name);
            out[k++] = vi;
        }
        FOR_SUBGRAPHS(n, sg, order_graph(m, sg, depth + 1, max_depth));
    }
    g->value_info = out;
    g->n_value_info = k;
    hm_free(&known);
    hm_free(&inputs);
    hm_free(&outputs);
}

bool opt_order_value_info(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    (void)st;
    (void)d;
    if (m->proto && m->proto->graph) order_graph(m, m->proto->graph, 0, o->max_depth);
    return true;
}
