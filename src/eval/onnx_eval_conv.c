/* onnx_eval_conv.c — sliding-window kernels on N×C×spatial tensors: Conv, ConvTranspose,
 * ConvInteger, QLinearConv, MaxPool, AveragePool, LpPool, the Global pools and MaxUnpool. A window is an
 * index table (kernel offset × position → flat index), so every kernel is a gather and a GEMM. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

enum { MAX_SP = OE_MAX_RANK - 2 };

typedef struct geom {
    int nd;                                    /* spatial dimensions */
    int64_t in[MAX_SP], out[MAX_SP], k[MAX_SP], stride[MAX_SP], dil[MAX_SP], pb[MAX_SP], pe[MAX_SP];
    int64_t K, I, O;                           /* kernel, input and output spatial sizes */
} geom;

/* Reads kernel_shape (or kdims), strides, dilations, pads and auto_pad; the output size is left
 * to the caller. */
static int geom_read(ectx *c, const oe_tensor *x, const int64_t *kdims, geom *g)
{
    memset(g, 0, sizeof *g);
    if (x->rank < 3 || x->rank > OE_MAX_RANK) return oe_fail(c, "expects an N×C×spatial input");
    g->nd = x->rank - 2;
    int64_t n = oe_attr_ints(c, "kernel_shape", g->k, MAX_SP);
    if (n < 0 && kdims) memcpy(g->k, kdims, sizeof(int64_t) * (size_t)g->nd);
    else if (n != g->nd) return oe_fail(c, "kernel_shape must have one entry per spatial dimension");
    int64_t pads[2 * MAX_SP] = {0};
    int64_t np = oe_attr_ints(c, "pads", pads, 2 * MAX_SP);
    if (np >= 0 && np != 2 * g->nd) return oe_fail(c, "pads must have two entries per spatial dimension");
    for (int i = 0; i < g->nd; i++) {
        g->in[i] = x->dims[2 + i];
        g->stride[i] = g->dil[i] = 1;
        g->pb[i] = pads[i];
        g->pe[i] = pads[g->nd + i];
        if (g->k[i] <= 0) return oe_fail(c, "kernel size must be positive");
    }
    if (oe_attr_ints(c, "strides", g->stride, MAX_SP) == -2 || oe_attr_ints(c, "dilations", g->dil, MAX_SP) == -2)
        return oe_fail(c, "bad strides or dilations");
    for (int i = 0; i < g->nd; i++)
        if (g->stride[i] <= 0 || g->dil[i] <= 0) return oe_fail(c, "strides and dilations must be positive");
    g->I = ot_numel_of(g->in, g->nd);
    g->K = ot_numel_of(g->k, g->nd);
    return OE_OK;
}

/* Output size of a forward window (Conv, pools); auto_pad sets the pads. */
static int geom_forward(ectx *c, geom *g, bool ceil_mode)
{
    char ap[16];
    oe_attr_s(c, "auto_pad", "NOTSET", ap, sizeof ap);
    for (int i = 0; i < g->nd; i++) {
        int64_t ek = (g->k[i] - 1) * g->dil[i] + 1;
        if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
            g->out[i] = (g->in[i] + g->stride[i] - 1) / g->stride[i];
            int64_t total = (g->out[i] - 1) * g->stride[i] + ek - g->in[i];
            if (total < 0) total = 0;
            g->pb[i] = !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
            g->pe[i] = total - g->pb[i];
            continue;
        }
        if (!strcmp(ap, "VALID")) g->pb[i] = g->pe[i] = 0;
        else if (strcmp(ap, "NOTSET") && *ap) return oe_fail(c, "unknown auto_pad '%s'", ap);
        int64_t span = g->in[i] + g->pb[i] + g->pe[i] - ek;
        if (span < 0) return oe_fail(c, "the window is larger than the padded input");
        g->out[i] = (ceil_mode ? (span + g->stride[i] - 1) / g->stride[i] : span / g->stride[i]) + 1;
        if (ceil_mode && (g->out[i] - 1) * g->stride[i] >= g->in[i] + g->pb[i]) g->out[i]--;
    }
    g->O = ot_numel_of(g->out, g->nd);
    return OE_OK;
}

/* tab[kk * P + p]: for kernel offset kk and position p of the `from` grid, the flat index in the
 * `to` grid of from * stride + kk * dilation - pad_begin; -1 inside the explicit pads, -2 beyond
 * them (the overhang of ceil_mode). Forward windows map output → input, ConvTranspose input →
 * output. */
static int64_t *window_table(const geom *g, const int64_t *from, const int64_t *to)
{
    int64_t P = ot_numel_of(from, g->nd), *tab = xmalloc(oe_cnt(g->K * P) * sizeof *tab);
    int64_t kk_idx[MAX_SP] = {0};
    for (int64_t kk = 0; kk < g->K; kk++) {
        int64_t p_idx[MAX_SP] = {0};
        for (int64_t p = 0; p < P; p++) {
            int64_t flat = 0, state = 0;
            for (int i = 0; i < g->nd; i++) {
                int64_t t = p_idx[i] * g->stride[i] + kk_idx[i] * g->dil[i] - g->pb[i];
                if (t < 0 || t >= to[i]) {
                    int64_t s = (t < -g->pb[i] || t >= to[i] + g->pe[i]) ? -2 : -1;
                    state = s < state ? s : state;
                }
                flat = flat * to[i] + t;
            }
            tab[kk * P + p] = state ? state : flat;
            for (int i = g->nd - 1; i >= 0; i--) {
                if (++p_idx[i] < from[i]) break;
                p_idx[i] = 0;
            }
        }
        for (int i = g->nd - 1; i >= 0; i--) {
            if (++kk_idx[i] < g->k[i]) break;
            kk_idx[i] = 0;
        }
    }
    return tab;
}

/* Conv (and ConvInteger when zero points are given): im2col per group, then a GEMM. */
static int conv_run(ectx *c, const oe_tensor *x, const oe_tensor *w, const oe_tensor *b, double xzp, double wzp, int odt)
{
    if (!x || !w || w->rank != x->rank) return oe_fail(c, "expects X and W of the same rank");
    int64_t group = oe_attr_i(c, "group", 1), N = x->dims[0], C = x->dims[1], M = w->dims[0];
    if (group <= 0 || C % group || M % group || w->dims[1] != C / group)
        return oe_fail(c, "W has %lld input channels per group, X has %lld channels in %lld groups",
                       (long long)w->dims[1], (long long)C, (long long)group);
    geom g;
    if (geom_read(c, x, w->dims + 2, &g) || geom_forward(c, &g, false)) return OE_ERROR;
    if (b && b->numel != M) return oe_fail(c, "B must have one value per output channel");
    int64_t dims[OE_MAX_RANK] = {N, M};
    memcpy(dims + 2, g.out, sizeof(int64_t) * (size_t)g.nd);
    if (oe_out(c, 0, odt, dims, x->rank)) return OE_ERROR;
    int64_t Cg = C / group, Mg = M / group, R = Cg * g.K;
    int64_t *tab = window_table(&g, g.out, g.in);
    double *xv = ot_doubles(x), *wv = ot_doubles(w);
    double *col = xmalloc(oe_cnt(R * g.O) * sizeof *col), *y = xmalloc(oe_cnt(Mg * g.O) * sizeof *y);
    for (int64_t i = 0; i < w->numel; i++) wv[i] -= wzp;
    for (int64_t n = 0; n < N; n++)
        for (int64_t gi = 0; gi < group; gi++) {
            for (int64_t ci = 0; ci < Cg; ci++) {
                const double *xc = xv + ((n * C) + gi * Cg + ci) * g.I;
                for (int64_t kk = 0; kk < g.K; kk++) {
                    double *row = col + (ci * g.K + kk) * g.O;
                    const int64_t *t = tab + kk * g.O;
                    for (int64_t o = 0; o < g.O; o++) row[o] = t[o] >= 0 ? xc[t[o]] - xzp : 0;
                }
            }
            for (int64_t m = 0; m < Mg; m++) {
                double bias = b ? ot_get_f(b, gi * Mg + m) : 0;
                for (int64_t o = 0; o < g.O; o++) y[m * g.O + o] = bias;
            }
            if (R && g.O) oe_gemm_acc(wv + gi * Mg * R, col, y, Mg, R, g.O);
            for (int64_t i = 0; i < Mg * g.O; i++) ot_set_f(&c->out[0], ((n * M) + gi * Mg) * g.O + i, y[i]);
        }
    free(tab);
    free(xv);
    free(wv);
    free(col);
    free(y);
    return OE_OK;
}

static int k_conv(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *w = oe_in_tensor(c, 1);
    if (!x || !w || !oe_is_float(x->dtype)) return oe_fail(c, "expects floating-point X and W");
    return conv_run(c, x, w, oe_in_tensor(c, 2), 0, 0, x->dtype);
}

static int k_conv_integer(ectx *c)
{
    const oe_tensor *xz = oe_in_tensor(c, 2), *wz = oe_in_tensor(c, 3);
    if ((xz && xz->numel != 1) || (wz && wz->numel != 1)) return OE_UNSUPPORTED;   /* per-channel zero points */
    return conv_run(c, oe_in_tensor(c, 0), oe_in_tensor(c, 1), NULL, xz ? ot_get_f(xz, 0) : 0, wz ? ot_get_f(wz, 0) : 0, T_INT32);
}

/* QLinearConv: the integer convolution of the shifted inputs (bias included), rescaled by
 * x_scale * w_scale / y_scale, rounded half to even and saturated to y's type. */
static int k_qlinear_conv(ectx *c)
{
    const oe_tensor *xs = oe_in_tensor(c, 1), *xz = oe_in_tensor(c, 2), *ws = oe_in_tensor(c, 4), *wz = oe_in_tensor(c, 5);
    const oe_tensor *ys = oe_in_tensor(c, 6), *yz = oe_in_tensor(c, 7);
    if (!xs || !ws || !ys || xs->numel != 1 || ws->numel != 1 || ys->numel != 1 || (xz && xz->numel != 1) ||
        (wz && wz->numel != 1))
        return OE_UNSUPPORTED;   /* per-channel scales or zero points */
    int rc = conv_run(c, oe_in_tensor(c, 0), oe_in_tensor(c, 3), oe_in_tensor(c, 8), xz ? ot_get_f(xz, 0) : 0,
                      wz ? ot_get_f(wz, 0) : 0, T_DOUBLE);
    if (rc) return rc;
    oe_tensor acc = c->out[0];
    int odt = yz ? yz->dtype : T_UINT8;
    double f = ot_get_f(xs, 0) * ot_get_f(ws, 0) / ot_get_f(ys, 0), lo = odt == T_INT8 ? -128 : 0, hi = odt == T_INT8 ? 127 : 255;
    rc = oe_out(c, 0, odt, acc.dims, acc.rank);
    for (int64_t i = 0; rc == OE_OK && i < acc.numel; i++) {
        double v = nearbyint(ot_get_f(&acc, i) * f) + (yz ? ot_get_f(yz, 0) : 0);
        ot_set_f(&c->out[0], i, v < lo ? lo : v > hi ? hi : v);
    }
    ot_tensor_free(&acc);
    return rc;
}

/* ConvTranspose's output size and pads from output_shape, auto_pad or the pads. */
static int geom_transpose(ectx *c, geom *g)
{
    int64_t opad[MAX_SP] = {0}, oshape[MAX_SP];
    if (oe_attr_ints(c, "output_padding", opad, MAX_SP) == -2) return oe_fail(c, "bad output_padding");
    int64_t nos = oe_attr_ints(c, "output_shape", oshape, OE_MAX_RANK);
    if (nos > g->nd) {   /* the full N×C×... shape was given */
        memmove(oshape, oshape + (nos - g->nd), sizeof(int64_t) * (size_t)g->nd);
        nos = g->nd;
    }
    char ap[16];
    oe_attr_s(c, "auto_pad", "NOTSET", ap, sizeof ap);
    bool same = !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER");
    for (int i = 0; i < g->nd; i++) {
        int64_t ek = (g->k[i] - 1) * g->dil[i] + 1, full = g->stride[i] * (g->in[i] - 1) + opad[i] + ek;
        if (nos == g->nd || same) {
            g->out[i] = nos == g->nd ? oshape[i] : g->in[i] * g->stride[i];
            int64_t total = full - g->out[i];
            if (total < 0) total = 0;
            bool upper = !strcmp(ap, "SAME_UPPER");
            g->pb[i] = upper ? total / 2 : total - total / 2;
            g->pe[i] = total - g->pb[i];
        } else {
            g->out[i] = full - g->pb[i] - g->pe[i];
        }
        if (g->out[i] < 0) return oe_fail(c, "negative output size");
    }
    g->O = ot_numel_of(g->out, g->nd);
    return OE_OK;
}

static int k_conv_transpose(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *w = oe_in_tensor(c, 1), *b = oe_in_tensor(c, 2);
    if (!x || !w || w->rank != x->rank || !oe_is_float(x->dtype)) return oe_fail(c, "expects floating-point X and W of one rank");
    int64_t group = oe_attr_i(c, "group", 1), N = x->dims[0], C = x->dims[1];
    if (group <= 0 || C % group || w->dims[0] != C) return oe_fail(c, "W must have X's channels first");
    int64_t Cg = C / group, Mg = w->dims[1], M = Mg * group;
    geom g;
    if (geom_read(c, x, w->dims + 2, &g) || geom_transpose(c, &g)) return OE_ERROR;
    if (b && b->numel != M) return oe_fail(c, "B must have one value per output channel");
    int64_t dims[OE_MAX_RANK] = {N, M};
    memcpy(dims + 2, g.out, sizeof(int64_t) * (size_t)g.nd);
    if (oe_out(c, 0, x->dtype, dims, x->rank)) return OE_ERROR;
    int64_t R = Mg * g.K;
    int64_t *tab = window_table(&g, g.in, g.out);
    double *xv = ot_doubles(x), *wv = ot_doubles(w);
    double *wt = xmalloc(oe_cnt(R * Cg) * sizeof *wt), *col = xmalloc(oe_cnt(R * g.I) * sizeof *col);
    double *y = xmalloc(oe_cnt(Mg * g.O) * sizeof *y);
    for (int64_t n = 0; n < N; n++)
        for (int64_t gi = 0; gi < group; gi++) {
            for (int64_t ci = 0; ci < Cg; ci++)
                for (int64_t r = 0; r < R; r++) wt[r * Cg + ci] = wv[(gi * Cg + ci) * R + r];
            memset(col, 0, (size_t)(R * g.I) * sizeof *col);
            if (Cg && g.I) oe_gemm_acc(wt, xv + (n * C + gi * Cg) * g.I, col, R, Cg, g.I);
            for (int64_t m = 0; m < Mg; m++) {
                double bias = b ? ot_get_f(b, gi * Mg + m) : 0;
                for (int64_t o = 0; o < g.O; o++) y[m * g.O + o] = bias;
                for (int64_t kk = 0; kk < g.K; kk++) {
                    const double *src = col + (m * g.K + kk) * g.I;
                    const int64_t *t = tab + kk * g.I;
                    for (int64_t i = 0; i < g.I; i++)
                        if (t[i] >= 0) y[m * g.O + t[i]] += src[i];
                }
            }
            for (int64_t i = 0; i < Mg * g.O; i++) ot_set_f(&c->out[0], ((n * M) + gi * Mg) * g.O + i, y[i]);
        }
    free(tab);
    free(xv);
    free(wv);
    free(wt);
    free(col);
    free(y);
    return OE_OK;
}

/* ---- pools -------------------------------------------------------------------------------------- */

enum { P_MAX, P_AVG, P_LP };

static int k_pool(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0);
    if (!x || x->dtype == T_BOOL) return oe_fail(c, "missing or non-numeric input");
    geom g;
    if (geom_read(c, x, NULL, &g) || geom_forward(c, &g, oe_attr_i(c, "ceil_mode", 0) != 0)) return OE_ERROR;
    int64_t dims[OE_MAX_RANK] = {x->dims[0], x->dims[1]};
    memcpy(dims + 2, g.out, sizeof(int64_t) * (size_t)g.nd);
    if (oe_out(c, 0, x->dtype, dims, x->rank)) return OE_ERROR;
    bool want_idx = c->arg == P_MAX && c->nout > 1;
    if (want_idx && oe_out(c, 1, T_INT64, dims, x->rank)) return OE_ERROR;
    bool include_pad = oe_attr_i(c, "count_include_pad", 0) != 0, col_major = oe_attr_i(c, "storage_order", 0) != 0;
    double p = (double)oe_attr_i(c, "p", 2);
    int64_t *tab = window_table(&g, g.out, g.in), planes = x->dims[0] * x->dims[1];
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t o = 0; o < g.O; o++) {
            double acc = c->arg == P_MAX ? -INFINITY : 0;
            int64_t count = 0, best = -1;
            for (int64_t kk = 0; kk < g.K; kk++) {
                int64_t t = tab[kk * g.O + o];
                if (t == -1 && include_pad) count++;
                if (t < 0) continue;
                double v = ot_get_f(x, pl * g.I + t);
                count++;
                if (c->arg == P_MAX) {
                    if (v > acc || best < 0) { acc = v; best = t; }
                } else {
                    acc += c->arg == P_LP ? pow(fabs(v), p) : v;
                }
            }
            double r = c->arg == P_AVG ? (count ? acc / (double)count : NAN) : c->arg == P_LP ? pow(acc, 1 / p) : acc;
            ot_set_f(&c->out[0], pl * g.O + o, r);
            if (want_idx) {
                int64_t flat = best;
                if (col_major && g.nd == 2 && best >= 0) flat = (best % g.in[1]) * g.in[0] + best / g.in[1];
                ot_set_i(&c->out[1], pl * g.O + o, pl * g.I + flat);
            }
        }
    free(tab);
    return OE_OK;
}

static int k_global_pool(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0);
    if (!x || x->rank < 2) return oe_fail(c, "expects an N×C×... input");
    int64_t dims[OE_MAX_RANK], inner = ot_numel_of(x->dims + 2, x->rank - 2), planes = x->dims[0] * x->dims[1];
    for (int i = 0; i < x->rank; i++) dims[i] = i < 2 ? x->dims[i] : 1;
    if (oe_out(c, 0, x->dtype, dims, x->rank)) return OE_ERROR;
    double p = (double)oe_attr_i(c, "p", 2);
    for (int64_t pl = 0; pl < planes; pl++) {
        double acc = c->arg == P_MAX ? -INFINITY : 0;
        for (int64_t i = 0; i < inner; i++) {
            double v = ot_get_f(x, pl * inner + i);
            if (c->arg == P_MAX) acc = v > acc ? v : acc;
            else acc += c->arg == P_LP ? pow(fabs(v), p) : v;
        }
        ot_set_f(&c->out[0], pl, c->arg == P_AVG ? acc / (double)(inner ? inner : 1) : c->arg == P_LP ? pow(acc, 1 / p) : acc);
    }
    return OE_OK;
}

/* MaxUnpool: the indices address the inferred output (pooling's input shape); an explicit
 * output_shape pads that at the end of each axis, as onnx's reference does. */
static int k_max_unpool(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *ix = oe_in_tensor(c, 1), *os = oe_in_tensor(c, 2);
    if (!x || !ix || ix->numel != x->numel) return oe_fail(c, "expects X and indices of one shape");
    geom g;
    if (geom_read(c, x, NULL, &g)) return OE_ERROR;
    int64_t inferred[OE_MAX_RANK] = {x->dims[0], x->dims[1]}, dims[OE_MAX_RANK], n = x->rank;
    for (int i = 0; i < g.nd; i++) inferred[2 + i] = (g.in[i] - 1) * g.stride[i] + g.k[i] - g.pb[i] - g.pe[i];
    memcpy(dims, inferred, sizeof dims);
    if (os && (oe_read_ints(os, dims, OE_MAX_RANK, &n) || n != x->rank)) return oe_fail(c, "bad output_shape");
    if (oe_out(c, 0, x->dtype, dims, x->rank)) return OE_ERROR;
    int64_t total = ot_numel_of(inferred, x->rank);
    for (int64_t i = 0; i < x->numel; i++) {
        int64_t t = ot_get_i(ix, i), o = 0, rest = t, mul = 1;
        if (t < 0 || t >= total) return oe_fail(c, "index %lld is out of range", (long long)t);
        bool inside = true;
        for (int k = x->rank - 1; k >= 0; k--) {
            int64_t coord = rest % inferred[k];
            rest /= inferred[k];
            inside &= coord < dims[k];
            o += coord * mul;
            mul *= dims[k];
        }
        if (inside) oe_copy_elem(&c->out[0], o, x, i);
    }
    return OE_OK;
}

const oe_op_def oe_ops_conv[] = {
    {"Conv", k_conv, 0, false}, {"ConvInteger", k_conv_integer, 0, false}, {"QLinearConv", k_qlinear_conv, 0, false},
    {"ConvTranspose", k_conv_transpose, 0, false}, {"MaxPool", k_pool, P_MAX, false},
    {"AveragePool", k_pool, P_AVG, false}, {"LpPool", k_pool, P_LP, false},
    {"GlobalAveragePool", k_global_pool, P_AVG, false}, {"GlobalMaxPool", k_global_pool, P_MAX, false},
    {"GlobalLpPool", k_global_pool, P_LP, false}, {"MaxUnpool", k_max_unpool, 0, false},
    {NULL, NULL, 0, false},
};
