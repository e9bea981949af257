/* rewrite_cond.c — `rewrite NODE cond`: fxsh.python_if → torch.ops.higher_order.cond, as torch exports it. */
#include "rewrite/rewrite.h"

#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "fx/fx.h"
#include "fx/fx_control.h"
#include "rewrite/rewrite_internal.h"

static const fx_arg *branch_outputs(const fx_module *m)
{
    const fx_arg *t = m ? fx_control_graph_result(m->graph) : NULL;
    return t && (t->kind == FX_ARG_TUPLE || t->kind == FX_ARG_LIST) ? t : NULL;
}

static bool has_python_if(const fx_module *m, const char **inner)
{
    for (const fx_node *n = m->graph ? m->graph->first : NULL; n; n = n->next)
        if (fx_control_kind_of(n) == FX_CTRL_IF) {
            *inner = n->name;
            return true;
        }
    for (const fx_module *c = m->first_child; c; c = c->next_sibling)
        if (has_python_if(c, inner))
            return true;
    return false;
}

/* Checks the branches; with clone_aliased, replaces returned inputs by clones in q's copy. */
static bool check_branches(fx_program *q, const char *path, fx_node *n, const fx_control_view *v, bool clone_aliased,
                           diag_sink *d)
{
    diag_loc loc = {q->file, n->src_line, 0};
    const char *inner;
    for (int b = 0; b < 2; b++)
        if (has_python_if(v->sub[b], &inner)) {
            diagnostic *dg = diag_error(d, loc, "cannot rewrite %%%s: branch %s still has a Python if (%%%s)",
                                        n->name, v->sub[b]->name, inner);
            strbuf plan;
            sb_init(&plan);
            if (path && rewrite_plan(q, path, "cond", &plan))
                diag_set_hint(dg, "%s", plan.s);
            else
                diag_set_hint(dg, "rewrite the inner one first: rewrite %%%s.%s cond", v->sub[b]->name, inner);
            sb_free(&plan);
            return false;
        }
    const fx_arg *to = branch_outputs(v->sub[0]), *fo = branch_outputs(v->sub[1]);
    if (!to || !fo) {
        diag_error(d, loc, "cannot rewrite %%%s: a branch graph has no output tuple", n->name);
        return false;
    }
    if (to->u.seq.len != fo->u.seq.len) {
        diagnostic *dg = diag_error(d, loc,
                                    "cannot rewrite %%%s: torch.cond requires both branches to return the same "
                                    "structure, but %s returns %zu values and %s returns %zu",
                                    n->name, v->sub[0]->name, to->u.seq.len, v->sub[1]->name, fo->u.seq.len);
        diag_set_hint(dg, "make both branches return the same number of tensors");
        return false;
    }
    for (size_t i = 0; i < to->u.seq.len; i++) {
        const fx_arg *a = to->u.seq.items[i], *b = fo->u.seq.items[i];
        if (a->kind != FX_ARG_NODE || b->kind != FX_ARG_NODE) {
            diagnostic *dg = diag_error(d, loc,
                                        "cannot rewrite %%%s: torch.cond branches must return tensors, but output %zu "
                                        "of %s is a constant",
                                        n->name, i, a->kind != FX_ARG_NODE ? v->sub[0]->name : v->sub[1]->name);
            diag_set_hint(dg, "return a tensor (e.g. torch.full_like) from both branches");
            return false;
        }
        const char *what = NULL;
        char b1[128], b2[128];
        if (!rw_same_meta(a->u.node->meta.val, b->u.node->meta.val, &what)) {
            diagnostic *dg = diag_error(d, loc,
                                        "cannot rewrite %%%s: Expect branches to return tensors with same metadata "
                                        "but find pair[%zu] differ in '%s', where lhs is %s and rhs is %s",
                                        n->name, i, what, rw_value_text(a->u.node->meta.val, b1, sizeof b1),
                                        rw_value_text(b->u.node->meta.val, b2, sizeof b2));
            diag_set_hint(dg, "both branches of torch.cond must return tensors of the same dtype and shape");
            return false;
        }
    }
    for (int b = 0; b < 2; b++) {
        const fx_arg *outs = b ? fo : to;
        for (size_t i = 0; i < outs->u.seq.len; i++) {
            fx_node *x = outs->u.seq.items[i]->u.node;
            if (x->op != FX_OP_PLACEHOLDER)
                continue;
            if (!clone_aliased) {
                char graph[160], why[160], fix[160];
                snprintf(graph, sizeof graph, "Branch %s", v->sub[b]->name);
                snprintf(why, sizeof why, "returns its input %s unchanged", x->name);
                snprintf(fix, sizeof fix, "rewrite %%%s cond --clone", n->name);
                rw_alias_error(d, loc, n->name, "torch.cond", graph, x->name, why, fix);
                return false;
            }
            /* torch's fix: return x.clone() */
            fx_node *c = rw_clone_before_output(v->sub[b]->graph, x);
            outs->u.seq.items[i] = fx_arg_node(q, c);
            diag_note(d, loc, "%s returned its input %s unchanged: it now returns %s.clone()", v->sub[b]->name,
                      x->name, x->name);
        }
    }
    return true;
}

fx_program *rewrite_if_to_cond_ex(const fx_program *p, const char *node, bool clone_aliased, diag_sink *d)
{
    fx_node *n;
    fx_control_view v;
    fx_program *q = rw_begin(p, node, FX_CTRL_IF, FX_CTRL_NONE, "cond", &n, &v, d);
    if (!q)
        return NULL;
    if (!check_branches(q, node[0] == '%' ? node + 1 : node, n, &v, clone_aliased, d)) {
        fx_program_free(q);
        return NULL;
    }
    fx_graph *g = n->graph;
    fx_arg *pred = (fx_arg *)v.cond;
    if (pred->kind == FX_ARG_NODE && !rw_is_bool(pred->u.node)) {
        fx_node *c = pred->u.node;
        const fx_value *cv = c->meta.val;
        if (cv && cv->kind == FX_VAL_TENSOR) {
            for (size_t i = 0; i < cv->rank; i++)
                if (strcmp(cv->sizes[i], "1") != 0) {
                    diagnostic *dg = diag_error(d, (diag_loc){p->file, n->src_line, 0},
                                                "cannot rewrite %%%s: the condition %%%s has more than one element "
                                                "(Boolean value of Tensor with more than one value is ambiguous)",
                                                n->name, c->name);
                    diag_set_hint(dg, "reduce the condition first, e.g. .any() or .all()");
                    fx_program_free(q);
                    return NULL;
                }
        }
        fx_node *ne = rw_truthiness(g, v.graph_attr[0], c);
        pred = fx_arg_node(q, ne);
    } else if (pred->kind == FX_ARG_BOOL) {
        diag_warning(d, (diag_loc){p->file, n->src_line, 0},
                     "%%%s has a constant condition: torch.export would specialize it, no cond is needed", n->name);
    }
    /* same node, now the higher-order op: users (the getitems) follow automatically */
    fx_arg **items = n->args->u.seq.items;
    fx_arg *nargs[4] = {pred, items[1], items[2], items[3]};
    fx_node_set_args(n, fx_arg_seq(q, FX_ARG_TUPLE, nargs, NULL, 4), n->kwargs);
    n->target = fx_strdup(q, FX_HOP_COND);
    fx_control_rename_node(n, fx_graph_unique_name(g, "cond"));
    fx_program_refresh(q);
    return q;
}

fx_program *rewrite_if_to_cond(const fx_program *p, const char *node, diag_sink *d)
{
    return rewrite_if_to_cond_ex(p, node, false, d);
}
