/* py_eval.h — what runs in Python while torch.export traces a program, replayed on a loaded
 * ATen-level program that still holds its Python-level code (a TorchScript load: size reads
 * and arithmetic, the checks library code makes before it raises, Optional tests, lists built
 * by appending, library `if`s and loops).
 *
 * torch.export runs that code on the example inputs: Python values are concrete (or SymInts for
 * dynamic dimensions), only tensor operations are recorded. py_eval_program does the same on
 * the program's value meta: Python-level nodes (operator.*, builtins.*, math.*, list appends,
 * x.dim(), x.size(k) of a static dimension, fxsh.prim.dtype / device, str.format) are computed
 * and leave no node; a Python `if` whose condition is known is replaced by the branch taken,
 * a `for` over a known range is unrolled, a `while` on Python values runs to its end; tensor
 * ops are recorded again (torch's names, fresh value meta), each Tensor.to preceded by the
 * _assert_tensor_metadata torch.export records. What depends on tensor values (a Python `if`
 * on a tensor, a loop over an unknown range) stays as it is, with its branches or body
 * replayed the same way; so do cond / while_loop / scan (a `while` whose exit test reads a
 * tensor stays whole: torch fails at its first iteration). A check that raises on the example
 * shapes is an error, as it is for torch.export. The ifs and loops of the model's own code
 * (not torch's library code) that were decided are reported as notes.
 *
 * Ownership: the result is a new program the caller frees with fx_program_free (NULL after
 * reporting an error to d); it borrows weight data from p, which must outlive it. */
#ifndef FXSH_CAPTURE_PY_EVAL_H
#define FXSH_CAPTURE_PY_EVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/hashmap.h"
#include "fx/fx_ir.h"

/* How dynamic_shapes declared a dimension (torch.export.Dim): a named Dim, whose range a guard
 * must not narrow; Dim.AUTO, which a guard may narrow or pin to its example; Dim.DYNAMIC, which a
 * guard may narrow but not pin. */
typedef enum { PY_DIM_NAMED, PY_DIM_AUTO, PY_DIM_DYNAMIC } py_dim_kind;

/* A dimension of a user input that export treats as dynamic: its size is the symbol `name`
 * instead of the example's number. lo / hi (the caller's, may be NULL) hold its range: set to the
 * declared one (min 2, the 0/1 rule; hi -1 for no bound) before the replay, narrowed by the guards
 * it decides (lo == hi: pinned to a constant). */
typedef struct py_eval_dynamic_dim {
    const char *input;   /* placeholder name */
    int axis;
    const char *name;    /* "batch", "s77" */
    py_dim_kind kind;
    int64_t min, max;    /* as dynamic_shapes gave them; -1: not given */
    int64_t *lo, *hi;
} py_eval_dynamic_dim;

/* What a guard did to the range of the dimension it reads (`guards` lists them). */
typedef enum {
    PY_GUARD_KEPT,        /* every size of the range takes the branch: nothing specialized */
    PY_GUARD_NARROWED,    /* the range became [lo, hi] */
    PY_GUARD_PINNED,      /* the dimension became the constant lo */
    PY_GUARD_FAILED,      /* a named Dim would have been narrowed or pinned: Constraints violated */
    PY_GUARD_UNTRACKED    /* several dynamic dimensions: decided for the example, range not followed */
} py_guard_effect;

/* One guard of a capture: where it is, what it tests, how it was decided and what it did. */
typedef struct py_guard_record {
    char *node;              /* the if's qualified name, "if_1" */
    char *expr;              /* the condition, "batch > 2" */
    char *symbol;            /* the dimension ("batch"), or the dimensions read ("a, b") */
    char *input;             /* x of x:0 (NULL when untracked) */
    int axis;
    int64_t example;         /* the dimension's example size */
    int truth;               /* the condition at the example */
    py_guard_effect effect;
    int64_t lo, hi;          /* the range after it (hi -1: unbounded) */
    char *file;              /* the program text line that holds the if */
    int line;
    char *source;            /* the Python source line, "/src/models/m.py:13 in forward" (or NULL) */
} py_guard_record;

/* The guards of the last capture, in the order it decided them (owned: py_guard_log_clear). */
typedef struct py_guard_log {
    py_guard_record *items;
    size_t len, cap;
} py_guard_log;

void py_guard_log_clear(py_guard_log *log);
/* Appends a copy of r (its strings copied) to log. */
void py_guard_log_add(py_guard_log *log, const py_guard_record *r);

typedef struct py_eval_options {
    /* loops computing tensors stay loops unless their trip count is a literal (the TorchScript
     * exporter's route); loops over Python values only are still run */
    bool keep_loops;
    const py_eval_dynamic_dim *dynamic;
    size_t n_dynamic;
    /* if set, receives for each control-flow node that stays (a node of the result, by name)
     * the qualified name of the node it replays in p ("if_1", "true_graph_0.if_1"), for
     * messages that name what the user can rewrite; strings live in the result's arena */
    hashmap *origins;
    /* if set, each guard on dynamic sizes is appended to it */
    py_guard_log *guards;
} py_eval_options;

/* o may be NULL. Linear in the number of nodes executed (an unrolled loop counts each time). */
fx_program *py_eval_program(const fx_program *p, const py_eval_options *o, diag_sink *d);

#endif
