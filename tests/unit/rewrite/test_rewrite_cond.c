/* test_rewrite_cond.c — rewrite python_if → torch.cond: torch's graph, and the refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/file.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx/fx.h"
#include "fx/fx_control.h"
#include "load/ts_load.h"
#include "rewrite/rewrite.h"

#include "cflow_fixtures.h"

/* The rewritten root graph is exactly torch's exported graph of the hand-written cond version. */
static void test_matches_torch(void **state)
{
    (void)state;
    fx_program *p = load_ts("python_if_data.torchscript.txt", "python_if_data.onnx", "x=f32[3,4]");
    diag_sink d;
    diag_init(&d);
    fx_program *q = rewrite_if_to_cond_ex(p, "%if_1", true, &d);
    assert_non_null(q);
    assert_int_equal(d.errors, 0);
    strbuf sb;
    sb_init(&sb);
    fx_print_graph(fx_program_graph(q), &sb);
    size_t n;
    char *want = slurp("python_if_data_as_cond.exported.fx.txt", &n);
    assert_string_equal(sb.s, want);
    free(want);
    /* false branch returns linear_1.clone() as in torch's false_graph_0 */
    fx_node *c = fx_program_find_node(q, "false_graph_0.clone");
    assert_non_null(c);
    assert_string_equal(c->target, "torch.ops.aten.clone.default");
    assert_non_null(fx_program_find_node(q, "true_graph_0.mul"));
    /* the input program is untouched */
    assert_non_null(fx_program_find_node(p, "if_1"));
    assert_null(fx_program_find_node(p, "cond"));
    sb_free(&sb);
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

static void test_alias_refused(void **state)
{
    (void)state;
    fx_program *p = load_ts("python_if_data.torchscript.txt", NULL, "x=f32[3,4]");
    diag_sink d;
    diag_init(&d);
    assert_null(rewrite_if_to_cond(p, "if_1", &d));
    assert_true(d.errors > 0);
    assert_non_null(strstr(d.items[0].message, "Encountered aliasing during higher order op tracing"));
    assert_non_null(strstr(d.items[0].message, "Hint: Replace `return input` with `return input.clone()`"));
    assert_non_null(d.items[0].hint);
    assert_non_null(strstr(d.items[0].hint, "linear_1.clone()"));
    diag_free(&d);
    fx_program_free(p);
}

static void test_nested_and_wrong_node(void **state)
{
    (void)state;
    fx_program *p = load_ts("python_if_nested.torchscript.txt", NULL, "x=f32[2,3]");
    diag_sink d;
    diag_init(&d);
    /* outer first: refused, the inner must go first */
    assert_null(rewrite_if_to_cond(p, "if_1", &d));
    assert_non_null(strstr(d.items[0].hint, "rewrite %true_graph_0.if_1 cond"));
    diag_clear(&d);
    assert_null(rewrite_if_to_cond(p, "linear", &d));
    assert_non_null(strstr(d.items[0].message, "not a Python if"));
    diag_clear(&d);
    assert_null(rewrite_if_to_cond(p, "nosuch", &d));
    diag_clear(&d);
    fx_program *q = rewrite_if_to_cond(p, "true_graph_0.if_1", &d);
    assert_non_null(q);
    fx_program *r = rewrite_if_to_cond(q, "if_1", &d);
    assert_non_null(r);
    assert_int_equal(d.errors, 0);
    fx_node *outer = fx_program_find_node(r, "cond");
    assert_non_null(outer);
    assert_string_equal(outer->target, "torch.ops.higher_order.cond");
    /* gt is already a bool tensor: no ne inserted, as torch's cond version `h.sum() > 0` */
    assert_string_equal(outer->args->u.seq.items[0]->u.node->name, "gt");
    assert_non_null(fx_program_find_node(r, "true_graph_0.cond"));
    fx_program_free(r);
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

/* Inner then outer rewrite of the nested if equals torch's export of the nested cond model. */
static void test_nested_matches_torch(void **state)
{
    (void)state;
    fx_program *p = load_ts("python_if_nested.torchscript.txt", "python_if_nested.onnx", "x=f32[2,3]");
    diag_sink d;
    diag_init(&d);
    fx_program *q = rewrite_if_to_cond(p, "true_graph_0.if_1", &d);
    assert_non_null(q);
    fx_program *r = rewrite_if_to_cond(q, "if_1", &d);
    assert_non_null(r);
    strbuf got, want, sb;
    sb_init(&got);
    sb_init(&want);
    sb_init(&sb);
    fx_print(r, FX_FORM_CODE, &sb);
    code_lines(sb.s, &got);
    size_t n;
    char *t = slurp("python_if_nested_as_cond.exported.readable.txt", &n);
    code_lines(t, &want);
    assert_string_equal(got.s, want.s);
    free(t);
    sb_free(&got);
    sb_free(&want);
    sb_free(&sb);
    fx_program_free(r);
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

static void test_structure_mismatch(void **state)
{
    (void)state;
    static const char ts[] = "graph(%self : __torch__.M,\n      %x.1 : Tensor):\n"
                             "  %1 : int = prim::Constant[value=1]()\n"
                             "  %2 : Tensor = aten::sum(%x.1) # m.py:3:7\n"
                             "  %3 : bool = aten::Bool(%2) # m.py:3:7\n"
                             "  %4 : Tensor = prim::If(%3) # m.py:3:4\n"
                             "    block0():\n      %5 : Tensor = aten::relu(%x.1)\n      -> (%5)\n"
                             "    block1():\n      -> (%1)\n"
                             "  return (%4)\n";
    diag_sink d;
    diag_init(&d);
    fx_program *p = ts_load_text(ts, sizeof ts - 1, "m.ts", NULL, &d);
    assert_non_null(p);
    assert_null(rewrite_if_to_cond(p, "if_1", &d));
    assert_non_null(strstr(d.items[0].message, "must return tensors"));
    fx_program_free(p);
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_torch), cmocka_unit_test(test_alias_refused),
        cmocka_unit_test(test_nested_and_wrong_node), cmocka_unit_test(test_structure_mismatch),
        cmocka_unit_test(test_nested_matches_torch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
