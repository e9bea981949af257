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
#include "tables/ops.h"
#include "tables/pass_tables.h"

/* The decomposition tables (share/fxsh/decompose/core.yaml documents the rule syntax). */
enum { T_DEFAULT = 1, T_ONNX = 2 };

/* ---- rules compiled when their files load (decompose_compile.c) ---- */

typedef enum dc_opk {
    DK_LIT,       /* a literal (lit) */
    DK_ARG,       /* a schema argument (index) */
    DK_LOCAL,     /* a template local (index: its slot) */
    DK_LIST,      /* "[a, b]" (items) */
    DK_HELPER,    /* "@name(args)" (index into the helpers; items: its arguments) */
    DK_STAR       /* "*" / "*1": the source's positional arguments from index */
} dc_opk;

typedef struct dc_opnd {
    dc_opk kind;
    int index;
    bool optional;            /* "arg?": omitted, with what follows, when the source did not give it */
    bool names_arg;           /* the text is a schema argument's name: as a keyword, a None is dropped */
    const fx_arg *lit;        /* DK_LIT (NULL for a helper's word argument, as finfo_or's max) */
    struct dc_opnd *items;
    size_t n;
    const char *text;         /* as written, for diagnostics */
} dc_opnd;

/* One statement of a body: "[local =] target(positional | key=value)", or a value (an operand,
 * or a tuple "(a, b)") that is the result. */
typedef struct dc_stmt {
    int local;                /* the slot it binds, -1 for none */
    const char *target;       /* "torch.ops.aten.mm.default", "operator.getitem"; NULL: a value */
    dc_opnd *pos;
    size_t npos;
    const char **kn;
    dc_opnd *kv;
    size_t nk;
    dc_opnd value;            /* a value statement (a tuple is DK_LIST with tuple set) */
    bool tuple;
} dc_stmt;

typedef struct dc_body {
    dc_stmt *stmts;
    size_t n;
    size_t nlocals;           /* slots; a view inverse's base and mutated are 0 and 1 */
} dc_body;

/* A rule's schema: torch's (share/fxsh/aten/schemas.txt) or the rule's own `schema:`. */
typedef struct dc_schema {
    aten_schema s;
    const char **names;
    const fx_arg **defs;      /* each argument's default as an argument tree, NULL for none */
    size_t n;
} dc_schema;

typedef struct dc_when {
    cond_clause *cl;          /* all must hold */
    size_t n;
    const fx_arg **lits;      /* COND_EQ_LITERAL's value, read once */
} dc_when;

typedef struct decomp_rule {
    unsigned tables;
    const char *target;       /* "aten.linear.default" */
    const dc_schema *schema;
    dc_when when;
    dc_body body;             /* no statements for a builtin */
    const char *builtin;      /* "matmul", or NULL */
    int next;                 /* next rule with the same target, -1 at the end */
} decomp_rule;

/* A view op (share/fxsh/decompose/views.yaml): how to write a mutated view back into its base. */
typedef struct view_rule {
    const dc_schema *schema;
    dc_body inverse;          /* over the view's arguments, `base` and `mutated` */
    bool has_inverse;         /* false: writing through the view is refused */
    bool multi;               /* returns a list of views (split, unbind) */
} view_rule;

typedef struct dc_rules {
    arena a;
    fx_program *lits;         /* literal trees of the rules */
    decomp_rule *rules;
    size_t n_rules;
    hashmap rule_by_target;   /* target -> (void *)(intptr_t)(first index + 1) */
    view_rule *views;
    size_t n_views;
    hashmap view_by_target;   /* target -> view_rule* */
} dc_rules;

/* The rules of the two tables compiled (every `when:`, body and inverse checked against its
 * schema, the helpers and the operators it calls); NULL after reporting each problem at its
 * file:line. Free with dc_rules_free. */
dc_rules *dc_rules_compile(const pass_table *rules, const pass_table *views, diag_sink *d);
void dc_rules_free(dc_rules *r);
/* share/fxsh/decompose compiled once per process (owned by decompose_compile.c); NULL after
 * reporting. */
const dc_rules *dc_rules_shipped(diag_sink *d);

/* The when-language predicates decompose adds (dc_preds[DP_...]). */
enum { DP_STATIC_SHAPE, DP_HAS_RANK, DP_CONTIGUOUS, DP_VIEWABLE, DP_LAST_STRIDE_1, DP_IS_DTYPE,
       DP_SAME_SYMMETRIC, DP_DIVISIBLE, DP_SAME_SHAPE, DP_COUNT };
extern const cond_pred dc_preds[DP_COUNT];

/* decompose_template.c's @helpers: the index of name taking np arguments, -1 if none; whether
 * its argument i is a word (finfo_or's max / min) rather than a value. */
int dc_helper_find(const char *name, size_t len, size_t np);
bool dc_helper_word_arg(int helper, size_t i);
const char *dc_helper_name(int helper);

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
    const fx_node *counted;   /* the source node emitted_for counts for */
    uint64_t emitted_for;     /* nodes emitted for it (FXSH_MAX_DECOMP_NODES) */
    uint64_t max_emitted;     /* 0: not read yet */
    const char *unknown;      /* the @dc_operand a template could not compute, for the diagnostic */
    hashmap vals;             /* source node name -> fx_arg* for values that are not tensors */
    hashmap tens;             /* source node name -> fz_tensor* */
    hashmap by_node;          /* emitted node name -> fz_tensor* whose value it is (finds a view's base) */
    hashmap lists;            /* emitted multi-output view node name -> fz_tensor* of its input */
    hashmap items;            /* emitted multi-output node name -> fx_node** of its getitems */
    fz_state fz;
    const meta_rules *meta;   /* the meta of what is emitted (share/fxsh/meta; shared, read-only) */
    const dc_rules *rs;       /* share/fxsh/decompose, compiled once per process */
} dctx;


/* A call bound to a rule's schema (any number of arguments). */
typedef struct binding {
    const char *const *names; /* the schema's argument names */
    const fx_arg **src;       /* bound value (in the new graph), NULL if not given */
    const fx_arg *const *defs;/* their defaults (dc_schema), NULL for none */
    size_t n;
    const fx_arg *args;       /* the dc_call's positional arguments, for "*" */
    const fx_value *out;      /* the dc_call's output meta (@shape, static_shape) */
    int64_t out_index;        /* view inverses: the output of a multi-output view */
} binding;



/* the tables (compiled once per process) and the meta rules; false after reporting */
bool dc_load_rules(dctx *c);
const char *dc_table_key(const char *target);
fx_arg *dc_dup(dctx *c, const fx_arg *a);
void dc_fail(dctx *c);
/* One more call for the current source node, within FXSH_MAX_DECOMP_NODES (base/limits.h) and not
 * cancelled: false (c->failed) after reporting, once, what the decomposition would unroll. */
bool dc_within_budget(dctx *c);
/* Whether an unroll of n more nodes fits the budget, checked before it starts (reported as
 * dc_within_budget reports it): a huge one fails at once instead of after the budget's worth. */
bool dc_reserve(dctx *c, uint64_t n);
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
void dc_bind(dctx *c, binding *b, const dc_schema *s, const fx_arg *args, const fx_arg *kwargs, const fx_value *out);
bool dc_holds(dctx *c, const binding *b, const dc_when *when);
/* Runs a compiled body; locals holds body->nlocals slots (a view inverse presets base and
 * mutated). The value that replaces the call, NULL if it does not apply or after an error. */
fx_arg *dc_expand(dctx *c, const char *target, const dc_body *body, const binding *b, fx_arg **locals);
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
