/* test_ts_check.c — export check on python_if (torch's failure text) and specialization. */
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
#include "rewrite/control_flow.h"

#include "cflow_fixtures.h"

/* Drops "# File:" lines (torch adds the source code text, which only the model file has). */
static void strip_file_lines(const char *s, size_t n, strbuf *out)
{
    for (size_t i = 0; i < n;) {
        const char *e = memchr(s + i, '\n', n - i);
        size_t len = e ? (size_t)(e - (s + i)) : n - i;
        if (!(len > 11 && strstr(s + i, "# File: ") && (size_t)(strstr(s + i, "# File: ") - (s + i)) < len))
            sb_putn(out, s + i, len + (e ? 1 : 0));
        i += len + 1;
    }
}

static void test_data_dependent_fails_like_torch(void **state)
{
    (void)state;
    fx_program *p = load_ts("python_if_data.torchscript.txt", "python_if_data.onnx", "x=f32[3,4]");
    diag_sink d;
    diag_init(&d);
    strbuf rep;
    sb_init(&rep);
    assert_int_equal(control_flow_export_check(p, &d, &rep), 1);
    assert_true(d.errors > 0);
    assert_non_null(d.items[0].hint);
    /* the hint is the rewrite that works: the false branch returns its input, so --clone */
    assert_non_null(strstr(d.items[0].hint, "rewrite %if_1 cond --clone (false_graph_0 returns its input linear_1"));
    assert_int_equal(d.items[0].line, 14);
    assert_non_null(strstr(rep.s, "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  "
                                  "(Size-like symbols: none)\n"));
    assert_non_null(strstr(rep.s, "  File \"/src/models/python_if_data/model.py\", line 14, in forward\n"));
    /* the partial graph equals torch's (export.log) apart from the "# File:" comment lines */
    size_t n;
    char *log = slurp("python_if_data.export.log", &n);
    const char *start = strstr(log, "\n\n\n\ndef forward");
    assert_non_null(start);
    start += 1;
    const char *end = strstr(start, "item: \"Sym(Eq(u0, 1))\"");
    assert_non_null(end);
    end = strstr(end, "\n    \n");
    assert_non_null(end);
    end += 6;
    strbuf want, got;
    sb_init(&want);
    sb_init(&got);
    strip_file_lines(start, (size_t)(end - start), &want);
    const char *gs = strstr(rep.s, "Could not guard");
    strip_file_lines(rep.s, (size_t)(gs - rep.s), &got);
    assert_string_equal(got.s, want.s);
    sb_free(&want);
    sb_free(&got);
    free(log);
    sb_free(&rep);
    diag_free(&d);
    fx_program_free(p);
}

static void test_shape_if_specialized(void **state)
{
    (void)state;
    fx_program *p = load_ts("if_shape.torchscript.txt", NULL, "x=f32[3,4]");
    diag_sink d;
    diag_init(&d);
    strbuf rep;
    sb_init(&rep);
    assert_int_equal(control_flow_export_check(p, &d, &rep), 0);
    assert_int_equal(rep.len, 0);
    fx_program *q = control_flow_specialize(p, &d);
    assert_non_null(q);
    assert_int_equal(d.errors, 0);
    assert_true(d.len > 0);   /* the guard note */
    fx_graph *g = fx_program_graph(q);
    size_t calls = 0;
    for (fx_node *n = g->first; n; n = n->next) {
        assert_int_equal(fx_control_kind_of(n), FX_CTRL_NONE);
        assert_int_not_equal(n->op, FX_OP_GET_ATTR);
        if (n->op == FX_OP_CALL_FUNCTION) {
            calls++;
            assert_string_equal(n->target, "torch.ops.aten.relu.default");   /* x.size(0) == 3: true branch */
        }
    }
    assert_int_equal(calls, 1);
    assert_null(q->root->first_child);
    fx_program_free(q);
    /* with another shape the false branch is taken */
    fx_program_free(p);
    p = load_ts("if_shape.torchscript.txt", NULL, "x=f32[5,4]");
    q = control_flow_specialize(p, &d);
    fx_node *neg = fx_program_find_node(q, "neg");
    assert_non_null(neg);
    assert_null(fx_program_find_node(q, "relu"));
    fx_program_free(q);
    fx_program_free(p);
    sb_free(&rep);
    diag_free(&d);
}

static void test_for_unrolled(void **state)
{
    (void)state;
    fx_program *p = load_ts("python_for_const.torchscript.txt", NULL, "x=f32[2,4]");
    diag_sink d;
    diag_init(&d);
    fx_program *q = control_flow_specialize(p, &d);
    size_t linears = 0, adds = 0;
    for (fx_node *n = fx_program_graph(q)->first; n; n = n->next) {
        assert_int_equal(fx_control_kind_of(n), FX_CTRL_NONE);
        if (n->op == FX_OP_CALL_FUNCTION && strcmp(n->target, "torch.ops.aten.linear.default") == 0)
            linears++;
        if (n->op == FX_OP_CALL_FUNCTION && strcmp(n->target, "torch.ops.aten.add.Tensor") == 0) {
            /* the loop index became the float literal, as in torch's exported graph */
            assert_int_equal(n->args->u.seq.items[1]->kind, FX_ARG_FLOAT);
            assert_true(n->args->u.seq.items[1]->u.f == (double)adds);
            adds++;
        }
    }
    assert_int_equal(linears, 3);
    assert_int_equal(adds, 3);
    assert_non_null(fx_program_find_node(q, "add_2"));
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

/* Specializing the loaded TorchScript gives torch.export's graph (python_if_shape, python_for_const). */
static void check_like_torch(const char *base, const char *decl)
{
    char ts[128], w[128], ref[128];
    snprintf(ts, sizeof ts, "%s.torchscript.txt", base);
    snprintf(w, sizeof w, "%s.onnx", base);
    snprintf(ref, sizeof ref, "%s.exported.readable.txt", base);
    fx_program *p = load_ts(ts, w, decl);
    diag_sink d;
    diag_init(&d);
    strbuf rep;
    sb_init(&rep);
    assert_int_equal(control_flow_export_check(p, &d, &rep), 0);
    fx_program *q = control_flow_specialize(p, &d);
    assert_non_null(q);
    strbuf sb, got, want;
    sb_init(&sb);
    sb_init(&got);
    sb_init(&want);
    fx_print(q, FX_FORM_CODE, &sb);
    code_lines(sb.s, &got);
    size_t n;
    char *t = slurp(ref, &n);
    code_lines(t, &want);
    assert_string_equal(got.s, want.s);
    free(t);
    sb_free(&sb);
    sb_free(&got);
    sb_free(&want);
    sb_free(&rep);
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

static void test_corpus_shape_if(void **state)
{
    (void)state;
    check_like_torch("python_if_shape", "x=f32[4,3]");
}

static void test_corpus_for_const(void **state)
{
    (void)state;
    check_like_torch("python_for_const", "x=f32[2,4]");
}

/* ---- loops ------------------------------------------------------------------------------------ */

static int check(const fx_program *p, const control_flow_options *o, diag_sink *d, strbuf *rep)
{
    diag_init(d);
    sb_init(rep);
    return control_flow_export_check_ex(p, o, d, rep);
}

/* `while (it < 8) & (h.abs().sum() < 20.0):` — bool() of the first test fails before the loop. */
static void test_while_fails_like_torch(void **state)
{
    (void)state;
    fx_program *p = load_ts("while_loop_closure_python_while.torchscript.txt", "while_loop_closure.weights.onnx", "x=f32[2,4]");
    diag_sink d;
    strbuf rep;
    assert_int_equal(check(p, NULL, &d, &rep), 1);
    assert_string_equal(d.items[0].hint, "rewrite %while_1 while_loop");
    assert_int_equal(d.items[0].line, 18);
    assert_non_null(strstr(d.items[0].message, "Python `while` on the tensor %and_1"));
    /* the partial graph ends at the test, then ne / item as torch traced bool(test) */
    const char *and1 = strstr(rep.s, "and_1: \"b8[]\" = torch.ops.aten.__and__.Tensor(lt, lt_1)");
    assert_non_null(and1);
    assert_non_null(strstr(and1, "ne: \"b8[]\" = torch.ops.aten.ne.Scalar(and_1, 0)"));
    assert_non_null(strstr(and1, "item: \"Sym(Eq(u0, 1))\" = torch.ops.aten.item.default(ne)"));
    assert_null(strstr(rep.s, "python_while"));
    assert_non_null(strstr(rep.s, "Could not guard on data-dependent expression Eq(u0, 1)"));
    sb_free(&rep);
    diag_free(&d);
    fx_program_free(p);
}

/* `for i in range(8): ...; if h.abs().sum() >= 20.0: break` — torch traces iteration 0 and fails
 * at the if inside the body. */
static void test_for_break_fails_in_body(void **state)
{
    (void)state;
    fx_program *p = load_ts("for_break.torchscript.txt", "while_loop_closure.weights.onnx", "x=f32[2,4]");
    diag_sink d;
    strbuf rep;
    assert_int_equal(check(p, NULL, &d, &rep), 1);
    assert_string_equal(d.items[0].hint, "rewrite %while_1 while_loop");
    assert_int_equal(d.items[0].line, 17);
    assert_non_null(strstr(rep.s, "linear: \"f32[2, 4]\" = torch.ops.aten.linear.default(arg2_1, arg0_1, arg1_1)"));
    assert_non_null(strstr(rep.s, "ge: \"b8[]\" = torch.ops.aten.ge.Scalar(sum_1, 20.0)"));
    assert_null(strstr(rep.s, "body_graph_0"));
    sb_free(&rep);
    diag_free(&d);
    fx_program_free(p);
}

/* range(x.shape[0]) with x's first dimension marked dynamic: torch specializes it and refuses. */
static void test_dynamic_trip_count(void **state)
{
    (void)state;
    static const char *const decls[] = {"x=f32[3,4]", "y=f32[5,4]", NULL};
    fx_program *p = load_ts_inputs("pairwise_loop.torchscript.txt", NULL, decls);
    diag_sink d;
    strbuf rep;
    /* static shapes: the loop is unrolled as torch.export unrolls it */
    assert_int_equal(check(p, NULL, &d, &rep), 0);
    diag_free(&d);
    sb_free(&rep);
    cf_dynamic_dim dyn = {"x", 0, "batch"};
    control_flow_options co = {.dynamic = &dyn, .n_dynamic = 1};
    assert_int_equal(check(p, &co, &d, &rep), 1);
    assert_non_null(strstr(rep.s, "Constraints violated (batch)!"));
    assert_non_null(strstr(rep.s, "You marked batch as dynamic but your code specialized it to be a constant (3)."));
    assert_non_null(strstr(rep.s, "Suggested fixes:\n  batch = 3\n"));
    assert_non_null(strstr(d.items[0].hint, "rewrite %for_1 scan"));
    diag_free(&d);
    sb_free(&rep);
    /* y's dimension does not drive the loop */
    cf_dynamic_dim ydyn = {"y", 0, "n"};
    co.dynamic = &ydyn;
    assert_int_equal(check(p, &co, &d, &rep), 0);
    diag_free(&d);
    sb_free(&rep);
    fx_program_free(p);
}

/* export --legacy script: loops stay (ONNX Loop); only a for over a literal range unrolls. */
static void test_keep_loops(void **state)
{
    (void)state;
    control_flow_options co = {.keep_loops = true};
    fx_program *p = load_ts("while_loop_closure_python_while.torchscript.txt", "while_loop_closure.weights.onnx", "x=f32[2,4]");
    diag_sink d;
    strbuf rep;
    assert_int_equal(check(p, &co, &d, &rep), 0);
    fx_program *q = control_flow_specialize_ex(p, &co, &d);
    assert_non_null(fx_program_find_node(q, "while_1"));
    fx_program_free(q);
    fx_program_free(p);
    sb_free(&rep);
    diag_free(&d);
    p = load_ts("python_for_const.torchscript.txt", NULL, "x=f32[2,4]");
    diag_init(&d);
    q = control_flow_specialize_ex(p, &co, &d);
    assert_null(fx_program_find_node(q, "for_1"));   /* range(3): unrolled, as TorchScript did */
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

/* --legacy script: TorchScript's `break` (an if choosing True / False) becomes a bool tensor. */
static void test_fold_bool_ifs(void **state)
{
    (void)state;
    fx_program *p = load_ts("for_break.torchscript.txt", "while_loop_closure.weights.onnx", "x=f32[2,4]");
    diag_sink d;
    diag_init(&d);
    fx_program *q = control_flow_fold_bool_ifs(p, &d);
    assert_int_equal(d.errors, 0);
    assert_null(fx_program_find_node(q, "body_graph_0.if_1"));
    assert_null(fx_module_find(q->root, "body_graph_0.true_graph_0"));
    fx_node *o = fx_program_find_node(q, "body_graph_0.output");
    const fx_node *next = o->args->u.seq.items[0]->u.seq.items[0]->u.node;
    assert_string_equal(next->target, "torch.ops.aten.logical_not.default");
    assert_string_equal(next->args->u.seq.items[0]->u.node->name, "ge");
    /* the loop itself stays for the Loop of the legacy route */
    assert_non_null(fx_program_find_node(q, "while_1"));
    assert_non_null(fx_program_find_node(p, "body_graph_0.if_1"));
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_dependent_fails_like_torch),
        cmocka_unit_test(test_shape_if_specialized),
        cmocka_unit_test(test_for_unrolled),
        cmocka_unit_test(test_corpus_shape_if),
        cmocka_unit_test(test_corpus_for_const),
        cmocka_unit_test(test_while_fails_like_torch),
        cmocka_unit_test(test_for_break_fails_in_body),
        cmocka_unit_test(test_dynamic_trip_count),
        cmocka_unit_test(test_keep_loops),
        cmocka_unit_test(test_fold_bool_ifs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
