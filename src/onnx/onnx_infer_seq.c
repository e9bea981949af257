/* onnx_infer_seq.c — type and shape inference of the sequence and optional operators as
 * onnx/defs/sequence and optional compute it: a sequence's type is its tensors' element type and
 * the shape they share (what differs between them unknown). */
#include <string.h>

#include "onnx/onnx_infer_internal.h"

#define T_FLOAT ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT

static const oi_dim unknown_dim = {-1, NULL, false};

/* onnx's UnionShapeInfo: t takes in what both agree on; different ranks leave no shape. */
static void union_shape(oi_type *t, const oi_type *o)
{
    if (t->rank < 0 || o->rank < 0 || t->rank != o->rank) {
        t->rank = -1;
        return;
    }
    for (int i = 0; i < t->rank; i++) {
        const oi_dim *a = &t->d[i], *b = &o->d[i];
        bool same = (a->v >= 0 && a->v == b->v) || (a->v < 0 && b->v < 0 && a->sym && b->sym && !strcmp(a->sym, b->sym));
        if (!same) t->d[i] = unknown_dim;
    }
}

/* SequenceConstruct: a sequence of the inputs' element type (all the same) and shared shape. */
int oi_infer_sequence_construct(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    oi_type t = *x;
    t.value = NULL;
    for (size_t i = 1; i < c->nin; i++) {
        const oi_type *y = oi_in(c, i);
        if (!oi_known(y)) return 0;
        if (y->elem != x->elem) return oi_fail(c, "Element type of input %zu does not match the first input's", i);
        union_shape(&t, y);
    }
    t.kind = OI_SEQUENCE;
    c->out[0] = t;
    return 0;
}

/* SequenceEmpty: a sequence of dtype (float by default), no shape. */
int oi_infer_sequence_empty(oi_ctx *c)
{
    c->out[0] = (oi_type){.elem = (int)oi_attr_i(c, "dtype", T_FLOAT), .rank = -1, .kind = OI_SEQUENCE};
    return 0;
}

/* SequenceInsert: the sequence's type, its shape united with the inserted tensor's; SequenceErase:
 * the sequence's type. */
int oi_infer_sequence_edit(oi_ctx *c)
{
    const oi_type *s = oi_in(c, 0);
    if (!oi_known(s)) return 0;
    if (s->kind != OI_SEQUENCE) return oi_fail(c, "input 0 is not a sequence");
    c->out[0] = *s;
    c->out[0].value = NULL;
    if (strcmp(c->n->op_type, "SequenceInsert")) return 0;
    const oi_type *t = oi_in(c, 1);
    if (!oi_known(t)) {
        c->out[0].rank = -1;
        return 0;
    }
    if (t->elem != s->elem) return oi_fail(c, "Input Sequence and Tensor are expected to have the same elem type");
    union_shape(&c->out[0], t);
    return 0;
}

/* SequenceAt: a tensor of the sequence's type and shape. */
int oi_infer_sequence_at(oi_ctx *c)
{
    const oi_type *s = oi_in(c, 0);
    if (!oi_known(s)) return 0;
    if (s->kind != OI_SEQUENCE) return oi_fail(c, "input 0 is not a sequence");
    c->out[0] = *s;
    c->out[0].value = NULL;
    c->out[0].kind = OI_TENSOR;
    return 0;
}

/* SplitToSequence: a sequence of the input's type; without split, pieces of 1 along the axis
 * (kept with keepdims, else removed); with split, that dimension unknown. */
int oi_infer_split_to_sequence(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    oi_like(&c->out[0], x, 0);
    c->out[0].kind = OI_SEQUENCE;
    if (!oi_shaped(x)) return 0;
    int64_t axis = oi_attr_i(c, "axis", 0);
    if (axis < -x->rank || axis >= x->rank) return oi_fail(c, "axis %lld is out of range for rank %d", (long long)axis, x->rank);
    int a = oi_norm_axis(axis, x->rank);
    oi_type *o = &c->out[0];
    if (oi_in(c, 1)) {
        o->d[a] = unknown_dim;
    } else if (oi_attr_i(c, "keepdims", 1)) {
        o->d[a] = (oi_dim){1, NULL, false};
    } else {
        for (int i = a; i + 1 < x->rank; i++) o->d[i] = x->d[i + 1];
        o->rank--;
    }
    return 0;
}

/* ConcatFromSequence: a tensor of the sequence's type; its rank (one more with new_axis), the
 * concatenated (or new) dimension unknown. */
int oi_infer_concat_from_sequence(oi_ctx *c)
{
    const oi_type *s = oi_in(c, 0);
    if (!oi_known(s)) return 0;
    if (s->kind != OI_SEQUENCE) return oi_fail(c, "input 0 is not a sequence");
    c->out[0] = (oi_type){.elem = s->elem, .rank = -1};
    if (s->rank < 0) return 0;
    bool new_axis = oi_attr_i(c, "new_axis", 0) != 0;
    int r = s->rank + (new_axis ? 1 : 0);
    if (r > OE_MAX_RANK) return 0;
    int64_t axis = oi_attr_i(c, "axis", 0);
    if (axis < -r || axis >= r) return oi_fail(c, "axis %lld is out of range for rank %d", (long long)axis, r);
    int a = oi_norm_axis(axis, r);
    oi_type *o = &c->out[0];
    o->rank = r;
    for (int i = 0, j = 0; i < r; i++) {
        if (i == a) o->d[i] = unknown_dim;   /* concatenated along, or the new axis */
        if (i != a || !new_axis) j++;
        if (i != a) o->d[i] = s->d[j - 1];
    }
    return 0;
}

/* Optional: an optional of its input's type, or of the type attribute's. */
int oi_infer_optional(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    oi_type t;
    if (x) {
        if (!oi_known(x)) return 0;
        t = *x;
        t.value = NULL;
    } else {
        const Onnx__AttributeProto *a = ox_node_attr(c->n, "type");
        if (!a || !a->tp) return oi_fail(c, "Optional without an input needs its type attribute");
        oi_from_proto(a->tp, &t);
        if (!t.elem) return 0;
    }
    if (t.kind == OI_TENSOR) t.kind = OI_OPTIONAL;
    else if (t.kind == OI_SEQUENCE) t.kind = OI_OPTIONAL_SEQUENCE;
    else return oi_fail(c, "an optional of an optional");
    c->out[0] = t;
    return 0;
}

/* OptionalGetElement: what the optional holds (a tensor or a sequence passes through). */
int oi_infer_optional_get(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    c->out[0] = *x;
    c->out[0].value = NULL;
    if (x->kind == OI_OPTIONAL) c->out[0].kind = OI_TENSOR;
    else if (x->kind == OI_OPTIONAL_SEQUENCE) c->out[0].kind = OI_SEQUENCE;
    else if (c->opset < 18) return oi_fail(c, "input 0 is not an optional");
    return 0;
}
