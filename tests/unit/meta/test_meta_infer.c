/* test_meta_infer.c — meta inference on small hand-written programs: torch's dtype promotion
 * (torch.result_type: categories bool < int < float, dimensioned tensors over zero-dim tensors
 * over Python scalars), broadcasting, TensorIterator strides, SymInt sizes, views, HOPs, and
 * what happens to nodes it cannot infer. Expected values follow torch's documented semantics
 * (docs "Type promotion", "Broadcasting semantics"), not fxsh output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "fx/fx.h"
#include "load/load.h"
#include "meta/meta_infer.h"
#include "meta/meta_internal.h"

typedef struct run {
    fx_program *p;
    diag_sink d;
    strbuf code;                /* the program as print_readable() shows it after inference */
    bool all;                   /* meta_infer_program's result */
} run;

/* Loads readable code whose placeholders carry annotations, then infers the rest. */
static void infer(run *r, const char *text)
{
    diag_init(&r->d);
    sb_init(&r->code);
    r->p = fxp_parse_code_text(text, strlen(text), "test.py", &r->d);
    if (!r->p) {
        diag_render_all(&r->d, stderr, NULL, false);
        fail_msg("test program does not parse");
    }
    r->all = meta_infer_program(r->p, &r->d);
    fx_print(r->p, FX_FORM_CODE, &r->code);
}

static void done(run *r)
{
    fx_program_free(r->p);
    diag_free(&r->d);
    sb_free(&r->code);
}

/* The node is annotated exactly so in print_readable() (name: "annot"). */
static void expect(run *r, const char *name, const char *annot)
{
    char want[256];
    snprintf(want, sizeof want, "        %s: \"%s\" = ", name, annot);
    if (!strstr(r->code.s, want))
        fail_msg("%%%s: want \"%s\" in\n%s", name, annot, r->code.s);
}

static void expect_strides(run *r, const char *name, const char *strides)
{
    fx_node *n = fx_program_find_node(r->p, name);
    assert_non_null(n);
    assert_non_null(n->meta.val);
    assert_non_null(n->meta.val->strides);
    strbuf sb;
    sb_init(&sb);
    for (size_t i = 0; i < n->meta.val->rank; i++)
        sb_printf(&sb, "%s%s", i ? ", " : "", n->meta.val->strides[i]);
    if (strcmp(sb.s ? sb.s : "", strides))
        fail_msg("%%%s: strides [%s], want [%s]", name, sb.s ? sb.s : "", strides);
    sb_free(&sb);
}

static bool has_report(run *r, diag_severity sev, const char *needle)
{
    for (size_t i = 0; i < r->d.len; i++)
        if (r->d.items[i].severity == sev && strstr(r->d.items[i].message, needle))
            return true;
    return false;
}

/* what fxsh cannot infer is a note; arguments a rule rejects though all are known (the example
 * does not fit the op) a warning */
static bool has_note(run *r, const char *needle) { return has_report(r, DIAG_NOTE, needle); }
static bool has_warning(run *r, const char *needle) { return has_report(r, DIAG_WARNING, needle); }

#define PROGRAM(params, body) \
    "class GraphModule(torch.nn.Module):\n    def forward(self, " params "):\n" body

static void promotion_categories(void **state)
{
    (void)state;
    run r;
    infer(&r, PROGRAM("i: \"i32[3]\", l0: \"i64[]\", f0: \"f32[]\", u: \"u8[3]\", b: \"b8[3]\", h: \"f16[3]\", "
                      "d0: \"f64[]\", s8: \"i8[3]\", bf: \"bf16[3]\", d: \"f64[3]\"",
                      "        a1 = torch.ops.aten.add.Tensor(i, f0)\n"       /* zero-dim float lifts int: f32 */
                      "        a2 = torch.ops.aten.add.Tensor(i, l0)\n"       /* same category: dims win, i32 */
                      "        a3 = torch.ops.aten.add.Tensor(u, 5)\n"        /* Python int: u8 stays */
                      "        a4 = torch.ops.aten.add.Tensor(i, 2.5)\n"      /* Python float: default float32 */
                      "        a5 = torch.ops.aten.add.Tensor(b, 1)\n"        /* bool + int → int64 */
                      "        a6 = torch.ops.aten.add.Tensor(b, True)\n"     /* bool stays bool */
                      "        a7 = torch.ops.aten.add.Tensor(h, d0)\n"       /* same category: f16 */
                      "        a8 = torch.ops.aten.add.Tensor(u, s8)\n"       /* uint8 + int8 → int16 */
                      "        a9 = torch.ops.aten.add.Tensor(bf, h)\n"       /* bfloat16 + float16 → float32 */
                      "        a10 = torch.ops.aten.mul.Tensor(i, d)\n"       /* both dimensioned: float64 */
                      "        a11 = torch.ops.aten.add.Tensor(l0, 1)\n"      /* 0-d int64 + int: int64 */
                      "        a12 = torch.ops.aten.add.Tensor(f0, d0)\n"     /* two 0-d: float64 */
                      "        return (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)\n"));
    assert_true(r.all);
    expect(&r, "a1", "f32[3]");
    expect(&r, "a2", "i32[3]");
    expect(&r, "a3", "u8[3]");
    expect(&r, "a4", "f32[3]");
    expect(&r, "a5", "i64[3]");
    expect(&r, "a6", "b8[3]");
    expect(&r, "a7", "f16[3]");
    expect(&r, "a8", "i16[3]");
    expect(&r, "a9", "f32[3]");
    expect(&r, "a10", "f64[3]");
    expect(&r, "a11", "i64[]");
    expect(&r, "a12", "f64[]");
    done(&r);
}

static void promotion_kinds(void **state)
{
    (void)state;
    run r;
    infer(&r, PROGRAM("l: \"i64[3]\", f: \"f32[2, 3]\", i: \"i32[3, 4]\", c: \"b8[3, 1]\", q: \"i32[4]\", "
                      "z: \"f32[]\", x: \"c64[3]\"",
                      "        div = torch.ops.aten.div.Tensor(l, 2)\n"                               /* true div: f32 */
                      "        fdiv = torch.ops.aten.div.Tensor_mode(l, 2, rounding_mode = 'floor')\n" /* stays i64 */
                      "        gt = torch.ops.aten.gt.Scalar(f, 0)\n"
                      "        exp = torch.ops.aten.exp.default(l)\n"                                 /* INT_TO_FLOAT */
                      "        s = torch.ops.aten.sum.default(i)\n"                                   /* ints sum in i64 */
                      "        s16 = torch.ops.aten.sum.dim_IntList(i, [1], dtype = torch.float16)\n"
                      "        where = torch.ops.aten.where.self(c, q, z)\n"
                      "        am = torch.ops.aten.argmax.default(f, 1, True)\n"
                      "        ab = torch.ops.aten.abs.default(x)\n"                                  /* complex → real */
                      "        cast = torch.ops.aten._to_copy.default(f, dtype = torch.int32)\n"
                      "        full = torch.ops.aten.full.default([2], 7)\n"                          /* int fill: i64 */
                      "        ar = torch.ops.aten.arange.start_step(0, 5, 2)\n"
                      "        return (div, fdiv, gt, exp, s, s16, where, am, ab, cast, full, ar)\n"));
    assert_true(r.all);
    expect(&r, "div", "f32[3]");
    expect(&r, "fdiv", "i64[3]");
    expect(&r, "gt", "b8[2, 3]");
    expect(&r, "exp", "f32[3]");
    expect(&r, "s", "i64[]");
    expect(&r, "s16", "f16[3]");
    expect(&r, "where", "f32[3, 4]");
    expect(&r, "am", "i64[2, 1]");
    expect(&r, "ab", "f32[3]");
    expect(&r, "cast", "i32[2, 3]");
    expect(&r, "full", "i64[2]");
    expect(&r, "ar", "i64[3]");
    done(&r);
}

static void broadcasting(void **state)
{
    (void)state;
    run r;
    infer(&r, PROGRAM("a: \"f32[3, 1]\", b: \"f32[4]\", c: \"f32[2, 1, 5]\", s: \"f32[s0, 1]\", t: \"f32[1, 4]\", "
                      "e: \"f32[3]\"",
                      "        ab = torch.ops.aten.add.Tensor(a, b)\n"
                      "        ca = torch.ops.aten.mul.Tensor(c, a)\n"
                      "        st = torch.ops.aten.sub.Tensor(s, t)\n"
                      "        bad = torch.ops.aten.add.Tensor(e, b)\n"
                      "        return (ab, ca, st, bad)\n"));
    expect(&r, "ab", "f32[3, 4]");
    expect(&r, "ca", "f32[2, 3, 5]");
    expect(&r, "st", "f32[s0, 4]");
    /* 3 vs 4 does not broadcast: left unset, reported as a warning naming the node */
    assert_false(r.all);
    assert_true(strstr(r.code.s, "        bad = torch.ops.aten.add.Tensor") != NULL);
    assert_true(has_warning(&r, "sizes 3 and 4 do not broadcast: %bad"));
    assert_false(diag_has_errors(&r.d));
    done(&r);
}

static void strides(void **state)
{
    (void)state;
    run r;
    infer(&r, PROGRAM("x: \"f32[3, 4]\", y: \"f32[4, 3]\", q: \"f32[2, 3, 4]\"",
                      "        t = torch.ops.aten.t.default(x)\n"
                      "        add = torch.ops.aten.add.Tensor(t, y)\n"   /* follows the first input's layout */
                      "        add2 = torch.ops.aten.add.Tensor(y, t)\n"
                      "        e = torch.ops.aten.expand.default(x, [2, 3, 4])\n"
                      "        p = torch.ops.aten.permute.default(q, [2, 0, 1])\n"
                      "        c = torch.ops.aten.clone.default(p)\n"       /* preserve_format keeps the layout */
                      "        v = torch.ops.aten.view.default(p, [4, 6])\n"
                      "        sl = torch.ops.aten.slice.Tensor(q, 2, 1, 9223372036854775807, 2)\n"
                      "        sel = torch.ops.aten.select.int(q, 1, -1)\n"
                      "        u = torch.ops.aten.unsqueeze.default(sl, 1)\n"
                      "        return (add, add2, e, c, v, u, sel)\n"));
    assert_true(r.all);
    expect(&r, "t", "f32[4, 3]");
    expect_strides(&r, "t", "1, 4");
    expect_strides(&r, "add", "1, 4");
    expect_strides(&r, "add2", "3, 1");
    expect_strides(&r, "e", "0, 4, 1");
    expect(&r, "p", "f32[4, 2, 3]");
    expect_strides(&r, "p", "1, 12, 4");
    expect_strides(&r, "c", "1, 12, 4");
    expect(&r, "v", "f32[4, 6]");
    expect_strides(&r, "v", "1, 4");
    expect(&r, "sl", "f32[2, 3, 2]");
    expect_strides(&r, "sl", "12, 4, 2");
    expect(&r, "sel", "f32[2, 4]");
    expect_strides(&r, "sel", "12, 1");
    expect(&r, "u", "f32[2, 1, 3, 2]");
    expect_strides(&r, "u", "12, 12, 4, 2");
    done(&r);
}

static void symbolic_sizes(void **state)
{
    (void)state;
    run r;
    infer(&r, PROGRAM("x: \"f32[s77, 2, 3]\", img: \"f32[1, 3, s0, s1]\", w: \"f32[8, 3, 3, 3]\", y: \"f32[s77, 6]\"",
                      "        n = torch.ops.aten.sym_size.int(x, 0)\n"
                      "        n2 = n * 2\n"
                      "        n1 = n + 1\n"
                      "        v = torch.ops.aten.view.default(x, [n, -1])\n"
                      "        cat = torch.ops.aten.cat.default([v, y])\n"
                      "        r = torch.ops.aten.reshape.default(cat, [-1])\n"
                      "        conv = torch.ops.aten.conv2d.default(img, w, None, [2, 2], [1, 1])\n"
                      "        pool = torch.ops.aten.max_pool2d.default(img, [2, 2], [2, 2], [0, 0], [1, 1], True)\n"
                      "        f = torch.ops.aten.full.default([n1, n2], 0.5)\n"
                      "        sz = torch.ops.aten.sym_size.default(img)\n"   /* x.size(): a list of SymInts */
                      "        h = sz[2]\n"
                      "        e = torch.ops.aten.expand.default(y, [h, n, 6])\n"
                      "        ar = torch.ops.aten.arange.start_step(1, n1)\n"
                      "        ar2 = torch.ops.aten.arange.start_step(0, n, 2)\n"
                      "        arf = torch.ops.aten.arange.start_step(0, 1.0, 0.25)\n"
                      "        return (r, conv, pool, f, e, ar, ar2, arf)\n"));
    assert_true(r.all);
    expect(&r, "n", "Sym(s77)");
    expect(&r, "n2", "Sym(2*s77)");
    expect(&r, "n1", "Sym(s77 + 1)");
    expect(&r, "v", "f32[s77, 6]");
    expect(&r, "cat", "f32[2*s77, 6]");
    expect(&r, "r", "f32[12*s77]");
    /* conv: (H + 2*1 - 1*(3 - 1) - 1) // 2 + 1, printed as torch prints FloorDiv */
    expect(&r, "conv", "f32[1, 8, (((s0 - 1)//2)) + 1, (((s1 - 1)//2)) + 1]");
    /* ceil_mode: (H - 2 + 1) // 2 + 1 */
    expect(&r, "pool", "f32[1, 3, (((s0 - 1)//2)) + 1, (((s1 - 1)//2)) + 1]");
    expect(&r, "f", "f32[s77 + 1, 2*s77]");
    expect(&r, "h", "Sym(s0)");
    expect(&r, "e", "f32[s0, s77, 6]");
    expect_strides(&r, "e", "0, 6, 1");
    expect(&r, "ar", "i64[s77]");
    expect(&r, "ar2", "i64[((s77 + 1)//2)]");
    expect(&r, "arf", "f32[4]");
    expect_strides(&r, "cat", "6, 1");
    done(&r);
}

static void multi_output_and_hops(void **state)
{
    (void)state;
    run r;
    infer(&r, PROGRAM("x: \"f32[4, 6]\", i: \"i64[]\"",
                      "        sp = torch.ops.aten.split.Tensor(x, 4, 1)\n"
                      "        g0 = sp[0]\n"
                      "        g1 = sp[1]\n"
                      "        tk = torch.ops.aten.topk.default(x, 2)\n"
                      "        idx = tk[1]\n"
                      "        s = torch.ops.aten.sum.default(x)\n"
                      "        gt = torch.ops.aten.gt.Scalar(s, 0)\n"
                      "        true_graph_0 = self.true_graph_0\n"
                      "        false_graph_0 = self.false_graph_0\n"
                      "        cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (g1, i))\n"
                      "        c0 = cond[0]\n"
                      "        return (g0, idx, c0)\n"
                      "\n"
                      "    class true_graph_0(torch.nn.Module):\n"
                      "        def forward(self, a, b):\n"
                      "            mul = torch.ops.aten.mul.Tensor(a, b)\n"
                      "            return (mul,)\n"
                      "\n"
                      "    class false_graph_0(torch.nn.Module):\n"
                      "        def forward(self, a, b):\n"
                      "            neg = torch.ops.aten.neg.default(a)\n"
                      "            return (neg,)\n"));
    assert_true(r.all);
    expect(&r, "g0", "f32[4, 4]");
    expect_strides(&r, "g0", "6, 1");
    expect(&r, "g1", "f32[4, 2]");
    expect(&r, "idx", "i64[4, 2]");
    expect(&r, "c0", "f32[4, 2]");
    /* the branches' placeholders took the operands' meta, and their nodes were inferred */
    assert_non_null(strstr(r.code.s, "def forward(self, a: \"f32[4, 2]\", b: \"i64[]\"):"));
    assert_non_null(strstr(r.code.s, "mul: \"f32[4, 2]\" = torch.ops.aten.mul.Tensor(a, b)"));
    done(&r);
}

static void unknown_and_missing(void **state)
{
    (void)state;
    run r;
    infer(&r, PROGRAM("x: \"f32[3]\", y",
                      "        foo = torch.ops.aten.foo.default(x)\n"
                      "        relu = torch.ops.aten.relu.default(foo)\n"
                      "        bar = torch.ops.aten.foo.default(x)\n"
                      "        add = torch.ops.aten.add.Tensor(x, y)\n"
                      "        ok = torch.ops.aten.relu.default(x)\n"
                      "        return (relu, bar, add, ok)\n"));
    assert_false(r.all);
    assert_false(diag_has_errors(&r.d));
    /* one note per root cause, naming the nodes; dependents are counted, not blamed */
    assert_true(has_note(&r, "no meta rule for torch.ops.aten.foo.default: %foo, %bar"));
    assert_true(has_note(&r, "placeholder without value meta: %y"));
    assert_true(has_note(&r, "2 more nodes left without value meta because an input has none"));
    expect(&r, "ok", "f32[3]");
    fx_node *relu = fx_program_find_node(r.p, "relu");
    assert_non_null(relu);
    assert_null(relu->meta.val);
    done(&r);
}

/* Arguments a rule must refuse: each node is left without meta and reported; nothing crashes
 * and nothing is an error. */
static void hostile_arguments(void **state)
{
    (void)state;
    run r;
    infer(&r, PROGRAM("x: \"f32[3, 4]\", z: \"f32[]\", w2: \"f32[8, 3]\", s: \"f32[s0, 4]\"",
                      "        v1 = torch.ops.aten.view.default(x, [3, 'a'])\n"
                      "        v2 = torch.ops.aten.view.default(x, [5, -1])\n"
                      "        v3 = torch.ops.aten.view.default(x, [-1, -1])\n"
                      "        p1 = torch.ops.aten.permute.default(x, [0])\n"
                      "        p2 = torch.ops.aten.permute.default(x, [0, 0])\n"
                      "        sl = torch.ops.aten.slice.Tensor(x, 0, 0, 2, 0)\n"
                      "        c1 = torch.ops.aten.convolution.default(x, w2, None, [1], [0], [1], False, [0], 1)\n"
                      "        cat = torch.ops.aten.cat.default([])\n"
                      "        pool = torch.ops.aten.max_pool2d.default(x, [])\n"
                      "        sel = torch.ops.aten.select.int(z, 0, 0)\n"
                      "        sel2 = torch.ops.aten.select.int(x, 0, 7)\n"
                      "        un = torch.ops.aten.unsqueeze.default(x, 9)\n"
                      "        sp = torch.ops.aten.split.Tensor(x, 0)\n"
                      "        ch = torch.ops.aten.chunk.default(x, 0)\n"
                      "        ar = torch.ops.aten.arange.start_step(0, 5, 0)\n"
                      "        ar2 = torch.ops.aten.arange.start_step(0.0, 1e300, 1e-300)\n"
                      "        g1 = sp[9]\n"
                      "        g2 = x[0]\n"
                      "        ex = torch.ops.aten.expand.default(x, [4])\n"
                      "        ex2 = torch.ops.aten.expand.default(x, [3, 5])\n"
                      "        mm = torch.ops.aten.mm.default(x, x)\n"
                      "        fl = torch.ops.aten.flatten.using_ints(x, 1, 0)\n"
                      "        r = torch.ops.aten.sum.dim_IntList(x, [5])\n"
                      "        ff = torch.ops.aten.full.default([-2], 1.0)\n"
                      "        kw = torch.ops.aten.relu.default(x, bogus = 1)\n"
                      "        many = torch.ops.aten.relu.default(x, x, x)\n"
                      "        noargs = torch.ops.aten.relu.default()\n"
                      "        sa = 1.5 * z\n"
                      "        sb = torch.ops.aten.sym_size.int(x, 4)\n"
                      "        ss = torch.ops.aten.split_with_sizes.default(x, [1, 1])\n"
                      "        up = torch.ops.aten.upsample_nearest2d.vec(x, None, None)\n"
                      "        big = torch.ops.aten.full.default([9223372036854775807, 9223372036854775807], 1.0)\n"
                      "        bigr = torch.ops.aten.reshape.default(big, [-1])\n"
                      "        ix = torch.ops.aten.index.Tensor(x, [z, z, z])\n"
                      "        idx2 = torch.ops.aten.index.Tensor(s, [None])\n"
                      "        tr = torch.ops.aten.transpose.int(z, 0, 1)\n"
                      "        emb = torch.ops.aten.embedding.default(z, x)\n"
                      "        true_graph_0 = self.nothere\n"
                      "        cond = torch.ops.higher_order.cond(z, true_graph_0, true_graph_0, (x,))\n"
                      "        wl = torch.ops.higher_order.while_loop(x)\n"
                      "        sc = torch.ops.higher_order.scan(x, 1, 2, 3)\n"
                      "        return (v1,)\n"));
    assert_false(r.all);
    assert_false(diag_has_errors(&r.d));
    static const char *const unset[] = { "v1", "v2", "v3", "p1", "p2", "sl", "c1", "cat", "pool", "sel", "sel2", "un", "ch", "ar", "ar2", "g1", "g2", "ex", "ex2", "mm", "fl", "r", "ff", "kw", "many", "noargs", "sa", "sb", "ss", "up", "bigr", "ix", "tr", "emb", "cond", "wl", "sc" };
    for (size_t i = 0; i < sizeof unset / sizeof *unset; i++) {
        fx_node *n = fx_program_find_node(r.p, unset[i]);
        assert_non_null(n);
        if (n->meta.val)
            fail_msg("%%%s got meta", unset[i]);
    }
    assert_true(has_warning(&r, "shapes cannot be multiplied (inner sizes 4 and 3): %mm"));
    assert_true(has_warning(&r, "only one dimension can be inferred: %v3"));
    assert_true(has_note(&r, "a branch or body subgraph is missing: %cond"));
    done(&r);
}

static void existing_meta_is_kept(void **state)
{
    (void)state;
    run r;
    /* a recorded meta is trusted and feeds its users, even if a rule would say otherwise */
    infer(&r, PROGRAM("x: \"f32[3]\"",
                      "        a: \"f64[5]\" = torch.ops.aten.relu.default(x)\n"
                      "        b = torch.ops.aten.neg.default(a)\n"
                      "        return (b,)\n"));
    assert_true(r.all);
    expect(&r, "a", "f64[5]");
    expect(&r, "b", "f64[5]");
    done(&r);
}

static fx_node *node(fx_program *p, const char *name, fx_opcode op, const char *target, fx_arg **args, size_t n)
{
    fx_graph *g = fx_program_graph(p);
    fx_node *x = fx_node_new(g, name, op, target ? target : name);
    fx_graph_append(g, x);
    fx_node_set_args(x, fx_arg_seq(p, FX_ARG_TUPLE, args, NULL, n), fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
    return x;
}

/* Parameters and buffers named by the graph signature take their meta from the weights table;
 * one whose shape is unknown (rank 0 without data, as export records a parameter it only knows
 * by name) is reported, not guessed. */
static void weights_fill_placeholders(void **state)
{
    (void)state;
    fx_program *p = fx_program_new(NULL);
    fx_node *w = node(p, "p_fc_weight", FX_OP_PLACEHOLDER, NULL, NULL, 0);
    fx_node *u = node(p, "p_fc_bias", FX_OP_PLACEHOLDER, NULL, NULL, 0);
    fx_node *x = node(p, "x", FX_OP_PLACEHOLDER, NULL, NULL, 0);
    x->meta.val = fx_value_new(p, FX_VAL_TENSOR);
    x->meta.val->dtype = FX_DT_F32;
    x->meta.val->rank = 2;
    x->meta.val->sizes = fx_alloc(p, 2 * sizeof(char *));
    x->meta.val->sizes[0] = "2";
    x->meta.val->sizes[1] = "3";
    fx_arg *la[2] = { fx_arg_node(p, x), fx_arg_node(p, w) };
    fx_node *lin = node(p, "linear", FX_OP_CALL_FUNCTION, "torch.ops.aten.linear.default", la, 2);
    fx_arg *ba[2] = { fx_arg_node(p, lin), fx_arg_node(p, u) };
    fx_node *add = node(p, "add", FX_OP_CALL_FUNCTION, "torch.ops.aten.add.Tensor", ba, 2);
    fx_arg *oa[1] = { fx_arg_node(p, add) };
    node(p, "output", FX_OP_OUTPUT, "output", oa, 1);
    fx_program_refresh(p);
    static const int64_t shape[2] = { 4, 3 };
    fx_program_add_weight(p, "fc.weight", FX_TENSOR_PARAMETER, FX_DT_F32, shape, 2, NULL, 0, false);
    fx_program_add_weight(p, "fc.bias", FX_TENSOR_PARAMETER, FX_DT_F32, NULL, 0, NULL, 0, false);
    p->sig.inputs = fx_alloc(p, 3 * sizeof *p->sig.inputs);
    p->sig.inputs[0] = (fx_input_spec){ FX_IN_PARAMETER, "p_fc_weight", "fc.weight", false };
    p->sig.inputs[1] = (fx_input_spec){ FX_IN_PARAMETER, "p_fc_bias", "fc.bias", false };
    p->sig.inputs[2] = (fx_input_spec){ FX_IN_USER_INPUT, "x", NULL, false };
    p->sig.n_inputs = 3;
    p->sig.present = true;
    diag_sink d;
    diag_init(&d);
    assert_false(meta_infer_program(p, &d));
    assert_non_null(w->meta.val);
    assert_int_equal(w->meta.val->rank, 2);
    assert_string_equal(w->meta.val->sizes[0], "4");
    assert_string_equal(w->meta.val->strides[0], "3");
    assert_non_null(lin->meta.val);
    assert_string_equal(lin->meta.val->sizes[1], "4");
    assert_null(u->meta.val);
    assert_null(add->meta.val);
    bool noted = false;
    for (size_t i = 0; i < d.len; i++)
        noted |= strstr(d.items[i].message, "parameter or buffer of unknown shape: %p_fc_bias") != NULL;
    assert_true(noted);
    diag_free(&d);
    fx_program_free(p);
}

/* meta_infer_call: the meta a call would have, without adding it to the graph; what cannot be
 * inferred is NULL and nothing is reported. */
static void call_not_in_graph(void **state)
{
    (void)state;
    meta_rules rules;
    meta_rules_init(&rules);
    diag_sink d;
    diag_init(&d);
    assert_true(meta_rules_load_default(&rules, &d));
    static const char prog[] = PROGRAM("x: \"f32[s0, 1, 4]\", y: \"i64[3, 1]\"", "        return (x,)\n");
    fx_program *p = fxp_parse_code_text(prog, strlen(prog), "t.py", &d);
    assert_non_null(p);
    fx_graph *g = fx_program_graph(p);
    size_t before = g->n_nodes;
    fx_node *x = fx_program_find_node(p, "x"), *y = fx_program_find_node(p, "y");
    fx_arg *kw = fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0);
    /* broadcast [s0, 1, 4] with [3, 1], promoted to float32, TensorIterator strides */
    fx_arg *aa[2] = { fx_arg_node(p, x), fx_arg_node(p, y) };
    fx_value *v = meta_infer_call(p, &rules, g, "torch.ops.aten.add.Tensor", fx_arg_seq(p, FX_ARG_TUPLE, aa, NULL, 2), kw);
    assert_non_null(v);
    assert_int_equal(v->dtype, FX_DT_F32);
    assert_int_equal(v->rank, 3);
    assert_string_equal(v->sizes[0], "s0");
    assert_string_equal(v->sizes[1], "3");
    assert_string_equal(v->strides[0], "12");
    assert_string_equal(v->strides[1], "4");
    assert_int_equal(g->n_nodes, before);
    /* a view: the input's strides, permuted */
    fx_arg *ta[3] = { fx_arg_node(p, x), fx_arg_int(p, 0), fx_arg_int(p, 2) };
    v = meta_infer_call(p, &rules, g, "torch.ops.aten.transpose.int", fx_arg_seq(p, FX_ARG_TUPLE, ta, NULL, 3), kw);
    assert_non_null(v);
    assert_string_equal(v->sizes[2], "s0");
    assert_string_equal(v->strides[0], "1");
    assert_string_equal(v->strides[2], "4");
    /* no rule, a HOP, an argument without meta: NULL, and nothing said */
    fx_arg *one[1] = { fx_arg_node(p, x) };
    assert_null(meta_infer_call(p, &rules, g, "torch.ops.mylib.nosuch.default", fx_arg_seq(p, FX_ARG_TUPLE, one, NULL, 1), kw));
    assert_null(meta_infer_call(p, &rules, g, "torch.ops.higher_order.cond", fx_arg_seq(p, FX_ARG_TUPLE, one, NULL, 1), kw));
    fx_arg *bad[1] = { fx_arg_int(p, 3) };
    assert_null(meta_infer_call(p, &rules, g, "torch.ops.aten.relu.default", fx_arg_seq(p, FX_ARG_TUPLE, bad, NULL, 1), kw));
    assert_int_equal(d.len, 0);
    fx_program_free(p);
    diag_free(&d);
    meta_rules_free(&rules);
}

/* The rule functions: each kind's names registered once and found by name with their arity;
 * a name of one kind is not found as another (promote is a dtype function, view a shape one). */
static void rule_functions_registered(void **state)
{
    (void)state;
    assert_null(mi_builtin_duplicate());
    const mi_fn_entry *e = mi_find_shape("view");
    assert_non_null(e);
    assert_int_equal(e->min_params, 2);
    assert_non_null(mi_find_shape("py_len"));
    assert_non_null(mi_find_shape("sdpa"));
    assert_non_null(mi_find_shape("broadcast"));
    assert_non_null(mi_find_dtype("promote"));
    assert_null(mi_find_shape("promote"));
    assert_null(mi_find_dtype("view"));
    e = mi_find_strides("permuted");
    assert_non_null(e);
    assert_int_equal(e->max_params, MI_MAX_RANK);
    assert_null(mi_find_strides("nosuch"));
    assert_string_equal(mi_suggest_fn(0, "broadcst"), "broadcast");
    assert_string_equal(mi_suggest_fn(1, "promte"), "promote");
    assert_string_equal(mi_suggest_fn(2, "permute"), "permuted");
    assert_null(mi_suggest_fn(2, "zzzzzzzz"));
}

static void bad_tables(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "ops:\n  - {targets: [aten.x.default], schema: '(Tensor self) -> Tensor', shape: 'nosuch(self)'}\n",
        "ops:\n  - {targets: [aten.x.default], schema: '(Tensor self) -> Tensor', shape: 'same(other)'}\n",
        "ops:\n  - {targets: [aten.x.default], schema: '(Tensor self -> Tensor', shape: 'same(self)'}\n",
        "ops:\n  - {targets: [aten.x.default], schema: '(Tensor self) -> Tensor', shape: 'same(self, self, self)'}\n",
        "ops:\n  - {targets: [aten.x.default], schema: '(Tensor self) -> Tensor', shape: 'same(self)', color: red}\n",
        "ops:\n  - {targets: [x], schema: '(Tensor self) -> Tensor', shape: 'same(self)'}\n",
        /* without a schema, torch's: there is none for aten.x, and mm(self, mat2) has no other */
        "ops:\n  - {targets: [aten.x.default], shape: 'same(self)'}\n",
        "ops:\n  - {targets: [aten.mm.default], shape: 'same(other)'}\n",
        "ops:\n  - {targets: [aten.x.default], schema: '(Tensor self) -> Tensor', shape: 'same(self)', dtype: 'nosuch(self)'}\n",
        "ops:\n  - {targets: [aten.x.default], schema: '(Tensor self) -> Tensor', shape: 'same(self)', strides: 'nosuch(self)'}\n",
        "ops:\n  - {targets: [aten.x.default], schema: '(Tensor self) -> Tensor', shape: 'promote(self)'}\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        meta_rules rules;
        meta_rules_init(&rules);
        diag_sink d;
        diag_init(&d);
        if (meta_rules_load_string(&rules, "bad.yaml", bad[i], strlen(bad[i]), &d))
            fail_msg("accepted: %s", bad[i]);
        assert_true(diag_has_errors(&d));
        assert_string_equal(d.items[0].file, "bad.yaml");
        assert_int_equal(d.items[0].line, 2);
        assert_null(meta_rules_find(&rules, "aten.x.default"));
        diag_free(&d);
        meta_rules_free(&rules);
    }
    /* a user table adds a rule */
    static const char good[] =
        "ops:\n  - {targets: [mylib.twice.default], schema: '(Tensor self) -> Tensor', shape: 'same(self)',"
        " dtype: 'f64'}\n"
        /* no schema: torch's binds the arguments (deg2rad(Tensor self)) */
        "  - {targets: [aten.deg2rad.default], shape: 'same(self)', dtype: 'f64'}\n";
    meta_rules rules;
    meta_rules_init(&rules);
    diag_sink d;
    diag_init(&d);
    assert_true(meta_rules_load_default(&rules, &d));
    assert_true(meta_rules_load_string(&rules, "mine.yaml", good, strlen(good), &d));
    static const char prog[] = PROGRAM("x: \"f32[2]\"", "        t = torch.ops.mylib.twice.default(x)\n"
                                                        "        return (t,)\n");
    fx_program *p = fxp_parse_code_text(prog, strlen(prog), "t.py", &d);
    assert_non_null(p);
    assert_true(meta_infer_program_with(p, &rules, &d));
    fx_node *t = fx_program_find_node(p, "t");
    assert_int_equal(t->meta.val->dtype, FX_DT_F64);
    fx_program_free(p);
    static const char prog2[] = PROGRAM("x: \"f32[2]\"", "        t = torch.ops.aten.deg2rad.default(x)\n"
                                                         "        return (t,)\n");
    p = fxp_parse_code_text(prog2, strlen(prog2), "t.py", &d);
    assert_non_null(p);
    assert_true(meta_infer_program_with(p, &rules, &d));
    assert_int_equal(fx_program_find_node(p, "t")->meta.val->dtype, FX_DT_F64);
    fx_program_free(p);
    diag_free(&d);
    meta_rules_free(&rules);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(promotion_categories), cmocka_unit_test(promotion_kinds),
        cmocka_unit_test(broadcasting),         cmocka_unit_test(strides),
        cmocka_unit_test(symbolic_sizes),       cmocka_unit_test(multi_output_and_hops),
        cmocka_unit_test(unknown_and_missing),  cmocka_unit_test(existing_meta_is_kept),
        cmocka_unit_test(weights_fill_placeholders), cmocka_unit_test(hostile_arguments),
        cmocka_unit_test(rule_functions_registered), cmocka_unit_test(bad_tables),           cmocka_unit_test(call_not_in_graph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
