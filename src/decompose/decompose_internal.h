/* decompose_internal.h — what the decompose pass's files share: its tables, the state of one run
 * (dctx), template bindings, and the helpers that emit nodes (not a public API: see decompose.h). */
#ifndef FXSH_DECOMPOSE_INTERNAL_H
#define FXSH_DECOMPOSE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/builtin.h"
#include "base/hashmap.h"
#include "decompose/decompose.h"
#include "decompose/functionalize.h"
#include "meta/meta_layout.h"
#include "meta/meta_rules.h"
#include "fx/fx_build.h"
#include "tables/pass_tables.h"

/* The decomposition tables (share/fxsh/decompose/core.yaml documents the template syntax). */
enum { T_DEFAULT = 1, T_ONNX = 2 };

typedef struct decomp_rule {
    unsigned tables;
    const char *target;     /* "aten.linear.default" */
    const char *schema;
    const char *when;
    const char *body;       /* a template, or NULL for a dc_builtin */
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
    const char *unknown;      /* the @dc_operand a template could not compute, for the diagnostic */
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


typedef struct binding {
    char names[12][32];
    const fx_arg *src[12];    /* bound value (in the new graph), NULL if not given */
    const char *def[12];
    size_t def_len[12];
    size_t n;
    const fx_arg *args;       /* the dc_call's positional arguments, for "*" */
    const fx_value *out;      /* the dc_call's output meta (@shape, static_shape) */
    int64_t out_index;        /* view inverses: the output of a multi-output view */
} binding;



bool dc_load_rules(dctx *c);
void dc_free_rules(dctx *c);
const char *dc_table_key(const char *target);
fx_arg *dc_dup(dctx *c, const fx_arg *a);
void dc_fail(dctx *c);
void dc_track(dctx *c, fz_tensor *t);
fz_tensor *dc_tensor_of(dctx *c, fx_node *n);
fx_arg *dc_value_of(dctx *c, const fx_node *n);
fx_arg *dc_conv(dctx *c, const fx_arg *a);
const fx_value *dc_meta_of(const fx_arg *a);
bool dc_is_none(const fx_arg *a);
fx_node *dc_emit(dctx *c, const char *target, fx_arg **args, size_t na, const char **kn, fx_arg **kv,
                     size_t nk, const char *name);
fx_value *dc_merge_meta(dctx *c, const fx_value *want, const fx_value *inferred);
void dc_register_view(dctx *c, fx_node *m);
void dc_take_items(dctx *c, fx_node *m);
fx_node *dc_call_node(dctx *c, const char *target, fx_arg **args, size_t na, const fx_value *want);
void dc_bind(binding *b, const char *schema, const fx_arg *args, const fx_arg *kwargs, const fx_value *out);
fx_arg *dc_operand(dctx *c, const binding *b, hashmap *locals, const char *s, const char *e, bool *absent);
bool dc_holds(dctx *c, const binding *b, const char *when);
fx_arg *dc_expand(dctx *c, const char *target, const char *body, const binding *b, hashmap *locals);
fx_arg *dc_call(dctx *c, const char *target, fx_arg *args, fx_arg *kwargs, const fx_value *want);
/* target(na arguments... | nk kwargs) through the table, for the C decompositions; the node it
 * gives, NULL (and c->failed) otherwise; a NULL argument (an earlier failure) gives NULL */
fx_node *dc_callv(dctx *c, const char *target, const char **kn, fx_arg **kv, size_t nk, size_t na, ...);

/* ---- what the C decompositions build with ------------------------------------------------- */

/* target(args... | kn/kv kwargs) through the table, the array form of dc_callv: the node it
 * gives, NULL (and c->failed) otherwise. */
fx_node *dc_calla(dctx *c, const char *target, fx_arg **args, size_t na, const char **kn, fx_arg **kv, size_t nk);
/* aten.<target>(args...) through the table, as an argument of the new graph; NULL after a failure
 * or when an argument is NULL (an earlier failure), so a chain of calls needs one check. */
#define DC_OP(c, target, ...) dc_nd(c, dc_callv(c, "torch.ops.aten." target, NULL, NULL, 0, \
                                                sizeof((fx_arg *[]){ __VA_ARGS__ }) / sizeof(fx_arg *), __VA_ARGS__))
/* n as an argument of the new graph; NULL stays NULL (an earlier failure). */
static inline fx_arg *dc_nd(dctx *c, fx_node *n) { return n ? fx_arg_node(c->dst, n) : NULL; }
/* The Python int v in the new graph. */
static inline fx_arg *dc_int(dctx *c, int64_t v) { return fx_arg_int(c->dst, v); }
/* dc_dup, but NULL stays NULL (an earlier failure) instead of becoming None. */
static inline fx_arg *dc_dup_null(dctx *c, const fx_arg *a) { return a ? dc_dup(c, a) : NULL; }
/* The int list v[0..n) in p. */
static inline fx_arg *dc_int_list(fx_program *p, const int64_t *v, size_t n)
{
    fx_arg **items = fx_alloc(p, (n ? n : 1) * sizeof *items);
    for (size_t i = 0; i < n; i++)
        items[i] = fx_arg_int(p, v[i]);
    return fx_arg_seq(p, FX_ARG_LIST, items, NULL, n);
}
/* An int argument; false when a is absent or not an int. */
static inline bool dc_int_of(const fx_arg *a, int64_t *v)
{
    if (!a || a->kind != FX_ARG_INT)
        return false;
    *v = a->u.i;
    return true;
}
/* A Python number (int, float or bool) as a double; false when a is absent or not a number. */
static inline bool dc_num_of(const fx_arg *a, double *v)
{
    if (a && a->kind == FX_ARG_INT)
        *v = (double)a->u.i;
    else if (a && a->kind == FX_ARG_FLOAT)
        *v = a->u.f;
    else if (a && a->kind == FX_ARG_BOOL)
        *v = a->u.b;
    else
        return false;
    return true;
}
/* The same, def when a is absent. */
static inline bool dc_int_or(const fx_arg *a, int64_t def, int64_t *v)
{
    if (a)
        return dc_int_of(a, v);
    *v = def;
    return true;
}
static inline bool dc_num_or(const fx_arg *a, double def, double *v)
{
    if (a)
        return dc_num_of(a, v);
    *v = def;
    return true;
}
/* Python-style dimension wrapping (-1 = last) of *d into [0, rank); a 0-d tensor accepts 0 and -1. */
static inline bool dc_wrap_dim(int64_t *d, size_t rank)
{
    int64_t r = rank ? (int64_t)rank : 1;
    if (*d < 0)
        *d += r;
    return *d >= 0 && *d < r;
}

/* ---- C decompositions (a rule's `builtin:`) -------------------------------------------------- */

/* One C decomposition: the name a rule's builtin: gives, and its function, which returns NULL
 * when the arguments are not static enough (the rule does not apply) or after an error
 * (c->failed). */
typedef struct dc_builtin_entry {
    const char *name;
    fx_arg *(*fn)(dctx *c, const binding *b);
} dc_builtin_entry;
/* The families, one table each next to its functions; decomp_builtins.c lists them. */
extern const builtin_family dc_lists_builtins;      /* decomp_lists.c: broadcast_tensors, meshgrid, ... */
extern const builtin_family dc_loss_builtins;       /* decomp_loss.c: cosine_embedding_loss, multi_margin_loss, ... */
extern const builtin_family dc_upsample_builtins;   /* decomp_upsample.c: upsample_nearest_exact1d/2d/3d(_vec), ... */
extern const builtin_family dc_quantile_builtins;   /* decomp_quantile.c: quantile, nanquantile */
extern const builtin_family dc_pool_builtins;       /* decomp_pool.c: adaptive_avg_pool1d/2d */
/* decomp_builtins.c: the entry named name (one hash probe), NULL when none. */
const dc_builtin_entry *dc_find_builtin(const char *name);
/* Whether a rule may name name as its builtin: (the tables' load-time check). */
bool dc_builtin_exists(const char *name);
/* The registered name nearest to a mistyped one (for a hint), or NULL. */
const char *dc_builtin_suggest(const char *name);
/* The name registered by two families, NULL when none (a unit test keeps it NULL). */
const char *dc_builtin_duplicate(void);
/* Runs rule r's builtin on the bound arguments. */
fx_arg *dc_builtin(dctx *c, const decomp_rule *r, const binding *b);

#endif
