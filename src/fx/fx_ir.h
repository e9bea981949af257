/* fx_ir.h — the FX IR: a GraphModule tree of graphs, nodes, argument trees and meta.
 *
 * Ownership: everything reachable from an fx_program (modules, graphs, nodes, args, meta,
 * strings, signature, weights table) lives in the program's arena and is released at once by
 * fx_program_free(). Strings passed to the construction API are copied into the arena.
 * The only non-arena memory is each graph's name map (freed by fx_program_free) and weight
 * weights' fmap references (base/fmap.h): owned (malloc'd) weight data is adopted into an fmap,
 * and data inside a file mapping holds a reference to it, both dropped by fx_program_free; other
 * borrowed weight data is never freed.
 * Functions returning pointers into the program return borrowed pointers valid until the
 * program (or, for nodes, the node) is freed. */
#ifndef FXSH_FX_IR_H
#define FXSH_FX_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "base/fmap.h"
#include "base/hashmap.h"

/* ---- dtypes ---------------------------------------------------------------------------- */

typedef enum fx_dtype {
    FX_DT_UNKNOWN = 0,
    FX_DT_F32, FX_DT_F64, FX_DT_F16, FX_DT_BF16,
    FX_DT_F8E4M3FN, FX_DT_F8E5M2, FX_DT_F8E4M3FNUZ, FX_DT_F8E5M2FNUZ, FX_DT_F8E8M0FNU,
    FX_DT_F4E2M1FNX2,
    FX_DT_C32, FX_DT_C64, FX_DT_C128,
    FX_DT_I8, FX_DT_I16, FX_DT_I32, FX_DT_I64,
    FX_DT_U8, FX_DT_U16, FX_DT_U32, FX_DT_U64,
    FX_DT_BOOL, FX_DT_BITS16, FX_DT_BITS1X8,
    FX_DT_COUNT
} fx_dtype;

typedef struct fx_dtype_info {
    fx_dtype dtype;
    const char *torch_name;   /* "torch.float32" */
    const char *abbr;         /* "f32" (torch/utils/_dtype_abbrs.py) */
    size_t elem_size;         /* bytes; 0 for sub-byte packed types counted per element pair */
    int onnx_type;            /* TensorProto.DataType number, 0 = UNDEFINED */
} fx_dtype_info;

const fx_dtype_info *fx_dtype_get(fx_dtype dt);         /* never NULL (UNKNOWN row for bad input) */
fx_dtype fx_dtype_from_torch_name(const char *s, size_t n);  /* "torch.float32" / "float32"; UNKNOWN if not */
fx_dtype fx_dtype_from_abbr(const char *s, size_t n);        /* "f32" → F32; UNKNOWN if not */
fx_dtype fx_dtype_from_onnx(int onnx_type);
/* c10's ScalarType number (how torch's schemas print a dtype default: dtype=4 is int64); UNKNOWN if not one. */
fx_dtype fx_dtype_from_c10_number(int64_t n);

/* ---- opcodes and forms ----------------------------------------------------------------- */

typedef enum fx_opcode {
    FX_OP_PLACEHOLDER, FX_OP_GET_ATTR, FX_OP_CALL_FUNCTION, FX_OP_CALL_METHOD,
    FX_OP_CALL_MODULE, FX_OP_OUTPUT, FX_OP_COUNT
} fx_opcode;

const char *fx_opcode_name(fx_opcode op);                     /* "call_function" */
bool fx_opcode_from_name(const char *s, size_t n, fx_opcode *out);

/* The text forms a program can be loaded from / printed as. */
typedef enum fx_form {
    FX_FORM_GRAPH,     /* print(gm.graph) */
    FX_FORM_CODE,      /* gm.print_readable() */
    FX_FORM_MODULE,    /* print(gm) */
    FX_FORM_TABULAR,   /* gm.graph.print_tabular() (print only) */
    FX_FORM_EXPORT,    /* torch.export program (.pt2 / JSON); printed as its readable code */
    FX_FORM_PROGRAM    /* print(ep) text: readable code, graph signature, range constraints */
} fx_form;

/* ---- argument trees -------------------------------------------------------------------- */

typedef struct fx_node fx_node;
typedef struct fx_graph fx_graph;
typedef struct fx_module fx_module;
typedef struct fx_program fx_program;

typedef enum fx_arg_kind {
    FX_ARG_NONE, FX_ARG_NODE, FX_ARG_INT, FX_ARG_FLOAT, FX_ARG_BOOL, FX_ARG_STR,
    FX_ARG_DTYPE,      /* torch.float32 */
    FX_ARG_DEVICE,     /* s = "cpu", "cuda:0" */
    FX_ARG_MEMFMT,     /* s = "contiguous_format" (printed torch.<s>) */
    FX_ARG_LAYOUT,     /* s = "strided" (printed torch.<s>) */
    FX_ARG_LIST, FX_ARG_TUPLE,
    FX_ARG_DICT,       /* keys[] parallel to items[] */
    FX_ARG_SLICE,      /* exactly 3 items: start, stop, step */
    FX_ARG_ELLIPSIS,
    FX_ARG_OPAQUE      /* s printed verbatim in every form */
} fx_arg_kind;

typedef struct fx_arg {
    fx_arg_kind kind;
    union {
        fx_node *node;
        int64_t i;
        double f;
        bool b;
        fx_dtype dtype;
        const char *s;            /* STR, DEVICE, MEMFMT, LAYOUT, OPAQUE */
        struct {
            struct fx_arg **items;
            const char **keys;    /* DICT only */
            size_t len;
        } seq;                    /* LIST, TUPLE, DICT, SLICE */
    } u;
} fx_arg;

/* Constructors (arena-allocated in p). Sequence constructors copy the items/keys arrays. */
fx_arg *fx_arg_none(fx_program *p);
fx_arg *fx_arg_node(fx_program *p, fx_node *n);
fx_arg *fx_arg_int(fx_program *p, int64_t v);
fx_arg *fx_arg_float(fx_program *p, double v);
fx_arg *fx_arg_bool(fx_program *p, bool v);
fx_arg *fx_arg_str(fx_program *p, fx_arg_kind kind, const char *s);  /* STR/DEVICE/MEMFMT/LAYOUT/OPAQUE */
fx_arg *fx_arg_dtype(fx_program *p, fx_dtype dt);
fx_arg *fx_arg_ellipsis(fx_program *p);
fx_arg *fx_arg_seq(fx_program *p, fx_arg_kind kind, fx_arg **items, const char **keys, size_t len);
/* Visits every node reference in a in order (depth first, left to right). */
void fx_arg_each_node(const fx_arg *a, void (*cb)(fx_node *n, void *ctx), void *ctx);

/* Python float repr (shortest round-trip digits, "1.0", "1e-05", "inf", "nan") into buf
 * (needs >= 32 bytes); returns buf. */
char *fx_float_repr(double v, char *buf, size_t cap);

/* ---- value meta ------------------------------------------------------------------------ */

typedef enum fx_value_kind {
    FX_VAL_NONE,
    FX_VAL_TENSOR,
    FX_VAL_SYM,        /* SymInt/SymBool/SymFloat: expr = "u0", "s0 > 4" */
    FX_VAL_TUPLE,
    FX_VAL_OPAQUE      /* an annotation we do not model; text printed verbatim */
} fx_value_kind;

typedef struct fx_value {
    fx_value_kind kind;
    fx_dtype dtype;           /* TENSOR */
    size_t rank;
    const char **sizes;       /* TENSOR: rank dims as text ("4", "s77", "4*s80") */
    const char **strides;     /* TENSOR: rank strides as text, NULL if unknown */
    int64_t storage_offset;   /* TENSOR: elements before its first in its storage (0: none or unknown) */
    const char *device;       /* TENSOR: "cpu", NULL if unknown */
    const char *text;         /* SYM: expression; OPAQUE: verbatim annotation */
    struct fx_value **items;  /* TUPLE */
    size_t n_items;
} fx_value;

typedef struct fx_meta {
    fx_value *val;            /* NULL = no value meta */
    const char *stack_trace;  /* full text, NULL if none */
    const char *source;       /* summary as shown after "# File: ", NULL if none */
    const char *annotation;   /* "# Annotation: <this> File: ..." prefix of the header, NULL if none */
    int trace_group;          /* distinguishes consecutive groups with equal summaries */
    const char *nn_module_stack, *source_fn_stack, *torch_fn;  /* raw text, NULL if none */
} fx_meta;

/* ---- nodes, graphs, modules --------------------------------------------------------------- */

struct fx_node {
    fx_graph *graph;
    fx_node *prev, *next;
    const char *name;
    fx_opcode op;
    const char *target;       /* exactly as FX prints it in graph text */
    fx_arg *args;             /* TUPLE (never NULL for attached nodes) */
    fx_arg *kwargs;           /* DICT (never NULL for attached nodes) */
    const char *type_text;    /* node.type repr for graph text ("Tensor"), NULL if none */
    fx_node **users;          /* distinct users in graph order; recomputed by fx_graph_recompute_users */
    size_t n_users;
    int declared_users;       /* num_users read from text, -1 if unknown */
    size_t index;             /* position in the graph, kept by fx_graph_renumber */
    int src_line;             /* line it was loaded from, 0 if none */
    fx_meta meta;
};

struct fx_graph {
    fx_module *owner;
    fx_node *first, *last;
    size_t n_nodes;
    hashmap names;            /* name -> fx_node* */
    hashmap name_counters;    /* base name -> next suffix to try (fx_graph_unique_name) */
};

/* Parameter / buffer / constant record of a module or of the program weights table. */
typedef enum fx_tensor_role { FX_TENSOR_PARAMETER, FX_TENSOR_BUFFER, FX_TENSOR_CONSTANT } fx_tensor_role;

typedef struct fx_weight {
    struct fx_weight *next;
    const char *fqn;          /* "fc1.weight" (module-relative for module params, full for the table) */
    fx_tensor_role role;
    fx_dtype dtype;
    size_t rank;
    int64_t *shape;
    const void *data;         /* NULL when unknown */
    size_t nbytes;
    bool owned;               /* data was malloc'd: it is then in map (adopted), shared by clones */
    bool persistent;          /* buffers: in the state dict */
    fmap *map;                /* the fmap data lies in (a .pt2's mapping, an adopted heap block),
                               * one reference held by the weight; NULL: data borrowed from an
                               * owner that outlives the program (its arena, a parent program) */
} fx_weight;

struct fx_module {
    fx_program *prog;
    fx_module *parent, *first_child, *last_child, *next_sibling;
    size_t n_children;
    const char *name;         /* attribute name; root: "GraphModule" or the class name */
    const char *type;         /* class name: "Linear", "Sequential", "GraphModule" */
    const char *repr;         /* configuration repr of a leaf: "Linear(in_features=8, ...)", NULL if none */
    const char *extra_repr;   /* extra_repr() text (may hold '\n'), NULL if none */
    fx_graph *graph;          /* NULL for plain (non-GraphModule) submodules */
    fx_weight *params;        /* parameters and buffers, in order */
    fx_weight *params_last;
    hashmap child_names;      /* name -> fx_module* of the direct children */
};

/* ---- torch.export program data --------------------------------------------------------- */

typedef enum fx_input_kind {
    FX_IN_USER_INPUT, FX_IN_PARAMETER, FX_IN_BUFFER, FX_IN_CONSTANT_TENSOR,
    FX_IN_CUSTOM_OBJ, FX_IN_TOKEN
} fx_input_kind;

typedef enum fx_output_kind {
    FX_OUT_USER_OUTPUT, FX_OUT_LOSS_OUTPUT, FX_OUT_BUFFER_MUTATION, FX_OUT_GRADIENT_TO_PARAMETER,
    FX_OUT_GRADIENT_TO_USER_INPUT, FX_OUT_USER_INPUT_MUTATION, FX_OUT_TOKEN,
    FX_OUT_PARAMETER_MUTATION
} fx_output_kind;

const char *fx_input_kind_name(fx_input_kind k);     /* "USER_INPUT" */
const char *fx_output_kind_name(fx_output_kind k);   /* "USER_OUTPUT" */

typedef struct fx_input_spec {
    fx_input_kind kind;
    const char *name;         /* placeholder node name */
    const char *target;       /* FQN, NULL for user inputs */
    bool persistent;          /* buffers */
} fx_input_spec;

typedef struct fx_output_spec {
    fx_output_kind kind;
    const char *name;         /* output value name (node name or constant text) */
    const char *target;       /* FQN / input name for mutations, NULL otherwise */
} fx_output_spec;

typedef struct fx_signature {
    fx_input_spec *inputs;
    size_t n_inputs;
    fx_output_spec *outputs;
    size_t n_outputs;
    bool present;             /* true once a torch.export loader filled it */
} fx_signature;

typedef struct fx_range {
    const char *symbol;       /* "s77" */
    const char *min, *max;    /* text: "2", "int_oo" */
} fx_range;

struct fx_program {
    arena arena;
    fx_module *root;
    fx_form source_form;
    const char *file;         /* where it was loaded from, NULL if unknown */
    fx_signature sig;
    fx_range *ranges;
    size_t n_ranges;
    fx_weight *weights;       /* program weights table (FQN -> tensor), in order */
    fx_weight *weights_last;
    size_t n_weights;
    hashmap weight_names;     /* fqn -> fx_weight* */
};

/* ---- construction API ------------------------------------------------------------------- */

/* New program with a root module of the given name/type (root_name NULL → "GraphModule")
 * and an empty root graph. Free with fx_program_free. */
fx_program *fx_program_new(const char *root_name);
void fx_program_free(fx_program *p);
/* Deep copy (new arena): modules, graphs (node refs remapped, users recomputed), meta,
 * signature, ranges and weights table. Owned weight data is copied; borrowed data stays
 * borrowed from the same owner. Free with fx_program_free. */
fx_program *fx_program_clone(const fx_program *p);
fx_form fx_program_source_form(const fx_program *p);
fx_graph *fx_program_graph(const fx_program *p);          /* root graph */

fx_module *fx_module_add_child(fx_module *parent, const char *name, const char *type, const char *repr);
fx_module *fx_module_child(const fx_module *m, const char *name);   /* NULL if absent */
fx_graph *fx_module_ensure_graph(fx_module *m);
fx_weight *fx_module_add_param(fx_module *m, const char *fqn, fx_tensor_role role, fx_dtype dt,
                               const int64_t *shape, size_t rank);
/* Resolves a dotted path "sub.true_graph_0" from m; NULL if absent. */
fx_module *fx_module_find(const fx_module *m, const char *path);

/* Adds a program weights-table entry (data may be NULL; owned data is freed with p). */
fx_weight *fx_program_add_weight(fx_program *p, const char *fqn, fx_tensor_role role, fx_dtype dt,
                                 const int64_t *shape, size_t rank, const void *data, size_t nbytes,
                                 bool owned);
fx_weight *fx_program_weight(const fx_program *p, const char *fqn);
/* Records that w's data lies inside f (w takes a reference, dropping any it held): the data is
 * then shared, never copied, by clones and by the ONNX models translated from the program. */
void fx_weight_set_map(fx_weight *w, fmap *f);

/* The check every loader runs once before returning a program: no value meta (in any graph)
 * and no weight has a negative size, or sizes whose element count or byte size overflows 64
 * bits (symbolic sizes such as "s77" are not checked). False after reporting the first
 * offender to d, with its node and line. */
bool fx_program_check_shapes(const fx_program *p, diag_sink *d);

/* Creates a detached node (name unique-ified when taken: "add" → "add_1"); args/kwargs are
 * empty tuple/dict. Insert it with one of the functions below. */
fx_node *fx_node_new(fx_graph *g, const char *name, fx_opcode op, const char *target);
void fx_graph_append(fx_graph *g, fx_node *n);
void fx_graph_insert_before(fx_graph *g, fx_node *before, fx_node *n);
void fx_graph_insert_after(fx_graph *g, fx_node *after, fx_node *n);
/* Unlinks n (it must have no users); its name becomes free and it is dropped from its
 * inputs' user lists. Memory stays in the arena. */
bool fx_graph_remove(fx_graph *g, fx_node *n);
void fx_node_set_args(fx_node *n, fx_arg *args_tuple, fx_arg *kwargs_dict);
fx_node *fx_graph_lookup(const fx_graph *g, const char *name);
/* Returns a name not used in g: base, else base_1, base_2, ... (arena string). */
const char *fx_graph_unique_name(fx_graph *g, const char *base);
/* Recomputes users of every node of g from the args/kwargs (distinct users, graph order). */
void fx_graph_recompute_users(fx_graph *g);
void fx_graph_renumber(fx_graph *g);
/* Recomputes users and indexes in every graph of the module tree. */
void fx_program_refresh(fx_program *p);

/* Arena helpers for loaders. */
char *fx_strdup(fx_program *p, const char *s);
char *fx_strndup(fx_program *p, const char *s, size_t n);
void *fx_alloc(fx_program *p, size_t n);
fx_value *fx_value_new(fx_program *p, fx_value_kind kind);
/* The Python type of a symbolic value as torch prints it: FX_DT_BOOL for a SymBool ("Eq(u0, 1)",
 * "s0 > 2", "True"), FX_DT_F64 for a SymFloat ("zuf0", "ToFloat(s0)", "s0/2"), else FX_DT_I64
 * (a SymInt). */
fx_dtype fx_sym_dtype(const char *text);

#endif
