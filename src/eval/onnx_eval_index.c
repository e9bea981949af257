/* onnx_eval_index.c — kernels driven by index tensors: Gather, GatherElements, GatherND,
 * ScatterElements (and Scatter), ScatterND, OneHot, Compress, NonZero, Unique, ReverseSequence,
 * NonMaxSuppression. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

/* An index tensor's element i, made non-negative against dim; -1 when out of range. */
static int64_t index_at(const oe_tensor *ix, int64_t i, int64_t dim)
{
    int64_t v = ot_get_i(ix, i);
    if (v < 0) v += dim;
    return v < 0 || v >= dim ? -1 : v;
}

static bool is_index_type(const oe_tensor *t)
{
    return t && oe_is_int(t->dtype);
}

static int k_gather(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *ix = oe_in_tensor(c, 1);
    if (!a || !is_index_type(ix)) return oe_fail(c, "expects data and integer indices");
    int64_t axis;
    if (oe_norm_axis(oe_attr_i(c, "axis", 0), a->rank, &axis)) return oe_fail(c, "bad axis");
    int r = a->rank - 1 + ix->rank;
    if (r > OE_MAX_RANK) return OE_UNSUPPORTED;
    int64_t dims[OE_MAX_RANK];
    int k = 0;
    for (int i = 0; i < axis; i++) dims[k++] = a->dims[i];
    for (int i = 0; i < ix->rank; i++) dims[k++] = ix->dims[i];
    for (int i = (int)axis + 1; i < a->rank; i++) dims[k++] = a->dims[i];
    if (oe_out(c, 0, a->dtype, dims, r)) return OE_ERROR;
    int64_t outer = 1, inner = 1, ax = a->dims[axis];
    for (int i = 0; i < axis; i++) outer *= a->dims[i];
    for (int i = (int)axis + 1; i < a->rank; i++) inner *= a->dims[i];
    size_t es = ot_esize(a->dtype);
    char *o = c->out[0].data;
    for (int64_t p = 0; p < outer; p++)
        for (int64_t j = 0; j < ix->numel; j++) {
            int64_t v = index_at(ix, j, ax);
            if (v < 0) return oe_fail(c, "index %lld is out of range for a dimension of %lld",
                                      (long long)ot_get_i(ix, j), (long long)ax);
            if (!inner) continue;   /* an empty output has no data pointer to offset */
            memcpy(o, (const char *)a->data + ((p * ax + v) * inner) * (int64_t)es, (size_t)inner * es);
            o += inner * (int64_t)es;
        }
    return OE_OK;
}

/* For each element of ix (in order), the flat offset into a with axis replaced by the index. */
static int elements_walk(ectx *c, const oe_tensor *a, const oe_tensor *ix, int64_t axis, int64_t *offs)
{
    if (ix->rank != a->rank) return oe_fail(c, "indices must have the data's rank");
    int64_t ast[OE_MAX_RANK], idx[OE_MAX_RANK] = {0};
    ot_strides(a->dims, a->rank, ast);
    for (int64_t i = 0; i < ix->numel; i++) {
        int64_t off = 0;
        for (int k = 0; k < a->rank; k++) {
            if (k == axis) {
                int64_t v = index_at(ix, i, a->dims[axis]);
                if (v < 0) return oe_fail(c, "index %lld is out of range", (long long)ot_get_i(ix, i));
                off += v * ast[k];
            } else {
                if (idx[k] >= a->dims[k]) return oe_fail(c, "indices are larger than the data");
                off += idx[k] * ast[k];
            }
        }
        offs[i] = off;
        for (int k = ix->rank - 1; k >= 0; k--) {
            if (++idx[k] < ix->dims[k]) break;
            idx[k] = 0;
        }
    }
    return OE_OK;
}

static int k_gather_elements(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *ix = oe_in_tensor(c, 1);
    if (!a || !is_index_type(ix)) return oe_fail(c, "expects data and integer indices");
    int64_t axis;
    if (oe_norm_axis(oe_attr_i(c, "axis", 0), a->rank, &axis)) return oe_fail(c, "bad axis");
    int64_t *offs = xmalloc(oe_cnt(ix->numel) * sizeof *offs);
    int rc = elements_walk(c, a, ix, axis, offs);
    if (rc == OE_OK) rc = oe_out(c, 0, a->dtype, ix->dims, ix->rank);
    for (int64_t i = 0; rc == OE_OK && i < ix->numel; i++) oe_copy_elem(&c->out[0], i, a, offs[i]);
    free(offs);
    return rc;
}

enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN };

static int reduction_of(ectx *c)
{
    char buf[16];
    const char *r = oe_attr_s(c, "reduction", "none", buf, sizeof buf);
    return !strcmp(r, "add") ? RED_ADD : !strcmp(r, "mul") ? RED_MUL : !strcmp(r, "max") ? RED_MAX
         : !strcmp(r, "min") ? RED_MIN : !strcmp(r, "none") ? RED_NONE : -1;
}

static void scatter_one(oe_tensor *out, int64_t o, const oe_tensor *u, int64_t ui, int red)
{
    if (red == RED_NONE) {
        oe_copy_elem(out, o, u, ui);
        return;
    }
    if (oe_is_float(out->dtype)) {
        double x = ot_get_f(out, o), y = ot_get_f(u, ui);
        double z = red == RED_ADD ? x + y : red == RED_MUL ? x * y : red == RED_MAX ? (x > y ? x : y) : (x < y ? x : y);
        ot_set_f(out, o, z);
    } else {
        int64_t x = ot_get_i(out, o), y = ot_get_i(u, ui);
        int64_t z = red == RED_ADD ? x + y : red == RED_MUL ? x * y : red == RED_MAX ? (x > y ? x : y) : (x < y ? x : y);
        ot_set_i(out, o, z);
    }
}

static int k_scatter_elements(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *ix = oe_in_tensor(c, 1), *u = oe_in_tensor(c, 2);
    if (!a || !is_index_type(ix) || !u) return oe_fail(c, "expects data, integer indices and updates");
    if (u->dtype != a->dtype || u->rank != ix->rank || memcmp(u->dims, ix->dims, sizeof(int64_t) * (size_t)ix->rank))
        return oe_fail(c, "updates must match the indices' shape and the data's type");
    int red = reduction_of(c);
    int64_t axis;
    if (red < 0) return oe_fail(c, "unknown reduction");
    if (oe_norm_axis(oe_attr_i(c, "axis", 0), a->rank, &axis)) return oe_fail(c, "bad axis");
    int64_t *offs = xmalloc(oe_cnt(ix->numel) * sizeof *offs);
    int rc = elements_walk(c, a, ix, axis, offs);
    if (rc == OE_OK) {
        ot_tensor_copy(&c->out[0], a);
        for (int64_t i = 0; i < ix->numel; i++) scatter_one(&c->out[0], offs[i], u, i, red);
    }
    free(offs);
    return rc;
}

/* GatherND / ScatterND: the flat offset of the slice an index tuple (last axis of ix) names. */
static int nd_offset(ectx *c, const oe_tensor *a, const oe_tensor *ix, int64_t tuple, int64_t k, int64_t batch_off,
                     int bd, int64_t *off)
{
    int64_t ast[OE_MAX_RANK];
    ot_strides(a->dims, a->rank, ast);
    int64_t o = batch_off;
    for (int64_t j = 0; j < k; j++) {
        int64_t v = index_at(ix, tuple * k + j, a->dims[bd + j]);
        if (v < 0) return oe_fail(c, "index %lld is out of range", (long long)ot_get_i(ix, tuple * k + j));
        o += v * ast[bd + j];
    }
    *off = o;
    return OE_OK;
}

static int k_gather_nd(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *ix = oe_in_tensor(c, 1);
    if (!a || !is_index_type(ix) || ix->rank < 1) return oe_fail(c, "expects data and integer indices");
    int bd = (int)oe_attr_i(c, "batch_dims", 0);
    int64_t k = ix->dims[ix->rank - 1];
    if (bd < 0 || bd >= ix->rank || bd + k > a->rank) return oe_fail(c, "indices do not fit the data");
    for (int i = 0; i < bd; i++)
        if (a->dims[i] != ix->dims[i]) return oe_fail(c, "batch dimensions differ");
    int64_t dims[OE_MAX_RANK];
    int r = 0;
    for (int i = 0; i < ix->rank - 1; i++) dims[r++] = ix->dims[i];
    for (int i = bd + (int)k; i < a->rank; i++) {
        if (r >= OE_MAX_RANK) return OE_UNSUPPORTED;
        dims[r++] = a->dims[i];
    }
    if (oe_out(c, 0, a->dtype, dims, r)) return OE_ERROR;
    int64_t slice = ot_numel_of(a->dims + bd + k, a->rank - bd - (int)k);
    int64_t batches = ot_numel_of(ix->dims, bd), per = ot_numel_of(ix->dims + bd, ix->rank - 1 - bd);
    int64_t abatch = ot_numel_of(a->dims + bd, a->rank - bd);
    size_t es = ot_esize(a->dtype);
    for (int64_t b = 0; b < batches; b++)
        for (int64_t t = 0; t < per; t++) {
            int64_t off, tuple = b * per + t;
            if (nd_offset(c, a, ix, tuple, k, b * abatch, bd, &off)) return OE_ERROR;
            if (slice) memcpy((char *)c->out[0].data + tuple * slice * (int64_t)es, (const char *)a->data + off * (int64_t)es,
                              (size_t)slice * es);
        }
    return OE_OK;
}

static int k_scatter_nd(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *ix = oe_in_tensor(c, 1), *u = oe_in_tensor(c, 2);
    if (!a || !is_index_type(ix) || !u || ix->rank < 1) return oe_fail(c, "expects data, integer indices and updates");
    int64_t k = ix->dims[ix->rank - 1];
    int red = reduction_of(c);
    if (red < 0) return oe_fail(c, "unknown reduction");
    if (k > a->rank || u->dtype != a->dtype) return oe_fail(c, "indices do not fit the data");
    int64_t slice = ot_numel_of(a->dims + k, a->rank - (int)k), tuples = ix->numel / (k ? k : 1);
    if (k == 0) tuples = ot_numel_of(ix->dims, ix->rank - 1);
    if (u->numel != tuples * slice) return oe_fail(c, "updates do not match the indices and data");
    ot_tensor_copy(&c->out[0], a);
    for (int64_t t = 0; t < tuples; t++) {
        int64_t off;
        if (nd_offset(c, a, ix, t, k, 0, 0, &off)) return OE_ERROR;
        for (int64_t j = 0; j < slice; j++) scatter_one(&c->out[0], off + j, u, t * slice + j, red);
    }
    return OE_OK;
}

static int k_onehot(ectx *c)
{
    const oe_tensor *ix = oe_in_tensor(c, 0), *dt = oe_in_tensor(c, 1), *vals = oe_in_tensor(c, 2);
    if (!ix || !dt || !vals || dt->numel != 1 || vals->numel != 2) return oe_fail(c, "expects indices, depth and two values");
    int64_t depth = (int64_t)ot_get_f(dt, 0), axis;
    if (depth < 0) return oe_fail(c, "negative depth");
    int r = ix->rank + 1;
    if (r > OE_MAX_RANK) return OE_UNSUPPORTED;
    if (oe_norm_axis(oe_attr_i(c, "axis", -1), r, &axis)) return oe_fail(c, "bad axis");
    int64_t dims[OE_MAX_RANK];
    for (int i = 0, j = 0; i < r; i++) dims[i] = i == axis ? depth : ix->dims[j++];
    if (oe_out(c, 0, vals->dtype, dims, r)) return OE_ERROR;
    int64_t outer = ot_numel_of(ix->dims, (int)axis), inner = ot_numel_of(ix->dims + axis, ix->rank - (int)axis);
    for (int64_t o = 0; o < c->out[0].numel; o++) oe_copy_elem(&c->out[0], o, vals, 0);
    for (int64_t p = 0; p < outer; p++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t v = (int64_t)ot_get_f(ix, p * inner + i);
            if (v < 0) v += depth;
            if (v >= 0 && v < depth) oe_copy_elem(&c->out[0], (p * depth + v) * inner + i, vals, 1);
        }
    return OE_OK;
}

static int k_compress(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *cond = oe_in_tensor(c, 1);
    if (!a || !cond || cond->rank != 1) return oe_fail(c, "expects data and a 1-D condition");
    Onnx__AttributeProto *axa = oe_attr(c, "axis");
    bool flat = !axa;
    int64_t axis = 0;
    if (!flat && oe_norm_axis(axa->i, a->rank, &axis)) return oe_fail(c, "bad axis");
    int64_t d = flat ? a->numel : a->dims[axis], keep = 0;
    int64_t lim = cond->numel < d ? cond->numel : d;
    for (int64_t i = 0; i < lim; i++) keep += ot_get_i(cond, i) != 0;
    int64_t dims[OE_MAX_RANK];
    memcpy(dims, a->dims, sizeof dims);
    if (flat) dims[0] = keep;
    else dims[axis] = keep;
    if (oe_out(c, 0, a->dtype, dims, flat ? 1 : a->rank)) return OE_ERROR;
    int64_t outer = flat ? 1 : ot_numel_of(a->dims, (int)axis);
    int64_t inner = flat ? 1 : ot_numel_of(a->dims + axis + 1, a->rank - (int)axis - 1), o = 0;
    for (int64_t p = 0; p < outer; p++)
        for (int64_t i = 0; i < lim; i++)
            if (ot_get_i(cond, i))
                for (int64_t j = 0; j < inner; j++) oe_copy_elem(&c->out[0], o++, a, (p * d + i) * inner + j);
    return OE_OK;
}

static int k_nonzero(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    int64_t nz = 0;
    for (int64_t i = 0; i < a->numel; i++) nz += ot_get_f(a, i) != 0;
    int64_t dims[2] = {a->rank, nz};
    if (oe_out(c, 0, T_INT64, dims, 2)) return OE_ERROR;
    int64_t idx[OE_MAX_RANK] = {0}, k = 0;
    for (int64_t i = 0; i < a->numel; i++) {
        if (ot_get_f(a, i) != 0) {
            for (int d = 0; d < a->rank; d++) ot_set_i(&c->out[0], d * nz + k, idx[d]);
            k++;
        }
        for (int d = a->rank - 1; d >= 0; d--) {
            if (++idx[d] < a->dims[d]) break;
            idx[d] = 0;
        }
    }
    return OE_OK;
}

/* ---- Unique ------------------------------------------------------------------------------------- */

typedef struct uniq_ctx {
    const oe_tensor *a;
    int64_t outer, n, inner;   /* slices along the axis: n of them, each outer × inner elements */
} uniq_ctx;

static uniq_ctx *g_uniq;   /* qsort has no context argument */

static int cmp_slices(int64_t x, int64_t y)
{
    const uniq_ctx *u = g_uniq;
    for (int64_t p = 0; p < u->outer; p++)
        for (int64_t j = 0; j < u->inner; j++) {
            double a = ot_get_f(u->a, (p * u->n + x) * u->inner + j), b = ot_get_f(u->a, (p * u->n + y) * u->inner + j);
            if (a != b) return a < b ? -1 : 1;
        }
    return 0;
}

static int cmp_slice_idx(const void *pa, const void *pb)
{
    int64_t x = *(const int64_t *)pa, y = *(const int64_t *)pb;
    int r = cmp_slices(x, y);
    return r ? r : (x < y ? -1 : x > y);
}

/* Equal slices along the axis (or equal elements) form groups; each group's first occurrence,
 * its position in the output (sorted, or by first occurrence) and its count are the outputs. */
static int k_unique(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    Onnx__AttributeProto *axa = oe_attr(c, "axis");
    int64_t axis = 0;
    if (axa && oe_norm_axis(axa->i, a->rank, &axis)) return oe_fail(c, "bad axis");
    bool sorted = oe_attr_i(c, "sorted", 1) != 0;
    uniq_ctx u = {a, 1, axa ? a->dims[axis] : a->numel, 1};
    if (axa) {
        u.outer = ot_numel_of(a->dims, (int)axis);
        u.inner = ot_numel_of(a->dims + axis + 1, a->rank - (int)axis - 1);
    }
    g_uniq = &u;
    int64_t n = u.n, *order = xmalloc(oe_cnt(n) * sizeof *order);
    int64_t *group = xmalloc(oe_cnt(n) * sizeof *group), *first = xmalloc(oe_cnt(n) * sizeof *first);
    for (int64_t i = 0; i < n; i++) order[i] = i;
    qsort(order, (size_t)n, sizeof *order, cmp_slice_idx);
    int64_t ng = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i == 0 || cmp_slices(order[i - 1], order[i])) first[ng++] = order[i];
        group[order[i]] = ng - 1;
    }
    /* rank[g]: position of group g in the output (sorted order, or by first occurrence) */
    int64_t *pos = xmalloc(oe_cnt(ng) * sizeof *pos), *count = xcalloc(oe_cnt(ng), sizeof *count);
    for (int64_t g = 0; g < ng; g++) pos[g] = g;
    if (!sorted) {
        int64_t *by_first = xmalloc(oe_cnt(ng) * sizeof *by_first), k = 0;
        for (int64_t i = 0; i < n; i++)
            if (first[group[i]] == i) by_first[k++] = group[i];
        for (int64_t j = 0; j < ng; j++) pos[by_first[j]] = j;
        free(by_first);
    }
    for (int64_t i = 0; i < n; i++) count[group[i]]++;
    int64_t dims[OE_MAX_RANK];
    memcpy(dims, a->dims, sizeof dims);
    dims[axa ? axis : 0] = ng;
    int rc = oe_out(c, 0, a->dtype, dims, axa ? a->rank : 1);
    for (size_t k = 1; rc == OE_OK && k < c->nout && k < 4; k++) rc = oe_out(c, k, T_INT64, k == 2 ? &n : &ng, 1);
    for (int64_t g = 0; rc == OE_OK && g < ng; g++) {
        int64_t p = pos[g];
        for (int64_t o = 0; o < u.outer; o++)
            for (int64_t j = 0; j < u.inner; j++)
                oe_copy_elem(&c->out[0], (o * ng + p) * u.inner + j, a, (o * n + first[g]) * u.inner + j);
        if (c->nout > 1 && c->out[1].data) ot_set_i(&c->out[1], p, first[g]);
        if (c->nout > 3 && c->out[3].data) ot_set_i(&c->out[3], p, count[g]);
    }
    for (int64_t i = 0; rc == OE_OK && c->nout > 2 && c->out[2].data && i < n; i++) ot_set_i(&c->out[2], i, pos[group[i]]);
    free(order);
    free(group);
    free(first);
    free(pos);
    free(count);
    return rc;
}

static int k_reverse_sequence(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *lens = oe_in_tensor(c, 1);
    int64_t ba = oe_attr_i(c, "batch_axis", 1), ta = oe_attr_i(c, "time_axis", 0);
    if (!a || !lens || a->rank < 2 || (ba != 0 && ba != 1) || (ta != 0 && ta != 1) || ba == ta)
        return oe_fail(c, "expects a tensor of rank >= 2 and batch/time axes 0 and 1");
    if (lens->numel != a->dims[ba]) return oe_fail(c, "sequence_lens must have one entry per batch");
    ot_tensor_copy(&c->out[0], a);
    int64_t inner = ot_numel_of(a->dims + 2, a->rank - 2);
    for (int64_t b = 0; b < a->dims[ba]; b++) {
        int64_t len = ot_get_i(lens, b);
        if (len > a->dims[ta]) len = a->dims[ta];
        for (int64_t t = 0; t < len; t++) {
            int64_t src = t, dst = len - 1 - t;
            int64_t so = ta == 0 ? src * a->dims[1] + b : b * a->dims[1] + src;
            int64_t dO = ta == 0 ? dst * a->dims[1] + b : b * a->dims[1] + dst;
            for (int64_t j = 0; j < inner; j++) oe_copy_elem(&c->out[0], dO * inner + j, a, so * inner + j);
        }
    }
    return OE_OK;
}

/* ---- NonMaxSuppression --------------------------------------------------------------------------- */

typedef struct nms_box {
    double y1, x1, y2, x2, area;
} nms_box;

static nms_box box_at(const oe_tensor *b, int64_t i, bool center)
{
    double v[4];
    for (int k = 0; k < 4; k++) v[k] = ot_get_f(b, i * 4 + k);
    nms_box r;
    if (center) {
        r.x1 = v[0] - v[2] / 2, r.x2 = v[0] + v[2] / 2, r.y1 = v[1] - v[3] / 2, r.y2 = v[1] + v[3] / 2;
    } else {
        r.y1 = fmin(v[0], v[2]), r.y2 = fmax(v[0], v[2]), r.x1 = fmin(v[1], v[3]), r.x2 = fmax(v[1], v[3]);
    }
    r.area = (r.x2 - r.x1) * (r.y2 - r.y1);
    return r;
}

static double iou(const nms_box *a, const nms_box *b)
{
    double w = fmin(a->x2, b->x2) - fmax(a->x1, b->x1), h = fmin(a->y2, b->y2) - fmax(a->y1, b->y1);
    if (w <= 0 || h <= 0 || a->area <= 0 || b->area <= 0) return 0;
    return w * h / (a->area + b->area - w * h);
}

typedef struct scored {
    double s;
    int64_t i;
} scored;

static int cmp_scored(const void *pa, const void *pb)
{
    const scored *a = pa, *b = pb;
    if (a->s != b->s) return a->s > b->s ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Greedy selection per batch and class: highest score first, dropping boxes whose IoU with a
 * kept one exceeds the threshold, at most max_output_boxes_per_class of them. */
static int k_nms(ectx *c)
{
    const oe_tensor *boxes = oe_in_tensor(c, 0), *scores = oe_in_tensor(c, 1), *mx = oe_in_tensor(c, 2);
    const oe_tensor *it = oe_in_tensor(c, 3), *st = oe_in_tensor(c, 4);
    if (!boxes || !scores || boxes->rank != 3 || boxes->dims[2] != 4 || scores->rank != 3 ||
        scores->dims[0] != boxes->dims[0] || scores->dims[2] != boxes->dims[1])
        return oe_fail(c, "expects boxes [batches, boxes, 4] and scores [batches, classes, boxes]");
    int64_t max_out = mx && mx->numel ? ot_get_i(mx, 0) : 0, B = boxes->dims[0], C = scores->dims[1], N = boxes->dims[1];
    double iou_t = it && it->numel ? ot_get_f(it, 0) : 0, score_t = st && st->numel ? ot_get_f(st, 0) : -INFINITY;
    bool center = oe_attr_i(c, "center_point_box", 0) != 0;
    scored *cand = xmalloc(oe_cnt(N) * sizeof *cand);
    nms_box *kept = xmalloc(oe_cnt(N) * sizeof *kept);
    int64_t *sel = NULL, nsel = 0, cap = 0;
    for (int64_t b = 0; b < B; b++)
        for (int64_t k = 0; k < C; k++) {
            int64_t n = 0, nk = 0;
            for (int64_t i = 0; i < N; i++) {
                double s = ot_get_f(scores, (b * C + k) * N + i);
                if (s >= score_t) cand[n++] = (scored){s, i};
            }
            qsort(cand, (size_t)n, sizeof *cand, cmp_scored);
            for (int64_t j = 0; j < n && nk < max_out; j++) {
                nms_box bx = box_at(boxes, b * N + cand[j].i, center);
                bool drop = false;
                for (int64_t q = 0; q < nk && !drop; q++) drop = iou(&bx, &kept[q]) > iou_t;
                if (drop) continue;
                kept[nk++] = bx;
                if (nsel == cap) sel = xrealloc(sel, (size_t)(cap = cap ? 2 * cap : 16) * 3 * sizeof *sel);
                sel[nsel * 3] = b, sel[nsel * 3 + 1] = k, sel[nsel * 3 + 2] = cand[j].i;
                nsel++;
            }
        }
    int64_t dims[2] = {nsel, 3};
    int rc = oe_out(c, 0, T_INT64, dims, 2);
    for (int64_t i = 0; rc == OE_OK && i < nsel * 3; i++) ot_set_i(&c->out[0], i, sel[i]);
    free(cand);
    free(kept);
    free(sel);
    return rc;
}

const oe_op_def oe_ops_index[] = {
    {"Gather", k_gather, 0, true}, {"GatherElements", k_gather_elements, 0, false},
    {"GatherND", k_gather_nd, 0, false}, {"ScatterElements", k_scatter_elements, 0, false},
    {"Scatter", k_scatter_elements, 0, false}, {"ScatterND", k_scatter_nd, 0, false},
    {"OneHot", k_onehot, 0, false}, {"Compress", k_compress, 0, false}, {"NonZero", k_nonzero, 0, false},
    {"Unique", k_unique, 0, false}, {"ReverseSequence", k_reverse_sequence, 0, false},
    {"NonMaxSuppression", k_nms, 0, false},
    {NULL, NULL, 0, false},
};
