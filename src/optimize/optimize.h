/* optimize.h — ONNX model optimizer: inlining, constant folding, dead-code removal, dedup.
 *
 * Mirrors what torch.onnx's ONNXProgram.optimize() (onnxscript optimize_ir) does: inline
 * model-local functions, fold constants with the evaluator of eval/onnx_eval.h, lift constants
 * to initializers named after their values, remove dead nodes / initializers / functions /
 * opset imports, deduplicate initializers, eliminate common subexpressions and no-op nodes,
 * plus the few rewrite rules torch exports rely on (Split, Conv+BatchNormalization).
 *
 * Order in optimize_model: inline; then up to two rounds of {fold, no-op removal, rewrites,
 * dead code} (stopping early when nothing changed); then lift, dedup, CSE, dead code.
 *
 * Every pass edits the model in place (the caller optimizes a copy when it must keep the
 * original); new nodes, tensors and strings live in the model's arena. Passes return 0 on
 * success and -1 after reporting an error to d (the model is then still valid but may be only
 * partly optimized). Each pass is linear in the size of the model (hash maps throughout). */
#ifndef FXSH_OPTIMIZE_H
#define FXSH_OPTIMIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "onnx/onnx_ir.h"

typedef struct optimize_options {
    int64_t fold_output_limit;   /* fold only when the output has ≤ this many elements (or no more
                                    than the single-use inputs it replaces) */
    int64_t fold_input_limit;    /* skip nodes with a larger constant input (except a Transpose
                                    that is the input's only consumer) */
    bool fold_constant_of_shape; /* onnxscript keeps ConstantOfShape nodes: off by default */
    int max_depth;               /* subgraph nesting limit */
    bool inline_functions, fold, dce, dedup, cse, remove_noops, lift, rewrite;
} optimize_options;

typedef struct optimize_stats {
    int64_t inlined, folded, lifted, removed_nodes, removed_initializers, removed_functions,
        deduped, cse, noops, rewritten;
} optimize_stats;

/* Defaults as in onnxscript's FoldConstantsPass: output limit 512*512 elements, input limit 8192
 * elements; every pass on; ConstantOfShape not folded; depth 64. */
void optimize_options_default(optimize_options *o);

/* All passes in order; false after reporting (or when Ctrl-C stopped it). o may be NULL
 * (defaults); stats may be NULL (counts are added to it).
 * Optimizing an optimized model changes nothing (idempotent). */
bool optimize_model(ox_model *m, const optimize_options *o, optimize_stats *stats, diag_sink *d);

/* The passes, each callable alone (stats may be NULL). */
bool opt_inline_functions(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d);
bool opt_fold_constants(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d);
bool opt_lift_constants(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d);
bool opt_remove_dead(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d);
bool opt_dedup_initializers(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d);
bool opt_cse(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d);
bool opt_remove_noops(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d);
/* value_info in onnx-ir's serializer's coverage and order (initializers that are not graph
 * inputs, then node outputs that are not graph outputs), in every graph; run last. */
bool opt_order_value_info(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d);
/* Rewrite rules (onnxscript's default rewrites, the ones torch exports need):
 * SplitToSequence(x, const sizes) read only by SequenceAt(const index) → one Split. */
bool opt_rewrite_split_to_sequence(ox_model *m, const optimize_options *o, optimize_stats *st,
                                  diag_sink *d);
/* Conv(x, W, B) — or ConvTranspose (group 1), or Gemm (beta 1) — read only by an inference
 * BatchNormalization with constant parameters → one node with rescaled weight and bias (main
 * graph; float32, float16, bfloat16, float64), as onnxscript's fuse_batchnorm rules do. The
 * weight is a derived weight (onnx/onnx_derive.h), computed when saved or read. */
bool opt_fuse_conv_batchnorm(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d);

#endif
