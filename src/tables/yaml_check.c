/* yaml_check.c — bounds YAML alias expansion in fxsh's tables (see yaml_check.h). */
#include "tables/yaml_check.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/alloc.h"

typedef struct expand {
    yaml_document_t *doc;
    uint64_t *size;      /* per node: expanded size once known, 0 = not yet */
    unsigned char *busy; /* per node: being expanded (an alias back to it is a cycle) */
    uint64_t limit;
    bool cycle;
} expand;

/* Expanded size of node id (1-based), saturating just above the limit. Iterative: nesting can
 * be as deep as the file is long. */
static uint64_t expanded(expand *x, int root)
{
    size_t n = (size_t)(x->doc->nodes.top - x->doc->nodes.start);
    typedef struct frame { int id; size_t next; uint64_t sum; } frame;
    frame *st = xmalloc((n + 1) * sizeof *st);
    size_t sp = 0;
    st[sp++] = (frame){root, 0, 1};
    x->busy[root - 1] = 1;
    uint64_t result = 0;
    while (sp) {
        frame *f = &st[sp - 1];
        yaml_node_t *node = yaml_document_get_node(x->doc, f->id);
        int child = 0;
        if (node && node->type == YAML_SEQUENCE_NODE) {
            size_t k = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
            if (f->next < k) child = node->data.sequence.items.start[f->next];
        } else if (node && node->type == YAML_MAPPING_NODE) {
            size_t k = (size_t)(node->data.mapping.pairs.top - node->data.mapping.pairs.start);
            if (f->next < 2 * k) {
                yaml_node_pair_t *p = &node->data.mapping.pairs.start[f->next / 2];
                child = f->next % 2 ? p->value : p->key;
            }
        }
        if (!child) {   /* done with this node */
            uint64_t s = f->sum;
            x->size[f->id - 1] = s;
            x->busy[f->id - 1] = 0;
            sp--;
            if (sp) {
                st[sp - 1].sum += s;
                if (st[sp - 1].sum > x->limit) st[sp - 1].sum = x->limit + 1;
            } else {
                result = s;
            }
            continue;
        }
        f->next++;
        if (child < 1 || (size_t)child > n) continue;
        if (x->busy[child - 1]) {
            x->cycle = true;
            result = x->limit + 1;
            break;
        }
        if (x->size[child - 1]) {
            f->sum += x->size[child - 1];
            if (f->sum > x->limit) f->sum = x->limit + 1;
            continue;
        }
        x->busy[child - 1] = 1;
        st[sp++] = (frame){child, 0, 1};
    }
    free(st);
    return result;
}

bool yaml_check_expansion(yaml_document_t *doc, const char *file, diag_sink *d)
{
    size_t n = (size_t)(doc->nodes.top - doc->nodes.start);
    if (!n) return true;
    expand x = {doc, xcalloc(n, sizeof *x.size), xcalloc(n, 1),
                (uint64_t)n * YAML_EXPAND_FACTOR + YAML_EXPAND_SLACK, false};
    uint64_t total = expanded(&x, 1);
    free(x.size);
    free(x.busy);
    if (x.cycle) {
        diag_error(d, (diag_loc){file, 0, 0}, "YAML alias refers to a node that contains it: the document is infinite");
        return false;
    }
    if (total > x.limit) {
        diagnostic *dg = diag_error(d, (diag_loc){file, 0, 0},
                                    "YAML aliases expand this file's %zu nodes to more than %llu: refusing to load it", n,
                                    (unsigned long long)x.limit);
        diag_set_hint(dg, "an alias (*name) counts as a copy of what its anchor (&name) names, also under keys fxsh "
                          "ignores; use fewer aliases or write the repeated parts out");
        return false;
    }
    return true;
}
