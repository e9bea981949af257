/* opt_infer.c — types for values, node by node, as onnxscript's constant folder infers them.
 *
 * onnxscript's FoldConstantsPass runs onnx's infer_node_outputs on each node whose inputs are all
 * typed (not on Constants, whose type is their tensor's, nor on nodes holding subgraphs) before
 * it tries to fold it, with the values of the small constants among its inputs. What it infers
 * fills in what the value's type did not know (_merge_shapes: a known dim wins over an unknown
 * one, the type already there wins otherwise). torch.onnx's builder has typed every value it made
 * already, often with dims it could not know then (a Reshape to a shape computed at run time);
 * the values of the torchlib functions it inlined have no type yet and get one here, and so a
 * value_info entry in the optimized model. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "onnx/onnx_infer.h"
#include "optimize/optimize_internal.h"

/* The type of a value the scope knows: declared, else a constant's (with its value when small). */
static bool known_type(scope *s, const char *name, oi_type *t)
{
    const Onnx__TypeProto *tp = opt_scope_type(s, name);
    cval *v = opt_scope_val(s, name);
    bool constant = v && !v->not_const;
    if (tp) {
        oi_from_proto(tp, t);
        if (constant && v->t && v->t->numel <= 20) t->value = v->t;   /* folded: its value, as onnxscript passes it */
        return t->elem != 0;
    }
    if (!constant || !v->proto || !v->proto->has_data_type || v->proto->n_dims > OE_MAX_RANK) return false;
    t->elem = v->proto->data_type;
    t->rank = (int)v->proto->n_dims;
    for (int i = 0; i < t->rank; i++) t->d[i] = (oi_dim){v->proto->dims[i], NULL, false};
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
                acc.d[i] = (oi_dim){-1, NULL, false};
    }
    Onnx__TypeProto *et = n->n_input ? oi_to_proto(m, &acc) : NULL;
    return et ? ox_type_sequence(m, et) : NULL;
}

/* onnxscript's _merge_shapes(preferred = the type there, other = the inferred one), in place:
 * a dim the type does not know (no value, no name) takes the inferred one, a named dim takes an
 * inferred value; a type without shape takes the inferred shape. Ranks that differ change nothing
 * (onnxscript's merge raises and the folder moves on). */
static void merge_into(ox_model *m, Onnx__TypeProto *tp, const oi_type *inf)
{
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type || inf->rank < 0) return;
    Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    if (!tt->shape) {
        Onnx__TypeProto *fresh = oi_to_proto(m, inf);
        if (fresh) tt->shape = fresh->tensor_type->shape;
        return;
    }
    if (tt->shape->n_dim != (size_t)inf->rank) return;
    for (int i = 0; i < inf->rank; i++) {
        Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        bool has_value = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        bool named = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param && *d->dim_param;
        if (has_value) continue;
        if (inf->d[i].v >= 0) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = inf->d[i].v;
        } else if (!named && inf->d[i].sym) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = ox_strdup(m, inf->d[i].sym);
        }
    }
}

void opt_infer_types(ox_model *m, Onnx__GraphProto *g, scope *s, const Onnx__NodeProto *n, int64_t opset)
{
    if (s->no_infer || !opt_is_default_domain(n->domain) || opt_is_op(n, "Constant") || ox_node_has_subgraph(n))
        return;
    if (opt_is_op(n, "SequenceConstruct")) {
        Onnx__TypeProto *tp = n->n_output == 1 && !opt_scope_type(s, n->output[0]) ? sequence_type(m, s, n) : NULL;
        if (tp) {
            ox_graph_add_value_info(m, g, n->output[0], tp);
            hm_put(&s->types, n->output[0], tp);
        }
        return;
    }
    oi_type *in = xcalloc(n->n_input + n->n_output + 1, sizeof *in), *out = in + n->n_input;
    bool ok = true;
    for (size_t k = 0; k < n->n_input && ok; k++) {
        in[k] = (oi_type){.elem = 0, .rank = -1};
        if (*opt_str(n->input[k])) ok = known_type(s, n->input[k], &in[k]);
    }
    for (size_t k = 0; k < n->n_output; k++) out[k] = (oi_type){.elem = 0, .rank = -1};
    if (ok && !oi_infer_node(n, opset, in, n->n_input, out, n->n_output, NULL, 0))
        for (size_t k = 0; k < n->n_output; k++) {
            const char *name = n->output[k];
            if (!*opt_str(name) || !out[k].elem) continue;
            const Onnx__TypeProto *had = opt_scope_type(s, name);
            if (had) {
                merge_into(m, (Onnx__TypeProto *)had, &out[k]);
                continue;
            }
            Onnx__TypeProto *tp = oi_to_proto(m, &out[k]);
            if (!tp) continue;
            ox_graph_add_value_info(m, g, name, tp);
            hm_put(&s->types, name, tp);
        }
    free(in);
}

/* A folded value becomes a new initializer value in onnxscript, typed by its tensor: the type the
 * node output had (from torch's meta, or inferred) gives way to the tensor's dtype and dims. */
void opt_type_as_tensor(ox_model *m, scope *s, const Onnx__TensorProto *t)
{
    Onnx__TypeProto *tp = (Onnx__TypeProto *)opt_scope_type(s, opt_str(t->name));
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type || t->n_dims > OE_MAX_RANK) return;
    oi_type ty = {.elem = t->data_type, .rank = (int)t->n_dims};
    for (int i = 0; i < ty.rank; i++) ty.d[i] = (oi_dim){t->dims[i], NULL, false};
    Onnx__TypeProto *fresh = oi_to_proto(m, &ty);
    if (fresh) tp->tensor_type = fresh->tensor_type;
}
