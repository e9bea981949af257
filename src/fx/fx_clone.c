/* fx_clone.c — deep copy of an FX program, so passes and patches can edit a copy of a stage. */
#include <stdlib.h>
#include <string.h>

#include "fx/fx_ir.h"

typedef struct clone_ctx {
    fx_program *dst;
    const fx_graph *src_graph;
    fx_graph *dst_graph;
    fx_node **map;          /* by source node index */
} clone_ctx;

static const char *cs(clone_ctx *c, const char *s) { return s ? fx_strdup(c->dst, s) : NULL; }

static fx_arg *clone_arg(clone_ctx *c, const fx_arg *a)
{
    if (!a)
        return NULL;
    fx_arg *r = fx_alloc(c->dst, sizeof *r);
    *r = *a;
    switch (a->kind) {
    case FX_ARG_NODE: {
        const fx_node *n = a->u.node;
        if (n && n->graph == c->src_graph && n->index < c->src_graph->n_nodes)
            r->u.node = c->map[n->index];
        else
            r->u.node = n ? fx_graph_lookup(c->dst_graph, n->name) : NULL;
        break;
    }
    case FX_ARG_STR: case FX_ARG_DEVICE: case FX_ARG_MEMFMT: case FX_ARG_LAYOUT: case FX_ARG_OPAQUE:
        r->u.s = cs(c, a->u.s);
        break;
    case FX_ARG_LIST: case FX_ARG_TUPLE: case FX_ARG_DICT: case FX_ARG_SLICE: {
        size_t n = a->u.seq.len;
        r->u.seq.items = fx_alloc(c->dst, (n ? n : 1) * sizeof *r->u.seq.items);
        for (size_t i = 0; i < n; i++)
            r->u.seq.items[i] = clone_arg(c, a->u.seq.items[i]);
        if (a->kind == FX_ARG_DICT) {
            r->u.seq.keys = fx_alloc(c->dst, (n ? n : 1) * sizeof *r->u.seq.keys);
            for (size_t i = 0; i < n; i++)
                r->u.seq.keys[i] = cs(c, a->u.seq.keys[i]);
        }
        break;
    }
    default:
        break;
    }
    return r;
}

static fx_value *clone_value(clone_ctx *c, const fx_value *v)
{
    if (!v)
        return NULL;
    fx_value *r = fx_value_new(c->dst, v->kind);
    *r = *v;
    size_t rank = v->rank;
    if (v->sizes) {
        r->sizes = fx_alloc(c->dst, (rank ? rank : 1) * sizeof *r->sizes);
        for (size_t i = 0; i < rank; i++)
            r->sizes[i] = cs(c, v->sizes[i]);
    }
    if (v->strides) {
        r->strides = fx_alloc(c->dst, (rank ? rank : 1) * sizeof *r->strides);
        for (size_t i = 0; i < rank; i++)
            r->strides[i] = cs(c, v->strides[i]);
    }
    r->device = cs(c, v->device);
    r->text = cs(c, v->text);
    if (v->items) {
        r->items = fx_alloc(c->dst, (v->n_items ? v->n_items : 1) * sizeof *r->items);
        for (size_t i = 0; i < v->n_items; i++)
            r->items[i] = clone_value(c, v->items[i]);
    }
    return r;
}

static void clone_meta(clone_ctx *c, fx_meta *dst, const fx_meta *src)
{
    *dst = *src;
    dst->val = clone_value(c, src->val);
    dst->stack_trace = cs(c, src->stack_trace);
    dst->source = cs(c, src->source);
    dst->annotation = cs(c, src->annotation);
    dst->nn_module_stack = cs(c, src->nn_module_stack);
    dst->source_fn_stack = cs(c, src->source_fn_stack);
    dst->torch_fn = cs(c, src->torch_fn);
}

static void clone_graph(clone_ctx *c, const fx_graph *src, fx_graph *dst)
{
    fx_graph_renumber((fx_graph *)src);
    c->src_graph = src;
    c->dst_graph = dst;
    c->map = xcalloc(src->n_nodes + 1, sizeof *c->map);
    /* two passes: create every node first so forward references (rare, but legal in edited
     * graphs) still map */
    for (const fx_node *n = src->first; n; n = n->next) {
        fx_node *m = fx_node_new(dst, n->name, n->op, n->target);
        m->type_text = cs(c, n->type_text);
        m->declared_users = n->declared_users;
        m->src_line = n->src_line;
        clone_meta(c, &m->meta, &n->meta);
        c->map[n->index] = m;
        fx_graph_append(dst, m);
    }
    for (const fx_node *n = src->first; n; n = n->next)
        fx_node_set_args(c->map[n->index], clone_arg(c, n->args), clone_arg(c, n->kwargs));
    free(c->map);
    c->map = NULL;
    fx_graph_recompute_users(dst);
}

static fx_weight *copy_weight(clone_ctx *c, fx_weight *w, const fx_weight *src)
{
    w->persistent = src->persistent;
    w->nbytes = src->nbytes;
    w->owned = src->owned;
    w->data = src->data;   /* shared: the same fmap, or borrowed from the same owner */
    fx_weight_set_map(w, src->map);
    (void)c;
    return w;
}

static void clone_module(clone_ctx *c, const fx_module *src, fx_module *dst)
{
    dst->type = cs(c, src->type);
    dst->repr = cs(c, src->repr);
    dst->extra_repr = cs(c, src->extra_repr);
    for (const fx_weight *w = src->params; w; w = w->next) {
        fx_weight *nw = fx_module_add_param(dst, w->fqn, w->role, w->dtype, w->shape, w->rank);
        /* the program never frees module-level data, so the copy just borrows it */
        nw->data = w->data;
        nw->nbytes = w->nbytes;
        nw->persistent = w->persistent;
    }
    for (const fx_module *ch = src->first_child; ch; ch = ch->next_sibling)
        clone_module(c, ch, fx_module_add_child(dst, ch->name, ch->type, ch->repr));
    if (src->graph)
        clone_graph(c, src->graph, fx_module_ensure_graph(dst));
}

fx_program *fx_program_clone(const fx_program *p)
{
    fx_program *q = fx_program_new(p->root->name);
    clone_ctx c = {.dst = q};
    q->source_form = p->source_form;
    q->file = cs(&c, p->file);
    if (!p->root->graph) {
        hm_free(&q->root->graph->names);
        hm_free(&q->root->graph->name_counters);
        q->root->graph = NULL;
    }
    clone_module(&c, p->root, q->root);
    q->sig.present = p->sig.present;
    q->sig.n_inputs = p->sig.n_inputs;
    q->sig.n_outputs = p->sig.n_outputs;
    q->sig.inputs = fx_alloc(q, (p->sig.n_inputs ? p->sig.n_inputs : 1) * sizeof *q->sig.inputs);
    for (size_t i = 0; i < p->sig.n_inputs; i++) {
        q->sig.inputs[i] = p->sig.inputs[i];
        q->sig.inputs[i].name = cs(&c, p->sig.inputs[i].name);
        q->sig.inputs[i].target = cs(&c, p->sig.inputs[i].target);
    }
    q->sig.outputs = fx_alloc(q, (p->sig.n_outputs ? p->sig.n_outputs : 1) * sizeof *q->sig.outputs);
    for (size_t i = 0; i < p->sig.n_outputs; i++) {
        q->sig.outputs[i] = p->sig.outputs[i];
        q->sig.outputs[i].name = cs(&c, p->sig.outputs[i].name);
        q->sig.outputs[i].target = cs(&c, p->sig.outputs[i].target);
    }
    q->n_ranges = p->n_ranges;
    q->ranges = fx_alloc(q, (p->n_ranges ? p->n_ranges : 1) * sizeof *q->ranges);
    for (size_t i = 0; i < p->n_ranges; i++) {
        q->ranges[i].symbol = cs(&c, p->ranges[i].symbol);
        q->ranges[i].min = cs(&c, p->ranges[i].min);
        q->ranges[i].max = cs(&c, p->ranges[i].max);
    }
    for (const fx_weight *w = p->weights; w; w = w->next) {
        fx_weight *nw = fx_program_add_weight(q, w->fqn, w->role, w->dtype, w->shape, w->rank, NULL, 0, false);
        copy_weight(&c, nw, w);
    }
    return q;
}
