/* opt_fold.c — pass 2: constant folding with the evaluator, and lifting constants to initializers. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "onnx/onnx_derive.h"
#include "optimize/optimize_internal.h"

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
    ox_derive *derive;   /* large folded transposes: derived weights, computed when written */
    int err;
} fold_ctx;



static size_t uses_of(fold_ctx *c, const char *name)
{
    return (size_t)(uintptr_t)hm_get(&c->uses, name);
}

/* Element count of a constant without materializing it; -1 if unknown or not constant. */
static int64_t const_numel(scope *s, const char *name)
{
    cval *v = opt_scope_val(s, name);
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
    cval *v = opt_scope_val(s, name);
    if (!v || v->not_const) return NULL;
    if (v->t) return v->t;
    if (!v->proto) return NULL;
    oe_tensor tmp;
    if (ot_from_proto(v->proto, 0, &tmp) != OE_OK) {
        v->not_const = true;
        return NULL;
    }
    v->t = new_owned(c);
    *v->t = tmp;
    return v->t;
}

/* Turns n into `Constant <value = p>` producing its first output. */
static void make_constant_proto(fold_ctx *c, Onnx__NodeProto *n, Onnx__TensorProto *p)
{
    n->op_type = ox_strdup(c->m, "Constant");
    n->domain = ox_strdup(c->m, "");
    n->overload = NULL;
    n->n_input = 0;
    n->n_attribute = 0;
    n->attribute = NULL;
    n->n_output = 1;
    ox_attr_tensor(c->m, n, "value", p);
}

/* Turns n into `Constant <value = t>` producing its first output. */
static void make_constant(fold_ctx *c, Onnx__NodeProto *n, const oe_tensor *t)
{
    make_constant_proto(c, n, ot_to_proto(c->m, t, n->output[0]));
}

/* A Transpose of a constant larger than the fold input limit, read by nothing else (the one
 * large fold constant_inputs allows), folds without being computed: its value is a derived
 * weight (onnx/onnx_derive.h), the same bytes the evaluator's Transpose gives, computed when
 * save writes it. False when it is not such a node (the evaluator's path decides then). */
static bool fold_large_transpose(fold_ctx *c, Onnx__NodeProto *n, scope *s)
{
    if (n->n_input != 1 || !*opt_str(n->input[0])) return false;
    cval *v = opt_scope_val(s, n->input[0]);
    const Onnx__TensorProto *src = v && !v->not_const && !v->t ? v->proto : NULL;
    if (!src || !src->has_raw_data || !ot_dtype_supported(src->data_type) || src->n_dims > OE_MAX_RANK) return false;
    int64_t numel = ox_tensor_numel(src);
    if (numel <= c->o->fold_input_limit || numel > OE_HARD_MAX_NUMEL || uses_of(c, n->input[0]) != 1) return false;
    int rank = (int)src->n_dims;
    int64_t perm[OE_MAX_RANK], dims[OE_MAX_RANK];
    for (int i = 0; i < rank; i++) perm[i] = rank - 1 - i;
    Onnx__AttributeProto *pa = ox_node_attr(n, "perm");
    if (pa) {
        if (pa->n_ints != (size_t)rank) return false;
        for (int i = 0; i < rank; i++) perm[i] = pa->ints[i];
    }
    for (int i = 0; i < rank; i++) dims[i] = perm[i] >= 0 && perm[i] < rank ? src->dims[perm[i]] : 0;
    if (!c->derive) c->derive = ox_derive_begin(c->m);
    Onnx__TensorProto *p = ox_tensor_new(c->m, n->output[0], src->data_type, dims, (size_t)rank);
    if (!ox_derive_transpose(c->derive, p, src, perm)) return false;
    make_constant_proto(c, n, p);
    cval *nv = arena_alloc(&c->tmp, sizeof *nv);
    nv->proto = p;
    hm_put(&s->vals, n->output[0], nv);
    c->st->folded++;
    return true;
}

static void fold_graph(fold_ctx *c, Onnx__GraphProto *g, scope *parent, int depth);

/* A Constant node: its value is known to the scope; value_ints / value_float ... become the
 * `value` tensor form, which every later pass reads (the lifted initializer is the same either way). */
static void fold_constant_node(fold_ctx *c, Onnx__NodeProto *n, scope *s)
{
    const char *out = n->output[0];
    if (n->n_attribute == 1 && n->attribute[0]->t && !strcmp(opt_str(n->attribute[0]->name), "value")) {
        cval *v = arena_alloc(&c->tmp, sizeof *v);
        v->proto = n->attribute[0]->t;
        hm_put(&s->vals, out, v);
        return;
    }
    oe_tensor r;
    if (oe_eval_node(n, c->opset, NULL, 0, &r, 1, NULL) == OE_OK) {
        cval *v = arena_alloc(&c->tmp, sizeof *v);
        v->t = new_owned(c);
        *v->t = r;
        make_constant(c, n, v->t);
        v->proto = n->attribute[0]->t;
        hm_put(&s->vals, out, v);
    }
}

/* Shape <start, end> of a value whose type has the dims it slices static (the others are never
 * read): its rank, dims filled; -1 when a dim in the slice is unknown. */
static int sliced_static_dims(const Onnx__NodeProto *n, const Onnx__TypeProto *tp, int64_t *dims)
{
    const Onnx__TensorShapeProto *sh =
        tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type ? tp->tensor_type->shape : NULL;
    if (!sh || sh->n_dim > OE_MAX_RANK)
        return -1;
    int r = (int)sh->n_dim;
    Onnx__AttributeProto *st = ox_node_attr(n, "start"), *en = ox_node_attr(n, "end");
    int64_t a = st ? st->i : 0, b = en ? en->i : r;
    if (a < 0) a += r;
    if (b < 0) b += r;
    a = a < 0 ? 0 : a > r ? r : a;
    b = b < 0 ? 0 : b > r ? r : b;
    for (int i = 0; i < r; i++) {
        const Onnx__TensorShapeProto__Dimension *dm = sh->dim[i];
        bool known = dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dm->dim_value >= 0;
        if (!known && i >= a && i < b)
            return -1;
        dims[i] = known ? dm->dim_value : 1;   /* outside the slice: never read */
    }
    return r;
}

/* Shape and Size need only their input's shape: from a constant's dims (whatever its size or
 * storage) or from a static type. Fills *shape_src (no data: the kernels never read it). */
static bool shape_only_input(Onnx__NodeProto *n, scope *s, oe_tensor *shape_src)
{
    int64_t dims[OE_MAX_RANK];
    int rank = -1;
    cval *v = opt_scope_val(s, opt_str(n->input[0]));
    if (v && !v->not_const && v->t) {
        rank = v->t->rank;
        memcpy(dims, v->t->dims, sizeof dims);
    } else if (v && !v->not_const && v->proto && v->proto->n_dims <= OE_MAX_RANK) {
        rank = (int)v->proto->n_dims;
        for (int i = 0; i < rank; i++) dims[i] = v->proto->dims[i];
    } else {
        rank = opt_static_shape(opt_scope_type(s, opt_str(n->input[0])), dims, NULL);
        if (rank < 0 && !strcmp(n->op_type, "Shape"))
            rank = sliced_static_dims(n, opt_scope_type(s, opt_str(n->input[0])), dims);
    }
    if (rank < 0)
        return false;
    memset(shape_src, 0, sizeof *shape_src);
    shape_src->dtype = 9;
    shape_src->rank = rank;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return false;
        shape_src->dims[i] = dims[i];
    }
    return true;
}

/* The node's inputs as constants, within the size limits; false when one is not constant (or too
 * large to be worth reading). CastLike needs only its second input's element type. */
static bool constant_inputs(fold_ctx *c, Onnx__NodeProto *n, scope *s, oe_tensor **inputs, oe_tensor *shape_src)
{
    bool all = true;
    for (size_t i = 0; i < n->n_input; i++) {
        if (!*opt_str(n->input[i])) continue;
        int64_t numel = const_numel(s, n->input[i]);
        if (numel < 0) {
            all = false;
            continue;
        }
        /* Large constants are read only by a Transpose that is their sole consumer (the
         * transposed copy replaces the original). */
        if (numel > c->o->fold_input_limit &&
            !(!strcmp(n->op_type, "Transpose") && uses_of(c, n->input[i]) == 1))
            return false;
        inputs[i] = const_of(c, s, n->input[i]);
        if (!inputs[i]) all = false;
    }
    if (!all && !strcmp(n->op_type, "CastLike") && n->n_input == 2 && inputs[0] && !inputs[1]) {
        int et = opt_scope_elem(s, n->input[1]);
        if (!ot_dtype_supported(et)) return false;
        memset(shape_src, 0, sizeof *shape_src);
        shape_src->dtype = et;
        inputs[1] = shape_src;
        all = true;
    }
    return all;
}

/* Runs the node on its constant inputs and, when the result is worth keeping, turns the node
 * into a Constant holding it. */
static void evaluate_and_replace(fold_ctx *c, Onnx__NodeProto *n, scope *s, oe_tensor **inputs,
                                 const oe_tensor *shape_src)
{
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
            if (inputs[i] && inputs[i] != shape_src && uses_of(c, n->input[i]) == 1) freed += inputs[i]->numel;
        if (r.numel > freed) {
            ot_tensor_free(&r);
            return;
        }
    }
    oe_tensor *t = new_owned(c);
    *t = r;
    make_constant(c, n, t);
    cval *v = arena_alloc(&c->tmp, sizeof *v);
    v->t = t;
    v->proto = n->attribute[0]->t;
    hm_put(&s->vals, n->output[0], v);
    c->st->folded++;
}

static void fold_node(fold_ctx *c, Onnx__NodeProto *n, scope *s, int depth)
{
    if (ox_node_has_subgraph(n)) {
        bool saved = s->no_infer;
        s->no_infer |= opt_is_op(n, "SequenceMap");
        FOR_SUBGRAPHS(n, sg, fold_graph(c, sg, s, depth + 1));
        s->no_infer = saved;
        return;
    }
    if (!opt_is_default_domain(n->domain) || !n->op_type || n->n_output != 1 || !*opt_str(n->output[0]))
        return;
    if (!strcmp(n->op_type, "Constant")) {
        fold_constant_node(c, n, s);
        return;
    }
    if (!oe_op_supported(n->op_type)) return;
    /* Like onnxscript: ConstantOfShape stays (folding it only grows the model). */
    if (!strcmp(n->op_type, "ConstantOfShape") && !c->o->fold_constant_of_shape) return;
    oe_tensor shape_src, *inputs[16] = {0};
    if (n->n_input > 16) return;
    if (!strcmp(n->op_type, "Transpose") && fold_large_transpose(c, n, s)) return;
    if ((!strcmp(n->op_type, "Shape") || !strcmp(n->op_type, "Size")) && n->n_input == 1) {
        if (!shape_only_input(n, s, &shape_src))
            return;
        inputs[0] = &shape_src;
    } else if (!constant_inputs(c, n, s, inputs, &shape_src)) {
        return;
    }
    evaluate_and_replace(c, n, s, inputs, &shape_src);
}

static void fold_graph(fold_ctx *c, Onnx__GraphProto *g, scope *parent, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) opt_too_deep(c->d, c->o->max_depth);
        c->err = 1;
        return;
    }
    scope s;
    opt_scope_init(&s, parent, g, &c->tmp);
    bool *lifted = NULL;
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        /* onnxscript's Shape and Size rules make a Constant node, not an initializer */
        bool was_constant = opt_is_op(n, "Constant"), was_shape = opt_is_op(n, "Shape") || opt_is_op(n, "Size");
        opt_infer_types(c->m, g, &s, n, c->opset);
        fold_node(c, n, &s, depth);
        opt_infer_elem(&s, n);
        /* onnxscript's folder makes a folded value an initializer of the node's graph at once;
         * Constant nodes wait for the lifting pass (which skips graph outputs). So folded values
         * come first among the initializers, in node order, and a folded graph output is an
         * initializer too (torch.onnx's `full` output is one). A static Shape (or Size) is the
         * exception: its rule makes a Constant node, lifted with the others in node order. */
        if (!was_constant && !was_shape && opt_is_op(n, "Constant")) {
            if (!lifted) lifted = xcalloc(g->n_node + 1, 1);
            Onnx__TensorProto *t = n->attribute[0]->t;
            t->name = n->output[0];
            ox_graph_add_initializer(c->m, g, t);
            opt_type_as_tensor(c->m, &s, t);
            lifted[i] = true;
        }
    }
    if (lifted) opt_compact_nodes(g, lifted);
    free(lifted);
    opt_scope_free(&s);
}

bool opt_fold_constants(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!st) st = &sb;
    if (!m->proto->graph) return true;
    fold_ctx c = {.m = m, .o = o, .st = st, .d = d, .opset = ox_model_opset(m, "")};
    arena_init(&c.tmp);
    hm_init(&c.uses);
    ox_graph_walk(m->proto->graph, o->max_depth, opt_count_uses, &c.uses);
    fold_graph(&c, m->proto->graph, NULL, 0);
    ox_derive_end(c.derive);
    hm_free(&c.uses);
    for (size_t i = 0; i < c.owned.len; i++) {
        ot_tensor_free(c.owned.items[i]);
        free(c.owned.items[i]);
    }
    vec_free(&c.owned);
    arena_free(&c.tmp);
    return !c.err;
}

/* ---- lifting constants and subgraph initializers ------------------------------------------ */

typedef struct lifted {
    Onnx__GraphProto *g;     /* the subgraph it comes from */
    Onnx__TensorProto *t;
    int depth;
    bool init;               /* one of the subgraph's initializers (else a Constant node's value) */
} lifted;

typedef struct lift_ctx {
    ox_model *m;
    const optimize_options *o;
    optimize_stats *st;
    diag_sink *d;
    hashmap taken;
    arena tmp;
    VEC(lifted) sub;         /* subgraph constants and initializers, moved after the main graph's */
    int err;
} lift_ctx;

static Onnx__TensorProto *constant_tensor(lift_ctx *c, Onnx__NodeProto *n)
{
    if (n->n_attribute != 1 || n->n_output != 1 || !*opt_str(n->output[0])) return NULL;
    Onnx__AttributeProto *a = n->attribute[0];
    if (a->ref_attr_name) return NULL;
    if (!strcmp(opt_str(a->name), "value") && a->t) {
        Onnx__TensorProto *t = a->t;
        if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
            return NULL;
        t->name = n->output[0];
        return t;
    }
    oe_tensor r;
    if (oe_eval_node(n, 0, NULL, 0, &r, 1, NULL) != OE_OK) return NULL;
    Onnx__TensorProto *t = ot_to_proto(c->m, &r, n->output[0]);
    ot_tensor_free(&r);
    return t;
}

/* Like onnx-ir's passes: Constants become initializers of their own graph (in node order, after
 * the graph's initializers), and then every subgraph's initializers move to the main graph, in
 * the order the subgraphs come — after the main graph's own. */
static void lift_graph(lift_ctx *c, Onnx__GraphProto *g, Onnx__GraphProto *main, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) opt_too_deep(c->d, c->o->max_depth);
        c->err = 1;
        return;
    }
    hashmap outs;
    hm_init(&outs);
    opt_graph_outputs(g, &outs);
    if (g != main) {
        hashmap inputs;
        hm_init(&inputs);
        opt_graph_inputs(g, &inputs);
        size_t k = 0;
        for (size_t i = 0; i < g->n_initializer; i++) {
            Onnx__TensorProto *t = g->initializer[i];
            if (!t->name || hm_has(&inputs, t->name) || hm_has(&outs, t->name)) g->initializer[k++] = t;
            else vec_push(&c->sub, ((lifted){g, t, depth, true}));
        }
        g->n_initializer = k;
        hm_free(&inputs);
    }
    bool *dead = xcalloc(g->n_node + 1, 1);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        FOR_SUBGRAPHS(n, sg, lift_graph(c, sg, main, depth + 1));
        if (!opt_is_op(n, "Constant") || hm_has(&outs, opt_str(n->output[0]))) continue;
        Onnx__TensorProto *t = constant_tensor(c, n);
        if (!t) continue;
        if (g == main) {
            ox_graph_add_initializer(c->m, main, t);
            c->st->lifted++;
        } else {
            vec_push(&c->sub, ((lifted){g, t, depth, false}));
        }
        dead[i] = true;
    }
    opt_compact_nodes(g, dead);
    free(dead);
    hm_free(&outs);
}

/* The subgraphs' initializers into the main graph, an initializer renamed (and its uses in its
 * subgraph) where its name is taken there. */
static void move_lifted(lift_ctx *c, Onnx__GraphProto *main)
{
    for (size_t i = 0; i < c->sub.len; i++) {
        lifted *l = &c->sub.items[i];
        if (l->init) {
            hm_remove(&c->taken, l->t->name);
            char *nm = opt_fresh_name(c->m, &c->taken, l->t->name);
            if (strcmp(nm, l->t->name)) {
                hashmap ren;
                hm_init(&ren);
                hm_put(&ren, l->t->name, nm);
                opt_rename_uses(l->g, &ren, false, l->depth, c->o->max_depth);
                hm_free(&ren);
            }
            l->t->name = nm;
        }
        ox_graph_add_initializer(c->m, main, l->t);
        c->st->lifted++;
    }
}

bool opt_lift_constants(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!st) st = &sb;
    if (!m->proto->graph) return true;
    lift_ctx c = {.m = m, .o = o, .st = st, .d = d};
    hm_init(&c.taken);
    arena_init(&c.tmp);
    /* Names in the main graph are taken; a subgraph initializer keeps its name unless that
     * would collide with one of them. */
    Onnx__GraphProto *g = m->proto->graph;
    for (size_t i = 0; i < g->n_input; i++) hm_put(&c.taken, opt_str(g->input[i]->name), (void *)1);
    for (size_t i = 0; i < g->n_initializer; i++) hm_put(&c.taken, opt_str(g->initializer[i]->name), (void *)1);
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_output; k++) hm_put(&c.taken, opt_str(g->node[i]->output[k]), (void *)1);
    lift_graph(&c, g, g, 0);
    move_lifted(&c, g);
    vec_free(&c.sub);
    hm_free(&c.taken);
    arena_free(&c.tmp);
    return !c.err;
}
