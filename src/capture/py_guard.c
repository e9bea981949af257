/* py_guard.c — Python ifs on dynamic sizes decided for the example's sizes, as torch.export's
 * ShapeEnv decides them, with a warning that the exported model is specialized. */
#include "capture/py_guard.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "fx/fx.h"

typedef struct guard_ctx {
    const fx_program *src;
    const py_eval_options *o;
    strbuf dims, hints;          /* "batch", "batch=4" of each dynamic dimension read */
    size_t n_dims;
} guard_ctx;

static bool size_of(guard_ctx *g, const fx_node *t, int64_t k, int64_t *out)
{
    const fx_value *v = t->meta.val;
    if (!v || v->kind != FX_VAL_TENSOR)
        return false;
    if (k < 0)
        k += (int64_t)v->rank;
    if (k < 0 || (size_t)k >= v->rank)
        return false;
    const char *text = v->sizes[k];
    for (size_t i = 0; t->op == FX_OP_PLACEHOLDER && i < g->o->n_dynamic; i++) {
        const py_eval_dynamic_dim *dd = &g->o->dynamic[i];
        if (strcmp(dd->input, t->name) != 0 || dd->axis != k)
            continue;
        /* the hint: the example's size, as the program before the replay holds it */
        const fx_node *orig = fx_graph_lookup(fx_program_graph((fx_program *)g->src), t->name);
        const fx_value *ov = orig ? orig->meta.val : NULL;
        if (!ov || ov->kind != FX_VAL_TENSOR || (size_t)k >= ov->rank)
            return false;
        text = ov->sizes[k];
        if (!strstr(g->dims.s ? g->dims.s : "", dd->name)) {
            sb_printf(&g->dims, "%s%s", g->n_dims ? ", " : "", dd->name);
            sb_printf(&g->hints, "%s%s=%s", g->n_dims ? ", " : "", dd->name, text);
            g->n_dims++;
        }
        break;
    }
    char *end;
    long long s = strtoll(text, &end, 10);
    if (!*text || *end)
        return false;
    *out = s;
    return true;
}

static bool eval(guard_ctx *g, const fx_arg *a, int64_t *out, int depth)
{
    if (!a || depth > 64)
        return false;
    if (a->kind == FX_ARG_INT || a->kind == FX_ARG_BOOL) {
        *out = a->kind == FX_ARG_INT ? a->u.i : a->u.b;
        return true;
    }
    if (a->kind != FX_ARG_NODE || a->u.node->op != FX_OP_CALL_FUNCTION)
        return false;
    const fx_node *n = a->u.node;
    fx_arg **x = n->args->u.seq.items;
    size_t na = n->args->u.seq.len;
    int64_t l, r;
    if (!strcmp(n->target, "torch.ops.aten.sym_size.int") && na == 2 && x[0]->kind == FX_ARG_NODE)
        return eval(g, x[1], &r, depth + 1) && size_of(g, x[0]->u.node, r, out);
    if (strncmp(n->target, "operator.", 9) != 0 || na == 0 || !eval(g, x[0], &l, depth + 1))
        return false;
    const char *op = n->target + 9;
    if (!strcmp(op, "not_") || !strcmp(op, "neg") || !strcmp(op, "truth")) {
        *out = op[0] == 'n' ? (op[1] == 'o' ? !l : -l) : l != 0;
        return na == 1;
    }
    if (na != 2 || !eval(g, x[1], &r, depth + 1))
        return false;
    if (!strcmp(op, "add")) *out = l + r;
    else if (!strcmp(op, "sub")) *out = l - r;
    else if (!strcmp(op, "mul")) *out = l * r;
    else if (!strcmp(op, "floordiv") && r) *out = l / r - ((l % r != 0) && ((l < 0) != (r < 0)));
    else if (!strcmp(op, "mod") && r) *out = ((l % r) + r) % r;
    else if (!strcmp(op, "eq")) *out = l == r;
    else if (!strcmp(op, "ne")) *out = l != r;
    else if (!strcmp(op, "lt")) *out = l < r;
    else if (!strcmp(op, "le")) *out = l <= r;
    else if (!strcmp(op, "gt")) *out = l > r;
    else if (!strcmp(op, "ge")) *out = l >= r;
    else if (!strcmp(op, "and_")) *out = l && r;
    else if (!strcmp(op, "or_")) *out = l || r;
    else return false;
    return true;
}

int py_guard_decide(const fx_node *cond, const fx_program *src, const py_eval_options *o, const char *name,
                    const char *const branches[2], diag_loc loc, diag_sink *d)
{
    if (!cond || !o || !o->n_dynamic || (cond->meta.val && cond->meta.val->kind == FX_VAL_TENSOR))
        return -1;
    guard_ctx g = {src, o, {0}, {0}, 0};
    sb_init(&g.dims);
    sb_init(&g.hints);
    fx_arg ref = {.kind = FX_ARG_NODE, .u.node = (fx_node *)cond};
    int64_t v;
    int truth = eval(&g, &ref, &v, 0) && g.n_dims ? v != 0 : -1;
    if (truth >= 0) {
        const char *expr = cond->meta.val && cond->meta.val->kind == FX_VAL_SYM && cond->meta.val->text
                               ? cond->meta.val->text
                               : cond->name;
        diagnostic *dg = diag_warning(d, loc,
                                      "%%%s: the condition `%s` reads the dynamic dimension%s %s; torch.export decides it "
                                      "for the example (%s: %s) and keeps only %s, while the dimension stays dynamic: "
                                      "the exported model is silently wrong for every size where the condition is %s",
                                      name, expr, g.n_dims == 1 ? "" : "s", g.dims.s, g.hints.s,
                                      truth ? "True" : "False", branches[truth ? 0 : 1], truth ? "False" : "True");
        diag_set_hint(dg, "check a size of the other branch with `verify --expected FILE`; keep both branches with "
                          "`rewrite %s cond`, or export with that dimension static",
                      name);
    }
    sb_free(&g.dims);
    sb_free(&g.hints);
    return truth;
}
