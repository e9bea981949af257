/* onnx_eval_shape.c — kernels that move elements without computing them: Shape, Size, Reshape,
 * Flatten, Squeeze, Unsqueeze, Concat, Split, Slice, Transpose, Expand, Tile, Pad, DepthToSpace,
 * SpaceToDepth, and the constant makers Constant, ConstantOfShape, Range, EyeLike. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

static int k_shape(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    int64_t start = oe_attr_i(c, "start", 0), end = oe_attr_i(c, "end", a->rank);
    if (start < 0) start += a->rank;
    if (end < 0) end += a->rank;
    if (start < 0) start = 0;
    if (end > a->rank) end = a->rank;
    if (end < start) end = start;
    int64_t d = end - start;
    if (oe_out(c, 0, T_INT64, &d, 1)) return OE_ERROR;
    for (int64_t i = 0; i < d; i++) ot_set_i(&c->out[0], i, a->dims[start + i]);
    return OE_OK;
}

static int k_size(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    /* From the dims, not numel: callers may pass a shape-only tensor without data. */
    int64_t n = 1;
    for (int i = 0; i < a->rank; i++) {
        if (a->dims[i] && n > INT64_MAX / a->dims[i]) return oe_fail(c, "size overflows int64");
        n *= a->dims[i];
    }
    if (oe_out(c, 0, T_INT64, NULL, 0)) return OE_ERROR;
    ot_set_i(&c->out[0], 0, n);
    return OE_OK;
}

/* Copies a with a new shape (same element count). */
static int reshape_copy(ectx *c, const oe_tensor *a, const int64_t *dims, int rank)
{
    if (oe_out(c, 0, a->dtype, dims, rank)) return OE_ERROR;
    if (c->out[0].numel != a->numel) {
        ot_tensor_free(&c->out[0]);
        return oe_fail(c, "cannot reshape %lld elements into %lld", (long long)a->numel,
                       (long long)ot_numel_of(dims, rank));
    }
    if (a->numel) memcpy(c->out[0].data, a->data, (size_t)a->numel * ot_esize(a->dtype));
    return OE_OK;
}

static int k_reshape(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    int64_t sh[OE_MAX_RANK], n;
    if (c->opset < 5) {
        n = oe_attr_ints(c, "shape", sh, OE_MAX_RANK);
        if (!a || n < 0) return oe_fail(c, "bad shape attribute");
    } else if (!a || oe_read_ints(oe_in_tensor(c, 1), sh, OE_MAX_RANK, &n)) {
        return oe_fail(c, "bad shape input");
    }
    bool allowzero = oe_attr_i(c, "allowzero", 0) != 0;
    int neg = -1;
    int64_t known = 1;
    for (int64_t i = 0; i < n; i++) {
        if (sh[i] == 0 && !allowzero) {
            if (i >= a->rank) return oe_fail(c, "0 in shape beyond input rank");
            sh[i] = a->dims[i];
        }
        if (sh[i] == -1) {
            if (neg >= 0) return oe_fail(c, "more than one -1 in shape");
            neg = (int)i;
        } else if (sh[i] < 0) {
            return oe_fail(c, "negative dimension in shape");
        } else {
            known *= sh[i];
        }
    }
    if (neg >= 0) {
        if (known == 0 || a->numel % known) return oe_fail(c, "cannot infer the -1 dimension");
        sh[neg] = a->numel / known;
    }
    return reshape_copy(c, a, sh, (int)n);
}

static int k_flatten(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    int64_t axis = oe_attr_i(c, "axis", 1);
    if (axis < 0) axis += a->rank;
    if (axis < 0 || axis > a->rank) return oe_fail(c, "bad axis");
    int64_t dims[2] = {1, 1};
    for (int i = 0; i < a->rank; i++) dims[i >= axis] *= a->dims[i];
    return reshape_copy(c, a, dims, 2);
}

static int k_unsqueeze(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    int64_t axes[OE_MAX_RANK], n;
    bool given;
    if (!a || oe_get_axes(c, 1, axes, &n, &given) || !given) return oe_fail(c, "bad axes");
    int r = a->rank + (int)n;
    if (r > OE_MAX_RANK) return OE_UNSUPPORTED;
    bool ins[OE_MAX_RANK] = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t ax;
        if (oe_norm_axis(axes[i], r, &ax) || ins[ax]) return oe_fail(c, "bad axes");
        ins[ax] = true;
    }
    int64_t dims[OE_MAX_RANK];
    for (int i = 0, j = 0; i < r; i++) dims[i] = ins[i] ? 1 : a->dims[j++];
    return reshape_copy(c, a, dims, r);
}

static int k_squeeze(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    int64_t axes[OE_MAX_RANK], n;
    bool given;
    if (!a || oe_get_axes(c, 1, axes, &n, &given)) return oe_fail(c, "bad axes");
    bool drop[OE_MAX_RANK] = {0};
    if (!given) {
        for (int i = 0; i < a->rank; i++) drop[i] = a->dims[i] == 1;
    } else {
        for (int64_t i = 0; i < n; i++) {
            int64_t ax;
            if (oe_norm_axis(axes[i], a->rank, &ax) || a->dims[ax] != 1) return oe_fail(c, "bad axes");
            drop[ax] = true;
        }
    }
    int64_t dims[OE_MAX_RANK];
    int r = 0;
    for (int i = 0; i < a->rank; i++)
        if (!drop[i]) dims[r++] = a->dims[i];
    return reshape_copy(c, a, dims, r);
}

/* Concatenates ts[0..k) along axis into out (initialized here). */
int oe_concat_into(ectx *c, const oe_tensor *const *ts, size_t k, int64_t axis_attr, oe_tensor *out)
{
    if (k == 0 || !ts[0]) return oe_fail(c, "missing input");
    const oe_tensor *f = ts[0];
    int64_t axis;
    if (oe_norm_axis(axis_attr, f->rank, &axis)) return oe_fail(c, "bad axis");
    int64_t dims[OE_MAX_RANK];
    memcpy(dims, f->dims, sizeof dims);
    dims[axis] = 0;
    for (size_t j = 0; j < k; j++) {
        const oe_tensor *t = ts[j];
        if (!t || t->dtype != f->dtype || t->rank != f->rank) return oe_fail(c, "inputs differ in type or rank");
        for (int i = 0; i < f->rank; i++)
            if (i != axis && t->dims[i] != f->dims[i]) return oe_fail(c, "inputs differ in shape");
        dims[axis] += t->dims[axis];
    }
    if (ot_tensor_init(out, f->dtype, dims, f->rank)) return oe_fail(c, "output too large");
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; i++) outer *= f->dims[i];
    for (int i = (int)axis + 1; i < f->rank; i++) inner *= f->dims[i];
    size_t es = ot_esize(f->dtype);
    char *o = out->data;
    for (int64_t p = 0; p < outer; p++)
        for (size_t j = 0; j < k; j++) {
            size_t chunk = (size_t)(ts[j]->dims[axis] * inner) * es;
            if (!chunk) continue;   /* an empty input (or output) has no data pointer to offset */
            memcpy(o, (const char *)ts[j]->data + p * chunk, chunk);
            o += chunk;
        }
    return OE_OK;
}

static int k_concat(ectx *c)
{
    for (size_t j = 0; j < c->nin; j++)
        if (!oe_in_tensor(c, j)) return oe_fail(c, "missing input %zu", j);
    return oe_concat_into(c, (const oe_tensor *const *)c->in, c->nin, oe_attr_i(c, "axis", 0), &c->out[0]);
}

/* Copies [start, start+len) along axis of a into out (initialized by the caller). */
void oe_take_range(const oe_tensor *a, int64_t axis, int64_t start, int64_t len, oe_tensor *out)
{
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; i++) outer *= a->dims[i];
    for (int i = (int)axis + 1; i < a->rank; i++) inner *= a->dims[i];
    size_t es = ot_esize(a->dtype), chunk = (size_t)(len * inner) * es;
    for (int64_t p = 0; p < outer && chunk; p++)
        memcpy((char *)out->data + p * chunk,
               (const char *)a->data + ((p * a->dims[axis] + start) * inner) * (int64_t)es, chunk);
}

/* The sizes of a split: from the input (opset >= 13), the attribute, num_outputs (18) or equal. */
static int split_sizes(ectx *c, const oe_tensor *a, int64_t axis, int64_t *sz)
{
    int64_t n = -1, d = a->dims[axis];
    size_t nout = c->nout;
    if (c->opset >= 13 && oe_in_tensor(c, 1)) {
        if (oe_read_ints(oe_in_tensor(c, 1), sz, (int64_t)nout, &n)) return oe_fail(c, "bad split input");
    } else if (c->opset < 13) {
        n = oe_attr_ints(c, "split", sz, (int64_t)nout);
        if (n == -2) return oe_fail(c, "split has more entries than outputs");
    }
    if (n >= 0) {
        int64_t s = 0;
        for (int64_t i = 0; i < n; i++) s += sz[i];
        if (n != (int64_t)nout || s != d) return oe_fail(c, "split sizes do not add up to the dimension");
        return OE_OK;
    }
    int64_t parts = oe_attr_i(c, "num_outputs", (int64_t)nout);
    if (parts != (int64_t)nout || parts <= 0) return oe_fail(c, "num_outputs differs from the outputs");
    int64_t chunk = c->opset >= 18 ? (d + parts - 1) / parts : d / parts;
    if (c->opset < 18 && d % parts) return oe_fail(c, "dimension %lld is not divisible into %lld", (long long)d, (long long)parts);
    for (int64_t i = 0; i < parts; i++) {
        int64_t left = d - i * chunk;
        sz[i] = left < chunk ? (left > 0 ? left : 0) : chunk;
    }
    return OE_OK;
}

static int k_split(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    int64_t axis;
    if (oe_norm_axis(oe_attr_i(c, "axis", 0), a->rank, &axis)) return oe_fail(c, "bad axis");
    int64_t *sz = xmalloc((c->nout ? c->nout : 1) * sizeof *sz);
    int rc = split_sizes(c, a, axis, sz);
    for (size_t k = 0, start = 0; rc == OE_OK && k < c->nout; start += (size_t)sz[k], k++) {
        int64_t dims[OE_MAX_RANK];
        memcpy(dims, a->dims, sizeof dims);
        dims[axis] = sz[k];
        rc = oe_out(c, k, a->dtype, dims, a->rank);
        if (rc == OE_OK) oe_take_range(a, axis, (int64_t)start, sz[k], &c->out[k]);
    }
    free(sz);
    return rc;
}

/* Slice parameters: starts, ends, axes, steps from inputs (opset >= 10) or attributes. */
static int slice_params(ectx *c, int rank, int64_t *st, int64_t *en, int64_t *ax, int64_t *sp, int64_t *n)
{
    int64_t n2, n3 = -1, n4 = -1;
    if (c->opset < 10) {
        *n = oe_attr_ints(c, "starts", st, OE_MAX_RANK);
        n2 = oe_attr_ints(c, "ends", en, OE_MAX_RANK);
        n3 = oe_attr_ints(c, "axes", ax, OE_MAX_RANK);
    } else {
        if (oe_read_ints(oe_in_tensor(c, 1), st, OE_MAX_RANK, n) ||
            oe_read_ints(oe_in_tensor(c, 2), en, OE_MAX_RANK, &n2))
            return oe_fail(c, "starts and ends must be 1-D integer tensors");
        if (IN(c, 3) && oe_read_ints(oe_in_tensor(c, 3), ax, OE_MAX_RANK, &n3)) return oe_fail(c, "bad axes");
        if (IN(c, 4) && oe_read_ints(oe_in_tensor(c, 4), sp, OE_MAX_RANK, &n4)) return oe_fail(c, "bad steps");
    }
    if (*n < 0 || *n != n2 || (n3 >= 0 && n3 != *n) || (n4 >= 0 && n4 != *n))
        return oe_fail(c, "starts, ends, axes and steps differ in length");
    for (int64_t i = 0; i < *n; i++) {
        if (n3 < 0) ax[i] = i;
        if (n4 < 0) sp[i] = 1;
    }
    (void)rank;
    return OE_OK;
}

static int k_slice(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    int64_t st[OE_MAX_RANK], en[OE_MAX_RANK], ax[OE_MAX_RANK], sp[OE_MAX_RANK], n;
    if (!a) return oe_fail(c, "missing input");
    if (slice_params(c, a->rank, st, en, ax, sp, &n)) return OE_ERROR;
    int64_t s0[OE_MAX_RANK], step[OE_MAX_RANK], dims[OE_MAX_RANK];
    bool seen[OE_MAX_RANK] = {0};
    for (int i = 0; i < a->rank; i++) {
        s0[i] = 0;
        step[i] = 1;
        dims[i] = a->dims[i];
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t x;
        if (oe_norm_axis(ax[i], a->rank, &x) || seen[x] || sp[i] == 0) return oe_fail(c, "bad axes or steps");
        seen[x] = true;
        int64_t d = a->dims[x], s = st[i], e = en[i];
        if (s < 0) s += d;
        if (e < 0) e += d;
        if (sp[i] > 0) {
            s = s < 0 ? 0 : s > d ? d : s;
            e = e < 0 ? 0 : e > d ? d : e;
            dims[x] = e > s ? (e - s + sp[i] - 1) / sp[i] : 0;
        } else {
            s = s < 0 ? -1 : s > d - 1 ? d - 1 : s;
            e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
            dims[x] = s > e ? (s - e + (-sp[i]) - 1) / (-sp[i]) : 0;
        }
        s0[x] = s;
        step[x] = sp[i];
    }
    if (oe_out(c, 0, a->dtype, dims, a->rank)) return OE_ERROR;
    int64_t ist[OE_MAX_RANK], idx[OE_MAX_RANK] = {0}, off = 0;
    ot_strides(a->dims, a->rank, ist);
    for (int i = 0; i < a->rank; i++) off += s0[i] * ist[i];
    for (int64_t o = 0; o < c->out[0].numel; o++) {
        oe_copy_elem(&c->out[0], o, a, off);
        for (int i = a->rank - 1; i >= 0; i--) {
            off += step[i] * ist[i];
            if (++idx[i] < dims[i]) break;
            off -= step[i] * ist[i] * idx[i];
            idx[i] = 0;
        }
    }
    return OE_OK;
}

/* out = a with its axes permuted (out is initialized here). */
int oe_transpose_into(ectx *c, const oe_tensor *a, const int64_t *perm, oe_tensor *out)
{
    int64_t dims[OE_MAX_RANK];
    bool seen[OE_MAX_RANK] = {0};
    for (int i = 0; i < a->rank; i++) {
        if (perm[i] < 0 || perm[i] >= a->rank || seen[perm[i]]) return oe_fail(c, "bad perm");
        seen[perm[i]] = true;
        dims[i] = a->dims[perm[i]];
    }
    if (ot_tensor_init(out, a->dtype, dims, a->rank)) return oe_fail(c, "bad shape");
    int64_t ist[OE_MAX_RANK], pst[OE_MAX_RANK], idx[OE_MAX_RANK] = {0}, off = 0;
    ot_strides(a->dims, a->rank, ist);
    for (int i = 0; i < a->rank; i++) pst[i] = ist[perm[i]];
    size_t es = ot_esize(a->dtype);
    for (int64_t o = 0; o < a->numel; o++) {
        memcpy((char *)out->data + o * (int64_t)es, (const char *)a->data + off * (int64_t)es, es);
        for (int i = a->rank - 1; i >= 0; i--) {
            off += pst[i];
            if (++idx[i] < dims[i]) break;
            off -= pst[i] * idx[i];
            idx[i] = 0;
        }
    }
    return OE_OK;
}

int oe_transpose(const oe_tensor *t, const int64_t *perm, oe_tensor *out)
{
    Onnx__NodeProto n = ONNX__NODE_PROTO__INIT;
    n.op_type = "Transpose";
    ectx c = {&n, 0, NULL, 0, NULL, 0, NULL, 0, NULL};
    return oe_transpose_into(&c, t, perm, out);
}

static int k_transpose(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    int64_t perm[OE_MAX_RANK];
    for (int i = 0; i < a->rank; i++) perm[i] = a->rank - 1 - i;
    int64_t n = oe_attr_ints(c, "perm", perm, OE_MAX_RANK);
    if (n >= 0 && n != a->rank) return oe_fail(c, "perm length differs from rank");
    return oe_transpose_into(c, a, perm, &c->out[0]);
}

static int k_expand(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    int64_t sh[OE_MAX_RANK], n;
    if (!a || oe_read_ints(oe_in_tensor(c, 1), sh, OE_MAX_RANK, &n)) return oe_fail(c, "bad shape input");
    oe_tensor shape_t = {.dtype = T_BOOL, .rank = (int)n};
    for (int64_t i = 0; i < n; i++) {
        if (sh[i] < 0) return oe_fail(c, "negative dimension in shape");
        shape_t.dims[i] = sh[i];
    }
    const oe_tensor *ts[2] = {a, &shape_t};
    int64_t dims[OE_MAX_RANK];
    int r;
    if (oe_bcast_shape(ts, 2, dims, &r)) return oe_fail(c, "shapes cannot be broadcast");
    if (oe_out(c, 0, a->dtype, dims, r)) return OE_ERROR;
    oe_bit it;
    oe_bit_init(&it, ts, 1, dims, r);
    for (int64_t i = 0; i < c->out[0].numel; i++, oe_bit_next(&it)) oe_copy_elem(&c->out[0], i, a, it.off[0]);
    return OE_OK;
}

static int k_tile(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    int64_t rep[OE_MAX_RANK], n;
    if (!a || oe_read_ints(oe_in_tensor(c, 1), rep, OE_MAX_RANK, &n) || n != a->rank)
        return oe_fail(c, "repeats must have one entry per dimension");
    int64_t dims[OE_MAX_RANK];
    for (int i = 0; i < a->rank; i++) {
        if (rep[i] < 0) return oe_fail(c, "negative repeat");
        dims[i] = a->dims[i] * rep[i];
    }
    if (oe_out(c, 0, a->dtype, dims, a->rank)) return OE_ERROR;
    int64_t ist[OE_MAX_RANK], idx[OE_MAX_RANK] = {0};
    ot_strides(a->dims, a->rank, ist);
    for (int64_t o = 0; o < c->out[0].numel; o++) {
        int64_t off = 0;
        for (int i = 0; i < a->rank; i++) off += (idx[i] % a->dims[i]) * ist[i];
        oe_copy_elem(&c->out[0], o, a, off);
        for (int i = a->rank - 1; i >= 0; i--) {
            if (++idx[i] < dims[i]) break;
            idx[i] = 0;
        }
    }
    return OE_OK;
}

/* The pads (begins then ends, one pair per axis of the input) and the constant. */
static int pad_params(ectx *c, const oe_tensor *a, int64_t *pads, double *value)
{
    int r = a->rank;
    int64_t raw[2 * OE_MAX_RANK], n;
    *value = 0;
    if (c->opset < 11) {
        n = oe_attr_ints(c, c->opset < 2 ? "paddings" : "pads", raw, 2 * OE_MAX_RANK);
        *value = oe_attr_f(c, "value", 0);
    } else {
        if (oe_read_ints(oe_in_tensor(c, 1), raw, 2 * OE_MAX_RANK, &n)) return oe_fail(c, "bad pads input");
        const oe_tensor *v = oe_in_tensor(c, 2);
        if (v && v->numel >= 1) *value = ot_get_f(v, 0);
    }
    int64_t axes[OE_MAX_RANK], na = r;
    for (int i = 0; i < r; i++) axes[i] = i;
    if (c->opset >= 18 && IN(c, 3)) {
        if (oe_read_ints(oe_in_tensor(c, 3), axes, OE_MAX_RANK, &na)) return oe_fail(c, "bad axes");
        for (int64_t i = 0; i < na; i++)
            if (oe_norm_axis(axes[i], r, &axes[i])) return oe_fail(c, "bad axes");
    }
    if (n != 2 * na) return oe_fail(c, "pads must have two entries per padded axis");
    memset(pads, 0, sizeof(int64_t) * 2 * (size_t)r);
    for (int64_t i = 0; i < na; i++) {
        pads[axes[i]] = raw[i];
        pads[r + axes[i]] = raw[na + i];
    }
    return OE_OK;
}

static int64_t pad_index(int64_t i, int64_t d, int mode)
{
    if (i >= 0 && i < d) return i;
    if (d == 0) return -1;
    switch (mode) {
    case 1: /* reflect */
        if (d == 1) return 0;
        while (i < 0 || i >= d) i = i < 0 ? -i : 2 * (d - 1) - i;
        return i;
    case 2: return i < 0 ? 0 : d - 1;            /* edge */
    case 3: return ((i % d) + d) % d;            /* wrap */
    default: return -1;                          /* constant */
    }
}

static int k_pad(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    int64_t pads[2 * OE_MAX_RANK];
    double value;
    if (pad_params(c, a, pads, &value)) return OE_ERROR;
    char mbuf[16];
    const char *ms = oe_attr_s(c, "mode", "constant", mbuf, sizeof mbuf);
    int mode = !strcmp(ms, "reflect") ? 1 : !strcmp(ms, "edge") ? 2 : !strcmp(ms, "wrap") ? 3 : 0;
    if (!mode && strcmp(ms, "constant")) return oe_fail(c, "unknown mode '%s'", ms);
    int64_t dims[OE_MAX_RANK];
    for (int i = 0; i < a->rank; i++) {
        dims[i] = a->dims[i] + pads[i] + pads[a->rank + i];
        if (dims[i] < 0) return oe_fail(c, "pads remove more than the dimension");
    }
    if (oe_out(c, 0, a->dtype, dims, a->rank)) return OE_ERROR;
    int64_t ist[OE_MAX_RANK], idx[OE_MAX_RANK] = {0};
    ot_strides(a->dims, a->rank, ist);
    for (int64_t o = 0; o < c->out[0].numel; o++) {
        int64_t off = 0;
        bool inside = true;
        for (int i = 0; i < a->rank && inside; i++) {
            int64_t j = pad_index(idx[i] - pads[i], a->dims[i], mode);
            if (j < 0) inside = false;
            else off += j * ist[i];
        }
        if (inside) oe_copy_elem(&c->out[0], o, a, off);
        else ot_set_f(&c->out[0], o, value);
        for (int i = a->rank - 1; i >= 0; i--) {
            if (++idx[i] < dims[i]) break;
            idx[i] = 0;
        }
    }
    return OE_OK;
}

/* DepthToSpace (arg 0) and SpaceToDepth (arg 1) on NCHW tensors. */
static int k_depth_space(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    int64_t b = oe_attr_i(c, "blocksize", 0);
    if (!a || a->rank != 4 || b <= 0) return oe_fail(c, "expects a 4-D input and a positive blocksize");
    char mbuf[8];
    bool crd = !strcmp(oe_attr_s(c, "mode", "DCR", mbuf, sizeof mbuf), "CRD");
    int64_t N = a->dims[0], C = a->dims[1], H = a->dims[2], W = a->dims[3];
    bool d2s = c->arg == 0;
    if (d2s ? C % (b * b) : (H % b || W % b)) return oe_fail(c, "dimensions are not divisible by the blocksize");
    int64_t dims[4] = {N, d2s ? C / (b * b) : C * b * b, d2s ? H * b : H / b, d2s ? W * b : W / b};
    if (oe_out(c, 0, a->dtype, dims, 4)) return OE_ERROR;
    /* Walk the space-side tensor (the output of DepthToSpace, the input of SpaceToDepth). */
    int64_t Cs = dims[1], Hs = d2s ? dims[2] : H, Ws = d2s ? dims[3] : W, Cd = d2s ? C : dims[1];
    if (!d2s) Cs = C;
    for (int64_t n = 0; n < N; n++)
        for (int64_t ch = 0; ch < Cs; ch++)
            for (int64_t h = 0; h < Hs; h++)
                for (int64_t w = 0; w < Ws; w++) {
                    int64_t i = h % b, j = w % b;
                    int64_t cd = crd ? ch * b * b + i * b + j : (i * b + j) * Cs + ch;
                    int64_t space = ((n * Cs + ch) * Hs + h) * Ws + w;
                    int64_t depth = ((n * Cd + cd) * (Hs / b) + h / b) * (Ws / b) + w / b;
                    if (d2s) oe_copy_elem(&c->out[0], space, a, depth);
                    else oe_copy_elem(&c->out[0], depth, a, space);
                }
    return OE_OK;
}

/* ---- constants ---------------------------------------------------------------------------------- */

static int k_constant(ectx *c)
{
    const Onnx__NodeProto *n = c->n;
    if (n->n_attribute != 1 || n->attribute[0]->ref_attr_name) return OE_UNSUPPORTED;
    Onnx__AttributeProto *a = n->attribute[0];
    const char *nm = a->name ? a->name : "";
    if (!strcmp(nm, "value")) {
        if (!a->t) return oe_fail(c, "value attribute without a tensor");
        int rc = ot_from_proto(a->t, 0, &c->out[0]);
        return rc == OE_ERROR ? oe_fail(c, "the value's data does not match its shape") : rc;
    }
    if (!strcmp(nm, "value_float")) {
        double v = a->f;
        return ot_tensor_from_f(&c->out[0], T_FLOAT, NULL, 0, &v);
    }
    if (!strcmp(nm, "value_int")) return ot_tensor_from_i(&c->out[0], T_INT64, NULL, 0, &a->i);
    if (!strcmp(nm, "value_floats")) {
        int64_t d = (int64_t)a->n_floats;
        if (oe_out(c, 0, T_FLOAT, &d, 1)) return OE_ERROR;
        for (size_t i = 0; i < a->n_floats; i++) ot_set_f(&c->out[0], (int64_t)i, a->floats[i]);
        return OE_OK;
    }
    if (!strcmp(nm, "value_ints")) {
        int64_t d = (int64_t)a->n_ints;
        return ot_tensor_from_i(&c->out[0], T_INT64, &d, 1, a->ints) ? oe_fail(c, "too large") : OE_OK;
    }
    return OE_UNSUPPORTED;
}

static int k_constant_of_shape(ectx *c)
{
    int64_t dims[OE_MAX_RANK], n;
    if (oe_read_ints(oe_in_tensor(c, 0), dims, OE_MAX_RANK, &n)) return oe_fail(c, "bad shape input");
    oe_tensor v;
    Onnx__AttributeProto *va = oe_attr(c, "value");
    if (va && va->t) {
        int rc = ot_from_proto(va->t, 1, &v);
        if (rc) return rc == OE_ERROR ? oe_fail(c, "bad value attribute") : rc;
        if (v.numel != 1) {
            ot_tensor_free(&v);
            return oe_fail(c, "value must have one element");
        }
    } else {
        double z = 0;
        ot_tensor_from_f(&v, T_FLOAT, NULL, 0, &z);
    }
    int rc = oe_out(c, 0, v.dtype, dims, (int)n);
    if (rc == OE_OK)
        for (int64_t i = 0; i < c->out[0].numel; i++) oe_copy_elem(&c->out[0], i, &v, 0);
    ot_tensor_free(&v);
    return rc;
}

static int k_range(ectx *c)
{
    const oe_tensor *s = oe_in_tensor(c, 0), *l = oe_in_tensor(c, 1), *d = oe_in_tensor(c, 2);
    if (!s || !l || !d || s->numel != 1 || l->numel != 1 || d->numel != 1 || s->dtype != l->dtype ||
        s->dtype != d->dtype)
        return oe_fail(c, "inputs must be scalars of one type");
    bool fl = oe_is_float(s->dtype);
    double a = ot_get_f(s, 0), b = ot_get_f(l, 0), st = ot_get_f(d, 0);
    if (st == 0) return oe_fail(c, "delta is zero");
    double k = fl ? ceil((b - a) / st)
                  : ceil(((double)ot_get_i(l, 0) - (double)ot_get_i(s, 0)) / (double)ot_get_i(d, 0));
    int64_t n = k > 0 ? (k > (double)OE_HARD_MAX_NUMEL ? OE_HARD_MAX_NUMEL + 1 : (int64_t)k) : 0;
    if (oe_out(c, 0, s->dtype, &n, 1)) return OE_ERROR;
    for (int64_t i = 0; i < n; i++) {
        if (fl) ot_set_f(&c->out[0], i, ot_round_to(s->dtype, a + (double)i * st));
        else ot_set_i(&c->out[0], i, ot_get_i(s, 0) + i * ot_get_i(d, 0));
    }
    return OE_OK;
}

static int k_eyelike(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a || a->rank != 2) return oe_fail(c, "expects a 2-D input");
    int dt = (int)oe_attr_i(c, "dtype", a->dtype);
    int64_t k = oe_attr_i(c, "k", 0);
    if (oe_out(c, 0, dt, a->dims, 2)) return OE_ERROR;
    for (int64_t i = 0; i < a->dims[0]; i++) {
        int64_t j = i + k;
        if (j >= 0 && j < a->dims[1]) ot_set_i(&c->out[0], i * a->dims[1] + j, 1);
    }
    return OE_OK;
}

static int k_trilu(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *kt = oe_in_tensor(c, 1);
    if (!a || a->rank < 2) return oe_fail(c, "input must have rank >= 2");
    int64_t k = 0;
    if (kt) {
        if (kt->numel != 1 || oe_is_float(kt->dtype)) return oe_fail(c, "k must be an integer scalar");
        k = ot_get_i(kt, 0);
    }
    bool upper = oe_attr_i(c, "upper", 1) != 0;
    ot_tensor_copy(&c->out[0], a);
    int64_t rows = a->dims[a->rank - 2], cols = a->dims[a->rank - 1];
    int64_t mats = (rows > 0 && cols > 0) ? a->numel / (rows * cols) : 0;
    size_t es = ot_esize(a->dtype);
    for (int64_t mi = 0; mi < mats; mi++)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                bool keep = upper ? j - i >= k : j - i <= k;
                if (!keep) memset((char *)c->out[0].data + ((mi * rows + i) * cols + j) * (int64_t)es, 0, es);
            }
    return OE_OK;
}

const oe_op_def oe_ops_shape[] = {
    {"Shape", k_shape, 0, true}, {"Size", k_size, 0, true}, {"Reshape", k_reshape, 0, true},
    {"Flatten", k_flatten, 0, false}, {"Unsqueeze", k_unsqueeze, 0, true}, {"Squeeze", k_squeeze, 0, true},
    {"Concat", k_concat, 0, true}, {"Split", k_split, 0, false}, {"Slice", k_slice, 0, true},
    {"Transpose", k_transpose, 0, true}, {"Expand", k_expand, 0, true}, {"Tile", k_tile, 0, false},
    {"Pad", k_pad, 0, false}, {"DepthToSpace", k_depth_space, 0, false},
    {"SpaceToDepth", k_depth_space, 1, false}, {"Constant", k_constant, 0, true},
    {"ConstantOfShape", k_constant_of_shape, 0, true}, {"Range", k_range, 0, true},
    {"EyeLike", k_eyelike, 0, false}, {"Trilu", k_trilu, 0, true},
    {NULL, NULL, 0, false},
};
