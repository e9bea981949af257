/* functionalize.h — torch's functionalization of in-place ops for the decompose pass: the
 * model of FunctionalTensorWrapper / FunctionalStorageImpl (aten/src/ATen/FunctionalTensorWrapper.cpp,
 * FunctionalStorageImpl.cpp) that turns a write through a view into a scatter of the base.
 *
 * Every tensor value is an fz_tensor: its current node, the storage it aliases and the chain of
 * views that leads from the storage's base to it. A mutation replaces the tensor's node and
 * queues an update on the storage (bumping its generation); a tensor whose generation lags its
 * storage's is stale, and syncing it first applies the queued updates to the base (replaying the
 * views forward down the chain, then their inverses — select_scatter, slice_scatter, ... — back
 * up) and then regenerates the tensor by replaying its views on the new base. A view starts at
 * generation 0, as in torch, so a view taken of an already mutated storage is regenerated at its
 * first use. The nodes are emitted through hooks, so that the pass's decompositions apply to them.
 *
 * Ownership: an fz_state owns every fz_tensor and storage it returns (one arena) until fz_free.
 * View chains point at emitted nodes of the graph being built, which must outlive the state. */
#ifndef FXSH_DECOMPOSE_FUNCTIONALIZE_H
#define FXSH_DECOMPOSE_FUNCTIONALIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "fx/fx_ir.h"

/* One step of a view chain: the emitted view node (its target, its arguments after self, its
 * kwargs, its meta) and, for a multi-output view (split, unbind), which output. */
typedef struct fz_view {
    const fx_node *op;
    int64_t out_index;        /* -1 for a single-output view */
} fz_view;

typedef struct fz_update fz_update;

typedef struct fz_storage {
    fx_node *base;            /* the base tensor's current node */
    fz_update *updates, *last;/* queued, not yet applied */
    unsigned long gen;        /* mutations so far */
} fz_storage;

typedef struct fz_tensor {
    fz_storage *st;
    fx_node *value;           /* the node holding this tensor's value when up to date */
    const fz_view *chain;     /* views from st->base to this tensor, outermost first */
    size_t len;
    unsigned long gen;        /* storage generation this value reflects */
} fz_tensor;

typedef struct fz_hooks {
    void *ctx;
    /* Emits view v applied to base (a multi-output view: the op, then item out_index); returns
     * the node, or NULL after reporting an error. */
    fx_node *(*forward)(void *ctx, const fz_view *v, fx_node *base);
    /* Emits base with mutated written back through view v (the view's inverse); returns the
     * node, or NULL after reporting an error (e.g. a view whose inverse is unknown). */
    fx_node *(*reverse)(void *ctx, const fz_view *v, fx_node *base, fx_node *mutated);
} fz_hooks;

typedef struct fz_state {
    arena a;
    fz_hooks hooks;
} fz_state;

void fz_init(fz_state *s, fz_hooks hooks);
void fz_free(fz_state *s);
/* A tensor with its own storage (a graph input or the result of a non-view op). */
fz_tensor *fz_fresh(fz_state *s, fx_node *value);
/* The view v of base whose value (just emitted) is value. */
fz_tensor *fz_view_of(fz_state *s, const fz_tensor *base, fz_view v, fx_node *value);
/* Brings t up to date (see above); false after a hook failed. */
bool fz_sync(fz_state *s, fz_tensor *t);
/* t now holds new_value: queues the update on t's storage and syncs t. */
bool fz_mutate(fz_state *s, fz_tensor *t, fx_node *new_value);
/* Whether t's storage saw a mutation (torch: has_data_mutation). */
bool fz_mutated(const fz_tensor *t);

#endif
