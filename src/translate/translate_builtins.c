/* translate_builtins.c — lowerings written in C, for what a table cannot express (pooling with computed
 * kernels, interpolation, SDPA, indexing, scatter, torch.onnx.ops.symbolic), and their table. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/vec.h"
#include "translate/translate.h"
#include "translate/translate_internal.h"
#include "translate/translate_meta.h"

/* ---- builtin (C) lowerings ---- */

const char *tx_one_output(tx *t, const fx_node *n)
{
    const char **r = tx_output_names(t, n, 1);
    tx_set_val(t, n, r, 1);
    tx_add_value_info(t, r[0], tx_node_val(n));
    return r[0];
}

const char *tx_node_name_of(tx *t, const fx_node *n)
{
    return arena_printf(&t->a, "node_%s", n->name);
}

static bool arg_int(const fx_arg *a, int64_t *v)
{
    if (a->kind == FX_ARG_INT) { *v = a->u.i; return true; }
    if (a->kind == FX_ARG_BOOL) { *v = a->u.b; return true; }
    return false;
}

static const char *input_of(tx *t, const fx_node *n, const fx_arg *a)
{
    if (a->kind != FX_ARG_NODE) { tx_fail_node(t, n, "expected a tensor argument"); return NULL; }
    return tx_single(t, n, a->u.node);
}

static bool b_transpose(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    int r = b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    int64_t d0, d1;
    if (!x || !arg_int(b[1], &d0) || !arg_int(b[2], &d1) || r < 0) {
        tx_fail_node(t, n, "transpose needs the input's rank (tensor meta) and constant dims");
        return false;
    }
    if (d0 < 0) d0 += r;
    if (d1 < 0) d1 += r;
    int64_t *perm = arena_alloc(&t->a, ((size_t)r + 1) * sizeof *perm);
    for (int i = 0; i < r; i++) perm[i] = i;
    if (d0 >= 0 && d0 < r && d1 >= 0 && d1 < r) { perm[d0] = d1; perm[d1] = d0; }
    const char *out = tx_one_output(t, n);
    Onnx__NodeProto *nd = tx_emit(t, "Transpose", "", tx_node_name_of(t, n));
    ox_attr_ints(t->m, nd, "perm", perm, (size_t)r);
    ox_node_add_input(t->m, nd, x);
    ox_node_add_output(t->m, nd, out);
    return true;
}

/* One of Slice's 1-D operands the way torchlib's aten_slice makes it: a given int or SymInt is
 * Cast to INT64 and Reshaped to [-1] (the int a Constant of the farm, the [-1] its own Constant);
 * an absent one (None) is Constant <value_ints = [dflt]>. The optimizer folds either to one
 * initializer, named as torch.onnx's is. */
static const char *slice_operand(tx *t, const fx_node *n, const fx_arg *a, int64_t dflt)
{
    const char *v;
    if (a->kind == FX_ARG_NONE) return tx_own_ints(t, &dflt, 1);
    if (a->kind == FX_ARG_NODE) v = tx_single(t, n, a->u.node);
    else {
        int64_t k;
        if (!arg_int(a, &k)) { tx_fail_node(t, n, "slice: start, end, dim and step must be ints or SymInts"); return NULL; }
        v = tx_const_scalar(t, OT_INT64, 0, k, false);
    }
    if (!v) return NULL;
    Onnx__NodeProto *cast = tx_emit(t, "Cast", "", NULL);
    ox_attr_int(t->m, cast, "to", OT_INT64);
    ox_node_add_input(t->m, cast, v);
    const char *c64 = tx_fresh_val(t);
    ox_node_add_output(t->m, cast, c64);
    int64_t m1 = -1;
    return tx_emit2(t, "Reshape", c64, tx_own_ints(t, &m1, 1), NULL, NULL);
}

static const fx_arg *kwarg(const fx_node *n, const char *key);

static bool b_slice(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    if (!x) return false;
    const char *starts = slice_operand(t, n, b[2], 0);
    const char *ends = starts ? slice_operand(t, n, b[3], INT64_MAX) : NULL;
    const char *axes = ends ? slice_operand(t, n, b[1], 0) : NULL;
    /* a step the FX node leaves out is torchlib's None (its Constant [1]), not the schema's 1 */
    bool step_given = (n->args && n->args->u.seq.len > 4) || kwarg(n, "step");
    static const fx_arg none = {.kind = FX_ARG_NONE};
    const char *steps = axes ? slice_operand(t, n, step_given ? b[4] : &none, 1) : NULL;
    if (!steps) return false;
    const char *out = tx_one_output(t, n);
    Onnx__NodeProto *nd = tx_emit(t, "Slice", "", tx_node_name_of(t, n));
    const char *ins[] = {x, starts, ends, axes, steps};
    for (size_t i = 0; i < 5; i++) ox_node_add_input(t->m, nd, ins[i]);
    ox_node_add_output(t->m, nd, out);
    return true;
}

static bool static_sizes(const fx_node *n, int64_t **out, size_t *rank, arena *a);
static bool static_trailing_sizes(const fx_node *n, size_t k, int64_t **out, size_t *rank, arena *a);

static bool b_flip(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    if (!x || (b[1]->kind != FX_ARG_LIST && b[1]->kind != FX_ARG_TUPLE)) return false;
    size_t k = b[1]->u.seq.len;
    int64_t *st = arena_alloc(&t->a, (k + 1) * sizeof *st), *en = arena_alloc(&t->a, (k + 1) * sizeof *en);
    for (size_t i = 0; i < k; i++) { st[i] = -1; en[i] = INT64_MIN; }
    /* an empty tensor flips to itself; ONNX's Slice inference gets a reversed slice of a size-0
     * dim wrong (size 1), so the model would fail the checker (torch's does) */
    int64_t *sz;
    size_t r;
    if (b[0]->kind == FX_ARG_NODE && static_sizes(b[0]->u.node, &sz, &r, &t->a))
        for (size_t i = 0; i < r; i++)
            if (sz[i] == 0) {
                tx_emit1(t, "Identity", x, tx_one_output(t, n), tx_node_name_of(t, n));
                return true;
            }
    if (k == 0) {   /* nothing to flip */
        tx_emit1(t, "Identity", x, tx_one_output(t, n), tx_node_name_of(t, n));
        return true;
    }
    int64_t *dims = arena_alloc(&t->a, (k + 1) * sizeof *dims);
    for (size_t i = 0; i < k; i++)
        if (!arg_int(b[1]->u.seq.items[i], &dims[i])) { tx_fail_node(t, n, "flip needs constant dims"); return false; }
    /* torchlib's aten_flip: its own Constants for starts (also the steps), ends and dims */
    const char *starts = tx_own_ints(t, st, k), *ends = tx_own_ints(t, en, k);
    const char *ins[] = {x, starts, ends, tx_own_ints(t, dims, k), starts};
    const char *out = tx_one_output(t, n);
    Onnx__NodeProto *nd = tx_emit(t, "Slice", "", tx_node_name_of(t, n));
    for (size_t i = 0; i < 5; i++) ox_node_add_input(t->m, nd, ins[i]);
    ox_node_add_output(t->m, nd, out);
    return true;
}

/* Static sizes of a node's tensor meta; false if unknown or symbolic. */
static bool static_sizes(const fx_node *n, int64_t **out, size_t *rank, arena *a)
{
    const fx_value *v = tx_node_val(n);
    if (!v || v->kind != FX_VAL_TENSOR) return false;
    *rank = v->rank;
    *out = arena_alloc(a, (v->rank + 1) * sizeof **out);
    for (size_t i = 0; i < v->rank; i++) {
        char *end;
        (*out)[i] = strtoll(v->sizes[i], &end, 10);
        if (*end || end == v->sizes[i]) return false;
    }
    return true;
}

/* static_sizes where only the last k dims must be static (what pooling over them needs): a
 * leading dim that is symbolic (a dynamic batch) is -1. */
static bool static_trailing_sizes(const fx_node *n, size_t k, int64_t **out, size_t *rank, arena *a)
{
    const fx_value *v = tx_node_val(n);
    if (!v || v->kind != FX_VAL_TENSOR || v->rank < k) return false;
    *rank = v->rank;
    *out = arena_alloc(a, (v->rank + 1) * sizeof **out);
    for (size_t i = 0; i < v->rank; i++) {
        char *end;
        (*out)[i] = strtoll(v->sizes[i], &end, 10);
        if (*end || end == v->sizes[i]) {
            if (i + k >= v->rank) return false;
            (*out)[i] = -1;
        }
    }
    return true;
}

/* Reshape to the node's own (static) output shape: flatten and friends. */
static bool b_reshape_to_meta(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    int64_t *sz;
    size_t r;
    if (!x) return false;
    if (!static_sizes(n, &sz, &r, &t->a)) {
        tx_fail_node(t, n, "needs a static output shape in the node's meta");
        return false;
    }
    const char *shape = tx_const_ints(t, sz, r);
    const char *out = tx_one_output(t, n);
    tx_emit2(t, "Reshape", x, shape, out, tx_node_name_of(t, n));
    return true;
}

/* flatten.using_ints(self, start_dim, end_dim): Reshape to the node's static output shape when it
 * is known; with symbolic sizes, torchlib's general form — the sizes before start_dim and after
 * end_dim read from Shape, -1 for the flattened run (ONNX Flatten is always 2-D, so it fits
 * only start_dim 1 to the end, which the table's Flatten alternative takes). */
static bool b_flatten(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    int64_t *sz;
    size_t rs;
    if (static_sizes(n, &sz, &rs, &t->a))
        return b_reshape_to_meta(t, n, rule, b);
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    int64_t start = 0, end = -1;
    if (r < 0 || (b[1] && !tx_int_of(b[1], &start)) || (b[2] && !tx_int_of(b[2], &end))) {
        tx_fail_node(t, n, "flatten needs an input of known rank and constant start_dim / end_dim");
        return false;
    }
    int64_t rr = r ? r : 1;   /* a 0-d tensor flattens like a 1-d one */
    start = (start % rr + rr) % rr;
    end = (end % rr + rr) % rr;
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    int64_t m1 = -1;
    const char *head = tx_emit1(t, "Shape", x, NULL, NULL);
    ox_attr_int(t->m, tx_last_node(t), "end", start);
    ox_attr_int(t->m, tx_last_node(t), "start", 0);
    const char *tail = tx_emit1(t, "Shape", x, NULL, NULL);
    ox_attr_int(t->m, tx_last_node(t), "start", r ? end + 1 : 0);
    const char *shape = tx_emit_concat3(t, head, tx_own_ints(t, &m1, 1), tail);
    tx_emit2(t, "Reshape", x, shape, tx_one_output(t, n), tx_node_name_of(t, n));
    return true;
}

/* The kernel (= stride) of an adaptive pool from the input's static spatial sizes (its last k
 * dims) to output sizes os: input / output where every output divides its input; NULL (reported)
 * otherwise, since windows of varying width have no ONNX pooling form. */
static int64_t *adaptive_kernel(tx *t, const fx_node *n, const fx_arg *in, const int64_t *os, size_t k,
                                const char *what)
{
    int64_t *sz;
    size_t r;
    if (in->kind != FX_ARG_NODE || !static_trailing_sizes(in->u.node, k, &sz, &r, &t->a) || r < k + 1) {
        tx_fail_node(t, n, arena_printf(&t->a, "an adaptive %s pool needs the static sizes of the dims it pools (tensor meta)",
                                        what));
        return NULL;
    }
    int64_t *kernel = arena_alloc(&t->a, (k + 1) * sizeof *kernel);
    for (size_t i = 0; i < k; i++) {
        int64_t s = sz[r - k + i];
        if (os[i] <= 0 || s % os[i]) {
            tx_fail_node(t, n, arena_printf(&t->a, "adaptive %s pool from size %lld to %lld: the windows would differ "
                                                "in width, which ONNX pooling cannot express",
                                         what, (long long)s, (long long)os[i]));
            return NULL;
        }
        kernel[i] = s / os[i];
    }
    return kernel;
}

/* adaptive_avg_pool{1,2,3}d: an output of 1 everywhere is GlobalAveragePool; windows all of the
 * same width (see adaptive_kernel) that do not overlap are an AveragePool with that kernel and
 * stride; other sizes are MatMuls with window matrices (translate_composite.c). C: the sizes
 * come from the input's meta. */
static bool b_adaptive_avg_pool(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    int64_t *os;
    size_t k;
    const char *x = input_of(t, n, b[0]);
    if (!x || !tx_list_ints(t, n, &rule->schema.args[1], b[1], &os, &k)) return false;
    bool global = true;
    for (size_t i = 0; i < k; i++) global &= os[i] == 1;
    if (global) {
        tx_emit1(t, "GlobalAveragePool", x, tx_one_output(t, n), tx_node_name_of(t, n));
        return true;
    }
    int64_t *sz;
    size_t r;
    if (b[0]->kind != FX_ARG_NODE || !static_trailing_sizes(b[0]->u.node, k, &sz, &r, &t->a) || r < k + 1) {
        tx_fail_node(t, n, "an adaptive average pool needs the static sizes of the dims it pools (tensor meta)");
        return false;
    }
    bool even = true;
    for (size_t i = 0; i < k; i++) even &= os[i] > 0 && sz[r - k + i] % os[i] == 0;
    if (!even) return tx_adaptive_avg_by_matmul(t, n, x, sz, r, os, k);
    int64_t *kernel = adaptive_kernel(t, n, b[0], os, k, "average");
    if (!kernel) return false;
    const char *out = tx_one_output(t, n);
    Onnx__NodeProto *nd = tx_emit(t, "AveragePool", "", tx_node_name_of(t, n));
    ox_attr_ints(t->m, nd, "kernel_shape", kernel, k);
    ox_attr_ints(t->m, nd, "strides", kernel, k);
    ox_node_add_input(t->m, nd, x);
    ox_node_add_output(t->m, nd, out);
    return true;
}

/* adaptive_max_pool{1,2,3}d → (values, indices): windows input / output wide (static sizes, the
 * output dividing the input; an output of 1 takes the whole plane) are a MaxPool with that kernel
 * and stride. Its flat indices become offsets inside each N,C plane by subtracting the first
 * index of a 1-wide pool, as max_pool*_with_indices do in pool.yaml. C: the kernel comes from the
 * input's meta. */
static bool b_adaptive_max_pool(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    int64_t *os, *kernel, zero = 0;
    size_t k;
    const char *x = input_of(t, n, b[0]);
    if (!x || !tx_list_ints(t, n, &rule->schema.args[1], b[1], &os, &k)) return false;
    int r = tx_rank_of_node(b[0]->u.node);
    bool unbatched = r == (int)k + 1;   /* (C, spatial dims): pooled as a batch of one */
    if (r != (int)k + 2 && !unbatched) {
        tx_fail_node(t, n, "an adaptive max pool needs an input (N, C, spatial dims) or (C, spatial dims)");
        return false;
    }
    if (!(kernel = adaptive_kernel(t, n, b[0], os, k, "max"))) return false;
    const char *axis0 = unbatched ? tx_const_ints(t, &zero, 1) : NULL;
    if (unbatched) x = tx_emit2(t, "Unsqueeze", x, axis0, NULL, NULL);
    int64_t *ones = arena_alloc(&t->a, (3 * k + 1) * sizeof *ones), *zeros = ones + k, *axes = ones + 2 * k;
    for (size_t i = 0; i < k; i++) {
        ones[i] = 1;
        zeros[i] = 0;
        axes[i] = 2 + (int64_t)i;
    }
    const char *starts = tx_const_ints(t, zeros, k), *ends = tx_const_ints(t, ones, k), *ax = tx_const_ints(t, axes, k);
    const char **outs = tx_output_names(t, n, 2);
    tx_set_val(t, n, outs, 2);
    const char *pooled = unbatched ? tx_fresh_val(t) : outs[0];
    Onnx__NodeProto *pool = tx_emit(t, "MaxPool", "", unbatched ? NULL : tx_node_name_of(t, n));
    ox_attr_ints(t->m, pool, "kernel_shape", kernel, k);
    ox_attr_ints(t->m, pool, "strides", kernel, k);
    ox_node_add_input(t->m, pool, x);
    const char *flat = tx_fresh_val(t);
    ox_node_add_output(t->m, pool, pooled);
    ox_node_add_output(t->m, pool, flat);
    Onnx__NodeProto *unit = tx_emit(t, "MaxPool", "", NULL);
    ox_attr_ints(t->m, unit, "kernel_shape", ones, k);
    ox_attr_ints(t->m, unit, "strides", ones, k);
    ox_node_add_input(t->m, unit, x);
    const char *base = tx_fresh_val(t);
    ox_node_add_output(t->m, unit, tx_fresh_val(t));
    ox_node_add_output(t->m, unit, base);
    Onnx__NodeProto *sl = tx_emit(t, "Slice", "", NULL);
    const char *sin[] = {base, starts, ends, ax};
    for (size_t i = 0; i < 4; i++) ox_node_add_input(t->m, sl, sin[i]);
    const char *delta = tx_fresh_val(t);
    ox_node_add_output(t->m, sl, delta);
    if (!unbatched) {
        tx_emit2(t, "Sub", flat, delta, outs[1], arena_printf(&t->a, "node_%s__1", n->name));
        return true;
    }
    const char *idx = tx_emit2(t, "Sub", flat, delta, NULL, NULL);
    tx_emit2(t, "Squeeze", pooled, axis0, outs[0], tx_node_name_of(t, n));
    tx_emit2(t, "Squeeze", idx, axis0, outs[1], arena_printf(&t->a, "node_%s__1", n->name));
    return true;
}

/* circular padding as Slice + Concat per padded dim (the end of the dim, the tensor, its start):
 * Pad's 'wrap' mode needs opset 19 and ONNX Runtime does not implement it */
static bool pad_circular(tx *t, const fx_node *n, const char *x, const int64_t *pads, size_t r)
{
    size_t last = r;
    for (size_t d = 0; d < r; d++)
        if (pads[d] || pads[r + d]) last = d;
    if (last == r) {
        Onnx__NodeProto *id = tx_emit(t, "Identity", "", tx_node_name_of(t, n));
        ox_node_add_input(t->m, id, x);
        ox_node_add_output(t->m, id, tx_one_output(t, n));
        return true;
    }
    const char *cur = x;
    for (size_t d = 0; d <= last; d++) {
        int64_t lo = pads[d], hi = pads[r + d], axis = (int64_t)d;
        if (!lo && !hi)
            continue;
        const char *axes = tx_const_ints(t, &axis, 1);
        const char *parts[3];
        size_t np = 0;
        if (lo) {
            int64_t st = -lo, en = INT64_MAX;
            /* constants first: they are nodes too, and must come before their user */
            const char *sv = tx_const_ints(t, &st, 1), *ev = tx_const_ints(t, &en, 1);
            Onnx__NodeProto *sl = tx_emit(t, "Slice", "", NULL);
            ox_node_add_input(t->m, sl, cur);
            ox_node_add_input(t->m, sl, sv);
            ox_node_add_input(t->m, sl, ev);
            ox_node_add_input(t->m, sl, axes);
            parts[np++] = tx_fresh_val(t);
            ox_node_add_output(t->m, sl, parts[np - 1]);
        }
        parts[np++] = cur;
        if (hi) {
            int64_t st = 0, en = hi;
            const char *sv = tx_const_ints(t, &st, 1), *ev = tx_const_ints(t, &en, 1);
            Onnx__NodeProto *sl = tx_emit(t, "Slice", "", NULL);
            ox_node_add_input(t->m, sl, cur);
            ox_node_add_input(t->m, sl, sv);
            ox_node_add_input(t->m, sl, ev);
            ox_node_add_input(t->m, sl, axes);
            parts[np++] = tx_fresh_val(t);
            ox_node_add_output(t->m, sl, parts[np - 1]);
        }
        bool final = d == last;
        Onnx__NodeProto *cc = tx_emit(t, "Concat", "", final ? tx_node_name_of(t, n) : NULL);
        ox_attr_int(t->m, cc, "axis", axis);
        for (size_t i = 0; i < np; i++)
            ox_node_add_input(t->m, cc, parts[i]);
        cur = final ? tx_one_output(t, n) : tx_fresh_val(t);
        ox_node_add_output(t->m, cc, cur);
    }
    return true;
}

/* pad's value as a constant of the padded tensor's type dt (torch converts it: -1.0 pads an int64
 * mask with -1), or "" when there is none. */
static const char *pad_value(tx *t, const fx_arg *v, int dt)
{
    if (!v || (v->kind != FX_ARG_FLOAT && v->kind != FX_ARG_INT)) return "";
    if (!dt) dt = v->kind == FX_ARG_FLOAT ? OT_FLOAT : OT_INT64;   /* the tensor's type unknown: the number's */
    double f = v->kind == FX_ARG_FLOAT ? v->u.f : (double)v->u.i;
    bool fl = tx_is_float_type(dt);
    int64_t i = v->kind == FX_ARG_INT ? v->u.i : (f >= -9.2e18 && f <= 9.2e18 ? (int64_t)f : 0);
    return tx_const_scalar(t, dt, f, i, fl);
}

/* Whether a pad list holds a SymInt (transformers' causal mask pads by the cache length). */
static bool pad_symbolic(const fx_arg *a)
{
    if (!a || (a->kind != FX_ARG_LIST && a->kind != FX_ARG_TUPLE)) return false;
    for (size_t i = 0; i < a->u.seq.len; i++)
        if (a->u.seq.items[i]->kind == FX_ARG_NODE) return true;
    return false;
}

/* constant-mode pad whose pad list holds SymInts: ONNX's pads [begin of each dim, end of each]
 * built from torch's [last dim's begin, its end, ...] at run time (Concat of the values). */
static bool pad_with_symbols(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b, const char *x, size_t r)
{
    const char *mode = b[2] && b[2]->kind == FX_ARG_STR ? b[2]->u.s : "constant";
    size_t k = b[1]->u.seq.len;
    if (strcmp(mode, "constant") || k % 2 || k / 2 > r) {
        tx_fail_node(t, n, strcmp(mode, "constant") ? "pad by symbolic sizes in a mode other than constant"
                                                    : "pad needs an even pad list of at most two entries per dim");
        return false;
    }
    static fx_arg zero = {.kind = FX_ARG_INT};
    fx_arg **ent = arena_alloc(&t->a, (2 * r + 1) * sizeof *ent);
    for (size_t i = 0; i < 2 * r; i++) ent[i] = &zero;
    for (size_t i = 0; i < k / 2; i++) {
        size_t dim = r - 1 - i;
        ent[dim] = b[1]->u.seq.items[2 * i];
        ent[r + dim] = b[1]->u.seq.items[2 * i + 1];
    }
    fx_arg list = {.kind = FX_ARG_LIST};
    list.u.seq.items = ent;
    list.u.seq.len = 2 * r;
    const char *pv = tx_int_list_input(t, n, &list);
    if (!pv) return false;
    const char *val = pad_value(t, b[3], tx_onnx_dtype_of_node(b[0]->u.node));
    Onnx__NodeProto *nd = tx_emit(t, "Pad", "", tx_node_name_of(t, n));
    ox_attr_string(t->m, nd, "mode", "constant");
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, pv);
    if (*val) ox_node_add_input(t->m, nd, val);
    ox_node_add_output(t->m, nd, tx_one_output(t, n));
    return true;
}

static bool b_pad(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    int64_t *pd;
    size_t k;
    const char *x = input_of(t, n, b[0]);
    int r = b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    if (x && r >= 0 && pad_symbolic(b[1]))
        return pad_with_symbols(t, n, rule, b, x, (size_t)r);
    if (!x || !tx_list_ints(t, n, &rule->schema.args[1], b[1], &pd, &k)) return false;
    if (r < 0 || k % 2 || k / 2 > (size_t)r) {
        tx_fail_node(t, n, "pad needs the input rank and an even pad list");
        return false;
    }
    int64_t *pads = arena_alloc(&t->a, (2 * (size_t)r + 1) * sizeof *pads);
    memset(pads, 0, 2 * (size_t)r * sizeof *pads);
    for (size_t i = 0; i < k / 2; i++) {
        size_t dim = (size_t)r - 1 - i;
        pads[dim] = pd[2 * i];
        pads[(size_t)r + dim] = pd[2 * i + 1];
    }
    const char *mode = b[2]->kind == FX_ARG_STR ? b[2]->u.s : "constant";
    const char *omode = !strcmp(mode, "replicate") ? "edge" : !strcmp(mode, "circular") ? "wrap" : mode;
    /* a negative pad crops; ONNX Pad does that in constant mode only (ONNX Runtime's edge and
     * reflect kernels read outside the tensor), so the other modes refuse rather than give a
     * model that disagrees with torch */
    if (strcmp(omode, "constant"))
        for (size_t i = 0; i < 2 * (size_t)r; i++)
            if (pads[i] < 0) {
                tx_fail_node(t, n, arena_printf(&t->a, "pad: a negative pad (cropping) in '%s' mode has no ONNX form "
                                                       "(only constant mode crops)", mode));
                return false;
            }
    if (!strcmp(omode, "wrap"))
        return pad_circular(t, n, x, pads, (size_t)r);
    const char *pv = tx_const_ints(t, pads, 2 * (size_t)r);
    const char *val = pad_value(t, b[3], tx_onnx_dtype_of_node(b[0]->u.node));
    const char *out = tx_one_output(t, n);
    Onnx__NodeProto *nd = tx_emit(t, "Pad", "", tx_node_name_of(t, n));
    ox_attr_string(t->m, nd, "mode", omode);
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, pv);
    if (*val) ox_node_add_input(t->m, nd, val);
    ox_node_add_output(t->m, nd, out);
    return true;
}

/* constant_pad_nd as torchlib's: the pad list padded with zeros to 2 * rank and reordered in
 * Python (ONNX's begins for dims 0.., then ends), the value an own Constant of self's dtype, then
 * Pad. A SymInt in the list makes the pads a Concat, as the tracer does for a mixed list. */
static bool b_constant_pad_nd(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    if (!x) return false;
    int r = tx_rank_of_node(b[0]->u.node), dt = tx_onnx_dtype_of_node(b[0]->u.node);
    const fx_arg *pad = b[1];
    size_t k = pad->kind == FX_ARG_LIST || pad->kind == FX_ARG_TUPLE ? pad->u.seq.len : 1;
    if (r < 0 || !dt || k % 2 || k / 2 > (size_t)r) {
        tx_fail_node(t, n, "constant_pad_nd needs the input's rank and dtype and an even pad list no longer than 2 * rank");
        return false;
    }
    fx_arg *zero = arena_alloc(&t->a, sizeof *zero);
    memset(zero, 0, sizeof *zero);
    zero->kind = FX_ARG_INT;
    fx_arg *full = arena_alloc(&t->a, sizeof *full);
    *full = *pad;
    full->u.seq.len = 2 * (size_t)r;
    full->u.seq.items = arena_alloc(&t->a, (2 * (size_t)r + 1) * sizeof *full->u.seq.items);
    for (size_t d = 0; d < (size_t)r; d++) {   /* torch's pair i pads dim r-1-i */
        size_t i = (size_t)r - 1 - d;
        full->u.seq.items[d] = i < k / 2 ? pad->u.seq.items[2 * i] : zero;
        full->u.seq.items[(size_t)r + d] = i < k / 2 ? pad->u.seq.items[2 * i + 1] : zero;
    }
    const fx_arg *v = b[2];
    if (v->kind != FX_ARG_INT && v->kind != FX_ARG_FLOAT && v->kind != FX_ARG_BOOL) {
        tx_fail_node(t, n, "constant_pad_nd: the pad value must be a number");
        return false;
    }
    const char *value = v->kind == FX_ARG_FLOAT ? tx_own_scalar(t, dt, v->u.f, 0, true)
                                                : tx_own_scalar(t, dt, 0, v->kind == FX_ARG_BOOL ? v->u.b : v->u.i, false);
    const char *pads = tx_int_list_input(t, n, full);
    if (!pads) return false;
    Onnx__NodeProto *nd = tx_emit(t, "Pad", "", tx_node_name_of(t, n));
    ox_attr_string(t->m, nd, "mode", "constant");
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, pads);
    ox_node_add_input(t->m, nd, value);
    ox_node_add_output(t->m, nd, tx_one_output(t, n));
    return true;
}

static bool upsample(tx *t, const fx_node *n, const fx_arg *in, const fx_arg *size, const fx_arg *scales,
                     const char *mode, const char *ctm)
{
    const char *x = input_of(t, n, in);
    if (!x) return false;
    const char *sc = "", *sz = "";
    if (scales->kind == FX_ARG_LIST || scales->kind == FX_ARG_TUPLE) {
        size_t k = scales->u.seq.len;
        float *v = arena_alloc(&t->a, (k + 3) * sizeof *v);
        v[0] = v[1] = 1;
        for (size_t i = 0; i < k; i++) {
            const fx_arg *e = scales->u.seq.items[i];
            v[i + 2] = e->kind == FX_ARG_FLOAT ? (float)e->u.f : (float)e->u.i;
        }
        sc = tx_const_floats(t, v, k + 2);
    } else if (size->kind == FX_ARG_LIST || size->kind == FX_ARG_TUPLE) {
        Onnx__NodeProto *shp = tx_emit(t, "Shape", "", NULL);
        ox_attr_int(t->m, shp, "start", 0);
        ox_attr_int(t->m, shp, "end", 2);
        ox_node_add_input(t->m, shp, x);
        const char *nc = tx_fresh_val(t);
        ox_node_add_output(t->m, shp, nc);
        const char *tail = tx_int_list_input(t, n, size);
        if (!tail) return false;
        /* torchlib's _aten_upsample_output_size casts the sizes to INT64 before the Concat */
        Onnx__NodeProto *cast = tx_emit(t, "Cast", "", NULL);
        ox_attr_int(t->m, cast, "to", OT_INT64);
        ox_node_add_input(t->m, cast, tail);
        tail = tx_fresh_val(t);
        ox_node_add_output(t->m, cast, tail);
        Onnx__NodeProto *cat = tx_emit(t, "Concat", "", NULL);
        ox_attr_int(t->m, cat, "axis", 0);
        ox_node_add_input(t->m, cat, nc);
        ox_node_add_input(t->m, cat, tail);
        sz = tx_fresh_val(t);
        ox_node_add_output(t->m, cat, sz);
    } else {
        tx_fail_node(t, n, "upsample needs output_size or scale_factors");
        return false;
    }
    const char *out = tx_one_output(t, n);
    Onnx__NodeProto *nd = tx_emit(t, "Resize", "", tx_node_name_of(t, n));
    ox_attr_string(t->m, nd, "mode", mode);
    ox_attr_string(t->m, nd, "coordinate_transformation_mode", ctm);
    ox_attr_string(t->m, nd, "nearest_mode", "floor");
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, "");
    ox_node_add_input(t->m, nd, sc);
    if (*sz) ox_node_add_input(t->m, nd, sz);
    ox_node_add_output(t->m, nd, out);
    return true;
}

/* upsample_*.vec (any number of spatial dims): (input, output_size, scale_factors), with
 * align_corners between them for linear and cubic. */
static bool b_upsample_nearest(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    return upsample(t, n, b[0], b[1], b[2], "nearest", "asymmetric");
}

static bool b_upsample_linear(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    bool ac = b[2]->kind == FX_ARG_BOOL && b[2]->u.b;
    return upsample(t, n, b[0], b[1], b[3], "linear", ac ? "align_corners" : "pytorch_half_pixel");
}

static bool b_upsample_cubic(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    bool ac = b[2]->kind == FX_ARG_BOOL && b[2]->u.b;
    return upsample(t, n, b[0], b[1], b[3], "cubic", ac ? "align_corners" : "pytorch_half_pixel");
}

/* roll(self, shifts, dims): each dimension rotates by its shift — the last (shift mod size)
 * elements, sliced off, go in front; without dims the flattened tensor rolls and gets its shape
 * back. C because the Concat axis of each step comes from one element of the dims list. */
/* scaled_dot_product_attention as torchlib writes it for opset < 23: scale, causal/explicit
 * mask, Softmax(QK^T), then ·V. */
static bool b_sdpa(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *q = input_of(t, n, b[0]), *k = input_of(t, n, b[1]), *v = input_of(t, n, b[2]);
    if (!q || !k || !v) return false;
    int r = tx_rank_of_node(b[1]->u.node);
    int dt = tx_onnx_dtype_of_node(b[0]->u.node);
    if (r < 2 || !dt) { tx_fail_node(t, n, "scaled_dot_product_attention needs the rank and dtype of key"); return false; }
    if (b[4]->kind == FX_ARG_FLOAT && b[4]->u.f != 0.0) { tx_fail_node(t, n, "dropout_p must be 0 for export"); return false; }
    const char *scale;
    if (b[6]->kind == FX_ARG_FLOAT || b[6]->kind == FX_ARG_INT) {
        scale = tx_scalar_input(t, &rule->schema.args[6], b[6], dt);
    } else {
        Onnx__NodeProto *shp = tx_emit(t, "Shape", "", NULL);
        ox_attr_int(t->m, shp, "start", -1);
        ox_node_add_input(t->m, shp, q);
        const char *e = tx_fresh_val(t);
        ox_node_add_output(t->m, shp, e);
        const char *ef = tx_emit2(t, "CastLike", e, q, NULL, NULL);
        const char *sq = tx_emit1(t, "Sqrt", ef, NULL, NULL);
        scale = tx_emit2(t, "Div", tx_const_scalar(t, dt, 1.0, 0, true), sq, NULL, NULL);
    }
    int64_t *perm = arena_alloc(&t->a, ((size_t)r + 1) * sizeof *perm);
    for (int i = 0; i < r; i++) perm[i] = i;
    perm[r - 1] = r - 2;
    perm[r - 2] = r - 1;
    Onnx__NodeProto *tr = tx_emit(t, "Transpose", "", NULL);
    ox_attr_ints(t->m, tr, "perm", perm, (size_t)r);
    ox_node_add_input(t->m, tr, k);
    const char *kt = tx_fresh_val(t);
    ox_node_add_output(t->m, tr, kt);
    const char *qs = tx_emit2(t, "Mul", q, scale, NULL, NULL);
    const char *scores = tx_emit2(t, "MatMul", qs, kt, NULL, NULL);
    const char *zero = tx_const_scalar(t, dt, 0.0, 0, true), *ninf = tx_const_scalar(t, dt, -INFINITY, 0, true);
    if (b[3]->kind == FX_ARG_NODE) {
        const char *mask = tx_single(t, n, b[3]->u.node);
        if (!mask) return false;
        if (tx_onnx_dtype_of_node(b[3]->u.node) == OT_BOOL) {
            Onnx__NodeProto *w = tx_emit(t, "Where", "", NULL);
            ox_node_add_input(t->m, w, mask);
            ox_node_add_input(t->m, w, zero);
            ox_node_add_input(t->m, w, ninf);
            mask = tx_fresh_val(t);
            ox_node_add_output(t->m, w, mask);
        }
        scores = tx_emit2(t, "Add", scores, mask, NULL, NULL);
    }
    if (b[5]->kind == FX_ARG_BOOL && b[5]->u.b) {
        int64_t st = -2, en = -1;
        Onnx__NodeProto *sq = tx_emit(t, "Shape", "", NULL);
        ox_attr_int(t->m, sq, "start", -2);
        ox_attr_int(t->m, sq, "end", -1);
        ox_node_add_input(t->m, sq, q);
        const char *lq = tx_fresh_val(t);
        ox_node_add_output(t->m, sq, lq);
        Onnx__NodeProto *sk = tx_emit(t, "Shape", "", NULL);
        ox_attr_int(t->m, sk, "start", st);
        ox_attr_int(t->m, sk, "end", en);
        ox_node_add_input(t->m, sk, k);
        const char *lk = tx_fresh_val(t);
        ox_node_add_output(t->m, sk, lk);
        const char *ls = tx_emit2(t, "Concat", lq, lk, NULL, NULL);
        ox_attr_int(t->m, t->sc->g->node[t->sc->g->n_node - 1], "axis", 0);
        const char *ones = tx_emit2(t, "Expand", tx_const_scalar(t, dt, 1.0, 0, true), ls, NULL, NULL);
        Onnx__NodeProto *tri = tx_emit(t, "Trilu", "", NULL);
        ox_attr_int(t->m, tri, "upper", 0);
        ox_node_add_input(t->m, tri, ones);
        const char *lower = tx_fresh_val(t);
        ox_node_add_output(t->m, tri, lower);
        const char *isz = tx_emit2(t, "Equal", lower, zero, NULL, NULL);
        const char *cm = tx_emitn(t, "Where", (const char *[]){ isz, ninf, zero }, 3, NULL, NULL);
        scores = tx_emit2(t, "Add", scores, cm, NULL, NULL);
    }
    Onnx__NodeProto *sm = tx_emit(t, "Softmax", "", NULL);
    ox_attr_int(t->m, sm, "axis", -1);
    ox_node_add_input(t->m, sm, scores);
    const char *p = tx_fresh_val(t);
    ox_node_add_output(t->m, sm, p);
    tx_emit2(t, "MatMul", p, v, tx_one_output(t, n), tx_node_name_of(t, n));
    return true;
}

/* aten.var_mean.dim (kept when decomposition is off): static element counts from meta. */
static bool var_common(tx *t, const fx_node *n, const fx_arg *in, const fx_arg *dims, double correction,
                       bool keepdim, const char *var_out, const char *mean_out)
{
    const char *x = input_of(t, n, in);
    int64_t *sz, *dv;
    size_t r, k;
    if (!x) return false;
    if (!static_sizes(in->u.node, &sz, &r, &t->a) || (dims->kind != FX_ARG_LIST && dims->kind != FX_ARG_TUPLE)) {
        tx_fail_node(t, n, "variance needs static input sizes and a dims list");
        return false;
    }
    k = dims->u.seq.len;
    dv = arena_alloc(&t->a, (k + 1) * sizeof *dv);
    double count = 1;
    for (size_t i = 0; i < k; i++) {
        if (!arg_int(dims->u.seq.items[i], &dv[i])) return false;
        int64_t d = dv[i] < 0 ? dv[i] + (int64_t)r : dv[i];
        if (d < 0 || d >= (int64_t)r) return false;
        count *= (double)sz[d];
    }
    const char *axes = tx_const_ints(t, dv, k);
    int dt = tx_onnx_dtype_of_node(in->u.node);
    Onnx__NodeProto *m1 = tx_emit(t, "ReduceMean", "", NULL);
    ox_attr_int(t->m, m1, "keepdims", 1);
    ox_node_add_input(t->m, m1, x);
    ox_node_add_input(t->m, m1, axes);
    const char *mean = tx_fresh_val(t);
    ox_node_add_output(t->m, m1, mean);
    const char *dlt = tx_emit2(t, "Sub", x, mean, NULL, NULL);
    const char *sq = tx_emit2(t, "Mul", dlt, dlt, NULL, NULL);
    Onnx__NodeProto *s = tx_emit(t, "ReduceSum", "", NULL);
    ox_attr_int(t->m, s, "keepdims", keepdim);
    ox_node_add_input(t->m, s, sq);
    ox_node_add_input(t->m, s, axes);
    const char *sum = tx_fresh_val(t);
    ox_node_add_output(t->m, s, sum);
    tx_emit2(t, "Div", sum, tx_const_scalar(t, dt, count - correction, 0, true), var_out, tx_node_name_of(t, n));
    if (mean_out) {
        Onnx__NodeProto *m2 = tx_emit(t, "ReduceMean", "", arena_printf(&t->a, "node_%s__1", n->name));
        ox_attr_int(t->m, m2, "keepdims", keepdim);
        ox_node_add_input(t->m, m2, x);
        ox_node_add_input(t->m, m2, axes);
        ox_node_add_output(t->m, m2, mean_out);
    }
    return true;
}

static bool b_var_mean(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    bool unbiased = !(b[2]->kind == FX_ARG_BOOL && !b[2]->u.b);
    bool keep = b[3]->kind == FX_ARG_BOOL && b[3]->u.b;
    const char **r = tx_output_names(t, n, 2);
    tx_set_val(t, n, r, 2);
    return var_common(t, n, b[0], b[1], unbiased ? 1.0 : 0.0, keep, r[0], r[1]);
}

static bool b_broadcast_in_dim(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    int64_t *in_sz, *bd;
    size_t r, nb;
    if (!x) return false;
    const fx_arg *shape = b[1];
    if (!static_sizes(b[0]->u.node, &in_sz, &r, &t->a) || (shape->kind != FX_ARG_LIST && shape->kind != FX_ARG_TUPLE) ||
        !tx_list_ints(t, n, &rule->schema.args[2], b[2], &bd, &nb) || nb != r) {
        tx_fail_node(t, n, "broadcast_in_dim needs static input sizes");
        return false;
    }
    size_t k = shape->u.seq.len;
    int64_t *ns = arena_alloc(&t->a, (k + 1) * sizeof *ns);
    for (size_t i = 0; i < k; i++) ns[i] = 1;
    for (size_t i = 0; i < nb; i++)
        if (bd[i] >= 0 && (size_t)bd[i] < k) ns[bd[i]] = in_sz[i];
    const char *rs = tx_emit2(t, "Reshape", x, tx_const_ints(t, ns, k), NULL, NULL);
    const char *target = tx_int_list_input(t, n, shape);
    if (!target) return false;
    tx_emit2(t, "Expand", rs, target, tx_one_output(t, n), tx_node_name_of(t, n));
    return true;
}

/* index.Tensor: one integer index tensor (others None) → Gather on that axis; index tensors of
 * one shape on the leading dims → GatherND of the stacked indices; any other index list (bool
 * masks, broadcast indices, None between them): translate_index_put.c. */
static bool b_index(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    return tx_index_general(t, n, b);
}

static bool b_hstack(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    if (!tx_seq_arg(b[0]) || !b[0]->u.seq.len || b[0]->u.seq.items[0]->kind != FX_ARG_NODE) return false;
    int r = tx_rank_of_node(b[0]->u.seq.items[0]->u.node);
    namevec ins = {0};
    bool ok = tx_arg_inputs(t, n, &rule->schema.args[0], b[0], 0, &ins);
    if (ok) {
        const char *out = tx_one_output(t, n);
        Onnx__NodeProto *nd = tx_emit(t, "Concat", "", tx_node_name_of(t, n));
        ox_attr_int(t->m, nd, "axis", r == 1 ? 0 : 1);
        for (size_t i = 0; i < ins.len; i++) ox_node_add_input(t->m, nd, ins.items[i]);
        ox_node_add_output(t->m, nd, out);
    }
    vec_free(&ins);
    return ok;
}

static const fx_arg *kwarg(const fx_node *n, const char *key)
{
    const fx_arg *kw = n->kwargs;
    for (size_t i = 0; kw && i < kw->u.seq.len; i++)
        if (!strcmp(kw->u.seq.keys[i], key)) return kw->u.seq.items[i];
    return NULL;
}

/* torch.onnx.ops.symbolic: inputs, op type and attributes packed as parallel typed arrays. */
static bool b_symbolic(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    (void)b;
    const fx_arg *a = n->args;
    if (a->u.seq.len < 3 || !tx_seq_arg(a->u.seq.items[0]) || a->u.seq.items[1]->kind != FX_ARG_STR) {
        tx_fail_node(t, n, "expected _symbolic(inputs, op_type, dtype, ...)");
        return false;
    }
    const fx_arg *keys = kwarg(n, "attr_keys"), *types = kwarg(n, "attr_types"), *pos = kwarg(n, "attr_pos");
    const fx_arg *ints = kwarg(n, "attr_ints"), *floats = kwarg(n, "attr_floats"), *strs = kwarg(n, "attr_strs");
    const fx_arg *dom = kwarg(n, "domain"), *ver = kwarg(n, "version");
    const char *domain = dom && dom->kind == FX_ARG_STR ? dom->u.s : "";
    namevec ins = {0};
    for (size_t i = 0; i < a->u.seq.items[0]->u.seq.len; i++) {
        const fx_arg *x = a->u.seq.items[0]->u.seq.items[i];
        if (x->kind == FX_ARG_NONE) { vec_push(&ins, ""); continue; }
        const char *v = x->kind == FX_ARG_NODE ? tx_single(t, n, x->u.node) : NULL;
        if (!v) { vec_free(&ins); tx_fail_node(t, n, "symbolic inputs must be tensors or None"); return false; }
        vec_push(&ins, v);
    }
    bool multi = strstr(n->target, "multi_out") != NULL;
    size_t nout = multi && tx_seq_arg(a->u.seq.items[2]) ? a->u.seq.items[2]->u.seq.len : 1;
    const char **outs = multi ? tx_output_names_ex(t, n, nout, true) : tx_output_names(t, n, 1);
    Onnx__NodeProto *nd = tx_emit(t, a->u.seq.items[1]->u.s, domain, tx_node_name_of(t, n));
    bool ok = true;
    size_t nk = keys && tx_seq_arg(keys) ? keys->u.seq.len : 0;
    for (size_t i = 0; i < nk && ok; i++) {
        const fx_arg *k = keys->u.seq.items[i];
        const fx_arg *ty = types && tx_seq_arg(types) && i < types->u.seq.len ? types->u.seq.items[i] : NULL;
        const fx_arg *ps = pos && tx_seq_arg(pos) && i < pos->u.seq.len ? pos->u.seq.items[i] : NULL;
        int64_t st, en;
        if (k->kind != FX_ARG_STR || !ty || ty->kind != FX_ARG_STR || !ps || !tx_seq_arg(ps) || ps->u.seq.len != 2 ||
            !arg_int(ps->u.seq.items[0], &st) || !arg_int(ps->u.seq.items[1], &en) || st < 0 || en < st) {
            ok = false;
            break;
        }
        char c = ty->u.s[0];
        bool list = ty->u.s[1] == 's';
        const fx_arg *src = c == 'i' || c == 'b' ? ints : c == 'f' ? floats : c == 's' ? strs : NULL;
        if (!src || !tx_seq_arg(src) || (size_t)en > src->u.seq.len) { ok = false; break; }
        size_t cnt = (size_t)(en - st);
        if (!list && cnt != 1) { ok = false; break; }
        if (c == 'i' || c == 'b') {
            int64_t *v = arena_alloc(&t->a, (cnt + 1) * sizeof *v);
            for (size_t j = 0; j < cnt; j++) if (!arg_int(src->u.seq.items[st + (int64_t)j], &v[j])) ok = false;
            if (list) ox_attr_ints(t->m, nd, k->u.s, v, cnt);
            else ox_attr_int(t->m, nd, k->u.s, v[0]);
        } else if (c == 'f') {
            float *v = arena_alloc(&t->a, (cnt + 1) * sizeof *v);
            for (size_t j = 0; j < cnt; j++) {
                const fx_arg *e = src->u.seq.items[st + (int64_t)j];
                v[j] = e->kind == FX_ARG_FLOAT ? (float)e->u.f : (float)e->u.i;
            }
            if (list) ox_attr_floats(t->m, nd, k->u.s, v, cnt);
            else ox_attr_float(t->m, nd, k->u.s, v[0]);
        } else {
            const char **v = arena_alloc(&t->a, (cnt + 1) * sizeof *v);
            for (size_t j = 0; j < cnt; j++) {
                const fx_arg *e = src->u.seq.items[st + (int64_t)j];
                v[j] = e->kind == FX_ARG_STR ? e->u.s : "";
            }
            if (list) ox_attr_strings(t->m, nd, k->u.s, v, cnt);
            else ox_attr_string(t->m, nd, k->u.s, v[0]);
        }
    }
    for (size_t i = 0; i < ins.len; i++) ox_node_add_input(t->m, nd, ins.items[i]);
    vec_free(&ins);
    for (size_t i = 0; i < nout; i++) ox_node_add_output(t->m, nd, outs[i]);
    if (!ok) { tx_fail_node(t, n, "malformed attribute arrays"); return false; }
    if (*domain && ox_model_opset(t->m, domain) < 0) {
        int64_t v = 1;
        if (ver && ver->kind == FX_ARG_INT) v = ver->u.i;
        ox_model_set_opset(t->m, domain, v);
    }
    tx_set_val(t, n, outs, nout);
    if (!multi) tx_add_value_info(t, outs[0], tx_node_val(n));
    return true;
}

/* index_put with one integer index on dim 0 → ScatterND (accumulate → reduction "add"); any
 * other list of indices: translate_index_put.c. */
static bool b_index_put(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    return tx_index_put_general(t, n, b);
}

/* Scatter src into self along axis at the static positions pos[0..n): ScatterElements with the
 * positions shaped [1,..,n,..,1] and expanded to src's shape. */
static bool scatter_positions(tx *t, const fx_node *n, const char *x, const char *src, int64_t axis, size_t rank,
                              const int64_t *pos, size_t np)
{
    int64_t *dims = arena_alloc(&t->a, (rank + 1) * sizeof *dims);
    for (size_t i = 0; i < rank; i++) dims[i] = (int64_t)i == axis ? (int64_t)np : 1;
    Onnx__TensorProto *tp = ox_tensor_new(t->m, NULL, OT_INT64, dims, rank);
    ox_tensor_set_int64s(t->m, tp, pos, np);
    Onnx__NodeProto *c = tx_emit(t, "Constant", "", NULL);
    ox_attr_tensor(t->m, c, "value", tp);
    const char *idx = tx_fresh_val(t);
    ox_node_add_output(t->m, c, idx);
    const char *shape = tx_emit1(t, "Shape", src, NULL, NULL);
    const char *full = tx_emit2(t, "Expand", idx, shape, NULL, NULL);
    const char *out = tx_one_output(t, n);
    Onnx__NodeProto *nd = tx_emit(t, "ScatterElements", "", tx_node_name_of(t, n));
    ox_attr_int(t->m, nd, "axis", axis);
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, full);
    ox_node_add_input(t->m, nd, src);
    ox_node_add_output(t->m, nd, out);
    return true;
}

/* A 1-element int64 input of a Slice: the constant v, or the SymInt node's value unsqueezed. */
static const char *slice_bound(tx *t, const fx_node *n, const fx_arg *a, int64_t dflt)
{
    int64_t v = dflt, zero = 0;
    if (!a || a->kind == FX_ARG_NONE || arg_int(a, &v))
        return tx_own_ints(t, &v, 1);
    if (a->kind != FX_ARG_NODE)
        return NULL;
    const char *s = tx_single(t, n, a->u.node);
    return s ? tx_emit2(t, "Unsqueeze", s, tx_own_ints(t, &zero, 1), NULL, NULL) : NULL;
}

/* slice_scatter of a tensor with symbolic sizes, as torchlib's aten_slice_scatter: the positions
 * Range(0, size) sliced by start/end/step (which may be SymInts) index a ScatterND of src into
 * self, dim moved to the front by a Transpose and back. */
static bool slice_scatter_symbolic(tx *t, const fx_node *n, const char *x, const char *src, const fx_arg **b)
{
    int r = tx_rank_of_node(b[0]->u.node), rs = tx_rank_of_node(b[1]->u.node);
    int64_t dim = 0;
    if (r < 1 || rs < 0 || (b[2] && b[2]->kind != FX_ARG_NONE && !arg_int(b[2], &dim)) || r > 16) {
        tx_fail_node(t, n, "slice_scatter needs tensors of known rank and a constant dim");
        return false;
    }
    if (dim < 0) dim += r;
    if (dim < 0 || dim >= r) return false;
    int64_t zero = 0, minus1 = -1;
    const char *shape = tx_emit1(t, "Shape", x, NULL, NULL);
    const char *size = tx_emit2(t, "Gather", shape, tx_own_scalar(t, OT_INT64, 0, dim, false), NULL, NULL);
    ox_attr_int(t->m, tx_last_node(t), "axis", 0);
    const char *rin[3] = { tx_own_scalar(t, OT_INT64, 0, 0, false), size, tx_own_scalar(t, OT_INT64, 0, 1, false) };
    const char *base = tx_emitn(t, "Range", rin, 3, NULL, NULL);
    const char *st = slice_bound(t, n, b[3], 0), *en = slice_bound(t, n, b[4], INT64_MAX),
               *sp = slice_bound(t, n, b[5], 1);
    if (!st || !en || !sp) {
        tx_fail_node(t, n, "slice_scatter needs int or SymInt start/end/step");
        return false;
    }
    const char *sl[5] = { base, st, en, tx_own_ints(t, &zero, 1), sp };
    const char *pos = tx_emitn(t, "Slice", sl, 5, NULL, NULL);
    const char *idx = tx_emit2(t, "Unsqueeze", pos, tx_own_ints(t, &minus1, 1), NULL, NULL);
    int64_t perm[16];
    bool swap = dim != 0 && rs != 0;
    for (int i = 0; i < r; i++) perm[i] = i;
    perm[0] = dim, perm[dim] = 0;
    if (swap) {
        x = tx_emit1(t, "Transpose", x, NULL, NULL);
        ox_attr_ints(t->m, tx_last_node(t), "perm", perm, (size_t)r);
        src = tx_emit1(t, "Transpose", src, NULL, NULL);
        ox_attr_ints(t->m, tx_last_node(t), "perm", perm, (size_t)r);
    }
    const char *ins[3] = { x, idx, src };
    const char *out = tx_one_output(t, n), *name = tx_node_name_of(t, n);
    const char *y = tx_emitn(t, "ScatterND", ins, 3, swap ? NULL : out, swap ? NULL : name);
    if (swap) {
        tx_emit1(t, "Transpose", y, out, name);
        ox_attr_ints(t->m, tx_last_node(t), "perm", perm, (size_t)r);
    }
    return true;
}

static bool b_slice_scatter(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]), *src = input_of(t, n, b[1]);
    int64_t *sz, dim, st = 0, en = INT64_MAX, step = 1;
    size_t r;
    if (!x || !src) return false;
    if (!static_sizes(b[0]->u.node, &sz, &r, &t->a))
        return slice_scatter_symbolic(t, n, x, src, b);
    if (!arg_int(b[2], &dim) ||
        (b[3]->kind != FX_ARG_NONE && !arg_int(b[3], &st)) || (b[4]->kind != FX_ARG_NONE && !arg_int(b[4], &en)) ||
        !arg_int(b[5], &step) || step < 1) {
        tx_fail_node(t, n, "slice_scatter needs static sizes and constant start/end/step");
        return false;
    }
    if (dim < 0) dim += (int64_t)r;
    if (dim < 0 || dim >= (int64_t)r) return false;
    int64_t size = sz[dim];
    if (st < 0) st += size;
    if (en < 0) en += size;
    if (st < 0) st = 0;
    if (en > size) en = size;
    size_t np = en > st ? (size_t)((en - st) / step + ((en - st) % step != 0)) : 0;   /* ceil, no overflow */
    int64_t *pos = arena_alloc(&t->a, (np + 1) * sizeof *pos);
    for (size_t i = 0; i < np; i++) pos[i] = st + (int64_t)i * step;
    return scatter_positions(t, n, x, src, dim, r, pos, np);
}

/* atleast_1d / atleast_2d / atleast_3d over a list (the N from the rule's target): a tensor of
 * rank r < N is reshaped as torch.atleast_Nd does (rank 0: all ones; rank 1 of size n: [1, n] or
 * [1, n, 1]; rank 2 of atleast_3d: [a, b, 1]), the others pass through. */
static bool b_atleast_nd(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    const char *at = strstr(rule->target, "atleast_");
    int want = at ? at[8] - '0' : 1;
    if (!tx_seq_arg(b[0]) || want < 1 || want > 3) return false;
    size_t k = b[0]->u.seq.len;
    const char **outs = tx_output_names_ex(t, n, k, true);
    for (size_t i = 0; i < k; i++) {
        const fx_arg *e = b[0]->u.seq.items[i];
        const char *v = input_of(t, n, e);
        if (!v) return false;
        int r = tx_rank_of_node(e->u.node);
        if (r < 0) { tx_fail_node(t, n, arena_printf(&t->a, "%s needs the rank of its inputs", rule->target)); return false; }
        const char *nm = arena_printf(&t->a, "node_%s__%zu", n->name, i);
        if (r >= want) {
            tx_emit1(t, "Identity", v, outs[i], nm);
            continue;
        }
        /* the new shape: ones, with the input's sizes at torch's places (-1 stands for size 0
         * of a vector, 0 copies a dimension of a matrix) */
        int64_t shape[3] = { 1, 1, 1 };
        if (r == 1) shape[want == 2 ? 1 : 1] = -1;
        if (r == 2) shape[0] = 0, shape[1] = 0;
        tx_emit2(t, "Reshape", v, tx_const_ints(t, shape, (size_t)want), outs[i], nm);
    }
    tx_set_val(t, n, outs, k);
    return true;
}

static const tx_builtin_entry builtins[] = {
    { "transpose", b_transpose, 3 }, { "slice", b_slice, 5 }, { "flip", b_flip, 2 },
    { "flatten", b_flatten, 1 }, { "hstack", b_hstack, 1 },
    { "adaptive_avg_pool2d", b_adaptive_avg_pool, 2 }, { "adaptive_avg_pool", b_adaptive_avg_pool, 2 },
    { "pad", b_pad, 4 }, { "constant_pad_nd", b_constant_pad_nd, 3 },
    { "upsample_nearest2d", b_upsample_nearest, 3 }, { "upsample_bilinear2d", b_upsample_linear, 4 },
    { "upsample_nearest", b_upsample_nearest, 3 }, { "upsample_linear", b_upsample_linear, 4 },
    { "upsample_cubic", b_upsample_cubic, 4 }, { "adaptive_max_pool", b_adaptive_max_pool, 2 },
    { "sdpa", b_sdpa, 7 }, { "var_mean", b_var_mean, 4 }, { "broadcast_in_dim", b_broadcast_in_dim, 3 },
    { "index", b_index, 2 }, { "index_put", b_index_put, 4 }, { "slice_scatter", b_slice_scatter, 6 },
    { "atleast_1d", b_atleast_nd, 1 }, { "atleast_nd", b_atleast_nd, 1 }, { "symbolic", b_symbolic, -1 },
};

const builtin_family tx_core_builtins = BUILTIN_FAMILY("core", builtins);
