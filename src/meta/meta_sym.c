/* meta_sym.c — symbolic sizes with sympy's canonical form and printing (see meta_sym.h). */
#include "meta/meta_sym.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

/* sympy's precedence levels (sympy/printing/precedence.py) and torch's FloorDiv. */
enum { P_FLOORDIV = 35, P_ADD = 40, P_MUL = 50, P_POW = 60, P_ATOM = 1000 };

struct sx {
    sx_kind kind;
    int64_t v;              /* INT: value; MUL: integer coefficient */
    const char *name;       /* SYM: name; OPAQUE: verbatim text */
    const sx **args;        /* ADD: terms; MUL: factors; FLOORDIV: base, divisor */
    int *exps;              /* MUL: exponent of each factor (>= 1) */
    size_t n;
    const char *text;       /* canonical printed form */
    const char *key;        /* text without the coefficient (like terms share it); "" for INT */
    int prec;               /* sympy precedence of the printed form */
};

static sx *mk(arena *a, sx_kind k)
{
    sx *x = arena_alloc(a, sizeof *x);
    x->kind = k;
    x->prec = P_ATOM;
    return x;
}

sx *sx_int(arena *a, int64_t v)
{
    sx *x = mk(a, SX_INT);
    x->v = v;
    x->text = arena_printf(a, "%lld", (long long)v);
    x->key = "";
    x->prec = v < 0 ? P_ADD : P_ATOM;   /* sympy prints a negative number with Add's precedence */
    return x;
}

sx *sx_sym(arena *a, const char *name)
{
    sx *x = mk(a, SX_SYM);
    x->name = x->text = x->key = arena_strdup(a, name);
    return x;
}

static sx *opaque(arena *a, const char *s, size_t n)
{
    sx *x = mk(a, SX_OPAQUE);
    x->name = x->text = x->key = arena_strndup(a, s, n);
    return x;
}

sx_kind sx_kind_of(const sx *x) { return x->kind; }
const char *sx_str(const sx *x) { return x ? x->text : "?"; }

bool sx_is_int(const sx *x, int64_t *v)
{
    if (!x || x->kind != SX_INT)
        return false;
    if (v)
        *v = x->v;
    return true;
}

bool sx_eq(const sx *x, const sx *y) { return x && y && !strcmp(x->text, y->text); }
bool sx_eq_int(const sx *x, int64_t v) { return x && x->kind == SX_INT && x->v == v; }

/* ---- ordering (sympy's default_sort_key, as far as sizes need it) ------------------------- */

/* sympy's class_key: Number (1,0) < Symbol (2,0) < Mul (3,0) < Add (3,1) < functions. */
static int class_key(const sx *x)
{
    switch (x->kind) {
    case SX_INT: return 10;
    case SX_SYM: return 20;
    case SX_MUL: return 30;
    case SX_ADD: return 31;
    case SX_FLOORDIV: return 40;
    default: return 50;
    }
}

static int cmp_i64(int64_t x, int64_t y) { return (x > y) - (x < y); }

/* sympy's Basic.sort_key, as far as sizes need it: a product's coefficient and a power's
 * exponent are split off and compared last; then the class, then the arguments (their count
 * first, then one by one). */
static int sort_cmp(const sx *x, const sx *y)
{
    if (x->kind == SX_INT && y->kind == SX_INT)
        return cmp_i64(x->v, y->v);
    int64_t cx = 1, cy = 1;
    int ex = 1, ey = 1;
    const sx *bx = x, *by = y;
    bool mx = false, my = false;   /* a product of several factors, compared factor by factor */
    if (x->kind == SX_MUL) {
        cx = x->v;
        if (x->n == 1) { bx = x->args[0]; ex = x->exps[0]; } else mx = true;
    }
    if (y->kind == SX_MUL) {
        cy = y->v;
        if (y->n == 1) { by = y->args[0]; ey = y->exps[0]; } else my = true;
    }
    int c = cmp_i64(mx ? 30 : class_key(bx), my ? 30 : class_key(by));
    if (c)
        return c;
    if (mx) {
        c = cmp_i64((int64_t)x->n, (int64_t)y->n);
        for (size_t i = 0; !c && i < x->n; i++) {
            c = sort_cmp(x->args[i], y->args[i]);
            if (!c)
                c = cmp_i64(x->exps[i], y->exps[i]);
        }
    } else if (bx->kind == SX_ADD || bx->kind == SX_FLOORDIV) {
        c = cmp_i64((int64_t)bx->n, (int64_t)by->n);
        for (size_t i = 0; !c && i < bx->n; i++)
            c = sort_cmp(bx->args[i], by->args[i]);
    } else {
        c = strcmp(bx->text, by->text);
    }
    if (!c)
        c = cmp_i64(ex, ey);
    return c ? c : cmp_i64(cx, cy);
}

/* The generators of a term with their exponents; an integer has none. */
static size_t factors_of(const sx *t, const sx **bases, int *exps, size_t cap)
{
    if (t->kind == SX_INT)
        return 0;
    if (t->kind == SX_MUL) {
        size_t n = t->n < cap ? t->n : cap;
        for (size_t i = 0; i < n; i++) {
            bases[i] = t->args[i];
            exps[i] = t->exps[i];
        }
        return n;
    }
    bases[0] = t;
    exps[0] = 1;
    return 1;
}

/* ---- printing ------------------------------------------------------------------------------ */

static void put_paren(strbuf *sb, const sx *x, bool paren)
{
    if (paren)
        sb_putc(sb, '(');
    sb_puts(sb, x->text);
    if (paren)
        sb_putc(sb, ')');
}

/* sympy _print_Mul for an integer coefficient and factors with positive integer exponents. */
static void print_mul(strbuf *sb, int64_t coeff, const sx **f, const int *e, size_t n)
{
    bool first = true;
    if (coeff < 0) {
        sb_putc(sb, '-');
        coeff = -coeff;
    }
    if (coeff != 1 || n == 0) {
        sb_printf(sb, "%lld", (long long)coeff);
        first = false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!first)
            sb_putc(sb, '*');
        first = false;
        if (e[i] == 1) {
            put_paren(sb, f[i], f[i]->prec <= P_MUL);
        } else {
            put_paren(sb, f[i], f[i]->prec <= P_POW);
            sb_printf(sb, "**%d", e[i]);
        }
    }
}

/* ---- products ------------------------------------------------------------------------------ */

static sx *make_sum(arena *a, const sx **terms, size_t n);
static sx *scale(arena *a, const sx *x, int64_t c);

/* A product of already merged factors (distinct bases), canonicalised. */
static sx *make_mul(arena *a, int64_t coeff, const sx **f, const int *e, size_t n)
{
    if (coeff == 0 || n == 0)
        return sx_int(a, coeff);
    if (n == 1 && e[0] == 1) {
        if (coeff == 1)
            return (sx *)f[0];
        if (f[0]->kind == SX_ADD)   /* sympy distributes a number over a single sum */
            return scale(a, f[0], coeff);
    }
    sx *x = mk(a, SX_MUL);
    x->v = coeff;
    x->n = n;
    x->args = arena_alloc(a, n * sizeof *x->args);
    x->exps = arena_alloc(a, n * sizeof *x->exps);
    for (size_t i = 0; i < n; i++) {
        size_t j = i;   /* insertion sort: a handful of factors */
        while (j > 0 && sort_cmp(x->args[j - 1], f[i]) > 0) {
            x->args[j] = x->args[j - 1];
            x->exps[j] = x->exps[j - 1];
            j--;
        }
        x->args[j] = f[i];
        x->exps[j] = e[i];
    }
    strbuf sb;
    sb_init(&sb);
    print_mul(&sb, coeff, x->args, x->exps, n);
    x->text = arena_strdup(a, sb.s);
    sb_reset(&sb);
    print_mul(&sb, 1, x->args, x->exps, n);
    x->key = arena_strdup(a, sb.s);
    sb_free(&sb);
    x->prec = coeff < 0 ? P_ADD : (coeff == 1 && n == 1) ? P_POW : P_MUL;
    return x;
}

static int64_t coeff_of(const sx *t) { return t->kind == SX_INT || t->kind == SX_MUL ? t->v : 1; }

/* t without its coefficient; NULL for a number. */
static const sx *rest_of(arena *a, const sx *t)
{
    if (t->kind == SX_INT)
        return NULL;
    if (t->kind == SX_MUL && t->v != 1)
        return make_mul(a, 1, t->args, t->exps, t->n);
    return t;
}

static sx *scale(arena *a, const sx *x, int64_t c)
{
    if (!x)
        return NULL;
    if (c == 1)
        return (sx *)x;
    if (x->kind == SX_ADD) {
        const sx **t = arena_alloc(a, x->n * sizeof *t);
        for (size_t i = 0; i < x->n; i++)
            if (!(t[i] = scale(a, x->args[i], c)))
                return NULL;
        return make_sum(a, t, x->n);
    }
    int64_t r;
    if (__builtin_mul_overflow(coeff_of(x), c, &r))
        return NULL;
    if (x->kind == SX_INT)
        return sx_int(a, r);
    if (x->kind == SX_MUL)
        return make_mul(a, r, x->args, x->exps, x->n);
    int e1 = 1;
    return make_mul(a, r, &x, &e1, 1);
}

sx *sx_mul(arena *a, const sx *x, const sx *y)
{
    if (!x || !y)
        return NULL;
    if (x->kind == SX_INT)
        return scale(a, y, x->v);
    if (y->kind == SX_INT)
        return scale(a, x, y->v);
    size_t cap = (x->kind == SX_MUL ? x->n : 1) + (y->kind == SX_MUL ? y->n : 1);
    const sx **f = arena_alloc(a, cap * sizeof *f);
    int *e = arena_alloc(a, cap * sizeof *e);
    size_t n = 0;
    const sx *fb[2][64];
    int fe[2][64];
    size_t nf[2] = { factors_of(x, fb[0], fe[0], 64), factors_of(y, fb[1], fe[1], 64) };
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < nf[s]; i++) {
            size_t j = 0;
            while (j < n && strcmp(f[j]->text, fb[s][i]->text))
                j++;
            if (j < n) {
                e[j] += fe[s][i];   /* x*x → x**2 */
            } else {
                f[n] = fb[s][i];
                e[n++] = fe[s][i];
            }
        }
    int64_t c;
    if (__builtin_mul_overflow(coeff_of(x), coeff_of(y), &c))
        return NULL;
    return make_mul(a, c, f, e, n);
}

sx *sx_neg(arena *a, const sx *x) { return scale(a, x, -1); }

/* ---- sums ---------------------------------------------------------------------------------- */

/* sympy's Expr.as_ordered_terms: lex order of the terms' monomials over the sorted generators,
 * largest first, with its special case "number - c*x" kept in that order. */
static void order_terms(const sx **t, size_t n)
{
    const sx *gens[64];
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        const sx *b[64];
        int e[64];
        size_t k = factors_of(t[i], b, e, 64);
        for (size_t j = 0; j < k; j++) {
            size_t g = 0;
            while (g < ng && strcmp(gens[g]->text, b[j]->text))
                g++;
            if (g == ng && ng < 64)
                gens[ng++] = b[j];
        }
    }
    for (size_t i = 1; i < ng; i++)
        for (size_t j = i; j > 0 && sort_cmp(gens[j - 1], gens[j]) > 0; j--) {
            const sx *s = gens[j];
            gens[j] = gens[j - 1];
            gens[j - 1] = s;
        }
    int *mono = xcalloc(n * (ng ? ng : 1), sizeof *mono);
    for (size_t i = 0; i < n; i++) {
        const sx *b[64];
        int e[64];
        size_t k = factors_of(t[i], b, e, 64);
        for (size_t j = 0; j < k; j++)
            for (size_t g = 0; g < ng; g++)
                if (!strcmp(gens[g]->text, b[j]->text))
                    mono[i * ng + g] = e[j];
    }
    /* insertion sort on the monomials, descending; rows move with their terms */
    size_t *idx = xmalloc(n * sizeof *idx);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            int c = 0;
            for (size_t g = 0; g < ng && !c; g++)
                c = (mono[idx[j - 1] * ng + g] > mono[idx[j] * ng + g]) - (mono[idx[j - 1] * ng + g] < mono[idx[j] * ng + g]);
            if (c >= 0)
                break;
            size_t s = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = s;
        }
    const sx *sorted[64];
    for (size_t i = 0; i < n && i < 64; i++)
        sorted[i] = t[idx[i]];
    memcpy(t, sorted, (n < 64 ? n : 64) * sizeof *t);
    free(idx);
    free(mono);
    /* "1 - s77", "5 - 2*s0": a positive number and a product of a negative number and one factor */
    if (n == 2) {
        const sx *num = t[0]->kind == SX_INT ? t[0] : t[1]->kind == SX_INT ? t[1] : NULL;
        const sx *m = num == t[0] ? t[1] : t[0];
        if (num && num->v > 0 && m->kind == SX_MUL && m->v < 0 && m->n == 1) {
            t[0] = num;
            t[1] = m;
        }
    }
}

/* Sum of terms (any expressions): flattened, like terms combined, ordered. */
static sx *make_sum(arena *a, const sx **terms, size_t n)
{
    size_t cap = 0;
    for (size_t i = 0; i < n; i++)
        cap += terms[i]->kind == SX_ADD ? terms[i]->n : 1;
    if (cap > 64)
        return NULL;   /* sizes never get this long; refuse rather than print a mangled sum */
    const sx *rest[64];
    int64_t coef[64];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = terms[i]->kind == SX_ADD ? terms[i]->n : 1;
        for (size_t j = 0; j < k; j++) {
            const sx *t = terms[i]->kind == SX_ADD ? terms[i]->args[j] : terms[i];
            const char *key = t->key;
            size_t q = 0;
            while (q < m && strcmp(rest[q] ? rest[q]->key : "", key))
                q++;
            if (q == m) {
                rest[m] = rest_of(a, t);
                coef[m++] = coeff_of(t);
            } else if (__builtin_add_overflow(coef[q], coeff_of(t), &coef[q])) {
                return NULL;
            }
        }
    }
    const sx **out = arena_alloc(a, (m ? m : 1) * sizeof *out);
    size_t k = 0;
    for (size_t q = 0; q < m; q++) {
        if (coef[q] == 0)
            continue;
        out[k] = rest[q] ? scale(a, rest[q], coef[q]) : sx_int(a, coef[q]);
        if (!out[k++])
            return NULL;
    }
    if (k == 0)
        return sx_int(a, 0);
    if (k == 1)
        return (sx *)out[0];
    order_terms(out, k);
    sx *x = mk(a, SX_ADD);
    x->args = out;
    x->n = k;
    x->prec = P_ADD;
    strbuf sb;
    sb_init(&sb);
    for (size_t i = 0; i < k; i++) {
        const char *t = out[i]->text;
        bool neg = t[0] == '-';
        if (i == 0)
            sb_puts(&sb, neg ? "-" : "");
        else
            sb_puts(&sb, neg ? " - " : " + ");
        bool paren = out[i]->prec < P_ADD;
        if (paren)
            sb_putc(&sb, '(');
        sb_puts(&sb, neg ? t + 1 : t);
        if (paren)
            sb_putc(&sb, ')');
    }
    x->text = x->key = arena_strdup(a, sb.s);
    sb_free(&sb);
    return x;
}

sx *sx_add(arena *a, const sx *x, const sx *y)
{
    if (!x || !y)
        return NULL;
    int64_t r;
    if (x->kind == SX_INT && y->kind == SX_INT)
        return __builtin_add_overflow(x->v, y->v, &r) ? NULL : sx_int(a, r);
    const sx *t[2] = { x, y };
    return make_sum(a, t, 2);
}

sx *sx_sub(arena *a, const sx *x, const sx *y) { return sx_add(a, x, sx_neg(a, y)); }

/* ---- division ------------------------------------------------------------------------------ */

static int64_t gcd64(int64_t x, int64_t y)
{
    if (x < 0) x = -x;
    if (y < 0) y = -y;
    while (y) {
        int64_t t = x % y;
        x = y;
        y = t;
    }
    return x;
}

static int64_t py_floordiv(int64_t x, int64_t y)
{
    int64_t q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}

/* The terms of x (a sum's terms, or x itself). */
static const sx *const *terms_of(const sx **one, const sx *x, size_t *n)
{
    if (x->kind == SX_ADD) {
        *n = x->n;
        return x->args;
    }
    *one = x;
    *n = 1;
    return one;
}

/* term / monomial y (coefficient cy, factors yb^ye), or NULL when not exact. */
static sx *div_term(arena *a, const sx *t, int64_t cy, const sx **yb, const int *ye, size_t ny)
{
    int64_t ct = coeff_of(t);
    if (cy == 0 || ct % cy)
        return NULL;
    const sx *tb[64];
    int te[64];
    size_t nt = factors_of(t, tb, te, 64);
    for (size_t i = 0; i < ny; i++) {
        size_t j = 0;
        while (j < nt && strcmp(tb[j]->text, yb[i]->text))
            j++;
        if (j == nt || te[j] < ye[i])
            return NULL;
        te[j] -= ye[i];
    }
    const sx *f[64];
    int e[64];
    size_t n = 0;
    for (size_t j = 0; j < nt; j++)
        if (te[j] > 0) {
            f[n] = tb[j];
            e[n++] = te[j];
        }
    return make_mul(a, ct / cy, f, e, n);
}

sx *sx_div_exact(arena *a, const sx *x, const sx *y)
{
    if (!x || !y)
        return NULL;
    if (sx_eq(x, y))
        return sx_int(a, 1);
    if (y->kind == SX_ADD)
        return NULL;
    const sx *yb[64];
    int ye[64];
    size_t ny = factors_of(y, yb, ye, 64);
    const sx *one;
    size_t n;
    const sx *const *t = terms_of(&one, x, &n);
    const sx **q = arena_alloc(a, n * sizeof *q);
    for (size_t i = 0; i < n; i++)
        if (!(q[i] = div_term(a, t[i], coeff_of(y), yb, ye, ny)))
            return NULL;
    return n == 1 ? (sx *)q[0] : make_sum(a, q, n);
}

sx *sx_floordiv(arena *a, const sx *x, const sx *y)
{
    if (!x || !y || sx_eq_int(y, 0))
        return NULL;
    if (sx_eq_int(x, 0))
        return sx_int(a, 0);
    if (sx_eq_int(y, 1))
        return (sx *)x;
    if (sx_eq_int(y, -1))
        return sx_neg(a, x);
    if (x->kind == SX_INT && y->kind == SX_INT)
        return (x->v == INT64_MIN && y->v == -1) ? NULL : sx_int(a, py_floordiv(x->v, y->v));
    if (x->kind == SX_FLOORDIV)   /* (p // q) // y == p // (q*y) */
        return sx_floordiv(a, x->args[0], sx_mul(a, x->args[1], y));
    const sx *one;
    size_t n;
    const sx *const *t = terms_of(&one, x, &n);
    if (y->kind == SX_INT) {
        /* (x + y) // b == x // b + y // b when b divides y (torch's FloorDiv.eval) */
        const sx **in = arena_alloc(a, n * sizeof *in), **out = arena_alloc(a, n * sizeof *out);
        size_t ni = 0, no = 0;
        for (size_t i = 0; i < n; i++) {
            if (coeff_of(t[i]) % y->v == 0)
                out[no++] = t[i];
            else
                in[ni++] = t[i];
        }
        if (no) {
            sx *q = sx_div_exact(a, make_sum(a, out, no), y);
            sx *r = ni ? sx_floordiv(a, make_sum(a, in, ni), y) : sx_int(a, 0);
            return sx_add(a, r, q);
        }
    }
    sx *q = sx_div_exact(a, x, y);
    if (q)
        return q;
    /* cancel the common integer factor of every coefficient and the divisor */
    int64_t g = coeff_of(y);
    for (size_t i = 0; i < n; i++)
        g = gcd64(g, coeff_of(t[i]));
    if (g > 1)
        return sx_floordiv(a, sx_div_exact(a, x, sx_int(a, g)), sx_div_exact(a, y, sx_int(a, g)));
    sx *r = mk(a, SX_FLOORDIV);
    r->args = arena_alloc(a, 2 * sizeof *r->args);
    r->args[0] = x;
    r->args[1] = y;
    r->n = 2;
    r->prec = P_FLOORDIV;
    strbuf sb;
    sb_init(&sb);
    /* torch: both operands parenthesized below atom precedence, the whole in parentheses */
    sb_putc(&sb, '(');
    put_paren(&sb, x, x->prec < P_ATOM);
    sb_puts(&sb, "//");
    put_paren(&sb, y, y->prec < P_ATOM);
    sb_putc(&sb, ')');
    r->text = r->key = arena_strdup(a, sb.s);
    sb_free(&sb);
    return r;
}

sx *sx_ceildiv(arena *a, const sx *x, const sx *y)
{
    int64_t d;
    if (sx_is_int(y, &d) && d > 0)
        return sx_floordiv(a, sx_add(a, x, sx_int(a, d - 1)), y);
    return sx_neg(a, sx_floordiv(a, sx_neg(a, x), y));
}

/* ---- estimates ----------------------------------------------------------------------------- */

/* x's value with each symbol replaced by a stand-in drawn from its name and seed (seed 0: the
 * stand-ins sx_estimate documents); false on an opaque atom or an overflow. */
static bool eval_seeded(const sx *x, uint64_t seed, int64_t *out)
{
    int64_t r = 0, v;
    switch (x->kind) {
    case SX_INT:
        *out = x->v;
        return true;
    case SX_SYM: {
        /* a stand-in per symbol: large (torch's backed sizes are >= 2 and usually far from the
         * constants they meet) and distinct, so that s0 vs s1 orders consistently */
        uint64_t h = 1469598103934665603ull ^ (seed * 0x9e3779b97f4a7c15ull);
        for (const char *p = x->name; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
        *out = 4096 + (int64_t)(h % 4096);
        return true;
    }
    case SX_ADD:
        for (size_t i = 0; i < x->n; i++)
            if (!eval_seeded(x->args[i], seed, &v) || __builtin_add_overflow(r, v, &r))
                return false;
        *out = r;
        return true;
    case SX_MUL:
        r = x->v;
        for (size_t i = 0; i < x->n; i++)
            for (int k = 0; k < x->exps[i]; k++)
                if (!eval_seeded(x->args[i], seed, &v) || __builtin_mul_overflow(r, v, &r))
                    return false;
        *out = r;
        return true;
    case SX_FLOORDIV: {
        int64_t d;
        if (!eval_seeded(x->args[0], seed, &v) || !eval_seeded(x->args[1], seed, &d) || d == 0)
            return false;
        *out = py_floordiv(v, d);
        return true;
    }
    default:
        return false;
    }
}

bool sx_estimate(const sx *x, int64_t *out)
{
    return eval_seeded(x, 0, out);
}

/* whether x is a polynomial: no FloorDiv (whose rounding two stand-in points can miss) */
static bool is_polynomial(const sx *x)
{
    if (x->kind == SX_FLOORDIV || x->kind == SX_OPAQUE)
        return false;
    if (x->kind == SX_ADD || x->kind == SX_MUL)
        for (size_t i = 0; i < x->n; i++)
            if (!is_polynomial(x->args[i]))
                return false;
    return true;
}

bool sx_same_value(const sx *x, const sx *y)
{
    if (sx_eq(x, y))
        return true;
    if (!x || !y || !is_polynomial(x) || !is_polynomial(y))
        return false;
    /* two polynomials that agree at several unrelated points are the same polynomial (the forms
     * differ when a sum is a factor: 2*s0*(16*s1 + 16*s2) against 32*s0*(s1 + s2)) */
    for (uint64_t seed = 1; seed <= 4; seed++) {
        int64_t a, b;
        if (!eval_seeded(x, seed, &a) || !eval_seeded(y, seed, &b) || a != b)
            return false;
    }
    return true;
}

/* ---- parsing ------------------------------------------------------------------------------- */

typedef struct sxp {
    arena *a;
    const char *s;
    bool bad;
} sxp;

static sx *p_expr(sxp *p);

static void skip(sxp *p)
{
    while (*p->s == ' ')
        p->s++;
}

static sx *p_atom(sxp *p)
{
    skip(p);
    const char *s = p->s;
    if (*s == '(') {
        p->s++;
        sx *e = p_expr(p);
        skip(p);
        if (*p->s != ')') {
            p->bad = true;
            return NULL;
        }
        p->s++;
        return e;
    }
    if (isdigit((unsigned char)*s)) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno) {
            p->bad = true;
            return NULL;
        }
        p->s = end;
        return sx_int(p->a, v);
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        const char *e = s;
        while (isalnum((unsigned char)*e) || *e == '_')
            e++;
        p->s = e;
        if (*e != '(') {
            char name[128];
            size_t n = (size_t)(e - s) < sizeof name - 1 ? (size_t)(e - s) : sizeof name - 1;
            memcpy(name, s, n);
            name[n] = 0;
            return sx_sym(p->a, name);
        }
        /* Max(...), Mod(...): an opaque atom, kept verbatim */
        int depth = 0;
        do {
            if (*e == '(') depth++;
            else if (*e == ')') depth--;
            else if (!*e) {
                p->bad = true;
                return NULL;
            }
            e++;
        } while (depth > 0);
        p->s = e;
        return opaque(p->a, s, (size_t)(e - s));
    }
    p->bad = true;
    return NULL;
}

static sx *p_power(sxp *p)
{
    sx *b = p_atom(p);
    skip(p);
    if (p->s[0] == '*' && p->s[1] == '*') {
        p->s += 2;
        skip(p);
        char *end;
        long e = strtol(p->s, &end, 10);
        if (end == p->s || e < 1 || e > 64) {
            p->bad = true;
            return NULL;
        }
        p->s = end;
        sx *r = b;
        for (long i = 1; i < e; i++)
            r = sx_mul(p->a, r, b);
        return r;
    }
    return b;
}

static sx *p_unary(sxp *p)
{
    skip(p);
    if (*p->s == '-') {
        p->s++;
        return sx_neg(p->a, p_unary(p));
    }
    return p_power(p);
}

static sx *p_term(sxp *p)
{
    sx *x = p_unary(p);
    for (;;) {
        skip(p);
        if (p->s[0] == '/' && p->s[1] == '/') {
            p->s += 2;
            x = sx_floordiv(p->a, x, p_unary(p));
        } else if (p->s[0] == '*' && p->s[1] != '*') {
            p->s++;
            x = sx_mul(p->a, x, p_unary(p));
        } else {
            return x;
        }
    }
}

static sx *p_expr(sxp *p)
{
    sx *x = p_term(p);
    for (;;) {
        skip(p);
        if (*p->s == '+') {
            p->s++;
            x = sx_add(p->a, x, p_term(p));
        } else if (*p->s == '-') {
            p->s++;
            x = sx_sub(p->a, x, p_term(p));
        } else {
            return x;
        }
    }
}

sx *sx_parse(arena *a, const char *text)
{
    if (!text || !*text)
        return NULL;
    /* fast path: the plain integers most sizes are */
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!*end && end != text && !errno && isdigit((unsigned char)text[text[0] == '-']))
        return sx_int(a, v);
    sxp p = { a, text, false };
    sx *x = p_expr(&p);
    skip(&p);
    return (p.bad || *p.s) ? NULL : x;
}
