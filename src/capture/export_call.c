/* export_call.c — torch functions, tensor methods and Python operators in the export pass: shape
 * arithmetic folds, indexing, and the op table's aten overloads. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/shape.h"
#include "base/strbuf.h"
#include "fx/fx_build.h"
#include "capture/export_internal.h"
#include "tables/tables.h"
#include "meta/meta_infer.h"

/* ---- torch functions, methods and operators -------------------------------------------------- */



/* "torch.nn.functional.relu" → "relu" (F_FN); "operator.add" → "add" (F_OP). */
static const char *callee_name(const fx_node *n, unsigned *where)
{
    static const char *const prefixes[] = { "torch.nn.functional.", "torch._C._nn.", "torch.functional.",
                                            "torch._C._VariableFunctions.", "torch.", NULL };
    if (n->op == FX_OP_CALL_METHOD) {
        *where = F_METH;
        return n->target;
    }
    if (strncmp(n->target, "operator.", 9) == 0) {
        *where = F_OP;
        return n->target + 9;
    }
    *where = F_FN;
    for (size_t i = 0; prefixes[i]; i++) {
        size_t l = strlen(prefixes[i]);
        if (strncmp(n->target, prefixes[i], l) == 0)
            return n->target + l;
    }
    return n->target;
}

static bool arg_given(const fx_node *n, const char *schema, const char *need)
{
    if (!strcmp(need, "#tensor")) {
        const fx_arg *a = n->args->u.seq.len > 1 ? n->args->u.seq.items[1] : NULL;
        return a && a->kind == FX_ARG_NODE;
    }
    /* "name:list": the argument is given as a list or tuple (split sizes vs. one size) */
    const char *colon = strchr(need, ':');
    size_t nl = colon ? (size_t)(colon - need) : strlen(need);
    bool want_list = colon && !strcmp(colon + 1, "list");
    const fx_arg *given = NULL;
    sarg sa[MAX_SARGS];
    size_t ns = xp_parse_schema(schema, sa);
    for (size_t i = 0; i < ns && !given; i++)
        if (strlen(sa[i].name) == nl && !strncmp(sa[i].name, need, nl) && n->args->u.seq.len > i)
            given = n->args->u.seq.items[i];
    for (size_t k = 0; k < n->kwargs->u.seq.len && !given; k++)
        if (strlen(n->kwargs->u.seq.keys[k]) == nl && !strncmp(n->kwargs->u.seq.keys[k], need, nl))
            given = n->kwargs->u.seq.items[k];
    if (!given)
        return false;
    return !want_list || given->kind == FX_ARG_LIST || given->kind == FX_ARG_TUPLE;
}

/* Dimension i of a tensor: a static int when its value meta (a declared input, or meta the
 * source program carried) says so, as torch.export specializes static sizes; else an
 * aten.sym_size.int node. */
fx_arg *xp_dim_value(xctx *x, fx_node *t, int64_t i)
{
    const fx_value *val = t->meta.val;
    if (val && val->kind == FX_VAL_TENSOR && val->sizes) {
        int64_t k = i < 0 ? i + (int64_t)val->rank : i;
        if (k >= 0 && (size_t)k < val->rank) {
            const char *dt = val->sizes[k];
            char *ep;
            long long v = strtoll(dt, &ep, 10);
            if (*dt && *ep == 0)
                return fx_arg_int(x->dst, v);
        }
    }
    fx_arg *args[2] = { fx_arg_node(x->dst, t), fx_arg_int(x->dst, i) };
    fx_node *n = xp_emit_call(x, "aten.sym_size.int", "self,dim", args, 2, NULL, NULL, 0);
    return n ? fx_arg_node(x->dst, n) : NULL;
}

/* a is a Python int known now: a literal or a value that folded to one. */
static bool static_int(xctx *x, const fx_arg *a, int64_t *out)
{
    if (a->kind == FX_ARG_INT) {
        *out = a->u.i;
        return true;
    }
    if (a->kind != FX_ARG_NODE)
        return false;
    xval *v = hm_get(&x->vals, a->u.node->name);
    if (!v || !v->arg || v->arg->kind != FX_ARG_INT)
        return false;
    *out = v->arg->u.i;
    return true;
}

static bool is_shape_attr(const fx_arg *a)
{
    return a && (a->kind == FX_ARG_STR || a->kind == FX_ARG_OPAQUE) && !strcmp(a->u.s, "shape");
}

/* x[i], x[a:b], x[:, i]: select.int / slice.Tensor / unsqueeze per indexed dimension. */
static bool index_tensor(xctx *x, const fx_node *n, fx_arg *t, const fx_arg *idx)
{
    fx_arg *const *items = (fx_arg *const *)&idx;
    size_t ni = 1;
    if (idx->kind == FX_ARG_TUPLE) {
        items = idx->u.seq.items;
        ni = idx->u.seq.len;
    }
    int64_t dim = 0;
    fx_arg *cur = t;
    for (size_t i = 0; i < ni; i++) {
        const fx_arg *it = items[i];
        int64_t iv;
        if (static_int(x, it, &iv)) {
            fx_arg *a[3] = { cur, fx_arg_int(x->dst, dim), fx_arg_int(x->dst, iv) };
            fx_node *s = xp_emit_call(x, "aten.select.int", "self,dim,index", a, 3, NULL, NULL, 0);
            if (!s)
                return false;
            cur = fx_arg_node(x->dst, s);
        } else if (it->kind == FX_ARG_SLICE && it->u.seq.len == 3) {
            bool ok = true;
            fx_arg *st = xp_conv_arg(x, it->u.seq.items[0], &ok), *en = xp_conv_arg(x, it->u.seq.items[1], &ok),
                   *sp = xp_conv_arg(x, it->u.seq.items[2], &ok);
            if (!ok)
                return false;
            if (st->kind == FX_ARG_NONE && en->kind == FX_ARG_NONE && sp->kind == FX_ARG_NONE) {
                dim++;
                continue;   /* a full slice records nothing */
            }
            fx_arg *a[5] = { cur, fx_arg_int(x->dst, dim), st->kind == FX_ARG_NONE ? fx_arg_int(x->dst, 0) : st,
                             en->kind == FX_ARG_NONE ? fx_arg_int(x->dst, INT64_MAX) : en,
                             sp->kind == FX_ARG_NONE ? fx_arg_int(x->dst, 1) : sp };
            fx_node *s = xp_emit_call(x, "aten.slice.Tensor", "self,dim=0,start=None,end=None,step=1", a, 5, NULL, NULL, 0);
            if (!s)
                return false;
            cur = fx_arg_node(x->dst, s);
            dim++;
        } else if (it->kind == FX_ARG_NONE) {
            fx_arg *a[2] = { cur, fx_arg_int(x->dst, dim) };
            fx_node *s = xp_emit_call(x, "aten.unsqueeze.default", "self,dim", a, 2, NULL, NULL, 0);
            if (!s)
                return false;
            cur = fx_arg_node(x->dst, s);
            dim++;
        } else {
            diag_error(x->d, xp_loc(x), "export: indexing %%%s with this index is not supported", n->name);
            return false;
        }
    }
    xp_set_val(x, n->name, cur);
    return true;
}

/* Appends the arguments an entry's `extra` names ("dtype=torch.float32 pin_memory=False": what
 * x.float() or torch.zeros_like pass themselves) unless the call gave them. */
static bool add_extra_args(xctx *x, const op_spec *spec, size_t npos, const char **kwn, fx_arg **kwv,
                           size_t *nkw)
{
    sarg sa[MAX_SARGS];
    size_t ns = xp_parse_schema(spec->schema, sa);
    for (const char *s = spec->extra; *s;) {
        while (*s == ' ')
            s++;
        const char *e = s;
        while (*e && *e != ' ')
            e++;
        const char *eq = memchr(s, '=', (size_t)(e - s));
        if (e == s)
            break;
        fx_arg *v = eq ? fx_parse_literal(x->dst, eq + 1, e) : NULL;
        if (!v) {
            diag_error(x->d, xp_loc(x), "export: cannot read extra argument '%.*s' of %s", (int)(e - s), s,
                       spec->target);
            return false;
        }
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(eq - s), s);
        bool given = false;
        for (size_t i = 0; i < ns && !given; i++)
            given = !strcmp(sa[i].name, name) && i < npos && !sa[i].kwonly;
        for (size_t k = 0; k < *nkw && !given; k++)
            given = !strcmp(kwn[k], name);
        if (!given && *nkw < MAX_SARGS) {
            kwn[*nkw] = fx_strdup(x->dst, name);
            kwv[(*nkw)++] = v;
        }
        s = e;
    }
    return true;
}

/* What a special-case handler made of a call: not its case, done, failed (reported), or a
 * case it recognises but cannot export. */
typedef enum { CALL_NOT_MINE, CALL_DONE, CALL_FAILED, CALL_UNSUPPORTED } call_result;

/* Shapes and sizes: x.shape / x.size(i) / shape[i] give static ints or sym_size nodes, indexing
 * picks from tuples and lists or indexes a tensor, arithmetic on static sizes folds. */
static call_result shape_call(xctx *x, const fx_node *n, unsigned where, const char *name)
{
    size_t nargs = n->args->u.seq.len;
    fx_arg *const *sargs = n->args->u.seq.items;
    /* x.shape / x.size() / shape[i]: static ints or sym_size nodes. */
    if (where == F_FN && !strcmp(n->target, "builtins.getattr") && nargs == 2 &&
        sargs[0]->kind == FX_ARG_NODE && is_shape_attr(sargs[1])) {
        xval *src = hm_get(&x->vals, sargs[0]->u.node->name);
        if (!src || !src->arg || src->arg->kind != FX_ARG_NODE)
            return CALL_UNSUPPORTED;
        xval *v = fx_alloc(x->dst, sizeof *v);
        v->shape_of = src->arg->u.node;
        hm_put(&x->vals, fx_strdup(x->dst, n->name), v);
        return CALL_DONE;
    }
    if (where == F_OP && !strcmp(name, "getitem") && nargs == 2 && sargs[0]->kind == FX_ARG_NODE &&
        sargs[1]->kind == FX_ARG_INT) {
        xval *src = hm_get(&x->vals, sargs[0]->u.node->name);
        /* a Python tuple of values (a module returning several): indexing picks one */
        if (src && src->arg && src->arg->kind == FX_ARG_TUPLE) {
            int64_t i = sargs[1]->u.i, len = (int64_t)src->arg->u.seq.len;
            if (i < -len || i >= len) {
                diag_error(x->d, xp_loc(x), "export: %%%s indexes a %lld-tuple with %lld", n->name,
                           (long long)len, (long long)i);
                return CALL_FAILED;
            }
            xp_set_val(x, n->name, src->arg->u.seq.items[i < 0 ? i + len : i]);
            return CALL_DONE;
        }
        if (src && src->shape_of) {
            fx_arg *a = xp_dim_value(x, src->shape_of, sargs[1]->u.i);
            if (!a)
                return CALL_FAILED;
            xp_set_val(x, n->name, a);
            return CALL_DONE;
        }
        if (src && src->is_list && src->arg && src->arg->kind == FX_ARG_NODE) {
            fx_arg *ga[2] = { src->arg, fx_arg_int(x->dst, sargs[1]->u.i) };
            xp_set_val(x, n->name, fx_arg_node(x->dst, xp_emit_python(x, "getitem", "operator.getitem", ga, 2)));
            return CALL_DONE;
        }
        if (src && src->arg && src->arg->kind == FX_ARG_NODE)
            return index_tensor(x, n, src->arg, sargs[1]) ? CALL_DONE : CALL_FAILED;
        return CALL_UNSUPPORTED;
    }
    if (where == F_OP && !strcmp(name, "getitem") && nargs == 2 && sargs[0]->kind == FX_ARG_NODE) {
        xval *src = hm_get(&x->vals, sargs[0]->u.node->name);
        if (src && src->arg && src->arg->kind == FX_ARG_NODE && !src->is_list && !src->shape_of)
            return index_tensor(x, n, src->arg, sargs[1]) ? CALL_DONE : CALL_FAILED;
        return CALL_UNSUPPORTED;
    }
    /* Arithmetic on static sizes folds to a constant, as tracing with concrete shapes does. */
    if (where == F_OP && nargs == 2) {
        int64_t u, v, r;
        if (static_int(x, sargs[0], &u) && static_int(x, sargs[1], &v)) {
            bool done = true;
            if (!strcmp(name, "add"))
                r = u + v;
            else if (!strcmp(name, "sub"))
                r = u - v;
            else if (!strcmp(name, "mul"))
                r = u * v;
            else if (!strcmp(name, "floordiv") && v != 0)
                r = u / v - ((u % v != 0) && ((u < 0) != (v < 0)));
            else if (!strcmp(name, "mod") && v != 0)
                r = ((u % v) + v) % v;
            else
                done = false;
            if (done) {
                xp_set_val(x, n->name, fx_arg_int(x->dst, r));
                return CALL_DONE;
            }
        }
    }
    if (where == F_METH && !strcmp(name, "size") && nargs == 2 && sargs[1]->kind == FX_ARG_INT) {
        xval *src = sargs[0]->kind == FX_ARG_NODE ? hm_get(&x->vals, sargs[0]->u.node->name) : NULL;
        if (!src || !src->arg || src->arg->kind != FX_ARG_NODE)
            return CALL_UNSUPPORTED;
        fx_arg *a = xp_dim_value(x, src->arg->u.node, sargs[1]->u.i);
        if (!a)
            return CALL_FAILED;
        xp_set_val(x, n->name, a);
        return CALL_DONE;
    }

    return CALL_NOT_MINE;
}

/* F.interpolate picks an upsample overload by mode (2-d: size/scale of two dims). */
static call_result interpolate_call(xctx *x, const fx_node *n, bool *ok)
{
    size_t nargs = n->args->u.seq.len;
    fx_arg *const *sargs = n->args->u.seq.items;
    fx_arg *in = xp_conv_arg(x, sargs[0], ok), *size = NULL, *scale = NULL, *align = NULL;
    const char *mode = "nearest";
    for (size_t k = 0; k < n->kwargs->u.seq.len; k++) {
        const char *key = n->kwargs->u.seq.keys[k];
        fx_arg *v = xp_conv_arg(x, n->kwargs->u.seq.items[k], ok);
        if (!strcmp(key, "size"))
            size = v;
        else if (!strcmp(key, "scale_factor"))
            scale = v;
        else if (!strcmp(key, "align_corners"))
            align = v;
        else if (!strcmp(key, "mode") && (v->kind == FX_ARG_STR || v->kind == FX_ARG_OPAQUE))
            mode = v->u.s;
    }
    if (nargs > 1)
        size = xp_conv_arg(x, sargs[1], ok);
    if (nargs > 2)
        scale = xp_conv_arg(x, sargs[2], ok);
    if (!*ok)
        return CALL_FAILED;
    static const sarg two = { "", "i2", NULL, 0, false };
    fx_arg *sz = size && size->kind != FX_ARG_NONE ? xp_coerce(x->dst, size, &two) : fx_arg_none(x->dst);
    fx_arg *sc = fx_arg_none(x->dst);
    if (scale && scale->kind == FX_ARG_FLOAT) {
        fx_arg *it[2] = { scale, scale };
        sc = fx_arg_seq(x->dst, FX_ARG_LIST, it, NULL, 2);
    } else if (scale && scale->kind != FX_ARG_NONE) {
        sc = xp_coerce(x->dst, scale, &two);
    }
    fx_node *r;
    if (!strcmp(mode, "nearest")) {
        fx_arg *a[3] = { in, sz, sc };
        r = xp_emit_call(x, "aten.upsample_nearest2d.vec", "input,output_size,scale_factors", a, 3, NULL, NULL, 0);
    } else if (!strcmp(mode, "bilinear")) {
        fx_arg *a[4] = { in, sz, align && align->kind == FX_ARG_BOOL ? align : fx_arg_bool(x->dst, false), sc };
        r = xp_emit_call(x, "aten.upsample_bilinear2d.vec", "input,output_size,align_corners,scale_factors", a, 4,
                      NULL, NULL, 0);
    } else {
        return CALL_UNSUPPORTED;
    }
    if (!r)
        return CALL_FAILED;
    xp_set_val(x, n->name, fx_arg_node(x->dst, r));
    return CALL_DONE;
}

/* The op table's overload for a torch function, tensor method or operator. */
static call_result table_call(xctx *x, const fx_node *n, unsigned where, const char *name, bool *ok)
{
    size_t nargs = n->args->u.seq.len;
    fx_arg *const *sargs = n->args->u.seq.items;
    /* F.relu(x, inplace=True) and friends select the in-place overload. */
    char lookup[64];
    snprintf(lookup, sizeof lookup, "%s", name);
    const char *kwn[MAX_SARGS];
    fx_arg *kwv[MAX_SARGS];
    size_t nkw = 0;
    for (size_t k = 0; k < n->kwargs->u.seq.len && nkw < MAX_SARGS; k++) {
        const char *key = n->kwargs->u.seq.keys[k];
        const fx_arg *v = n->kwargs->u.seq.items[k];
        if (!strcmp(key, "inplace")) {
            if (v->kind == FX_ARG_BOOL && v->u.b)
                snprintf(lookup, sizeof lookup, "%s_", name);
            continue;
        }
        if (!strcmp(key, "_stacklevel"))
            continue;
        kwn[nkw] = key;
        kwv[nkw++] = xp_conv_arg(x, v, ok);
    }
    const op_spec *spec = NULL;
    intptr_t first = (intptr_t)hm_get(&x->op_by_name, lookup);
    for (int i = first ? (int)first - 1 : -1; i >= 0; i = x->ops[i].next) {
        const op_spec *s = &x->ops[i];
        if (!(s->where & where))
            continue;
        if (s->need && !arg_given(n, s->schema, s->need))
            continue;
        spec = s;
        break;
    }
    if (!spec)
        return CALL_UNSUPPORTED;
    if (nargs > MAX_SARGS) {
        diag_error(x->d, xp_loc(x), "export: %s called with %zu arguments (at most %d supported)", n->target,
                   nargs, MAX_SARGS);
        return CALL_FAILED;
    }
    fx_arg *pos[MAX_SARGS];
    size_t np = 0;
    for (size_t i = 0; i < nargs && np < MAX_SARGS; i++)
        pos[np++] = xp_conv_arg(x, sargs[i], ok);
    if (!*ok)
        return CALL_FAILED;
    if (spec->extra && !add_extra_args(x, spec, np, kwn, kwv, &nkw))
        return CALL_FAILED;
    /* 2 * x calls x.__rmul__(2): the tensor comes first. */
    if (where == F_OP && np == 2 && sargs[0]->kind != FX_ARG_NODE && sargs[1]->kind == FX_ARG_NODE &&
        (!strcmp(name, "add") || !strcmp(name, "mul"))) {
        fx_arg *t = pos[0];
        pos[0] = pos[1];
        pos[1] = t;
    }
    if (spec->assert_metadata && np > 0 && !xp_emit_metadata_assert(x, pos[0]))
        return CALL_FAILED;
    fx_node *r = xp_emit_call(x, spec->target, spec->schema, pos, np, kwn, kwv, nkw);
    if (!r)
        return CALL_FAILED;
    fx_arg *ra = fx_arg_node(x->dst, r);
    xp_set_val(x, n->name, ra);
    if (spec->returns_list)
        ((xval *)hm_get(&x->vals, n->name))->is_list = true;
    /* An in-place op returns its mutated self; later uses of self see that value. */
    char base[96];
    fx_node_base_name(spec->target, base, sizeof base);
    size_t bl = strlen(base);
    if (bl > 1 && base[bl - 1] == '_' && nargs > 0 && sargs[0]->kind == FX_ARG_NODE)
        xp_set_val(x, sargs[0]->u.node->name, ra);
    return CALL_DONE;
}

bool xp_function_call(xctx *x, const fx_node *n, bool *ok)
{
    unsigned where;
    const char *name = callee_name(n, &where);
    call_result r = shape_call(x, n, where, name);
    if (r == CALL_NOT_MINE && where == F_FN && !strcmp(name, "interpolate") && n->args->u.seq.len >= 1)
        r = interpolate_call(x, n, ok);
    if (r == CALL_NOT_MINE)
        r = table_call(x, n, where, name, ok);
    if (r != CALL_UNSUPPORTED)
        return r == CALL_DONE;
    diagnostic *dg = diag_error(x->d, xp_loc(x), "export: %s '%s' (node %%%s) is not supported",
                                fx_opcode_name(n->op), n->target, n->name);
    diag_set_hint(dg, "fxsh's export table covers common torch functions, tensor methods and operators");
    return false;
}
