/* export_module.c — nn modules in the export pass: lifts their parameters and buffers to placeholders
 * and inlines call_module nodes as the aten calls nn.yaml gives (or a C builder). */
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

/* ---- nn module table (share/fxsh/capture/nn.yaml documents the fields) ---------------------- */


/* Calls cb for each weight name of list that the repr keeps. */
static void each_weight(const char *list, const char *repr, void (*cb)(const char *name, void *ctx),
                        void *ctx)
{
    const char *s = list;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        const char *e = s;
        while (*e && *e != ' ')
            e++;
        char item[64], flag[48] = "";
        snprintf(item, sizeof item, "%.*s", (int)(e - s), s);
        char *q = strchr(item, '?');
        if (q) {
            snprintf(flag, sizeof flag, "%s", q + 1);
            *q = 0;
        }
        if (!flag[0] || !fx_repr_is_false(repr, flag))
            cb(item, ctx);
        s = e;
    }
}

typedef struct lift_ctx {
    xctx *x;
    const char *prefix;      /* module path "fc1" ("" for the root) */
    fx_tensor_role role;
    const module_spec *ms;   /* the module's table entry (weight shapes), NULL if none */
    const char *cfg;         /* its repr */
    bool failed;             /* a weight's shape could not be read from the repr (reported) */
} lift_ctx;

/* The integers of a repr value: "8" → {8}, "(3, 3)" → {3, 3}, "(256,)" → {256}. Returns how
 * many it read, or -1 when the value is not an integer or a tuple of them ("x", "(3, k)"). */
static int repr_ints(const char *s, const char *e, int64_t *out, size_t cap)
{
    size_t n = 0;
    while (s < e && (*s == ' ' || *s == '('))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == ')'))
        e--;
    while (s < e) {
        if (n == cap)
            return -1;
        char buf[32];
        const char *t = s;
        while (t < e && *t != ',')
            t++;
        const char *te = t;
        while (s < te && *s == ' ')
            s++;
        while (te > s && te[-1] == ' ')
            te--;
        if (te == s || (size_t)(te - s) >= sizeof buf)
            return t == e && te == s && n ? (int)n : -1;   /* "(256,)": a trailing comma */
        memcpy(buf, s, (size_t)(te - s));
        buf[te - s] = 0;
        int64_t v;
        if (shape_parse_dim(buf, &v) != 1)
            return -1;
        out[n++] = v;
        s = t < e ? t + 1 : e;
    }
    return (int)n;
}

/* Why a module's settings cannot give its weights' shapes (reported by lift_one). */
typedef struct shape_error {
    char key[48];        /* the setting, "in_channels" */
    char value[48];      /* what the repr says, "x" */
    bool set;
} shape_error;

/* One "%key|pos=default" reference of a shapes entry at *p (advanced past it); false if the
 * repr has no such value and there is no default, or (err set) its value is not a
 * non-negative integer or a tuple of them. */
static bool shape_ref(const char *cfg, const char **p, int64_t *vals, size_t *nvals, shape_error *err)
{
    const char *s = *p + 1, *k = s;
    while (*s && (isalnum((unsigned char)*s) || *s == '_'))
        s++;
    char key[48];
    snprintf(key, sizeof key, "%.*s", (int)(s - k), k);
    int pos = -1;
    if (*s == '|')
        pos = (int)strtol(s + 1, (char **)&s, 10);
    const char *dflt = NULL, *dend = NULL;
    if (*s == '=') {
        dflt = ++s;
        while (*s && *s != ',' && *s != ']' && *s != ' ' && *s != '/')
            s++;
        dend = s;
    }
    *p = s;
    const char *vs, *ve;
    int n;
    if (fx_repr_find(cfg, key, pos, &vs, &ve))
        n = repr_ints(vs, ve, vals, 8);
    else if (dflt)
        n = repr_ints(vs = dflt, ve = dend, vals, 8);
    else
        return false;
    if (n <= 0) {
        snprintf(err->key, sizeof err->key, "%s", key);
        snprintf(err->value, sizeof err->value, "%.*s", (int)(ve - vs), vs);
        err->set = true;
        return false;
    }
    *nvals = (size_t)n;
    return true;
}

/* Shape (and dtype) of weight `name` from the module's `shapes` entry; false when the entry
 * does not describe it or the repr lacks a value it needs, and err->set when a value it needs
 * is there but is not a size (Conv2d(x, 2, ...)) or the shape overflows. */
static bool weight_shape(const char *shapes, const char *cfg, const char *name, fx_dtype *dt, int64_t *dims,
                         size_t *rank, shape_error *err)
{
    size_t nl = strlen(name);
    for (const char *s = shapes; s && *s;) {
        while (*s == ' ')
            s++;
        const char *colon = NULL, *eq = strchr(s, '=');
        if (!eq)
            return false;
        for (const char *q = s; q < eq; q++)
            if (*q == ':') colon = q;
        const char *nend = colon ? colon : eq;
        const char *close = strchr(eq, ']');
        if (!close)
            return false;
        if ((size_t)(nend - s) != nl || strncmp(s, name, nl)) {
            s = close + 1;
            continue;
        }
        *dt = colon && !strncmp(colon + 1, "i64", 3) ? FX_DT_I64 : FX_DT_F32;
        *rank = 0;
        for (const char *p = eq + 2; p < close && *rank < 8;) {
            while (*p == ' ' || *p == ',')
                p++;
            if (p >= close)
                break;
            int64_t factor = 1, vals[8];
            size_t nv = 0;
            bool splat = *p == '*';
            if (splat)
                p++;
            if (isdigit((unsigned char)*p)) {
                factor = strtoll(p, (char **)&p, 10);
                if (*p != '*') {   /* a plain integer */
                    dims[(*rank)++] = factor;
                    continue;
                }
                p++;
            }
            if (*p != '%' || !shape_ref(cfg, &p, vals, &nv, err))
                return false;
            int64_t div = 1;
            if (*p == '/') {
                int64_t dv[8];
                size_t nd = 0;
                p++;
                if (*p != '%' || !shape_ref(cfg, &p, dv, &nd, err))
                    return false;
                div = dv[0] ? dv[0] : 1;
            }
            for (size_t i = 0; i < (splat ? nv : 1) && *rank < 8; i++) {
                if (factor && vals[i] > INT64_MAX / factor) {
                    snprintf(err->key, sizeof err->key, "%s", "size");
                    snprintf(err->value, sizeof err->value, "%lld * %lld", (long long)factor, (long long)vals[i]);
                    err->set = true;
                    return false;
                }
                dims[(*rank)++] = vals[i] * factor / div;
            }
        }
        int64_t numel;
        if (!shape_numel(dims, *rank, &numel, NULL) || !shape_bytes(numel, 8, NULL)) {
            snprintf(err->key, sizeof err->key, "%s", "shape");
            snprintf(err->value, sizeof err->value, "too large for a tensor");
            err->set = true;
            return false;
        }
        return true;
    }
    return false;
}

static void lift_one(const char *name, void *ctx)
{
    lift_ctx *l = ctx;
    fx_program *p = l->x->dst;
    char fqn[512], pname[520];
    snprintf(fqn, sizeof fqn, "%s%s%s", l->prefix, l->prefix[0] ? "." : "", name);
    fx_lifted_name(l->role, fqn, pname, sizeof pname);
    if (hm_has(&l->x->weights, fqn))
        return;
    if (l->x->names_only) {
        hm_put(&l->x->weights, fx_strdup(p, fqn), NULL);
        l->x->names_only(fqn, l->x->names_ctx);
        return;
    }
    fx_node *n = fx_node_new(l->x->g, fx_namer_name(&l->x->nm, pname), FX_OP_PLACEHOLDER, NULL);
    n->target = n->name;
    fx_graph_append(l->x->g, n);
    const char *kfqn = fx_strdup(p, fqn);
    hm_put(&l->x->weights, kfqn, n);
    /* Weights attached to the source (load ... --weights W) carry over, borrowed: the source
     * stage outlives every stage made from it. */
    const fx_weight *sw = fx_program_weight(l->x->src, fqn);
    /* Without the weights, the module's settings still give their shapes (Linear(in_features=4,
     * out_features=8) → weight f32[8, 4]), which is all later passes need of them. */
    fx_dtype dt = FX_DT_F32;
    int64_t dims[8];
    size_t rank = 0;
    shape_error err = {0};
    bool shaped = !sw && l->ms && weight_shape(l->ms->shapes, l->cfg, name, &dt, dims, &rank, &err);
    if (err.set) {
        /* a setting the shape needs is not a size: the module cannot be built (torch fails in
         * its constructor); nothing can be lifted from it */
        diagnostic *dg = diag_error(l->x->d, (diag_loc){ l->x->src->file, 0, 0 },
                                    "export: module '%s' (%s): setting '%s' is '%s', not a non-negative integer, "
                                    "so the shape of its weight '%s' is unknown",
                                    l->prefix[0] ? l->prefix : "<root>", l->cfg ? l->cfg : "?", err.key, err.value, name);
        diag_set_hint(dg, "fix the module's repr in the loaded text, or give the weights with load ... --weights W");
        l->failed = true;
        return;
    }
    if (!shaped)
        rank = 0;
    fx_weight *w = sw ? fx_program_add_weight(p, kfqn, l->role, sw->dtype, sw->shape, sw->rank, sw->data,
                                              sw->nbytes, false)
                      : fx_program_add_weight(p, kfqn, l->role, dt, shaped ? dims : NULL, rank, NULL, 0, false);
    w->persistent = l->role == FX_TENSOR_BUFFER;
    if (sw && sw->shape) {
        n->meta.val = fx_weight_value(p, sw);
    } else if (shaped) {
        fx_value *val = fx_value_new(p, FX_VAL_TENSOR);
        val->dtype = dt;
        val->rank = rank;
        val->sizes = fx_alloc(p, (rank ? rank : 1) * sizeof *val->sizes);
        for (size_t k = 0; k < rank; k++)
            val->sizes[k] = arena_printf(&p->arena, "%lld", (long long)dims[k]);
        n->meta.val = val;
    }
}

/* A tensor the graph reads with get_attr straight from the root (not from a submodule): a
 * parameter of the root, lifted like a module's. */
void xp_lift_root_attr(xctx *x, const char *name)
{
    lift_ctx l = { x, "", FX_TENSOR_PARAMETER, NULL, NULL, false };
    lift_one(name, &l);
}

/* Lifts weights in named_parameters() order (module tree pre-order), then buffers; false when a
 * module's settings cannot give a weight's shape (reported). */
bool xp_lift_module(xctx *x, const fx_module *m, const char *prefix, fx_tensor_role role)
{
    const module_spec *ms = m->type ? xp_find_module_spec(x, m->type) : NULL;
    lift_ctx l = { x, prefix, role, ms && ms->shapes ? ms : NULL, xp_module_config(x, m), false };
    bool from_records = false;
    for (const fx_weight *w = m->params; w && !l.failed; w = w->next) {
        from_records = true;
        bool want = role == FX_TENSOR_PARAMETER ? w->role == FX_TENSOR_PARAMETER : w->role != FX_TENSOR_PARAMETER;
        if (want) {
            l.role = w->role;
            lift_one(w->fqn, &l);
        }
    }
    l.role = role;
    if (!from_records && ms)
        each_weight(role == FX_TENSOR_PARAMETER ? ms->params : ms->buffers, xp_module_config(x, m), lift_one, &l);
    if (l.failed)
        return false;
    for (const fx_module *c = m->first_child; c; c = c->next_sibling) {
        if (c->graph)
            continue;   /* HOP subgraph modules hold no weights of their own */
        char sub[512];
        snprintf(sub, sizeof sub, "%s%s%s", prefix, prefix[0] ? "." : "", c->name);
        if (!xp_lift_module(x, c, sub, role))
            return false;
    }
    return true;
}

/* A multi-line repr puts the module's own settings (extra_repr) on the lines before its
 * children; the one-line form is "Type(settings)". */
const char *xp_module_config(xctx *x, const fx_module *m)
{
    if (m->repr)
        return m->repr;
    if (!m->extra_repr || !m->type)
        return NULL;
    size_t n = strlen(m->type) + strlen(m->extra_repr) + 3;
    char *s = fx_alloc(x->dst, n);
    snprintf(s, n, "%s(%s)", m->type, m->extra_repr);
    return s;
}

fx_arg *xp_weight_arg(xctx *x, const char *path, const char *name)
{
    char fqn[512];
    snprintf(fqn, sizeof fqn, "%s.%s", path, name);
    fx_node *n = hm_get(&x->weights, fqn);
    return n ? fx_arg_node(x->dst, n) : fx_arg_none(x->dst);
}

bool xp_module_call(xctx *x, const fx_node *n, bool *ok)
{
    const fx_module *m = fx_module_find(x->src->root, n->target);
    if (!m) {
        diag_error(x->d, xp_loc(x), "export: call_module target '%s' is not a submodule", n->target);
        return false;
    }
    const module_spec *ms = m->type ? xp_find_module_spec(x, m->type) : NULL;
    if (!ms) {
        diagnostic *dg = diag_error(x->d, xp_loc(x), "export: module type '%s' (%s) is not supported",
                                    m->type ? m->type : "?", n->target);
        diag_set_hint(dg, "supported: Linear, Conv1d/2d, BatchNorm1d/2d, LayerNorm, GroupNorm, "
                          "activations, pooling, Embedding, Flatten, Dropout, MultiheadAttention "
                          "(share/fxsh/capture/nn.yaml)");
        return false;
    }
    if (ms->build)
        return ms->build(x, n, m);
    if (n->args->u.seq.len < 1) {
        diag_error(x->d, xp_loc(x), "export: %s called without an input", n->target);
        return false;
    }
    fx_arg *in0 = xp_conv_arg(x, n->args->u.seq.items[0], ok);
    if (!*ok)
        return false;
    if (!ms->target) {
        xp_set_val(x, n->name, in0);
        return true;
    }
    const char *config = xp_module_config(x, m);
    bool inplace = ms->inplace_target && config && !fx_repr_is_false(config, "inplace") &&
                   fx_repr_find(config, "inplace", -1, &(const char *){0}, &(const char *){0});
    fx_arg *args[MAX_SARGS];
    size_t na = 0;
    const char *s = ms->args;
    while (*s && na < MAX_SARGS) {
        while (*s == ' ')
            s++;
        const char *e = s;
        while (*e && *e != ' ')
            e++;
        char tok[96];
        snprintf(tok, sizeof tok, "%.*s", (int)(e - s), s);
        fx_arg *a = NULL;
        if (tok[0] == '$') {
            a = in0;
        } else if (tok[0] == '@') {
            a = xp_weight_arg(x, n->target, tok + 1);
        } else if (tok[0] == '%') {
            char key[64];
            const char *def = strchr(tok, '=');
            const char *bar = strchr(tok, '|');
            const char *kend = bar ? bar : def ? def : tok + strlen(tok);
            snprintf(key, sizeof key, "%.*s", (int)(kend - tok - 1), tok + 1);
            int pos = bar ? atoi(bar + 1) : -1;
            const char *vs, *ve;
            if (fx_repr_find(config, key, pos, &vs, &ve))
                a = fx_parse_literal(x->dst, vs, ve);
            else if (def)
                a = fx_parse_literal(x->dst, def + 1, def + strlen(def));
            else if (!strcmp(key, "stride"))
                a = NULL;   /* pooling: stride defaults to kernel_size, handled by the schema */
            if (!a && strcmp(key, "stride") != 0) {
                diag_error(x->d, xp_loc(x), "export: cannot read '%s' from module repr '%s'", key,
                           config ? config : "");
                return false;
            }
            if (!a)
                a = fx_arg_seq(x->dst, FX_ARG_LIST, NULL, NULL, 0);
        } else {
            a = fx_parse_literal(x->dst, tok, tok + strlen(tok));
            if (!a)
                a = fx_arg_none(x->dst);
        }
        args[na++] = a;
        s = e;
    }
    x->cur_module = true;
    fx_node *r = xp_emit_call(x, inplace ? ms->inplace_target : ms->target, ms->schema, args, na, NULL, NULL, 0);
    x->cur_module = false;
    if (!r)
        return false;
    fx_arg *ra = fx_arg_node(x->dst, r);
    xp_set_val(x, n->name, ra);
    if (inplace && n->args->u.seq.items[0]->kind == FX_ARG_NODE)
        xp_set_val(x, n->args->u.seq.items[0]->u.node->name, ra);
    return true;
}
