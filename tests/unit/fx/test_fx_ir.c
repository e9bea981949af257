/* test_fx_ir.c — FX IR construction, users, insert/remove, names, dtype table, float repr. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "base/strbuf.h"
#include "fx/fx.h"
#include "fx/fx_ir.h"

static fx_node *add_call(fx_graph *g, const char *name, const char *target, fx_node *a, fx_node *b)
{
    fx_program *p = g->owner->prog;
    fx_node *n = fx_node_new(g, name, FX_OP_CALL_FUNCTION, target);
    fx_arg *items[2] = {fx_arg_node(p, a), b ? fx_arg_node(p, b) : fx_arg_int(p, 2)};
    fx_node_set_args(n, fx_arg_seq(p, FX_ARG_TUPLE, items, NULL, 2), NULL);
    fx_graph_append(g, n);
    return n;
}

static fx_node *add_output(fx_graph *g, fx_node *v)
{
    fx_program *p = g->owner->prog;
    fx_node *o = fx_node_new(g, "output", FX_OP_OUTPUT, "output");
    fx_arg *tv = fx_arg_node(p, v);
    fx_arg *tup = fx_arg_seq(p, FX_ARG_TUPLE, &tv, NULL, 1);
    fx_node_set_args(o, fx_arg_seq(p, FX_ARG_TUPLE, &tup, NULL, 1), NULL);
    fx_graph_append(g, o);
    return o;
}

static void test_build_and_users(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_graph *g = fx_program_graph(p);
    fx_node *x = fx_node_new(g, "x", FX_OP_PLACEHOLDER, "x");
    fx_graph_append(g, x);
    fx_node *add = add_call(g, "add", "torch.ops.aten.add.Tensor", x, x);   /* x used twice */
    fx_node *mul = add_call(g, "mul", "torch.ops.aten.mul.Tensor", add, x);
    add_output(g, mul);
    fx_graph_recompute_users(g);
    assert_int_equal(g->n_nodes, 4);
    assert_int_equal(x->n_users, 2);          /* distinct users: add, mul */
    assert_ptr_equal(x->users[0], add);
    assert_ptr_equal(x->users[1], mul);
    assert_int_equal(mul->n_users, 1);        /* the output counts */
    assert_ptr_equal(fx_graph_lookup(g, "%add"), add);
    assert_null(fx_graph_lookup(g, "nope"));

    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_GRAPH, &sb);
    assert_string_equal(sb.s,
        "graph():\n"
        "    %x : [num_users=2] = placeholder[target=x]\n"
        "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%x, %x), kwargs = {})\n"
        "    %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%add, %x), kwargs = {})\n"
        "    return (mul,)");
    sb_free(&sb);
    fx_program_free(p);
}

static void test_insert_remove_and_names(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_graph *g = fx_program_graph(p);
    fx_node *x = fx_node_new(g, "x", FX_OP_PLACEHOLDER, "x");
    fx_graph_append(g, x);
    fx_node *a1 = add_call(g, "add", "operator.add", x, NULL);
    fx_node *out = add_output(g, a1);
    /* a second "add" gets a fresh name, inserted before the output */
    fx_node *a2 = fx_node_new(g, "add", FX_OP_CALL_FUNCTION, "operator.add");
    assert_string_equal(a2->name, "add_1");
    fx_arg *items[2] = {fx_arg_node(p, a1), fx_arg_int(p, 1)};
    fx_node_set_args(a2, fx_arg_seq(p, FX_ARG_TUPLE, items, NULL, 2), NULL);
    fx_graph_insert_before(g, out, a2);
    fx_arg *tv = fx_arg_node(p, a2);
    fx_node_set_args(out, fx_arg_seq(p, FX_ARG_TUPLE, &tv, NULL, 1), NULL);
    fx_graph_recompute_users(g);
    assert_ptr_equal(out->prev, a2);
    assert_int_equal(a1->n_users, 1);
    assert_ptr_equal(a1->users[0], a2);
    /* a node with users cannot be removed; once unused it can */
    assert_false(fx_graph_remove(g, a1));
    assert_true(fx_graph_remove(g, a2) == false);   /* used by output */
    fx_node_set_args(out, fx_arg_seq(p, FX_ARG_TUPLE, (fx_arg *[]){fx_arg_node(p, a1)}, NULL, 1), NULL);
    fx_graph_recompute_users(g);
    assert_true(fx_graph_remove(g, a2));
    assert_int_equal(g->n_nodes, 3);
    assert_null(fx_graph_lookup(g, "add_1"));
    assert_ptr_equal(a1->next, out);
    assert_int_equal(a1->n_users, 1);   /* a2 dropped from a1's users on removal */
    assert_ptr_equal(a1->users[0], out);
    /* many same-named nodes get consecutive suffixes */
    const char *nm = NULL;
    for (int i = 0; i < 50; i++)
        nm = fx_node_new(g, "add", FX_OP_CALL_FUNCTION, "operator.add")->name;
    assert_string_equal(nm, "add_51");

    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_CODE, &sb);
    assert_string_equal(sb.s,
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        # No stacktrace found for following nodes\n"
        "        add = x + 2;  x = None\n"
        "        return add\n");
    sb_free(&sb);
    fx_program_free(p);
}

/* References to a node that is not (or no longer) in the graph are ignored, not followed. */
static void test_detached_refs(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_graph *g = fx_program_graph(p);
    fx_node *x = fx_node_new(g, "x", FX_OP_PLACEHOLDER, "x");
    fx_graph_append(g, x);
    fx_node *ghost = fx_node_new(g, "ghost", FX_OP_CALL_FUNCTION, "f");   /* never appended */
    fx_node *a = add_call(g, "a", "f", x, ghost);
    add_output(g, a);
    fx_graph_recompute_users(g);
    assert_int_equal(x->n_users, 1);
    assert_int_equal(ghost->n_users, 0);
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_CODE, &sb);
    assert_non_null(strstr(sb.s, "a = f(x, ghost);  x = None\n"));
    sb_free(&sb);
    fx_program_free(p);
}

static void test_dtype_table(void **state)
{
    (void)state;
    assert_int_equal(fx_dtype_from_torch_name("torch.float32", 13), FX_DT_F32);
    assert_int_equal(fx_dtype_from_torch_name("torch.float", 11), FX_DT_F32);
    assert_int_equal(fx_dtype_from_abbr("b8", 2), FX_DT_BOOL);
    assert_int_equal(fx_dtype_from_abbr("bf16", 4), FX_DT_BF16);
    assert_int_equal(fx_dtype_from_abbr("zz", 2), FX_DT_UNKNOWN);
    assert_string_equal(fx_dtype_get(FX_DT_I64)->abbr, "i64");
    assert_int_equal(fx_dtype_get(FX_DT_I64)->onnx_type, 7);
    assert_int_equal(fx_dtype_get(FX_DT_F16)->elem_size, 2);
    assert_int_equal(fx_dtype_from_onnx(1), FX_DT_F32);
    assert_string_equal(fx_dtype_get((fx_dtype)999)->abbr, "?");
}

static void test_float_repr(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(fx_float_repr(1.0, b, sizeof b), "1.0");
    assert_string_equal(fx_float_repr(1e-05, b, sizeof b), "1e-05");
    assert_string_equal(fx_float_repr(0.0001, b, sizeof b), "0.0001");
    assert_string_equal(fx_float_repr(0.1, b, sizeof b), "0.1");
    assert_string_equal(fx_float_repr(-2.5, b, sizeof b), "-2.5");
    assert_string_equal(fx_float_repr(1e16, b, sizeof b), "1e+16");
    assert_string_equal(fx_float_repr(1234567890123456.0, b, sizeof b), "1234567890123456.0");
    assert_string_equal(fx_float_repr(0.3333333333333333, b, sizeof b), "0.3333333333333333");
    assert_string_equal(fx_float_repr(INFINITY, b, sizeof b), "inf");
    assert_string_equal(fx_float_repr(-INFINITY, b, sizeof b), "-inf");
    assert_string_equal(fx_float_repr(NAN, b, sizeof b), "nan");
    assert_string_equal(fx_float_repr(1.5e-7, b, sizeof b), "1.5e-07");
    assert_string_equal(fx_float_repr(-0.0, b, sizeof b), "-0.0");
}

static void test_weights_and_modules(void **state)
{
    (void)state;
    fx_program *p = fx_program_new("MLP");
    int64_t shape[2] = {16, 8};
    float *data = xcalloc(128, sizeof(float));
    fx_weight *w = fx_program_add_weight(p, "fc1.weight", FX_TENSOR_PARAMETER, FX_DT_F32, shape, 2,
                                         data, 128 * sizeof(float), true);
    assert_ptr_equal(fx_program_weight(p, "fc1.weight"), w);
    assert_int_equal(w->shape[0], 16);
    fx_module *fc1 = fx_module_add_child(p->root, "fc1", "Linear", "Linear(in_features=8, out_features=16, bias=True)");
    fx_module *sub = fx_module_add_child(fc1, "inner", "Module", NULL);
    assert_ptr_equal(fx_module_find(p->root, "fc1.inner"), sub);
    assert_null(fx_module_find(p->root, "fc1.none"));
    assert_string_equal(p->root->name, "MLP");
    fx_program_free(p);   /* frees the owned weight data too (checked under valgrind) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_and_users),
        cmocka_unit_test(test_insert_remove_and_names),
        cmocka_unit_test(test_detached_refs),
        cmocka_unit_test(test_dtype_table),
        cmocka_unit_test(test_float_repr),
        cmocka_unit_test(test_weights_and_modules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
