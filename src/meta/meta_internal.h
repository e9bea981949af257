/* meta_internal.h — shared internals of meta inference (not a public API): the working form of
 * a tensor meta, the context a rule function runs in, parameter accessors and stride helpers.
 * The decompose pass's layout predicates (meta_layout.c) ask the same stride model.
 *
 * Ownership: everything a rule function makes (sx, mi_tensor arrays, text) lives in the scratch
 * arena c->a, released when inference ends; only meta_to_value copies into the program. */
#ifndef FXSH_META_META_INTERNAL_H
#define FXSH_META_META_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/builtin.h"
#include "fx/fx_ir.h"
#include "meta/meta_sym.h"

#define MI_MAX_RANK 16

/* A tensor meta being computed: sizes and strides as symbolic expressions. */
typedef struct mi_tensor {
    fx_dtype dtype;             /* UNKNOWN until a dtype rule (or the shape rule) sets it */
    size_t rank;
    sx *size[MI_MAX_RANK];
    sx *stride[MI_MAX_RANK];
    bool strided;               /* stride[] is filled */
    const char *device;         /* NULL: taken from the inputs */
} mi_tensor;

/* What a shape rule produces. */
typedef struct mi_out {
    mi_tensor *t;               /* n results (scratch arena) */
    size_t n;
    bool list;                  /* the op returns a tuple / list, read with getitem */
    bool none;                  /* the op returns nothing (assertions) */
    sx *sym;                    /* a SymInt result instead of tensors */
    sx **syms;                  /* a list of SymInts (x.size()) instead of tensors */
    size_t nsyms;
    const char *text;           /* a SymBool / Python number result as torch prints it ("True",
                                   "Eq(s77, 4)") instead of tensors */
} mi_out;

/* One call of a rule function: its parameters are the bound schema arguments (or literals)
 * the rule names, in the order it names them. A NULL parameter is an absent argument. */
typedef struct mi_ctx {
    arena *a;
    fx_program *p;              /* the program being filled (for weights; never written here) */
    const fx_node *node;
    const fx_arg *const *prm;
    size_t np;
    char why[200];              /* why the rule gave up, for the note */
    bool unknown_dtype;         /* an operand's dtype is unknown (the result's is too) */
    bool cannot;                /* the rule gave up by mi_cannot, not by rejecting arguments */
    struct meta_spec_log *specs;   /* where specializations go (meta_infer.h), or NULL */
} mi_ctx;

/* A rule took symbolic size `size` equal to the number v (torch's guard pins the symbol): noted
 * in c->specs when size is a plain symbol. */
void mi_specialize(mi_ctx *c, const sx *size, int64_t v);

typedef bool (*mi_shape_fn)(mi_ctx *c, mi_out *o);
typedef bool (*mi_dtype_fn)(mi_ctx *c, fx_dtype *dt);
typedef bool (*mi_strides_fn)(mi_ctx *c, mi_tensor *t);   /* fills t->stride for t->size */

typedef struct mi_fn_entry {
    const char *name;
    int min_params, max_params;
    void (*fn)(void);            /* cast to the kind's function type */
} mi_fn_entry;

/* An entry of a rule-function table: MI_FN("name", min, max, fn). */
#define MI_FN(name, lo, hi, fn) { name, lo, hi, (void (*)(void))fn }

/* The families of rule functions, one table each at the end of its file; meta_families.c lists
 * them in three indices by kind (the shape families share one: their names are distinct). */
extern const builtin_family mi_shape_builtins;     /* meta_shape.c: same, broadcast, reduce, cat, ... */
extern const builtin_family mi_view_builtins;      /* meta_views.c: view, reshape, permute, slice, ... */
extern const builtin_family mi_python_builtins;    /* meta_python.c: py_compare, py_len, ... */
extern const builtin_family mi_nn_builtins;        /* meta_nn.c: mm, conv, pool, sdpa, ... */
extern const builtin_family mi_dtype_builtins;     /* meta_dtype_rules.c: promote, sum, ... */
extern const builtin_family mi_strides_builtins;   /* meta_strides.c: contiguous, elementwise, ... */
/* The rule function of each kind named name (one hash probe), NULL when none. */
const mi_fn_entry *mi_find_shape(const char *name);
const mi_fn_entry *mi_find_dtype(const char *name);
const mi_fn_entry *mi_find_strides(const char *name);
/* The name of kind (0 shape, 1 dtype, 2 strides) nearest to a mistyped one, for a hint; NULL
 * when none is near. */
const char *mi_suggest_fn(int kind, const char *name);
/* A name registered twice within one kind, NULL when none (a unit test keeps it NULL). */
const char *mi_builtin_duplicate(void);

/* ---- parameters (meta_args.c) --------------------------------------------------------------- */

bool mi_fail(mi_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));   /* false */
/* A rule gives up on what fxsh cannot express (a data-dependent size, an argument without a
 * known value) rather than rejecting arguments torch would reject: false, and the program is
 * not called inconsistent for it (meta_verify.h). */
bool mi_cannot(mi_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const fx_arg *mi_param(const mi_ctx *c, size_t i);           /* NULL when absent */
bool mi_is_none(const mi_ctx *c, size_t i);                  /* absent or None */
/* The tensor meta of a node argument; NULL (with c->why) when it is not a tensor with meta. */
mi_tensor *mi_tensor_of(mi_ctx *c, const fx_arg *a);
/* The same of a value (what names it in c->why); strides are unset when none were recorded. */
mi_tensor *mi_tensor_of_value(mi_ctx *c, const fx_value *v, const char *what);
mi_tensor *mi_tensor_param(mi_ctx *c, size_t i);
/* The same with strides filled in (contiguous when none were recorded), for views. */
mi_tensor *mi_strided_param(mi_ctx *c, size_t i);
/* A Python int or a SymInt node as an expression; NULL if it is neither. */
sx *mi_sx_of(mi_ctx *c, const fx_arg *a);
sx *mi_sx_param(mi_ctx *c, size_t i);
bool mi_int_param(mi_ctx *c, size_t i, int64_t *v);
bool mi_bool_param(mi_ctx *c, size_t i, bool dflt);         /* dflt when absent or None */
/* An int list (or a single int, read as a list of one); elements may be SymInts. */
bool mi_sx_list_param(mi_ctx *c, size_t i, sx **out, size_t *n, size_t cap);
bool mi_int_list_param(mi_ctx *c, size_t i, int64_t *out, size_t *n, size_t cap);
/* A list of tensors (None items skipped unless keep_none: then they are NULL). */
bool mi_tensor_list_param(mi_ctx *c, size_t i, mi_tensor **out, size_t *n, size_t cap, bool keep_none);
/* torch's maybe_wrap_dim: d in [-rank, rank) (a 0-d tensor takes -1 and 0). */
bool mi_wrap_dim(mi_ctx *c, int64_t d, size_t rank, size_t *out);
/* The tensor-valued parameters, in order (numbers and SymInts are scalars, skipped); false when
 * one has no usable meta. */
bool mi_tensor_params(mi_ctx *c, mi_tensor **out, size_t *n, size_t cap);
/* o = the broadcast of the tensor parameters among the first np, with TensorIterator strides
 * (the `broadcast` shape function; meta_shape.c). */
bool mi_broadcast_params(mi_ctx *c, mi_out *o, size_t np);
/* Allocates o->t for n results (zeroed, dtype UNKNOWN); mi_out_one for a single result of the
 * given rank. */
mi_tensor *mi_out_alloc(mi_ctx *c, mi_out *o, size_t n);
mi_tensor *mi_out_one(mi_ctx *c, mi_out *o, size_t rank);

/* ---- strides (meta_strides.c) ---------------------------------------------------------------- */

/* Row-major strides for t->size (size-1 dims counted as 1, as torch does). */
void mi_contiguous(mi_ctx *c, mi_tensor *t);
bool mi_is_contiguous(const mi_tensor *t);
bool mi_non_overlapping_dense(const mi_tensor *t);
/* TensorIterator's output strides for an elementwise op over the inputs (broadcast to t). */
void mi_elementwise_strides(mi_ctx *c, mi_tensor *t, mi_tensor *const *in, size_t n);
/* torch's computeStride for view(): false when the view is impossible. */
bool mi_view_strides(mi_ctx *c, const mi_tensor *src, mi_tensor *dst);
/* torch's infer_size for view / reshape sizes sz[0..n) of x (meta_views.c): a -1 entry becomes
 * what the element count leaves; false (with c->why) when the sizes cannot hold x's elements. */
bool mi_infer_size(mi_ctx *c, const mi_tensor *x, sx **sz, size_t n);
/* empty_like(..., preserve_format): src's strides if it is dense, else its layout order. */
void mi_preserve_strides(mi_ctx *c, const mi_tensor *src, mi_tensor *t);
/* The product of sizes (numel). */
sx *mi_numel(mi_ctx *c, const mi_tensor *t);
/* Compares two sizes the way torch's guards settle them on the example input: sx equality
 * first, then the estimate. -1, 0, 1; 0 also when undecidable. */
int mi_cmp(const sx *x, const sx *y);
/* Unbacked symbols (meta_unbacked.c): whether x reads one (u0, zuf0: a value read out of a
 * tensor), and a fresh one's name, PREFIX ("u" or "zuf") numbered after every one the nodes
 * before c's read, as torch.export numbers them. */
bool mi_unbacked(const sx *x);
const char *mi_fresh_unbacked(mi_ctx *c, const char *prefix);
/* Whether torch._check calls before c's node (their _assert_scalar nodes) asserted that the
 * unbacked symbol v lies in [0, size]: torch.export then knows a slice to v is v long. */
bool mi_unbacked_in_range(mi_ctx *c, const sx *v, const sx *size);

#endif
