/* onnx_eval_rnn.c — the recurrent layers RNN, GRU and LSTM (forward, reverse, bidirectional;
 * sequence_lens, initial states, peepholes, clip, custom activations, both layouts). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

enum { K_RNN, K_GRU, K_LSTM };
enum { MAX_ACT = 6 };

typedef struct act {
    char name[24];
    double alpha, beta;
} act;

static double apply_act(const act *a, double x)
{
    const char *n = a->name;
    if (!strcmp(n, "Sigmoid")) return 1 / (1 + exp(-x));
    if (!strcmp(n, "Tanh")) return tanh(x);
    if (!strcmp(n, "Relu")) return x > 0 ? x : 0;
    if (!strcmp(n, "Affine")) return a->alpha * x + a->beta;
    if (!strcmp(n, "LeakyRelu")) return x < 0 ? a->alpha * x : x;
    if (!strcmp(n, "ThresholdedRelu")) return x > a->alpha ? x : 0;
    if (!strcmp(n, "ScaledTanh")) return a->alpha * tanh(a->beta * x);
    if (!strcmp(n, "HardSigmoid")) return fmax(0, fmin(1, a->alpha * x + a->beta));
    if (!strcmp(n, "Elu")) return x < 0 ? a->alpha * (exp(x) - 1) : x;
    if (!strcmp(n, "Softsign")) return x / (1 + fabs(x));
    if (!strcmp(n, "Softplus")) return log1p(exp(x));
    return x;
}

static bool known_act(const char *n)
{
    static const char *const names[] = {"Sigmoid", "Tanh", "Relu", "Affine", "LeakyRelu", "ThresholdedRelu",
                                        "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(n, names[i])) return true;
    return false;
}

typedef struct rnn {
    int kind, gates, dirs, nact;
    int64_t seq, batch, in, hid;
    bool batchwise, reverse_only, lbr;
    double clip;
    act acts[MAX_ACT];               /* per direction: RNN 1, GRU 2, LSTM 3 */
    const oe_tensor *x, *w, *r, *b, *lens, *h0, *c0, *p;
} rnn;

/* The activations attribute (with alpha/beta lists consumed in order), or the defaults. */
static int read_acts(ectx *c, rnn *m)
{
    static const char *const dflt[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
    int per = m->kind == K_RNN ? 1 : m->kind == K_GRU ? 2 : 3;
    m->nact = per * m->dirs;
    Onnx__AttributeProto *aa = oe_attr(c, "activations");
    double alphas[MAX_ACT], betas[MAX_ACT];
    int64_t na = oe_attr_floats(c, "activation_alpha", alphas, MAX_ACT), nb = oe_attr_floats(c, "activation_beta", betas, MAX_ACT);
    int ai = 0, bi = 0;
    for (int k = 0; k < m->nact; k++) {
        act *a = &m->acts[k];
        if (aa && (size_t)k < aa->n_strings) {
            size_t len = aa->strings[k].len < sizeof a->name - 1 ? aa->strings[k].len : sizeof a->name - 1;
            memcpy(a->name, aa->strings[k].data, len);
            a->name[len] = 0;
        } else {
            strcpy(a->name, dflt[m->kind][k % per]);
        }
        if (!known_act(a->name)) return OE_UNSUPPORTED;
        bool takes_a = strcmp(a->name, "Sigmoid") && strcmp(a->name, "Tanh") && strcmp(a->name, "Relu") &&
                       strcmp(a->name, "Softsign") && strcmp(a->name, "Softplus");
        bool takes_b = !strcmp(a->name, "Affine") || !strcmp(a->name, "ScaledTanh") || !strcmp(a->name, "HardSigmoid");
        a->alpha = takes_a && ai < na ? alphas[ai++] : !strcmp(a->name, "LeakyRelu") ? 0.01 : !strcmp(a->name, "HardSigmoid") ? 0.2 : 1;
        a->beta = takes_b && bi < nb ? betas[bi++] : !strcmp(a->name, "HardSigmoid") ? 0.5 : 0;
    }
    return OE_OK;
}

static int rnn_read(ectx *c, rnn *m)
{
    memset(m, 0, sizeof *m);
    m->kind = c->arg;
    m->gates = m->kind == K_RNN ? 1 : m->kind == K_GRU ? 3 : 4;
    m->x = oe_in_tensor(c, 0), m->w = oe_in_tensor(c, 1), m->r = oe_in_tensor(c, 2), m->b = oe_in_tensor(c, 3);
    m->lens = oe_in_tensor(c, 4), m->h0 = oe_in_tensor(c, 5);
    if (m->kind == K_LSTM) m->c0 = oe_in_tensor(c, 6), m->p = oe_in_tensor(c, 7);
    char dir[24];
    oe_attr_s(c, "direction", "forward", dir, sizeof dir);
    m->dirs = !strcmp(dir, "bidirectional") ? 2 : 1;
    m->reverse_only = !strcmp(dir, "reverse");
    m->batchwise = oe_attr_i(c, "layout", 0) != 0;
    m->lbr = oe_attr_i(c, "linear_before_reset", 0) != 0;
    m->clip = oe_attr_f(c, "clip", 0);
    if (oe_attr_i(c, "input_forget", 0)) return OE_UNSUPPORTED;
    if (!m->x || !m->w || !m->r || m->x->rank != 3 || m->w->rank != 3 || m->r->rank != 3 || !oe_is_float(m->x->dtype))
        return oe_fail(c, "expects X, W and R of rank 3");
    m->seq = m->x->dims[m->batchwise ? 1 : 0];
    m->batch = m->x->dims[m->batchwise ? 0 : 1];
    m->in = m->x->dims[2];
    m->hid = m->r->dims[2];
    if (m->w->dims[0] != m->dirs || m->w->dims[1] != m->gates * m->hid || m->w->dims[2] != m->in ||
        m->r->dims[0] != m->dirs || m->r->dims[1] != m->gates * m->hid)
        return oe_fail(c, "W and R do not match X, hidden_size and direction");
    if ((m->b && m->b->numel != m->dirs * 2 * m->gates * m->hid) || (m->lens && m->lens->numel != m->batch) ||
        (m->h0 && m->h0->numel != m->dirs * m->batch * m->hid) || (m->c0 && m->c0->numel != m->dirs * m->batch * m->hid) ||
        (m->p && m->p->numel != m->dirs * 3 * m->hid))
        return oe_fail(c, "B, sequence_lens, initial states or P have the wrong size");
    return read_acts(c, m);
}

static double clipped(const rnn *m, double v)
{
    return m->clip > 0 ? fmax(-m->clip, fmin(m->clip, v)) : v;
}

/* One time step of direction d for batch row n: updates h (and cs for LSTM) in place. */
static void rnn_cell(const rnn *m, int d, const double *xt, double *h, double *cs, double *g)
{
    int64_t H = m->hid, G = m->gates;
    const act *A = &m->acts[d * (m->kind == K_RNN ? 1 : m->kind == K_GRU ? 2 : 3)];
    for (int64_t j = 0; j < G * H; j++) {
        double v = 0;
        for (int64_t k = 0; k < m->in; k++) v += xt[k] * ot_get_f(m->w, (d * G * H + j) * m->in + k);
        if (m->b) v += ot_get_f(m->b, d * 2 * G * H + j);
        g[j] = v;
    }
    /* the recurrent part: for GRU's h gate it may depend on r, so it is kept apart */
    double *rh = g + G * H;
    for (int64_t j = 0; j < G * H; j++) {
        double v = m->b ? ot_get_f(m->b, d * 2 * G * H + G * H + j) : 0;
        for (int64_t k = 0; k < H; k++) v += h[k] * ot_get_f(m->r, (d * G * H + j) * H + k);
        rh[j] = v;
    }
    if (m->kind == K_RNN) {
        for (int64_t j = 0; j < H; j++) h[j] = apply_act(&A[0], clipped(m, g[j] + rh[j]));
    } else if (m->kind == K_GRU) {
        double *z = rh + G * H, *rr = z + H;
        for (int64_t j = 0; j < H; j++) {
            z[j] = apply_act(&A[0], clipped(m, g[j] + rh[j]));
            rr[j] = apply_act(&A[0], clipped(m, g[H + j] + rh[H + j]));
        }
        for (int64_t j = 0; j < H; j++) {
            double hh;
            if (m->lbr) {
                hh = g[2 * H + j] + rr[j] * rh[2 * H + j];
            } else {
                double v = m->b ? ot_get_f(m->b, d * 6 * H + 5 * H + j) : 0;
                for (int64_t k = 0; k < H; k++) v += rr[k] * h[k] * ot_get_f(m->r, (d * 3 * H + 2 * H + j) * H + k);
                hh = g[2 * H + j] + v;
            }
            g[2 * H + j] = (1 - z[j]) * apply_act(&A[1], clipped(m, hh)) + z[j] * h[j];
        }
        for (int64_t j = 0; j < H; j++) h[j] = g[2 * H + j];
    } else {
        for (int64_t j = 0; j < H; j++) {
            double pi = m->p ? ot_get_f(m->p, d * 3 * H + j) : 0, po = m->p ? ot_get_f(m->p, d * 3 * H + H + j) : 0;
            double pf = m->p ? ot_get_f(m->p, d * 3 * H + 2 * H + j) : 0;
            double i = apply_act(&A[0], clipped(m, g[j] + rh[j] + pi * cs[j]));
            double f = apply_act(&A[0], clipped(m, g[2 * H + j] + rh[2 * H + j] + pf * cs[j]));
            double cc = apply_act(&A[1], clipped(m, g[3 * H + j] + rh[3 * H + j]));
            cs[j] = f * cs[j] + i * cc;
            double o = apply_act(&A[0], clipped(m, g[H + j] + rh[H + j] + po * cs[j]));
            g[j] = o * apply_act(&A[2], cs[j]);
        }
        for (int64_t j = 0; j < H; j++) h[j] = g[j];
    }
}

/* Runs direction d over every batch row, writing Y (when wanted) and the final states. */
static void rnn_direction(const rnn *m, int d, bool reverse, double *y, double *yh, double *yc)
{
    int64_t H = m->hid;
    double *h = xmalloc(oe_cnt(H) * sizeof *h), *cs = xcalloc(oe_cnt(H), sizeof *cs);
    double *g = xmalloc(oe_cnt((2 * m->gates + 2) * H) * sizeof *g), *xt = xmalloc(oe_cnt(m->in) * sizeof *xt);
    for (int64_t n = 0; n < m->batch; n++) {
        for (int64_t j = 0; j < H; j++) {
            h[j] = m->h0 ? ot_get_f(m->h0, (d * m->batch + n) * H + j) : 0;
            cs[j] = m->c0 ? ot_get_f(m->c0, (d * m->batch + n) * H + j) : 0;
        }
        int64_t len = m->lens ? ot_get_i(m->lens, n) : m->seq;
        if (len > m->seq) len = m->seq;
        for (int64_t s = 0; s < len; s++) {
            int64_t t = reverse ? len - 1 - s : s;
            for (int64_t k = 0; k < m->in; k++)
                xt[k] = ot_get_f(m->x, (m->batchwise ? n * m->seq + t : t * m->batch + n) * m->in + k);
            rnn_cell(m, d, xt, h, cs, g);
            /* Y is [seq, dirs, batch, hidden], or [batch, seq, dirs, hidden] with layout 1 */
            int64_t row = m->batchwise ? (n * m->seq + t) * m->dirs + d : (t * m->dirs + d) * m->batch + n;
            for (int64_t j = 0; j < H; j++) y[row * H + j] = h[j];
        }
        for (int64_t j = 0; j < H; j++) {
            int64_t at = m->batchwise ? (n * m->dirs + d) * H + j : (d * m->batch + n) * H + j;
            yh[at] = h[j];
            yc[at] = cs[j];
        }
    }
    free(h);
    free(cs);
    free(g);
    free(xt);
}

static int k_rnn(ectx *c)
{
    rnn m;
    int rc = rnn_read(c, &m);
    if (rc) return rc;
    int64_t ydims[4], hdims[3];
    if (m.batchwise) {
        ydims[0] = m.batch, ydims[1] = m.seq, ydims[2] = m.dirs, ydims[3] = m.hid;
        hdims[0] = m.batch, hdims[1] = m.dirs, hdims[2] = m.hid;
    } else {
        ydims[0] = m.seq, ydims[1] = m.dirs, ydims[2] = m.batch, ydims[3] = m.hid;
        hdims[0] = m.dirs, hdims[1] = m.batch, hdims[2] = m.hid;
    }
    int64_t ny = ot_numel_of(ydims, 4), nh = ot_numel_of(hdims, 3);
    if (ny > OE_HARD_MAX_NUMEL) return oe_fail(c, "output too large");
    double *y = xcalloc(oe_cnt(ny), sizeof *y), *yh = xcalloc(oe_cnt(nh), sizeof *yh), *yc = xcalloc(oe_cnt(nh), sizeof *yc);
    for (int d = 0; d < m.dirs; d++) rnn_direction(&m, d, m.reverse_only || d == 1, y, yh, yc);
    const double *res[3] = {y, yh, yc};
    for (size_t k = 0; rc == OE_OK && k < c->nout && k < 3; k++) {
        if (k < c->n->n_output && (!c->n->output[k] || !*c->n->output[k])) continue;
        rc = oe_out(c, k, m.x->dtype, k ? hdims : ydims, k ? 3 : 4);
        if (rc == OE_OK) ot_store_doubles(&c->out[k], res[k]);
    }
    free(y);
    free(yh);
    free(yc);
    return rc;
}

const oe_op_def oe_ops_rnn[] = {
    {"RNN", k_rnn, K_RNN, false}, {"GRU", k_rnn, K_GRU, false}, {"LSTM", k_rnn, K_LSTM, false},
    {NULL, NULL, 0, false},
};
