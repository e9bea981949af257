/* test_ops_registry.c — op registry: ATen schemas, YAML loading and errors, lowerings, selection. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_paths.h"
#include "onnx/onnx_parse.h"
#include "tables/ops.h"

static bool load(ops_registry *r, const char *text, diag_sink *d)
{
    return ops_load_string(r, "t.yaml", text, strlen(text), d);
}

static void test_schema_parse(void **state)
{
    (void)state;
    arena a;
    arena_init(&a);
    diag_sink d;
    diag_init(&d);
    aten_schema s;
    assert_true(aten_schema_parse(&a, "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", &s, &d,
                                  (diag_loc){0}));
    assert_string_equal(s.name, "add");
    assert_string_equal(s.overload, "Tensor");
    assert_int_equal(s.nargs, 3);
    assert_int_equal(s.args[0].base, ATY_TENSOR);
    assert_false(s.args[1].kwarg_only);
    assert_true(s.args[2].kwarg_only);
    assert_int_equal(s.args[2].base, ATY_SCALAR);
    assert_string_equal(s.args[2].default_text, "1");
    assert_int_equal(s.nrets, 1);

    assert_true(aten_schema_parse(&a, "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True)"
                                      " -> (Tensor values, Tensor indices)", &s, &d, (diag_loc){0}));
    assert_string_equal(s.overload, "");
    assert_int_equal(s.nrets, 2);
    assert_string_equal(s.rets[1].name, "indices");
    assert_string_equal(s.args[2].default_text, "-1");

    assert_true(aten_schema_parse(&a, "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", &s, &d, (diag_loc){0}));
    assert_true(s.args[1].optional && s.args[1].is_list);
    assert_true(aten_schema_parse(&a, "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0)"
                                      " -> Tensor", &s, &d, (diag_loc){0}));
    assert_string_equal(s.args[2].default_text, "[]");
    assert_true(aten_schema_parse(&a, "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
                                  &s, &d, (diag_loc){0}));
    assert_true(s.rets[0].is_list);
    assert_int_equal(aten_schema_find(&s, "dim"), 2);
    assert_int_equal(aten_schema_find(&s, "nope"), -1);
    assert_int_equal(d.errors, 0);

    /* errors carry the column of the offending character */
    assert_false(aten_schema_parse(&a, "relu(Tensor self -> Tensor", &s, &d, (diag_loc){"f.yaml", 3, 13}));
    assert_int_equal(d.errors, 1);
    assert_int_equal(d.items[0].line, 3);
    assert_int_equal(d.items[0].col, 13 + 17);
    assert_false(aten_schema_parse(&a, "f(Tensor x, int x) -> Tensor", &s, &d, (diag_loc){0}));
    assert_non_null(strstr(d.items[1].message, "duplicate"));
    diag_free(&d);
    arena_free(&a);
}

static void test_load_and_lookup(void **state)
{
    (void)state;
    ops_registry r;
    ops_registry_init(&r);
    diag_sink d;
    diag_init(&d);
    const char *y =
        "opset: 18\n"
        "rules:\n"
        "  - target: aten.relu.default\n"
        "    schema: relu(Tensor self) -> Tensor\n"
        "    lowering: 'relu (self) => (result) { result = Relu (self) }'\n"
        "  - target: aten.gelu.default\n"
        "    schema: gelu(Tensor self, *, str approximate='none') -> Tensor\n"
        "    lowering: |\n"
        "      gelu (self) => (result) {\n"
        "         e = Erf (self)\n"
        "         result = Mul (self, e)\n"
        "      }\n"
        "  - target: aten.gelu.default\n"
        "    opset: 20\n"
        "    schema: gelu(Tensor self, *, str approximate='none') -> Tensor\n"
        "    lowering: 'gelu (self) => (result) { result = Gelu <approximate: string = @approximate> (self) }'\n";
    assert_true(load(&r, y, &d));
    assert_int_equal(d.errors, 0);
    const op_rule *g18 = ops_lookup(&r, "torch.ops.aten.gelu.default", 18);
    const op_rule *g19 = ops_lookup(&r, "aten.gelu.default", 19);
    const op_rule *g21 = ops_lookup(&r, "aten.gelu.default", 21);
    assert_non_null(g18);
    assert_ptr_equal(g18, g19);
    assert_int_equal(g18->since_opset, 18);
    assert_int_equal(g21->since_opset, 20);
    assert_null(ops_lookup(&r, "aten.gelu.default", 17));
    assert_null(ops_lookup(&r, "aten.nope.default", 20));
    const lowering *lw = &g18->alts[0];
    assert_int_equal(lw->nnodes, 2);
    assert_string_equal(lw->nodes[0].op_type, "Erf");
    assert_string_equal(lw->nodes[1].ins[1], "e");
    assert_int_equal(lw->nodes[0].line, 10);        /* file line of the node */
    const lowering *l20 = &g21->alts[0];
    assert_int_equal(l20->nodes[0].nattrs, 1);
    assert_string_equal(l20->nodes[0].attrs[0].ref, "approximate");
    assert_int_equal(l20->nodes[0].attrs[0].ref_arg, 1);
    assert_int_equal(l20->nodes[0].attrs[0].type, LAT_STRING);

    /* a later load overrides the same (target, opset) and adds a newer opset */
    assert_true(ops_load_file(&r, TEST_FIXTURES "/ops" "/custom_relu.yaml", &d));
    const op_rule *r18 = ops_lookup(&r, "aten.relu.default", 18);
    const op_rule *r20 = ops_lookup(&r, "aten.relu.default", 20);
    assert_string_equal(r18->alts[0].nodes[0].op_type, "Relu");
    assert_int_equal(r20->alts[0].nnodes, 3);
    assert_string_equal(r20->alts[0].nodes[2].op_type, "Max");
    assert_int_equal(r20->alts[0].nodes[0].attrs[0].type, LAT_FLOAT);

    strbuf sb;
    sb_init(&sb);
    ops_print_list(&r, &sb);
    assert_non_null(strstr(sb.s, "torch.ops.aten.gelu.default  (opset 20+, 18+)\n"));
    assert_non_null(strstr(sb.s, "2 ops\n"));
    sb_reset(&sb);
    assert_true(ops_print_rule(&r, "aten.gelu.default", &sb));
    assert_non_null(strstr(sb.s, "opset: 20"));
    assert_non_null(strstr(sb.s, "Gelu <approximate"));
    assert_false(ops_print_rule(&r, "aten.nope.default", &sb));
    /* `ops show` output is itself a loadable rule file */
    sb_reset(&sb);
    assert_true(ops_print_rule(&r, "aten.gelu.default", &sb));
    ops_registry r2;
    ops_registry_init(&r2);
    assert_true(ops_load_string(&r2, "shown.yaml", sb.s, sb.len, &d));
    assert_int_equal(ops_lookup(&r2, "aten.gelu.default", 20)->since_opset, 20);
    assert_int_equal(ops_lookup(&r2, "aten.gelu.default", 19)->alts[0].nnodes, 2);
    ops_registry_free(&r2);
    sb_free(&sb);
    diag_free(&d);
    ops_registry_free(&r);
}

static void test_errors(void **state)
{
    (void)state;
    ops_registry r;
    ops_registry_init(&r);
    diag_sink d;
    diag_init(&d);
    /* malformed YAML: position from libyaml */
    assert_false(load(&r, "rules:\n  - target: [a\n", &d));
    assert_int_equal(d.errors, 1);
    assert_int_equal(d.items[0].line, 3);
    assert_non_null(strstr(d.items[0].message, "YAML error"));
    diag_clear(&d);

    /* unknown key at its line:col */
    assert_false(load(&r, "rules:\n  - target: aten.relu.default\n    lowerin: x\n", &d));
    assert_int_equal(d.items[0].line, 3);
    assert_int_equal(d.items[0].col, 5);
    assert_non_null(strstr(d.items[0].message, "unknown key 'lowerin'"));
    assert_non_null(d.items[0].hint);
    diag_clear(&d);

    /* schema/target mismatch */
    assert_false(load(&r, "rules:\n  - target: aten.relu.default\n    schema: gelu(Tensor self) -> Tensor\n"
                          "    lowering: 'relu (self) => (r) { r = Relu (self) }'\n", &d));
    assert_non_null(strstr(d.items[0].message, "does not match target"));
    diag_clear(&d);

    /* error inside a block lowering: file line and column of the bad name */
    assert_false(ops_load_file(&r, TEST_FIXTURES "/ops" "/bad_lowering.yaml", &d));
    assert_int_equal(d.errors, 1);
    assert_int_equal(d.items[0].line, 7);
    assert_int_equal(d.items[0].col, 10);
    assert_non_null(strstr(d.items[0].message, "'selff' is used before it is defined"));
    diag_clear(&d);

    /* syntax error inside a one-line lowering: column inside the quoted scalar */
    assert_false(load(&r, "rules:\n  - target: aten.relu.default\n    schema: relu(Tensor self) -> Tensor\n"
                          "    lowering: 'relu (self) => (r) { r = Relu <a: int = > (self) }'\n", &d));
    assert_int_equal(d.items[0].line, 4);
    assert_int_equal(d.items[0].col, 16 + 40);   /* the stray "=" before ">" */
    assert_non_null(d.items[0].source_line);
    diag_clear(&d);

    /* @ref to an unknown argument; inputs must be schema arguments */
    assert_false(load(&r, "rules:\n  - target: aten.relu.default\n    schema: relu(Tensor self) -> Tensor\n"
                          "    lowering: 'relu (self) => (r) { r = Relu <a: int = @dim> (self) }'\n", &d));
    assert_non_null(strstr(d.items[0].message, "@dim is not an argument"));
    diag_clear(&d);
    assert_false(load(&r, "rules:\n  - target: aten.relu.default\n    schema: relu(Tensor self) -> Tensor\n"
                          "    lowering: 'relu (x) => (r) { r = Relu (x) }'\n", &d));
    assert_non_null(strstr(d.items[0].message, "'x' is not an argument"));
    diag_clear(&d);

    /* bad condition */
    assert_false(load(&r, "rules:\n  - target: aten.relu.default\n    schema: relu(Tensor self) -> Tensor\n"
                          "    when: rank(self) >> 2\n"
                          "    lowering: 'relu (self) => (r) { r = Relu (self) }'\n", &d));
    assert_int_equal(d.items[0].line, 4);
    assert_non_null(strstr(d.items[0].message, "bad condition"));
    diag_clear(&d);

    /* nothing from a failing file is loaded, even its good rules */
    assert_false(load(&r, "rules:\n  - target: aten.exp.default\n    schema: exp(Tensor self) -> Tensor\n"
                          "    lowering: 'exp (self) => (r) { r = Exp (self) }'\n  - 3\n", &d));
    assert_null(ops_lookup(&r, "aten.exp.default", 20));
    assert_int_equal(r.ntargets, 0);

    /* rank against another argument's rank: only + or - and an integer may follow */
    diag_clear(&d);
    assert_true(load(&r, "rules:\n  - target: aten.add.Tensor\n    schema: add.Tensor(Tensor self, Tensor other) -> Tensor\n"
                         "    when: rank(self) >= rank(other) + 1\n"
                         "    lowering: 'add (self, other) => (r) { r = Add (self, other) }'\n", &d));
    assert_int_equal(d.errors, 0);
    diag_clear(&d);
    assert_false(load(&r, "rules:\n  - target: aten.add.Tensor\n    schema: add.Tensor(Tensor self, Tensor other) -> Tensor\n"
                          "    when: rank(self) == rank(other) * 2\n"
                          "    lowering: 'add (self, other) => (r) { r = Add (self, other) }'\n", &d));
    assert_non_null(strstr(d.items[0].message, "expected + or -"));
    diag_clear(&d);
    assert_false(load(&r, "rules:\n  - target: aten.add.Tensor\n    schema: add.Tensor(Tensor self, Tensor other) -> Tensor\n"
                          "    when: rank(self) == rank(weight)\n"
                          "    lowering: 'add (self, other) => (r) { r = Add (self, other) }'\n", &d));
    assert_non_null(strstr(d.items[0].message, "not an argument"));
    diag_clear(&d);

    /* garbage does not crash */
    const char *junk[] = {"", "rules: 3", "- - -", "rules:\n  - {target: x, builtin: [1]}", "opset: -2\nrules: []",
                          "rules:\n  - target: aten.a.default\n    schema: a(Tensor x) -> Tensor\n    lowering: 'a (x) => (y) {'\n"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) load(&r, junk[i], &d);
    diag_free(&d);
    ops_registry_free(&r);
}

/* A rule without `schema:` binds by torch's (share/fxsh/aten/schemas.txt); a target torch does
 * not have needs one, and its absence is an error at the rule's line. */
static void test_schema_from_torch(void **state)
{
    (void)state;
    ops_registry r;
    ops_registry_init(&r);
    diag_sink d;
    diag_init(&d);
    assert_true(load(&r, "rules:\n  - target: aten.hardtanh.default\n"
                         "    when: min_val == -1.0\n"
                         "    lowering: 'hardtanh (self) => (result) { result = Clip (self) }'\n", &d));
    const op_rule *rule = ops_lookup(&r, "torch.ops.aten.hardtanh.default", 18);
    assert_non_null(rule);
    assert_true(rule->has_schema);
    assert_string_equal(rule->schema.text, "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor");
    assert_int_equal(aten_schema_find(&rule->schema, "max_val"), 2);
    ops_registry_free(&r);
    ops_registry_init(&r);
    assert_false(load(&r, "rules:\n  - target: aten.relu.default\n"
                          "    lowering: 'relu (self) => (result) { result = Relu (self) }'\n"
                          "  - target: prims.relu.default\n"
                          "    lowering: 'relu (self) => (result) { result = Relu (self) }'\n", &d));
    assert_int_equal(d.errors, 1);
    assert_string_equal(d.items[0].file, "t.yaml");
    assert_int_equal(d.items[0].line, 5);   /* the second rule's lowering */
    assert_non_null(strstr(d.items[0].message, "give the rule 'schema'"));
    ops_registry_free(&r);
    diag_free(&d);
}

static void test_select(void **state)
{
    (void)state;
    ops_registry r;
    ops_registry_init(&r);
    diag_sink d;
    diag_init(&d);
    assert_true(ops_load_file(&r, TEST_SHAREDIR "/translate/nn.yaml", &d));
    assert_true(ops_load_file(&r, TEST_SHAREDIR "/translate/core.yaml", &d));
    assert_int_equal(d.errors, 0);
    const op_rule *lin = ops_lookup(&r, "torch.ops.aten.linear.default", 20);
    assert_non_null(lin);
    assert_int_equal(lin->nalts, 3);
    arg_info args[3] = {{.kind = ARGK_TENSOR, .rank = 2, .dtype = "float32"},
                        {.kind = ARGK_TENSOR, .rank = 2}, {.kind = ARGK_TENSOR, .rank = 1}};
    const lowering *lw = ops_select(lin, args);
    assert_string_equal(lw->nodes[0].op_type, "Gemm");
    args[0].rank = 3;
    lw = ops_select(lin, args);
    assert_int_equal(lw->nnodes, 3);
    assert_string_equal(lw->nodes[2].op_type, "Add");
    args[2].kind = ARGK_NONE;
    lw = ops_select(lin, args);
    assert_int_equal(lw->nnodes, 2);
    args[0].rank = -1;                  /* unknown rank never satisfies rank(x) == 2 */
    args[2].kind = ARGK_TENSOR;
    assert_int_equal(ops_select(lin, args)->nnodes, 3);

    const op_rule *div = ops_lookup(&r, "aten.div.Tensor_mode", 18);
    arg_info da[3] = {{.kind = ARGK_TENSOR, .rank = 2, .dtype = "int32"}, {.kind = ARGK_TENSOR, .rank = 0},
                      {.kind = ARGK_STR, .sval = "floor"}};
    lw = ops_select(div, da);
    assert_int_equal(lw->nnodes, 5);
    da[0].dtype = "float32";
    assert_int_equal(ops_select(div, da)->nnodes, 2);
    da[2].kind = ARGK_NONE;
    assert_int_equal(ops_select(div, da)->nnodes, 1);

    const op_rule *mp = ops_lookup(&r, "aten.max_pool2d.default", 18);
    arg_info ma[6] = {{.kind = ARGK_TENSOR, .rank = 4}, {.kind = ARGK_LIST, .len = 2}, {.kind = ARGK_LIST, .len = 0}};
    assert_string_equal(ops_select(mp, ma)->nodes[0].attrs[1].ref, "kernel_size");
    ma[2].len = 2;
    assert_string_equal(ops_select(mp, ma)->nodes[0].attrs[1].ref, "stride");
    assert_string_equal(ops_select(mp, ma)->nodes[0].attrs[2].ref_fn, "pads");

    /* rank(input) == rank(weight) - 1: an unbatched convolution */
    const op_rule *cv = ops_lookup(&r, "aten.conv2d.default", 18);
    arg_info ca[7] = {{.kind = ARGK_TENSOR, .rank = 3}, {.kind = ARGK_TENSOR, .rank = 4}, {.kind = ARGK_NONE}};
    assert_string_equal(ops_select(cv, ca)->nodes[1].op_type, "Unsqueeze");
    ca[0].rank = 4;
    assert_string_equal(ops_select(cv, ca)->nodes[0].op_type, "Conv");
    ca[1].rank = -1;                    /* an unknown rank on either side never satisfies it */
    ca[0].rank = 3;
    assert_string_equal(ops_select(cv, ca)->nodes[0].op_type, "Conv");

    /* builtins are registered like table rules */
    const op_rule *tr = ops_lookup(&r, "aten.transpose.int", 20);
    assert_string_equal(tr->alts[0].builtin, "transpose");
    diag_free(&d);
    ops_registry_free(&r);
}

static void test_default_tables(void **state)
{
    (void)state;
    ops_registry r;
    ops_registry_init(&r);
    diag_sink d;
    diag_init(&d);
    setenv("FXSH_SHAREDIR", TEST_SHAREDIR, 1);
    assert_true(ops_load_default(&r, &d));
    assert_int_equal(d.errors, 0);
    assert_true(r.ntargets > 100);
    assert_non_null(ops_lookup(&r, "torch.ops.higher_order.cond", 20));
    assert_string_equal(ops_lookup(&r, "aten.gelu.default", 20)->alts[0].nodes[0].op_type, "Gelu");
    assert_string_equal(ops_lookup(&r, "aten.gelu.default", 18)->alts[1].nodes[7].op_type, "Erf");

    /* every shipped lowering is plain ONNX text: fxsh's ONNX parser reads it as a function with
     * the same nodes as the template */
    size_t checked = 0;
    for (size_t i = 0; i < r.ntargets; i++)
        for (const op_rule *x = ops_lookup(&r, r.targets[i], 1000); x; x = x->older)
            for (size_t k = 0; k < x->nalts; k++) {
                const lowering *lw = &x->alts[k];
                if (lw->builtin || lw->refuse) continue;
                arena a;
                arena_init(&a);
                Onnx__FunctionProto *f = ox_parse_function_proto(&a, lw->text, strlen(lw->text), x->file, &d);
                if (!f) fail_msg("%s:%d: lowering of %s is not ONNX text", x->file, lw->line, x->target);
                /* a `function:` is parsed as ONNX text already: the same nodes, names included */
                if (lw->function) {
                    assert_int_equal(f->n_node, lw->function->n_node);
                    for (size_t j = 0; j < f->n_node; j++) assert_string_equal(f->node[j]->name, lw->function->node[j]->name);
                }
                assert_int_equal(f->n_node, lw->function ? lw->function->n_node : lw->nnodes);
                assert_int_equal(f->n_input, lw->nparams);
                for (size_t j = 0; j < lw->nnodes; j++) assert_string_equal(f->node[j]->op_type, lw->nodes[j].op_type);
                arena_free(&a);
                checked++;
            }
    assert_true(checked > 100);
    diag_free(&d);
    ops_registry_free(&r);
}

/* Python-callable targets, derive out_dtype()/nonneg(), ScalarType conditions. */
static void test_callables_derive_dtype_conditions(void **state)
{
    (void)state;
    ops_registry r;
    ops_registry_init(&r);
    diag_sink d;
    diag_init(&d);
    const char *y =
        "rules:\n"
        "  - target: operator.mul\n"
        "    schema: mul(Scalar a, Scalar b) -> Scalar\n"
        "    lowering: 'mul (a, b) => (r) { r = Mul (a, b) }'\n"
        "  - target: aten.permute.default\n"
        "    schema: permute(Tensor(a) self, int[] dims) -> Tensor(a)\n"
        "    derive: {perm: nonneg(dims)}\n"
        "    lowering: 'permute (self) => (r) { r = Transpose <perm: ints = @perm> (self) }'\n"
        "  - target: aten.arange.default\n"
        "    schema: arange(Scalar end, *, ScalarType? dtype=None) -> Tensor\n"
        "    derive: {to: out_dtype()}\n"
        "    alternatives:\n"
        "      - when: dtype == torch.int64\n"
        "        lowering: 'arange (end) => (r) { r = Identity (end) }'\n"
        "      - lowering: 'arange (end) => (r) { r = Cast <to: int = @to> (end) }'\n";
    assert_true(load(&r, y, &d));
    assert_int_equal(d.errors, 0);
    assert_non_null(ops_lookup(&r, "operator.mul", 18));
    const op_rule *pm = ops_lookup(&r, "aten.permute.default", 18);
    assert_string_equal(pm->alts[0].nodes[0].attrs[0].ref_fn, "nonneg");
    const op_rule *ar = ops_lookup(&r, "aten.arange.default", 18);
    assert_string_equal(ar->alts[1].nodes[0].attrs[0].ref_fn, "out_dtype");
    assert_int_equal(ar->alts[1].nodes[0].attrs[0].ref_arg, -1);
    arg_info aa[2] = {{.kind = ARGK_INT, .ival = 5}, {.kind = ARGK_DTYPE, .dtype = "int64"}};
    assert_string_equal(ops_select(ar, aa)->nodes[0].op_type, "Identity");
    aa[1].dtype = "float32";
    assert_string_equal(ops_select(ar, aa)->nodes[0].op_type, "Cast");
    aa[1].kind = ARGK_NONE;
    assert_string_equal(ops_select(ar, aa)->nodes[0].op_type, "Cast");

    /* listing: callables as they are, operators with torch.ops. like FX prints them */
    strbuf sb;
    sb_init(&sb);
    ops_print_list(&r, &sb);
    assert_non_null(strstr(sb.s, "\noperator.mul  (opset 18+)\n"));
    assert_non_null(strstr(sb.s, "torch.ops.aten.permute.default  (opset 18+)\n"));
    sb_reset(&sb);
    assert_true(ops_print_rule(&r, "aten.arange.default", &sb));
    assert_non_null(strstr(sb.s, "derive: {to: out_dtype()}"));
    sb_free(&sb);

    /* a callable's schema names it; out_dtype takes no argument; nonneg needs one */
    assert_false(load(&r, "rules:\n  - target: operator.mul\n    schema: add(Scalar a, Scalar b) -> Scalar\n"
                          "    lowering: 'add (a, b) => (r) { r = Add (a, b) }'\n", &d));
    assert_non_null(strstr(d.items[0].message, "does not match target"));
    diag_clear(&d);
    assert_false(load(&r, "rules:\n  - target: aten.t.default\n    schema: t(Tensor self) -> Tensor\n"
                          "    derive: {to: out_dtype(self)}\n"
                          "    lowering: 't (self) => (r) { r = Cast <to: int = @to> (self) }'\n", &d));
    assert_non_null(strstr(d.items[0].message, "bad derive expression 'out_dtype(self)'"));
    diag_clear(&d);
    assert_false(load(&r, "rules:\n  - target: aten.t.default\n    schema: t(Tensor self, int[] dims) -> Tensor\n"
                          "    derive: {p: nonneg()}\n"
                          "    lowering: 't (self) => (r) { r = Transpose <perm: ints = @p> (self) }'\n", &d));
    assert_non_null(strstr(d.items[0].message, "bad derive expression"));
    diag_free(&d);
    ops_registry_free(&r);
}

/* merge_dims: which list arguments are built as torchlib's merge_dims, shown by `ops show`, and
 * errors that name the argument and the choices. */
static void test_merge_dims_key(void **state)
{
    (void)state;
    ops_registry r;
    ops_registry_init(&r);
    diag_sink d;
    diag_init(&d);
    assert_true(load(&r, "rules:\n  - target: aten.expand.default\n"
                         "    schema: expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)\n"
                         "    merge_dims: {size: minus_one_as_one}\n"
                         "    lowering: 'expand (self, size) => (r) { r = Expand (self, size) }'\n", &d));
    const op_rule *ex = ops_lookup(&r, "aten.expand.default", 18);
    assert_int_equal(ex->merge_dims, 2);
    assert_int_equal(ex->merge_dims_minus_one_as_one, 2);
    strbuf sb;
    sb_init(&sb);
    assert_true(ops_print_rule(&r, "aten.expand.default", &sb));
    assert_non_null(strstr(sb.s, "  merge_dims: {size: minus_one_as_one}\n"));
    sb_free(&sb);
    assert_false(load(&r, "rules:\n  - target: aten.t.default\n    schema: t(Tensor self) -> Tensor\n"
                          "    merge_dims: {self: as_is}\n"
                          "    lowering: 't (self) => (r) { r = Identity (self) }'\n", &d));
    assert_non_null(strstr(d.items[0].message, "merge_dims: 'self' is not a list argument"));
    diag_clear(&d);
    assert_false(load(&r, "rules:\n  - target: aten.view.default\n    schema: view(Tensor self, SymInt[] size) -> Tensor\n"
                          "    merge_dims: {size: flatten}\n"
                          "    lowering: 'view (self, size) => (r) { r = Reshape (self, size) }'\n", &d));
    assert_non_null(strstr(d.items[0].message, "unknown element rule 'flatten'"));

    diag_free(&d);
    ops_registry_free(&r);
}

/* `function:` rules: torchlib's function in ONNX text, its inputs and attributes bound to the
 * schema (defaults kept), errors at their line in the YAML file. */
static void test_function_key(void **state)
{
    (void)state;
    ops_registry r;
    ops_registry_init(&r);
    diag_sink d;
    diag_init(&d);
    assert_true(load(&r, "rules:\n  - target: aten.glu.default\n    schema: glu(Tensor self, int dim=-1) -> Tensor\n"
                         "    function: |\n"
                         "      <domain: \"pkg.onnxscript.torch_lib\", opset_import: [\"\" : 18]>\n"
                         "      aten_glu <dim: int = -1> (self) => (result) {\n"
                         "         [n0] first, second = Split <num_outputs: int = 2, axis: int = @dim> (self)\n"
                         "         [n1] tmp = Sigmoid (second)\n"
                         "         [n2] result = Mul (first, tmp)\n"
                         "      }\n", &d));
    const op_rule *g = ops_lookup(&r, "aten.glu.default", 18);
    assert_non_null(g);
    const lowering *lw = &g->alts[0];
    assert_non_null(lw->function);
    assert_string_equal(lw->fn_name, "aten_glu");
    assert_int_equal(lw->nparams, 1);
    assert_int_equal(lw->param_args[0], 0);
    assert_int_equal(lw->nresults, 1);
    assert_string_equal(lw->results[0], "result");
    assert_int_equal(lw->nfn_attrs, 1);
    assert_string_equal(lw->fn_attrs[0].name, "dim");
    assert_int_equal(lw->fn_attrs[0].ref_arg, 1);
    assert_int_equal(lw->function->n_node, 3);
    assert_string_equal(lw->function->node[1]->name, "n1");
    assert_int_equal(lw->function->n_attribute_proto, 1);
    strbuf sb;
    sb_init(&sb);
    assert_true(ops_print_rule(&r, "aten.glu.default", &sb));
    assert_non_null(strstr(sb.s, "  function: |\n    <domain: \"pkg.onnxscript.torch_lib\""));
    sb_free(&sb);

    /* an input that is no schema argument; an undeclared @ref; a value used before it is defined
     * (at its line of the file); an ONNX syntax error (at its line and column of the file) */
    static const char *const bad[][2] = {
        {"      f (x) => (r) {\n         [n0] r = Relu (x)\n      }\n", "function input 'x' is not an argument"},
        {"      f (self) => (r) {\n         [n0] r = LeakyRelu <alpha: float = @a> (self)\n      }\n",
         "@a is not an attribute of the function"},
        {"      f (self) => (r) {\n         [n0] r = Relu (t)\n      }\n", "'t' is used before it is defined"},
        {"      f (self) => (r) {\n         [n0] r = Relu <a: int = > (self)\n      }\n", NULL},
        {"      f <alpha> (self) => (r) {\n         [n0] r = Relu (self)\n      }\n",
         "function attribute 'alpha' is not an argument of the schema"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[512];
        snprintf(text, sizeof text, "rules:\n  - target: aten.relu.default\n    schema: relu(Tensor self) -> Tensor\n"
                                    "    function: |\n%s", bad[i][0]);
        assert_false(load(&r, text, &d));
        assert_true(d.errors >= 1);
        if (bad[i][1]) assert_non_null(strstr(d.items[0].message, bad[i][1]));
        else {
            assert_int_equal(d.items[0].line, 6);           /* the node's line in the file */
            assert_int_equal(d.items[0].col, 6 + 28);      /* the ">" where the value should be */
        }
        diag_clear(&d);
    }
    assert_null(ops_lookup(&r, "aten.relu.default", 18));
    assert_false(load(&r, "rules:\n  - target: aten.relu.default\n    schema: relu(Tensor self) -> Tensor\n"
                          "    function: 'f (self) => (r) { [n0] r = Relu (self) }'\n"
                          "    lowering: 'relu (self) => (r) { r = Relu (self) }'\n", &d));
    assert_non_null(strstr(d.items[0].message, "exactly one of 'lowering', 'function', 'builtin' or 'refuse'"));
    diag_free(&d);
    ops_registry_free(&r);
}

/* Each target and opset is defined by one shipped file: a second definition would silently
 * replace the first (files load in name order), so the tables must not rely on it. */
static void test_shipped_rules_unique(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/translate", TEST_SHAREDIR);
    DIR *dh = opendir(dir);
    assert_non_null(dh);
    const char *files[64];
    size_t nfiles = 0;
    struct dirent *e;
    arena keys;
    arena_init(&keys);
    while ((e = readdir(dh)) && nfiles < 64) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".yaml")) files[nfiles++] = arena_strdup(&keys, e->d_name);
    }
    closedir(dh);
    assert_true(nfiles >= 9);
    hashmap seen;
    hm_init(&seen);
    diag_sink d;
    diag_init(&d);
    size_t dup = 0;
    for (size_t f = 0; f < nfiles; f++) {
        ops_registry r;
        ops_registry_init(&r);
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        assert_true(ops_load_file(&r, path, &d));
        for (size_t i = 0; i < r.ntargets; i++)
            for (const op_rule *x = ops_lookup(&r, r.targets[i], 1000); x; x = x->older) {
                const char *k = arena_printf(&keys, "%s@%d", x->target, x->since_opset);
                const char *prev = hm_get(&seen, k);
                if (prev) {
                    fprintf(stderr, "%s (opset %d) is defined in %s and %s\n", x->target, x->since_opset, prev,
                            files[f]);
                    dup++;
                } else {
                    hm_put(&seen, k, (void *)files[f]);
                }
            }
        ops_registry_free(&r);
    }
    assert_int_equal(dup, 0);
    hm_free(&seen);
    arena_free(&keys);
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_parse),
        cmocka_unit_test(test_load_and_lookup),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_schema_from_torch),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_default_tables),
        cmocka_unit_test(test_callables_derive_dtype_conditions),
        cmocka_unit_test(test_merge_dims_key),
        cmocka_unit_test(test_function_key),
        cmocka_unit_test(test_shipped_rules_unique),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
