/* test_export_mha.c — nn.MultiheadAttention as a call_module exports to the ops torch.export
 * records for F.multi_head_attention_forward (expectations written from torch/nn/functional.py). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "load/load.h"
#include "capture/export.h"

/* print(gm) of a module holding `attn`, with the module line's settings and forward's body. */
static char *module_text(const char *settings, bool out_bias, const char *params, const char *body)
{
    strbuf sb;
    sb_init(&sb);
    /* torch itself prints no settings line: "" leaves it out */
    sb_printf(&sb, "M(\n  (attn): MultiheadAttention(\n");
    if (*settings)
        sb_printf(&sb, "    %s\n", settings);
    sb_printf(&sb,
              "    (out_proj): NonDynamicallyQuantizableLinear(in_features=16, out_features=16, bias=%s)\n"
              "  )\n"
              ")\n\n\n\n"
              "def forward(self, %s):\n%s"
              "    \n# To see more debug info, please use `graph_module.print_readable()`",
              out_bias ? "True" : "False", params, body);
    return sb_detach(&sb);
}

typedef struct run {
    diag_sink d;
    fx_program *src, *out;
    char *text;
} run;

/* Exports the program with inputs declared as "name:d0,d1,..." (NULL-terminated list). */
static void export_text(run *r, const char *text, const char *const *decls)
{
    diag_init(&r->d);
    r->src = fxp_parse_module_text(text, strlen(text), "m.txt", &r->d);
    assert_non_null(r->src);
    export_input_decl in[4];
    const char *dims[4][4];
    char buf[4][64];
    size_t n = 0;
    for (; decls && decls[n]; n++) {
        snprintf(buf[n], sizeof buf[n], "%s", decls[n]);
        char *colon = strchr(buf[n], ':');
        *colon = 0;
        size_t rank = 0;
        for (char *sv = NULL, *t = strtok_r(colon + 1, ",", &sv); t; t = strtok_r(NULL, ",", &sv))
            dims[n][rank++] = t;
        in[n] = (export_input_decl){ buf[n], FX_DT_F32, rank, dims[n] };
    }
    export_options opt = { in, n };
    r->out = export_program(r->src, &opt, &r->d);
    r->text = NULL;
    if (r->out) {
        strbuf sb;
        sb_init(&sb);
        fx_print(r->out, FX_FORM_GRAPH, &sb);
        r->text = sb_detach(&sb);
    }
}

static void run_free(run *r)
{
    free(r->text);
    fx_program_free(r->out);
    fx_program_free(r->src);
    diag_free(&r->d);
}

#define P(name) "    %" name " : [num_users=1] = placeholder[target=" name "]\n"
#define CALL(name, users, op, args) \
    "    %" name " : [num_users=" users "] = call_function[target=torch.ops.aten." op "](args = " args ", kwargs = {})\n"
#define GETITEM(name, list, i) \
    "    %" name " : [num_users=1] = call_function[target=operator.getitem](args = (%" list ", " i "), kwargs = {})\n"

/* Self-attention, sequence first, need_weights (the default): the packed projection, heads into
 * the batch, q * sqrt(1 / head_dim), bmm, softmax, bmm, out_proj, and the weights averaged. */
static void test_self_attention_weights(void **state)
{
    (void)state;
    char *t = module_text("embed_dim=16, num_heads=4", true, "x",
                          "    attn = self.attn(x, x, x)\n"
                          "    getitem = attn[0]\n"
                          "    getitem_1 = attn[1];  attn = None\n"
                          "    return (getitem, getitem_1)\n");
    run r;
    export_text(&r, t, (const char *const[]){ "x:5,2,16", NULL });
    assert_non_null(r.text);
    const char *want =
        "graph():\n"
        P("p_attn_in_proj_weight") P("p_attn_in_proj_bias") P("p_attn_out_proj_weight") P("p_attn_out_proj_bias")
        P("x")
        CALL("linear", "1", "linear.default", "(%x, %p_attn_in_proj_weight, %p_attn_in_proj_bias)")
        CALL("unflatten", "1", "unflatten.int", "(%linear, -1, [3, 16])")
        CALL("unsqueeze", "1", "unsqueeze.default", "(%unflatten, 0)")
        CALL("transpose", "1", "transpose.int", "(%unsqueeze, 0, -2)")
        CALL("squeeze", "1", "squeeze.dim", "(%transpose, -2)")
        CALL("contiguous", "3", "contiguous.default", "(%squeeze,)")
        CALL("select", "1", "select.int", "(%contiguous, 0, 0)")
        CALL("select_1", "1", "select.int", "(%contiguous, 0, 1)")
        CALL("select_2", "1", "select.int", "(%contiguous, 0, 2)")
        CALL("view", "1", "view.default", "(%select, [5, 8, 4])")
        CALL("transpose_1", "1", "transpose.int", "(%view, 0, 1)")
        CALL("view_1", "1", "view.default", "(%select_1, [5, 8, 4])")
        CALL("transpose_2", "1", "transpose.int", "(%view_1, 0, 1)")
        CALL("view_2", "1", "view.default", "(%select_2, [5, 8, 4])")
        CALL("transpose_3", "1", "transpose.int", "(%view_2, 0, 1)")
        CALL("mul", "1", "mul.Tensor", "(%transpose_1, 0.5)")
        CALL("transpose_4", "1", "transpose.int", "(%transpose_2, -2, -1)")
        CALL("bmm", "1", "bmm.default", "(%mul, %transpose_4)")
        CALL("softmax", "2", "softmax.int", "(%bmm, -1)")
        CALL("bmm_1", "1", "bmm.default", "(%softmax, %transpose_3)")
        CALL("transpose_5", "1", "transpose.int", "(%bmm_1, 0, 1)")
        CALL("contiguous_1", "1", "contiguous.default", "(%transpose_5,)")
        CALL("view_3", "1", "view.default", "(%contiguous_1, [10, 16])")
        CALL("linear_1", "1", "linear.default", "(%view_3, %p_attn_out_proj_weight, %p_attn_out_proj_bias)")
        CALL("view_4", "1", "view.default", "(%linear_1, [5, 2, 16])")
        CALL("view_5", "1", "view.default", "(%softmax, [2, 4, 5, 5])")
        CALL("mean", "1", "mean.dim", "(%view_5, [1])")
        "    return (view_4, mean)";
    assert_string_equal(r.text, want);
    /* lifted in named_parameters() order: own parameters, then out_proj's */
    assert_int_equal(r.out->sig.n_inputs, 5);
    assert_string_equal(r.out->sig.inputs[2].target, "attn.out_proj.weight");
    run_free(&r);
    free(t);
}

/* batch_first (positional settings, as the constructor takes them) and need_weights=False: one
 * transpose shared by query, key and value, scaled_dot_product_attention, the output transposed
 * back; the weights are None. */
static void test_batch_first_sdpa(void **state)
{
    (void)state;
    char *t = module_text("16, 4, batch_first=True", true, "x",
                          "    attn = self.attn(x, x, x, need_weights = False)\n"
                          "    getitem = attn[0];  attn = None\n"
                          "    return getitem\n");
    run r;
    export_text(&r, t, (const char *const[]){ "x:2,5,16", NULL });
    assert_non_null(r.text);
    const char *want =
        "graph():\n"
        P("p_attn_in_proj_weight") P("p_attn_in_proj_bias") P("p_attn_out_proj_weight") P("p_attn_out_proj_bias")
        P("x")
        CALL("transpose", "1", "transpose.int", "(%x, 1, 0)")
        CALL("linear", "1", "linear.default", "(%transpose, %p_attn_in_proj_weight, %p_attn_in_proj_bias)")
        CALL("unflatten", "1", "unflatten.int", "(%linear, -1, [3, 16])")
        CALL("unsqueeze", "1", "unsqueeze.default", "(%unflatten, 0)")
        CALL("transpose_1", "1", "transpose.int", "(%unsqueeze, 0, -2)")
        CALL("squeeze", "1", "squeeze.dim", "(%transpose_1, -2)")
        CALL("contiguous", "3", "contiguous.default", "(%squeeze,)")
        CALL("select", "1", "select.int", "(%contiguous, 0, 0)")
        CALL("select_1", "1", "select.int", "(%contiguous, 0, 1)")
        CALL("select_2", "1", "select.int", "(%contiguous, 0, 2)")
        CALL("view", "1", "view.default", "(%select, [5, 8, 4])")
        CALL("transpose_2", "1", "transpose.int", "(%view, 0, 1)")
        CALL("view_1", "1", "view.default", "(%select_1, [5, 8, 4])")
        CALL("transpose_3", "1", "transpose.int", "(%view_1, 0, 1)")
        CALL("view_2", "1", "view.default", "(%select_2, [5, 8, 4])")
        CALL("transpose_4", "1", "transpose.int", "(%view_2, 0, 1)")
        CALL("view_3", "1", "view.default", "(%transpose_2, [2, 4, 5, 4])")
        CALL("view_4", "1", "view.default", "(%transpose_3, [2, 4, 5, 4])")
        CALL("view_5", "1", "view.default", "(%transpose_4, [2, 4, 5, 4])")
        CALL("scaled_dot_product_attention", "1", "scaled_dot_product_attention.default", "(%view_3, %view_4, %view_5)")
        CALL("permute", "1", "permute.default", "(%scaled_dot_product_attention, [2, 0, 1, 3])")
        CALL("contiguous_1", "1", "contiguous.default", "(%permute,)")
        CALL("view_6", "1", "view.default", "(%contiguous_1, [10, 16])")
        CALL("linear_1", "1", "linear.default", "(%view_6, %p_attn_out_proj_weight, %p_attn_out_proj_bias)")
        CALL("view_7", "1", "view.default", "(%linear_1, [5, 2, 16])")
        CALL("transpose_5", "1", "transpose.int", "(%view_7, 1, 0)")
        "    return (transpose_5,)";
    assert_string_equal(r.text, want);
    run_free(&r);
    free(t);
}

/* Key and value one tensor, query another: the weight and bias split [E, 2E], the key/value
 * projection unpacked in two; per-head weights kept (average_attn_weights=False). */
static void test_encoder_decoder(void **state)
{
    (void)state;
    char *t = module_text("embed_dim=16, num_heads=4", true, "x, m",
                          "    attn = self.attn(x, m, m, average_attn_weights = False)\n"
                          "    getitem = attn[0]\n"
                          "    getitem_1 = attn[1];  attn = None\n"
                          "    return (getitem, getitem_1)\n");
    run r;
    export_text(&r, t, (const char *const[]){ "x:5,2,16", "m:7,2,16", NULL });
    assert_non_null(r.text);
    const char *head =
        "graph():\n"
        P("p_attn_in_proj_weight") P("p_attn_in_proj_bias") P("p_attn_out_proj_weight") P("p_attn_out_proj_bias")
        P("x") P("m")
        CALL("split_with_sizes", "2", "split_with_sizes.default", "(%p_attn_in_proj_weight, [16, 32])")
        GETITEM("getitem", "split_with_sizes", "0")
        GETITEM("getitem_1", "split_with_sizes", "1")
        CALL("split_with_sizes_1", "2", "split_with_sizes.default", "(%p_attn_in_proj_bias, [16, 32])")
        GETITEM("getitem_2", "split_with_sizes_1", "0")
        GETITEM("getitem_3", "split_with_sizes_1", "1")
        CALL("linear", "1", "linear.default", "(%x, %getitem, %getitem_2)")
        CALL("linear_1", "1", "linear.default", "(%m, %getitem_1, %getitem_3)")
        CALL("unflatten", "1", "unflatten.int", "(%linear_1, -1, [2, 16])")
        CALL("unsqueeze", "1", "unsqueeze.default", "(%unflatten, 0)")
        CALL("transpose", "1", "transpose.int", "(%unsqueeze, 0, -2)")
        CALL("squeeze", "1", "squeeze.dim", "(%transpose, -2)")
        CALL("contiguous", "2", "contiguous.default", "(%squeeze,)")
        CALL("select", "1", "select.int", "(%contiguous, 0, 0)")
        CALL("select_1", "1", "select.int", "(%contiguous, 0, 1)")
        CALL("view", "1", "view.default", "(%linear, [5, 8, 4])")
        CALL("transpose_1", "1", "transpose.int", "(%view, 0, 1)")
        CALL("view_1", "1", "view.default", "(%select, [7, 8, 4])")
        CALL("transpose_2", "1", "transpose.int", "(%view_1, 0, 1)")
        CALL("view_2", "1", "view.default", "(%select_1, [7, 8, 4])");
    assert_memory_equal(r.text, head, strlen(head));
    assert_non_null(strstr(r.text, CALL("view_5", "1", "view.default", "(%softmax, [2, 4, 5, 7])")
                                   "    return (view_4, view_5)"));
    assert_null(strstr(r.text, "mean"));
    run_free(&r);
    free(t);
}

/* Query, key and value all different: chunk(3) of the weight and the bias, three linears. An
 * unbatched (2-d) call unsqueezes each input on its own, so it takes this path too, and
 * squeezes the results. */
static void test_separate_and_unbatched(void **state)
{
    (void)state;
    char *t = module_text("embed_dim=16, num_heads=4", true, "x, m, y",
                          "    attn = self.attn(x, m, y, None, False)\n"
                          "    getitem = attn[0];  attn = None\n"
                          "    return getitem\n");
    run r;
    export_text(&r, t, (const char *const[]){ "x:5,2,16", "m:7,2,16", "y:7,2,16", NULL });
    assert_non_null(r.text);
    assert_non_null(strstr(r.text, CALL("chunk", "3", "chunk.default", "(%p_attn_in_proj_weight, 3)")
                                   GETITEM("getitem", "chunk", "0") GETITEM("getitem_1", "chunk", "1")
                                   GETITEM("getitem_2", "chunk", "2")
                                   CALL("chunk_1", "3", "chunk.default", "(%p_attn_in_proj_bias, 3)")));
    assert_non_null(strstr(r.text, CALL("linear_2", "1", "linear.default", "(%y, %getitem_2, %getitem_5)")));
    assert_non_null(strstr(r.text, "scaled_dot_product_attention.default](args = (%view_3, %view_4, %view_5)"));
    run_free(&r);
    free(t);

    t = module_text("embed_dim=16, num_heads=4", true, "x",
                    "    attn = self.attn(x, x, x)\n"
                    "    getitem = attn[0]\n"
                    "    getitem_1 = attn[1];  attn = None\n"
                    "    return (getitem, getitem_1)\n");
    export_text(&r, t, (const char *const[]){ "x:5,16", NULL });
    assert_non_null(r.text);
    assert_non_null(strstr(r.text, "    %x : [num_users=3] = placeholder[target=x]\n"
                                   CALL("unsqueeze", "1", "unsqueeze.default", "(%x, 1)")
                                   CALL("unsqueeze_1", "1", "unsqueeze.default", "(%x, 1)")
                                   CALL("unsqueeze_2", "1", "unsqueeze.default", "(%x, 1)")
                                   CALL("chunk", "3", "chunk.default", "(%p_attn_in_proj_weight, 3)")));
    assert_non_null(strstr(r.text, CALL("view", "1", "view.default", "(%linear, [5, 4, 4])")));
    assert_non_null(strstr(r.text, CALL("view_4", "1", "view.default", "(%linear_3, [5, 1, 16])")
                                   CALL("view_5", "1", "view.default", "(%softmax, [1, 4, 5, 5])")
                                   CALL("mean", "1", "mean.dim", "(%view_5, [1])")
                                   CALL("squeeze", "1", "squeeze.dim", "(%view_4, 1)")
                                   CALL("squeeze_1", "1", "squeeze.dim", "(%mean, 0)")
                                   "    return (squeeze, squeeze_1)"));
    run_free(&r);
    free(t);
}

/* bias=False: no in_proj_bias or out_proj.bias to lift, linears without bias. Unknown sizes
 * (no declared input) read sym_size nodes, and heads times batch is an operator.mul. The
 * sequence length feeds the six head views, the product bsz * tgt_len and the output view;
 * the batch size the two products, the three 4-d views and the output view. */
static void test_no_bias_symbolic(void **state)
{
    (void)state;
    char *t = module_text("embed_dim=16, num_heads=4, bias=False", false, "x",
                          "    attn = self.attn(x, x, x, need_weights = False)\n"
                          "    getitem = attn[0];  attn = None\n"
                          "    return getitem\n");
    run r;
    export_text(&r, t, NULL);
    assert_non_null(r.text);
    assert_non_null(strstr(r.text, "graph():\n" P("p_attn_in_proj_weight") P("p_attn_out_proj_weight")));
    assert_int_equal(r.out->sig.n_inputs, 3);
    assert_non_null(strstr(r.text, CALL("linear", "1", "linear.default", "(%x, %p_attn_in_proj_weight)")));
    assert_non_null(strstr(r.text, "%sym_size_int_1 : [num_users=8] = call_function[target=torch.ops.aten.sym_size.int](args = (%x, 0), kwargs = {})\n"
                                   "    %sym_size_int_2 : [num_users=6] = call_function[target=torch.ops.aten.sym_size.int](args = (%x, 1), kwargs = {})\n"));
    assert_non_null(strstr(r.text, "%mul : [num_users=3] = call_function[target=operator.mul](args = (%sym_size_int_2, 4), kwargs = {})"));
    assert_non_null(strstr(r.text, CALL("view", "1", "view.default", "(%select, [%sym_size_int_1, %mul, 4])")));
    run_free(&r);
    free(t);
}

/* What the builder cannot record is refused at the node, with the fix when there is one. */
static void test_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *settings, *call, *message;
    } cases[] = {
        { "", "self.attn(x, x, x)", "does not say num_heads" },
        { "embed_dim=16, num_heads=5", "self.attn(x, x, x)", "must be divisible by num_heads" },
        { "embed_dim=16, num_heads=4, add_bias_kv=True", "self.attn(x, x, x)", "add_bias_kv is not supported" },
        { "embed_dim=16, num_heads=4, kdim=8", "self.attn(x, x, x)", "kdim other than embed_dim" },
        { "embed_dim=16, num_heads=4", "self.attn(x, x, x, attn_mask = x)", "attn_mask are not supported" },
        { "embed_dim=16, num_heads=4", "self.attn(x, x, x, is_causal = True)", "Need attn_mask if specifying the is_causal hint" },
        { "embed_dim=16, num_heads=4", "self.attn(x, x, x, bogus = True)", "bogus is not an argument of forward" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[256];
        snprintf(body, sizeof body, "    attn = %s\n    getitem = attn[0];  attn = None\n    return getitem\n",
                 cases[i].call);
        char *t = module_text(cases[i].settings, true, "x", body);
        run r;
        export_text(&r, t, (const char *const[]){ "x:5,2,16", NULL });
        assert_null(r.out);
        assert_true(r.d.errors > 0);
        if (!strstr(r.d.items[0].message, cases[i].message))
            fail_msg("case %zu: %s", i, r.d.items[0].message);
        assert_int_equal(r.d.items[0].line, 3);   /* the call_module node's line in the graph */
        if (i == 0)
            assert_non_null(strstr(r.d.items[0].hint, "MultiheadAttention(embed_dim=16, num_heads=4"));
        run_free(&r);
        free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_attention_weights),
        cmocka_unit_test(test_batch_first_sdpa),
        cmocka_unit_test(test_encoder_decoder),
        cmocka_unit_test(test_separate_and_unbatched),
        cmocka_unit_test(test_no_bias_symbolic),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
