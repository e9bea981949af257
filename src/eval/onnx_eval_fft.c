/* onnx_eval_fft.c — spectral kernels: DFT (opsets 17 and 20), STFT, the window functions (Hann,
 * Hamming, Blackman) and MelWeightMatrix. Transforms are O(n log n): radix-2 for powers of two,
 * Bluestein's chirp-z for other lengths; complex values are [..., 2] real tensors as in ONNX. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

/* In-place iterative radix-2 FFT (n a power of two), unnormalized; sign -1 forward, +1 inverse. */
static void fft_pow2(double *re, double *im, int64_t n, int sign)
{
    for (int64_t i = 1, j = 0; i < n; i++) {
        int64_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i]; re[i] = re[j]; re[j] = t;
            t = im[i]; im[i] = im[j]; im[j] = t;
        }
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
        double ang = sign * 2 * M_PI / (double)len;
        for (int64_t i = 0; i < n; i += len)
            for (int64_t k = 0; k < len / 2; k++) {
                double wr = cos(ang * (double)k), wi = sin(ang * (double)k);
                int64_t a = i + k, b = i + k + len / 2;
                double xr = re[b] * wr - im[b] * wi, xi = re[b] * wi + im[b] * wr;
                re[b] = re[a] - xr;
                im[b] = im[a] - xi;
                re[a] += xr;
                im[a] += xi;
            }
    }
}

/* y = DFT_n(x) (sign -1) or its unnormalized inverse (sign +1), any n. */
static void dft(const double *xr, const double *xi, int64_t n, int sign, double *yr, double *yi)
{
    if (n <= 0) return;
    if ((n & (n - 1)) == 0) {
        memcpy(yr, xr, (size_t)n * sizeof *yr);
        memcpy(yi, xi, (size_t)n * sizeof *yi);
        fft_pow2(yr, yi, n, sign);
        return;
    }
    /* Bluestein: x_k w_k convolved with conj(w), w_k = exp(sign i pi k^2 / n) */
    int64_t m = 1;
    while (m < 2 * n - 1) m <<= 1;
    double *ar = xcalloc((size_t)m, sizeof *ar), *ai = xcalloc((size_t)m, sizeof *ai);
    double *br = xcalloc((size_t)m, sizeof *br), *bi = xcalloc((size_t)m, sizeof *bi);
    double *wr = xmalloc((size_t)n * sizeof *wr), *wi = xmalloc((size_t)n * sizeof *wi);
    for (int64_t k = 0; k < n; k++) {
        double ang = sign * M_PI * (double)((k * k) % (2 * n)) / (double)n;
        wr[k] = cos(ang);
        wi[k] = sin(ang);
        ar[k] = xr[k] * wr[k] - xi[k] * wi[k];
        ai[k] = xr[k] * wi[k] + xi[k] * wr[k];
        br[k] = wr[k];
        bi[k] = -wi[k];
        if (k) {
            br[m - k] = wr[k];
            bi[m - k] = -wi[k];
        }
    }
    fft_pow2(ar, ai, m, -1);
    fft_pow2(br, bi, m, -1);
    for (int64_t k = 0; k < m; k++) {
        double r = ar[k] * br[k] - ai[k] * bi[k], i = ar[k] * bi[k] + ai[k] * br[k];
        ar[k] = r;
        ai[k] = i;
    }
    fft_pow2(ar, ai, m, 1);
    for (int64_t k = 0; k < n; k++) {
        double cr = ar[k] / (double)m, ci = ai[k] / (double)m;
        yr[k] = cr * wr[k] - ci * wi[k];
        yi[k] = cr * wi[k] + ci * wr[k];
    }
    free(ar); free(ai); free(br); free(bi); free(wr); free(wi);
}

/* Transforms every line of x (a [..., 1|2] tensor) along `axis`, length n (zero-padded or
 * truncated), keeping `keep` output bins, scaled by `scale`. */
static int transform_lines(ectx *c, const oe_tensor *x, int64_t axis, int64_t n, int64_t keep, int sign, double scale)
{
    int r = x->rank, comp = (int)x->dims[r - 1];
    int64_t dims[OE_MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = keep;
    dims[r - 1] = 2;
    if (oe_out(c, 0, x->dtype, dims, r)) return OE_ERROR;
    int64_t len = x->dims[axis];
    int64_t outer = ot_numel_of(x->dims, (int)axis), inner = ot_numel_of(x->dims + axis + 1, r - (int)axis - 2);
    double *b = xcalloc(oe_cnt(4 * n), sizeof *b);
    double *xr = b, *xi = b + n, *yr = b + 2 * n, *yi = b + 3 * n;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            for (int64_t k = 0; k < n; k++) {
                int64_t off = ((o * len + k) * inner + i) * comp;
                xr[k] = k < len ? ot_get_f(x, off) : 0;
                xi[k] = k < len && comp == 2 ? ot_get_f(x, off + 1) : 0;
            }
            dft(xr, xi, n, sign, yr, yi);
            for (int64_t k = 0; k < keep; k++) {
                int64_t off = ((o * keep + k) * inner + i) * 2;
                ot_set_f(&c->out[0], off, yr[k] * scale);
                ot_set_f(&c->out[0], off + 1, yi[k] * scale);
            }
        }
    free(b);
    return OE_OK;
}

static int k_dft(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *len = oe_in_tensor(c, 1);
    if (!x || !oe_is_float(x->dtype) || x->rank < 2 || (x->dims[x->rank - 1] != 1 && x->dims[x->rank - 1] != 2))
        return oe_fail(c, "expects a floating-point [..., 1 or 2] input");
    int64_t axis = c->opset >= 20 ? -2 : oe_attr_i(c, "axis", 1);
    if (c->opset >= 20 && oe_in_tensor(c, 2)) axis = ot_get_i(oe_in_tensor(c, 2), 0);
    if (oe_norm_axis(axis, x->rank, &axis) || axis == x->rank - 1) return oe_fail(c, "bad axis");
    int64_t n = len && len->numel ? ot_get_i(len, 0) : x->dims[axis];
    if (n <= 0) return oe_fail(c, "dft_length must be positive");
    bool inverse = oe_attr_i(c, "inverse", 0) != 0, onesided = oe_attr_i(c, "onesided", 0) != 0;
    return transform_lines(c, x, axis, n, onesided ? n / 2 + 1 : n, inverse ? 1 : -1, inverse ? 1.0 / (double)n : 1.0);
}

static int k_stft(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *step = oe_in_tensor(c, 1), *win = oe_in_tensor(c, 2), *fl = oe_in_tensor(c, 3);
    if (!x || x->rank != 3 || !step || step->numel != 1 || (x->dims[2] != 1 && x->dims[2] != 2))
        return oe_fail(c, "expects a [batch, length, 1 or 2] signal and a frame step");
    int64_t hop = ot_get_i(step, 0), flen = fl && fl->numel ? ot_get_i(fl, 0) : win ? win->numel : x->dims[1];
    int64_t wlen = win ? win->numel : flen;
    if (hop <= 0 || flen <= 0 || flen > x->dims[1] || wlen > flen) return oe_fail(c, "bad frame step, window or frame length");
    int64_t frames = 1 + (x->dims[1] - flen) / hop, comp = x->dims[2];
    bool onesided = oe_attr_i(c, "onesided", 1) != 0;
    /* frames as a [batch, frames, frame_length, comp] tensor weighted by the window, then a DFT */
    int64_t fdims[4] = {x->dims[0], frames, flen, comp};
    oe_tensor f;
    if (ot_tensor_init(&f, x->dtype, fdims, 4)) return oe_fail(c, "too many frames");
    for (int64_t b = 0; b < x->dims[0]; b++)
        for (int64_t t = 0; t < frames; t++)
            for (int64_t k = 0; k < flen; k++) {
                int64_t src = t * hop + k;
                double w = win ? (k < wlen ? ot_get_f(win, k) : 0) : 1;
                for (int64_t q = 0; q < comp && src < x->dims[1] && k < wlen; q++)
                    ot_set_f(&f, ((b * frames + t) * flen + k) * comp + q, ot_get_f(x, (b * x->dims[1] + src) * comp + q) * w);
            }
    int rc = transform_lines(c, &f, 2, flen, onesided ? flen / 2 + 1 : flen, -1, 1.0);
    ot_tensor_free(&f);
    return rc;
}

enum { W_HANN, W_HAMMING, W_BLACKMAN };

static int k_window(ectx *c)
{
    const oe_tensor *sz = oe_in_tensor(c, 0);
    if (!sz || sz->numel != 1 || oe_is_float(sz->dtype)) return oe_fail(c, "size must be an integer scalar");
    int64_t n = ot_get_i(sz, 0);
    if (n < 0) return oe_fail(c, "negative size");
    double den = oe_attr_i(c, "periodic", 1) ? (double)n : (double)(n - 1);
    if (oe_out(c, 0, (int)oe_attr_i(c, "output_datatype", T_FLOAT), &n, 1)) return OE_ERROR;
    for (int64_t k = 0; k < n; k++) {
        double a = den > 0 ? 2 * M_PI * (double)k / den : 0, v;
        if (c->arg == W_HANN) v = 0.5 - 0.5 * cos(a);
        else if (c->arg == W_HAMMING) v = 25.0 / 46.0 - 21.0 / 46.0 * cos(a);
        else v = 0.42 - 0.5 * cos(a) + 0.08 * cos(2 * a);
        ot_set_f(&c->out[0], k, v);
    }
    return OE_OK;
}

/* MelWeightMatrix: triangular filters between mel-spaced edges, as onnx's reference builds them. */
static int k_mel_weight_matrix(ectx *c)
{
    const oe_tensor *t[5];
    for (size_t i = 0; i < 5; i++)
        if (!(t[i] = oe_in_tensor(c, i)) || t[i]->numel != 1) return oe_fail(c, "expects five scalars");
    int64_t mels = ot_get_i(t[0], 0), dft = ot_get_i(t[1], 0), rate = ot_get_i(t[2], 0);
    double lo = ot_get_f(t[3], 0), hi = ot_get_f(t[4], 0);
    if (mels <= 0 || dft <= 0 || rate <= 0) return oe_fail(c, "num_mel_bins, dft_length and sample_rate must be positive");
    int64_t bins = dft / 2 + 1, dims[2] = {bins, mels};
    if (oe_out(c, 0, (int)oe_attr_i(c, "output_datatype", T_FLOAT), dims, 2)) return OE_ERROR;
    double lo_mel = 2595 * log10(1 + lo / 700), hi_mel = 2595 * log10(1 + hi / 700), step = (hi_mel - lo_mel) / (double)(mels + 2);
    int64_t *edge = xmalloc((size_t)(mels + 2) * sizeof *edge);
    for (int64_t k = 0; k < mels + 2; k++) {
        double hz = 700 * (pow(10, ((double)k * step + lo_mel) / 2595) - 1);
        edge[k] = (int64_t)floor((double)(dft + 1) * hz / (double)rate);
    }
    for (int64_t i = 0; i < mels; i++) {
        int64_t l = edge[i], m = edge[i + 1], r = edge[i + 2];
        if (m == l) {
            if (m >= 0 && m < bins) ot_set_f(&c->out[0], m * mels + i, 1);
        } else {
            for (int64_t j = l; j <= m; j++)
                if (j >= 0 && j < bins) ot_set_f(&c->out[0], j * mels + i, (double)(j - l) / (double)(m - l));
        }
        for (int64_t j = m; r > m && j < r; j++)
            if (j >= 0 && j < bins) ot_set_f(&c->out[0], j * mels + i, (double)(r - j) / (double)(r - m));
    }
    free(edge);
    return OE_OK;
}

const oe_op_def oe_ops_fft[] = {
    {"MelWeightMatrix", k_mel_weight_matrix, 0, false},
    {"DFT", k_dft, 0, false}, {"STFT", k_stft, 0, false}, {"HannWindow", k_window, W_HANN, false},
    {"HammingWindow", k_window, W_HAMMING, false}, {"BlackmanWindow", k_window, W_BLACKMAN, false},
    {NULL, NULL, 0, false},
};
