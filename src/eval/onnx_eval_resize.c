/* onnx_eval_resize.c — interpolation kernels: Resize (nearest / linear / cubic, every coordinate
 * transformation mode, antialias), Upsample, GridSample and RoiAlign. Resize is separable: each
 * axis gets a list of (index, weight) taps per output coordinate, and an output element sums
 * their products. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

enum { M_NEAREST, M_LINEAR, M_CUBIC };
enum { CT_HALF_PIXEL, CT_PYTORCH_HALF_PIXEL, CT_ALIGN_CORNERS, CT_ASYMMETRIC, CT_TF_CROP, CT_HALF_PIXEL_SYM, CT_TF_NN };
enum { N_PREFER_FLOOR, N_PREFER_CEIL, N_FLOOR, N_CEIL };

typedef struct resize_opts {
    int mode, ctm, nearest;
    double cubic_a, extrapolation;
    bool exclude_outside, antialias;
} resize_opts;

typedef struct axis_taps {
    int nt;              /* taps per output coordinate */
    int64_t *idx;        /* [out × nt] */
    double *w;           /* [out × nt] */
    bool *outside;       /* [out]: tf_crop_and_resize sample outside the input */
} axis_taps;

/* Output coordinate x → input coordinate. `len` is the resized length as onnx's reference takes
 * it: in * scale, unrounded (out itself when sizes were given). */
static double original_coord(const resize_opts *o, double x, int64_t in, double len, double scale, double rs, double re)
{
    switch (o->ctm) {
    case CT_HALF_PIXEL: return (x + 0.5) / scale - 0.5;
    case CT_HALF_PIXEL_SYM: {
        double adj = len / (scale * (double)in), center = (double)in / 2;
        return center * (1 - adj) + (x + 0.5) / scale - 0.5;
    }
    case CT_PYTORCH_HALF_PIXEL: return len > 1 ? (x + 0.5) / scale - 0.5 : 0;
    case CT_ALIGN_CORNERS: return len == 1 ? 0 : x * (double)(in - 1) / (len - 1);
    case CT_TF_NN: return (x + 0.5) / scale;
    case CT_TF_CROP:
        return len > 1 ? rs * (double)(in - 1) + x * (re - rs) * (double)(in - 1) / (len - 1)
                       : 0.5 * (rs + re) * (double)(in - 1);
    default: return x / scale;
    }
}

static void cubic_coeffs(double t, double A, double *c)
{
    double s = t + 1, u = 1 - t, v = 2 - t;
    c[0] = ((A * s - 5 * A) * s + 8 * A) * s - 4 * A;
    c[1] = ((A + 2) * t - (A + 3)) * t * t + 1;
    c[2] = ((A + 2) * u - (A + 3)) * u * u + 1;
    c[3] = ((A * v - 5 * A) * v + 8 * A) * v - 4 * A;
}

static int64_t clampi(int64_t i, int64_t n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static int64_t nearest_index(const resize_opts *o, double x)
{
    double f = floor(x);
    switch (o->nearest) {
    case N_FLOOR: return (int64_t)f;
    case N_CEIL: return (int64_t)ceil(x);
    case N_PREFER_CEIL: return (int64_t)(x - f >= 0.5 ? f + 1 : f);
    default: return (int64_t)(x - f > 0.5 ? f + 1 : f);
    }
}

static double cubic_kernel(double x, double A)
{
    x = fabs(x);
    if (x <= 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
    if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
    return 0;
}

/* Taps per output coordinate: 1 (nearest), 2 (linear), 4 (cubic); with antialias, when
 * downsampling, the kernel is stretched by 1/scale as onnx's reference does. */
static int taps_count(const resize_opts *o, double scale, int *first)
{
    double s = scale < 1 ? scale : 1;
    *first = o->mode == M_LINEAR ? 0 : -1;
    if (o->mode == M_NEAREST) return 1;
    if (o->antialias) *first = (int)(floor((o->mode == M_LINEAR ? -1 : -2) / s) + 1);
    else if (o->mode == M_LINEAR) return 2;
    return o->antialias ? 2 - 2 * *first : 4;
}

/* The taps of one output coordinate x (linear / cubic): neighbours base + first ... with
 * base = floor(x), or x - 1 when x is integral (the ratio is in (0, 1], as in the reference). */
static void interp_taps(const resize_opts *o, double x, double scale, int64_t in, int nt, int first, int64_t *ix, double *w)
{
    double base = floor(x), r = x - base, s = scale < 1 ? scale : 1, sum = 0;
    if (r == 0 && o->antialias) {
        base -= 1;
        r = 1;
    }
    if (!o->antialias && o->mode == M_CUBIC) cubic_coeffs(r, o->cubic_a, w);
    for (int k = 0; k < nt; k++) {
        int64_t j = (int64_t)base + first + k;
        double d = (double)(first + k) - r;
        if (o->antialias) w[k] = o->mode == M_LINEAR ? fmax(0, fmin(1, 1 - fabs(d * s))) : cubic_kernel(d * s, o->cubic_a);
        else if (o->mode == M_LINEAR) w[k] = k == 0 ? 1 - r : r;
        if (o->exclude_outside && (j < 0 || j >= in)) w[k] = 0;
        sum += w[k];
        ix[k] = clampi(j, in);
    }
    if ((o->exclude_outside || o->antialias) && sum != 0)
        for (int k = 0; k < nt; k++) w[k] /= sum;
}

static void taps_for_axis(const resize_opts *o, int64_t in, int64_t out, double scale, double rs, double re, axis_taps *t)
{
    int first;
    t->nt = taps_count(o, scale, &first);
    bool identity = in == out && scale == 1 && o->ctm != CT_TF_CROP;
    if (identity) t->nt = 1;
    size_t n = oe_cnt(out) * (size_t)t->nt;
    t->idx = xmalloc(n * sizeof *t->idx);
    t->w = xmalloc(n * sizeof *t->w);
    t->outside = xcalloc(oe_cnt(out), sizeof *t->outside);
    for (int64_t i = 0; i < out; i++) {
        int64_t *ix = t->idx + i * t->nt;
        double *w = t->w + i * t->nt;
        if (identity) {
            ix[0] = i;
            w[0] = 1;
            continue;
        }
        double x = original_coord(o, (double)i, in, (double)in * scale, scale, rs, re);
        if (o->ctm == CT_TF_CROP && (x < 0 || x > (double)(in - 1))) t->outside[i] = true;
        if (o->mode == M_NEAREST) {
            ix[0] = clampi(nearest_index(o, x), in);
            w[0] = 1;
        } else {
            interp_taps(o, x, scale, in, t->nt, first, ix, w);
        }
    }
}

static int resize_opts_read(ectx *c, resize_opts *o, bool upsample)
{
    char buf[32];
    memset(o, 0, sizeof *o);
    const char *m = oe_attr_s(c, "mode", "nearest", buf, sizeof buf);
    o->mode = !strcmp(m, "nearest") ? M_NEAREST : (!strcmp(m, "linear") || !strcmp(m, "bilinear")) ? M_LINEAR
            : (!strcmp(m, "cubic") || !strcmp(m, "bicubic")) ? M_CUBIC : -1;
    if (o->mode < 0) return oe_fail(c, "unknown mode '%s'", m);
    if (upsample || c->opset < 11) {
        o->ctm = CT_ASYMMETRIC;
        o->nearest = N_FLOOR;
    } else {
        const char *t = oe_attr_s(c, "coordinate_transformation_mode", "half_pixel", buf, sizeof buf);
        o->ctm = !strcmp(t, "half_pixel") ? CT_HALF_PIXEL : !strcmp(t, "pytorch_half_pixel") ? CT_PYTORCH_HALF_PIXEL
               : !strcmp(t, "align_corners") ? CT_ALIGN_CORNERS : !strcmp(t, "asymmetric") ? CT_ASYMMETRIC
               : !strcmp(t, "tf_crop_and_resize") ? CT_TF_CROP : !strcmp(t, "half_pixel_symmetric") ? CT_HALF_PIXEL_SYM
               : !strcmp(t, "tf_half_pixel_for_nn") ? CT_TF_NN : -1;
        if (o->ctm < 0) return oe_fail(c, "unknown coordinate_transformation_mode '%s'", t);
        const char *nm = oe_attr_s(c, "nearest_mode", "round_prefer_floor", buf, sizeof buf);
        o->nearest = !strcmp(nm, "round_prefer_floor") ? N_PREFER_FLOOR : !strcmp(nm, "round_prefer_ceil") ? N_PREFER_CEIL
                   : !strcmp(nm, "floor") ? N_FLOOR : !strcmp(nm, "ceil") ? N_CEIL : -1;
        if (o->nearest < 0) return oe_fail(c, "unknown nearest_mode '%s'", nm);
    }
    o->cubic_a = oe_attr_f(c, "cubic_coeff_a", -0.75);
    o->exclude_outside = oe_attr_i(c, "exclude_outside", 0) != 0;
    o->extrapolation = oe_attr_f(c, "extrapolation_value", 0);
    o->antialias = oe_attr_i(c, "antialias", 0) != 0 && o->mode != M_NEAREST;
    return OE_OK;
}

/* Scales and output sizes per axis, from the scales or sizes inputs (with axes and the aspect
 * ratio policy of opset 18) or Upsample's scales. */
static int resize_geometry(ectx *c, const oe_tensor *x, bool upsample, double *scale, int64_t *out, double *roi)
{
    int r = x->rank;
    int64_t axes[OE_MAX_RANK], na = oe_attr_ints(c, "axes", axes, OE_MAX_RANK);
    if (na < 0) {
        na = r;
        for (int i = 0; i < r; i++) axes[i] = i;
    }
    for (int64_t i = 0; i < na; i++)
        if (oe_norm_axis(axes[i], r, &axes[i])) return oe_fail(c, "bad axes");
    for (int i = 0; i < r; i++) {
        scale[i] = 1;
        out[i] = x->dims[i];
        roi[i] = 0;
        roi[r + i] = 1;
    }
    const oe_tensor *roi_t = upsample || c->opset < 11 ? NULL : oe_in_tensor(c, 1);
    const oe_tensor *sc = upsample ? (c->opset < 9 ? NULL : oe_in_tensor(c, 1)) : oe_in_tensor(c, c->opset < 11 ? 1 : 2);
    const oe_tensor *sz = upsample || c->opset < 11 ? NULL : oe_in_tensor(c, 3);
    if (roi_t && roi_t->numel == 2 * na)
        for (int64_t i = 0; i < na; i++) {
            roi[axes[i]] = ot_get_f(roi_t, i);
            roi[r + axes[i]] = ot_get_f(roi_t, na + i);
        }
    if (sc && sc->numel == 0) sc = NULL;
    if (sz && sz->numel == 0) sz = NULL;
    if (upsample && c->opset < 9) {
        double s[OE_MAX_RANK];
        if (oe_attr_floats(c, "scales", s, OE_MAX_RANK) != r) return oe_fail(c, "scales must have one entry per axis");
        for (int i = 0; i < r; i++) scale[i] = s[i];
    } else if (sc) {
        if (sc->numel != na) return oe_fail(c, "scales must have one entry per axis");
        for (int64_t i = 0; i < na; i++) scale[axes[i]] = ot_get_f(sc, i);
    } else if (sz) {
        if (sz->numel != na) return oe_fail(c, "sizes must have one entry per axis");
        char buf[16];
        const char *pol = oe_attr_s(c, "keep_aspect_ratio_policy", "stretch", buf, sizeof buf);
        bool larger = !strcmp(pol, "not_smaller"), keep = larger || !strcmp(pol, "not_larger");
        double s0 = larger ? 0 : INFINITY;
        for (int64_t i = 0; i < na; i++) {
            double s = (double)ot_get_i(sz, i) / (double)x->dims[axes[i]];
            s0 = larger ? fmax(s0, s) : fmin(s0, s);
        }
        for (int64_t i = 0; i < na; i++) {
            int64_t a = axes[i];
            if (keep) {
                scale[a] = s0;
                out[a] = (int64_t)nearbyint(s0 * (double)x->dims[a]);
            } else {
                out[a] = ot_get_i(sz, i);
                scale[a] = (double)out[a] / (double)x->dims[a];
            }
        }
        return OE_OK;
    } else {
        return oe_fail(c, "neither scales nor sizes is given");
    }
    for (int i = 0; i < r; i++) {
        if (!(scale[i] > 0)) return oe_fail(c, "scales must be positive");
        out[i] = (int64_t)floor((double)x->dims[i] * scale[i]);
    }
    return OE_OK;
}

static int k_resize(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0);
    if (!x || x->rank < 1) return oe_fail(c, "missing input");
    bool upsample = c->arg == 1;
    resize_opts o;
    int rc = resize_opts_read(c, &o, upsample);
    if (rc) return rc;
    double scale[OE_MAX_RANK], roi[2 * OE_MAX_RANK];
    int64_t out[OE_MAX_RANK];
    if (resize_geometry(c, x, upsample, scale, out, roi)) return OE_ERROR;
    if (oe_out(c, 0, x->dtype, out, x->rank)) return OE_ERROR;
    axis_taps taps[OE_MAX_RANK];
    for (int i = 0; i < x->rank; i++) taps_for_axis(&o, x->dims[i], out[i], scale[i], roi[i], roi[x->rank + i], &taps[i]);
    int64_t ist[OE_MAX_RANK], idx[OE_MAX_RANK] = {0};
    ot_strides(x->dims, x->rank, ist);
    for (int64_t e = 0; e < c->out[0].numel; e++) {
        bool outside = false;
        int total = 1;
        for (int i = 0; i < x->rank; i++) {
            outside |= taps[i].outside[idx[i]];
            total *= taps[i].nt;
        }
        double acc = 0;
        for (int t = 0; t < total && !outside; t++) {
            int rem = t;
            int64_t off = 0;
            double w = 1;
            for (int i = x->rank - 1; i >= 0; i--) {
                int k = rem % taps[i].nt;
                rem /= taps[i].nt;
                off += taps[i].idx[idx[i] * taps[i].nt + k] * ist[i];
                w *= taps[i].w[idx[i] * taps[i].nt + k];
            }
            if (w != 0) acc += w * ot_get_f(x, off);
        }
        ot_set_f(&c->out[0], e, outside ? o.extrapolation : acc);
        for (int i = x->rank - 1; i >= 0; i--) {
            if (++idx[i] < out[i]) break;
            idx[i] = 0;
        }
    }
    for (int i = 0; i < x->rank; i++) {
        free(taps[i].idx);
        free(taps[i].w);
        free(taps[i].outside);
    }
    return OE_OK;
}

/* ---- GridSample ---------------------------------------------------------------------------------- */

enum { PAD_ZEROS, PAD_BORDER, PAD_REFLECTION };

static double reflect(double x, double lo, double hi)
{
    double span = hi - lo;
    if (span <= 0) return 0;
    if (x < lo) {
        double d = lo - x;
        int64_t flips = (int64_t)(d / span);
        double extra = d - (double)flips * span;
        return flips % 2 == 0 ? lo + extra : hi - extra;
    }
    if (x > hi) {
        double d = x - hi;
        int64_t flips = (int64_t)(d / span);
        double extra = d - (double)flips * span;
        return flips % 2 == 0 ? hi - extra : lo + extra;
    }
    return x;
}

typedef struct grid_ctx {
    const oe_tensor *x;
    int64_t plane, H, W;
    int pad;
    bool align;
} grid_ctx;

static double grid_pixel(const grid_ctx *g, int64_t yy, int64_t xx)
{
    if (g->pad == PAD_ZEROS) {
        if (yy < 0 || yy >= g->H || xx < 0 || xx >= g->W) return 0;
    } else if (g->pad == PAD_BORDER) {
        yy = clampi(yy, g->H);
        xx = clampi(xx, g->W);
    } else {
        double lo = g->align ? 0 : -0.5;
        yy = clampi((int64_t)reflect((double)yy, lo, g->align ? (double)(g->H - 1) : (double)g->H - 0.5), g->H);
        xx = clampi((int64_t)reflect((double)xx, lo, g->align ? (double)(g->W - 1) : (double)g->W - 0.5), g->W);
    }
    return ot_get_f(g->x, g->plane + yy * g->W + xx);
}

/* Unnormalized source coordinate, with border / reflection padding applied to the coordinate. */
static double grid_coord(const grid_ctx *g, double v, int64_t size)
{
    double x = g->align ? (v + 1) / 2 * (double)(size - 1) : ((v + 1) * (double)size - 1) / 2;
    if (g->pad == PAD_BORDER) x = fmin(fmax(x, 0), (double)(size - 1));
    else if (g->pad == PAD_REFLECTION) {
        x = g->align ? reflect(x, 0, (double)(size - 1)) : reflect(x, -0.5, (double)size - 0.5);
        x = fmin(fmax(x, 0), (double)(size - 1));
    }
    return x;
}

static double grid_sample_at(const grid_ctx *g, int mode, double gx, double gy)
{
    double x = grid_coord(g, gx, g->W), y = grid_coord(g, gy, g->H);
    if (mode == M_NEAREST) return grid_pixel(g, (int64_t)nearbyint(y), (int64_t)nearbyint(x));
    double fx = floor(x), fy = floor(y), tx = x - fx, ty = y - fy;
    int64_t x0 = (int64_t)fx, y0 = (int64_t)fy;
    if (mode == M_LINEAR)
        return grid_pixel(g, y0, x0) * (1 - tx) * (1 - ty) + grid_pixel(g, y0, x0 + 1) * tx * (1 - ty) +
               grid_pixel(g, y0 + 1, x0) * (1 - tx) * ty + grid_pixel(g, y0 + 1, x0 + 1) * tx * ty;
    double cx[4], cy[4], acc = 0;
    cubic_coeffs(tx, -0.75, cx);
    cubic_coeffs(ty, -0.75, cy);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) acc += cy[i] * cx[j] * grid_pixel(g, y0 - 1 + i, x0 - 1 + j);
    return acc;
}

static int k_grid_sample(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *grid = oe_in_tensor(c, 1);
    if (!x || !grid || x->rank != 4 || grid->rank != 4 || grid->dims[3] != 2 || grid->dims[0] != x->dims[0])
        return OE_UNSUPPORTED;   /* only the 2-D form (opset 16) */
    char buf[16];
    const char *m = oe_attr_s(c, "mode", "bilinear", buf, sizeof buf);
    int mode = (!strcmp(m, "bilinear") || !strcmp(m, "linear")) ? M_LINEAR : !strcmp(m, "nearest") ? M_NEAREST
             : (!strcmp(m, "bicubic") || !strcmp(m, "cubic")) ? M_CUBIC : -1;
    if (mode < 0) return oe_fail(c, "unknown mode '%s'", m);
    const char *p = oe_attr_s(c, "padding_mode", "zeros", buf, sizeof buf);
    grid_ctx g = {x, 0, x->dims[2], x->dims[3], !strcmp(p, "border") ? PAD_BORDER : !strcmp(p, "reflection") ? PAD_REFLECTION : PAD_ZEROS,
                  oe_attr_i(c, "align_corners", 0) != 0};
    int64_t N = x->dims[0], C = x->dims[1], Ho = grid->dims[1], Wo = grid->dims[2];
    int64_t dims[4] = {N, C, Ho, Wo};
    if (oe_out(c, 0, x->dtype, dims, 4)) return OE_ERROR;
    for (int64_t n = 0; n < N; n++)
        for (int64_t ch = 0; ch < C; ch++) {
            g.plane = (n * C + ch) * g.H * g.W;
            for (int64_t i = 0; i < Ho * Wo; i++) {
                double gx = ot_get_f(grid, (n * Ho * Wo + i) * 2), gy = ot_get_f(grid, (n * Ho * Wo + i) * 2 + 1);
                ot_set_f(&c->out[0], (n * C + ch) * Ho * Wo + i, grid_sample_at(&g, mode, gx, gy));
            }
        }
    return OE_OK;
}

/* ---- RoiAlign ------------------------------------------------------------------------------------ */

/* One bilinear sample at (y, x) of a plane, as ONNX Runtime's RoiAlign takes it: 0 outside
 * [-1, size], clamped to the last row/column; `max` keeps the largest weighted corner. */
static double roi_sample(const oe_tensor *x, int64_t plane, int64_t H, int64_t W, double y, double xx, bool max)
{
    if (y < -1.0 || y > (double)H || xx < -1.0 || xx > (double)W) return 0;
    y = y < 0 ? 0 : y;
    xx = xx < 0 ? 0 : xx;
    int64_t y0 = (int64_t)y, x0 = (int64_t)xx, y1, x1;
    if (y0 >= H - 1) y0 = y1 = H - 1, y = (double)y0;
    else y1 = y0 + 1;
    if (x0 >= W - 1) x0 = x1 = W - 1, xx = (double)x0;
    else x1 = x0 + 1;
    double ly = y - (double)y0, lx = xx - (double)x0, hy = 1 - ly, hx = 1 - lx;
    double v[4] = {hy * hx * ot_get_f(x, plane + y0 * W + x0), hy * lx * ot_get_f(x, plane + y0 * W + x1),
                   ly * hx * ot_get_f(x, plane + y1 * W + x0), ly * lx * ot_get_f(x, plane + y1 * W + x1)};
    return max ? fmax(fmax(v[0], v[1]), fmax(v[2], v[3])) : v[0] + v[1] + v[2] + v[3];
}

static int k_roi_align(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *rois = oe_in_tensor(c, 1), *bi = oe_in_tensor(c, 2);
    if (!x || !rois || !bi || x->rank != 4 || rois->rank != 2 || rois->dims[1] != 4 || bi->numel != rois->dims[0])
        return oe_fail(c, "expects X [N, C, H, W], rois [R, 4] and batch_indices [R]");
    char buf[24];
    bool max = !strcmp(oe_attr_s(c, "mode", "avg", buf, sizeof buf), "max");
    bool half = c->opset >= 16 && strcmp(oe_attr_s(c, "coordinate_transformation_mode", "half_pixel", buf, sizeof buf), "output_half_pixel");
    int64_t ph = oe_attr_i(c, "output_height", 1), pw = oe_attr_i(c, "output_width", 1), ratio = oe_attr_i(c, "sampling_ratio", 0);
    double scale = oe_attr_f(c, "spatial_scale", 1.0), off = half ? 0.5 : 0;
    int64_t R = rois->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3], dims[4] = {R, C, ph, pw};
    if (ph <= 0 || pw <= 0 || oe_out(c, 0, x->dtype, dims, 4)) return oe_fail(c, "bad output size");
    for (int64_t r = 0; r < R; r++) {
        int64_t b = ot_get_i(bi, r);
        if (b < 0 || b >= x->dims[0]) return oe_fail(c, "batch index %lld is out of range", (long long)b);
        double sw = ot_get_f(rois, r * 4) * scale - off, sh = ot_get_f(rois, r * 4 + 1) * scale - off;
        double rw = ot_get_f(rois, r * 4 + 2) * scale - off - sw, rh = ot_get_f(rois, r * 4 + 3) * scale - off - sh;
        if (!half) rw = fmax(rw, 1), rh = fmax(rh, 1);
        double bh = rh / (double)ph, bw = rw / (double)pw;
        int64_t gh = ratio > 0 ? ratio : (int64_t)ceil(rh / (double)ph), gw = ratio > 0 ? ratio : (int64_t)ceil(rw / (double)pw);
        double count = (double)(gh * gw > 0 ? gh * gw : 1);
        for (int64_t ch = 0; ch < C; ch++)
            for (int64_t i = 0; i < ph; i++)
                for (int64_t j = 0; j < pw; j++) {
                    double acc = 0;
                    for (int64_t iy = 0; iy < gh; iy++)
                        for (int64_t ix = 0; ix < gw; ix++) {
                            double y = sh + (double)i * bh + ((double)iy + 0.5) * bh / (double)gh;
                            double xx = sw + (double)j * bw + ((double)ix + 0.5) * bw / (double)gw;
                            double v = roi_sample(x, (b * C + ch) * H * W, H, W, y, xx, max);
                            acc = max ? (iy == 0 && ix == 0 ? v : fmax(acc, v)) : acc + v;
                        }
                    ot_set_f(&c->out[0], ((r * C + ch) * ph + i) * pw + j, max ? acc : acc / count);
                }
    }
    return OE_OK;
}

const oe_op_def oe_ops_resize[] = {
    {"RoiAlign", k_roi_align, 0, false},
    {"Resize", k_resize, 0, false}, {"Upsample", k_resize, 1, false}, {"GridSample", k_grid_sample, 0, false},
    {NULL, NULL, 0, false},
};
