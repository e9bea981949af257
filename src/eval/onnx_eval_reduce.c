/* onnx_eval_reduce.c — kernels that reduce or scan along axes: Reduce*, ArgMax/ArgMin, CumSum,
 * Softmax/LogSoftmax/Hardmax, TopK, LpNormalization, MeanVarianceNormalization. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

enum { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD, R_L1, R_L2, R_LOGSUM, R_LOGSUMEXP, R_SUMSQ };

/* Reduces a over the axes marked in red[] into acc[onum] (doubles), where the output has the
 * input's shape with reduced axes of size 1 (kd). */
static void reduce_into(const oe_tensor *a, const bool *red, int op, double *acc, int64_t onum)
{
    int64_t kd[OE_MAX_RANK], kst[OE_MAX_RANK], idx[OE_MAX_RANK] = {0};
    for (int i = 0; i < a->rank; i++) kd[i] = red[i] ? 1 : a->dims[i];
    ot_strides(kd, a->rank, kst);
    double init = op == R_PROD ? 1 : op == R_MAX ? -INFINITY : op == R_MIN ? INFINITY : 0;
    for (int64_t o = 0; o < onum; o++) acc[o] = init;
    double *mx = NULL;
    if (op == R_LOGSUMEXP) {
        /* log(sum(exp(x))) computed as max + log(sum(exp(x - max))) */
        mx = xmalloc(oe_cnt(onum) * sizeof *mx);
        reduce_into(a, red, R_MAX, mx, onum);
    }
    int64_t o = 0;
    for (int64_t i = 0; i < a->numel; i++) {
        double x = ot_get_f(a, i);
        switch (op) {
        case R_SUM: case R_MEAN: case R_LOGSUM: acc[o] += x; break;
        case R_PROD: acc[o] *= x; break;
        case R_MAX: acc[o] = (x > acc[o] || x != x) ? x : acc[o]; break;
        case R_MIN: acc[o] = (x < acc[o] || x != x) ? x : acc[o]; break;
        case R_L1: acc[o] += fabs(x); break;
        case R_L2: case R_SUMSQ: acc[o] += x * x; break;
        case R_LOGSUMEXP: acc[o] += isinf(mx[o]) ? exp(x) : exp(x - mx[o]); break;
        }
        for (int k = a->rank - 1; k >= 0; k--) {
            if (!red[k]) o += kst[k];
            if (++idx[k] < a->dims[k]) break;
            if (!red[k]) o -= kst[k] * idx[k];
            idx[k] = 0;
        }
    }
    int64_t count = onum ? a->numel / onum : 0;
    for (o = 0; o < onum; o++) {
        if (op == R_MEAN) acc[o] = count ? acc[o] / (double)count : NAN;
        else if (op == R_L2) acc[o] = sqrt(acc[o]);
        else if (op == R_LOGSUM) acc[o] = log(acc[o]);
        else if (op == R_LOGSUMEXP) acc[o] = isinf(mx[o]) ? log(acc[o]) : mx[o] + log(acc[o]);
    }
    free(mx);
}

/* Which axes a Reduce* node reduces; *noop when it must return its input unchanged. */
static int reduced_axes(ectx *c, const oe_tensor *a, bool *red, bool *noop)
{
    int64_t axes[OE_MAX_RANK], n;
    bool given;
    *noop = false;
    memset(red, 0, sizeof(bool) * OE_MAX_RANK);
    if (oe_get_axes(c, 1, axes, &n, &given)) return oe_fail(c, "bad axes");
    if (n == 0) {
        if (oe_attr_i(c, "noop_with_empty_axes", 0)) {
            *noop = true;
            return OE_OK;
        }
        for (int i = 0; i < a->rank; i++) red[i] = true;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t x;
        if (oe_norm_axis(axes[i], a->rank, &x)) return oe_fail(c, "axis %lld out of range", (long long)axes[i]);
        red[x] = true;
    }
    return OE_OK;
}

static int k_reduce(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    if (a->dtype == T_BOOL) return oe_fail(c, "reduction of a bool tensor");
    bool red[OE_MAX_RANK], noop;
    if (reduced_axes(c, a, red, &noop)) return OE_ERROR;
    if (noop) {
        ot_tensor_copy(&c->out[0], a);
        return OE_OK;
    }
    bool keep = oe_attr_i(c, "keepdims", 1) != 0;
    int64_t dims[OE_MAX_RANK];
    int r = 0;
    for (int i = 0; i < a->rank; i++)
        if (!red[i] || keep) dims[r++] = red[i] ? 1 : a->dims[i];
    if (oe_out(c, 0, a->dtype, dims, r)) return OE_ERROR;
    int64_t onum = c->out[0].numel;
    double *acc = xmalloc(oe_cnt(onum) * sizeof *acc);
    reduce_into(a, red, c->arg, acc, onum);
    if (!oe_is_float(a->dtype) && (c->arg == R_MAX || c->arg == R_MIN) && a->numel == 0)
        for (int64_t o = 0; o < onum; o++) acc[o] = c->arg == R_MAX ? -9.2e18 : 9.2e18;
    ot_store_doubles(&c->out[0], acc);
    free(acc);
    return OE_OK;
}

/* outer × n × inner view of a tensor around one axis. */
typedef struct axis_view {
    int64_t outer, n, inner;
} axis_view;

static axis_view view_around(const oe_tensor *a, int64_t axis, bool coerce_2d)
{
    axis_view v = {1, 1, 1};
    for (int i = 0; i < a->rank; i++) {
        if (i < axis) v.outer *= a->dims[i];
        else if (i == axis || coerce_2d) v.n *= a->dims[i];
        else v.inner *= a->dims[i];
    }
    return v;
}

static int k_argmax(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    int64_t axis;
    if (oe_norm_axis(oe_attr_i(c, "axis", 0), a->rank, &axis)) return oe_fail(c, "bad axis");
    bool keep = oe_attr_i(c, "keepdims", 1) != 0, last = oe_attr_i(c, "select_last_index", 0) != 0;
    int64_t dims[OE_MAX_RANK];
    int r = 0;
    for (int i = 0; i < a->rank; i++)
        if (i != axis || keep) dims[r++] = i == axis ? 1 : a->dims[i];
    if (a->dims[axis] == 0) return oe_fail(c, "argmax of an empty axis");
    if (oe_out(c, 0, T_INT64, dims, r)) return OE_ERROR;
    axis_view v = view_around(a, axis, false);
    bool is_max = c->arg == 0;
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++) {
            int64_t best = 0;
            double bv = ot_get_f(a, o * v.n * v.inner + i);
            for (int64_t k = 1; k < v.n; k++) {
                double x = ot_get_f(a, (o * v.n + k) * v.inner + i);
                bool better = is_max ? (x > bv || (last && x == bv)) : (x < bv || (last && x == bv));
                if (better) {
                    bv = x;
                    best = k;
                }
            }
            ot_set_i(&c->out[0], o * v.inner + i, best);
        }
    return OE_OK;
}

static int k_cumsum(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *ax = oe_in_tensor(c, 1);
    if (!a || !ax || ax->numel != 1 || oe_is_float(ax->dtype)) return oe_fail(c, "bad inputs");
    int64_t axis;
    if (oe_norm_axis(ot_get_i(ax, 0), a->rank, &axis)) return oe_fail(c, "bad axis");
    bool excl = oe_attr_i(c, "exclusive", 0) != 0, rev = oe_attr_i(c, "reverse", 0) != 0;
    if (oe_out(c, 0, a->dtype, a->dims, a->rank)) return OE_ERROR;
    axis_view v = view_around(a, axis, false);
    bool fl = oe_is_float(a->dtype);
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++) {
            double s = 0;
            int64_t si = 0;
            for (int64_t j = 0; j < v.n; j++) {
                int64_t k = rev ? v.n - 1 - j : j, off = (o * v.n + k) * v.inner + i;
                if (excl) {
                    if (fl) ot_set_f(&c->out[0], off, s);
                    else ot_set_i(&c->out[0], off, si);
                }
                if (fl) s += ot_get_f(a, off);
                else si += ot_get_i(a, off);
                if (!excl) {
                    if (fl) ot_set_f(&c->out[0], off, s);
                    else ot_set_i(&c->out[0], off, si);
                }
            }
        }
    return OE_OK;
}

enum { SM_SOFTMAX, SM_LOG, SM_HARD };

static int k_softmax(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a || !oe_is_float(a->dtype)) return oe_fail(c, "expects a floating-point input");
    bool old = c->opset < 13;
    int64_t axis;
    if (oe_norm_axis(oe_attr_i(c, "axis", old ? 1 : -1), a->rank ? a->rank : 1, &axis))
        return oe_fail(c, "bad axis");
    if (oe_out(c, 0, a->dtype, a->dims, a->rank)) return OE_ERROR;
    axis_view v = view_around(a, axis, old);
    double *x = ot_doubles(a), *y = xcalloc(oe_cnt(a->numel), sizeof *y);
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++) {
            int64_t base = o * v.n * v.inner + i, arg = 0;
            double mx = -INFINITY, s = 0;
            for (int64_t k = 0; k < v.n; k++)
                if (x[base + k * v.inner] > mx) {
                    mx = x[base + k * v.inner];
                    arg = k;
                }
            if (c->arg == SM_HARD) {
                if (v.n) y[base + arg * v.inner] = 1;
                continue;
            }
            for (int64_t k = 0; k < v.n; k++) s += exp(x[base + k * v.inner] - mx);
            for (int64_t k = 0; k < v.n; k++) {
                double d = x[base + k * v.inner] - mx;
                y[base + k * v.inner] = c->arg == SM_LOG ? d - log(s) : exp(d) / s;
            }
        }
    ot_store_doubles(&c->out[0], y);
    free(x);
    free(y);
    return OE_OK;
}

typedef struct kv {
    double v;
    int64_t i;
} kv;

static int cmp_desc(const void *pa, const void *pb)
{
    const kv *a = pa, *b = pb;
    if (a->v != b->v) return a->v > b->v ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static int cmp_asc(const void *pa, const void *pb)
{
    const kv *a = pa, *b = pb;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static int k_topk(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    int64_t k;
    if (c->opset < 10) {
        k = oe_attr_i(c, "k", -1);
    } else {
        const oe_tensor *kt = oe_in_tensor(c, 1);
        if (!kt || kt->numel != 1) return oe_fail(c, "k must hold one value");
        k = ot_get_i(kt, 0);
    }
    int64_t axis;
    if (oe_norm_axis(oe_attr_i(c, "axis", -1), a->rank, &axis)) return oe_fail(c, "bad axis");
    if (k < 0 || k > a->dims[axis]) return oe_fail(c, "k = %lld is out of range", (long long)k);
    bool largest = oe_attr_i(c, "largest", 1) != 0;
    int64_t dims[OE_MAX_RANK];
    memcpy(dims, a->dims, sizeof dims);
    dims[axis] = k;
    if (oe_out(c, 0, a->dtype, dims, a->rank) || oe_out(c, 1, T_INT64, dims, a->rank)) return OE_ERROR;
    axis_view v = view_around(a, axis, false);
    kv *buf = xmalloc(oe_cnt(v.n) * sizeof *buf);
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++) {
            for (int64_t j = 0; j < v.n; j++) buf[j] = (kv){ot_get_f(a, (o * v.n + j) * v.inner + i), j};
            qsort(buf, (size_t)v.n, sizeof *buf, largest ? cmp_desc : cmp_asc);
            for (int64_t j = 0; j < k; j++) {
                int64_t off = (o * k + j) * v.inner + i;
                oe_copy_elem(&c->out[0], off, a, (o * v.n + buf[j].i) * v.inner + i);
                ot_set_i(&c->out[1], off, buf[j].i);
            }
        }
    free(buf);
    return OE_OK;
}

static int k_lpnorm(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a || !oe_is_float(a->dtype)) return oe_fail(c, "expects a floating-point input");
    int64_t axis, p = oe_attr_i(c, "p", 2);
    if (oe_norm_axis(oe_attr_i(c, "axis", -1), a->rank, &axis)) return oe_fail(c, "bad axis");
    if (p != 1 && p != 2) return oe_fail(c, "p must be 1 or 2");
    if (oe_out(c, 0, a->dtype, a->dims, a->rank)) return OE_ERROR;
    axis_view v = view_around(a, axis, false);
    for (int64_t o = 0; o < v.outer; o++)
        for (int64_t i = 0; i < v.inner; i++) {
            double s = 0;
            for (int64_t k = 0; k < v.n; k++) {
                double x = ot_get_f(a, (o * v.n + k) * v.inner + i);
                s += p == 1 ? fabs(x) : x * x;
            }
            if (p == 2) s = sqrt(s);
            for (int64_t k = 0; k < v.n; k++) {
                int64_t off = (o * v.n + k) * v.inner + i;
                ot_set_f(&c->out[0], off, s == 0 ? 0 : ot_get_f(a, off) / s);
            }
        }
    return OE_OK;
}

static int k_mvn(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a || !oe_is_float(a->dtype)) return oe_fail(c, "expects a floating-point input");
    int64_t axes[OE_MAX_RANK] = {0, 2, 3}, n = oe_attr_ints(c, "axes", axes, OE_MAX_RANK);
    if (n < 0) n = 3;
    bool red[OE_MAX_RANK] = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t x;
        if (oe_norm_axis(axes[i], a->rank, &x)) return oe_fail(c, "bad axes");
        red[x] = true;
    }
    int64_t kd[OE_MAX_RANK], kst[OE_MAX_RANK], idx[OE_MAX_RANK] = {0};
    for (int i = 0; i < a->rank; i++) kd[i] = red[i] ? 1 : a->dims[i];
    int64_t onum = ot_numel_of(kd, a->rank);
    ot_strides(kd, a->rank, kst);
    double *mean = xmalloc(oe_cnt(onum) * sizeof *mean);
    double *sq = xmalloc(oe_cnt(onum) * sizeof *sq);
    reduce_into(a, red, R_MEAN, mean, onum);
    reduce_into(a, red, R_SUMSQ, sq, onum);
    int64_t count = onum ? a->numel / onum : 1;
    if (oe_out(c, 0, a->dtype, a->dims, a->rank)) {
        free(mean);
        free(sq);
        return OE_ERROR;
    }
    for (int64_t i = 0; i < a->numel; i++) {
        int64_t o = 0;
        for (int k = 0; k < a->rank; k++)
            if (!red[k]) o += idx[k] * kst[k];
        double sd = sqrt(sq[o] / (double)count - mean[o] * mean[o]);
        ot_set_f(&c->out[0], i, (ot_get_f(a, i) - mean[o]) / (sd + 1e-9));
        for (int k = a->rank - 1; k >= 0; k--) {
            if (++idx[k] < a->dims[k]) break;
            idx[k] = 0;
        }
    }
    free(mean);
    free(sq);
    return OE_OK;
}

const oe_op_def oe_ops_reduce[] = {
    {"ReduceSum", k_reduce, R_SUM, true}, {"ReduceMean", k_reduce, R_MEAN, true},
    {"ReduceMax", k_reduce, R_MAX, true}, {"ReduceMin", k_reduce, R_MIN, true},
    {"ReduceProd", k_reduce, R_PROD, true}, {"ReduceL1", k_reduce, R_L1, false},
    {"ReduceL2", k_reduce, R_L2, false}, {"ReduceLogSum", k_reduce, R_LOGSUM, false},
    {"ReduceLogSumExp", k_reduce, R_LOGSUMEXP, false}, {"ReduceSumSquare", k_reduce, R_SUMSQ, false},
    {"ArgMax", k_argmax, 0, false}, {"ArgMin", k_argmax, 1, false}, {"CumSum", k_cumsum, 0, false},
    {"Softmax", k_softmax, SM_SOFTMAX, false}, {"LogSoftmax", k_softmax, SM_LOG, false},
    {"Hardmax", k_softmax, SM_HARD, false}, {"TopK", k_topk, 0, false},
    {"LpNormalization", k_lpnorm, 0, false}, {"MeanVarianceNormalization", k_mvn, 0, false},
    {NULL, NULL, 0, false},
};
