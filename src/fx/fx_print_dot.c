/* fx_print_dot.c — an FX program as a Graphviz digraph, as torch.fx's FxGraphDrawer draws one:
 * a box per node (name, opcode and target, the value's dtype and shape), an edge per argument,
 * and each subgraph module (cond branches, loop bodies) as a cluster of its own nodes. */
#include <string.h>

#include "base/dot_write.h"
#include "fx/fx.h"
#include "fx/fx_format.h"

/* The node's DOT id: its qualified name (true_graph_0.mul), unique in the program. */
static void node_id(strbuf *out, const char *path, const fx_node *n)
{
    strbuf id;
    sb_init(&id);
    sb_printf(&id, "%s%s%s", path, *path ? "." : "", n->name);
    dot_quote(out, id.s);
    sb_free(&id);
}

typedef struct edge_ctx {
    strbuf *out;
    const char *path;
    const fx_node *to;
} edge_ctx;

static void arg_edge(fx_node *from, void *vctx)
{
    edge_ctx *c = vctx;
    sb_puts(c->out, "  ");
    node_id(c->out, c->path, from);
    sb_puts(c->out, " -> ");
    node_id(c->out, c->path, c->to);
    sb_puts(c->out, ";\n");
}

/* The subgraph module a get_attr node of module m names (cond's true_graph_0), or NULL. */
static const fx_module *subgraph_of(const fx_module *m, const fx_node *n)
{
    if (n->op != FX_OP_GET_ATTR || !n->target) return NULL;
    const fx_module *ch = hm_get(&m->child_names, n->target);
    return ch && ch->graph ? ch : NULL;
}

static void emit_module(const fx_module *m, const char *path, int depth, strbuf *out, strbuf *edges)
{
    const fx_graph *g = m->graph;
    strbuf l;
    sb_init(&l);
    for (const fx_node *n = g->first; n; n = n->next) {
        sb_reset(&l);
        dot_escape(&l, n->name);
        sb_puts(&l, "\\n");
        dot_escape(&l, fx_opcode_name(n->op));
        if (n->op != FX_OP_PLACEHOLDER && n->op != FX_OP_OUTPUT && n->target && strcmp(n->target, n->name)) {
            sb_putc(&l, ' ');
            dot_escape(&l, n->target);
        }
        if (n->meta.val && fx_value_has_annot(n->meta.val)) {
            strbuf v;
            sb_init(&v);
            fx_value_annot(&v, n->meta.val);
            sb_puts(&l, "\\n");
            dot_escape(&l, v.s);
            sb_free(&v);
        }
        sb_spaces(out, 2 + 2 * (size_t)depth);
        node_id(out, path, n);
        sb_printf(out, " [shape=box, style=\"rounded,filled\", fillcolor=%s, label=\"%s\"];\n",
                  n->op == FX_OP_PLACEHOLDER ? "\"#c8e6c9\"" : n->op == FX_OP_OUTPUT ? "\"#bbdefb\"" : "white", l.s);
        /* arguments: edges within this graph, written after every cluster (a node belongs to each
         * subgraph block that mentions it) */
        edge_ctx c = {edges, path, n};
        fx_arg_each_node(n->args, arg_edge, &c);
        fx_arg_each_node(n->kwargs, arg_edge, &c);
    }
    sb_free(&l);
    /* each subgraph a cluster of its own nodes; its output feeds the get_attr that names it */
    for (const fx_node *n = g->first; n; n = n->next) {
        const fx_module *sub = subgraph_of(m, n);
        if (!sub || depth >= 64 || !sub->graph->last) continue;
        strbuf sp, cl;
        sb_init(&sp);
        sb_init(&cl);
        sb_printf(&sp, "%s%s%s", path, *path ? "." : "", sub->name);
        sb_printf(&cl, "cluster_%s", sp.s);
        sb_spaces(out, 2 + 2 * (size_t)depth);
        sb_puts(out, "subgraph ");
        dot_quote(out, cl.s);
        sb_puts(out, " {\n");
        sb_spaces(out, 4 + 2 * (size_t)depth);
        sb_puts(out, "label=");
        dot_quote(out, sp.s);
        sb_puts(out, ";\n");
        emit_module(sub, sp.s, depth + 1, out, edges);
        sb_spaces(out, 2 + 2 * (size_t)depth);
        sb_puts(out, "}\n");
        sb_puts(edges, "  ");
        node_id(edges, sp.s, sub->graph->last);
        sb_puts(edges, " -> ");
        node_id(edges, path, n);
        sb_puts(edges, " [ltail=");
        dot_quote(edges, cl.s);
        sb_puts(edges, ", style=dashed];\n");
        sb_free(&sp);
        sb_free(&cl);
    }
}

void fx_print_dot(const fx_program *p, strbuf *out)
{
    sb_puts(out, "digraph ");
    dot_quote(out, p->root && p->root->type ? p->root->type : "GraphModule");
    sb_puts(out, " {\n  rankdir=TB;\n  compound=true;\n  node [fontname=\"Helvetica\", fontsize=10];\n");
    strbuf edges;
    sb_init(&edges);
    if (p->root && p->root->graph) emit_module(p->root, "", 0, out, &edges);
    sb_putn(out, edges.s, edges.len);
    sb_free(&edges);
    sb_puts(out, "}\n");
}
