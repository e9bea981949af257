/* translate_embedding_bag.c — aten.embedding_bag (and .padding_idx, _embedding_bag,
 * _embedding_bag_forward_only) without torchlib's Loop: each index's bag is the number of
 * offsets at or before its position, a [n, bags] membership matrix (padding_idx and indices
 * past include_last_offset's end left out) sums (MatMul), averages or maxes the gathered rows
 * (per_sample_weights scale them). Only the first output, the bags, is exported. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "translate/translate_internal.h"

static const char *cast(tx *t, const char *x, int to)
{
    Onnx__NodeProto *nd = tx_emit(t, "Cast", "", NULL);
    ox_attr_int(t->m, nd, "to", to);
    ox_node_add_input(t->m, nd, x);
    const char *o = tx_fresh_val(t);
    ox_node_add_output(t->m, nd, o);
    return o;
}

/* static size d of a node's tensor, or -1 */
static int64_t size_of(const fx_node *n, size_t d)
{
    const fx_value *v = tx_node_val(n);
    if (!v || v->kind != FX_VAL_TENSOR || !v->sizes || d >= v->rank) return -1;
    char *end;
    long long s = strtoll(v->sizes[d], &end, 10);
    return *end || end == v->sizes[d] ? -1 : s;
}

/* b: weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
 * include_last_offset[, padding_idx] */
/* pad: 0 no padding_idx argument, 1 an int where negative means none (_embedding_bag), 2 an int?
 * where negative counts from the end (embedding_bag.padding_idx) */
static bool embedding_bag(tx *t, const fx_node *n, const fx_arg **b, int has_pad)
{
    for (size_t u = 0; u < n->n_users; u++) {   /* users: getitem 0 only */
        const fx_node *g = n->users[u];
        const fx_arg *ix = g->args && g->args->u.seq.len > 1 ? g->args->u.seq.items[1] : NULL;
        if (!g->target || !strstr(g->target, "getitem") || !ix || ix->kind != FX_ARG_INT || ix->u.i != 0) {
            tx_fail_node(t, n, "embedding_bag: only its first output (the bags) can be exported; offset2bag, "
                               "bag_size and max_indices have no lowering");
            return false;
        }
    }
    int64_t mode = b[4] && b[4]->kind == FX_ARG_INT ? b[4]->u.i : 0, pad = -1;
    bool last = b[7] && b[7]->kind == FX_ARG_BOOL && b[7]->u.b;
    bool psw = b[6] && b[6]->kind == FX_ARG_NODE;
    if (has_pad && b[8] && b[8]->kind == FX_ARG_INT) pad = b[8]->u.i;
    if (has_pad == 2 && pad < 0 && b[8] && b[8]->kind == FX_ARG_INT && b[0] && b[0]->kind == FX_ARG_NODE) {
        int64_t rows = size_of(b[0]->u.node, 0);
        if (rows < 0 || pad < -rows) {
            tx_fail_node(t, n, "embedding_bag: a negative padding_idx needs the weight's static size, and within it");
            return false;
        }
        pad += rows;
    }
    if (mode < 0 || mode > 2 || (psw && mode != 0)) {
        tx_fail_node(t, n, "embedding_bag needs mode sum (0), mean (1) or max (2); per_sample_weights only with sum");
        return false;
    }
    if (!b[0] || b[0]->kind != FX_ARG_NODE || !b[1] || b[1]->kind != FX_ARG_NODE || !b[2] || b[2]->kind != FX_ARG_NODE ||
        tx_rank_of_node(b[1]->u.node) != 1 || tx_rank_of_node(b[2]->u.node) != 1) {
        tx_fail_node(t, n, "embedding_bag needs 1-d indices and offsets");
        return false;
    }
    int64_t ni = size_of(b[1]->u.node, 0), no = size_of(b[2]->u.node, 0), bags = last ? no - 1 : no;
    int dt = tx_onnx_dtype_of_node(b[0]->u.node);
    if (ni < 0 || no < 0 || bags < 0 || !tx_is_float_type(dt)) {
        tx_fail_node(t, n, "embedding_bag needs indices and offsets of static size and a floating-point weight");
        return false;
    }
    const char *w = tx_single(t, n, b[0]->u.node), *idx = tx_single(t, n, b[1]->u.node);
    const char *off = tx_single(t, n, b[2]->u.node), *ps = psw ? tx_single(t, n, b[6]->u.node) : NULL;
    if (!w || !idx || !off || (psw && !ps)) return false;
    int64_t zero = 0, one = 1, nb = bags;
    int64_t *pos = arena_alloc(&t->a, (size_t)(ni + bags + 1) * sizeof *pos), *ids = pos + ni;
    for (int64_t i = 0; i < ni; i++) pos[i] = i;
    for (int64_t i = 0; i < bags; i++) ids[i] = i;
    const char *c0 = tx_const_ints(t, &zero, 1), *c1 = tx_const_ints(t, &one, 1);
    const char *rows = tx_emit2(t, "Gather", w, idx, NULL, NULL);
    if (psw) rows = tx_emit2(t, "Mul", rows, tx_emit2(t, "Unsqueeze", ps, c1, NULL, NULL), NULL, NULL);
    const char *posv = tx_const_ints(t, pos, (size_t)ni), *posc = tx_emit2(t, "Unsqueeze", posv, c1, NULL, NULL);
    const char *starts = last ? tx_emitn(t, "Slice", (const char *[]){ off, c0, tx_const_ints(t, &nb, 1) }, 3, NULL, NULL)
                              : off;
    const char *at = tx_emit2(t, "LessOrEqual", tx_emit2(t, "Unsqueeze", starts, c0, NULL, NULL), posc, NULL, NULL);
    const char *bag = tx_emit2(t, "Sub", tx_emit_reduce(t, "ReduceSum", cast(t, at, 7), c1, 0, NULL, NULL), c1, NULL,
                               NULL);
    const char *member = tx_emit2(t, "Equal", tx_emit2(t, "Unsqueeze", bag, c1, NULL, NULL),
                                  tx_const_ints(t, ids, (size_t)bags), NULL, NULL);
    const char *valid = NULL;
    if (pad >= 0) valid = tx_emit1(t, "Not", tx_emit2(t, "Equal", idx, tx_const_scalar(t, 7, 0, pad, false), NULL, NULL),
                                   NULL, NULL);
    if (last) {
        const char *end = tx_emit2(t, "Gather", off, tx_const_scalar(t, 7, 0, nb, false), NULL, NULL);
        const char *in = tx_emit2(t, "Less", posv, end, NULL, NULL);
        valid = valid ? tx_emit2(t, "And", valid, in, NULL, NULL) : in;
    }
    if (valid) member = tx_emit2(t, "And", member, tx_emit2(t, "Unsqueeze", valid, c1, NULL, NULL), NULL, NULL);
    const char *mf = cast(t, member, dt);
    const char *name = tx_node_name_of(t, n);
    const int64_t perm[2] = { 1, 0 };
    Onnx__NodeProto *tr = tx_emit(t, "Transpose", "", NULL);
    ox_attr_ints(t->m, tr, "perm", perm, 2);
    ox_node_add_input(t->m, tr, mode == 2 ? member : mf);
    const char *mt = tx_fresh_val(t);
    ox_node_add_output(t->m, tr, mt);
    const char **outs = tx_output_names(t, n, 4);
    tx_set_val(t, n, outs, 4);
    const char *out = outs[0];
    if (mode == 0) {
        tx_emit2(t, "MatMul", mt, rows, out, name);
        return true;
    }
    const char *cnt = tx_emit2(t, "Unsqueeze", tx_emit_reduce(t, "ReduceSum", mf, c0, 0, NULL, NULL), c1, NULL, NULL);
    if (mode == 1) {
        const char *sum = tx_emit2(t, "MatMul", mt, rows, NULL, NULL);
        tx_emit2(t, "Div", sum, tx_emit2(t, "Max", cnt, tx_const_scalar(t, dt, 1.0, 0, true), NULL, NULL), out, name);
        return true;
    }
    int64_t two = 2;
    /* made last operand first: the values are numbered in this order */
    const char *ninf = tx_const_scalar(t, dt, -INFINITY, 0, true);
    const char *rows3 = tx_emit2(t, "Unsqueeze", rows, c0, NULL, NULL);
    const char *mask3 = tx_emit2(t, "Unsqueeze", mt, tx_const_ints(t, &two, 1), NULL, NULL);
    const char *sel = tx_emitn(t, "Where", (const char *[]){ mask3, rows3, ninf }, 3, NULL, NULL);
    const char *mx = tx_emit_reduce(t, "ReduceMax", sel, c1, 0, NULL, NULL);
    const char *zero_f = tx_const_scalar(t, dt, 0.0, 0, true);
    const char *some = tx_emit2(t, "Greater", cnt, zero_f, NULL, NULL);
    Onnx__NodeProto *wh = tx_emit(t, "Where", "", name);
    ox_node_add_input(t->m, wh, some);
    ox_node_add_input(t->m, wh, mx);
    ox_node_add_input(t->m, wh, zero_f);
    ox_node_add_output(t->m, wh, out);
    return true;
}

static bool b_embedding_bag(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    return embedding_bag(t, n, b, 0);
}

static bool b_embedding_bag_padding_idx(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    return embedding_bag(t, n, b, strcmp(rule->target, "aten.embedding_bag.padding_idx") ? 1 : 2);
}

static const tx_builtin_entry builtins[] = {
    { "embedding_bag", b_embedding_bag, 8 }, { "embedding_bag_padding_idx", b_embedding_bag_padding_idx, 9 },
};

const builtin_family tx_embedding_bag_builtins = BUILTIN_FAMILY("embedding_bag", builtins);
