/* onnx_compare.h — comparing evaluated values: two tensors within a tolerance (`verify`), and two
 * models node by node on the same inputs (`compare`), values matched by name.
 *
 * torch.onnx names each ONNX value after the FX node it comes from (`linear`, `relu_1`,
 * `mul_true_graph_0`), and so does fxsh, so two exports of one program — or two stages of one
 * export — share the names of everything that matters; the exporters' temporaries (`val_12`) are
 * numbered differently and are not matched.
 * Ownership: an oe_compare_result owns the two tensors of the first divergence (release with
 * view_compare_result_free); its names and node pointers are borrowed from the models. */
#ifndef FXSH_ONNX_COMPARE_H
#define FXSH_ONNX_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "eval/onnx_eval.h"
#include "onnx/onnx_ir.h"

/* How far `got` is from `want`: an element passes when |got - want| <= atol + rtol * |want|
 * (NaN equals NaN); sequences and optionals item by item. */
typedef struct oe_diff {
    double max_abs, max_rel;
    int64_t bad, total;
    int64_t worst;               /* flat index of the largest failing difference (bad > 0) */
    const char *problem;         /* a structural mismatch ("shape", ...), or NULL */
} oe_diff;

void view_diff_values(const oe_tensor *got, const oe_tensor *want, double atol, double rtol, oe_diff *df);
/* True when the values agree within the tolerance (no problem, no element beyond it). */
bool view_diff_ok(const oe_diff *df);

/* "float32[2, 16] min -0.287 max 0.771 mean 0.153" (a sequence or optional: its kind and length;
 * NaN and infinities counted when present). */
void view_value_summary(const oe_tensor *t, strbuf *out);
/* "[1, 3]": the multi-index of flat element i of t. */
void view_index_text(const oe_tensor *t, int64_t i, strbuf *out);

typedef struct oe_compare_opts {
    double atol, rtol;
    int64_t max_loop_iters;      /* as in oe_model_opts; 0 → the evaluator's default */
} oe_compare_opts;

typedef struct oe_compare_result {
    size_t n_matched;            /* values both models compute, by name (temporaries excluded) */
    size_t n_checked;            /* of those, computed by both on these inputs (untaken If branches are not) */
    size_t n_only_a, n_only_b;   /* named values of one model only */
    size_t n_diverged;           /* of the checked values, how many differ beyond the tolerance */
    /* the first value of a (in a's evaluation order) that differs beyond the tolerance */
    bool diverged;
    const char *name;
    const Onnx__NodeProto *node_a, *node_b;
    oe_tensor value_a, value_b;
    oe_diff diff;
    /* inputs of node_a that a computes but b has no value for (a renamed or replaced node is
     * often the cause): their names and producers in a, at most OE_COMPARE_MAX_UNMATCHED */
#define OE_COMPARE_MAX_UNMATCHED 4
    const char *unmatched[OE_COMPARE_MAX_UNMATCHED];
    const Onnx__NodeProto *unmatched_node[OE_COMPARE_MAX_UNMATCHED];
    size_t n_unmatched;
    /* without a divergence: the largest difference seen, and where */
    double max_abs;
    const char *max_abs_name;
} oe_compare_result;

/* Evaluates b, keeping the values whose names a computes too, then a, comparing each such value
 * as a produces it with b's. inputs_a / inputs_b are each model's graph inputs (the same values,
 * under each model's input names). OE_OK with the result filled (diverged or not); OE_ERROR after
 * reporting to d ("in MODEL: ..." when a model fails to evaluate; `label_a` / `label_b` name the
 * models). */
int view_compare_models(const ox_model *a, const char *label_a, const oe_named *inputs_a, size_t nin_a,
                      const ox_model *b, const char *label_b, const oe_named *inputs_b, size_t nin_b,
                      const oe_compare_opts *o, oe_compare_result *r, diag_sink *d);
void view_compare_result_free(oe_compare_result *r);

#endif
