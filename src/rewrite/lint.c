/* lint.c — the tracing pitfalls of a program: what torch.jit.trace (and the legacy exporter's tracer) would get wrong. */
#include "rewrite/lint.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_control.h"
#include "rewrite/rewrite.h"

typedef struct lint_ctx {
    const fx_program *p;
    diag_sink *d;
    size_t found;
} lint_ctx;

/* A value computed from tensor data (not from sizes): what a Python test on it reads. */
static bool from_data(const fx_arg *c)
{
    if (!c || c->kind != FX_ARG_NODE) return false;
    const fx_node *n = c->u.node;
    if (n->meta.val) return n->meta.val->kind == FX_VAL_TENSOR;
    if (n->op == FX_OP_PLACEHOLDER) return true;
    return n->op == FX_OP_CALL_FUNCTION && !strncmp(n->target, "torch.ops.aten.", 15) &&
           strncmp(n->target, "torch.ops.aten.sym_", 19) && strcmp(n->target, "torch.ops.aten.dim.default") &&
           strncmp(n->target, "torch.ops.aten.size", 19);
}

/* Code of torch's own modules (F.linear's checks): not the user's to fix. */
static bool library_code(const fx_node *n)
{
    return n->meta.source && strstr(n->meta.source, "/torch/");
}

/* The op name of an ATen target or method: "add_" of torch.ops.aten.add_.Tensor or add_. */
static void op_name(const fx_node *n, char *buf, size_t cap)
{
    const char *t = n->target ? n->target : "";
    if (!strncmp(t, "torch.ops.aten.", 15)) t += 15;
    size_t len = strcspn(t, ".");
    snprintf(buf, cap, "%.*s", (int)(len < cap ? len : cap - 1), t);
}

static bool user_input(const fx_program *p, const fx_node *n)
{
    if (n->op != FX_OP_PLACEHOLDER) return false;
    if (!p->sig.present) return !(strlen(n->name) > 2 && n->name[1] == '_' && strchr("pbc", n->name[0]));
    for (size_t i = 0; i < p->sig.n_inputs; i++)
        if (p->sig.inputs[i].name && !strcmp(p->sig.inputs[i].name, n->name))
            return p->sig.inputs[i].kind == FX_IN_USER_INPUT;
    return false;
}

static void warn(lint_ctx *c, const fx_node *n, const char *qname, const char *what, const char *hint)
{
    diagnostic *dg = diag_warning(c->d, (diag_loc){c->p->file, n->src_line, 0}, "%%%s: %s", qname, what);
    if (hint) diag_set_hint(dg, "%s", hint);
    c->found++;
}

static void lint_node(lint_ctx *c, const char *qname, const fx_node *n)
{
    const fx_program *p = c->p;
    strbuf what, hint;
    sb_init(&what);
    sb_init(&hint);
    fx_control_view v;
    fx_control_kind k = fx_control_kind_of(n);
    char op[64];
    op_name(n, op, sizeof op);
    size_t len = strlen(op);
    if (k == FX_CTRL_IF && fx_control_inspect(n, &v) && from_data(v.cond)) {
        sb_printf(&what, "Python `if` on the tensor %%%s: tracing records only the branch the example takes",
                  v.cond->u.node->name);
        if (!rewrite_plan(p, qname, "cond", &hint)) {
            sb_reset(&hint);
            sb_printf(&hint, "rewrite %%%s cond", qname);
        }
        warn(c, n, qname, what.s, hint.s);
    } else if (k == FX_CTRL_WHILE && fx_control_inspect(n, &v)) {
        sb_printf(&hint, "rewrite it into torch.ops.higher_order.while_loop: rewrite %%%s while_loop", qname);
        warn(c, n, qname, "Python `while` (or a `for` that stops early): tracing unrolls the iterations the example ran",
             hint.s);
    } else if (k == FX_CTRL_FOR && fx_control_inspect(n, &v)) {
        if (!v.trip || v.trip->kind != FX_ARG_INT) {   /* range(3) unrolls the same for every input */
            sb_printf(&hint, "a loop over the rows of tensors becomes scan: rewrite %%%s scan (or while_loop)", qname);
            warn(c, n, qname, "Python `for` over a size of the input: tracing unrolls it for the example's size",
                 hint.s);
        }
    } else if (library_code(n)) {
        /* torch's own checks and size arithmetic: traced the way torch meant them */
    } else if (!strcmp(op, "item") || !strcmp(op, "_local_scalar_dense") || !strcmp(op, "tolist") ||
               !strcmp(op, "numpy") || !strcmp(op, "Int") || !strcmp(op, "Float") || !strcmp(op, "Bool") ||
               !strcmp(op, "__int__") || !strcmp(op, "__float__") || !strcmp(op, "__bool__")) {
        sb_printf(&what, "%s() turns a tensor into a Python value: tracing records the example's value as a constant",
                  op);
        warn(c, n, qname, what.s,
             "keep it a tensor (torch ops instead of Python arithmetic on the value), and branch on it with "
             "torch.cond (`rewrite IF cond` for the `if` that reads it)");
    } else if (len > 1 && op[len - 1] == '_' && op[len - 2] != '_' && n->args && n->args->kind == FX_ARG_TUPLE &&
               n->args->u.seq.len && n->args->u.seq.items[0]->kind == FX_ARG_NODE &&
               user_input(p, n->args->u.seq.items[0]->u.node)) {
        const char *overload = n->target && !strncmp(n->target, "torch.ops.aten.", 15) ? n->target + 15 + len : "";
        sb_printf(&what, "%s updates the input %%%s in place: an ONNX graph cannot change its inputs, so the "
                         "traced model loses the update the caller sees in PyTorch",
                  op, n->args->u.seq.items[0]->u.node->name);
        sb_printf(&hint, "compute a new tensor instead: replace %s torch.ops.aten.%.*s%s (and use its result)", qname,
                  (int)(len - 1), op, overload[0] == '.' ? overload : ".Tensor");
        warn(c, n, qname, what.s, hint.s);
    } else if ((!strcmp(op, "size") || !strcmp(op, "sym_size")) && n->n_users) {
        bool python = false;   /* read by Python arithmetic or a Python value, not only by shape ops */
        for (size_t u = 0; u < n->n_users && !python; u++) {
            const fx_node *x = n->users[u];
            python = x->target && (!strncmp(x->target, "operator.", 9) || !strncmp(x->target, "torch.ops.aten.Int", 18) ||
                                   !strncmp(x->target, "torch.ops.aten.Float", 20) || !strcmp(x->target, "int") ||
                                   !strcmp(x->target, "float") || fx_control_kind_of(x) != FX_CTRL_NONE);
        }
        if (python) {
            /* size(x, k): the dimension to mark dynamic */
            const fx_arg *a = n->args;
            const fx_arg *x = a && a->u.seq.len > 0 ? a->u.seq.items[0] : NULL, *dim = a && a->u.seq.len > 1 ? a->u.seq.items[1] : NULL;
            for (size_t u = 0; !dim && u < n->n_users; u++) {   /* x.size()[k] */
                const fx_node *g = n->users[u];
                if (g->target && !strcmp(g->target, "operator.getitem") && g->args->u.seq.len > 1)
                    dim = g->args->u.seq.items[1];
            }
            sb_puts(&hint, "export with torch.export instead of tracing, and mark the dimension dynamic (set dynamic_shapes ");
            if (x && x->kind == FX_ARG_NODE && dim && dim->kind == FX_ARG_INT)
                sb_printf(&hint, "%s:%lld=batch", x->u.node->name, (long long)dim->u.i);
            else
                sb_puts(&hint, "INPUT:AXIS=NAME");
            sb_puts(&hint, "): it keeps the size symbolic");
            warn(c, n, qname, "a shape used as a Python int: tracing records the example's size, so the graph works "
                              "for that size only",
                 hint.s);
        }
    }
    sb_free(&what);
    sb_free(&hint);
}

typedef struct names {
    const fx_program *p;
    VEC(char *) items;
} names;

static void collect(const char *name, void *ctx)
{
    names *c = ctx;
    vec_push(&c->items, xstrdup(name));
}

size_t lint_tracing(const fx_program *p, diag_sink *d)
{
    lint_ctx c = {p, d, 0};
    names all = {p, {0}};
    fx_each_node_name(p, collect, &all);
    for (size_t i = 0; i < all.items.len; i++) {
        const fx_node *n = fx_program_find_node(p, all.items.items[i]);
        if (n) lint_node(&c, all.items.items[i], n);
        free(all.items.items[i]);
    }
    vec_free(&all.items);
    return c.found;
}
