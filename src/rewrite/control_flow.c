/* control_flow.c — fail like torch.export on data-dependent ifs; specialize/unroll the rest. */
#include "rewrite/control_flow.h"
#include "rewrite/rewrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "fx/fx_build.h"
#include "fx/fx.h"
#include "fx/fx_control.h"
#include "capture/export.h"
#include "meta/meta_infer.h"
#include "capture/py_eval.h"
#include "rewrite/rewrite_internal.h"

/* A condition is data-dependent when it is a tensor computed by an op (or an input tensor):
 * Python truthiness then needs the tensor's value, which torch.export cannot guard on. */
static bool data_dependent(const fx_arg *c)
{
    if (!c || c->kind != FX_ARG_NODE)
        return false;
    const fx_node *n = c->u.node;
    if (n->meta.val)
        return n->meta.val->kind == FX_VAL_TENSOR;
    if (n->op == FX_OP_PLACEHOLDER)
        return true;
    return n->op == FX_OP_CALL_FUNCTION && strncmp(n->target, "torch.ops.aten.", 15) == 0 &&
           strncmp(n->target, "torch.ops.aten.sym_", 19) != 0 && strcmp(n->target, "torch.ops.aten.dim.default") != 0;
}

static void src_loc(const fx_node *n, const char **file, int *line)
{
    *file = NULL;
    *line = 0;
    const char *st = n->meta.stack_trace;
    const char *f = st ? strstr(st, "File \"") : NULL;
    if (!f)
        return;
    f += 6;
    const char *q = strchr(f, '"');
    const char *l = q ? strstr(q, ", line ") : NULL;
    if (!l)
        return;
    static char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(q - f), f);
    *file = buf;
    *line = atoi(l + 7);
}

/* The text of line `line` of file, if the file can be read (the model source is often absent). */
static bool source_line(const char *file, int line, strbuf *out)
{
    FILE *f = file ? fopen(file, "r") : NULL;
    if (!f)
        return false;
    char buf[4096];
    bool ok = false;
    for (int i = 1; fgets(buf, sizeof buf, f); i++) {
        if (i == line) {
            size_t n = strlen(buf);
            while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
                n--;
            size_t s = 0;
            while (s < n && (buf[s] == ' ' || buf[s] == '\t'))
                s++;
            sb_putn(out, buf + s, n - s);
            ok = true;
            break;
        }
    }
    fclose(f);
    return ok;
}

static fx_node *append_call(fx_graph *g, const char *name, const char *target, fx_arg **args, size_t n)
{
    fx_program *p = g->owner->prog;
    fx_node *x = fx_node_new(g, name, FX_OP_CALL_FUNCTION, target);
    fx_node_set_args(x, fx_arg_seq(p, FX_ARG_TUPLE, args, NULL, n), fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
    fx_graph_append(g, x);
    return x;
}

/* torch's partial graph: q's root graph cut after its node c, then ne/item (Python truthiness,
 * item `Eq(u0, 1)`), or with `scalar` (int() / float() of the tensor) item of c itself, printed
 * as that symbol. Frees q. */
static void print_partial_as(fx_program *q, fx_node *c, const char *scalar, strbuf *out);

static void print_partial(fx_program *q, fx_node *c, strbuf *out)
{
    print_partial_as(q, c, NULL, out);
}

static void print_partial_as(fx_program *q, fx_node *c, const char *scalar, strbuf *out)
{
    fx_graph *g = fx_program_graph(q);
    /* drop everything after c at once (the subgraph modules stay but are not printed here) */
    for (fx_node *x = c->next; x; x = x->next)
        if (hm_get(&g->names, x->name) == x)
            hm_remove(&g->names, x->name);
    c->next = NULL;
    g->last = c;
    size_t i = 0;
    char nm[32];
    for (fx_node *x = g->first; x && x->op == FX_OP_PLACEHOLDER; x = x->next) {
        snprintf(nm, sizeof nm, "arg%zu_1", i++);
        fx_control_rename_node(x, nm);
    }
    fx_node *of = c;
    if (!scalar) {
        fx_arg *a[2] = {fx_arg_node(q, c), fx_arg_int(q, 0)};
        fx_node *ne = append_call(g, "ne", "torch.ops.aten.ne.Scalar", a, 2);
        ne->meta = c->meta;
        if (c->meta.val && c->meta.val->kind == FX_VAL_TENSOR) {
            fx_value *v = fx_value_new(q, FX_VAL_TENSOR);
            *v = *c->meta.val;
            v->dtype = FX_DT_BOOL;
            ne->meta.val = v;
        }
        of = ne;
    }
    fx_arg *b[1] = {fx_arg_node(q, of)};
    fx_node *item = append_call(g, "item", "torch.ops.aten.item.default", b, 1);
    item->meta = c->meta;
    item->meta.val = fx_value_new(q, FX_VAL_SYM);
    item->meta.val->text = scalar ? scalar : "Eq(u0, 1)";
    fx_program_refresh(q);
    strbuf code;
    sb_init(&code);
    fx_print_code_class(q->root, "GraphModule", 0, &code);
    /* keep the forward (dedented by 4), without the nested classes */
    const char *s = code.s ? strstr(code.s, "    def forward") : NULL;
    sb_puts(out, "\n\n\n");
    while (s && *s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n >= 4 && strncmp(s, "    class ", 10) == 0)
            break;
        if (n > 4)
            sb_putn(out, s + 4, n - 4);
        else
            sb_puts(out, "    ");
        sb_putc(out, '\n');
        if (!e)
            break;
        s = e + 1;
    }
    /* torch's text ends with one blank "    " line after the item line */
    while (out->len >= 5 && strcmp(out->s + out->len - 5, "    \n") == 0)
        sb_truncate(out, out->len - 5);
    sb_puts(out, "    \n");
    sb_free(&code);
    fx_program_free(q);
}

static void partial_graph(const fx_program *p, const fx_node *cond, strbuf *out)
{
    fx_program *q = fx_program_clone(p);
    fx_node *c = fx_graph_lookup(fx_program_graph(q), cond->name);
    if (c)
        print_partial(q, c, out);
    else
        fx_program_free(q);
}

static fx_arg *inline_graph(fx_graph *g, fx_node *before, const fx_graph *sub, fx_arg **inputs, size_t n_inputs,
                            const char *stop, fx_node **stopped);

/* A loop whose first data-dependent test is in its body: torch traced iteration 0 into the
 * enclosing graph up to that test, so the partial graph shows the body's nodes inlined. */
static void partial_graph_in_loop(const fx_program *p, const fx_node *loop, const fx_node *test, strbuf *out)
{
    fx_program *q = fx_program_clone(p);
    fx_graph *g = fx_program_graph(q);
    fx_node *n = fx_graph_lookup(g, loop->name);
    fx_control_view v;
    if (!n || !fx_control_inspect(n, &v) || !v.sub[0]) {
        fx_program_free(q);
        return;
    }
    size_t nc = v.operands->u.seq.len, ncap = v.captured->u.seq.len;
    fx_arg **ins = xmalloc((1 + nc + ncap) * sizeof *ins);
    ins[0] = fx_arg_int(q, 0);
    for (size_t i = 0; i < nc; i++)
        ins[1 + i] = v.operands->u.seq.items[i];
    for (size_t i = 0; i < ncap; i++)
        ins[1 + nc + i] = v.captured->u.seq.items[i];
    fx_node *c = NULL;
    inline_graph(g, n, v.sub[0]->graph, ins, 1 + nc + ncap, test->name, &c);
    free(ins);
    /* the body's get_attr came before the loop; torch's trace has no such node */
    hashmap attr;
    hm_init(&attr);
    hm_put(&attr, v.graph_attr[0]->name, v.graph_attr[0]);
    rw_remove_nodes(g, &attr);
    hm_free(&attr);
    diag_sink quiet;   /* the inlined iteration's values, for the printed annotations */
    diag_init(&quiet);
    meta_infer_program(q, &quiet);
    diag_free(&quiet);
    if (c)
        print_partial(q, c, out);
    else
        fx_program_free(q);
}

/* torch's GuardOnDataDependentSymNode failure at test c: the partial graph is already in report. */
static void guard_failure(const fx_program *src, const char *name, const fx_node *c, const char *what,
                          const char *rewrite, diag_sink *d, strbuf *report)
{
    const char *file;
    int line;
    src_loc(c, &file, &line);
    sb_puts(report,
            "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like symbols: none)\n"
            "\n"
            "consider using data-dependent friendly APIs such as guard_or_false, guard_or_true and statically_known_true.\n"
            "Caused by: (_export/non_strict_utils.py:1377 in __torch_function__)\n"
            "For more information, run with TORCH_LOGS=\"dynamic\"\n"
            "For extended logs when we create symbols, also add TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL=\"u0\"\n"
            "If you suspect the guard was triggered from C++, add TORCHDYNAMO_EXTENDED_DEBUG_CPP=1\n"
            "For more debugging help, see https://docs.google.com/document/d/1HSuTTVvYH1pTew89Rtpeu84Ht3nQEFTYhAX3Ypa_xJs/edit?usp=sharing\n"
            "\n"
            "For C++ stack trace, run with TORCHDYNAMO_EXTENDED_DEBUG_CPP=1\n"
            "\n"
            "The following call raised this error:\n");
    if (file) {
        sb_printf(report, "  File \"%s\", line %d, in forward\n", file, line);
        strbuf code;
        sb_init(&code);
        if (source_line(file, line, &code))
            sb_printf(report, "    %s\n", code.s);
        sb_free(&code);
    } else {
        sb_printf(report, "  (node %%%s: no source location)\n", name);
    }
    diagnostic *dg = diag_error(d, (diag_loc){file, line, 0},
                                "export failed at %%%s: %s on the tensor %%%s (data-dependent: "
                                "Could not guard on data-dependent expression Eq(u0, 1))",
                                name, what, c->name);
    /* the hint is the rewrite that works: a nest innermost first, --clone where torch needs it */
    strbuf plan;
    sb_init(&plan);
    if (rewrite_plan(src, name, rewrite, &plan))
        diag_set_hint(dg, "%s", plan.s);
    else
        diag_set_hint(dg, "rewrite %%%s %s", name, rewrite);
    sb_free(&plan);
}

/* The data-dependent exit test of a bounded loop's body (a Python if on a tensor, or a tensor
 * returned as the next test), or NULL. */
static const fx_node *body_exit_test(const fx_control_view *v)
{
    const fx_arg *t = fx_control_graph_result(v->sub[0]->graph);
    if (!t || (t->kind != FX_ARG_TUPLE && t->kind != FX_ARG_LIST) || !t->u.seq.len)
        return NULL;
    const fx_arg *nx = t->u.seq.items[0];
    if (data_dependent(nx))
        return nx->u.node;
    for (const fx_node *x = v->sub[0]->graph->first; x; x = x->next) {
        fx_control_view iv;
        if (fx_control_kind_of(x) == FX_CTRL_IF && fx_control_inspect(x, &iv) && data_dependent(iv.cond))
            return iv.cond->u.node;
    }
    return NULL;
}

/* The dimension marked dynamic that trip count a reads (x.shape[k] of a user input x), if any. */
static const cf_dynamic_dim *dynamic_source(const fx_arg *a, const cf_dynamic_dim *dyn, size_t n_dyn,
                                            const char **example, int depth)
{
    if (!a || a->kind != FX_ARG_NODE || depth > 32)
        return NULL;
    const fx_node *n = a->u.node;
    if (n->op != FX_OP_CALL_FUNCTION)
        return NULL;
    fx_arg **x = n->args->u.seq.items;
    size_t na = n->args->u.seq.len;
    const fx_node *t = NULL;
    int64_t k = 0;
    if (!fx_control_dim_read(n, &t, &k) && !strncmp(n->target, "operator.", 9)) {
        for (size_t i = 0; i < na; i++) {
            const cf_dynamic_dim *r = dynamic_source(x[i], dyn, n_dyn, example, depth + 1);
            if (r)
                return r;
        }
        return NULL;
    }
    if (!t || t->op != FX_OP_PLACEHOLDER)
        return NULL;
    const fx_value *v = t->meta.val;
    if (k < 0 && v && v->kind == FX_VAL_TENSOR)
        k += (int64_t)v->rank;
    for (size_t i = 0; i < n_dyn; i++)
        if (!strcmp(dyn[i].input, t->name) && dyn[i].axis == k) {
            *example = v && v->kind == FX_VAL_TENSOR && (size_t)k < v->rank ? v->sizes[k] : "?";
            return &dyn[i];
        }
    return NULL;
}

/* A loaded ATen program still holding Python-level code (a TorchScript load) runs that code as
 * torch.export's tracing does (capture/py_eval.h); a torch-level program leaves it to export. */
static fx_program *replay_python(const fx_program *p, const control_flow_options *o, hashmap *origins,
                                 diag_sink *d)
{
    py_eval_dynamic_dim dyn[64];
    py_eval_options po = {.keep_loops = o && o->keep_loops, .dynamic = dyn, .origins = origins,
                          .guards = o ? o->guards : NULL};
    for (size_t i = 0; o && i < o->n_dynamic && i < 64; i++)
        dyn[po.n_dynamic++] = (py_eval_dynamic_dim){o->dynamic[i].input, o->dynamic[i].axis, o->dynamic[i].name,
                                                    o->dynamic[i].kind, o->dynamic[i].min, o->dynamic[i].max,
                                                    o->dynamic[i].lo, o->dynamic[i].hi};
    return py_eval_program(p, &po, d);
}

static int check_program(const fx_program *p, const fx_program *src, const hashmap *origins,
                         const control_flow_options *o, diag_sink *d, strbuf *report);

/* The diagnostics of one severity (errors, or warnings) of from, reported again to d. */
static void forward_problems(const diag_sink *from, diag_sink *d, diag_severity only)
{
    for (size_t i = 0; i < from->len; i++) {
        const diagnostic *x = &from->items[i];
        if (x->severity != only)
            continue;
        diagnostic *y = diag_report(d, x->severity, (diag_loc){x->file, x->line, x->col}, "%s", x->message);
        if (x->hint)
            diag_set_hint(y, "%s", x->hint);
        if (x->source_line)
            diag_set_source(y, x->source_line, strlen(x->source_line));
    }
}

int control_flow_export_check_ex(const fx_program *p, const control_flow_options *o, diag_sink *d, strbuf *report)
{
    if (!fx_program_is_aten(p))
        return check_program(p, p, NULL, o, d, report);
    /* torch fails at the first control flow it cannot trace, with what it recorded until then;
     * the messages name the node of p that the replayed one comes from */
    hashmap origins;
    hm_init(&origins);
    diag_sink quiet;   /* the notes of the replay: control_flow_specialize gives them */
    diag_init(&quiet);
    fx_program *q = replay_python(p, o, &origins, &quiet);
    forward_problems(&quiet, d, DIAG_ERROR);
    int r = q ? check_program(q, p, &origins, o, d, report) : 1;
    /* its warnings: control_flow_specialize replays again and gives them, unless export stops here */
    if (r)
        forward_problems(&quiet, d, DIAG_WARNING);
    diag_free(&quiet);
    hm_free(&origins);
    fx_program_free(q);
    return r;
}

/* int(t) / float(t) of a tensor computed from inputs (TorchScript's aten::Int / aten::Float of a
 * Tensor; of a Scalar from .item() they are conversions): torch.export makes t.item() an
 * unbacked symbol u0 (zuf0 for a float) and int() / float() must then guard on its value. */
static bool scalar_of_tensor(const fx_node *n, bool *is_float)
{
    if (n->op != FX_OP_CALL_FUNCTION || !n->target || !n->args || n->args->u.seq.len != 1) return false;
    bool i = !strncmp(n->target, "torch.ops.aten.Int.", 19), f = !strncmp(n->target, "torch.ops.aten.Float.", 21);
    const fx_arg *a = n->args->u.seq.items[0];
    if ((!i && !f) || !data_dependent(a)) return false;
    const fx_node *t = a->u.node;
    const fx_value *v = t->meta.val;
    if ((v && v->kind != FX_VAL_TENSOR) ||
        (t->target && (!strncmp(t->target, "torch.ops.aten.item.", 20) || !strncmp(t->target, "torch.ops.aten._local_scalar_dense.", 35))))
        return false;
    *is_float = f;
    return true;
}

/* torch's failure at int(t) / float(t) of node n (its tensor t): the partial graph, then
 * GuardOnDataDependentSymNode's text, at the source line. */
static void scalar_failure(const fx_program *p, const fx_program *src, const char *name, const fx_node *n, bool is_float,
                           diag_sink *d, strbuf *report)
{
    const fx_node *t = n->args->u.seq.items[0]->u.node;
    const char *sym = is_float ? "zuf0" : "u0";
    fx_program *q = fx_program_clone(p);
    fx_node *c = fx_graph_lookup(fx_program_graph(q), t->name);
    char shown[32];
    snprintf(shown, sizeof shown, "%s", sym);
    if (c) print_partial_as(q, c, shown, report);
    else fx_program_free(q);
    char what[160];
    if (is_float)
        snprintf(what, sizeof what, "Could not guard on data-dependent expression %s (unhinted: %s)", sym, sym);
    else
        snprintf(what, sizeof what, "Could not extract specialized integer from data-dependent expression %s (unhinted: %s)", sym, sym);
    sb_printf(report, "%s.  (Size-like symbols: none)\n\n", what);
    if (is_float)
        sb_puts(report, "consider using data-dependent friendly APIs such as guard_or_false, guard_or_true and "
                        "statically_known_true.\n\n");
    const char *file;
    int line;
    src_loc(n, &file, &line);
    if (file) {
        sb_printf(report, "The following call raised this error:\n  File \"%s\", line %d, in forward\n", file, line);
        strbuf code;
        sb_init(&code);
        if (source_line(file, line, &code)) sb_printf(report, "    %s\n", code.s);
        sb_free(&code);
    }
    (void)src;
    diagnostic *dg = diag_error(d, (diag_loc){file ? file : p->file, file ? line : n->src_line, 0},
                                "export failed at %%%s: %s() of the tensor %%%s needs its value, which torch.export does "
                                "not know (data-dependent: %s)", name, is_float ? "float" : "int", t->name, what);
    if (is_float)
        diag_set_hint(dg, "keep it a tensor (x * t instead of x * float(t)), or use t.item(), which torch.export keeps "
                          "as a symbol");
    else
        diag_set_hint(dg, "use t.item() instead of int(t): torch.export keeps it as an unbacked symbol; where it is a "
                          "size, add torch._check(n >= 0) and torch._check(n <= limit) so that torch.export can use it");
}

static int check_program(const fx_program *p, const fx_program *src, const hashmap *origins,
                         const control_flow_options *o, diag_sink *d, strbuf *report)
{
    const fx_graph *g = fx_program_graph(p);
    bool keep_loops = o && o->keep_loops;
    for (fx_node *n = g->first; n; n = n->next) {
        bool is_float;
        if (!keep_loops && scalar_of_tensor(n, &is_float)) {
            const char *name = origins && hm_get(origins, n->name) ? hm_get(origins, n->name) : n->name;
            scalar_failure(p, src, name, n, is_float, d, report);
            return 1;
        }
        fx_control_view v;
        fx_control_kind k = fx_control_kind_of(n);
        if (k == FX_CTRL_NONE || k == FX_CTRL_COND || !fx_control_inspect(n, &v) || !v.sub[0])
            continue;
        const char *name = origins && hm_get(origins, n->name) ? hm_get(origins, n->name) : n->name;
        if (k == FX_CTRL_IF && data_dependent(v.cond)) {
            partial_graph(p, v.cond->u.node, report);
            guard_failure(src, name, v.cond->u.node, "Python `if`", "cond", d, report);
            return 1;
        }
        if (k == FX_CTRL_IF && origins && !keep_loops) {
            /* left by the replay, which decides every size `if` it has sizes for */
            const fx_value *cv = v.cond && v.cond->kind == FX_ARG_NODE ? v.cond->u.node->meta.val : NULL;
            diagnostic *dg = diag_error(d, (diag_loc){p->file, n->src_line, 0},
                                        "export failed at %%%s: the condition `%s` reads a size the example input does "
                                        "not give (a symbol in --input), and torch.export decides a Python `if` on "
                                        "sizes for the example's",
                                        name, cv && cv->kind == FX_VAL_SYM && cv->text ? cv->text : "?");
            diag_set_hint(dg, "give the example's size (--input x=f32[4,3]) and mark the dimension dynamic with "
                              "dynamic_shapes=x:0=batch; or keep both branches: rewrite %%%s cond", name);
            return 1;
        }
        if (keep_loops || k == FX_CTRL_IF)
            continue;
        if (k == FX_CTRL_WHILE && data_dependent(v.cond)) {
            /* `while test:` on a tensor: bool(test) fails before the first iteration */
            partial_graph(p, v.cond->u.node, report);
            guard_failure(src, name, v.cond->u.node, "Python `while`", "while_loop", d, report);
            return 1;
        }
        const fx_node *exit = k == FX_CTRL_WHILE ? body_exit_test(&v) : NULL;
        if (exit) {
            /* a for with a break on a tensor: torch traces iteration 0 and fails at the test */
            partial_graph_in_loop(p, n, exit, report);
            guard_failure(src, name, exit, "the loop's exit test (Python `if` ... break)", "while_loop", d, report);
            return 1;
        }
        int64_t trip;
        const char *example = NULL;
        const cf_dynamic_dim *dyn =
            k == FX_CTRL_FOR && o ? dynamic_source(v.trip, o->dynamic, o->n_dynamic, &example, 0) : NULL;
        if (dyn) {
            /* range(x.shape[k]) needs an int: torch specializes the dimension (to the example's
             * size, which the program before the replay holds), then refuses the dynamic_shapes
             * that said it varies */
            const fx_node *in = fx_graph_lookup(fx_program_graph(src), dyn->input);
            const fx_value *iv = in ? in->meta.val : NULL;
            if (iv && iv->kind == FX_VAL_TENSOR && dyn->axis >= 0 && (size_t)dyn->axis < iv->rank)
                example = iv->sizes[dyn->axis];
            sb_printf(report,
                      "Constraints violated (%s)! For more information, run with TORCH_LOGS=\"+dynamic\".\n"
                      "  - You marked %s as dynamic but your code specialized it to be a constant (%s). If you're "
                      "using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, "
                      "replace it with either Dim.STATIC or Dim.AUTO.\n"
                      "Suggested fixes:\n"
                      "  %s = %s\n",
                      dyn->name, dyn->name, example, dyn->name, example);
            diagnostic *dg = diag_error(d, (diag_loc){p->file, n->src_line, 0},
                                        "export failed at %%%s: `for` over range(%s.shape[%d]) makes torch.export "
                                        "specialize the dynamic dimension %s to %s",
                                        name, dyn->input, dyn->axis, dyn->name, example);
            diag_set_hint(dg, "a loop over the rows of tensors becomes scan: rewrite %%%s scan (or while_loop)",
                          name);
            return 1;
        }
        if (k == FX_CTRL_FOR && control_flow_eval_int(v.trip, &trip))
            continue;   /* unrolled by control_flow_specialize, as torch.export unrolls it */
        diagnostic *dg = diag_error(d, (diag_loc){p->file, n->src_line, 0},
                                    k == FX_CTRL_FOR ? "export failed at %%%s: the trip count of this `for` is not "
                                                       "known, and torch.export unrolls a Python loop"
                                                     : "export failed at %%%s: a `while` on Python values runs while "
                                                       "torch.export traces it, which fxsh cannot replay",
                                    name);
        diag_set_hint(dg, "if it loops over tensors, rewrite it: rewrite %%%s %s", name,
                      k == FX_CTRL_FOR ? "scan (or while_loop)" : "while_loop");
        return 1;
    }
    return 0;
}

int control_flow_export_check(const fx_program *p, diag_sink *d, strbuf *report)
{
    return control_flow_export_check_ex(p, NULL, d, report);
}

/* ---- specialization ------------------------------------------------------------------------- */

typedef struct ival {
    bool known;
    int64_t v;
} ival;

/* Evaluates a size-only integer/bool expression; unknown when anything is data-dependent. */
static ival eval_int(const fx_arg *a, int depth)
{
    ival r = {false, 0};
    if (!a || depth > 64)
        return r;
    if (a->kind == FX_ARG_INT)
        return (ival){true, a->u.i};
    if (a->kind == FX_ARG_BOOL)
        return (ival){true, a->u.b};
    if (a->kind != FX_ARG_NODE)
        return r;
    const fx_node *n = a->u.node;
    if (n->op != FX_OP_CALL_FUNCTION)
        return r;
    fx_arg **x = n->args->u.seq.items;
    size_t na = n->args->u.seq.len;
    const char *t = n->target;
    if ((strcmp(t, "torch.ops.aten.sym_size.int") == 0 || strcmp(t, "torch.ops.aten.dim.default") == 0) && na >= 1 &&
        x[0]->kind == FX_ARG_NODE) {
        const fx_value *v = x[0]->u.node->meta.val;
        if (!v || v->kind != FX_VAL_TENSOR)
            return r;
        if (t[15] == 'd')
            return (ival){true, (int64_t)v->rank};
        ival dim = na >= 2 ? eval_int(x[1], depth + 1) : r;
        if (!dim.known)
            return r;
        int64_t k = dim.v < 0 ? dim.v + (int64_t)v->rank : dim.v;
        if (k < 0 || (size_t)k >= v->rank)
            return r;
        char *end;
        long long s = strtoll(v->sizes[k], &end, 10);
        return *end ? r : (ival){true, s};
    }
    /* x.size()[k]: the whole size list of a tensor with known shape */
    if (strcmp(t, "operator.getitem") == 0 && na == 2 && x[0]->kind == FX_ARG_NODE &&
        strcmp(x[0]->u.node->target, "torch.ops.aten.sym_size.default") == 0 &&
        x[0]->u.node->args->u.seq.len == 1) {
        fx_arg *dim_args[2] = {x[0]->u.node->args->u.seq.items[0], x[1]};
        fx_arg tuple = {.kind = FX_ARG_TUPLE, .u.seq = {dim_args, NULL, 2}};
        fx_node tmp = *x[0]->u.node;
        tmp.target = "torch.ops.aten.sym_size.int";
        tmp.args = &tuple;
        fx_arg ref = {.kind = FX_ARG_NODE, .u.node = &tmp};
        return eval_int(&ref, depth + 1);
    }
    if (strncmp(t, "operator.", 9) != 0 || na == 0)
        return r;
    const char *op = t + 9;
    ival l = eval_int(x[0], depth + 1);
    if (!l.known)
        return r;
    if (strcmp(op, "not_") == 0)
        return (ival){true, !l.v};
    if (strcmp(op, "neg") == 0)
        return (ival){true, -l.v};
    if (na < 2)
        return r;
    ival b = eval_int(x[1], depth + 1);
    if (!b.known)
        return r;
    if (strcmp(op, "add") == 0) return (ival){true, l.v + b.v};
    if (strcmp(op, "sub") == 0) return (ival){true, l.v - b.v};
    if (strcmp(op, "mul") == 0) return (ival){true, l.v * b.v};
    if (strcmp(op, "floordiv") == 0 && b.v) return (ival){true, l.v / b.v};
    if (strcmp(op, "mod") == 0 && b.v) return (ival){true, l.v % b.v};
    if (strcmp(op, "eq") == 0) return (ival){true, l.v == b.v};
    if (strcmp(op, "ne") == 0) return (ival){true, l.v != b.v};
    if (strcmp(op, "lt") == 0) return (ival){true, l.v < b.v};
    if (strcmp(op, "le") == 0) return (ival){true, l.v <= b.v};
    if (strcmp(op, "gt") == 0) return (ival){true, l.v > b.v};
    if (strcmp(op, "ge") == 0) return (ival){true, l.v >= b.v};
    if (strcmp(op, "and_") == 0) return (ival){true, l.v && b.v};
    if (strcmp(op, "or_") == 0) return (ival){true, l.v || b.v};
    return r;
}

bool control_flow_eval_int(const fx_arg *a, int64_t *out)
{
    ival r = eval_int(a, 0);
    if (r.known)
        *out = r.v;
    return r.known;
}

/* Copies sub's nodes before `before` in g with its placeholders bound to inputs[]; returns the
 * output tuple remapped (arena), or NULL on a malformed subgraph. With stop, copying ends after
 * the node of that name, whose copy goes to *stopped. */
static fx_arg *inline_graph(fx_graph *g, fx_node *before, const fx_graph *sub, fx_arg **inputs, size_t n_inputs,
                            const char *stop, fx_node **stopped)
{
    fx_program *p = g->owner->prog;
    hashmap m;
    hm_init(&m);
    size_t k = 0;
    fx_arg *result = NULL;
    for (const fx_node *x = sub->first; x; x = x->next) {
        if (x->op == FX_OP_PLACEHOLDER) {
            if (k < n_inputs)
                hm_put(&m, x->name, inputs[k++]);
            continue;
        }
        if (x->op == FX_OP_OUTPUT) {
            result = x->args->u.seq.len == 1 ? fx_control_remap_arg(p, x->args->u.seq.items[0], &m) : NULL;
            break;
        }
        /* float(0) / int(2) of a literal (an unrolled loop index) fold to the literal */
        if (x->op == FX_OP_CALL_FUNCTION && x->args->u.seq.len == 1 &&
            (strcmp(x->target, "builtins.float") == 0 || strcmp(x->target, "builtins.int") == 0)) {
            fx_arg *a0 = fx_control_remap_arg(p, x->args->u.seq.items[0], &m);
            if (a0->kind == FX_ARG_INT || a0->kind == FX_ARG_FLOAT) {
                bool to_f = x->target[9] == 'f';
                double fv = a0->kind == FX_ARG_INT ? (double)a0->u.i : a0->u.f;
                hm_put(&m, x->name, to_f ? fx_arg_float(p, fv) : fx_arg_int(p, (int64_t)fv));
                continue;
            }
        }
        fx_node *c = fx_control_copy_node(g, before, x, &m);
        /* an inlined node's value follows from its new arguments (an unrolled loop's index is
         * a number now): control_flow_specialize infers it again */
        if (c->op == FX_OP_CALL_FUNCTION)
            c->meta.val = NULL;
        if (stop && strcmp(x->name, stop) == 0) {
            *stopped = c;
            break;
        }
    }
    hm_free(&m);
    return result;
}

/* Replaces the results getitem(n, i) by outs[i] and drops n, its getitems and get_attrs: one
 * pass over the graph for all of them. */
static void replace_results(fx_graph *g, fx_node *n, const fx_arg *outs, fx_node *const attrs[2])
{
    fx_program *p = g->owner->prog;
    hashmap repl, dead;
    hm_init(&repl);
    hm_init(&dead);
    fx_graph_recompute_users(g);
    for (size_t j = 0; j < n->n_users; j++) {
        fx_node *x = n->users[j];
        if (x->op != FX_OP_CALL_FUNCTION || strcmp(x->target, "operator.getitem") != 0 || x->args->u.seq.len != 2 ||
            x->args->u.seq.items[1]->kind != FX_ARG_INT)
            continue;
        int64_t i = x->args->u.seq.items[1]->u.i;
        fx_arg *w = outs && i >= 0 && (size_t)i < outs->u.seq.len ? outs->u.seq.items[i] : NULL;
        if (w) {
            hm_put(&repl, x->name, w);
            hm_put(&dead, x->name, x);
        }
    }
    for (fx_node *u = g->first; u; u = u->next) {
        u->args = fx_control_remap_arg(p, u->args, &repl);
        u->kwargs = fx_control_remap_arg(p, u->kwargs, &repl);
    }
    hm_put(&dead, n->name, n);
    rw_remove_nodes(g, &dead);
    hm_free(&dead);
    hm_init(&dead);
    for (int i = 0; i < 2; i++)
        if (attrs[i] && !attrs[i]->n_users && fx_graph_lookup(g, attrs[i]->name) == attrs[i])
            hm_put(&dead, attrs[i]->name, attrs[i]);
    rw_remove_nodes(g, &dead);
    hm_free(&repl);
    hm_free(&dead);
}

/* The size arithmetic that fed a specialized condition is dead now: torch keeps none. */
static void remove_dead_sizes(fx_graph *g)
{
    fx_graph_recompute_users(g);
    fx_node **seeds = xmalloc((g->n_nodes + 1) * sizeof *seeds);
    size_t ns = 0;
    for (fx_node *x = g->first; x; x = x->next)
        if (x->op == FX_OP_CALL_FUNCTION && x->n_users == 0 &&
            (strncmp(x->target, "operator.", 9) == 0 || strncmp(x->target, "builtins.", 9) == 0 ||
             strncmp(x->target, "torch.ops.aten.sym_size", 23) == 0))
            seeds[ns++] = x;
    rw_remove_dead(g, seeds, ns);
    free(seeds);
}

static bool specialize_graph(fx_graph *g, bool keep_loops, diag_sink *d)
{
    fx_program *p = g->owner->prog;
    bool changed = false;
    for (fx_node *n = g->first; n;) {
        fx_node *next = n->next, *prev = n->prev;
        fx_control_view v;
        if (!fx_control_inspect(n, &v) || !v.sub[0]) {
            n = next;
            continue;
        }
        if (v.kind == FX_CTRL_IF && v.sub[1]) {
            ival c = eval_int(v.cond, 0);
            if (c.known) {
                fx_module *taken = c.v ? v.sub[0] : v.sub[1];
                fx_arg *outs =
                    inline_graph(g, n, taken->graph, v.operands->u.seq.items, v.operands->u.seq.len, NULL, NULL);
                diag_note(d, (diag_loc){p->file, n->src_line, 0},
                          "%%%s: the condition is %s for the example shapes; specialized to %s (guard recorded)",
                          n->name, c.v ? "True" : "False", taken->name);
                fx_module *a = v.sub[0], *b = v.sub[1];
                replace_results(g, n, outs, v.graph_attr);
                fx_control_drop_subgraph(g->owner, a);
                fx_control_drop_subgraph(g->owner, b);
                changed = true;
            }
        } else if (v.kind == FX_CTRL_FOR && (!keep_loops || v.trip->kind == FX_ARG_INT)) {
            ival trip = eval_int(v.trip, 0);
            if (trip.known && trip.v >= 0 && trip.v <= 4096) {
                size_t nc = v.operands->u.seq.len, ncap = v.captured->u.seq.len;
                fx_arg **ins = xmalloc((1 + nc + ncap) * sizeof *ins);
                for (size_t i = 0; i < nc; i++)
                    ins[1 + i] = v.operands->u.seq.items[i];
                for (size_t i = 0; i < ncap; i++)
                    ins[1 + nc + i] = v.captured->u.seq.items[i];
                fx_arg *outs = (fx_arg *)v.operands;   /* read only: replace_results never writes it */
                for (int64_t it = 0; it < trip.v && outs; it++) {
                    ins[0] = fx_arg_int(p, it);
                    outs = inline_graph(g, n, v.sub[0]->graph, ins, 1 + nc + ncap, NULL, NULL);
                    for (size_t i = 0; outs && i < nc && i < outs->u.seq.len; i++)
                        ins[1 + i] = outs->u.seq.items[i];
                }
                free(ins);
                diag_note(d, (diag_loc){p->file, n->src_line, 0}, "%%%s: `for` over range(%lld) unrolled",
                          n->name, (long long)trip.v);
                fx_module *body = v.sub[0];
                replace_results(g, n, outs, v.graph_attr);
                fx_control_drop_subgraph(g->owner, body);
                changed = true;
            }
        }
        /* n and its getitems are gone when it was specialized: go on after what replaced them */
        n = fx_graph_lookup(g, n->name) == n ? next : prev ? prev->next : g->first;
    }
    if (changed)
        remove_dead_sizes(g);
    return changed;
}

fx_program *control_flow_specialize_ex(const fx_program *p, const control_flow_options *o, diag_sink *d)
{
    if (fx_program_is_aten(p)) {
        /* an `if` on a dynamic size decided by its guard leaves the sizes it read unused */
        fx_program *r = replay_python(p, o, NULL, d);
        if (r && o && o->n_dynamic) {
            remove_dead_sizes(fx_program_graph(r));
            fx_program_refresh(r);
        }
        return r;
    }
    fx_program *q = fx_program_clone(p);
    if (!q) {
        diag_error(d, (diag_loc){0}, "out of memory while copying the program");
        return NULL;
    }
    if (specialize_graph(fx_program_graph(q), o && o->keep_loops, d)) {
        /* what cannot be inferred is export's to report, with the rest of the program */
        diag_sink quiet;
        diag_init(&quiet);
        meta_infer_program(q, &quiet);
        diag_free(&quiet);
    }
    fx_program_refresh(q);
    return q;
}

/* An if whose branches return only True / False: the values are its condition's truthiness. */
static bool fold_bool_ifs(fx_graph *g, diag_sink *d)
{
    fx_program *p = g->owner->prog;
    bool changed = false;
    for (fx_node *n = g->first; n;) {
        fx_node *next = n->next, *prev = n->prev;
        fx_control_view v;
        /* one pass of this block at most: `break` leaves it */
        while (fx_control_inspect(n, &v) && v.sub[0] && v.sub[0]->graph) {
            if (v.kind == FX_CTRL_FOR || v.kind == FX_CTRL_WHILE) {
                changed |= fold_bool_ifs(v.sub[0]->graph, d);
                break;
            }
            /* an if on Python values (a library check) is the replay's to decide, not a tensor */
            if (v.kind != FX_CTRL_IF || !v.sub[1] || !v.sub[1]->graph || !data_dependent(v.cond))
                break;
            changed |= fold_bool_ifs(v.sub[0]->graph, d) | fold_bool_ifs(v.sub[1]->graph, d);
            const fx_arg *ta = fx_control_graph_result(v.sub[0]->graph), *fa = fx_control_graph_result(v.sub[1]->graph);
            if (!ta || !fa || ta->kind != FX_ARG_TUPLE || fa->kind != FX_ARG_TUPLE || ta->u.seq.len != fa->u.seq.len)
                break;
            size_t k = ta->u.seq.len, i = 0;
            while (i < k && ta->u.seq.items[i]->kind == FX_ARG_BOOL && fa->u.seq.items[i]->kind == FX_ARG_BOOL)
                i++;
            if (i < k || k == 0)
                break;
            fx_arg **outs = xmalloc(k * sizeof *outs);
            fx_node *t = NULL, *nt = NULL;
            for (i = 0; i < k; i++) {
                bool tb = ta->u.seq.items[i]->u.b, fb = fa->u.seq.items[i]->u.b;
                if (tb == fb) {
                    outs[i] = fx_arg_bool(p, tb);
                    continue;
                }
                if (!t)
                    t = rw_truthiness(g, v.graph_attr[0], v.cond->u.node);
                if (!tb && !nt) {
                    fx_arg *a[1] = {fx_arg_node(p, t)};
                    nt = rw_call_before(g, v.graph_attr[0], "logical_not", "torch.ops.aten.logical_not.default", a, 1,
                                        t->meta.val);
                    nt->meta.stack_trace = n->meta.stack_trace;
                    nt->meta.source = n->meta.source;
                }
                outs[i] = fx_arg_node(p, tb ? t : nt);
            }
            diag_note(d, (diag_loc){p->file, n->src_line, 0},
                      "%%%s only chooses between True and False: it is the truthiness of %%%s", n->name,
                      v.cond->u.node->name);
            replace_results(g, n, fx_arg_seq(p, FX_ARG_TUPLE, outs, NULL, k), v.graph_attr);
            free(outs);
            fx_control_drop_subgraph(g->owner, v.sub[0]);
            fx_control_drop_subgraph(g->owner, v.sub[1]);
            changed = true;
            break;
        }
        n = fx_graph_lookup(g, n->name) == n ? next : prev ? prev->next : g->first;
    }
    return changed;
}

fx_program *control_flow_fold_bool_ifs(const fx_program *p, diag_sink *d)
{
    fx_program *q = fx_program_clone(p);
    fold_bool_ifs(fx_program_graph(q), d);
    fx_program_refresh(q);
    return q;
}

fx_program *control_flow_specialize(const fx_program *p, diag_sink *d)
{
    return control_flow_specialize_ex(p, NULL, d);
}

/* ---- tracing (export --legacy trace) ----------------------------------------------------------- */

const fx_node *control_flow_first_tensor_if(const fx_program *p)
{
    const fx_graph *g = fx_program_graph(p);
    for (const fx_node *n = g ? g->first : NULL; n; n = n->next) {
        fx_control_view v;
        if (fx_control_kind_of(n) == FX_CTRL_IF && fx_control_inspect(n, &v) && v.sub[0] && v.sub[1] &&
            data_dependent(v.cond))
            return n;
    }
    return NULL;
}

/* The root python_if `name` of q, with its view; NULL after reporting. */
static fx_node *root_if(fx_program *q, const char *name, fx_control_view *v, diag_sink *d)
{
    fx_node *n = fx_graph_lookup(fx_program_graph(q), name);
    if (!n || fx_control_kind_of(n) != FX_CTRL_IF || !fx_control_inspect(n, v) || !v->sub[0] || !v->sub[1]) {
        diag_error(d, (diag_loc){0}, "%%%s is not a Python `if` of the root graph", name);
        return NULL;
    }
    return n;
}

fx_program *control_flow_condition_program(const fx_program *p, const char *if_name, diag_sink *d)
{
    fx_program *q = fx_program_clone(p);
    fx_control_view v;
    fx_node *n = q ? root_if(q, if_name, &v, d) : NULL;
    fx_graph *g = fx_program_graph(q);
    fx_node *out = g ? g->last : NULL;
    if (!n || !out || out->op != FX_OP_OUTPUT) {
        if (q && n) diag_error(d, (diag_loc){0}, "the program has no output node");
        fx_program_free(q);
        return NULL;
    }
    fx_arg *item = fx_arg_node(q, v.cond->u.node);
    fx_arg *ret = fx_arg_seq(q, FX_ARG_TUPLE, &item, NULL, 1);
    fx_node_set_args(out, fx_arg_seq(q, FX_ARG_TUPLE, &ret, NULL, 1), fx_arg_seq(q, FX_ARG_DICT, NULL, NULL, 0));
    if (q->sig.present) {
        q->sig.n_outputs = 1;
        q->sig.outputs = fx_alloc(q, sizeof *q->sig.outputs);
        q->sig.outputs[0] = (fx_output_spec){FX_OUT_USER_OUTPUT, v.cond->u.node->name, NULL};
    }
    /* what the condition does not need goes, back to front (a node's users before it) */
    fx_graph_recompute_users(g);
    for (fx_node *x = out->prev, *prev; x; x = prev) {
        prev = x->prev;
        if (x->op == FX_OP_PLACEHOLDER || x->n_users)
            continue;
        fx_module *sub = x->op == FX_OP_GET_ATTR ? fx_module_child(q->root, x->target) : NULL;
        fx_graph_remove(g, x);
        if (sub && sub->graph) fx_control_drop_subgraph(q->root, sub);
    }
    fx_program_refresh(q);
    return q;
}

fx_program *control_flow_take_branch(const fx_program *p, const char *if_name, int which, diag_sink *d)
{
    fx_program *q = fx_program_clone(p);
    fx_control_view v;
    fx_node *n = q ? root_if(q, if_name, &v, d) : NULL;
    if (!n) {
        fx_program_free(q);
        return NULL;
    }
    fx_graph *g = fx_program_graph(q);
    fx_arg *outs = inline_graph(g, n, v.sub[which ? 1 : 0]->graph, v.operands->u.seq.items, v.operands->u.seq.len,
                                NULL, NULL);
    fx_module *a = v.sub[0], *b = v.sub[1];
    replace_results(g, n, outs, v.graph_attr);
    fx_control_drop_subgraph(g->owner, a);
    fx_control_drop_subgraph(g->owner, b);
    diag_sink quiet;   /* what cannot be inferred is export's to report */
    diag_init(&quiet);
    meta_infer_program(q, &quiet);
    diag_free(&quiet);
    fx_program_refresh(q);
    return q;
}
