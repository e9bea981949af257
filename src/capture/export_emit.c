/* export_emit.c — the export pass's output side: binds arguments to an aten schema ("self,dim=0,*,out=None")
 * and emits the call, a Python callable or a value into the exported graph. */
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

size_t xp_parse_schema(const char *s, sarg *out)
{
    size_t n = 0;
    bool kw = false;
    const char *end = s + strlen(s);
    while (s < end && n < MAX_SARGS) {
        const char *ie = fx_literal_item_end(s, end);
        if (ie - s == 1 && *s == '*') {
            kw = true;
        } else {
            sarg *a = &out[n++];
            memset(a, 0, sizeof *a);
            a->kwonly = kw;
            const char *eq = memchr(s, '=', (size_t)(ie - s));
            const char *ne = eq ? eq : ie;
            const char *colon = memchr(s, ':', (size_t)(ne - s));
            const char *nmend = colon ? colon : ne;
            snprintf(a->name, sizeof a->name, "%.*s", (int)(nmend - s), s);
            if (colon)
                snprintf(a->type, sizeof a->type, "%.*s", (int)(ne - colon - 1), colon + 1);
            if (eq) {
                a->def = eq + 1;
                a->def_len = (size_t)(ie - eq - 1);
            }
        }
        s = ie < end ? ie + 1 : end;
    }
    return n;
}

void xp_arg_text(const fx_arg *a, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = 0;
    switch (a->kind) {
    case FX_ARG_NONE: snprintf(buf, cap, "None"); return;
    case FX_ARG_INT: snprintf(buf, cap, "%lld", (long long)a->u.i); return;
    case FX_ARG_FLOAT: fx_float_repr(a->u.f, buf, cap); return;
    case FX_ARG_BOOL: snprintf(buf, cap, "%s", a->u.b ? "True" : "False"); return;
    case FX_ARG_STR: snprintf(buf, cap, "'%s'", a->u.s); return;
    case FX_ARG_LIST: case FX_ARG_TUPLE:
        o = (size_t)snprintf(buf, cap, "[");
        for (size_t i = 0; i < a->u.seq.len && o < cap; i++) {
            char t[64];
            xp_arg_text(a->u.seq.items[i], t, sizeof t);
            o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", t);
        }
        if (o < cap)
            snprintf(buf + o, cap - o, "]");
        return;
    default: snprintf(buf, cap, "<%d>", (int)a->kind); return;
    }
}

static bool equals_default(const fx_arg *a, const sarg *s)
{
    if (!s->def)
        return false;
    char t[256], d[64];
    snprintf(d, sizeof d, "%.*s", (int)s->def_len, s->def);
    /* An int-list default written as one scalar ("stride=1") matches [1, 1]. */
    if (a->kind == FX_ARG_LIST && s->type[0] == 'i' && d[0] != '[') {
        for (size_t i = 0; i < a->u.seq.len; i++) {
            xp_arg_text(a->u.seq.items[i], t, sizeof t);
            if (strcmp(t, d) != 0)
                return false;
        }
        return a->u.seq.len > 0;
    }
    xp_arg_text(a, t, sizeof t);
    return strcmp(t, d) == 0;
}

/* Converts a bound value to the schema type (tuples become lists, scalars int lists). */
fx_arg *xp_coerce(fx_program *p, fx_arg *a, const sarg *s)
{
    if (s->type[0] == 'i') {
        if (a->kind == FX_ARG_TUPLE)
            return fx_arg_seq(p, FX_ARG_LIST, a->u.seq.items, NULL, a->u.seq.len);
        if (a->kind == FX_ARG_INT || a->kind == FX_ARG_NODE) {
            size_t n = isdigit((unsigned char)s->type[1]) ? (size_t)(s->type[1] - '0') : 1;
            fx_arg *items[9];
            for (size_t i = 0; i < n; i++)
                items[i] = a;
            return fx_arg_seq(p, FX_ARG_LIST, items, NULL, n);
        }
    }
    if (!strcmp(s->type, "list") && a->kind == FX_ARG_TUPLE)
        return fx_arg_seq(p, FX_ARG_LIST, a->u.seq.items, NULL, a->u.seq.len);
    return a;
}

diag_loc xp_loc(xctx *x)
{
    diag_loc l = { x->src->file, 0, 0 };
    if (x->cur)
        l.line = (int)x->cur->index + 2;   /* graph text: line 1 is "graph():" */
    return l;
}

static fx_node *map_src(const fx_node *n, void *ctx)
{
    xctx *x = ctx;
    xval *v = hm_get(&x->vals, n->name);
    if (v && v->arg && v->arg->kind == FX_ARG_NODE)
        return v->arg->u.node;
    return NULL;
}

/* Source arg → new arg; node references resolve to their current (post-mutation) value. */
fx_arg *xp_conv_arg(xctx *x, const fx_arg *a, bool *ok)
{
    if (a->kind == FX_ARG_NODE) {
        xval *v = hm_get(&x->vals, a->u.node->name);
        if (!v || !v->arg) {
            diag_error(x->d, xp_loc(x), "export: value '%s' used by '%s' is not available",
                       a->u.node->name, x->cur ? x->cur->name : "?");
            *ok = false;
            return fx_arg_none(x->dst);
        }
        return v->arg;
    }
    if (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE || a->kind == FX_ARG_DICT ||
        a->kind == FX_ARG_SLICE) {
        size_t n = a->u.seq.len;
        fx_arg **items = fx_alloc(x->dst, (n ? n : 1) * sizeof *items);
        for (size_t i = 0; i < n; i++)
            items[i] = xp_conv_arg(x, a->u.seq.items[i], ok);
        return fx_arg_seq(x->dst, a->kind, items, a->kind == FX_ARG_DICT ? a->u.seq.keys : NULL, n);
    }
    return fx_copy_arg(x->dst, a, map_src, x);
}

void xp_set_val(xctx *x, const char *src_name, fx_arg *a)
{
    xval *v = fx_alloc(x->dst, sizeof *v);
    v->arg = a;
    hm_put(&x->vals, fx_strdup(x->dst, src_name), v);
}

/* Emits target(args) normalised against schema: kwargs of positional parameters become
 * positional, trailing defaults are dropped, keyword-only defaults omitted. The node is named
 * after the op (fx_node_base_name) unless name_base says otherwise. */
fx_node *xp_emit_call_named(xctx *x, const char *name_base, const char *target, const char *schema,
                                fx_arg **pos, size_t npos, const char **kwn, fx_arg **kwv, size_t nkw)
{
    sarg sa[MAX_SARGS];
    size_t ns = xp_parse_schema(schema, sa);
    fx_arg *bound[MAX_SARGS] = { 0 };
    size_t pi = 0;
    for (size_t i = 0; i < ns && pi < npos; i++) {
        /* module templates pass keyword-only arguments positionally, in schema order */
        if (sa[i].kwonly && !x->cur_module)
            break;
        if (!strcmp(sa[i].type, "list") &&
            (npos - pi > 1 || (pos[pi]->kind != FX_ARG_LIST && pos[pi]->kind != FX_ARG_TUPLE))) {
            bound[i] = fx_arg_seq(x->dst, FX_ARG_LIST, pos + pi, NULL, npos - pi);
            pi = npos;
            break;
        }
        bound[i] = pos[pi++];
    }
    if (pi < npos) {
        diag_error(x->d, xp_loc(x), "export: too many arguments for %s (%zu given)", target, npos);
        return NULL;
    }
    for (size_t k = 0; k < nkw; k++) {
        size_t i = 0;
        while (i < ns && strcmp(sa[i].name, kwn[k]) != 0)
            i++;
        if (i == ns) {
            diag_error(x->d, xp_loc(x), "export: %s has no argument named '%s'", target, kwn[k]);
            return NULL;
        }
        bound[i] = kwv[k];
    }
    fx_arg *args[MAX_SARGS];
    const char *kn[MAX_SARGS];
    fx_arg *kv[MAX_SARGS];
    size_t last = 0, nk = 0;
    bool any = false;
    for (size_t i = 0; i < ns; i++) {
        if (bound[i])
            bound[i] = xp_coerce(x->dst, bound[i], &sa[i]);
        if (sa[i].kwonly) {
            if (bound[i] && !equals_default(bound[i], &sa[i])) {
                kn[nk] = sa[i].name;
                kv[nk++] = bound[i];
            }
            continue;
        }
        if (!bound[i] && !sa[i].def) {
            diag_error(x->d, xp_loc(x), "export: %s is missing its argument '%s'", target, sa[i].name);
            return NULL;
        }
        if (bound[i] && !equals_default(bound[i], &sa[i])) {
            last = i;
            any = true;
        }
    }
    size_t na = 0;
    if (any)
        for (size_t i = 0; i <= last; i++) {
            if (sa[i].kwonly)
                continue;
            fx_arg *a = bound[i];
            if (!a)
                a = fx_parse_literal(x->dst, sa[i].def, sa[i].def + sa[i].def_len);
            args[na++] = a ? a : fx_arg_none(x->dst);
        }
    char full[160], base[96];
    snprintf(full, sizeof full, "torch.ops.%s", target);
    if (name_base)
        snprintf(base, sizeof base, "%s", name_base);
    else
        fx_node_base_name(full, base, sizeof base);
    /* torch.export's symbolic-size nodes come out of an earlier trace already counted once. */
    if (!strcmp(base, "sym_size_int"))
        snprintf(base, sizeof base, "sym_size_int_1");
    fx_node *n = fx_node_new(x->g, fx_namer_name(&x->nm, base),
                             FX_OP_CALL_FUNCTION, full);
    fx_graph_append(x->g, n);
    fx_node_set_args(n, fx_arg_seq(x->dst, FX_ARG_TUPLE, args, NULL, na),
                     fx_arg_seq(x->dst, FX_ARG_DICT, kv, kn, nk));
    meta_inferer_node(x->mi, n);
    return n;
}

fx_node *xp_emit_python(xctx *x, const char *name_base, const char *target, fx_arg **args, size_t n)
{
    fx_node *g = fx_node_new(x->g, fx_namer_name(&x->nm, name_base), FX_OP_CALL_FUNCTION, target);
    fx_graph_append(x->g, g);
    fx_node_set_args(g, fx_arg_seq(x->dst, FX_ARG_TUPLE, args, NULL, n), fx_arg_seq(x->dst, FX_ARG_DICT, NULL, NULL, 0));
    meta_inferer_node(x->mi, g);
    return g;
}

fx_node *xp_emit_call(xctx *x, const char *target, const char *schema, fx_arg **pos, size_t npos,
                          const char **kwn, fx_arg **kwv, size_t nkw)
{
    return xp_emit_call_named(x, NULL, target, schema, pos, npos, kwn, kwv, nkw);
}

/* torch.export's functionalization checks the input of Tensor.to: it records
 * _assert_tensor_metadata(self, dtype=, device=, layout=) first, named with its overload as
 * the ops it inserts are, with keyword arguments only. The dtype comes from the value meta and
 * is left out when unknown;
 * fxsh replays CPU exports, so the device is the meta's or cpu. */
bool xp_emit_metadata_assert(xctx *x, fx_arg *self)
{
    if (self->kind != FX_ARG_NODE)
        return true;
    const fx_value *v = self->u.node->meta.val;
    const char *kn[3];
    fx_arg *kv[3];
    size_t nk = 0;
    if (v && v->kind == FX_VAL_TENSOR && v->dtype != FX_DT_UNKNOWN) {
        kn[nk] = "dtype";
        kv[nk++] = fx_arg_dtype(x->dst, v->dtype);
    }
    kn[nk] = "device";
    kv[nk++] = fx_arg_str(x->dst, FX_ARG_DEVICE, v && v->device ? v->device : "cpu");
    kn[nk] = "layout";
    kv[nk++] = fx_arg_str(x->dst, FX_ARG_LAYOUT, "strided");
    return xp_emit_call_named(x, "_assert_tensor_metadata_default", "aten._assert_tensor_metadata.default",
                           "a,*,dtype=None,device=None,layout=None", &self, 1, kn, kv,
                           nk) != NULL;
}
