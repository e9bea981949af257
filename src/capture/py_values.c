/* py_values.c — Python values for py_eval's replay and Python's semantics on them (arithmetic,
 * comparisons, identity, containment, truthiness, indexing, str.format). */
#include "capture/py_values.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

pv *pv_new(arena *A, pv_kind k)
{
    pv *v = arena_alloc(A, sizeof *v);
    memset(v, 0, sizeof *v);
    v->kind = k;
    return v;
}

pv *pv_int(arena *A, int64_t i)
{
    pv *v = pv_new(A, PV_INT);
    v->u.i = i;
    return v;
}

pv *pv_bool(arena *A, bool b)
{
    pv *v = pv_new(A, PV_BOOL);
    v->u.b = b;
    return v;
}

pv *pv_float(arena *A, double f)
{
    pv *v = pv_new(A, PV_FLOAT);
    v->u.f = f;
    return v;
}

pv *pv_str(arena *A, pv_kind k, const char *s)
{
    pv *v = pv_new(A, k);
    v->u.s = s;
    return v;
}

pv *pv_node(arena *A, fx_node *n)
{
    pv *v = pv_new(A, PV_NODE);
    v->u.node = n;
    return v;
}

pv *pv_seq(arena *A, pv_kind k, size_t cap)
{
    pv *v = pv_new(A, k);
    v->u.seq.cap = cap ? cap : 4;
    v->u.seq.items = arena_alloc(A, v->u.seq.cap * sizeof *v->u.seq.items);
    return v;
}

void pv_push(arena *A, pv *seq, pv *item)
{
    if (seq->u.seq.n == seq->u.seq.cap) {
        size_t cap = seq->u.seq.cap * 2;
        pv **items = arena_alloc(A, cap * sizeof *items);
        memcpy(items, seq->u.seq.items, seq->u.seq.n * sizeof *items);
        seq->u.seq.items = items;
        seq->u.seq.cap = cap;
    }
    seq->u.seq.items[seq->u.seq.n++] = item;
}

bool pv_is_seq(const pv *v) { return v->kind == PV_LIST || v->kind == PV_TUPLE; }
bool pv_is_num(const pv *v) { return v->kind == PV_INT || v->kind == PV_FLOAT || v->kind == PV_BOOL; }

double pv_num(const pv *v) { return v->kind == PV_FLOAT ? v->u.f : v->kind == PV_BOOL ? v->u.b : (double)v->u.i; }

/* A node's value when its meta says it is a known Python number (a SymInt of a static size). */
bool pv_node_const(const fx_node *n, pv *out)
{
    const fx_value *v = n->meta.val;
    if (!v || v->kind != FX_VAL_SYM || !v->text)
        return false;
    if (!strcmp(v->text, "True") || !strcmp(v->text, "False")) {
        out->kind = PV_BOOL;
        out->u.b = v->text[0] == 'T';
        return true;
    }
    char *end;
    long long i = strtoll(v->text, &end, 10);
    if (*v->text && !*end) {
        out->kind = PV_INT;
        out->u.i = i;
        return true;
    }
    return false;
}

/* Python's truthiness: 1, 0, or -1 when it depends on a value fxsh does not know (a tensor). */
int pv_truth(const pv *v)
{
    switch (v->kind) {
    case PV_NONE: return 0;
    case PV_BOOL: return v->u.b;
    case PV_INT: return v->u.i != 0;
    case PV_FLOAT: return v->u.f != 0;
    case PV_STR: return v->u.s[0] != 0;
    case PV_LIST: case PV_TUPLE: return v->u.seq.n != 0;
    case PV_NODE: {
        pv c;
        return pv_node_const(v->u.node, &c) ? pv_truth(&c) : -1;
    }
    default: return 1;
    }
}

/* Python equality of known values; -1 when it cannot be decided. */
int pv_equal(const pv *x, const pv *y)
{
    if (pv_is_num(x) && pv_is_num(y))
        return pv_num(x) == pv_num(y);
    if (x->kind == PV_NONE || y->kind == PV_NONE)
        return x->kind == y->kind;
    if (x->kind == PV_STR && y->kind == PV_STR)
        return !strcmp(x->u.s, y->u.s);
    if (x->kind == PV_DTYPE && y->kind == PV_DTYPE)
        return x->u.dt == y->u.dt;
    if ((x->kind == PV_DEVICE && y->kind == PV_DEVICE) || (x->kind == PV_STR) != (y->kind == PV_STR))
        return x->kind == y->kind && !strcmp(x->u.s, y->u.s);
    if (pv_is_seq(x) && pv_is_seq(y)) {
        if (x->u.seq.n != y->u.seq.n)
            return 0;
        for (size_t i = 0; i < x->u.seq.n; i++) {
            int e = pv_equal(x->u.seq.items[i], y->u.seq.items[i]);
            if (e != 1)
                return e;
        }
        return 1;
    }
    if (x->kind == PV_NODE && y->kind == PV_NODE && x->u.node == y->u.node)
        return 1;
    return -1;
}

/* str(v) as Python prints it (for the messages of the checks that raise). */
void pv_str_of(const pv *v, strbuf *sb)
{
    char buf[40];
    switch (v->kind) {
    case PV_NONE: sb_puts(sb, "None"); break;
    case PV_BOOL: sb_puts(sb, v->u.b ? "True" : "False"); break;
    case PV_INT: sb_printf(sb, "%" PRId64, v->u.i); break;
    case PV_FLOAT: sb_puts(sb, fx_float_repr(v->u.f, buf, sizeof buf)); break;
    case PV_STR: case PV_OPAQUE: sb_puts(sb, v->u.s); break;
    case PV_DEVICE: sb_puts(sb, v->u.s); break;
    case PV_DTYPE: sb_puts(sb, fx_dtype_get(v->u.dt)->torch_name); break;
    case PV_LIST: case PV_TUPLE:
        sb_putc(sb, v->kind == PV_LIST ? '[' : '(');
        for (size_t i = 0; i < v->u.seq.n; i++) {
            if (i)
                sb_puts(sb, ", ");
            pv_str_of(v->u.seq.items[i], sb);
        }
        if (v->kind == PV_TUPLE && v->u.seq.n == 1)
            sb_putc(sb, ',');
        sb_putc(sb, v->kind == PV_LIST ? ']' : ')');
        break;
    case PV_NODE: {
        const fx_value *m = v->u.node->meta.val;
        if (m && m->kind == FX_VAL_SYM && m->text)
            sb_puts(sb, m->text);
        else
            sb_printf(sb, "%%%s", v->u.node->name);
        break;
    }
    default: sb_puts(sb, "..."); break;
    }
}

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t pymod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

/* operator.<op>(x[, y]) on known values; NULL when the operands are not known Python values
 * (SymInts of dynamic sizes, tensors): the caller records the call instead. */
pv *py_operator(arena *A, const char *op, pv *x, pv *y, const char **error)
{
    if (!strcmp(op, "not_")) {
        int t = pv_truth(x);
        return t < 0 ? NULL : pv_bool(A, !t);
    }
    if (!strcmp(op, "truth")) {
        int t = pv_truth(x);
        return t < 0 ? NULL : pv_bool(A, t);
    }
    if (!strcmp(op, "neg") || !strcmp(op, "pos")) {
        if (!pv_is_num(x))
            return NULL;
        if (x->kind == PV_FLOAT)
            return pv_float(A, op[0] == 'n' ? -x->u.f : x->u.f);
        int64_t i = x->kind == PV_BOOL ? x->u.b : x->u.i;
        return pv_int(A, op[0] == 'n' ? -i : i);
    }
    if (!y)
        return NULL;
    if (!strcmp(op, "is_") || !strcmp(op, "is_not")) {
        bool neg = !strcmp(op, "is_not");
        if (x->kind == PV_NONE || y->kind == PV_NONE) {
            bool same = x->kind == y->kind;
            return pv_bool(A, same != neg);
        }
        int e = pv_equal(x, y);
        return e < 0 ? NULL : pv_bool(A, (e == 1) != neg);
    }
    if (!strcmp(op, "contains")) {
        if (!pv_is_seq(x))
            return NULL;
        for (size_t i = 0; i < x->u.seq.n; i++) {
            int e = pv_equal(x->u.seq.items[i], y);
            if (e < 0)
                return NULL;
            if (e)
                return pv_bool(A, true);
        }
        return pv_bool(A, false);
    }
    if (!strcmp(op, "eq") || !strcmp(op, "ne")) {
        int e = pv_equal(x, y);
        return e < 0 ? NULL : pv_bool(A, (e == 1) == (op[0] == 'e'));
    }
    /* sequences: concatenation and repetition */
    if (!strcmp(op, "add") && pv_is_seq(x) && pv_is_seq(y) && x->kind == y->kind) {
        pv *r = pv_seq(A, x->kind, x->u.seq.n + y->u.seq.n);
        for (size_t i = 0; i < x->u.seq.n; i++)
            pv_push(A, r, x->u.seq.items[i]);
        for (size_t i = 0; i < y->u.seq.n; i++)
            pv_push(A, r, y->u.seq.items[i]);
        return r;
    }
    if (!strcmp(op, "mul") && pv_is_seq(x) && y->kind == PV_INT) {
        pv *r = pv_seq(A, x->kind, x->u.seq.n * (y->u.i > 0 ? (size_t)y->u.i : 0));
        for (int64_t k = 0; k < y->u.i; k++)
            for (size_t i = 0; i < x->u.seq.n; i++)
                pv_push(A, r, x->u.seq.items[i]);
        return r;
    }
    if (!pv_is_num(x) || !pv_is_num(y))
        return NULL;
    bool fl = x->kind == PV_FLOAT || y->kind == PV_FLOAT;
    double a = pv_num(x), b = pv_num(y);
    int64_t ia = x->kind == PV_BOOL ? x->u.b : x->u.i, ib = y->kind == PV_BOOL ? y->u.b : y->u.i;
    if (!strcmp(op, "lt")) return pv_bool(A, a < b);
    if (!strcmp(op, "le")) return pv_bool(A, a <= b);
    if (!strcmp(op, "gt")) return pv_bool(A, a > b);
    if (!strcmp(op, "ge")) return pv_bool(A, a >= b);
    if (!strcmp(op, "and_") || !strcmp(op, "or_") || !strcmp(op, "xor")) {
        if (fl)
            return NULL;
        int64_t r = op[0] == 'a' ? ia & ib : op[0] == 'o' ? ia | ib : ia ^ ib;
        return x->kind == PV_BOOL && y->kind == PV_BOOL ? pv_bool(A, r != 0) : pv_int(A, r);
    }
    if (!strcmp(op, "truediv")) {
        if (b == 0) {
            *error = "ZeroDivisionError: division by zero";
            return NULL;
        }
        return pv_float(A, a / b);
    }
    /* Python ints do not overflow; a result int64 cannot hold is left unknown */
    int64_t r;
    if (!strcmp(op, "add"))
        return fl ? pv_float(A, a + b) : __builtin_add_overflow(ia, ib, &r) ? NULL : pv_int(A, r);
    if (!strcmp(op, "sub"))
        return fl ? pv_float(A, a - b) : __builtin_sub_overflow(ia, ib, &r) ? NULL : pv_int(A, r);
    if (!strcmp(op, "mul"))
        return fl ? pv_float(A, a * b) : __builtin_mul_overflow(ia, ib, &r) ? NULL : pv_int(A, r);
    if (!strcmp(op, "floordiv") || !strcmp(op, "mod")) {
        if (b == 0) {
            *error = "ZeroDivisionError: integer division or modulo by zero";
            return NULL;
        }
        if (fl)
            return pv_float(A, op[0] == 'f' ? floor(a / b) : a - floor(a / b) * b);
        if (ia == INT64_MIN && ib == -1)
            return NULL;
        return pv_int(A, op[0] == 'f' ? floordiv(ia, ib) : pymod(ia, ib));
    }
    if (!strcmp(op, "pow")) {
        if (!fl && ib >= 0) {
            r = 1;
            for (int64_t k = 0; k < ib; k++)
                if (__builtin_mul_overflow(r, ia, &r))
                    return NULL;
            return pv_int(A, r);
        }
        return pv_float(A, pow(a, b));
    }
    return NULL;
}

/* "...{}...".format(args) for the messages of the checks that raise. */
pv *py_format(arena *A, pv **a, size_t na)
{
    if (!na || a[0]->kind != PV_STR)
        return NULL;
    strbuf sb;
    sb_init(&sb);
    size_t k = 1;
    for (const char *s = a[0]->u.s; *s; s++) {
        if (s[0] == '{' && s[1] == '}') {
            if (k < na)
                pv_str_of(a[k++], &sb);
            s++;
        } else {
            sb_putc(&sb, *s);
        }
    }
    pv *r = pv_str(A, PV_STR, arena_strdup(A, sb.s ? sb.s : ""));
    sb_free(&sb);
    return r;
}

/* l[i] and l[start:stop:step] of a known sequence. */
pv *py_getitem(arena *A, pv *x, pv *i)
{
    if (!pv_is_seq(x) && x->kind != PV_STR)
        return NULL;
    int64_t n = x->kind == PV_STR ? (int64_t)strlen(x->u.s) : (int64_t)x->u.seq.n;
    if (i->kind == PV_INT || i->kind == PV_BOOL) {
        int64_t k = i->kind == PV_BOOL ? i->u.b : i->u.i;
        if (k < 0)
            k += n;
        if (k < 0 || k >= n || x->kind == PV_STR)
            return NULL;
        return x->u.seq.items[k];
    }
    if (i->kind != PV_SLICE || x->kind == PV_STR || i->u.seq.n != 3)
        return NULL;
    int64_t b[3] = {0, n, 1};
    for (int j = 0; j < 3; j++) {
        pv *e = i->u.seq.items[j];
        if (e->kind == PV_INT)
            b[j] = e->u.i;
        else if (e->kind != PV_NONE)
            return NULL;
    }
    if (b[2] <= 0)
        return NULL;
    for (int j = 0; j < 2; j++) {
        if (b[j] < 0)
            b[j] += n;
        b[j] = b[j] < 0 ? 0 : b[j] > n ? n : b[j];
    }
    pv *r = pv_seq(A, x->kind, 4);
    for (int64_t k = b[0]; k < b[1]; k += b[2])
        pv_push(A, r, x->u.seq.items[k]);
    return r;
}

