/* ops.h — the op registry: ATen schemas and ONNX lowerings loaded from YAML tables (share/fxsh/translate).
 *
 * A rule maps one ATen overload ("aten.linear.default") to a lowering written in ONNX text syntax
 * (a function body), starting at an opset; a rule for a higher opset overrides the lower one for
 * targets >= that opset. A rule may instead name a builtin C lowering (HOPs) that the translate
 * pass implements. Rules are chosen among alternatives with simple `when:` conditions.
 *
 * Ownership: the registry owns every rule, schema and lowering (one arena); pointers returned by
 * ops_lookup and friends stay valid until ops_registry_free. Loading never prints: problems go to
 * the diag_sink with file:line:col. */
#ifndef FXSH_TABLES_OPS_H
#define FXSH_TABLES_OPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "proto/onnx.pb-c.h"

/* ---- ATen schemas: "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" ---- */

typedef enum aten_base_type {
    ATY_TENSOR, ATY_INT, ATY_SYMINT, ATY_FLOAT, ATY_BOOL, ATY_STR, ATY_SCALAR,
    ATY_SCALARTYPE, ATY_LAYOUT, ATY_DEVICE, ATY_MEMFMT, ATY_OTHER
} aten_base_type;

typedef struct aten_arg {
    const char *name;
    const char *type_text;   /* as written, e.g. "Tensor?[]", "int[2]" */
    aten_base_type base;
    bool optional;           /* T? : may be None */
    bool is_list;            /* T[] / T[N] */
    bool kwarg_only;         /* after the '*' */
    bool has_default;
    const char *default_text;/* e.g. "None", "1", "[0, 0]", "False" (NULL if none) */
} aten_arg;

typedef struct aten_schema {
    const char *name;        /* "add" */
    const char *overload;    /* "Tensor", "" for default */
    aten_arg *args;
    size_t nargs;
    aten_arg *rets;          /* names may be NULL */
    size_t nrets;
    const char *text;        /* the schema as written */
} aten_schema;

/* Parses text into *out (strings in a). On error reports at loc (col adjusted to the offending
 * character) and returns false. */
bool aten_schema_parse(arena *a, const char *text, aten_schema *out, diag_sink *d, diag_loc loc);
/* Index of the argument named name, or -1. */
int aten_schema_find(const aten_schema *s, const char *name);

/* ---- `when:` conditions ---- */

typedef enum cond_kind {
    COND_RANK,        /* rank(arg) OP n, or rank(arg) OP rank(arg2) [+ n | - n] */
    COND_IS_NONE,     /* arg is None */
    COND_IS_SCALAR,   /* is_scalar(arg): a Python number/bool, not a tensor */
    COND_IS_LIST,     /* is_list(arg) */
    COND_IS_TENSOR,   /* is_tensor(arg) */
    COND_DTYPE,       /* dtype(arg) OP name  (name: float32, int64, ..., or floating / integer / complex) */
    COND_EQ_LITERAL,  /* arg OP literal (int, float, "string", True/False) */
    COND_LEN,         /* len(arg) OP n  (list arguments) */
    COND_PRED         /* a predicate of the pass's own (cond_pred): name(arg, ...) or a bare name */
} cond_kind;

typedef enum cond_op { COP_EQ, COP_NE, COP_LT, COP_LE, COP_GT, COP_GE } cond_op;
/* a OP b */
bool cond_op_holds(cond_op op, double a, double b);
/* dtype(x) == want: have is a torch dtype name without "torch." ("float32", NULL if unknown), want
 * one too or floating / integer / complex */
bool cond_dtype_matches(const char *have, const char *want);

typedef struct cond_clause {
    cond_kind kind;
    bool negate;
    int arg;                 /* index into the schema's args */
    int arg2;                /* COND_RANK against another argument's rank (+ ival), else -1 */
    cond_op op;
    long long ival;
    const char *sval;        /* dtype name or literal text */
    int pred;                /* COND_PRED: index into the pass's cond_pred table */
    int *pargs;              /* COND_PRED: its arguments' schema indices */
    size_t npargs;
} cond_clause;

/* A predicate a pass adds to the `when:` language (decompose: has_rank(x), static_shape, ...),
 * which only that pass can evaluate: its name and how many schema arguments it takes (-1: one
 * or more; 0: written bare, without parentheses). */
typedef struct cond_pred {
    const char *name;
    int nargs;
} cond_pred;

/* ---- Lowerings: an ONNX-text function body used as a template ---- */

typedef enum low_attr_type {
    LAT_INFER, LAT_INT, LAT_FLOAT, LAT_STRING, LAT_INTS, LAT_FLOATS, LAT_STRINGS, LAT_TENSOR
} low_attr_type;

typedef struct low_attr {
    const char *name;
    low_attr_type type;      /* declared type (LAT_INFER if omitted and a @ref) */
    const char *ref;         /* "@dim" → "dim" (a schema arg), or NULL for a literal */
    const char *ref_fn;      /* for a @ref to a rule's `derive:` entry (pads: pads(padding)): the
                              * function (pads = list doubled, begins then ends; len; neg_len =
                              * -len(list); nonneg = list with negative entries + len(list), as
                              * permute's dims; out_dtype = ONNX type of the node's result, no
                              * argument) applied to schema arg ref_arg; NULL for a plain @ref */
    int ref_arg;             /* index of ref in the schema args, -1 for literals and out_dtype() */
    long long ref_offset;    /* a rank(x) - 1 derive entry's -1 */
    /* literal value (type says which) */
    long long i;
    double f;
    const char *s;
    long long *ints;
    double *floats;
    const char **strings;
    size_t count;
} low_attr;

typedef struct low_node {
    const char **outs;       /* value names local to the lowering ("" = unused output) */
    size_t nouts;
    const char *domain;      /* "" for the default ONNX domain */
    const char *op_type;
    low_attr *attrs;
    size_t nattrs;
    const char **ins;        /* "" = omitted optional input */
    size_t nins;
    int line, col;
} low_node;

typedef struct lowering {
    cond_clause *when;       /* all must hold; none = always */
    size_t nwhen;
    const char *when_text;   /* NULL if no condition */
    const char *builtin;     /* a C lowering's name instead of a body, or NULL */
    const char *refuse;      /* an alternative that stops with this message (no ONNX form), or NULL */
    const char *fn_name;
    const char **params;     /* function inputs: schema arg names */
    int *param_args;         /* their schema arg indices */
    size_t nparams;
    const char **results;    /* function outputs, in order of the op's results */
    size_t nresults;
    low_node *nodes;
    size_t nnodes;
    const char *text;        /* the lowering as written (for `ops show`) */
    int line;                /* where it starts in its file */
    /* A `function:` lowering: torchlib's function (an onnxscript FunctionProto) in ONNX text,
     * which translate inlines as torch.onnx's inliner does, keeping its value and node names.
     * params / results are its inputs and outputs (nnodes is 0); fn_attrs binds each of its
     * attributes to a schema argument or derive entry (name, ref_arg, ref_fn as a @ref has). */
    const Onnx__FunctionProto *function;
    low_attr *fn_attrs;
    size_t nfn_attrs;
} lowering;

/* A rule's `derive:` entry: an attribute value computed from a schema argument, so that the
 * lowering itself stays plain ONNX text (`pads: ints = @pads`). rank(x) [+ n | - n] is the Python
 * int torchlib computes from len(x.shape): an int attribute, or `Python <value: int = @r>`. */
typedef struct ops_derived {
    const char *name;        /* "pads" */
    const char *fn;          /* "pads", "len", "neg_len", "nonneg", "spatial_shape", "out_dtype", "rank" */
    int arg;                 /* schema argument index; -1 for out_dtype() */
    long long offset;        /* rank(x) - 1: -1; 0 otherwise */
} ops_derived;

typedef struct op_rule {
    const char *target;      /* "aten.linear.default" (no "torch.ops." prefix) */
    int since_opset;
    aten_schema schema;      /* nargs == 0 and text NULL when a builtin has no schema */
    bool has_schema;
    lowering *alts;          /* tried in order; the first whose conditions hold wins */
    size_t nalts;
    ops_derived *derived;
    size_t nderived;
    /* `merge_dims:` int-list arguments built as torchlib's common_ops.merge_dims builds them (a
     * Constant per element, then Concat), at their first use; bit i = schema argument i */
    uint64_t merge_dims;
    uint64_t merge_dims_minus_one_as_one;   /* of those, a constant -1 becomes 1 (aten_expand) */
    const char *doc;
    const char *file;
    int line;
    struct op_rule *older;   /* same target, lower since_opset (or replaced earlier load) */
} op_rule;

typedef struct ops_registry {
    arena arena;
    hashmap by_target;       /* target → newest-opset op_rule (chain via older) */
    const char **targets;    /* distinct targets in first-load order (for listing) */
    size_t ntargets, targets_cap;
    /* The C lowerings a `builtin:` may name and the nearest to a mistyped one (translate's, set by
     * translate_registry_init); NULL: any name loads, and an unknown one fails when translated. */
    bool (*builtin_exists)(const char *name);
    const char *(*builtin_suggest)(const char *name);
} ops_registry;

void ops_registry_init(ops_registry *r);
void ops_registry_free(ops_registry *r);

/* Loads the YAML rules in text (name is the file name used in diagnostics). Rules of a later load
 * replace earlier ones with the same target and opset. Returns false (and loads nothing from
 * this text) on any error. */
bool ops_load_string(ops_registry *r, const char *name, const char *text, size_t len, diag_sink *d);
bool ops_load_file(ops_registry *r, const char *path, diag_sink *d);
/* Loads every *.yaml in dir, in name order. */
bool ops_load_dir(ops_registry *r, const char *dir, diag_sink *d);
/* Loads the tables shipped with fxsh: $FXSH_SHAREDIR/ops, else the installed pkgdatadir/ops,
 * else the source tree's share/fxsh/translate. */
bool ops_load_default(ops_registry *r, diag_sink *d);

/* target may carry the "torch.ops." prefix. Returns the rule in force at opset, or NULL. */
const op_rule *ops_lookup(const ops_registry *r, const char *target, int opset);

/* What a condition needs to know about one bound argument at translation time. */
typedef enum arg_kind { ARGK_NONE, ARGK_TENSOR, ARGK_INT, ARGK_FLOAT, ARGK_BOOL, ARGK_STR,
                        ARGK_LIST, ARGK_DTYPE, ARGK_OTHER } arg_kind;
typedef struct arg_info {
    arg_kind kind;
    int rank;                /* tensors: -1 if unknown */
    const char *dtype;       /* tensors and ScalarType arguments: torch dtype name without "torch."
                              * ("float32"), or NULL */
    long long ival;          /* ints and bools */
    double fval;
    const char *sval;
    size_t len;              /* lists: element count */
} arg_info;

/* The first alternative of rule whose conditions hold for args (one per schema arg), or NULL. */
const lowering *ops_select(const op_rule *rule, const arg_info *args);

/* Listing for the REPL `ops` command: one line per target with its opsets. */
void ops_print_list(const ops_registry *r, strbuf *out);
/* The same list as a JSON array: [{"target", "opsets": [newest first], "builtin" or null}]. */
struct json_writer;
void ops_list_json(const ops_registry *r, struct json_writer *w);
/* `ops show TARGET`: every rule for target (all opsets) as YAML. false if unknown. */
bool ops_print_rule(const ops_registry *r, const char *target, strbuf *out);

/* ONNX-text lowering parser (a subset: one function, nodes with literal or @ref attributes).
 * schema may be NULL (then @refs and params are not resolved); @refs may also name derived
 * entries. Errors at base line/col. */
bool lowering_parse(arena *a, const char *text, const aten_schema *schema, const ops_derived *derived,
                    size_t nderived, lowering *out, diag_sink *d, const char *file, int base_line, int base_col);
/* A `function:` lowering (lowering_function.c): text is one ONNX function whose inputs and
 * attributes are schema arguments (attributes may also be derive entries). Errors at base
 * line/col. */
bool lowering_parse_function(arena *a, const char *text, const aten_schema *schema, const ops_derived *derived,
                             size_t nderived, lowering *out, diag_sink *d, const char *file, int base_line,
                             int base_col);
/* `when:` text (clauses joined by " and ", see share/fxsh/translate/core.yaml) into out's
 * conditions; errors at loc (the column of text's first character). */
bool cond_parse(arena *a, const char *text, const aten_schema *schema, lowering *out,
                diag_sink *d, diag_loc loc);
/* The same language with the pass's own predicates (npreds of them; none for translate): the
 * clauses into *out (n of them, in a). */
bool cond_parse_clauses(arena *a, const char *text, const aten_schema *schema, const cond_pred *preds,
                        size_t npreds, cond_clause **out, size_t *n, diag_sink *d, diag_loc loc);

#endif
