/* opt_noop.c — pass 5: nodes that do nothing (identity casts, reshapes to the same shape, ...). */
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


/* Rank of a tensor value's declared shape, or -1. */
static int value_rank(scope *s, const char *name)
{
    const Onnx__TypeProto *tp = opt_scope_type(s, name);
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
        !tp->tensor_type->shape)
        return -1;
    return (int)tp->tensor_type->shape->n_dim;
}

/* x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 with a one-element constant that cannot broadcast x
 * to a new shape or type: returns the index of x, or -1. */
static int neutral_operand(const Onnx__NodeProto *n, scope *s)
{
    if (n->n_input != 2 || !*opt_str(n->input[0]) || !*opt_str(n->input[1])) return -1;
    double unit;
    bool commutes;
    if (opt_is_op(n, "Add")) unit = 0, commutes = true;
    else if (opt_is_op(n, "Sub")) unit = 0, commutes = false;
    else if (opt_is_op(n, "Mul")) unit = 1, commutes = true;
    else if (opt_is_op(n, "Div")) unit = 1, commutes = false;
    else return -1;
    for (int ci = 1; ci >= (commutes ? 0 : 1); ci--) {
        const char *cn = n->input[ci], *xn = n->input[1 - ci];
        cval *v = opt_scope_val(s, cn);
        oe_tensor t;
        if (!v || v->not_const || !v->proto || ot_from_proto(v->proto, 1, &t) != OE_OK) continue;
        bool ok = t.numel == 1 && ot_get_f(&t, 0) == unit && t.dtype == opt_scope_elem(s, xn) &&
                  (t.rank == 0 || value_rank(s, xn) >= t.rank);
        ot_tensor_free(&t);
        if (ok) return 1 - ci;
    }
    return -1;
}

/* The static shape of name: declared, or evident from its producer (Reshape to an explicit
 * constant shape; Shape of a value of known rank). -1 if unknown. */
static int known_shape(scope *s, const hashmap *producer, const char *name, int64_t *dims)
{
    int rank = opt_static_shape(opt_scope_type(s, name), dims, NULL);
    if (rank >= 0) return rank;
    const Onnx__NodeProto *p = hm_get(producer, name);
    if (!p || p->n_output != 1) return -1;
    if (opt_is_op(p, "Reshape") && p->n_input == 2) {
        rank = opt_const_ints(s, opt_str(p->input[1]), dims, OE_MAX_RANK);
        for (int i = 0; i < rank; i++)
            if (dims[i] <= 0) return -1;
        return rank;
    }
    if (opt_is_op(p, "Shape") && p->n_input == 1) {
        int r = value_rank(s, opt_str(p->input[0]));
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
    if (!opt_is_default_domain(n->domain) || n->n_output != 1 || n->n_input < 1 || !*opt_str(n->input[0]))
        return false;
    if (opt_is_op(n, "Identity")) return n->n_input == 1;
    /* Variadic ops over one value (Max(a), Max(a, a), Concat(a), Sum(a)). */
    if (opt_is_op(n, "Max") || opt_is_op(n, "Min") || (opt_is_op(n, "Concat") && n->n_input == 1) ||
        (opt_is_op(n, "Sum") && n->n_input == 1) || (opt_is_op(n, "Mean") && n->n_input == 1)) {
        for (size_t i = 1; i < n->n_input; i++)
            if (strcmp(opt_str(n->input[i]), n->input[0])) return false;
        return true;
    }
    if (opt_is_op(n, "Transpose") && n->n_input == 1) {
        Onnx__AttributeProto *p = ox_node_attr(n, "perm");
        if (!p || p->ref_attr_name || !p->n_ints) return false;
        for (size_t i = 0; i < p->n_ints; i++)
            if (p->ints[i] != (int64_t)i) return false;
        return true;
    }
    if (opt_is_op(n, "Expand") && n->n_input == 2) {
        /* Expand(x, Shape(x)) */
        const Onnx__NodeProto *sh = hm_get(producer, opt_str(n->input[1]));
        if (sh && opt_is_op(sh, "Shape") && sh->n_input == 1 && !strcmp(opt_str(sh->input[0]), n->input[0]) &&
            (!ox_node_attr(sh, "start") || ox_node_attr(sh, "start")->i == 0) && !ox_node_attr(sh, "end"))
            return true;
    }
    if (opt_is_op(n, "Cast")) {
        Onnx__AttributeProto *to = ox_node_attr(n, "to");
        int et = opt_scope_elem(s, n->input[0]);
        return to && to->has_i && et && to->i == et;
    }
    if (opt_is_op(n, "CastLike") && n->n_input == 2) {
        int a = opt_scope_elem(s, n->input[0]), b = opt_scope_elem(s, opt_str(n->input[1]));
        return a && a == b;
    }
    if (opt_is_op(n, "Expand") && n->n_input == 2) {
        /* Expanding to exactly the input's shape changes nothing (onnxscript's ExpandIdentity
         * compares the dims as they are: an Expand to a shape the input broadcasts to stays). */
        int64_t dims[OE_MAX_RANK], want[OE_MAX_RANK];
        int rank = known_shape(s, producer, n->input[0], dims);
        if (rank < 0) return false;
        int k = opt_const_ints(s, opt_str(n->input[1]), want, OE_MAX_RANK);
        if (k != rank) return false;
        for (int i = 0; i < k; i++)
            if (want[i] != dims[i]) return false;
        return true;
    }
    if (opt_is_op(n, "Reshape") && n->n_input == 2) {
        /* The target shape is the static input shape as it is: onnxscript's folder compares the
         * two without resolving 0 (copy) or -1 (infer), so Reshape(x, [-1]) of a 1-D x stays. */
        int64_t dims[OE_MAX_RANK], want[OE_MAX_RANK];
        int rank = known_shape(s, producer, n->input[0], dims);
        if (rank < 0) return false;
        int k = opt_const_ints(s, opt_str(n->input[1]), want, OE_MAX_RANK);
        if (k != rank) return false;
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
    if (!opt_is_op(n, "Transpose") || n->n_input != 1 || n->n_output != 1) return false;
    Onnx__NodeProto *inner = hm_get(producer, opt_str(n->input[0]));
    if (!inner || !opt_is_op(inner, "Transpose") || inner->n_input != 1 || !*opt_str(inner->input[0])) return false;
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

/* Reshape(Squeeze(x), [-1]) of a 1-D x is x (onnxscript's SqueezeReshape1d, the pattern of a
 * SymInt turned back into a 1-D shape piece): x, else NULL. */
static const char *squeeze_reshape_1d(const Onnx__NodeProto *n, scope *s, const hashmap *producer)
{
    if (!opt_is_op(n, "Reshape") || n->n_input != 2) return NULL;
    const Onnx__NodeProto *sq = hm_get(producer, opt_str(n->input[0]));
    int64_t want[2];
    if (!sq || !opt_is_op(sq, "Squeeze") || sq->n_output != 1 || sq->n_input < 1 || !*opt_str(sq->input[0]) ||
        opt_const_ints(s, opt_str(n->input[1]), want, 2) != 1 || want[0] != -1)
        return NULL;
    const Onnx__TypeProto *tp = opt_scope_type(s, sq->input[0]);
    bool rank1 = tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type &&
                 tp->tensor_type->shape && tp->tensor_type->shape->n_dim == 1;
    return rank1 ? sq->input[0] : NULL;
}

/* Reshape(Reshape|Squeeze|Unsqueeze|Flatten(x, ...), s) → Reshape(x, s) when s is a constant
 * without 0 entries (a reshape depends only on the element count, which the inner op keeps). */
static bool collapse_reshapes(Onnx__NodeProto *n, scope *s, const hashmap *producer)
{
    if (!opt_is_op(n, "Reshape") || n->n_input != 2) return false;
    bool changed = false;
    for (int guard = 0; guard < 64; guard++) {
        Onnx__NodeProto *inner = hm_get(producer, opt_str(n->input[0]));
        if (!inner || inner->n_output != 1 || inner->n_input < 1 || !*opt_str(inner->input[0]) ||
            !(opt_is_op(inner, "Reshape") || opt_is_op(inner, "Squeeze") || opt_is_op(inner, "Unsqueeze") ||
              opt_is_op(inner, "Flatten")))
            break;
        int64_t want[OE_MAX_RANK];
        int k = opt_const_ints(s, opt_str(n->input[1]), want, OE_MAX_RANK);
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
    if (!opt_is_op(n, "Reshape") || n->n_input != 2) return false;
    const Onnx__NodeProto *cc = hm_get(producer, opt_str(n->input[1]));
    Onnx__AttributeProto *cax = cc ? ox_node_attr(cc, "axis") : NULL;
    if (!cc || !opt_is_op(cc, "Concat") || !cax || cax->i != 0) return false;
    const Onnx__TypeProto *tp = opt_scope_type(s, opt_str(n->input[0]));
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
        int pk = opt_const_ints(s, opt_str(cc->input[p]), part, OE_MAX_RANK);
        if (pk < 0) {
            const Onnx__NodeProto *sp = hm_get(producer, opt_str(cc->input[p]));
            if (!sp || !opt_is_op(sp, "Shape") || sp->n_input != 1 || strcmp(opt_str(sp->input[0]), n->input[0]))
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
    Onnx__TensorProto *t = ox_tensor_new(c->m, opt_fresh_name(c->m, &c->taken, arena_printf(&c->tmp, "%s_static", opt_str(n->input[1]))),
                                         7, (int64_t[]){k}, 1);
    ox_tensor_set_raw(c->m, t, target, (size_t)k * sizeof *target);
    ox_graph_add_initializer(c->m, c->m->proto->graph, t);
    cval *v = arena_alloc(&c->tmp, sizeof *v);
    v->proto = t;
    hm_put(&s->vals, t->name, v);
    n->input[1] = t->name;
    return true;
}

/* CastLike(x, like) of known, different element types → Cast <to> (x), as onnxscript's folder
 * replaces it: a new node, named by the graph's counter as onnx-ir names unnamed nodes. */
static bool castlike_to_cast(noop_ctx *c, Onnx__NodeProto *n, scope *s, int64_t *counter)
{
    if (!opt_is_op(n, "CastLike") || n->n_input != 2 || n->n_output != 1) return false;
    int a = opt_scope_elem(s, n->input[0]), b = opt_scope_elem(s, opt_str(n->input[1]));
    if (!a || !b || a == b) return false;
    n->op_type = ox_strdup(c->m, "Cast");
    n->name = arena_printf(&c->m->arena, "node_Cast_%lld", (long long)(*counter)++);
    n->n_input = 1;
    n->n_attribute = 0;
    ox_attr_int(c->m, n, "to", b);
    return true;
}

static void noop_graph(noop_ctx *c, Onnx__GraphProto *g, scope *parent, int depth)
{
    if (depth > c->o->max_depth) {
        if (!c->err) opt_too_deep(c->d, c->o->max_depth);
        c->err = 1;
        return;
    }
    scope s;
    opt_scope_init(&s, parent, g, &c->tmp);
    hashmap outs, ren, producer, ginputs;
    hm_init(&outs);
    hm_init(&ren);
    hm_init(&producer);
    hm_init(&ginputs);
    opt_graph_outputs(g, &outs);
    for (size_t i = 0; i < g->n_input; i++) hm_put(&ginputs, opt_str(g->input[i]->name), (void *)1);
    bool *dead = xcalloc(g->n_node + 1, 1);
    int64_t counter = opt_next_node_number(g);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        for (size_t k = 0; k < n->n_input; k++) n->input[k] = (char *)opt_resolve(&ren, n->input[k]);
        if (ox_node_has_subgraph(n)) {
            bool saved = s.no_infer;
            s.no_infer |= opt_is_op(n, "SequenceMap");
            FOR_SUBGRAPHS(n, sg, {
                opt_rename_uses(sg, &ren, true, depth + 1, c->o->max_depth);
                noop_graph(c, sg, &s, depth + 1);
            });
            s.no_infer = saved;
        }
        if (opt_is_op(n, "Constant") && n->n_attribute == 1 && n->attribute[0]->t && n->n_output == 1) {
            cval *v = arena_alloc(&c->tmp, sizeof *v);
            v->proto = n->attribute[0]->t;
            hm_put(&s.vals, opt_str(n->output[0]), v);
        }
        for (size_t k = 0; k < n->n_output; k++)
            if (*opt_str(n->output[k])) hm_put(&producer, n->output[k], n);
        const char *in = NULL;
        if (fuse_transposes(c, n, &producer, &in)) c->st->noops++;
        if (!in) in = squeeze_reshape_1d(n, &s, &producer);
        if (!in && collapse_reshapes(n, &s, &producer)) c->st->noops++;
        if (static_reshape_target(c, n, &s, &producer)) c->st->noops++;
        if (castlike_to_cast(c, n, &s, &counter)) c->st->noops++;
        opt_infer_elem(&s, n);
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
                if (!strcmp(opt_str(pn->output[k]), in)) pn->output[k] = (char *)out;
            hm_put(&ren, in, (void *)out);
            hm_put(&producer, out, pn);
            /* Earlier consumers of `in` were already rewritten; fix them below. */
        }
        dead[i] = true;
        c->st->noops++;
    }
    opt_compact_nodes(g, dead);
    free(dead);
    /* A second sweep applies renames created after their consumers were visited. */
    opt_rename_uses(g, &ren, false, depth, c->o->max_depth);
    hm_free(&outs);
    hm_free(&ren);
    hm_free(&producer);
    hm_free(&ginputs);
    opt_scope_free(&s);
}

bool opt_remove_noops(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!st) st = &sb;
    if (!m->proto->graph) return true;
    noop_ctx c = {.m = m, .o = o, .st = st, .d = d};
    arena_init(&c.tmp);
    hm_init(&c.taken);
    opt_collect_names(m->proto->graph, &c.taken, 0, o->max_depth);
    noop_graph(&c, m->proto->graph, NULL, 0);
    hm_free(&c.taken);
    arena_free(&c.tmp);
    return !c.err;
}
