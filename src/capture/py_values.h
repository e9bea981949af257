/* py_values.h — the Python values py_eval's replay computes with, and Python's semantics on
 * them: numbers, strings, None, lists (mutable: an append is seen by every holder), tuples,
 * slices, torch enums, and the values nodes of the program being built compute.
 *
 * Ownership: values live in the arena they are made in; the nodes they name belong to the
 * program being built. Not a public API (src/capture/py_eval.c). */
#ifndef FXSH_CAPTURE_PY_VALUES_H
#define FXSH_CAPTURE_PY_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "fx/fx_ir.h"

typedef enum pv_kind {
    PV_NONE, PV_BOOL, PV_INT, PV_FLOAT, PV_STR, PV_DTYPE, PV_DEVICE, PV_MEMFMT, PV_LAYOUT,
    PV_LIST, PV_TUPLE, PV_SLICE, PV_ELLIPSIS, PV_OPAQUE,
    PV_NODE,     /* a value a node of the program being built computes (tensor, SymInt, ...) */
    PV_MODULE,   /* a subgraph of the source program (the get_attr of a branch or body) */
    PV_LIFT      /* torch.tensor(number), lifted where it is first used (then a NODE) */
} pv_kind;

typedef struct pv pv;
struct pv {
    pv_kind kind;
    union {
        bool b;
        int64_t i;
        double f;
        const char *s;
        fx_dtype dt;
        fx_node *node;
        const fx_module *mod;
        struct {
            double value;
            fx_dtype dtype;
            bool setitem;   /* the value of x[i] = v: torch makes it before indexing x */
        } lift;
        struct {
            pv **items;
            size_t n, cap;
        } seq;   /* LIST (mutable: appends change it for every holder), TUPLE, SLICE (3 items) */
    } u;
};

pv *pv_new(arena *A, pv_kind k);
pv *pv_int(arena *A, int64_t i);
pv *pv_bool(arena *A, bool b);
pv *pv_float(arena *A, double f);
pv *pv_str(arena *A, pv_kind k, const char *s);
pv *pv_node(arena *A, fx_node *n);
/* An empty LIST / TUPLE / SLICE with room for cap items; pv_push appends (growing it). */
pv *pv_seq(arena *A, pv_kind k, size_t cap);
void pv_push(arena *A, pv *seq, pv *item);

bool pv_is_seq(const pv *v);   /* LIST or TUPLE */
bool pv_is_num(const pv *v);   /* INT, FLOAT or BOOL */
double pv_num(const pv *v);
/* A node's value when its meta says it is a known Python number (a SymInt of a static size). */
bool pv_node_const(const fx_node *n, pv *out);
/* Python's truthiness: 1, 0, or -1 when it depends on a value not known (a tensor). */
int pv_truth(const pv *v);
/* Python equality of known values: 1, 0, or -1 when it cannot be decided. */
int pv_equal(const pv *x, const pv *y);
/* str(v) as Python prints it. */
void pv_str_of(const pv *v, strbuf *sb);

/* operator.<op>(x[, y]) (op without the module: "add", "is_not", "contains", "truth"...) on
 * known values; NULL when the operands are not known Python values (SymInts of dynamic
 * sizes, tensors), with *error set when Python would raise (division by zero). */
pv *py_operator(arena *A, const char *op, pv *x, pv *y, const char **error);
/* fmt.format(*args) with "{}" fields; NULL unless a[0] is a string. */
pv *py_format(arena *A, pv **a, size_t na);
/* seq[i] and seq[start:stop:step] of a known sequence; NULL otherwise. */
pv *py_getitem(arena *A, pv *x, pv *i);

#endif
