/* onnx_infer.c — ONNX type and shape inference for one node (the operators fxsh emits and
 * torch.onnx's models hold), each as its inference function in onnx/defs computes it; the
 * operator's record (onnx_op.h) names the function. */
#include "onnx/onnx_infer.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx_infer_internal.h"
#include "onnx/onnx_op.h"

/* ---- helpers ------------------------------------------------------------------------------ */

typedef oi_ctx ictx;
/* the shared helpers (onnx_infer_internal.h) by their short names here */
#define fail oi_fail
#define in_at oi_in
#define known oi_known
#define shaped oi_shaped
#define set_unknown_dims oi_unknown_dims
#define attr_i oi_attr_i
#define attr_ints oi_attr_ints
#define const_ints oi_const_ints
#define norm_axis oi_norm_axis
#define like oi_like
#define broadcast oi_broadcast

int oi_fail(ictx *c, const char *fmt, ...)
{
    if (c->why && c->why_cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, c->why_cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Input i, or NULL when absent (past the end or an empty name). */
const oi_type *oi_in(const ictx *c, size_t i)
{
    if (i >= c->nin || i >= c->n->n_input || !c->n->input[i] || !*c->n->input[i]) return NULL;
    return &c->in[i];
}

bool oi_known(const oi_type *t) { return t && t->elem; }
bool oi_shaped(const oi_type *t) { return known(t) && t->rank >= 0; }

void oi_unknown_dims(oi_type *t, int rank)
{
    t->rank = rank;
    for (int i = 0; i < rank && i < OE_MAX_RANK; i++) t->d[i] = (oi_dim){-1, NULL, false};
}

int64_t oi_attr_i(const ictx *c, const char *name, int64_t def)
{
    const Onnx__AttributeProto *a = ox_node_attr(c->n, name);
    return a && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT ? a->i : def;
}

/* The ints of attribute name: count, or -1 when absent. */
int oi_attr_ints(const ictx *c, const char *name, int64_t *v, int cap)
{
    const Onnx__AttributeProto *a = ox_node_attr(c->n, name);
    if (!a || a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS) return -1;
    int k = 0;
    for (size_t i = 0; i < a->n_ints && k < cap; i++) v[k++] = a->ints[i];
    return k;
}

/* The constant ints of input i: count, or -1 when it is not a known constant. */
int oi_const_ints(const ictx *c, size_t i, int64_t *v, int cap)
{
    const oi_type *t = in_at(c, i);
    if (!t || !t->value || t->value->numel > cap || t->value->rank > 1) return -1;
    for (int64_t k = 0; k < t->value->numel; k++) v[k] = ot_get_i(t->value, k);
    return (int)t->value->numel;
}

int oi_norm_axis(int64_t a, int rank)
{
    /* saturated, so an axis far out of range stays out of range instead of wrapping into it */
    int64_t r = a < 0 ? a + rank : a;
    return r < 0 ? -1 : r > INT_MAX ? INT_MAX : (int)r;
}

/* out = in's type and shape with element type elem (0: in's). */
void oi_like(oi_type *out, const oi_type *in, int elem)
{
    *out = *in;
    out->value = NULL;
    if (elem) out->elem = elem;
}

/* ONNX's multidirectional broadcast of the inputs' shapes (onnx/defs/shape_inference.h). */
int oi_broadcast(ictx *c, const oi_type *const *ts, size_t k, oi_type *out)
{
    int rank = 0;
    for (size_t j = 0; j < k; j++) {
        if (!shaped(ts[j])) { out->rank = -1; return 0; }
        if (ts[j]->rank > rank) rank = ts[j]->rank;
    }
    out->rank = rank;
    for (int i = 0; i < rank; i++) {
        int64_t v = 1;
        oi_dim sym = {-1, NULL, false};
        int nsym = 0;
        for (size_t j = 0; j < k; j++) {
            if (i < rank - ts[j]->rank) continue;
            oi_dim d = ts[j]->d[i - rank + ts[j]->rank];
            if (d.v >= 0) {
                if (d.v != 1) {
                    if (v != d.v && v != 1) return fail(c, "incompatible dimensions %" PRId64 " and %" PRId64, v, d.v);
                    v = d.v;
                }
            } else if (nsym == 0) {
                sym = d;
                nsym = 1;
            } else if (!(d.sym && sym.sym && !strcmp(d.sym, sym.sym))) {
                nsym++;
            }
        }
        if (v != 1 || nsym == 0) out->d[i] = (oi_dim){v, NULL, false};
        else if (nsym == 1) out->d[i] = sym;
        else out->d[i] = (oi_dim){-1, NULL, false};
    }
    return 0;
}

/* ---- families ----------------------------------------------------------------------------- */

/* Same type and shape as the first input; element type arg when it is set (IsNaN, IsInf). */
int oi_infer_same(ictx *c)
{
    if (known(in_at(c, 0))) like(&c->out[0], in_at(c, 0), c->arg);
    return 0;
}

/* Multidirectional broadcasting of every input; element type arg when set (comparisons), else
 * the first input's. */
int oi_infer_broadcast(ictx *c)
{
    const oi_type *ts[8];
    size_t k = 0;
    for (size_t i = 0; i < c->nin && k < 8; i++) {
        const oi_type *t = in_at(c, i);
        if (!known(t)) return 0;
        ts[k++] = t;
    }
    if (!k) return 0;
    c->out[0].elem = c->arg ? c->arg : ts[0]->elem;
    if (c->opset < 7) {
        /* before opset 7 these ops broadcast the second operand into the first (the broadcast
         * attribute) or took equal shapes: onnx infers the first input's shape */
        c->out[0].rank = ts[0]->rank;
        for (int i = 0; i < ts[0]->rank; i++) c->out[0].d[i] = ts[0]->d[i];
        return 0;
    }
    return broadcast(c, ts, k, &c->out[0]);
}

int oi_infer_where(ictx *c)
{
    const oi_type *ts[3] = {in_at(c, 0), in_at(c, 1), in_at(c, 2)};
    if (!known(ts[0]) || !known(ts[1]) || !known(ts[2])) return 0;
    c->out[0].elem = ts[1]->elem;
    return broadcast(c, ts, 3, &c->out[0]);
}

int oi_infer_cast(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    bool like_input = c->arg != 0;
    int to = like_input ? (known(in_at(c, 1)) ? in_at(c, 1)->elem : 0) : (int)attr_i(c, "to", 0);
    if (!known(x) || !to) return 0;
    like(&c->out[0], x, to);
    return 0;
}

int oi_infer_shape(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    c->out[0].elem = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    c->out[0].rank = 1;
    c->out[0].d[0] = (oi_dim){-1, NULL, false};
    if (!shaped(x)) return 0;
    int64_t r = x->rank, s = attr_i(c, "start", 0), e = attr_i(c, "end", r);
    s = s < 0 ? s + r : s;
    e = e < 0 ? e + r : e;
    s = s < 0 ? 0 : s > r ? r : s;
    e = e < 0 ? 0 : e > r ? r : e;
    c->out[0].d[0].v = e > s ? e - s : 0;
    return 0;
}

int oi_infer_reshape(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    c->out[0].rank = -1;
    int64_t sh[OE_MAX_RANK];
    int k = const_ints(c, 1, sh, OE_MAX_RANK);
    if (k < 0) {
        /* the shape not constant: from Reshape-14 on onnx takes the rank from its length; before,
         * the element type only */
        const oi_type *s = in_at(c, 1);
        if (c->opset >= 14 && shaped(s) && s->rank == 1 && s->d[0].v >= 0 && s->d[0].v <= OE_MAX_RANK)
            set_unknown_dims(&c->out[0], (int)s->d[0].v);
        return 0;
    }
    bool allowzero = attr_i(c, "allowzero", 0) != 0;
    int neg = -1;
    int64_t prod = 1;
    bool prod_known = true;
    c->out[0].rank = k;
    for (int i = 0; i < k; i++) {
        if (sh[i] == -1) {
            if (neg >= 0) return fail(c, "more than one -1 in the target shape");
            neg = i;
            c->out[0].d[i] = (oi_dim){-1, NULL, false};
        } else if (sh[i] == 0 && !allowzero) {
            if (!shaped(x)) {   /* copies a dimension nothing tells */
                c->out[0].d[i] = (oi_dim){-1, NULL, false};
                prod_known = false;
                continue;
            }
            if (i >= x->rank) return fail(c, "a 0 in the target shape past the input's rank");
            c->out[0].d[i] = x->d[i];
            if (x->d[i].v < 0 || __builtin_mul_overflow(prod, x->d[i].v, &prod)) prod_known = false;
        } else if (sh[i] < 0) {
            return fail(c, "a negative dimension %" PRId64 " in the target shape", sh[i]);
        } else {
            c->out[0].d[i] = (oi_dim){sh[i], NULL, false};
            if (__builtin_mul_overflow(prod, sh[i], &prod)) prod_known = false;   /* an absurd shape */
        }
    }
    if (neg >= 0 && prod_known && shaped(x)) {
        int64_t total = 1;
        for (int i = 0; i < x->rank; i++) {
            if (x->d[i].v < 0 || __builtin_mul_overflow(total, x->d[i].v, &total)) return 0;
        }
        if (prod == 0 || total % prod) return fail(c, "cannot reshape %" PRId64 " elements", total);
        c->out[0].d[neg].v = total / prod;
    }
    return 0;
}

int oi_infer_unsqueeze(ictx *c)
{
    bool squeeze = c->arg != 0;
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    c->out[0].rank = -1;
    int64_t ax[OE_MAX_RANK];
    int k = c->opset >= 13 ? (in_at(c, 1) ? const_ints(c, 1, ax, OE_MAX_RANK) : -2) : attr_ints(c, "axes", ax, OE_MAX_RANK);
    if (!shaped(x) || k == -1) return 0;
    if (squeeze) {
        bool drop[OE_MAX_RANK] = {false};
        if (k < 0) {   /* no axes: every dimension of size 1; unknown ones make the rank unknown */
            for (int i = 0; i < x->rank; i++) {
                if (x->d[i].v < 0) return 0;
                drop[i] = x->d[i].v == 1;
            }
        }
        for (int i = 0; i < k; i++) {
            int a = norm_axis(ax[i], x->rank);
            if (a < 0 || a >= x->rank) return fail(c, "axis %" PRId64 " out of range", ax[i]);
            if (x->d[a].v >= 0 && x->d[a].v != 1) return fail(c, "cannot squeeze dimension %d of size %" PRId64, a, x->d[a].v);
            drop[a] = true;
        }
        int r = 0;
        for (int i = 0; i < x->rank; i++)
            if (!drop[i]) c->out[0].d[r++] = x->d[i];
        c->out[0].rank = r;
        return 0;
    }
    if (k < 0) return 0;
    int r = x->rank + k;
    if (r > OE_MAX_RANK) return 0;
    bool added[OE_MAX_RANK] = {false};
    for (int i = 0; i < k; i++) {
        int a = norm_axis(ax[i], r);
        if (a < 0 || a >= r || added[a]) return fail(c, "bad or repeated axis %" PRId64, ax[i]);
        added[a] = true;
    }
    for (int i = 0, j = 0; i < r; i++) c->out[0].d[i] = added[i] ? (oi_dim){1, NULL, false} : x->d[j++];
    c->out[0].rank = r;
    return 0;
}

int oi_infer_transpose(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    if (!shaped(x)) return 0;
    int64_t perm[OE_MAX_RANK];
    int k = attr_ints(c, "perm", perm, OE_MAX_RANK);
    if (k < 0) {
        k = x->rank;
        for (int i = 0; i < k; i++) perm[i] = k - 1 - i;
    }
    if (k != x->rank) return fail(c, "perm has %d entries for a rank-%d input", k, x->rank);
    bool seen[OE_MAX_RANK] = { false };
    for (int i = 0; i < k; i++) {
        if (perm[i] < 0 || perm[i] >= k) return fail(c, "perm entry %" PRId64 " out of range", perm[i]);
        if (seen[perm[i]]) return fail(c, "Attribute perm for Transpose has repeated value: %" PRId64, perm[i]);
        seen[perm[i]] = true;
        c->out[0].d[i] = x->d[perm[i]];
    }
    return 0;
}

int oi_infer_concat(ictx *c)
{
    const oi_type *x0 = in_at(c, 0);
    if (!known(x0)) return 0;
    like(&c->out[0], x0, 0);
    int rank = -1;
    for (size_t i = 0; i < c->nin; i++) {
        const oi_type *t = in_at(c, i);
        if (!shaped(t)) { c->out[0].rank = -1; return 0; }
        if (rank >= 0 && t->rank != rank) return fail(c, "inputs of ranks %d and %d", rank, t->rank);
        rank = t->rank;
    }
    int a = norm_axis(attr_i(c, "axis", 0), rank);
    if (a < 0 || a >= rank) return fail(c, "axis out of range");
    oi_type *o = &c->out[0];
    o->rank = rank;
    for (int d = 0; d < rank; d++) {
        if (d == a) {
            int64_t sum = 0;
            for (size_t i = 0; i < c->nin && sum >= 0; i++) {
                int64_t v = c->in[i].d[d].v;
                if (v >= 0 && sum > INT64_MAX - v) return fail(c, "the concatenated dimension overflows");
                sum = v < 0 ? -1 : sum + v;
            }
            o->d[d] = (oi_dim){sum, NULL, false};
            continue;
        }
        o->d[d] = (oi_dim){-1, NULL, false};   /* merged: a value wins, else a symbol all share */
        for (size_t i = 0; i < c->nin; i++) {
            oi_dim e = c->in[i].d[d];
            if (e.v >= 0) {
                if (o->d[d].v >= 0 && o->d[d].v != e.v) return fail(c, "dimension %d differs (%" PRId64 " and %" PRId64 ")", d, o->d[d].v, e.v);
                o->d[d] = e;
            } else if (o->d[d].v < 0 && !o->d[d].sym && e.sym) {
                o->d[d] = e;
            }
        }
    }
    return 0;
}

int oi_infer_gather(ictx *c)
{
    bool elements = c->arg != 0;
    const oi_type *x = in_at(c, 0), *idx = in_at(c, 1);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    c->out[0].rank = -1;
    if (!shaped(x) || !shaped(idx)) return 0;
    if (elements) {
        c->out[0].rank = idx->rank;
        memcpy(c->out[0].d, idx->d, sizeof idx->d);
        return 0;
    }
    int a = norm_axis(attr_i(c, "axis", 0), x->rank);
    if (a < 0 || a >= x->rank) return fail(c, "axis out of range");
    int r = x->rank - 1 + idx->rank;
    if (r > OE_MAX_RANK) return 0;
    int k = 0;
    for (int i = 0; i < a; i++) c->out[0].d[k++] = x->d[i];
    for (int i = 0; i < idx->rank; i++) c->out[0].d[k++] = idx->d[i];
    for (int i = a + 1; i < x->rank; i++) c->out[0].d[k++] = x->d[i];
    c->out[0].rank = r;
    return 0;
}

/* Slice: each sliced dimension computed when its size and the constant starts/ends/steps are. */
int oi_infer_slice(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    if (!shaped(x)) return 0;
    int64_t st[OE_MAX_RANK], en[OE_MAX_RANK], ax[OE_MAX_RANK], sp[OE_MAX_RANK];
    int ns = const_ints(c, 1, st, OE_MAX_RANK), ne = const_ints(c, 2, en, OE_MAX_RANK);
    int na = in_at(c, 3) ? const_ints(c, 3, ax, OE_MAX_RANK) : -2;
    int nsp = in_at(c, 4) ? const_ints(c, 4, sp, OE_MAX_RANK) : -2;
    if (ns < 0 || ne < 0 || na == -1 || nsp == -1) {   /* which axes are sliced is unknown */
        set_unknown_dims(&c->out[0], x->rank);
        return 0;
    }
    if (ns != ne || (na >= 0 && na != ns) || (nsp >= 0 && nsp != ns)) return fail(c, "starts, ends, axes and steps differ in length");
    for (int i = 0; i < ns; i++) {
        int a = na >= 0 ? norm_axis(ax[i], x->rank) : i;
        int64_t step = nsp >= 0 ? sp[i] : 1;
        if (a < 0 || a >= x->rank) return fail(c, "axis out of range");
        if (step == 0) return fail(c, "a step of 0");
        int64_t dim = x->d[a].v;
        if (dim < 0) { c->out[0].d[a] = (oi_dim){-1, NULL, false}; continue; }
        /* clamped in onnx's order (lower bound first), which for an empty dimension sliced
         * backwards gives 1: onnx's checker rejects a declared 0 there, and so does fxsh's */
        int64_t s = st[i], e = en[i], n;
        s = s < 0 ? s + dim : s;
        e = e < 0 ? e + dim : e;
        if (step > 0) {
            s = s < 0 ? 0 : s > dim ? dim : s;
            e = e < 0 ? 0 : e > dim ? dim : e;
            n = e > s ? (e - s - 1) / step + 1 : 0;   /* e - s <= dim: no overflow for any step */
        } else {
            s = s < 0 ? 0 : s > dim - 1 ? dim - 1 : s;
            e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
            /* -step as unsigned: INT64_MIN has no negation in int64 */
            n = s > e ? (int64_t)((uint64_t)(s - e - 1) / ((uint64_t)(-(step + 1)) + 1)) + 1 : 0;
        }
        c->out[0].d[a] = (oi_dim){n, NULL, false};
    }
    return 0;
}

int oi_infer_split(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    for (size_t i = 0; i < c->nout; i++) like(&c->out[i], x, 0);
    if (!shaped(x)) return 0;
    int a = norm_axis(attr_i(c, "axis", 0), x->rank);
    if (a < 0 || a >= x->rank) return fail(c, "axis out of range");
    int64_t sizes[64];
    /* the sizes: an input from opset 13, an attribute before */
    int k = c->opset >= 13 ? (in_at(c, 1) ? const_ints(c, 1, sizes, 64) : -2) : attr_ints(c, "split", sizes, 64);
    if (c->opset < 13 && k < 0) k = -2;
    if (k == -1) {   /* sizes not constant: onnx infers the element type only */
        for (size_t i = 0; i < c->nout; i++) c->out[i].rank = -1;
        return 0;
    }
    int64_t dim = x->d[a].v;
    for (size_t i = 0; i < c->nout; i++) c->out[i].d[a] = (oi_dim){-1, NULL, false};
    if (k >= 0) {
        if ((size_t)k != c->nout) return fail(c, "Mismatch between number of splits (%d) and outputs (%zu)", k, c->nout);
        int64_t sum = 0;
        for (int i = 0; i < k; i++) sum += sizes[i];
        if (dim >= 0 && sum != dim)
            return fail(c, "Mismatch between the sum of 'split' (%" PRId64 ") and the split dimension of the input (%" PRId64 ")",
                        sum, dim);
        for (int i = 0; i < k; i++) c->out[i].d[a] = (oi_dim){sizes[i], NULL, false};
        return 0;
    }
    if (dim < 0 || !c->nout) return 0;
    int64_t n = (int64_t)c->nout;
    if (c->opset >= 18) {
        int64_t num = attr_i(c, "num_outputs", -1);
        if (num >= 0 && num != n)
            return fail(c, "Attribute `num_outputs` value (%" PRId64 ") is not equal to number of outputs (%zu)", num, c->nout);
    } else if (dim % n) {
        return fail(c, "The input is not evenly splittable");
    }
    /* onnx's chunks: ceil(dim / n) each, the last what is left (negative when n chunks are too
     * many: onnx writes that as is, inference reads a negative size as unknown) */
    int64_t chunk = dim / n + (dim % n > 0);
    for (size_t i = 0; i < c->nout; i++) {
        int64_t v = (int64_t)i + 1 < n ? chunk : dim - chunk * (n - 1);
        c->out[i].d[a] = (oi_dim){v >= 0 ? v : -1, NULL, false};
    }
    return 0;
}

int oi_infer_expand(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    c->out[0].rank = -1;
    int64_t sh[OE_MAX_RANK];
    int k = const_ints(c, 1, sh, OE_MAX_RANK);
    if (!shaped(x)) return 0;
    if (k < 0) {
        /* the shape not constant but of a known length: a target of unknown dims, broadcast
         * with the input as onnx does (a static dim other than 1 stays) */
        const oi_type *s = in_at(c, 1);
        if (!shaped(s) || s->rank != 1 || s->d[0].v < 0 || s->d[0].v > OE_MAX_RANK) return 0;
        oi_type target = {.elem = x->elem};
        set_unknown_dims(&target, (int)s->d[0].v);
        const oi_type *ts[2] = {x, &target};
        return broadcast(c, ts, 2, &c->out[0]);
    }
    oi_type target = {.elem = x->elem, .rank = k};
    for (int i = 0; i < k; i++) target.d[i] = (oi_dim){sh[i], NULL, false};
    const oi_type *ts[2] = {x, &target};
    return broadcast(c, ts, 2, &c->out[0]);
}

int oi_infer_constant_of_shape(ictx *c)
{
    const Onnx__AttributeProto *v = ox_node_attr(c->n, "value");
    c->out[0].elem = v && v->t ? v->t->data_type : ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    c->out[0].rank = -1;
    int64_t sh[OE_MAX_RANK];
    int k = const_ints(c, 0, sh, OE_MAX_RANK);
    if (k >= 0) {
        c->out[0].rank = k;
        for (int i = 0; i < k; i++) {
            if (sh[i] < 0) return fail(c, "shape input tensor must have non-negative elements (entry %d is %" PRId64 ")", i, sh[i]);
            c->out[0].d[i] = (oi_dim){sh[i], NULL, false};
        }
    } else if (shaped(in_at(c, 0)) && in_at(c, 0)->rank == 1 && in_at(c, 0)->d[0].v >= 0 && in_at(c, 0)->d[0].v <= OE_MAX_RANK) {
        set_unknown_dims(&c->out[0], (int)in_at(c, 0)->d[0].v);
    }
    return 0;
}

int oi_infer_matmul(ictx *c)
{
    const oi_type *a = in_at(c, 0), *b = in_at(c, 1);
    if (!known(a) || !known(b)) return 0;
    c->out[0].elem = a->elem;
    c->out[0].rank = -1;
    if (!shaped(a) || !shaped(b) || !a->rank || !b->rank) return 0;
    oi_type A = *a, B = *b;
    if (A.rank == 1) { A.rank = 2; A.d[1] = a->d[0]; A.d[0] = (oi_dim){1, NULL, false}; }
    if (B.rank == 1) { B.rank = 2; B.d[1] = (oi_dim){1, NULL, false}; }
    oi_dim ka = A.d[A.rank - 1], kb = B.d[B.rank - 2];
    if (ka.v >= 0 && kb.v >= 0 && ka.v != kb.v) return fail(c, "inner dimensions %" PRId64 " and %" PRId64 " differ", ka.v, kb.v);
    oi_type ba = {.elem = 1, .rank = A.rank - 2}, bb = {.elem = 1, .rank = B.rank - 2};
    memcpy(ba.d, A.d, sizeof(oi_dim) * (size_t)ba.rank);
    memcpy(bb.d, B.d, sizeof(oi_dim) * (size_t)bb.rank);
    const oi_type *ts[2] = {&ba, &bb};
    oi_type o = {0};
    if (broadcast(c, ts, 2, &o)) return -1;
    int r = o.rank;
    if (a->rank > 1) o.d[r++] = A.d[A.rank - 2];
    if (b->rank > 1) o.d[r++] = B.d[B.rank - 1];
    if (r > OE_MAX_RANK) return 0;
    o.rank = r;
    o.elem = a->elem;
    c->out[0] = o;
    return 0;
}

int oi_infer_gemm(ictx *c)
{
    const oi_type *a = in_at(c, 0), *b = in_at(c, 1);
    if (!known(a)) return 0;
    c->out[0].elem = a->elem;
    c->out[0].rank = -1;
    if (shaped(a) && a->rank != 2) return fail(c, "First input does not have rank 2");
    if (shaped(b) && b->rank != 2) return fail(c, "Second input does not have rank 2");
    if (!shaped(a) || !shaped(b)) return 0;
    bool ta = attr_i(c, "transA", 0), tb = attr_i(c, "transB", 0);
    c->out[0].rank = 2;
    c->out[0].d[0] = a->d[ta ? 1 : 0];
    c->out[0].d[1] = b->d[tb ? 0 : 1];
    return 0;
}

/* Reduce*: the axes from the input (ReduceSum from opset 13, the others from 18) or attribute. */
int oi_infer_reduce(ictx *c)
{
    const char *op = c->n->op_type;
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    if (!shaped(x)) return 0;
    bool from_input = !strcmp(op, "ReduceSum") ? c->opset >= 13 : c->opset >= 18;
    int64_t ax[OE_MAX_RANK];
    int k = from_input ? (in_at(c, 1) ? const_ints(c, 1, ax, OE_MAX_RANK) : 0) : attr_ints(c, "axes", ax, OE_MAX_RANK);
    if (!from_input && k < 0) k = 0;
    bool keep = attr_i(c, "keepdims", 1) == 1;   /* onnx keeps the dims for keepdims == 1 only */
    if (k < 0) {   /* axes not constant: onnx infers the element type only, keepdims or not */
        c->out[0].rank = -1;
        return 0;
    }
    if (k == 0 && attr_i(c, "noop_with_empty_axes", 0)) return 0;
    bool red[OE_MAX_RANK] = {false};
    for (int i = 0; i < x->rank; i++) red[i] = k == 0;
    for (int i = 0; i < k; i++) {
        int a = norm_axis(ax[i], x->rank);
        if (a < 0 || a >= x->rank) return fail(c, "axis %" PRId64 " out of range", ax[i]);
        red[a] = true;
    }
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!red[i]) c->out[0].d[r++] = x->d[i];
        else if (keep) c->out[0].d[r++] = (oi_dim){1, NULL, false};
    }
    c->out[0].rank = r;
    return 0;
}

int oi_infer_argmax(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    like(&c->out[0], x, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
    if (!shaped(x) || x->rank == 0) return 0;   /* a scalar's index is a scalar */
    int a = norm_axis(attr_i(c, "axis", 0), x->rank);
    if (a < 0 || a >= x->rank) return fail(c, "axis out of range");
    if (attr_i(c, "keepdims", 1) == 1) {   /* onnx: keepdims == 1 keeps it, any other value drops it */
        c->out[0].d[a] = (oi_dim){1, NULL, false};
    } else {
        for (int i = a; i + 1 < x->rank; i++) c->out[0].d[i] = x->d[i + 1];
        c->out[0].rank--;
    }
    return 0;
}

int oi_infer_pad(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    if (!shaped(x)) return 0;
    int64_t pads[2 * OE_MAX_RANK], ax[OE_MAX_RANK];
    int np = c->opset >= 11 ? const_ints(c, 1, pads, 2 * OE_MAX_RANK) : attr_ints(c, "pads", pads, 2 * OE_MAX_RANK);
    int na = in_at(c, 3) ? const_ints(c, 3, ax, OE_MAX_RANK) : -2;
    if (na == -1) { c->out[0].rank = -1; return 0; }   /* axes not constant: onnx infers nothing more */
    if (np < 0) { set_unknown_dims(&c->out[0], x->rank); return 0; }   /* pads not constant: the rank */
    int n = na >= 0 ? na : x->rank;
    if (np != 2 * n) return fail(c, "pads has %d entries for %d axes", np, n);
    for (int i = 0; i < n; i++) {
        int a = na >= 0 ? norm_axis(ax[i], x->rank) : i;
        if (a < 0 || a >= x->rank) return fail(c, "axis out of range");
        int64_t d;
        if (x->d[a].v >= 0 && !__builtin_add_overflow(x->d[a].v, pads[i], &d) && !__builtin_add_overflow(d, pads[i + n], &d)) {
            if (d < 0) return fail(c, "pads leave axis %d with %" PRId64 " elements", a, d);
            c->out[0].d[a] = (oi_dim){d, NULL, false};
        } else c->out[0].d[a] = (oi_dim){-1, NULL, false};
    }
    return 0;
}

int oi_infer_tile(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    if (!shaped(x)) return 0;
    int64_t rep[OE_MAX_RANK];
    int k = const_ints(c, 1, rep, OE_MAX_RANK);
    if (k < 0) { set_unknown_dims(&c->out[0], x->rank); return 0; }
    if (k != x->rank) return fail(c, "repeats has %d entries for a rank-%d input", k, x->rank);
    for (int i = 0; i < k; i++) {
        int64_t d;
        if (rep[i] < 0) return fail(c, "a negative repeat %" PRId64, rep[i]);
        bool known_dim = x->d[i].v >= 0 && !__builtin_mul_overflow(x->d[i].v, rep[i], &d);
        c->out[0].d[i] = known_dim ? (oi_dim){d, NULL, false} : (oi_dim){-1, NULL, false};
    }
    return 0;
}

int oi_infer_range(ictx *c)
{
    const oi_type *s = in_at(c, 0);
    if (!known(s)) return 0;
    c->out[0].elem = s->elem;
    c->out[0].rank = 1;
    c->out[0].d[0] = (oi_dim){-1, NULL, false};
    const oi_type *l = in_at(c, 1), *d = in_at(c, 2);
    if (s->value && l && l->value && d && d->value && s->value->numel == 1 && l->value->numel == 1 && d->value->numel == 1) {
        double a = ot_get_f(s->value, 0), b = ot_get_f(l->value, 0), st = ot_get_f(d->value, 0);
        if (st == 0) return fail(c, "a delta of 0");
        double n = (b - a) / st;
        int64_t k = (int64_t)n;
        if ((double)k < n) k++;
        c->out[0].d[0].v = k > 0 ? k : 0;
    }
    return 0;
}

int oi_infer_topk(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    if (c->nout > 1) like(&c->out[1], x, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
    if (!shaped(x)) return 0;
    int a = norm_axis(attr_i(c, "axis", -1), x->rank);
    if (a < 0 || a >= x->rank) return fail(c, "axis out of range");
    int64_t k[1];
    int nk = c->opset >= 10 ? const_ints(c, 1, k, 1) : (k[0] = attr_i(c, "k", -1), k[0] >= 0 ? 1 : -1);
    if (nk != 1) {   /* K not constant: onnx infers the rank only */
        for (size_t i = 0; i < c->nout && i < 2; i++) set_unknown_dims(&c->out[i], x->rank);
        return 0;
    }
    if (x->d[a].v >= 0 && k[0] > x->d[a].v) return fail(c, "Axis has less than the requested k elements.");
    for (size_t i = 0; i < c->nout && i < 2; i++) c->out[i].d[a] = (oi_dim){k[0], NULL, false};
    return 0;
}

/* Det: the batch dims of [*, M, M] (onnx/defs/math/defs.cc). */
int oi_infer_det(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    c->out[0].rank = -1;
    if (!shaped(x)) return 0;
    if (x->rank < 2) return fail(c, "the input must have rank 2 or more, not %d", x->rank);
    oi_dim a = x->d[x->rank - 2], b = x->d[x->rank - 1];
    if (a.v >= 0 && b.v >= 0 && a.v != b.v) return fail(c, "the last two dims must be square, not %" PRId64 " x %" PRId64, a.v, b.v);
    c->out[0].rank = x->rank - 2;
    return 0;
}

/* GatherND: indices' dims but the last (k, which must be known), then data's dims after
 * batch_dims + k (onnx/defs/tensor/defs.cc). */
int oi_infer_gather_nd(ictx *c)
{
    const oi_type *x = in_at(c, 0), *ix = in_at(c, 1);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    c->out[0].rank = -1;
    if (!shaped(x) || !ix || !shaped(ix) || ix->rank < 1) return 0;
    int64_t b = attr_i(c, "batch_dims", 0), k = ix->d[ix->rank - 1].v;
    if (k < 1) return 0;
    if (b < 0 || b + k > x->rank) return fail(c, "indices' last dim %" PRId64 " and batch_dims %" PRId64 " exceed the data's rank %d",
                                              k, b, x->rank);
    int r = ix->rank - 1 + x->rank - (int)(b + k);
    if (r > OE_MAX_RANK) return 0;
    c->out[0].rank = r;
    for (int i = 0; i < ix->rank - 1; i++) c->out[0].d[i] = ix->d[i];
    for (int i = (int)(b + k); i < x->rank; i++) c->out[0].d[ix->rank - 1 + i - (int)(b + k)] = x->d[i];
    return 0;
}

/* STFT (onnx/defs/math/defs.cc): [batch, frames, bins, 2] from the signal's length, a constant
 * frame_step and the DFT size (a constant frame_length, else the window's length); frames =
 * (length - size) / step + 1, bins = size / 2 + 1 when onesided. As onnx 1.20 does it: an absent
 * onesided counts as 0 (not the schema's default 1), and a symbolic batch dim is not kept.
 * Nothing known, no shape. */
int oi_infer_stft(ictx *c)
{
    const oi_type *x = in_at(c, 0), *w = in_at(c, 2);
    if (!known(x)) return 0;
    c->out[0].elem = x->elem;
    c->out[0].rank = -1;
    int64_t step[1], len[1], size = -1;
    if (!shaped(x) || x->rank != 3 || x->d[1].v < 0 || const_ints(c, 1, step, 1) != 1 || step[0] <= 0) return 0;
    if (const_ints(c, 3, len, 1) == 1) size = len[0];
    else if (w && shaped(w) && w->rank == 1) size = w->d[0].v;
    if (size <= 0 || size > x->d[1].v) return 0;
    c->out[0].rank = 4;
    c->out[0].d[0] = (oi_dim){x->d[0].v, NULL, false};
    c->out[0].d[1] = (oi_dim){(x->d[1].v - size) / step[0] + 1, NULL, false};
    c->out[0].d[2] = (oi_dim){attr_i(c, "onesided", 0) ? size / 2 + 1 : size, NULL, false};
    c->out[0].d[3] = (oi_dim){2, NULL, false};
    return 0;
}

/* Conv, ConvTranspose, MaxPool, AveragePool, LpPool: onnx/defs/nn/defs.cc's convPoolShapeInference
 * (and ConvTranspose's): N, then C (the weight's M, M·group for ConvTranspose, else the input's
 * C), then each spatial dim from kernel_shape (or the weight), strides, dilations, pads or
 * auto_pad, ceil_mode. MaxPool's second output (Indices) has the same shape as int64. */
int oi_infer_conv_pool(ictx *c)
{
    const char *op = c->n->op_type;
    const oi_type *x = in_at(c, 0), *w = in_at(c, 1);
    /* the convolutions take their kernel from the weight (input 1; QLinearConv's caller puts it there) */
    bool conv = !strcmp(op, "Conv") || !strcmp(op, "ConvTranspose") || !strcmp(op, "ConvInteger") ||
                !strcmp(op, "QLinearConv") || !strcmp(op, "DeformConv"),
         transpose = !strcmp(op, "ConvTranspose");
    if (!known(x)) return 0;
    c->out[0].elem = x->elem;
    if (c->nout > 1) c->out[1].elem = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    if (!shaped(x) || x->rank < 2 || (conv && !shaped(w))) { c->out[0].rank = -1; return 0; }
    int sp = x->rank - 2;
    if (conv && w->rank != x->rank) return fail(c, "the weight has rank %d for a rank-%d input", w->rank, x->rank);
    int64_t k[OE_MAX_RANK], st[OE_MAX_RANK], dl[OE_MAX_RANK], pads[2 * OE_MAX_RANK], op_[OE_MAX_RANK];
    int nk = attr_ints(c, "kernel_shape", k, OE_MAX_RANK);
    if (nk < 0 && conv) {
        nk = sp;
        for (int i = 0; i < sp; i++) k[i] = w->d[i + 2].v;
    }
    if (nk != sp) return fail(c, "kernel_shape has %d entries for %d spatial dims", nk, sp);
    if (attr_ints(c, "strides", st, OE_MAX_RANK) != sp) for (int i = 0; i < sp; i++) st[i] = 1;
    if (attr_ints(c, "dilations", dl, OE_MAX_RANK) != sp) for (int i = 0; i < sp; i++) dl[i] = 1;
    if (attr_ints(c, "pads", pads, 2 * OE_MAX_RANK) != 2 * sp) for (int i = 0; i < 2 * sp; i++) pads[i] = 0;
    if (attr_ints(c, "output_padding", op_, OE_MAX_RANK) != sp) for (int i = 0; i < sp; i++) op_[i] = 0;
    /* the spec's ranges (onnx's inference computes nonsense sizes from others, runtimes refuse them) */
    for (int i = 0; i < sp; i++) {
        if (st[i] < 1) return fail(c, "strides[%d] is %" PRId64 "; strides must be positive", i, st[i]);
        if (dl[i] < 1) return fail(c, "dilations[%d] is %" PRId64 "; dilations must be positive", i, dl[i]);
        if (!conv && k[i] < 1) return fail(c, "kernel_shape[%d] is %" PRId64 "; kernel sizes must be positive", i, k[i]);
        if (pads[i] < 0 || pads[i + sp] < 0) return fail(c, "pads must not be negative");
    }
    /* auto_pad's bytes (a parsed protobuf's string need not end in NUL) */
    const Onnx__AttributeProto *ap = ox_node_attr(c->n, "auto_pad");
    bool is_str = ap && ap->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING && ap->s.data;
    bool same = is_str && ap->s.len >= 4 && !memcmp(ap->s.data, "SAME", 4);
    bool valid = is_str && ap->s.len == 5 && !memcmp(ap->s.data, "VALID", 5);
    bool ceil_mode = attr_i(c, "ceil_mode", 0) != 0;
    oi_type *o = &c->out[0];
    o->rank = x->rank;
    o->d[0] = x->d[0];
    if (!conv) o->d[1] = x->d[1];
    else if (transpose) {
        int64_t g = attr_i(c, "group", 1);
        o->d[1] = w->d[1].v >= 0 && g > 0 && !__builtin_mul_overflow(w->d[1].v, g, &o->d[1].v) ? (oi_dim){o->d[1].v, NULL, false} : (oi_dim){-1, NULL, false};
    } else o->d[1] = w->d[0].v >= 0 ? (oi_dim){w->d[0].v, NULL, false} : w->d[0];
    for (int i = 0; i < sp; i++) {
        int64_t in = x->d[i + 2].v, eff, total, out;
        if (x->d[i + 2].neg && !transpose && !same && !ceil_mode && k[i] >= 1 &&
            !__builtin_mul_overflow(dl[i], k[i] - 1, &eff) && !__builtin_add_overflow(pads[i], pads[i + sp], &total)) {
            /* a declared negative size: onnx computes (in + pads - kernel) / stride + 1 with it as a
             * number, wrapping in int64, and compares the result with what the model declares */
            uint64_t span = (uint64_t)in + (uint64_t)(valid ? 0 : total) - (uint64_t)eff - 1u;
            uint64_t q = (uint64_t)((int64_t)span / st[i]) + 1u;
            o->d[i + 2] = (oi_dim){(int64_t)q, NULL, (int64_t)q < 0};
            continue;
        }
        if (in < 0 || k[i] < 0 || st[i] <= 0 || dl[i] <= 0 ||
            __builtin_mul_overflow(dl[i], k[i] - 1, &eff) || __builtin_add_overflow(pads[i], pads[i + sp], &total)) {
            o->d[i + 2] = (oi_dim){-1, NULL, false};
            continue;
        }
        eff += 1;
        if (transpose) {
            /* SAME: in * stride; else (in - 1) * stride + output_padding + effective kernel - pads */
            if (__builtin_mul_overflow(same ? in : in - 1, st[i], &out)) { o->d[i + 2] = (oi_dim){-1, NULL, false}; continue; }
            if (!same) out = out + op_[i] + eff - total;
        } else if (same) {
            out = (in + st[i] - 1) / st[i];
        } else {
            int64_t span = in + (valid ? 0 : total) - eff;
            if (span < 0) return fail(c, "the kernel (%" PRId64 ") is larger than the padded input (%" PRId64 ")", eff, in + total);
            out = (ceil_mode ? (span + st[i] - 1) / st[i] : span / st[i]) + 1;
            /* from MaxPool-22 / AveragePool-22 on, onnx drops a last ceil_mode window that would
             * start past the input and its begin padding, as torch does; earlier versions keep it */
            if (ceil_mode && c->opset >= 22 && (out - 1) * st[i] >= in + pads[i]) out--;
        }
        o->d[i + 2] = (oi_dim){out, NULL, false};
    }
    /* ConvTranspose's output_shape gives the spatial dims outright (pads are then derived from it) */
    int64_t os[OE_MAX_RANK];
    int nos = transpose ? attr_ints(c, "output_shape", os, OE_MAX_RANK) : -1;
    if (nos >= 0) {
        if (nos != sp) return fail(c, "output_shape has %d entries for %d spatial dims", nos, sp);
        for (int i = 0; i < sp; i++) o->d[i + 2] = (oi_dim){os[i] >= 0 ? os[i] : -1, NULL, false};
    }
    if (c->nout > 1 && !strcmp(op, "MaxPool")) {
        int elem = c->out[1].elem;
        c->out[1] = *o;
        c->out[1].elem = elem;
    }
    return 0;
}

int oi_infer_constant(ictx *c)
{
    const Onnx__AttributeProto *a = c->n->n_attribute ? c->n->attribute[0] : NULL;
    if (!a) return 0;
    oi_type *o = &c->out[0];
    if (a->t) {
        o->elem = a->t->data_type;
        o->rank = a->t->n_dims <= OE_MAX_RANK ? (int)a->t->n_dims : -1;
        for (int i = 0; i < o->rank; i++) o->d[i] = (oi_dim){a->t->dims[i], NULL, false};
    } else if (!strcmp(a->name, "value_int") || !strcmp(a->name, "value_float")) {
        o->elem = a->name[6] == 'i' ? ONNX__TENSOR_PROTO__DATA_TYPE__INT64 : ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
        o->rank = 0;
    } else if (!strcmp(a->name, "value_ints") || !strcmp(a->name, "value_floats")) {
        o->elem = a->name[6] == 'i' ? ONNX__TENSOR_PROTO__DATA_TYPE__INT64 : ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
        o->rank = 1;
        o->d[0] = (oi_dim){(int64_t)(a->name[6] == 'i' ? a->n_ints : a->n_floats), NULL, false};
    }
    return 0;
}

int oi_infer_nonzero(ictx *c)
{
    const oi_type *x = in_at(c, 0);
    if (!known(x)) return 0;
    c->out[0].elem = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    c->out[0].rank = 2;
    c->out[0].d[0] = (oi_dim){shaped(x) ? x->rank : -1, NULL, false};
    c->out[0].d[1] = (oi_dim){-1, NULL, false};
    return 0;
}

/* ReverseSequence: the input's type; its shape once both inputs' shapes are known, the input of
 * rank 2 or more and sequence_lens of rank 1 (onnx/defs/tensor/defs.cc). */
int oi_infer_reverse_sequence(ictx *c)
{
    const oi_type *x = in_at(c, 0), *lens = in_at(c, 1);
    if (!known(x)) return 0;
    like(&c->out[0], x, 0);
    if (!shaped(x) || !shaped(lens)) {
        c->out[0].rank = -1;
        return 0;
    }
    if (x->rank < 2) return fail(c, "'input' must have rank >= 2");
    if (lens->rank != 1) return fail(c, "'sequence_lens' must have rank of 1");
    return 0;
}

/* Size: a scalar int64. */
int oi_infer_size(ictx *c)
{
    c->out[0].elem = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    c->out[0].rank = 0;
    return 0;
}

/* EyeLike: the input's shape; dtype, else the input's type. */
int oi_infer_eye_like(ictx *c)
{
    const Onnx__AttributeProto *dt = ox_node_attr(c->n, "dtype");
    if (known(in_at(c, 0))) like(&c->out[0], in_at(c, 0), dt && dt->has_i ? (int32_t)dt->i : 0);
    return 0;
}

/* ---- entry points ------------------------------------------------------------------------- */

int oi_infer_node(const Onnx__NodeProto *n, int64_t opset, const oi_type *in, size_t nin, oi_type *out,
                  size_t nout, char *why, size_t why_cap)
{
    for (size_t i = 0; i < nout; i++) out[i] = (oi_type){.elem = 0, .rank = -1};
    if (why && why_cap) *why = 0;
    if (!nout || !n) return 0;
    /* one lookup: the operator's record names its inference function */
    const ox_op *op = ox_op_find(n->domain, n->op_type);
    if (!op || !op->infer) return 0;
    ictx c = {n, opset, in, nin, out, nout, why, why_cap, op->infer_arg};
    int rc = op->infer(&c);
    for (size_t i = 0; i < nout; i++)
        if (!out[i].elem) out[i].rank = -1;
    return rc;
}

void oi_from_proto(const Onnx__TypeProto *tp, oi_type *t)
{
    *t = (oi_type){.elem = 0, .rank = -1};
    int kind = OI_TENSOR;
    if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE && tp->optional_type) {
        kind = OI_OPTIONAL;
        tp = tp->optional_type->elem_type;
    }
    if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && tp->sequence_type) {
        kind = kind == OI_OPTIONAL ? OI_OPTIONAL_SEQUENCE : OI_SEQUENCE;
        tp = tp->sequence_type->elem_type;
    }
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) return;
    t->kind = kind;
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    t->elem = tt->has_elem_type ? tt->elem_type : 0;
    if (!tt->shape || tt->shape->n_dim > OE_MAX_RANK) return;
    t->rank = (int)tt->shape->n_dim;
    for (int i = 0; i < t->rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            t->d[i] = (oi_dim){d->dim_value, NULL, d->dim_value < 0};
        else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param && *d->dim_param)
            t->d[i] = (oi_dim){-1, d->dim_param, false};
        else t->d[i] = (oi_dim){-1, NULL, false};
    }
}

Onnx__TypeProto *oi_to_proto(ox_model *m, const oi_type *t)
{
    if (!t->elem || t->kind != OI_TENSOR) return NULL;
    const char *dims[OE_MAX_RANK];
    int r = t->rank < 0 ? 0 : t->rank;
    for (int i = 0; i < r; i++) {
        char buf[24];
        if (t->d[i].v >= 0) snprintf(buf, sizeof buf, "%" PRId64, t->d[i].v);
        dims[i] = t->d[i].v >= 0 ? ox_strdup(m, buf) : t->d[i].sym ? t->d[i].sym : "?";
    }
    return ox_type_tensor(m, t->elem, dims, (size_t)r, t->rank >= 0);
}
