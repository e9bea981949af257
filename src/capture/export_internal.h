/* export_internal.h — what the export pass shares with its module builders (export_*.c): the
 * pass context, its tables and the emit helpers. Not a public API.
 *
 * Ownership: everything an xctx hands out lives in the destination program's arena (x->dst). */
#ifndef FXSH_CAPTURE_EXPORT_INTERNAL_H
#define FXSH_CAPTURE_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/builtin.h"
#include "base/diag.h"
#include "base/hashmap.h"
#include "fx/fx_build.h"
#include "fx/fx_ir.h"
#include "capture/export.h"
#include "tables/pass_tables.h"

enum { MAX_SARGS = 12 };

/* One argument of a schema string "self,dim:i*,keepdim=False,*,dtype=None". */
typedef struct sarg {
    char name[32];
    char type[8];       /* "" any, "iN" int list of N (scalar repeated), "i*" int list, "list" varargs */
    const char *def;    /* default text, NULL if required */
    size_t def_len;
    bool kwonly;
} sarg;

typedef struct xctx xctx;

typedef struct module_spec {
    const char *type;
    const char *params, *buffers;
    const char *target, *inplace_target;
    const char *schema;
    const char *args;
    const char *builtin;    /* a C builder's name, for what one aten call cannot express */
    const char *shapes;     /* weight shapes from the repr: "weight=[%out_features|1, ...] ..." */
    /* builds the nodes for call_module node n of module m; reports and returns false on failure */
    bool (*build)(xctx *x, const fx_node *n, const fx_module *m);
} module_spec;

enum { F_FN = 1, F_METH = 2, F_OP = 4 };

typedef struct op_spec {
    const char *name;
    unsigned where;
    const char *target;
    const char *schema;
    const char *need;       /* this overload applies only when argument `need` is given */
    const char *extra;      /* "name=value ..." arguments the callee passes itself */
    bool assert_metadata;   /* torch.export checks self's metadata before this op */
    int next;               /* next entry with the same name, -1 at the end */
    bool returns_list;
} op_spec;

typedef struct xval {
    fx_arg *arg;            /* the value in the new graph */
    bool is_list;           /* a list/tuple-returning op: indexing it is operator.getitem */
    fx_node *shape_of;      /* getattr(x, "shape"): the new node whose shape this is */
} xval;

struct xctx {
    const fx_program *src;
    fx_program *dst;
    fx_graph *g;
    const export_options *opt;
    diag_sink *d;
    hashmap vals;           /* source node name -> xval* */
    hashmap weights;        /* fqn -> placeholder fx_node* */
    const fx_node *cur;     /* source node being exported (diagnostics) */
    fx_namer nm;
    bool cur_module;        /* emitting a module template */
    const pass_table *tbl;  /* share/fxsh/capture (tables_pass: parsed once per process) */
    module_spec *mods;
    size_t n_mods;
    hashmap mod_by_type;    /* type -> module_spec* */
    op_spec *ops;
    size_t n_ops;
    hashmap op_by_name;     /* name -> (void *)(intptr_t)(first index + 1) */
    struct meta_inferer *mi; /* fills each emitted node's value meta (meta/meta_infer.h) */
    void (*names_only)(const char *fqn, void *ctx);   /* export_weight_names: list, do not lift */
    void *names_ctx;
};

/* Where the source node being exported is (its line in the graph text). */
diag_loc xp_loc(xctx *x);
/* A source argument in the new graph (node references resolve to their current value);
 * clears *ok after reporting a value that is not available. */
fx_arg *xp_conv_arg(xctx *x, const fx_arg *a, bool *ok);
/* The value of source node src_name is now a (a node, a constant, or a tuple of them). */
void xp_set_val(xctx *x, const char *src_name, fx_arg *a);
/* Emits target(pos..., kw...) normalised against its schema ("self,dim=0,*,out=None");
 * name_base overrides the node name derived from the target. NULL after reporting. */
fx_node *xp_emit_call_named(xctx *x, const char *name_base, const char *target, const char *schema,
                            fx_arg **pos, size_t npos, const char **kwn, fx_arg **kwv, size_t nkw);
fx_node *xp_emit_call(xctx *x, const char *target, const char *schema, fx_arg **pos, size_t npos,
                      const char **kwn, fx_arg **kwv, size_t nkw);
/* Emits a call of a Python callable ("operator.getitem", "operator.mul") with positional args. */
fx_node *xp_emit_python(xctx *x, const char *name_base, const char *target, fx_arg **args, size_t n);
/* Size i of new-graph tensor t: an int when its value meta knows it, else a sym_size node
 * (NULL after reporting). */
fx_arg *xp_dim_value(xctx *x, fx_node *t, int64_t i);
/* The lifted placeholder of parameter/buffer path.name, None when the module has none. */
fx_arg *xp_weight_arg(xctx *x, const char *path, const char *name);
/* A module's configuration as "Type(args)" (its one-line repr, or the extra_repr lines of a
 * multi-line one); NULL when the text shows none. */
const char *xp_module_config(xctx *x, const fx_module *m);

/* export_emit.c: the schema string's arguments (at most MAX_SARGS) into out; their count. */
size_t xp_parse_schema(const char *s, sarg *out);
/* a in the form schema argument s expects (an int list of N from a scalar, ...). */
fx_arg *xp_coerce(fx_program *p, fx_arg *a, const sarg *s);
/* a as Python source text (for messages and defaults). */
void xp_arg_text(const fx_arg *a, char *buf, size_t cap);
/* torch.export's check of self's metadata before some ops (aten._assert_tensor_metadata). */
bool xp_emit_metadata_assert(xctx *x, fx_arg *self);

/* export_tables.c: builds x's module and op tables from share/fxsh/capture; frees them. */
bool xp_load_tables(xctx *x);
void xp_free_tables(xctx *x);
const module_spec *xp_find_module_spec(xctx *x, const char *type);

/* export_module.c: lifts m's parameters (or buffers) and its children's as placeholders; inlines
 * call_module node n. Both report and return false on failure. */
bool xp_lift_module(xctx *x, const fx_module *m, const char *prefix, fx_tensor_role role);
bool xp_module_call(xctx *x, const fx_node *n, bool *ok);
/* A tensor read with get_attr from the root: lifted as a root parameter. */
void xp_lift_root_attr(xctx *x, const char *name);

/* export_call.c: call_function / call_method node n (torch functions, tensor methods, operators). */
bool xp_function_call(xctx *x, const fx_node *n, bool *ok);

/* ---- C module builders (a module entry's `builtin:`) ---------------------------------------- */

/* One C builder: the name nn.yaml's builtin: gives, and the function that builds the nodes of a
 * call_module node (it reports and returns false on failure). */
typedef struct xp_builder_entry {
    const char *name;
    bool (*build)(xctx *x, const fx_node *n, const fx_module *m);
} xp_builder_entry;
/* The families, one table each at the end of its file; export_tables.c lists them. */
extern const builtin_family xp_mha_builders;   /* export_mha.c: multihead_attention */
/* The builder named name (one hash probe), NULL when none. */
const xp_builder_entry *xp_find_builder(const char *name);
/* The name registered by two families, NULL when none (a unit test keeps it NULL). */
const char *xp_builder_duplicate(void);

#endif
