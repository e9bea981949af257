/* export.c — the export pass: inline nn modules and torch calls into aten overloads, lift weights. */
#include "fx/fx_build.h"
#include "capture/export.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/shape.h"
#include "base/strbuf.h"
#include "capture/export_internal.h"
#include "tables/tables.h"
#include "meta/meta_infer.h"

/* ---- schemas: "self,dim:i*,keepdim=False,kw-only marker,dtype=None" ---------------------- */

typedef struct sarg {
    char name[32];
    char type[8];       /* "" any, "iN" int list of N (scalar repeated), "i*" int list, "list" varargs */
    const char *def;    /* default text, NULL if required */
    size_t def_len;
    bool kwonly;
} sarg;

static size_t parse_schema(const char *s, sarg *out)
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

static void arg_text(const fx_arg *a, char *buf, size_t cap)
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
            arg_text(a->u.seq.items[i], t, sizeof t);
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
            arg_text(a->u.seq.items[i], t, sizeof t);
            if (strcmp(t, d) != 0)
                return false;
        }
        return a->u.seq.len > 0;
    }
    arg_text(a, t, sizeof t);
    return strcmp(t, d) == 0;
}

/* Converts a bound value to the schema type (tuples become lists, scalars int lists). */
static fx_arg *coerce(fx_program *p, fx_arg *a, const sarg *s)
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

/* ---- the pass ------------------------------------------------------------------------------ */

static const module_spec *find_module_spec(xctx *x, const char *type)
{
    return hm_get(&x->mod_by_type, type);
}

static unsigned where_bits(const char *w)
{
    unsigned b = 0;
    if (w && strstr(w, "function"))
        b |= F_FN;
    if (w && strstr(w, "method"))
        b |= F_METH;
    if (w && strstr(w, "operator"))
        b |= F_OP;
    return b;
}

/* The C builders nn.yaml can name with `builtin:`. */
static const struct {
    const char *name;
    bool (*build)(xctx *x, const fx_node *n, const fx_module *m);
} builders[] = {
    { "multihead_attention", xp_build_multihead_attention },
    { NULL, NULL },
};

/* Builds the module and op tables from the loaded records. */
static bool load_tables(xctx *x)
{
    hm_init(&x->mod_by_type);
    hm_init(&x->op_by_name);
    x->tbl = tables_pass("capture", NULL, x->d);
    if (!x->tbl)
        return false;
    x->mods = xcalloc(x->tbl->n + 1, sizeof *x->mods);
    x->ops = xcalloc(x->tbl->n + 1, sizeof *x->ops);
    int *last = xcalloc(x->tbl->n + 1, sizeof *last);
    for (size_t i = 0; i < x->tbl->n; i++) {
        const pt_record *r = &x->tbl->recs[i];
        diag_loc l = { r->file, r->line, 0 };
        if (!strcmp(r->list, "modules")) {
            module_spec *m = &x->mods[x->n_mods++];
            m->type = pt_get(r, "type");
            m->params = pt_get(r, "params");
            m->buffers = pt_get(r, "buffers");
            m->target = pt_get(r, "target");
            m->inplace_target = pt_get(r, "inplace_target");
            m->schema = pt_get(r, "schema");
            m->args = pt_get(r, "args");
            m->builtin = pt_get(r, "builtin");
            m->shapes = pt_get(r, "shapes");
            if (!m->params)
                m->params = "";
            if (!m->buffers)
                m->buffers = "";
            if (!m->type || (m->target && (!m->schema || !m->args))) {
                diag_error(x->d, l, "module entry needs type, and schema and args with a target");
                free(last);
                return false;
            }
            if (m->builtin) {
                for (size_t k = 0; builders[k].name && !m->build; k++)
                    if (!strcmp(builders[k].name, m->builtin))
                        m->build = builders[k].build;
                if (!m->build) {
                    diag_error(x->d, l, "module entry names an unknown builtin '%s'", m->builtin);
                    free(last);
                    return false;
                }
            }
            if (!hm_has(&x->mod_by_type, m->type))
                hm_put(&x->mod_by_type, m->type, m);
        } else if (!strcmp(r->list, "ops")) {
            op_spec *o = &x->ops[x->n_ops];
            o->name = pt_get(r, "name");
            o->where = where_bits(pt_get(r, "where"));
            o->target = pt_get(r, "target");
            o->schema = pt_get(r, "schema");
            o->need = pt_get(r, "need");
            o->extra = pt_get(r, "extra");
            o->assert_metadata = pt_get(r, "asserts") && !strcmp(pt_get(r, "asserts"), "metadata");
            o->next = -1;
            o->returns_list = pt_get(r, "returns") && !strcmp(pt_get(r, "returns"), "list");
            if (!o->name || !o->target || !o->schema || !o->where) {
                diag_error(x->d, l, "op entry needs name, where, target and schema");
                free(last);
                return false;
            }
            intptr_t first = (intptr_t)hm_get(&x->op_by_name, o->name);
            if (!first)
                hm_put(&x->op_by_name, o->name, (void *)(intptr_t)(x->n_ops + 1));
            else
                x->ops[last[first - 1]].next = (int)x->n_ops;
            if (first)
                last[first - 1] = (int)x->n_ops;
            else
                last[x->n_ops] = (int)x->n_ops;
            x->n_ops++;
        } else {
            diag_error(x->d, l, "unknown table '%s' (expected modules or ops)", r->list);
            free(last);
            return false;
        }
    }
    free(last);
    return true;
}

static void free_tables(xctx *x)
{
    free(x->mods);
    free(x->ops);
    hm_free(&x->mod_by_type);
    hm_free(&x->op_by_name);
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
    size_t ns = parse_schema(schema, sa);
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
            bound[i] = coerce(x->dst, bound[i], &sa[i]);
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
static bool emit_metadata_assert(xctx *x, fx_arg *self)
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
    snprintf(pname, sizeof pname, "%c_%s", l->role == FX_TENSOR_PARAMETER ? 'p' :
             l->role == FX_TENSOR_BUFFER ? 'b' : 'c', fqn);
    for (char *c = pname; *c; c++)
        if (*c == '.')
            *c = '_';
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
        fx_value *val = fx_value_new(p, FX_VAL_TENSOR);
        val->dtype = sw->dtype;
        val->rank = sw->rank;
        val->sizes = fx_alloc(p, (sw->rank ? sw->rank : 1) * sizeof *val->sizes);
        for (size_t k = 0; k < sw->rank; k++) {
            char dim[24];
            snprintf(dim, sizeof dim, "%lld", (long long)sw->shape[k]);
            val->sizes[k] = fx_strdup(p, dim);
        }
        n->meta.val = val;
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

/* Lifts weights in named_parameters() order (module tree pre-order), then buffers; false when a
 * module's settings cannot give a weight's shape (reported). */
static bool lift_module(xctx *x, const fx_module *m, const char *prefix, fx_tensor_role role)
{
    const module_spec *ms = m->type ? find_module_spec(x, m->type) : NULL;
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
        if (!lift_module(x, c, sub, role))
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

static bool export_module_call(xctx *x, const fx_node *n, bool *ok)
{
    const fx_module *m = fx_module_find(x->src->root, n->target);
    if (!m) {
        diag_error(x->d, xp_loc(x), "export: call_module target '%s' is not a submodule", n->target);
        return false;
    }
    const module_spec *ms = m->type ? find_module_spec(x, m->type) : NULL;
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
    size_t ns = parse_schema(schema, sa);
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

static const export_input_decl *find_decl(xctx *x, const char *name)
{
    if (!x->opt)
        return NULL;
    for (size_t i = 0; i < x->opt->n_inputs; i++)
        if (x->opt->inputs[i].name && !strcmp(x->opt->inputs[i].name, name))
            return &x->opt->inputs[i];
    return NULL;
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
    size_t ns = parse_schema(spec->schema, sa);
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

static bool export_call(xctx *x, const fx_node *n, bool *ok)
{
    unsigned where;
    const char *name = callee_name(n, &where);
    size_t nargs = n->args->u.seq.len;
    fx_arg *const *sargs = n->args->u.seq.items;

    /* x.shape / x.size() / shape[i]: static ints or sym_size nodes. */
    if (where == F_FN && !strcmp(n->target, "builtins.getattr") && nargs == 2 &&
        sargs[0]->kind == FX_ARG_NODE && is_shape_attr(sargs[1])) {
        xval *src = hm_get(&x->vals, sargs[0]->u.node->name);
        if (!src || !src->arg || src->arg->kind != FX_ARG_NODE)
            goto unsupported;
        xval *v = fx_alloc(x->dst, sizeof *v);
        v->shape_of = src->arg->u.node;
        hm_put(&x->vals, fx_strdup(x->dst, n->name), v);
        return true;
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
                return false;
            }
            xp_set_val(x, n->name, src->arg->u.seq.items[i < 0 ? i + len : i]);
            return true;
        }
        if (src && src->shape_of) {
            fx_arg *a = xp_dim_value(x, src->shape_of, sargs[1]->u.i);
            if (!a)
                return false;
            xp_set_val(x, n->name, a);
            return true;
        }
        if (src && src->is_list && src->arg && src->arg->kind == FX_ARG_NODE) {
            fx_arg *ga[2] = { src->arg, fx_arg_int(x->dst, sargs[1]->u.i) };
            xp_set_val(x, n->name, fx_arg_node(x->dst, xp_emit_python(x, "getitem", "operator.getitem", ga, 2)));
            return true;
        }
        if (src && src->arg && src->arg->kind == FX_ARG_NODE)
            return index_tensor(x, n, src->arg, sargs[1]);
        goto unsupported;
    }
    if (where == F_OP && !strcmp(name, "getitem") && nargs == 2 && sargs[0]->kind == FX_ARG_NODE) {
        xval *src = hm_get(&x->vals, sargs[0]->u.node->name);
        if (src && src->arg && src->arg->kind == FX_ARG_NODE && !src->is_list && !src->shape_of)
            return index_tensor(x, n, src->arg, sargs[1]);
        goto unsupported;
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
                return true;
            }
        }
    }
    if (where == F_METH && !strcmp(name, "size") && nargs == 2 && sargs[1]->kind == FX_ARG_INT) {
        xval *src = sargs[0]->kind == FX_ARG_NODE ? hm_get(&x->vals, sargs[0]->u.node->name) : NULL;
        if (!src || !src->arg || src->arg->kind != FX_ARG_NODE)
            goto unsupported;
        fx_arg *a = xp_dim_value(x, src->arg->u.node, sargs[1]->u.i);
        if (!a)
            return false;
        xp_set_val(x, n->name, a);
        return true;
    }

    /* F.interpolate picks an upsample overload by mode (2-d: size/scale of two dims). */
    if (where == F_FN && !strcmp(name, "interpolate") && nargs >= 1) {
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
            return false;
        static const sarg two = { "", "i2", NULL, 0, false };
        fx_arg *sz = size && size->kind != FX_ARG_NONE ? coerce(x->dst, size, &two) : fx_arg_none(x->dst);
        fx_arg *sc = fx_arg_none(x->dst);
        if (scale && scale->kind == FX_ARG_FLOAT) {
            fx_arg *it[2] = { scale, scale };
            sc = fx_arg_seq(x->dst, FX_ARG_LIST, it, NULL, 2);
        } else if (scale && scale->kind != FX_ARG_NONE) {
            sc = coerce(x->dst, scale, &two);
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
            goto unsupported;
        }
        if (!r)
            return false;
        xp_set_val(x, n->name, fx_arg_node(x->dst, r));
        return true;
    }

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
        goto unsupported;
    if (nargs > MAX_SARGS) {
        diag_error(x->d, xp_loc(x), "export: %s called with %zu arguments (at most %d supported)", n->target,
                   nargs, MAX_SARGS);
        return false;
    }
    fx_arg *pos[MAX_SARGS];
    size_t np = 0;
    for (size_t i = 0; i < nargs && np < MAX_SARGS; i++)
        pos[np++] = xp_conv_arg(x, sargs[i], ok);
    if (!*ok)
        return false;
    if (spec->extra && !add_extra_args(x, spec, np, kwn, kwv, &nkw))
        return false;
    /* 2 * x calls x.__rmul__(2): the tensor comes first. */
    if (where == F_OP && np == 2 && sargs[0]->kind != FX_ARG_NODE && sargs[1]->kind == FX_ARG_NODE &&
        (!strcmp(name, "add") || !strcmp(name, "mul"))) {
        fx_arg *t = pos[0];
        pos[0] = pos[1];
        pos[1] = t;
    }
    if (spec->assert_metadata && np > 0 && !emit_metadata_assert(x, pos[0]))
        return false;
    fx_node *r = xp_emit_call(x, spec->target, spec->schema, pos, np, kwn, kwv, nkw);
    if (!r)
        return false;
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
    return true;

unsupported: {
        diagnostic *dg = diag_error(x->d, xp_loc(x), "export: %s '%s' (node %%%s) is not supported",
                                    fx_opcode_name(n->op), n->target, n->name);
        diag_set_hint(dg, "fxsh's export table covers common torch functions, tensor methods and operators");
        return false;
    }
}

static void push_output(xctx *x, fx_arg *v, fx_arg **out, size_t *n, size_t cap, bool *ok)
{
    if (*n >= cap) {
        if (*ok)
            diag_error(x->d, xp_loc(x), "export: more than %zu outputs are not supported", cap);
        *ok = false;
        return;
    }
    out[(*n)++] = v;
}

static void flatten_outputs(xctx *x, const fx_arg *a, fx_arg **out, size_t *n, size_t cap, bool *ok)
{
    if (a->kind == FX_ARG_TUPLE || a->kind == FX_ARG_LIST || a->kind == FX_ARG_DICT) {
        for (size_t i = 0; i < a->u.seq.len; i++)
            flatten_outputs(x, a->u.seq.items[i], out, n, cap, ok);
        return;
    }
    fx_arg *v = xp_conv_arg(x, a, ok);
    /* a source node holding a tuple of values flattens like a returned tuple */
    if (v->kind == FX_ARG_TUPLE) {
        for (size_t i = 0; i < v->u.seq.len; i++)
            push_output(x, v->u.seq.items[i], out, n, cap, ok);
        return;
    }
    push_output(x, v, out, n, cap, ok);
}

fx_program *export_program(const fx_program *src, const export_options *opt, diag_sink *d)
{
    if (!src || !src->root) {
        diag_error(d, (diag_loc){ 0 }, "export: no program");
        return NULL;
    }
    const meta_rules *rules = meta_rules_shipped(d);
    if (!rules)
        return NULL;
    if (fx_program_is_aten(src)) {
        /* already ATen (a TorchScript load, graph text): what it lacks is the value meta
         * torch.export would have recorded */
        fx_program *c = fx_program_copy(src);
        bool fits = meta_infer_program_strict(c, rules, d);   /* shapes the ops reject fail export */
        if (!fits || interrupt_pending()) {
            fx_program_free(c);
            return NULL;
        }
        return c;
    }
    const fx_graph *sg = src->root->graph;
    if (!sg) {
        diag_error(d, (diag_loc){ src->file, 0, 0 }, "export: the program has no graph");
        return NULL;
    }
    xctx x = { .src = src, .opt = opt, .d = d };
    x.dst = fx_program_new("GraphModule");
    x.dst->source_form = FX_FORM_EXPORT;
    x.g = fx_program_graph(x.dst);
    hm_init(&x.vals);
    hm_init(&x.weights);
    fx_namer_init(&x.nm, x.g);
    if (!load_tables(&x)) {
        free_tables(&x);
        hm_free(&x.vals);
        hm_free(&x.weights);
        fx_namer_free(&x.nm);
        fx_program_free(x.dst);
        return NULL;
    }
    bool ok = true;

    /* Tensors read with get_attr directly from the root are its own parameters: they come
     * first in named_parameters(). */
    for (const fx_node *n = sg->first; n; n = n->next)
        if (n->op == FX_OP_GET_ATTR && !strchr(n->target, '.') && !fx_module_child(src->root, n->target)) {
            lift_ctx l = { &x, "", FX_TENSOR_PARAMETER, NULL, NULL, false };
            lift_one(n->target, &l);
        }
    ok = lift_module(&x, src->root, "", FX_TENSOR_PARAMETER) && lift_module(&x, src->root, "", FX_TENSOR_BUFFER);
    /* Each new node gets its value meta as soon as it is emitted, as torch.export's fake
     * tensors have it: later size queries (`B, T, C = x.shape`) specialize on it. */
    x.mi = meta_inferer_new(x.dst, rules, d);
    meta_inferer_set_strict(x.mi, true);   /* torch.export fails where its fake tensors raise */
    size_t n_user = 0;
    for (const fx_node *n = sg->first; n; n = n->next)
        if (n->op == FX_OP_PLACEHOLDER)
            n_user++;
    size_t n_lifted = x.dst->n_weights;
    size_t n_out_cap = 256;
    fx_arg **outs = xcalloc(n_out_cap, sizeof *outs);
    size_t n_outs = 0;

    for (const fx_node *n = sg->first; n && ok; n = n->next) {
        if (interrupt_pending()) {
            ok = false;
            break;
        }
        x.cur = n;
        fx_node *before = x.g->last;
        switch (n->op) {
        case FX_OP_PLACEHOLDER: {
            fx_node *p = fx_node_new(x.g, fx_namer_name(&x.nm, n->name), FX_OP_PLACEHOLDER, NULL);
            p->target = p->name;
            fx_graph_append(x.g, p);
            const export_input_decl *decl = find_decl(&x, n->name);
            if (decl) {
                /* The declared example input is the placeholder's value meta, as torch.export
                 * records the example's dtype and shape. */
                fx_value *val = fx_value_new(x.dst, FX_VAL_TENSOR);
                val->dtype = decl->dtype;
                val->rank = decl->rank;
                val->sizes = fx_alloc(x.dst, (decl->rank ? decl->rank : 1) * sizeof *val->sizes);
                for (size_t k = 0; k < decl->rank; k++) val->sizes[k] = fx_strdup(x.dst, decl->dims[k]);
                val->device = "cpu";   /* example inputs are CPU tensors, as torch.onnx exports them */
                p->meta.val = val;
            }
            xp_set_val(&x, n->name, fx_arg_node(x.dst, p));
            break;
        }
        case FX_OP_GET_ATTR: {
            fx_node *w = hm_get(&x.weights, n->target);
            if (!w) {
                diag_error(d, xp_loc(&x), "export: get_attr '%s' names no parameter or buffer", n->target);
                ok = false;
                break;
            }
            xp_set_val(&x, n->name, fx_arg_node(x.dst, w));
            break;
        }
        case FX_OP_CALL_MODULE:
            ok = export_module_call(&x, n, &ok) && ok;
            break;
        case FX_OP_CALL_FUNCTION: case FX_OP_CALL_METHOD:
            ok = export_call(&x, n, &ok) && ok;
            break;
        case FX_OP_OUTPUT:
            if (n->args->u.seq.len > 0)
                flatten_outputs(&x, n->args->u.seq.items[0], outs, &n_outs, n_out_cap, &ok);
            break;
        default:
            break;
        }
        /* Value meta the source carried (an annotated program, or one whose meta was filled
         * from its inputs) goes to the node that now holds the value: later size queries
         * specialize on it and later passes read its dtype. */
        xval *v = ok && n->meta.val ? hm_get(&x.vals, n->name) : NULL;
        if (v && v->arg && v->arg->kind == FX_ARG_NODE && !v->arg->u.node->meta.val)
            v->arg->u.node->meta.val = fx_copy_value(x.dst, n->meta.val);
        /* placeholders wait for the end: only the signature tells a weight from an input */
        for (fx_node *m = before ? before->next : x.g->first; ok && m; m = m->next)
            if (m->op != FX_OP_PLACEHOLDER)
                meta_inferer_node(x.mi, m);
        if (meta_inferer_errors(x.mi))
            ok = false;   /* the error names the node */
    }
    if (ok) {
        fx_node *o = fx_node_new(x.g, "output", FX_OP_OUTPUT, "output");
        fx_graph_append(x.g, o);
        fx_arg *t = fx_arg_seq(x.dst, FX_ARG_TUPLE, outs, NULL, n_outs);
        fx_node_set_args(o, fx_arg_seq(x.dst, FX_ARG_TUPLE, &t, NULL, 1),
                         fx_arg_seq(x.dst, FX_ARG_DICT, NULL, NULL, 0));
        /* Graph signature: lifted weights first, then user inputs, then user outputs. */
        fx_signature *s = &x.dst->sig;
        s->present = true;
        s->inputs = fx_alloc(x.dst, (n_lifted + n_user + 1) * sizeof *s->inputs);
        size_t k = 0;
        for (const fx_weight *w = x.dst->weights; w; w = w->next) {
            fx_node *pn = hm_get(&x.weights, w->fqn);
            s->inputs[k].kind = w->role == FX_TENSOR_PARAMETER ? FX_IN_PARAMETER :
                                w->role == FX_TENSOR_BUFFER ? FX_IN_BUFFER : FX_IN_CONSTANT_TENSOR;
            s->inputs[k].name = pn->name;
            s->inputs[k].target = w->fqn;
            s->inputs[k].persistent = w->persistent;
            k++;
        }
        /* User inputs are the placeholders after the lifted ones (the value map would name
         * the result of an in-place op on an input instead). */
        size_t seen = 0;
        for (const fx_node *n = x.g->first; n && n->op == FX_OP_PLACEHOLDER; n = n->next)
            if (seen++ >= n_lifted) {
                s->inputs[k].kind = FX_IN_USER_INPUT;
                s->inputs[k].name = n->name;
                k++;
            }
        s->n_inputs = k;
        s->outputs = fx_alloc(x.dst, (n_outs + 1) * sizeof *s->outputs);
        for (size_t i = 0; i < n_outs; i++) {
            char buf[64];
            s->outputs[i].kind = FX_OUT_USER_OUTPUT;
            if (outs[i]->kind == FX_ARG_NODE) {
                s->outputs[i].name = outs[i]->u.node->name;
            } else {
                arg_text(outs[i], buf, sizeof buf);
                s->outputs[i].name = fx_strdup(x.dst, buf);
            }
        }
        s->n_outputs = n_outs;
        fx_program_refresh(x.dst);
    }
    if (ok)
        meta_inferer_walk(x.mi);   /* subgraphs and what could not be inferred on the way */
    if (meta_inferer_errors(x.mi))
        ok = false;                /* a shape rejected in a subgraph fails export as well */
    meta_inferer_finish(x.mi, false);
    if (interrupt_pending())
        ok = false;
    free(outs);
    hm_free(&x.vals);
    hm_free(&x.weights);
    fx_namer_free(&x.nm);
    free_tables(&x);
    if (!ok) {
        fx_program_free(x.dst);
        return NULL;
    }
    return x.dst;
}

bool export_weight_names(const fx_program *src, void (*cb)(const char *fqn, void *ctx), void *ctx, diag_sink *d)
{
    if (!src || !src->root || !src->root->graph)
        return true;
    xctx x = { .src = src, .d = d, .names_only = cb, .names_ctx = ctx };
    x.dst = fx_program_new("GraphModule");
    hm_init(&x.weights);
    bool ok = load_tables(&x);
    if (ok) {
        for (const fx_node *n = src->root->graph->first; n; n = n->next)
            if (n->op == FX_OP_GET_ATTR && !strchr(n->target, '.') && !fx_module_child(src->root, n->target)) {
                lift_ctx l = { .x = &x, .prefix = "", .role = FX_TENSOR_PARAMETER };
                lift_one(n->target, &l);
            }
        lift_module(&x, src->root, "", FX_TENSOR_PARAMETER);
        lift_module(&x, src->root, "", FX_TENSOR_BUFFER);
    }
    free_tables(&x);
    hm_free(&x.weights);
    fx_program_free(x.dst);
    return ok;
}

/* ---- data-dependent control flow ------------------------------------------------------------ */

const char *export_truthiness_expr(unsigned n, char *buf, size_t cap)
{
    snprintf(buf, cap, "Eq(u%u, 1)", n);
    return buf;
}

void export_report_data_dependent(diag_sink *d, const export_guard_site *site)
{
    strbuf m;
    sb_init(&m);
    const char *e = site->expr ? site->expr : "Eq(u0, 1)";
    sb_printf(&m, "Could not guard on data-dependent expression %s (unhinted: %s).  (Size-like symbols: none)\n\n", e, e);
    sb_puts(&m, "consider using data-dependent friendly APIs such as guard_or_false, guard_or_true and "
                "statically_known_true.\n");
    if (site->file && site->line > 0) {
        sb_puts(&m, "\nThe following call raised this error:\n");
        sb_printf(&m, "  File \"%s\", line %d, in forward\n", site->file, site->line);
        if (site->code)
            sb_printf(&m, "    %s\n", site->code);
    }
    diagnostic *dg = diag_error(d, (diag_loc){ site->file, site->line, 0 }, "%s", m.s);
    if (site->code)
        diag_set_source(dg, site->code, strlen(site->code));
    if (site->node)
        diag_set_hint(dg, "torch.export cannot branch on a tensor value; rewrite the branch as torch.cond: "
                          "rewrite %%%s cond", site->node);
    else
        diag_set_hint(dg, "torch.export cannot branch on a tensor value; rewrite the branch as torch.cond");
    sb_free(&m);
}
