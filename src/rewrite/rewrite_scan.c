/* rewrite_scan.c — `rewrite NODE scan`: a Python for over the rows of tensors → torch.ops.higher_order.scan. */
#include "rewrite/rewrite.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "fx/fx.h"
#include "rewrite/rewrite_internal.h"

/* What the body does with one captured tensor. */
typedef struct cap_info {
    fx_node *ph;             /* its placeholder in the body */
    fx_arg *outer;           /* the captured operand */
    bool row;                /* read as x[i] / x[i:i+1]: a scanned input */
    bool whole;              /* used as a whole tensor: an additional input */
    fx_node *write;          /* the node writing out[i] (copy_ or setitem), NULL if none */
    fx_node *value;          /* the value written */
    int writes;
    fx_node *read;           /* for a refusal: a read of a written tensor, or of another row */
    bool read_offset_known;
    int64_t read_offset;
    fx_node *row_ph;         /* the combine graph's input for row i */
} cap_info;

typedef struct scan_ctx {
    fx_program *q;
    fx_node *n;              /* the loop node (becomes the scan) */
    fx_control_view v;
    rw_loop L;
    cap_info *caps;
    hashmap consumed;        /* body nodes the rewrite replaces or removes (name → node) */
    hashmap row_reads;       /* select nodes read as x[i] → the cap_info index + 1 */
    hashmap keepdim_reads;   /* slice nodes read as x[i:i+1] → the cap_info index + 1 */
    diag_sink *d;
} scan_ctx;

static bool target_is(const fx_node *x, const char *t)
{
    return x->op == FX_OP_CALL_FUNCTION && x->target && !strcmp(x->target, t);
}

static fx_arg **argv_of(const fx_node *x, size_t *n)
{
    *n = x->args->u.seq.len;
    return x->args->u.seq.items;
}

static bool is_int(const fx_arg *a, int64_t v)
{
    return a && a->kind == FX_ARG_INT && a->u.i == v;
}

/* a is the loop index plus a constant: i, i + k, k + i, i - k. */
static bool index_offset(const fx_arg *a, const fx_node *idx, int64_t *k)
{
    if (!a || a->kind != FX_ARG_NODE)
        return false;
    const fx_node *x = a->u.node;
    if (x == idx) {
        *k = 0;
        return true;
    }
    size_t na;
    fx_arg **xa = argv_of(x, &na);
    if (na != 2)
        return false;
    bool add = target_is(x, "operator.add"), sub = target_is(x, "operator.sub");
    if ((add || sub) && xa[0]->kind == FX_ARG_NODE && xa[0]->u.node == idx && xa[1]->kind == FX_ARG_INT) {
        *k = sub ? -xa[1]->u.i : xa[1]->u.i;
        return true;
    }
    if (add && xa[1]->kind == FX_ARG_NODE && xa[1]->u.node == idx && xa[0]->kind == FX_ARG_INT) {
        *k = xa[0]->u.i;
        return true;
    }
    return false;
}

/* x = select.int(ph, 0, index) or ph[index]: returns the index argument. */
static const fx_arg *row_index(const fx_node *x, const fx_node *ph)
{
    size_t na;
    fx_arg **a = argv_of(x, &na);
    if (na < 2 || a[0]->kind != FX_ARG_NODE || a[0]->u.node != ph)
        return NULL;
    if (target_is(x, "torch.ops.aten.select.int") && na == 3 && is_int(a[1], 0))
        return a[2];
    if (target_is(x, "operator.getitem") && na == 2 && (a[1]->kind == FX_ARG_NODE || a[1]->kind == FX_ARG_INT))
        return a[1];
    return NULL;
}

/* x = slice.Tensor(ph, 0, i + k, i + k + 1[, 1]) (x[i:i+1]): true with *k. */
static bool row_keepdim(const fx_node *x, const fx_node *ph, const fx_node *idx, int64_t *k, bool *is_slice)
{
    size_t na;
    fx_arg **a = argv_of(x, &na);
    *is_slice = false;
    if (!target_is(x, "torch.ops.aten.slice.Tensor") || na < 4 || na > 5 || a[0]->kind != FX_ARG_NODE ||
        a[0]->u.node != ph || !is_int(a[1], 0))
        return false;
    *is_slice = true;
    int64_t k1, k2;
    if (na == 5 && !is_int(a[4], 1))
        return false;
    return index_offset(a[2], idx, &k1) && index_offset(a[3], idx, &k2) && k2 == k1 + 1 && (*k = k1, true);
}

/* A slice that keeps a whole dimension: slice.Tensor(v[, d, None|0, None|INT64_MAX[, 1]]) (defaults dropped). */
static bool full_slice(const fx_node *x, const fx_node *of)
{
    size_t na;
    fx_arg **a = argv_of(x, &na);
    if (!target_is(x, "torch.ops.aten.slice.Tensor") || na < 1 || a[0]->kind != FX_ARG_NODE || a[0]->u.node != of)
        return false;
    bool start = na < 3 || a[2]->kind == FX_ARG_NONE || is_int(a[2], 0);
    bool end = na < 4 || a[3]->kind == FX_ARG_NONE || is_int(a[3], INT64_MAX);
    bool step = na < 5 || is_int(a[4], 1);
    return start && end && step;
}

/* out[i] = v / out[i, :] = v: the view of row i (followed by full slices) is only written by a
 * copy_ nobody reads. Returns the copy_ node (the value in *value) and marks the chain. */
static fx_node *write_chain(scan_ctx *c, fx_node *row, fx_node **value)
{
    fx_node *view = row;
    for (;;) {
        if (view->n_users != 1)
            return NULL;
        fx_node *u = view->users[0];
        if (full_slice(u, view)) {
            view = u;
            continue;
        }
        size_t na;
        fx_arg **a = argv_of(u, &na);
        if (target_is(u, "torch.ops.aten.copy_.default") && na >= 2 && na <= 3 && a[0]->kind == FX_ARG_NODE &&
            a[0]->u.node == view && a[1]->kind == FX_ARG_NODE && a[1]->u.node != view && u->n_users == 0) {
            *value = a[1]->u.node;
            for (fx_node *x = u; x != row; x = x->args->u.seq.items[0]->u.node)
                hm_put(&c->consumed, x->name, x);
            hm_put(&c->consumed, row->name, row);
            return u;
        }
        return NULL;
    }
}

/* operator.setitem(ph, i or (i, :, ...), v) */
static bool setitem_write(const fx_node *x, const fx_node *ph, const fx_node *idx, fx_node **value)
{
    size_t na;
    fx_arg **a = argv_of(x, &na);
    if (!target_is(x, "operator.setitem") || na != 3 || a[0]->kind != FX_ARG_NODE || a[0]->u.node != ph ||
        a[2]->kind != FX_ARG_NODE)
        return false;
    const fx_arg *ix = a[1];
    if (ix->kind == FX_ARG_TUPLE && ix->u.seq.len >= 1) {
        for (size_t i = 1; i < ix->u.seq.len; i++) {
            const fx_arg *s = ix->u.seq.items[i];
            if (s->kind != FX_ARG_SLICE || s->u.seq.items[0]->kind != FX_ARG_NONE ||
                s->u.seq.items[1]->kind != FX_ARG_NONE || s->u.seq.items[2]->kind != FX_ARG_NONE)
                return false;
        }
        ix = ix->u.seq.items[0];
    }
    if (ix->kind != FX_ARG_NODE || ix->u.node != idx)
        return false;
    *value = a[2]->u.node;
    return true;
}

static void classify(scan_ctx *c, size_t k)
{
    cap_info *ci = &c->caps[k];
    fx_node *idx = c->L.idx;
    for (size_t j = 0; j < ci->ph->n_users; j++) {
        fx_node *u = ci->ph->users[j];
        const fx_arg *ix = row_index(u, ci->ph);
        int64_t off;
        bool is_slice;
        fx_node *val = NULL;
        if (ix) {
            if (index_offset(ix, idx, &off) && off == 0) {
                fx_node *w = write_chain(c, u, &val);
                if (w) {
                    ci->write = w;
                    ci->value = val;
                    ci->writes++;
                } else {
                    ci->row = true;
                    hm_put(&c->row_reads, u->name, (void *)(uintptr_t)(k + 1));
                    hm_put(&c->consumed, u->name, u);
                    if (!ci->read) ci->read = u, ci->read_offset_known = true, ci->read_offset = 0;
                }
            } else {
                /* another row: i + 1, i - 1, or an index that is not the loop's */
                ci->read = u;
                ci->read_offset_known = index_offset(ix, idx, &off);
                ci->read_offset = ci->read_offset_known ? off : 0;
                ci->row = true;
            }
        } else if (row_keepdim(u, ci->ph, idx, &off, &is_slice)) {
            ci->row = true;
            if (off == 0) {
                hm_put(&c->keepdim_reads, u->name, (void *)(uintptr_t)(k + 1));
                hm_put(&c->consumed, u->name, u);
                if (!ci->read) ci->read = u, ci->read_offset_known = true, ci->read_offset = 0;
            } else {
                ci->read = u;
                ci->read_offset_known = true;
                ci->read_offset = off;
            }
        } else if (setitem_write(u, ci->ph, idx, &val)) {
            ci->write = u;
            ci->value = val;
            ci->writes++;
            hm_put(&c->consumed, u->name, u);
        } else {
            ci->whole = true;
            if (!ci->read) ci->read = u, ci->read_offset_known = false;
        }
    }
}

static void offset_text(const cap_info *ci, char *buf, size_t cap)
{
    if (!ci->read_offset_known)
        snprintf(buf, cap, "an index other than i");
    else if (ci->read_offset == 0)
        snprintf(buf, cap, "i");
    else
        snprintf(buf, cap, "i %c %lld", ci->read_offset > 0 ? '+' : '-',
                 (long long)(ci->read_offset > 0 ? ci->read_offset : -ci->read_offset));
}

/* The reads and writes scan can express; false after reporting the first that it cannot. */
static bool check_accesses(scan_ctx *c)
{
    fx_node *n = c->n;
    diag_loc loc = rw_loc(c->q, n);
    char ix[64];
    for (size_t k = 0; k < c->L.ncap; k++) {
        cap_info *ci = &c->caps[k];
        const char *name = ci->outer->kind == FX_ARG_NODE ? ci->outer->u.node->name : ci->ph->name;
        offset_text(ci, ix, sizeof ix);
        if (ci->writes > 1) {
            diagnostic *dg = diag_error(c->d, loc, "cannot rewrite %%%s into scan: the body writes %%%s[i] twice "
                                                       "in one iteration", n->name, name);
            diag_set_hint(dg, "compute the row once and write it once");
            return false;
        }
        if (ci->writes && (ci->row || ci->whole)) {
            diagnostic *dg;
            if (ci->whole)
                dg = diag_error(c->d, loc, "cannot rewrite %%%s into scan: the body uses %%%s whole (in %%%s) besides "
                                           "writing its row i: scan builds the written rows only after the last "
                                           "iteration", n->name, name, ci->read->name);
            else if (ci->read_offset_known && ci->read_offset > 0)
                dg = diag_error(c->d, loc, "cannot rewrite %%%s into scan: iteration i reads %%%s[%s] (%%%s), a value "
                                           "written by a later iteration (i + %lld)", n->name, name, ix, ci->read->name,
                                (long long)ci->read_offset);
            else if (ci->read_offset_known && ci->read_offset < 0)
                dg = diag_error(c->d, loc, "cannot rewrite %%%s into scan: iteration i reads %%%s[%s] (%%%s), a value "
                                           "written by an earlier iteration", n->name, name, ix, ci->read->name);
            else
                dg = diag_error(c->d, loc, "cannot rewrite %%%s into scan: the body reads %%%s[%s] (%%%s) of the "
                                           "tensor it writes", n->name, name, ix, ci->read->name);
            diag_set_hint(dg, "scan's stacked outputs cannot be read inside the loop; carry the value the next "
                              "iteration needs as loop state (h = ...) instead");
            return false;
        }
        if (ci->row && ci->read && !(ci->read_offset_known && ci->read_offset == 0) &&
            !hm_has(&c->row_reads, ci->read->name) && !hm_has(&c->keepdim_reads, ci->read->name)) {
            diagnostic *dg = diag_error(c->d, loc, "cannot rewrite %%%s into scan: iteration i reads %%%s[%s] (%%%s), "
                                                    "but scan's combine_fn sees only row i of a scanned tensor",
                                        n->name, name, ix, ci->read->name);
            diag_set_hint(dg, "read x[i] only, or carry the row needed next as loop state");
            return false;
        }
    }
    /* every use of the index must be one of the row accesses above */
    fx_node *idx = c->L.idx;
    for (size_t j = 0; j < idx->n_users; j++) {
        fx_node *u = idx->users[j];
        if (hm_has(&c->consumed, u->name))
            continue;
        int64_t off;
        bool ok = index_offset(&(fx_arg){.kind = FX_ARG_NODE, .u.node = u}, idx, &off) && u->n_users > 0;
        for (size_t m = 0; ok && m < u->n_users; m++)
            ok = hm_has(&c->keepdim_reads, u->users[m]->name);
        if (ok) {
            hm_put(&c->consumed, u->name, u);
            continue;
        }
        diagnostic *dg = diag_error(c->d, loc, "cannot rewrite %%%s into scan: the body uses the loop index %%%s in "
                                               "%%%s (%s), but scan's combine_fn receives no index",
                                    n->name, idx->name, u->name, u->target);
        diag_set_hint(dg, "use i only to read x[i] and write out[i]; a loop that needs its count is a while_loop: "
                          "rewrite %%%s while_loop", n->name);
        return false;
    }
    return true;
}

/* n in range(n) is the first dimension of every scanned and written tensor. */
static bool check_trip(scan_ctx *c, char *rows, size_t cap)
{
    fx_node *n = c->n;
    diag_loc loc = rw_loc(c->q, n);
    char trip[128], dim[128];
    if (!rw_size_text(c->v.trip, trip, sizeof trip)) {
        diagnostic *dg = diag_error(c->d, loc, "cannot rewrite %%%s into scan: its trip count is not a size "
                                               "(scan runs once per row of the tensors it scans)", n->name);
        diag_set_hint(dg, "scan needs `for i in range(x.shape[0])`");
        return false;
    }
    rows[0] = 0;
    bool any = false;
    for (size_t k = 0; k < c->L.ncap; k++) {
        cap_info *ci = &c->caps[k];
        if (!ci->row && !ci->writes)
            continue;
        any = true;
        const char *name = ci->outer->kind == FX_ARG_NODE ? ci->outer->u.node->name : ci->ph->name;
        if (ci->outer->kind != FX_ARG_NODE || !rw_dim0_text(ci->outer->u.node, dim, sizeof dim) ||
            strcmp(dim, trip) != 0) {
            diagnostic *dg = diag_error(c->d, loc, "cannot rewrite %%%s into scan: the trip count is not the scanned "
                                                   "dimension: the loop runs range(%s) but %s %%%s, whose first "
                                                   "dimension is %s",
                                        n->name, trip, ci->writes ? "writes the rows of" : "scans", name,
                                        ci->outer->kind == FX_ARG_NODE ? dim : "unknown");
            diag_set_hint(dg, "scan runs once per row: loop over range(%s.shape[0])", name);
            return false;
        }
        if (!rows[0] && dim[0] != '%')
            snprintf(rows, cap, "%s", dim);
    }
    if (!any) {
        diagnostic *dg = diag_error(c->d, loc, "cannot rewrite %%%s into scan: the body reads no row x[i] and "
                                               "writes no row out[i] of a tensor, so there is nothing to scan",
                                    n->name);
        diag_set_hint(dg, "a loop that only updates its state is a while_loop: rewrite %%%s while_loop", n->name);
        return false;
    }
    if (!rows[0] && trip[0] != '%')
        snprintf(rows, cap, "%s", trip);
    return true;
}

/* Is w (a node of the body) an input of the combine graph once rewritten? */
static bool becomes_input(const scan_ctx *c, const fx_node *w)
{
    return w->op == FX_OP_PLACEHOLDER || hm_has(&c->row_reads, w->name);
}

/* The combine outputs: checks aliasing (or clones with clone_aliased). outs[] has nouts items
 * whose description is what[k]. */
static bool check_aliasing(scan_ctx *c, fx_node **outs, const char **what, size_t nouts, bool clone_aliased)
{
    diag_loc loc = rw_loc(c->q, c->n);
    hashmap seen;
    hm_init(&seen);
    bool ok = true;
    for (size_t k = 0; k < nouts && ok; k++) {
        fx_node *w = outs[k];
        const char *first = hm_get(&seen, w->name);
        char why[256];
        if (becomes_input(c, w))
            snprintf(why, sizeof why, "returns its input %s unchanged as %s (Combine_fn might be aliasing the input!)",
                     w->name, what[k]);
        else if (first)
            snprintf(why, sizeof why, "returns %s twice, as %s and as %s", w->name, first, what[k]);
        else {
            hm_put(&seen, w->name, (void *)what[k]);
            continue;
        }
        if (!clone_aliased) {
            char fix[160];
            snprintf(fix, sizeof fix, "rewrite %%%s scan --clone", c->n->name);
            rw_alias_error(c->d, loc, c->n->name, "torch.ops.higher_order.scan", "combine_fn", w->name, why, fix);
            ok = false;
            break;
        }
        fx_node *cl = rw_clone_before_output(c->L.bg, w);
        cl->meta.stack_trace = w->meta.stack_trace;
        cl->meta.source = w->meta.source;
        diag_note(c->d, loc, "combine_fn %s: it now returns %s.clone()", why, w->name);
        outs[k] = cl;
    }
    hm_free(&seen);
    return ok;
}

static void copy_source(fx_node *to, const fx_node *from)
{
    to->meta.stack_trace = from->meta.stack_trace;
    to->meta.source = from->meta.source;
    to->meta.trace_group = from->meta.trace_group;
    to->src_line = from->src_line;
}

/* The combine graph from the body: rows read become inputs, rows written outputs (outs[], in
 * order); every check is done before. pseudo: the captured operand carried unchanged, or -1. */
static void build_combine(scan_ctx *c, fx_node **outs, size_t nouts, long pseudo)
{
    fx_program *q = c->q;
    fx_graph *bg = c->L.bg;
    size_t ncap = c->L.ncap;
    /* one input per scanned tensor, for its row i */
    fx_node *after = c->L.idx;
    for (size_t k = 0; k < ncap; k++) {
        cap_info *ci = &c->caps[k];
        if (!ci->row || ci->writes)
            continue;
        ci->row_ph = rw_placeholder_after(bg, after, "row", rw_value_drop_dim0(q, rw_tensor_val(ci->outer)));
        after = ci->row_ph;
    }
    hashmap repl, dead;
    hm_init(&repl);
    hm_init(&dead);
    for (fx_node *x = bg->first; x; x = x->next) {
        uintptr_t k = (uintptr_t)hm_get(&c->row_reads, x->name);
        if (k)
            hm_put(&repl, x->name, fx_arg_node(q, c->caps[k - 1].row_ph));
    }
    rw_replace_uses(bg, &repl, NULL);
    /* x[i:i+1] is the row with its dimension kept: row.unsqueeze(0) */
    for (fx_node *x = bg->first; x; x = x->next) {
        uintptr_t k = (uintptr_t)hm_get(&c->keepdim_reads, x->name);
        if (!k)
            continue;
        fx_node *row = c->caps[k - 1].row_ph;
        fx_arg *args[2] = {fx_arg_node(q, row), fx_arg_int(q, 0)};
        fx_node_set_args(x, fx_arg_seq(q, FX_ARG_TUPLE, args, NULL, 2), fx_arg_seq(q, FX_ARG_DICT, NULL, NULL, 0));
        x->target = fx_strdup(q, "torch.ops.aten.unsqueeze.default");
        hm_remove(&c->consumed, x->name);
        fx_control_rename_node(x, fx_control_node_name(bg, "unsqueeze"));
        if (!x->meta.val && row->meta.val) {
            x->meta.val = rw_value_stack(q, row->meta.val, "1");
        }
    }
    /* output: [new carries..., rows written...] (torch prints the combine output as a list) */
    fx_arg **items = xmalloc((nouts + 1) * sizeof *items);
    for (size_t k = 0; k < nouts; k++)
        items[k] = fx_arg_node(q, outs[k]);
    fx_arg *list = fx_arg_seq(q, FX_ARG_LIST, items, NULL, nouts);
    free(items);
    fx_node_set_args(c->L.out, fx_arg_seq(q, FX_ARG_TUPLE, &list, NULL, 1), c->L.out->kwargs);
    fx_graph_recompute_users(bg);
    /* drop the index, the row reads and writes, and the inputs nothing reads any more */
    for (fx_node *x = bg->first; x; x = x->next)
        if (hm_get(&c->consumed, x->name) == x)
            hm_put(&dead, x->name, x);
    hm_put(&dead, c->L.idx->name, c->L.idx);
    for (size_t k = 0; k < ncap; k++) {
        cap_info *ci = &c->caps[k];
        if ((long)k != pseudo && (ci->writes || !ci->whole))
            hm_put(&dead, ci->ph->name, ci->ph);
    }
    rw_remove_nodes(bg, &dead);
    /* inputs: (carries, rows, additional), as arg0_1, arg1_1, ... */
    fx_node **order = xmalloc((c->L.nc + 2 * ncap + 1) * sizeof *order);
    size_t no = 0;
    for (size_t k = 0; k < c->L.nc; k++)
        order[no++] = c->L.carry_ph[k];
    if (pseudo >= 0)
        order[no++] = c->caps[pseudo].ph;
    for (size_t k = 0; k < ncap; k++)
        if (c->caps[k].row_ph)
            order[no++] = c->caps[k].row_ph;
    for (size_t k = 0; k < ncap; k++)
        if ((long)k != pseudo && c->caps[k].whole && !c->caps[k].writes)
            order[no++] = c->caps[k].ph;
    rw_order_placeholders(bg, order, no);
    free(order);
    rw_number_placeholders(bg);
    hm_free(&repl);
    hm_free(&dead);
}

/* The scan node in the enclosing graph, its results, and the buffers they replace. */
static void build_outer(scan_ctx *c, long pseudo, size_t nys, const char *rows)
{
    fx_program *q = c->q;
    fx_node *n = c->n;
    fx_graph *g = n->graph;
    size_t ncap = c->L.ncap, nc = c->L.nc + (pseudo >= 0);
    fx_arg **init = xmalloc((nc + 1) * sizeof *init), **xs = xmalloc((ncap + 1) * sizeof *xs),
           **add = xmalloc((ncap + 1) * sizeof *add);
    size_t ni = 0, nx = 0, na = 0;
    for (size_t k = 0; k < c->L.nc; k++)
        init[ni++] = c->v.operands->u.seq.items[k];
    if (pseudo >= 0)
        init[ni++] = c->caps[pseudo].outer;
    for (size_t k = 0; k < ncap; k++)
        if (c->caps[k].row_ph)
            xs[nx++] = c->caps[k].outer;
    for (size_t k = 0; k < ncap; k++)
        if ((long)k != pseudo && c->caps[k].whole && !c->caps[k].writes)
            add[na++] = c->caps[k].outer;
    fx_arg *a[4] = {(fx_arg *)n->args->u.seq.items[1], fx_arg_seq(q, FX_ARG_LIST, init, NULL, ni),
                    fx_arg_seq(q, FX_ARG_LIST, xs, NULL, nx), fx_arg_seq(q, FX_ARG_TUPLE, add, NULL, na)};
    free(init);
    free(xs);
    free(add);
    fx_node_set_args(n, fx_arg_seq(q, FX_ARG_TUPLE, a, NULL, 4), fx_arg_seq(q, FX_ARG_DICT, NULL, NULL, 0));
    n->target = fx_strdup(q, "torch.ops.higher_order.scan");
    n->meta.val = NULL;   /* the loop's carried values are not scan's results: inferred anew */
    fx_control_rename_node(n, fx_control_node_name(g, "scan"));
    fx_control_rename_subgraph(g->owner, c->L.body, c->v.graph_attr[0], "scan_combine_graph");
    /* results: the loop's getitems keep their index (carries come first) */
    size_t nout = nc + nys;
    fx_node **gi = xcalloc(nout + 1, sizeof *gi);
    rw_result_getitems(g, n, nout, gi);
    size_t y = 0;
    fx_node **seeds = xmalloc((nout + ncap + 2) * sizeof *seeds);
    size_t ns = 0;
    if (pseudo >= 0 && !gi[c->L.nc]->meta.val)
        gi[c->L.nc]->meta.val = (fx_value *)rw_tensor_val(c->caps[pseudo].outer);
    fx_graph_renumber(g);
    /* each written tensor is the stacked output from here on */
    for (size_t k = 0; k < ncap; k++) {
        cap_info *ci = &c->caps[k];
        if (!ci->writes)
            continue;
        fx_node *out = gi[nc + y++];
        if (!out->meta.val && rows[0])
            out->meta.val = rw_value_stack(q, ci->value->meta.val, rows);
        if (ci->outer->kind == FX_ARG_NODE) {
            rw_replace_one(g, ci->outer->u.node, fx_arg_node(q, out), n->next);
            seeds[ns++] = ci->outer->u.node;
        }
    }
    /* what only fed the loop (its trip count, the buffers it filled) goes, as torch.export's
     * dead-code pass drops it */
    if (c->v.trip->kind == FX_ARG_NODE)
        seeds[ns++] = c->v.trip->u.node;
    fx_graph_recompute_users(g);
    rw_remove_dead(g, seeds, ns);
    rw_name_result_getitems(g, gi, nout);
    free(seeds);
    free(gi);
}

fx_program *rewrite_for_to_scan(const fx_program *p, const char *node, bool clone_aliased, diag_sink *d)
{
    scan_ctx c = {.d = d};
    c.q = rw_begin(p, node, FX_CTRL_FOR, FX_CTRL_NONE, "scan", &c.n, &c.v, d);
    if (!c.q)
        return NULL;
    hm_init(&c.consumed);
    hm_init(&c.row_reads);
    hm_init(&c.keepdim_reads);
    fx_program *result = NULL;
    fx_node **outs = NULL;
    const char **what = NULL;
    if (!rw_loop_open(c.q, c.n, &c.v, &c.L, d))
        goto out;
    const fx_node *inner = rw_find_python_control(c.L.body);
    if (inner) {
        diagnostic *dg = diag_error(d, rw_loc(c.q, c.n), "cannot rewrite %%%s into scan: its body still has Python "
                                                        "control flow (%%%s)", c.n->name, inner->name);
        diag_set_hint(dg, "rewrite the inner one first: rewrite %%%s.%s %s", inner->graph->owner->name, inner->name,
                      fx_control_kind_of(inner) == FX_CTRL_IF ? "cond" : "scan");
        goto out;
    }
    c.caps = fx_alloc(c.q, (c.L.ncap + 1) * sizeof *c.caps);
    for (size_t k = 0; k < c.L.ncap; k++) {
        c.caps[k].ph = c.L.cap_ph[k];
        c.caps[k].outer = c.v.captured->u.seq.items[k];
        classify(&c, k);
    }
    const fx_node *mut = rw_input_mutation(c.L.bg, &c.consumed);
    if (mut) {
        diagnostic *dg = diag_error(d, rw_loc(c.q, c.n), "cannot rewrite %%%s into scan: Combine_fn might be "
                                                        "modifying the input! (%%%s, %s, writes into an input of "
                                                        "the body)", c.n->name, mut->name, mut->target);
        diag_set_hint(dg, "compute a new tensor instead of writing in place (out-of-place op, or out[i] = v for "
                          "a row)");
        goto out;
    }
    for (size_t k = 0; k < c.L.ncap; k++)
        if (c.caps[k].writes && c.caps[k].outer->kind == FX_ARG_NODE &&
            c.caps[k].outer->u.node->op == FX_OP_PLACEHOLDER) {
            diagnostic *dg = diag_error(d, rw_loc(c.q, c.n), "cannot rewrite %%%s into scan: the loop writes the "
                                                            "rows of the input %%%s in place, but scan returns new "
                                                            "tensors", c.n->name, c.caps[k].outer->u.node->name);
            diag_set_hint(dg, "write the rows into a new tensor (torch.empty_like(%s)) and return it",
                          c.caps[k].outer->u.node->name);
            goto out;
        }
    char rows[128];
    if (!check_accesses(&c) || !check_trip(&c, rows, sizeof rows) ||
        !rw_check_carried(c.q, c.n, &c.v, &c.L, 0, "scan",
                          "the combine_fn's init and next carries must have the same metadata", d))
        goto out;
    /* scan() operator requires init leaves: without loop state, carry a tensor the body only
     * reads, unchanged (PyTorch's own cdist example carries y and returns y.clone()) */
    long pseudo = -1;
    if (c.L.nc == 0) {
        for (size_t k = 0; k < c.L.ncap && pseudo < 0; k++)
            if (c.caps[k].whole && !c.caps[k].writes && !c.caps[k].row && c.caps[k].outer->kind == FX_ARG_NODE)
                pseudo = (long)k;
        if (pseudo < 0) {
            diagnostic *dg = diag_error(d, rw_loc(c.q, c.n), "cannot rewrite %%%s into scan: scan() operator requires "
                                                            "init leaves, and the loop carries no value and uses no "
                                                            "other tensor that could be carried unchanged", c.n->name);
            diag_set_hint(dg, "carry a value through the loop (an accumulator), then rewrite it");
            goto out;
        }
    }
    size_t nys = 0;
    for (size_t k = 0; k < c.L.ncap; k++)
        nys += c.caps[k].writes != 0;
    size_t nouts = c.L.nc + (pseudo >= 0) + nys;
    outs = xmalloc((nouts + 1) * sizeof *outs);
    what = xmalloc((nouts + 1) * sizeof *what);
    size_t no = 0;
    for (size_t k = 0; k < c.L.nc; k++) {
        outs[no] = c.L.outs->u.seq.items[k]->u.node;
        what[no++] = arena_printf(&c.q->arena, "carry %zu", k);
    }
    if (pseudo >= 0) {
        fx_node *cl = rw_clone_before_output(c.L.bg, c.caps[pseudo].ph);
        copy_source(cl, c.n);
        outs[no] = cl;
        what[no++] = "carry 0";
        diag_note(d, rw_loc(c.q, c.n), "%%%s carries no value, and scan() needs one: %s is carried unchanged (the "
                                       "combine function returns %s.clone())",
                  c.n->name, c.caps[pseudo].ph->name, c.caps[pseudo].ph->name);
    }
    for (size_t k = 0; k < c.L.ncap; k++)
        if (c.caps[k].writes) {
            outs[no] = c.caps[k].value;
            what[no++] = arena_printf(&c.q->arena, "the row written to %s",
                                      c.caps[k].outer->kind == FX_ARG_NODE ? c.caps[k].outer->u.node->name
                                                                           : c.caps[k].ph->name);
        }
    if (!check_aliasing(&c, outs, what, nouts, clone_aliased))
        goto out;
    build_combine(&c, outs, nouts, pseudo);
    build_outer(&c, pseudo, nys, rows);
    fx_program_refresh(c.q);
    result = c.q;
out:
    free(outs);
    free(what);
    hm_free(&c.consumed);
    hm_free(&c.row_reads);
    hm_free(&c.keepdim_reads);
    if (!result)
        fx_program_free(c.q);
    return result;
}
