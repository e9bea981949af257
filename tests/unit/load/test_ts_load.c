/* test_ts_load.c — TorchScript IR loader: corpus files load, python_if / python_for structure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_paths.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "load/load.h"
#include "fx/fx_control.h"
#include "load/ts_load.h"
#include "capture/ts_normalize.h"

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    rewind(f);
    char *b = malloc((size_t)sz + 1);
    *n = fread(b, 1, (size_t)sz, f);
    b[*n] = 0;
    fclose(f);
    return b;
}

static fx_program *load_fixture(const char *name, const char *weights, const char *decl)
{
    char path[512], wpath[512];
    snprintf(path, sizeof path, "%s/%s", TEST_FIXTURES "/cflow", name);
    size_t n;
    char *t = slurp(path, &n);
    assert_non_null(t);
    assert_true(ts_sniff(t, n));
    ts_load_options o = {0};
    ts_input_decl in;
    if (weights) {
        snprintf(wpath, sizeof wpath, "%s/%s", TEST_FIXTURES "/cflow", weights);
        o.weights_path = wpath;
    }
    if (decl) {
        assert_true(ts_parse_input_decl(decl, &in));
        o.inputs = &in;
        o.n_inputs = 1;
    }
    diag_sink d;
    diag_init(&d);
    fx_program *p = ts_load_text(t, n, path, &o, &d);
    assert_int_equal(d.errors, 0);
    assert_non_null(p);
    tsn_prepare_program(p, &d);   /* the shapes, as `load` infers them */
    assert_int_equal(d.errors, 0);
    diag_free(&d);
    free(t);
    return p;
}

static void test_if_structure(void **state)
{
    (void)state;
    fx_program *p = load_fixture("python_if_data.torchscript.txt", "python_if_data.onnx", "x=f32[3,4]");
    fx_node *n = fx_program_find_node(p, "if_1");
    assert_non_null(n);
    fx_control_view v;
    assert_true(fx_control_inspect(n, &v));
    assert_int_equal(v.kind, FX_CTRL_IF);
    assert_int_equal(v.cond->kind, FX_ARG_NODE);
    assert_string_equal(v.cond->u.node->target, "torch.ops.aten.sum.default");
    assert_string_equal(v.sub[0]->name, "true_graph_0");
    assert_string_equal(v.sub[1]->name, "false_graph_0");
    assert_int_equal(v.operands->u.seq.len, 1);
    assert_string_equal(v.operands->u.seq.items[0]->u.node->name, "linear_1");
    /* parameters become p_<fqn> placeholders with a PARAMETER signature, shapes from the onnx */
    assert_true(p->sig.present);
    assert_int_equal(p->sig.n_inputs, 5);
    assert_string_equal(p->sig.inputs[0].name, "p_mlp_0_weight");
    assert_string_equal(p->sig.inputs[0].target, "mlp.0.weight");
    assert_int_equal(p->sig.inputs[0].kind, FX_IN_PARAMETER);
    assert_int_equal(p->sig.inputs[4].kind, FX_IN_USER_INPUT);
    fx_node *lin = fx_program_find_node(p, "linear_1");
    assert_non_null(lin->meta.val);
    assert_int_equal(lin->meta.val->rank, 2);
    assert_string_equal(lin->meta.val->sizes[0], "3");
    assert_string_equal(lin->meta.val->sizes[1], "4");
    assert_non_null(lin->meta.source);
    /* the false branch returns its operand unchanged */
    fx_node *o = v.sub[1]->graph->last;
    assert_int_equal(o->op, FX_OP_OUTPUT);
    assert_int_equal(o->args->u.seq.items[0]->u.seq.items[0]->u.node->op, FX_OP_PLACEHOLDER);
    fx_program_free(p);
}

static void test_nested_if(void **state)
{
    (void)state;
    fx_program *p = load_fixture("python_if_nested.torchscript.txt", NULL, NULL);
    fx_node *inner = fx_program_find_node(p, "true_graph_0.if_1");
    assert_non_null(inner);
    fx_control_view v;
    assert_true(fx_control_inspect(inner, &v));
    assert_non_null(v.sub[0]);   /* nested branches are children of the outer branch */
    assert_string_equal(v.sub[0]->parent->name, "true_graph_0");
    fx_program_free(p);
}

/* The hand-written fixture in the readable form loads, and its python_if is recognised. */
static void test_readable_fixture(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/python_if.readable.txt", TEST_FIXTURES "/cflow");
    size_t n;
    char *t = slurp(path, &n);
    assert_non_null(t);
    diag_sink d;
    diag_init(&d);
    fx_program *p = load_fx_text(t, n, path, &d);
    assert_non_null(p);
    fx_node *node = fx_program_find_node(p, "if_1");
    assert_non_null(node);
    assert_string_equal(node->target, FX_PYTHON_IF);
    fx_control_view v;
    assert_true(fx_control_inspect(node, &v));
    assert_non_null(v.sub[0]);
    assert_non_null(v.sub[1]);
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_CODE, &sb);
    assert_string_equal(sb.s, t);   /* round trip */
    sb_free(&sb);
    fx_program_free(p);
    diag_free(&d);
    free(t);
}

/* Factory functions keep torch.export's keywords; shapes flow through select / unsqueeze;
 * forward's returned tuple is flat, as torch.export returns it. */
static void test_factories_shapes_and_outputs(void **state)
{
    (void)state;
    static const char text[] =
        "graph(%self : __torch__.M,\n"
        "      %x.1 : Tensor):\n"
        "  %1 : NoneType = prim::Constant()\n"
        "  %2 : int = prim::Constant[value=4]()\n"
        "  %3 : int = prim::Constant[value=0]()\n"
        "  %4 : int[] = prim::ListConstruct()\n"
        "  %z : Tensor = aten::zeros(%4, %2, %1, %1, %1)\n"
        "  %5 : int[] = aten::size(%x.1)\n"
        "  %6 : int = aten::__getitem__(%5, %3)\n"
        "  %7 : int[] = prim::ListConstruct(%6, %6)\n"
        "  %e : Tensor = aten::empty(%7, %1, %1, %1, %1, %1)\n"
        "  %l : Tensor = aten::ones_like(%x.1, %1, %1, %1, %1, %1)\n"
        "  %s : Tensor = aten::select(%x.1, %3, %3)\n"
        "  %u : Tensor = aten::unsqueeze(%s, %3)\n"
        "  %t : (Tensor, Tensor, Tensor, Tensor) = prim::TupleConstruct(%z, %e, %l, %u)\n"
        "  return (%t)\n";
    ts_input_decl in;
    assert_true(ts_parse_input_decl("x=f32[3,4]", &in));
    ts_load_options o = {.inputs = &in, .n_inputs = 1};
    diag_sink d;
    diag_init(&d);
    fx_program *p = ts_load_text(text, sizeof text - 1, "factories.ts", &o, &d);
    assert_non_null(p);
    tsn_prepare_program(p, &d);
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_GRAPH, &sb);
    assert_non_null(strstr(sb.s, "call_function[target=torch.ops.aten.zeros.default](args = ([],), kwargs = "
                                 "{dtype: torch.int64, device: cpu, pin_memory: False})"));
    assert_non_null(strstr(sb.s, "call_function[target=torch.ops.aten.empty.memory_format](args = ([%getitem, "
                                 "%getitem],), kwargs = {device: cpu, pin_memory: False})"));
    assert_non_null(strstr(sb.s, "call_function[target=torch.ops.aten.ones_like.default](args = (%x,), kwargs = "
                                 "{pin_memory: False})"));
    assert_non_null(strstr(sb.s, "return (zeros, empty, ones_like, unsqueeze)"));
    const fx_value *z = fx_program_find_node(p, "zeros")->meta.val, *e = fx_program_find_node(p, "empty")->meta.val,
                   *u = fx_program_find_node(p, "unsqueeze")->meta.val;
    assert_int_equal(z->dtype, FX_DT_I64);
    assert_int_equal(z->rank, 0);
    assert_int_equal(e->rank, 2);
    assert_string_equal(e->sizes[1], "3");
    assert_int_equal(u->rank, 2);
    assert_string_equal(u->sizes[0], "1");
    assert_string_equal(u->sizes[1], "4");
    assert_int_equal(p->sig.n_outputs, 4);
    sb_free(&sb);
    diag_free(&d);
    fx_program_free(p);
}

static void test_errors(void **state)
{
    (void)state;
    static const char *bad[] = {
        "graph(%self : __torch__.M,\n      %x.1 : Tensor):\n  %2 : Tensor = aten::relu(%y)\n  return (%2)\n",
        "graph(%self : __torch__.M,\n      %x.1 : Tensor):\n  %2 : Tensor = aten::relu(%x.1\n",
        "graph(%self : __torch__.M,\n      %x.1 : Tensor):\n  %2 : Tensor = prim::If(%x.1)\n    block0():\n      -> (%x.1)\n",
        "graph(%self",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        diag_sink d;
        diag_init(&d);
        assert_null(ts_load_text(bad[i], strlen(bad[i]), "bad.ts", NULL, &d));
        assert_true(d.errors > 0);
        diag_free(&d);
    }
}

static void test_corpus(void **state)
{
    (void)state;
    const char *root = getenv("FXSH_CORPUS") ? getenv("FXSH_CORPUS") : TEST_CORPUS_DEFAULT;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/fx", root);
    DIR *dd = opendir(dir);
    if (!dd)
        skip();
    struct dirent *e;
    size_t loaded = 0;
    while ((e = readdir(dd))) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/torchscript.txt", dir, e->d_name);
        size_t n;
        char *t = slurp(path, &n);
        if (!t)
            continue;
        diag_sink d;
        diag_init(&d);
        fx_program *p = ts_load_text(t, n, path, NULL, &d);
        if (!p)
            fprintf(stderr, "failed to load %s\n", path);
        assert_non_null(p);
        loaded++;
        fx_program_free(p);
        diag_free(&d);
        free(t);
    }
    closedir(dd);
    assert_true(loaded > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_if_structure), cmocka_unit_test(test_nested_if),
        cmocka_unit_test(test_readable_fixture), cmocka_unit_test(test_factories_shapes_and_outputs),
        cmocka_unit_test(test_errors), cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
