/* decompose.c — the decompose pass: decomposition templates, functionalization, ONNX type promotion. */
#include "fx/fx_build.h"
#include "decompose/decompose.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "meta/meta_layout.h"
#include "decompose/decomp_matmul.h"
#include "capture/export.h"
#include "decompose/functionalize.h"
#include "meta/meta_infer.h"
#include "tables/pass_tables.h"
#include "tables/tables.h"

/* ---- tables (share/fxsh/decompose/core.yaml documents the template syntax) -------------------- */
enum { T_DEFAULT = 1, T_ONNX = 2 };

typedef struct decomp_rule {
    unsigned tables;
    const char *target;     /* "aten.linear.default" */
    const char *schema;
    const char *when;
    const char *body;       /* a template, or NULL for a builtin */
    const char *builtin;    /* "matmul" */
    int next;               /* next rule with the same target, -1 at the end */
} decomp_rule;

/* A view op (share/fxsh/decompose/views.yaml): how to write a mutated view back into its base. */
typedef struct view_rule {
    const char *schema;
    const char *inverse;    /* template over the view's arguments, `base` and `mutated`; NULL: unknown */
    bool multi;             /* returns a list of views (split, unbind) */
} view_rule;

#define MAX_DEPTH 64

typedef struct dctx {
    const fx_program *src;
    fx_program *dst;
    fx_program *scratch;      /* literals parsed for comparisons */
    decomp_table which;
    diag_sink *d;
    fx_graph *g;
    fx_namer nm;
    bool root;
    bool failed;              /* an error was reported: stop */
    int depth;                /* nesting of rule expansions */
    const char *expanding[MAX_DEPTH];   /* the targets being expanded, outermost first */
    const fx_node *cur;       /* the source node being rebuilt: emitted nodes take its location */
    const char *unknown;      /* the @operand a template could not compute, for the diagnostic */
    hashmap vals;             /* source node name -> fx_arg* for values that are not tensors */
    hashmap tens;             /* source node name -> fz_tensor* */
    hashmap by_node;          /* emitted node name -> fz_tensor* whose value it is (finds a view's base) */
    hashmap lists;            /* emitted multi-output view node name -> fz_tensor* of its input */
    hashmap items;            /* emitted multi-output node name -> fx_node** of its getitems */
    fz_state fz;
    const meta_rules *meta;   /* the meta of what is emitted (share/fxsh/meta; shared, read-only) */
    const pass_table *tbl, *vtbl;   /* share/fxsh/decompose, parsed once per process */
    decomp_rule *rules;
    size_t n_rules;
    hashmap rule_by_target;   /* target -> (void *)(intptr_t)(first index + 1) */
    hashmap views;            /* target -> view_rule* */
    view_rule *view_recs;
} dctx;

static bool load_rules(dctx *c)
{
    hm_init(&c->rule_by_target);
    hm_init(&c->views);
    c->tbl = tables_pass("decompose", "rules", c->d);
    c->vtbl = tables_pass("decompose", "views", c->d);
    c->meta = meta_rules_shipped(c->d);
    if (!c->tbl || !c->vtbl || !c->meta)
        return false;
    c->rules = xcalloc(c->tbl->n + 1, sizeof *c->rules);
    int *last = xcalloc(c->tbl->n + 1, sizeof *last);
    bool ok = true;
    for (size_t i = 0; i < c->tbl->n && ok; i++) {
        const pt_record *r = &c->tbl->recs[i];
        decomp_rule *d = &c->rules[c->n_rules];
        const char *tables = pt_get(r, "tables");
        d->tables = (tables && strstr(tables, "default") ? T_DEFAULT : 0) | (tables && strstr(tables, "onnx") ? T_ONNX : 0);
        d->target = pt_get(r, "target");
        d->schema = pt_get(r, "schema");
        d->when = pt_get(r, "when");
        d->body = pt_get(r, "body");
        d->builtin = pt_get(r, "builtin");
        d->next = -1;
        if (!d->tables || !d->target || !d->schema || !d->body == !d->builtin ||
            (d->builtin && strcmp(d->builtin, "matmul"))) {
            diag_error(c->d, (diag_loc){ r->file, r->line, 0 },
                       "decomposition rule needs tables, target, schema and either body or builtin: matmul");
            ok = false;
            break;
        }
        intptr_t first = (intptr_t)hm_get(&c->rule_by_target, d->target);
        if (!first) {
            hm_put(&c->rule_by_target, d->target, (void *)(intptr_t)(c->n_rules + 1));
            last[c->n_rules] = (int)c->n_rules;
        } else {
            c->rules[last[first - 1]].next = (int)c->n_rules;
            last[first - 1] = (int)c->n_rules;
        }
        c->n_rules++;
    }
    free(last);
    c->view_recs = xcalloc(c->vtbl->n + 1, sizeof *c->view_recs);
    for (size_t i = 0; i < c->vtbl->n && ok; i++) {
        const pt_record *r = &c->vtbl->recs[i];
        view_rule *v = &c->view_recs[i];
        const char *target = pt_get(r, "target"), *multi = pt_get(r, "multi");
        v->schema = pt_get(r, "schema");
        v->inverse = pt_get(r, "inverse");
        v->multi = multi && !strcmp(multi, "true");
        if (!target || !v->schema) {
            diag_error(c->d, (diag_loc){ r->file, r->line, 0 }, "view entry needs target and schema");
            ok = false;
            break;
        }
        hm_put(&c->views, target, v);
    }
    return ok;
}

static void free_rules(dctx *c)
{
    free(c->rules);
    free(c->view_recs);
    hm_free(&c->rule_by_target);
    hm_free(&c->views);
}

static const char *table_key(const char *target)
{
    return !strncmp(target, "torch.ops.", 10) ? target + 10 : target;
}

static fx_node *same_node(const fx_node *n, void *ctx)
{
    (void)ctx;
    return (fx_node *)n;
}

/* A fresh copy of an argument tree of the new graph (nodes stay shared). */
static fx_arg *dup(dctx *c, const fx_arg *a) { return fx_copy_arg(c->dst, a, same_node, NULL); }

static void fail(dctx *c) { c->failed = true; }

/* ---- tensors of the graph being built ------------------------------------------------------ */

static void track(dctx *c, fz_tensor *t) { hm_put(&c->by_node, t->value->name, t); }

static fz_tensor *tensor_of(dctx *c, fx_node *n)
{
    fz_tensor *t = hm_get(&c->by_node, n->name);
    if (!t) {
        t = fz_fresh(&c->fz, n);
        track(c, t);
    }
    return t;
}

/* The current value of source node n: a stale tensor is synced first (torch syncs every
 * functional argument before running an op). */
static fx_arg *value_of(dctx *c, const fx_node *n)
{
    fz_tensor *t = hm_get(&c->tens, n->name);
    if (t) {
        if (!fz_sync(&c->fz, t)) {
            fail(c);
            return fx_arg_none(c->dst);
        }
        track(c, t);
        return fx_arg_node(c->dst, t->value);
    }
    fx_arg *v = hm_get(&c->vals, n->name);
    return v ? dup(c, v) : fx_arg_none(c->dst);
}

static fx_node *map_src(const fx_node *n, void *ctx)
{
    fx_arg *a = value_of(ctx, n);
    return a->kind == FX_ARG_NODE ? a->u.node : NULL;
}

/* Copies source argument tree a with node references replaced by their current values (which
 * may be non-nodes). */
static fx_arg *conv(dctx *c, const fx_arg *a)
{
    if (a->kind == FX_ARG_NODE)
        return value_of(c, a->u.node);
    if (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE || a->kind == FX_ARG_DICT || a->kind == FX_ARG_SLICE) {
        size_t n = a->u.seq.len;
        fx_arg **items = fx_alloc(c->dst, (n ? n : 1) * sizeof *items);
        const char **keys = a->kind == FX_ARG_DICT ? fx_alloc(c->dst, (n ? n : 1) * sizeof *keys) : NULL;
        for (size_t i = 0; i < n; i++) {
            items[i] = conv(c, a->u.seq.items[i]);
            if (keys)   /* the new program must not point into the source's arena */
                keys[i] = fx_strdup(c->dst, a->u.seq.keys[i]);
        }
        return fx_arg_seq(c->dst, a->kind, items, keys, n);
    }
    return fx_copy_arg(c->dst, a, map_src, c);
}

static const fx_value *meta_of(const fx_arg *a)
{
    /* a list of tensors answers for its first element (hstack, cat) */
    if (a && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE) && a->u.seq.len)
        a = a->u.seq.items[0];
    if (!a || a->kind != FX_ARG_NODE)
        return NULL;
    const fx_value *v = a->u.node->meta.val;
    return v && v->kind == FX_VAL_TENSOR ? v : NULL;
}

static bool is_none(const fx_arg *a) { return !a || a->kind == FX_ARG_NONE; }

/* ---- emission ------------------------------------------------------------------------------ */

static fx_node *emit(dctx *c, const char *target, fx_arg **args, size_t na, const char **kn, fx_arg **kv,
                     size_t nk, const char *name)
{
    char base[96];
    if (!name)
        name = fx_node_base_name(target, base, sizeof base);
    fx_node *n = fx_node_new(c->g, fx_namer_name(&c->nm, name), FX_OP_CALL_FUNCTION, target);
    fx_graph_append(c->g, n);
    fx_node_set_args(n, fx_arg_seq(c->dst, FX_ARG_TUPLE, args, NULL, na),
                     fx_arg_seq(c->dst, FX_ARG_DICT, kv, kn, nk));
    /* nodes made for a source op keep its source location, as a re-trace keeps the stack trace
     * of the op being traced */
    if (c->cur) {
        n->meta.source = c->cur->meta.source ? fx_strdup(c->dst, c->cur->meta.source) : NULL;
        n->meta.stack_trace = c->cur->meta.stack_trace ? fx_strdup(c->dst, c->cur->meta.stack_trace) : NULL;
        n->meta.trace_group = c->cur->meta.trace_group;
        /* and its module path, which the ONNX provenance metadata names */
        n->meta.nn_module_stack = c->cur->meta.nn_module_stack ? fx_strdup(c->dst, c->cur->meta.nn_module_stack) : NULL;
    }
    return n;
}

static bool same_sizes(const fx_value *a, const fx_value *b)
{
    if (a->kind != FX_VAL_TENSOR || !b || b->kind != FX_VAL_TENSOR || a->rank != b->rank || !a->sizes || !b->sizes)
        return false;
    for (size_t i = 0; i < a->rank; i++)
        if (strcmp(a->sizes[i], b->sizes[i]))
            return false;
    return true;
}

/* want's sizes and dtype (the source's meta) with the strides inferred for the new graph, when
 * the inference agrees on the sizes: torch re-traces the decomposed graph, and the layout of a
 * value follows from the ops that now make it. */
static fx_value *merge_meta(dctx *c, const fx_value *want, const fx_value *inferred)
{
    if (!want)
        return (fx_value *)inferred;
    fx_value *v = fx_copy_value(c->dst, want);
    if (same_sizes(v, inferred) && inferred->strides) {
        v->strides = fx_alloc(c->dst, (v->rank + 1) * sizeof *v->strides);
        for (size_t i = 0; i < v->rank; i++)
            v->strides[i] = fx_strdup(c->dst, inferred->strides[i]);
    }
    return v;
}

/* A view op's result aliases its input: it becomes a view tensor of the input's storage. */
static void register_view(dctx *c, fx_node *m)
{
    const fx_arg *a0 = m->args->u.seq.len ? m->args->u.seq.items[0] : NULL;
    if (!a0 || a0->kind != FX_ARG_NODE)
        return;
    const view_rule *vr = hm_get(&c->views, table_key(m->target));
    if (vr) {
        fz_tensor *base = tensor_of(c, a0->u.node);
        if (vr->multi)
            hm_put(&c->lists, m->name, base);
        else
            hm_put(&c->by_node, m->name, fz_view_of(&c->fz, base, (fz_view){ m, -1 }, m));
        return;
    }
    fz_tensor *base = !strcmp(m->target, "operator.getitem") ? hm_get(&c->lists, a0->u.node->name) : NULL;
    const fx_arg *i = m->args->u.seq.len > 1 ? m->args->u.seq.items[1] : NULL;
    if (base && i && i->kind == FX_ARG_INT)
        hm_put(&c->by_node, m->name, fz_view_of(&c->fz, base, (fz_view){ a0->u.node, i->u.i }, m));
}

static fx_arg *call(dctx *c, const char *target, fx_arg *args, fx_arg *kwargs, const fx_value *want);

/* A multi-output op's items are taken right away, each a getitem node (make_fx wraps every
 * output of an op in its own proxy), whether used or not: unused ones are dead code later,
 * but they have taken their names. */
static void take_items(dctx *c, fx_node *m)
{
    const fx_value *mv = m->meta.val;
    fx_node **items = fx_alloc(c->dst, mv->n_items * sizeof *items);
    for (size_t i = 0; i < mv->n_items; i++) {
        fx_arg *ga[2] = { fx_arg_node(c->dst, m), fx_arg_int(c->dst, (int64_t)i) };
        items[i] = emit(c, "operator.getitem", ga, 2, NULL, NULL, 0, NULL);
        items[i]->meta.val = mv->items[i];
        register_view(c, items[i]);
    }
    hm_put(&c->items, m->name, items);
}

static fx_node *call_node(dctx *c, const char *target, fx_arg **args, size_t na, const fx_value *want)
{
    fx_arg *r = call(c, target, fx_arg_seq(c->dst, FX_ARG_TUPLE, args, NULL, na),
                     fx_arg_seq(c->dst, FX_ARG_DICT, NULL, NULL, 0), want);
    if (r && r->kind == FX_ARG_NODE)
        return r->u.node;
    if (r && !c->failed) {
        diag_error(c->d, (diag_loc){ c->src->file, 0, 0 }, "decompose: %s did not produce a tensor", target);
        fail(c);
    }
    return NULL;
}

/* ---- templates ------------------------------------------------------------------------------ */

typedef struct binding {
    char names[12][32];
    const fx_arg *src[12];    /* bound value (in the new graph), NULL if not given */
    const char *def[12];
    size_t def_len[12];
    size_t n;
    const fx_arg *args;       /* the call's positional arguments, for "*" */
    const fx_value *out;      /* the call's output meta (@shape, static_shape) */
    int64_t out_index;        /* view inverses: the output of a multi-output view */
} binding;

static void bind(binding *b, const char *schema, const fx_arg *args, const fx_arg *kwargs, const fx_value *out)
{
    memset(b, 0, sizeof *b);
    b->out_index = -1;
    const char *s = schema;
    while (*s && b->n < 12) {
        const char *e = s;
        int depth = 0;
        for (; *e && !(*e == ',' && depth == 0); e++)
            depth += (*e == '[') - (*e == ']');
        const char *eq = memchr(s, '=', (size_t)(e - s));
        const char *ne = eq ? eq : e;
        snprintf(b->names[b->n], sizeof b->names[0], "%.*s", (int)(ne - s), s);
        if (eq) {
            b->def[b->n] = eq + 1;
            b->def_len[b->n] = (size_t)(e - eq - 1);
        }
        b->n++;
        s = *e ? e + 1 : e;
    }
    for (size_t i = 0; i < args->u.seq.len && i < b->n; i++)
        b->src[i] = args->u.seq.items[i];
    b->args = args;
    b->out = out;
    for (size_t k = 0; kwargs && k < kwargs->u.seq.len; k++)
        for (size_t i = 0; i < b->n; i++)
            if (!strcmp(b->names[i], kwargs->u.seq.keys[k]))
                b->src[i] = kwargs->u.seq.items[k];
}

static int bound_index(const binding *b, const char *name, size_t len)
{
    for (size_t i = 0; i < b->n; i++)
        if (strlen(b->names[i]) == len && !memcmp(b->names[i], name, len))
            return (int)i;
    return -1;
}

/* The value of bound argument i: as given, else its schema default (in c->scratch), else NULL. */
static const fx_arg *bound_value(dctx *c, const binding *b, int i)
{
    if (i < 0)
        return NULL;
    if (b->src[i])
        return b->src[i];
    if (b->def[i])
        return fx_parse_literal(c->scratch, b->def[i], b->def[i] + b->def_len[i]);
    return NULL;
}

/* Structural equality of constant argument trees (nodes never compare equal). */
static bool arg_equal(const fx_arg *a, const fx_arg *b)
{
    bool seq_a = a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE;
    bool seq_b = b->kind == FX_ARG_LIST || b->kind == FX_ARG_TUPLE;
    if (seq_a && seq_b) {
        if (a->u.seq.len != b->u.seq.len)
            return false;
        for (size_t i = 0; i < a->u.seq.len; i++)
            if (!arg_equal(a->u.seq.items[i], b->u.seq.items[i]))
                return false;
        return true;
    }
    if (a->kind == FX_ARG_INT && b->kind == FX_ARG_FLOAT)
        return (double)a->u.i == b->u.f;
    if (a->kind == FX_ARG_FLOAT && b->kind == FX_ARG_INT)
        return a->u.f == (double)b->u.i;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case FX_ARG_NONE: return true;
    case FX_ARG_INT: return a->u.i == b->u.i;
    case FX_ARG_FLOAT: return a->u.f == b->u.f;
    case FX_ARG_BOOL: return a->u.b == b->u.b;
    case FX_ARG_STR: return !strcmp(a->u.s, b->u.s);
    default: return false;
    }
}

/* Splits [s, e) at top-level commas (outside [] and ()); returns the number of pieces. */
static size_t split_top(const char *s, const char *e, const char **ps, const char **pe, size_t max)
{
    size_t n = 0;
    while (s < e && n < max) {
        int depth = 0;
        const char *q = s;
        for (; q < e; q++) {
            if (*q == '[' || *q == '(')
                depth++;
            else if (*q == ']' || *q == ')')
                depth--;
            else if (*q == ',' && depth == 0)
                break;
        }
        while (s < q && isspace((unsigned char)*s))
            s++;
        const char *t = q;
        while (t > s && isspace((unsigned char)t[-1]))
            t--;
        ps[n] = s;
        pe[n++] = t;
        s = q < e ? q + 1 : e;
    }
    return n;
}

static bool name_is(const char *s, const char *e, const char *name)
{
    return (size_t)(e - s) == strlen(name) && !memcmp(s, name, (size_t)(e - s));
}

/* The argument a name refers to: a template local, else a bound argument (as given or its
 * default); NULL if neither. */
static const fx_arg *lookup(dctx *c, const binding *b, hashmap *locals, const char *s, const char *e)
{
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(e - s), s);
    const fx_arg *loc = locals ? hm_get(locals, name) : NULL;
    return loc ? loc : bound_value(c, b, bound_index(b, s, (size_t)(e - s)));
}

static bool static_tensor(const fx_arg *a, dl_tensor *t) { return dl_static(meta_of(a), t); }

/* An int argument's value; false for anything else (NULL included). */
static bool int_arg(const fx_arg *a, int64_t *v)
{
    if (!a || a->kind != FX_ARG_INT)
        return false;
    *v = a->u.i;
    return true;
}

/* Python-style dimension wrapping (-1 = last) into [0, rank); a 0-d tensor accepts 0 and -1. */
static bool wrap_dim(int64_t *d, size_t rank)
{
    int64_t r = rank ? (int64_t)rank : 1;
    if (*d < 0)
        *d += r;
    return *d >= 0 && *d < r;
}

static fx_arg *int_list(dctx *c, const int64_t *v, size_t n)
{
    fx_arg *items[DL_MAX_RANK + 2];
    for (size_t i = 0; i < n && i < DL_MAX_RANK + 2; i++)
        items[i] = fx_arg_int(c->dst, v[i]);
    return fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, n);
}

/* Reduction dims of (self, dim): normalized, into red[] flags; false if not static. */
static bool reduced_dims(const dl_tensor *t, const fx_arg *dim, bool *red)
{
    memset(red, 0, DL_MAX_RANK * sizeof *red);
    if (is_none(dim) || ((dim->kind == FX_ARG_LIST || dim->kind == FX_ARG_TUPLE) && !dim->u.seq.len)) {
        for (size_t i = 0; i < t->rank; i++)
            red[i] = true;
        return true;
    }
    size_t n = dim->kind == FX_ARG_INT ? 1 : dim->u.seq.len;
    for (size_t i = 0; i < n; i++) {
        int64_t d;
        if (!int_arg(dim->kind == FX_ARG_INT ? dim : dim->u.seq.items[i], &d) || !wrap_dim(&d, t->rank))
            return false;
        red[d] = true;
    }
    return true;
}

/* @function operands (see core.yaml); NULL when they do not apply to these arguments. */
static fx_arg *special(dctx *c, const binding *b, hashmap *locals, const char *fn, size_t fl, const char **ps,
                       const char **pe, size_t np)
{
#define FN(name) (fl == sizeof(name) - 1 && !memcmp(fn, name, fl))
    const fx_arg *a0 = np > 0 ? lookup(c, b, locals, ps[0], pe[0]) : NULL;
    const fx_arg *a1 = np > 1 ? lookup(c, b, locals, ps[1], pe[1]) : NULL;
    const fx_arg *a2 = np > 2 ? lookup(c, b, locals, ps[2], pe[2]) : NULL;
    dl_tensor t;
    int64_t v[DL_MAX_RANK + 2], k;
    bool red[DL_MAX_RANK];
    if (np == 1 && (FN("dtype") || FN("device"))) {
        const fx_value *m = meta_of(a0);
        if (!m || (FN("dtype") ? m->dtype == FX_DT_UNKNOWN : !m->device))
            return NULL;
        return FN("dtype") ? fx_arg_dtype(c->dst, m->dtype) : fx_arg_str(c->dst, FX_ARG_DEVICE, m->device);
    }
    if (np == 0 && FN("shape")) {
        if (!dl_static(b->out, &t))
            return NULL;
        return int_list(c, t.size, t.rank);
    }
    if (np == 0 && FN("out_index"))
        return b->out_index >= 0 ? fx_arg_int(c->dst, b->out_index) : NULL;
    if (np == 0 && FN("transpose_perm")) {
        /* transpose(self, dim0, dim1) as a permutation of rank(self) dims */
        int64_t d0, d1;
        if (!static_tensor(lookup(c, b, locals, "self", "self" + 4), &t) ||
            !int_arg(lookup(c, b, locals, "dim0", "dim0" + 4), &d0) ||
            !int_arg(lookup(c, b, locals, "dim1", "dim1" + 4), &d1) || !wrap_dim(&d0, t.rank) ||
            !wrap_dim(&d1, t.rank))
            return NULL;
        for (size_t i = 0; i < t.rank; i++)
            v[i] = (int64_t)i == d0 ? d1 : (int64_t)i == d1 ? d0 : (int64_t)i;
        return int_list(c, v, t.rank);
    }
    if (np == 1 && FN("sizes"))
        return static_tensor(a0, &t) ? int_list(c, t.size, t.rank) : NULL;
    if (np == 1 && FN("numel_lead")) {
        /* product of every size but the last */
        if (!static_tensor(a0, &t) || !t.rank)
            return NULL;
        int64_t p = 1;
        for (size_t i = 0; i + 1 < t.rank; i++)
            p *= t.size[i];
        return fx_arg_int(c->dst, p);
    }
    if (np == 2 && (FN("dim") || FN("numel_from") || FN("wrap_dim"))) {
        /* @dim(x,k) = size k of x; @numel_from(x,k) = product of sizes k..; @wrap_dim(x,k) = k >= 0 */
        if (!static_tensor(a0, &t))
            return NULL;
        fx_arg *lit = NULL;
        if (!a1)
            lit = fx_parse_literal(c->scratch, ps[1], pe[1]);
        if (!int_arg(a1 ? a1 : lit, &k) || !wrap_dim(&k, t.rank))
            return NULL;
        if (FN("wrap_dim"))
            return fx_arg_int(c->dst, k);
        if (FN("dim"))
            return t.rank ? fx_arg_int(c->dst, t.size[k]) : NULL;
        int64_t p = 1;
        for (size_t j = (size_t)k; j < t.rank; j++)
            p *= t.size[j];
        return fx_arg_int(c->dst, p);
    }
    if (np == 1 && FN("inverse_perm")) {
        size_t n = a0 && (a0->kind == FX_ARG_LIST || a0->kind == FX_ARG_TUPLE) ? a0->u.seq.len : 0;
        if (!n || n > DL_MAX_RANK)
            return NULL;
        for (size_t i = 0; i < n; i++) {
            if (!int_arg(a0->u.seq.items[i], &k) || !wrap_dim(&k, n))
                return NULL;
            v[k] = (int64_t)i;
        }
        return int_list(c, v, n);
    }
    if (np == 2 && FN("sdpa_scale")) {
        /* sdpa math scales q and k by sqrt(scale), scale defaulting to 1/sqrt(E) */
        if (!static_tensor(a0, &t) || !t.rank)
            return NULL;
        double s = !is_none(a1) ? (a1->kind == FX_ARG_FLOAT ? a1->u.f : a1->kind == FX_ARG_INT ? (double)a1->u.i : NAN)
                                : 1.0 / sqrt((double)t.size[t.rank - 1]);
        return isnan(s) ? NULL : fx_arg_float(c->dst, sqrt(fabs(s)));
    }
    if (np == 2 && FN("getitems")) {
        /* getitem(a0, i) for each item of list a1 */
        size_t n = a1 && (a1->kind == FX_ARG_LIST || a1->kind == FX_ARG_TUPLE) ? a1->u.seq.len : 0;
        if (!a0 || a0->kind != FX_ARG_NODE || !n)
            return NULL;
        fx_arg **items = fx_alloc(c->dst, n * sizeof *items);
        for (size_t i = 0; i < n; i++) {
            fx_arg *ga[2] = { fx_arg_node(c->dst, a0->u.node), fx_arg_int(c->dst, (int64_t)i) };
            fx_node *g = call_node(c, "operator.getitem", ga, 2, NULL);
            if (!g)
                return NULL;
            items[i] = fx_arg_node(c->dst, g);
        }
        return fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, n);
    }
    if (np == 2 && FN("mask_shape")) {
        /* [1, ..., -1 (at dim), ..., 1] */
        if (!static_tensor(a0, &t) || !int_arg(a1, &k) || !wrap_dim(&k, t.rank))
            return NULL;
        for (size_t i = 0; i < t.rank; i++)
            v[i] = (int64_t)i == k ? -1 : 1;
        return int_list(c, v, t.rank);
    }
    if (np == 3 && FN("wrap_index")) {
        /* index counted from the end becomes non-negative */
        int64_t i;
        if (!static_tensor(a0, &t) || !int_arg(a1, &k) || !wrap_dim(&k, t.rank) || !int_arg(a2, &i))
            return NULL;
        return fx_arg_int(c->dst, i < 0 ? i + t.size[k] : i);
    }
    if (np == 3 && FN("split_sizes")) {
        /* split(self, split_size, dim): the sizes of its chunks */
        int64_t sz;
        k = 0;
        if (!static_tensor(a0, &t) || !int_arg(a1, &sz) || sz <= 0 || (a2 && !int_arg(a2, &k)) ||
            !wrap_dim(&k, t.rank))
            return NULL;
        size_t n = 0;
        fx_arg *items[64];
        for (int64_t at = 0; at < t.size[k] && n < 64; at += sz)
            items[n++] = fx_arg_int(c->dst, t.size[k] - at < sz ? t.size[k] - at : sz);
        return fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, n);
    }
    if (np == 2 && (FN("reduction_dims") || FN("kept_dims") || FN("keepdim_shape") || FN("reduced_numel"))) {
        /* of a reduction of a0 over dims a1: the dims (normalized), the others, the sizes with
         * reduced dims set to 1, and the number of reduced elements (a float) */
        if (!static_tensor(a0, &t) || !reduced_dims(&t, a1, red))
            return NULL;
        size_t n = 0;
        double numel = 1;
        for (size_t i = 0; i < t.rank; i++) {
            if (FN("keepdim_shape"))
                v[n++] = red[i] ? 1 : t.size[i];
            else if (red[i] == FN("reduction_dims"))
                v[n++] = (int64_t)i;
            if (red[i])
                numel *= (double)t.size[i];
        }
        return FN("reduced_numel") ? fx_arg_float(c->dst, numel) : int_list(c, v, n);
    }
    if (np == 3 && (FN("split_start") || FN("split_end")) && b->out_index >= 0) {
        /* where output out_index of split(base, split, dim) starts / ends along dim; split is a
         * chunk size (split.Tensor) or the list of sizes (split_with_sizes) */
        k = 0;
        if (!static_tensor(a0, &t) || (a2 && !int_arg(a2, &k)) || !wrap_dim(&k, t.rank) || !t.rank || !a1)
            return NULL;
        int64_t start = 0, len, sz;
        if (int_arg(a1, &sz)) {
            start = sz * b->out_index;
            len = sz;
        } else if ((a1->kind == FX_ARG_LIST || a1->kind == FX_ARG_TUPLE) && (size_t)b->out_index < a1->u.seq.len) {
            for (int64_t i = 0; i < b->out_index; i++) {
                if (!int_arg(a1->u.seq.items[i], &sz))
                    return NULL;
                start += sz;
            }
            if (!int_arg(a1->u.seq.items[b->out_index], &len))
                return NULL;
        } else {
            return NULL;
        }
        int64_t end = start + len > t.size[k] ? t.size[k] : start + len;
        return fx_arg_int(c->dst, FN("split_start") ? start : end);
    }
    if (np == 1 && FN("correction")) {
        /* var's unbiased flag as the correction prims.var takes */
        return a0 && a0->kind == FX_ARG_BOOL ? fx_arg_float(c->dst, a0->u.b ? 1.0 : 0.0) : NULL;
    }
    return NULL;
#undef FN
}

/* Resolves one template operand. *absent is set for a schema argument that was not given and
 * has no default (or, with a trailing '?', that was not given at all). NULL otherwise means
 * the template does not apply to these arguments. */
static fx_arg *operand(dctx *c, const binding *b, hashmap *locals, const char *s, const char *e, bool *absent)
{
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    *absent = false;
    if (s < e && *s == '@') {
        const char *open = memchr(s, '(', (size_t)(e - s));
        const char *ps[4], *pe[4];
        size_t np = 0;
        if (open && e[-1] == ')')
            np = split_top(open + 1, e - 1, ps, pe, 4);
        fx_arg *r = special(c, b, locals, s + 1, (size_t)((open ? open : e) - s - 1), ps, pe, np);
        if (!r)
            c->unknown = fx_strndup(c->dst, s, (size_t)(e - s));
        return r;
    }
    if (s < e && *s == '[' && e[-1] == ']') {
        const char *ps[DL_MAX_RANK + 2], *pe[DL_MAX_RANK + 2];
        size_t np = split_top(s + 1, e - 1, ps, pe, DL_MAX_RANK + 2);
        fx_arg *items[DL_MAX_RANK + 2];
        for (size_t i = 0; i < np; i++) {
            bool ab;
            if (!(items[i] = operand(c, b, locals, ps[i], pe[i], &ab)))
                return NULL;
        }
        return fx_arg_seq(c->dst, FX_ARG_LIST, items, NULL, np);
    }
    bool optional = s < e && e[-1] == '?';
    if (optional)
        e--;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(e - s), s);
    const fx_arg *loc = locals ? hm_get(locals, name) : NULL;
    if (loc)
        return dup(c, loc);
    int i = bound_index(b, s, (size_t)(e - s));
    if (i >= 0) {
        if (b->src[i])
            return dup(c, b->src[i]);
        if (!optional && b->def[i] && strncmp(b->def[i], "None", 4) != 0)
            return fx_parse_literal(c->dst, b->def[i], b->def[i] + b->def_len[i]);
        *absent = true;
        return NULL;
    }
    return fx_parse_literal(c->dst, s, e);
}

static bool holds(dctx *c, const binding *b, const char *when)
{
    if (!when)
        return true;
    const char *cs[16], *ce[16];
    size_t nc = split_top(when, when + strlen(when), cs, ce, 16);
    for (size_t k = 0; k < nc; k++) {
        const char *s = cs[k], *e = ce[k];
        bool neg = *s == '!';
        s += neg;
        const char *open = memchr(s, '(', (size_t)(e - s));
        const char *close = open ? memchr(open, ')', (size_t)(e - open)) : NULL;
        bool ok;
        if (name_is(s, e, "static_shape")) {
            dl_tensor t;
            ok = dl_static(b->out, &t);
        } else if (open && close && close + 1 == e) {
            /* predicates on arguments: has_rank, contiguous, viewable, last_stride_1 */
            const char *ps[3], *pe[3];
            size_t np = split_top(open + 1, close, ps, pe, 3);
            const fx_arg *a0 = np ? lookup(c, b, NULL, ps[0], pe[0]) : NULL;
            if (name_is(s, open, "has_rank")) {
                ok = meta_of(a0) != NULL;
            } else if (name_is(s, open, "contiguous")) {
                ok = dl_contiguous(meta_of(a0));
            } else if (name_is(s, open, "last_stride_1")) {
                ok = true;
                for (size_t i = 0; i < np && ok; i++)
                    ok = dl_last_stride_1(meta_of(lookup(c, b, NULL, ps[i], pe[i])));
            } else if (name_is(s, open, "viewable") && np == 2) {
                /* reshape(x, shape) is a view; unknown layouts are taken as contiguous */
                ok = dl_viewable(meta_of(a0), lookup(c, b, NULL, ps[1], pe[1]));
            } else {
                return false;
            }
        } else if (open && close && (!strncmp(s, "rank(", 5) || !strncmp(s, "len(", 4))) {
            /* rank(x) of a tensor (of a list's first item), len(x) of a list */
            const fx_arg *x = lookup(c, b, NULL, open + 1, close);
            const fx_value *m = meta_of(x);
            const char *op = close + 1;
            long want = strtol(op + 2, NULL, 10);
            long r;
            if (s[0] == 'l' && x && (x->kind == FX_ARG_LIST || x->kind == FX_ARG_TUPLE))
                r = (long)x->u.seq.len;
            else if (s[0] == 'r' && m)
                r = (long)m->rank;
            else
                return false;
            ok = !strncmp(op, "==", 2) ? r == want : !strncmp(op, ">=", 2) ? r >= want
                 : !strncmp(op, "!=", 2) ? r != want : false;
        } else {
            const char *op = NULL;
            for (const char *q = s; q + 1 < e && !op; q++)
                if ((q[0] == '=' || q[0] == '!') && q[1] == '=')
                    op = q;
            if (!op)
                return false;
            int i = bound_index(b, s, (size_t)(op - s));
            if (i < 0)
                return false;
            const fx_arg *a = bound_value(c, b, i);
            fx_arg *want = fx_parse_literal(c->scratch, op + 2, e);
            bool same = want && (want->kind == FX_ARG_NONE ? is_none(a) : a && arg_equal(a, want));
            ok = same == (op[0] == '=');
        }
        if (ok == neg)
            return false;
    }
    return true;
}

static fx_arg *builtin(dctx *c, const decomp_rule *r, const binding *b);

/* Expands a template; returns the value that replaces the call, NULL if it does not apply or
 * after an error (c->failed). locals may be preset (view inverses: base, mutated). */
static fx_arg *expand(dctx *c, const char *target, const char *body, const binding *b, hashmap *locals)
{
    fx_arg *result = NULL;
    const char *s = body;
    bool ok = true;
    while (*s && ok && !c->failed) {
        const char *semi = strchr(s, ';');
        const char *end = semi ? semi : s + strlen(s);
        while (s < end && isspace((unsigned char)*s))
            s++;
        const char *te = end;
        while (te > s && isspace((unsigned char)te[-1]))
            te--;
        if (s < te && *s == '~')   /* traced, then dead: an unused call (DCE removes it) */
            s++;
        const char *eq = NULL, *open = NULL;
        for (const char *q = s; q < te && !open; q++) {
            if (*q == '=' && !eq)
                eq = q;
            else if (*q == '(' || *q == '[')
                open = q;
        }
        if (!open || *open == '[' || open == s || (eq && eq > open)) {
            eq = NULL;
            open = NULL;
        }
        if (!open || te[-1] != ')') {
            /* a bare operand or a tuple "(a, b)" is the result */
            if (*s == '(' && te[-1] == ')') {
                const char *ps[12], *pe[12];
                size_t np = split_top(s + 1, te - 1, ps, pe, 12);
                fx_arg *items[12];
                for (size_t i = 0; i < np && ok; i++) {
                    bool absent;
                    ok = (items[i] = operand(c, b, locals, ps[i], pe[i], &absent)) != NULL;
                }
                result = ok ? fx_arg_seq(c->dst, FX_ARG_TUPLE, items, NULL, np) : NULL;
            } else {
                bool absent;
                ok = (result = operand(c, b, locals, s, te, &absent)) != NULL;
            }
            s = semi ? semi + 1 : end;
            continue;
        }
        char local[64] = "", tgt[128];
        const char *ts = s;
        if (eq) {
            const char *le = eq;
            while (le > s && isspace((unsigned char)le[-1]))
                le--;
            snprintf(local, sizeof local, "%.*s", (int)(le - s), s);
            ts = eq + 1;
            while (isspace((unsigned char)*ts))
                ts++;
        }
        bool plain = !strncmp(ts, "operator.", 9);
        snprintf(tgt, sizeof tgt, "%s%.*s", plain ? "" : "torch.ops.", (int)(open - ts), ts);
        const char *close = te - 1;
        const char *bar = NULL;
        int depth = 0;
        for (const char *q = open + 1; q < close && !bar; q++) {
            depth += (*q == '[' || *q == '(') - (*q == ']' || *q == ')');
            if (*q == '|' && depth == 0)
                bar = q;
        }
        fx_arg *args[16], *kv[12];
        const char *kn[12];
        size_t na = 0, nk = 0;
        const char *ps[16], *pe[16];
        size_t np = split_top(open + 1, bar ? bar : close, ps, pe, 16);
        bool dropped = false;
        for (size_t i = 0; i < np && ok && !dropped; i++) {
            if (name_is(ps[i], pe[i], "*") || name_is(ps[i], pe[i], "*1")) {
                /* the call's positional arguments as given (from the second with *1) */
                for (size_t j = pe[i][-1] == '1'; b->args && j < b->args->u.seq.len && na < 16; j++)
                    args[na++] = dup(c, b->args->u.seq.items[j]);
                continue;
            }
            bool absent;
            fx_arg *a = operand(c, b, locals, ps[i], pe[i], &absent);
            if (!a && absent && pe[i][-1] == '?')
                dropped = true;   /* a trailing optional operand not given: omitted, with what follows */
            else if (!a && !absent)
                ok = false;
            else if (na < 16)
                args[na++] = a ? a : fx_arg_none(c->dst);
        }
        size_t nkp = bar ? split_top(bar + 1, close, ps, pe, 12) : 0;
        for (size_t i = 0; i < nkp && ok; i++) {
            const char *keq = memchr(ps[i], '=', (size_t)(pe[i] - ps[i]));
            if (!keq) {
                ok = false;
                break;
            }
            bool absent;
            fx_arg *a = operand(c, b, locals, keq + 1, pe[i], &absent);
            if (!a && !absent) {
                ok = false;
                break;
            }
            const char *vs = keq + 1;
            while (isspace((unsigned char)*vs))
                vs++;
            bool from_arg = bound_index(b, vs, (size_t)(pe[i] - vs)) >= 0;
            /* a source argument that is absent or None is dropped from the kwargs */
            if (a && !(from_arg && a->kind == FX_ARG_NONE)) {
                const char *ke = keq;
                while (ke > ps[i] && isspace((unsigned char)ke[-1]))
                    ke--;
                kn[nk] = fx_strndup(c->dst, ps[i], (size_t)(ke - ps[i]));
                kv[nk++] = a;
            }
        }
        if (!ok)
            break;
        result = call(c, tgt, fx_arg_seq(c->dst, FX_ARG_TUPLE, args, NULL, na),
                      fx_arg_seq(c->dst, FX_ARG_DICT, kv, kn, nk), NULL);
        if (!result)
            break;
        if (local[0])
            hm_put(locals, fx_strdup(c->dst, local), result);
        s = semi ? semi + 1 : end;
    }
    if (c->failed)
        return NULL;
    if (!ok || !result) {
        int line = c->cur ? c->cur->src_line : 0;
        if (c->unknown)
            diag_error(c->d, (diag_loc){ c->src->file, line, 0 },
                       "decompose: %s (node %%%s): cannot compute %s (it needs static sizes or arguments "
                       "that are not known here)", target, c->cur ? c->cur->name : "?", c->unknown);
        else
            diag_error(c->d, (diag_loc){ c->src->file, line, 0 }, "decompose: bad template for %s", target);
        fail(c);
        return NULL;
    }
    return result;
}

/* ---- ONNX type promotion --------------------------------------------------------------------- */

/* The ONNX exporter's type promotion: an int Python scalar operand becomes a scalar_tensor of
 * the tensor's dtype (and a .Scalar overload its .Tensor form). */
static void promote(dctx *c, const char **target, fx_arg **args, size_t na)
{
    static const char *const binops[] = { "add", "sub", "mul", "div", "gt", "lt", "ge", "le", "eq", "ne",
                                          "remainder", NULL };
    const char *t = *target;
    if (na < 2 || strncmp(t, "torch.ops.aten.", 15) != 0)
        return;
    char base[96];
    fx_node_base_name(t, base, sizeof base);
    bool known = false;
    for (size_t i = 0; binops[i]; i++)
        known |= !strcmp(base, binops[i]);
    const char *ov = strrchr(t, '.');
    if (!known || (strcmp(ov, ".Tensor") && strcmp(ov, ".Scalar") && strcmp(ov, ".Tensor_mode")))
        return;
    /* Only Python ints are wrapped, and not for int64 tensors (the int's own type); float
     * scalars are left alone (as the corpus shows for float tensors). */
    const fx_value *v = meta_of(args[0]);
    if (!v || v->dtype == FX_DT_UNKNOWN || v->dtype == FX_DT_BOOL || v->dtype == FX_DT_I64 ||
        args[1]->kind != FX_ARG_INT)
        return;
    fx_arg *sa[1] = { args[1] };
    const char *kn[1] = { "dtype" };
    fx_arg *kv[1] = { fx_arg_dtype(c->dst, v->dtype) };
    fx_node *st = emit(c, "torch.ops.aten.scalar_tensor.default", sa, 1, kn, kv, 1, "scalar_tensor_default");
    fx_value *sv = fx_value_new(c->dst, FX_VAL_TENSOR);   /* a 0-d tensor of the operand's dtype */
    sv->dtype = v->dtype;
    st->meta.val = sv;
    args[1] = fx_arg_node(c->dst, st);
    if (!strcmp(ov, ".Scalar")) {
        char buf[160];
        snprintf(buf, sizeof buf, "%.*s.Tensor", (int)(ov - t), t);
        *target = fx_strdup(c->dst, buf);
    }
}

/* ---- the call: rules first, else the op itself ------------------------------------------------ */

/* Emits target(args | kwargs): the first rule of the table whose conditions hold replaces it
 * (its calls go through here again, as torch applies decompositions until none applies), else
 * the op is emitted. want is the meta the result must carry (the source node's), NULL to
 * compute it. Returns the value (a node, or a tuple / argument a template returned); NULL after
 * an error. */
static fx_arg *call(dctx *c, const char *target, fx_arg *args, fx_arg *kwargs, const fx_value *want)
{
    if (c->failed)
        return NULL;
    if (c->depth >= MAX_DEPTH) {
        diag_error(c->d, (diag_loc){ c->src->file, 0, 0 },
                   "decompose: the decomposition rules for %s expand without end", target);
        fail(c);
        return NULL;
    }
    if (!strcmp(target, "operator.getitem") && args->u.seq.len == 2) {
        /* indexing a Python tuple a template returned is not traced, and the items of a
         * multi-output op were taken when it ran */
        const fx_arg *x = args->u.seq.items[0], *i = args->u.seq.items[1];
        if ((x->kind == FX_ARG_TUPLE || x->kind == FX_ARG_LIST) && i->kind == FX_ARG_INT && i->u.i >= 0 &&
            (size_t)i->u.i < x->u.seq.len)
            return dup(c, x->u.seq.items[i->u.i]);
        fx_node **items = x->kind == FX_ARG_NODE ? hm_get(&c->items, x->u.node->name) : NULL;
        const fx_value *mv = items ? x->u.node->meta.val : NULL;
        if (mv && i->kind == FX_ARG_INT && i->u.i >= 0 && (size_t)i->u.i < mv->n_items)
            return fx_arg_node(c->dst, items[i->u.i]);
    }
    c->depth++;
    unsigned mask = c->which == DECOMP_ONNX ? T_ONNX : T_DEFAULT;
    fx_value *inferred = meta_infer_call(c->dst, c->meta, c->g, target, args, kwargs);
    const fx_value *out = want ? want : inferred;
    fx_arg *val = NULL;
    intptr_t first = (intptr_t)hm_get(&c->rule_by_target, table_key(target));
    /* a template calling the op it decomposes (to normalize its arguments) emits it as is */
    for (int k = 0; k < c->depth - 1 && first; k++)
        if (!strcmp(c->expanding[k], target))
            first = 0;
    c->expanding[c->depth - 1] = target;
    for (int i = first ? (int)first - 1 : -1; i >= 0 && !val && !c->failed; i = c->rules[i].next) {
        const decomp_rule *r = &c->rules[i];
        if (!(r->tables & mask))
            continue;
        binding b;
        bind(&b, r->schema, args, kwargs, out);
        if (!holds(c, &b, r->when))
            continue;
        if (r->builtin) {
            val = builtin(c, r, &b);
        } else {
            hashmap locals;
            hm_init(&locals);
            val = expand(c, r->target, r->body, &b, &locals);
            hm_free(&locals);
        }
    }
    if (!val && !c->failed) {
        size_t na = args->u.seq.len;
        fx_arg **items = fx_alloc(c->dst, (na ? na : 1) * sizeof *items);
        memcpy(items, args->u.seq.items, na * sizeof *items);
        const char *t = target;
        if (c->which == DECOMP_ONNX)
            promote(c, &t, items, na);
        fx_node *m = emit(c, t, items, na, kwargs->u.seq.keys, kwargs->u.seq.items, kwargs->u.seq.len, NULL);
        m->meta.val = merge_meta(c, want, inferred);
        register_view(c, m);
        val = fx_arg_node(c->dst, m);
        if (m->meta.val && m->meta.val->kind == FX_VAL_TUPLE && m->meta.val->n_items &&
            strcmp(target, "operator.getitem"))
            take_items(c, m);
    } else if (val && val->kind == FX_ARG_NODE && want) {
        /* the expansion's result is the call's value: it carries the source's meta, unless it
         * is one of the arguments (an alias) */
        bool alias = false;
        for (size_t i = 0; i < args->u.seq.len; i++)
            alias |= args->u.seq.items[i]->kind == FX_ARG_NODE && args->u.seq.items[i]->u.node == val->u.node;
        if (!alias)
            val->u.node->meta.val = merge_meta(c, want, val->u.node->meta.val);
    }
    c->depth--;
    return c->failed ? NULL : val;
}

static fx_node *matmul_call(void *ctx, const char *target, fx_arg **args, size_t n)
{
    return call_node(ctx, target, args, n, NULL);
}

static fx_arg *builtin(dctx *c, const decomp_rule *r, const binding *b)
{
    /* the only builtin: matmul(self, other) */
    const fx_arg *x = b->src[0], *y = b->src[1];
    if (!x || !y || x->kind != FX_ARG_NODE || y->kind != FX_ARG_NODE)
        return NULL;
    (void)r;
    dm_emitter e = { c, c->dst, matmul_call };
    bool failed;
    fx_node *m = decomp_matmul(&e, x->u.node, y->u.node, &failed);
    if (failed)
        fail(c);
    return m ? fx_arg_node(c->dst, m) : NULL;
}

/* ---- functionalization hooks ----------------------------------------------------------------- */

/* Replays view v on base (torch regenerating an alias from its updated base). */
static fx_node *fz_forward(void *ctx, const fz_view *v, fx_node *base)
{
    dctx *c = ctx;
    const fx_node *op = v->op;
    size_t na = op->args->u.seq.len;
    fx_arg **args = fx_alloc(c->dst, (na ? na : 1) * sizeof *args);
    args[0] = fx_arg_node(c->dst, base);
    for (size_t i = 1; i < na; i++)
        args[i] = dup(c, op->args->u.seq.items[i]);
    const fx_node *saved = c->cur;
    if (!c->cur)
        c->cur = op;   /* regenerated at the output: located at the view it replays */
    fx_arg *rv = call(c, op->target, fx_arg_seq(c->dst, FX_ARG_TUPLE, args, NULL, na), dup(c, op->kwargs),
                      v->out_index < 0 ? op->meta.val : NULL);
    fx_node *r = rv && rv->kind == FX_ARG_NODE ? rv->u.node : NULL;
    if (rv && !r) {
        diag_error(c->d, (diag_loc){ c->src->file, 0, 0 }, "decompose: view %s did not produce a tensor", op->target);
        fail(c);
    }
    if (r && v->out_index >= 0) {
        fx_arg *ga[2] = { fx_arg_node(c->dst, r), fx_arg_int(c->dst, v->out_index) };
        r = call_node(c, "operator.getitem", ga, 2, NULL);
    }
    c->cur = saved;
    return r;
}

/* Writes mutated back into base through view v (FunctionalInverses: select_scatter, ...). */
static fx_node *fz_reverse(void *ctx, const fz_view *v, fx_node *base, fx_node *mutated)
{
    dctx *c = ctx;
    const fx_node *op = v->op;
    const view_rule *vr = hm_get(&c->views, table_key(op->target));
    if (!vr || !vr->inverse) {
        diagnostic *dg = diag_error(c->d, (diag_loc){ c->src->file, c->cur ? c->cur->src_line : 0, 0 },
                                    "decompose: in-place %s (node %%%s) writes through the view %%%s (%s), "
                                    "which fxsh cannot write back into its base",
                                    c->cur ? c->cur->target : "op", c->cur ? c->cur->name : "?", op->name,
                                    table_key(op->target));
        diag_set_hint(dg, "apply the op out of place and rebuild the base (e.g. slice_scatter / index_put)");
        fail(c);
        return NULL;
    }
    binding b;
    bind(&b, vr->schema, op->args, op->kwargs, base->meta.val);
    b.out_index = v->out_index;
    hashmap locals;
    hm_init(&locals);
    hm_put(&locals, "base", fx_arg_node(c->dst, base));
    hm_put(&locals, "mutated", fx_arg_node(c->dst, mutated));
    fx_arg *r = expand(c, table_key(op->target), vr->inverse, &b, &locals);
    hm_free(&locals);
    if (!r || r->kind != FX_ARG_NODE) {
        if (!c->failed)
            diag_error(c->d, (diag_loc){ c->src->file, 0, 0 }, "decompose: bad inverse for view %s",
                       table_key(op->target));
        fail(c);
        return NULL;
    }
    if (r->u.node != base && r->u.node != mutated)
        r->u.node->meta.val = merge_meta(c, base->meta.val, r->u.node->meta.val);
    return r->u.node;
}

/* ---- the rebuild ------------------------------------------------------------------------------ */

/* Length of the op name of an in-place aten overload ("add_" in torch.ops.aten.add_.Tensor), 0 if
 * the target is not one. */
static size_t inplace_name_len(const char *t)
{
    if (strncmp(t, "torch.ops.aten.", 15) != 0)
        return 0;
    const char *name = t + 15;
    const char *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    return n < 2 || name[n - 1] != '_' || name[n - 2] == '_' || name[0] == '_' ? 0 : n;
}

/* "torch.ops.aten.add_.Tensor" → "torch.ops.aten.add.Tensor"; NULL if not an in-place overload. */
static const char *functional_target(dctx *c, const char *t)
{
    size_t n = inplace_name_len(t);
    if (!n)
        return NULL;
    char buf[160];
    snprintf(buf, sizeof buf, "torch.ops.aten.%.*s%s", (int)(n - 1), t + 15, t + 15 + n);
    return fx_strdup(c->dst, buf);
}

/* Nodes eliminate_dead_code keeps although unused: side effects and mutations. */
static bool impure(const fx_node *n)
{
    return n->op != FX_OP_CALL_FUNCTION || strstr(n->target, "._assert") || strstr(n->target, "sym_constrain_range") ||
           strstr(n->target, "_record_function") || inplace_name_len(n->target);
}

typedef struct dce_ctx {
    fx_node **nodes;
    size_t *uses, *stamp, n, who;
} dce_ctx;

/* Each distinct input of a dead node loses one user. */
static void drop_use(fx_node *m, void *ctx)
{
    dce_ctx *dc = ctx;
    size_t j = m->index;
    if (j < dc->n && dc->nodes[j] == m && dc->stamp[j] != dc->who) {
        dc->stamp[j] = dc->who;
        dc->uses[j]--;
    }
}

/* torch's graph.eliminate_dead_code(): unused pure nodes go, last to first, in one pass. */
static void eliminate_dead_code(dctx *c)
{
    fx_graph *g = c->g;
    fx_graph_recompute_users(g);
    fx_graph_renumber(g);
    size_t n = g->n_nodes;
    size_t *uses = xcalloc(n + 1, sizeof *uses);
    size_t *stamp = xcalloc(n + 1, sizeof *stamp);
    bool *dead = xcalloc(n + 1, sizeof *dead);
    fx_node **nodes = xcalloc(n + 1, sizeof *nodes);
    for (fx_node *x = g->first; x; x = x->next) {
        nodes[x->index] = x;
        uses[x->index] = x->n_users;
    }
    for (size_t i = n; i-- > 0;) {
        fx_node *x = nodes[i];
        if (uses[i] || impure(x))
            continue;
        dead[i] = true;
        dce_ctx dc = { nodes, uses, stamp, n, i + 1 };
        fx_arg_each_node(x->args, drop_use, &dc);
        fx_arg_each_node(x->kwargs, drop_use, &dc);
    }
    fx_node *prev = NULL;
    g->first = NULL;
    for (size_t i = 0; i < n; i++) {
        fx_node *x = nodes[i];
        if (dead[i]) {
            if (hm_get(&g->names, x->name) == x)
                hm_remove(&g->names, x->name);
            x->prev = x->next = NULL;
            g->n_nodes--;
            continue;
        }
        x->prev = prev;
        if (prev)
            prev->next = x;
        else
            g->first = x;
        prev = x;
    }
    if (prev)
        prev->next = NULL;
    g->last = prev;
    free(uses);
    free(stamp);
    free(dead);
    free(nodes);
    fx_graph_recompute_users(g);
    fx_graph_renumber(g);
}

typedef struct mutated_input {
    const fx_node *placeholder;
    fx_arg *value;
} mutated_input;

static bool rebuild(dctx *c, const fx_graph *sg, mutated_input **muts, size_t *n_mut)
{
    const fx_node *out = NULL;
    for (const fx_node *n = sg->first; n && !c->failed; n = n->next) {
        c->cur = n;
        if (n->op == FX_OP_OUTPUT) {
            out = n;
            continue;
        }
        if (n->op == FX_OP_PLACEHOLDER || n->op == FX_OP_GET_ATTR ||
            (n->op == FX_OP_CALL_FUNCTION && strstr(n->target, ".sym_"))) {
            /* Inputs, attributes and symbolic-size nodes keep their names. */
            fx_node *m = fx_node_new(c->g, fx_namer_name(&c->nm, n->name), n->op, n->target);
            if (n->op == FX_OP_PLACEHOLDER)
                m->target = m->name;
            m->meta.val = fx_copy_value(c->dst, n->meta.val);
            fx_graph_append(c->g, m);
            fx_node_set_args(m, conv(c, n->args), conv(c, n->kwargs));
            fz_tensor *t = fz_fresh(&c->fz, m);
            track(c, t);
            hm_put(&c->tens, n->name, t);
            continue;
        }
        if (n->op != FX_OP_CALL_FUNCTION) {
            diag_error(c->d, (diag_loc){ c->src->file, n->src_line, 0 }, "decompose: %s node %%%s is not an ATen call",
                       fx_opcode_name(n->op), n->name);
            return false;
        }
        const char *target = n->target;
        /* The ONNX exporter removes assertion nodes after decomposing. */
        if (c->which == DECOMP_ONNX && !strncmp(target, "torch.ops.aten._assert_", 23) && !n->n_users) {
            hm_put(&c->vals, n->name, fx_arg_none(c->dst));
            continue;
        }
        const char *ft = functional_target(c, target);
        fz_tensor *self = NULL;
        if (ft) {
            const fx_arg *a0 = n->args->u.seq.len ? n->args->u.seq.items[0] : NULL;
            self = a0 && a0->kind == FX_ARG_NODE ? hm_get(&c->tens, a0->u.node->name) : NULL;
            if (!self) {
                diag_error(c->d, (diag_loc){ c->src->file, n->src_line, 0 },
                           "decompose: in-place %s (node %%%s) does not mutate a tensor", target, n->name);
                return false;
            }
            target = ft;
        }
        fx_arg *args = conv(c, n->args), *kwargs = conv(c, n->kwargs);
        fx_arg *val = c->failed ? NULL : call(c, target, args, kwargs, n->meta.val);
        if (!val)
            return false;
        if (self) {
            /* functionalization: the op's out-of-place result is self's new value */
            if (val->kind != FX_ARG_NODE) {
                diag_error(c->d, (diag_loc){ c->src->file, n->src_line, 0 },
                           "decompose: in-place %s (node %%%s) has no tensor result", n->target, n->name);
                return false;
            }
            if (!fz_mutate(&c->fz, self, val->u.node))
                return false;
            track(c, self);
            hm_put(&c->tens, n->name, self);
        } else if (val->kind == FX_ARG_NODE) {
            hm_put(&c->tens, n->name, tensor_of(c, val->u.node));
        } else {
            hm_put(&c->vals, n->name, val);
        }
    }
    if (c->failed)
        return false;
    if (!out) {
        diag_error(c->d, (diag_loc){ c->src->file, 0, 0 }, "decompose: graph has no output node");
        return false;
    }
    c->cur = NULL;
    /* A mutated graph input is returned first, its new value synced (inputs in order, as
     * aot_autograd returns them). */
    for (const fx_node *n = sg->first; n; n = n->next) {
        fz_tensor *t = n->op == FX_OP_PLACEHOLDER ? hm_get(&c->tens, n->name) : NULL;
        if (!t || !fz_mutated(t))
            continue;
        if (!c->root) {
            /* a subgraph has no mutation outputs; torch.export rejects such branches too */
            diagnostic *dg = diag_error(c->d, (diag_loc){ c->src->file, n->src_line, 0 },
                                        "decompose: subgraph %s writes into its input %%%s in place",
                                        sg->owner && sg->owner->name ? sg->owner->name : "?", n->name);
            diag_set_hint(dg, "cond / while_loop / scan branches may not mutate their inputs: clone the input first");
            return false;
        }
        fx_arg *v = value_of(c, n);
        if (c->failed)
            return false;
        *muts = xrealloc(*muts, (*n_mut + 1) * sizeof **muts);
        (*muts)[(*n_mut)++] = (mutated_input){ n, v };
    }
    fx_arg *res = out->args->u.seq.len ? conv(c, out->args->u.seq.items[0]) : fx_arg_none(c->dst);
    if (c->failed)
        return false;
    if (*n_mut && (res->kind == FX_ARG_TUPLE || res->kind == FX_ARG_LIST)) {
        size_t n = *n_mut + res->u.seq.len;
        fx_arg **items = fx_alloc(c->dst, n * sizeof *items);
        for (size_t i = 0; i < *n_mut; i++)
            items[i] = (*muts)[i].value;
        memcpy(items + *n_mut, res->u.seq.items, res->u.seq.len * sizeof *items);
        res = fx_arg_seq(c->dst, res->kind, items, NULL, n);
    }
    fx_node *o = fx_node_new(c->g, fx_namer_name(&c->nm, out->name), FX_OP_OUTPUT, out->target);
    fx_graph_append(c->g, o);
    fx_node_set_args(o, fx_arg_seq(c->dst, FX_ARG_TUPLE, &res, NULL, 1), fx_arg_seq(c->dst, FX_ARG_DICT, NULL, NULL, 0));
    o->type_text = out->type_text ? fx_strdup(c->dst, out->type_text) : NULL;
    eliminate_dead_code(c);
    return true;
}

static const fx_input_spec *input_spec(const fx_program *p, const char *name)
{
    for (size_t i = 0; i < p->sig.n_inputs; i++)
        if (p->sig.inputs[i].name && !strcmp(p->sig.inputs[i].name, name))
            return &p->sig.inputs[i];
    return NULL;
}

/* Mutation outputs go first, then the user outputs renamed to their new nodes. A program
 * without a signature (FX text) gets one when outputs were added: its placeholders are all user
 * inputs, and the translator must know which outputs are mutations. */
static void rebuild_signature(dctx *c, const mutated_input *muts, size_t n_mut)
{
    fx_signature *s = &c->dst->sig;
    if (!s->present) {
        size_t n = 0;
        for (const fx_node *x = c->g->first; x; x = x->next)
            n += x->op == FX_OP_PLACEHOLDER;
        s->inputs = fx_alloc(c->dst, (n + 1) * sizeof *s->inputs);
        for (const fx_node *x = c->g->first; x; x = x->next)
            if (x->op == FX_OP_PLACEHOLDER)
                s->inputs[s->n_inputs++] = (fx_input_spec){ FX_IN_USER_INPUT, x->name, NULL, false };
        s->present = true;
    }
    const fx_node *o = c->g->last;
    const fx_arg *res = o->args->u.seq.items[0];
    size_t n = res->kind == FX_ARG_TUPLE || res->kind == FX_ARG_LIST ? res->u.seq.len : 0;
    fx_output_spec *outs = fx_alloc(c->dst, (n + 1) * sizeof *outs);
    for (size_t i = 0; i < n; i++) {
        const fx_arg *a = res->u.seq.items[i];
        outs[i].name = a->kind == FX_ARG_NODE ? a->u.node->name : "None";
        if (i < n_mut) {
            const fx_input_spec *is = input_spec(c->src, muts[i].placeholder->name);
            bool buf = is && is->kind == FX_IN_BUFFER;
            outs[i].kind = buf ? FX_OUT_BUFFER_MUTATION : FX_OUT_USER_INPUT_MUTATION;
            outs[i].target = buf && is->target ? fx_strdup(c->dst, is->target)
                                               : fx_strdup(c->dst, muts[i].placeholder->name);
        } else {
            size_t j = i - n_mut;
            outs[i].kind = j < c->src->sig.n_outputs ? c->src->sig.outputs[j].kind : FX_OUT_USER_OUTPUT;
            outs[i].target = j < c->src->sig.n_outputs && c->src->sig.outputs[j].target
                                 ? fx_strdup(c->dst, c->src->sig.outputs[j].target) : NULL;
        }
    }
    s->outputs = outs;
    s->n_outputs = n;
}

static bool rebuild_module(dctx *c, const fx_module *sm, fx_module *dm, bool root)
{
    if (sm->graph) {
        c->g = dm->graph;
        c->root = root;
        fx_namer_init(&c->nm, c->g);
        hm_init(&c->vals);
        hm_init(&c->tens);
        hm_init(&c->by_node);
        hm_init(&c->lists);
        hm_init(&c->items);
        fz_init(&c->fz, (fz_hooks){ c, fz_forward, fz_reverse });
        mutated_input *muts = NULL;
        size_t n_mut = 0;
        bool ok = rebuild(c, sm->graph, &muts, &n_mut);
        if (ok && root && (c->src->sig.present || n_mut))
            rebuild_signature(c, muts, n_mut);
        free(muts);
        fz_free(&c->fz);
        hm_free(&c->vals);
        hm_free(&c->tens);
        hm_free(&c->by_node);
        hm_free(&c->lists);
        hm_free(&c->items);
        fx_namer_free(&c->nm);
        if (!ok)
            return false;
    }
    const fx_module *sc = sm->first_child;
    fx_module *dc = dm->first_child;
    for (; sc && dc; sc = sc->next_sibling, dc = dc->next_sibling)
        if (!rebuild_module(c, sc, dc, false))
            return false;
    return true;
}

fx_program *decompose_program(const fx_program *src, decomp_table which, diag_sink *d)
{
    if (!src || !src->root || !src->root->graph) {
        diag_error(d, (diag_loc){ 0 }, "decompose: no program graph");
        return NULL;
    }
    if (!fx_program_is_aten(src)) {
        diagnostic *dg = diag_error(d, (diag_loc){ src->file, 0, 0 },
                                    "decompose: the program is not an exported (ATen) program");
        diag_set_hint(dg, "run export first");
        return NULL;
    }
    dctx c = { .src = src, .which = which, .d = d };
    if (!load_rules(&c)) {
        free_rules(&c);
        return NULL;
    }
    c.dst = fx_program_copy_shell(src);
    c.scratch = fx_program_new(NULL);
    bool ok = rebuild_module(&c, src->root, c.dst->root, true);
    free_rules(&c);
    fx_program_free(c.scratch);
    if (!ok) {
        if (!d->errors)
            diag_error(d, (diag_loc){ src->file, 0, 0 }, "decompose: failed");
        fx_program_free(c.dst);
        return NULL;
    }
    fx_program_refresh(c.dst);
    return c.dst;
}
