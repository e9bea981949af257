/* onnx_eval_random.c — the random generators: RandomUniform(Like), RandomNormal(Like), Bernoulli
 * and Multinomial. A node with a `seed` attribute draws the same numbers on every run (ONNX leaves
 * the generator to the runtime: no value matches ONNX Runtime's or torch's, only the
 * distribution); one without draws from the run's stream, seeded by the evaluation's options
 * (oe_model_opts.seed), so that one run is reproducible and two nodes differ. None of them is
 * folded as a constant. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

/* splitmix64: a small generator of good quality for a stream per node */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next_u64(rng *g)
{
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform in [0, 1), 53 random bits */
static double next_unit(rng *g)
{
    return (double)(next_u64(g) >> 11) * (1.0 / 9007199254740992.0);
}

/* standard normal (Box–Muller; the unit draw is in (0, 1] so that the log is finite) */
static double next_normal(rng *g)
{
    double u = 1.0 - next_unit(g), v = next_unit(g);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* The node's generator: from its seed attribute, else the next draw of the run's stream. */
static rng node_rng(ectx *c)
{
    Onnx__AttributeProto *a = oe_attr(c, "seed");
    rng g;
    if (a) {
        double s = oe_attr_f(c, "seed", 0);
        uint64_t bits;
        memcpy(&bits, &s, sizeof bits);
        g.s = bits ^ 0x5851f42d4c957f2dull;
    } else {
        g.s = oe_run_entropy(c);
    }
    return g;
}

/* The output type: the dtype attribute, else dflt; a floating type (float16, float, double,
 * bfloat16) or, where allowed, any numeric type and bool. */
static int out_dtype(ectx *c, int dflt, bool any)
{
    int dt = (int)oe_attr_i(c, "dtype", dflt);
    if (oe_is_float(dt) || (any && (oe_is_int(dt) || dt == T_BOOL))) return dt;
    oe_fail(c, "dtype %d is not a type this operator produces", dt);
    return -1;
}

enum { UNIFORM, NORMAL };

/* RandomUniform / RandomNormal (shape attribute) and their Like forms (input 0's shape). */
static int k_random(ectx *c)
{
    bool like = c->arg & 2;
    int kind = c->arg & 1;
    int64_t dims[OE_MAX_RANK];
    int rank;
    int dt;
    if (like) {
        const oe_tensor *x = oe_in_tensor(c, 0);
        if (!x) return oe_fail(c, "expects a tensor input");
        rank = x->rank;
        memcpy(dims, x->dims, sizeof(int64_t) * (size_t)rank);
        dt = out_dtype(c, x->dtype, false);
    } else {
        int64_t n = oe_attr_ints(c, "shape", dims, OE_MAX_RANK);
        if (n < 0) return oe_fail(c, "needs a shape attribute of at most %d dims", OE_MAX_RANK);
        rank = (int)n;
        dt = out_dtype(c, T_FLOAT, false);
    }
    if (dt < 0 || oe_out(c, 0, dt, dims, rank)) return OE_ERROR;
    double a = kind == UNIFORM ? oe_attr_f(c, "low", 0) : oe_attr_f(c, "mean", 0);
    double b = kind == UNIFORM ? oe_attr_f(c, "high", 1) : oe_attr_f(c, "scale", 1);
    rng g = node_rng(c);
    for (int64_t i = 0; i < c->out[0].numel; i++)
        ot_set_f(&c->out[0], i, kind == UNIFORM ? a + (b - a) * next_unit(&g) : a + b * next_normal(&g));
    return OE_OK;
}

/* Bernoulli: 1 with the input's probability, else 0, in the dtype attribute's type (the input's
 * by default). */
static int k_bernoulli(ectx *c)
{
    const oe_tensor *p = oe_in_tensor(c, 0);
    if (!p || !oe_is_float(p->dtype)) return oe_fail(c, "expects floating probabilities");
    int dt = out_dtype(c, p->dtype, true);
    if (dt < 0 || oe_out(c, 0, dt, p->dims, p->rank)) return OE_ERROR;
    rng g = node_rng(c);
    for (int64_t i = 0; i < p->numel; i++) {
        double q = ot_get_f(p, i);
        if (!(q >= 0 && q <= 1)) return oe_fail(c, "probability %g is outside [0, 1]", q);
        ot_set_f(&c->out[0], i, next_unit(&g) < q ? 1 : 0);
    }
    return OE_OK;
}

/* Multinomial: sample_size class indices per row of unnormalized log-probabilities [batch,
 * classes], with replacement, in int32 or int64. */
static int k_multinomial(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0);
    if (!x || x->rank != 2 || !oe_is_float(x->dtype)) return oe_fail(c, "expects [batch, classes] floating log-probabilities");
    int64_t n = oe_attr_i(c, "sample_size", 1), batch = x->dims[0], k = x->dims[1];
    int dt = (int)oe_attr_i(c, "dtype", T_INT32);
    if (dt != T_INT32 && dt != T_INT64) return oe_fail(c, "dtype must be int32 or int64, not %d", dt);
    if (n < 0) return oe_fail(c, "sample_size %lld is negative", (long long)n);
    int64_t dims[2] = {batch, n};
    if (oe_out(c, 0, dt, dims, 2)) return OE_ERROR;
    double *cum = xmalloc(oe_cnt(k ? k : 1) * sizeof *cum);
    rng g = node_rng(c);
    for (int64_t r = 0; r < batch; r++) {
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < k; j++) mx = fmax(mx, ot_get_f(x, r * k + j));
        for (int64_t j = 0; j < k; j++) {
            double v = ot_get_f(x, r * k + j);
            sum += isinf(mx) && mx < 0 ? 0 : exp(v - mx);   /* exp(-inf) = 0: that class is never drawn */
            cum[j] = sum;
        }
        if (!(sum > 0) || !isfinite(sum)) {
            free(cum);
            return oe_fail(c, "row %lld has no class with a finite positive probability", (long long)r);
        }
        for (int64_t s = 0; s < n; s++) {
            double u = next_unit(&g) * sum;
            int64_t j = 0;
            while (j < k - 1 && !(u < cum[j])) j++;
            while (j > 0 && cum[j] == cum[j - 1]) j--;   /* u at the top by rounding: the last class drawn can be */
            ot_set_f(&c->out[0], r * n + s, (double)j);
        }
    }
    free(cum);
    return OE_OK;
}

const oe_op_def oe_ops_random[] = {
    {"RandomUniform", k_random, UNIFORM, false}, {"RandomNormal", k_random, NORMAL, false},
    {"RandomUniformLike", k_random, 2 | UNIFORM, false}, {"RandomNormalLike", k_random, 2 | NORMAL, false},
    {"Bernoulli", k_bernoulli, 0, false}, {"Multinomial", k_multinomial, 0, false},
    {NULL, NULL, 0, false},
};
