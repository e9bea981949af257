/* onnx_eval_math.c — elementwise kernels: unary functions and activations, binary arithmetic,
 * comparisons and logic with broadcasting, variadic Max/Min/Sum/Mean, Clip, Where, Cast. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/onnx_eval_internal.h"

/* ---- unary ------------------------------------------------------------------------------------- */

enum {
    U_NEG, U_ABS, U_SQRT, U_EXP, U_LOG, U_RECIP, U_FLOOR, U_CEIL, U_ROUND, U_SIGN, U_RELU,
    U_SIGMOID, U_TANH, U_SIN, U_COS, U_TAN, U_ASIN, U_ACOS, U_ATAN, U_SINH, U_COSH, U_ASINH,
    U_ACOSH, U_ATANH, U_ERF, U_SOFTPLUS, U_SOFTSIGN, U_ELU, U_SELU, U_CELU, U_LEAKY, U_HARDSIG,
    U_HARDSWISH, U_THRESH, U_MISH, U_GELU, U_SHRINK, U_NOT, U_BITNOT, U_ISNAN, U_ISINF
};

/* The ops that exist for integer tensors too (others are float-only in ONNX). */
static bool unary_takes_ints(int op)
{
    return op == U_NEG || op == U_ABS || op == U_SIGN || op == U_RELU || op == U_SHRINK ||
           op == U_BITNOT || op == U_NOT;
}

typedef struct unary_params {
    double alpha, beta, gamma;
    bool tanh_approx;
} unary_params;

static double softplus(double x)
{
    return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

static double unary_f(int op, double x, const unary_params *p)
{
    switch (op) {
    case U_NEG: return -x;
    case U_ABS: return fabs(x);
    case U_SQRT: return sqrt(x);
    case U_EXP: return exp(x);
    case U_LOG: return log(x);
    case U_RECIP: return 1.0 / x;
    case U_FLOOR: return floor(x);
    case U_CEIL: return ceil(x);
    case U_ROUND: return nearbyint(x);
    case U_SIGN: return x > 0 ? 1 : x < 0 ? -1 : x;
    case U_RELU: return x < 0 ? 0 : x;
    case U_SIGMOID: return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
    case U_TANH: return tanh(x);
    case U_SIN: return sin(x);
    case U_COS: return cos(x);
    case U_TAN: return tan(x);
    case U_ASIN: return asin(x);
    case U_ACOS: return acos(x);
    case U_ATAN: return atan(x);
    case U_SINH: return sinh(x);
    case U_COSH: return cosh(x);
    case U_ASINH: return asinh(x);
    case U_ACOSH: return acosh(x);
    case U_ATANH: return atanh(x);
    case U_ERF: return erf(x);
    case U_SOFTPLUS: return softplus(x);
    case U_SOFTSIGN: return x / (1 + fabs(x));
    case U_ELU: return x < 0 ? p->alpha * (exp(x) - 1) : x;
    case U_SELU: return x <= 0 ? p->gamma * (p->alpha * exp(x) - p->alpha) : p->gamma * x;
    case U_CELU: return (x > 0 ? x : 0) + fmin(0, p->alpha * (exp(x / p->alpha) - 1));
    case U_LEAKY: return x < 0 ? p->alpha * x : x;
    case U_HARDSIG: return fmax(0, fmin(1, p->alpha * x + p->beta));
    case U_HARDSWISH: return x * fmax(0, fmin(1, x / 6 + 0.5));
    case U_THRESH: return x > p->alpha ? x : 0;
    case U_MISH: return x * tanh(softplus(x));
    case U_GELU:
        if (p->tanh_approx) return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
        return 0.5 * x * (1 + erf(x / sqrt(2)));
    case U_SHRINK: return x < -p->beta ? x + p->alpha : x > p->beta ? x - p->alpha : 0;
    case U_ISNAN: return x != x;
    case U_ISINF: return isinf(x) && ((x > 0 && p->alpha != 0) || (x < 0 && p->beta != 0));
    default: return 0;
    }
}

static int64_t unary_i(int op, int64_t x, const unary_params *p)
{
    switch (op) {
    case U_NEG: return (int64_t)(0 - (uint64_t)x);
    case U_ABS: return x < 0 ? (int64_t)(0 - (uint64_t)x) : x;
    case U_SIGN: return x > 0 ? 1 : x < 0 ? -1 : 0;
    case U_RELU: return x > 0 ? x : 0;
    case U_NOT: return !x;
    case U_BITNOT: return ~x;
    case U_SHRINK: {
        double d = (double)x;
        return (int64_t)(d < -p->beta ? d + p->alpha : d > p->beta ? d - p->alpha : 0);
    }
    default: return 0;
    }
}

static void unary_params_of(ectx *c, int op, unary_params *p)
{
    memset(p, 0, sizeof *p);
    switch (op) {
    case U_ELU: case U_CELU: p->alpha = oe_attr_f(c, "alpha", 1.0); break;
    case U_SELU:
        p->alpha = oe_attr_f(c, "alpha", 1.67326319217681884765625);
        p->gamma = oe_attr_f(c, "gamma", 1.05070102214813232421875);
        break;
    case U_LEAKY: p->alpha = oe_attr_f(c, "alpha", 0.01); break;
    case U_HARDSIG: p->alpha = oe_attr_f(c, "alpha", 0.2); p->beta = oe_attr_f(c, "beta", 0.5); break;
    case U_THRESH: p->alpha = oe_attr_f(c, "alpha", 1.0); break;
    case U_SHRINK: p->alpha = oe_attr_f(c, "bias", 0.0); p->beta = oe_attr_f(c, "lambd", 0.5); break;
    case U_ISINF:
        p->alpha = (double)oe_attr_i(c, "detect_positive", 1);
        p->beta = (double)oe_attr_i(c, "detect_negative", 1);
        break;
    case U_GELU: {
        char buf[16];
        p->tanh_approx = !strcmp(oe_attr_s(c, "approximate", "none", buf, sizeof buf), "tanh");
        break;
    }
    default: break;
    }
}

static int k_unary(ectx *c)
{
    int op = c->arg;
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    bool fl = oe_is_float(a->dtype);
    if (op == U_NOT ? a->dtype != T_BOOL : a->dtype == T_BOOL) return oe_fail(c, "wrong input type");
    if (!fl && !unary_takes_ints(op) && op != U_ISNAN && op != U_ISINF) return OE_UNSUPPORTED;
    if (op == U_BITNOT && fl) return oe_fail(c, "BitwiseNot of a floating-point tensor");
    unary_params p;
    unary_params_of(c, op, &p);
    int odt = (op == U_ISNAN || op == U_ISINF) ? T_BOOL : a->dtype;
    if (oe_out(c, 0, odt, a->dims, a->rank)) return OE_ERROR;
    oe_tensor *y = &c->out[0];
    if (fl && a->dtype == T_FLOAT && odt == T_FLOAT) {
        const float *x = a->data;
        float *o = y->data;
        for (int64_t i = 0; i < a->numel; i++) o[i] = (float)unary_f(op, x[i], &p);
    } else if (fl) {
        for (int64_t i = 0; i < a->numel; i++) ot_set_f(y, i, unary_f(op, ot_get_f(a, i), &p));
    } else if (op == U_ISNAN || op == U_ISINF) {
        /* integers are never NaN or infinite: all false (already zeroed) */
    } else {
        for (int64_t i = 0; i < a->numel; i++) ot_set_i(y, i, unary_i(op, ot_get_i(a, i), &p));
    }
    return OE_OK;
}

/* ---- binary ------------------------------------------------------------------------------------ */

enum {
    B_ADD, B_SUB, B_MUL, B_DIV, B_POW, B_MOD, B_MAX, B_MIN, B_EQ, B_LT, B_GT, B_LE, B_GE, B_AND,
    B_OR, B_XOR, B_BAND, B_BOR, B_BXOR, B_SHIFT, B_PRELU, B_SUM
};

static int64_t ipow(int64_t b, int64_t e)
{
    if (e < 0) return b == 1 ? 1 : b == -1 ? (e % 2 ? -1 : 1) : 0;
    uint64_t r = 1, x = (uint64_t)b;
    while (e) {
        if (e & 1) r *= x;
        x *= x;
        e >>= 1;
    }
    return (int64_t)r;
}

static double binary_f(int op, double x, double y)
{
    switch (op) {
    case B_ADD: case B_SUM: return x + y;
    case B_SUB: return x - y;
    case B_MUL: return x * y;
    case B_DIV: return x / y;
    case B_POW: return pow(x, y);
    case B_MOD: return fmod(x, y);
    case B_MAX: return (x != x || y != y) ? NAN : x > y ? x : y;
    case B_MIN: return (x != x || y != y) ? NAN : x < y ? x : y;
    case B_EQ: return x == y;
    case B_LT: return x < y;
    case B_GT: return x > y;
    case B_LE: return x <= y;
    case B_GE: return x >= y;
    case B_PRELU: return x < 0 ? x * y : x;
    default: return 0;
    }
}

/* Integer semantics: wrap-around arithmetic, C division (truncating, as numpy's divide then
 * astype does), Python-style modulo unless fmod; *err set on division by zero. */
static int64_t binary_i(int op, int64_t x, int64_t y, bool fmod_mode, bool right, bool *err)
{
    switch (op) {
    case B_ADD: case B_SUM: return (int64_t)((uint64_t)x + (uint64_t)y);
    case B_SUB: return (int64_t)((uint64_t)x - (uint64_t)y);
    case B_MUL: return (int64_t)((uint64_t)x * (uint64_t)y);
    case B_DIV:
        if (y == 0) { *err = true; return 0; }
        return (x == INT64_MIN && y == -1) ? x : x / y;
    case B_MOD: {
        if (y == 0) { *err = true; return 0; }
        int64_t z = y == -1 ? 0 : x % y;
        if (!fmod_mode && z != 0 && ((z < 0) != (y < 0))) z += y;
        return z;
    }
    case B_POW: return ipow(x, y);
    case B_MAX: return x > y ? x : y;
    case B_MIN: return x < y ? x : y;
    case B_EQ: return x == y;
    case B_LT: return x < y;
    case B_GT: return x > y;
    case B_LE: return x <= y;
    case B_GE: return x >= y;
    case B_AND: return x && y;
    case B_OR: return x || y;
    case B_XOR: return (!x) != (!y);
    case B_BAND: return x & y;
    case B_BOR: return x | y;
    case B_BXOR: return x ^ y;
    case B_SHIFT:
        if (y < 0 || y >= 64) return 0;
        return right ? (int64_t)((uint64_t)x >> y) : (int64_t)((uint64_t)x << y);
    case B_PRELU: return x < 0 ? x * y : x;
    default: return 0;
    }
}

static bool is_cmp(int op) { return op >= B_EQ && op <= B_GE; }
static bool is_logical(int op) { return op >= B_AND && op <= B_XOR; }

/* out = a OP b with broadcasting; out is initialized here. */
static int binary_into(ectx *c, int op, const oe_tensor *a, const oe_tensor *b, oe_tensor *out)
{
    if (op != B_POW && op != B_SHIFT && a->dtype != b->dtype) return oe_fail(c, "input types differ");
    if (is_logical(op) && a->dtype != T_BOOL) return oe_fail(c, "logical op on a non-bool tensor");
    if ((op >= B_BAND && op <= B_SHIFT) && !oe_is_int(a->dtype)) return oe_fail(c, "bitwise op on a non-integer tensor");
    bool fmod_mode = oe_attr_i(c, "fmod", 0) != 0;
    if (op == B_MOD && oe_is_float(a->dtype) && !fmod_mode)
        return oe_fail(c, "Mod with fmod=0 on floating-point tensors");
    char dir[16] = "";
    if (op == B_SHIFT) oe_attr_s(c, "direction", "", dir, sizeof dir);
    const oe_tensor *ts[2] = {a, b};
    int64_t dims[OE_MAX_RANK];
    int r;
    if (oe_bcast_shape(ts, 2, dims, &r)) return oe_fail(c, "shapes cannot be broadcast");
    int odt = (is_cmp(op) || is_logical(op)) ? T_BOOL : a->dtype;
    if (ot_tensor_init(out, odt, dims, r)) return oe_fail(c, "output too large");
    oe_bit it;
    oe_bit_init(&it, ts, 2, dims, r);
    bool fl = oe_is_float(a->dtype) || (op == B_POW && oe_is_float(b->dtype));
    bool err = false, right = !strcmp(dir, "RIGHT");
    if (fl && a->dtype == T_FLOAT && b->dtype == T_FLOAT && odt == T_FLOAT) {
        const float *x = a->data, *y = b->data;
        float *o = out->data;
        for (int64_t i = 0; i < out->numel; i++, oe_bit_next(&it))
            o[i] = (float)binary_f(op, x[it.off[0]], y[it.off[1]]);
        return OE_OK;
    }
    for (int64_t i = 0; i < out->numel; i++, oe_bit_next(&it)) {
        if (fl) ot_set_f(out, i, binary_f(op, ot_get_f(a, it.off[0]), ot_get_f(b, it.off[1])));
        else ot_set_i(out, i, binary_i(op, ot_get_i(a, it.off[0]), ot_get_i(b, it.off[1]), fmod_mode, right, &err));
    }
    if (err) {
        ot_tensor_free(out);
        return oe_fail(c, "integer division by zero");
    }
    return OE_OK;
}

static int k_binary(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0), *b = oe_in_tensor(c, 1);
    if (!a || !b) return oe_fail(c, "missing input");
    if (c->arg == B_PRELU && a->dtype == T_BOOL) return oe_fail(c, "wrong input type");
    if (c->arg == B_PRELU && c->opset < 7 && b->rank == 1 && a->rank > 2 && b->dims[0] == a->dims[1]) {
        /* PRelu before opset 7: a per-channel slope applies along axis 1 */
        oe_tensor view = *b;
        view.rank = a->rank - 1;
        for (int i = 1; i < view.rank; i++) view.dims[i] = 1;
        return binary_into(c, c->arg, a, &view, &c->out[0]);
    }
    return binary_into(c, c->arg, a, b, &c->out[0]);
}

/* Max, Min, Sum, Mean: any number of inputs, folded left to right with broadcasting. */
static int k_variadic(ectx *c)
{
    const oe_tensor *first = oe_in_tensor(c, 0);
    if (!first || c->nin < 1) return oe_fail(c, "missing input");
    bool mean = c->arg < 0;
    int op = mean ? B_SUM : c->arg;
    oe_tensor acc;
    ot_tensor_copy(&acc, first);
    for (size_t i = 1; i < c->nin; i++) {
        const oe_tensor *b = oe_in_tensor(c, i);
        if (!b) {
            ot_tensor_free(&acc);
            return oe_fail(c, "missing input %zu", i);
        }
        oe_tensor next;
        if (binary_into(c, op, &acc, b, &next)) {
            ot_tensor_free(&acc);
            return OE_ERROR;
        }
        ot_tensor_free(&acc);
        acc = next;
    }
    if (mean) {
        if (oe_is_float(acc.dtype))
            for (int64_t i = 0; i < acc.numel; i++) ot_set_f(&acc, i, ot_get_f(&acc, i) / (double)c->nin);
        else
            for (int64_t i = 0; i < acc.numel; i++) ot_set_i(&acc, i, ot_get_i(&acc, i) / (int64_t)c->nin);
    }
    c->out[0] = acc;
    return OE_OK;
}

/* ---- Clip, Where, Cast, Identity ---------------------------------------------------------------- */

static int k_clip(ectx *c)
{
    const oe_tensor *x = oe_in_tensor(c, 0);
    if (!x) return oe_fail(c, "missing input");
    bool fl = oe_is_float(x->dtype);
    double lo = -INFINITY, hi = INFINITY;
    int64_t ilo = INT64_MIN, ihi = INT64_MAX;
    if (c->opset < 11) {
        lo = oe_attr_f(c, "min", -INFINITY);
        hi = oe_attr_f(c, "max", INFINITY);
    } else {
        const oe_tensor *mn = oe_in_tensor(c, 1), *mx = oe_in_tensor(c, 2);
        if ((mn && mn->numel != 1) || (mx && mx->numel != 1)) return oe_fail(c, "min and max must be scalars");
        if (mn) { lo = ot_get_f(mn, 0); ilo = ot_get_i(mn, 0); }
        if (mx) { hi = ot_get_f(mx, 0); ihi = ot_get_i(mx, 0); }
    }
    if (oe_out(c, 0, x->dtype, x->dims, x->rank)) return OE_ERROR;
    for (int64_t i = 0; i < x->numel; i++) {
        if (fl) {
            double v = ot_get_f(x, i);
            v = v < lo ? lo : v;
            ot_set_f(&c->out[0], i, v > hi ? hi : v);
        } else {
            int64_t v = ot_get_i(x, i);
            v = v < ilo ? ilo : v;
            ot_set_i(&c->out[0], i, v > ihi ? ihi : v);
        }
    }
    return OE_OK;
}

static int k_where(ectx *c)
{
    const oe_tensor *ts[3] = {oe_in_tensor(c, 0), oe_in_tensor(c, 1), oe_in_tensor(c, 2)};
    if (!ts[0] || !ts[1] || !ts[2]) return oe_fail(c, "missing input");
    if (ts[0]->dtype != T_BOOL || ts[1]->dtype != ts[2]->dtype) return oe_fail(c, "wrong input types");
    int64_t dims[OE_MAX_RANK];
    int r;
    if (oe_bcast_shape(ts, 3, dims, &r)) return oe_fail(c, "shapes cannot be broadcast");
    if (oe_out(c, 0, ts[1]->dtype, dims, r)) return OE_ERROR;
    oe_bit it;
    oe_bit_init(&it, ts, 3, dims, r);
    const uint8_t *cond = ts[0]->data;
    for (int64_t i = 0; i < c->out[0].numel; i++, oe_bit_next(&it)) {
        bool t = cond[it.off[0]] != 0;
        oe_copy_elem(&c->out[0], i, t ? ts[1] : ts[2], t ? it.off[1] : it.off[2]);
    }
    return OE_OK;
}

int oe_cast_into(ectx *c, const oe_tensor *a, int to, oe_tensor *out)
{
    if (!ot_dtype_supported(to)) return OE_UNSUPPORTED;
    if (ot_tensor_init(out, to, a->dims, a->rank)) return oe_fail(c, "bad shape");
    if (a->dtype == to) {
        if (a->numel) memcpy(out->data, a->data, (size_t)a->numel * ot_esize(to));
        return OE_OK;
    }
    bool viaf = oe_is_float(a->dtype) || oe_is_float(to);
    for (int64_t i = 0; i < a->numel; i++) {
        if (viaf) ot_set_f(out, i, ot_get_f(a, i));
        else ot_set_i(out, i, ot_get_i(a, i));
    }
    return OE_OK;
}

static int k_cast(ectx *c)
{
    const oe_tensor *a = oe_in_tensor(c, 0);
    if (!a) return oe_fail(c, "missing input");
    int to;
    if (c->arg) {
        const oe_tensor *like = oe_in_tensor(c, 1);
        if (!like) return oe_fail(c, "missing input");
        to = like->dtype;
    } else {
        Onnx__AttributeProto *ta = oe_attr(c, "to");
        if (!ta || !ta->has_i) return oe_fail(c, "missing 'to' attribute");
        to = (int)ta->i;
    }
    return oe_cast_into(c, a, to, &c->out[0]);
}

static int k_identity(ectx *c)
{
    if (!IN(c, 0)) return oe_fail(c, "missing input");
    ot_tensor_copy(&c->out[0], IN(c, 0));
    return OE_OK;
}

const oe_op_def oe_ops_math[] = {
    {"Neg", k_unary, U_NEG, true}, {"Abs", k_unary, U_ABS, true}, {"Sqrt", k_unary, U_SQRT, true},
    {"Exp", k_unary, U_EXP, true}, {"Log", k_unary, U_LOG, true}, {"Reciprocal", k_unary, U_RECIP, true},
    {"Floor", k_unary, U_FLOOR, true}, {"Ceil", k_unary, U_CEIL, true}, {"Round", k_unary, U_ROUND, false},
    {"Sign", k_unary, U_SIGN, true}, {"Relu", k_unary, U_RELU, true}, {"Sigmoid", k_unary, U_SIGMOID, true},
    {"Tanh", k_unary, U_TANH, true}, {"Sin", k_unary, U_SIN, false}, {"Cos", k_unary, U_COS, false},
    {"Tan", k_unary, U_TAN, false}, {"Asin", k_unary, U_ASIN, false}, {"Acos", k_unary, U_ACOS, false},
    {"Atan", k_unary, U_ATAN, false}, {"Sinh", k_unary, U_SINH, false}, {"Cosh", k_unary, U_COSH, false},
    {"Asinh", k_unary, U_ASINH, false}, {"Acosh", k_unary, U_ACOSH, false},
    {"Atanh", k_unary, U_ATANH, false}, {"Erf", k_unary, U_ERF, false},
    {"Softplus", k_unary, U_SOFTPLUS, false}, {"Softsign", k_unary, U_SOFTSIGN, false},
    {"Elu", k_unary, U_ELU, false}, {"Selu", k_unary, U_SELU, false}, {"Celu", k_unary, U_CELU, false},
    {"LeakyRelu", k_unary, U_LEAKY, false}, {"HardSigmoid", k_unary, U_HARDSIG, false},
    {"HardSwish", k_unary, U_HARDSWISH, false}, {"ThresholdedRelu", k_unary, U_THRESH, false},
    {"Mish", k_unary, U_MISH, false}, {"Gelu", k_unary, U_GELU, false}, {"Shrink", k_unary, U_SHRINK, false},
    {"Not", k_unary, U_NOT, true}, {"BitwiseNot", k_unary, U_BITNOT, false},
    {"IsNaN", k_unary, U_ISNAN, false}, {"IsInf", k_unary, U_ISINF, false},
    {"Add", k_binary, B_ADD, true}, {"Sub", k_binary, B_SUB, true}, {"Mul", k_binary, B_MUL, true},
    {"Div", k_binary, B_DIV, true}, {"Pow", k_binary, B_POW, true}, {"Mod", k_binary, B_MOD, true},
    {"Equal", k_binary, B_EQ, true}, {"Less", k_binary, B_LT, true}, {"Greater", k_binary, B_GT, true},
    {"LessOrEqual", k_binary, B_LE, true}, {"GreaterOrEqual", k_binary, B_GE, true},
    {"And", k_binary, B_AND, true}, {"Or", k_binary, B_OR, true}, {"Xor", k_binary, B_XOR, true},
    {"BitwiseAnd", k_binary, B_BAND, false}, {"BitwiseOr", k_binary, B_BOR, false},
    {"BitwiseXor", k_binary, B_BXOR, false}, {"BitShift", k_binary, B_SHIFT, false},
    {"PRelu", k_binary, B_PRELU, false},
    {"Max", k_variadic, B_MAX, true}, {"Min", k_variadic, B_MIN, true}, {"Sum", k_variadic, B_SUM, false},
    {"Mean", k_variadic, -1, false},
    {"Clip", k_clip, 0, false}, {"Where", k_where, 0, true}, {"Cast", k_cast, 0, true},
    {"CastLike", k_cast, 1, true}, {"Identity", k_identity, 0, true},
    {NULL, NULL, 0, false},
};
