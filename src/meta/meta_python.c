/* meta_python.c — meta rule functions for the Python values of TorchScript programs (size
 * comparisons, len, rank, None tests, int/float conversions): SymInt / SymBool results written
 * the way torch prints them ("True", "Eq(s77, 4)", "3"). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "meta/meta_internal.h"

static bool text_result(mi_ctx *c, mi_out *o, const char *text)
{
    o->text = arena_strdup(c->a, text);
    return true;
}

/* A Python bool: a literal, or a node whose SymBool meta is a constant; -1 when unknown. */
static int bool_of(const fx_arg *a)
{
    if (!a)
        return -1;
    if (a->kind == FX_ARG_BOOL)
        return a->u.b;
    if (a->kind == FX_ARG_INT)
        return a->u.i != 0;
    const fx_value *v = a->kind == FX_ARG_NODE ? a->u.node->meta.val : NULL;
    if (v && v->kind == FX_VAL_SYM && v->text)
        return !strcmp(v->text, "True") ? 1 : !strcmp(v->text, "False") ? 0 : -1;
    return -1;
}

static const char *str_param(mi_ctx *c, size_t i)
{
    const fx_arg *a = mi_param(c, i);
    return a && a->kind == FX_ARG_STR ? a->u.s : "";
}

/* Python literals that are not numbers (None, str) compared with == / !=. */
static bool literal_equal(const fx_arg *x, const fx_arg *y, bool *eq)
{
    if (!x || !y || x->kind == FX_ARG_NODE || y->kind == FX_ARG_NODE)
        return false;
    if (x->kind == FX_ARG_NONE || y->kind == FX_ARG_NONE) {
        *eq = x->kind == y->kind;
        return true;
    }
    if (x->kind == FX_ARG_STR && y->kind == FX_ARG_STR) {
        *eq = !strcmp(x->u.s, y->u.s);
        return true;
    }
    if (x->kind == FX_ARG_FLOAT || y->kind == FX_ARG_FLOAT) {
        double a = x->kind == FX_ARG_FLOAT ? x->u.f : x->kind == FX_ARG_INT ? (double)x->u.i : NAN;
        double b = y->kind == FX_ARG_FLOAT ? y->u.f : y->kind == FX_ARG_INT ? (double)y->u.i : NAN;
        *eq = a == b;
        return !isnan(a) && !isnan(b);
    }
    return false;
}

/* py_compare(a, b, op): op is 'eq', 'ne', 'lt', 'le', 'gt' or 'ge' on ints / SymInts (and ==
 * / != on None and strings). Symbolic results print as sympy does: Eq(s77, 4), s77 < 4. */
static bool sh_py_compare(mi_ctx *c, mi_out *o)
{
    const char *op = str_param(c, 2);
    static const char *const ops[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    static const char *const sym[] = {"Eq(%s, %s)", "Ne(%s, %s)", "%s < %s", "%s <= %s", "%s > %s", "%s >= %s"};
    int k = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(op, ops[i]))
            k = i;
    if (k < 0)
        return mi_fail(c, "unknown comparison '%s'", op);
    bool eq;
    if (k < 2 && literal_equal(mi_param(c, 0), mi_param(c, 1), &eq))
        return text_result(c, o, (eq == (k == 0)) ? "True" : "False");
    sx *x = mi_sx_param(c, 0), *y = mi_sx_param(c, 1);
    if (!x || !y)
        return false;
    int64_t a, b;
    if (sx_is_int(x, &a) && sx_is_int(y, &b)) {
        bool r = k == 0 ? a == b : k == 1 ? a != b : k == 2 ? a < b : k == 3 ? a <= b : k == 4 ? a > b : a >= b;
        return text_result(c, o, r ? "True" : "False");
    }
    if (sx_eq(x, y))
        return text_result(c, o, k == 0 || k == 3 || k == 5 ? "True" : "False");
    char buf[256];
    snprintf(buf, sizeof buf, sym[k], sx_str(x), sx_str(y));
    return text_result(c, o, buf);
}

/* py_logic(a, b, op): 'and' / 'or' of bools; py_not(a). */
static bool sh_py_logic(mi_ctx *c, mi_out *o)
{
    int x = bool_of(mi_param(c, 0)), y = bool_of(mi_param(c, 1));
    bool is_and = !strcmp(str_param(c, 2), "and");
    /* a known operand may decide alone: False and ?, True or ? */
    if ((is_and && (x == 0 || y == 0)) || (!is_and && (x == 1 || y == 1)))
        return text_result(c, o, is_and ? "False" : "True");
    if (x < 0 || y < 0)
        return mi_fail(c, "an operand is not a known bool");
    return text_result(c, o, (is_and ? x && y : x || y) ? "True" : "False");
}

static bool sh_py_not(mi_ctx *c, mi_out *o)
{
    int x = bool_of(mi_param(c, 0));
    if (x < 0)
        return mi_fail(c, "the operand is not a known bool");
    return text_result(c, o, x ? "False" : "True");
}

/* Whether a value is None: 1, 0, or -1 when unknown (a node without meta). */
static int none_of(const fx_arg *a)
{
    if (!a || a->kind == FX_ARG_NONE)
        return 1;
    if (a->kind != FX_ARG_NODE)
        return 0;
    return a->u.node->meta.val ? 0 : -1;
}

/* py_is(a, b, negate): `a is b` / `a is not b` where one side is None (TorchScript's Optional
 * checks). */
static bool sh_py_is(mi_ctx *c, mi_out *o)
{
    int x = none_of(mi_param(c, 0)), y = none_of(mi_param(c, 1));
    bool neg = bool_of(mi_param(c, 2)) == 1;
    if (x < 0 || y < 0 || (x == 0 && y == 0))
        return mi_fail(c, "identity is only decided against None");
    return text_result(c, o, ((x == 1 && y == 1) != neg) ? "True" : "False");
}

/* py_len(x): the length of a list, of x.size(), or of a tensor's first dimension. */
static bool sh_py_len(mi_ctx *c, mi_out *o)
{
    const fx_arg *a = mi_param(c, 0);
    if (a && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE)) {
        o->sym = sx_int(c->a, (int64_t)a->u.seq.len);
        return true;
    }
    const fx_value *v = a && a->kind == FX_ARG_NODE ? a->u.node->meta.val : NULL;
    if (v && v->kind == FX_VAL_TUPLE) {
        o->sym = sx_int(c->a, (int64_t)v->n_items);
        return true;
    }
    mi_tensor *t = v && v->kind == FX_VAL_TENSOR ? mi_tensor_param(c, 0) : NULL;
    if (!t)
        return mi_fail(c, "len() of a value that is neither a list nor a tensor with meta");
    if (!t->rank)
        return mi_fail(c, "len() of a 0-d tensor");
    o->sym = t->size[0];
    return true;
}

/* py_rank(x): x.dim(). */
static bool sh_py_rank(mi_ctx *c, mi_out *o)
{
    mi_tensor *t = mi_tensor_param(c, 0);
    if (!t)
        return false;
    o->sym = sx_int(c->a, (int64_t)t->rank);
    return true;
}

/* py_int(x, mode): int(x), math.floor(x) ('floor') or math.ceil(x) ('ceil') of a number or a
 * SymInt; int() of a tensor is a fresh unbacked symbol, as torch's item(). */
static bool sh_py_int(mi_ctx *c, mi_out *o)
{
    const fx_arg *a = mi_param(c, 0);
    const char *mode = str_param(c, 1);
    if (a && a->kind == FX_ARG_NODE && a->u.node->meta.val && a->u.node->meta.val->kind == FX_VAL_TENSOR) {
        /* int(t) of a tensor (TorchScript's aten::Int): its value is data, an unbacked int */
        o->sym = sx_sym(c->a, mi_fresh_unbacked(c, "u"));
        return true;
    }
    if (a && a->kind == FX_ARG_FLOAT) {
        double f = !strcmp(mode, "floor") ? floor(a->u.f) : !strcmp(mode, "ceil") ? ceil(a->u.f) : trunc(a->u.f);
        if (!(f > -9.2e18 && f < 9.2e18))
            return mi_fail(c, "%g does not fit an int", a->u.f);
        o->sym = sx_int(c->a, (int64_t)f);
        return true;
    }
    o->sym = mi_sx_of(c, a);
    return o->sym != NULL;
}

/* py_float(x): float(x) of an int or a SymInt, as Python prints it ("3.0") or torch's sympy
 * does ("ToFloat(i)"). */
static bool sh_py_float(mi_ctx *c, mi_out *o)
{
    const fx_arg *a = mi_param(c, 0);
    char buf[40];
    if (a && a->kind == FX_ARG_FLOAT)
        return text_result(c, o, fx_float_repr(a->u.f, buf, sizeof buf));
    sx *x = mi_sx_of(c, a);
    int64_t v;
    if (!x)
        return mi_fail(c, "float() of a value that is not a number");
    if (sx_is_int(x, &v))
        return text_result(c, o, fx_float_repr((double)v, buf, sizeof buf));
    /* a SymFloat made from a SymInt, as torch's sympy prints it */
    snprintf(buf, sizeof buf, "ToFloat(%s)", sx_str(x));
    return text_result(c, o, buf);
}

/* py_tensor(data): torch.tensor(data) of a number or a (nested) list of numbers. */
static bool sh_py_tensor(mi_ctx *c, mi_out *o)
{
    const fx_arg *a = mi_param(c, 0);
    size_t rank = 0;
    int64_t dims[MI_MAX_RANK];
    while (a && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE)) {
        if (rank == MI_MAX_RANK)
            return mi_fail(c, "data nested too deep");
        dims[rank++] = (int64_t)a->u.seq.len;
        a = a->u.seq.len ? a->u.seq.items[0] : NULL;
    }
    if (a && a->kind != FX_ARG_INT && a->kind != FX_ARG_FLOAT && a->kind != FX_ARG_BOOL)
        return mi_fail(c, "the data is not numbers");
    mi_tensor *t = mi_out_one(c, o, rank);
    for (size_t i = 0; i < rank; i++)
        t->size[i] = sx_int(c->a, dims[i]);
    return true;
}

static const mi_fn_entry python_fns[] = {
    MI_FN("py_compare", 3, 3, sh_py_compare), MI_FN("py_logic", 3, 3, sh_py_logic),
    MI_FN("py_not", 1, 1, sh_py_not), MI_FN("py_is", 3, 3, sh_py_is), MI_FN("py_len", 1, 1, sh_py_len),
    MI_FN("py_rank", 1, 1, sh_py_rank), MI_FN("py_int", 2, 2, sh_py_int), MI_FN("py_float", 1, 1, sh_py_float),
    MI_FN("py_tensor", 1, 1, sh_py_tensor),
};

const builtin_family mi_python_builtins = BUILTIN_FAMILY("python", python_fns);
