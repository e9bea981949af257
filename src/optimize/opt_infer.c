/* opt_infer.c — types for values that have none, node by node, as onnxscript's constant folder infers them.
 *
 * onnxscript's FoldConstantsPass runs onnx's infer_node_outputs on each node whose inputs are all
 * typed (not on Constants, whose type is their tensor's, nor on nodes holding subgraphs) before
 * it tries to fold it. torch.onnx's builder has typed every value it made already; what is left
 * untyped are the values of the torchlib functions it inlined, which get their type here and
 * so a value_info entry in the optimized model. */
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx_infer.h"
#include "optimize/optimize_internal.h"

/* The type of a value the scope knows: declared, else a constant's (with its value when small). */
static bool known_type(scope *s, const char *name, oi_type *t)
{
    const Onnx__TypeProto *tp = opt_scope_type(s, name);
    if (tp) {
        oi_from_proto(tp, t);
        return t->elem != 0;
    }
    cval *v = opt_scope_val(s, name);
    if (!v || v->not_const || !v->proto || !v->proto->has_data_type || v->proto->n_dims > OE_MAX_RANK) return false;
    t->elem = v->proto->data_type;
    t->rank = (int)v->proto->n_dims;
    for (int i = 0; i < t->rank; i++) t->d[i] = (oi_dim){v->proto->dims[i], NULL};
    if (v->t && v->t->numel <= 20) t->value = v->t;
    return true;
}

/* SequenceConstruct: a sequence of the inputs' element type, with the dims they share (a dim
 * that differs unknown; no shape when the ranks differ), as onnx infers it. */
static Onnx__TypeProto *sequence_type(ox_model *m, scope *s, const Onnx__NodeProto *n)
{
    oi_type acc = {.elem = 0, .rank = -1}, t;
    for (size_t k = 0; k < n->n_input; k++) {
        t = (oi_type){.elem = 0, .rank = -1};
        if (!*opt_str(n->input[k]) || !known_type(s, n->input[k], &t)) return NULL;
        t.value = NULL;
        if (!k) { acc = t; continue; }
        if (t.elem != acc.elem) return NULL;
        if (t.rank != acc.rank) { acc.rank = -1; continue; }
        for (int i = 0; i < acc.rank; i++)
            if (acc.d[i].v != t.d[i].v || (acc.d[i].sym && (!t.d[i].sym || strcmp(acc.d[i].sym, t.d[i].sym))))
                acc.d[i] = (oi_dim){-1, NULL};
    }
    Onnx__TypeProto *et = n->n_input ? oi_to_proto(m, &acc) : NULL;
    return et ? ox_type_sequence(m, et) : NULL;
}

void opt_infer_untyped(ox_model *m, Onnx__GraphProto *g, scope *s, const Onnx__NodeProto *n, int64_t opset)
{
    if (s->no_infer || !opt_is_default_domain(n->domain) || opt_is_op(n, "Constant") || ox_node_has_subgraph(n))
        return;
    bool untyped = false;
    for (size_t k = 0; k < n->n_output; k++)
        untyped |= *opt_str(n->output[k]) && !opt_scope_type(s, n->output[k]);
    if (!untyped) return;
    if (opt_is_op(n, "SequenceConstruct")) {
        Onnx__TypeProto *tp = n->n_output == 1 ? sequence_type(m, s, n) : NULL;
        if (tp) {
            ox_graph_add_value_info(m, g, n->output[0], tp);
            hm_put(&s->types, n->output[0], tp);
        }
        return;
    }
    oi_type *in = calloc(n->n_input + n->n_output + 1, sizeof *in), *out = in + n->n_input;
    bool ok = true;
    for (size_t k = 0; k < n->n_input && ok; k++) {
        in[k] = (oi_type){.elem = 0, .rank = -1};
        if (*opt_str(n->input[k])) ok = known_type(s, n->input[k], &in[k]);
    }
    for (size_t k = 0; k < n->n_output; k++) out[k] = (oi_type){.elem = 0, .rank = -1};
    if (ok && !oi_infer_node(n, opset, in, n->n_input, out, n->n_output, NULL, 0))
        for (size_t k = 0; k < n->n_output; k++) {
            const char *name = n->output[k];
            if (!*opt_str(name) || opt_scope_type(s, name) || !out[k].elem) continue;
            Onnx__TypeProto *tp = oi_to_proto(m, &out[k]);
            if (!tp) continue;
            ox_graph_add_value_info(m, g, name, tp);
            hm_put(&s->types, name, tp);
        }
    free(in);
}
