/* fx_extract.c — a standalone program made of some nodes of another: the values they read from
 * nodes left out become user inputs (`reduce`'s candidates and reproducers). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/fmap.h"
#include "base/hashmap.h"
#include "fx/fx.h"
#include "fx/fx_build.h"

bool fx_extract_cuttable(const fx_node *n)
{
    if (n->op == FX_OP_PLACEHOLDER) return true;
    if (n->op != FX_OP_CALL_FUNCTION && n->op != FX_OP_CALL_METHOD && n->op != FX_OP_CALL_MODULE) return false;
    /* an input holds one tensor: a tuple (split, max_pool's pair) or a SymInt is read through the
     * node that makes it */
    return n->meta.val && n->meta.val->kind == FX_VAL_TENSOR;
}

/* The program's input specs by placeholder name (one hash probe each, not a scan per node). */
static void index_specs(const fx_program *p, hashmap *by_name)
{
    hm_init(by_name);
    for (size_t i = 0; i < p->sig.n_inputs; i++)
        if (p->sig.inputs[i].name) hm_put(by_name, p->sig.inputs[i].name, &p->sig.inputs[i]);
}

struct mark_ctx {
    unsigned char *role;         /* by node index: 0 dropped, 1 kept, 2 input */
};

static void mark_read(fx_node *n, void *ctx)
{
    struct mark_ctx *m = ctx;
    if (n->graph == n->graph->owner->prog->root->graph && !m->role[n->index]) m->role[n->index] = 2;
}

fx_program *fx_extract(const fx_program *src, const bool *keep, const char *const *outputs, size_t n_out, diag_sink *d)
{
    fx_graph *sg = fx_program_graph(src);
    if (!sg || !n_out) {
        diag_error(d, (diag_loc){0}, "extract: the program has no graph or no output was named");
        return NULL;
    }
    fx_program *p = fx_program_copy(src);
    fx_graph *g = fx_program_graph(p);
    fx_graph_renumber(g);
    size_t n = g->n_nodes;
    fx_node **nodes = xmalloc((n ? n : 1) * sizeof *nodes);
    unsigned char *role = xcalloc(n ? n : 1, 1);
    fx_node *out = NULL;
    size_t i = 0;
    for (fx_node *x = g->first; x; x = x->next, i++) {
        nodes[i] = x;
        if (x->op == FX_OP_OUTPUT) out = x;
        else if (keep[i]) role[i] = x->op == FX_OP_PLACEHOLDER ? 2 : 1;
    }
    fx_node **outs = xmalloc(n_out * sizeof *outs);
    for (size_t k = 0; k < n_out; k++) {
        outs[k] = fx_graph_lookup(g, outputs[k]);
        if (!outs[k] || outs[k]->op == FX_OP_OUTPUT) {
            diag_error(d, (diag_loc){0}, "extract: no node %%%s to return", outputs[k]);
            free(outs);
            free(role);
            free(nodes);
            fx_program_free(p);
            return NULL;
        }
        if (!role[outs[k]->index]) role[outs[k]->index] = outs[k]->op == FX_OP_PLACEHOLDER ? 2 : 1;
    }
    struct mark_ctx mc = {role};
    for (i = 0; i < n; i++)
        if (role[i] == 1) {
            fx_arg_each_node(nodes[i]->args, mark_read, &mc);
            fx_arg_each_node(nodes[i]->kwargs, mark_read, &mc);
        }
    hashmap specs;
    index_specs(src, &specs);
    /* the new order: weights' placeholders, user inputs (the program's, then the cut values), the
     * kept nodes, the output; torch.export lists its placeholders in the signature's order */
    fx_node **order = xmalloc((n + 1) * sizeof *order);
    size_t m = 0;
    for (int pass = 0; pass < 3; pass++)
        for (i = 0; i < n; i++) {
            fx_node *x = nodes[i];
            if (role[i] != 2) continue;
            const fx_input_spec *sp = x->op == FX_OP_PLACEHOLDER ? hm_get(&specs, x->name) : NULL;
            bool weight = sp && sp->kind != FX_IN_USER_INPUT;
            bool user = x->op == FX_OP_PLACEHOLDER && !weight;
            if ((pass == 0 && weight) || (pass == 1 && user) || (pass == 2 && x->op != FX_OP_PLACEHOLDER))
                order[m++] = x;
        }
    size_t first_kept = m;
    for (i = 0; i < n; i++)
        if (role[i] == 1) order[m++] = nodes[i];
    if (!out) out = fx_node_new(g, "output", FX_OP_OUTPUT, "output");
    order[m++] = out;
    /* the cut values become placeholders holding their value meta (no provenance: they are inputs now) */
    for (i = 0; i < first_kept; i++) {
        fx_node *x = order[i];
        if (x->op == FX_OP_PLACEHOLDER) continue;
        x->op = FX_OP_PLACEHOLDER;
        x->target = x->name;
        fx_node_set_args(x, NULL, NULL);
        fx_meta keep_val = {.val = x->meta.val};
        x->meta = keep_val;
    }
    fx_arg **items = xmalloc(n_out * sizeof *items);
    for (size_t k = 0; k < n_out; k++) items[k] = fx_arg_node(p, outs[k]);
    fx_arg *res = fx_arg_seq(p, FX_ARG_TUPLE, items, NULL, n_out);
    fx_node_set_args(out, fx_arg_seq(p, FX_ARG_TUPLE, &res, NULL, 1), NULL);
    free(items);
    /* relink: dropped nodes leave the graph and its name map */
    for (i = 0; i < n; i++)
        if (!role[i] && nodes[i] != out && hm_get(&g->names, nodes[i]->name) == nodes[i]) hm_remove(&g->names, nodes[i]->name);
    g->first = m ? order[0] : NULL;
    g->last = m ? order[m - 1] : NULL;
    for (size_t k = 0; k < m; k++) {
        order[k]->prev = k ? order[k - 1] : NULL;
        order[k]->next = k + 1 < m ? order[k + 1] : NULL;
    }
    g->n_nodes = m;
    if (!hm_get(&g->names, out->name)) hm_put(&g->names, out->name, out);

    /* the signature: the kept placeholders keep their kind, cut values are user inputs; the
     * outputs are user outputs; the weights table keeps what the placeholders name */
    fx_input_spec *ins = fx_alloc(p, (first_kept ? first_kept : 1) * sizeof *ins);
    for (i = 0; i < first_kept; i++) {
        const fx_input_spec *sp = hm_get(&specs, order[i]->name);
        if (sp) {
            ins[i] = *sp;
            ins[i].name = fx_strdup(p, sp->name);
            ins[i].target = sp->target ? fx_strdup(p, sp->target) : NULL;
        } else {
            ins[i] = (fx_input_spec){.kind = FX_IN_USER_INPUT, .name = order[i]->name};
        }
    }
    p->sig.inputs = ins;
    p->sig.n_inputs = first_kept;
    fx_output_spec *os = fx_alloc(p, n_out * sizeof *os);
    for (size_t k = 0; k < n_out; k++) os[k] = (fx_output_spec){.kind = FX_OUT_USER_OUTPUT, .name = outs[k]->name};
    p->sig.outputs = os;
    p->sig.n_outputs = n_out;
    p->sig.present = true;
    hashmap targets;   /* the weights the kept placeholders name */
    hm_init(&targets);
    for (i = 0; i < first_kept; i++)
        if (ins[i].target && ins[i].kind != FX_IN_USER_INPUT) hm_put(&targets, ins[i].target, &ins[i]);
    fx_weight **link = &p->weights;
    p->weights_last = NULL;
    p->n_weights = 0;
    for (fx_weight *w = p->weights; w; w = w->next) {
        if (hm_has(&targets, w->fqn)) {
            *link = w;
            link = &w->next;
            p->weights_last = w;
            p->n_weights++;
        } else {   /* out of the table: fx_program_free no longer sees its mapping's reference */
            hm_remove(&p->weight_names, w->fqn);
            fmap_unref(w->map);
            w->map = NULL;
        }
    }
    *link = NULL;
    hm_free(&targets);
    hm_free(&specs);
    fx_program_refresh(p);
    free(order);
    free(outs);
    free(role);
    free(nodes);
    return p;
}
