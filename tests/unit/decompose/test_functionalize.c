/* test_functionalize.c — decompose's functionalization of writes through views, on small
 * hand-written exported programs: the graphs torch's functionalization builds (a mutated view is
 * written back with *_scatter, inner levels first; a view of a mutated storage is regenerated
 * at its next use; a mutated input is returned first). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "load/load.h"
#include "decompose/decompose.h"

/* Decomposes an exported program given as print_readable() text; NULL on failure (d holds why). */
static char *decompose_text(const char *code, decomp_table which, diag_sink *d, fx_program **out)
{
    fx_program *p = fxp_parse_code_text(code, strlen(code), "test.py", d);
    assert_non_null(p);
    fx_program *r = decompose_program(p, which, d);
    fx_program_free(p);
    if (!r)
        return NULL;
    strbuf sb;
    sb_init(&sb);
    fx_print(r, FX_FORM_GRAPH, &sb);
    if (out)
        *out = r;
    else
        fx_program_free(r);
    return sb_detach(&sb);
}

static void check(const char *code, decomp_table which, const char *want)
{
    diag_sink d;
    diag_init(&d);
    char *got = decompose_text(code, which, &d, NULL);
    if (!got && d.len)
        fail_msg("decompose failed: %s", d.items[0].message);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
    diag_free(&d);
}

/* y[1:3][:, 2:4] += 1 on a copy that is returned: the inner slice is taken again from the base,
 * scattered into, and that is scattered into the base. */
static const char *const slice_of_slice =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, x: \"f32[4, 6]\"):\n"
    "        clone: \"f32[4, 6]\" = torch.ops.aten.clone.default(x);  x = None\n"
    "        slice_1: \"f32[2, 6]\" = torch.ops.aten.slice.Tensor(clone, 0, 1, 3)\n"
    "        slice_2: \"f32[2, 2]\" = torch.ops.aten.slice.Tensor(slice_1, 1, 2, 4);  slice_1 = None\n"
    "        add_: \"f32[2, 2]\" = torch.ops.aten.add_.Tensor(slice_2, 1.0);  slice_2 = add_ = None\n"
    "        return (clone,)\n";

static const char *const slice_of_slice_want =
    "graph():\n"
    "    %x : [num_users=1] = placeholder[target=x]\n"
    "    %clone : [num_users=3] = call_function[target=torch.ops.aten.clone.default](args = (%x,), kwargs = {})\n"
    "    %slice_1 : [num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%clone, 0, 1, 3), kwargs = {})\n"
    "    %slice_2 : [num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%slice_1, 1, 2, 4), kwargs = {})\n"
    "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%slice_2, 1.0), kwargs = {})\n"
    "    %slice_3 : [num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%clone, 0, 1, 3), kwargs = {})\n"
    "    %slice_scatter : [num_users=1] = call_function[target=torch.ops.aten.slice_scatter.default](args = (%slice_3, %add, 1, 2, 4), kwargs = {})\n"
    "    %slice_scatter_1 : [num_users=1] = call_function[target=torch.ops.aten.slice_scatter.default](args = (%clone, %slice_scatter, 0, 1, 3), kwargs = {})\n"
    "    return (slice_scatter_1,)";

static void test_slice_of_slice(void **state)
{
    (void)state;
    /* slice_scatter is core ATen: both tables keep it */
    check(slice_of_slice, DECOMP_ONNX, slice_of_slice_want);
    check(slice_of_slice, DECOMP_DEFAULT, slice_of_slice_want);
}

/* Two writes into one base through two views: the second view, taken after the first write,
 * is regenerated from the updated base before it is used (select_2 is dead, select_3 used). */
static void test_two_mutations_of_one_base(void **state)
{
    (void)state;
    check("class GraphModule(torch.nn.Module):\n"
          "    def forward(self, x: \"f32[4, 4]\"):\n"
          "        clone: \"f32[4, 4]\" = torch.ops.aten.clone.default(x);  x = None\n"
          "        select: \"f32[4]\" = torch.ops.aten.select.int(clone, 0, 0)\n"
          "        add_: \"f32[4]\" = torch.ops.aten.add_.Tensor(select, 1.0);  select = add_ = None\n"
          "        select_1: \"f32[4]\" = torch.ops.aten.select.int(clone, 1, 1)\n"
          "        mul_: \"f32[4]\" = torch.ops.aten.mul_.Tensor(select_1, 2.0);  select_1 = mul_ = None\n"
          "        return (clone,)\n",
          DECOMP_ONNX,
          "graph():\n"
          "    %x : [num_users=1] = placeholder[target=x]\n"
          "    %clone : [num_users=2] = call_function[target=torch.ops.aten.clone.default](args = (%x,), kwargs = {})\n"
          "    %select : [num_users=1] = call_function[target=torch.ops.aten.select.int](args = (%clone, 0, 0), kwargs = {})\n"
          "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%select, 1.0), kwargs = {})\n"
          "    %select_scatter : [num_users=2] = call_function[target=torch.ops.aten.select_scatter.default](args = (%clone, %add, 0, 0), kwargs = {})\n"
          "    %select_3 : [num_users=1] = call_function[target=torch.ops.aten.select.int](args = (%select_scatter, 1, 1), kwargs = {})\n"
          "    %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%select_3, 2.0), kwargs = {})\n"
          "    %select_scatter_1 : [num_users=1] = call_function[target=torch.ops.aten.select_scatter.default](args = (%select_scatter, %mul, 1, 1), kwargs = {})\n"
          "    return (select_scatter_1,)");
}

/* x[1] += 1 on a user input: later reads of x see the scattered value, and the new x is the
 * first output, a USER_INPUT_MUTATION of the signature. */
static void test_mutated_user_input_signature(void **state)
{
    (void)state;
    static const char code[] = "class GraphModule(torch.nn.Module):\n"
                               "    def forward(self, x: \"f32[3, 4]\"):\n"
                               "        select: \"f32[4]\" = torch.ops.aten.select.int(x, 0, 1)\n"
                               "        add_: \"f32[4]\" = torch.ops.aten.add_.Tensor(select, 1.0);  select = add_ = None\n"
                               "        mul: \"f32[3, 4]\" = torch.ops.aten.mul.Tensor(x, 2.0);  x = None\n"
                               "        return (mul,)\n";
    diag_sink d;
    diag_init(&d);
    fx_program *p = fxp_parse_code_text(code, strlen(code), "test.py", &d);
    assert_non_null(p);
    fx_input_spec *in = fx_alloc(p, sizeof *in);
    in[0] = (fx_input_spec){ FX_IN_USER_INPUT, "x", NULL, false };
    fx_output_spec *out = fx_alloc(p, sizeof *out);
    out[0] = (fx_output_spec){ FX_OUT_USER_OUTPUT, "mul", NULL };
    p->sig = (fx_signature){ in, 1, out, 1, true };
    fx_program *r = decompose_program(p, DECOMP_ONNX, &d);
    assert_non_null(r);
    strbuf sb;
    sb_init(&sb);
    fx_print(r, FX_FORM_GRAPH, &sb);
    assert_string_equal(sb.s,
        "graph():\n"
        "    %x : [num_users=2] = placeholder[target=x]\n"
        "    %select : [num_users=1] = call_function[target=torch.ops.aten.select.int](args = (%x, 0, 1), kwargs = {})\n"
        "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%select, 1.0), kwargs = {})\n"
        "    %select_scatter : [num_users=2] = call_function[target=torch.ops.aten.select_scatter.default](args = (%x, %add, 0, 1), kwargs = {})\n"
        "    %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%select_scatter, 2.0), kwargs = {})\n"
        "    return (select_scatter, mul)");
    assert_int_equal(r->sig.n_outputs, 2);
    assert_int_equal(r->sig.outputs[0].kind, FX_OUT_USER_INPUT_MUTATION);
    assert_string_equal(r->sig.outputs[0].name, "select_scatter");
    assert_string_equal(r->sig.outputs[0].target, "x");
    assert_int_equal(r->sig.outputs[1].kind, FX_OUT_USER_OUTPUT);
    assert_string_equal(r->sig.outputs[1].name, "mul");
    sb_free(&sb);
    fx_program_free(r);
    fx_program_free(p);
    diag_free(&d);
}

/* A view taken before its base is mutated and returned afterwards is regenerated from the new
 * base at the output (the view taken first is dead). */
static void test_view_of_mutated_base_returned(void **state)
{
    (void)state;
    check("class GraphModule(torch.nn.Module):\n"
          "    def forward(self, x: \"f32[4]\"):\n"
          "        clone: \"f32[4]\" = torch.ops.aten.clone.default(x);  x = None\n"
          "        view: \"f32[2, 2]\" = torch.ops.aten.view.default(clone, [2, 2])\n"
          "        add_: \"f32[4]\" = torch.ops.aten.add_.Tensor(clone, 1.0);  clone = None\n"
          "        return (add_, view)\n",
          DECOMP_ONNX,
          "graph():\n"
          "    %x : [num_users=1] = placeholder[target=x]\n"
          "    %clone : [num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%x,), kwargs = {})\n"
          "    %add : [num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%clone, 1.0), kwargs = {})\n"
          "    %view_1 : [num_users=1] = call_function[target=torch.ops.aten.view.default](args = (%add, [2, 2]), kwargs = {})\n"
          "    return (add, view_1)");
}

/* A write into one output of split goes back with slice_scatter over that output's range; the
 * unused item keeps its getitem name taken (getitem is dead, getitem_1 lives). */
static void test_write_through_split(void **state)
{
    (void)state;
    check("class GraphModule(torch.nn.Module):\n"
          "    def forward(self, x: \"f32[4, 2]\"):\n"
          "        clone: \"f32[4, 2]\" = torch.ops.aten.clone.default(x);  x = None\n"
          "        split = torch.ops.aten.split.Tensor(clone, 2)\n"
          "        getitem_1: \"f32[2, 2]\" = split[1];  split = None\n"
          "        mul_: \"f32[2, 2]\" = torch.ops.aten.mul_.Tensor(getitem_1, 2.0);  getitem_1 = mul_ = None\n"
          "        return (clone,)\n",
          DECOMP_ONNX,
          "graph():\n"
          "    %x : [num_users=1] = placeholder[target=x]\n"
          "    %clone : [num_users=2] = call_function[target=torch.ops.aten.clone.default](args = (%x,), kwargs = {})\n"
          "    %split : [num_users=1] = call_function[target=torch.ops.aten.split.Tensor](args = (%clone, 2), kwargs = {})\n"
          "    %getitem_1 : [num_users=1] = call_function[target=operator.getitem](args = (%split, 1), kwargs = {})\n"
          "    %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%getitem_1, 2.0), kwargs = {})\n"
          "    %slice_scatter : [num_users=1] = call_function[target=torch.ops.aten.slice_scatter.default](args = (%clone, %mul, 0, 2, 4), kwargs = {})\n"
          "    return (slice_scatter,)");
}

/* Writing through expand (no inverse) is refused, naming the in-place node and the view. */
static void test_write_through_expand_refused(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    char *got = decompose_text("class GraphModule(torch.nn.Module):\n"
                               "    def forward(self, x: \"f32[1, 4]\"):\n"
                               "        expand: \"f32[3, 4]\" = torch.ops.aten.expand.default(x, [3, 4]);  x = None\n"
                               "        add_: \"f32[3, 4]\" = torch.ops.aten.add_.Tensor(expand, 1.0);  expand = None\n"
                               "        return (add_,)\n",
                               DECOMP_DEFAULT, &d, NULL);
    assert_null(got);
    assert_true(d.errors > 0);
    assert_non_null(strstr(d.items[0].message, "node %add_"));
    assert_non_null(strstr(d.items[0].message, "view %expand"));
    assert_non_null(d.items[0].hint);
    diag_free(&d);
}

/* A cond branch writing into its input cannot be returned as a mutation: refused, not dropped. */
static void test_subgraph_input_mutation_refused(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    char *got = decompose_text("class GraphModule(torch.nn.Module):\n"
                               "    def forward(self, x: \"f32[4]\", p: \"b8[]\"):\n"
                               "        true_graph_0 = self.true_graph_0\n"
                               "        false_graph_0 = self.false_graph_0\n"
                               "        cond = torch.ops.higher_order.cond(p, true_graph_0, false_graph_0, (x,))\n"
                               "        getitem: \"f32[4]\" = cond[0]\n"
                               "        return (getitem,)\n"
                               "\n"
                               "    class true_graph_0(torch.nn.Module):\n"
                               "        def forward(self, x: \"f32[4]\"):\n"
                               "            mul_: \"f32[4]\" = torch.ops.aten.mul_.Tensor(x, 2.0)\n"
                               "            return (mul_,)\n"
                               "\n"
                               "    class false_graph_0(torch.nn.Module):\n"
                               "        def forward(self, x: \"f32[4]\"):\n"
                               "            neg: \"f32[4]\" = torch.ops.aten.neg.default(x)\n"
                               "            return (neg,)\n",
                               DECOMP_ONNX, &d, NULL);
    assert_null(got);
    assert_true(d.errors > 0);
    assert_non_null(strstr(d.items[0].message, "subgraph true_graph_0 writes into its input %x"));
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slice_of_slice),
        cmocka_unit_test(test_two_mutations_of_one_base),
        cmocka_unit_test(test_mutated_user_input_signature),
        cmocka_unit_test(test_view_of_mutated_base_returned),
        cmocka_unit_test(test_write_through_split),
        cmocka_unit_test(test_write_through_expand_refused),
        cmocka_unit_test(test_subgraph_input_mutation_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
