/* decompose_template.c — running the compiled decomposition rules (decompose_compile.c): binding a
 * call to a rule's schema, its `when:` conditions, the @helpers, and expanding the body into nodes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/shape.h"
#include "capture/export.h"
#include "decompose/decomp_matmul.h"
#include "decompose/decompose.h"
#include "decompose/decompose_internal.h"
#include "decompose/functionalize.h"
#include "fx/fx_build.h"
#include "meta/meta_infer.h"
#include "meta/meta_layout.h"
#include "tables/pass_tables.h"
#include "tables/tables.h"

void dc_bind(dctx *c, binding *b, const dc_schema *sch, const fx_arg *args, const fx_arg *kwargs, const fx_value *out)
{
    memset(b, 0, sizeof *b);
    b->out_index = -1;
    b->names = sch->names;
    b->defs = sch->defs;
    b->n = sch->n;
    b->src = fx_alloc(c->scratch, (b->n + 1) * sizeof *b->src);
    for (size_t i = 0; i < args->u.seq.len && i < b->n; i++)
        b->src[i] = args->u.seq.items[i];
    b->args = args;
    b->out = out;
    for (size_t k = 0; kwargs && k < kwargs->u.seq.len; k++)
        for (size_t i = 0; i < b->n; i++)
            if (!strcmp(b->names[i], kwargs->u.seq.keys[k]))
                b->src[i] = kwargs->u.seq.items[k];
}

/* The value of bound argument i: as given, else its schema default, else NULL. */
static const fx_arg *bound_value(const binding *b, int i)
{
    if (i < 0)
        return NULL;
    return b->src[i] ? b->src[i] : b->defs[i];
}

static int bound_index(const binding *b, const char *name)
{
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->names[i], name))
            return (int)i;
    return -1;
}

/* Structural equality of constant argument trees (nodes never compare equal). */
static bool arg_equal(const fx_arg *a, const fx_arg *b)
{
    bool seq_a = a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE;
    bool seq_b = b->kind == FX_ARG_LIST || b->kind == FX_ARG_TUPLE;
    if (seq_a && seq_b) {
        if (a->u.seq.len != b->u.seq.len)
            return false;
        for (size_t i = 0; i < a->u.seq.len; i++)
            if (!arg_equal(a->u.seq.items[i], b->u.seq.items[i]))
                return false;
        return true;
    }
    if (a->kind == FX_ARG_INT && b->kind == FX_ARG_FLOAT)
        return (double)a->u.i == b->u.f;
    if (a->kind == FX_ARG_FLOAT && b->kind == FX_ARG_INT)
        return a->u.f == (double)b->u.i;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case FX_ARG_NONE: return true;
    case FX_ARG_INT: return a->u.i == b->u.i;
    case FX_ARG_FLOAT: return a->u.f == b->u.f;
    case FX_ARG_BOOL: return a->u.b == b->u.b;
    case FX_ARG_DTYPE: return a->u.dtype == b->u.dtype;
    case FX_ARG_STR: case FX_ARG_DEVICE: case FX_ARG_MEMFMT: case FX_ARG_LAYOUT: return !strcmp(a->u.s, b->u.s);
    default: return false;
    }
}

bool static_tensor(const fx_arg *a, dl_tensor *t) { return dl_static(dc_meta_of(a), t); }

/* An int argument's value; false for anything else (NULL included). */
static bool int_arg(const fx_arg *a, int64_t *v)
{
    if (!a || a->kind != FX_ARG_INT)
        return false;
    *v = a->u.i;
    return true;
}

/* Python-style dimension wrapping (-1 = last) into [0, rank); a 0-d tensor accepts 0 and -1. */
static bool wrap_dim(int64_t *d, size_t rank)
{
    int64_t r = rank ? (int64_t)rank : 1;
    if (*d < 0)
        *d += r;
    return *d >= 0 && *d < r;
}

static fx_arg *int_list(dctx *c, const int64_t *v, size_t n)
{
    fx_arg *items[DL_MAX_RANK + 2];
    for (size_t i = 0; i < n && i < DL_MAX_RANK + 2; i++)
        items[i] = fx_arg_int(c->dst, v[i]);
    return fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, n);
}

/* Reduction dims of (self, dim): normalized, into red[] flags; false if not static. */
static bool reduced_dims(const dl_tensor *t, const fx_arg *dim, bool *red)
{
    memset(red, 0, DL_MAX_RANK * sizeof *red);
    if (dc_is_none(dim) || ((dim->kind == FX_ARG_LIST || dim->kind == FX_ARG_TUPLE) && !dim->u.seq.len)) {
        for (size_t i = 0; i < t->rank; i++)
            red[i] = true;
        return true;
    }
    size_t n = dim->kind == FX_ARG_INT ? 1 : dim->u.seq.len;
    for (size_t i = 0; i < n; i++) {
        int64_t d;
        if (!int_arg(dim->kind == FX_ARG_INT ? dim : dim->u.seq.items[i], &d) || !wrap_dim(&d, t->rank))
            return false;
        red[d] = true;
    }
    return true;
}

/* ---- @function operands (see core.yaml) ------------------------------------------------------ */

/* One call of an @function: its arguments looked up, and what the handlers share. Each handler
 * returns NULL when the function does not apply to these arguments (the template is skipped). */
typedef struct sp_call {
    dctx *c;
    const binding *b;
    const char *fn;           /* the helper's name */
    const dc_opnd *arg;       /* its compiled arguments (texts, literals) */
    size_t np;
    const fx_arg *a0, *a1, *a2;
} sp_call;

static bool sp_is(const sp_call *s, const char *name) { return !strcmp(s->fn, name); }

/* @dtype(x), @device(x): of x's meta */
static fx_arg *sp_dtype_device(sp_call *s)
{
    const fx_value *m = dc_meta_of(s->a0);
    bool dtype = sp_is(s, "dtype");
    if (!m || (dtype ? m->dtype == FX_DT_UNKNOWN : !m->device))
        return NULL;
    return dtype ? fx_arg_dtype(s->c->dst, m->dtype) : fx_arg_str(s->c->dst, FX_ARG_DEVICE, m->device);
}

/* @shape: the call's output sizes */
static fx_arg *sp_shape(sp_call *s)
{
    dl_tensor t;
    return dl_static(s->b->out, &t) ? int_list(s->c, t.size, t.rank) : NULL;
}

/* @out_index: which output of a multi-output view the inverse is for */
static fx_arg *sp_out_index(sp_call *s)
{
    return s->b->out_index >= 0 ? fx_arg_int(s->c->dst, s->b->out_index) : NULL;
}

/* @transpose_perm: transpose(self, dim0, dim1) as a permutation of rank(self) dims */
static fx_arg *sp_transpose_perm(sp_call *s)
{
    dl_tensor t;
    int64_t d0, d1, v[DL_MAX_RANK];
    dctx *c = s->c;
    if (!static_tensor(bound_value(s->b, bound_index(s->b, "self")), &t) ||
        !int_arg(bound_value(s->b, bound_index(s->b, "dim0")), &d0) ||
        !int_arg(bound_value(s->b, bound_index(s->b, "dim1")), &d1) || !wrap_dim(&d0, t.rank) ||
        !wrap_dim(&d1, t.rank))
        return NULL;
    for (size_t i = 0; i < t.rank; i++)
        v[i] = (int64_t)i == d0 ? d1 : (int64_t)i == d1 ? d0 : (int64_t)i;
    return int_list(c, v, t.rank);
}

/* @reverse_dims(x): [rank-1, ..., 1, 0], numpy_T's permutation */
static fx_arg *sp_reverse_dims(sp_call *s)
{
    const fx_value *m = dc_meta_of(s->a0);
    int64_t v[DL_MAX_RANK];
    if (!m || m->rank > DL_MAX_RANK)
        return NULL;
    for (size_t i = 0; i < m->rank; i++)
        v[i] = (int64_t)(m->rank - 1 - i);
    return int_list(s->c, v, m->rank);
}

/* @chunk_size(x, chunks, dim): the split size chunk(x, chunks, dim) splits by, ceil(size / chunks).
 * Only the chunked dim's size must be static (a dynamic batch elsewhere is fine: shufflenet's
 * channel chunks). */
static fx_arg *sp_chunk_size(sp_call *s)
{
    const fx_value *m = dc_meta_of(s->a0);
    int64_t n, k = 0, size;
    if (!m || m->kind != FX_VAL_TENSOR || !m->rank || !int_arg(s->a1, &n) || n <= 0 ||
        (s->a2 && !int_arg(s->a2, &k)) || !wrap_dim(&k, m->rank) || shape_parse_dim(m->sizes[k], &size) != 1)
        return NULL;
    return fx_arg_int(s->c->dst, size / n + (size % n != 0));   /* ceil, without overflow for a huge n */
}

/* @float(x): a number as a Python float (a float schema argument given as an int) */
static fx_arg *sp_float(sp_call *s)
{
    const fx_arg *a = s->a0;
    if (!a || (a->kind != FX_ARG_INT && a->kind != FX_ARG_FLOAT))
        return NULL;
    return fx_arg_float(s->c->dst, a->kind == FX_ARG_INT ? (double)a->u.i : a->u.f);
}

/* @half(x): half of a number, as a float (huber_loss's 0.5 * delta) */
static fx_arg *sp_half(sp_call *s)
{
    const fx_arg *a = s->a0;
    if (!a || (a->kind != FX_ARG_INT && a->kind != FX_ARG_FLOAT))
        return NULL;
    return fx_arg_float(s->c->dst, 0.5 * (a->kind == FX_ARG_INT ? (double)a->u.i : a->u.f));
}

/* @finfo_or(x, self, max|min): x when given, else the largest / lowest finite value of self's
 * float dtype (nan_to_num's defaults, torch.finfo) */
static fx_arg *sp_finfo_or(sp_call *s)
{
    const fx_arg *a = s->a0;
    const fx_value *m = dc_meta_of(s->a1);
    if (!dc_is_none(a))
        return a->kind == FX_ARG_INT || a->kind == FX_ARG_FLOAT ? dc_dup(s->c, a) : NULL;
    if (!m || s->np < 3)
        return NULL;
    double mx = m->dtype == FX_DT_F32 ? 3.4028234663852886e+38 : m->dtype == FX_DT_F64 ? 1.7976931348623157e+308
              : m->dtype == FX_DT_F16 ? 65504.0 : m->dtype == FX_DT_BF16 ? 3.3895313892515355e+38 : 0;
    if (!mx)
        return NULL;
    bool max = !strcmp(s->arg[2].text, "max");
    return fx_arg_float(s->c->dst, max ? mx : -mx);
}

/* @fftshift(x, dim) / @ifftshift(x, dim): roll's shifts, size // 2 (fftshift) or (size + 1) // 2
 * (ifftshift) of each dim (all dims when dim is None) */
static fx_arg *sp_fftshift(sp_call *s)
{
    dl_tensor t;
    int64_t dims[DL_MAX_RANK], v[DL_MAX_RANK];
    size_t n = 0;
    const fx_arg *d = s->a1;
    if (!static_tensor(s->a0, &t))
        return NULL;
    if (dc_is_none(d)) {
        for (size_t i = 0; i < t.rank; i++)
            dims[n++] = (int64_t)i;
    } else if (d->kind == FX_ARG_INT) {
        dims[n++] = d->u.i;
    } else if ((d->kind == FX_ARG_LIST || d->kind == FX_ARG_TUPLE) && d->u.seq.len <= DL_MAX_RANK) {
        for (size_t i = 0; i < d->u.seq.len; i++)
            if (!int_arg(d->u.seq.items[i], &dims[n++]))
                return NULL;
    } else {
        return NULL;
    }
    bool inverse = sp_is(s, "ifftshift");
    for (size_t i = 0; i < n; i++) {
        if (!wrap_dim(&dims[i], t.rank) || !t.rank)
            return NULL;
        v[i] = (t.size[dims[i]] + (inverse ? 1 : 0)) / 2;
    }
    return sp_is(s, "fft_dims") ? int_list(s->c, dims, n) : int_list(s->c, v, n);
}

/* @isin_view(elements, test): elements' sizes followed by a 1 for each dim of test; NULL unless
 * torch._refs.isin takes its default path (test.numel() < 10 * elements.numel() ** 0.145, and
 * elements not empty) */
static fx_arg *sp_isin_view(sp_call *s)
{
    dl_tensor e, t;
    int64_t v[DL_MAX_RANK];
    if (!static_tensor(s->a0, &e) || !static_tensor(s->a1, &t) || e.rank + t.rank > DL_MAX_RANK)
        return NULL;
    double ne = 1, nt = 1;
    for (size_t i = 0; i < e.rank; i++)
        ne *= (double)e.size[i];
    for (size_t i = 0; i < t.rank; i++)
        nt *= (double)t.size[i];
    if (ne == 0 || !(nt < 10.0 * pow(ne, 0.145)))
        return NULL;
    for (size_t i = 0; i < e.rank; i++)
        v[i] = e.size[i];
    for (size_t i = 0; i < t.rank; i++)
        v[e.rank + i] = 1;
    return int_list(s->c, v, e.rank + t.rank);
}

/* @isin_dims(test): [-1, -2, .., -rank(test)], the dims isin reduces with any */
static fx_arg *sp_isin_dims(sp_call *s)
{
    const fx_value *m = dc_meta_of(s->a0);
    int64_t v[DL_MAX_RANK];
    if (!m || !m->rank || m->rank > DL_MAX_RANK)
        return NULL;
    for (size_t i = 0; i < m->rank; i++)
        v[i] = -1 - (int64_t)i;
    return int_list(s->c, v, m->rank);
}

/* @inner_dim(a, b): the last dimension of the broadcast of a and b, max(rank) - 1 (0 for scalars) */
static fx_arg *sp_inner_dim(sp_call *s)
{
    const fx_value *a = dc_meta_of(s->a0), *b = dc_meta_of(s->a1);
    if (!a || !b)
        return NULL;
    size_t r = a->rank > b->rank ? a->rank : b->rank;
    return fx_arg_int(s->c->dst, r ? (int64_t)r - 1 : 0);
}

/* @take_shape(a, b, dim): a's sizes with size dim taken from b, broadcast with b's sizes (the
 * shapes take_along_dim expands its operands to); NULL unless static and broadcastable */
static fx_arg *sp_take_shape(sp_call *s)
{
    dl_tensor a, b;
    int64_t k, v[DL_MAX_RANK];
    if (!static_tensor(s->a0, &a) || !static_tensor(s->a1, &b) || !int_arg(s->a2, &k) || a.rank != b.rank ||
        !wrap_dim(&k, a.rank) || !a.rank)
        return NULL;
    for (size_t i = 0; i < a.rank; i++) {
        int64_t x = (int64_t)i == k ? b.size[i] : a.size[i], y = b.size[i];
        if (x != y && x != 1 && y != 1)
            return NULL;
        v[i] = x == 1 ? y : x;
    }
    return int_list(s->c, v, a.rank);
}

/* @sizes(x): x's static sizes */
static fx_arg *sp_sizes(sp_call *s)
{
    dl_tensor t;
    return static_tensor(s->a0, &t) ? int_list(s->c, t.size, t.rank) : NULL;
}

/* @numel_lead(x): the product of every size but the last */
static fx_arg *sp_numel_lead(sp_call *s)
{
    dl_tensor t;
    if (!static_tensor(s->a0, &t) || !t.rank)
        return NULL;
    int64_t p = 1;
    for (size_t i = 0; i + 1 < t.rank; i++)
        p *= t.size[i];
    return fx_arg_int(s->c->dst, p);
}

/* @dim(x,k) = size k of x; @numel_from(x,k) = product of sizes k..; @numel_to(x,k) = product of
 * the sizes before k; @wrap_dim(x,k) = k >= 0 */
static fx_arg *sp_dim(sp_call *s)
{
    dl_tensor t;
    int64_t k;
    if (!static_tensor(s->a0, &t))
        return NULL;
    if (!int_arg(s->a1 ? s->a1 : s->arg[1].lit, &k) || !wrap_dim(&k, t.rank))
        return NULL;
    if (sp_is(s, "wrap_dim"))
        return fx_arg_int(s->c->dst, k);
    if (sp_is(s, "dim"))
        return t.rank ? fx_arg_int(s->c->dst, t.size[k]) : NULL;
    int64_t p = 1;
    bool to = sp_is(s, "numel_to");
    for (size_t j = to ? 0 : (size_t)k; j < (to ? (size_t)k : t.rank); j++)
        p *= t.size[j];
    return fx_arg_int(s->c->dst, p);
}

/* @inverse_perm(perm): the permutation that undoes perm */
static fx_arg *sp_inverse_perm(sp_call *s)
{
    const fx_arg *a0 = s->a0;
    int64_t k, v[DL_MAX_RANK];
    size_t n = a0 && (a0->kind == FX_ARG_LIST || a0->kind == FX_ARG_TUPLE) ? a0->u.seq.len : 0;
    if (!n || n > DL_MAX_RANK)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!int_arg(a0->u.seq.items[i], &k) || !wrap_dim(&k, n))
            return NULL;
        v[k] = (int64_t)i;
    }
    return int_list(s->c, v, n);
}

/* The ints of an int or an int list operand, wrapped against rank r; false if any is not. */
static bool dims_of(const fx_arg *a, size_t r, int64_t *v, size_t *n)
{
    bool one = a && a->kind == FX_ARG_INT;
    *n = one ? 1 : a && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE) ? a->u.seq.len : 0;
    if (*n > DL_MAX_RANK)
        return false;
    for (size_t i = 0; i < *n; i++)
        if (!int_arg(one ? a : a->u.seq.items[i], &v[i]) || !wrap_dim(&v[i], r))
            return false;
    return true;
}

/* @movedim_perm(x, source, destination): ATen's movedim as a permute — each source dim goes to
 * its destination and the other dims fill the free places in their order; only x's rank is
 * needed, so symbolic sizes are fine. Repeated dims (torch's error) do not apply. */
static fx_arg *sp_movedim_perm(sp_call *s)
{
    const fx_value *v = dc_meta_of(s->a0);
    int64_t src[DL_MAX_RANK], dst[DL_MAX_RANK], perm[DL_MAX_RANK] = {0};
    size_t ns, nd, r = v ? v->rank : 0;
    if (!v || r > DL_MAX_RANK || !dims_of(s->a1, r ? r : 1, src, &ns) || !dims_of(s->a2, r ? r : 1, dst, &nd) || ns != nd)
        return NULL;
    if (r == 0)   /* a 0-d tensor: movedim(x, 0, 0) or [] is x */
        return int_list(s->c, perm, 0);
    bool src_used[DL_MAX_RANK] = {false}, dst_used[DL_MAX_RANK] = {false};
    for (size_t i = 0; i < ns; i++) {
        if (src_used[src[i]] || dst_used[dst[i]])
            return NULL;
        src_used[src[i]] = dst_used[dst[i]] = true;
        perm[dst[i]] = src[i];
    }
    size_t rest = 0;
    for (size_t i = 0; i < r; i++) {
        if (dst_used[i])
            continue;
        while (src_used[rest]) rest++;
        perm[i] = (int64_t)rest++;
    }
    return int_list(s->c, perm, r);
}

/* @mean2(a, b): (a + b) / 2 of two numbers, a float (rrelu's eval slope) */
static fx_arg *sp_mean2(sp_call *s)
{
    double v[2];
    const fx_arg *a[2] = { s->a0 ? s->a0 : s->arg[0].lit, s->a1 ? s->a1 : s->arg[1].lit };
    for (int i = 0; i < 2; i++) {
        if (a[i] && a[i]->kind == FX_ARG_FLOAT) v[i] = a[i]->u.f;
        else if (a[i] && a[i]->kind == FX_ARG_INT) v[i] = (double)a[i]->u.i;
        else return NULL;
    }
    return fx_arg_float(s->c->dst, (v[0] + v[1]) / 2);
}

/* @sdpa_scale(q, scale): sdpa math scales q and k by sqrt(scale), scale defaulting to 1/sqrt(E) */
static fx_arg *sp_sdpa_scale(sp_call *s)
{
    dl_tensor t;
    const fx_arg *a1 = s->a1;
    if (!static_tensor(s->a0, &t) || !t.rank)
        return NULL;
    double sc = !dc_is_none(a1) ? (a1->kind == FX_ARG_FLOAT ? a1->u.f : a1->kind == FX_ARG_INT ? (double)a1->u.i : NAN)
                                : 1.0 / sqrt((double)t.size[t.rank - 1]);
    return isnan(sc) ? NULL : fx_arg_float(s->c->dst, sqrt(fabs(sc)));
}

/* @getitems(x, list): getitem(x, i) for each item of list */
static fx_arg *sp_getitems(sp_call *s)
{
    const fx_arg *a0 = s->a0, *a1 = s->a1;
    dctx *c = s->c;
    size_t n = a1 && (a1->kind == FX_ARG_LIST || a1->kind == FX_ARG_TUPLE) ? a1->u.seq.len : 0;
    if (!a0 || a0->kind != FX_ARG_NODE || !n)
        return NULL;
    fx_arg **items = fx_alloc(c->dst, n * sizeof *items);
    for (size_t i = 0; i < n; i++) {
        fx_arg *ga[2] = { fx_arg_node(c->dst, a0->u.node), fx_arg_int(c->dst, (int64_t)i) };
        fx_node *g = dc_call_node(c, "operator.getitem", ga, 2, NULL);
        if (!g)
            return NULL;
        items[i] = fx_arg_node(c->dst, g);
    }
    return fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, n);
}

/* @mask_shape(x, dim): [1, ..., -1 (at dim), ..., 1] */
static fx_arg *sp_mask_shape(sp_call *s)
{
    dl_tensor t;
    int64_t k, v[DL_MAX_RANK];
    if (!static_tensor(s->a0, &t) || !int_arg(s->a1, &k) || !wrap_dim(&k, t.rank))
        return NULL;
    for (size_t i = 0; i < t.rank; i++)
        v[i] = (int64_t)i == k ? -1 : 1;
    return int_list(s->c, v, t.rank);
}

/* @wrap_index(x, dim, i): an index counted from the end becomes non-negative */
static fx_arg *sp_wrap_index(sp_call *s)
{
    dl_tensor t;
    int64_t k, i;
    if (!static_tensor(s->a0, &t) || !int_arg(s->a1, &k) || !wrap_dim(&k, t.rank) || !int_arg(s->a2, &i))
        return NULL;
    return fx_arg_int(s->c->dst, i < 0 ? i + t.size[k] : i);
}

/* @split_sizes(x, split_size, dim): split(self, split_size, dim)'s chunk sizes, every chunk */
static fx_arg *sp_split_sizes(sp_call *s)
{
    dl_tensor t;
    int64_t sz, k = 0;
    if (!static_tensor(s->a0, &t) || !int_arg(s->a1, &sz) || sz <= 0 || (s->a2 && !int_arg(s->a2, &k)) ||
        !wrap_dim(&k, t.rank))
        return NULL;
    size_t n = t.size[k] > 0 ? (size_t)((t.size[k] + sz - 1) / sz) : 0;
    fx_arg **items = fx_alloc(s->c->dst, (n ? n : 1) * sizeof *items);
    size_t i = 0;
    for (int64_t at = 0; at < t.size[k]; at += sz)
        items[i++] = fx_arg_int(s->c->dst, t.size[k] - at < sz ? t.size[k] - at : sz);
    return fx_arg_seq(s->c->dst, FX_ARG_LIST, items, NULL, n);
}

/* Of a reduction of x over dims: @reduction_dims (normalized), @kept_dims (the others),
 * @keepdim_shape (sizes with reduced dims set to 1), @reduced_numel (a float) */
static fx_arg *sp_reduction(sp_call *s)
{
    dl_tensor t;
    bool red[DL_MAX_RANK];
    int64_t v[DL_MAX_RANK];
    if (!static_tensor(s->a0, &t) || !reduced_dims(&t, s->a1, red))
        return NULL;
    size_t n = 0;
    double numel = 1;
    for (size_t i = 0; i < t.rank; i++) {
        if (sp_is(s, "keepdim_shape"))
            v[n++] = red[i] ? 1 : t.size[i];
        else if (red[i] == sp_is(s, "reduction_dims"))
            v[n++] = (int64_t)i;
        if (red[i])
            numel *= (double)t.size[i];
    }
    return sp_is(s, "reduced_numel") ? fx_arg_float(s->c->dst, numel) : int_list(s->c, v, n);
}

/* @split_start / @split_end(base, split, dim): where output out_index of split(base, split, dim)
 * starts / ends along dim; split is a chunk size (split.Tensor) or the list of sizes
 * (split_with_sizes) */
static fx_arg *sp_split_bounds(sp_call *s)
{
    dl_tensor t;
    const fx_arg *a1 = s->a1;
    int64_t k = 0, out_index = s->b->out_index;
    if (out_index < 0 || !static_tensor(s->a0, &t) || (s->a2 && !int_arg(s->a2, &k)) || !wrap_dim(&k, t.rank) ||
        !t.rank || !a1)
        return NULL;
    int64_t start = 0, len, sz;
    if (int_arg(a1, &sz)) {
        start = sz * out_index;
        len = sz;
    } else if ((a1->kind == FX_ARG_LIST || a1->kind == FX_ARG_TUPLE) && (size_t)out_index < a1->u.seq.len) {
        for (int64_t i = 0; i < out_index; i++) {
            if (!int_arg(a1->u.seq.items[i], &sz))
                return NULL;
            start += sz;
        }
        if (!int_arg(a1->u.seq.items[out_index], &len))
            return NULL;
    } else {
        return NULL;
    }
    int64_t end = start + len > t.size[k] ? t.size[k] : start + len;
    return fx_arg_int(s->c->dst, sp_is(s, "split_start") ? start : end);
}

/* @contiguous_strides(size): the strides of a contiguous tensor of these sizes (a size 0 counts
 * as 1, as torch's make_contiguous_strides_for) */
static fx_arg *sp_contiguous_strides(sp_call *s)
{
    const fx_arg *l = s->a0;
    int64_t v[DL_MAX_RANK], st[DL_MAX_RANK], p = 1;
    size_t n = l && (l->kind == FX_ARG_LIST || l->kind == FX_ARG_TUPLE) ? l->u.seq.len : 0;
    if (!l || n > DL_MAX_RANK)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!int_arg(l->u.seq.items[i], &v[i]))
            return NULL;
    for (size_t i = n; i-- > 0;) {
        st[i] = p;
        if (i && __builtin_mul_overflow(p, v[i] > 1 ? v[i] : 1, &p))
            return NULL;   /* strides past int64: the rule does not apply */
    }
    return int_list(s->c, st, n);
}

/* Of x and a list of trailing sizes (max_unpool's output_size): @lead_then(x, list) = x's leading
 * sizes (all but len(list)) followed by list; @lead_ones(x, list) = the leading sizes followed by
 * a 1 per item; @lead_numel(x, list) = the product of the leading sizes; @prod(list) */
static fx_arg *sp_lead(sp_call *s)
{
    dl_tensor t;
    const fx_arg *l = sp_is(s, "prod") ? s->a0 : s->a1;
    int64_t v[DL_MAX_RANK], p = 1;
    size_t n = l && (l->kind == FX_ARG_LIST || l->kind == FX_ARG_TUPLE) ? l->u.seq.len : 0;
    if (!l || n > DL_MAX_RANK)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!int_arg(l->u.seq.items[i], &v[i]))
            return NULL;
    if (sp_is(s, "prod")) {
        for (size_t i = 0; i < n; i++)
            if (__builtin_mul_overflow(p, v[i], &p))
                return NULL;   /* a product past int64: the rule does not apply */
        return fx_arg_int(s->c->dst, p);
    }
    if (!static_tensor(s->a0, &t) || t.rank < n)
        return NULL;
    size_t lead = t.rank - n;
    int64_t r[DL_MAX_RANK];
    for (size_t i = 0; i < lead; i++) {
        r[i] = t.size[i];
        if (__builtin_mul_overflow(p, t.size[i], &p))
            return NULL;
    }
    if (sp_is(s, "lead_numel"))
        return fx_arg_int(s->c->dst, p);
    for (size_t i = 0; i < n; i++)
        r[lead + i] = sp_is(s, "lead_ones") ? 1 : v[i];
    return int_list(s->c, r, t.rank);
}

/* @correction(x): the correction prims.var takes, as a float: of var's unbiased flag (True 1,
 * False 0), or of a correction argument (a number; None means 1) */
static fx_arg *sp_correction(sp_call *s)
{
    const fx_arg *a0 = s->a0;
    if (dc_is_none(a0))
        return fx_arg_float(s->c->dst, 1.0);
    if (a0->kind == FX_ARG_BOOL)
        return fx_arg_float(s->c->dst, a0->u.b ? 1.0 : 0.0);
    if (a0->kind == FX_ARG_INT || a0->kind == FX_ARG_FLOAT)
        return fx_arg_float(s->c->dst, a0->kind == FX_ARG_INT ? (double)a0->u.i : a0->u.f);
    return NULL;
}

/* padding="same" of a convolution (ATen's _convolution_same): the padding before each spatial
 * dim, dilation * (k - 1) / 2, into left[]; constant_pad_nd's pad list adding the odd remainder
 * after each dim into nd[] (2 * dims items); *symmetric when no dim has one. false when the
 * weight's sizes or the dilation are not known. */
static bool conv_same(const fx_arg *weight, const fx_arg *dil, int64_t *left, int64_t *nd, size_t *dims,
                      bool *symmetric)
{
    dl_tensor w;
    if (!static_tensor(weight, &w) || w.rank < 3)
        return false;
    *dims = w.rank - 2;
    *symmetric = true;
    for (size_t i = 0; i < *dims; i++) {
        int64_t d = 1;
        if (dil && (dil->kind == FX_ARG_LIST || dil->kind == FX_ARG_TUPLE)) {
            if (!dil->u.seq.len || !int_arg(dil->u.seq.items[dil->u.seq.len == 1 ? 0 : i < dil->u.seq.len ? i : 0], &d))
                return false;
        } else if (dil && !int_arg(dil, &d)) {
            return false;
        }
        int64_t total = d * (w.size[i + 2] - 1);
        left[i] = total / 2;
        int64_t delta = total - 2 * left[i];   /* the right padding minus the left */
        nd[2 * (*dims - 1 - i)] = 0;
        nd[2 * (*dims - 1 - i) + 1] = delta;
        *symmetric &= delta == 0;
    }
    return true;
}

/* Of a convolution's weight: @conv_zeros(weight) (a 0 per spatial dim); with its dilation, for
 * padding="same": @same_pad_l(weight,dilation) and @same_pad_nd(weight,dilation) (conv_same). */
static fx_arg *sp_conv_padding(sp_call *s)
{
    int64_t left[DL_MAX_RANK], nd[2 * DL_MAX_RANK];
    size_t dims;
    bool symmetric;
    if (!conv_same(s->a0, sp_is(s, "conv_zeros") ? NULL : s->a1, left, nd, &dims, &symmetric))
        return NULL;
    if (sp_is(s, "conv_zeros"))
        memset(left, 0, sizeof left);
    return sp_is(s, "same_pad_nd") ? int_list(s->c, nd, 2 * dims) : int_list(s->c, left, dims);
}

/* @range_dtype(n,m): the smallest of uint8, uint16, int32 that holds max(n, m), else int64
 * (torch._refs' _strength_reduce_integer, for eye's aranges); int64 for a symbolic size. */
static fx_arg *sp_range_dtype(sp_call *s)
{
    int64_t n, m;
    if (!int_arg(s->a0, &n) || !int_arg(s->a1, &m))
        return fx_arg_dtype(s->c->dst, FX_DT_I64);
    int64_t v = n > m ? n : m;
    return fx_arg_dtype(s->c->dst, v <= 255 ? FX_DT_U8 : v <= 65535 ? FX_DT_U16 : v <= 2147483647 ? FX_DT_I32 : FX_DT_I64);
}

/* x's trailing sizes divided by the output sizes out, into k[]; false unless x is static and each
 * size is a multiple of its output size. */
static bool pool_kernel(const fx_arg *x, const fx_arg *out, int64_t *k, size_t *n)
{
    dl_tensor t;
    if (!static_tensor(x, &t) || !out || (out->kind != FX_ARG_LIST && out->kind != FX_ARG_TUPLE) ||
        out->u.seq.len > t.rank || !out->u.seq.len)
        return false;
    *n = out->u.seq.len;
    for (size_t i = 0; i < *n; i++) {
        int64_t o, sz = t.size[t.rank - *n + i];
        if (!int_arg(out->u.seq.items[i], &o) || o <= 0 || sz % o)
            return false;
        k[i] = sz / o;
    }
    return true;
}

/* @pool_kernel(x,output_size): adaptive pooling of evenly divisible sizes as a plain pool's
 * kernel (x's trailing sizes over the output sizes) */
static fx_arg *sp_pool_kernel(sp_call *s)
{
    int64_t k[DL_MAX_RANK];
    size_t n;
    return pool_kernel(s->a0, s->a1, k, &n) ? int_list(s->c, k, n) : NULL;
}

/* name, number of arguments, handler: core.yaml's @functions */
static const struct {
    const char *name;
    size_t np;
    fx_arg *(*fn)(sp_call *s);
} specials[] = {
    {"dtype", 1, sp_dtype_device},          {"device", 1, sp_dtype_device},
    {"shape", 0, sp_shape},                 {"out_index", 0, sp_out_index},
    {"transpose_perm", 0, sp_transpose_perm}, {"sizes", 1, sp_sizes},
    {"numel_lead", 1, sp_numel_lead},       {"dim", 2, sp_dim},
    {"numel_from", 2, sp_dim},              {"wrap_dim", 2, sp_dim},
    {"numel_to", 2, sp_dim},
    {"inverse_perm", 1, sp_inverse_perm},   {"movedim_perm", 3, sp_movedim_perm},   {"mean2", 2, sp_mean2},   {"sdpa_scale", 2, sp_sdpa_scale},
    {"getitems", 2, sp_getitems},           {"mask_shape", 2, sp_mask_shape},
    {"wrap_index", 3, sp_wrap_index},       {"split_sizes", 3, sp_split_sizes},
    {"reduction_dims", 2, sp_reduction},    {"kept_dims", 2, sp_reduction},
    {"keepdim_shape", 2, sp_reduction},     {"reduced_numel", 2, sp_reduction},
    {"split_start", 3, sp_split_bounds},    {"split_end", 3, sp_split_bounds},
    {"correction", 1, sp_correction},
    {"lead_then", 2, sp_lead},              {"lead_ones", 2, sp_lead},
    {"lead_numel", 2, sp_lead},             {"prod", 1, sp_lead},
    {"contiguous_strides", 1, sp_contiguous_strides},
    {"range_dtype", 2, sp_range_dtype},     {"pool_kernel", 2, sp_pool_kernel},
    {"conv_zeros", 1, sp_conv_padding},     {"same_pad_l", 2, sp_conv_padding}, {"same_pad_nd", 2, sp_conv_padding},
    {"reverse_dims", 1, sp_reverse_dims},   {"float", 1, sp_float}, {"half", 1, sp_half},
    {"inner_dim", 2, sp_inner_dim},         {"fftshift", 2, sp_fftshift}, {"ifftshift", 2, sp_fftshift},
    {"fft_dims", 2, sp_fftshift},           {"isin_view", 2, sp_isin_view}, {"isin_dims", 1, sp_isin_dims},         {"finfo_or", 3, sp_finfo_or},         {"take_shape", 3, sp_take_shape},   {"chunk_size", 3, sp_chunk_size},
};

int dc_helper_find(const char *name, size_t len, size_t np)
{
    for (size_t i = 0; i < sizeof specials / sizeof *specials; i++)
        if (specials[i].np == np && strlen(specials[i].name) == len && !memcmp(specials[i].name, name, len))
            return (int)i;
    return -1;
}

bool dc_helper_word_arg(int helper, size_t i)
{
    return helper >= 0 && !strcmp(specials[helper].name, "finfo_or") && i == 2;
}

/* A helper argument's value: a local, a schema argument (as given, else its default), or NULL
 * for a literal (the handler reads it from the compiled argument). */
static const fx_arg *helper_arg(const binding *b, fx_arg **locals, const dc_opnd *o)
{
    return o->kind == DK_LOCAL ? locals[o->index] : o->kind == DK_ARG ? bound_value(b, o->index) : NULL;
}

/* @function operands (see core.yaml); NULL when they do not apply to these arguments. */
static fx_arg *special(dctx *c, const binding *b, fx_arg **locals, const dc_opnd *o)
{
    sp_call s = {c, b, specials[o->index].name, o->items, o->n, NULL, NULL, NULL};
    s.a0 = o->n > 0 ? helper_arg(b, locals, &o->items[0]) : NULL;
    s.a1 = o->n > 1 ? helper_arg(b, locals, &o->items[1]) : NULL;
    s.a2 = o->n > 2 ? helper_arg(b, locals, &o->items[2]) : NULL;
    return specials[o->index].fn(&s);
}

/* Resolves one compiled operand. *absent is set for a schema argument that was not given and
 * has no default other than None (or, marked optional, that was not given at all). NULL
 * otherwise means the template does not apply to these arguments. */
static fx_arg *operand(dctx *c, const binding *b, fx_arg **locals, const dc_opnd *o, bool *absent)
{
    *absent = false;
    switch (o->kind) {
    case DK_HELPER: {
        fx_arg *r = special(c, b, locals, o);
        if (!r)
            c->unknown = o->text;
        return r;
    }
    case DK_LIST: {
        fx_arg **items = fx_alloc(c->dst, (o->n + 1) * sizeof *items);
        for (size_t i = 0; i < o->n; i++) {
            bool ab;
            if (!(items[i] = operand(c, b, locals, &o->items[i], &ab)))
                return NULL;
        }
        return fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, o->n);
    }
    case DK_LOCAL:
        return dc_dup(c, locals[o->index]);
    case DK_ARG: {
        const fx_arg *given = b->src[o->index], *def = b->defs[o->index];
        if (given)
            return dc_dup(c, given);
        if (!o->optional && def && def->kind != FX_ARG_NONE)
            return dc_dup(c, def);
        *absent = true;
        return NULL;
    }
    case DK_LIT:
        return dc_dup(c, o->lit);
    case DK_STAR:
        break;
    }
    return NULL;
}

/* Structural comparison of an argument with a `when:` literal (op: == or != only, unless both
 * are numbers). */
static bool compare_literal(const fx_arg *a, const fx_arg *want, cond_op op)
{
    if (op == COP_EQ || op == COP_NE) {
        bool same = want->kind == FX_ARG_NONE ? dc_is_none(a) : a && arg_equal(a, want);
        return same == (op == COP_EQ);
    }
    double x, y;
    if (!a || (a->kind != FX_ARG_INT && a->kind != FX_ARG_FLOAT) ||
        (want->kind != FX_ARG_INT && want->kind != FX_ARG_FLOAT))
        return false;
    x = a->kind == FX_ARG_INT ? (double)a->u.i : a->u.f;
    y = want->kind == FX_ARG_INT ? (double)want->u.i : want->u.f;
    return cond_op_holds(op, x, y);
}

/* A decompose predicate (dc_preds) of the bound arguments. */
static bool predicate(const binding *b, const cond_clause *cl)
{
    const fx_arg *a0 = cl->npargs > 0 ? bound_value(b, cl->pargs[0]) : NULL;
    const fx_arg *a1 = cl->npargs > 1 ? bound_value(b, cl->pargs[1]) : NULL;
    switch (cl->pred) {
    case DP_STATIC_SHAPE: {
        dl_tensor t;
        return dl_static(b->out, &t);
    }
    case DP_HAS_RANK: return dc_meta_of(a0) != NULL;
    case DP_SAME_SHAPE: {
        /* the same rank and size expressions (symbolic ones too): nothing to broadcast */
        const fx_value *x = dc_meta_of(a0), *y = dc_meta_of(a1);
        if (!x || !y || x->rank != y->rank)
            return false;
        for (size_t i = 0; i < x->rank; i++)
            if (!x->sizes[i] || !y->sizes[i] || strcmp(x->sizes[i], y->sizes[i]))
                return false;
        return true;
    }
    case DP_CONTIGUOUS: return dl_contiguous(dc_meta_of(a0));
    case DP_LAST_STRIDE_1:
        for (size_t i = 0; i < cl->npargs; i++)
            if (!dl_last_stride_1(dc_meta_of(bound_value(b, cl->pargs[i]))))
                return false;
        return true;
    case DP_IS_DTYPE: {
        /* x's dtype is the dtype argument (a conversion that changes nothing) */
        const fx_value *m = dc_meta_of(a0);
        return m && m->kind == FX_VAL_TENSOR && a1 && a1->kind == FX_ARG_DTYPE && m->dtype == a1->u.dtype;
    }
    case DP_SAME_SYMMETRIC: {
        /* padding="same" pads every dim of the convolution evenly */
        int64_t left[DL_MAX_RANK], nd[2 * DL_MAX_RANK];
        size_t dims;
        bool symmetric = false;
        return conv_same(a0, a1, left, nd, &dims, &symmetric) && symmetric;
    }
    case DP_DIVISIBLE: {
        /* x's trailing sizes are multiples of the output sizes */
        int64_t k[DL_MAX_RANK];
        size_t n;
        return pool_kernel(a0, a1, k, &n);
    }
    case DP_VIEWABLE:
        /* reshape(x, shape) is a view; unknown layouts are taken as contiguous */
        return dl_viewable(dc_meta_of(a0), a1);
    }
    return false;
}

bool dc_holds(dctx *c, const binding *b, const dc_when *w)
{
    (void)c;
    for (size_t k = 0; k < w->n; k++) {
        const cond_clause *cl = &w->cl[k];
        const fx_arg *a = cl->kind == COND_PRED ? NULL : bound_value(b, cl->arg);
        bool ok;
        switch (cl->kind) {
        case COND_PRED: ok = predicate(b, cl); break;
        case COND_RANK: {
            /* rank(x) of a tensor (of a list's first item), against n or rank(y) + n; unknown: the
             * rule does not apply */
            const fx_value *m = dc_meta_of(a), *m2 = cl->arg2 >= 0 ? dc_meta_of(bound_value(b, cl->arg2)) : NULL;
            if (!m || (cl->arg2 >= 0 && !m2))
                return false;
            ok = cond_op_holds(cl->op, (double)m->rank, (double)cl->ival + (m2 ? (double)m2->rank : 0));
            break;
        }
        case COND_DTYPE: {
            /* a Python number has torchlib's dtype for it, as translate's conditions do */
            const fx_value *m = dc_meta_of(a);
            const char *have = m && m->dtype != FX_DT_UNKNOWN ? fx_dtype_get(m->dtype)->torch_name : NULL;
            if (!m && a)
                have = a->kind == FX_ARG_INT || a->kind == FX_ARG_BOOL ? "int64" : a->kind == FX_ARG_FLOAT ? "float" : NULL;
            if (have && !strncmp(have, "torch.", 6))
                have += 6;
            ok = cond_dtype_matches(have, cl->sval) == (cl->op == COP_EQ);
            break;
        }
        case COND_LEN:
            if (!a || (a->kind != FX_ARG_LIST && a->kind != FX_ARG_TUPLE))
                return false;
            ok = cond_op_holds(cl->op, (double)a->u.seq.len, (double)cl->ival);
            break;
        case COND_IS_NONE: ok = dc_is_none(a); break;
        case COND_IS_SCALAR: ok = a && (a->kind == FX_ARG_INT || a->kind == FX_ARG_FLOAT || a->kind == FX_ARG_BOOL); break;
        case COND_IS_LIST: ok = a && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE); break;
        case COND_IS_TENSOR: ok = a && a->kind == FX_ARG_NODE; break;
        case COND_EQ_LITERAL: ok = compare_literal(a, w->lits[k], cl->op); break;
        default: return false;
        }
        if (ok == cl->negate)
            return false;
    }
    return true;
}

/* A call's positional operands into args (*na of them); "*" / "*1" stand for the call's own
 * positional arguments (from the second with *1), and an optional operand ("x?") that was not
 * given is omitted with what follows. False when an operand cannot be computed. */
static bool call_positional(dctx *c, const binding *b, fx_arg **locals, const dc_stmt *st, fx_arg **args, size_t *na)
{
    for (size_t i = 0; i < st->npos; i++) {
        const dc_opnd *o = &st->pos[i];
        if (o->kind == DK_STAR) {
            for (size_t j = (size_t)o->index; b->args && j < b->args->u.seq.len; j++)
                args[(*na)++] = dc_dup(c, b->args->u.seq.items[j]);
            continue;
        }
        bool absent;
        fx_arg *a = operand(c, b, locals, o, &absent);
        if (!a && absent && o->optional)
            return true;
        if (!a && !absent)
            return false;
        args[(*na)++] = a ? a : fx_arg_none(c->dst);
    }
    return true;
}

/* A call's keyword operands into kn/kv; a source argument that is absent or None is dropped.
 * False when one cannot be computed. */
static bool call_keywords(dctx *c, const binding *b, fx_arg **locals, const dc_stmt *st, const char **kn, fx_arg **kv,
                          size_t *nk)
{
    for (size_t i = 0; i < st->nk; i++) {
        bool absent;
        fx_arg *a = operand(c, b, locals, &st->kv[i], &absent);
        if (!a && !absent)
            return false;
        if (a && !(st->kv[i].names_arg && a->kind == FX_ARG_NONE)) {
            kn[*nk] = st->kn[i];
            kv[(*nk)++] = a;
        }
    }
    return true;
}

/* A call statement: emits the call and binds its local to the result. NULL when it cannot be
 * made. */
static fx_arg *expand_call(dctx *c, const binding *b, fx_arg **locals, const dc_stmt *st)
{
    size_t cap = st->npos + (b->args ? b->args->u.seq.len : 0) + 1, na = 0, nk = 0;
    fx_arg **args = fx_alloc(c->dst, cap * sizeof *args), **kv = fx_alloc(c->dst, (st->nk + 1) * sizeof *kv);
    const char **kn = fx_alloc(c->dst, (st->nk + 1) * sizeof *kn);
    if (!call_positional(c, b, locals, st, args, &na) || !call_keywords(c, b, locals, st, kn, kv, &nk))
        return NULL;
    fx_arg *result = dc_call(c, st->target, fx_arg_seq(c->dst, FX_ARG_TUPLE, args, NULL, na),
                             fx_arg_seq(c->dst, FX_ARG_DICT, kv, kn, nk), NULL);
    if (result && st->local >= 0)
        locals[st->local] = result;
    return result;
}

/* A value statement: an operand, or a tuple "(a, b)" of them. */
static fx_arg *expand_value(dctx *c, const binding *b, fx_arg **locals, const dc_stmt *st)
{
    bool absent;
    if (!st->tuple)
        return operand(c, b, locals, &st->value, &absent);
    fx_arg **items = fx_alloc(c->dst, (st->value.n + 1) * sizeof *items);
    for (size_t i = 0; i < st->value.n; i++)
        if (!(items[i] = operand(c, b, locals, &st->value.items[i], &absent)))
            return NULL;
    return fx_arg_seq(c->dst, FX_ARG_TUPLE, items, NULL, st->value.n);
}

fx_arg *dc_expand(dctx *c, const char *target, const dc_body *body, const binding *b, fx_arg **locals)
{
    fx_arg *result = NULL;
    bool ok = true;
    /* calls bind locals, the last statement is the result */
    for (size_t i = 0; i < body->n && ok && !c->failed; i++) {
        const dc_stmt *st = &body->stmts[i];
        result = st->target ? expand_call(c, b, locals, st) : expand_value(c, b, locals, st);
        ok = result != NULL;
    }
    if (c->failed)
        return NULL;
    if (!ok || !result) {
        int line = c->cur ? c->cur->src_line : 0;
        if (c->unknown)
            diag_error(c->d, (diag_loc){ c->src->file, line, 0 },
                       "decompose: %s (node %%%s): cannot compute %s (it needs static sizes or arguments "
                       "that are not known here)", target, c->cur ? c->cur->name : "?", c->unknown);
        else
            diag_error(c->d, (diag_loc){ c->src->file, line, 0 }, "decompose: bad template for %s", target);
        dc_fail(c);
        return NULL;
    }
    return result;
}
