/* translate_hop.c — control flow: cond → If, while_loop → Loop, scan → Scan, Python loops → Loop,
 * each subgraph translated into its own ONNX graph. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/vec.h"
#include "translate/translate.h"
#include "translate/translate_internal.h"
#include "translate/translate_meta.h"

/* A cond branch as an If subgraph: placeholders read the outer operands; outputs renamed
 * "<name>_<branch>" (ORT rejects a name produced in two graphs). */
static Onnx__GraphProto *branch_graph(tx *t, const fx_node *n, const fx_node *getattr, const fx_arg *operands,
                                      size_t *nout)
{
    if (!getattr || getattr->op != FX_OP_GET_ATTR) { tx_fail_node(t, n, "branch is not a get_attr node"); return NULL; }
    /* get_attr targets are relative to the module that owns the graph (nested conds) */
    const fx_module *owner = getattr->graph && getattr->graph->owner ? getattr->graph->owner : t->p->root;
    const fx_module *sub = fx_module_find(owner, getattr->target);
    if (sub && sub->graph == getattr->graph) sub = NULL;
    int depth = 0;
    for (const scope *s = t->sc; s; s = s->parent) depth++;
    if (depth > 64) {
        tx_fail_node(t, n, "subgraphs nested too deeply");
        return NULL;
    }
    if (!sub || !sub->graph) {
        tx_fail_node(t, n, arena_printf(&t->a, "no subgraph module '%s'", getattr->target));
        return NULL;
    }
    const char *bname = sub->name ? sub->name : getattr->target;
    Onnx__GraphProto *bg = ox_graph_new(t->m, bname);
    scope sc = {.parent = t->sc, .g = bg, .fxg = sub->graph};
    hm_init(&sc.vals);
    hm_init(&sc.consts);
    /* placeholders ← operands, before switching scope (operands live outside) */
    size_t k = 0;
    for (const fx_node *p = sub->graph->first; p; p = p->next) {
        if (p->op != FX_OP_PLACEHOLDER) continue;
        if (k >= operands->u.seq.len || operands->u.seq.items[k]->kind != FX_ARG_NODE) {
            tx_fail_node(t, n, "branch inputs do not match the operands");
            goto out;
        }
        const char *v = tx_single(t, n, operands->u.seq.items[k]->u.node);
        if (!v) goto out;
        tx_val *tv = arena_alloc(&t->a, sizeof *tv);
        tv->names = arena_alloc(&t->a, sizeof *tv->names);
        tv->names[0] = v;
        tv->n = 1;
        hm_put(&sc.vals, p->name, tv);
        k++;
    }
    t->sc = &sc;
    if (!tx_translate_graph(t, sub->graph)) goto restore;
    /* outputs */
    const fx_node *outn = sub->graph->last;
    while (outn && outn->op != FX_OP_OUTPUT) outn = outn->prev;
    const fx_arg *items = outn && outn->args->u.seq.len ? outn->args->u.seq.items[0] : NULL;
    if (!items || (items->kind != FX_ARG_TUPLE && items->kind != FX_ARG_LIST)) {
        tx_fail_node(t, n, "branch output is not a tuple");
        goto restore;
    }
    for (size_t i = 0; i < items->u.seq.len; i++) {
        const fx_arg *it = items->u.seq.items[i];
        if (it->kind != FX_ARG_NODE) { tx_fail_node(t, n, "branch outputs must be tensors"); goto restore; }
        const char *v = tx_single(t, n, it->u.node);
        if (!v) goto restore;
        const char *nv = tx_unique_name(t, arena_printf(&t->a, "%s_%s", it->u.node->name, bname));
        bool renamed = false;
        for (size_t j = 0; j < bg->n_node; j++) {
            Onnx__NodeProto *nd = bg->node[j];
            for (size_t o = 0; o < nd->n_output; o++)
                if (!strcmp(nd->output[o], v)) { nd->output[o] = ox_strdup(t->m, nv); renamed = true; }
            for (size_t o = 0; o < nd->n_input; o++)
                if (!strcmp(nd->input[o], v)) nd->input[o] = ox_strdup(t->m, nv);
        }
        for (size_t j = 0; j < bg->n_value_info; j++)
            if (!strcmp(bg->value_info[j]->name, v)) bg->value_info[j]->name = ox_strdup(t->m, nv);
        if (!renamed) tx_emit1(t, "Identity", v, nv, NULL);
        Onnx__TypeProto *ty = tx_type_of_value(t, tx_node_val(it->u.node));
        ox_graph_add_output(t->m, bg, nv, ty ? ty : ox_type_tensor(t->m, 0, NULL, 0, false));
    }
    *nout = items->u.seq.len;
restore:
    t->sc = sc.parent;
out:
    hm_free(&sc.vals);
    hm_free(&sc.consts);
    return t->failed ? NULL : bg;
}

static bool b_cond(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    (void)b;
    const fx_arg *a = n->args;
    if (a->u.seq.len != 4 || a->u.seq.items[0]->kind != FX_ARG_NODE || a->u.seq.items[1]->kind != FX_ARG_NODE ||
        a->u.seq.items[2]->kind != FX_ARG_NODE ||
        (a->u.seq.items[3]->kind != FX_ARG_TUPLE && a->u.seq.items[3]->kind != FX_ARG_LIST)) {
        tx_fail_node(t, n, "expected cond(pred, true_graph, false_graph, (operands...))");
        return false;
    }
    const char *pred = tx_single(t, n, a->u.seq.items[0]->u.node);
    if (!pred) return false;
    size_t nt = 0, nf = 0;
    Onnx__GraphProto *tg = branch_graph(t, n, a->u.seq.items[1]->u.node, a->u.seq.items[3], &nt);
    if (!tg) return false;
    Onnx__GraphProto *fg = branch_graph(t, n, a->u.seq.items[2]->u.node, a->u.seq.items[3], &nf);
    if (!fg) return false;
    if (nt != nf) { tx_fail_node(t, n, "the branches return different numbers of outputs"); return false; }
    const char **outs = tx_output_names_ex(t, n, nt, true);
    Onnx__NodeProto *nd = tx_emit(t, "If", "", tx_node_name_of(t, n));
    ox_node_add_input(t->m, nd, pred);
    ox_attr_graph(t->m, nd, "then_branch", tg);
    ox_attr_graph(t->m, nd, "else_branch", fg);
    for (size_t i = 0; i < nt; i++) ox_node_add_output(t->m, nd, outs[i]);
    tx_set_val(t, n, outs, nt);
    const fx_value *v = tx_node_val(n);
    for (size_t i = 0; v && v->kind == FX_VAL_TUPLE && i < nt && i < v->n_items; i++) tx_add_value_info(t, outs[i], v->items[i]);
    return true;
}

/* ---- while_loop → Loop, scan → Scan ---- */

/* How a subgraph placeholder is bound: to an outer value by name, or to a new graph input. */
typedef struct ph_bind {
    const char *outer;       /* outer value name (closure), or NULL */
    const char *input;       /* name of a new input of the subgraph, or NULL */
} ph_bind;

static const fx_module *hop_module(tx *t, const fx_node *n, const fx_arg *a)
{
    if (a->kind != FX_ARG_NODE || a->u.node->op != FX_OP_GET_ATTR) {
        tx_fail_node(t, n, "expected a get_attr of a subgraph module");
        return NULL;
    }
    const fx_node *ga = a->u.node;
    const fx_module *owner = ga->graph && ga->graph->owner ? ga->graph->owner : t->p->root;
    const fx_module *sub = fx_module_find(owner, ga->target);
    if (!sub || !sub->graph || sub->graph == ga->graph) {
        tx_fail_node(t, n, arena_printf(&t->a, "no subgraph module '%s'", ga->target));
        return NULL;
    }
    int depth = 0;
    for (const scope *s = t->sc; s; s = s->parent) depth++;
    if (depth > 64) { tx_fail_node(t, n, "subgraphs nested too deeply"); return NULL; }
    return sub;
}

/* Translates sub's graph into graph g (a new scope under the current one) with its placeholders
 * bound by binds (nb of them). Returns the output value names and FX nodes (arena), or false. */
static bool translate_into(tx *t, const fx_node *n, const fx_module *sub, Onnx__GraphProto *g, const ph_bind *binds,
                           size_t nb, const char ***outs, const fx_node ***out_nodes, size_t *nout)
{
    scope sc = {.parent = t->sc, .g = g, .fxg = sub->graph};
    hm_init(&sc.vals);
    hm_init(&sc.consts);
    bool ok = false;
    size_t k = 0;
    for (const fx_node *p = sub->graph->first; p; p = p->next) {
        if (p->op != FX_OP_PLACEHOLDER) continue;
        if (k >= nb) { tx_fail_node(t, n, arena_printf(&t->a, "subgraph %s has more inputs than operands", sub->name)); goto out; }
        tx_val *tv = arena_alloc(&t->a, sizeof *tv);
        tv->names = arena_alloc(&t->a, sizeof *tv->names);
        tv->n = 1;
        if (binds[k].input) {
            tv->names[0] = binds[k].input;
            Onnx__TypeProto *ty = tx_type_of_value(t, tx_node_val(p));
            ox_graph_add_input(t->m, g, binds[k].input, ty ? ty : ox_type_tensor(t->m, 0, NULL, 0, false));
        } else {
            tv->names[0] = binds[k].outer;
        }
        hm_put(&sc.vals, p->name, tv);
        k++;
    }
    t->sc = &sc;
    if (tx_translate_graph(t, sub->graph)) {
        const fx_node *on = sub->graph->last;
        while (on && on->op != FX_OP_OUTPUT) on = on->prev;
        const fx_arg *items = on && on->args->u.seq.len ? on->args->u.seq.items[0] : NULL;
        if (items && items->kind == FX_ARG_NODE) {
            *nout = 1;
            *outs = arena_alloc(&t->a, sizeof **outs);
            *out_nodes = arena_alloc(&t->a, sizeof **out_nodes);
            (*out_nodes)[0] = items->u.node;
            ok = ((*outs)[0] = tx_single(t, n, items->u.node)) != NULL;
        } else if (items && (items->kind == FX_ARG_TUPLE || items->kind == FX_ARG_LIST)) {
            *nout = items->u.seq.len;
            *outs = arena_alloc(&t->a, (*nout + 1) * sizeof **outs);
            *out_nodes = arena_alloc(&t->a, (*nout + 1) * sizeof **out_nodes);
            ok = true;
            for (size_t i = 0; i < *nout && ok; i++) {
                const fx_arg *it = items->u.seq.items[i];
                if (it->kind != FX_ARG_NODE) { tx_fail_node(t, n, "subgraph outputs must be tensors"); ok = false; break; }
                (*out_nodes)[i] = it->u.node;
                ok = ((*outs)[i] = tx_single(t, n, it->u.node)) != NULL;
            }
        } else {
            tx_fail_node(t, n, "subgraph has no output");
        }
    }
    t->sc = sc.parent;
out:
    hm_free(&sc.vals);
    hm_free(&sc.consts);
    return ok && !t->failed;
}

/* Emits op(in) -> out into graph g (a subgraph being built, not the current scope's graph). */
static Onnx__NodeProto *emit1_in(tx *t, Onnx__GraphProto *g, const char *op, const char *in, const char *out)
{
    scope *save = t->sc, tmp = {.parent = save, .g = g};
    hm_init(&tmp.vals);
    hm_init(&tmp.consts);
    t->sc = &tmp;
    tx_emit1(t, op, in, out, NULL);
    t->sc = save;
    hm_free(&tmp.vals);
    hm_free(&tmp.consts);
    return g->node[g->n_node - 1];
}

/* Makes v a graph output of g named "<fxname>_<suffix>": renames its producer inside g, or
 * adds an Identity when v comes from outside (or is already an output). */
static void add_renamed_output(tx *t, Onnx__GraphProto *g, const char *v, const fx_node *fxn, const char *suffix)
{
    const char *nv = tx_unique_name(t, arena_printf(&t->a, "%s_%s", fxn->name, suffix));
    bool renamed = false;
    for (size_t j = 0; j < g->n_output && !renamed; j++) renamed = !strcmp(g->output[j]->name, v);
    if (!renamed) {
        renamed = false;
        for (size_t j = 0; j < g->n_node; j++) {
            Onnx__NodeProto *nd = g->node[j];
            for (size_t o = 0; o < nd->n_output; o++)
                if (!strcmp(nd->output[o], v)) { nd->output[o] = ox_strdup(t->m, nv); renamed = true; }
            for (size_t o = 0; o < nd->n_input; o++)
                if (!strcmp(nd->input[o], v)) nd->input[o] = ox_strdup(t->m, nv);
        }
        for (size_t j = 0; j < g->n_value_info; j++)
            if (!strcmp(g->value_info[j]->name, v)) g->value_info[j]->name = ox_strdup(t->m, nv);
        for (size_t j = 0; j < g->n_output; j++)
            if (!strcmp(g->output[j]->name, v)) g->output[j]->name = ox_strdup(t->m, nv);
    } else {
        renamed = false;
    }
    if (!renamed) emit1_in(t, g, "Identity", v, nv);
    Onnx__TypeProto *ty = tx_type_of_value(t, tx_node_val(fxn));
    ox_graph_add_output(t->m, g, nv, ty ? ty : ox_type_tensor(t->m, 0, NULL, 0, false));
}

/* Loop(m, cond0, carried...) with body bg; its nc results are n's values. */
static bool emit_loop(tx *t, const fx_node *n, const char *m, const char *cond0, const char **carried, size_t nc,
                      Onnx__GraphProto *bg)
{
    const char **outs = tx_output_names_ex(t, n, nc, true);
    Onnx__NodeProto *nd = tx_emit(t, "Loop", "", tx_node_name_of(t, n));
    ox_node_add_input(t->m, nd, m);
    ox_node_add_input(t->m, nd, cond0);
    for (size_t i = 0; i < nc; i++) ox_node_add_input(t->m, nd, carried[i]);
    ox_attr_graph(t->m, nd, "body", bg);
    for (size_t i = 0; i < nc; i++) ox_node_add_output(t->m, nd, outs[i]);
    tx_set_val(t, n, outs, nc);
    return true;
}

bool tx_seq_arg(const fx_arg *a)
{
    return a->kind == FX_ARG_TUPLE || a->kind == FX_ARG_LIST;
}

static bool b_while_loop(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    (void)b;
    const fx_arg *a = n->args;
    if (a->u.seq.len != 4 || !tx_seq_arg(a->u.seq.items[2]) || !tx_seq_arg(a->u.seq.items[3])) {
        tx_fail_node(t, n, "expected while_loop(cond_fn, body_fn, (carried...), (additional...))");
        return false;
    }
    const fx_module *cm = hop_module(t, n, a->u.seq.items[0]), *bm = hop_module(t, n, a->u.seq.items[1]);
    if (!cm || !bm) return false;
    const fx_arg *car = a->u.seq.items[2], *add = a->u.seq.items[3];
    size_t nc = car->u.seq.len, na = add->u.seq.len;
    const char **cv = arena_alloc(&t->a, (nc + na + 1) * sizeof *cv);
    const fx_node **cn = arena_alloc(&t->a, (nc + 1) * sizeof *cn);
    for (size_t i = 0; i < nc + na; i++) {
        const fx_arg *x = i < nc ? car->u.seq.items[i] : add->u.seq.items[i - nc];
        if (i < nc && (x->kind == FX_ARG_INT || x->kind == FX_ARG_FLOAT)) {
            /* a Python number carried through the loop: an INT64/FLOAT scalar, as torch does */
            cn[i] = NULL;
            cv[i] = x->kind == FX_ARG_INT ? tx_const_scalar(t, OT_INT64, 0, x->u.i, false)
                                          : tx_const_scalar(t, OT_FLOAT, x->u.f, 0, true);
            continue;
        }
        if (x->kind != FX_ARG_NODE) { tx_fail_node(t, n, "while_loop operands must be tensors or numbers"); return false; }
        if (i < nc) cn[i] = x->u.node;
        if (!(cv[i] = tx_single(t, n, x->u.node))) return false;
    }
    /* initial condition: cond_fn on the initial values, in the enclosing graph */
    ph_bind *ob = arena_alloc(&t->a, (nc + na + 1) * sizeof *ob);
    for (size_t i = 0; i < nc + na; i++) ob[i].outer = cv[i];
    const char **co;
    const fx_node **con;
    size_t nco;
    if (!translate_into(t, n, cm, t->sc->g, ob, nc + na, &co, &con, &nco)) return false;
    if (nco != 1) { tx_fail_node(t, n, "Condition function must return a tx_single boolean value."); return false; }
    const char *cond0 = co[0];
    /* body graph: (iter_num, cond_in, carried...) → (cond_out, carried'...) */
    const char *bname = arena_printf(&t->a, "%s_loop_body", bm->name);
    Onnx__GraphProto *bg = ox_graph_new(t->m, bname);
    ox_graph_add_input(t->m, bg, tx_unique_name(t, arena_printf(&t->a, "iter_num_%s", bm->name)),
                       ox_type_tensor(t->m, OT_INT64, NULL, 0, true));
    ox_graph_add_input(t->m, bg, tx_unique_name(t, arena_printf(&t->a, "cond_in_%s", bm->name)),
                       ox_type_tensor(t->m, OT_BOOL, NULL, 0, true));
    ph_bind *bb = arena_alloc(&t->a, (nc + na + 1) * sizeof *bb);
    for (size_t i = 0; i < nc + na; i++) {
        if (i < nc && cn[i]) bb[i].input = tx_unique_name(t, arena_printf(&t->a, "%s_%s__subgraph_in", cn[i]->name, bm->name));
        else if (i < nc) bb[i].input = tx_unique_name(t, arena_printf(&t->a, "carried_input_%zu_%s__subgraph_in", i, bm->name));
        else bb[i].outer = cv[i];
    }
    const char **bo;
    const fx_node **bon;
    size_t nbo;
    if (!translate_into(t, n, bm, bg, bb, nc + na, &bo, &bon, &nbo)) return false;
    if (nbo != nc) { tx_fail_node(t, n, "the body must return one value per carried value"); return false; }
    ph_bind *cb = arena_alloc(&t->a, (nc + na + 1) * sizeof *cb);
    for (size_t i = 0; i < nc + na; i++) cb[i].outer = i < nc ? bo[i] : cv[i];
    const char **c2;
    const fx_node **c2n;
    size_t nc2;
    if (!translate_into(t, n, cm, bg, cb, nc + na, &c2, &c2n, &nc2)) return false;
    add_renamed_output(t, bg, c2[0], c2n[0], cm->name);
    for (size_t i = 0; i < nc; i++) add_renamed_output(t, bg, bo[i], bon[i], bm->name);
    return emit_loop(t, n, "", cond0, cv, nc, bg);
}

static bool b_scan(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    (void)b;
    const fx_arg *a = n->args;
    if (a->u.seq.len != 4 || !tx_seq_arg(a->u.seq.items[1]) || !tx_seq_arg(a->u.seq.items[2]) || !tx_seq_arg(a->u.seq.items[3])) {
        tx_fail_node(t, n, "expected scan(combine_fn, [init...], [xs...], (additional...))");
        return false;
    }
    const fx_module *bm = hop_module(t, n, a->u.seq.items[0]);
    if (!bm) return false;
    const fx_arg *init = a->u.seq.items[1], *xs = a->u.seq.items[2], *add = a->u.seq.items[3];
    size_t ni = init->u.seq.len, nx = xs->u.seq.len, na = add->u.seq.len, nt = ni + nx + na;
    const char **v = arena_alloc(&t->a, (nt + 1) * sizeof *v);
    ph_bind *bb = arena_alloc(&t->a, (nt + 1) * sizeof *bb);
    for (size_t i = 0; i < nt; i++) {
        const fx_arg *x = i < ni ? init->u.seq.items[i] : i < ni + nx ? xs->u.seq.items[i - ni] : add->u.seq.items[i - ni - nx];
        if (x->kind != FX_ARG_NODE) { tx_fail_node(t, n, "scan operands must be tensors"); return false; }
        if (!(v[i] = tx_single(t, n, x->u.node))) return false;
        if (i < ni + nx) bb[i].input = tx_unique_name(t, arena_printf(&t->a, "%s_%s__subgraph_in", x->u.node->name, bm->name));
        else bb[i].outer = v[i];
    }
    Onnx__GraphProto *bg = ox_graph_new(t->m, bm->name);
    const char **bo;
    const fx_node **bon;
    size_t nbo;
    if (!translate_into(t, n, bm, bg, bb, nt, &bo, &bon, &nbo)) return false;
    if (nbo < ni) { tx_fail_node(t, n, "combine_fn returns fewer values than there are carries"); return false; }
    for (size_t i = 0; i < nbo; i++) add_renamed_output(t, bg, bo[i], bon[i], bm->name);
    const char **outs = tx_output_names_ex(t, n, nbo, true);
    Onnx__NodeProto *nd = tx_emit(t, "Scan", "", tx_node_name_of(t, n));
    for (size_t i = 0; i < ni + nx; i++) ox_node_add_input(t->m, nd, v[i]);
    ox_attr_graph(t->m, nd, "body", bg);
    ox_attr_int(t->m, nd, "num_scan_inputs", (int64_t)nx);
    int64_t *dirs = arena_alloc(&t->a, (nbo + nx + 1) * sizeof *dirs);
    memset(dirs, 0, (nbo + nx + 1) * sizeof *dirs);
    ox_attr_ints(t->m, nd, "scan_input_directions", dirs, nx);
    ox_attr_ints(t->m, nd, "scan_output_directions", dirs, nbo - ni);
    for (size_t i = 0; i < nbo; i++) ox_node_add_output(t->m, nd, outs[i]);
    tx_set_val(t, n, outs, nbo);
    return true;
}

/* fxsh.python_for / fxsh.python_while (export --legacy script only: dynamo's route fails on
 * them first) → Loop(M, cond, carried...) as the TorchScript exporter translated prim::Loop:
 * M is the trip count (a while's is INT64_MAX, as TorchScript wrote it), cond True for a for
 * and the first test (cast to bool) for a while; the body takes (iteration, cond, carried...)
 * and returns (next cond, carried'...), reading other values from the enclosing scope. */
static bool b_python_loop(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    (void)b;
    const fx_arg *a = n->args;
    bool is_while = !strcmp(n->target, "fxsh.python_while");
    size_t at = is_while ? 1 : 0;   /* python_while(trip, cond, body, ...) / python_for(trip, body, ...) */
    if (a->u.seq.len != 4 + at || !tx_seq_arg(a->u.seq.items[at + 2]) || !tx_seq_arg(a->u.seq.items[at + 3])) {
        tx_fail_node(t, n, is_while ? "expected python_while(max_trip, cond, body, (carried...), (captured...))"
                                 : "expected python_for(trip, body, (carried...), (captured...))");
        return false;
    }
    const fx_module *bm = hop_module(t, n, a->u.seq.items[at + 1]);
    if (!bm) return false;
    const fx_arg *trip = a->u.seq.items[0], *car = a->u.seq.items[at + 2], *cap = a->u.seq.items[at + 3];
    size_t nc = car->u.seq.len, ncap = cap->u.seq.len;
    const char *m_in = "";
    if (trip->kind == FX_ARG_INT) m_in = tx_const_scalar(t, OT_INT64, 0, trip->u.i, false);
    else if (trip->kind == FX_ARG_NODE && !(m_in = tx_single(t, n, trip->u.node))) return false;
    else if (trip->kind != FX_ARG_NODE && trip->kind != FX_ARG_NONE) { tx_fail_node(t, n, "the trip count is not an int"); return false; }
    const char *cond0;
    const fx_arg *c0 = is_while ? a->u.seq.items[1] : NULL;
    if (!c0 || c0->kind == FX_ARG_BOOL) {
        cond0 = tx_const_scalar(t, OT_BOOL, 0, c0 ? c0->u.b : 1, false);
    } else if (c0->kind == FX_ARG_NODE) {
        if (!(cond0 = tx_single(t, n, c0->u.node))) return false;
        if (tx_onnx_dtype_of_node(c0->u.node) != OT_BOOL) {
            const char *b = tx_fresh_val(t);
            ox_attr_int(t->m, emit1_in(t, t->sc->g, "Cast", cond0, b), "to", OT_BOOL);
            cond0 = b;
        }
    } else {
        tx_fail_node(t, n, "the loop's first test is not a bool");
        return false;
    }
    const char **cv = arena_alloc(&t->a, (nc + 1) * sizeof *cv);
    for (size_t i = 0; i < nc; i++) {
        const fx_arg *x = car->u.seq.items[i];
        if (x->kind == FX_ARG_INT || x->kind == FX_ARG_FLOAT)
            cv[i] = x->kind == FX_ARG_INT ? tx_const_scalar(t, OT_INT64, 0, x->u.i, false) : tx_const_scalar(t, OT_FLOAT, x->u.f, 0, true);
        else if (x->kind != FX_ARG_NODE || !(cv[i] = tx_single(t, n, x->u.node))) {
            if (!t->failed) tx_fail_node(t, n, "loop-carried values must be tensors or numbers");
            return false;
        }
    }
    /* body: (iteration, cond, carried...) → (next cond, carried'...) */
    Onnx__GraphProto *bg = ox_graph_new(t->m, bm->name);
    const char *iter = tx_unique_name(t, arena_printf(&t->a, "iter_num_%s", bm->name));
    const char *cond_in = tx_unique_name(t, arena_printf(&t->a, "cond_in_%s", bm->name));
    ox_graph_add_input(t->m, bg, iter, ox_type_tensor(t->m, OT_INT64, NULL, 0, true));
    ox_graph_add_input(t->m, bg, cond_in, ox_type_tensor(t->m, OT_BOOL, NULL, 0, true));
    ph_bind *bb = arena_alloc(&t->a, (1 + nc + ncap + 1) * sizeof *bb);
    bb[0].outer = iter;
    for (size_t i = 0; i < nc; i++) {
        const fx_arg *x = car->u.seq.items[i];
        bb[1 + i].input = tx_unique_name(t, arena_printf(&t->a, "%s_%s__subgraph_in",
                                                      x->kind == FX_ARG_NODE ? x->u.node->name : "carried_input", bm->name));
    }
    for (size_t i = 0; i < ncap; i++) {
        const fx_arg *x = cap->u.seq.items[i];
        if (x->kind != FX_ARG_NODE || !(bb[1 + nc + i].outer = tx_single(t, n, x->u.node))) {
            if (!t->failed) tx_fail_node(t, n, "the loop body reads a value that is not a tensor");
            return false;
        }
    }
    const char **bo;
    const fx_node **bon;
    size_t nbo;
    if (!translate_into(t, n, bm, bg, bb, 1 + nc + ncap, &bo, &bon, &nbo)) return false;
    if (nbo != nc + is_while) { tx_fail_node(t, n, "the body must return (next test,) carried values"); return false; }
    if (is_while) {
        add_renamed_output(t, bg, bo[0], bon[0], bm->name);
        if (tx_onnx_dtype_of_node(bon[0]) != OT_BOOL) {
            Onnx__ValueInfoProto *o = bg->output[bg->n_output - 1];
            const char *raw = tx_unique_name(t, arena_printf(&t->a, "%s_raw", o->name));
            for (size_t j = 0; j < bg->n_node; j++)
                for (size_t k = 0; k < bg->node[j]->n_output; k++)
                    if (!strcmp(bg->node[j]->output[k], o->name)) bg->node[j]->output[k] = ox_strdup(t->m, raw);
            ox_attr_int(t->m, emit1_in(t, bg, "Cast", raw, o->name), "to", OT_BOOL);
            o->type = ox_type_tensor(t->m, OT_BOOL, NULL, 0, true);
        }
    } else {
        /* a for goes on as long as its trip count allows: the condition passes through */
        const char *cond_out = tx_unique_name(t, arena_printf(&t->a, "cond_out_%s", bm->name));
        emit1_in(t, bg, "Identity", cond_in, cond_out);
        ox_graph_add_output(t->m, bg, cond_out, ox_type_tensor(t->m, OT_BOOL, NULL, 0, true));
    }
    for (size_t i = 0; i < nc; i++) add_renamed_output(t, bg, bo[i + is_while], bon[i + is_while], bm->name);
    return emit_loop(t, n, m_in, cond0, cv, nc, bg);
}

static const tx_builtin_entry builtins[] = {
    { "cond", b_cond, -1 }, { "while_loop", b_while_loop, -1 }, { "scan", b_scan, -1 },
    { "python_loop", b_python_loop, -1 },
};

const builtin_family tx_hop_builtins = BUILTIN_FAMILY("hop", builtins);
