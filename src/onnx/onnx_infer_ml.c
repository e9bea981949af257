/* onnx_infer_ml.c — inference of the ai.onnx.ml operators whose outputs onnx infers: Binarizer
 * (X's type and shape), LabelEncoder (X's shape, the element type of its values) and TreeEnsemble
 * ([N, n_targets] of X's element type). The others tell nothing of their outputs, in onnx too. */
#include <string.h>

#include "onnx/onnx_infer_internal.h"

int oi_infer_label_encoder(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    /* the values' element type: one of values_strings / values_int64s / values_floats, or values_tensor */
    int elem = 0;
    for (size_t i = 0; i < c->n->n_attribute; i++) {
        const Onnx__AttributeProto *a = c->n->attribute[i];
        if (!a->name) continue;
        if (!strcmp(a->name, "values_strings")) elem = ONNX__TENSOR_PROTO__DATA_TYPE__STRING;
        else if (!strcmp(a->name, "values_int64s")) elem = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
        else if (!strcmp(a->name, "values_floats")) elem = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
        else if (!strcmp(a->name, "values_tensor") && a->t) elem = a->t->data_type;
    }
    if (!elem) return oi_fail(c, "LabelEncoder needs one of values_strings, values_int64s, values_floats or values_tensor");
    oi_like(&c->out[0], x, elem);
    return 0;
}

int oi_infer_tree_ensemble(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    c->out[0] = (oi_type){.elem = x->elem, .rank = 2};
    c->out[0].d[0] = oi_shaped(x) && x->rank >= 1 ? x->d[0] : (oi_dim){-1, NULL, false};
    int64_t targets = oi_attr_i(c, "n_targets", -1);
    c->out[0].d[1] = (oi_dim){targets >= 0 ? targets : -1, NULL, false};
    return 0;
}
