/* test_translate_basic.c — translate pass on small FX programs built here: structure and naming. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "test_paths.h"
#include "load/pt2_load.h"
#include "onnx/onnx_edit.h"
#include "eval/onnx_eval.h"
#include "translate/translate.h"
#include "translate/translate_internal.h"

static ops_registry reg;

static int setup(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    translate_registry_init(&reg);   /* the shipped tables name only C lowerings that exist */
    setenv("FXSH_SHAREDIR", TEST_SHAREDIR, 1);
    bool ok = ops_load_default(&reg, &d);
    diag_free(&d);
    return ok ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ops_registry_free(&reg);
    return 0;
}

static void set_tensor_meta(fx_program *p, fx_node *n, fx_dtype dt, const char *const *sizes, size_t rank)
{
    fx_value *v = fx_value_new(p, FX_VAL_TENSOR);
    v->dtype = dt;
    v->rank = rank;
    v->sizes = fx_alloc(p, (rank + 1) * sizeof *v->sizes);
    for (size_t i = 0; i < rank; i++) v->sizes[i] = fx_strdup(p, sizes[i]);
    n->meta.val = v;
}

static fx_node *call(fx_program *p, const char *name, const char *target, fx_arg **args, size_t nargs)
{
    fx_graph *g = fx_program_graph(p);
    fx_node *n = fx_node_new(g, name, FX_OP_CALL_FUNCTION, target);
    fx_node_set_args(n, fx_arg_seq(p, FX_ARG_TUPLE, args, NULL, nargs), fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
    fx_graph_append(g, n);
    return n;
}

static fx_node *placeholder(fx_program *p, const char *name)
{
    fx_graph *g = fx_program_graph(p);
    fx_node *n = fx_node_new(g, name, FX_OP_PLACEHOLDER, name);
    fx_graph_append(g, n);
    return n;
}

static void output(fx_program *p, fx_node **outs, size_t n)
{
    fx_graph *g = fx_program_graph(p);
    fx_node *o = fx_node_new(g, "output", FX_OP_OUTPUT, "output");
    fx_arg **items = fx_alloc(p, (n + 1) * sizeof *items);
    for (size_t i = 0; i < n; i++) items[i] = fx_arg_node(p, outs[i]);
    fx_arg *tuple = fx_arg_seq(p, FX_ARG_TUPLE, items, NULL, n);
    fx_node_set_args(o, fx_arg_seq(p, FX_ARG_TUPLE, &tuple, NULL, 1), fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
    fx_graph_append(g, o);
}

static Onnx__NodeProto *find_node(Onnx__GraphProto *g, const char *name)
{
    for (size_t i = 0; i < g->n_node; i++)
        if (g->node[i]->name && !strcmp(g->node[i]->name, name)) return g->node[i];
    return NULL;
}

static size_t count_op(Onnx__GraphProto *g, const char *op)
{
    size_t k = 0;
    for (size_t i = 0; i < g->n_node; i++) k += !strcmp(g->node[i]->op_type, op);
    return k;
}

static ox_model *run(fx_program *p, diag_sink *d, int opset)
{
    translate_options o;
    translate_options_init(&o);
    o.registry = &reg;
    if (opset) o.opset = opset;
    fx_program_refresh(p);
    return translate_program(p, &o, d);
}

/* linear(x, W, b) with rank-2 x → one Gemm; weights become initializers named by FQN. */
static void test_linear_gemm_and_naming(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    const char *xs[] = {"2", "8"}, *ws[] = {"4", "8"}, *bs[] = {"4"}, *os[] = {"2", "4"};
    fx_node *w = placeholder(p, "p_fc_weight"), *b = placeholder(p, "p_fc_bias"), *x = placeholder(p, "x");
    set_tensor_meta(p, w, FX_DT_F32, ws, 2);
    set_tensor_meta(p, b, FX_DT_F32, bs, 1);
    set_tensor_meta(p, x, FX_DT_F32, (const char *[]){"s0", "8"}, 2);
    (void)xs;
    fx_arg *args[] = {fx_arg_node(p, x), fx_arg_node(p, w), fx_arg_node(p, b)};
    fx_node *lin = call(p, "linear", "torch.ops.aten.linear.default", args, 3);
    set_tensor_meta(p, lin, FX_DT_F32, os, 2);
    fx_arg *rargs[] = {fx_arg_node(p, lin)};
    fx_node *relu = call(p, "relu", "torch.ops.aten.relu.default", rargs, 1);
    set_tensor_meta(p, relu, FX_DT_F32, os, 2);
    output(p, &relu, 1);
    static fx_input_spec in[3];
    in[0] = (fx_input_spec){FX_IN_PARAMETER, "p_fc_weight", "fc.weight", false};
    in[1] = (fx_input_spec){FX_IN_PARAMETER, "p_fc_bias", "fc.bias", false};
    in[2] = (fx_input_spec){FX_IN_USER_INPUT, "x", NULL, false};
    static fx_output_spec out[1] = {{FX_OUT_USER_OUTPUT, "relu", NULL}};
    p->sig = (fx_signature){in, 3, out, 1, true};
    static const float wd[32], bd[4];
    fx_program_add_weight(p, "fc.weight", FX_TENSOR_PARAMETER, FX_DT_F32, (const int64_t[]){4, 8}, 2, wd, sizeof wd, false);
    fx_program_add_weight(p, "fc.bias", FX_TENSOR_PARAMETER, FX_DT_F32, (const int64_t[]){4}, 1, bd, sizeof bd, false);

    diag_sink d;
    diag_init(&d);
    ox_model *m = run(p, &d, 0);
    assert_non_null(m);
    assert_int_equal(d.errors, 0);
    Onnx__ModelProto *mp = m->proto;
    assert_int_equal(mp->ir_version, 10);
    assert_string_equal(mp->producer_name, "fxsh");
    assert_int_equal(mp->n_opset_import, 1);
    assert_int_equal(mp->opset_import[0]->version, 20);
    Onnx__GraphProto *g = mp->graph;
    assert_string_equal(g->name, "main_graph");
    assert_int_equal(g->n_input, 1);
    assert_string_equal(g->input[0]->name, "x");
    /* symbolic dim → dim_param */
    assert_string_equal(g->input[0]->type->tensor_type->shape->dim[0]->dim_param, "s0");
    assert_int_equal(g->n_initializer, 2);
    assert_string_equal(g->initializer[0]->name, "fc.weight");
    assert_int_equal(g->initializer[0]->raw_data.len, sizeof wd);
    assert_int_equal(g->n_node, 2);
    Onnx__NodeProto *gemm = find_node(g, "node_linear");
    assert_non_null(gemm);
    assert_string_equal(gemm->op_type, "Gemm");
    assert_string_equal(gemm->input[1], "fc.weight");
    assert_string_equal(gemm->output[0], "linear");
    assert_int_equal(ox_node_attr(gemm, "transB")->i, 1);
    assert_int_equal(g->n_output, 1);
    assert_string_equal(g->output[0]->name, "relu");
    /* value_info for the intermediate FX value, not for the graph output */
    bool vi_linear = false;
    for (size_t i = 0; i < g->n_value_info; i++) {
        vi_linear |= !strcmp(g->value_info[i]->name, "linear");
        assert_string_not_equal(g->value_info[i]->name, "relu");
    }
    assert_true(vi_linear);
    ox_model_free(m);

    /* export_params off: weights become graph inputs, after the user inputs */
    translate_options o;
    translate_options_init(&o);
    o.registry = &reg;
    o.export_params = false;
    m = translate_program(p, &o, &d);
    assert_non_null(m);
    assert_int_equal(m->proto->graph->n_initializer, 0);
    assert_int_equal(m->proto->graph->n_input, 3);
    assert_string_equal(m->proto->graph->input[0]->name, "x");
    assert_string_equal(m->proto->graph->input[1]->name, "fc.weight");
    ox_model_free(m);
    o.export_params = true;
    o.keep_initializers_as_inputs = true;
    m = translate_program(p, &o, &d);
    assert_int_equal(m->proto->graph->n_initializer, 2);
    assert_int_equal(m->proto->graph->n_input, 3);
    ox_model_free(m);

    /* rank-3 input: Transpose + MatMul + Add */
    x->meta.val->rank = 3;
    x->meta.val->sizes = (const char **)(const char *[]){"2", "3", "8"};
    m = run(p, &d, 18);
    assert_non_null(m);
    assert_int_equal(count_op(m->proto->graph, "Gemm"), 0);
    assert_int_equal(count_op(m->proto->graph, "MatMul"), 1);
    assert_string_equal(find_node(m->proto->graph, "node_linear")->op_type, "Add");
    assert_int_equal(m->proto->opset_import[0]->version, 18);
    ox_model_free(m);
    diag_free(&d);
    fx_program_free(p);
}

/* A weight no node reads (BatchNorm's num_batches_tracked in eval) is dropped, as torch drops it:
 * neither an initializer nor, without its data, a graph input. User inputs stay even if unused. */
/* addmm's lowering writes Gemm's alpha and beta only; the node gets the defaults torch.onnx's
 * tracer writes (transA, transB) and its attribute order, as in the corpus's mlp:
 * `Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0>`. */
static void test_default_attributes_in_schema_order(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    const char *s23[] = {"2", "3"}, *s34[] = {"3", "4"}, *s24[] = {"2", "4"};
    fx_node *c = placeholder(p, "c"), *a = placeholder(p, "a"), *b = placeholder(p, "b");
    set_tensor_meta(p, c, FX_DT_F32, s24, 2);
    set_tensor_meta(p, a, FX_DT_F32, s23, 2);
    set_tensor_meta(p, b, FX_DT_F32, s34, 2);
    fx_arg *args[] = {fx_arg_node(p, c), fx_arg_node(p, a), fx_arg_node(p, b)};
    fx_node *mm = call(p, "addmm", "torch.ops.aten.addmm.default", args, 3);
    set_tensor_meta(p, mm, FX_DT_F32, s24, 2);
    output(p, &mm, 1);
    diag_sink d;
    diag_init(&d);
    ox_model *m = run(p, &d, 0);
    assert_non_null(m);
    Onnx__NodeProto *gemm = find_node(m->proto->graph, "node_addmm");
    assert_non_null(gemm);
    assert_int_equal(gemm->n_attribute, 4);
    const char *want[] = {"beta", "transB", "alpha", "transA"};
    for (size_t i = 0; i < 4; i++) assert_string_equal(gemm->attribute[i]->name, want[i]);
    assert_int_equal(gemm->attribute[1]->i, 0);
    assert_float_equal(gemm->attribute[2]->f, 1.0, 0);
    ox_model_free(m);
    diag_free(&d);
    fx_program_free(p);
}

static void test_unused_weights_dropped(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    const char *xs[] = {"2"}, *none[] = {NULL};
    fx_node *t = placeholder(p, "b_bn_num_batches_tracked"), *x = placeholder(p, "x"), *y = placeholder(p, "y");
    set_tensor_meta(p, t, FX_DT_I64, none, 0);
    set_tensor_meta(p, x, FX_DT_F32, xs, 1);
    set_tensor_meta(p, y, FX_DT_F32, xs, 1);
    fx_arg *args[] = {fx_arg_node(p, x)};
    fx_node *r = call(p, "relu", "torch.ops.aten.relu.default", args, 1);
    set_tensor_meta(p, r, FX_DT_F32, xs, 1);
    output(p, &r, 1);
    static fx_input_spec in[3];
    in[0] = (fx_input_spec){FX_IN_BUFFER, "b_bn_num_batches_tracked", "bn.num_batches_tracked", true};
    in[1] = (fx_input_spec){FX_IN_USER_INPUT, "x", NULL, false};
    in[2] = (fx_input_spec){FX_IN_USER_INPUT, "y", NULL, false};
    static fx_output_spec out[1] = {{FX_OUT_USER_OUTPUT, "relu", NULL}};
    p->sig = (fx_signature){in, 3, out, 1, true};
    static const int64_t td[1];
    fx_program_add_weight(p, "bn.num_batches_tracked", FX_TENSOR_BUFFER, FX_DT_I64, NULL, 0, td, sizeof td, false);
    diag_sink d;
    diag_init(&d);
    for (int with_data = 0; with_data < 2; with_data++) {
        translate_options o;
        translate_options_init(&o);
        o.registry = &reg;
        o.export_params = with_data;
        ox_model *m = translate_program(p, &o, &d);
        assert_non_null(m);
        assert_int_equal(m->proto->graph->n_initializer, 0);
        assert_int_equal(m->proto->graph->n_input, 2);
        assert_string_equal(m->proto->graph->input[0]->name, "x");
        assert_string_equal(m->proto->graph->input[1]->name, "y");
        ox_model_free(m);
    }
    diag_free(&d);
    fx_program_free(p);
}

static const char *meta_get(Onnx__StringStringEntryProto **e, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(e[i]->key, key)) return e[i]->value;
    return NULL;
}

/* Provenance metadata as torch.onnx writes it. The expected strings are those of torch's own
 * export of the corpus model `mlp` (onnx_dynamo.onnx, node node_linear and the graph). */
static void test_provenance_metadata(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    const char *xs[] = {"2", "8"}, *ws[] = {"16", "8"}, *bs[] = {"16"}, *os[] = {"2", "16"};
    fx_node *w = placeholder(p, "p_fc1_weight"), *b = placeholder(p, "p_fc1_bias"), *x = placeholder(p, "x");
    set_tensor_meta(p, w, FX_DT_F32, ws, 2);
    set_tensor_meta(p, b, FX_DT_F32, bs, 1);
    set_tensor_meta(p, x, FX_DT_F32, xs, 2);
    fx_arg *args[] = {fx_arg_node(p, x), fx_arg_node(p, w), fx_arg_node(p, b)};
    fx_node *lin = call(p, "linear", "torch.ops.aten.linear.default", args, 3);
    set_tensor_meta(p, lin, FX_DT_F32, os, 2);
    lin->meta.nn_module_stack = "L__self__,,model.MLP;L__self__fc1,fc1,torch.nn.modules.linear.Linear";
    lin->meta.stack_trace = "File \"/src/models/mlp/model.py\", line 15, in forward\n    x = self.relu(self.fc1(x))";
    output(p, &lin, 1);
    static fx_input_spec in[3];
    in[0] = (fx_input_spec){FX_IN_PARAMETER, "p_fc1_weight", "fc1.weight", false};
    in[1] = (fx_input_spec){FX_IN_PARAMETER, "p_fc1_bias", "fc1.bias", false};
    in[2] = (fx_input_spec){FX_IN_USER_INPUT, "x", NULL, false};
    static fx_output_spec out[1] = {{FX_OUT_USER_OUTPUT, "linear", NULL}};
    p->sig = (fx_signature){in, 3, out, 1, true};
    static const float wd[128], bd[16];
    fx_program_add_weight(p, "fc1.weight", FX_TENSOR_PARAMETER, FX_DT_F32, (const int64_t[]){16, 8}, 2, wd, sizeof wd, false);
    fx_program_add_weight(p, "fc1.bias", FX_TENSOR_PARAMETER, FX_DT_F32, (const int64_t[]){16}, 1, bd, sizeof bd, false);
    diag_sink d;
    diag_init(&d);
    ox_model *m = run(p, &d, 0);
    assert_non_null(m);
    Onnx__GraphProto *g = m->proto->graph;
    Onnx__NodeProto *gemm = find_node(g, "node_linear");
    assert_non_null(gemm);
    assert_string_equal(meta_get(gemm->metadata_props, gemm->n_metadata_props, "namespace"),
                        ": model.MLP/fc1: torch.nn.modules.linear.Linear/linear: aten.linear.default");
    assert_string_equal(meta_get(gemm->metadata_props, gemm->n_metadata_props, "pkg.torch.onnx.class_hierarchy"),
                        "['model.MLP', 'torch.nn.modules.linear.Linear', 'aten.linear.default']");
    assert_string_equal(meta_get(gemm->metadata_props, gemm->n_metadata_props, "pkg.torch.onnx.name_scopes"),
                        "['', 'fc1', 'linear']");
    assert_string_equal(meta_get(gemm->metadata_props, gemm->n_metadata_props, "pkg.torch.onnx.fx_node"),
                        "%linear : [num_users=1] = call_function[target=torch.ops.aten.linear.default]"
                        "(args = (%x, %p_fc1_weight, %p_fc1_bias), kwargs = {})");
    assert_string_equal(meta_get(gemm->metadata_props, gemm->n_metadata_props, "pkg.torch.onnx.stack_trace"),
                        lin->meta.stack_trace);
    assert_string_equal(meta_get(g->metadata_props, g->n_metadata_props, "pkg.torch.export.ExportedProgram.graph_signature"),
                        "\n# inputs\np_fc1_weight: PARAMETER target='fc1.weight'\np_fc1_bias: PARAMETER target='fc1.bias'\n"
                        "x: USER_INPUT\n\n# outputs\nlinear: USER_OUTPUT\n");
    assert_string_equal(meta_get(g->metadata_props, g->n_metadata_props, "pkg.torch.export.ExportedProgram.range_constraints"), "{}");
    Onnx__ValueInfoProto *in0 = g->input[0];
    assert_string_equal(meta_get(in0->metadata_props, in0->n_metadata_props, "pkg.torch.export.graph_signature.InputSpec.kind"), "USER_INPUT");
    assert_string_equal(meta_get(in0->metadata_props, in0->n_metadata_props, "pkg.torch.export.graph_signature.InputSpec.persistent"), "None");
    Onnx__ValueInfoProto *out0 = g->output[0];
    assert_string_equal(meta_get(out0->metadata_props, out0->n_metadata_props, "pkg.torch.export.graph_signature.OutputSpec.kind"), "USER_OUTPUT");
    /* the weight's value_info: its kind and the FX placeholder it came from */
    Onnx__ValueInfoProto *wv = NULL;
    for (size_t i = 0; i < g->n_value_info; i++)
        if (!strcmp(g->value_info[i]->name, "fc1.weight")) wv = g->value_info[i];
    assert_non_null(wv);
    assert_string_equal(meta_get(wv->metadata_props, wv->n_metadata_props, "pkg.torch.export.graph_signature.InputSpec.kind"), "PARAMETER");
    assert_string_equal(meta_get(wv->metadata_props, wv->n_metadata_props, "pkg.torch.onnx.original_node_name"), "p_fc1_weight");
    ox_model_free(m);
    diag_free(&d);
    fx_program_free(p);
}

/* Python scalars become Constants shared per (value, dtype); temporaries are val_N. */
static void test_scalars_and_constant_farm(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    const char *s[] = {"3"};
    fx_node *x = placeholder(p, "x");
    set_tensor_meta(p, x, FX_DT_F32, s, 1);
    fx_arg *a1[] = {fx_arg_node(p, x), fx_arg_float(p, 2.0)};
    fx_node *m1 = call(p, "mul", "torch.ops.aten.mul.Tensor", a1, 2);
    set_tensor_meta(p, m1, FX_DT_F32, s, 1);
    fx_arg *a2[] = {fx_arg_node(p, m1), fx_arg_float(p, 2.0)};
    fx_node *m2 = call(p, "add", "torch.ops.aten.add.Tensor", a2, 2);
    set_tensor_meta(p, m2, FX_DT_F32, s, 1);
    output(p, &m2, 1);
    diag_sink d;
    diag_init(&d);
    ox_model *m = run(p, &d, 0);
    assert_non_null(m);
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(count_op(g, "Constant"), 1);
    assert_int_equal(g->n_node, 3);
    assert_string_equal(g->node[0]->output[0], "val_0");
    Onnx__AttributeProto *v = ox_node_attr(g->node[0], "value");
    assert_non_null(v);
    assert_int_equal(v->t->data_type, 1);      /* FLOAT, the dtype of the tensor operand */
    assert_string_equal(find_node(g, "node_mul")->input[1], "val_0");
    assert_string_equal(find_node(g, "node_add")->input[1], "val_0");
    ox_model_free(m);
    diag_free(&d);
    fx_program_free(p);
}

/* Multi-output ops take the names of their getitem users. */
static void test_multi_output_getitem(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    const char *s[] = {"3", "5"}, *o[] = {"3", "2"};
    fx_node *x = placeholder(p, "x");
    set_tensor_meta(p, x, FX_DT_F32, s, 2);
    fx_arg *a[] = {fx_arg_node(p, x), fx_arg_int(p, 2)};
    fx_node *tk = call(p, "topk", "torch.ops.aten.topk.default", a, 2);
    fx_arg *g0[] = {fx_arg_node(p, tk), fx_arg_int(p, 0)};
    fx_arg *g1[] = {fx_arg_node(p, tk), fx_arg_int(p, 1)};
    fx_node *vals = call(p, "getitem", "operator.getitem", g0, 2);
    fx_node *idx = call(p, "getitem_1", "operator.getitem", g1, 2);
    set_tensor_meta(p, vals, FX_DT_F32, o, 2);
    set_tensor_meta(p, idx, FX_DT_I64, o, 2);
    fx_node *outs[] = {vals, idx};
    output(p, outs, 2);
    diag_sink d;
    diag_init(&d);
    ox_model *m = run(p, &d, 0);
    assert_non_null(m);
    Onnx__NodeProto *n = find_node(m->proto->graph, "node_topk__1");
    assert_non_null(n);
    assert_string_equal(n->op_type, "TopK");
    assert_int_equal(n->n_output, 2);
    assert_string_equal(n->output[0], "getitem");
    assert_string_equal(n->output[1], "getitem_1");
    assert_string_equal(m->proto->graph->output[1]->name, "getitem_1");
    assert_int_equal(m->proto->graph->output[1]->type->tensor_type->elem_type, 7);
    ox_model_free(m);
    diag_free(&d);
    fx_program_free(p);
}

/* Runs graph g on x (its one input) with the reference evaluator, node by node, until the node
 * of type stop_op (NULL: the end); returns the value named want (caller frees). A test-sized
 * walker: values are found by a linear scan. */
static bool eval_until(Onnx__GraphProto *g, const oe_tensor *x, const char *stop_op, const char *want,
                       oe_tensor *result)
{
    enum { MAXV = 64 };
    const char *names[MAXV];
    oe_tensor vals[MAXV];
    size_t nv = 0;
    names[nv] = g->input[0]->name;
    ot_tensor_copy(&vals[nv++], x);
    for (size_t i = 0; i < g->n_initializer && nv < MAXV; i++) {
        if (ot_from_proto(g->initializer[i], 0, &vals[nv]) != OE_OK) return false;
        names[nv++] = g->initializer[i]->name;
    }
    bool ok = true;
    for (size_t i = 0; i < g->n_node && ok; i++) {
        Onnx__NodeProto *n = g->node[i];
        if (stop_op && !strcmp(n->op_type, stop_op)) break;
        oe_tensor *in[8] = {0};
        for (size_t k = 0; k < n->n_input && k < 8; k++)
            for (size_t j = 0; j < nv; j++)
                if (!strcmp(names[j], n->input[k])) in[k] = &vals[j];
        ok = nv + n->n_output <= MAXV && oe_eval_node(n, 18, in, n->n_input, &vals[nv], n->n_output, NULL) == OE_OK;
        for (size_t k = 0; ok && k < n->n_output; k++) names[nv++] = n->output[k];
    }
    bool found = false;
    for (size_t j = 0; j < nv; j++) {
        if (ok && !found && !strcmp(names[j], want)) {
            ot_tensor_copy(result, &vals[j]);
            found = true;
        }
        ot_tensor_free(&vals[j]);
    }
    return ok && found;
}

/* unflatten.int and chunk.default lower through Shape arithmetic: unflatten's target shape for
 * positive and negative dims, and chunk's split sizes as torch.chunk makes them (ceil(n / k)
 * each, the rest last, fewer chunks when k does not divide evenly). */
static void test_unflatten_chunk_lowerings(void **state)
{
    (void)state;
    /* x is f32[2, 6, 4] */
    static const struct { int64_t dim, sizes[2], want[4]; } uf[] = {
        {-1, {2, 2}, {2, 6, 2, 2}}, {2, {2, 2}, {2, 6, 2, 2}}, {1, {2, 3}, {2, 2, 3, 4}}, {-2, {2, 3}, {2, 2, 3, 4}},
    };
    for (size_t c = 0; c < sizeof uf / sizeof uf[0]; c++) {
        fx_program *p = fx_program_new(NULL);
        const char *s[] = {"2", "6", "4"};
        fx_node *x = placeholder(p, "x");
        set_tensor_meta(p, x, FX_DT_F32, s, 3);
        fx_arg *sz[] = {fx_arg_int(p, uf[c].sizes[0]), fx_arg_int(p, uf[c].sizes[1])};
        fx_arg *a[] = {fx_arg_node(p, x), fx_arg_int(p, uf[c].dim), fx_arg_seq(p, FX_ARG_LIST, sz, NULL, 2)};
        fx_node *u = call(p, "unflatten", "torch.ops.aten.unflatten.int", a, 3);
        output(p, &u, 1);
        diag_sink d;
        diag_init(&d);
        ox_model *m = run(p, &d, 0);
        assert_non_null(m);
        oe_tensor in, out;
        double v[48];
        for (int i = 0; i < 48; i++) v[i] = i;
        ot_tensor_from_f(&in, 1, (int64_t[]){2, 6, 4}, 3, v);
        assert_true(eval_until(m->proto->graph, &in, NULL, "unflatten", &out));
        assert_int_equal(out.rank, 4);
        for (int i = 0; i < 4; i++) assert_int_equal(out.dims[i], uf[c].want[i]);
        assert_int_equal(ot_get_f(&out, 47), 47.0);
        ot_tensor_free(&in);
        ot_tensor_free(&out);
        ox_model_free(m);
        diag_free(&d);
        fx_program_free(p);
    }
    static const struct { int64_t n, chunks; size_t count; int64_t sizes[3]; } ch[] = {
        {7, 3, 3, {3, 3, 1}}, {6, 3, 3, {2, 2, 2}}, {5, 2, 2, {3, 2}}, {6, 4, 3, {2, 2, 2}},
    };
    for (size_t c = 0; c < sizeof ch / sizeof ch[0]; c++) {
        fx_program *p = fx_program_new(NULL);
        char n[8];
        snprintf(n, sizeof n, "%lld", (long long)ch[c].n);
        const char *s[] = {"2", n};
        fx_node *x = placeholder(p, "x");
        set_tensor_meta(p, x, FX_DT_F32, s, 2);
        fx_arg *a[] = {fx_arg_node(p, x), fx_arg_int(p, ch[c].chunks), fx_arg_int(p, 1)};
        fx_node *k = call(p, "chunk", "torch.ops.aten.chunk.default", a, 3);
        fx_arg *g0[] = {fx_arg_node(p, k), fx_arg_int(p, 0)};
        fx_node *first = call(p, "getitem", "operator.getitem", g0, 2);
        output(p, &first, 1);
        diag_sink d;
        diag_init(&d);
        ox_model *m = run(p, &d, 0);
        assert_non_null(m);
        Onnx__GraphProto *g = m->proto->graph;
        assert_int_equal(count_op(g, "SplitToSequence"), 1);
        assert_int_equal(count_op(g, "SequenceAt"), 1);
        const char *sizes = NULL;
        for (size_t i = 0; i < g->n_node; i++)
            if (!strcmp(g->node[i]->op_type, "SplitToSequence")) sizes = g->node[i]->input[1];
        oe_tensor in, out;
        double v[16] = {0};
        ot_tensor_from_f(&in, 1, (int64_t[]){2, ch[c].n}, 2, v);
        assert_true(eval_until(g, &in, "SplitToSequence", sizes, &out));
        /* the split input: a list of sizes, or one size every piece has but the last (ONNX's
         * SplitToSequence with a scalar split) */
        int64_t got[8], np = 0;
        if (out.rank == 0) {
            int64_t each = ot_get_i(&out, 0);
            assert_true(each > 0);
            for (int64_t left = ch[c].n; left > 0 && np < 8; left -= each) got[np++] = left < each ? left : each;
        } else {
            for (np = 0; np < out.numel && np < 8; np++) got[np] = ot_get_i(&out, np);
        }
        assert_int_equal(np, (int64_t)ch[c].count);
        for (size_t i = 0; i < ch[c].count; i++) assert_int_equal(got[i], ch[c].sizes[i]);
        ot_tensor_free(&in);
        ot_tensor_free(&out);
        ox_model_free(m);
        diag_free(&d);
        fx_program_free(p);
    }
}

static void test_missing_lowering(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_node *x = placeholder(p, "x");
    fx_arg *a[] = {fx_arg_node(p, x)};
    fx_node *n = call(p, "frobnicate", "torch.ops.aten.frobnicate.default", a, 1);
    output(p, &n, 1);
    diag_sink d;
    diag_init(&d);
    assert_null(run(p, &d, 0));
    assert_int_equal(d.errors, 1);
    assert_string_equal(d.items[0].message, "No ONNX lowering for torch.ops.aten.frobnicate.default (node %frobnicate)");
    assert_non_null(strstr(d.items[0].hint, "ops load FILE"));
    assert_non_null(strstr(d.items[0].hint, "target: aten.frobnicate.default"));

    /* a user rule loaded at run time makes it translatable */
    diag_clear(&d);
    const char *y = "rules:\n  - target: aten.frobnicate.default\n    schema: frobnicate(Tensor self) -> Tensor\n"
                    "    lowering: 'frobnicate (self) => (result) { result = Neg (self) }'\n";
    assert_true(ops_load_string(&reg, "user.yaml", y, strlen(y), &d));
    ox_model *m = run(p, &d, 0);
    assert_non_null(m);
    assert_string_equal(find_node(m->proto->graph, "node_frobnicate")->op_type, "Neg");
    ox_model_free(m);

    /* a user rule naming a C builtin without the schema it reads is refused at translation */
    diag_clear(&d);
    const char *yb = "opset: 19\nrules:\n  - target: aten.frobnicate.default\n    builtin: transpose\n";
    assert_true(ops_load_string(&reg, "user2.yaml", yb, strlen(yb), &d));
    assert_null(run(p, &d, 20));
    assert_non_null(strstr(d.items[0].message, "builtin 'transpose' needs a schema"));
    m = run(p, &d, 18);                    /* below the override's opset the table rule still applies */
    assert_non_null(m);
    ox_model_free(m);

    /* wrong arity is an error, not a crash */
    fx_arg *bad[] = {fx_arg_node(p, x), fx_arg_int(p, 1), fx_arg_int(p, 2)};
    fx_node_set_args(n, fx_arg_seq(p, FX_ARG_TUPLE, bad, NULL, 3), fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
    diag_clear(&d);
    assert_null(run(p, &d, 18));
    assert_non_null(strstr(d.items[0].message, "positional arguments"));
    diag_free(&d);
    fx_program_free(p);
}

/* cond → If with the branches' outputs renamed <value>_<branch>. */
static void test_cond_to_if(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    const char *s[] = {"4"};
    fx_node *x = placeholder(p, "x");
    set_tensor_meta(p, x, FX_DT_F32, s, 1);
    fx_arg *sa[] = {fx_arg_node(p, x)};
    fx_node *sum = call(p, "sum_1", "torch.ops.aten.sum.default", sa, 1);
    set_tensor_meta(p, sum, FX_DT_F32, NULL, 0);
    fx_arg *ga[] = {fx_arg_node(p, sum), fx_arg_int(p, 0)};
    fx_node *gt = call(p, "gt", "torch.ops.aten.gt.Scalar", ga, 2);
    set_tensor_meta(p, gt, FX_DT_BOOL, NULL, 0);
    const char *names[] = {"true_graph_0", "false_graph_0"}, *ops[] = {"torch.ops.aten.neg.default", "torch.ops.aten.relu.default"};
    fx_node *ga_nodes[2];
    for (int b = 0; b < 2; b++) {
        fx_module *sub = fx_module_add_child(p->root, names[b], "GraphModule", NULL);
        fx_graph *sg = fx_module_ensure_graph(sub);
        fx_node *ph = fx_node_new(sg, "x_1", FX_OP_PLACEHOLDER, "x_1");
        fx_graph_append(sg, ph);
        fx_node *op = fx_node_new(sg, "y", FX_OP_CALL_FUNCTION, ops[b]);
        fx_arg *oa[] = {fx_arg_node(p, ph)};
        fx_node_set_args(op, fx_arg_seq(p, FX_ARG_TUPLE, oa, NULL, 1), fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
        fx_graph_append(sg, op);
        set_tensor_meta(p, op, FX_DT_F32, s, 1);
        fx_node *o = fx_node_new(sg, "output", FX_OP_OUTPUT, "output");
        fx_arg *it = fx_arg_node(p, op);
        fx_arg *tup = fx_arg_seq(p, FX_ARG_TUPLE, &it, NULL, 1);
        fx_node_set_args(o, fx_arg_seq(p, FX_ARG_TUPLE, &tup, NULL, 1), fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
        fx_graph_append(sg, o);
        fx_graph *g = fx_program_graph(p);
        ga_nodes[b] = fx_node_new(g, names[b], FX_OP_GET_ATTR, names[b]);
        fx_graph_append(g, ga_nodes[b]);
    }
    fx_arg *xop = fx_arg_node(p, x);
    fx_arg *ca[] = {fx_arg_node(p, gt), fx_arg_node(p, ga_nodes[0]), fx_arg_node(p, ga_nodes[1]),
                    fx_arg_seq(p, FX_ARG_TUPLE, &xop, NULL, 1)};
    fx_node *cond = call(p, "cond", "torch.ops.higher_order.cond", ca, 4);
    fx_arg *gi[] = {fx_arg_node(p, cond), fx_arg_int(p, 0)};
    fx_node *get = call(p, "getitem", "operator.getitem", gi, 2);
    set_tensor_meta(p, get, FX_DT_F32, s, 1);
    output(p, &get, 1);
    diag_sink d;
    diag_init(&d);
    ox_model *m = run(p, &d, 0);
    assert_int_equal(d.errors, 0);
    assert_non_null(m);
    Onnx__NodeProto *ifn = find_node(m->proto->graph, "node_cond__0");
    assert_non_null(ifn);
    assert_string_equal(ifn->op_type, "If");
    assert_string_equal(ifn->input[0], "gt");
    assert_string_equal(ifn->output[0], "getitem");
    Onnx__GraphProto *tg = ox_node_attr(ifn, "then_branch")->g, *eg = ox_node_attr(ifn, "else_branch")->g;
    assert_string_equal(tg->name, "true_graph_0");
    assert_int_equal(tg->n_input, 0);
    assert_string_equal(tg->node[0]->op_type, "Neg");
    assert_string_equal(tg->node[0]->input[0], "x");           /* outer-scope operand */
    assert_string_equal(tg->output[0]->name, "y_true_graph_0");
    assert_string_equal(eg->node[0]->op_type, "Relu");
    assert_string_equal(eg->output[0]->name, "y_false_graph_0");
    ox_model_free(m);
    diag_free(&d);
    fx_program_free(p);
}

/* A graph input returned as it is: torch.onnx renames the input <name>_orig and gives the output
 * the input's name through an Identity; every other use reads the renamed input. A second
 * output of the same value gets an Identity of its own. */
static void test_input_returned(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_node *x = placeholder(p, "x");
    static const char *const d2[] = {"2"};
    set_tensor_meta(p, x, FX_DT_F32, d2, 1);
    fx_arg *a = fx_arg_node(p, x);
    fx_node *r = call(p, "relu", "torch.ops.aten.relu.default", &a, 1);
    set_tensor_meta(p, r, FX_DT_F32, d2, 1);
    fx_node *outs[3] = {x, r, x};
    output(p, outs, 3);
    diag_sink d;
    diag_init(&d);
    ox_model *m = run(p, &d, 0);
    assert_non_null(m);
    Onnx__GraphProto *g = m->proto->graph;
    assert_int_equal(g->n_input, 1);
    assert_string_equal(g->input[0]->name, "x_orig");
    assert_int_equal(g->n_output, 3);
    assert_string_equal(g->output[0]->name, "x");
    assert_string_equal(g->output[1]->name, "relu");
    assert_string_not_equal(g->output[2]->name, "x");
    Onnx__NodeProto *relu = find_node(g, "node_relu");
    assert_non_null(relu);
    assert_string_equal(relu->input[0], "x_orig");
    assert_int_equal(count_op(g, "Identity"), 2);
    ox_model_free(m);
    fx_program_free(p);
    diag_free(&d);
}

/* A .pt2's stored weights are not copied: the translated model's initializers are views into
 * the archive's mapping, the model holds it, and a copy of the model (the optimize stage's
 * input) shares the same bytes; they stay readable after the program is freed. */
static void test_pt2_weights_shared(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    fx_program *p = pt2_load_file(TEST_FIXTURES "/pt2" "/mlp.pt2", &d);
    assert_non_null(p);
    ox_model *m = run(p, &d, 0);
    assert_non_null(m);
    Onnx__GraphProto *g = m->proto->graph;
    assert_true(g->n_initializer >= 4);
    size_t total = 0;
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        const fx_weight *w = fx_program_weight(p, t->name);
        assert_non_null(w);
        assert_ptr_equal(t->raw_data.data, w->data);
        assert_non_null(ox_model_map_of(m, t->raw_data.data, t->raw_data.len));
        total += t->raw_data.len;
    }
    uint8_t *expect = malloc(total), *at = expect;
    for (size_t i = 0; i < g->n_initializer; i++) {
        memcpy(at, g->initializer[i]->raw_data.data, g->initializer[i]->raw_data.len);
        at += g->initializer[i]->raw_data.len;
    }
    ox_model *copy = ox_model_copy(m, &d);
    assert_non_null(copy);
    fx_program_free(p);
    ox_model_free(m);
    at = expect;
    for (size_t i = 0; i < copy->proto->graph->n_initializer; i++) {
        const Onnx__TensorProto *t = copy->proto->graph->initializer[i];
        assert_non_null(ox_model_map_of(copy, t->raw_data.data, t->raw_data.len));
        assert_memory_equal(t->raw_data.data, at, t->raw_data.len);
        at += t->raw_data.len;
    }
    free(expect);
    ox_model_free(copy);
    diag_free(&d);
}

/* The C lowerings: every family registered once, each found by its name with the schema
 * arguments it reads; a rule naming one that does not exist is refused when it is loaded, at its
 * file and line, with the nearest name as a hint. */
static void test_builtins_registered(void **state)
{
    (void)state;
    assert_null(tx_builtin_duplicate());
    const tx_builtin_entry *e = tx_find_builtin("transpose");
    assert_non_null(e);
    assert_int_equal(e->nargs, 3);
    e = tx_find_builtin("cond");
    assert_non_null(e);
    assert_int_equal(e->nargs, -1);
    assert_true(translate_builtin_exists("scatter_reduce"));
    assert_true(translate_builtin_exists("any_all_dims"));
    assert_false(translate_builtin_exists("frobnicate"));

    ops_registry r;
    translate_registry_init(&r);
    diag_sink d;
    diag_init(&d);
    const char *y = "rules:\n  - target: aten.frobnicate.default\n    schema: frobnicate(Tensor self) -> Tensor\n"
                    "    builtin: transpos\n";
    assert_false(ops_load_string(&r, "user3.yaml", y, strlen(y), &d));
    assert_int_equal(d.errors, 1);
    assert_string_equal(d.items[0].message, "no C lowering is named 'transpos'");
    assert_string_equal(d.items[0].file, "user3.yaml");
    assert_int_equal(d.items[0].line, 4);
    assert_string_equal(d.items[0].hint, "did you mean 'transpose'?");
    assert_null(ops_lookup(&r, "aten.frobnicate.default", 18));
    diag_clear(&d);
    const char *ok = "rules:\n  - target: aten.frobnicate.default\n    schema: frobnicate(Tensor self, int a, int b) -> Tensor\n"
                     "    builtin: transpose\n";
    assert_true(ops_load_string(&r, "user4.yaml", ok, strlen(ok), &d));
    assert_non_null(ops_lookup(&r, "aten.frobnicate.default", 18));
    diag_free(&d);
    ops_registry_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_gemm_and_naming),
        cmocka_unit_test(test_input_returned),
        cmocka_unit_test(test_default_attributes_in_schema_order),
        cmocka_unit_test(test_unused_weights_dropped),
        cmocka_unit_test(test_provenance_metadata),
        cmocka_unit_test(test_scalars_and_constant_farm),
        cmocka_unit_test(test_multi_output_getitem),
        cmocka_unit_test(test_missing_lowering),
        cmocka_unit_test(test_unflatten_chunk_lowerings),
        cmocka_unit_test(test_cond_to_if),
        cmocka_unit_test(test_pt2_weights_shared),
        cmocka_unit_test(test_builtins_registered),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
