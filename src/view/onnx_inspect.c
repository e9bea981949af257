/* onnx_inspect.c — REPL views of an ONNX model: node list, one node, search, op statistics,
 * initializer summaries. Linear in model size: names are indexed once per call. */
#include "base/alloc.h"
#include "view/onnx_inspect.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/vec.h"
#include "onnx/onnx_print.h"

enum { MAX_DEPTH = 64 };

/* One node with where it lives: its path prefix ("" for the main graph) and graph. */
typedef struct located_node {
    const Onnx__NodeProto *node;
    char *path;            /* e.g. "node_cond__0/then_branch/" (malloc'd) */
    size_t index;          /* index in its graph */
} located_node;

typedef VEC(located_node) node_list;

static const char *node_label(const Onnx__NodeProto *n)
{
    if (n->name && n->name[0]) return n->name;
    if (n->n_output && n->output[0][0]) return n->output[0];
    return "";
}

static void collect(const Onnx__GraphProto *g, const char *prefix, int depth, node_list *out)
{
    if (!g || depth > MAX_DEPTH) return;
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        located_node ln = {n, xstrdup(prefix), i};
        vec_push(out, ln);
        for (size_t a = 0; a < n->n_attribute; a++) {
            const Onnx__AttributeProto *at = n->attribute[a];
            strbuf p;
            sb_init(&p);
            if (at->g) {
                sb_printf(&p, "%s%s/%s/", prefix, node_label(n), at->name);
                collect(at->g, p.s, depth + 1, out);
            }
            for (size_t k = 0; k < at->n_graphs; k++) {
                sb_reset(&p);
                sb_printf(&p, "%s%s/%s[%zu]/", prefix, node_label(n), at->name, k);
                collect(at->graphs[k], p.s, depth + 1, out);
            }
            sb_free(&p);
        }
    }
}

static void list_free(node_list *l)
{
    for (size_t i = 0; i < l->len; i++) free(l->items[i].path);
    vec_free(l);
}

static const Onnx__GraphProto *main_graph(const ox_model *m)
{
    return m->proto ? m->proto->graph : NULL;
}

static void op_name(strbuf *sb, const Onnx__NodeProto *n)
{
    if (n->domain && n->domain[0]) sb_printf(sb, "%s.", n->domain);
    sb_puts(sb, n->op_type ? n->op_type : "?");
}

void view_show_nodes(const ox_model *m, strbuf *out)
{
    node_list l = {0};
    collect(main_graph(m), "", 0, &l);
    size_t wname = 4, wop = 2;
    for (size_t i = 0; i < l.len; i++) {
        size_t w = strlen(l.items[i].path) + strlen(node_label(l.items[i].node));
        if (w > wname) wname = w;
        strbuf op;
        sb_init(&op);
        op_name(&op, l.items[i].node);
        if (op.len > wop) wop = op.len;
        sb_free(&op);
    }
    sb_printf(out, "%-*s  %-*s  %s\n", (int)wname, "name", (int)wop, "op", "inputs -> outputs");
    for (size_t i = 0; i < l.len; i++) {
        const Onnx__NodeProto *n = l.items[i].node;
        strbuf name, op;
        sb_init(&name);
        sb_init(&op);
        sb_printf(&name, "%s%s", l.items[i].path, node_label(n));
        op_name(&op, n);
        sb_printf(out, "%-*s  %-*s  ", (int)wname, name.s, (int)wop, op.s);
        for (size_t k = 0; k < n->n_input; k++) sb_printf(out, "%s%s", k ? ", " : "", n->input[k]);
        sb_puts(out, " -> ");
        for (size_t k = 0; k < n->n_output; k++) sb_printf(out, "%s%s", k ? ", " : "", n->output[k]);
        sb_putc(out, '\n');
        sb_free(&name);
        sb_free(&op);
    }
    list_free(&l);
}

/* Matches `name`, `path/name`, an output name, or `#N` (index in the main graph). */
static bool node_matches(const located_node *ln, const char *want)
{
    const Onnx__NodeProto *n = ln->node;
    if (want[0] == '#' && !ln->path[0]) {
        char *end;
        unsigned long idx = strtoul(want + 1, &end, 10);
        if (*end == '\0' && end != want + 1) return idx == ln->index;
    }
    size_t plen = strlen(ln->path);
    const char *rest = want;
    if (plen && strncmp(want, ln->path, plen) == 0) rest = want + plen;
    else if (plen && strchr(want, '/')) return false;
    if (n->name && strcmp(n->name, rest) == 0) return true;
    for (size_t k = 0; k < n->n_output; k++)
        if (strcmp(n->output[k], rest) == 0) return true;
    return false;
}

static void print_type(strbuf *out, const Onnx__TypeProto *t)
{
    if (!t) {
        sb_puts(out, "?");
        return;
    }
    if (t->tensor_type) {
        sb_puts(out, ox_dtype_name(t->tensor_type->elem_type));
        const Onnx__TensorShapeProto *s = t->tensor_type->shape;
        if (!s) {
            sb_puts(out, "[]");
            return;
        }
        if (!s->n_dim) return;
        sb_putc(out, '[');
        for (size_t i = 0; i < s->n_dim; i++) {
            if (i) sb_putc(out, ',');
            const Onnx__TensorShapeProto__Dimension *d = s->dim[i];
            if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
                sb_printf(out, "%lld", (long long)d->dim_value);
            else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
                sb_puts(out, d->dim_param);
            else
                sb_putc(out, '?');
        }
        sb_putc(out, ']');
    } else if (t->sequence_type) {
        sb_puts(out, "seq(");
        print_type(out, t->sequence_type->elem_type);
        sb_putc(out, ')');
    } else {
        sb_puts(out, "?");
    }
}

/* Type of a value named `name` in graph g, from inputs, outputs, value_info or initializers. */
static void value_type(strbuf *out, const Onnx__GraphProto *g, const char *name)
{
    if (!g) return;
    const Onnx__ValueInfoProto *const *lists[] = {
        (const Onnx__ValueInfoProto *const *)g->input,
        (const Onnx__ValueInfoProto *const *)g->output,
        (const Onnx__ValueInfoProto *const *)g->value_info,
    };
    size_t counts[] = {g->n_input, g->n_output, g->n_value_info};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < counts[l]; i++)
            if (lists[l][i]->name && strcmp(lists[l][i]->name, name) == 0) {
                sb_puts(out, "  : ");
                print_type(out, lists[l][i]->type);
                return;
            }
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0) {
            const Onnx__TensorProto *t = g->initializer[i];
            sb_printf(out, "  : %s", ox_dtype_name(t->data_type));
            if (t->n_dims) {
                sb_putc(out, '[');
                for (size_t d = 0; d < t->n_dims; d++) sb_printf(out, "%s%lld", d ? "," : "", (long long)t->dims[d]);
                sb_putc(out, ']');
            }
            sb_puts(out, " (initializer)");
            return;
        }
}

static const char *node_meta(const Onnx__NodeProto *n, const char *key)
{
    for (size_t i = 0; i < n->n_metadata_props; i++)
        if (n->metadata_props[i]->key && !strcmp(n->metadata_props[i]->key, key)) return n->metadata_props[i]->value;
    return NULL;
}

/* Where the node came from, from the metadata torch.onnx (and fxsh) write: the module path,
 * the FX node, and the Python stack one frame a line ("file:line in fn: code"). */
void view_show_provenance(const Onnx__NodeProto *n, strbuf *out)
{
    const char *ns = node_meta(n, "namespace"), *fx = node_meta(n, "pkg.torch.onnx.fx_node"),
               *st = node_meta(n, "pkg.torch.onnx.stack_trace");
    /* torch.onnx's namespace starts with the root module's scope, whose name is empty
     * (": model.MLPCond/seq: ..."): the root is shown by its class alone */
    if (ns) sb_printf(out, "module:  %s\n", !strncmp(ns, ": ", 2) ? ns + 2 : ns);
    if (fx) sb_printf(out, "fx node: %s\n", fx);
    if (!st) return;
    sb_puts(out, "stack:\n");
    /* frames: 'File "PATH", line N, in FN' then '    CODE' */
    for (const char *s = st; *s;) {
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        while (len && *s == ' ') { s++; len--; }
        const char *q1 = len > 6 && strncmp(s, "File \"", 6) == 0 ? s + 6 : NULL;
        const char *q2 = q1 ? memchr(q1, '"', len - 6) : NULL;
        if (q2 && strncmp(q2, "\", line ", 8) == 0) {
            const char *rest = q2 + 8, *end = s + len;
            const char *in = strstr(rest, ", in ");
            int line = atoi(rest);
            sb_printf(out, "  %.*s:%d", (int)(q2 - q1), q1, line);
            if (in && in < end) sb_printf(out, " in %.*s", (int)(end - in - 5), in + 5);
            const char *code = eol ? eol + 1 : NULL;
            if (code) {
                const char *ceol = strchr(code, '\n');
                size_t clen = ceol ? (size_t)(ceol - code) : strlen(code);
                while (clen && *code == ' ') { code++; clen--; }
                if (clen && strncmp(code, "File \"", 6) != 0) {
                    sb_printf(out, ": %.*s", (int)clen, code);
                    eol = ceol;
                }
            }
            sb_putc(out, '\n');
        } else if (len) {
            sb_printf(out, "  %.*s\n", (int)len, s);
        }
        if (!eol) break;
        s = eol + 1;
    }
}

int view_show_node(const ox_model *m, const char *name, strbuf *out)
{
    node_list l = {0};
    collect(main_graph(m), "", 0, &l);
    int rc = -1;
    for (size_t i = 0; i < l.len; i++) {
        if (!node_matches(&l.items[i], name)) continue;
        const Onnx__NodeProto *n = l.items[i].node;
        sb_printf(out, "node:    %s%s\n", l.items[i].path, node_label(n));
        sb_puts(out, "op:      ");
        op_name(out, n);
        if (n->overload && n->overload[0]) sb_printf(out, ":%s", n->overload);
        sb_putc(out, '\n');
        if (!l.items[i].path[0]) sb_printf(out, "index:   %zu in the main graph\n", l.items[i].index);
        const Onnx__GraphProto *g = main_graph(m);
        sb_puts(out, "inputs:\n");
        for (size_t k = 0; k < n->n_input; k++) {
            sb_printf(out, "  %zu: %s", k, n->input[k][0] ? n->input[k] : "(omitted)");
            if (n->input[k][0]) value_type(out, g, n->input[k]);
            sb_putc(out, '\n');
        }
        sb_puts(out, "outputs:\n");
        for (size_t k = 0; k < n->n_output; k++) {
            sb_printf(out, "  %zu: %s", k, n->output[k]);
            if (n->output[k][0]) value_type(out, g, n->output[k]);
            /* users in the same graph level */
            size_t users = 0;
            for (size_t j = 0; j < l.len; j++)
                if (!strcmp(l.items[j].path, l.items[i].path))
                    for (size_t q = 0; q < l.items[j].node->n_input; q++)
                        if (n->output[k][0] && !strcmp(l.items[j].node->input[q], n->output[k])) {
                            users++;
                            break;
                        }
            sb_printf(out, "  (%zu user%s)\n", users, users == 1 ? "" : "s");
        }
        if (n->n_attribute) sb_puts(out, "attributes:\n");
        for (size_t k = 0; k < n->n_attribute; k++) {   /* a subgraph by its size: `text` prints it */
            const Onnx__AttributeProto *a = n->attribute[k];
            sb_puts(out, "  ");
            if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH && a->g)
                sb_printf(out, "%s: graph of %zu node%s\n", a->name, a->g->n_node, a->g->n_node == 1 ? "" : "s");
            else {
                ox_print_attribute(a, out);
                sb_putc(out, '\n');
            }
        }
        view_show_provenance(n, out);
        sb_puts(out, "text:\n");
        ox_print_node(n, out, NULL);
        rc = 0;
        break;
    }
    list_free(&l);
    return rc;
}

size_t view_find(const ox_model *m, const char *text, bool fold_case, strbuf *out)
{
    node_list l = {0};
    collect(main_graph(m), "", 0, &l);
    size_t hits = 0;
    for (size_t i = 0; i < l.len; i++) {
        const Onnx__NodeProto *n = l.items[i].node;
        bool hit = str_contains(node_label(n), text, fold_case) || str_contains(n->op_type, text, fold_case);
        for (size_t k = 0; !hit && k < n->n_output; k++) hit = str_contains(n->output[k], text, fold_case);
        if (!hit) continue;
        hits++;
        sb_printf(out, "%s%s  ", l.items[i].path, node_label(n));
        op_name(out, n);
        sb_putc(out, '\n');
    }
    list_free(&l);
    return hits;
}

typedef struct op_count {
    char *op;
    size_t count;
} op_count;

static int by_count_then_name(const void *a, const void *b)
{
    const op_count *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return strcmp(x->op, y->op);
}

void view_show_stats(const ox_model *m, strbuf *out)
{
    node_list l = {0};
    collect(main_graph(m), "", 0, &l);
    hashmap idx;
    hm_init(&idx);
    VEC(op_count) counts = {0};
    size_t top = 0, subgraph_nodes = 0;
    for (size_t i = 0; i < l.len; i++) {
        if (l.items[i].path[0]) subgraph_nodes++;
        else top++;
        strbuf op;
        sb_init(&op);
        op_name(&op, l.items[i].node);
        void *slot = hm_get(&idx, op.s);
        if (slot) {
            counts.items[(uintptr_t)slot - 1].count++;
            sb_free(&op);
        } else {
            op_count c = {sb_detach(&op), 1};
            vec_push(&counts, c);
            hm_put(&idx, counts.items[counts.len - 1].op, (void *)(uintptr_t)counts.len);
        }
    }
    hm_free(&idx);
    const Onnx__GraphProto *g = main_graph(m);
    sb_printf(out, "nodes: %zu in the main graph, %zu in subgraphs\n", top, subgraph_nodes);
    if (g) sb_printf(out, "inputs: %zu  outputs: %zu  initializers: %zu\n", g->n_input, g->n_output, g->n_initializer);
    sb_printf(out, "functions: %zu\n", m->proto ? m->proto->n_functions : 0);
    if (counts.len > 1) qsort(counts.items, counts.len, sizeof *counts.items, by_count_then_name);   /* none: no array */
    sb_puts(out, "op histogram:\n");
    for (size_t i = 0; i < counts.len; i++) {
        sb_printf(out, "  %6zu  %s\n", counts.items[i].count, counts.items[i].op);
        free(counts.items[i].op);
    }
    vec_free(&counts);
    list_free(&l);
}

void view_each_node_name(const ox_model *m, void (*cb)(const char *name, void *ctx), void *ctx)
{
    /* subgraph nodes by their path (node_cond__0/then_branch/node_mul), as `node` takes them */
    node_list l = {0};
    collect(main_graph(m), "", 0, &l);
    strbuf name;
    sb_init(&name);
    for (size_t i = 0; i < l.len; i++) {
        const char *label = node_label(l.items[i].node);
        if (!label[0]) continue;
        sb_reset(&name);
        sb_printf(&name, "%s%s", l.items[i].path, label);
        cb(name.s, ctx);
    }
    sb_free(&name);
    list_free(&l);
}

/* Reads element i of a tensor as a double; false for types this summary does not decode. */
static bool element(const Onnx__TensorProto *t, size_t i, double *v)
{
    if (t->has_raw_data) {
        const uint8_t *p = t->raw_data.data;
        fmap_need(p, t->raw_data.len);   /* a derived weight is computed where it is */
        switch (t->data_type) {
        case 1: { float f; memcpy(&f, p + 4 * i, 4); *v = f; return true; }
        case 11: { double d; memcpy(&d, p + 8 * i, 8); *v = d; return true; }
        case 6: { int32_t x; memcpy(&x, p + 4 * i, 4); *v = x; return true; }
        case 7: { int64_t x; memcpy(&x, p + 8 * i, 8); *v = (double)x; return true; }
        case 2: case 9: *v = p[i]; return true;
        case 3: *v = (int8_t)p[i]; return true;
        default: return false;
        }
    }
    switch (t->data_type) {
    case 1: *v = t->float_data[i]; return true;
    case 11: *v = t->double_data[i]; return true;
    case 7: *v = (double)t->int64_data[i]; return true;
    case 2: case 3: case 4: case 5: case 6: case 9: *v = t->int32_data[i]; return true;
    default: return false;
    }
}

static size_t stored_elements(const Onnx__TensorProto *t)
{
    size_t size = ox_dtype_size(t->data_type);
    if (t->has_raw_data) return size ? t->raw_data.len / size : 0;
    switch (t->data_type) {
    case 1: return t->n_float_data;
    case 11: return t->n_double_data;
    case 7: return t->n_int64_data;
    case 2: case 3: case 4: case 5: case 6: case 9: return t->n_int32_data;
    default: return 0;
    }
}

int view_show_initializer(const ox_model *m, const char *name, strbuf *out, diag_sink *d)
{
    const Onnx__GraphProto *g = main_graph(m);
    const Onnx__TensorProto *t = NULL;
    for (size_t i = 0; g && i < g->n_initializer && !t; i++)
        if (g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0) t = g->initializer[i];
    if (!t) {
        diagnostic *dg = diag_error(d, (diag_loc){0}, "weights: no initializer named '%s'", name);
        diag_set_hint(dg, "`summary` lists the initializers");
        return -1;
    }
    int64_t numel = ox_tensor_numel(t);
    sb_printf(out, "%s: %s", name, ox_dtype_name(t->data_type));
    sb_putc(out, '[');
    for (size_t i = 0; i < t->n_dims; i++) sb_printf(out, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
    sb_printf(out, "]  %lld elements\n", (long long)numel);
    if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL && !t->has_raw_data) {
        sb_puts(out, "data: external, not loaded\n");
        return 0;
    }
    size_t n = stored_elements(t);
    if (numel < 0 || (size_t)numel != n) {
        diag_error(d, (diag_loc){0}, "weights: %s holds %zu elements but its shape says %lld", name, n,
                   (long long)numel);
        return -1;
    }
    double v, lo = INFINITY, hi = -INFINITY, sum = 0;
    if (n && !element(t, 0, &v)) {
        sb_printf(out, "values: not summarised for %s\n", ox_dtype_name(t->data_type));
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        element(t, i, &v);
        if (v < lo) lo = v;
        if (v > hi) hi = v;
        sum += v;
    }
    if (n) {
        sb_printf(out, "min %.6g  max %.6g  mean %.6g\n", lo, hi, sum / (double)n);
        sb_puts(out, "first: [");
        for (size_t i = 0; i < n && i < 8; i++) {
            element(t, i, &v);
            sb_printf(out, "%s%.6g", i ? ", " : "", v);
        }
        sb_puts(out, n > 8 ? ", ...]\n" : "]\n");
    }
    return 0;
}
