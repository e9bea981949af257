/* translate_rnn.c — aten.lstm.input and aten.gru.input as torchlib's aten_lstm / aten_gru (and
 * aten.rnn_tanh.input / rnn_relu.input, which torchlib leaves to torch's decomposition into one
 * step per time step, the same way as one ONNX RNN with its activation, any sequence length): per
 * layer, each direction's weights with their gates reordered from torch's (LSTM i f g o, GRU r z
 * n) to ONNX's (LSTM i o f c, GRU z r h), stacked over the directions, one ONNX LSTM / GRU (GRU with
 * linear_before_reset = 1, torch's formulation), its Y [seq, dirs, batch, H] made [seq, batch,
 * dirs * H] for the next layer, the layers' final states concatenated. The gate slices use the
 * hidden size from the initial state's static dim 2 (torch's weights fix it); sequence and batch
 * may be symbolic. Where ONNX cannot say what torch computes the node is refused by name:
 * dropout between layers in training mode (random), LSTM projections (proj_size: five weights per
 * direction), and bfloat16, which ONNX's LSTM / GRU do not take, runs in float32 and is rounded
 * back once (torch's CPU kernels compute it in float32 too). */
#include <stdint.h>

#include "translate/translate_internal.h"

enum { MAX_RNN_LAYERS = 1024 };

typedef struct rnn_op {
    bool lstm;
    int gates;                  /* 4 (LSTM), 3 (GRU) or 1 (RNN) */
    const int *onnx_order;      /* for each ONNX gate, torch's gate index */
    const char *onnx_op;        /* LSTM, GRU or RNN */
    const char *activation;     /* RNN's (Tanh or Relu), NULL for ONNX's default */
} rnn_op;

static const int lstm_order[] = {0, 3, 1, 2};   /* i o f c  from  i f g o */
static const int gru_order[] = {1, 0, 2};       /* z r h    from  r z n */
static const int rnn_order[] = {0};

static bool arg_bool(const fx_arg *a, bool *v)
{
    if (a->kind == FX_ARG_BOOL) *v = a->u.b;
    else if (a->kind == FX_ARG_INT) *v = a->u.i != 0;
    else return false;
    return true;
}

/* The ONNX value of a tensor argument (a node), cast to float32 when run is float32 and it is not. */
static const char *tensor_in(tx *t, const fx_node *n, const fx_arg *a, int run)
{
    if (a->kind != FX_ARG_NODE) {
        tx_fail_node(t, n, "expected a tensor argument");
        return NULL;
    }
    const char *v = tx_single(t, n, a->u.node);
    if (v && run && tx_onnx_dtype_of_node(a->u.node) != run) v = tx_emit_cast(t, v, run, NULL, NULL);
    return v;
}

/* w [gates * H, ...] with its gate blocks in ONNX's order, unsqueezed to [1, gates * H, ...]. */
static const char *reordered(tx *t, const rnn_op *op, const char *w, int64_t H)
{
    const char *parts[4];
    int64_t axis = 0;
    const char *axes = tx_const_ints(t, &axis, 1);
    for (int g = 0; g < op->gates; g++) {
        int64_t st = op->onnx_order[g] * H, en = st + H;
        const char *sv = tx_const_ints(t, &st, 1), *ev = tx_const_ints(t, &en, 1);
        const char *in[] = {w, sv, ev, axes};
        parts[g] = tx_emitn(t, "Slice", in, 4, NULL, NULL);
    }
    Onnx__NodeProto *cc = tx_emit(t, "Concat", "", NULL);
    ox_attr_int(t->m, cc, "axis", 0);
    for (int g = 0; g < op->gates; g++) ox_node_add_input(t->m, cc, parts[g]);
    const char *cat = tx_fresh_val(t);
    ox_node_add_output(t->m, cc, cat);
    return tx_emit2(t, "Unsqueeze", cat, axes, NULL, NULL);
}

/* Concat <axis: 0> of k values (the one value itself when k == 1), into out when given. */
static const char *concat0(tx *t, const char *const *v, size_t k, const char *out)
{
    if (k == 1 && !out) return v[0];
    Onnx__NodeProto *cc = tx_emit(t, k == 1 ? "Identity" : "Concat", "", NULL);
    if (k > 1) ox_attr_int(t->m, cc, "axis", 0);
    for (size_t i = 0; i < k; i++) ox_node_add_input(t->m, cc, v[i]);
    const char *o = out ? out : tx_fresh_val(t);
    ox_node_add_output(t->m, cc, o);
    return o;
}

static bool rnn(tx *t, const fx_node *n, const fx_arg **b, const rnn_op *op)
{
    /* input, hx (LSTM: [h0, c0]; GRU: h0), params, has_biases, num_layers, dropout, train,
     * bidirectional, batch_first */
    bool has_biases, train, bidir, batch_first;
    int64_t layers;
    double dropout = b[5]->kind == FX_ARG_FLOAT ? b[5]->u.f : b[5]->kind == FX_ARG_INT ? (double)b[5]->u.i : -1;
    if (!arg_bool(b[3], &has_biases) || !tx_int_of(b[4], &layers) || dropout < 0 || !arg_bool(b[6], &train) ||
        !arg_bool(b[7], &bidir) || !arg_bool(b[8], &batch_first) || layers < 1 || layers > MAX_RNN_LAYERS) {
        tx_fail_node(t, n, "has_biases, num_layers, dropout, train, bidirectional and batch_first must be constants");
        return false;
    }
    if (train && dropout > 0 && layers > 1) {
        tx_fail_node(t, n, arena_printf(&t->a, "dropout %g between layers in training mode is random: no model reproduces "
                                               "it (export the module in eval mode)", dropout));
        return false;
    }
    const fx_arg *hx = b[1], *params = b[2];
    const fx_arg *h0 = op->lstm ? (hx->kind == FX_ARG_LIST && hx->u.seq.len == 2 ? hx->u.seq.items[0] : NULL) : hx;
    const fx_arg *c0 = op->lstm && h0 ? hx->u.seq.items[1] : NULL;
    int64_t dirs = bidir ? 2 : 1, per = has_biases ? 4 : 2;
    if (!h0 || h0->kind != FX_ARG_NODE || (op->lstm && (!c0 || c0->kind != FX_ARG_NODE))) {
        tx_fail_node(t, n, op->lstm ? "hx must be the two tensors [h0, c0]" : "hx must be a tensor");
        return false;
    }
    if (params->kind != FX_ARG_LIST || (int64_t)params->u.seq.len != layers * dirs * per) {
        size_t got = params->kind == FX_ARG_LIST ? params->u.seq.len : 0;
        tx_fail_node(t, n, arena_printf(&t->a, "%zu weights for %lld layer(s) of %lld direction(s) with %lld each%s", got,
                                        (long long)layers, (long long)dirs, (long long)per,
                                        op->lstm && got == (size_t)(layers * dirs * (per + 1))
                                            ? ": an LSTM with proj_size, which ONNX's LSTM has no form for" : ""));
        return false;
    }
    const fx_value *hv = tx_node_val(h0->u.node);
    char *end = NULL;
    long long H = hv && hv->kind == FX_VAL_TENSOR && hv->rank == 3 ? strtoll(hv->sizes[2], &end, 10) : -1;
    if (H <= 0 || !end || *end) {
        tx_fail_node(t, n, "the hidden size (dim 2 of the initial state) must be a known number");
        return false;
    }
    int dt = tx_onnx_dtype_of_node(b[0]->u.node);
    int run = dt == OT_BFLOAT16 ? OT_FLOAT : 0;   /* ONNX's RNNs take no bfloat16 */

    const char **out = tx_output_names(t, n, op->lstm ? 3 : 2);
    tx_set_val(t, n, out, op->lstm ? 3 : 2);
    const char *x = tensor_in(t, n, b[0], run);
    const char *h = tensor_in(t, n, h0, run), *c = op->lstm ? tensor_in(t, n, c0, run) : NULL;
    if (!x || !h || (op->lstm && !c)) return false;
    const int64_t perm[] = {1, 0, 2};
    if (batch_first) {
        Onnx__NodeProto *tr = tx_emit(t, "Transpose", "", NULL);
        ox_attr_ints(t->m, tr, "perm", perm, 3);
        ox_node_add_input(t->m, tr, x);
        x = tx_fresh_val(t);
        ox_node_add_output(t->m, tr, x);
    }
    const char **hs = arena_alloc(&t->a, (size_t)layers * sizeof *hs), **cs = arena_alloc(&t->a, (size_t)layers * sizeof *cs);
    for (int64_t l = 0; l < layers; l++) {
        int64_t s0 = l * dirs, s1 = s0 + dirs, axis0 = 0;
        const char *sv = tx_const_ints(t, &s0, 1), *ev = tx_const_ints(t, &s1, 1), *axes = tx_const_ints(t, &axis0, 1);
        const char *hin[] = {h, sv, ev, axes};
        const char *lh = tx_emitn(t, "Slice", hin, 4, NULL, NULL), *lc = NULL;
        if (op->lstm) {
            const char *cin[] = {c, sv, ev, axes};
            lc = tx_emitn(t, "Slice", cin, 4, NULL, NULL);
        }
        const char *W[2], *R[2], *B[2];
        for (int64_t d = 0; d < dirs; d++) {
            const fx_arg *const *p = (const fx_arg *const *)params->u.seq.items + (l * dirs + d) * per;
            const char *wih = tensor_in(t, n, p[0], run), *whh = tensor_in(t, n, p[1], run);
            if (!wih || !whh) return false;
            W[d] = reordered(t, op, wih, H);
            R[d] = reordered(t, op, whh, H);
            if (has_biases) {
                const char *bih = tensor_in(t, n, p[2], run), *bhh = tensor_in(t, n, p[3], run);
                if (!bih || !bhh) return false;
                const char *both[] = {reordered(t, op, bih, H), reordered(t, op, bhh, H)};
                /* [1, gates*H] twice -> ONNX's B [1, 2 * gates * H] (Wb then Rb) */
                Onnx__NodeProto *cc = tx_emit(t, "Concat", "", NULL);
                ox_attr_int(t->m, cc, "axis", 1);
                ox_node_add_input(t->m, cc, both[0]);
                ox_node_add_input(t->m, cc, both[1]);
                B[d] = tx_fresh_val(t);
                ox_node_add_output(t->m, cc, B[d]);
            }
        }
        /* the stacked weights first: a node comes after the nodes that make its inputs */
        const char *w = concat0(t, W, (size_t)dirs, NULL), *r = concat0(t, R, (size_t)dirs, NULL);
        const char *bias = has_biases ? concat0(t, B, (size_t)dirs, NULL) : "";
        Onnx__NodeProto *cell = tx_emit(t, op->onnx_op, "", l == layers - 1 ? tx_node_name_of(t, n) : NULL);
        ox_attr_string(t->m, cell, "direction", bidir ? "bidirectional" : "forward");
        ox_attr_int(t->m, cell, "hidden_size", H);
        if (op->gates == 3) ox_attr_int(t->m, cell, "linear_before_reset", 1);
        if (op->activation) {
            const char *acts[] = {op->activation, op->activation};
            ox_attr_strings(t->m, cell, "activations", acts, (size_t)dirs);
        }
        ox_node_add_input(t->m, cell, x);
        ox_node_add_input(t->m, cell, w);
        ox_node_add_input(t->m, cell, r);
        ox_node_add_input(t->m, cell, bias);
        ox_node_add_input(t->m, cell, "");   /* sequence_lens: every sequence is whole */
        ox_node_add_input(t->m, cell, lh);
        if (op->lstm) ox_node_add_input(t->m, cell, lc);
        const char *y = tx_fresh_val(t);
        hs[l] = tx_fresh_val(t);
        ox_node_add_output(t->m, cell, y);
        ox_node_add_output(t->m, cell, hs[l]);
        if (op->lstm) {
            cs[l] = tx_fresh_val(t);
            ox_node_add_output(t->m, cell, cs[l]);
        }
        /* Y [seq, dirs, batch, H] -> [seq, batch, dirs * H] */
        const int64_t yperm[] = {0, 2, 1, 3}, shape[] = {0, 0, -1};
        Onnx__NodeProto *tr = tx_emit(t, "Transpose", "", NULL);
        ox_attr_ints(t->m, tr, "perm", yperm, 4);
        ox_node_add_input(t->m, tr, y);
        const char *yt = tx_fresh_val(t);
        ox_node_add_output(t->m, tr, yt);
        bool last = l == layers - 1;
        const char *to = last && !batch_first && !run ? out[0] : NULL;
        x = tx_emit2(t, "Reshape", yt, tx_const_ints(t, shape, 3), to, NULL);
    }
    if (batch_first) {
        Onnx__NodeProto *tr = tx_emit(t, "Transpose", "", NULL);
        ox_attr_ints(t->m, tr, "perm", perm, 3);
        ox_node_add_input(t->m, tr, x);
        const char *o = run ? tx_fresh_val(t) : out[0];
        ox_node_add_output(t->m, tr, o);
        x = o;
    }
    const char *hn = concat0(t, hs, (size_t)layers, run ? NULL : out[1]);
    const char *cn = op->lstm ? concat0(t, cs, (size_t)layers, run ? NULL : out[2]) : NULL;
    if (run) {   /* back to the node's own type, rounded once */
        tx_emit_cast(t, x, dt, out[0], NULL);
        tx_emit_cast(t, hn, dt, out[1], NULL);
        if (op->lstm) tx_emit_cast(t, cn, dt, out[2], NULL);
    }
    return true;
}

static bool b_lstm(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    static const rnn_op op = {true, 4, lstm_order, "LSTM", NULL};
    return rnn(t, n, b, &op);
}

static bool b_gru(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    static const rnn_op op = {false, 3, gru_order, "GRU", NULL};
    return rnn(t, n, b, &op);
}

static bool b_rnn_tanh(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    static const rnn_op op = {false, 1, rnn_order, "RNN", "Tanh"};
    return rnn(t, n, b, &op);
}

static bool b_rnn_relu(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    static const rnn_op op = {false, 1, rnn_order, "RNN", "Relu"};
    return rnn(t, n, b, &op);
}

static const tx_builtin_entry builtins[] = {
    { "lstm", b_lstm, 9 },
    { "gru", b_gru, 9 },
    { "rnn_tanh", b_rnn_tanh, 9 },
    { "rnn_relu", b_rnn_relu, 9 },
};

const builtin_family tx_rnn_builtins = BUILTIN_FAMILY("rnn", builtins);
