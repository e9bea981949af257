/* translate_stft.c — aten.stft with a real result (return_complex False) as torchlib writes it:
 * one STFT over the signal as [batch, length, 1] with the window (ones of win_length or n_fft
 * when none is given) centred in n_fft, frequencies moved before frames, the batch dim dropped
 * for a 1-d signal, scaled by 1/sqrt(n_fft) when normalized. Complex results have no ONNX type:
 * an error naming the node. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "translate/translate_internal.h"

/* b: self, n_fft, hop_length, win_length, window, normalized, onesided, return_complex */
bool tx_b_stft(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    if (b[7] && b[7]->kind == FX_ARG_BOOL && b[7]->u.b) {
        tx_fail_node(t, n, "stft with return_complex=True: complex tensors have no ONNX export; use "
                           "return_complex=False (real and imaginary parts in a last dim of 2)");
        return false;
    }
    int r = b[0] && b[0]->kind == FX_ARG_NODE ? tx_rank_of_node(b[0]->u.node) : -1;
    if ((r != 1 && r != 2) || !b[1] || b[1]->kind != FX_ARG_INT || b[1]->u.i <= 0) {
        tx_fail_node(t, n, "stft needs a 1-d or 2-d signal and a constant n_fft");
        return false;
    }
    int64_t nfft = b[1]->u.i, hop = nfft / 4, wl = nfft;
    if (b[2] && b[2]->kind == FX_ARG_INT) hop = b[2]->u.i;
    if (b[3] && b[3]->kind == FX_ARG_INT) wl = b[3]->u.i;
    bool onesided = !(b[6] && b[6]->kind == FX_ARG_BOOL && !b[6]->u.b);
    bool normalized = b[5] && b[5]->kind == FX_ARG_BOOL && b[5]->u.b;
    if (hop <= 0 || wl <= 0 || wl > nfft) {
        tx_fail_node(t, n, "stft needs hop_length > 0 and 0 < win_length <= n_fft");
        return false;
    }
    int dt = tx_onnx_dtype_of_node(b[0]->u.node);
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x || !tx_is_float_type(dt)) {
        if (x) tx_fail_node(t, n, "stft needs a floating-point signal");
        return false;
    }
    int64_t wlen = wl;
    const char *win = NULL;
    if (b[4] && b[4]->kind == FX_ARG_NODE) {
        const fx_value *v = tx_node_val(b[4]->u.node);
        char *end = NULL;
        wlen = v && v->kind == FX_VAL_TENSOR && v->rank == 1 && v->sizes ? strtoll(v->sizes[0], &end, 10) : -1;
        if (!end || *end || wlen <= 0 || wlen > nfft) {
            tx_fail_node(t, n, "stft needs a 1-d window of static size at most n_fft");
            return false;
        }
        win = tx_single(t, n, b[4]->u.node);
        if (!win) return false;
    }
    /* the window centred in n_fft: zeros left and right (all of it built as a constant when none
     * is given) */
    int64_t left = (nfft - wlen) / 2, right = nfft - wlen - left;
    if (!win) {
        float *w = arena_alloc(&t->a, (size_t)nfft * sizeof *w);
        for (int64_t i = 0; i < nfft; i++) w[i] = i >= left && i < left + wlen ? 1.0f : 0.0f;
        win = tx_emit2(t, "CastLike", tx_const_floats(t, w, (size_t)nfft), x, NULL, NULL);
    } else if (left || right) {
        int64_t pads[2] = { left, right };
        win = tx_emit2(t, "Pad", win, tx_const_ints(t, pads, 2), NULL, NULL);
    }
    int64_t axes1[2] = { 0, -1 }, axes2 = -1, zero = 0;
    x = tx_emit2(t, "Unsqueeze", x, tx_const_ints(t, r == 1 ? axes1 : &axes2, r == 1 ? 2 : 1), NULL, NULL);
    const char *step = tx_const_scalar(t, 7, 0, hop, false), *len = tx_const_scalar(t, 7, 0, nfft, false);
    Onnx__NodeProto *st = tx_emit(t, "STFT", "", NULL);
    ox_attr_int(t->m, st, "onesided", onesided ? 1 : 0);
    ox_node_add_input(t->m, st, x);
    ox_node_add_input(t->m, st, step);
    ox_node_add_input(t->m, st, win);
    ox_node_add_input(t->m, st, len);
    const char *y = tx_fresh_val(t);
    ox_node_add_output(t->m, st, y);
    const int64_t perm[4] = { 0, 2, 1, 3 };
    const char *axis0 = r == 1 ? tx_const_ints(t, &zero, 1) : NULL;
    const char *scale = normalized ? tx_const_scalar(t, dt, 1.0 / sqrt((double)nfft), 0, true) : NULL;
    bool more = r == 1 || normalized;
    const char *out = tx_one_output(t, n), *name = tx_node_name_of(t, n);
    Onnx__NodeProto *tr = tx_emit(t, "Transpose", "", more ? NULL : name);
    ox_attr_ints(t->m, tr, "perm", perm, 4);
    ox_node_add_input(t->m, tr, y);
    y = more ? tx_fresh_val(t) : out;
    ox_node_add_output(t->m, tr, y);
    if (r == 1) y = tx_emit2(t, "Squeeze", y, axis0, normalized ? NULL : out, normalized ? NULL : name);
    if (normalized) tx_emit2(t, "Mul", y, scale, out, name);
    return true;
}
