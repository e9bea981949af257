/* test_fx_parse.c — FX loaders: good inputs, sniffing, completeness and malformed inputs
 * (each must give one error at the right line:col, without crashing or leaking). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "fx/fx.h"
#include "load/load.h"

static const diagnostic *first_error(const diag_sink *d)
{
    for (size_t i = 0; i < d->len; i++)
        if (d->items[i].severity == DIAG_ERROR)
            return &d->items[i];
    return NULL;
}

/* Loads text, expects failure with an error at line:col whose message contains msg. */
static void expect_error(const char *text, int line, int col, const char *msg)
{
    diag_sink d;
    diag_init(&d);
    fx_program *p = load_fx_text(text, strlen(text), "in.txt", &d);
    const diagnostic *e = first_error(&d);
    if (p || !e || e->line != line || e->col != col || !strstr(e->message, msg)) {
        print_error("input:\n%s\n", text);
        if (e)
            print_error("got %d:%d: %s\n", e->line, e->col, e->message);
    }
    if (getenv("SHOW")) { printf("%d:%d %s\n", e ? e->line : 0, e ? e->col : 0, e ? e->message : "none"); if (p) fx_program_free(p); diag_free(&d); return; }
    assert_null(p);
    assert_non_null(e);
    assert_int_equal(e->line, line);
    assert_int_equal(e->col, col);
    assert_non_null(strstr(e->message, msg));
    assert_string_equal(e->file, "in.txt");
    assert_non_null(e->source_line);
    diag_free(&d);
}

#define HDR "graph():\n    %x : [num_users=1] = placeholder[target=x]\n"

static void test_graph_errors(void **state)
{
    (void)state;
    expect_error(HDR "    %a : [num_users=1] = call_function[target=f](args = (%y,), kwargs = {})\n    return a",
                 3, 58, "undefined name '%y'");
    expect_error(HDR "    %a : [num_users=1] = call_function[target=f](args = (%b,), kwargs = {})\n"
                 "    %b : [num_users=1] = call_function[target=f](args = (%x,), kwargs = {})\n    return a",
                 3, 58, "used before it is defined");
    expect_error(HDR "    %x : [num_users=1] = placeholder[target=x]\n    return x", 3, 5, "duplicate node name");
    expect_error(HDR "    %a : [num_users=1] = call_function[target=f](args = ((%x, 1), kwargs = {})\n    return a",
                 3, 49, "unbalanced brackets: this '(' is never closed");
    expect_error(HDR "    %a : [num_users=1] = call_function[target=f](args = ([%x, 1), kwargs = {})\n    return a",
                 3, 64, "expected ',' or ']'");
    expect_error(HDR "    %a : [num_users=1] = call_fun[target=f](args = (%x,), kwargs = {})\n    return a",
                 3, 26, "bad opcode 'call_fun'");
    expect_error(HDR "    %a : [num_users=1] = call_function[target=f](args = (%x,), kwargs = {})", 3, 76,
                 "missing 'return'");
    expect_error("graph():\n    this is garbage\n", 2, 5, "expected a node line");
    expect_error("graph():\n    %a : [num_users=1] = call_function[target=f](args = (%x,", 2, 58,
                 "undefined name '%x'");
    expect_error(HDR "    %a : [num_users=1] = call_function[target=f](args = (%x,\n    return a", 3, 57,
                 "unbalanced '('");
    expect_error(HDR "    return x\n    %z : [num_users=0] = placeholder[target=z]", 4, 5,
                 "after the return line");
}

static void test_hints(void **state)
{
    (void)state;
    const char *text = HDR "    %a : [num_users=1] = call_function[target=f](args = (%b,), kwargs = {})\n"
                           "    %b : [num_users=1] = call_function[target=f](args = (%x,), kwargs = {})\n    return a";
    diag_sink d;
    diag_init(&d);
    assert_null(load_fx_text(text, strlen(text), "h.txt", &d));
    assert_int_equal(d.len, 1);
    assert_non_null(d.items[0].hint);
    assert_non_null(strstr(d.items[0].hint, "defined on line 4"));
    assert_string_equal(d.items[0].source_line,
                        "    %a : [num_users=1] = call_function[target=f](args = (%b,), kwargs = {})");
    diag_free(&d);
}

static void test_graph_args_and_warning(void **state)
{
    (void)state;
    const char *text = HDR
        "    %a : [num_users=2] = call_function[target=torch.ops.aten.full.default](args = ([2, 3], -inf), "
        "kwargs = {dtype: torch.float32, layout: torch.strided, device: cuda:0, pin_memory: False, mode: floor, "
        "s: slice(None, x, 2), e: Ellipsis, m: torch.channels_last, f: 1e-05})\n"
        "    return (a,)";
    diag_sink d;
    diag_init(&d);
    fx_program *p = load_fx_text(text, strlen(text), "g.txt", &d);
    assert_non_null(p);
    assert_false(diag_has_errors(&d));
    assert_int_equal(d.len, 1);   /* num_users=2 disagrees with the one real user */
    assert_int_equal(d.items[0].severity, DIAG_WARNING);
    assert_int_equal(d.items[0].line, 3);
    fx_node *a = fx_program_find_node(p, "%a");
    assert_non_null(a);
    assert_int_equal(a->args->u.seq.items[1]->kind, FX_ARG_FLOAT);
    const fx_arg *kw = a->kwargs;
    assert_int_equal(kw->u.seq.len, 9);
    assert_int_equal(kw->u.seq.items[0]->kind, FX_ARG_DTYPE);
    assert_int_equal(kw->u.seq.items[1]->kind, FX_ARG_LAYOUT);
    assert_int_equal(kw->u.seq.items[2]->kind, FX_ARG_DEVICE);
    assert_int_equal(kw->u.seq.items[3]->kind, FX_ARG_BOOL);
    assert_int_equal(kw->u.seq.items[4]->kind, FX_ARG_STR);
    assert_int_equal(kw->u.seq.items[5]->kind, FX_ARG_SLICE);
    assert_int_equal(kw->u.seq.items[5]->u.seq.items[1]->kind, FX_ARG_NODE);
    assert_int_equal(kw->u.seq.items[6]->kind, FX_ARG_ELLIPSIS);
    assert_int_equal(kw->u.seq.items[7]->kind, FX_ARG_MEMFMT);
    /* printing gives the text back, except num_users which is recomputed */
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_GRAPH, &sb);
    const char *want_a = "%a : [num_users=1] = call_function";
    assert_non_null(strstr(sb.s, want_a));
    assert_non_null(strstr(sb.s, "device: cuda:0, pin_memory: False, mode: floor, s: slice(None, x, 2), "
                                 "e: Ellipsis, m: torch.channels_last, f: 1e-05})"));
    /* readable form spells devices and strings the Python way */
    sb_reset(&sb);
    fx_print(p, FX_FORM_CODE, &sb);
    assert_non_null(strstr(sb.s, "device = device(type='cuda', index=0)"));
    assert_non_null(strstr(sb.s, "mode = 'floor'"));
    sb_free(&sb);
    fx_program_free(p);
    diag_free(&d);
}

static void test_old_users_form_and_default(void **state)
{
    (void)state;
    const char *text = "graph():\n    %x : [#users=1] = placeholder[target=x]\n"
                       "    %y : [#users=1] = placeholder[target=y](default=3)\n"
                       "    %add : [#users=1] = call_function[target=operator.add](args = (%x, %y), kwargs = {})\n"
                       "    return add";
    diag_sink d;
    diag_init(&d);
    fx_program *p = load_fx_text(text, strlen(text), NULL, &d);
    assert_non_null(p);
    assert_int_equal(d.len, 0);
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_CODE, &sb);
    assert_string_equal(sb.s, "class GraphModule(torch.nn.Module):\n"
                              "    def forward(self, x, y = 3):\n"
                              "        # No stacktrace found for following nodes\n"
                              "        add = x + y;  x = y = None\n"
                              "        return add\n");
    sb_free(&sb);
    fx_program_free(p);
    diag_free(&d);
}

#define CLS "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[3]\"):\n"

static void test_code_errors(void **state)
{
    (void)state;
    expect_error(CLS "        a: \"f32[3]\" = torch.ops.aten.relu.default(y)\n        return (a,)\n", 3, 51,
                 "undefined name 'y'");
    expect_error(CLS "        a = torch.ops.aten.relu.default(b)\n        b = torch.ops.aten.relu.default(x)\n"
                 "        return (a,)\n", 3, 41, "used before it is defined");
    expect_error(CLS "        x = torch.ops.aten.relu.default(x)\n        return (x,)\n", 3, 9, "duplicate node name");
    expect_error(CLS "        a = torch.ops.aten.relu.default((x)\n        return (a,)\n", 3, 40, "unbalanced '('");
    expect_error(CLS "        a = torch.ops.aten.relu.default(x)\n", 3, 43, "missing 'return'");
    expect_error("class GraphModule(torch.nn.Module:\n", 1, 18, "expected 'class <Name>(torch.nn.Module):'");
    expect_error(CLS "        a = ?!\n        return a\n", 3, 13, "cannot read this statement");
}

static void test_code_subgraphs(void **state)
{
    (void)state;
    const char *text =
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, x: \"f32[s77, 4]\", p: \"b8[]\"):\n"
        "        # File: m.py:3 in forward, code: return cond(p, t, f, (x,))\n"
        "        true_graph_0 = self.true_graph_0\n"
        "        false_graph_0 = self.false_graph_0\n"
        "        cond = torch.ops.higher_order.cond(p, true_graph_0, false_graph_0, (x,));  p = true_graph_0 = false_graph_0 = x = None\n"
        "        getitem: \"f32[s77, 4]\" = cond[0];  cond = None\n"
        "        return (getitem,)\n"
        "\n"
        "    class true_graph_0(torch.nn.Module):\n"
        "        def forward(self, x: \"f32[s77, 4]\"):\n"
        "            # File: m.py:1 in t, code: return x * 2\n"
        "            mul: \"f32[s77, 4]\" = torch.ops.aten.mul.Tensor(x, 2);  x = None\n"
        "            return (mul,)\n"
        "\n"
        "    class false_graph_0(torch.nn.Module):\n"
        "        def forward(self, x: \"f32[s77, 4]\"):\n"
        "            # File: m.py:2 in f, code: return -x\n"
        "            neg: \"f32[s77, 4]\" = torch.ops.aten.neg.default(x);  x = None\n"
        "            return (neg,)\n";
    assert_true(load_fx_text_complete(text, strlen(text)));
    assert_false(load_fx_text_complete(text, strlen(text) - 32));   /* inside the last forward */
    /* after the root forward returned, the branches are still to come */
    const char *root_end = strstr(text, "        return (getitem,)\n") + 26;
    assert_false(load_fx_text_complete(text, (size_t)(root_end - text)));
    const char *first_branch_end = strstr(text, "            return (mul,)\n") + 26;
    assert_false(load_fx_text_complete(text, (size_t)(first_branch_end - text)));
    diag_sink d;
    diag_init(&d);
    fx_program *p = load_fx_text(text, strlen(text), "r.txt", &d);
    assert_non_null(p);
    assert_int_equal(fx_program_source_form(p), FX_FORM_CODE);
    assert_int_equal(p->root->n_children, 2);
    fx_node *mul = fx_program_find_node(p, "true_graph_0.mul");
    assert_non_null(mul);
    assert_int_equal(mul->meta.val->kind, FX_VAL_TENSOR);
    assert_int_equal(mul->meta.val->dtype, FX_DT_F32);
    assert_int_equal(mul->meta.val->rank, 2);
    assert_string_equal(mul->meta.val->sizes[0], "s77");
    assert_string_equal(mul->meta.source, "m.py:1 in t, code: return x * 2");
    fx_node *cond = fx_program_find_node(p, "cond");
    assert_string_equal(cond->target, "torch.ops.higher_order.cond");
    assert_int_equal(cond->n_users, 1);
    fx_node *gi = fx_program_find_node(p, "getitem");
    assert_string_equal(gi->target, "operator.getitem");
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_CODE, &sb);
    assert_string_equal(sb.s, text);
    sb_reset(&sb);
    fx_print(p, FX_FORM_GRAPH, &sb);
    assert_non_null(strstr(sb.s, "%cond : [num_users=1] = call_function[target=torch.ops.higher_order.cond]"
                                 "(args = (%p, %true_graph_0, %false_graph_0, (%x,)), kwargs = {})"));
    sb_free(&sb);
    fx_program_free(p);
    diag_free(&d);
}

static void test_module_errors_and_complete(void **state)
{
    (void)state;
    expect_error("MLP(\n  (fc1): Linear(in_features=8, out_features=16, bias=True)\n", 2, 59, "missing ')'");
    expect_error("MLP(\n  (fc1): Linear(in_features=8\n)\n", 2, 30, "not closed");
    expect_error("MLP()\n\n\n\ndef forward(self, x):\n    y = self.fc1(x)\n", 6, 20, "missing 'return'");
    const char *m = "M()\n\n\n\ndef forward(self, x):\n    return x\n    \n# To see more debug info, "
                    "please use `graph_module.print_readable()`";
    assert_true(load_fx_text_complete(m, strlen(m)));
    assert_false(load_fx_text_complete(m, 40));
    const char *g = "graph():\n    %x : [num_users=1] = placeholder[target=x]\n    return x";
    assert_true(load_fx_text_complete(g, strlen(g)));
    assert_false(load_fx_text_complete(g, strlen(g) - 12));
    assert_false(load_fx_text_complete("", 0));
    diag_sink d;
    diag_init(&d);
    assert_null(load_fx_text("\n\n", 2, "e.txt", &d));
    assert_true(diag_has_errors(&d));
    diag_free(&d);
}

static void test_garbage_does_not_crash(void **state)
{
    (void)state;
    /* a deep nest, binary noise and unterminated strings: all must fail cleanly */
    char deep[2100];
    strcpy(deep, HDR "    %a : [num_users=1] = call_function[target=f](args = (");
    size_t n = strlen(deep);
    memset(deep + n, '(', 1500);
    deep[n + 1500] = 0;
    const char *inputs[] = {deep, "graph():\n    %a : [num_users=1] = call_function[target=f](args = ('abc", "\x01\x02\xff",
                            "class X(torch.nn.Module):\n    def forward(self, a: \"f32[", "graph():",
                            "M(\n  (a): B(\n"};
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        diag_sink d;
        diag_init(&d);
        fx_program *p = load_fx_text(inputs[i], strlen(inputs[i]), "x", &d);
        assert_null(p);
        assert_true(diag_has_errors(&d));
        diag_free(&d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_errors),
        cmocka_unit_test(test_hints),
        cmocka_unit_test(test_graph_args_and_warning),
        cmocka_unit_test(test_old_users_form_and_default),
        cmocka_unit_test(test_code_errors),
        cmocka_unit_test(test_code_subgraphs),
        cmocka_unit_test(test_module_errors_and_complete),
        cmocka_unit_test(test_garbage_does_not_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
