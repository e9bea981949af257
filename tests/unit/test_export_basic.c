/* test_export_basic.c — export pass on graphs built in the test and on copied corpus fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/file.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "passes/export.h"

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
        snprintf(path, sizeof path, "%s/%s/torch_level.module.txt", FXSH_EXPORT_FIXTURES, cases[i]);
        char *tl = slurp(path, &len);
        assert_non_null(tl);
        snprintf(path, sizeof path, "%s/%s/exported.fx.txt", FXSH_EXPORT_FIXTURES, cases[i]);
        char *want = slurp(path, &elen);
        assert_non_null(want);
        diag_sink d;
        diag_init(&d);
        fx_program *p = fx_parse_module_text(tl, len, path, &d);
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
        cmocka_unit_test(test_namer),
        cmocka_unit_test(test_data_dependent_report),
        cmocka_unit_test(test_fixtures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
