/* rewrite_internal.h — graph-editing helpers shared by the rewrites (cond, scan, while_loop).
 *
 * Everything here edits a program the rewrite owns (its clone of the user's program); nodes,
 * args and strings are allocated in that program's arena. Functions that take a hashmap key it
 * by node name, so one map only ever describes the nodes of one graph. */
#ifndef FXSH_REWRITE_REWRITE_INTERNAL_H
#define FXSH_REWRITE_REWRITE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/hashmap.h"
#include "fx/fx_control.h"
#include "fx/fx_ir.h"

/* The node named `node` in p after checking it is control flow of kind `want` (FX_CTRL_IF,
 * FX_CTRL_FOR or FX_CTRL_WHILE; want2 a second accepted kind or FX_CTRL_NONE). On success
 * returns a clone of p and sets *n to the node in the clone and *v to its view. On refusal
 * reports "cannot rewrite %node into <into>: ..." and returns NULL. */
fx_program *rw_begin(const fx_program *p, const char *node, fx_control_kind want, fx_control_kind want2,
                     const char *into, fx_node **n, fx_control_view *v, diag_sink *d);
/* Where a refusal about n points: the program file and n's line. */
diag_loc rw_loc(const fx_program *p, const fx_node *n);

/* A python_for / python_while body: its graph, placeholders and output tuple. */
typedef struct rw_loop {
    fx_module *body;
    fx_graph *bg;
    fx_node *idx;            /* the loop index placeholder (a Python int) */
    fx_node **carry_ph;      /* nc carried placeholders (program arena) */
    fx_node **cap_ph;        /* ncap captured placeholders, parallel to the captured operands */
    size_t nc, ncap;
    fx_node *out;            /* the output node; its tuple is out->args[0] */
    fx_arg *outs;            /* the returned tuple: FOR (carried'...), WHILE (next_cond, carried'...) */
} rw_loop;

/* Reads the body of loop node n (view v) of q; false after reporting when its placeholders or
 * output do not match the carried/captured operands. */
bool rw_loop_open(fx_program *q, fx_node *n, const fx_control_view *v, rw_loop *L, diag_sink *d);

/* The carried values of loop n (view v, body L) are tensors that keep their dtype and shape: the
 * body output off + k (off = 1 when the body returns its next test first) against initial value
 * k. `into` names the rewrite ("scan"), rule the torch rule for the refusal. false after
 * reporting. */
bool rw_check_carried(const fx_program *q, const fx_node *n, const fx_control_view *v, const rw_loop *L,
                      size_t off, const char *into, const char *rule, diag_sink *d);

/* The first in-place op of g (not among `allowed`, a map of node names; may be NULL) that writes
 * one of g's inputs, directly or through views of it (select, slice, view, ...); NULL if none.
 * torch refuses such HOP subgraphs ("Combine_fn might be modifying the input!"). */
const fx_node *rw_input_mutation(const fx_graph *g, const hashmap *allowed);

/* The first nested python_if/for/while anywhere under m, or NULL. */
const fx_node *rw_find_python_control(const fx_module *m);

/* A new call_function node `target(args...)` named base (made unique), inserted before
 * `before` in g, with meta.val = val. */
fx_node *rw_call_before(fx_graph *g, fx_node *before, const char *base, const char *target, fx_arg **args,
                        size_t nargs, fx_value *val);
/* A placeholder named base (made unique) inserted after `after` (NULL: at the front of g). */
fx_node *rw_placeholder_after(fx_graph *g, fx_node *after, const char *base, fx_value *val);
/* The first of base, base_1, base_2, ... that no node of g has (written to buf), ignoring the
 * counters fx_graph_unique_name keeps: torch's names for nodes made after others were removed. */
const char *rw_first_free_name(const fx_graph *g, const char *base, char *buf, size_t cap);

/* Gives every result k < nout of the HOP node n a getitem (existing ones keep their place; new
 * ones go right after n and the getitems that follow it, in index order); fills gi[]. */
void rw_result_getitems(fx_graph *g, fx_node *n, size_t nout, fx_node **gi);
/* torch makes one getitem per result in order and then drops the unread ones: names gi[] so
 * (getitem, getitem_1, ... first free) and removes those without users. */
void rw_name_result_getitems(fx_graph *g, fx_node **gi, size_t nout);

/* Rewrites every reference in g's args/kwargs: a node whose name is a key of map becomes the
 * fx_arg* stored there. Only nodes at or after `from` (NULL: all) are rewritten. One pass. */
void rw_replace_uses(fx_graph *g, const hashmap *map, const fx_node *from);
/* Replaces references to `old` by `with` in the nodes at or after `from` (NULL: all). */
void rw_replace_one(fx_graph *g, fx_node *old, fx_arg *with, const fx_node *from);
/* Unlinks every node of g whose name is a key of `dead` (they must have no users outside the
 * set), then recomputes users and indexes once. */
void rw_remove_nodes(fx_graph *g, const hashmap *dead);
/* Removes the nodes among seeds[] that have no users, then their inputs that are left without
 * users, and so on, as long as they are pure calls (no in-place op, no control flow, no HOP) or
 * get_attrs of subgraph modules (whose modules are dropped too). Users must be current. */
void rw_remove_dead(fx_graph *g, fx_node **seeds, size_t n_seeds);

/* Renames g's placeholders arg0_1, arg1_1, ... in order (torch's HOP subgraph inputs). */
void rw_number_placeholders(fx_graph *g);
/* Moves the placeholders in order[] (all of g's placeholders, each once) to the front of g in
 * that order. */
void rw_order_placeholders(fx_graph *g, fx_node **order, size_t n);

/* The tensor meta of arg a when it is a node with one, else NULL. */
const fx_value *rw_tensor_val(const fx_arg *a);
/* A copy of v without its first dimension (a row of a stacked tensor); NULL if v is NULL. */
fx_value *rw_value_drop_dim0(fx_program *p, const fx_value *v);
/* A copy of v with dimension `size0` put in front (rows stacked); NULL if v is NULL. */
fx_value *rw_value_stack(fx_program *p, const fx_value *v, const char *size0);
/* "f32[3, 4]" for messages ("?" when unknown). */
const char *rw_value_text(const fx_value *v, char *buf, size_t cap);
/* Same dtype and shape when both are known; *what = "dtype" / "shape" / "type" otherwise. */
bool rw_same_meta(const fx_value *a, const fx_value *b, const char **what);

/* The text of a size value: an int literal, a sym_size.int(t, k) / x.size()[k] / len(t) of a
 * tensor t (its meta dimension, else "%t.size(k)"), or a SymInt node's expression. false when
 * a is none of these. */
bool rw_size_text(const fx_arg *a, char *buf, size_t cap);
/* The first dimension of tensor node t as text: its meta, else the size it was created with
 * (zeros/empty/ones/full/rand of a size list, *_like of a tensor). */
bool rw_dim0_text(const fx_node *t, char *buf, size_t cap);

/* True when n produces a bool (a bool tensor, a comparison, a SymBool). */
bool rw_is_bool(const fx_node *n);
/* Python truthiness of tensor c as a bool tensor, as torch's rewritten code spells it: c itself
 * when it is already bool, else `c != 0` (aten.ne.Scalar) inserted before `before`. */
fx_node *rw_truthiness(fx_graph *g, fx_node *before, fx_node *c);

/* torch's refusal when a HOP subgraph returns one of its inputs (or one value twice); hop is
 * "torch.cond" / "torch.ops.higher_order.scan" / "torch.ops.higher_order.while_loop". */
void rw_alias_error(diag_sink *d, diag_loc loc, const char *node, const char *hop, const char *graph,
                    const char *value, const char *why, const char *fix_command);
/* torch's fix: `return x.clone()`; inserts clone = aten.clone.default(x) before g's output and
 * returns it. */
fx_node *rw_clone_before_output(fx_graph *g, fx_node *x);

#endif
