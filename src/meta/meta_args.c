/* meta_args.c — reading a rule call's parameters: tensors (from node meta), ints, SymInts,
 * int lists, bools and tensor lists, with the reason recorded when one is not what it should be. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "meta/meta_internal.h"
#include "meta/meta_infer.h"

bool mi_fail(mi_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    return false;
}

bool mi_cannot(mi_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    c->cannot = true;
    return false;
}

const fx_arg *mi_param(const mi_ctx *c, size_t i) { return i < c->np ? c->prm[i] : NULL; }

bool mi_is_none(const mi_ctx *c, size_t i)
{
    const fx_arg *a = mi_param(c, i);
    return !a || a->kind == FX_ARG_NONE;
}

mi_tensor *mi_tensor_of_value(mi_ctx *c, const fx_value *v, const char *what)
{
    if (!v || v->kind != FX_VAL_TENSOR) {
        mi_cannot(c, "%s has no tensor meta", what);
        return NULL;
    }
    if (v->rank > MI_MAX_RANK) {
        mi_cannot(c, "%s has more than %d dimensions", what, MI_MAX_RANK);
        return NULL;
    }
    mi_tensor *t = arena_alloc(c->a, sizeof *t);
    t->dtype = v->dtype;
    t->rank = v->rank;
    t->device = v->device;
    t->strided = v->strides != NULL;
    for (size_t i = 0; i < v->rank; i++) {
        t->size[i] = sx_parse(c->a, v->sizes ? v->sizes[i] : NULL);
        if (!t->size[i]) {
            mi_cannot(c, "cannot read size '%s' of %s", v->sizes ? v->sizes[i] : "?", what);
            return NULL;
        }
        if (t->strided && !(t->stride[i] = sx_parse(c->a, v->strides[i])))
            t->strided = false;
    }
    return t;
}

mi_tensor *mi_tensor_of(mi_ctx *c, const fx_arg *a)
{
    if (!a || a->kind != FX_ARG_NODE) {
        mi_fail(c, "expected a tensor argument");
        return NULL;
    }
    char what[160];
    snprintf(what, sizeof what, "%%%s", a->u.node->name);
    return mi_tensor_of_value(c, a->u.node->meta.val, what);
}

mi_tensor *mi_tensor_param(mi_ctx *c, size_t i) { return mi_tensor_of(c, mi_param(c, i)); }

mi_tensor *mi_strided_param(mi_ctx *c, size_t i)
{
    mi_tensor *t = mi_tensor_param(c, i);
    if (t && !t->strided)
        mi_contiguous(c, t);
    return t;
}

sx *mi_sx_of(mi_ctx *c, const fx_arg *a)
{
    if (!a)
        return NULL;
    if (a->kind == FX_ARG_INT)
        return sx_int(c->a, a->u.i);
    if (a->kind == FX_ARG_BOOL)
        return sx_int(c->a, a->u.b);
    if (a->kind == FX_ARG_NODE) {
        const fx_value *v = a->u.node->meta.val;
        if (v && v->kind == FX_VAL_SYM && v->text)
            return sx_parse(c->a, v->text);
        mi_cannot(c, "%%%s is not a SymInt with known value", a->u.node->name);
    }
    return NULL;
}

sx *mi_sx_param(mi_ctx *c, size_t i) { return mi_sx_of(c, mi_param(c, i)); }

bool mi_int_param(mi_ctx *c, size_t i, int64_t *v)
{
    const fx_arg *a = mi_param(c, i);
    if (a && a->kind == FX_ARG_INT) {
        *v = a->u.i;
        return true;
    }
    if (a && a->kind == FX_ARG_BOOL) {
        *v = a->u.b;
        return true;
    }
    sx *s = mi_sx_of(c, a);
    if (sx_is_int(s, v))
        return true;
    if (s)   /* a symbolic size where the rule needs its value */
        return mi_cannot(c, "%s is symbolic where an integer is needed", sx_str(s));
    return c->cannot ? false : mi_fail(c, "expected an integer argument");
}

bool mi_bool_param(mi_ctx *c, size_t i, bool dflt)
{
    const fx_arg *a = mi_param(c, i);
    if (a && a->kind == FX_ARG_BOOL)
        return a->u.b;
    if (a && a->kind == FX_ARG_INT)
        return a->u.i != 0;
    return dflt;
}

bool mi_sx_list_param(mi_ctx *c, size_t i, sx **out, size_t *n, size_t cap)
{
    const fx_arg *a = mi_param(c, i);
    *n = 0;
    if (!a)
        return mi_fail(c, "a list argument is missing");
    if (a->kind != FX_ARG_LIST && a->kind != FX_ARG_TUPLE) {
        /* int[2] stride=1: a single number stands for every entry */
        if (!(out[0] = mi_sx_of(c, a)))
            return mi_fail(c, "expected an int list");
        *n = 1;
        return true;
    }
    if (a->u.seq.len > cap)
        return mi_fail(c, "list of %zu entries is too long", a->u.seq.len);
    for (size_t k = 0; k < a->u.seq.len; k++)
        if (!(out[k] = mi_sx_of(c, a->u.seq.items[k])))
            return mi_fail(c, "entry %zu of an int list is not an integer", k);
    *n = a->u.seq.len;
    return true;
}

bool mi_int_list_param(mi_ctx *c, size_t i, int64_t *out, size_t *n, size_t cap)
{
    sx *s[MI_MAX_RANK * 4];
    if (cap > MI_MAX_RANK * 4)
        cap = MI_MAX_RANK * 4;
    if (!mi_sx_list_param(c, i, s, n, cap))
        return false;
    for (size_t k = 0; k < *n; k++)
        if (!sx_is_int(s[k], &out[k]))
            return mi_fail(c, "entry %zu of an int list is symbolic (%s)", k, sx_str(s[k]));
    return true;
}

bool mi_tensor_list_param(mi_ctx *c, size_t i, mi_tensor **out, size_t *n, size_t cap, bool keep_none)
{
    const fx_arg *a = mi_param(c, i);
    *n = 0;
    if (!a || (a->kind != FX_ARG_LIST && a->kind != FX_ARG_TUPLE))
        return mi_fail(c, "expected a list of tensors");
    for (size_t k = 0; k < a->u.seq.len; k++) {
        const fx_arg *e = a->u.seq.items[k];
        if (e->kind == FX_ARG_NONE && !keep_none)
            continue;
        if (*n == cap)
            return mi_fail(c, "too many tensors in a list");
        if (e->kind == FX_ARG_NONE) {
            out[(*n)++] = NULL;
            continue;
        }
        if (!(out[*n] = mi_tensor_of(c, e)))
            return false;
        (*n)++;
    }
    return true;
}

bool mi_wrap_dim(mi_ctx *c, int64_t d, size_t rank, size_t *out)
{
    int64_t r = rank ? (int64_t)rank : 1;
    if (d < -r || d >= r)   /* torch's maybe_wrap_dim message */
        return mi_fail(c, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)", (long long)-r,
                       (long long)(r - 1), (long long)d);
    *out = (size_t)(d < 0 ? d + r : d);
    return true;
}

bool mi_tensor_params(mi_ctx *c, mi_tensor **out, size_t *n, size_t cap)
{
    *n = 0;
    for (size_t i = 0; i < c->np && *n < cap; i++) {
        const fx_arg *a = mi_param(c, i);
        if (!a || a->kind != FX_ARG_NODE)
            continue;
        const fx_value *v = a->u.node->meta.val;
        if (v && v->kind == FX_VAL_SYM)
            continue;   /* a SymInt operand is a scalar */
        if (!(out[(*n)++] = mi_tensor_param(c, i)))
            return false;
    }
    return true;
}

mi_tensor *mi_out_alloc(mi_ctx *c, mi_out *o, size_t n)
{
    o->t = arena_alloc(c->a, (n ? n : 1) * sizeof *o->t);
    o->n = n;
    return o->t;
}

mi_tensor *mi_out_one(mi_ctx *c, mi_out *o, size_t rank)
{
    mi_tensor *t = mi_out_alloc(c, o, 1);
    t->rank = rank;
    return t;
}

void mi_specialize(mi_ctx *c, const sx *size, int64_t v)
{
    meta_spec_log *log = c->specs;
    if (!log || !size || sx_kind_of(size) != SX_SYM)
        return;
    const char *sym = sx_str(size);
    for (size_t i = 0; i < log->len; i++)
        if (!strcmp(log->items[i].symbol, sym))
            return;
    if (log->len == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 8;
        log->items = xrealloc(log->items, log->cap * sizeof *log->items);
    }
    log->items[log->len++] = (meta_spec){xstrdup(sym), v, xstrdup(c->node && c->node->name ? c->node->name : "?")};
}
