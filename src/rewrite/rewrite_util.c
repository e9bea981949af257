/* rewrite_util.c — graph-editing helpers shared by the cond / scan / while_loop rewrites. */
#include "rewrite/rewrite_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "fx/fx.h"

diag_loc rw_loc(const fx_program *p, const fx_node *n)
{
    return (diag_loc){p->file, n ? n->src_line : 0, 0};
}

static const char *kind_text(fx_control_kind k)
{
    switch (k) {
    case FX_CTRL_IF: return "a Python if (fxsh.python_if)";
    case FX_CTRL_FOR: return "a Python for (fxsh.python_for)";
    case FX_CTRL_WHILE: return "a Python while (fxsh.python_while)";
    case FX_CTRL_COND: return "already torch.cond";
    default: return NULL;
    }
}

fx_program *rw_begin(const fx_program *p, const char *node, fx_control_kind want, fx_control_kind want2,
                     const char *into, fx_node **n, fx_control_view *v, diag_sink *d)
{
    fx_node *orig = fx_program_find_node(p, node);
    if (!orig) {
        diagnostic *dg = diag_error(d, (diag_loc){p->file, 0, 0}, "no node %s", node);
        diag_set_hint(dg, "`nodes` lists the graph with the subgraph nodes as sub.name");
        return NULL;
    }
    fx_control_kind k = fx_control_kind_of(orig);
    if (k != want && (want2 == FX_CTRL_NONE || k != want2)) {
        const char *is = kind_text(k);
        diagnostic *dg = diag_error(d, rw_loc(p, orig), "cannot rewrite %%%s into %s: it is %s%s, not %s%s%s",
                                    orig->name, into, is ? is : orig->target ? orig->target : "not a call",
                                    is ? "" : "", kind_text(want),
                                    want2 != FX_CTRL_NONE ? " or " : "", want2 != FX_CTRL_NONE ? kind_text(want2) : "");
        if (k == FX_CTRL_IF)
            diag_set_hint(dg, "a Python if becomes torch.cond: rewrite %%%s cond", orig->name);
        else if (k == FX_CTRL_FOR)
            diag_set_hint(dg, "a for over the rows of tensors becomes scan (rewrite %%%s scan), any other loop "
                              "while_loop (rewrite %%%s while_loop)", orig->name, orig->name);
        else if (k == FX_CTRL_WHILE)
            diag_set_hint(dg, "a loop that stops on a tensor test becomes while_loop: rewrite %%%s while_loop",
                          orig->name);
        else
            diag_set_hint(dg, "`find fxsh.python_` lists the Python control flow of the program");
        return NULL;
    }
    fx_program *q = fx_program_clone(p);
    *n = fx_program_find_node(q, node);
    if (!*n || !fx_control_inspect(*n, v) || !v->sub[0] || (k == FX_CTRL_IF && !v->sub[1])) {
        diag_error(d, rw_loc(p, orig), "cannot rewrite %%%s into %s: its arguments do not have the shape of %s "
                                       "(see `help rewrite`)", orig->name, into, kind_text(k));
        fx_program_free(q);
        return NULL;
    }
    return q;
}

bool rw_loop_open(fx_program *q, fx_node *n, const fx_control_view *v, rw_loop *L, diag_sink *d)
{
    memset(L, 0, sizeof *L);
    L->body = v->sub[0];
    L->bg = L->body->graph;
    L->nc = v->operands->u.seq.len;
    L->ncap = v->captured->u.seq.len;
    L->carry_ph = fx_alloc(q, (L->nc + 1) * sizeof *L->carry_ph);
    L->cap_ph = fx_alloc(q, (L->ncap + 1) * sizeof *L->cap_ph);
    size_t k = 0;
    for (fx_node *x = L->bg ? L->bg->first : NULL; x && x->op == FX_OP_PLACEHOLDER; x = x->next, k++) {
        if (k == 0)
            L->idx = x;
        else if (k <= L->nc)
            L->carry_ph[k - 1] = x;
        else if (k <= L->nc + L->ncap)
            L->cap_ph[k - 1 - L->nc] = x;
    }
    fx_node *o = L->bg ? L->bg->last : NULL;
    size_t want = L->nc + (v->kind == FX_CTRL_WHILE);
    if (k != 1 + L->nc + L->ncap || !o || o->op != FX_OP_OUTPUT || o->args->u.seq.len != 1 ||
        (o->args->u.seq.items[0]->kind != FX_ARG_TUPLE && o->args->u.seq.items[0]->kind != FX_ARG_LIST) ||
        o->args->u.seq.items[0]->u.seq.len != want) {
        diagnostic *dg = diag_error(d, rw_loc(q, n),
                                    "cannot rewrite %%%s: its body %s does not take (i, *carried, *captured) = %zu "
                                    "inputs and return %s%zu values",
                                    n->name, L->body->name, 1 + L->nc + L->ncap,
                                    v->kind == FX_CTRL_WHILE ? "(next_cond, *carried) = " : "the carried ", want);
        diag_set_hint(dg, "`show code` shows the loop node and its body class");
        return false;
    }
    L->out = o;
    L->outs = o->args->u.seq.items[0];
    return true;
}

bool rw_check_carried(const fx_program *q, const fx_node *n, const fx_control_view *v, const rw_loop *L,
                      size_t off, const char *into, const char *rule, diag_sink *d)
{
    diag_loc loc = rw_loc(q, n);
    for (size_t k = 0; k < L->nc; k++) {
        const fx_arg *init = v->operands->u.seq.items[k], *next = L->outs->u.seq.items[k + off];
        const char *bad = init->kind != FX_ARG_NODE ? "starts from a Python value"
                          : next->kind != FX_ARG_NODE ? "is set to a Python value in the body"
                          : init->u.node->meta.val && init->u.node->meta.val->kind != FX_VAL_TENSOR
                              ? "is not a tensor"
                              : NULL;
        if (bad) {
            diagnostic *dg = diag_error(d, loc, "cannot rewrite %%%s into %s: carried value %zu (%s) %s: %s carries "
                                                "tensors",
                                        n->name, into, k, L->carry_ph[k]->name, bad, into);
            diag_set_hint(dg, "keep Python numbers out of the loop state (a counter: torch.zeros((), "
                              "dtype=torch.int64))");
            return false;
        }
        const char *what = NULL;
        char b1[128], b2[128];
        if (!rw_same_meta(init->u.node->meta.val, next->u.node->meta.val, &what)) {
            diagnostic *dg = diag_error(d, loc, "cannot rewrite %%%s into %s: %s, but pair[%zu] (%s) differ in "
                                                "'%s': %s becomes %s",
                                        n->name, into, rule, k, L->carry_ph[k]->name, what,
                                        rw_value_text(init->u.node->meta.val, b1, sizeof b1),
                                        rw_value_text(next->u.node->meta.val, b2, sizeof b2));
            diag_set_hint(dg, "a carried tensor keeps its dtype and shape from one iteration to the next");
            return false;
        }
    }
    return true;
}

static bool in_place(const fx_node *x)
{
    if (x->op != FX_OP_CALL_FUNCTION || !x->target)
        return false;
    if (!strcmp(x->target, "operator.setitem"))
        return true;
    const char *ov = strrchr(x->target, '.');
    return ov && ov - x->target > 2 && ov[-1] == '_' && ov[-2] != '_' && !strncmp(x->target, "torch.ops.aten.", 15);
}

static bool is_view(const fx_node *x)
{
    static const char *const views[] = {"select.int", "slice.Tensor", "view.default", "unsqueeze.default",
                                        "squeeze.dim", "squeeze.default", "transpose.int", "permute.default",
                                        "expand.default", "narrow.default", "t.default", "alias.default",
                                        "as_strided.default", "diagonal.default", "unfold.default", NULL};
    if (x->op != FX_OP_CALL_FUNCTION || !x->target || strncmp(x->target, "torch.ops.aten.", 15) != 0)
        return false;
    for (size_t i = 0; views[i]; i++)
        if (!strcmp(x->target + 15, views[i]))
            return true;
    return false;
}

const fx_node *rw_input_mutation(const fx_graph *g, const hashmap *allowed)
{
    for (const fx_node *x = g->first; x; x = x->next) {
        if (!in_place(x) || (allowed && hm_get(allowed, x->name) == x) || !x->args->u.seq.len)
            continue;
        const fx_arg *a = x->args->u.seq.items[0];
        for (int depth = 0; a && a->kind == FX_ARG_NODE && depth < 64; depth++) {
            const fx_node *t = a->u.node;
            if (t->op == FX_OP_PLACEHOLDER)
                return x;
            a = is_view(t) && t->args->u.seq.len ? t->args->u.seq.items[0] : NULL;
        }
    }
    return NULL;
}

const fx_node *rw_find_python_control(const fx_module *m)
{
    for (const fx_node *n = m->graph ? m->graph->first : NULL; n; n = n->next) {
        fx_control_kind k = fx_control_kind_of(n);
        if (k == FX_CTRL_IF || k == FX_CTRL_FOR || k == FX_CTRL_WHILE)
            return n;
    }
    for (const fx_module *c = m->first_child; c; c = c->next_sibling) {
        const fx_node *n = rw_find_python_control(c);
        if (n)
            return n;
    }
    return NULL;
}

fx_node *rw_call_before(fx_graph *g, fx_node *before, const char *base, const char *target, fx_arg **args,
                        size_t nargs, fx_value *val)
{
    fx_program *p = g->owner->prog;
    fx_node *n = fx_node_new(g, fx_control_node_name(g, base), FX_OP_CALL_FUNCTION, target);
    fx_node_set_args(n, fx_arg_seq(p, FX_ARG_TUPLE, args, NULL, nargs), fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
    n->meta.val = val;
    if (before)
        fx_graph_insert_before(g, before, n);
    else
        fx_graph_append(g, n);
    return n;
}

fx_node *rw_placeholder_after(fx_graph *g, fx_node *after, const char *base, fx_value *val)
{
    fx_node *ph = fx_node_new(g, base, FX_OP_PLACEHOLDER, NULL);
    ph->target = ph->name;
    ph->meta.val = val;
    fx_graph_insert_after(g, after, ph);
    return ph;
}

const char *rw_first_free_name(const fx_graph *g, const char *base, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", base);
    for (size_t i = 1; fx_graph_lookup(g, buf); i++)
        snprintf(buf, cap, "%s_%zu", base, i);
    return buf;
}

static bool getitem_of(const fx_node *x, const fx_node *n)
{
    return x->op == FX_OP_CALL_FUNCTION && x->target && !strcmp(x->target, "operator.getitem") &&
           x->args->u.seq.len == 2 && x->args->u.seq.items[0]->kind == FX_ARG_NODE &&
           x->args->u.seq.items[0]->u.node == n && x->args->u.seq.items[1]->kind == FX_ARG_INT;
}

void rw_result_getitems(fx_graph *g, fx_node *n, size_t nout, fx_node **gi)
{
    fx_program *q = g->owner->prog;
    fx_graph_recompute_users(g);
    for (size_t j = 0; j < n->n_users; j++) {
        fx_node *u = n->users[j];
        int64_t k = getitem_of(u, n) ? u->args->u.seq.items[1]->u.i : -1;
        if (k >= 0 && (size_t)k < nout && !gi[k])
            gi[k] = u;
    }
    fx_node *last = n;
    while (last->next && getitem_of(last->next, n))
        last = last->next;
    for (size_t k = 0; k < nout; k++)
        if (!gi[k]) {
            fx_arg *ga[2] = {fx_arg_node(q, n), fx_arg_int(q, (int64_t)k)};
            gi[k] = rw_call_before(g, last->next, "getitem", "operator.getitem", ga, 2, NULL);
            gi[k]->meta.stack_trace = n->meta.stack_trace;
            gi[k]->meta.source = n->meta.source;
            gi[k]->meta.trace_group = n->meta.trace_group;
            gi[k]->src_line = n->src_line;
            last = gi[k];
        }
    fx_graph_recompute_users(g);
    fx_graph_renumber(g);
}

void rw_name_result_getitems(fx_graph *g, fx_node **gi, size_t nout)
{
    char tmp[64];
    for (size_t k = 0; k < nout; k++) {
        snprintf(tmp, sizeof tmp, "__rw_getitem_%zu", k);
        fx_control_rename_node(gi[k], fx_graph_unique_name(g, tmp));
    }
    for (size_t k = 0; k < nout; k++)
        fx_control_rename_node(gi[k], rw_first_free_name(g, "getitem", tmp, sizeof tmp));
    fx_graph_recompute_users(g);
    rw_remove_dead(g, gi, nout);
}

static fx_arg *replace_in(fx_program *p, fx_arg *a, const hashmap *map, bool *changed)
{
    switch (a->kind) {
    case FX_ARG_NODE: {
        fx_arg *r = hm_get(map, a->u.node->name);
        if (r && r != a) {
            *changed = true;
            return r;
        }
        return a;
    }
    case FX_ARG_LIST: case FX_ARG_TUPLE: case FX_ARG_DICT: case FX_ARG_SLICE:
        for (size_t i = 0; i < a->u.seq.len; i++)
            a->u.seq.items[i] = replace_in(p, a->u.seq.items[i], map, changed);
        return a;
    default:
        return a;
    }
}

void rw_replace_uses(fx_graph *g, const hashmap *map, const fx_node *from)
{
    fx_program *p = g->owner->prog;
    bool started = from == NULL, changed = false;
    for (fx_node *x = g->first; x; x = x->next) {
        if (x == from)
            started = true;
        if (!started)
            continue;
        x->args = replace_in(p, x->args, map, &changed);
        x->kwargs = replace_in(p, x->kwargs, map, &changed);
    }
    if (changed)
        fx_graph_recompute_users(g);
}

void rw_replace_one(fx_graph *g, fx_node *old, fx_arg *with, const fx_node *from)
{
    hashmap m;
    hm_init(&m);
    hm_put(&m, old->name, with);
    rw_replace_uses(g, &m, from);
    hm_free(&m);
}

/* Takes x out of g's list (its name stays in the map: the caller decides). */
static void unlink_node(fx_graph *g, fx_node *x)
{
    if (x->prev) x->prev->next = x->next;
    else g->first = x->next;
    if (x->next) x->next->prev = x->prev;
    else g->last = x->prev;
    x->prev = x->next = NULL;
    g->n_nodes--;
}

void rw_remove_nodes(fx_graph *g, const hashmap *dead)
{
    if (!dead->len)
        return;
    for (fx_node *x = g->first, *next; x; x = next) {
        next = x->next;
        if (hm_get(dead, x->name) != x)
            continue;
        unlink_node(g, x);
        if (hm_get(&g->names, x->name) == x)
            hm_remove(&g->names, x->name);
    }
    fx_graph_recompute_users(g);
    fx_graph_renumber(g);
}

static bool pure_call(const fx_node *x)
{
    if (x->op != FX_OP_CALL_FUNCTION || !x->target)
        return false;
    if (fx_control_kind_of(x) != FX_CTRL_NONE || !strncmp(x->target, "torch.ops.higher_order.", 23) ||
        !strncmp(x->target, "fxsh.", 5))
        return false;
    /* an in-place op (copy_, add_) acts through aliasing even when nobody reads its result */
    const char *ov = strrchr(x->target, '.');
    return !(ov && ov > x->target && ov[-1] == '_' && ov - x->target > 1 && ov[-2] != '_');
}

typedef struct dead_ctx {
    hashmap *dead, *left, *seen;
    fx_node ***stack;
    size_t *len, *cap;
} dead_ctx;

static void lose_user(fx_node *y, void *ctx)
{
    dead_ctx *c = ctx;
    if (hm_has(c->seen, y->name))
        return;   /* one user lost per distinct input */
    hm_put(c->seen, y->name, y);
    size_t left = hm_has(c->left, y->name) ? (size_t)(uintptr_t)hm_get(c->left, y->name) - 1 : y->n_users;
    if (left)
        left--;
    hm_put(c->left, y->name, (void *)(uintptr_t)(left + 1));
    if (!left) {
        xgrow((void **)c->stack, c->cap, *c->len + 1, sizeof **c->stack);
        (*c->stack)[(*c->len)++] = y;
    }
}

void rw_remove_dead(fx_graph *g, fx_node **seeds, size_t n_seeds)
{
    hashmap dead, left, seen;
    hm_init(&dead);
    hm_init(&left);
    hm_init(&seen);
    fx_node **stack = NULL;
    size_t len = 0, cap = 0;
    for (size_t i = 0; i < n_seeds; i++)
        if (seeds[i] && seeds[i]->graph == g && !seeds[i]->n_users) {
            xgrow((void **)&stack, &cap, len + 1, sizeof *stack);
            stack[len++] = seeds[i];
        }
    dead_ctx c = {&dead, &left, &seen, &stack, &len, &cap};
    while (len) {
        fx_node *x = stack[--len];
        if (hm_has(&dead, x->name) || !pure_call(x) || fx_graph_lookup(g, x->name) != x)
            continue;
        hm_put(&dead, x->name, x);
        hm_free(&seen);
        hm_init(&seen);
        fx_arg_each_node(x->args, lose_user, &c);
        fx_arg_each_node(x->kwargs, lose_user, &c);
    }
    rw_remove_nodes(g, &dead);
    free(stack);
    hm_free(&dead);
    hm_free(&left);
    hm_free(&seen);
}

void rw_number_placeholders(fx_graph *g)
{
    char buf[64];
    size_t k = 0;
    /* two steps, so that arg1_1 may become arg0_1 while arg0_1 still exists */
    for (fx_node *x = g->first; x && x->op == FX_OP_PLACEHOLDER; x = x->next, k++) {
        snprintf(buf, sizeof buf, "__rw_ph_%zu", k);
        fx_control_rename_node(x, fx_graph_unique_name(g, buf));
    }
    k = 0;
    for (fx_node *x = g->first; x && x->op == FX_OP_PLACEHOLDER; x = x->next, k++) {
        snprintf(buf, sizeof buf, "arg%zu_1", k);
        fx_control_rename_node(x, fx_graph_unique_name(g, buf));
    }
}

void rw_order_placeholders(fx_graph *g, fx_node **order, size_t n)
{
    for (size_t i = 0; i < n; i++)
        unlink_node(g, order[i]);
    fx_node *after = NULL;
    for (size_t i = 0; i < n; i++) {
        fx_graph_insert_after(g, after, order[i]);
        after = order[i];
    }
    fx_graph_renumber(g);
}

const fx_value *rw_tensor_val(const fx_arg *a)
{
    if (a && a->kind == FX_ARG_NODE && a->u.node->meta.val && a->u.node->meta.val->kind == FX_VAL_TENSOR)
        return a->u.node->meta.val;
    return NULL;
}

fx_value *rw_value_drop_dim0(fx_program *p, const fx_value *v)
{
    if (!v || v->kind != FX_VAL_TENSOR || v->rank == 0)
        return NULL;
    fx_value *r = fx_value_new(p, FX_VAL_TENSOR);
    *r = *v;
    r->rank = v->rank - 1;
    r->sizes = v->sizes + 1;
    r->strides = NULL;
    return r;
}

fx_value *rw_value_stack(fx_program *p, const fx_value *v, const char *size0)
{
    if (!v || v->kind != FX_VAL_TENSOR)
        return NULL;
    fx_value *r = fx_value_new(p, FX_VAL_TENSOR);
    *r = *v;
    r->rank = v->rank + 1;
    r->sizes = fx_alloc(p, r->rank * sizeof *r->sizes);
    r->sizes[0] = fx_strdup(p, size0);
    for (size_t i = 0; i < v->rank; i++)
        r->sizes[i + 1] = v->sizes[i];
    r->strides = NULL;
    return r;
}

const char *rw_value_text(const fx_value *v, char *buf, size_t cap)
{
    if (!v || v->kind != FX_VAL_TENSOR)
        return "?";
    size_t n = (size_t)snprintf(buf, cap, "%s[", fx_dtype_get(v->dtype)->abbr);
    for (size_t i = 0; i < v->rank && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", v->sizes[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
    return buf;
}

bool rw_same_meta(const fx_value *a, const fx_value *b, const char **what)
{
    if (!a || !b)
        return true;   /* unknown: torch checks at trace time; we cannot */
    if (a->kind != b->kind) {
        *what = "type";
        return false;
    }
    if (a->kind != FX_VAL_TENSOR)
        return true;
    if (a->dtype != b->dtype && a->dtype != FX_DT_UNKNOWN && b->dtype != FX_DT_UNKNOWN) {
        *what = "dtype";
        return false;
    }
    if (a->rank != b->rank) {
        *what = "shape";
        return false;
    }
    for (size_t i = 0; i < a->rank; i++)
        if (strcmp(a->sizes[i], b->sizes[i]) != 0) {
            *what = "shape";
            return false;
        }
    return true;
}

static bool dim_text(const fx_node *t, int64_t k, char *buf, size_t cap)
{
    const fx_value *v = t->meta.val;
    if (v && v->kind == FX_VAL_TENSOR) {
        int64_t kk = k < 0 ? k + (int64_t)v->rank : k;
        if (kk >= 0 && (size_t)kk < v->rank) {
            snprintf(buf, cap, "%s", v->sizes[kk]);
            return true;
        }
    }
    /* unknown shape: the dimension is named by the tensor, so equal sizes of one tensor match */
    snprintf(buf, cap, "%%%s.size(%lld)", t->name, (long long)k);
    return true;
}

bool rw_size_text(const fx_arg *a, char *buf, size_t cap)
{
    if (!a)
        return false;
    if (a->kind == FX_ARG_INT) {
        snprintf(buf, cap, "%lld", (long long)a->u.i);
        return true;
    }
    if (a->kind != FX_ARG_NODE)
        return false;
    const fx_node *n = a->u.node, *t;
    int64_t k;
    if (fx_control_dim_read(n, &t, &k))
        return dim_text(t, k, buf, cap);
    if (n->meta.val && n->meta.val->kind == FX_VAL_SYM && n->meta.val->text) {
        const char *t = n->meta.val->text;
        size_t l = strlen(t);
        /* a "Sym(5)" annotation keeps the parentheses' content */
        if (l > 5 && !strncmp(t, "Sym(", 4) && t[l - 1] == ')')
            snprintf(buf, cap, "%.*s", (int)(l - 5), t + 4);
        else
            snprintf(buf, cap, "%s", t);
        return true;
    }
    return false;
}

bool rw_dim0_text(const fx_node *t, char *buf, size_t cap)
{
    const fx_value *v = t->meta.val;
    if (v && v->kind == FX_VAL_TENSOR && v->rank > 0)
        return dim_text(t, 0, buf, cap);
    if (t->op == FX_OP_CALL_FUNCTION && t->target && !strncmp(t->target, "torch.ops.aten.", 15) &&
        t->args->u.seq.len > 0) {
        const char *op = t->target + 15;
        const fx_arg *a0 = t->args->u.seq.items[0];
        static const char *const sized[] = {"zeros.", "ones.", "empty.", "full.", "rand.", "randn.", NULL};
        for (size_t i = 0; sized[i]; i++)
            if (!strncmp(op, sized[i], strlen(sized[i])) && (a0->kind == FX_ARG_LIST || a0->kind == FX_ARG_TUPLE) &&
                a0->u.seq.len > 0)
                return rw_size_text(a0->u.seq.items[0], buf, cap);
        if (strstr(op, "_like.") && a0->kind == FX_ARG_NODE)
            return rw_dim0_text(a0->u.node, buf, cap);
    }
    return dim_text(t, 0, buf, cap);
}

static bool is_bool_producer(const fx_node *n)
{
    if (n->meta.val && n->meta.val->kind == FX_VAL_TENSOR && n->meta.val->dtype != FX_DT_UNKNOWN)
        return n->meta.val->dtype == FX_DT_BOOL;
    if (n->meta.val && n->meta.val->kind == FX_VAL_SYM)
        return true;
    static const char *const ops[] = {"eq.", "ne.", "gt.", "lt.", "ge.", "le.", "logical_", "isnan.", "isinf.",
                                      "bitwise_not.", "all.", "any.", "__and__.", "__or__.", NULL};
    if (n->op != FX_OP_CALL_FUNCTION)
        return false;
    if (strncmp(n->target, "operator.", 9) == 0)
        return true;   /* Python-level comparison of sizes: a SymBool */
    if (strncmp(n->target, "torch.ops.aten.", 15) != 0)
        return false;
    for (size_t i = 0; ops[i]; i++)
        if (strncmp(n->target + 15, ops[i], strlen(ops[i])) == 0)
            return true;
    return false;
}

bool rw_is_bool(const fx_node *n)
{
    return is_bool_producer(n);
}

fx_node *rw_truthiness(fx_graph *g, fx_node *before, fx_node *c)
{
    if (is_bool_producer(c))
        return c;
    fx_program *p = g->owner->prog;
    /* bool(t) on a number is t != 0: torch's rewritten code is `t != 0` → aten.ne.Scalar */
    fx_arg *args[2] = {fx_arg_node(p, c), fx_arg_int(p, 0)};
    fx_value *bv = NULL;
    if (c->meta.val && c->meta.val->kind == FX_VAL_TENSOR) {
        bv = fx_value_new(p, FX_VAL_TENSOR);
        *bv = *c->meta.val;
        bv->dtype = FX_DT_BOOL;
    }
    fx_node *ne = rw_call_before(g, before, "ne", "torch.ops.aten.ne.Scalar", args, 2, bv);
    fx_meta m = c->meta;
    m.val = bv;
    ne->meta = m;
    return ne;
}

void rw_alias_error(diag_sink *d, diag_loc loc, const char *node, const char *hop, const char *graph,
                    const char *value, const char *why, const char *fix_command)
{
    diagnostic *dg = diag_error(
        d, loc,
        "cannot rewrite %%%s: Encountered aliasing during higher order op tracing\n"
        "  Higher Order Operator: %s\n"
        "  Explanation: Higher order ops do not support aliasing. %s %s.\n"
        "  Hint: Replace `return input` with `return input.clone()` to avoid aliasing.\n"
        "  Developer debug context: %s-to-output aliasing detected at nodes %s and %s",
        node, hop, graph, why, strstr(why, "twice") ? "Output" : "Input", value, value);
    diag_set_hint(dg, "%s applies torch's fix (return %s.clone())", fix_command, value);
}

fx_node *rw_clone_before_output(fx_graph *g, fx_node *x)
{
    fx_program *p = g->owner->prog;
    fx_arg *args[1] = {fx_arg_node(p, x)};
    fx_node *c = rw_call_before(g, g->last, "clone", "torch.ops.aten.clone.default", args, 1, x->meta.val);
    return c;
}
