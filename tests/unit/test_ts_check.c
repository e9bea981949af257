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
#include "fx/ts_load.h"
#include "passes/control_flow.h"

static char *slurp(const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FXSH_CFLOW_FIXTURES, name);
    char *b = file_slurp(path, n);
    assert_non_null(b);
    return b;
}

static fx_program *load(const char *name, const char *weights, const char *decl)
{
    size_t n;
    char *t = slurp(name, &n);
    char wpath[512];
    ts_load_options o = {0};
    ts_input_decl in;
    if (weights) {
        snprintf(wpath, sizeof wpath, "%s/%s", FXSH_CFLOW_FIXTURES, weights);
        o.weights_path = wpath;
    }
    assert_true(ts_parse_input_decl(decl, &in));
    o.inputs = &in;
    o.n_inputs = 1;
    diag_sink d;
    diag_init(&d);
    fx_program *p = ts_load_text(t, n, name, &o, &d);
    diag_free(&d);
    free(t);
    assert_non_null(p);
    return p;
}

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
    fx_program *p = load("python_if_data.torchscript.txt", "python_if_data.onnx", "x=f32[3,4]");
    diag_sink d;
    diag_init(&d);
    strbuf rep;
    sb_init(&rep);
    assert_int_equal(control_flow_export_check(p, &d, &rep), 1);
    assert_true(d.errors > 0);
    assert_non_null(d.items[0].hint);
    assert_string_equal(d.items[0].hint, "rewrite %if_1 cond");
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
    fx_program *p = load("if_shape.torchscript.txt", NULL, "x=f32[3,4]");
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
    p = load("if_shape.torchscript.txt", NULL, "x=f32[5,4]");
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
    fx_program *p = load("python_for_const.torchscript.txt", NULL, "x=f32[2,4]");
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

/* Keeps the lines that are neither blank nor comments (torch's comments quote model source). */
static void code_lines(const char *s, strbuf *out)
{
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        size_t k = 0;
        while (k < n && s[k] == ' ')
            k++;
        if (k < n && s[k] != '#') {
            sb_putn(out, s, n);
            sb_putc(out, '\n');
        }
        s += n + (e ? 1 : 0);
    }
}

/* Specializing the loaded TorchScript gives torch.export's graph (python_if_shape, python_for_const). */
static void check_like_torch(const char *base, const char *decl)
{
    char ts[128], w[128], ref[128];
    snprintf(ts, sizeof ts, "%s.torchscript.txt", base);
    snprintf(w, sizeof w, "%s.onnx", base);
    snprintf(ref, sizeof ref, "%s.exported.readable.txt", base);
    fx_program *p = load(ts, w, decl);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_dependent_fails_like_torch),
        cmocka_unit_test(test_shape_if_specialized),
        cmocka_unit_test(test_for_unrolled),
        cmocka_unit_test(test_corpus_shape_if),
        cmocka_unit_test(test_corpus_for_const),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
