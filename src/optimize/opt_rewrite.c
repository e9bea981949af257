/* opt_rewrite.c — pattern rewrites: SplitToSequence + SequenceAt → Split, Conv / ConvTranspose / Gemm + BatchNormalization → one node. */
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
    int64_t *sizes;    /* an uneven chunked split: the sizes Split takes (a new constant), else NULL */
    bool bad;
    int64_t const_no, split_no;   /* the numbers onnx-ir names its new nodes with */
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

/* Puts each new node pairs[2i] right before the node pairs[2i+1] of g (one pass over g). */
static void insert_before(ox_model *m, Onnx__GraphProto *g, Onnx__NodeProto **pairs, size_t n)
{
    if (!n) return;
    hashmap at;
    hm_init(&at);
    for (size_t i = 0; i < n; i++) hm_put(&at, arena_printf(&m->arena, "%p", (void *)pairs[2 * i + 1]), pairs[2 * i]);
    Onnx__NodeProto **nodes = ox_alloc(m, (g->n_node + n) * sizeof *nodes);
    size_t k = 0;
    for (size_t i = 0; i < g->n_node; i++) {
        char key[32];
        snprintf(key, sizeof key, "%p", (void *)g->node[i]);
        Onnx__NodeProto *nw = hm_get(&at, key);
        if (nw) nodes[k++] = nw;
        nodes[k++] = g->node[i];
    }
    g->node = nodes;
    g->n_node = k;
    hm_free(&at);
}

static void split_graph(split_ctx *c, Onnx__GraphProto *g, scope *parent, int depth)
{
    if (depth > c->o->max_depth) return;
    scope s;
    opt_scope_init(&s, parent, g, &c->tmp);
    hashmap cands;
    hm_init(&cands);
    VEC(seq_cand *) order = {0};
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        FOR_SUBGRAPHS(n, sg, split_graph(c, sg, &s, depth + 1));
        if (opt_is_op(n, "Constant") && n->n_attribute == 1 && n->attribute[0]->t && n->n_output == 1) {
            cval *v = arena_alloc(&c->tmp, sizeof *v);
            v->proto = n->attribute[0]->t;
            hm_put(&s.vals, opt_str(n->output[0]), v);
        }
        if (opt_is_op(n, "SplitToSequence") && n->n_input == 2 && n->n_output == 1 && *opt_str(n->output[0])) {
            int64_t sizes[64], axis = -1;
            bool uneven = false;
            int k = opt_const_ints(&s, opt_str(n->input[1]), sizes, 64);
            if (k <= 0) {
                /* A scalar chunk size that divides a static dimension: Split's num_outputs
                 * (opset 18) expresses it exactly. */
                cval *v = opt_scope_val(&s, opt_str(n->input[1]));
                int64_t dims[OE_MAX_RANK];
                int rank = opt_static_shape(opt_scope_type(&s, opt_str(n->input[0])), dims, NULL);
                Onnx__AttributeProto *ax = ox_node_attr(n, "axis");
                oe_tensor t;
                if (!v || v->not_const || !v->proto || rank < 1 || c->opset < 18 ||
                    ot_from_proto(v->proto, 1, &t) != OE_OK)
                    continue;
                int64_t chunk = t.rank == 0 && (t.dtype == 6 || t.dtype == 7) ? ot_get_i(&t, 0) : 0;
                ot_tensor_free(&t);
                axis = ax && ax->has_i ? ax->i : 0;
                if (axis < 0) axis += rank;
                if (chunk <= 0 || axis < 0 || axis >= rank || (dims[axis] + chunk - 1) / chunk > 64)
                    continue;
                k = (int)((dims[axis] + chunk - 1) / chunk);
                if (dims[axis] % chunk) {
                    /* an uneven split: the last chunk is smaller, so Split takes the sizes */
                    for (int q = 0; q < k; q++) sizes[q] = q + 1 < k ? chunk : dims[axis] - (k - 1) * chunk;
                    uneven = true;
                }
            }
            seq_cand *cd = arena_alloc(&c->tmp, sizeof *cd);
            cd->split = n;
            cd->pieces = k;
            cd->axis = uneven ? -1 : axis;
            if (uneven) {
                cd->sizes = arena_alloc(&c->tmp, (size_t)k * sizeof *cd->sizes);
                memcpy(cd->sizes, sizes, (size_t)k * sizeof *sizes);
            }
            hm_put(&cands, n->output[0], cd);
            vec_push(&order, cd);
            continue;
        }
        if (opt_is_op(n, "SequenceAt") && n->n_input == 2 && n->n_output == 1) {
            seq_cand *cd = hm_get(&cands, opt_str(n->input[0]));
            if (!cd) continue;
            oe_tensor t;
            cval *v = opt_scope_val(&s, opt_str(n->input[1]));
            if (!v || v->not_const || !v->proto || ot_from_proto(v->proto, 1, &t) != OE_OK) {
                cd->bad = true;
                continue;
            }
            int64_t idx = ot_get_i(&t, 0);
            bool integral = t.dtype == 6 || t.dtype == 7;
            ot_tensor_free(&t);
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
    /* onnx-ir's counter as onnxscript's folder spends it, visiting the nodes in order: a rewritten
     * SplitToSequence makes [a sizes Constant,] a Split and a SequenceConstruct, each SequenceAt
     * it feeds an Identity; the SequenceConstruct and Identities go away later, their numbers
     * spent. */
    int64_t counter = opt_next_node_number(g);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        bool split = opt_is_op(n, "SplitToSequence");
        if (!split && !opt_is_op(n, "SequenceAt")) continue;
        seq_cand *cd = n->n_output && n->n_input ? hm_get(&cands, opt_str(split ? n->output[0] : n->input[0])) : NULL;
        if (!cd || cd->bad || !cd->nuses || (size_t)(uintptr_t)hm_get(&c->uses, cd->split->output[0]) != cd->nuses) continue;
        if (!split) {
            counter++;
            continue;
        }
        cd->const_no = cd->sizes ? counter++ : -1;
        cd->split_no = counter++;
        counter++;
    }
    hashmap gouts, vis;
    hm_init(&gouts);
    hm_init(&vis);
    opt_graph_outputs(g, &gouts);
    for (size_t i = 0; i < g->n_value_info; i++)
        if (g->value_info[i]->name) hm_put(&vis, g->value_info[i]->name, g->value_info[i]);
    VEC(Onnx__NodeProto *) before = {0};     /* pairs: a new node, the node it goes before */
    for (size_t q = 0; q < order.len; q++) {
        seq_cand *cd = order.items[q];
        Onnx__NodeProto *n = cd->split;
        /* Every use of the sequence must be one of these SequenceAt nodes. */
        if (cd->bad || !cd->nuses || (size_t)(uintptr_t)hm_get(&c->uses, n->output[0]) != cd->nuses) continue;
        /* onnxscript names the pieces <seq>_split_<i> and replaces each SequenceAt by its piece:
         * a piece keeps that name unless a graph output reads it (the output's name stays) */
        char **outs = ox_alloc(c->m, (size_t)cd->pieces * sizeof *outs);
        for (seq_use *u = cd->uses; u; u = u->next)     /* later nodes first: the earliest wins */
            if (hm_has(&gouts, opt_str(g->node[u->node]->output[0]))) outs[u->piece] = g->node[u->node]->output[0];
        for (int64_t p = 0; p < cd->pieces; p++)
            if (!outs[p])
                outs[p] = opt_fresh_name(c->m, &c->taken, arena_printf(&c->tmp, "%s_split_%lld", n->output[0], (long long)p));
        for (seq_use *u = cd->uses; u; u = u->next) {
            Onnx__NodeProto *at = g->node[u->node];
            if (strcmp(at->output[0], outs[u->piece])) {
                hm_put(&ren, at->output[0], outs[u->piece]);
                /* the piece takes the type the SequenceAt's value had (onnx-ir merges them) */
                Onnx__ValueInfoProto *vi = hm_get(&vis, at->output[0]);
                if (vi && vi->type && !hm_has(&vis, outs[u->piece]))
                    hm_put(&vis, outs[u->piece], ox_graph_add_value_info(c->m, g, outs[u->piece], vi->type));
            }
            dead[u->node] = true;
        }
        Onnx__AttributeProto *axis = ox_node_attr(n, "axis");
        if (cd->sizes) {
            /* onnxscript's rewrite makes the sizes a Constant <out>_split_sizes, then the Split:
             * new nodes, named by the graph's counter as onnx-ir names unnamed nodes */
            Onnx__NodeProto *k = ox_node_new(c->m, "Constant", "",
                                             arena_printf(&c->tmp, "node_Constant_%lld", (long long)cd->const_no));
            char *sz = opt_fresh_name(c->m, &c->taken, arena_printf(&c->tmp, "%s_split_sizes", n->output[0]));
            int64_t dim = cd->pieces;
            Onnx__TensorProto *t = ox_tensor_new(c->m, sz, 7, &dim, 1);
            ox_tensor_set_int64s(c->m, t, cd->sizes, (size_t)cd->pieces);
            ox_attr_tensor(c->m, k, "value", t);
            ox_node_add_output(c->m, k, sz);
            n->input[1] = sz;
            vec_push(&before, k);
            vec_push(&before, n);
        }
        n->name = ox_strdup(c->m, arena_printf(&c->tmp, "node_Split_%lld", (long long)cd->split_no));
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
    opt_compact_nodes(g, dead);
    insert_before(c->m, g, before.items, before.len / 2);
    vec_free(&before);
    hm_free(&gouts);
    hm_free(&vis);
    opt_rename_uses(g, &ren, true, depth, c->o->max_depth);
    free(dead);
    hm_free(&ren);
    vec_free(&order);
    hm_free(&cands);
    opt_scope_free(&s);
}

bool opt_rewrite_split_to_sequence(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!st) st = &sb;
    (void)d;
    if (!m->proto->graph || ox_model_opset(m, "") < 13) return true;   /* Split takes sizes as an input from 13 */
    split_ctx c = {.m = m, .o = o, .st = st, .opset = ox_model_opset(m, "")};
    hm_init(&c.uses);
    hm_init(&c.taken);
    arena_init(&c.tmp);
    ox_graph_walk(m->proto->graph, o->max_depth, opt_count_uses, &c.uses);
    ox_graph_walk(m->proto->graph, o->max_depth, opt_count_output_uses, &c.uses);
    opt_collect_names(m->proto->graph, &c.taken, 0, o->max_depth);
    split_graph(&c, m->proto->graph, NULL, 0);
    hm_free(&c.uses);
    hm_free(&c.taken);
    arena_free(&c.tmp);
    return true;
}

/* ---- rewrite: Conv, ConvTranspose or Gemm followed by inference BatchNormalization → one node */

/* The constant tensor behind name in the main graph (initializer or Constant node), or NULL. */
static Onnx__TensorProto *main_const(hashmap *consts, const char *name)
{
    return *opt_str(name) ? hm_get(consts, name) : NULL;
}

/* The axis of the producer's weight that holds its output channels (onnxscript's
 * fuse_batchnorm rules): Conv [out, in/g, k...] 0; ConvTranspose [in, out/g, k...] 1, group 1
 * only (with groups a channel is not one index of an axis); Gemm 0 with transB, else 1, and only
 * with beta 1 (the bias is scaled by beta). -1 when the node cannot take the fusion. */
static int out_channel_axis(const Onnx__NodeProto *n, const Onnx__TensorProto *w)
{
    if (opt_is_op(n, "Conv")) return w->n_dims >= 3 ? 0 : -1;
    if (opt_is_op(n, "ConvTranspose")) {
        Onnx__AttributeProto *g = ox_node_attr(n, "group");
        return w->n_dims >= 3 && (!g || g->i == 1) ? 1 : -1;
    }
    Onnx__AttributeProto *beta = ox_node_attr(n, "beta"), *tb = ox_node_attr(n, "transB");
    if (w->n_dims != 2 || (beta && beta->f != 1.0f)) return -1;
    return tb && tb->i ? 0 : 1;
}

/* Folds bn into conv (a Conv, ConvTranspose or Gemm): W' = W * f along the output channels and
 * B' = (B - mean) * f + beta, with f = scale / sqrt(var + epsilon), in double and rounded once
 * to the weight's type. The weight is not computed here: it becomes a derived tensor
 * (onnx/onnx_derive.h), computed as save writes it. */
static int fuse_one(ox_model *m, ox_derive *dv, hashmap *consts, hashmap *uses, hashmap *taken, hashmap *init_idx,
                    Onnx__GraphProto *g, Onnx__NodeProto *conv, Onnx__NodeProto *bn, arena *tmp)
{
    if (bn->n_input != 5 || bn->n_output != 1 || conv->n_input < 2 || conv->n_output != 1) return 0;
    Onnx__AttributeProto *tm = ox_node_attr(bn, "training_mode");
    if (tm && tm->i) return 0;
    Onnx__AttributeProto *epsa = ox_node_attr(bn, "epsilon");
    double eps = epsa ? epsa->f : 1e-5;
    Onnx__TensorProto *wp = main_const(consts, conv->input[1]);
    Onnx__TensorProto *bp = conv->n_input > 2 ? main_const(consts, conv->input[2]) : NULL;
    if (!wp || (conv->n_input > 2 && *opt_str(conv->input[2]) && !bp)) return 0;
    int wt = wp->data_type, axis = out_channel_axis(conv, wp);
    if (!ox_derive_scale_supported(wt) || axis < 0 || wp->n_dims > OE_MAX_RANK || wp->dims[axis] <= 0) return 0;
    int64_t ch = wp->dims[axis];
    oe_tensor b = {0}, p[4];
    int np = 0;
    for (; np < 4; np++) {
        Onnx__TensorProto *tp = main_const(consts, bn->input[1 + np]);
        if (!tp || ot_from_proto(tp, 0, &p[np]) != OE_OK) break;
        if (!oe_is_float(p[np].dtype) || p[np].numel != ch) {
            ot_tensor_free(&p[np]);
            break;
        }
    }
    int ok = np == 4;
    /* a bias of ch values along the channels (Gemm's C may also be [1, ch]) */
    if (ok && bp) ok = ot_from_proto(bp, 0, &b) == OE_OK && b.dtype == wt && b.numel == ch &&
                       (b.rank == 1 || (b.rank == 2 && b.dims[0] == 1 && opt_is_op(conv, "Gemm")));
    double *f = ok ? xmalloc((size_t)ch * sizeof *f) : NULL;
    if (ok) {
        oe_tensor nb;
        ot_tensor_init(&nb, wt, &ch, 1);
        for (int64_t o = 0; o < ch; o++) {
            f[o] = ot_get_f(&p[0], o) / sqrt(ot_get_f(&p[3], o) + eps);
            double bias = bp ? ot_get_f(&b, o) : 0;
            ot_set_f(&nb, o, (bias - ot_get_f(&p[2], o)) * f[o] + ot_get_f(&p[1], o));
        }
        /* The fused weight keeps the weight's name when nothing else reads it (as onnxscript
         * does); the bias is named after the old bias, or "<weight>_bias". */
        const char *wname = conv->input[1];
        uintptr_t wi = (uintptr_t)hm_get(init_idx, wname);
        uintptr_t bi = bp ? (uintptr_t)hm_get(init_idx, conv->input[2]) : 0;
        if ((uintptr_t)hm_get(uses, wname) != 1) wi = 0;
        if (bp && (uintptr_t)hm_get(uses, conv->input[2]) != 1) bi = 0;
        Onnx__TensorProto *nw = ox_tensor_new(m, wname, wt, wp->dims, wp->n_dims);
        ok = ox_derive_scale(dv, nw, wp, axis, f, ch);
        if (ok) {
            if (!wi) nw->name = opt_fresh_name(m, taken, arena_printf(tmp, "%s_fused", wname));
            const char *bname = bi ? conv->input[2] : opt_fresh_name(m, taken, arena_printf(tmp, "%s_bias", wname));
            Onnx__TensorProto *nbp = ot_to_proto(m, &nb, bname);
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
        }
        ot_tensor_free(&nb);
    }
    free(f);
    for (int i = 0; i < np; i++) ot_tensor_free(&p[i]);
    ot_tensor_free(&b);
    return ok;
}

bool opt_fuse_conv_batchnorm(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!st) st = &sb;
    (void)d;
    Onnx__GraphProto *g = m->proto->graph;
    if (!g) return true;
    hashmap uses, consts, producer, taken, inputs;
    hm_init(&uses);
    hm_init(&consts);
    hm_init(&producer);
    hm_init(&taken);
    hm_init(&inputs);
    arena tmp;
    arena_init(&tmp);
    ox_graph_walk(g, o->max_depth, opt_count_uses, &uses);
    ox_graph_walk(g, o->max_depth, opt_count_output_uses, &uses);
    opt_collect_names(g, &taken, 0, o->max_depth);
    for (size_t i = 0; i < g->n_input; i++) hm_put(&inputs, opt_str(g->input[i]->name), (void *)1);
    hashmap init_idx;   /* initializer name → index + 1 */
    hm_init(&init_idx);
    for (size_t i = 0; i < g->n_initializer; i++)
        if (!hm_has(&inputs, opt_str(g->initializer[i]->name))) {
            hm_put(&consts, opt_str(g->initializer[i]->name), g->initializer[i]);
            hm_put(&init_idx, opt_str(g->initializer[i]->name), (void *)(uintptr_t)(i + 1));
        }
    bool *dead = xcalloc(g->n_node + 1, 1);
    ox_derive *dv = ox_derive_begin(m);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        if (opt_is_op(n, "Constant") && n->n_attribute == 1 && n->attribute[0]->t && n->n_output == 1 &&
            !strcmp(opt_str(n->attribute[0]->name), "value"))
            hm_put(&consts, opt_str(n->output[0]), n->attribute[0]->t);
        for (size_t k = 0; k < n->n_output; k++) hm_put(&producer, opt_str(n->output[k]), (void *)(uintptr_t)(i + 1));
        if (!opt_is_op(n, "BatchNormalization") || n->n_input < 1) continue;
        uintptr_t pi = (uintptr_t)hm_get(&producer, opt_str(n->input[0]));
        if (!pi || dead[pi - 1]) continue;
        Onnx__NodeProto *conv = g->node[pi - 1];
        if (!(opt_is_op(conv, "Conv") || opt_is_op(conv, "ConvTranspose") || opt_is_op(conv, "Gemm")) ||
            (uintptr_t)hm_get(&uses, opt_str(conv->output[0])) != 1)
            continue;
        if (fuse_one(m, dv, &consts, &uses, &taken, &init_idx, g, conv, n, &tmp)) {
            dead[i] = true;
            st->rewritten++;
        }
    }
    ox_derive_end(dv);
    opt_compact_nodes(g, dead);
    free(dead);
    hm_free(&uses);
    hm_free(&consts);
    hm_free(&producer);
    hm_free(&taken);
    hm_free(&inputs);
    hm_free(&init_idx);
    arena_free(&tmp);
    return true;
}
