/* translate_stft.c — aten.stft as torchlib writes it:
 * one STFT over the signal as [batch, length, 1] with the window (ones of win_length or n_fft
 * when none is given) centred in n_fft, frequencies moved before frames, the batch dim dropped
 * for a 1-d signal, divided by sqrt(n_fft) when normalized. A complex result (return_complex) is
 * the same tensor: torch.onnx's real form of a complex value, a last dim of 2. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "translate/translate_internal.h"

/* b: self, n_fft, hop_length, win_length, window, normalized, onesided, return_complex (ignored, as torchlib does) */
static bool b_stft(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
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
    int64_t axes1[2] = { 0, -1 }, axes2 = -1, zero = 0, one = 1, two = 2;
    x = tx_emit2(t, "Unsqueeze", x, tx_own_ints(t, r == 1 ? axes1 : &axes2, r == 1 ? 2 : 1), NULL, NULL);
    const char *win;
    if (b[4] && b[4]->kind == FX_ARG_NODE) {
        /* a given window is centred in n_fft with zeros (torchlib compares its traced length with
         * n_fft in Python, which fails; torch.stft pads it so) */
        const fx_value *v = tx_node_val(b[4]->u.node);
        char *end = NULL;
        int64_t wlen = v && v->kind == FX_VAL_TENSOR && v->rank == 1 && v->sizes ? strtoll(v->sizes[0], &end, 10) : -1;
        if (!end || *end || wlen <= 0 || wlen > nfft) {
            tx_fail_node(t, n, "stft needs a 1-d window of static size at most n_fft");
            return false;
        }
        win = tx_single(t, n, b[4]->u.node);
        if (!win) return false;
        int64_t pads[2] = { (nfft - wlen) / 2, nfft - wlen - (nfft - wlen) / 2 };
        if (pads[0] || pads[1]) win = tx_emit2(t, "Pad", win, tx_const_ints(t, pads, 2), NULL, NULL);
    } else if (b[3] && b[3]->kind == FX_ARG_INT) {
        /* torchlib's _create_window_from_win_length: ones of win_length between zeros, the sizes
         * computed by ONNX ops on the Python numbers */
        const char *nf = tx_const_scalar(t, OT_INT64, 0, nfft, false), *w = tx_const_scalar(t, OT_INT64, 0, wl, false);
        const char *diff = tx_emit2(t, "Sub", nf, w, NULL, NULL);   /* Python evaluates in this order */
        const char *left = tx_emit2(t, "Div", diff, tx_own_ints(t, &two, 1), NULL, NULL);
        const char *rest = tx_emit2(t, "Sub", nf, left, NULL, NULL);
        const char *right = tx_emit2(t, "Sub", rest, w, NULL, NULL);
        left = tx_emit2(t, "Reshape", left, tx_own_ints(t, &one, 1), NULL, NULL);
        right = tx_emit2(t, "Reshape", right, tx_own_ints(t, &one, 1), NULL, NULL);
        const char *wr = tx_emit2(t, "Reshape", w, tx_own_ints(t, &one, 1), NULL, NULL);
        const char *lw = tx_emit2(t, "Expand", tx_own_ints(t, &zero, 1), left, NULL, NULL);
        const char *rw = tx_emit2(t, "Expand", tx_own_ints(t, &zero, 1), right, NULL, NULL);
        const char *mid = tx_emit2(t, "Expand", tx_own_ints(t, &one, 1), wr, NULL, NULL);
        win = tx_emit_concat3(t, lw, mid, rw);
    } else {
        /* torchlib's _create_window_from_n_fft: Expand of [1] to n_fft */
        const char *shape1 = tx_own_ints(t, &one, 1);   /* made before the call converts n_fft */
        const char *len1 = tx_emit2(t, "Reshape", tx_const_scalar(t, OT_INT64, 0, nfft, false), shape1, NULL, NULL);
        const char *ones = tx_own_ints(t, &one, 1);
        win = tx_emit2(t, "Expand", ones, len1, NULL, NULL);
    }
    win = tx_emit2(t, "CastLike", win, x, NULL, NULL);
    const char *step = tx_const_scalar(t, OT_INT64, 0, hop, false), *len = tx_const_scalar(t, OT_INT64, 0, nfft, false);
    Onnx__NodeProto *st = tx_emit(t, "STFT", "", NULL);
    ox_attr_int(t->m, st, "onesided", onesided ? 1 : 0);
    ox_node_add_input(t->m, st, x);
    ox_node_add_input(t->m, st, step);
    ox_node_add_input(t->m, st, win);
    ox_node_add_input(t->m, st, len);
    const char *y = tx_fresh_val(t);
    ox_node_add_output(t->m, st, y);
    const int64_t perm[4] = { 0, 2, 1, 3 };
    bool more = r == 1 || normalized;
    const char *out = tx_one_output(t, n), *name = tx_node_name_of(t, n);
    Onnx__NodeProto *tr = tx_emit(t, "Transpose", "", more ? NULL : name);
    ox_attr_ints(t->m, tr, "perm", perm, 4);
    ox_node_add_input(t->m, tr, y);
    y = more ? tx_fresh_val(t) : out;
    ox_node_add_output(t->m, tr, y);
    if (r == 1) y = tx_emit2(t, "Squeeze", y, tx_own_ints(t, &zero, 1), normalized ? NULL : out, normalized ? NULL : name);
    if (normalized) {   /* torchlib's _normalize_fft_result: divided by sqrt(n_fft) cast like the signal */
        const char *shape1 = tx_own_ints(t, &one, 1);
        const char *nf = tx_emit2(t, "Reshape", len, shape1, NULL, NULL);
        const char *nfx = tx_emit2(t, "CastLike", nf, x, NULL, NULL);
        const char *sq = tx_emit1(t, "Sqrt", nfx, NULL, NULL);
        tx_emit2(t, "Div", y, sq, out, name);
    }
    return true;
}

static const tx_builtin_entry builtins[] = {
    { "stft", b_stft, 8 },
};

const builtin_family tx_stft_builtins = BUILTIN_FAMILY("stft", builtins);
