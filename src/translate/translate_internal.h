/* translate_internal.h — what the translate pass's files share: the translation state (tx), scopes, and
 * the helpers that emit ONNX nodes, constants and values (not a public API: see translate.h). */
#ifndef FXSH_TRANSLATE_INTERNAL_H
#define FXSH_TRANSLATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/builtin.h"
#include "base/hashmap.h"
#include "base/vec.h"
#include "translate/translate.h"
#include "translate/translate_meta.h"

enum { OT_FLOAT = 1, OT_UINT8 = 2, OT_INT8 = 3, OT_INT16 = 5, OT_INT32 = 6, OT_INT64 = 7,
       OT_BOOL = 9, OT_FLOAT16 = 10, OT_DOUBLE = 11, OT_BFLOAT16 = 16 };

/* What an FX node translated to: one value, several (multi-output), or a sequence value. */
typedef struct tx_val {
    const char **names;
    size_t n;
    bool seq;                /* one ONNX sequence value (getitem → SequenceAt) */
} tx_val;

typedef struct scope {
    struct scope *parent;
    Onnx__GraphProto *g;
    hashmap vals;            /* fx node name → tx_val* (this graph's nodes only) */
    hashmap consts;          /* constant-farm key → value name, per graph (outer scope order) */
    const fx_graph *fxg;
} scope;

typedef struct tx {
    ox_model *m;
    const fx_program *p;
    const ops_registry *reg;
    int opset;
    diag_sink *d;
    arena a;                 /* scratch: keys, synthesized args */
    hashmap used;            /* every value name in the model → non-NULL */
    hashmap suffix;          /* base name → int* last suffix used (keeps uniquing linear) */
    hashmap fn_values;       /* value names made by inlined `function:` lowerings (no value_info) */
    hashmap fn_nodes;        /* node names they made */
    hashmap fn_suffix;       /* 'v'/'n' + base name → int* last suffix tried (translate_function.c) */
    hashmap renames;         /* value name → the name torch.onnx gives it later: a lowering that
                              * returns its input as it is (torchlib's `return self`) renames that
                              * value after its own node; applied once, by tx_apply_renames */
    int nval, nnode;
    scope *sc;
    bool value_info;
    bool failed;
    const fx_node *cur;          /* the FX node being translated: its provenance goes on every node made */
    translate_provenance cur_pv;
    bool cur_pv_ready;           /* computed on the first node emitted for cur */
    Onnx__NodeProto *cur_main;   /* the node named node_<cur>, once emitted */
} tx;

typedef VEC(const char *) namevec;
typedef bool (*builtin_fn)(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **bound);

const char *tx_unique_name(tx *t, const char *base);
const char *tx_fresh_val(tx *t);
Onnx__NodeProto *tx_emit(tx *t, const char *op, const char *domain, const char *name);
const char *tx_emit1(tx *t, const char *op, const char *in, const char *out, const char *node_name);
const char *tx_emit2(tx *t, const char *op, const char *a, const char *b, const char *out, const char *node_name);
/* op(in[0..n)) in the ONNX domain: returns the output name (a fresh val_N unless out given). */
const char *tx_emitn(tx *t, const char *op, const char *const *in, size_t n, const char *out, const char *node_name);
const char *tx_emit_cast(tx *t, const char *x, int to, const char *out, const char *node_name);
/* Concat <axis: 0> (a, b, c) into a fresh value. */
const char *tx_emit_concat3(tx *t, const char *a, const char *b, const char *c);
const char *tx_emit_reduce(tx *t, const char *op, const char *x, const char *axes, int64_t keepdims, const char *out,
                           const char *node_name);
void tx_fail_node(tx *t, const fx_node *n, const char *what);
const char *tx_const_scalar(tx *t, int dtype, double f, int64_t i, bool is_float);
const char *tx_own_ints(tx *t, const int64_t *v, size_t n);
/* A 1-D int64 Constant tensor of its own (torchlib's op.Constant(value=ir.tensor(list, INT64))). */
const char *tx_own_int_tensor(tx *t, const int64_t *v, size_t n);
/* A 0-d Constant of its own in ONNX dtype (torchlib's op.Constant(value=ir.tensor(v, dtype))). */
const char *tx_own_scalar(tx *t, int dtype, double f, int64_t i, bool is_float);
/* The same with rank dims of 1 (torchlib's ir.tensor([v], dtype)). */
const char *tx_own_one(tx *t, int dtype, size_t rank, double f, int64_t i, bool is_float);
const char *tx_const_ints(tx *t, const int64_t *v, size_t n);
const char *tx_const_floats(tx *t, const float *v, size_t n);
const fx_value *tx_node_val(const fx_node *n);
int tx_onnx_dtype_of_node(const fx_node *n);
bool tx_is_float_type(int dt);
int tx_result_dtype(const fx_node *n);
int tx_rank_of_node(const fx_node *n);
const tx_val *tx_lookup_val(tx *t, const fx_node *n);
tx_val *tx_set_val(tx *t, const fx_node *n, const char **names, size_t k);
const char *tx_single(tx *t, const fx_node *user, const fx_node *n);
Onnx__TypeProto *tx_type_of_value(tx *t, const fx_value *v);
bool tx_bind_args(tx *t, const fx_node *n, const aten_schema *s, const fx_arg **out);
arg_info tx_info_of(const fx_arg *a);
const char *tx_scalar_input(tx *t, const aten_arg *sa, const fx_arg *a, int ref_dtype);
const char *tx_int_list_input(tx *t, const fx_node *user, const fx_arg *a);
/* translate_attrs.c: defaults written out and attributes in onnx.defs' order, as torch.onnx's tracer */
void tx_complete_attributes(ox_model *m, Onnx__GraphProto *g, int depth);
/* Marks attribute name of n as one torchlib passes as None: written neither as given nor as default. */
void tx_attr_none(ox_model *m, Onnx__NodeProto *n, const char *name);
const char *tx_merge_dims_input(tx *t, const fx_node *user, const fx_arg *a, bool minus_one_as_one);
bool tx_arg_inputs(tx *t, const fx_node *user, const aten_arg *sa, const fx_arg *a, int ref_dtype, namevec *out);
bool tx_list_ints(tx *t, const fx_node *user, const aten_arg *sa, const fx_arg *a, int64_t **v, size_t *n);
const char **tx_output_names_ex(tx *t, const fx_node *n, size_t k, bool by_getitem);
const char **tx_output_names(tx *t, const fx_node *n, size_t k);
void tx_add_value_info(tx *t, const char *name, const fx_value *v);
bool tx_run_lowering(tx *t, const fx_node *n, const op_rule *rule, const lowering *lw, const fx_arg **bound);
/* The dtypes Python scalar arguments of lw take (ref) and a Python float beside an integer tensor
 * whose result torch promoted (float_ref). */
void tx_scalar_ref_dtypes(const fx_node *n, const lowering *lw, const fx_arg **bound, int *ref, int *float_ref);
/* Records res as n's ONNX value(s), with value_info from n's meta. */
void tx_set_results(tx *t, const fx_node *n, const aten_schema *s, const char **res, size_t nres);
/* Sets attribute at (a @ref to a schema argument or derive entry) on nd from the bound arguments;
 * a None argument leaves it out. */
bool tx_ref_attr(tx *t, const fx_node *user, Onnx__NodeProto *nd, const low_attr *at, const aten_schema *s,
                 const fx_arg **bound);
/* The int list of a list-valued derive entry (pads, nonneg, ones) at refers to. */
bool tx_derived_ints(tx *t, const fx_node *user, const low_attr *at, const aten_schema *s, const fx_arg **bound,
                     int64_t **out, size_t *nout);
/* translate_function.c: a `function:` lowering inlined as torch.onnx inlines torchlib's functions */
bool tx_run_function(tx *t, const fx_node *n, const op_rule *rule, const lowering *lw, const fx_arg **bound);
const char *tx_one_output(tx *t, const fx_node *n);
const char *tx_node_name_of(tx *t, const fx_node *n);
bool tx_seq_arg(const fx_arg *a);
bool tx_translate_graph(tx *t, const fx_graph *g);
/* An int argument; false when a is absent or not an int. */
static inline bool tx_int_of(const fx_arg *a, int64_t *v)
{
    if (!a || a->kind != FX_ARG_INT)
        return false;
    *v = a->u.i;
    return true;
}
/* The node emitted last in the current graph (to set an attribute on what a helper made). */
static inline Onnx__NodeProto *tx_last_node(tx *t) { return t->sc->g->node[t->sc->g->n_node - 1]; }

/* ---- C lowerings (a rule's `builtin:`) ------------------------------------------------------- */

/* One C lowering: the name a rule's builtin: gives, its function, and how many schema arguments
 * it reads (-1: it reads the FX node itself, no schema needed). */
typedef struct tx_builtin_entry {
    const char *name;
    builtin_fn fn;
    int nargs;
} tx_builtin_entry;
/* The families, one table each at the end of its file; translate_families.c lists them. */
extern const builtin_family tx_core_builtins;            /* translate_builtins.c: transpose, slice, pad, sdpa, ... */
extern const builtin_family tx_hop_builtins;             /* translate_hop.c: cond, while_loop, scan, python_loop */
extern const builtin_family tx_composite_builtins;       /* translate_composite.c: cross, stack, tile, roll, ... */
extern const builtin_family tx_diagonal_builtins;        /* translate_diagonal.c: diagonal / diagonal_copy */
extern const builtin_family tx_strided_builtins;         /* translate_strided.c: as_strided as a Gather */
extern const builtin_family tx_sample_builtins;          /* translate_sample.c: grid_sampler as GridSample */
extern const builtin_family tx_histc_builtins;           /* translate_histc.c: histc as torch's CPU kernel bins */
extern const builtin_family tx_rnn_builtins;             /* translate_rnn.c: lstm / gru as ONNX LSTM / GRU */
extern const builtin_family tx_stft_builtins;            /* translate_stft.c: stft, one STFT */
extern const builtin_family tx_complex_builtins;         /* translate_complex.c: view of a complex tensor */
extern const builtin_family tx_embedding_bag_builtins;   /* translate_embedding_bag.c: bags without a Loop */
extern const builtin_family tx_scatter_reduce_builtins;  /* translate_scatter_reduce.c: scatter_reduce, index_reduce */
extern const builtin_family tx_norm_builtins;            /* translate_norm.c: linalg_vector_norm */
extern const builtin_family tx_unbind_builtins;          /* translate_unbind.c: unbind.int */
extern const builtin_family tx_logical_builtins;         /* translate_logical.c: any / all over dims */
/* translate_families.c: the entry named name (one hash probe), NULL when none. */
const tx_builtin_entry *tx_find_builtin(const char *name);
/* The name registered by two families, NULL when none (a unit test keeps it NULL). */
const char *tx_builtin_duplicate(void);

/* translate_rename.c: the renames of returned inputs, applied to the whole model in one walk;
 * tx_renamed gives a value's final name */
void tx_apply_renames(tx *t);
const char *tx_renamed(tx *t, const char *name);
/* translate_version.c: the version converter's adapters, run on the translated model (GridSample
 * 19 -> 20 at opset 20 and above) */
void tx_convert_version(tx *t);
/* translate_index_put.c: index_put with any list of indices (b: self, indices, values, accumulate),
 * index.Tensor with any list of indices (b: self, indices) */
bool tx_index_put_general(tx *t, const fx_node *n, const fx_arg **b);
bool tx_index_general(tx *t, const fx_node *n, const fx_arg **b);
bool tx_adaptive_avg_by_matmul(tx *t, const fx_node *n, const char *x, const int64_t *sz, size_t r,
                               const int64_t *os, size_t k);

#endif
