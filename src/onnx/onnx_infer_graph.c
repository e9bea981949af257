/* onnx_infer_graph.c — types for a graph's untyped values: node by node in order, with ONNX's
 * inference (onnx_infer.c) from the types the graph declares and its constants' values. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/vec.h"
#include "onnx/onnx_infer.h"

enum { CONST_LIMIT = 64 };   /* constants read for inference: shapes, axes, pads, sizes */

typedef struct typing {
    hashmap types;            /* name → oi_type (in owned) */
    VEC(oi_type *) owned;
    VEC(oe_tensor *) values;  /* constant values read, freed at the end */
} typing;

static oi_type *record(typing *g, const char *name, const oi_type *t)
{
    oi_type *e = xmalloc(sizeof *e);
    *e = *t;
    vec_push(&g->owned, e);
    hm_put(&g->types, name, e);
    return e;
}

/* The value of a small integer tensor (shapes, axes...), kept for the inference of its users. */
static const oe_tensor *small_value(typing *g, const Onnx__TensorProto *p)
{
    if (!p || ox_tensor_numel(p) < 0 || ox_tensor_numel(p) > CONST_LIMIT || p->n_dims > 1) return NULL;
    switch (p->data_type) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: break;
    default: return NULL;
    }
    oe_tensor *t = xcalloc(1, sizeof *t);
    if (ot_from_proto(p, CONST_LIMIT, t) != OE_OK) {
        free(t);
        return NULL;
    }
    vec_push(&g->values, t);
    return t;
}

/* The value of a Constant node: its tensor, or its value_int(s) / value_float(s). */
static const oe_tensor *constant_value(typing *g, const Onnx__AttributeProto *a)
{
    if (a->t) return small_value(g, a->t);
    bool ints = !strcmp(a->name, "value_ints"), floats = !strcmp(a->name, "value_floats");
    bool scalar = !strcmp(a->name, "value_int") || !strcmp(a->name, "value_float");
    size_t n = ints ? a->n_ints : floats ? a->n_floats : 1;
    if (!(ints || floats || scalar) || n > CONST_LIMIT) return NULL;
    double v[CONST_LIMIT];
    for (size_t i = 0; i < n; i++)
        v[i] = ints ? (double)a->ints[i] : floats ? a->floats[i] : a->name[6] == 'i' ? (double)a->i : a->f;
    oe_tensor *t = xcalloc(1, sizeof *t);
    int64_t dims[1] = {(int64_t)n};
    bool as_int = ints || !strcmp(a->name, "value_int");
    if (ot_tensor_from_f(t, as_int ? ONNX__TENSOR_PROTO__DATA_TYPE__INT64 : ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, dims,
                         scalar ? 0 : 1, v) != OE_OK) {
        free(t);
        return NULL;
    }
    vec_push(&g->values, t);
    return t;
}

static void seed_initializer(typing *g, const Onnx__TensorProto *p)
{
    if (!p->name || p->n_dims > OE_MAX_RANK) return;
    oi_type t = {.elem = p->data_type, .rank = (int)p->n_dims};
    for (size_t i = 0; i < p->n_dims; i++) t.d[i] = (oi_dim){p->dims[i], NULL};
    t.value = small_value(g, p);
    record(g, p->name, &t);
}

static void seed_declared(typing *g, Onnx__ValueInfoProto *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!v[i]->name) continue;
        oi_type t;
        oi_from_proto(v[i]->type, &t);
        oi_type *old = hm_get(&g->types, v[i]->name);
        if (old) t.value = old->value;   /* an initializer's value stays known */
        if (t.elem || !old) record(g, v[i]->name, &t);
    }
}

void oi_walk_graph(const Onnx__GraphProto *g, int64_t opset, oi_visit visit, void *ctx)
{
    if (!g) return;
    typing ty = {0};
    hm_init(&ty.types);
    for (size_t i = 0; i < g->n_initializer; i++) seed_initializer(&ty, g->initializer[i]);
    seed_declared(&ty, g->input, g->n_input);
    seed_declared(&ty, g->value_info, g->n_value_info);
    seed_declared(&ty, g->output, g->n_output);
    VEC(oi_type) in = {0}, out = {0};
    char why[256];
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        in.len = out.len = 0;
        for (size_t k = 0; k < n->n_input; k++) {
            const oi_type *t = n->input[k] && *n->input[k] ? hm_get(&ty.types, n->input[k]) : NULL;
            oi_type v = {.elem = 0, .rank = -1};
            if (t) v = *t;
            vec_push(&in, v);
        }
        oi_type unknown = {.elem = 0, .rank = -1};
        for (size_t k = 0; k < n->n_output; k++) vec_push(&out, unknown);
        if (oi_infer_node(n, opset, in.items, in.len, out.items, out.len, why, sizeof why)) {
            visit(ctx, i, n, 0, NULL, NULL, why);
            continue;
        }
        if (!strcmp(n->op_type ? n->op_type : "", "Constant") && n->n_attribute && out.len)
            out.items[0].value = constant_value(&ty, n->attribute[0]);
        for (size_t k = 0; k < n->n_output; k++) {
            const char *name = n->output[k];
            if (!name || !*name) continue;
            oi_type *declared = hm_get(&ty.types, name);   /* declared types win downstream */
            visit(ctx, i, n, k, &out.items[k], declared, NULL);
            if (!declared) record(&ty, name, &out.items[k]);
        }
    }
    vec_free(&in);
    vec_free(&out);
    for (size_t i = 0; i < ty.values.len; i++) {
        ot_tensor_free(ty.values.items[i]);
        free(ty.values.items[i]);
    }
    vec_free(&ty.values);
    for (size_t i = 0; i < ty.owned.len; i++) free(ty.owned.items[i]);
    vec_free(&ty.owned);
    hm_free(&ty.types);
}

typedef struct adder {
    ox_model *m;
    Onnx__GraphProto *g;
    const hashmap *skip;
    size_t added;
} adder;

static void add_value_info(void *ctx, size_t idx, const Onnx__NodeProto *n, size_t k, const oi_type *inferred,
                           const oi_type *declared, const char *why)
{
    (void)idx;
    adder *a = ctx;
    if (why || declared || !inferred->elem || (a->skip && hm_has(a->skip, n->output[k]))) return;
    Onnx__TypeProto *tp = oi_to_proto(a->m, inferred);
    if (tp) {
        ox_graph_add_value_info(a->m, a->g, n->output[k], tp);
        a->added++;
    }
}

size_t oi_type_graph_values(ox_model *m, Onnx__GraphProto *g, int64_t opset)
{
    return oi_type_graph_values_except(m, g, opset, NULL);
}

size_t oi_type_graph_values_except(ox_model *m, Onnx__GraphProto *g, int64_t opset, const hashmap *skip)
{
    adder a = {m, g, skip, 0};
    oi_walk_graph(g, opset, add_value_info, &a);
    return a.added;
}
