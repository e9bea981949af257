/* translate_rename.c — results that are an input returned as it is. A torchlib function may
 * `return self` (t of a vector, logsumexp of a scalar, repeat with no repeats); torch.onnx then
 * names that value after the FX node, as it names every node's result (graph input or earlier
 * result alike), and its producer node_<name>. Translation records each rename (tx->renames,
 * old → new; a later one of the same value overrides) and keeps using the old name; this walk
 * applies them all to the model at once. */
#include "config.h"

#include <string.h>

#include "onnx/onnx_ir.h"
#include "translate/translate_internal.h"

#define MAX_RENAME_DEPTH 64

const char *tx_renamed(tx *t, const char *name)
{
    const char *r = name ? hm_get(&t->renames, name) : NULL;
    return r ? r : name;
}

/* Renames *slot in place; true if it was renamed. */
static bool rename_slot(tx *t, char **slot)
{
    const char *r = *slot && **slot ? hm_get(&t->renames, *slot) : NULL;
    if (!r) return false;
    *slot = ox_strdup(t->m, r);
    return true;
}

static void rename_graph(tx *t, Onnx__GraphProto *g, int depth)
{
    if (!g || depth > MAX_RENAME_DEPTH) return;
    for (size_t i = 0; i < g->n_input; i++) rename_slot(t, &g->input[i]->name);
    for (size_t i = 0; i < g->n_output; i++) rename_slot(t, &g->output[i]->name);
    for (size_t i = 0; i < g->n_value_info; i++) rename_slot(t, &g->value_info[i]->name);
    for (size_t i = 0; i < g->n_initializer; i++) rename_slot(t, &g->initializer[i]->name);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        for (size_t k = 0; k < n->n_input; k++) rename_slot(t, &n->input[k]);
        for (size_t k = 0; k < n->n_output; k++)
            if (rename_slot(t, &n->output[k]))   /* the exporter renames the producer with it */
                n->name = ox_strdup(t->m, arena_printf(&t->a, "node_%s", n->output[k]));
        for (size_t a = 0; a < n->n_attribute; a++) {
            Onnx__AttributeProto *at = n->attribute[a];
            rename_graph(t, at->g, depth + 1);
            for (size_t k = 0; k < at->n_graphs; k++) rename_graph(t, at->graphs[k], depth + 1);
        }
    }
}

void tx_apply_renames(tx *t)
{
    if (t->renames.len) rename_graph(t, t->m->proto->graph, 0);
}
