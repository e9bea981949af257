/* opt_common.c — what the optimizer passes share: renaming, names, copies, and scopes (types and
 * constant values visible in a graph). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "optimize/optimize_internal.h"

const char *opt_str(const char *s) { return s ? s : ""; }
bool opt_is_default_domain(const char *d) { return !d || !*d || !strcmp(d, "ai.onnx"); }
bool opt_is_op(const Onnx__NodeProto *n, const char *op)
{
    return opt_is_default_domain(n->domain) && n->op_type && !strcmp(n->op_type, op);
}

const optimize_options *opt_opts_or_default(const optimize_options *o, optimize_options *buf)
{
    if (o) return o;
    optimize_options_default(buf);
    return buf;
}

void opt_too_deep(diag_sink *d, int max_depth)
{
    if (d) {
        diagnostic *dg = diag_error(d, (diag_loc){0}, "subgraphs nested deeper than %d levels", max_depth);
        diag_set_hint(dg, "the optimizer leaves such models unchanged below that depth");
    }
}

/* ---- generic helpers ----------------------------------------------------------------------- */

/* Follows a rename chain (bounded, in case of a malformed cycle). */
const char *opt_resolve(const hashmap *ren, const char *name)
{
    for (int i = 0; i < 1000 && name && *name; i++) {
        const char *to = hm_get(ren, name);
        if (!to || to == name || !strcmp(to, name)) break;
        name = to;
    }
    return name;
}

/* Applies renames to every use inside g (node inputs, recursively) and, for nested graphs,
 * their outputs (a subgraph output may name an outer value). */
void opt_rename_uses(Onnx__GraphProto *g, const hashmap *ren, bool outputs, int depth, int max_depth)
{
    if (!ren->len || depth > max_depth) return;
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        for (size_t k = 0; k < n->n_input; k++) n->input[k] = (char *)opt_resolve(ren, n->input[k]);
        FOR_SUBGRAPHS(n, sg, opt_rename_uses(sg, ren, true, depth + 1, max_depth));
    }
    if (outputs)
        for (size_t i = 0; i < g->n_output; i++)
            if (g->output[i]->name) g->output[i]->name = (char *)opt_resolve(ren, g->output[i]->name);
}

/* Removes the nodes flagged in dead[] keeping order. */
size_t opt_compact_nodes(Onnx__GraphProto *g, const bool *dead)
{
    size_t k = 0, removed = 0;
    for (size_t i = 0; i < g->n_node; i++) {
        if (dead[i]) removed++;
        else g->node[k++] = g->node[i];
    }
    g->n_node = k;
    return removed;
}

void opt_graph_outputs(const Onnx__GraphProto *g, hashmap *set)
{
    for (size_t i = 0; i < g->n_output; i++)
        if (g->output[i]->name) hm_put(set, g->output[i]->name, (void *)1);
}

void opt_graph_inputs(const Onnx__GraphProto *g, hashmap *set)
{
    for (size_t i = 0; i < g->n_input; i++)
        if (g->input[i]->name) hm_put(set, g->input[i]->name, (void *)1);
}

/* The number onnx-ir gives the graph's next unnamed node (node_<Op>_<N>, one counter per graph):
 * one past the highest N of the names it gave, which torch.onnx's nodes keep. */
int64_t opt_next_node_number(const Onnx__GraphProto *g)
{
    int64_t next = 0;
    for (size_t i = 0; i < g->n_node; i++) {
        const char *nm = opt_str(g->node[i]->name), *u = strrchr(nm, '_');
        if (strncmp(nm, "node_", 5) || !u || u == nm + 4 || !u[1]) continue;
        bool op = true, num = true;
        for (const char *p = nm + 5; p < u; p++) op &= (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z');
        for (const char *p = u + 1; *p; p++) num &= *p >= '0' && *p <= '9';
        if (!op || !num || nm[5] < 'A' || nm[5] > 'Z') continue;
        int64_t v = strtoll(u + 1, NULL, 10);
        if (v + 1 > next) next = v + 1;
    }
    return next;
}

/* Collects every value name defined anywhere in g (inputs, initializers, node outputs). */
void opt_collect_names(Onnx__GraphProto *g, hashmap *set, int depth, int max_depth)
{
    if (depth > max_depth) return;
    for (size_t i = 0; i < g->n_input; i++)
        if (g->input[i]->name) hm_put(set, g->input[i]->name, (void *)1);
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name) hm_put(set, g->initializer[i]->name, (void *)1);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        for (size_t k = 0; k < n->n_output; k++)
            if (*opt_str(n->output[k])) hm_put(set, n->output[k], (void *)1);
        if (n->name && *n->name) hm_put(set, n->name, (void *)1);
        FOR_SUBGRAPHS(n, sg, opt_collect_names(sg, set, depth + 1, max_depth));
    }
}

/* A name not yet in `taken` (which then holds it), built from base; lives in m's arena. */
char *opt_fresh_name(ox_model *m, hashmap *taken, const char *base)
{
    char *s = ox_strdup(m, base);
    for (int i = 1; hm_has(taken, s); i++) s = arena_printf(&m->arena, "%s_%d", base, i);
    hm_put(taken, s, (void *)1);
    return s;
}

void *opt_deep_copy(ox_model *m, const ProtobufCMessage *msg,
                       void *(*unpack)(ProtobufCAllocator *, size_t, const uint8_t *))
{
    size_t len;
    uint8_t *buf = ox_pack_message(msg, &len);
    void *r = unpack(&m->alloc, len, buf);
    free(buf);
    return r;
}

Onnx__NodeProto *opt_node_copy(ox_model *m, const Onnx__NodeProto *n)
{
    return opt_deep_copy(m, &n->base, (void *(*)(ProtobufCAllocator *, size_t, const uint8_t *))
                                      onnx__node_proto__unpack);
}
Onnx__AttributeProto *opt_attr_copy(ox_model *m, const Onnx__AttributeProto *a)
{
    return opt_deep_copy(m, &a->base, (void *(*)(ProtobufCAllocator *, size_t, const uint8_t *))
                                      onnx__attribute_proto__unpack);
}

/* ---- scopes: types and constant values visible in a graph -------------------------------- */

void opt_scope_init(scope *s, scope *parent, Onnx__GraphProto *g, arena *a)
{
    s->parent = parent;
    s->no_infer = parent && parent->no_infer;
    hm_init(&s->types);
    hm_init(&s->vals);
    hm_init(&s->elems);
    for (size_t i = 0; i < g->n_value_info; i++)
        if (g->value_info[i]->name && g->value_info[i]->type) hm_put(&s->types, g->value_info[i]->name, g->value_info[i]->type);
    for (size_t i = 0; i < g->n_output; i++)
        if (g->output[i]->name && g->output[i]->type) hm_put(&s->types, g->output[i]->name, g->output[i]->type);
    for (size_t i = 0; i < g->n_input; i++) {
        if (!g->input[i]->name) continue;
        if (g->input[i]->type) hm_put(&s->types, g->input[i]->name, g->input[i]->type);
        cval *v = arena_alloc(a, sizeof *v);
        v->not_const = true;
        hm_put(&s->vals, g->input[i]->name, v);
    }
    for (size_t i = 0; i < g->n_initializer; i++) {
        Onnx__TensorProto *t = g->initializer[i];
        if (!t->name || hm_has(&s->vals, t->name)) continue;   /* inputs with defaults stay inputs */
        cval *v = arena_alloc(a, sizeof *v);
        v->proto = t;
        hm_put(&s->vals, t->name, v);
    }
}

void opt_scope_free(scope *s)
{
    hm_free(&s->types);
    hm_free(&s->vals);
    hm_free(&s->elems);
}

cval *opt_scope_val(scope *s, const char *name)
{
    for (; s; s = s->parent) {
        cval *v = hm_get(&s->vals, name);
        if (v) return v;
    }
    return NULL;
}

const Onnx__TypeProto *opt_scope_type(scope *s, const char *name)
{
    for (; s; s = s->parent) {
        const Onnx__TypeProto *t = hm_get(&s->types, name);
        if (t) return t;
    }
    return NULL;
}

/* The static shape of a tensor type, or -1 if it is not fully known. */
int opt_static_shape(const Onnx__TypeProto *tp, int64_t *dims, int *elem)
{
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) return -1;
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    if (elem) *elem = tt->has_elem_type ? tt->elem_type : 0;
    if (!tt->shape || tt->shape->n_dim > OE_MAX_RANK) return -1;
    for (size_t i = 0; i < tt->shape->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[i];
        if (dm->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE || dm->dim_value < 0) return -1;
        dims[i] = dm->dim_value;
    }
    return (int)tt->shape->n_dim;
}

int opt_elem_type_of(const Onnx__TypeProto *tp)
{
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
        !tp->tensor_type->has_elem_type)
        return 0;
    return tp->tensor_type->elem_type;
}

/* Element type of a value: declared type, else constant's dtype, else inferred; 0 if unknown. */
int opt_scope_elem(scope *s, const char *name)
{
    int et = opt_elem_type_of(opt_scope_type(s, name));
    if (et) return et;
    for (scope *p = s; p; p = p->parent) {
        cval *v = hm_get(&p->vals, name);
        if (v) {
            if (v->not_const) break;
            if (v->t) return v->t->dtype;
            if (v->proto && v->proto->has_data_type) return v->proto->data_type;
            break;
        }
    }
    for (scope *p = s; p; p = p->parent) {
        uintptr_t e = (uintptr_t)hm_get(&p->elems, name);
        if (e) return (int)e;
    }
    return 0;
}

/* Records the element type of n's output when the rules of its op give it: a light stand-in for
 * ONNX type inference, enough for CastLike and Cast to see their input types. */
void opt_infer_elem(scope *s, const Onnx__NodeProto *n)
{
    static const char *const same_as_first[] = {
        "Identity", "Reshape", "Unsqueeze", "Squeeze", "Transpose", "Expand", "Slice", "Gather",
        "GatherElements", "GatherND", "Concat", "Flatten", "Add", "Sub", "Mul", "Div", "Pow", "Neg",
        "Abs", "Relu", "Sqrt", "Exp", "Log", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "MatMul",
        "Gemm", "Conv", "ConvTranspose", "MaxPool", "AveragePool", "ReduceSum", "ReduceMean",
        "ReduceMax", "ReduceMin", "Tile", "Pad", "Clip", "Min", "Max", "Erf", "Gelu", "Trilu",
        "LayerNormalization", "BatchNormalization", "Resize", "ScatterND", "ScatterElements",
        "Split", "Floor", "Ceil", "Reciprocal", "InstanceNormalization", "GroupNormalization",
        "LeakyRelu", "Elu", "Selu", "HardSigmoid", "Softplus", "Sin", "Cos", "CumSum", "Round",
        "Sign", "Mod", "ReduceProd", "ReduceL2", "DepthToSpace", "SpaceToDepth", "GlobalAveragePool",
        "GlobalMaxPool", "PRelu", "Celu", "HardSwish", "Mish", "Einsum", "TopK", "Sum", "Mean", NULL};
    if (s->no_infer || !opt_is_default_domain(n->domain) || !n->n_output || !*opt_str(n->output[0])) return;
    const char *op = opt_str(n->op_type);
    int et = 0;
    if (!strcmp(op, "Cast")) {
        Onnx__AttributeProto *to = ox_node_attr(n, "to");
        et = to && to->has_i ? (int)to->i : 0;
    } else if (!strcmp(op, "CastLike") && n->n_input == 2) {
        et = opt_scope_elem(s, opt_str(n->input[1]));
    } else if (!strcmp(op, "Shape") || !strcmp(op, "Size")) {
        et = 7;
    } else if (!strcmp(op, "Equal") || !strcmp(op, "Less") || !strcmp(op, "Greater") ||
               !strcmp(op, "LessOrEqual") || !strcmp(op, "GreaterOrEqual") || !strcmp(op, "Not") ||
               !strcmp(op, "And") || !strcmp(op, "Or") || !strcmp(op, "IsNaN")) {
        et = 9;
    } else if (!strcmp(op, "Where") && n->n_input == 3) {
        et = opt_scope_elem(s, opt_str(n->input[1]));
    } else if (n->n_input) {
        for (size_t i = 0; same_as_first[i]; i++)
            if (!strcmp(op, same_as_first[i])) {
                et = opt_scope_elem(s, opt_str(n->input[0]));
                break;
            }
    }
    if (et <= 0) return;
    size_t nout = !strcmp(op, "Split") ? n->n_output : 1;
    for (size_t k = 0; k < nout; k++)
        if (*opt_str(n->output[k]) && !opt_scope_type(s, n->output[k])) hm_put(&s->elems, n->output[k], (void *)(uintptr_t)et);
}

/* The key of a function by domain, name and overload (a model's functions and calls). */
const char *opt_func_key(arena *a, const char *domain, const char *name, const char *overload)
{
    return arena_printf(a, "%s\x1f%s\x1f%s", opt_str(domain), opt_str(name), opt_str(overload));
}

/* The int64 values of a constant shape operand, or -1. */
int opt_const_ints(scope *s, const char *name, int64_t *v, int cap)
{
    cval *cv = opt_scope_val(s, name);
    if (!cv || cv->not_const || !cv->proto) return -1;
    oe_tensor t;
    if (ot_from_proto(cv->proto, cap, &t) != OE_OK) return -1;
    int n = -1;
    if (t.rank == 1 && t.dtype == 7 && t.numel <= cap) {
        n = (int)t.numel;
        for (int i = 0; i < n; i++) v[i] = ot_get_i(&t, i);
    }
    ot_tensor_free(&t);
    return n;
}

/* ox_graph_walk callback: adds each node input of g to the use counts in ctx (a hashmap). */
int opt_count_uses(Onnx__GraphProto *g, int depth, void *ctx)
{
    (void)depth;
    hashmap *uses = ctx;
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_input; k++) {
            const char *in = opt_str(g->node[i]->input[k]);
            if (*in) hm_put(uses, in, (void *)((uintptr_t)hm_get(uses, in) + 1));
        }
    return 0;
}

/* Graph outputs (of any graph) count as uses too. */
int opt_count_output_uses(Onnx__GraphProto *g, int depth, void *ctx)
{
    (void)depth;
    hashmap *uses = ctx;
    for (size_t i = 0; i < g->n_output; i++) {
        const char *nm = opt_str(g->output[i]->name);
        if (*nm) hm_put(uses, nm, (void *)((uintptr_t)hm_get(uses, nm) + 1));
    }
    return 0;
}
