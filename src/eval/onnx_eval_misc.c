/* onnx_eval_misc.c — kernels outside the other families: quantization (QuantizeLinear,
 * DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul), the losses
 * (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss), TfIdfVectorizer (integer pools) and the
 * training optimizers of ai.onnx.preview.training (Adagrad, Momentum, Adam). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

/* ---- quantization ------------------------------------------------------------------------------- */

static double saturate(int dtype, double v)
{
    double lo = 0, hi = 0;
    switch (dtype) {
    case T_UINT8: lo = 0; hi = 255; break;
    case T_INT8: lo = -128; hi = 127; break;
    case T_UINT16: lo = 0; hi = 65535; break;
    case T_INT16: lo = -32768; hi = 32767; break;
    case T_INT32: lo = -2147483648.0; hi = 2147483647.0; break;
    default: return v;
    }
    return v < lo ? lo : v > hi ? hi : v;
}

/* Index of the scale / zero point for element i: per tensor, or per slice of `axis`. */
static int64_t param_index(const oe_tensor *x, const oe_tensor *scale, int64_t axis, int64_t i)
{
    if (scale->numel <= 1) return 0;
    int64_t inner = ot_numel_of(x->dims + axis + 1, x->rank - (int)axis - 1);
    return (i / inner) % x->dims[axis];
}

static int quant_params(ectx *c, const oe_tensor *x, const oe_tensor *scale, const oe_tensor *zp, int64_t *axis)
{
    if (!x || !scale) return oe_fail(c, "missing input");
    if (scale->numel > 1) {
        if (oe_norm_axis(oe_attr_i(c, "axis", 1), x->rank, axis) || scale->rank != 1 || scale->numel != x->dims[*axis])
            return oe_fail(c, "a per-axis scale must have one value per slice of the axis");
    }
    if (zp && zp->numel != scale->numel) return oe_fail(c, "the zero point must match the scale");
    return OE_OK;
}

static int k_quantize(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *scale = oe_in_tensor(c, 1), *zp = oe_in_tensor(c, 2);
    int64_t axis = 0;
    if (quant_params(c, x, scale, zp, &axis)) return OE_ERROR;
    int odt = zp ? zp->dtype : T_UINT8;
    if (odt != T_UINT8 && odt != T_INT8 && odt != T_UINT16 && odt != T_INT16 && odt != T_INT32) return OE_UNSUPPORTED;
    if (oe_out(c, 0, odt, x->dims, x->rank)) return OE_ERROR;
    for (int64_t i = 0; i < x->numel; i++) {
        int64_t k = param_index(x, scale, axis, i);
        /* the quotient in x's own type, as numpy divides, then round half to even */
        double v = nearbyint(ot_round_to(x->dtype, ot_get_f(x, i) / ot_get_f(scale, k))) + (zp ? ot_get_f(zp, k) : 0);
        ot_set_f(&c->out[0], i, saturate(odt, v));
    }
    return OE_OK;
}

static int k_dequantize(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *scale = oe_in_tensor(c, 1), *zp = oe_in_tensor(c, 2);
    int64_t axis = 0;
    if (quant_params(c, x, scale, zp, &axis)) return OE_ERROR;
    if (oe_out(c, 0, scale->dtype, x->dims, x->rank)) return OE_ERROR;
    for (int64_t i = 0; i < x->numel; i++) {
        int64_t k = param_index(x, scale, axis, i);
        ot_set_f(&c->out[0], i, (ot_get_f(x, i) - (zp ? ot_get_f(zp, k) : 0)) * ot_get_f(scale, k));
    }
    return OE_OK;
}

static int k_dynamic_quantize(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0);
    if (!x || !oe_is_float(x->dtype)) return oe_fail(c, "expects a floating-point input");
    double mn = 0, mx = 0;
    for (int64_t i = 0; i < x->numel; i++) {
        double v = ot_get_f(x, i);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    double scale = (float)((float)(mx - mn) / 255.0f);
    double zp = scale ? saturate(T_UINT8, nearbyint((float)(0 - (float)(mn / scale)))) : 0;
    if (oe_out(c, 0, T_UINT8, x->dims, x->rank) || oe_out(c, 1, T_FLOAT, NULL, 0) || oe_out(c, 2, T_UINT8, NULL, 0))
        return OE_ERROR;
    for (int64_t i = 0; i < x->numel; i++)
        ot_set_f(&c->out[0], i, scale ? saturate(T_UINT8, nearbyint((float)(ot_get_f(x, i) / scale)) + zp) : zp);
    ot_set_f(&c->out[1], 0, scale);
    ot_set_f(&c->out[2], 0, zp);
    return OE_OK;
}

static double scalar_or(const oe_tensor *t, double dflt)
{
    return t && t->numel >= 1 ? ot_get_f(t, 0) : dflt;
}

static int k_matmul_integer(ectx *c)
{
    const oe_tensor *az = oe_in_tensor(c, 2), *bz = oe_in_tensor(c, 3);
    if ((az && az->numel > 1) || (bz && bz->numel > 1)) return OE_UNSUPPORTED;
    double *z;
    int64_t dims[OE_MAX_RANK];
    int rank;
    int rc = oe_matmul_doubles(c, oe_in_tensor(c, 0), oe_in_tensor(c, 1), scalar_or(az, 0), scalar_or(bz, 0), &z, dims, &rank);
    if (rc) return rc;
    rc = oe_out(c, 0, T_INT32, dims, rank);
    if (rc == OE_OK) ot_store_doubles(&c->out[0], z);
    free(z);
    return rc;
}

static int k_qlinear_matmul(ectx *c)
{
    const oe_tensor *as = oe_in_tensor(c, 1), *az = oe_in_tensor(c, 2), *bs = oe_in_tensor(c, 4), *bz = oe_in_tensor(c, 5);
    const oe_tensor *ys = oe_in_tensor(c, 6), *yz = oe_in_tensor(c, 7);
    if (!as || !bs || !ys || as->numel != 1 || bs->numel != 1 || ys->numel != 1 || (bz && bz->numel > 1)) return OE_UNSUPPORTED;
    double *z;
    int64_t dims[OE_MAX_RANK];
    int rank;
    int rc = oe_matmul_doubles(c, oe_in_tensor(c, 0), oe_in_tensor(c, 3), scalar_or(az, 0), scalar_or(bz, 0), &z, dims, &rank);
    if (rc) return rc;
    int odt = yz ? yz->dtype : T_UINT8;
    rc = oe_out(c, 0, odt, dims, rank);
    double f = ot_get_f(as, 0) * ot_get_f(bs, 0) / ot_get_f(ys, 0);
    for (int64_t i = 0; rc == OE_OK && i < c->out[0].numel; i++)
        ot_set_f(&c->out[0], i, saturate(odt, nearbyint(z[i] * f) + scalar_or(yz, 0)));
    free(z);
    return rc;
}

/* ---- losses ------------------------------------------------------------------------------------- */

/* NLL of log-probabilities lp [N, C, D...] (as doubles) for targets [N, D...]; writes the loss
 * (reduced or per element) to output 0. */
static int nll(ectx *c, const double *lp, const oe_tensor *shape_src, const oe_tensor *target, const oe_tensor *weight)
{
    if (!target || shape_src->rank < 2 || target->rank != shape_src->rank - 1 || target->dims[0] != shape_src->dims[0])
        return oe_fail(c, "expects input [N, C, ...] and target [N, ...]");
    char rbuf[16];
    const char *red = oe_attr_s(c, "reduction", "mean", rbuf, sizeof rbuf);
    Onnx__AttributeProto *ia = oe_attr(c, "ignore_index");
    bool has_ignore = ia != NULL;
    int64_t ignore = has_ignore ? ia->i : 0, N = shape_src->dims[0], C = shape_src->dims[1];
    int64_t D = ot_numel_of(shape_src->dims + 2, shape_src->rank - 2);
    double *loss = xcalloc(oe_cnt(N * D), sizeof *loss), sum = 0, wsum = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t d = 0; d < D; d++) {
            int64_t t = ot_get_i(target, n * D + d);
            if (has_ignore && t == ignore) continue;
            if (t < 0 || t >= C) {
                free(loss);
                return oe_fail(c, "target %lld is out of range for %lld classes", (long long)t, (long long)C);
            }
            double w = weight ? ot_get_f(weight, t) : 1;
            loss[n * D + d] = -lp[(n * C + t) * D + d] * w;
            sum += loss[n * D + d];
            wsum += w;
        }
    int rc;
    if (!strcmp(red, "none")) {
        rc = oe_out(c, 0, shape_src->dtype, target->dims, target->rank);
        if (rc == OE_OK) ot_store_doubles(&c->out[0], loss);
    } else {
        rc = oe_out(c, 0, shape_src->dtype, NULL, 0);
        double v = !strcmp(red, "sum") ? sum : (weight || has_ignore) ? sum / wsum : sum / (double)(N * D);
        if (rc == OE_OK) ot_set_f(&c->out[0], 0, v);
    }
    free(loss);
    return rc;
}

static int k_nll_loss(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0);
    if (!x || !oe_is_float(x->dtype)) return oe_fail(c, "expects floating-point input");
    double *lp = ot_doubles(x);
    int rc = nll(c, lp, x, oe_in_tensor(c, 1), oe_in_tensor(c, 2));
    free(lp);
    return rc;
}

static int k_softmax_ce_loss(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0);
    if (!x || !oe_is_float(x->dtype) || x->rank < 2) return oe_fail(c, "expects floating-point scores [N, C, ...]");
    int64_t N = x->dims[0], C = x->dims[1], D = ot_numel_of(x->dims + 2, x->rank - 2);
    double *v = ot_doubles(x);
    for (int64_t n = 0; n < N; n++)
        for (int64_t d = 0; d < D; d++) {
            double mx = -INFINITY, s = 0;
            for (int64_t k = 0; k < C; k++) mx = fmax(mx, v[(n * C + k) * D + d]);
            for (int64_t k = 0; k < C; k++) s += exp(v[(n * C + k) * D + d] - mx);
            for (int64_t k = 0; k < C; k++) v[(n * C + k) * D + d] -= mx + log(s);
        }
    int rc = nll(c, v, x, oe_in_tensor(c, 1), oe_in_tensor(c, 2));
    if (rc == OE_OK && c->nout > 1) {
        rc = oe_out(c, 1, x->dtype, x->dims, x->rank);
        if (rc == OE_OK) ot_store_doubles(&c->out[1], v);
    }
    free(v);
    return rc;
}

/* ---- TfIdfVectorizer ------------------------------------------------------------------------------ */

typedef struct tfidf {
    int64_t min_n, max_n, max_skip, ncounts, npool, nidx, out_cols;
    int64_t counts[16], *pool, *idx;
    double *weights;
    int mode;                        /* 0 TF, 1 IDF, 2 TFIDF */
} tfidf;

/* The global index of the n-gram x[start], x[start+step], ... in the pool, or -1. */
static int64_t ngram_index(const tfidf *t, const oe_tensor *x, int64_t row, int64_t start, int64_t step, int64_t n)
{
    if (n - 1 >= t->ncounts) return -1;
    int64_t begin = t->counts[n - 1], end = n < t->ncounts ? t->counts[n] : t->npool, first_id = 0;
    for (int64_t k = 1; k < n; k++) first_id += ((k < t->ncounts ? t->counts[k] : t->npool) - t->counts[k - 1]) / k;
    for (int64_t p = begin, id = first_id; p + n <= end; p += n, id++) {
        bool same = true;
        for (int64_t j = 0; j < n && same; j++) same = ot_get_i(x, row + start + j * step) == t->pool[p + j];
        if (same) return id;
    }
    return -1;
}

static int tfidf_read(ectx *c, tfidf *t)
{
    memset(t, 0, sizeof *t);
    char mode[16];
    oe_attr_s(c, "mode", "TF", mode, sizeof mode);
    t->mode = !strcmp(mode, "IDF") ? 1 : !strcmp(mode, "TFIDF") ? 2 : 0;
    t->min_n = oe_attr_i(c, "min_gram_length", 1);
    t->max_n = oe_attr_i(c, "max_gram_length", 1);
    t->max_skip = oe_attr_i(c, "max_skip_count", 0);
    t->ncounts = oe_attr_ints(c, "ngram_counts", t->counts, 16);
    Onnx__AttributeProto *pa = oe_attr(c, "pool_int64s"), *ia = oe_attr(c, "ngram_indexes"), *wa = oe_attr(c, "weights");
    if (!pa || !ia || t->ncounts < 1 || t->min_n < 1 || t->max_n < t->min_n) return OE_UNSUPPORTED;   /* pool_strings */
    t->pool = pa->ints;
    t->npool = (int64_t)pa->n_ints;
    t->idx = ia->ints;
    t->nidx = (int64_t)ia->n_ints;
    t->weights = NULL;
    for (int64_t i = 0; i < t->nidx; i++) t->out_cols = t->idx[i] + 1 > t->out_cols ? t->idx[i] + 1 : t->out_cols;
    if (wa && wa->n_floats) {
        t->weights = xmalloc(wa->n_floats * sizeof *t->weights);
        for (size_t i = 0; i < wa->n_floats; i++) t->weights[i] = wa->floats[i];
    }
    return OE_OK;
}

static int k_tfidf(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0);
    if (!x || (x->rank != 1 && x->rank != 2) || !oe_is_int(x->dtype)) return OE_UNSUPPORTED;
    tfidf t;
    int rc = tfidf_read(c, &t);
    if (rc) return rc;
    int64_t rows = x->rank == 2 ? x->dims[0] : 1, len = x->dims[x->rank - 1];
    int64_t dims[2] = {rows, t.out_cols};
    rc = x->rank == 2 ? oe_out(c, 0, T_FLOAT, dims, 2) : oe_out(c, 0, T_FLOAT, &t.out_cols, 1);
    for (int64_t r = 0; rc == OE_OK && r < rows; r++)
        for (int64_t n = t.min_n; n <= t.max_n; n++)
            for (int64_t skip = 0; skip <= (n == 1 ? 0 : t.max_skip); skip++)
                for (int64_t s = 0; s + (n - 1) * (skip + 1) < len; s++) {
                    int64_t id = ngram_index(&t, x, r * len, s, skip + 1, n);
                    if (id >= 0 && id < t.nidx) {
                        int64_t o = r * t.out_cols + t.idx[id];
                        ot_set_f(&c->out[0], o, ot_get_f(&c->out[0], o) + 1);
                    }
                }
    for (int64_t r = 0; rc == OE_OK && r < rows; r++)
        for (int64_t id = 0; id < t.nidx; id++) {
            int64_t o = r * t.out_cols + t.idx[id];
            double v = ot_get_f(&c->out[0], o), w = t.weights ? t.weights[id] : 1;
            if (t.mode == 1) v = v > 0 ? w : 0;
            else if (t.mode == 2) v *= w;
            ot_set_f(&c->out[0], o, v);
        }
    free(t.weights);
    return rc;
}

/* ---- training optimizers (ai.onnx.preview.training) --------------------------------------------- */

enum { OPT_ADAGRAD, OPT_MOMENTUM, OPT_ADAM };

/* Inputs R, T, then n of each of X, G and the 1 (Adagrad, Momentum) or 2 (Adam) states; outputs
 * the new X, then the new states, as onnx's reference computes them. */
static int k_optimizer(ectx *c)
{
    int states = c->arg == OPT_ADAM ? 2 : 1;
    size_t n = c->nin >= 2 ? (c->nin - 2) / (size_t)(2 + states) : 0;
    const oe_tensor *R = oe_in_tensor(c, 0), *T = oe_in_tensor(c, 1);
    if (!n || (c->nin - 2) % (size_t)(2 + states) || !R || !T || R->numel != 1 || T->numel != 1 || c->nout != n * (size_t)(1 + states))
        return oe_fail(c, "expects R, T and matching groups of tensors");
    double r = ot_get_f(R, 0), t = (double)ot_get_i(T, 0), norm = oe_attr_f(c, "norm_coefficient", 0);
    double alpha = oe_attr_f(c, "alpha", c->arg == OPT_ADAM ? 0.9 : 0), beta = oe_attr_f(c, "beta", c->arg == OPT_ADAM ? 0.999 : 0);
    double eps = oe_attr_f(c, "epsilon", 0.0), decay = oe_attr_f(c, "decay_factor", 0), post = oe_attr_f(c, "norm_coefficient_post", 0);
    char mode[16];
    bool nesterov = !strcmp(oe_attr_s(c, "mode", "standard", mode, sizeof mode), "nesterov");
    if (c->arg == OPT_ADAGRAD) r /= 1 + t * decay;
    if (c->arg == OPT_ADAM && t > 0) r = r * sqrt(1 - pow(beta, t)) / (1 - pow(alpha, t));
    for (size_t k = 0; k < n; k++) {
        const oe_tensor *x = oe_in_tensor(c, 2 + k), *g = oe_in_tensor(c, 2 + n + k), *v = oe_in_tensor(c, 2 + 2 * n + k);
        const oe_tensor *h = states == 2 ? oe_in_tensor(c, 2 + 3 * n + k) : NULL;
        if (!x || !g || !v || g->numel != x->numel || v->numel != x->numel || (states == 2 && (!h || h->numel != x->numel)))
            return oe_fail(c, "tensor group %zu differs in size", k);
        if (oe_out(c, k, x->dtype, x->dims, x->rank) || oe_out(c, n + k, v->dtype, v->dims, v->rank) ||
            (states == 2 && oe_out(c, 2 * n + k, h->dtype, h->dims, h->rank)))
            return OE_ERROR;
        for (int64_t i = 0; i < x->numel; i++) {
            double xv = ot_get_f(x, i), gr = norm * xv + ot_get_f(g, i), vv = ot_get_f(v, i), nx, nv, nh = 0;
            if (c->arg == OPT_ADAGRAD) {
                nv = vv + gr * gr;
                nx = xv - r * gr / (sqrt(nv) + eps);
            } else if (c->arg == OPT_MOMENTUM) {
                nv = alpha * vv + (t > 0 ? beta : 1) * gr;
                nx = nesterov ? xv - r * (gr + alpha * nv) : xv - r * nv;
            } else {
                nv = alpha * vv + (1 - alpha) * gr;
                nh = beta * ot_get_f(h, i) + (1 - beta) * gr * gr;
                nx = (1 - post) * (xv - r * nv / (sqrt(nh) + eps));
            }
            ot_set_f(&c->out[k], i, nx);
            ot_set_f(&c->out[n + k], i, nv);
            if (states == 2) ot_set_f(&c->out[2 * n + k], i, nh);
        }
    }
    return OE_OK;
}

const oe_op_def oe_ops_misc[] = {
    {"ai.onnx.preview.training.Adagrad", k_optimizer, OPT_ADAGRAD, false},
    {"ai.onnx.preview.training.Momentum", k_optimizer, OPT_MOMENTUM, false},
    {"ai.onnx.preview.training.Adam", k_optimizer, OPT_ADAM, false},
    {"QuantizeLinear", k_quantize, 0, false}, {"DequantizeLinear", k_dequantize, 0, false},
    {"DynamicQuantizeLinear", k_dynamic_quantize, 0, false}, {"MatMulInteger", k_matmul_integer, 0, false},
    {"QLinearMatMul", k_qlinear_matmul, 0, false}, {"NegativeLogLikelihoodLoss", k_nll_loss, 0, false},
    {"SoftmaxCrossEntropyLoss", k_softmax_ce_loss, 0, false}, {"TfIdfVectorizer", k_tfidf, 0, false},
    {NULL, NULL, 0, false},
};
