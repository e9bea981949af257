/* test_decompose_basic.c — decompose pass on small exported programs and copied corpus fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_paths.h"
#include "base/file.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "load/load.h"
#include "load/pt2_load.h"
#include "meta/meta_layout.h"
#include "decompose/decompose.h"
#include "decompose/decompose_internal.h"
#include "tables/pass_tables.h"
#include "tables/tables.h"
#include "capture/export.h"

static fx_node *add(fx_graph *g, const char *name, fx_opcode op, const char *target, fx_arg **args, size_t n)
{
    fx_program *p = g->owner->prog;
    fx_node *x = fx_node_new(g, name, op, target);
    fx_graph_append(g, x);
    fx_node_set_args(x, fx_arg_seq(p, FX_ARG_TUPLE, args, NULL, n), fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
    return x;
}

static void set_meta(fx_program *p, fx_node *n, fx_dtype dt, size_t rank)
{
    static const char *const dims[4] = { "2", "4", "8", "8" };
    fx_value *v = fx_value_new(p, FX_VAL_TENSOR);
    v->dtype = dt;
    v->rank = rank;
    v->sizes = fx_alloc(p, rank * sizeof *v->sizes);
    for (size_t i = 0; i < rank; i++)
        v->sizes[i] = dims[i];
    n->meta.val = v;
}

static char *print_graph(const fx_program *p)
{
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_GRAPH, &sb);
    return sb_detach(&sb);
}

/* p_w, p_b, x;  add_(x, 1); linear(add_, w, b); return (linear,) */
static fx_program *build(void)
{
    fx_program *p = fx_program_new(NULL);
    fx_graph *g = fx_program_graph(p);
    fx_node *w = add(g, "p_fc_weight", FX_OP_PLACEHOLDER, "p_fc_weight", NULL, 0);
    fx_node *b = add(g, "p_fc_bias", FX_OP_PLACEHOLDER, "p_fc_bias", NULL, 0);
    fx_node *x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0);
    set_meta(p, x, FX_DT_F32, 2);
    fx_arg *aa[2] = { fx_arg_node(p, x), fx_arg_int(p, 1) };
    fx_node *a = add(g, "add_", FX_OP_CALL_FUNCTION, "torch.ops.aten.add_.Tensor", aa, 2);
    set_meta(p, a, FX_DT_F32, 2);
    fx_arg *la[3] = { fx_arg_node(p, a), fx_arg_node(p, w), fx_arg_node(p, b) };
    fx_node *l = add(g, "linear", FX_OP_CALL_FUNCTION, "torch.ops.aten.linear.default", la, 3);
    set_meta(p, l, FX_DT_F32, 2);
    fx_arg *o = fx_arg_node(p, l);
    fx_arg *t = fx_arg_seq(p, FX_ARG_TUPLE, &o, NULL, 1);
    add(g, "output", FX_OP_OUTPUT, "output", &t, 1);
    fx_input_spec *in = fx_alloc(p, 3 * sizeof *in);
    in[0] = (fx_input_spec){ FX_IN_PARAMETER, "p_fc_weight", "fc.weight", false };
    in[1] = (fx_input_spec){ FX_IN_PARAMETER, "p_fc_bias", "fc.bias", false };
    in[2] = (fx_input_spec){ FX_IN_USER_INPUT, "x", NULL, false };
    fx_output_spec *out = fx_alloc(p, sizeof *out);
    out[0] = (fx_output_spec){ FX_OUT_USER_OUTPUT, "linear", NULL };
    p->sig = (fx_signature){ in, 3, out, 1, true };
    fx_program_refresh(p);
    return p;
}

static void test_default_functionalizes(void **state)
{
    (void)state;
    fx_program *p = build();
    diag_sink d;
    diag_init(&d);
    fx_program *r = decompose_program(p, DECOMP_DEFAULT, &d);
    assert_non_null(r);
    char *text = print_graph(r);
    const char *want =
        "graph():\n"
        "    %p_fc_weight : [num_users=1] = placeholder[target=p_fc_weight]\n"
        "    %p_fc_bias : [num_users=1] = placeholder[target=p_fc_bias]\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %add : [num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%x, 1), kwargs = {})\n"
        "    %permute : [num_users=1] = call_function[target=torch.ops.aten.permute.default](args = (%p_fc_weight, [1, 0]), kwargs = {})\n"
        "    %addmm : [num_users=1] = call_function[target=torch.ops.aten.addmm.default](args = (%p_fc_bias, %add, %permute), kwargs = {})\n"
        "    return (add, addmm)";
    assert_string_equal(text, want);
    assert_int_equal(r->sig.n_outputs, 2);
    assert_int_equal(r->sig.outputs[0].kind, FX_OUT_USER_INPUT_MUTATION);
    assert_string_equal(r->sig.outputs[0].target, "x");
    assert_string_equal(r->sig.outputs[0].name, "add");
    assert_int_equal(r->sig.outputs[1].kind, FX_OUT_USER_OUTPUT);
    assert_string_equal(r->sig.outputs[1].name, "addmm");
    free(text);
    fx_program_free(r);
    fx_program_free(p);
    diag_free(&d);
}

static void test_onnx_keeps_linear_and_promotes(void **state)
{
    (void)state;
    fx_program *p = build();
    diag_sink d;
    diag_init(&d);
    fx_program *r = decompose_program(p, DECOMP_ONNX, &d);
    assert_non_null(r);
    char *text = print_graph(r);
    assert_non_null(strstr(text, "%scalar_tensor_default : [num_users=1] = call_function[target=torch.ops.aten.scalar_tensor.default](args = (1,), kwargs = {dtype: torch.float32})"));
    assert_non_null(strstr(text, "%add : [num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%x, %scalar_tensor_default)"));
    assert_non_null(strstr(text, "aten.linear.default](args = (%add, %p_fc_weight, %p_fc_bias)"));
    free(text);
    fx_program_free(r);
    fx_program_free(p);
    diag_free(&d);
}

/* Without rank meta the linear decomposition does not apply: the op is kept. */
static void test_no_meta_keeps_op(void **state)
{
    (void)state;
    fx_program *p = build();
    for (fx_node *n = fx_program_graph(p)->first; n; n = n->next)
        n->meta.val = NULL;
    diag_sink d;
    diag_init(&d);
    fx_program *r = decompose_program(p, DECOMP_DEFAULT, &d);
    assert_non_null(r);
    char *text = print_graph(r);
    assert_non_null(strstr(text, "torch.ops.aten.linear.default"));
    free(text);
    fx_program_free(r);
    fx_program_free(p);
    diag_free(&d);
}

/* add_ on a slice of x updates x: the slice is scattered back and the new x is returned first
 * (without any meta: the inverse needs only the view's arguments). */
static void test_view_mutation_functionalized(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_graph *g = fx_program_graph(p);
    fx_node *x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0);
    fx_arg *sa[4] = { fx_arg_node(p, x), fx_arg_int(p, 0), fx_arg_int(p, 0), fx_arg_int(p, 2) };
    fx_node *sl = add(g, "slice_1", FX_OP_CALL_FUNCTION, "torch.ops.aten.slice.Tensor", sa, 4);
    fx_arg *aa[2] = { fx_arg_node(p, sl), fx_arg_float(p, 1.0) };
    add(g, "add_", FX_OP_CALL_FUNCTION, "torch.ops.aten.add_.Tensor", aa, 2);
    fx_arg *o = fx_arg_node(p, x);
    fx_arg *t = fx_arg_seq(p, FX_ARG_TUPLE, &o, NULL, 1);
    add(g, "output", FX_OP_OUTPUT, "output", &t, 1);
    fx_program_refresh(p);
    diag_sink d;
    diag_init(&d);
    fx_program *r = decompose_program(p, DECOMP_DEFAULT, &d);
    assert_non_null(r);
    char *text = print_graph(r);
    assert_string_equal(text,
        "graph():\n"
        "    %x : [num_users=2] = placeholder[target=x]\n"
        "    %slice_1 : [num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%x, 0, 0, 2), kwargs = {})\n"
        "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%slice_1, 1.0), kwargs = {})\n"
        "    %slice_scatter : [num_users=1] = call_function[target=torch.ops.aten.slice_scatter.default](args = (%x, %add, 0, 0, 2), kwargs = {})\n"
        "    return (slice_scatter, slice_scatter)");
    /* the program had no signature: it gets one saying which output is the mutation */
    assert_true(r->sig.present);
    assert_int_equal(r->sig.n_inputs, 1);
    assert_int_equal(r->sig.inputs[0].kind, FX_IN_USER_INPUT);
    assert_int_equal(r->sig.n_outputs, 2);
    assert_int_equal(r->sig.outputs[0].kind, FX_OUT_USER_INPUT_MUTATION);
    assert_string_equal(r->sig.outputs[0].target, "x");
    assert_int_equal(r->sig.outputs[1].kind, FX_OUT_USER_OUTPUT);
    free(text);
    fx_program_free(r);
    fx_program_free(p);
    diag_free(&d);
}

/* A tensor meta with the given sizes and strides (strides NULL: none recorded). */
static fx_value *tensor(fx_program *p, size_t rank, const char *const *sizes, const char *const *strides)
{
    fx_value *v = fx_value_new(p, FX_VAL_TENSOR);
    v->dtype = FX_DT_F32;
    v->rank = rank;
    v->device = "cpu";
    v->sizes = fx_alloc(p, (rank + 1) * sizeof *v->sizes);
    memcpy(v->sizes, sizes, rank * sizeof *sizes);
    if (strides) {
        v->strides = fx_alloc(p, (rank + 1) * sizeof *v->strides);
        memcpy(v->strides, strides, rank * sizeof *strides);
    }
    return v;
}

static fx_arg *ints(fx_program *p, const int64_t *v, size_t n)
{
    fx_arg *items[8];
    for (size_t i = 0; i < n; i++)
        items[i] = fx_arg_int(p, v[i]);
    return fx_arg_seq(p, FX_ARG_LIST, items, NULL, n);
}

static void finish(fx_program *p, fx_node *result)
{
    fx_arg *o = fx_arg_node(p, result);
    fx_arg *t = fx_arg_seq(p, FX_ARG_TUPLE, &o, NULL, 1);
    add(fx_program_graph(p), "output", FX_OP_OUTPUT, "output", &t, 1);
    fx_program_refresh(p);
}

/* The emitted nodes' layout is inferred for the new graph: cumsum of a permuted tensor is
 * contiguous (torch.export records strides [10, 5, 1] for it in the corpus case tensor_ops). */
static void test_emitted_strides_inferred(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_graph *g = fx_program_graph(p);
    static const char *const sz[3] = { "3", "2", "5" };
    fx_node *x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0);
    x->meta.val = tensor(p, 3, sz, (const char *const[]){ "1", "15", "3" });
    fx_arg *ca[2] = { fx_arg_node(p, x), fx_arg_int(p, -1) };
    fx_node *c = add(g, "cumsum", FX_OP_CALL_FUNCTION, "torch.ops.aten.cumsum.default", ca, 2);
    c->meta.val = tensor(p, 3, sz, (const char *const[]){ "10", "5", "1" });
    finish(p, c);
    diag_sink d;
    diag_init(&d);
    for (int k = 0; k < 2; k++) {
        fx_program *r = decompose_program(p, k ? DECOMP_ONNX : DECOMP_DEFAULT, &d);
        assert_non_null(r);
        const fx_value *v = fx_program_find_node(r, "cumsum")->meta.val;
        assert_non_null(v);
        assert_non_null(v->strides);
        assert_string_equal(v->strides[0], "10");
        assert_string_equal(v->strides[1], "5");
        assert_string_equal(v->strides[2], "1");
        fx_program_free(r);
    }
    fx_program_free(p);
    diag_free(&d);
}

/* reshape with symbolic sizes: a view where computeStride finds one (a contiguous input), else
 * clone + _unsafe_view (a transposed input), as torch's reshape decides on its guards. */
static void test_symbolic_reshape(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_graph *g = fx_program_graph(p);
    fx_node *x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0);
    x->meta.val = tensor(p, 2, (const char *const[]){ "s0", "4" }, (const char *const[]){ "4", "1" });
    static const int64_t flat[1] = { -1 };
    fx_arg *ra[2] = { fx_arg_node(p, x), ints(p, flat, 1) };
    fx_node *r1 = add(g, "reshape", FX_OP_CALL_FUNCTION, "torch.ops.aten.reshape.default", ra, 2);
    r1->meta.val = tensor(p, 1, (const char *const[]){ "4*s0" }, (const char *const[]){ "1" });
    fx_arg *ta[3] = { fx_arg_node(p, x), fx_arg_int(p, 0), fx_arg_int(p, 1) };
    fx_node *t = add(g, "transpose", FX_OP_CALL_FUNCTION, "torch.ops.aten.transpose.int", ta, 3);
    t->meta.val = tensor(p, 2, (const char *const[]){ "4", "s0" }, (const char *const[]){ "1", "4" });
    fx_arg *rb[2] = { fx_arg_node(p, t), ints(p, flat, 1) };
    fx_node *r2 = add(g, "reshape_1", FX_OP_CALL_FUNCTION, "torch.ops.aten.reshape.default", rb, 2);
    r2->meta.val = tensor(p, 1, (const char *const[]){ "4*s0" }, (const char *const[]){ "1" });
    fx_arg *aa[2] = { fx_arg_node(p, r1), fx_arg_node(p, r2) };
    finish(p, add(g, "add", FX_OP_CALL_FUNCTION, "torch.ops.aten.add.Tensor", aa, 2));
    diag_sink d;
    diag_init(&d);
    fx_program *r = decompose_program(p, DECOMP_ONNX, &d);
    assert_non_null(r);
    char *text = print_graph(r);
    assert_string_equal(text,
        "graph():\n"
        "    %x : [num_users=2] = placeholder[target=x]\n"
        "    %view : [num_users=1] = call_function[target=torch.ops.aten.view.default](args = (%x, [-1]), kwargs = {})\n"
        "    %transpose : [num_users=1] = call_function[target=torch.ops.aten.transpose.int](args = (%x, 0, 1), kwargs = {})\n"
        "    %clone : [num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%transpose,), kwargs = {memory_format: torch.contiguous_format})\n"
        "    %_unsafe_view : [num_users=1] = call_function[target=torch.ops.aten._unsafe_view.default](args = (%clone, [-1]), kwargs = {})\n"
        "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%view, %_unsafe_view), kwargs = {})\n"
        "    return (add,)");
    /* the clone the new graph needs has its meta: contiguous, sizes as torch prints them */
    const fx_value *cv = fx_program_find_node(r, "clone")->meta.val;
    assert_non_null(cv);
    assert_string_equal(cv->sizes[1], "s0");
    assert_string_equal(cv->strides[0], "s0");
    assert_string_equal(cv->strides[1], "1");
    free(text);
    fx_program_free(r);
    fx_program_free(p);
    diag_free(&d);
}

/* split.Tensor into more chunks than any fixed buffer holds: every chunk size is listed (torch's
 * decomposition gives split_with_sizes the sizes of all 100 chunks, the last one short). */
static void test_split_many_chunks(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_graph *g = fx_program_graph(p);
    fx_node *x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0);
    x->meta.val = tensor(p, 2, (const char *const[]){ "2", "199" }, (const char *const[]){ "199", "1" });
    fx_arg *sa[3] = { fx_arg_node(p, x), fx_arg_int(p, 2), fx_arg_int(p, 1) };
    fx_node *sp = add(g, "split", FX_OP_CALL_FUNCTION, "torch.ops.aten.split.Tensor", sa, 3);
    fx_arg *ga[2] = { fx_arg_node(p, sp), fx_arg_int(p, 99) };
    finish(p, add(g, "getitem", FX_OP_CALL_FUNCTION, "operator.getitem", ga, 2));
    diag_sink d;
    diag_init(&d);
    fx_program *r = decompose_program(p, DECOMP_DEFAULT, &d);
    assert_non_null(r);
    char *text = print_graph(r);
    const char *call = strstr(text, "torch.ops.aten.split_with_sizes.default](args = (%x, [");
    assert_non_null(call);
    const char *list = strchr(call, '[') + 1;   /* the sizes */
    size_t twos = 0;
    for (const char *q = list; *q && *q != ']'; q++)
        twos += q[0] == '2' && (q[1] == ',' || q[1] == ']');
    assert_int_equal(twos, 99);
    assert_non_null(strstr(list, "2, 1], 1)"));
    free(text);
    fx_program_free(r);
    fx_program_free(p);
    diag_free(&d);
}

/* CompositeImplicitAutograd ops become the ops they are written in, in both tables; true_divide
 * only in the default one (torchlib lowers it, so the exporter's table keeps it). */
static void test_composite_implicit(void **state)
{
    (void)state;
    static const char prog[] =
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, x: \"f32[2, 3]\", y: \"f32[3, 2]\"):\n"
        "        ravel: \"f32[6]\" = torch.ops.aten.ravel.default(x)\n"
        "        reshape_as: \"f32[3, 2]\" = torch.ops.aten.reshape_as.default(x, y)\n"
        "        true_divide: \"f32[3, 2]\" = torch.ops.aten.true_divide.Tensor(reshape_as, y)\n"
        "        fliplr: \"f32[2, 3]\" = torch.ops.aten.fliplr.default(x)\n"
        "        flipud: \"f32[2, 3]\" = torch.ops.aten.flipud.default(x)\n"
        "        m_t: \"f32[2, 3]\" = torch.ops.aten.mT.default(y)\n"
        "        atleast_2d: \"f32[2, 3]\" = torch.ops.aten.atleast_2d.default(x)\n"
        "        atleast_3d: \"f32[2, 3, 1]\" = torch.ops.aten.atleast_3d.default(x);  x = y = None\n"
        "        return (ravel, true_divide, fliplr, flipud, m_t, atleast_2d, atleast_3d)\n";
    for (int k = 0; k < 2; k++) {
        diag_sink d;
        diag_init(&d);
        fx_program *p = fxp_parse_code_text(prog, strlen(prog), "cia.py", &d);
        assert_non_null(p);
        fx_program *r = decompose_program(p, k ? DECOMP_ONNX : DECOMP_DEFAULT, &d);
        if (!r)
            diag_render_all(&d, stderr, NULL, false);
        assert_non_null(r);
        char *text = print_graph(r);
        static const char *const gone[] = {"ravel", "reshape_as", "fliplr", "flipud", "aten.mT", "atleast_2d", "true_divide"};
        for (size_t i = 0; i < sizeof gone / sizeof *gone - (size_t)k; i++)
            if (strstr(text, gone[i]) && strstr(text, gone[i])[-1] == '.')
                fail_msg("%s left in:\n%s", gone[i], text);
        assert_non_null(strstr(text, "torch.ops.aten.view.default](args = (%x, [-1])"));
        assert_non_null(strstr(text, "torch.ops.aten.view.default](args = (%x, [3, 2])"));
        assert_non_null(strstr(text, k ? "torch.ops.aten.true_divide.Tensor](args = (%view_1, %y)"
                                       : "torch.ops.aten.div.Tensor](args = (%view_1, %y)"));
        assert_non_null(strstr(text, "torch.ops.aten.flip.default](args = (%x, [1])"));
        assert_non_null(strstr(text, "torch.ops.aten.flip.default](args = (%x, [0])"));
        /* atleast_2d of a 2-d tensor is the tensor; atleast_3d unsqueezes the last dim */
        assert_null(strstr(text, "atleast"));
        assert_non_null(strstr(text, k ? "return (view, true_divide, flip, flip_1, " : "return (view, div, flip, flip_1, "));
        assert_non_null(strstr(text, "torch.ops.aten.unsqueeze.default](args = (%x, -1)"));
        /* the default table goes on to core ATen's permute */
        assert_non_null(strstr(text, k ? "torch.ops.aten.transpose.int](args = (%y, -2, -1)"
                                       : "torch.ops.aten.permute.default](args = (%y, [1, 0])"));
        free(text);
        fx_program_free(r);
        fx_program_free(p);
        diag_free(&d);
    }
}

/* swapaxes / swapdims (CompositeImplicit, TensorShape.cpp: self.transpose(axis0, axis1); torchlib
 * has no lowering, so both tables decompose them) are transpose, which the default table takes on
 * to permute. */
static void test_swapaxes(void **state)
{
    (void)state;
    static const char prog[] =
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, x: \"f32[2, 3, 4]\"):\n"
        "        swapaxes: \"f32[4, 3, 2]\" = torch.ops.aten.swapaxes.default(x, 0, 2)\n"
        "        swapdims: \"f32[2, 4, 3]\" = torch.ops.aten.swapdims.default(x, -1, 1);  x = None\n"
        "        return (swapaxes, swapdims)\n";
    for (int k = 0; k < 2; k++) {
        diag_sink d;
        diag_init(&d);
        fx_program *p = fxp_parse_code_text(prog, strlen(prog), "swap.py", &d);
        assert_non_null(p);
        fx_program *r = decompose_program(p, k ? DECOMP_ONNX : DECOMP_DEFAULT, &d);
        assert_non_null(r);
        char *text = print_graph(r);
        assert_null(strstr(text, "swap"));
        assert_non_null(strstr(text, k ? "torch.ops.aten.transpose.int](args = (%x, 0, 2)"
                                       : "torch.ops.aten.permute.default](args = (%x, [2, 1, 0])"));
        assert_non_null(strstr(text, k ? "torch.ops.aten.transpose.int](args = (%x, -1, 1)"
                                       : "torch.ops.aten.permute.default](args = (%x, [0, 2, 1])"));
        free(text);
        fx_program_free(r);
        fx_program_free(p);
        diag_free(&d);
    }
}

/* The layout predicates on metas they cannot decide keep the contiguous assumption. */
static void test_layout_predicates(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    static const int64_t flat[1] = { -1 };
    fx_arg *shape = ints(p, flat, 1);
    const fx_value *sym = tensor(p, 2, (const char *const[]){ "s0", "4" }, (const char *const[]){ "1", "s0" });
    assert_false(dl_contiguous(sym));
    assert_false(dl_viewable(sym, shape));
    assert_false(dl_last_stride_1(tensor(p, 2, (const char *const[]){ "2", "4" }, (const char *const[]){ "1", "2" })));
    dl_tensor t;
    assert_false(dl_static(sym, &t));
    /* no strides recorded: contiguous */
    const fx_value *plain = tensor(p, 2, (const char *const[]){ "s0", "4" }, NULL);
    assert_true(dl_contiguous(plain));
    assert_true(dl_viewable(plain, shape));
    assert_true(dl_static(tensor(p, 2, (const char *const[]){ "3", "0" }, NULL), &t));
    assert_int_equal(t.stride[0], 1);
    assert_int_equal(t.stride[1], 1);
    /* undecidable: opaque sizes, a symbolic innermost stride, unknown metas */
    const fx_value *opaque = tensor(p, 2, (const char *const[]){ "Max(1, s0)", "4" }, (const char *const[]){ "1", "Max(1, s0)" });
    assert_true(dl_viewable(opaque, shape));
    assert_true(dl_last_stride_1(tensor(p, 1, (const char *const[]){ "4" }, (const char *const[]){ "s1" })));
    assert_true(dl_viewable(NULL, shape));
    assert_true(dl_last_stride_1(NULL));
    assert_false(dl_contiguous(NULL));
    fx_program_free(p);
}

static void test_rejects_torch_level(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_graph *g = fx_program_graph(p);
    fx_node *x = add(g, "x", FX_OP_PLACEHOLDER, "x", NULL, 0);
    fx_arg *a = fx_arg_node(p, x);
    fx_node *r = add(g, "relu", FX_OP_CALL_FUNCTION, "torch.relu", &a, 1);
    a = fx_arg_node(p, r);
    add(g, "output", FX_OP_OUTPUT, "output", &a, 1);
    diag_sink d;
    diag_init(&d);
    assert_null(decompose_program(p, DECOMP_DEFAULT, &d));
    assert_true(d.errors > 0);
    assert_non_null(d.items[0].hint);
    fx_program_free(p);
    diag_free(&d);
}

static char *slurp(const char *path, size_t *len)
{
    return file_slurp(path, len);
}

/* Fixtures copied from the corpus: program.json decomposes to (onnx_)decomposed.fx.txt. */
static void test_fixtures(void **state)
{
    (void)state;
    static const char *const cases[] = { "mlp", "inplace_ops", "embedding_lstm_free" };
    static const char *const outs[2] = { "decomposed.fx.txt", "onnx_decomposed.fx.txt" };
    for (size_t i = 0; i < 3; i++) {
        char path[1024];
        size_t len, elen;
        snprintf(path, sizeof path, "%s/%s/program.json", TEST_FIXTURES "/export", cases[i]);
        char *js = slurp(path, &len);
        assert_non_null(js);
        diag_sink d;
        diag_init(&d);
        fx_program *ep = pt2_load_json(js, len, path, &d);
        assert_non_null(ep);
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/%s/%s", TEST_FIXTURES "/export", cases[i], outs[k]);
            char *want = slurp(path, &elen);
            assert_non_null(want);
            fx_program *r = decompose_program(ep, k ? DECOMP_ONNX : DECOMP_DEFAULT, &d);
            assert_non_null(r);
            char *got = print_graph(r);
            assert_string_equal(got, want);
            free(got);
            free(want);
            fx_program_free(r);
        }
        fx_program_free(ep);
        diag_free(&d);
        free(js);
    }
}

/* The C decompositions: every family registered once, each found by its name, and every
 * builtin: the shipped table names is one of them. */
static void test_builtins_registered(void **state)
{
    (void)state;
    assert_null(dc_builtin_duplicate());
    static const char *const names[] = { "matmul", "meshgrid", "cosine_embedding_loss", "upsample_nearest_exact2d",
                                         "quantile", "adaptive_avg_pool1d" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const dc_builtin_entry *e = dc_find_builtin(names[i]);
        assert_non_null(e);
        assert_string_equal(e->name, names[i]);
    }
    assert_false(dc_builtin_exists("no_such_builtin"));
    assert_false(dc_builtin_exists("quantil"));
    diag_sink d;
    diag_init(&d);
    const pass_table *t = tables_pass("decompose", "rules", &d);
    assert_non_null(t);
    size_t named = 0;
    for (size_t i = 0; i < t->n; i++) {
        const char *b = pt_get(&t->recs[i], "builtin");
        if (b) {
            named++;
            assert_true(dc_builtin_exists(b));
        }
    }
    assert_true(named > 30);
    diag_free(&d);
}

/* The argument readers the C decompositions share: an absent argument takes the default only
 * where one is given, and a Python bool is a number but not an int. */
static void test_builtin_arg_readers(void **state)
{
    (void)state;
    fx_program *p = fx_program_new("m");
    int64_t i = 0;
    double f = 0;
    assert_false(dc_int_of(NULL, &i));
    assert_true(dc_int_or(NULL, 7, &i));
    assert_int_equal(i, 7);
    assert_true(dc_int_or(fx_arg_int(p, -3), 7, &i));
    assert_int_equal(i, -3);
    assert_false(dc_int_of(fx_arg_bool(p, true), &i));
    assert_false(dc_int_or(fx_arg_float(p, 1.5), 7, &i));
    assert_false(dc_num_of(NULL, &f));
    assert_true(dc_num_or(NULL, 0.5, &f));
    assert_true(f == 0.5);
    assert_true(dc_num_of(fx_arg_bool(p, true), &f));
    assert_true(f == 1.0);
    assert_true(dc_num_of(fx_arg_int(p, 4), &f));
    assert_true(f == 4.0);
    assert_false(dc_num_of(fx_arg_none(p), &f));
    const fx_arg *l = dc_int_list(p, (const int64_t[]){ 2, -1, 5 }, 3);
    assert_int_equal(l->kind, FX_ARG_LIST);
    assert_int_equal(l->u.seq.len, 3);
    assert_int_equal(l->u.seq.items[1]->u.i, -1);
    assert_int_equal(dc_int_list(p, NULL, 0)->u.seq.len, 0);
    int64_t d = -1;
    assert_true(dc_wrap_dim(&d, 3));
    assert_int_equal(d, 2);
    d = 3;
    assert_false(dc_wrap_dim(&d, 3));
    d = -1;
    assert_true(dc_wrap_dim(&d, 0));   /* a 0-d tensor takes 0 and -1 */
    assert_int_equal(d, 0);
    d = -2;
    assert_false(dc_wrap_dim(&d, 0));
    fx_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_functionalizes),
        cmocka_unit_test(test_onnx_keeps_linear_and_promotes),
        cmocka_unit_test(test_no_meta_keeps_op),
        cmocka_unit_test(test_split_many_chunks),
        cmocka_unit_test(test_composite_implicit),
        cmocka_unit_test(test_swapaxes),
        cmocka_unit_test(test_rejects_torch_level),
        cmocka_unit_test(test_view_mutation_functionalized),
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_emitted_strides_inferred),
        cmocka_unit_test(test_symbolic_reshape),
        cmocka_unit_test(test_layout_predicates),
        cmocka_unit_test(test_builtins_registered),
        cmocka_unit_test(test_builtin_arg_readers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
