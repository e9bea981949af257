/* ddmin.h — delta debugging over the nodes of a DAG: the smallest set of nodes around one target
 * that still makes a test fail, every other node whose value a kept node reads becoming an input.
 *
 * The caller describes its graph (FX or ONNX: this file knows neither) as nodes in topological
 * order, each with the nodes whose values it reads and whether its value may become an input (a
 * cut: a tuple, a weight's get_attr cannot), and a test that builds the candidate a keep-set
 * describes and says whether it fails the way the original did. The search is deterministic:
 * grow (the target alone, then its ancestors up to depth 1, 2, 4, ... until the test fails), then
 * shrink (ddmin: drop chunks of the kept nodes, halving the chunks until no single node can go).
 * Ownership: the caller owns the description; ddmin_run fills the caller's keep array. */
#ifndef FXSH_DDMIN_H
#define FXSH_DDMIN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ddmin_dag {
    size_t n;                    /* nodes, in topological order */
    size_t *const *preds;        /* preds[i][0..n_preds[i]): nodes whose values node i reads */
    const size_t *n_preds;
    const bool *cuttable;        /* node i's value may become an input of the candidate */
    size_t target;               /* the node that fails (always kept) */
} ddmin_dag;

/* Whether the candidate keeping the nodes keep[i] (the others read by them being inputs) still
 * fails the same way. */
typedef bool (*ddmin_test_fn)(const bool *keep, void *ctx);

typedef enum ddmin_status {
    DDMIN_OK,                    /* keep holds the smallest failing set found */
    DDMIN_NO_FAILURE,            /* not even all of the target's ancestors fail */
    DDMIN_INTERRUPTED,           /* Ctrl-C */
    DDMIN_LIMIT                  /* max_tests reached: keep holds the smallest failing set found so
                                    far (none while still growing: stats.grown is 0 then) */
} ddmin_status;

typedef struct ddmin_stats {
    size_t tests;                /* candidates tested */
    size_t cone;                 /* the target and its ancestors */
    size_t grown;                /* nodes kept when growing first failed */
    size_t kept;                 /* nodes kept at the end */
} ddmin_stats;

/* Fills keep[0..dag->n) with the reduced set. max_tests 0: no limit. */
ddmin_status ddmin_run(const ddmin_dag *dag, ddmin_test_fn test, void *ctx, size_t max_tests, bool *keep,
                       ddmin_stats *stats);

#endif
