/* onnx_check_shapes.c — the checker's shape inference: each node's outputs inferred as ONNX
 * infers them (onnx_infer.c) and compared with the types the model declares, as
 * onnx.checker.check_model(full_check=True) does; a contradiction names the node. */
#include <inttypes.h>
#include <string.h>

#include "base/strbuf.h"
#include "onnx/onnx_check_internal.h"
#include "onnx/onnx_infer.h"

typedef struct shape_check {
    ox_check_report *r;
    const char *graph;
} shape_check;

static void dims_text(strbuf *sb, const oi_type *t)
{
    sb_putc(sb, '[');
    for (int i = 0; i < t->rank; i++) {
        if (i) sb_putc(sb, ',');
        if (t->d[i].v >= 0) sb_printf(sb, "%" PRId64, t->d[i].v);
        else sb_puts(sb, t->d[i].sym ? t->d[i].sym : "?");
    }
    sb_putc(sb, ']');
}

static void compare(void *ctx, size_t idx, const Onnx__NodeProto *n, size_t k, const oi_type *inferred,
                    const oi_type *declared, const char *why)
{
    shape_check *c = ctx;
    strbuf desc = {0};
    ox_check_node_desc(&desc, c->graph, idx, n);
    if (why) {
        ox_check_problem(c->r, "%s: [ShapeInferenceError] %s", desc.s, why);
    } else if (declared && inferred->elem && declared->elem && inferred->elem != declared->elem) {
        ox_check_problem(c->r, "%s: [TypeInferenceError] output '%s' is inferred %s, but the model declares it %s", desc.s,
                         n->output[k], ox_dtype_name(inferred->elem), ox_dtype_name(declared->elem));
    } else if (declared && inferred->rank >= 0 && declared->rank >= 0) {
        int bad = inferred->rank != declared->rank ? -2 : -1;
        for (int i = 0; bad == -1 && i < inferred->rank; i++)
            if (inferred->d[i].v >= 0 && declared->d[i].v >= 0 && inferred->d[i].v != declared->d[i].v) bad = i;
        if (bad != -1) {
            strbuf a = {0}, b = {0};
            dims_text(&a, inferred);
            dims_text(&b, declared);
            if (bad == -2)
                ox_check_problem(c->r, "%s: [ShapeInferenceError] output '%s' is inferred of rank %d %s, but the model declares rank %d %s",
                                 desc.s, n->output[k], inferred->rank, a.s, declared->rank, b.s);
            else
                ox_check_problem(c->r, "%s: [ShapeInferenceError] output '%s': inferred shape and declared shape differ in dimension %d: %s vs %s",
                                 desc.s, n->output[k], bad, a.s, b.s);
            sb_free(&a);
            sb_free(&b);
        }
    }
    sb_free(&desc);
}

void ox_check_shapes(ox_check_report *r, const ox_model *m)
{
    const Onnx__ModelProto *mp = m->proto;
    int64_t opset = ox_model_opset(m, "");
    if (opset < 0 || !mp->graph) return;
    shape_check c = {r, mp->graph->name ? mp->graph->name : ""};
    oi_walk_graph(mp->graph, opset, compare, &c);
}
