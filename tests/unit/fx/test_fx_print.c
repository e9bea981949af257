/* test_fx_print.c — printers on fixture files copied from the corpus (real torch output),
 * printing after edits, the tabular form and the inspection helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_paths.h"
#include "fx/fx.h"
#include "load/load.h"

static char *read_fixture(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TEST_FIXTURES "/fx", name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static fx_program *load_fixture(const char *name, char **text, size_t *len)
{
    *text = read_fixture(name, len);
    diag_sink d;
    diag_init(&d);
    fx_program *p = load_fx_text(*text, *len, name, &d);
    if (!p)
        diag_render_all(&d, stderr, NULL, false);
    assert_non_null(p);
    assert_false(diag_has_errors(&d));
    diag_free(&d);
    return p;
}

static void roundtrip(const char *name, fx_form form)
{
    size_t len;
    char *text;
    fx_program *p = load_fixture(name, &text, &len);
    assert_int_equal(fx_program_source_form(p), form);
    strbuf sb;
    sb_init(&sb);
    fx_print(p, form, &sb);
    assert_string_equal(sb.s, text);
    sb_free(&sb);
    fx_program_free(p);
    free(text);
}

static void test_fixture_roundtrips(void **state)
{
    (void)state;
    roundtrip("mlp_exported.fx.txt", FX_FORM_GRAPH);
    roundtrip("mlp_cond_exported.fx.txt", FX_FORM_GRAPH);
    roundtrip("mlp_exported.readable.txt", FX_FORM_CODE);
    roundtrip("mlp_cond_exported.readable.txt", FX_FORM_CODE);
    roundtrip("mlp_torch_level.module.txt", FX_FORM_MODULE);
    roundtrip("attention_torch_level.module.txt", FX_FORM_MODULE);
}

/* Readable code loaded from torch output prints the same graph as torch's print(graph). */
static void test_code_to_graph(void **state)
{
    (void)state;
    size_t l1, l2;
    char *graph = read_fixture("mlp_cond_exported.fx.txt", &l1);
    char *code;
    fx_program *p = load_fixture("mlp_cond_exported.readable.txt", &code, &l2);
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_GRAPH, &sb);
    assert_string_equal(sb.s, graph);
    sb_free(&sb);
    fx_program_free(p);
    free(graph);
    free(code);
}

/* After an edit the cleanups are recomputed from last uses, not replayed. */
static void test_print_after_edit(void **state)
{
    (void)state;
    size_t len;
    char *text;
    fx_program *p = load_fixture("mlp_torch_level.module.txt", &text, &len);
    fx_graph *g = fx_program_graph(p);
    /* drop relu_1: fc3 now reads fc2 directly */
    fx_node *relu1 = fx_graph_lookup(g, "relu_1");
    fx_node *fc2 = fx_graph_lookup(g, "fc2");
    fx_node *fc3 = fx_graph_lookup(g, "fc3");
    fc3->args->u.seq.items[0]->u.node = fc2;
    fx_graph_recompute_users(g);
    assert_true(fx_graph_remove(g, relu1));
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_MODULE, &sb);
    assert_non_null(strstr(sb.s, "    fc2 = self.fc2(relu);  relu = None\n"
                                 "    fc3 = self.fc3(fc2);  fc2 = None\n    return fc3\n"));
    sb_reset(&sb);
    fx_print(p, FX_FORM_GRAPH, &sb);
    assert_non_null(strstr(sb.s, "%fc2 : [num_users=1] = call_module[target=fc2](args = (%relu,), kwargs = {})\n"
                                 "    %fc3 : [num_users=1] = call_module[target=fc3](args = (%fc2,), kwargs = {})"));
    sb_free(&sb);
    fx_program_free(p);
    free(text);
}

/* The CODE printer with an indent gives the class part of print(ep) (corpus exported.program.txt). */
static void test_code_for_print_ep(void **state)
{
    (void)state;
    size_t len, plen;
    char *text;
    fx_program *p = load_fixture("mlp_cond_exported.readable.txt", &text, &len);
    char *prog = read_fixture("mlp_cond_exported.program.txt", &plen);
    strbuf sb;
    sb_init(&sb);
    sb_puts(&sb, "ExportedProgram:\n");
    fx_print_code_class(p->root, "GraphModule", 4, &sb);
    sb_puts(&sb, "\nGraph signature:");
    assert_true(plen > sb.len);
    assert_memory_equal(sb.s, prog, sb.len);
    sb_free(&sb);
    fx_program_free(p);
    free(text);
    free(prog);
}

/* A clone prints the same, and editing it leaves the original untouched. */
static void test_clone(void **state)
{
    (void)state;
    size_t len;
    char *text;
    fx_program *p = load_fixture("mlp_cond_exported.readable.txt", &text, &len);
    int64_t shape[1] = {4};
    float *data = calloc(4, sizeof(float));
    fx_program_add_weight(p, "seq.0.bias", FX_TENSOR_PARAMETER, FX_DT_F32, shape, 1, data, 16, true);
    fx_program *q = fx_program_clone(p);
    strbuf sb;
    sb_init(&sb);
    fx_print(q, FX_FORM_CODE, &sb);
    assert_string_equal(sb.s, text);
    /* owned data is shared, not copied: both hold the block, which outlives the original */
    const fx_weight *w = fx_program_weight(q, "seq.0.bias");
    assert_ptr_equal(w->data, data);
    assert_ptr_equal(w->map, fx_program_weight(p, "seq.0.bias")->map);
    assert_int_equal(w->map->refs, 2);
    /* edit the clone: the true branch returns its input instead of mul */
    fx_module *tb = fx_module_child(q->root, "true_graph_0");
    fx_node *mul = fx_graph_lookup(tb->graph, "mul");
    fx_node *out = tb->graph->last;
    out->args->u.seq.items[0]->u.seq.items[0]->u.node = fx_graph_lookup(tb->graph, "linear_1");
    fx_graph_recompute_users(tb->graph);
    assert_true(fx_graph_remove(tb->graph, mul));
    sb_reset(&sb);
    fx_print(q, FX_FORM_CODE, &sb);
    assert_non_null(strstr(sb.s, "        def forward(self, linear_1: \"f32[4, 1]\"):\n"
                                 "            return (linear_1,)\n"));
    sb_reset(&sb);
    fx_print(p, FX_FORM_CODE, &sb);
    assert_string_equal(sb.s, text);
    sb_free(&sb);
    fx_program_free(p);
    assert_int_equal(w->map->refs, 1);
    assert_memory_equal(w->data, (float[4]){0}, 16);
    fx_program_free(q);
    free(text);
}

static void test_tabular(void **state)
{
    (void)state;
    size_t len;
    char *text;
    fx_program *p = load_fixture("mlp_torch_level.module.txt", &text, &len);
    strbuf sb;
    sb_init(&sb);
    fx_print(p, FX_FORM_TABULAR, &sb);
    /* columns: max(cell widths, header + 2), separated by 2 spaces, every cell padded */
    const char *want =
        "opcode         name    target      args       kwargs  \n"
        "-------------  ------  ----------  ---------  --------\n"
        "placeholder    x       x           ()         {}      \n"
        "call_module    fc1     fc1         (x,)       {}      \n";
    assert_memory_equal(sb.s, want, strlen(want));
    assert_non_null(strstr(sb.s, "\ncall_function  relu_1  torch.relu  (fc2,)     {}      \n"));
    assert_non_null(strstr(sb.s, "\noutput         output  output      (fc3,)     {}      "));
    sb_free(&sb);
    fx_program_free(p);
    free(text);
}

static void collect(const char *name, void *ctx)
{
    strbuf *sb = ctx;
    sb_printf(sb, "%s ", name);
}

static void test_inspect(void **state)
{
    (void)state;
    size_t len;
    char *text;
    fx_program *p = load_fixture("mlp_cond_exported.readable.txt", &text, &len);
    strbuf sb;
    sb_init(&sb);
    fx_print_nodes(p, &sb);
    assert_true(strncmp(sb.s, "name", 4) == 0);
    assert_non_null(strstr(sb.s, "\ntrue_graph_0.mul "));
    assert_non_null(strstr(sb.s, "linear_1 "));

    sb_reset(&sb);
    assert_int_equal(fx_print_node(p, "%linear_1", &sb), 0);
    assert_non_null(strstr(sb.s, "op:      call_function\n"));
    assert_non_null(strstr(sb.s, "args:    (%linear, %p_seq_1_weight, %p_seq_1_bias)\n"));
    assert_non_null(strstr(sb.s, "users:   2 (sum_1, cond)\n"));
    assert_non_null(strstr(sb.s, "value:   f32[4, 1]\n"));
    assert_non_null(strstr(sb.s, "source:  /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134"));
    sb_reset(&sb);
    assert_int_equal(fx_print_node(p, "false_graph_0.neg", &sb), 0);
    assert_non_null(strstr(sb.s, "node:    false_graph_0.neg\n"));
    assert_int_equal(fx_print_node(p, "nope", &sb), -1);

    sb_reset(&sb);
    /* linear, linear_1 and the linear_1 placeholder of each branch */
    assert_int_equal(fx_find(p, "linear", false, &sb), 4);
    assert_non_null(strstr(sb.s, "true_graph_0.linear_1  placeholder  linear_1\n"));
    sb_reset(&sb);
    fx_print_stats(p, &sb);
    assert_non_null(strstr(sb.s, "subgraphs: 2\n  true_graph_0: 3 nodes\n  false_graph_0: 3 nodes\n"));
    assert_non_null(strstr(sb.s, "      2  torch.ops.aten.linear.default\n"));
    sb_reset(&sb);
    fx_each_node_name(p, collect, &sb);
    assert_non_null(strstr(sb.s, "getitem output true_graph_0.linear_1 true_graph_0.mul"));
    sb_free(&sb);
    fx_program_free(p);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_roundtrips),
        cmocka_unit_test(test_code_to_graph),
        cmocka_unit_test(test_print_after_edit),
        cmocka_unit_test(test_code_for_print_ep),
        cmocka_unit_test(test_clone),
        cmocka_unit_test(test_tabular),
        cmocka_unit_test(test_inspect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
