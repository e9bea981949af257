/* py_eval_internal.h — what the replay of Python code (py_eval.c) shares with its control-flow
 * part (py_eval_control.c): the replay's state and its value/recording helpers. Not a public API.
 *
 * Ownership: values (pv) live in the replay's arena E->a; nodes in the new program E->dst. */
#ifndef FXSH_CAPTURE_PY_EVAL_INTERNAL_H
#define FXSH_CAPTURE_PY_EVAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/hashmap.h"
#include "fx/fx_build.h"
#include "meta/meta_infer.h"
#include "meta/meta_rules.h"
#include "capture/py_eval.h"
#include "capture/py_values.h"

/* A graph of the new program and the namer that gives its nodes torch's names. */
typedef struct out_graph {
    fx_graph *g;
    fx_namer nm;
    struct out_graph *next;
} out_graph;

/* One execution of a source graph: its values, and where its tensor ops go. */
typedef struct frame {
    const fx_graph *src;
    out_graph *out;
    hashmap env;        /* source node name -> pv* */
    pv **args;          /* inlined: the values of the placeholders; emitted: their operands */
    size_t n_args;
    bool emit;          /* a kept subgraph: placeholders and output become nodes of out */
    const bool *fold;   /* emitted: placeholder k takes args[k] itself (a known Python value) */
    const fx_value **metas;  /* emitted: placeholder k's meta when args[k] is not a node */
    size_t n_index;     /* emitted: leading placeholders that are a loop's index (a SymInt) */
    pv *result;         /* inlined: what the output returns */
} frame;

typedef struct pe {
    const fx_program *src;
    fx_program *dst;
    const py_eval_options *o;
    diag_sink *d;
    diag_sink quiet;
    const meta_rules *rules;  /* shared, read-only (meta_rules_shipped) */
    meta_inferer *mi;
    arena a;
    out_graph *outs;
    size_t steps;
    uint64_t max_steps; /* node executions before the replay gives up (FXSH_MAX_REPLAY_STEPS) */
    const fx_node *loop;    /* the innermost loop being unrolled, for messages */
    size_t n_lifted;    /* torch.tensor(...) constants lifted so far */
    int next_group;     /* trace groups handed out (fx_meta.trace_group) */
    const fx_node *group_src;
    int group;          /* the group of the nodes recorded for group_src */
    bool failed;
} pe;

/* ---- py_eval.c ---- */
/* Where source node n is (its line in the program text). */
diag_loc pe_loc(pe *E, const fx_node *n);
/* Reports an error at n, marks the replay failed; NULL. */
pv *pe_fail(pe *E, const fx_node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The replay ran (or would run) more than E->max_steps Python-level steps (what is the loop or
 * `while` in `what`); reports it with the hint; NULL. */
pv *pe_too_long(pe *E, const fx_node *n, const char *what);
/* Nodes of a subgraph, nested loop bodies counted once: a lower bound of one iteration's steps. */
size_t pe_body_steps(const fx_module *body);
/* The value of a source argument in frame f. */
pv *pe_from_arg(pe *E, frame *f, const fx_arg *a);
/* A value as an argument of a node of graph g of the new program; NULL (reported) when it is
 * not one (a subgraph, a value of another graph). */
fx_arg *pe_to_arg(pe *E, const fx_node *at, const pv *v, const fx_graph *g);
/* A new graph of the output program (g), with its namer. */
out_graph *pe_out_new(pe *E, fx_graph *g);
/* Appends target(args | kwargs) to f's graph, named as torch names it, with src's stack trace
 * and a value meta inferred from its arguments. */
fx_node *pe_record(pe *E, frame *f, const fx_node *src, const char *name_base, const char *target, fx_arg *args,
                   fx_arg *kwargs);
/* A kept control-flow node prints as one group with the get_attrs of its subgraphs before it
 * and the getitems of its results after it (torch's node for the call and its outputs). */
fx_node *pe_group_with_attrs(pe *E, fx_node *n);
/* A tuple argument of n items. */
fx_arg *pe_tuple_arg(pe *E, fx_arg **items, size_t n);
/* Placeholder k of frame f: its inlined argument, or a node of an emitted subgraph. */
pv *pe_placeholder(pe *E, frame *f, const fx_node *n, size_t k);
/* Runs f's source graph node by node; the output's value (NULL after reporting). */
pv *pe_run_graph(pe *E, frame *f);

/* ---- py_eval_control.c ---- */
/* f runs source graph src, recording into out. */
void pe_frame_init(frame *f, const fx_graph *src, out_graph *out);
/* The subgraph module source node n holds in frame f (a get_attr of a subgraph), else NULL. */
const fx_module *pe_module_of(pe *E, frame *f, const fx_node *n);
/* n's name qualified by the subgraphs holding it ("true_graph_0.if_1"), as `rewrite` takes it. */
const char *pe_qualified_name(pe *E, const fx_node *n);
/* v, a node kept for source node src, remembered as src's origin (for `rewrite` names). */
pv *pe_kept(pe *E, const fx_node *src, pv *v);
/* A Python `if` / loop node: run when its condition or trip count is known, else kept. */
pv *pe_control(pe *E, frame *f, const fx_node *n);
/* while_loop / scan and other calls taking subgraphs, replayed with every operand passed. */
pv *pe_keep_hop(pe *E, frame *f, const fx_node *n);

#endif
