/* test_ts_export.c — TorchScript programs as torch.export records them: overloads and argument
 * forms after load, in-place results, and export's replay of the Python-level code (checks that
 * raise, lists built in loops, indexing, module attributes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "fx/fx.h"
#include "fx/fx_build.h"
#include "load/ts_load.h"
#include "pipeline/pipeline.h"

#define HEADER "graph(%self : __torch__.M,\n      %x.1 : Tensor):\n"

/* text loaded with input x declared by decl (and an attribute, or NULL) as `load` does: through
 * the pipeline's entry point. */
static fx_program *load(const char *text, const char *decl, const char *attr, diag_sink *d)
{
    ts_input_decl in;
    ts_attr_decl at;
    assert_true(ts_parse_input_decl(decl, &in));
    pl_load_options o = {.inputs = &in, .n_inputs = 1};
    if (attr) {
        assert_true(ts_parse_attr_decl(attr, &at));
        o.attrs = &at;
        o.n_attrs = 1;
    }
    pl_loaded l;
    assert_true(pl_load_buffer(text, strlen(text), "m.ts", &o, &l, d));
    assert_int_equal(l.stage, PL_STAGE_FX);
    return l.fx;
}

static char *graph_text(const fx_program *p)
{
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_GRAPH, &sb);
    return sb_detach(&sb);
}

/* The exported program's graph, or NULL when export fails (reported to d): the pipeline's
 * capture stage, as `export` runs it. */
static char *exported(const fx_program *p, diag_sink *d)
{
    pl_stage stages[PL_N_STAGES];
    pl_stages_init(stages);
    pl_stage_set_fx(&stages[PL_STAGE_FX], fx_program_clone(p), "m.ts");
    export_settings cfg;
    settings_init(&cfg);
    struct ops_registry *ops = NULL;
    pl_env env = {.diag = d, .ops = &ops};
    char *text = pl_run_stage(stages, PL_STAGE_EXPORTED, &cfg, NULL, &env) ? graph_text(stages[PL_STAGE_EXPORTED].fx) : NULL;
    for (int i = 0; i < PL_N_STAGES; i++) pl_stage_clear(&stages[i]);
    settings_free(&cfg);
    pl_free_ops(ops);
    return text;
}

static bool has_error(const diag_sink *d, const char *what)
{
    for (size_t i = 0; i < d->len; i++)
        if (d->items[i].severity == DIAG_ERROR && strstr(d->items[i].message, what))
            return true;
    return false;
}

/* TorchScript passes every argument: the overload is the one Python binds, the defaults go,
 * the dtype number becomes a torch.dtype. */
static void test_overloads_and_defaults(void **state)
{
    (void)state;
    static const char text[] = HEADER
        "  %none : NoneType = prim::Constant()\n"
        "  %f : bool = prim::Constant[value=0]()\n"
        "  %t : bool = prim::Constant[value=1]()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %m1 : int = prim::Constant[value=-1]()\n"
        "  %d6 : int = prim::Constant[value=6]()\n"
        "  %l : int[] = prim::ListConstruct(%one)\n"
        "  %a : Tensor = aten::mean(%x.1, %l, %t, %none)\n"
        "  %b : Tensor = aten::flatten(%a, %one, %m1)\n"
        "  %c : Tensor = aten::to(%b, %d6, %f, %f, %none)\n"
        "  %e : Tensor = aten::add(%c, %one, %one)\n"
        "  %g : Tensor = aten::gt(%e, %one)\n"
        "  %r : (Tensor, Tensor) = prim::TupleConstruct(%e, %g)\n"
        "  return (%r)\n";
    diag_sink d;
    diag_init(&d);
    fx_program *p = load(text, "x=f32[2,3,4]", NULL, &d);
    char *g = graph_text(p);
    assert_non_null(strstr(g, "torch.ops.aten.mean.dim](args = (%x, [1], True), kwargs = {})"));
    assert_non_null(strstr(g, "torch.ops.aten.flatten.using_ints](args = (%mean, 1), kwargs = {})"));
    assert_non_null(strstr(g, "torch.ops.aten.to.dtype](args = (%flatten, torch.float32), kwargs = {})"));
    assert_non_null(strstr(g, "torch.ops.aten.add.Tensor](args = (%to, 1), kwargs = {})"));
    assert_non_null(strstr(g, "torch.ops.aten.gt.Scalar](args = (%add, 1), kwargs = {})"));
    free(g);
    /* export records the metadata check torch.export makes before Tensor.to */
    g = exported(p, &d);
    assert_non_null(g);
    assert_non_null(strstr(g, "torch.ops.aten._assert_tensor_metadata.default](args = (%flatten,), kwargs = {dtype: "
                              "torch.float32, device: cpu, layout: torch.strided})"));
    free(g);
    fx_program_free(p);
    diag_free(&d);
}

/* After x.add_(1), x is the op's result (torch.export's proxy for the tensor). */
static void test_inplace_result(void **state)
{
    (void)state;
    static const char text[] = HEADER
        "  %one : int = prim::Constant[value=1]()\n"
        "  %a : Tensor = aten::add_(%x.1, %one, %one)\n"
        "  %b : Tensor = aten::relu(%x.1)\n"
        "  %r : (Tensor) = prim::TupleConstruct(%b)\n"
        "  return (%r)\n";
    diag_sink d;
    diag_init(&d);
    fx_program *p = load(text, "x=f32[3]", NULL, &d);
    char *g = graph_text(p);
    assert_non_null(strstr(g, "torch.ops.aten.relu.default](args = (%add_,), kwargs = {})"));
    free(g);
    fx_program_free(p);
    diag_free(&d);
}

/* nn.functional-style library code: a check that raises, a list built in a loop over x.dim();
 * export runs it on the example shape and records only the view. */
static const char library_code[] = HEADER
    "  %two : int = prim::Constant[value=2]()\n"
    "  %true : bool = prim::Constant[value=1]()\n"
    "  %msg : str = prim::Constant[value=\"expected 2D input (got {}D input)\"]()\n"
    "  %cls : str = prim::Constant[value=\"builtins.ValueError\"]()\n"
    "  %d : int = aten::dim(%x.1)\n"
    "  %bad : bool = aten::ne(%d, %two)\n"
    "   = prim::If(%bad) # m.py:3:4\n"
    "    block0():\n"
    "      %d2 : int = aten::dim(%x.1)\n"
    "      %m : str = aten::format(%msg, %d2)\n"
    "       = prim::RaiseException(%m, %cls) # m.py:4:8\n"
    "      -> ()\n"
    "    block1():\n"
    "      -> ()\n"
    "  %sizes : int[] = prim::ListConstruct()\n"
    "   = prim::Loop(%d, %true)\n"
    "    block0(%i : int):\n"
    "      %s : int = aten::size(%x.1, %i)\n"
    "      %u : int[] = aten::append(%sizes, %s)\n"
    "      -> (%true)\n"
    "  %v : Tensor = aten::view(%x.1, %sizes)\n"
    "  %r : (Tensor) = prim::TupleConstruct(%v)\n"
    "  return (%r)\n";

static void test_replay_library_code(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    fx_program *p = load(library_code, "x=f32[3,4]", NULL, &d);
    char *g = exported(p, &d);
    assert_non_null(g);
    assert_int_equal(d.errors, 0);
    assert_non_null(strstr(g, "%view : [num_users=1] = call_function[target=torch.ops.aten.view.default](args = "
                              "(%x, [3, 4]), kwargs = {})"));
    assert_null(strstr(g, "python_"));   /* the if and the loop were decided */
    assert_null(strstr(g, "operator."));
    free(g);
    fx_program_free(p);
    /* with a 3-d input the check raises, as it does under torch.export */
    p = load(library_code, "x=f32[3,4,5]", NULL, &d);
    assert_null(exported(p, &d));
    assert_true(has_error(&d, "the model raises ValueError: expected 2D input (got 3D input)"));
    fx_program_free(p);
    diag_free(&d);
}

/* x[:, 1:] is one slice (the open `:` records nothing); x[0] = 2.0 fills row 0 with a lifted
 * constant. */
static void test_indexing(void **state)
{
    (void)state;
    static const char text[] = HEADER
        "  %none : NoneType = prim::Constant()\n"
        "  %f : bool = prim::Constant[value=0]()\n"
        "  %zero : int = prim::Constant[value=0]()\n"
        "  %one : int = prim::Constant[value=1]()\n"
        "  %two : float = prim::Constant[value=2.]()\n"
        "  %a : Tensor = aten::slice(%x.1, %zero, %none, %none, %one)\n"
        "  %b : Tensor = aten::slice(%a, %one, %one, %none, %one)\n"
        "  %y : Tensor = aten::clone(%x.1, %none)\n"
        "  %s : Tensor = aten::select(%y, %zero, %zero)\n"
        "  %dt : int = prim::dtype(%s)\n"
        "  %dev : Device = prim::device(%s)\n"
        "  %t : Tensor = aten::tensor(%two, %dt, %dev, %f)\n"
        "  %c : Tensor = aten::copy_(%s, %t, %f)\n"
        "  %r : (Tensor, Tensor) = prim::TupleConstruct(%b, %y)\n"
        "  return (%r)\n";
    diag_sink d;
    diag_init(&d);
    fx_program *p = load(text, "x=f32[3,4]", NULL, &d);
    char *g = exported(p, &d);
    assert_non_null(g);
    assert_non_null(strstr(g, "%slice_1 : [num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = "
                              "(%x, 1, 1, 9223372036854775807), kwargs = {})"));
    assert_null(strstr(g, "%slice_2"));
    assert_non_null(strstr(g, "%c_lifted_tensor_0 : [num_users=1] = placeholder[target=c_lifted_tensor_0]"));
    assert_non_null(strstr(g, "torch.ops.aten.fill_.Tensor](args = (%select, %lift_fresh_copy), kwargs = {})"));
    free(g);
    fx_program_free(p);
    diag_free(&d);
}

/* self.heads: TorchScript's text has no value for it; export says how to give one. */
static void test_module_attribute(void **state)
{
    (void)state;
    static const char text[] = HEADER
        "  %two : int = prim::Constant[value=2]()\n"
        "  %h : int = prim::GetAttr[name=\"heads\"](%self)\n"
        "  %n : int = aten::floordiv(%two, %h)\n"
        "  %l : int[] = prim::ListConstruct(%h, %n)\n"
        "  %v : Tensor = aten::view(%x.1, %l)\n"
        "  %r : (Tensor) = prim::TupleConstruct(%v)\n"
        "  return (%r)\n";
    diag_sink d;
    diag_init(&d);
    fx_program *p = load(text, "x=f32[2]", NULL, &d);
    assert_null(exported(p, &d));
    assert_true(has_error(&d, "the value of self.heads is not known"));
    const diagnostic *e = NULL;   /* (the pipeline's verdict on the stage follows it) */
    for (size_t i = 0; i < d.len && !e; i++)
        if (strstr(d.items[i].message, "the value of self.heads is not known")) e = &d.items[i];
    assert_non_null(e->hint);
    assert_non_null(strstr(e->hint, "--attr heads=VALUE"));
    fx_program_free(p);
    diag_free(&d);
    diag_init(&d);
    p = load(text, "x=f32[2]", "heads=2", &d);
    char *g = exported(p, &d);
    assert_non_null(g);
    assert_non_null(strstr(g, "torch.ops.aten.view.default](args = (%x, [2, 1]), kwargs = {})"));
    free(g);
    fx_program_free(p);
    diag_free(&d);
}

static void test_declarations(void **state)
{
    (void)state;
    ts_attr_decl a;
    assert_true(ts_parse_attr_decl("heads=4", &a));
    assert_string_equal(a.name, "heads");
    assert_string_equal(a.value, "4");
    assert_true(ts_parse_attr_decl("blocks.0.act='tanh'", &a));
    assert_true(ts_parse_attr_decl("scale=0.5", &a));
    assert_true(ts_parse_attr_decl("flag=True", &a));
    assert_false(ts_parse_attr_decl("heads=", &a));
    assert_false(ts_parse_attr_decl("=4", &a));
    assert_false(ts_parse_attr_decl("a b=4", &a));
    assert_false(ts_parse_attr_decl("heads=four", &a));
    ts_input_decl in;
    assert_true(ts_parse_input_decl("x=f32[s77,3]", &in));
    assert_int_equal(in.rank, 2);
    assert_string_equal(in.dims[0], "s77");
    assert_string_equal(in.dims[1], "3");
    assert_false(ts_parse_input_decl("x=f32[-1]", &in));
    assert_false(ts_parse_input_decl("x=f32[3x]", &in));
    assert_false(ts_parse_input_decl("x=q8[3]", &in));
}

/* A symbol in the declared shape: the size is read at run time, as torch.export records it. */
static void test_dynamic_dimension(void **state)
{
    (void)state;
    static const char text[] = HEADER
        "  %zero : int = prim::Constant[value=0]()\n"
        "  %m1 : int = prim::Constant[value=-1]()\n"
        "  %b : int = aten::size(%x.1, %zero)\n"
        "  %l : int[] = prim::ListConstruct(%b, %m1)\n"
        "  %v : Tensor = aten::reshape(%x.1, %l)\n"
        "  %r : (Tensor) = prim::TupleConstruct(%v)\n"
        "  return (%r)\n";
    diag_sink d;
    diag_init(&d);
    fx_program *p = load(text, "x=f32[batch,2,3]", NULL, &d);
    char *g = exported(p, &d);
    assert_non_null(g);
    assert_non_null(strstr(g, "%sym_size_int_1 : [num_users=1] = call_function[target=torch.ops.aten.sym_size.int]"
                              "(args = (%x, 0), kwargs = {})"));
    assert_non_null(strstr(g, "torch.ops.aten.reshape.default](args = (%x, [%sym_size_int_1, -1]), kwargs = {})"));
    free(g);
    fx_program_free(p);
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overloads_and_defaults), cmocka_unit_test(test_inplace_result),
        cmocka_unit_test(test_replay_library_code),    cmocka_unit_test(test_indexing),
        cmocka_unit_test(test_module_attribute),       cmocka_unit_test(test_declarations),
        cmocka_unit_test(test_dynamic_dimension),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
