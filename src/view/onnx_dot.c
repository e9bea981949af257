/* onnx_dot.c — Graphviz DOT writer for ONNX graphs (clusters for control-flow bodies). */
#include "view/onnx_dot.h"

#include <inttypes.h>
#include <string.h>

#include "base/dot_write.h"
#include "base/hashmap.h"
#include "view/onnx_summary.h"

#define MAX_DEPTH 64
#define MAX_LABEL_ATTRS 3
#define MAX_LIST 4

/* Names visible in one graph: tensor name -> DOT id of its producer. */
typedef struct scope {
    hashmap producer;
    hashmap types;     /* tensor name -> TypeProto (inputs, outputs, value_info) */
    const struct scope *parent;
} scope;

typedef struct dotw {
    strbuf *out;
    arena a;           /* DOT ids */
    unsigned next_graph;
    /* Edges that cross a cluster's border (an outer value used in a body, a body into its node),
     * written after everything at the top level: Graphviz puts a node in every subgraph whose
     * block mentions it, so an edge written inside a cluster would pull the outer node in. */
    strbuf outer;
} dotw;

static const char *lookup(const scope *s, const char *name, bool types)
{
    for (; s; s = s->parent) {
        void *v = hm_get(types ? &s->types : &s->producer, name);
        if (v)
            return v;
    }
    return NULL;
}

/* The producer's id, and whether it is outside graph sc (an outer-scope value). */
static const char *lookup_producer(const scope *sc, const char *name, bool *outer)
{
    *outer = hm_get(&sc->producer, name) == NULL;
    return lookup(sc, name, false);
}

static void indent(strbuf *out, int depth) { sb_spaces(out, 2 + 2 * (size_t)depth); }

static void attr_short(strbuf *l, const Onnx__AttributeProto *a)
{
    dot_escape(l, a->name);
    sb_putc(l, '=');
    if (a->ref_attr_name) {
        sb_putc(l, '@');
        dot_escape(l, a->ref_attr_name);
        return;
    }
    switch (a->type) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: sb_printf(l, "%" PRId64, a->i); break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: sb_printf(l, "%g", a->f); break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: {
        size_t n = a->s.len > 16 ? 16 : a->s.len;
        char buf[20];
        if (n) memcpy(buf, a->s.data, n);   /* an empty string attribute has no data (NULL) */
        buf[n] = 0;
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)buf[i] < 32)
                buf[i] = ' ';
        dot_escape(l, buf);
        if (a->s.len > 16)
            sb_puts(l, "...");
        break;
    }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
        sb_putc(l, '[');
        for (size_t i = 0; i < a->n_ints && i < MAX_LIST; i++)
            sb_printf(l, "%s%" PRId64, i ? "," : "", a->ints[i]);
        sb_puts(l, a->n_ints > MAX_LIST ? ",...]" : "]");
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
        sb_putc(l, '[');
        for (size_t i = 0; i < a->n_floats && i < MAX_LIST; i++)
            sb_printf(l, "%s%g", i ? "," : "", a->floats[i]);
        sb_puts(l, a->n_floats > MAX_LIST ? ",...]" : "]");
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
        if (a->t) {
            sb_puts(l, ox_dtype_name(a->t->data_type));
            sb_putc(l, '[');
            for (size_t i = 0; i < a->t->n_dims; i++)
                sb_printf(l, "%s%" PRId64, i ? "," : "", a->t->dims[i]);
            sb_putc(l, ']');
        }
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH: sb_puts(l, "<graph>"); break;
    default: sb_puts(l, "..."); break;
    }
}

/* An edge into the graph's own block, or into the top-level list of border-crossing edges. */
static void edge(dotw *w, int depth, const scope *sc, const char *from, const char *to,
                 const char *tensor, bool crosses)
{
    strbuf *out = crosses ? &w->outer : w->out;
    strbuf l;
    sb_init(&l);
    dot_escape(&l, tensor);
    const Onnx__TypeProto *t = (const Onnx__TypeProto *)lookup(sc, tensor, true);
    if (t) {
        strbuf ty;
        sb_init(&ty);
        view_summary_type(&ty, t);
        if (ty.len) {
            sb_puts(&l, "\\n");
            dot_escape(&l, ty.s);
        }
        sb_free(&ty);
    }
    indent(out, crosses ? 0 : depth);
    dot_quote(out, from);
    sb_puts(out, " -> ");
    dot_quote(out, to);
    sb_printf(out, " [label=\"%s\"];\n", l.s);
    sb_free(&l);
}

/* A body's edge into the If / Loop / Scan node that runs it: from its first output, leaving
 * the cluster's border (compound=true), dashed and labelled with the attribute's name. */
static void body_edge(dotw *w, unsigned body_gid, const Onnx__GraphProto *body, const char *cluster,
                      const char *node_id, const char *attr)
{
    if (!body->n_output) return;
    strbuf *out = &w->outer;
    indent(out, 0);
    dot_quote(out, arena_printf(&w->a, "g%u_out0", body_gid));
    sb_puts(out, " -> ");
    dot_quote(out, node_id);
    sb_puts(out, " [ltail=");
    dot_quote(out, cluster);
    sb_puts(out, ", style=dashed, label=");
    dot_quote(out, attr);
    sb_puts(out, "];\n");
}

static void value_node(dotw *w, int depth, const char *id, const char *name,
                       const Onnx__TypeProto *t, const char *style)
{
    strbuf l;
    sb_init(&l);
    dot_escape(&l, name);
    if (t) {
        strbuf ty;
        sb_init(&ty);
        view_summary_type(&ty, t);
        if (ty.len) {
            sb_puts(&l, "\\n");
            dot_escape(&l, ty.s);
        }
        sb_free(&ty);
    }
    indent(w->out, depth);
    dot_quote(w->out, id);
    sb_printf(w->out, " [%s, label=\"%s\"];\n", style, l.s);
    sb_free(&l);
}

static void emit_graph(dotw *w, const Onnx__GraphProto *g, const scope *parent, int depth);

static void emit_nodes(dotw *w, const Onnx__GraphProto *g, scope *sc, const char *gid, int depth)
{
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        char *nid = arena_printf(&w->a, "%s_n%zu", gid, i);
        strbuf l;
        sb_init(&l);
        if (n->name && n->name[0]) {
            dot_escape(&l, n->name);
            sb_puts(&l, "\\n");
        }
        if (n->domain && n->domain[0]) {
            dot_escape(&l, n->domain);
            sb_putc(&l, '.');
        }
        dot_escape(&l, n->op_type);
        size_t shown = 0;
        for (size_t k = 0; k < n->n_attribute && shown < MAX_LABEL_ATTRS; k++) {
            const Onnx__AttributeProto *a = n->attribute[k];
            if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH ||
                a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS)
                continue;
            sb_puts(&l, "\\n");
            attr_short(&l, a);
            shown++;
        }
        indent(w->out, depth);
        dot_quote(w->out, nid);
        sb_printf(w->out, " [shape=box, style=\"rounded,filled\", fillcolor=white, label=\"%s\"];\n", l.s);
        sb_free(&l);
        for (size_t k = 0; k < n->n_input; k++) {
            const char *in = n->input[k];
            if (!in[0])
                continue;
            bool crosses;
            const char *from = lookup_producer(sc, in, &crosses);
            if (from)
                edge(w, depth, sc, from, nid, in, crosses);
        }
        if (depth < MAX_DEPTH) {
            for (size_t k = 0; k < n->n_attribute; k++) {
                const Onnx__AttributeProto *a = n->attribute[k];
                if (a->g) {
                    char *cluster = arena_printf(&w->a, "cluster_%s_%s", nid, a->name ? a->name : "");
                    unsigned body = w->next_graph;
                    indent(w->out, depth);
                    sb_puts(w->out, "subgraph ");
                    dot_quote(w->out, cluster);
                    sb_puts(w->out, " {\n");
                    indent(w->out, depth + 1);
                    sb_puts(w->out, "label=");
                    char *cl = arena_printf(&w->a, "%s %s: %s", n->op_type ? n->op_type : "",
                                            a->name ? a->name : "", a->g->name ? a->g->name : "");
                    dot_quote(w->out, cl);
                    sb_puts(w->out, ";\n");
                    emit_graph(w, a->g, sc, depth + 1);
                    indent(w->out, depth);
                    sb_puts(w->out, "}\n");
                    body_edge(w, body, a->g, cluster, nid, a->name ? a->name : "");
                }
                for (size_t j = 0; j < a->n_graphs; j++) {
                    char *cluster = arena_printf(&w->a, "cluster_%s_%s_%zu", nid, a->name ? a->name : "", j);
                    unsigned body = w->next_graph;
                    indent(w->out, depth);
                    sb_puts(w->out, "subgraph ");
                    dot_quote(w->out, cluster);
                    sb_puts(w->out, " {\n");
                    emit_graph(w, a->graphs[j], sc, depth + 1);
                    indent(w->out, depth);
                    sb_puts(w->out, "}\n");
                    body_edge(w, body, a->graphs[j], cluster, nid, arena_printf(&w->a, "%s[%zu]", a->name ? a->name : "", j));
                }
            }
        }
        for (size_t k = 0; k < n->n_output; k++)
            if (n->output[k][0])
                hm_put(&sc->producer, n->output[k], nid);
    }
}

static void emit_graph(dotw *w, const Onnx__GraphProto *g, const scope *parent, int depth)
{
    char *gid = arena_printf(&w->a, "g%u", w->next_graph++);
    scope sc = {.parent = parent};
    hm_init(&sc.producer);
    hm_init(&sc.types);
    for (size_t i = 0; i < g->n_value_info; i++)
        if (g->value_info[i]->type && g->value_info[i]->name)
            hm_put(&sc.types, g->value_info[i]->name, g->value_info[i]->type);
    for (size_t i = 0; i < g->n_output; i++)
        if (g->output[i]->type && g->output[i]->name)
            hm_put(&sc.types, g->output[i]->name, g->output[i]->type);
    for (size_t i = 0; i < g->n_input; i++) {
        const Onnx__ValueInfoProto *v = g->input[i];
        char *id = arena_printf(&w->a, "%s_in%zu", gid, i);
        if (!v->name)
            continue;
        if (v->type)
            hm_put(&sc.types, v->name, v->type);
        hm_put(&sc.producer, v->name, id);
        value_node(w, depth, id, v->name, v->type,
                   "shape=ellipse, style=filled, fillcolor=\"#c8e6c9\"");
    }
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        char *id = arena_printf(&w->a, "%s_init%zu", gid, i);
        strbuf l;
        sb_init(&l);
        dot_escape(&l, t->name);
        sb_puts(&l, "\\n");
        sb_puts(&l, ox_dtype_name(t->data_type));
        sb_putc(&l, '[');
        for (size_t k = 0; k < t->n_dims; k++)
            sb_printf(&l, "%s%" PRId64, k ? "," : "", t->dims[k]);
        sb_putc(&l, ']');
        indent(w->out, depth);
        dot_quote(w->out, id);
        sb_printf(w->out, " [shape=note, style=filled, fillcolor=\"#eeeeee\", label=\"%s\"];\n", l.s);
        sb_free(&l);
        if (t->name)
            hm_put(&sc.producer, t->name, id);
    }
    emit_nodes(w, g, &sc, gid, depth);
    for (size_t i = 0; i < g->n_output; i++) {
        const Onnx__ValueInfoProto *v = g->output[i];
        char *id = arena_printf(&w->a, "%s_out%zu", gid, i);
        value_node(w, depth, id, v->name, v->type,
                   "shape=ellipse, style=filled, fillcolor=\"#bbdefb\"");
        bool crosses = false;   /* a body may return an outer value as it is */
        const char *from = v->name ? lookup_producer(&sc, v->name, &crosses) : NULL;
        if (from)
            edge(w, depth, &sc, from, id, v->name, crosses);
    }
    hm_free(&sc.producer);
    hm_free(&sc.types);
}

void view_dot(const ox_model *m, strbuf *out)
{
    dotw w = {.out = out};
    arena_init(&w.a);
    sb_init(&w.outer);
    const Onnx__GraphProto *g = m->proto->graph;
    sb_puts(out, "digraph ");
    dot_quote(out, g && g->name ? g->name : "model");
    sb_puts(out, " {\n  rankdir=TB;\n  compound=true;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
                 "  edge [fontname=\"Helvetica\", fontsize=8];\n");
    if (g)
        emit_graph(&w, g, NULL, 0);
    sb_putn(out, w.outer.s, w.outer.len);
    sb_puts(out, "}\n");
    sb_free(&w.outer);
    arena_free(&w.a);
}
