/* onnx_check_shapes.c — the checker's shape inference: each node's outputs, in the main graph and
 * in the bodies of If / Loop / Scan, inferred as ONNX infers them (onnx_infer*.c) and compared
 * with the types the model declares, and each initializer with its declaration, as
 * onnx.checker.check_model(full_check=True) does (strict shape inference); a contradiction names
 * the node, the value and both types. Symbolic dimensions contradict nothing. */
#include <inttypes.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/vec.h"
#include "onnx/onnx_check_internal.h"
#include "onnx/onnx_infer.h"
#include "onnx/onnx_infer_internal.h"
#include "onnx/onnx_op.h"

static void dims_text(strbuf *sb, const oi_type *t)
{
    sb_putc(sb, '[');
    for (int i = 0; i < t->rank; i++) {
        if (i) sb_putc(sb, ',');
        if (t->d[i].v >= 0 || t->d[i].neg) sb_printf(sb, "%" PRId64, t->d[i].v);
        else sb_puts(sb, t->d[i].sym ? t->d[i].sym : "?");
    }
    sb_putc(sb, ']');
}

/* Reports where (a node or an initializer) if inferred and declared contradict each other: a
 * problem when counted, else a warning (what onnx lets pass but a runtime may refuse). */
static void contradiction(ox_check_report *r, bool counted, const char *where, const char *what, const char *name,
                          const oi_type *inferred, const oi_type *declared, const char *inferred_how)
{
    void (*report)(ox_check_report *, const char *, ...) = counted ? ox_check_problem : ox_check_warning;
    static const char *const kinds[] = {"a tensor", "a sequence", "an optional tensor", "an optional sequence"};
    if (inferred->elem && declared->elem && inferred->kind != declared->kind) {
        report(r, "%s: [TypeInferenceError] %s '%s' is %s %s, but the model declares it %s", where, what, name, inferred_how,
               kinds[inferred->kind & 3], kinds[declared->kind & 3]);
        return;
    }
    if (inferred->elem && declared->elem && inferred->elem != declared->elem) {
        report(r, "%s: [TypeInferenceError] %s '%s' is %s %s, but the model declares it %s", where, what, name, inferred_how,
               ox_dtype_name(inferred->elem), ox_dtype_name(declared->elem));
        return;
    }
    if (inferred->rank < 0 || declared->rank < 0) return;
    int bad = inferred->rank != declared->rank ? -2 : -1;
    /* a dimension is a number when known, or when declared negative (onnx compares those too:
     * "Inferred shape and existing shape differ in dimension 0: (2) vs (-2)") */
    for (int i = 0; bad == -1 && i < inferred->rank; i++) {
        const oi_dim *x = &inferred->d[i], *y = &declared->d[i];
        if ((x->v >= 0 || x->neg) && (y->v >= 0 || y->neg) && x->v != y->v) bad = i;
    }
    if (bad == -1) return;
    strbuf a = {0}, b = {0};
    dims_text(&a, inferred);
    dims_text(&b, declared);
    if (bad == -2)
        report(r, "%s: [ShapeInferenceError] %s '%s' is %s of rank %d %s, but the model declares rank %d %s", where, what,
               name, inferred_how, inferred->rank, a.s, declared->rank, b.s);
    else
        report(r, "%s: [ShapeInferenceError] %s '%s' is %s %s, but the model declares %s: dimension %d differs", where, what,
               name, inferred_how, a.s, b.s, bad);
    sb_free(&a);
    sb_free(&b);
}

typedef struct shape_check {
    ox_check_report *r;
    const ox_model *m;
    VEC(struct first_unknown { const Onnx__GraphProto *g; size_t idx; }) graphs;
} shape_check;

bool ox_check_onnx_knows(const ox_model *m, const Onnx__NodeProto *n)
{
    const char *d = n->domain ? n->domain : "";
    if (!*d || !strcmp(d, "ai.onnx") || !strcmp(d, "ai.onnx.ml") || !strcmp(d, "ai.onnx.preview.training")) return true;
    for (size_t i = 0; i < m->proto->n_functions; i++) {
        const Onnx__FunctionProto *f = m->proto->functions[i];
        if (f->domain && f->name && n->op_type && !strcmp(f->domain, d) && !strcmp(f->name, n->op_type)) return true;
    }
    return false;
}

/* The index of g's first node of an unsupported operator (g's node count if none). */
static size_t first_unsupported(shape_check *c, const Onnx__GraphProto *g)
{
    for (size_t i = 0; i < c->graphs.len; i++)
        if (c->graphs.items[i].g == g) return c->graphs.items[i].idx;
    size_t idx = 0;
    while (idx < g->n_node && ox_check_onnx_knows(c->m, g->node[idx])) idx++;
    struct first_unknown f = {g, idx};
    vec_push(&c->graphs, f);
    return idx;
}

static void compare(void *ctx, const Onnx__GraphProto *g, size_t idx, const Onnx__NodeProto *n, size_t k,
                    const oi_type *inferred, const oi_type *declared, const char *why)
{
    shape_check *c = ctx;
    ox_check_report *r = c->r;
    strbuf desc = {0};
    ox_check_node_desc(&desc, g->name ? g->name : "", idx, n);
    /* onnx's strict inference drops the errors of the nodes after one it has no schema for
     * (their types may come from it): told as warnings, not counted */
    bool counted = idx <= first_unsupported(c, g);
    if (why) {
        if (counted) ox_check_problem(r, "%s: [ShapeInferenceError] %s", desc.s, why);
        else ox_check_warning(r, "%s: [ShapeInferenceError] %s (not counted: it follows an operator onnx does not know)",
                              desc.s, why);
    } else if (declared) {
        contradiction(r, counted, desc.s, "output", n->output[k], inferred, declared, "inferred");
        /* not silent about a declaration fxsh cannot verify: an operator it has no inference for */
        if (declared->elem && !inferred->elem && (k == 0 || !n->output[0] || !*n->output[0]) && !oi_is_control(n)) {
            const ox_op *op = ox_op_find(n->domain, n->op_type);
            if (!op || !op->infer) {
                diag_loc loc = {r->m->path, 0, 0};
                diag_note(r->d, loc, "%s: fxsh does not infer %s, so the declared types of its outputs are taken unchecked",
                          desc.s, n->op_type ? n->op_type : "?");
            }
        }
    }
    sb_free(&desc);
}

/* Each initializer against the declaration of its name in its graph. */
static void check_declarations(ox_check_report *r, const Onnx__GraphProto *g, int depth)
{
    if (depth > 64) return;
    strbuf where = {0};
    sb_printf(&where, "graph '%s'", g->name ? g->name : "");
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        if (!t->name || t->n_dims > OE_MAX_RANK) continue;
        oi_type have = {.elem = t->data_type, .rank = (int)t->n_dims};
        for (size_t k = 0; k < t->n_dims; k++) have.d[k] = (oi_dim){t->dims[k], NULL, false};
        /* onnx compares an initializer with the declaration of its name that wins: a graph
         * output's over a value_info's or an input's (those are then not looked at) */
        bool is_output = false;
        for (size_t k = 0; k < g->n_output; k++)
            if (g->output[k]->name && !strcmp(g->output[k]->name, t->name)) {
                oi_type decl;
                oi_from_proto(g->output[k]->type, &decl);
                contradiction(r, true, where.s, "initializer", t->name, &have, &decl, "stored");
                is_output = true;
            }
        Onnx__ValueInfoProto *const *lists[2] = {g->input, g->value_info};
        size_t counts[2] = {g->n_input, g->n_value_info};
        for (int l = 0; l < 2 && !is_output; l++)
            for (size_t k = 0; k < counts[l]; k++)
                if (lists[l][k]->name && !strcmp(lists[l][k]->name, t->name)) {
                    oi_type decl;
                    oi_from_proto(lists[l][k]->type, &decl);
                    contradiction(r, true, where.s, "initializer", t->name, &have, &decl, "stored");
                }
    }
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_attribute; k++) {
            const Onnx__AttributeProto *a = g->node[i]->attribute[k];
            if (a->g) check_declarations(r, a->g, depth + 1);
            for (size_t j = 0; j < a->n_graphs; j++) check_declarations(r, a->graphs[j], depth + 1);
        }
    sb_free(&where);
}

void ox_check_shapes(ox_check_report *r, const ox_model *m)
{
    const Onnx__ModelProto *mp = m->proto;
    int64_t opset = ox_model_opset(m, "");
    if (!mp->graph) return;
    if (opset < 0) opset = 0;   /* no ai.onnx node then (the structural check saw to it); other domains' are inferred */
    check_declarations(r, mp->graph, 0);
    shape_check c = {r, m, {0}};
    oi_walk_graph(mp->graph, opset, compare, &c);
    vec_free(&c.graphs);
}
