/* onnx_infer_graph.c — types for a graph's values: node by node in order, with ONNX's inference
 * (onnx_infer.c; If / Loop / Scan bodies walked in their scope, onnx_infer_control.c) from the
 * types the graph declares and its constants' values. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/vec.h"
#include "onnx/onnx_infer.h"
#include "onnx/onnx_infer_internal.h"

enum { CONST_LIMIT = 64 };   /* constants read for inference: shapes, axes, pads, sizes */

typedef struct typing {
    hashmap types;            /* name → oi_type (in owned) */
    const struct typing *parent;   /* the enclosing graph's, for a subgraph */
    hashmap inits;            /* names of the graph's initializers */
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
    if (!p->name) return;
    hm_put(&g->inits, p->name, (void *)1);
    if (p->n_dims > OE_MAX_RANK) return;
    oi_type t = {.elem = p->data_type, .rank = (int)p->n_dims};
    for (size_t i = 0; i < p->n_dims; i++) t.d[i] = (oi_dim){p->dims[i], NULL, false};
    t.value = small_value(g, p);
    record(g, p->name, &t);
}

static void seed_declared(typing *g, Onnx__ValueInfoProto *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* an initializer's own type is what its users see, whatever a declaration of its name
         * says (onnx's inference reads it so; the checker warns of the difference) */
        if (!v[i]->name || hm_has(&g->inits, v[i]->name)) continue;
        oi_type t;
        oi_from_proto(v[i]->type, &t);
        oi_type *old = hm_get(&g->types, v[i]->name);
        if (old) t.value = old->value;   /* an initializer's value stays known */
        if (t.elem || !old) record(g, v[i]->name, &t);
    }
}

/* The type of name in this graph or an enclosing one (outer-scope values of a subgraph). */
static const oi_type *lookup(const typing *g, const char *name)
{
    for (; g; g = g->parent) {
        const oi_type *t = hm_get(&g->types, name);
        if (t) return t;
    }
    return NULL;
}

/* What flows downstream of a declared value: the declaration, with what inference knows and it
 * leaves open filled in (onnx's mergeInShapeInfo: a static inferred dimension replaces a
 * symbolic or unknown declared one; a declared symbol is kept over an inferred one). */
static oi_type merged(const oi_type *declared, const oi_type *inferred)
{
    oi_type t = *declared;
    if (!t.elem) {
        t.elem = inferred->elem;
        t.kind = inferred->kind;
    }
    if (t.rank < 0) {
        t.rank = inferred->rank;
        for (int i = 0; i < t.rank; i++) t.d[i] = inferred->d[i];
    } else if (inferred->rank == t.rank) {
        for (int i = 0; i < t.rank; i++)
            if (inferred->d[i].v >= 0 || (t.d[i].v < 0 && !t.d[i].sym)) t.d[i] = inferred->d[i];
    }
    if (!t.value) t.value = inferred->value;
    return t;
}

static void release(typing *ty)
{
    for (size_t i = 0; i < ty->values.len; i++) {
        ot_tensor_free(ty->values.items[i]);
        free(ty->values.items[i]);
    }
    vec_free(&ty->values);
    for (size_t i = 0; i < ty->owned.len; i++) free(ty->owned.items[i]);
    vec_free(&ty->owned);
    hm_free(&ty->types);
    hm_free(&ty->inits);
}

typedef struct walker {
    int64_t opset;
    oi_visit visit;
    void *ctx;
    int depth;
} walker;

static void walk(walker *w, typing *ty, const Onnx__GraphProto *g, oi_type *outs, size_t n_outs);

typedef struct body_call {
    walker *w;
    const typing *scope;
} body_call;

/* A control-flow node's body (onnx_infer_control.c calls back): its inputs bound to the types the
 * node gives them, merged with what the body declares (a contradiction is the node's), its nodes
 * walked with the enclosing values in scope, its outputs' types returned. */
static int infer_body(void *vcall, const Onnx__GraphProto *body, const oi_type *bound, size_t n_bound, oi_type *outs,
                      size_t n_outs, char *why, size_t why_cap)
{
    body_call *call = vcall;
    if (call->w->depth > 64) return 0;
    typing ty = {.parent = call->scope};
    hm_init(&ty.types);
    hm_init(&ty.inits);
    int rc = 0;
    for (size_t i = 0; i < body->n_initializer; i++) seed_initializer(&ty, body->initializer[i]);
    for (size_t i = 0; i < body->n_input; i++) {
        const Onnx__ValueInfoProto *v = body->input[i];
        if (!v->name) continue;
        oi_type t;
        oi_from_proto(v->type, &t);
        if (i < n_bound && bound[i].elem) {
            const oi_type *b = &bound[i];
            if (t.elem && b->elem != t.elem) {
                snprintf(why, why_cap, "body input '%s' is declared %s, but the node gives it %s", v->name,
                         ox_dtype_name(t.elem), ox_dtype_name(b->elem));
                rc = -1;
            } else if (t.rank >= 0 && b->rank >= 0 && t.rank != b->rank) {
                snprintf(why, why_cap, "body input '%s' is declared of rank %d, but the node gives it rank %d", v->name,
                         t.rank, b->rank);
                rc = -1;
            } else {
                for (int k = 0; t.rank >= 0 && b->rank == t.rank && k < t.rank; k++)
                    if (t.d[k].v >= 0 && b->d[k].v >= 0 && t.d[k].v != b->d[k].v) {
                        snprintf(why, why_cap,
                                 "body input '%s': dimension %d is declared %" PRId64 ", but the node gives it %" PRId64,
                                 v->name, k, t.d[k].v, b->d[k].v);
                        rc = -1;
                    }
            }
            t = merged(&t, b);
        }
        record(&ty, v->name, &t);
    }
    if (rc == 0) {
        seed_declared(&ty, body->value_info, body->n_value_info);
        seed_declared(&ty, body->output, body->n_output);
        call->w->depth++;
        walk(call->w, &ty, body, outs, n_outs);
        call->w->depth--;
    }
    release(&ty);
    return rc;
}

/* Walks g's nodes in order (ty seeded with what g declares); outs, when given, gets the types of
 * g's outputs as a caller of the graph sees them. */
static void walk(walker *w, typing *ty, const Onnx__GraphProto *g, oi_type *outs, size_t n_outs)
{
    VEC(oi_type) in = {0}, out = {0};
    char why[256];
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        in.len = out.len = 0;
        for (size_t k = 0; k < n->n_input; k++) {
            const oi_type *t = n->input[k] && *n->input[k] ? lookup(ty, n->input[k]) : NULL;
            oi_type v = {.elem = 0, .rank = -1};
            if (t) v = *t;
            vec_push(&in, v);
        }
        oi_type unknown = {.elem = 0, .rank = -1};
        for (size_t k = 0; k < n->n_output; k++) vec_push(&out, unknown);
        int rc;
        if (oi_is_control(n)) {
            body_call call = {w, ty};
            rc = oi_infer_control(n, w->opset, in.items, in.len, out.items, out.len, infer_body, &call, why, sizeof why);
        } else {
            rc = oi_infer_node(n, w->opset, in.items, in.len, out.items, out.len, why, sizeof why);
        }
        if (rc) {
            w->visit(w->ctx, g, i, n, 0, NULL, NULL, why);
            continue;
        }
        if (!strcmp(n->op_type ? n->op_type : "", "Constant") && n->n_attribute && out.len)
            out.items[0].value = constant_value(ty, n->attribute[0]);
        for (size_t k = 0; k < n->n_output; k++) {
            const char *name = n->output[k];
            if (!name || !*name) continue;
            oi_type *declared = hm_get(&ty->types, name);
            w->visit(w->ctx, g, i, n, k, &out.items[k], declared, NULL);
            if (!declared) record(ty, name, &out.items[k]);
            else *declared = merged(declared, &out.items[k]);   /* what flows downstream */
        }
    }
    vec_free(&in);
    vec_free(&out);
    for (size_t i = 0; outs && i < n_outs; i++) {
        const oi_type *t = i < g->n_output && g->output[i]->name ? lookup(ty, g->output[i]->name) : NULL;
        outs[i] = t ? *t : (oi_type){.elem = 0, .rank = -1};
        outs[i].value = NULL;
    }
}

void oi_walk_graph(const Onnx__GraphProto *g, int64_t opset, oi_visit visit, void *ctx)
{
    if (!g) return;
    typing ty = {0};
    hm_init(&ty.types);
    hm_init(&ty.inits);
    for (size_t i = 0; i < g->n_initializer; i++) seed_initializer(&ty, g->initializer[i]);
    seed_declared(&ty, g->input, g->n_input);
    seed_declared(&ty, g->value_info, g->n_value_info);
    seed_declared(&ty, g->output, g->n_output);
    walker w = {opset, visit, ctx, 0};
    walk(&w, &ty, g, NULL, 0);
    release(&ty);
}

typedef struct adder {
    ox_model *m;
    Onnx__GraphProto *g;
    const hashmap *skip;
    size_t added;
} adder;

static void add_value_info(void *ctx, const Onnx__GraphProto *g, size_t idx, const Onnx__NodeProto *n, size_t k, const oi_type *inferred,
                           const oi_type *declared, const char *why)
{
    (void)idx;
    adder *a = ctx;
    /* torch.onnx's builder types a node from its operator's inference alone, which cannot see
     * into bodies: If / Loop / Scan outputs stay untyped, as in its models */
    if (g != a->g || why || oi_is_control(n) || declared || !inferred->elem || (a->skip && hm_has(a->skip, n->output[k]))) return;
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
