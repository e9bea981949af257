/* test_export_basic.c — export pass on graphs built in the test and on copied corpus fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_paths.h"
#include "base/file.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "fx/fx_build.h"
#include "fx/fx.h"
#include "load/load.h"
#include "capture/export.h"

static fx_arg *tuple(fx_program *p, fx_arg **items, size_t n) { return fx_arg_seq(p, FX_ARG_TUPLE, items, NULL, n); }

static fx_node *add(fx_graph *g, const char *name, fx_opcode op, const char *target, fx_arg **args, size_t n,
                    const char **kn, fx_arg **kv, size_t nk)
{
    fx_program *p = g->owner->prog;
    fx_node *x = fx_node_new(g, name, op, target);
    fx_graph_append(g, x);
    fx_node_set_args(x, tuple(p, args, n), fx_arg_seq(p, FX_ARG_DICT, kv, kn, nk));
    return x;
}

static void set_output(fx_graph *g, fx_node *v)
{
    fx_program *p = g->owner->prog;
    fx_arg *a = fx_arg_node(p, v);
    add(g, "output", FX_OP_OUTPUT, "output", &a, 1, NULL, NULL, 0);
}

static char *print_graph(const fx_program *p)
{
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_GRAPH, &sb);
    return sb_detach(&sb);
}

/* x -> fc1 (Linear) -> act (ReLU module) -> torch.relu -> output */
static void test_mlp_lifts_and_inlines(void **state)
{
    (void)state;
    fx_program *p = fx_program_new("MLP");
    fx_module_add_child(p->root, "fc1", "Linear", "Linear(in_features=8, out_features=16, bias=True)");
    fx_module_add_child(p->root, "act", "ReLU", "ReLU()");
    fx_module_add_child(p->root, "fc2", "Linear", "Linear(in_features=16, out_features=4, bias=False)");
    fx_graph *g = fx_program_graph(p);
    fx_node *x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0, NULL, NULL, 0);
    fx_arg *a = fx_arg_node(p, x);
    fx_node *fc1 = add(g, "fc1", FX_OP_CALL_MODULE, "fc1", &a, 1, NULL, NULL, 0);
    a = fx_arg_node(p, fc1);
    fx_node *act = add(g, "act", FX_OP_CALL_MODULE, "act", &a, 1, NULL, NULL, 0);
    a = fx_arg_node(p, act);
    fx_node *r = add(g, "relu", FX_OP_CALL_FUNCTION, "torch.relu", &a, 1, NULL, NULL, 0);
    a = fx_arg_node(p, r);
    fx_node *fc2 = add(g, "fc2", FX_OP_CALL_MODULE, "fc2", &a, 1, NULL, NULL, 0);
    set_output(g, fc2);
    fx_program_refresh(p);

    diag_sink d;
    diag_init(&d);
    fx_program *e = export_program(p, NULL, &d);
    assert_non_null(e);
    assert_int_equal(d.errors, 0);
    char *text = print_graph(e);
    const char *want =
        "graph():\n"
        "    %p_fc1_weight : [num_users=1] = placeholder[target=p_fc1_weight]\n"
        "    %p_fc1_bias : [num_users=1] = placeholder[target=p_fc1_bias]\n"
        "    %p_fc2_weight : [num_users=1] = placeholder[target=p_fc2_weight]\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %linear : [num_users=1] = call_function[target=torch.ops.aten.linear.default](args = (%x, %p_fc1_weight, %p_fc1_bias), kwargs = {})\n"
        "    %relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%linear,), kwargs = {})\n"
        "    %relu_1 : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%relu,), kwargs = {})\n"
        "    %linear_1 : [num_users=1] = call_function[target=torch.ops.aten.linear.default](args = (%relu_1, %p_fc2_weight), kwargs = {})\n"
        "    return (linear_1,)";
    assert_string_equal(text, want);
    assert_true(e->sig.present);
    assert_int_equal(e->sig.n_inputs, 4);
    assert_int_equal(e->sig.inputs[0].kind, FX_IN_PARAMETER);
    assert_string_equal(e->sig.inputs[0].target, "fc1.weight");
    assert_int_equal(e->sig.inputs[3].kind, FX_IN_USER_INPUT);
    assert_int_equal(e->sig.n_outputs, 1);
    assert_string_equal(e->sig.outputs[0].name, "linear_1");
    assert_non_null(fx_program_weight(e, "fc2.weight"));
    assert_null(fx_program_weight(e, "fc2.bias"));
    free(text);
    /* exporting the exported program again passes it through unchanged */
    fx_program *again = export_program(e, NULL, &d);
    assert_non_null(again);
    char *t1 = print_graph(e), *t2 = print_graph(again);
    assert_string_equal(t1, t2);
    free(t1);
    free(t2);
    fx_program_free(again);
    fx_program_free(e);
    fx_program_free(p);
    diag_free(&d);
}

/* x.add_(1); mean(x, dim=1); softmax(dim=-1): kwargs → positional, in-place aliasing. */
static void test_inplace_and_kwargs(void **state)
{
    (void)state;
    fx_program *p = fx_program_new("M");
    fx_graph *g = fx_program_graph(p);
    fx_node *x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0, NULL, NULL, 0);
    fx_arg *args[2] = { fx_arg_node(p, x), fx_arg_int(p, 1) };
    add(g, "add_", FX_OP_CALL_METHOD, "add_", args, 2, NULL, NULL, 0);
    fx_arg *a = fx_arg_node(p, x);
    const char *kn[1] = { "dim" };
    fx_arg *kv[1] = { fx_arg_int(p, 1) };
    fx_node *m = add(g, "mean", FX_OP_CALL_METHOD, "mean", &a, 1, kn, kv, 1);
    a = fx_arg_node(p, m);
    kv[0] = fx_arg_int(p, -1);
    fx_node *s = add(g, "softmax", FX_OP_CALL_FUNCTION, "torch.softmax", &a, 1, kn, kv, 1);
    fx_node *sum_in[1] = { s };
    a = fx_arg_node(p, sum_in[0]);
    fx_node *sm = add(g, "sum_1", FX_OP_CALL_METHOD, "sum", &a, 1, NULL, NULL, 0);
    set_output(g, sm);
    fx_program_refresh(p);

    diag_sink d;
    diag_init(&d);
    fx_program *e = export_program(p, NULL, &d);
    assert_non_null(e);
    char *text = print_graph(e);
    const char *want =
        "graph():\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %add_ : [num_users=1] = call_function[target=torch.ops.aten.add_.Tensor](args = (%x, 1), kwargs = {})\n"
        "    %mean : [num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%add_, [1]), kwargs = {})\n"
        "    %softmax : [num_users=1] = call_function[target=torch.ops.aten.softmax.int](args = (%mean, -1), kwargs = {})\n"
        "    %sum_1 : [num_users=1] = call_function[target=torch.ops.aten.sum.default](args = (%softmax,), kwargs = {})\n"
        "    return (sum_1,)";
    assert_string_equal(text, want);
    /* the signature names the input placeholder, not the in-place result that replaced it */
    assert_int_equal(e->sig.n_inputs, 1);
    assert_string_equal(e->sig.inputs[0].name, "x");
    free(text);
    fx_program_free(e);
    fx_program_free(p);
    diag_free(&d);
}

static void test_unsupported_reports(void **state)
{
    (void)state;
    fx_program *p = fx_program_new("M");
    fx_module_add_child(p->root, "rnn", "LSTM", "LSTM(4, 4)");
    fx_graph *g = fx_program_graph(p);
    fx_node *x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0, NULL, NULL, 0);
    fx_arg *a = fx_arg_node(p, x);
    fx_node *f = add(g, "frob", FX_OP_CALL_METHOD, "frobnicate", &a, 1, NULL, NULL, 0);
    set_output(g, f);
    fx_program_refresh(p);
    diag_sink d;
    diag_init(&d);
    assert_null(export_program(p, NULL, &d));
    assert_true(d.errors > 0);
    assert_non_null(strstr(d.items[0].message, "frobnicate"));
    fx_program_free(p);

    /* an unknown module type */
    p = fx_program_new("M");
    fx_module_add_child(p->root, "rnn", "LSTM", "LSTM(4, 4)");
    g = fx_program_graph(p);
    x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0, NULL, NULL, 0);
    a = fx_arg_node(p, x);
    f = add(g, "rnn", FX_OP_CALL_MODULE, "rnn", &a, 1, NULL, NULL, 0);
    set_output(g, f);
    diag_clear(&d);
    assert_null(export_program(p, NULL, &d));
    assert_non_null(strstr(d.items[0].message, "LSTM"));
    fx_program_free(p);
    diag_free(&d);
}

/* x.shape[0]: an int when declared static, a sym_size node otherwise. */
static char *print_code(const fx_program *p)
{
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_CODE, &sb);
    return sb_detach(&sb);
}

/* Exported without its weights, a program still gets each weight's shape from its module's
 * settings (print(gm) shows them), and every node its value meta, as torch.export's fake
 * tensors would: conv (groups), batch norm (its int64 counter), layer norm (a tuple shape),
 * linear. An intermediate size query then specializes to a constant. */
static void test_weight_shapes_and_inferred_meta(void **state)
{
    (void)state;
    fx_program *p = fx_program_new("Net");
    fx_module_add_child(p->root, "conv", "Conv2d", "Conv2d(4, 8, kernel_size=(3, 3), stride=(1, 1), groups=2)");
    fx_module_add_child(p->root, "bn", "BatchNorm2d", "BatchNorm2d(8, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
    fx_module_add_child(p->root, "ln", "LayerNorm", "LayerNorm((6,), eps=1e-05, elementwise_affine=True)");
    fx_module_add_child(p->root, "fc", "Linear", "Linear(in_features=6, out_features=5, bias=True)");
    fx_graph *g = fx_program_graph(p);
    fx_node *x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0, NULL, NULL, 0);
    fx_arg *a = fx_arg_node(p, x);
    fx_node *c = add(g, "conv", FX_OP_CALL_MODULE, "conv", &a, 1, NULL, NULL, 0);
    a = fx_arg_node(p, c);
    fx_node *b = add(g, "bn", FX_OP_CALL_MODULE, "bn", &a, 1, NULL, NULL, 0);
    a = fx_arg_node(p, b);
    fx_node *l = add(g, "ln", FX_OP_CALL_MODULE, "ln", &a, 1, NULL, NULL, 0);
    a = fx_arg_node(p, l);
    fx_node *f = add(g, "fc", FX_OP_CALL_MODULE, "fc", &a, 1, NULL, NULL, 0);
    /* f.reshape(f.shape[0], -1): the size is read from f, whose meta export inferred */
    fx_arg *ga[2] = { fx_arg_node(p, f), fx_arg_str(p, FX_ARG_OPAQUE, "shape") };
    fx_node *sh = add(g, "getattr_1", FX_OP_CALL_FUNCTION, "builtins.getattr", ga, 2, NULL, NULL, 0);
    fx_arg *gi[2] = { fx_arg_node(p, sh), fx_arg_int(p, 0) };
    fx_node *d0 = add(g, "getitem", FX_OP_CALL_FUNCTION, "operator.getitem", gi, 2, NULL, NULL, 0);
    fx_arg *ra[3] = { fx_arg_node(p, f), fx_arg_node(p, d0), fx_arg_int(p, -1) };
    fx_node *r = add(g, "reshape", FX_OP_CALL_METHOD, "reshape", ra, 3, NULL, NULL, 0);
    set_output(g, r);
    fx_program_refresh(p);
    const char *dims[4] = { "2", "4", "8", "8" };
    export_input_decl in = { "x", FX_DT_F32, 4, dims };
    export_options opt = { &in, 1 };
    diag_sink d;
    diag_init(&d);
    fx_program *e = export_program(p, &opt, &d);
    assert_non_null(e);
    assert_int_equal(d.errors, 0);
    char *code = print_code(e);
    assert_non_null(strstr(code, "p_conv_weight: \"f32[8, 2, 3, 3]\""));   /* in_channels / groups */
    assert_non_null(strstr(code, "p_conv_bias: \"f32[8]\""));
    assert_non_null(strstr(code, "b_bn_num_batches_tracked: \"i64[]\""));
    assert_non_null(strstr(code, "p_ln_weight: \"f32[6]\""));
    assert_non_null(strstr(code, "p_fc_weight: \"f32[5, 6]\""));
    assert_non_null(strstr(code, "conv2d: \"f32[2, 8, 6, 6]\""));
    assert_non_null(strstr(code, "linear: \"f32[2, 8, 6, 5]\""));
    assert_non_null(strstr(code, "torch.ops.aten.reshape.default(linear, [2, -1])"));
    assert_non_null(strstr(code, "reshape: \"f32[2, 240]\""));
    free(code);
    fx_program_free(e);
    fx_program_free(p);
    diag_free(&d);
}

static void test_shape_access(void **state)
{
    (void)state;
    for (int declared = 0; declared < 2; declared++) {
        fx_program *p = fx_program_new("M");
        fx_graph *g = fx_program_graph(p);
        fx_node *x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0, NULL, NULL, 0);
        fx_arg *ga[2] = { fx_arg_node(p, x), fx_arg_str(p, FX_ARG_OPAQUE, "shape") };
        fx_node *sh = add(g, "getattr_1", FX_OP_CALL_FUNCTION, "builtins.getattr", ga, 2, NULL, NULL, 0);
        fx_arg *gi[2] = { fx_arg_node(p, sh), fx_arg_int(p, 0) };
        fx_node *d0 = add(g, "getitem", FX_OP_CALL_FUNCTION, "operator.getitem", gi, 2, NULL, NULL, 0);
        fx_arg *ra[3] = { fx_arg_node(p, x), fx_arg_node(p, d0), fx_arg_int(p, -1) };
        fx_node *r = add(g, "reshape", FX_OP_CALL_METHOD, "reshape", ra, 3, NULL, NULL, 0);
        set_output(g, r);
        fx_program_refresh(p);
        const char *dims[2] = { "4", "3" };
        export_input_decl in = { "x", FX_DT_F32, 2, dims };
        export_options opt = { &in, 1 };
        diag_sink d;
        diag_init(&d);
        fx_program *e = export_program(p, declared ? &opt : NULL, &d);
        assert_non_null(e);
        char *text = print_graph(e);
        if (declared)
            assert_non_null(strstr(text, "aten.reshape.default](args = (%x, [4, -1])"));
        else
            assert_non_null(strstr(text, "%sym_size_int_1 : [num_users=1] = call_function[target=torch.ops.aten.sym_size.int](args = (%x, 0)"));
        free(text);
        fx_program_free(e);
        fx_program_free(p);
        diag_free(&d);
    }
}

/* Value meta the source carries (here: annotations of the readable form, as ShapeProp leaves
 * them) specializes sizes of intermediate values and gives Tensor.to's metadata check its dtype;
 * the same program without meta keeps sym_size nodes and an assert without dtype. */
static void test_source_meta(void **state)
{
    (void)state;
    static const char *const srcs[2] = {
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, x, idx):\n"
        "        mul = x * 10\n"
        "        getattr_1 = mul.shape\n"
        "        getitem = getattr_1[1]\n"
        "        to = mul.to(torch.float64)\n"
        "        float_1 = idx.float()\n"
        "        mul_1 = getitem * 8\n"
        "        reshape = to.reshape(-1, mul_1)\n"
        "        return (reshape, float_1)\n",
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, x: \"f32[2, 3, 8]\", idx: \"i64[2]\"):\n"
        "        mul: \"f32[2, 3, 8]\" = x * 10\n"
        "        getattr_1 = mul.shape\n"
        "        getitem = getattr_1[1]\n"
        "        to: \"f64[2, 3, 8]\" = mul.to(torch.float64)\n"
        "        float_1: \"f32[2]\" = idx.float()\n"
        "        mul_1 = getitem * 8\n"
        "        reshape: \"f64[2, 24]\" = to.reshape(-1, mul_1)\n"
        "        return (reshape, float_1)\n",
    };
    for (int annotated = 0; annotated < 2; annotated++) {
        diag_sink d;
        diag_init(&d);
        fx_program *p = fxp_parse_code_text(srcs[annotated], strlen(srcs[annotated]), "m.py", &d);
        assert_non_null(p);
        fx_program *e = export_program(p, NULL, &d);
        assert_non_null(e);
        char *text = print_graph(e);
        if (annotated) {
            assert_non_null(strstr(text, "%_assert_tensor_metadata_default : [num_users=0] = call_function[target=torch.ops.aten._assert_tensor_metadata.default](args = (%mul,), kwargs = {dtype: torch.float32, device: cpu, layout: torch.strided})\n"));
            assert_non_null(strstr(text, "%_assert_tensor_metadata_default_1 : [num_users=0] = call_function[target=torch.ops.aten._assert_tensor_metadata.default](args = (%idx,), kwargs = {dtype: torch.int64, device: cpu, layout: torch.strided})\n"));
            assert_non_null(strstr(text, "%to_1 : [num_users=1] = call_function[target=torch.ops.aten.to.dtype](args = (%idx, torch.float32), kwargs = {})\n"));
            assert_non_null(strstr(text, "aten.reshape.default](args = (%to, [-1, 24]), kwargs = {})"));
            assert_null(strstr(text, "sym_size"));
            /* the value meta rides along to the exported nodes */
            const fx_node *r = fx_graph_lookup(fx_program_graph(e), "reshape");
            assert_non_null(r);
            assert_non_null(r->meta.val);
            assert_int_equal(r->meta.val->dtype, FX_DT_F64);
        } else {
            assert_non_null(strstr(text, "args = (%mul,), kwargs = {device: cpu, layout: torch.strided})\n"));
            assert_non_null(strstr(text, "%sym_size_int_1 : [num_users=1] = call_function[target=torch.ops.aten.sym_size.int](args = (%mul, 1), kwargs = {})\n"));
        }
        free(text);
        fx_program_free(e);
        fx_program_free(p);
        diag_free(&d);
    }
}

/* Table forms: a list of split sizes picks split_with_sizes, magic-method operators lose their
 * dunders in node names, `extra` arguments are those the callee passes itself. */
static void test_table_forms(void **state)
{
    (void)state;
    static const char src[] =
        "graph():\n"
        "    %x : [num_users=3] = placeholder[target=x]\n"
        "    %split : [num_users=2] = call_function[target=torch.functional.split](args = (%x, [1, 2]), kwargs = {dim: 1})\n"
        "    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%split, 0), kwargs = {})\n"
        "    %getitem_1 : [num_users=1] = call_function[target=operator.getitem](args = (%split, 1), kwargs = {})\n"
        "    %split_1 : [num_users=1] = call_method[target=split](args = (%x, 2), kwargs = {})\n"
        "    %gt : [num_users=1] = call_function[target=operator.gt](args = (%x, 0), kwargs = {})\n"
        "    %invert : [num_users=1] = call_function[target=operator.invert](args = (%gt,), kwargs = {})\n"
        "    %and_ : [num_users=1] = call_function[target=operator.and_](args = (%invert, %gt), kwargs = {})\n"
        "    %full_like : [num_users=1] = call_function[target=torch.full_like](args = (%x, 2.0), kwargs = {})\n"
        "    %hstack : [num_users=1] = call_function[target=torch.hstack](args = ([%getitem, %getitem_1],), kwargs = {})\n"
        "    return (split_1, and_, full_like, hstack)";
    diag_sink d;
    diag_init(&d);
    fx_program *p = fxp_parse_graph_text(src, strlen(src), "t.txt", &d);
    assert_non_null(p);
    fx_program *e = export_program(p, NULL, &d);
    assert_non_null(e);
    char *text = print_graph(e);
    assert_non_null(strstr(text, "%split_with_sizes : [num_users=2] = call_function[target=torch.ops.aten.split_with_sizes.default](args = (%x, [1, 2], 1), kwargs = {})"));
    assert_non_null(strstr(text, "%split : [num_users=1] = call_function[target=torch.ops.aten.split.Tensor](args = (%x, 2), kwargs = {})"));
    assert_non_null(strstr(text, "%bitwise_not : [num_users=1] = call_function[target=torch.ops.aten.bitwise_not.default](args = (%gt,), kwargs = {})"));
    assert_non_null(strstr(text, "%and_1 : [num_users=1] = call_function[target=torch.ops.aten.__and__.Tensor](args = (%bitwise_not, %gt), kwargs = {})"));
    assert_non_null(strstr(text, "%full_like : [num_users=1] = call_function[target=torch.ops.aten.full_like.default](args = (%x, 2.0), kwargs = {pin_memory: False})"));
    assert_non_null(strstr(text, "%hstack : [num_users=1] = call_function[target=torch.ops.aten.hstack.default](args = ([%getitem, %getitem_1],), kwargs = {})"));
    free(text);
    fx_program_free(e);
    fx_program_free(p);
    diag_free(&d);
}

static void test_namer(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_graph *g = fx_program_graph(p);
    fx_namer nm;
    fx_namer_init(&nm, g);
    const char *seq[][2] = { { "sum", "sum_1" }, { "relu_", "relu_" }, { "relu_", "relu__1" },
                             { "add", "add" }, { "add", "add_1" }, { "add_1", "add_2" },
                             { "input", "input_1" }, { "3d", "_3d" } };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        const char *n = fx_namer_name(&nm, seq[i][0]);
        assert_string_equal(n, seq[i][1]);
        fx_graph_append(g, fx_node_new(g, n, FX_OP_PLACEHOLDER, n));
    }
    fx_namer_free(&nm);
    fx_program_free(p);
}

/* The failure torch.export reports on `if x.sum():` (corpus python_if_data notes.txt). */
static void test_data_dependent_report(void **state)
{
    (void)state;
    char expr[32];
    assert_string_equal(export_truthiness_expr(0, expr, sizeof expr), "Eq(u0, 1)");
    export_guard_site site = { expr, "/src/models/python_if_data/model.py", 14, "if x.sum():", "if_1" };
    diag_sink d;
    diag_init(&d);
    export_report_data_dependent(&d, &site);
    assert_int_equal(d.errors, 1);
    const diagnostic *dg = &d.items[0];
    assert_non_null(strstr(dg->message, "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like symbols: none)"));
    assert_non_null(strstr(dg->message, "File \"/src/models/python_if_data/model.py\", line 14, in forward\n    if x.sum():"));
    assert_int_equal(dg->line, 14);
    assert_string_equal(dg->source_line, "if x.sum():");
    assert_non_null(strstr(dg->hint, "rewrite %if_1 cond"));
    diag_free(&d);
}

static char *slurp(const char *path, size_t *len)
{
    return file_slurp(path, len);
}

/* Fixtures copied from the corpus: torch_level.module.txt exports to exported.fx.txt. */
static void test_fixtures(void **state)
{
    (void)state;
    static const char *const cases[] = { "mlp", "inplace_ops", "embedding_lstm_free" };
    for (size_t i = 0; i < 3; i++) {
        char path[1024];
        size_t len, elen;
        snprintf(path, sizeof path, "%s/%s/torch_level.module.txt", TEST_FIXTURES "/export", cases[i]);
        char *tl = slurp(path, &len);
        assert_non_null(tl);
        snprintf(path, sizeof path, "%s/%s/exported.fx.txt", TEST_FIXTURES "/export", cases[i]);
        char *want = slurp(path, &elen);
        assert_non_null(want);
        diag_sink d;
        diag_init(&d);
        fx_program *p = fxp_parse_module_text(tl, len, path, &d);
        assert_non_null(p);
        fx_program *e = export_program(p, NULL, &d);
        assert_non_null(e);
        char *got = print_graph(e);
        assert_string_equal(got, want);
        free(got);
        fx_program_free(e);
        fx_program_free(p);
        diag_free(&d);
        free(tl);
        free(want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mlp_lifts_and_inlines),
        cmocka_unit_test(test_inplace_and_kwargs),
        cmocka_unit_test(test_unsupported_reports),
        cmocka_unit_test(test_shape_access),
        cmocka_unit_test(test_weight_shapes_and_inferred_meta),
        cmocka_unit_test(test_source_meta),
        cmocka_unit_test(test_table_forms),
        cmocka_unit_test(test_namer),
        cmocka_unit_test(test_data_dependent_report),
        cmocka_unit_test(test_fixtures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
