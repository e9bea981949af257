/* optimize.c — ONNX optimizer passes (inline, fold, lift, DCE, dedup, CSE, no-op removal). */
#include "passes/optimize.h"

#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "onnx/onnx_eval.h"

static const char *S(const char *s) { return s ? s : ""; }
static bool is_default_domain(const char *d) { return !d || !*d || !strcmp(d, "ai.onnx"); }
static bool is_op(const Onnx__NodeProto *n, const char *op)
{
    return is_default_domain(n->domain) && n->op_type && !strcmp(n->op_type, op);
}

void optimize_options_default(optimize_options *o)
{
    memset(o, 0, sizeof *o);
    o->fold_output_limit = 512 * 512;
    o->fold_input_limit = 8192;
    o->max_depth = 64;
    o->inline_functions = o->fold = o->dce = o->dedup = o->cse = o->remove_noops = o->lift =
        o->rewrite = true;
}

static const optimize_options *opts_or_default(const optimize_options *o, optimize_options *buf)
{
    if (o) return o;
    optimize_options_default(buf);
    return buf;
}

static void too_deep(diag_sink *d, int max_depth)
{
    if (d) {
        diagnostic *dg = diag_error(d, (diag_loc){0}, "subgraphs nested deeper than %d levels", max_depth);
        diag_set_hint(dg, "the optimizer leaves such models unchanged below that depth");
    }
}

/* ---- generic helpers ----------------------------------------------------------------------- */

/* Calls fn on every graph attribute of node n. */
#define FOR_SUBGRAPHS(n, var, body)                                                          \
    do {                                                                                     \
        for (size_t fs_j_ = 0; fs_j_ < (n)->n_attribute; fs_j_++) {                           \
            Onnx__AttributeProto *fs_a_ = (n)->attribute[fs_j_];                              \
            if (fs_a_->g) {                                                                  \
                Onnx__GraphProto *var = fs_a_->g;                                            \
                body;                                                                        \
            }                                                                                \
            for (size_t fs_k_ = 0; fs_k_ < fs_a_->n_graphs; fs_k_++) {                        \
                Onnx__GraphProto *var = fs_a_->graphs[fs_k_];                                \
                body;                                                                        \
            }                                                                                \
        }                                                                                    \
    } while (0)

/* Follows a rename chain (bounded, in case of a malformed cycle). */
static const char *resolve(const hashmap *ren, const char *name)
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
static void rename_uses(Onnx__GraphProto *g, const hashmap *ren, bool outputs, int depth, int max_depth)
{
    if (!ren->len || depth > max_depth) return;
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        for (size_t k = 0; k < n->n_input; k++) n->input[k] = (char *)resolve(ren, n->input[k]);
        FOR_SUBGRAPHS(n, sg, rename_uses(sg, ren, true, depth + 1, max_depth));
    }
    if (outputs)
        for (size_t i = 0; i < g->n_output; i++)
            if (g->output[i]->name) g->output[i]->name = (char *)resolve(ren, g->output[i]->name);
}

/* Removes the nodes flagged in dead[] keeping order. */
static size_t compact_nodes(Onnx__GraphProto *g, const bool *dead)
{
    size_t k = 0, removed = 0;
    for (size_t i = 0; i < g->n_node; i++) {
        if (dead[i]) removed++;
        else g->node[k++] = g->node[i];
    }
    g->n_node = k;
    return removed;
}

static void graph_outputs(const Onnx__GraphProto *g, hashmap *set)
{
    for (size_t i = 0; i < g->n_output; i++)
        if (g->output[i]->name) hm_put(set, g->output[i]->name, (void *)1);
}

/* Collects every value name defined anywhere in g (inputs, initializers, node outputs). */
static void collect_names(Onnx__GraphProto *g, hashmap *set, int depth, int max_depth)
{
    if (depth > max_depth) return;
    for (size_t i = 0; i < g->n_input; i++)
        if (g->input[i]->name) hm_put(set, g->input[i]->name, (void *)1);
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name) hm_put(set, g->initializer[i]->name, (void *)1);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        for (size_t k = 0; k < n->n_output; k++)
            if (*S(n->output[k])) hm_put(set, n->output[k], (void *)1);
        if (n->name && *n->name) hm_put(set, n->name, (void *)1);
        FOR_SUBGRAPHS(n, sg, collect_names(sg, set, depth + 1, max_depth));
    }
}

/* A name not yet in `taken` (which then holds it), built from base; lives in m's arena. */
static char *fresh_name(ox_model *m, hashmap *taken, const char *base)
{
    char *s = ox_strdup(m, base);
    for (int i = 1; hm_has(taken, s); i++) s = arena_printf(&m->arena, "%s_%d", base, i);
    hm_put(taken, s, (void *)1);
    return s;
}

static void *deep_copy(ox_model *m, const ProtobufCMessage *msg,
                       void *(*unpack)(ProtobufCAllocator *, size_t, const uint8_t *))
{
    size_t len = protobuf_c_message_get_packed_size(msg);
    uint8_t *buf = xmalloc(len ? len : 1);
    protobuf_c_message_pack(msg, buf);
    void *r = unpack(&m->alloc, len, buf);
    free(buf);
    return r;
}

static Onnx__NodeProto *node_copy(ox_model *m, const Onnx__NodeProto *n)
{
    return deep_copy(m, &n->base, (void *(*)(ProtobufCAllocator *, size_t, const uint8_t *))
                                      onnx__node_proto__unpack);
}
static Onnx__AttributeProto *attr_copy(ox_model *m, const Onnx__AttributeProto *a)
{
    return deep_copy(m, &a->base, (void *(*)(ProtobufCAllocator *, size_t, const uint8_t *))
                                      onnx__attribute_proto__unpack);
}

/* ---- 1. inlining --------------------------------------------------------------------------- */

typedef struct inl_ctx {
    ox_model *m;
    const optimize_options *o;
    optimize_stats *st;
    diag_sink *d;
    hashmap funcs;    /* "domain\x1fname\x1foverload" → FunctionProto */
    hashmap taken;    /* every name in the model */
    hashmap active;   /* functions being expanded right now (recursion guard) */
    int64_t budget;   /* nodes inlining may still create */
    arena tmp;
    int err;
} inl_ctx;

/* Upper bound on nodes created by inlining, so that functions calling functions several times
 * over cannot blow up exponentially. */
#define OPT_INLINE_BUDGET ((int64_t)1 << 22)

static const char *func_key(arena *a, const char *domain, const char *name, const char *overload)
{
    return arena_printf(a, "%s\x1f%s\x1f%s", S(domain), S(name), S(overload));
}

/* Renames every name of a copied function body (inputs, outputs, inner definitions) and
 * substitutes attribute references; recursive into subgraphs. */
static void inl_subst(inl_ctx *c, Onnx__NodeProto *n, const hashmap *ren,
                      const Onnx__NodeProto *call, const Onnx__FunctionProto *f, int depth);

static void inl_subst_graph(inl_ctx *c, Onnx__GraphProto *g, const hashmap *ren,
                            const Onnx__NodeProto *call, const Onnx__FunctionProto *f, int depth)
{
    if (depth > c->o->max_depth) return;
    for (size_t i = 0; i < g->n_input; i++)
        g->input[i]->name = (char *)resolve(ren, g->input[i]->name);
    for (size_t i = 0; i < g->n_output; i++)
        g->output[i]->name = (char *)resolve(ren, g->output[i]->name);
    for (size_t i = 0; i < g->n_value_info; i++)
        g->value_info[i]->name = (char *)resolve(ren, g->value_info[i]->name);
    for (size_t i = 0; i < g->n_initializer; i++)
        g->initializer[i]->name = (char *)resolve(ren, g->initializer[i]->name);
    for (size_t i = 0; i < g->n_node; i++) inl_subst(c, g->node[i], ren, call, f, depth + 1);
}

static void inl_subst(inl_ctx *c, Onnx__NodeProto *n, const hashmap *ren,
                      const Onnx__NodeProto *call, const Onnx__FunctionProto *f, int depth)
{
    for (size_t k = 0; k < n->n_input; k++)
        if (*S(n->input[k])) n->input[k] = (char *)resolve(ren, n->input[k]);
    for (size_t k = 0; k < n->n_output; k++)
        if (*S(n->output[k])) n->output[k] = (char *)resolve(ren, n->output[k]);
    size_t w = 0;
    for (size_t j = 0; j < n->n_attribute; j++) {
        Onnx__AttributeProto *a = n->attribute[j];
        if (a->ref_attr_name && *a->ref_attr_name) {
            const Onnx__AttributeProto *v = ox_node_attr(call, a->ref_attr_name);
            for (size_t q = 0; !v && q < f->n_attribute_proto; q++)
                if (!strcmp(S(f->attribute_proto[q]->name), a->ref_attr_name)) v = f->attribute_proto[q];
            if (!v) continue;   /* unset optional attribute: drop it */
            char *name = a->name;
            a = attr_copy(c->m, v);
            a->name = name;
        }
        n->attribute[w++] = a;
        if (a->g) inl_subst_graph(c, a->g, ren, call, f, depth);
        for (size_t k = 0; k < a->n_graphs; k++) inl_subst_graph(c, a->graphs[k], ren, call, f, depth);
    }
    n->n_attribute = w;
}

typedef VEC(Onnx__NodeProto *) node_vec;

static void inl_graph(inl_ctx *c, Onnx__GraphProto *g, int depth);

/* Appends node n to out, expanding it if it calls a local function. */
static void inl_node(inl_ctx *c, Onnx__NodeProto *n, node_vec *out, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) too_deep(c->d, c->o->max_depth);
        c->err = 1;
        vec_push(out, n);
        return;
    }
    FOR_SUBGRAPHS(n, sg, inl_graph(c, sg, depth + 1));
    const Onnx__FunctionProto *f =
        is_default_domain(n->domain) ? NULL
                                     : hm_get(&c->funcs, func_key(&c->tmp, n->domain, n->op_type, n->overload));
    if (!f) {
        vec_push(out, n);
        return;
    }
    const char *fkey = func_key(&c->tmp, f->domain, f->name, f->overload);
    if (hm_has(&c->active, fkey) || c->budget < (int64_t)f->n_node) {
        if (!c->err && c->d) {
            diagnostic *dg = diag_error(c->d, (diag_loc){0}, hm_has(&c->active, fkey)
                                        ? "function '%s.%s' calls itself: it cannot be inlined"
                                        : "inlining '%s.%s' would create too many nodes",
                                        S(f->domain), S(f->name));
            diag_set_hint(dg, "the call is left in place");
        }
        c->err = 1;
        vec_push(out, n);
        return;
    }
    c->budget -= (int64_t)f->n_node;
    c->st->inlined++;
    /* Names inside the body get the call's name as a prefix so they stay unique. */
    const char *prefix = *S(n->name) ? n->name : S(f->name);
    hashmap ren;
    hm_init(&ren);
    for (size_t i = 0; i < f->n_input; i++)
        hm_put(&ren, f->input[i], i < n->n_input ? n->input[i] : "");
    for (size_t i = 0; i < f->n_output; i++)
        hm_put(&ren, f->output[i], i < n->n_output ? n->output[i] : "");
    node_vec body = {0};
    for (size_t i = 0; i < f->n_node; i++) {
        Onnx__NodeProto *b = node_copy(c->m, f->node[i]);
        vec_push(&body, b);
        hashmap defs;
        hm_init(&defs);
        Onnx__GraphProto tmpg = ONNX__GRAPH_PROTO__INIT;
        tmpg.n_node = 1;
        tmpg.node = &body.items[body.len - 1];
        collect_names(&tmpg, &defs, 0, c->o->max_depth);
        for (size_t s = 0; s < defs.cap; s++) {
            const char *nm = defs.slots[s].key;
            if (!nm || hm_has(&ren, nm)) continue;
            if (b->name && !strcmp(nm, b->name)) continue;
            hm_put(&ren, nm, fresh_name(c->m, &c->taken, arena_printf(&c->tmp, "%s__%s", prefix, nm)));
        }
        hm_free(&defs);
        if (*S(b->name)) b->name = fresh_name(c->m, &c->taken, arena_printf(&c->tmp, "%s__%s", prefix, b->name));
    }
    for (size_t i = 0; i < body.len; i++) inl_subst(c, body.items[i], &ren, n, f, depth);
    hm_free(&ren);
    /* The body may call other functions, and its subgraphs may hold calls too. */
    hm_put(&c->active, fkey, (void *)1);
    for (size_t i = 0; i < body.len; i++) inl_node(c, body.items[i], out, depth + 1);
    hm_remove(&c->active, fkey);
    vec_free(&body);
}

static void inl_graph(inl_ctx *c, Onnx__GraphProto *g, int depth)
{
    node_vec out = {0};
    bool any = false;
    for (size_t i = 0; i < g->n_node; i++) {
        size_t before = c->st->inlined;
        inl_node(c, g->node[i], &out, depth);
        any |= c->st->inlined != before;
    }
    if (any) {
        g->node = ox_alloc(c->m, out.len * sizeof *g->node);
        memcpy(g->node, out.items, out.len * sizeof *g->node);
        g->n_node = out.len;
    }
    vec_free(&out);
}

int opt_inline_functions(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opts_or_default(o, &ob);
    if (!st) st = &sb;
    Onnx__ModelProto *p = m->proto;
    if (!p->graph || !p->n_functions) return 0;
    inl_ctx c = {.m = m, .o = o, .st = st, .d = d, .budget = OPT_INLINE_BUDGET};
    hm_init(&c.funcs);
    hm_init(&c.taken);
    hm_init(&c.active);
    arena_init(&c.tmp);
    for (size_t i = 0; i < p->n_functions; i++) {
        Onnx__FunctionProto *f = p->functions[i];
        hm_put(&c.funcs, func_key(&c.tmp, f->domain, f->name, f->overload), f);
    }
    collect_names(p->graph, &c.taken, 0, o->max_depth);
    inl_graph(&c, p->graph, 0);
    /* Inlined bodies bring their own opset imports. */
    for (size_t i = 0; i < p->n_functions; i++)
        for (size_t k = 0; k < p->functions[i]->n_opset_import; k++) {
            Onnx__OperatorSetIdProto *op = p->functions[i]->opset_import[k];
            if (ox_model_opset(m, op->domain) < 0) ox_model_set_opset(m, op->domain, op->version);
        }
    hm_free(&c.funcs);
    hm_free(&c.taken);
    hm_free(&c.active);
    arena_free(&c.tmp);
    return c.err ? -1 : 0;
}

/* ---- scopes: types and constant values visible in a graph -------------------------------- */

typedef struct cval {
    const Onnx__TensorProto *proto;  /* initializer or Constant value, or NULL */
    oe_tensor *t;                    /* evaluated value (owned by the fold context) */
    bool not_const;                  /* a graph input shadowing an outer constant, or unreadable */
} cval;

typedef struct scope {
    struct scope *parent;
    hashmap types;    /* name → Onnx__TypeProto */
    hashmap vals;     /* name → cval */
    hashmap elems;    /* name → inferred element type (uintptr_t) for values without a type */
    bool no_infer;    /* inside a SequenceMap body: ONNX Runtime types its values from the
                         body's own nodes, so nothing may be folded away on inferred types */
} scope;

static void scope_init(scope *s, scope *parent, Onnx__GraphProto *g, arena *a)
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

static void scope_free(scope *s)
{
    hm_free(&s->types);
    hm_free(&s->vals);
    hm_free(&s->elems);
}

static cval *scope_val(scope *s, const char *name)
{
    for (; s; s = s->parent) {
        cval *v = hm_get(&s->vals, name);
        if (v) return v;
    }
    return NULL;
}

static const Onnx__TypeProto *scope_type(scope *s, const char *name)
{
    for (; s; s = s->parent) {
        const Onnx__TypeProto *t = hm_get(&s->types, name);
        if (t) return t;
    }
    return NULL;
}

/* The static shape of a tensor type, or -1 if it is not fully known. */
static int static_shape(const Onnx__TypeProto *tp, int64_t *dims, int *elem)
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

static int elem_type_of(const Onnx__TypeProto *tp)
{
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
        !tp->tensor_type->has_elem_type)
        return 0;
    return tp->tensor_type->elem_type;
}

/* Element type of a value: declared type, else constant's dtype, else inferred; 0 if unknown. */
static int scope_elem(scope *s, const char *name)
{
    int et = elem_type_of(scope_type(s, name));
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
static void infer_elem(scope *s, const Onnx__NodeProto *n)
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
    if (s->no_infer || !is_default_domain(n->domain) || !n->n_output || !*S(n->output[0])) return;
    const char *op = S(n->op_type);
    int et = 0;
    if (!strcmp(op, "Cast")) {
        Onnx__AttributeProto *to = ox_node_attr(n, "to");
        et = to && to->has_i ? (int)to->i : 0;
    } else if (!strcmp(op, "CastLike") && n->n_input == 2) {
        et = scope_elem(s, S(n->input[1]));
    } else if (!strcmp(op, "Shape") || !strcmp(op, "Size")) {
        et = 7;
    } else if (!strcmp(op, "Equal") || !strcmp(op, "Less") || !strcmp(op, "Greater") ||
               !strcmp(op, "LessOrEqual") || !strcmp(op, "GreaterOrEqual") || !strcmp(op, "Not") ||
               !strcmp(op, "And") || !strcmp(op, "Or") || !strcmp(op, "IsNaN")) {
        et = 9;
    } else if (!strcmp(op, "Where") && n->n_input == 3) {
        et = scope_elem(s, S(n->input[1]));
    } else if (n->n_input) {
        for (size_t i = 0; same_as_first[i]; i++)
            if (!strcmp(op, same_as_first[i])) {
                et = scope_elem(s, S(n->input[0]));
                break;
            }
    }
    if (et <= 0) return;
    size_t nout = !strcmp(op, "Split") ? n->n_output : 1;
    for (size_t k = 0; k < nout; k++)
        if (*S(n->output[k]) && !scope_type(s, n->output[k])) hm_put(&s->elems, n->output[k], (void *)(uintptr_t)et);
}

/* ---- 2. constant folding ------------------------------------------------------------------- */

typedef struct fold_ctx {
    ox_model *m;
    const optimize_options *o;
    optimize_stats *st;
    diag_sink *d;
    int64_t opset;
    arena tmp;
    VEC(oe_tensor *) owned;
    hashmap uses;     /* value name → number of node inputs reading it, model-wide */
    int err;
} fold_ctx;

static int count_uses(Onnx__GraphProto *g, int depth, void *ctx)
{
    (void)depth;
    hashmap *uses = ctx;
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_input; k++) {
            const char *in = S(g->node[i]->input[k]);
            if (*in) hm_put(uses, in, (void *)((uintptr_t)hm_get(uses, in) + 1));
        }
    return 0;
}

/* Graph outputs (of any graph) count as uses too. */
static int count_output_uses(Onnx__GraphProto *g, int depth, void *ctx)
{
    (void)depth;
    hashmap *uses = ctx;
    for (size_t i = 0; i < g->n_output; i++) {
        const char *nm = S(g->output[i]->name);
        if (*nm) hm_put(uses, nm, (void *)((uintptr_t)hm_get(uses, nm) + 1));
    }
    return 0;
}

static size_t uses_of(fold_ctx *c, const char *name)
{
    return (size_t)(uintptr_t)hm_get(&c->uses, name);
}

/* Element count of a constant without materializing it; -1 if unknown or not constant. */
static int64_t const_numel(scope *s, const char *name)
{
    cval *v = scope_val(s, name);
    if (!v || v->not_const) return -1;
    if (v->t) return v->t->numel;
    return v->proto ? ox_tensor_numel(v->proto) : -1;
}

static oe_tensor *new_owned(fold_ctx *c)
{
    oe_tensor *t = xcalloc(1, sizeof *t);
    vec_push(&c->owned, t);
    return t;
}

static oe_tensor *const_of(fold_ctx *c, scope *s, const char *name)
{
    cval *v = scope_val(s, name);
    if (!v || v->not_const) return NULL;
    if (v->t) return v->t;
    if (!v->proto) return NULL;
    oe_tensor tmp;
    if (oe_from_proto(v->proto, 0, &tmp) != OE_OK) {
        v->not_const = true;
        return NULL;
    }
    v->t = new_owned(c);
    *v->t = tmp;
    return v->t;
}

/* Turns n into `Constant <value = t>` producing its first output. */
static void make_constant(fold_ctx *c, Onnx__NodeProto *n, const oe_tensor *t)
{
    Onnx__TensorProto *p = oe_to_proto(c->m, t, n->output[0]);
    n->op_type = ox_strdup(c->m, "Constant");
    n->domain = ox_strdup(c->m, "");
    n->overload = NULL;
    n->n_input = 0;
    n->n_attribute = 0;
    n->attribute = NULL;
    n->n_output = 1;
    ox_attr_tensor(c->m, n, "value", p);
}

static void fold_graph(fold_ctx *c, Onnx__GraphProto *g, scope *parent, int depth);

static void fold_node(fold_ctx *c, Onnx__NodeProto *n, scope *s, int depth)
{
    if (ox_node_has_subgraph(n)) {
        bool saved = s->no_infer;
        s->no_infer |= is_op(n, "SequenceMap");
        FOR_SUBGRAPHS(n, sg, fold_graph(c, sg, s, depth + 1));
        s->no_infer = saved;
        return;
    }
    if (!is_default_domain(n->domain) || !n->op_type || n->n_output != 1 || !*S(n->output[0]))
        return;
    const char *out = n->output[0];
    if (!strcmp(n->op_type, "Constant")) {
        if (n->n_attribute == 1 && n->attribute[0]->t && !strcmp(S(n->attribute[0]->name), "value")) {
            cval *v = arena_alloc(&c->tmp, sizeof *v);
            v->proto = n->attribute[0]->t;
            hm_put(&s->vals, out, v);
            return;
        }
        oe_tensor r;
        if (oe_eval_node(n, c->opset, NULL, 0, &r, 1, NULL) == OE_OK) {
            /* value_ints / value_float ... become the `value` tensor form, which every later
             * pass reads (the lifted initializer is the same either way). */
            cval *v = arena_alloc(&c->tmp, sizeof *v);
            v->t = new_owned(c);
            *v->t = r;
            make_constant(c, n, v->t);
            v->proto = n->attribute[0]->t;
            hm_put(&s->vals, out, v);
        }
        return;
    }
    if (!oe_op_supported(n->op_type)) return;
    /* Like onnxscript: ConstantOfShape stays (folding it only grows the model). */
    if (!strcmp(n->op_type, "ConstantOfShape") && !c->o->fold_constant_of_shape) return;
    oe_tensor shape_src, *inputs[16] = {0};
    if (n->n_input > 16) return;
    if ((!strcmp(n->op_type, "Shape") || !strcmp(n->op_type, "Size")) && n->n_input == 1) {
        /* Only the shape is needed: from a constant's dims (whatever its size or storage) or
         * from a fully static type. The kernels never read shape_src's data. */
        int64_t dims[OE_MAX_RANK];
        int rank = -1;
        cval *v = scope_val(s, S(n->input[0]));
        if (v && !v->not_const && v->t) {
            rank = v->t->rank;
            memcpy(dims, v->t->dims, sizeof dims);
        } else if (v && !v->not_const && v->proto && v->proto->n_dims <= OE_MAX_RANK) {
            rank = (int)v->proto->n_dims;
            for (int i = 0; i < rank; i++) dims[i] = v->proto->dims[i];
        } else {
            rank = static_shape(scope_type(s, S(n->input[0])), dims, NULL);
            if (rank < 0 && !strcmp(n->op_type, "Shape")) {
                /* Shape <start, end> needs only the dims it slices to be static. */
                const Onnx__TypeProto *tp = scope_type(s, S(n->input[0]));
                const Onnx__TensorShapeProto *sh =
                    tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type
                        ? tp->tensor_type->shape : NULL;
                if (!sh || sh->n_dim > OE_MAX_RANK) return;
                int r = (int)sh->n_dim;
                Onnx__AttributeProto *st = ox_node_attr(n, "start"), *en = ox_node_attr(n, "end");
                int64_t a = st ? st->i : 0, b = en ? en->i : r;
                if (a < 0) a += r;
                if (b < 0) b += r;
                a = a < 0 ? 0 : a > r ? r : a;
                b = b < 0 ? 0 : b > r ? r : b;
                for (int i = 0; i < r; i++) {
                    const Onnx__TensorShapeProto__Dimension *dm = sh->dim[i];
                    bool known = dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                                 dm->dim_value >= 0;
                    if (!known && i >= a && i < b) return;
                    dims[i] = known ? dm->dim_value : 1;   /* outside the slice: never read */
                }
                rank = r;
            }
        }
        if (rank < 0) return;
        memset(&shape_src, 0, sizeof shape_src);
        shape_src.dtype = 9;
        shape_src.rank = rank;
        for (int i = 0; i < rank; i++) {
            if (dims[i] < 0) return;
            shape_src.dims[i] = dims[i];
        }
        inputs[0] = &shape_src;
        goto evaluate;
    }
    bool all = true;
    for (size_t i = 0; i < n->n_input; i++) {
        if (!*S(n->input[i])) continue;
        int64_t numel = const_numel(s, n->input[i]);
        if (numel < 0) {
            all = false;
            continue;
        }
        /* Large constants are read only by a Transpose that is their sole consumer (the
         * transposed copy replaces the original). */
        if (numel > c->o->fold_input_limit &&
            !(!strcmp(n->op_type, "Transpose") && uses_of(c, n->input[i]) == 1))
            return;
        inputs[i] = const_of(c, s, n->input[i]);
        if (!inputs[i]) all = false;
    }
    if (!all && !strcmp(n->op_type, "CastLike") && n->n_input == 2 && inputs[0] && !inputs[1]) {
        /* CastLike only needs the element type of its second input. */
        int et = scope_elem(s, n->input[1]);
        if (!oe_dtype_supported(et)) return;
        memset(&shape_src, 0, sizeof shape_src);
        shape_src.dtype = et;
        inputs[1] = &shape_src;
        all = true;
    }
    if (!all) return;
evaluate:;
    oe_tensor r;
    diag_sink ed;
    diag_init(&ed);
    int rc = oe_eval_node(n, c->opset, inputs, n->n_input, &r, 1, &ed);
    if (rc == OE_ERROR && c->d && ed.len) {
        /* The model would fail here at run time; folding is not the place to stop it. */
        diagnostic *dg = diag_warning(c->d, (diag_loc){0}, "%s", ed.items[0].message);
        diag_set_hint(dg, "the node is left unfolded");
    }
    diag_free(&ed);
    if (rc != OE_OK) return;
    if (r.numel > c->o->fold_output_limit) {
        /* Still worth it when the inputs it replaces (used only here) are as large. */
        int64_t freed = 0;
        for (size_t i = 0; i < n->n_input; i++)
            if (inputs[i] && inputs[i] != &shape_src && uses_of(c, n->input[i]) == 1) freed += inputs[i]->numel;
        if (r.numel > freed) {
            oe_tensor_free(&r);
            return;
        }
    }
    oe_tensor *t = new_owned(c);
    *t = r;
    make_constant(c, n, t);
    cval *v = arena_alloc(&c->tmp, sizeof *v);
    v->t = t;
    v->proto = n->attribute[0]->t;
    hm_put(&s->vals, out, v);
    c->st->folded++;
}

static void fold_graph(fold_ctx *c, Onnx__GraphProto *g, scope *parent, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) too_deep(c->d, c->o->max_depth);
        c->err = 1;
        return;
    }
    scope s;
    scope_init(&s, parent, g, &c->tmp);
    for (size_t i = 0; i < g->n_node; i++) {
        fold_node(c, g->node[i], &s, depth);
        infer_elem(&s, g->node[i]);
    }
    scope_free(&s);
}

int opt_fold_constants(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opts_or_default(o, &ob);
    if (!st) st = &sb;
    if (!m->proto->graph) return 0;
    fold_ctx c = {.m = m, .o = o, .st = st, .d = d, .opset = ox_model_opset(m, "")};
    arena_init(&c.tmp);
    hm_init(&c.uses);
    ox_graph_walk(m->proto->graph, o->max_depth, count_uses, &c.uses);
    fold_graph(&c, m->proto->graph, NULL, 0);
    hm_free(&c.uses);
    for (size_t i = 0; i < c.owned.len; i++) {
        oe_tensor_free(c.owned.items[i]);
        free(c.owned.items[i]);
    }
    vec_free(&c.owned);
    arena_free(&c.tmp);
    return c.err ? -1 : 0;
}

/* ---- lifting constants and subgraph initializers ------------------------------------------ */

typedef struct lift_ctx {
    ox_model *m;
    const optimize_options *o;
    optimize_stats *st;
    diag_sink *d;
    hashmap taken;
    arena tmp;
    int err;
} lift_ctx;

static Onnx__TensorProto *constant_tensor(lift_ctx *c, Onnx__NodeProto *n)
{
    if (n->n_attribute != 1 || n->n_output != 1 || !*S(n->output[0])) return NULL;
    Onnx__AttributeProto *a = n->attribute[0];
    if (a->ref_attr_name) return NULL;
    if (!strcmp(S(a->name), "value") && a->t) {
        Onnx__TensorProto *t = a->t;
        if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
            return NULL;
        t->name = n->output[0];
        return t;
    }
    oe_tensor r;
    if (oe_eval_node(n, 0, NULL, 0, &r, 1, NULL) != OE_OK) return NULL;
    Onnx__TensorProto *t = oe_to_proto(c->m, &r, n->output[0]);
    oe_tensor_free(&r);
    return t;
}

static void lift_graph(lift_ctx *c, Onnx__GraphProto *g, Onnx__GraphProto *main, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) too_deep(c->d, c->o->max_depth);
        c->err = 1;
        return;
    }
    hashmap outs, ren;
    hm_init(&outs);
    hm_init(&ren);
    graph_outputs(g, &outs);
    bool *dead = xcalloc(g->n_node + 1, 1);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        FOR_SUBGRAPHS(n, sg, lift_graph(c, sg, main, depth + 1));
        if (!is_op(n, "Constant") || hm_has(&outs, S(n->output[0]))) continue;
        Onnx__TensorProto *t = constant_tensor(c, n);
        if (!t) continue;
        ox_graph_add_initializer(c->m, main, t);
        dead[i] = true;
        c->st->lifted++;
    }
    compact_nodes(g, dead);
    free(dead);
    if (g != main && g->n_initializer) {
        /* Subgraph initializers move to the main graph (renamed if the name is taken there). */
        hashmap inputs;
        hm_init(&inputs);
        for (size_t i = 0; i < g->n_input; i++)
            if (g->input[i]->name) hm_put(&inputs, g->input[i]->name, (void *)1);
        size_t k = 0;
        for (size_t i = 0; i < g->n_initializer; i++) {
            Onnx__TensorProto *t = g->initializer[i];
            if (!t->name || hm_has(&inputs, t->name) || hm_has(&outs, t->name)) {
                g->initializer[k++] = t;
                continue;
            }
            hm_remove(&c->taken, t->name);
            char *nm = fresh_name(c->m, &c->taken, t->name);
            if (strcmp(nm, t->name)) hm_put(&ren, t->name, nm);
            t->name = nm;
            ox_graph_add_initializer(c->m, main, t);
            c->st->lifted++;
        }
        g->n_initializer = k;
        hm_free(&inputs);
        rename_uses(g, &ren, false, depth, c->o->max_depth);
    }
    hm_free(&outs);
    hm_free(&ren);
}

int opt_lift_constants(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opts_or_default(o, &ob);
    if (!st) st = &sb;
    if (!m->proto->graph) return 0;
    lift_ctx c = {.m = m, .o = o, .st = st, .d = d};
    hm_init(&c.taken);
    arena_init(&c.tmp);
    /* Names in the main graph are taken; a subgraph initializer keeps its name unless that
     * would collide with one of them. */
    Onnx__GraphProto *g = m->proto->graph;
    for (size_t i = 0; i < g->n_input; i++) hm_put(&c.taken, S(g->input[i]->name), (void *)1);
    for (size_t i = 0; i < g->n_initializer; i++) hm_put(&c.taken, S(g->initializer[i]->name), (void *)1);
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_output; k++) hm_put(&c.taken, S(g->node[i]->output[k]), (void *)1);
    lift_graph(&c, g, g, 0);
    hm_free(&c.taken);
    arena_free(&c.tmp);
    return c.err ? -1 : 0;
}

/* ---- 3. dead code -------------------------------------------------------------------------- */

typedef struct dce_ctx {
    ox_model *m;
    const optimize_options *o;
    optimize_stats *st;
    diag_sink *d;
    int err;
} dce_ctx;

/* Removes dead nodes and unused initializers of g; adds every name g still uses to outer. */
static void dce_graph(dce_ctx *c, Onnx__GraphProto *g, hashmap *outer, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) too_deep(c->d, c->o->max_depth);
        c->err = 1;
        /* Be conservative: treat everything below as used. */
        if (outer) collect_names(g, outer, 0, 1 << 20);
        return;
    }
    hashmap used;
    hm_init(&used);
    graph_outputs(g, &used);
    bool *dead = xcalloc(g->n_node + 1, 1);
    for (size_t i = g->n_node; i-- > 0;) {
        Onnx__NodeProto *n = g->node[i];
        bool live = false;
        for (size_t k = 0; k < n->n_output && !live; k++)
            live = *S(n->output[k]) && hm_has(&used, n->output[k]);
        if (!live) {
            dead[i] = true;
            continue;
        }
        for (size_t k = 0; k < n->n_input; k++)
            if (*S(n->input[k])) hm_put(&used, n->input[k], (void *)1);
        FOR_SUBGRAPHS(n, sg, dce_graph(c, sg, &used, depth + 1));
    }
    c->st->removed_nodes += (int64_t)compact_nodes(g, dead);
    free(dead);
    hashmap inputs;
    hm_init(&inputs);
    for (size_t i = 0; i < g->n_input; i++)
        if (g->input[i]->name) hm_put(&inputs, g->input[i]->name, (void *)1);
    size_t k = 0;
    for (size_t i = 0; i < g->n_initializer; i++) {
        Onnx__TensorProto *t = g->initializer[i];
        if (!t->name || hm_has(&used, t->name) || hm_has(&inputs, t->name)) g->initializer[k++] = t;
        else c->st->removed_initializers++;
    }
    g->n_initializer = k;
    /* value_info for values no longer produced is dropped; initializers keep theirs (torch's
     * optimized models list them, with their signature metadata). */
    hashmap produced;
    hm_init(&produced);
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name) hm_put(&produced, S(g->initializer[i]->name), (void *)1);
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t q = 0; q < g->node[i]->n_output; q++) hm_put(&produced, S(g->node[i]->output[q]), (void *)1);
    k = 0;
    for (size_t i = 0; i < g->n_value_info; i++)
        if (hm_has(&produced, S(g->value_info[i]->name))) g->value_info[k++] = g->value_info[i];
    g->n_value_info = k;
    hm_free(&produced);
    hm_free(&inputs);
    if (outer)
        for (size_t s = 0; s < used.cap; s++)
            if (used.slots[s].key) hm_put(outer, used.slots[s].key, (void *)1);
    hm_free(&used);
}

typedef struct dom_ctx {
    hashmap *domains;
    hashmap *fmap;    /* function key → index + 1 */
    bool *kept;
    VEC(size_t) work; /* functions found used but not yet scanned */
    arena *a;
} dom_ctx;

static void note_node(dom_ctx *dc, const Onnx__NodeProto *n)
{
    hm_put(dc->domains, S(n->domain), (void *)1);
    if (is_default_domain(n->domain)) return;
    uintptr_t fi = (uintptr_t)hm_get(dc->fmap, func_key(dc->a, n->domain, n->op_type, n->overload));
    if (fi && !dc->kept[fi - 1]) {
        dc->kept[fi - 1] = true;
        vec_push(&dc->work, fi - 1);
    }
}

static int note_graph(Onnx__GraphProto *g, int depth, void *ctx)
{
    (void)depth;
    for (size_t i = 0; i < g->n_node; i++) note_node(ctx, g->node[i]);
    return 0;
}

/* Marks function f (and everything it calls, through its nodes and their subgraphs) used. */
static void note_function(dom_ctx *dc, const Onnx__FunctionProto *f, int max_depth)
{
    for (size_t i = 0; i < f->n_node; i++) {
        note_node(dc, f->node[i]);
        FOR_SUBGRAPHS(f->node[i], sg, ox_graph_walk(sg, max_depth, note_graph, dc));
    }
}

int opt_remove_dead(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opts_or_default(o, &ob);
    if (!st) st = &sb;
    Onnx__ModelProto *p = m->proto;
    if (!p->graph) return 0;
    dce_ctx c = {.m = m, .o = o, .st = st, .d = d};
    dce_graph(&c, p->graph, NULL, 0);
    /* Functions reachable from the graph, transitively (a worklist: each is scanned once). */
    hashmap domains, fmap;
    hm_init(&domains);
    hm_init(&fmap);
    arena a;
    arena_init(&a);
    bool *kept = xcalloc(p->n_functions + 1, 1);
    for (size_t i = 0; i < p->n_functions; i++) {
        Onnx__FunctionProto *f = p->functions[i];
        hm_put(&fmap, func_key(&a, f->domain, f->name, f->overload), (void *)(uintptr_t)(i + 1));
    }
    dom_ctx dc = {.domains = &domains, .fmap = &fmap, .kept = kept, .a = &a};
    ox_graph_walk(p->graph, o->max_depth, note_graph, &dc);
    while (dc.work.len) note_function(&dc, p->functions[dc.work.items[--dc.work.len]], o->max_depth);
    vec_free(&dc.work);
    size_t k = 0;
    for (size_t i = 0; i < p->n_functions; i++) {
        if (kept[i]) {
            p->functions[k++] = p->functions[i];
            hm_put(&domains, S(p->functions[i]->domain), (void *)1);
        } else {
            st->removed_functions++;
        }
    }
    p->n_functions = k;
    k = 0;
    for (size_t i = 0; i < p->n_opset_import; i++) {
        const char *dom = S(p->opset_import[i]->domain);
        if (is_default_domain(dom) || hm_has(&domains, dom)) p->opset_import[k++] = p->opset_import[i];
    }
    p->n_opset_import = k;
    free(kept);
    hm_free(&domains);
    hm_free(&fmap);
    arena_free(&a);
    return c.err ? -1 : 0;
}

/* ---- 4a. initializer deduplication --------------------------------------------------------- */

typedef struct dd_entry {
    Onnx__TensorProto *t;
    uint8_t *bytes;
    size_t len;
    struct dd_entry *next;
} dd_entry;

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

int opt_dedup_initializers(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opts_or_default(o, &ob);
    if (!st) st = &sb;
    Onnx__GraphProto *g = m->proto->graph;
    if (!g) return 0;
    hashmap inputs, outs, seen, ren;
    hm_init(&inputs);
    hm_init(&outs);
    hm_init(&seen);
    hm_init(&ren);
    graph_outputs(g, &outs);
    for (size_t i = 0; i < g->n_input; i++)
        if (g->input[i]->name) hm_put(&inputs, g->input[i]->name, (void *)1);
    arena a;
    arena_init(&a);
    size_t k = 0;
    for (size_t i = 0; i < g->n_initializer; i++) {
        Onnx__TensorProto *t = g->initializer[i];
        if (!t->name || hm_has(&inputs, t->name) || hm_has(&outs, t->name)) {
            g->initializer[k++] = t;
            continue;
        }
        /* Identity of content = the serialized tensor without its name and doc string. */
        char *name = t->name, *doc = t->doc_string;
        t->name = NULL;
        t->doc_string = NULL;
        size_t len = onnx__tensor_proto__get_packed_size(t);
        uint8_t *bytes = arena_alloc(&a, len ? len : 1);
        onnx__tensor_proto__pack(t, bytes);
        t->name = name;
        t->doc_string = doc;
        char *key = arena_printf(&a, "%016llx", (unsigned long long)fnv(bytes, len));
        dd_entry *head = hm_get(&seen, key), *e;
        for (e = head; e; e = e->next)
            if (e->len == len && !memcmp(e->bytes, bytes, len)) break;
        if (e) {
            hm_put(&ren, t->name, e->t->name);
            st->deduped++;
            continue;
        }
        e = arena_alloc(&a, sizeof *e);
        *e = (dd_entry){t, bytes, len, head};
        hm_put(&seen, key, e);
        g->initializer[k++] = t;
    }
    g->n_initializer = k;
    rename_uses(g, &ren, false, 0, o->max_depth);
    hm_free(&inputs);
    hm_free(&outs);
    hm_free(&seen);
    hm_free(&ren);
    arena_free(&a);
    return 0;
}

/* ---- 4b. common subexpressions ------------------------------------------------------------- */

typedef struct cse_ctx {
    ox_model *m;
    const optimize_options *o;
    optimize_stats *st;
    diag_sink *d;
    arena tmp;
    int err;
} cse_ctx;

static bool nondeterministic(const Onnx__NodeProto *n)
{
    const char *op = S(n->op_type);
    return !is_default_domain(n->domain) || !strncmp(op, "Random", 6) || !strcmp(op, "Multinomial") ||
           !strcmp(op, "Bernoulli") || !strcmp(op, "Dropout");
}

static const char *cse_key(cse_ctx *c, const Onnx__NodeProto *n)
{
    strbuf sb;
    sb_init(&sb);
    sb_printf(&sb, "%s\x1f%s\x1f%s\x1f%zu", S(n->domain), S(n->op_type), S(n->overload), n->n_output);
    for (size_t i = 0; i < n->n_input; i++) sb_printf(&sb, "\x1e%s", S(n->input[i]));
    for (size_t j = 0; j < n->n_attribute; j++) {
        const Onnx__AttributeProto *a = n->attribute[j];
        size_t len = onnx__attribute_proto__get_packed_size(a);
        if (len > 65536) {
            sb_free(&sb);
            return NULL;
        }
        uint8_t *buf = xmalloc(len ? len : 1);
        onnx__attribute_proto__pack(a, buf);
        static const char hex[] = "0123456789abcdef";
        sb_putc(&sb, '\x1d');
        for (size_t q = 0; q < len; q++) {
            sb_putc(&sb, hex[buf[q] >> 4]);
            sb_putc(&sb, hex[buf[q] & 15]);
        }
        free(buf);
    }
    const char *key = arena_strdup(&c->tmp, sb.s);
    sb_free(&sb);
    return key;
}

static void cse_graph(cse_ctx *c, Onnx__GraphProto *g, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) too_deep(c->d, c->o->max_depth);
        c->err = 1;
        return;
    }
    hashmap seen, ren, outs;
    hm_init(&seen);
    hm_init(&ren);
    hm_init(&outs);
    graph_outputs(g, &outs);
    bool *dead = xcalloc(g->n_node + 1, 1);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        for (size_t k = 0; k < n->n_input; k++) n->input[k] = (char *)resolve(&ren, n->input[k]);
        if (ox_node_has_subgraph(n)) {
            FOR_SUBGRAPHS(n, sg, {
                rename_uses(sg, &ren, true, depth + 1, c->o->max_depth);
                cse_graph(c, sg, depth + 1);
            });
            continue;
        }
        if (!n->n_output || nondeterministic(n)) continue;
        const char *key = cse_key(c, n);
        if (!key) continue;
        Onnx__NodeProto *prev = hm_get(&seen, key);
        if (!prev) {
            hm_put(&seen, key, n);
            continue;
        }
        bool ok = true;
        for (size_t k = 0; k < n->n_output; k++)
            if (hm_has(&outs, S(n->output[k])) || (!*S(prev->output[k]) && *S(n->output[k]))) ok = false;
        if (!ok) continue;
        for (size_t k = 0; k < n->n_output; k++)
            if (*S(n->output[k])) hm_put(&ren, n->output[k], prev->output[k]);
        dead[i] = true;
        c->st->cse++;
    }
    compact_nodes(g, dead);
    free(dead);
    hm_free(&seen);
    hm_free(&ren);
    hm_free(&outs);
}

int opt_cse(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opts_or_default(o, &ob);
    if (!st) st = &sb;
    if (!m->proto->graph) return 0;
    cse_ctx c = {.m = m, .o = o, .st = st, .d = d};
    arena_init(&c.tmp);
    cse_graph(&c, m->proto->graph, 0);
    arena_free(&c.tmp);
    return c.err ? -1 : 0;
}

/* ---- 5. no-op removal ---------------------------------------------------------------------- */

typedef struct noop_ctx {
    ox_model *m;
    const optimize_options *o;
    optimize_stats *st;
    diag_sink *d;
    hashmap taken;    /* every name in the model, for new initializers */
    arena tmp;
    int err;
} noop_ctx;

/* The static int64 values of a constant shape operand, or -1. */
static int const_ints(scope *s, const char *name, int64_t *v, int cap)
{
    cval *cv = scope_val(s, name);
    if (!cv || cv->not_const || !cv->proto) return -1;
    oe_tensor t;
    if (oe_from_proto(cv->proto, cap, &t) != OE_OK) return -1;
    int n = -1;
    if (t.rank == 1 && t.dtype == 7 && t.numel <= cap) {
        n = (int)t.numel;
        for (int i = 0; i < n; i++) v[i] = oe_get_i(&t, i);
    }
    oe_tensor_free(&t);
    return n;
}

/* Rank of a tensor value's declared shape, or -1. */
static int value_rank(scope *s, const char *name)
{
    const Onnx__TypeProto *tp = scope_type(s, name);
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
        !tp->tensor_type->shape)
        return -1;
    return (int)tp->tensor_type->shape->n_dim;
}

/* x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 with a one-element constant that cannot broadcast x
 * to a new shape or type: returns the index of x, or -1. */
static int neutral_operand(const Onnx__NodeProto *n, scope *s)
{
    if (n->n_input != 2 || !*S(n->input[0]) || !*S(n->input[1])) return -1;
    double unit;
    bool commutes;
    if (is_op(n, "Add")) unit = 0, commutes = true;
    else if (is_op(n, "Sub")) unit = 0, commutes = false;
    else if (is_op(n, "Mul")) unit = 1, commutes = true;
    else if (is_op(n, "Div")) unit = 1, commutes = false;
    else return -1;
    for (int ci = 1; ci >= (commutes ? 0 : 1); ci--) {
        const char *cn = n->input[ci], *xn = n->input[1 - ci];
        cval *v = scope_val(s, cn);
        oe_tensor t;
        if (!v || v->not_const || !v->proto || oe_from_proto(v->proto, 1, &t) != OE_OK) continue;
        bool ok = t.numel == 1 && oe_get_f(&t, 0) == unit && t.dtype == scope_elem(s, xn) &&
                  (t.rank == 0 || value_rank(s, xn) >= t.rank);
        oe_tensor_free(&t);
        if (ok) return 1 - ci;
    }
    return -1;
}

/* The static shape of name: declared, or evident from its producer (Reshape to an explicit
 * constant shape; Shape of a value of known rank). -1 if unknown. */
static int known_shape(scope *s, const hashmap *producer, const char *name, int64_t *dims)
{
    int rank = static_shape(scope_type(s, name), dims, NULL);
    if (rank >= 0) return rank;
    const Onnx__NodeProto *p = hm_get(producer, name);
    if (!p || p->n_output != 1) return -1;
    if (is_op(p, "Reshape") && p->n_input == 2) {
        rank = const_ints(s, S(p->input[1]), dims, OE_MAX_RANK);
        for (int i = 0; i < rank; i++)
            if (dims[i] <= 0) return -1;
        return rank;
    }
    if (is_op(p, "Shape") && p->n_input == 1) {
        int r = value_rank(s, S(p->input[0]));
        if (r < 0) return -1;
        Onnx__AttributeProto *st = ox_node_attr(p, "start"), *en = ox_node_attr(p, "end");
        int64_t a = st ? st->i : 0, b = en ? en->i : r;
        if (a < 0) a += r;
        if (b < 0) b += r;
        a = a < 0 ? 0 : a > r ? r : a;
        b = b < 0 ? 0 : b > r ? r : b;
        dims[0] = b > a ? b - a : 0;
        return 1;
    }
    return -1;
}

static bool is_noop(noop_ctx *c, const Onnx__NodeProto *n, scope *s, const hashmap *producer)
{
    if (!is_default_domain(n->domain) || n->n_output != 1 || n->n_input < 1 || !*S(n->input[0]))
        return false;
    if (is_op(n, "Identity")) return n->n_input == 1;
    /* Variadic ops over one value (Max(a), Max(a, a), Concat(a), Sum(a)). */
    if (is_op(n, "Max") || is_op(n, "Min") || (is_op(n, "Concat") && n->n_input == 1) ||
        (is_op(n, "Sum") && n->n_input == 1) || (is_op(n, "Mean") && n->n_input == 1)) {
        for (size_t i = 1; i < n->n_input; i++)
            if (strcmp(S(n->input[i]), n->input[0])) return false;
        return true;
    }
    if (is_op(n, "Transpose") && n->n_input == 1) {
        Onnx__AttributeProto *p = ox_node_attr(n, "perm");
        if (!p || p->ref_attr_name || !p->n_ints) return false;
        for (size_t i = 0; i < p->n_ints; i++)
            if (p->ints[i] != (int64_t)i) return false;
        return true;
    }
    if (is_op(n, "Expand") && n->n_input == 2) {
        /* Expand(x, Shape(x)) */
        const Onnx__NodeProto *sh = hm_get(producer, S(n->input[1]));
        if (sh && is_op(sh, "Shape") && sh->n_input == 1 && !strcmp(S(sh->input[0]), n->input[0]) &&
            (!ox_node_attr(sh, "start") || ox_node_attr(sh, "start")->i == 0) && !ox_node_attr(sh, "end"))
            return true;
    }
    if (is_op(n, "Cast")) {
        Onnx__AttributeProto *to = ox_node_attr(n, "to");
        int et = scope_elem(s, n->input[0]);
        return to && to->has_i && et && to->i == et;
    }
    if (is_op(n, "CastLike") && n->n_input == 2) {
        int a = scope_elem(s, n->input[0]), b = scope_elem(s, S(n->input[1]));
        return a && a == b;
    }
    if (is_op(n, "Expand") && n->n_input == 2) {
        /* Expanding to a shape the input already has (1s broadcast away) changes nothing. */
        int64_t dims[OE_MAX_RANK], want[OE_MAX_RANK];
        int rank = known_shape(s, producer, n->input[0], dims);
        if (rank < 0) return false;
        int k = const_ints(s, S(n->input[1]), want, OE_MAX_RANK);
        if (k < 0 || k > rank) return false;
        for (int i = 0; i < k; i++) {
            int64_t d = dims[rank - k + i];
            if (want[i] != d && want[i] != 1) return false;
        }
        return true;
    }
    if (is_op(n, "Reshape") && n->n_input == 2) {
        /* The target shape, with 0 (copy) and -1 (infer) resolved, equals the static input shape. */
        int64_t dims[OE_MAX_RANK], want[OE_MAX_RANK];
        int rank = known_shape(s, producer, n->input[0], dims);
        if (rank < 0) return false;
        int k = const_ints(s, S(n->input[1]), want, OE_MAX_RANK);
        if (k != rank) return false;
        Onnx__AttributeProto *az = ox_node_attr(n, "allowzero");
        bool allowzero = az && az->i;
        int64_t numel = 1, known = 1;
        int neg = -1;
        for (int i = 0; i < rank; i++) {
            numel *= dims[i];
            if (want[i] == 0 && !allowzero) want[i] = dims[i];
            if (want[i] == -1) {
                if (neg >= 0) return false;
                neg = i;
            } else {
                known *= want[i];
            }
        }
        if (neg >= 0) {
            if (known <= 0 || numel % known) return false;
            want[neg] = numel / known;
        }
        for (int i = 0; i < rank; i++)
            if (want[i] != dims[i]) return false;
        return true;
    }
    return false;
}

/* Transpose(Transpose(x, p1), p2) → Transpose(x, p1∘p2). When the composition is the identity,
 * *identity_of is set to x and the caller removes n like any no-op. Returns true if n changed. */
static bool fuse_transposes(noop_ctx *c, Onnx__NodeProto *n, const hashmap *producer,
                            const char **identity_of)
{
    (void)c;
    if (!is_op(n, "Transpose") || n->n_input != 1 || n->n_output != 1) return false;
    Onnx__NodeProto *inner = hm_get(producer, S(n->input[0]));
    if (!inner || !is_op(inner, "Transpose") || inner->n_input != 1 || !*S(inner->input[0])) return false;
    Onnx__AttributeProto *p1 = ox_node_attr(inner, "perm"), *p2 = ox_node_attr(n, "perm");
    if (!p1 || !p2 || p1->ref_attr_name || p2->ref_attr_name || p1->n_ints != p2->n_ints ||
        p1->n_ints > OE_MAX_RANK)
        return false;
    size_t r = p1->n_ints;
    int64_t comp[OE_MAX_RANK];
    bool ident = true;
    for (size_t i = 0; i < r; i++) {
        if (p2->ints[i] < 0 || (size_t)p2->ints[i] >= r) return false;
        comp[i] = p1->ints[p2->ints[i]];
        ident &= comp[i] == (int64_t)i;
    }
    if (ident) {
        *identity_of = inner->input[0];
        return false;
    }
    memcpy(p2->ints, comp, r * sizeof *comp);
    n->input[0] = inner->input[0];
    return true;
}

/* Reshape(Reshape|Squeeze|Unsqueeze|Flatten(x, ...), s) → Reshape(x, s) when s is a constant
 * without 0 entries (a reshape depends only on the element count, which the inner op keeps). */
static bool collapse_reshapes(Onnx__NodeProto *n, scope *s, const hashmap *producer)
{
    if (!is_op(n, "Reshape") || n->n_input != 2) return false;
    bool changed = false;
    for (int guard = 0; guard < 64; guard++) {
        Onnx__NodeProto *inner = hm_get(producer, S(n->input[0]));
        if (!inner || inner->n_output != 1 || inner->n_input < 1 || !*S(inner->input[0]) ||
            !(is_op(inner, "Reshape") || is_op(inner, "Squeeze") || is_op(inner, "Unsqueeze") ||
              is_op(inner, "Flatten")))
            break;
        int64_t want[OE_MAX_RANK];
        int k = const_ints(s, S(n->input[1]), want, OE_MAX_RANK);
        if (k < 0) break;
        for (int i = 0; i < k; i++)
            if (want[i] == 0) return changed;
        n->input[0] = inner->input[0];
        changed = true;
    }
    return changed;
}

/* Reshape(x, Concat(Shape(x)[i:i+1], constants...)) where the one copied dim is x's only
 * dynamic dim: the target is then a constant with that dim as -1 (and any -1 among the
 * constants resolved from x's static dims), e.g. [batch, -1] on float[batch,2,3] → [-1, 6]. */
static bool static_reshape_target(noop_ctx *c, Onnx__NodeProto *n, scope *s, const hashmap *producer)
{
    if (!is_op(n, "Reshape") || n->n_input != 2) return false;
    const Onnx__NodeProto *cc = hm_get(producer, S(n->input[1]));
    Onnx__AttributeProto *cax = cc ? ox_node_attr(cc, "axis") : NULL;
    if (!cc || !is_op(cc, "Concat") || !cax || cax->i != 0) return false;
    const Onnx__TypeProto *tp = scope_type(s, S(n->input[0]));
    const Onnx__TensorShapeProto *sh = tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
                                       tp->tensor_type ? tp->tensor_type->shape : NULL;
    if (!sh || sh->n_dim > OE_MAX_RANK) return false;
    int r = (int)sh->n_dim, dyn = -1;
    int64_t static_prod = 1;
    for (int i = 0; i < r; i++) {
        const Onnx__TensorShapeProto__Dimension *dm = sh->dim[i];
        if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dm->dim_value >= 0) {
            if (dm->dim_value && static_prod > INT64_MAX / dm->dim_value) return false;   /* a bogus type */
            static_prod *= dm->dim_value;
        } else {
            if (dyn >= 0) return false;   /* more than one dynamic dim */
            dyn = i;
        }
    }
    if (dyn < 0) return false;
    int64_t target[OE_MAX_RANK];
    int k = 0, ref_at = -1, neg_at = -1;
    int64_t const_prod = 1;
    for (size_t p = 0; p < cc->n_input; p++) {
        int64_t part[OE_MAX_RANK];
        int pk = const_ints(s, S(cc->input[p]), part, OE_MAX_RANK);
        if (pk < 0) {
            const Onnx__NodeProto *sp = hm_get(producer, S(cc->input[p]));
            if (!sp || !is_op(sp, "Shape") || sp->n_input != 1 || strcmp(S(sp->input[0]), n->input[0]))
                return false;
            Onnx__AttributeProto *st = ox_node_attr(sp, "start"), *en = ox_node_attr(sp, "end");
            int64_t a = st ? st->i : 0, b = en ? en->i : r;
            if (a < 0) a += r;
            if (b < 0) b += r;
            if (a != dyn || b != dyn + 1 || ref_at >= 0 || k >= OE_MAX_RANK) return false;
            ref_at = k;
            target[k++] = -1;
            continue;
        }
        for (int i = 0; i < pk; i++) {
            if (k >= OE_MAX_RANK || part[i] == 0 || part[i] < -1) return false;
            if (part[i] == -1) {
                if (neg_at >= 0) return false;
                neg_at = k;
            } else {
                const_prod *= part[i];
            }
            target[k++] = part[i];
        }
    }
    if (ref_at < 0) return false;
    if (neg_at >= 0) {
        if (const_prod <= 0 || static_prod % const_prod) return false;
        target[neg_at] = static_prod / const_prod;
    }
    Onnx__TensorProto *t = ox_tensor_new(c->m, fresh_name(c->m, &c->taken, arena_printf(&c->tmp, "%s_static", S(n->input[1]))),
                                         7, (int64_t[]){k}, 1);
    ox_tensor_set_raw(c->m, t, target, (size_t)k * sizeof *target);
    ox_graph_add_initializer(c->m, c->m->proto->graph, t);
    cval *v = arena_alloc(&c->tmp, sizeof *v);
    v->proto = t;
    hm_put(&s->vals, t->name, v);
    n->input[1] = t->name;
    return true;
}

static void noop_graph(noop_ctx *c, Onnx__GraphProto *g, scope *parent, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) too_deep(c->d, c->o->max_depth);
        c->err = 1;
        return;
    }
    scope s;
    scope_init(&s, parent, g, &c->tmp);
    hashmap outs, ren, producer, ginputs;
    hm_init(&outs);
    hm_init(&ren);
    hm_init(&producer);
    hm_init(&ginputs);
    graph_outputs(g, &outs);
    for (size_t i = 0; i < g->n_input; i++) hm_put(&ginputs, S(g->input[i]->name), (void *)1);
    bool *dead = xcalloc(g->n_node + 1, 1);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        for (size_t k = 0; k < n->n_input; k++) n->input[k] = (char *)resolve(&ren, n->input[k]);
        if (ox_node_has_subgraph(n)) {
            bool saved = s.no_infer;
            s.no_infer |= is_op(n, "SequenceMap");
            FOR_SUBGRAPHS(n, sg, {
                rename_uses(sg, &ren, true, depth + 1, c->o->max_depth);
                noop_graph(c, sg, &s, depth + 1);
            });
            s.no_infer = saved;
        }
        if (is_op(n, "Constant") && n->n_attribute == 1 && n->attribute[0]->t && n->n_output == 1) {
            cval *v = arena_alloc(&c->tmp, sizeof *v);
            v->proto = n->attribute[0]->t;
            hm_put(&s.vals, S(n->output[0]), v);
        }
        for (size_t k = 0; k < n->n_output; k++)
            if (*S(n->output[k])) hm_put(&producer, n->output[k], n);
        const char *in = NULL;
        if (fuse_transposes(c, n, &producer, &in)) c->st->noops++;
        if (collapse_reshapes(n, &s, &producer)) c->st->noops++;
        if (static_reshape_target(c, n, &s, &producer)) c->st->noops++;
        infer_elem(&s, n);
        int keep = in ? -1 : neutral_operand(n, &s);
        if (keep >= 0) in = n->input[keep];
        if (!in && !is_noop(c, n, &s, &producer)) continue;
        if (!in) in = n->input[0];
        const char *out = n->output[0];
        if (!hm_has(&outs, out)) {
            hm_put(&ren, out, (void *)in);
        } else {
            /* out is a graph output: let the producer of `in` write it directly, when `in` is a
             * plain node value of this graph. */
            Onnx__NodeProto *pn = hm_get(&producer, in);
            if (!pn || hm_has(&outs, in) || hm_has(&ginputs, in)) continue;
            for (size_t k = 0; k < pn->n_output; k++)
                if (!strcmp(S(pn->output[k]), in)) pn->output[k] = (char *)out;
            hm_put(&ren, in, (void *)out);
            hm_put(&producer, out, pn);
            /* Earlier consumers of `in` were already rewritten; fix them below. */
        }
        dead[i] = true;
        c->st->noops++;
    }
    compact_nodes(g, dead);
    free(dead);
    /* A second sweep applies renames created after their consumers were visited. */
    rename_uses(g, &ren, false, depth, c->o->max_depth);
    hm_free(&outs);
    hm_free(&ren);
    hm_free(&producer);
    hm_free(&ginputs);
    scope_free(&s);
}

int opt_remove_noops(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opts_or_default(o, &ob);
    if (!st) st = &sb;
    if (!m->proto->graph) return 0;
    noop_ctx c = {.m = m, .o = o, .st = st, .d = d};
    arena_init(&c.tmp);
    hm_init(&c.taken);
    collect_names(m->proto->graph, &c.taken, 0, o->max_depth);
    noop_graph(&c, m->proto->graph, NULL, 0);
    hm_free(&c.taken);
    arena_free(&c.tmp);
    return c.err ? -1 : 0;
}

/* ---- rewrite: SplitToSequence + SequenceAt → Split --------------------------------------- */

typedef struct seq_use {
    size_t node;       /* index of the SequenceAt node */
    int64_t piece;
    struct seq_use *next;
} seq_use;

typedef struct seq_cand {
    Onnx__NodeProto *split;
    int64_t pieces;
    size_t nuses;
    seq_use *uses;
    int64_t axis;      /* ≥ 0: split by num_outputs along this axis; -1: split by sizes */
    bool bad;
} seq_cand;

typedef struct split_ctx {
    ox_model *m;
    const optimize_options *o;
    optimize_stats *st;
    hashmap uses;     /* model-wide use counts */
    hashmap taken;    /* every name in the model */
    int64_t opset;
    arena tmp;
} split_ctx;

static void split_graph(split_ctx *c, Onnx__GraphProto *g, scope *parent, int depth)
{
    if (depth > c->o->max_depth) return;
    scope s;
    scope_init(&s, parent, g, &c->tmp);
    hashmap cands;
    hm_init(&cands);
    VEC(seq_cand *) order = {0};
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        FOR_SUBGRAPHS(n, sg, split_graph(c, sg, &s, depth + 1));
        if (is_op(n, "Constant") && n->n_attribute == 1 && n->attribute[0]->t && n->n_output == 1) {
            cval *v = arena_alloc(&c->tmp, sizeof *v);
            v->proto = n->attribute[0]->t;
            hm_put(&s.vals, S(n->output[0]), v);
        }
        if (is_op(n, "SplitToSequence") && n->n_input == 2 && n->n_output == 1 && *S(n->output[0])) {
            int64_t sizes[64], axis = -1;
            int k = const_ints(&s, S(n->input[1]), sizes, 64);
            if (k <= 0) {
                /* A scalar chunk size that divides a static dimension: Split's num_outputs
                 * (opset 18) expresses it exactly. */
                cval *v = scope_val(&s, S(n->input[1]));
                int64_t dims[OE_MAX_RANK];
                int rank = static_shape(scope_type(&s, S(n->input[0])), dims, NULL);
                Onnx__AttributeProto *ax = ox_node_attr(n, "axis");
                oe_tensor t;
                if (!v || v->not_const || !v->proto || rank < 1 || c->opset < 18 ||
                    oe_from_proto(v->proto, 1, &t) != OE_OK)
                    continue;
                int64_t chunk = t.rank == 0 && (t.dtype == 6 || t.dtype == 7) ? oe_get_i(&t, 0) : 0;
                oe_tensor_free(&t);
                axis = ax && ax->has_i ? ax->i : 0;
                if (axis < 0) axis += rank;
                if (chunk <= 0 || axis < 0 || axis >= rank || dims[axis] % chunk || dims[axis] / chunk > 64)
                    continue;
                k = (int)(dims[axis] / chunk);
            }
            seq_cand *cd = arena_alloc(&c->tmp, sizeof *cd);
            cd->split = n;
            cd->pieces = k;
            cd->axis = axis;
            hm_put(&cands, n->output[0], cd);
            vec_push(&order, cd);
            continue;
        }
        if (is_op(n, "SequenceAt") && n->n_input == 2 && n->n_output == 1) {
            seq_cand *cd = hm_get(&cands, S(n->input[0]));
            if (!cd) continue;
            oe_tensor t;
            cval *v = scope_val(&s, S(n->input[1]));
            if (!v || v->not_const || !v->proto || oe_from_proto(v->proto, 1, &t) != OE_OK) {
                cd->bad = true;
                continue;
            }
            int64_t idx = oe_get_i(&t, 0);
            bool integral = t.dtype == 6 || t.dtype == 7;
            oe_tensor_free(&t);
            if (idx < 0) idx += cd->pieces;
            if (!integral || idx < 0 || idx >= cd->pieces) {
                cd->bad = true;
                continue;
            }
            seq_use *u = arena_alloc(&c->tmp, sizeof *u);
            *u = (seq_use){i, idx, cd->uses};
            cd->uses = u;
            cd->nuses++;
        }
    }
    bool *dead = xcalloc(g->n_node + 1, 1);
    hashmap ren;
    hm_init(&ren);
    for (size_t q = 0; q < order.len; q++) {
        seq_cand *cd = order.items[q];
        Onnx__NodeProto *n = cd->split;
        /* Every use of the sequence must be one of these SequenceAt nodes. */
        if (cd->bad || !cd->nuses || (size_t)(uintptr_t)hm_get(&c->uses, n->output[0]) != cd->nuses) continue;
        char **outs = ox_alloc(c->m, (size_t)cd->pieces * sizeof *outs);
        for (seq_use *u = cd->uses; u; u = u->next) {   /* later nodes first: the earliest wins */
            Onnx__NodeProto *at = g->node[u->node];
            if (outs[u->piece]) hm_put(&ren, outs[u->piece], at->output[0]);
            outs[u->piece] = at->output[0];
            dead[u->node] = true;
        }
        for (int64_t p = 0; p < cd->pieces; p++)
            if (!outs[p])
                outs[p] = fresh_name(c->m, &c->taken, arena_printf(&c->tmp, "%s_split_%lld", n->output[0], (long long)p));
        Onnx__AttributeProto *axis = ox_node_attr(n, "axis");
        n->op_type = ox_strdup(c->m, "Split");
        n->output = outs;
        n->n_output = (size_t)cd->pieces;
        n->n_attribute = 0;
        n->attribute = NULL;
        if (cd->axis >= 0) {
            n->n_input = 1;
            ox_attr_int(c->m, n, "axis", cd->axis);
            ox_attr_int(c->m, n, "num_outputs", cd->pieces);
        } else {
            ox_attr_int(c->m, n, "axis", axis && axis->has_i ? axis->i : 0);
        }
        c->st->rewritten++;
    }
    compact_nodes(g, dead);
    rename_uses(g, &ren, true, depth, c->o->max_depth);
    free(dead);
    hm_free(&ren);
    vec_free(&order);
    hm_free(&cands);
    scope_free(&s);
}

int opt_rewrite_split_to_sequence(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opts_or_default(o, &ob);
    if (!st) st = &sb;
    (void)d;
    if (!m->proto->graph || ox_model_opset(m, "") < 13) return 0;   /* Split takes sizes as an input from 13 */
    split_ctx c = {.m = m, .o = o, .st = st, .opset = ox_model_opset(m, "")};
    hm_init(&c.uses);
    hm_init(&c.taken);
    arena_init(&c.tmp);
    ox_graph_walk(m->proto->graph, o->max_depth, count_uses, &c.uses);
    ox_graph_walk(m->proto->graph, o->max_depth, count_output_uses, &c.uses);
    collect_names(m->proto->graph, &c.taken, 0, o->max_depth);
    split_graph(&c, m->proto->graph, NULL, 0);
    hm_free(&c.uses);
    hm_free(&c.taken);
    arena_free(&c.tmp);
    return 0;
}

/* ---- rewrite: Conv followed by inference BatchNormalization → one Conv --------------------- */

/* The constant tensor behind name in the main graph (initializer or Constant node), or NULL. */
static Onnx__TensorProto *main_const(hashmap *consts, const char *name)
{
    return *S(name) ? hm_get(consts, name) : NULL;
}

static int fuse_one(ox_model *m, hashmap *consts, hashmap *uses, hashmap *taken, hashmap *init_idx,
                    Onnx__GraphProto *g, Onnx__NodeProto *conv, Onnx__NodeProto *bn, arena *tmp)
{
    if (bn->n_input != 5 || bn->n_output != 1 || conv->n_input < 2 || conv->n_output != 1) return 0;
    Onnx__AttributeProto *tm = ox_node_attr(bn, "training_mode");
    if (tm && tm->i) return 0;
    Onnx__AttributeProto *epsa = ox_node_attr(bn, "epsilon");
    double eps = epsa ? epsa->f : 1e-5;
    Onnx__TensorProto *wp = main_const(consts, conv->input[1]);
    Onnx__TensorProto *bp = conv->n_input > 2 ? main_const(consts, conv->input[2]) : NULL;
    if (!wp || (conv->n_input > 2 && *S(conv->input[2]) && !bp)) return 0;
    oe_tensor w, b = {0}, p[4];
    if (oe_from_proto(wp, 0, &w) != OE_OK) return 0;
    int ok = w.dtype == 1 && w.rank >= 3;
    int np = 0;
    for (; ok && np < 4; np++) {
        Onnx__TensorProto *tp = main_const(consts, bn->input[1 + np]);
        if (!tp || oe_from_proto(tp, 0, &p[np]) != OE_OK) break;
        if (p[np].dtype != 1 || p[np].numel != w.dims[0]) {
            oe_tensor_free(&p[np]);
            break;
        }
    }
    ok = ok && np == 4;
    if (ok && bp) ok = oe_from_proto(bp, 0, &b) == OE_OK && b.dtype == 1 && b.numel == w.dims[0];
    if (ok) {
        int64_t ch = w.dims[0], per = ch ? w.numel / ch : 0;
        oe_tensor nb;
        oe_tensor_init(&nb, 1, &ch, 1);
        for (int64_t o = 0; o < ch; o++) {
            double f = oe_get_f(&p[0], o) / sqrt(oe_get_f(&p[3], o) + eps);
            for (int64_t k = 0; k < per; k++) oe_set_f(&w, o * per + k, oe_get_f(&w, o * per + k) * f);
            double bias = bp ? oe_get_f(&b, o) : 0;
            oe_set_f(&nb, o, (bias - oe_get_f(&p[2], o)) * f + oe_get_f(&p[1], o));
        }
        /* The fused weight keeps the weight's name when nothing else reads it (as onnxscript
         * does); the bias is named after the old bias, or "<weight>_bias". */
        const char *wname = conv->input[1];
        uintptr_t wi = (uintptr_t)hm_get(init_idx, wname);
        uintptr_t bi = bp ? (uintptr_t)hm_get(init_idx, conv->input[2]) : 0;
        if ((uintptr_t)hm_get(uses, wname) != 1) wi = 0;
        if (bp && (uintptr_t)hm_get(uses, conv->input[2]) != 1) bi = 0;
        Onnx__TensorProto *nw = oe_to_proto(m, &w, wi ? wname : fresh_name(m, taken, arena_printf(tmp, "%s_fused", wname)));
        const char *bname = bi ? conv->input[2] : fresh_name(m, taken, arena_printf(tmp, "%s_bias", wname));
        Onnx__TensorProto *nbp = oe_to_proto(m, &nb, bname);
        if (wi) g->initializer[wi - 1] = nw;
        else ox_graph_add_initializer(m, g, nw);
        if (bi) g->initializer[bi - 1] = nbp;
        else ox_graph_add_initializer(m, g, nbp);
        hm_put(consts, nw->name, nw);
        hm_put(consts, nbp->name, nbp);
        conv->input[1] = nw->name;
        if (conv->n_input < 3) ox_node_add_input(m, conv, nbp->name);
        else conv->input[2] = nbp->name;
        conv->output[0] = bn->output[0];
        oe_tensor_free(&nb);
    }
    for (int i = 0; i < np; i++) oe_tensor_free(&p[i]);
    oe_tensor_free(&b);
    oe_tensor_free(&w);
    return ok;
}

int opt_fuse_conv_batchnorm(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opts_or_default(o, &ob);
    if (!st) st = &sb;
    (void)d;
    Onnx__GraphProto *g = m->proto->graph;
    if (!g) return 0;
    hashmap uses, consts, producer, taken, inputs;
    hm_init(&uses);
    hm_init(&consts);
    hm_init(&producer);
    hm_init(&taken);
    hm_init(&inputs);
    arena tmp;
    arena_init(&tmp);
    ox_graph_walk(g, o->max_depth, count_uses, &uses);
    ox_graph_walk(g, o->max_depth, count_output_uses, &uses);
    collect_names(g, &taken, 0, o->max_depth);
    for (size_t i = 0; i < g->n_input; i++) hm_put(&inputs, S(g->input[i]->name), (void *)1);
    hashmap init_idx;   /* initializer name → index + 1 */
    hm_init(&init_idx);
    for (size_t i = 0; i < g->n_initializer; i++)
        if (!hm_has(&inputs, S(g->initializer[i]->name))) {
            hm_put(&consts, S(g->initializer[i]->name), g->initializer[i]);
            hm_put(&init_idx, S(g->initializer[i]->name), (void *)(uintptr_t)(i + 1));
        }
    bool *dead = xcalloc(g->n_node + 1, 1);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        if (is_op(n, "Constant") && n->n_attribute == 1 && n->attribute[0]->t && n->n_output == 1 &&
            !strcmp(S(n->attribute[0]->name), "value"))
            hm_put(&consts, S(n->output[0]), n->attribute[0]->t);
        for (size_t k = 0; k < n->n_output; k++) hm_put(&producer, S(n->output[k]), (void *)(uintptr_t)(i + 1));
        if (!is_op(n, "BatchNormalization") || n->n_input < 1) continue;
        uintptr_t pi = (uintptr_t)hm_get(&producer, S(n->input[0]));
        if (!pi || dead[pi - 1]) continue;
        Onnx__NodeProto *conv = g->node[pi - 1];
        if (!is_op(conv, "Conv") || (uintptr_t)hm_get(&uses, S(conv->output[0])) != 1) continue;
        if (fuse_one(m, &consts, &uses, &taken, &init_idx, g, conv, n, &tmp)) {
            dead[i] = true;
            st->rewritten++;
        }
    }
    compact_nodes(g, dead);
    free(dead);
    hm_free(&uses);
    hm_free(&consts);
    hm_free(&producer);
    hm_free(&taken);
    hm_free(&inputs);
    hm_free(&init_idx);
    arena_free(&tmp);
    return 0;
}

/* ---- driver -------------------------------------------------------------------------------- */

int optimize_model(ox_model *m, const optimize_options *o, optimize_stats *stats, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opts_or_default(o, &ob);
    if (!stats) stats = &sb;
    int rc = 0;
    if (o->inline_functions) rc |= opt_inline_functions(m, o, stats, d);
    /* Like onnxscript's optimize_ir: fold / simplify / clean up twice, then finish. */
    for (int round = 0; round < 2; round++) {
        optimize_stats before = *stats;
        if (o->fold) rc |= opt_fold_constants(m, o, stats, d);
        if (o->remove_noops) rc |= opt_remove_noops(m, o, stats, d);
        if (o->rewrite) rc |= opt_rewrite_split_to_sequence(m, o, stats, d);
        if (o->rewrite) rc |= opt_fuse_conv_batchnorm(m, o, stats, d);
        if (o->dce) rc |= opt_remove_dead(m, o, stats, d);
        if (!memcmp(&before, stats, sizeof before)) break;
    }
    if (o->lift) rc |= opt_lift_constants(m, o, stats, d);
    if (o->dedup) rc |= opt_dedup_initializers(m, o, stats, d);
    if (o->cse) rc |= opt_cse(m, o, stats, d);
    if (o->dce) rc |= opt_remove_dead(m, o, stats, d);
    return rc ? -1 : 0;
}
