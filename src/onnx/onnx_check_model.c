/* onnx_check_model.c — the model-level checks onnx.checker.check_model makes before it looks at a
 * graph: the ir_version range, the opset imports an IR version needs, typed main-graph inputs and
 * outputs, initializers listed as inputs where the IR version requires it, metadata keys, and
 * external data files that are really there. */
#include <string.h>
#include <unistd.h>

#include "base/hashmap.h"
#include "base/strbuf.h"
#include "onnx/onnx_check_internal.h"

/* A main-graph input or output must carry its full type (onnx's check_value_info): the element
 * type, and for a tensor its shape (a shape with unknown dimensions is fine, no shape is not). */
static void check_io_type(ox_check_report *r, const char *gname, const char *what, const Onnx__ValueInfoProto *v)
{
    const char *nm = v->name ? v->name : "";
    const Onnx__TypeProto *t = v->type;
    if (!t || t->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET) {
        ox_check_problem(r, "graph '%s': %s '%s' has no type (a main graph's inputs and outputs must be typed)", gname, what,
                         nm);
        return;
    }
    switch (t->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
        if (!t->tensor_type->has_elem_type)
            ox_check_problem(r, "graph '%s': %s '%s' is a tensor without an element type", gname, what, nm);
        else if (!t->tensor_type->shape)
            ox_check_problem(r, "graph '%s': %s '%s' is a tensor without a shape (give its rank, dimensions may be unknown)",
                             gname, what, nm);
        break;
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
        if (!t->sparse_tensor_type->has_elem_type || !t->sparse_tensor_type->shape)
            ox_check_problem(r, "graph '%s': %s '%s' is a sparse tensor without an element type and shape", gname, what, nm);
        break;
    default:
        break;
    }
}

/* The external data of every tensor that still refers to a file: a file load could not read
 * (it warned and kept the reference) is missing to onnx too. */
static void check_external(ox_check_report *r, const char *where, const Onnx__TensorProto *t, const char *dir)
{
    if (!t->has_data_location || t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) return;
    const char *loc = NULL;
    for (size_t i = 0; i < t->n_external_data; i++)
        if (t->external_data[i]->key && !strcmp(t->external_data[i]->key, "location")) loc = t->external_data[i]->value;
    if (!loc || !*loc) {
        ox_check_problem(r, "%s: tensor '%s' is stored externally but has no \"location\"", where, t->name ? t->name : "");
        return;
    }
    if (!dir) return;   /* a model built in the session: nothing to look next to */
    strbuf p = {0};
    sb_printf(&p, "%s/%s", dir, loc);
    if (access(p.s, R_OK) != 0)
        ox_check_problem(r, "%s: tensor '%s': its data should be in '%s', which does not exist or is not readable", where,
                         t->name ? t->name : "", p.s);
    sb_free(&p);
}

static void check_graph_external(ox_check_report *r, const Onnx__GraphProto *g, const char *dir, int depth)
{
    if (depth > 64) return;
    strbuf w = {0};
    sb_printf(&w, "graph '%s'", g->name ? g->name : "");
    for (size_t i = 0; i < g->n_initializer; i++) check_external(r, w.s, g->initializer[i], dir);
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_attribute; k++) {
            const Onnx__AttributeProto *a = g->node[i]->attribute[k];
            if (a->t) check_external(r, w.s, a->t, dir);
            if (a->g) check_graph_external(r, a->g, dir, depth + 1);
            for (size_t j = 0; j < a->n_graphs; j++) check_graph_external(r, a->graphs[j], dir, depth + 1);
        }
    sb_free(&w);
}

void ox_check_model_level(ox_check_report *r, const ox_model *m)
{
    const Onnx__ModelProto *mp = m->proto;
    if (!mp->has_ir_version || mp->ir_version <= 0)
        ox_check_problem(r, "model: no ir_version (onnx's checker requires one)");
    else if (mp->ir_version > OX_IR_VERSION_MAX)
        ox_check_problem(r, "model: ir_version %lld is newer than the newest onnx knows (%d)", (long long)mp->ir_version,
                         OX_IR_VERSION_MAX);
    if (mp->has_ir_version && mp->ir_version >= 3 && mp->n_opset_import == 0)
        ox_check_problem(r, "model: ir_version %lld needs opset_import (at least the default domain's)",
                         (long long)mp->ir_version);
    if (mp->has_ir_version && mp->ir_version > 0 && mp->ir_version < 3 && mp->n_opset_import)
        ox_check_problem(r, "model: ir_version %lld predates opset_import, but the model has one", (long long)mp->ir_version);
    hashmap keys;
    hm_init(&keys);
    for (size_t i = 0; i < mp->n_metadata_props; i++) {
        const char *k = mp->metadata_props[i]->key ? mp->metadata_props[i]->key : "";
        if (hm_put(&keys, k, (void *)1)) ox_check_problem(r, "model: metadata_props has the key '%s' twice", k);
    }
    hm_free(&keys);
    const Onnx__GraphProto *g = mp->graph;
    if (!g) return;
    const char *gname = g->name ? g->name : "";
    for (size_t i = 0; i < g->n_input; i++) check_io_type(r, gname, "input", g->input[i]);
    for (size_t i = 0; i < g->n_output; i++) check_io_type(r, gname, "output", g->output[i]);
    if (mp->has_ir_version && mp->ir_version > 0 && mp->ir_version < 4) {
        /* before IR 4 an initializer was a default for an input, so it must be one */
        hashmap ins;
        hm_init(&ins);
        for (size_t i = 0; i < g->n_input; i++)
            if (g->input[i]->name) hm_put(&ins, g->input[i]->name, (void *)1);
        for (size_t i = 0; i < g->n_initializer; i++)
            if (g->initializer[i]->name && !hm_has(&ins, g->initializer[i]->name))
                ox_check_problem(r, "graph '%s': initializer '%s' is not a graph input (ir_version %lld needs it to be)",
                                 gname, g->initializer[i]->name, (long long)mp->ir_version);
        hm_free(&ins);
    }
    strbuf dir = {0};
    if (m->path) {   /* external data is looked up next to the model file, as onnx does */
        const char *slash = strrchr(m->path, '/');
        if (slash) sb_printf(&dir, "%.*s", slash == m->path ? 1 : (int)(slash - m->path), m->path);
        else sb_puts(&dir, ".");
    }
    check_graph_external(r, g, m->path ? dir.s : NULL, 0);
    sb_free(&dir);
}
