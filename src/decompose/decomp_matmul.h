/* decomp_matmul.h — torch's matmul decomposition (at::native::_matmul_impl) for the decompose
 * pass: mm for matrices; a 3-d-or-more tensor times a matrix folded into one mm when its
 * leading dimensions collapse without a copy; otherwise broadcast batches expanded, reshaped
 * and multiplied with bmm. Each step is emitted through a callback, so that the table's rules
 * apply to it (reshape becomes view, or clone + _unsafe_view when it needs a copy).
 *
 * Ownership: nothing is allocated here beyond what the callback allocates. */
#ifndef FXSH_DECOMPOSE_DECOMP_MATMUL_H
#define FXSH_DECOMPOSE_DECOMP_MATMUL_H

#include <stdbool.h>

#include "fx/fx_ir.h"

typedef struct dm_emitter {
    void *ctx;
    fx_program *p;
    /* emits target(args) (no kwargs) and returns its node, NULL after an error */
    fx_node *(*call)(void *ctx, const char *target, fx_arg **args, size_t n);
} dm_emitter;

/* Emits matmul(a, b). Returns the result node; NULL with *failed false when this case is not
 * modelled (symbolic sizes, vectors) and the op should be kept; NULL with *failed true after
 * an error from the callback. */
fx_node *decomp_matmul(const dm_emitter *e, fx_node *a, fx_node *b, bool *failed);

#endif
