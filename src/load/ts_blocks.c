/* ts_blocks.c — prim::If and prim::Loop blocks → cond / while-loop subgraphs: block scopes, the
 * values they capture from outer scopes, their outputs, and module attributes they read. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/strbuf.h"
#include "fx/fx_control.h"
#include "load/fx_weight_source.h"
#include "load/ts_load.h"
#include "load/ts_load_internal.h"

/* The declared value of attribute fqn (by FQN first, then by its bare name), NULL if none. */
const ts_attr_decl *tsl_attr_decl(loader *L, const char *fqn, const char *name)
{
    const ts_attr_decl *bare = NULL;
    for (size_t i = 0; L->opts && i < L->opts->n_attrs; i++) {
        if (strcmp(L->opts->attrs[i].name, fqn) == 0)
            return &L->opts->attrs[i];
        if (!bare && strcmp(L->opts->attrs[i].name, name) == 0)
            bare = &L->opts->attrs[i];
    }
    return bare;
}


/* Reads "blockN(%a : T, ...):" at L->pos into a fresh scope whose placeholders are the block
 * parameters; returns the scope. */
static scope *open_block(loader *L, scope *parent, fx_module *m, size_t *indent)
{
    if (L->pos >= L->n_lines || L->lines[L->pos].len < 5 || memcmp(L->lines[L->pos].s, "block", 5) != 0)
        return NULL;
    const ts_line *ln = &L->lines[L->pos++];
    *indent = ln->indent;
    scope *s = tsl_scope_new(L, parent, m);
    size_t i = 0, n = ln->len;
    while (i < n && ln->s[i] != '(')
        i++;
    i++;
    while (i < n && ln->s[i] != ')') {
        tsl_skip_sp(ln->s, n, &i);
        const char *name = tsl_read_value(L, ln->s, n, &i);
        size_t ts, te;
        if (!name || i + 3 > n || strncmp(ln->s + i, " : ", 3) != 0) {
            tsl_err(L, ln, "malformed block parameter list");
            tsl_scope_free(s);
            return NULL;
        }
        i += 3;
        tsl_read_type(ln->s, n, &i, &ts, &te);
        char base[128];
        snprintf(base, sizeof base, "%s", name);
        char *dot = strchr(base, '.');
        if (dot)
            *dot = 0;
        for (char *c = base; *c; c++)
            if (!isalnum((unsigned char)*c) && *c != '_')
                *c = '_';
        fx_node *ph = fx_node_new(s->g, isdigit((unsigned char)base[0]) ? "arg" : base, FX_OP_PLACEHOLDER, NULL);
        ph->target = ph->name;
        tsl_insert_ph(s, ph);
        tsl_bind(L, s, name, fx_arg_node(L->p, ph), NULL, tsl_type_kind(ln->s + ts, te - ts));
        if (i < n && ln->s[i] == ',')
            i++;
    }
    return s;
}

/* Parses "-> (%a, %b)" / "return (%a)" into an output node of s; returns the count. */
bool tsl_finish_block(loader *L, scope *s, const ts_line *ret)
{
    const char *t = memchr(ret->s, '(', ret->len);
    if (!t) {
        tsl_err(L, ret, "expected '(' in the block return");
        return false;
    }
    size_t i = (size_t)(t - ret->s) + 1, n = ret->len;
    fx_arg *items[MAX_OUTS];
    size_t k = 0;
    while (i < n && ret->s[i] != ')') {
        tsl_skip_sp(ret->s, n, &i);
        const char *name = tsl_read_value(L, ret->s, n, &i);
        tsval *v = name ? tsl_lookup(L, s, name) : NULL;
        if (!v || !v->arg) {
            tsl_err(L, ret, name ? "undefined value in the block return" : "expected a %value");
            return false;
        }
        /* forward's `return a, b` is a TupleConstruct: torch.export returns its items flat */
        const fx_arg *a = v->arg;
        bool flat = s == L->root && (a->kind == FX_ARG_TUPLE || a->kind == FX_ARG_LIST);
        for (size_t j = 0; j < (flat ? a->u.seq.len : 1); j++) {
            if (k == MAX_OUTS) {
                tsl_err(L, ret, "too many values in the block return");
                return false;
            }
            items[k++] = flat ? a->u.seq.items[j] : v->arg;
        }
        tsl_skip_sp(ret->s, n, &i);
        if (i < n && ret->s[i] == ',')
            i++;
    }
    fx_node *o = fx_node_new(s->g, "output", FX_OP_OUTPUT, "output");
    fx_arg *tup = fx_arg_seq(L->p, FX_ARG_TUPLE, items, NULL, k);
    fx_arg *one[1] = {tup};
    fx_node_set_args(o, fx_arg_seq(L->p, FX_ARG_TUPLE, one, NULL, 1), fx_arg_seq(L->p, FX_ARG_DICT, NULL, NULL, 0));
    fx_graph_append(s->g, o);
    return true;
}

static const fx_arg *output_item(const fx_graph *g, size_t i)
{
    const fx_arg *t = fx_control_graph_result(g);
    return t && t->kind == FX_ARG_TUPLE && i < t->u.seq.len ? t->u.seq.items[i] : NULL;
}

/* Appends placeholders so the scope takes every operand in ops (by outer node name). */
static void complete_operands(loader *L, scope *s, fx_arg **ops, size_t n_ops)
{
    for (size_t i = 0; i < n_ops; i++)
        tsl_capture(L, s, ops[i]->u.node);
}

static void merge_caps(fx_arg ***ops, size_t *n, size_t *cap, hashmap *seen, scope *s)
{
    for (size_t i = 0; i < s->n_captured; i++) {
        fx_node *o = s->captured[i]->u.node;
        if (hm_has(seen, o->name))
            continue;
        hm_put(seen, o->name, o);
        xgrow((void **)ops, cap, *n + 1, sizeof **ops);
        (*ops)[(*n)++] = s->captured[i];
    }
}

/* Puts s's capture placeholders first, in the order of ops (both branches of an if take the
 * same operand tuple). Relinks by hand: the nodes keep their names. */
static void order_placeholders(scope *s, fx_arg **ops, size_t n_ops)
{
    fx_graph *g = s->g;
    for (size_t i = n_ops; i-- > 0;) {
        fx_node *ph = hm_get(&s->caps, ops[i]->u.node->name);
        if (ph && ph != g->first)
            tsl_move_before(g, ph, g->first);
    }
}

/* Binds the statement's outputs to getitems of n. */
void tsl_bind_outputs(loader *L, scope *s, const stmt *st, fx_node *n)
{
    for (size_t i = 0; i < st->n_out; i++) {
        fx_node *gi = fx_control_add_getitem(s->g, n, i);
        tsl_set_src(L, gi, st);
        if (!st->src_file) {
            /* prim::ListUnpack has no source range: torch's getitems carry their op's */
            gi->meta.source = n->meta.source;
            gi->meta.stack_trace = n->meta.stack_trace;
        }
        tsl_bind(L, s, st->out[i], fx_arg_node(L->p, gi), NULL, st->out_tk[i]);
    }
}

bool tsl_do_if(loader *L, scope *s, const stmt *st)
{
    tsval *c = st->n_args == 1 ? tsl_lookup(L, s, st->args[0]) : NULL;
    if (!c || !c->arg) {
        tsl_err(L, st->ln, "prim::If needs one defined condition value");
        return false;
    }
    fx_module *tm = fx_control_new_subgraph(s->m, "true_graph");
    fx_module *fm = fx_control_new_subgraph(s->m, "false_graph");
    size_t ind;
    scope *ts = open_block(L, s, tm, &ind);
    const ts_line *ret;
    if (!ts) {
        tsl_err(L, st->ln, "prim::If without block0");
        return false;
    }
    if (!tsl_parse_block_body(L, ts, ind, &ret) || !tsl_finish_block(L, ts, ret)) {
        tsl_scope_free(ts);
        return false;
    }
    scope *fs = open_block(L, s, fm, &ind);
    if (!fs) {
        tsl_err(L, st->ln, "prim::If without block1");
        tsl_scope_free(ts);
        return false;
    }
    if (!tsl_parse_block_body(L, fs, ind, &ret) || !tsl_finish_block(L, fs, ret)) {
        tsl_scope_free(ts);
        tsl_scope_free(fs);
        return false;
    }
    fx_arg **ops = NULL;
    size_t n_ops = 0, cap = 0;
    hashmap seen;
    hm_init(&seen);
    merge_caps(&ops, &n_ops, &cap, &seen, ts);
    merge_caps(&ops, &n_ops, &cap, &seen, fs);
    hm_free(&seen);
    complete_operands(L, ts, ops, n_ops);
    complete_operands(L, fs, ops, n_ops);
    /* the operand order is the same for both branches */
    order_placeholders(ts, ops, n_ops);
    order_placeholders(fs, ops, n_ops);
    fx_node *n = fx_control_add_if(s->g, c->arg, tm, fm, ops, n_ops);
    tsl_set_src(L, n, st);
    for (fx_node *x = n->prev; x && x->op == FX_OP_GET_ATTR; x = x->prev)
        tsl_set_src(L, x, st);
    free(ops);
    tsl_bind_outputs(L, s, st, n);
    tsl_scope_free(ts);
    tsl_scope_free(fs);
    return true;
}

bool tsl_do_loop(loader *L, scope *s, const stmt *st)
{
    if (st->n_args < 2) {
        tsl_err(L, st->ln, "prim::Loop needs a trip count and a condition");
        return false;
    }
    tsval *trip = tsl_lookup(L, s, st->args[0]), *cond = tsl_lookup(L, s, st->args[1]);
    if (!trip || !cond || !trip->arg || !cond->arg) {
        tsl_err(L, st->ln, "prim::Loop uses an undefined value");
        return false;
    }
    fx_arg *carried[MAX_ARGS];
    size_t nc = 0;
    for (size_t i = 2; i < st->n_args; i++) {
        tsval *v = tsl_lookup(L, s, st->args[i]);
        if (!v || !v->arg) {
            tsl_err(L, st->ln, "prim::Loop carries an undefined value");
            return false;
        }
        carried[nc++] = v->arg;
    }
    fx_module *bm = fx_control_new_subgraph(s->m, "body_graph");
    size_t ind;
    scope *bs = open_block(L, s, bm, &ind);
    const ts_line *ret;
    if (!bs) {
        tsl_err(L, st->ln, "prim::Loop without a body block");
        return false;
    }
    if (!tsl_parse_block_body(L, bs, ind, &ret) || !tsl_finish_block(L, bs, ret)) {
        tsl_scope_free(bs);
        return false;
    }
    /* `for` = constant-true start condition that the body returns unchanged as a constant */
    const fx_arg *next = output_item(bm->graph, 0);
    bool is_for = cond->arg->kind == FX_ARG_BOOL && cond->arg->u.b && next && next->kind == FX_ARG_BOOL &&
                  next->u.b;
    fx_node *n;
    if (is_for) {
        /* the body returns (cond, *carried): drop the constant cond for python_for */
        fx_node *o = bm->graph->last;
        fx_arg *t = o->args->u.seq.items[0];
        fx_arg *nt = fx_arg_seq(L->p, FX_ARG_TUPLE, t->u.seq.items + 1, NULL, t->u.seq.len - 1);
        fx_arg *one[1] = {nt};
        fx_node_set_args(o, fx_arg_seq(L->p, FX_ARG_TUPLE, one, NULL, 1), o->kwargs);
        n = fx_control_add_for(s->g, trip->arg, bm, carried, nc, bs->captured, bs->n_captured);
    } else {
        n = fx_control_add_while(s->g, trip->arg, cond->arg, bm, carried, nc, bs->captured, bs->n_captured);
    }
    tsl_set_src(L, n, st);
    for (fx_node *x = n->prev; x && x->op == FX_OP_GET_ATTR; x = x->prev)
        tsl_set_src(L, x, st);
    tsl_bind_outputs(L, s, st, n);
    tsl_scope_free(bs);
    return true;
}
