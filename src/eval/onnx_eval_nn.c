/* onnx_eval_nn.c — linear algebra and normalization kernels: MatMul, Gemm, Einsum, Det,
 * BatchNormalization, InstanceNormalization, LayerNormalization, GroupNormalization, LRN,
 * Dropout. Arithmetic runs in double and is rounded once to the output type. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

/* c[m×n] += a[m×k] · b[k×n] (row-major, contiguous). */
void oe_gemm_acc(const double *restrict a, const double *restrict b, double *restrict c, int64_t m, int64_t k, int64_t n)
{
    /* Four rows of c at a time: each row of b is loaded once per four multiply-adds, and with
     * the operands restrict-qualified the inner loop vectorizes. */
    int64_t i = 0;
    for (; i + 4 <= m; i += 4) {
        double *c0 = c + i * n, *c1 = c0 + n, *c2 = c1 + n, *c3 = c2 + n;
        const double *a0 = a + i * k, *a1 = a0 + k, *a2 = a1 + k, *a3 = a2 + k;
        for (int64_t p = 0; p < k; p++) {
            double v0 = a0[p], v1 = a1[p], v2 = a2[p], v3 = a3[p];
            const double *bp = b + p * n;
            for (int64_t j = 0; j < n; j++) {
                double bv = bp[j];
                c0[j] += v0 * bv;
                c1[j] += v1 * bv;
                c2[j] += v2 * bv;
                c3[j] += v3 * bv;
            }
        }
    }
    for (; i < m; i++) {
        double *ci = c + i * n;
        for (int64_t p = 0; p < k; p++) {
            double av = a[i * k + p];
            const double *bp = b + p * n;
            for (int64_t j = 0; j < n; j++) ci[j] += av * bp[j];
        }
    }
}

/* numpy.matmul of (a - az) and (b - bz) in double: 1-D operands are promoted and the added
 * axis removed, batch axes broadcast. *out (malloc'd) holds the result of shape dims/rank. */
int oe_matmul_doubles(ectx *c, const oe_tensor *a, const oe_tensor *b, double az, double bz, double **out, int64_t *odims,
                      int *orank)
{
    if (!a || !b || a->rank < 1 || b->rank < 1 || a->dtype == T_BOOL)
        return oe_fail(c, "expects two numeric tensors of rank >= 1");
    oe_tensor A = *a, B = *b;
    if (a->rank == 1) {
        A.rank = 2;
        A.dims[0] = 1;
        A.dims[1] = a->dims[0];
    }
    if (b->rank == 1) {
        B.rank = 2;
        B.dims[0] = b->dims[0];
        B.dims[1] = 1;
    }
    int64_t M = A.dims[A.rank - 2], K = A.dims[A.rank - 1], N = B.dims[B.rank - 1];
    if (B.dims[B.rank - 2] != K) return oe_fail(c, "inner dimensions differ (%lld and %lld)", (long long)K, (long long)B.dims[B.rank - 2]);
    oe_tensor ba = {.rank = A.rank - 2}, bb = {.rank = B.rank - 2};
    memcpy(ba.dims, A.dims, sizeof(int64_t) * (size_t)ba.rank);
    memcpy(bb.dims, B.dims, sizeof(int64_t) * (size_t)bb.rank);
    const oe_tensor *ts[2] = {&ba, &bb};
    int64_t dims[OE_MAX_RANK];
    int r;
    if (oe_bcast_shape(ts, 2, dims, &r)) return oe_fail(c, "batch dimensions cannot be broadcast");
    if (r + 2 > OE_MAX_RANK) return OE_UNSUPPORTED;
    *orank = 0;
    for (int i = 0; i < r; i++) odims[(*orank)++] = dims[i];
    if (a->rank > 1) odims[(*orank)++] = M;
    if (b->rank > 1) odims[(*orank)++] = N;
    int64_t batches = ot_numel_of(dims, r);
    if (ot_numel_of(odims, *orank) > OE_HARD_MAX_NUMEL) return oe_fail(c, "output too large");
    double *x = ot_doubles(a), *y = ot_doubles(b), *z = xcalloc(oe_cnt(batches * M * N), sizeof *z);
    for (int64_t i = 0; az != 0 && i < a->numel; i++) x[i] -= az;
    for (int64_t i = 0; bz != 0 && i < b->numel; i++) y[i] -= bz;
    oe_bit it;
    oe_bit_init(&it, ts, 2, dims, r);
    for (int64_t bi = 0; bi < batches; bi++, oe_bit_next(&it))
        if (M && N && K) oe_gemm_acc(x + it.off[0] * M * K, y + it.off[1] * K * N, z + bi * M * N, M, K, N);
    free(x);
    free(y);
    *out = z;
    return OE_OK;
}

static int k_matmul(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *b = oe_in_tensor(c, 1);
    if (!a || !b || a->dtype != b->dtype) return oe_fail(c, "expects two tensors of one type");
    double *z;
    int64_t dims[OE_MAX_RANK];
    int rank;
    int rc = oe_matmul_doubles(c, a, b, 0, 0, &z, dims, &rank);
    if (rc) return rc;
    rc = oe_out(c, 0, a->dtype, dims, rank);
    if (rc == OE_OK) ot_store_doubles(&c->out[0], z);
    free(z);
    return rc;
}

static double *transposed(const double *m, int64_t rows, int64_t cols)
{
    double *t = xmalloc(oe_cnt(rows * cols) * sizeof *t);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) t[j * rows + i] = m[i * cols + j];
    return t;
}

static int k_gemm(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *b = oe_in_tensor(c, 1), *cc = oe_in_tensor(c, 2);
    if (!a || !b || a->rank != 2 || b->rank != 2) return oe_fail(c, "expects 2-D A and B");
    bool ta = oe_attr_i(c, "transA", 0) != 0, tb = oe_attr_i(c, "transB", 0) != 0;
    double alpha = oe_attr_f(c, "alpha", 1.0), beta = oe_attr_f(c, "beta", 1.0);
    int64_t M = ta ? a->dims[1] : a->dims[0], K = ta ? a->dims[0] : a->dims[1];
    int64_t K2 = tb ? b->dims[1] : b->dims[0], N = tb ? b->dims[0] : b->dims[1];
    if (K != K2) return oe_fail(c, "inner dimensions differ (%lld and %lld)", (long long)K, (long long)K2);
    int64_t dims[2] = {M, N};
    oe_tensor shape = {.rank = 2, .dims = {M, N}};
    if (cc) {
        const oe_tensor *ts[2] = {cc, &shape};
        int64_t bd[OE_MAX_RANK];
        int r;
        if (oe_bcast_shape(ts, 2, bd, &r) || r != 2 || bd[0] != M || bd[1] != N)
            return oe_fail(c, "C cannot be broadcast to [%lld, %lld]", (long long)M, (long long)N);
    }
    if (oe_out(c, 0, a->dtype, dims, 2)) return OE_ERROR;
    double *x = ot_doubles(a), *y = ot_doubles(b), *z = xcalloc(oe_cnt(M * N), sizeof *z);
    if (ta) { double *t = transposed(x, a->dims[0], a->dims[1]); free(x); x = t; }
    if (tb) { double *t = transposed(y, b->dims[0], b->dims[1]); free(y); y = t; }
    if (M && N && K) oe_gemm_acc(x, y, z, M, K, N);
    oe_bit it;
    const oe_tensor *ts[1] = {cc};
    if (cc) oe_bit_init(&it, ts, 1, dims, 2);
    for (int64_t i = 0; i < M * N; i++) {
        double v = alpha * z[i];
        if (cc) {
            v += beta * ot_get_f(cc, it.off[0]);
            oe_bit_next(&it);
        }
        ot_set_f(&c->out[0], i, v);
    }
    free(x);
    free(y);
    free(z);
    return OE_OK;
}

/* ---- Einsum ------------------------------------------------------------------------------------- */

/* Index codes: a-z 0..25, A-Z 26..51, the axes of an ellipsis 52.. (right-aligned, so that
 * they broadcast as numpy's). */
enum { EIN_MAX_OPS = 8, EIN_ELL = 52, EIN_LETTERS = EIN_ELL + OE_MAX_RANK };

typedef struct einsum {
    int nops, ell;                       /* operands; axes the ellipsis stands for */
    int terms[EIN_MAX_OPS][OE_MAX_RANK], nterm[EIN_MAX_OPS];
    int out[OE_MAX_RANK], nout;
    int64_t size[EIN_LETTERS];
} einsum;

static int letter(char ch)
{
    return islower((unsigned char)ch) ? ch - 'a' : isupper((unsigned char)ch) ? 26 + ch - 'A' : -1;
}

/* Reads one term ("ij", "...ij") into codes, its ellipsis standing for `ell_dims` axes of `ell`. */
static int einsum_term(const char *p, const char *end, int ell_dims, int ell, int *codes, int *n)
{
    *n = 0;
    for (; p < end; p++) {
        if (*p == ' ') continue;
        if (*p == '.') {
            if (end - p < 3 || p[1] != '.' || p[2] != '.') return -1;
            for (int k = ell - ell_dims; k < ell; k++) {
                if (*n >= OE_MAX_RANK) return -1;
                codes[(*n)++] = EIN_ELL + k;
            }
            p += 2;
        } else if (letter(*p) >= 0 && *n < OE_MAX_RANK) {
            codes[(*n)++] = letter(*p);
        } else {
            return -1;
        }
    }
    return 0;
}

static int explicit_letters(const char *p, const char *end)
{
    int n = 0;
    for (; p < end; p++) n += letter(*p) >= 0;
    return n;
}

static int einsum_sizes(ectx *c, einsum *e)
{
    for (int t = 0; t < e->nops; t++) {
        const oe_tensor *x = oe_in_tensor(c, (size_t)t);
        if (e->nterm[t] != x->rank) return oe_fail(c, "operand %d does not match the equation", t);
        for (int i = 0; i < x->rank; i++) {
            int64_t *sz = &e->size[e->terms[t][i]];
            if (*sz <= 1) *sz = x->dims[i];
            else if (x->dims[i] != 1 && x->dims[i] != *sz) return oe_fail(c, "an index has two sizes");
        }
    }
    return OE_OK;
}

/* Parses "ij,jk->ik", "...ii->...i" or an implicit output ("ij,jk": letters used once, sorted). */
static int einsum_parse(ectx *c, const char *eq, einsum *e)
{
    memset(e, 0, sizeof *e);
    const char *arrow = strstr(eq, "->"), *lhs_end = arrow ? arrow : eq + strlen(eq);
    const char *starts[EIN_MAX_OPS], *ends[EIN_MAX_OPS];
    starts[0] = eq;
    for (const char *p = eq; p < lhs_end; p++)
        if (*p == ',') {
            ends[e->nops++] = p;
            if (e->nops >= EIN_MAX_OPS) return OE_UNSUPPORTED;
            starts[e->nops] = p + 1;
        }
    ends[e->nops++] = lhs_end;
    if ((size_t)e->nops != c->nin) return oe_fail(c, "the equation names %d operands, the node has %zu", e->nops, c->nin);
    for (int t = 0; t < e->nops; t++) {
        const oe_tensor *x = oe_in_tensor(c, (size_t)t);
        if (!x) return oe_fail(c, "missing operand %d", t);
        int extra = x->rank - explicit_letters(starts[t], ends[t]);
        if (extra > e->ell && memchr(starts[t], '.', (size_t)(ends[t] - starts[t]))) e->ell = extra;
    }
    for (int t = 0; t < e->nops; t++) {
        int extra = oe_in_tensor(c, (size_t)t)->rank - explicit_letters(starts[t], ends[t]);
        if (extra < 0 || einsum_term(starts[t], ends[t], extra, e->ell, e->terms[t], &e->nterm[t]))
            return oe_fail(c, "operand %d does not match the equation", t);
    }
    if (arrow) {
        if (einsum_term(arrow + 2, arrow + 2 + strlen(arrow + 2), e->ell, e->ell, e->out, &e->nout))
            return oe_fail(c, "bad output indices");
    } else {
        int count[EIN_LETTERS] = {0};
        for (int t = 0; t < e->nops; t++)
            for (int i = 0; i < e->nterm[t]; i++) count[e->terms[t][i]]++;
        for (int k = 0; k < e->ell; k++) e->out[e->nout++] = EIN_ELL + k;
        for (int l = 0; l < EIN_ELL && e->nout < OE_MAX_RANK; l++)
            if (count[l] == 1) e->out[e->nout++] = l;
    }
    return einsum_sizes(c, e);
}

static int k_einsum(ectx *c)
{
    char eq[128];
    oe_attr_s(c, "equation", "", eq, sizeof eq);
    einsum e;
    int rc = einsum_parse(c, eq, &e);
    if (rc) return rc;
    /* the loop order: output indices, then the summed ones */
    int order[EIN_LETTERS], nl = 0, no = e.nout;
    bool used[EIN_LETTERS] = {0};
    int64_t dims[OE_MAX_RANK];
    for (int i = 0; i < no; i++) {
        if (used[e.out[i]]) return oe_fail(c, "bad output indices");
        used[e.out[i]] = true;
        order[nl++] = e.out[i];
        dims[i] = e.size[e.out[i]];
    }
    for (int t = 0; t < e.nops; t++)
        for (int i = 0; i < e.nterm[t]; i++)
            if (!used[e.terms[t][i]]) {
                used[e.terms[t][i]] = true;
                order[nl++] = e.terms[t][i];
            }
    if (oe_out(c, 0, oe_in_tensor(c, 0)->dtype, dims, no)) return OE_ERROR;
    /* strides of each operand per index (a repeated index adds up: a diagonal; a broadcast 1: 0) */
    int64_t st[EIN_MAX_OPS][EIN_LETTERS] = {{0}};
    for (int t = 0; t < e.nops; t++) {
        const oe_tensor *x = oe_in_tensor(c, (size_t)t);
        int64_t s[OE_MAX_RANK];
        ot_strides(x->dims, x->rank, s);
        for (int i = 0; i < x->rank; i++)
            if (x->dims[i] != 1 || e.size[e.terms[t][i]] == 1) st[t][e.terms[t][i]] += s[i];
    }
    /* one odometer over every index, output indices outermost: element t of the walk adds to
     * output element t / inner */
    int64_t inner = 1, idx[EIN_LETTERS] = {0}, off[EIN_MAX_OPS] = {0};
    for (int i = no; i < nl; i++) inner *= e.size[order[i]];
    int64_t total = c->out[0].numel * inner;
    double *acc = xcalloc(oe_cnt(c->out[0].numel), sizeof *acc);
    for (int64_t t = 0; t < total; t++) {
        double prod = 1;
        for (int k = 0; k < e.nops; k++) prod *= ot_get_f(oe_in_tensor(c, (size_t)k), off[k]);
        acc[t / inner] += prod;
        for (int i = nl - 1; i >= 0; i--) {
            int l = order[i];
            for (int k = 0; k < e.nops; k++) off[k] += st[k][l];
            if (++idx[i] < e.size[l]) break;
            for (int k = 0; k < e.nops; k++) off[k] -= st[k][l] * idx[i];
            idx[i] = 0;
        }
    }
    ot_store_doubles(&c->out[0], acc);
    free(acc);
    return OE_OK;
}

static int k_det(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a || a->rank < 2 || a->dims[a->rank - 1] != a->dims[a->rank - 2] || !oe_is_float(a->dtype))
        return oe_fail(c, "expects square floating-point matrices");
    int64_t n = a->dims[a->rank - 1], mats = ot_numel_of(a->dims, a->rank - 2);
    if (oe_out(c, 0, a->dtype, a->dims, a->rank - 2)) return OE_ERROR;
    double *m = xmalloc(oe_cnt(n * n) * sizeof *m);
    for (int64_t k = 0; k < mats; k++) {
        for (int64_t i = 0; i < n * n; i++) m[i] = ot_get_f(a, k * n * n + i);
        double det = 1;
        for (int64_t col = 0; col < n; col++) {
            int64_t piv = col;
            for (int64_t r = col + 1; r < n; r++)
                if (fabs(m[r * n + col]) > fabs(m[piv * n + col])) piv = r;
            if (m[piv * n + col] == 0) { det = 0; break; }
            if (piv != col) {
                for (int64_t j = 0; j < n; j++) {
                    double t = m[col * n + j];
                    m[col * n + j] = m[piv * n + j];
                    m[piv * n + j] = t;
                }
                det = -det;
            }
            det *= m[col * n + col];
            for (int64_t r = col + 1; r < n; r++) {
                double f = m[r * n + col] / m[col * n + col];
                for (int64_t j = col; j < n; j++) m[r * n + j] -= f * m[col * n + j];
            }
        }
        ot_set_f(&c->out[0], k, det);
    }
    free(m);
    return OE_OK;
}

/* ---- normalization ----------------------------------------------------------------------------- */

/* BatchNormalization: inference mode uses the running statistics; training mode the batch's
 * (population variance), and also returns the updated running mean and variance. */
static int k_batch_norm(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *p[4] = {oe_in_tensor(c, 1), oe_in_tensor(c, 2), oe_in_tensor(c, 3), oe_in_tensor(c, 4)};
    if (!x || !p[0] || !p[1] || !p[2] || !p[3]) return oe_fail(c, "missing input");
    if (!oe_is_float(x->dtype) || x->rank < 2) return oe_fail(c, "expects a float input of rank 2 or more");
    bool training = oe_attr_i(c, "training_mode", 0) != 0 && c->opset >= 14;
    if (c->opset < 14 && c->nout > 1) return OE_UNSUPPORTED;
    int64_t ch = x->dims[1], inner = ot_numel_of(x->dims + 2, x->rank - 2), per = x->dims[0] * inner;
    for (int k = 0; k < 4; k++)
        if (p[k]->numel != ch) return oe_fail(c, "scale, B, mean and var must have one value per channel");
    double eps = oe_attr_f(c, "epsilon", 1e-5), mom = oe_attr_f(c, "momentum", 0.9);
    double *mean = xcalloc(oe_cnt(ch), sizeof *mean), *var = xcalloc(oe_cnt(ch), sizeof *var);
    for (int64_t k = 0; k < ch; k++) {
        mean[k] = ot_get_f(p[2], k);
        var[k] = ot_get_f(p[3], k);
    }
    if (training) {
        for (int64_t k = 0; k < ch; k++) mean[k] = var[k] = 0;
        for (int64_t i = 0; i < x->numel; i++) mean[(i / inner) % ch] += ot_get_f(x, i);
        for (int64_t k = 0; k < ch; k++) mean[k] /= (double)(per ? per : 1);
        for (int64_t i = 0; i < x->numel; i++) {
            double d = ot_get_f(x, i) - mean[(i / inner) % ch];
            var[(i / inner) % ch] += d * d;
        }
        for (int64_t k = 0; k < ch; k++) var[k] /= (double)(per ? per : 1);
    }
    int rc = oe_out(c, 0, x->dtype, x->dims, x->rank);
    for (int64_t i = 0; rc == OE_OK && i < x->numel; i++) {
        int64_t k = (i / inner) % ch;
        double v = (ot_get_f(x, i) - mean[k]) / sqrt(var[k] + eps);
        ot_set_f(&c->out[0], i, v * ot_get_f(p[0], k) + ot_get_f(p[1], k));
    }
    for (size_t o = 1; rc == OE_OK && training && o < 3 && o < c->nout; o++) {
        rc = oe_out(c, o, p[o + 1]->dtype, &ch, 1);
        for (int64_t k = 0; rc == OE_OK && k < ch; k++)
            ot_set_f(&c->out[o], k, ot_get_f(p[o + 1], k) * mom + (o == 1 ? mean[k] : var[k]) * (1 - mom));
    }
    free(mean);
    free(var);
    return rc;
}

/* Normalizes groups of `size` consecutive elements: y = (x - mean) / sqrt(var + eps) * s + b,
 * with scale/bias index = scale_of(element index). */
static void normalize_groups(const double *x, double *y, int64_t groups, int64_t size, double eps,
                             double *means, double *inv_std)
{
    for (int64_t g = 0; g < groups; g++) {
        const double *xg = x + g * size;
        double m = 0, v = 0;
        for (int64_t i = 0; i < size; i++) m += xg[i];
        m /= (double)(size ? size : 1);
        for (int64_t i = 0; i < size; i++) v += (xg[i] - m) * (xg[i] - m);
        v /= (double)(size ? size : 1);
        double is = 1 / sqrt(v + eps);
        for (int64_t i = 0; i < size; i++) y[g * size + i] = (xg[i] - m) * is;
        if (means) means[g] = m;
        if (inv_std) inv_std[g] = is;
    }
}

static int k_instance_norm(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *s = oe_in_tensor(c, 1), *b = oe_in_tensor(c, 2);
    if (!x || !s || !b || x->rank < 2 || !oe_is_float(x->dtype)) return oe_fail(c, "expects X, scale and B");
    int64_t ch = x->dims[1], inner = ot_numel_of(x->dims + 2, x->rank - 2);
    if (s->numel != ch || b->numel != ch) return oe_fail(c, "scale and B must have one value per channel");
    if (oe_out(c, 0, x->dtype, x->dims, x->rank)) return OE_ERROR;
    double *v = ot_doubles(x), *y = xmalloc(oe_cnt(x->numel) * sizeof *y);
    normalize_groups(v, y, x->numel / (inner ? inner : 1), inner, oe_attr_f(c, "epsilon", 1e-5), NULL, NULL);
    for (int64_t i = 0; i < x->numel; i++) {
        int64_t k = (i / (inner ? inner : 1)) % ch;
        y[i] = y[i] * ot_get_f(s, k) + ot_get_f(b, k);
    }
    ot_store_doubles(&c->out[0], y);
    free(v);
    free(y);
    return OE_OK;
}

static int k_layer_norm(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *s = oe_in_tensor(c, 1), *b = oe_in_tensor(c, 2);
    if (!x || !s || !oe_is_float(x->dtype)) return oe_fail(c, "expects X and Scale");
    int64_t axis;
    if (oe_norm_axis(oe_attr_i(c, "axis", -1), x->rank, &axis)) return oe_fail(c, "bad axis");
    int64_t size = ot_numel_of(x->dims + axis, x->rank - (int)axis), groups = ot_numel_of(x->dims, (int)axis);
    oe_tensor nshape = {.rank = x->rank - (int)axis};
    memcpy(nshape.dims, x->dims + axis, sizeof(int64_t) * (size_t)nshape.rank);
    const oe_tensor *ts[3] = {&nshape, s, b};
    int64_t bd[OE_MAX_RANK];
    int r;
    if (oe_bcast_shape(ts, b ? 3 : 2, bd, &r) || r != nshape.rank || ot_numel_of(bd, r) != size)
        return oe_fail(c, "Scale and B must broadcast to the normalized shape");
    int64_t sdims[OE_MAX_RANK];
    for (int i = 0; i < x->rank; i++) sdims[i] = i < axis ? x->dims[i] : 1;
    int rc = oe_out(c, 0, x->dtype, x->dims, x->rank);
    int stash = (int)oe_attr_i(c, "stash_type", T_FLOAT);
    for (size_t o = 1; rc == OE_OK && o < 3 && o < c->nout; o++) rc = oe_out(c, o, stash, sdims, x->rank);
    if (rc) return rc;
    double *v = ot_doubles(x), *y = xmalloc(oe_cnt(x->numel) * sizeof *y);
    double *means = xmalloc(oe_cnt(groups) * sizeof *means), *is = xmalloc(oe_cnt(groups) * sizeof *is);
    normalize_groups(v, y, groups, size, oe_attr_f(c, "epsilon", 1e-5), means, is);
    oe_bit it;
    oe_bit_init(&it, ts + 1, b ? 2 : 1, nshape.dims, nshape.rank);
    for (int64_t i = 0; i < size; i++, oe_bit_next(&it)) {
        double sc = ot_get_f(s, it.off[0]), bi = b ? ot_get_f(b, it.off[1]) : 0;
        for (int64_t g = 0; g < groups; g++) y[g * size + i] = y[g * size + i] * sc + bi;
    }
    ot_store_doubles(&c->out[0], y);
    for (int64_t g = 0; g < groups; g++) {
        if (c->nout > 1 && c->out[1].data) ot_set_f(&c->out[1], g, means[g]);
        if (c->nout > 2 && c->out[2].data) ot_set_f(&c->out[2], g, is[g]);
    }
    free(v);
    free(y);
    free(means);
    free(is);
    return OE_OK;
}

static int k_group_norm(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *s = oe_in_tensor(c, 1), *b = oe_in_tensor(c, 2);
    int64_t ng = oe_attr_i(c, "num_groups", 0);
    if (!x || !s || !b || x->rank < 2 || ng <= 0 || x->dims[1] % ng) return oe_fail(c, "expects X, scale, B and num_groups dividing the channels");
    int64_t ch = x->dims[1], inner = ot_numel_of(x->dims + 2, x->rank - 2), gsize = ch / ng * inner;
    bool per_channel = s->numel == ch;
    if ((!per_channel && s->numel != ng) || b->numel != s->numel) return oe_fail(c, "scale and B must have one value per group or channel");
    if (oe_out(c, 0, x->dtype, x->dims, x->rank)) return OE_ERROR;
    double *v = ot_doubles(x), *y = xmalloc(oe_cnt(x->numel) * sizeof *y);
    normalize_groups(v, y, x->numel / (gsize ? gsize : 1), gsize, oe_attr_f(c, "epsilon", 1e-5), NULL, NULL);
    for (int64_t i = 0; i < x->numel; i++) {
        int64_t chan = (i / (inner ? inner : 1)) % ch, k = per_channel ? chan : chan / (ch / ng);
        y[i] = y[i] * ot_get_f(s, k) + ot_get_f(b, k);
    }
    ot_store_doubles(&c->out[0], y);
    free(v);
    free(y);
    return OE_OK;
}

static int k_lrn(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0);
    int64_t size = oe_attr_i(c, "size", 0);
    if (!x || x->rank < 3 || size <= 0) return oe_fail(c, "expects an N×C×... input and a positive size");
    double alpha = oe_attr_f(c, "alpha", 1e-4), beta = oe_attr_f(c, "beta", 0.75), bias = oe_attr_f(c, "bias", 1.0);
    int64_t ch = x->dims[1], inner = ot_numel_of(x->dims + 2, x->rank - 2);
    int64_t lo = (size - 1) / 2, hi = (size - 1) - lo;
    if (oe_out(c, 0, x->dtype, x->dims, x->rank)) return OE_ERROR;
    for (int64_t i = 0; i < x->numel; i++) {
        int64_t n = i / (ch * inner), k = (i / inner) % ch, s = i % inner;
        double sq = 0;
        for (int64_t j = k - lo; j <= k + hi; j++)
            if (j >= 0 && j < ch) {
                double v = ot_get_f(x, (n * ch + j) * inner + s);
                sq += v * v;
            }
        ot_set_f(&c->out[0], i, ot_get_f(x, i) / pow(bias + alpha / (double)size * sq, beta));
    }
    return OE_OK;
}

static int k_dropout(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0), *ratio = oe_in_tensor(c, 1), *train = oe_in_tensor(c, 2);
    if (!x) return oe_fail(c, "missing input");
    bool training = train && train->numel == 1 && ot_get_i(train, 0) != 0;
    double r = ratio && ratio->numel == 1 ? ot_get_f(ratio, 0) : oe_attr_f(c, "ratio", 0.5);
    if (c->opset < 7 && oe_attr_i(c, "is_test", 0) == 0 && c->opset >= 6) training = true;
    if (training && r != 0) return oe_fail(c, "dropout in training mode is random; the evaluator runs inference only");
    ot_tensor_copy(&c->out[0], x);
    if (c->nout > 1) {
        if (oe_out(c, 1, T_BOOL, x->dims, x->rank)) return OE_ERROR;
        if (x->numel) memset(c->out[1].data, 1, (size_t)x->numel);
    }
    return OE_OK;
}

const oe_op_def oe_ops_nn[] = {
    {"MatMul", k_matmul, 0, false}, {"Gemm", k_gemm, 0, false}, {"Einsum", k_einsum, 0, false},
    {"Det", k_det, 0, false}, {"BatchNormalization", k_batch_norm, 0, true},
    {"InstanceNormalization", k_instance_norm, 0, false}, {"LayerNormalization", k_layer_norm, 0, false},
    {"GroupNormalization", k_group_norm, 0, false}, {"LRN", k_lrn, 0, false}, {"Dropout", k_dropout, 0, false},
    {NULL, NULL, 0, false},
};
