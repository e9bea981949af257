/* test_rewrite_loop.c — rewrite python_for → scan and python_while/for → while_loop: torch's
 * exported graphs (corpus scan_cumsum, scan_multi_carry, while_loop_closure) from loop versions
 * of those models, and each refusal with its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_paths.h"
#include "base/file.h"
#include "fx/fx.h"
#include "load/load.h"
#include "fx/fx_control.h"
#include "load/ts_load.h"
#include "rewrite/rewrite.h"

#include "cflow_fixtures.h"

static fx_program *load_text(const char *text, const char *name)
{
    diag_sink d;
    diag_init(&d);
    fx_program *p = load_fx_text(text, strlen(text), name, &d);
    if (!p)
        for (size_t i = 0; i < d.len; i++)
            fprintf(stderr, "%s\n", d.items[i].message);
    diag_free(&d);
    assert_non_null(p);
    return p;
}

static fx_program *load_readable(const char *name)
{
    size_t n;
    char *t = slurp(name, &n);
    fx_program *p = load_text(t, name);
    free(t);
    return p;
}

/* The rewritten program prints exactly as torch.export printed the HOP version: the root graph
 * (print(ep.graph)) and the readable code with its subgraph classes (comments aside). */
static void assert_as_torch(const fx_program *q, const char *fx_file, const char *readable_file)
{
    strbuf got, want_code, got_code;
    sb_init(&got);
    sb_init(&want_code);
    sb_init(&got_code);
    fx_print_graph(fx_program_graph(q), &got);
    size_t n;
    char *want = slurp(fx_file, &n);
    assert_string_equal(got.s, want);
    free(want);
    sb_truncate(&got, 0);
    fx_print(q, FX_FORM_CODE, &got);
    want = slurp(readable_file, &n);
    code_lines(want, &want_code);
    code_lines(got.s, &got_code);
    assert_string_equal(got_code.s, want_code.s);
    free(want);
    sb_free(&got);
    sb_free(&want_code);
    sb_free(&got_code);
}

static bool has_message(const diag_sink *d, const char *text)
{
    for (size_t i = 0; i < d->len; i++)
        if (strstr(d->items[i].message, text))
            return true;
    return false;
}

/* ---- scan ------------------------------------------------------------------------------------ */

static void test_scan_cumsum_as_torch(void **state)
{
    (void)state;
    fx_program *p = load_readable("scan_cumsum_loop.readable.txt");
    diag_sink d;
    diag_init(&d);
    /* the loop carries `add` and writes it as the row: torch refuses the aliased output */
    assert_null(rewrite_for_to_scan(p, "for_1", false, &d));
    assert_true(has_message(&d, "Encountered aliasing during higher order op tracing"));
    assert_true(has_message(&d, "returns add twice, as carry 0 and as the row written to empty_like"));
    assert_non_null(strstr(d.items[0].hint, "rewrite %for_1 scan --clone"));
    diag_free(&d);
    diag_init(&d);
    fx_program *q = rewrite_for_to_scan(p, "%for_1", true, &d);
    assert_non_null(q);
    assert_int_equal(d.errors, 0);
    assert_as_torch(q, "scan_cumsum.exported.fx.txt", "scan_cumsum.exported.readable.txt");
    /* the input program is untouched */
    assert_non_null(fx_program_find_node(p, "for_1"));
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

static void test_scan_multi_carry_as_torch(void **state)
{
    (void)state;
    fx_program *p = load_readable("scan_multi_carry_loop.readable.txt");
    diag_sink d;
    diag_init(&d);
    fx_program *q = rewrite_for_to_scan(p, "for_1", true, &d);
    assert_non_null(q);
    /* two carries, two scanned tensors (flip, flip_1), the weight as additional input */
    assert_as_torch(q, "scan_multi_carry.exported.fx.txt", "scan_multi_carry.exported.readable.txt");
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

/* PyTorch's cdist loop, as torch.jit.script prints it: dist[i, :] = sqrt(((y - x[i:i+1])**2).sum(1)) */
static void test_scan_pairwise_torchscript(void **state)
{
    (void)state;
    static const char *const decls[] = {"x=f32[3,4]", "y=f32[5,4]", NULL};
    fx_program *p = load_ts_inputs("pairwise_loop.torchscript.txt", NULL, decls);
    diag_sink d;
    diag_init(&d);
    fx_program *q = rewrite_for_to_scan(p, "for_1", false, &d);
    assert_non_null(q);
    assert_int_equal(d.errors, 0);
    /* no state: y is carried unchanged (scan needs init leaves), as PyTorch's own example does */
    assert_true(has_message(&d, "scan() needs one: y is carried unchanged"));
    fx_node *s = fx_program_find_node(q, "scan");
    assert_non_null(s);
    assert_string_equal(s->target, "torch.ops.higher_order.scan");
    fx_arg **a = s->args->u.seq.items;
    assert_int_equal(a[1]->kind, FX_ARG_LIST);
    assert_string_equal(a[1]->u.seq.items[0]->u.node->name, "y");
    assert_string_equal(a[2]->u.seq.items[0]->u.node->name, "x");
    assert_int_equal(a[3]->u.seq.len, 0);
    /* the zeros buffer, its sizes and the trip count are gone; the result is the stacked rows */
    assert_null(fx_program_find_node(q, "zeros"));
    assert_null(fx_program_find_node(q, "getitem_2"));
    fx_node *r = fx_program_find_node(q, "getitem_1");
    assert_non_null(r);
    assert_non_null(r->meta.val);
    assert_string_equal(r->meta.val->sizes[0], "3");
    assert_string_equal(r->meta.val->sizes[1], "5");
    /* combine(y, x_row): x[i:i+1] is row.unsqueeze(0); returns [y.clone(), sqrt] */
    fx_node *u = fx_program_find_node(q, "scan_combine_graph_0.unsqueeze");
    assert_non_null(u);
    assert_string_equal(u->args->u.seq.items[0]->u.node->name, "arg1_1");
    fx_node *out = fx_program_find_node(q, "scan_combine_graph_0.output");
    assert_non_null(out);
    const fx_arg *o = out->args->u.seq.items[0];
    assert_int_equal(o->kind, FX_ARG_LIST);
    assert_string_equal(o->u.seq.items[0]->u.node->name, "clone");
    assert_string_equal(o->u.seq.items[1]->u.node->name, "sqrt");
    assert_null(fx_program_find_node(q, "scan_combine_graph_0.copy_"));
    assert_null(fx_program_find_node(q, "scan_combine_graph_0.i"));
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

/* A loop fixture with its body text replaced (the refusal cases). */
static fx_program *loop_variant(const char *body, const char *trip_line, const char *trip)
{
    strbuf t;
    sb_init(&t);
    sb_printf(&t,
              "class GraphModule(torch.nn.Module):\n"
              "    def forward(self, xs: \"f32[5, 3]\"):\n"
              "        select: \"f32[3]\" = torch.ops.aten.select.int(xs, 0, 0)\n"
              "        zeros_like: \"f32[3]\" = torch.ops.aten.zeros_like.default(select, pin_memory = False)\n"
              "        empty_like: \"f32[5, 3]\" = torch.ops.aten.empty_like.default(xs, pin_memory = False)\n"
              "        %s\n"
              "        body_graph_0 = self.body_graph_0\n"
              "        for_1 = fxsh.python_for(%s, body_graph_0, (zeros_like,), (xs, empty_like))\n"
              "        getitem: \"f32[3]\" = for_1[0]\n"
              "        return (getitem, empty_like)\n"
              "\n"
              "    class body_graph_0(torch.nn.Module):\n"
              "        def forward(self, i, carry: \"f32[3]\", xs: \"f32[5, 3]\", ys: \"f32[5, 3]\"):\n"
              "%s"
              "            return (add,)\n",
              trip_line, trip, body);
    fx_program *p = load_text(t.s, "variant.readable.txt");
    sb_free(&t);
    return p;
}

static void expect_scan_refusal(const char *body, const char *trip_line, const char *trip, const char *message)
{
    fx_program *p = loop_variant(body, trip_line, trip);
    diag_sink d;
    diag_init(&d);
    fx_program *q = rewrite_for_to_scan(p, "for_1", true, &d);
    if (q || !has_message(&d, message))
        for (size_t i = 0; i < d.len; i++)
            fprintf(stderr, "got: %s\n", d.items[i].message);
    assert_null(q);
    assert_true(d.errors > 0);
    assert_true(has_message(&d, message));
    assert_true(has_message(&d, "cannot rewrite %for_1"));
    fx_program_free(p);
    diag_free(&d);
}

#define ROW_READ "            select: \"f32[3]\" = torch.ops.aten.select.int(xs, 0, i)\n"
#define ADD "            add: \"f32[3]\" = torch.ops.aten.add.Tensor(carry, select)\n"
#define WRITE                                                                                    \
    "            select_1: \"f32[3]\" = torch.ops.aten.select.int(ys, 0, i)\n"                 \
    "            clone: \"f32[3]\" = torch.ops.aten.clone.default(add)\n"                      \
    "            copy_: \"f32[3]\" = torch.ops.aten.copy_.default(select_1, clone)\n"
#define TRIP "sym_size_int = torch.ops.aten.sym_size.int(xs, 0)", "sym_size_int"

static void test_scan_refusals(void **state)
{
    (void)state;
    /* the variant itself rewrites: the refusals below come from the one change each makes */
    fx_program *ok = loop_variant(ROW_READ ADD WRITE, TRIP);
    diag_sink d;
    diag_init(&d);
    fx_program *q = rewrite_for_to_scan(ok, "for_1", false, &d);
    assert_non_null(q);
    fx_program_free(q);
    fx_program_free(ok);
    diag_free(&d);
    /* range(4) over 5 rows */
    expect_scan_refusal(ROW_READ ADD WRITE, "", "4", "the trip count is not the scanned dimension");
    /* range(xs.shape[1]) */
    expect_scan_refusal(ROW_READ ADD WRITE, "sym_size_int = torch.ops.aten.sym_size.int(xs, 1)", "sym_size_int",
                        "the loop runs range(3) but scans %xs, whose first dimension is 5");
    /* out[i] = out[i + 1] + ...: a value a later iteration writes */
    expect_scan_refusal(ROW_READ
                        "            add_2 = i + 1\n"
                        "            select_2: \"f32[3]\" = torch.ops.aten.select.int(ys, 0, add_2)\n"
                        "            add: \"f32[3]\" = torch.ops.aten.add.Tensor(carry, select)\n"
                        "            add_3: \"f32[3]\" = torch.ops.aten.add.Tensor(add, select_2)\n"
                        "            select_1: \"f32[3]\" = torch.ops.aten.select.int(ys, 0, i)\n"
                        "            copy_: \"f32[3]\" = torch.ops.aten.copy_.default(select_1, add_3)\n",
                        TRIP, "a value written by a later iteration (i + 1)");
    /* x[i - 1]: another row than i */
    expect_scan_refusal("            sub = i - 1\n"
                        "            select: \"f32[3]\" = torch.ops.aten.select.int(xs, 0, sub)\n" ADD WRITE,
                        TRIP, "reads %xs[i - 1]");
    /* float(i) in the body */
    expect_scan_refusal(ROW_READ
                        "            float_1 = builtins.float(i)\n"
                        "            add_0: \"f32[3]\" = torch.ops.aten.add.Tensor(carry, select)\n"
                        "            add: \"f32[3]\" = torch.ops.aten.add.Tensor(add_0, float_1)\n" WRITE,
                        TRIP, "uses the loop index %i in %float_1");
    /* carry.add_(x[i]): an input written in place */
    expect_scan_refusal(ROW_READ
                        "            add: \"f32[3]\" = torch.ops.aten.add_.Tensor(carry, select)\n" WRITE,
                        TRIP, "Combine_fn might be modifying the input! (%add, torch.ops.aten.add_.Tensor");
    /* nothing read or written by row */
    expect_scan_refusal("            add: \"f32[3]\" = torch.ops.aten.add.Tensor(carry, carry)\n", TRIP,
                        "there is nothing to scan");
}

/* The rows of a program input written in place: scan makes a new tensor instead. */
static void test_scan_input_written(void **state)
{
    (void)state;
    fx_program *p = load_text("class GraphModule(torch.nn.Module):\n"
                              "    def forward(self, xs: \"f32[5, 3]\", out: \"f32[5, 3]\"):\n"
                              "        sym_size_int = torch.ops.aten.sym_size.int(xs, 0)\n"
                              "        body_graph_0 = self.body_graph_0\n"
                              "        for_1 = fxsh.python_for(sym_size_int, body_graph_0, (), (xs, out))\n"
                              "        return (out,)\n"
                              "\n"
                              "    class body_graph_0(torch.nn.Module):\n"
                              "        def forward(self, i, xs: \"f32[5, 3]\", out: \"f32[5, 3]\"):\n"
                              "            select: \"f32[3]\" = torch.ops.aten.select.int(xs, 0, i)\n"
                              "            mul: \"f32[3]\" = torch.ops.aten.mul.Tensor(select, 2)\n"
                              "            select_1: \"f32[3]\" = torch.ops.aten.select.int(out, 0, i)\n"
                              "            copy_: \"f32[3]\" = torch.ops.aten.copy_.default(select_1, mul)\n"
                              "            return ()\n",
                              "input_written.readable.txt");
    diag_sink d;
    diag_init(&d);
    assert_null(rewrite_for_to_scan(p, "for_1", true, &d));
    assert_true(has_message(&d, "writes the rows of the input %out in place"));
    fx_program_free(p);
    diag_free(&d);
}

static void test_scan_alias_and_kind(void **state)
{
    (void)state;
    /* the body returns its carry unchanged */
    fx_program *p = load_text("class GraphModule(torch.nn.Module):\n"
                              "    def forward(self, xs: \"f32[5, 3]\", h: \"f32[3]\"):\n"
                              "        empty_like: \"f32[5, 3]\" = torch.ops.aten.empty_like.default(xs, pin_memory = False)\n"
                              "        sym_size_int = torch.ops.aten.sym_size.int(xs, 0)\n"
                              "        body_graph_0 = self.body_graph_0\n"
                              "        for_1 = fxsh.python_for(sym_size_int, body_graph_0, (h,), (xs, empty_like))\n"
                              "        getitem: \"f32[3]\" = for_1[0]\n"
                              "        return (getitem, empty_like)\n"
                              "\n"
                              "    class body_graph_0(torch.nn.Module):\n"
                              "        def forward(self, i, carry: \"f32[3]\", xs: \"f32[5, 3]\", ys: \"f32[5, 3]\"):\n"
                              "            select: \"f32[3]\" = torch.ops.aten.select.int(xs, 0, i)\n"
                              "            mul: \"f32[3]\" = torch.ops.aten.mul.Tensor(select, 2)\n"
                              "            select_1: \"f32[3]\" = torch.ops.aten.select.int(ys, 0, i)\n"
                              "            copy_: \"f32[3]\" = torch.ops.aten.copy_.default(select_1, mul)\n"
                              "            return (carry,)\n",
                              "alias.readable.txt");
    diag_sink d;
    diag_init(&d);
    assert_null(rewrite_for_to_scan(p, "for_1", false, &d));
    assert_true(has_message(&d, "returns its input carry unchanged as carry 0 (Combine_fn might be aliasing the input!)"));
    diag_free(&d);
    diag_init(&d);
    fx_program *q = rewrite_for_to_scan(p, "for_1", true, &d);
    assert_non_null(q);
    fx_node *out = fx_program_find_node(q, "scan_combine_graph_0.output");
    assert_string_equal(out->args->u.seq.items[0]->u.seq.items[0]->u.node->target, "torch.ops.aten.clone.default");
    fx_program_free(q);
    diag_free(&d);
    /* scan of something that is not a for */
    diag_init(&d);
    assert_null(rewrite_for_to_scan(p, "sym_size_int", false, &d));
    assert_true(has_message(&d, "not a Python for (fxsh.python_for)"));
    diag_free(&d);
    diag_init(&d);
    assert_null(rewrite_for_to_scan(p, "nope", false, &d));
    assert_true(has_message(&d, "no node nope"));
    fx_program_free(p);
    diag_free(&d);
}

/* ---- while_loop ---------------------------------------------------------------------------- */

static void test_while_as_torch(void **state)
{
    (void)state;
    fx_program *p = load_ts("while_loop_closure_python_while.torchscript.txt", "while_loop_closure.weights.onnx", "x=f32[2,4]");
    diag_sink d;
    diag_init(&d);
    fx_program *q = rewrite_loop_to_while(p, "while_1", false, &d);
    assert_non_null(q);
    assert_int_equal(d.errors, 0);
    /* the test before the loop became cond_fn and left the graph; additional inputs sorted */
    assert_as_torch(q, "while_loop_closure.exported.fx.txt", "while_loop_closure.exported.readable.txt");
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

static void test_for_break_to_while(void **state)
{
    (void)state;
    fx_program *p = load_ts("for_break.torchscript.txt", "while_loop_closure.weights.onnx", "x=f32[2,4]");
    /* TorchScript's break: a bounded python_while starting True, the next test from an if */
    assert_string_equal(fx_program_find_node(p, "while_1")->target, FX_PYTHON_WHILE);
    diag_sink d;
    diag_init(&d);
    fx_program *q = rewrite_loop_to_while(p, "while_1", false, &d);
    assert_non_null(q);
    fx_node *w = fx_program_find_node(q, "while_loop");
    assert_non_null(w);
    const fx_arg *carried = w->args->u.seq.items[2];
    assert_int_equal(carried->u.seq.len, 3);   /* counter, flag, h */
    assert_string_equal(carried->u.seq.items[0]->u.node->target, "torch.ops.aten.zeros.default");
    assert_string_equal(carried->u.seq.items[1]->u.node->target, "torch.ops.aten.ones.default");
    /* cond: (it < 8) & flag */
    fx_node *lt = fx_program_find_node(q, "while_loop_cond_graph_0.lt");
    assert_non_null(lt);
    assert_int_equal(lt->args->u.seq.items[1]->u.i, 8);
    fx_node *and1 = fx_program_find_node(q, "while_loop_cond_graph_0.and_1");
    assert_non_null(and1);
    assert_string_equal(and1->args->u.seq.items[1]->u.node->name, "arg1_1");
    /* body: (it + 1, not (sum >= 20), h'); the if and its branches are gone */
    fx_node *out = fx_program_find_node(q, "while_loop_body_graph_0.output");
    const fx_arg *o = out->args->u.seq.items[0];
    assert_int_equal(o->u.seq.len, 3);
    assert_string_equal(o->u.seq.items[1]->u.node->target, "torch.ops.aten.logical_not.default");
    assert_string_equal(o->u.seq.items[1]->u.node->args->u.seq.items[0]->u.node->name, "ge");
    assert_null(fx_program_find_node(q, "while_loop_body_graph_0.if_1"));
    assert_null(fx_module_find(q->root, "while_loop_body_graph_0.true_graph_0"));
    /* the result the program returns is h, now result 2 */
    fx_node *r = fx_program_find_node(q, "getitem_2");
    assert_non_null(r);
    assert_int_equal(r->args->u.seq.items[1]->u.i, 2);
    fx_program_free(q);
    fx_program_free(p);
    diag_free(&d);
}

static char *replace_once(const char *s, const char *from, const char *to)
{
    const char *at = strstr(s, from);
    assert_non_null(at);
    strbuf b;
    sb_init(&b);
    sb_putn(&b, s, (size_t)(at - s));
    sb_puts(&b, to);
    sb_puts(&b, at + strlen(from));
    return sb_detach(&b);
}

static void expect_while_refusal(const char *from, const char *to, const char *from2, const char *to2,
                                 const char *message)
{
    size_t n;
    char *t = slurp("while_loop_closure_python_while.torchscript.txt", &n);
    char *v1 = replace_once(t, from, to);
    char *v = from2 ? replace_once(v1, from2, to2) : v1;
    if (v != v1)
        free(v1);
    char wpath[512];
    snprintf(wpath, sizeof wpath, "%s/while_loop_closure.weights.onnx", TEST_FIXTURES "/cflow");
    ts_input_decl in;
    assert_true(ts_parse_input_decl("x=f32[2,4]", &in));
    ts_load_options o = {.weights_path = wpath, .inputs = &in, .n_inputs = 1};
    diag_sink d;
    diag_init(&d);
    fx_program *p = ts_load_text(v, strlen(v), "variant.ts", &o, &d);
    assert_non_null(p);
    tsn_prepare_program(p, &d);   /* as `load` does: the refusals compare shapes */
    fx_program *q = rewrite_loop_to_while(p, "while_1", false, &d);
    if (q || !has_message(&d, message))
        for (size_t i = 0; i < d.len; i++)
            fprintf(stderr, "got: %s\n", d.items[i].message);
    assert_null(q);
    assert_true(has_message(&d, message));
    fx_program_free(p);
    diag_free(&d);
    free(v);
    free(t);
}

static void test_while_refusals(void **state)
{
    (void)state;
    /* the body re-tests with another bound than the first test */
    expect_while_refusal("%25 : Tensor = aten::lt(%it.3, %12)", "%25 : Tensor = aten::lt(%it.3, %10)", NULL, NULL,
                         "the body computes its next test %and_1 differently");
    /* the body changes the shape of h */
    expect_while_refusal("%h.3 : Tensor = aten::add(%24, %h.7, %10)",
                         "%h.9 : Tensor = aten::add(%24, %h.7, %10)\n"
                         "      %h.3 : Tensor = aten::sum(%h.9, %5)",
                         NULL, NULL,
                         "body_fn_output and carried_inputs must have the same metadata, but pair[1] (h) differ in 'shape'");
    /* the body returns the counter unchanged */
    expect_while_refusal("-> (%30, %it.3, %h.3)", "-> (%30, %it.7, %h.3)", "%25 : Tensor = aten::lt(%it.3, %12)",
                         "%25 : Tensor = aten::lt(%it.7, %12)", "returns its input it unchanged");
    /* it += 1 writes the carried input in place */
    expect_while_refusal("%it.3 : Tensor = aten::add(%it.7, %10, %10)", "%it.3 : Tensor = aten::add_(%it.7, %10, %10)",
                         NULL, NULL, "body_fn might be modifying the input! (%add_");
    /* the loop index is used */
    expect_while_refusal("%it.3 : Tensor = aten::add(%it.7, %10, %10)", "%it.3 : Tensor = aten::add(%it.7, %20, %10)",
                         NULL, NULL, "uses the loop index %arg");
}

static void test_while_kinds(void **state)
{
    (void)state;
    fx_program *p = load_readable("scan_cumsum_loop.readable.txt");
    diag_sink d;
    diag_init(&d);
    /* a for that reads x[i] is a scan: while_loop refuses the index and says so */
    assert_null(rewrite_loop_to_while(p, "for_1", false, &d));
    assert_true(has_message(&d, "uses the loop index %i"));
    assert_non_null(strstr(d.items[0].hint, "rewrite %for_1 scan"));
    diag_free(&d);
    diag_init(&d);
    assert_null(rewrite_loop_to_while(p, "select", false, &d));
    assert_true(has_message(&d, "not a Python while (fxsh.python_while) or a Python for (fxsh.python_for)"));
    fx_program_free(p);
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_cumsum_as_torch),  cmocka_unit_test(test_scan_multi_carry_as_torch),
        cmocka_unit_test(test_scan_pairwise_torchscript), cmocka_unit_test(test_scan_refusals),
        cmocka_unit_test(test_scan_alias_and_kind),   cmocka_unit_test(test_scan_input_written),
        cmocka_unit_test(test_while_as_torch),
        cmocka_unit_test(test_for_break_to_while),    cmocka_unit_test(test_while_refusals),
        cmocka_unit_test(test_while_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
