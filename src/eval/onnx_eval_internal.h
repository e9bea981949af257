/* onnx_eval_internal.h — what the evaluator's files share: the kernel context, the op tables,
 * attribute and input readers, broadcasting and element helpers. Not for use outside src/eval. */
#ifndef FXSH_ONNX_EVAL_INTERNAL_H
#define FXSH_ONNX_EVAL_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "eval/onnx_eval.h"
#include "onnx/onnx_op.h"

struct oe_run;

/* One node evaluation: the node, its inputs (NULL = absent optional input) and outputs. */
typedef struct ectx {
    const Onnx__NodeProto *n;
    int64_t opset;
    oe_tensor *const *in;
    size_t nin;
    oe_tensor *out;
    size_t nout;
    diag_sink *d;
    int arg;                 /* the op table entry's argument (which unary function, ...) */
    struct oe_run *run;      /* the graph evaluation (subgraphs, functions); NULL when folding */
} ectx;

typedef int (*oe_kernel)(ectx *c);

/* One op of a table: name (default domain), kernel, its argument, and whether the optimizer's
 * constant folding may use it (the ops it folded before the evaluator grew). */
typedef struct oe_op_def {
    const char *name;
    oe_kernel fn;
    int arg;
    bool fold;
} oe_op_def;

/* The op tables, one per family (each ends with a NULL name). */
extern const oe_op_def oe_ops_math[];
extern const oe_op_def oe_ops_reduce[];
extern const oe_op_def oe_ops_shape[];
extern const oe_op_def oe_ops_index[];
extern const oe_op_def oe_ops_nn[];
extern const oe_op_def oe_ops_conv[];
extern const oe_op_def oe_ops_resize[];
extern const oe_op_def oe_ops_fft[];
extern const oe_op_def oe_ops_rnn[];
extern const oe_op_def oe_ops_control[];
extern const oe_op_def oe_ops_misc[];
extern const oe_op_def oe_ops_random[];

/* ---- errors --------------------------------------------------------------------------------- */

/* Reports "node NAME (Op): msg" to c->d; returns OE_ERROR. */
int oe_fail(ectx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The node's display name: its name, else its first output, else its op type. */
const char *oe_node_label(const Onnx__NodeProto *n);

/* ---- inputs, outputs, attributes -------------------------------------------------------------- */

static inline const oe_tensor *IN(const ectx *c, size_t i)
{
    return i < c->nin ? c->in[i] : NULL;
}
/* The input as a tensor (NULL when absent, or when it is a sequence or optional). */
const oe_tensor *oe_in_tensor(const ectx *c, size_t i);
/* Initializes output k (reports a bad shape). */
int oe_out(ectx *c, size_t k, int dtype, const int64_t *dims, int rank);

Onnx__AttributeProto *oe_attr(const ectx *c, const char *name);
int64_t oe_attr_i(const ectx *c, const char *name, int64_t dflt);
double oe_attr_f(const ectx *c, const char *name, double dflt);
/* A STRING attribute (or dflt when absent) copied into buf, truncated to cap - 1 bytes; returns
 * buf (NULL when absent and dflt is NULL). */
const char *oe_attr_s(const ectx *c, const char *name, const char *dflt, char *buf, size_t cap);
/* Copies an INTS attribute into buf (at most cap); returns the count, -1 if absent, -2 if longer. */
int64_t oe_attr_ints(const ectx *c, const char *name, int64_t *buf, int64_t cap);
int64_t oe_attr_floats(const ectx *c, const char *name, double *buf, int64_t cap);
/* Reads a 1-D (or scalar) integer tensor into buf; -1 when it is not one or holds more than cap. */
int oe_read_ints(const oe_tensor *t, int64_t *buf, int64_t cap, int64_t *n);
/* Axes from input `input` (opset >= 13 style) or from the `axes` attribute; *given false when
 * neither is there. */
int oe_get_axes(ectx *c, size_t input, int64_t *axes, int64_t *n, bool *given);

static inline int oe_norm_axis(int64_t a, int rank, int64_t *out)
{
    if (a < -rank || a >= rank) return -1;
    *out = a < 0 ? a + rank : a;
    return 0;
}

/* ---- broadcasting ------------------------------------------------------------------------------ */

enum { OE_BIT_MAX = 4 };
/* Multidirectional (numpy) broadcasting of k tensors' shapes. */
int oe_bcast_shape(const oe_tensor *const *ts, int k, int64_t *dims, int *rank);
/* Walks an output of shape dims in order, tracking the flat offsets of k broadcast inputs. */
typedef struct oe_bit {
    int r, k;
    int64_t dims[OE_MAX_RANK], idx[OE_MAX_RANK];
    int64_t bs[OE_BIT_MAX][OE_MAX_RANK];
    int64_t off[OE_BIT_MAX];
} oe_bit;
void oe_bit_init(oe_bit *b, const oe_tensor *const *ts, int k, const int64_t *dims, int r);
void oe_bit_next(oe_bit *b);

/* ---- subgraphs and functions (onnx_eval_graph.c) ------------------------------------------------ */

/* Runs subgraph g of the node being evaluated with its formal inputs bound to in[0..nin) (values
 * are borrowed), outer-scope names visible; fills out[0..g->n_output) (owned by the caller). */
int oe_run_subgraph(ectx *c, const Onnx__GraphProto *g, const oe_tensor *const *in, size_t nin,
                    oe_tensor *out);
/* A fresh 64-bit seed from the run's random stream (oe_model_opts.seed): each call differs, and a
 * run with the same seed draws the same ones. */
uint64_t oe_run_entropy(ectx *c);
/* The most iterations a Loop may run (the model options' max_loop_iters, or its default). */
int64_t oe_loop_limit(const ectx *c);
/* The graph attribute `name` of the node, or NULL. */
const Onnx__GraphProto *oe_attr_graph(const ectx *c, const char *name);

/* Helpers one family offers the others. */
int oe_cast_into(ectx *c, const oe_tensor *a, int to, oe_tensor *out);
int oe_concat_into(ectx *c, const oe_tensor *const *ts, size_t k, int64_t axis_attr, oe_tensor *out);
void oe_take_range(const oe_tensor *a, int64_t axis, int64_t start, int64_t len, oe_tensor *out);
int oe_transpose_into(ectx *c, const oe_tensor *a, const int64_t *perm, oe_tensor *out);
void oe_gemm_acc(const double *restrict a, const double *restrict b, double *restrict c, int64_t m, int64_t k, int64_t n);
int oe_matmul_doubles(ectx *c, const oe_tensor *a, const oe_tensor *b, double az, double bz, double **out, int64_t *dims,
                      int *rank);

/* Kernel lookup by op type (default domain); other domains' ops are registered as
 * "domain.Op" (ai.onnx.preview.training.Adam) and found with oe_find_op_in. oe_op_kernel gives the
 * kernel of an operator record (NULL: the evaluator does not implement it). */
const oe_op_def *oe_op_kernel(const ox_op *op);
const oe_op_def *oe_find_op(const char *op_type);
const oe_op_def *oe_find_op_in(const char *domain, const char *op_type);

#endif
