/* onnx_summary.c — Polygraphy-style model overview (counts, I/O, op histogram, sizes). */
#include "view/onnx_summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"

#define MAX_DEPTH 64

static void put_shape(strbuf *out, const Onnx__TensorShapeProto *sh)
{
    if (!sh) {
        sb_puts(out, "[]");
        return;
    }
    if (!sh->n_dim)
        return;
    sb_putc(out, '[');
    for (size_t i = 0; i < sh->n_dim; i++) {
        if (i)
            sb_putc(out, ',');
        const Onnx__TensorShapeProto__Dimension *d = sh->dim[i];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            sb_printf(out, "%" PRId64, d->dim_value);
        else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
            sb_puts(out, d->dim_param);
        else
            sb_putc(out, '?');
    }
    sb_putc(out, ']');
}

static void put_type(strbuf *out, const Onnx__TypeProto *t, int depth)
{
    if (!t || depth > MAX_DEPTH)
        return;
    switch (t->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
        sb_puts(out, ox_dtype_name(t->tensor_type->elem_type));
        put_shape(out, t->tensor_type->shape);
        break;
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
        sb_printf(out, "sparse_tensor(%s", ox_dtype_name(t->sparse_tensor_type->elem_type));
        put_shape(out, t->sparse_tensor_type->shape);
        sb_putc(out, ')');
        break;
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
        sb_puts(out, "seq(");
        put_type(out, t->sequence_type->elem_type, depth + 1);
        sb_putc(out, ')');
        break;
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
        sb_puts(out, "optional(");
        put_type(out, t->optional_type->elem_type, depth + 1);
        sb_putc(out, ')');
        break;
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
        sb_printf(out, "map(%s, ", ox_dtype_name(t->map_type->key_type));
        put_type(out, t->map_type->value_type, depth + 1);
        sb_putc(out, ')');
        break;
    case ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE:
        sb_printf(out, "opaque(%s%s%s)",
                  t->opaque_type->domain && t->opaque_type->domain[0] ? t->opaque_type->domain : "",
                  t->opaque_type->domain && t->opaque_type->domain[0] ? "," : "",
                  t->opaque_type->name ? t->opaque_type->name : "");
        break;
    default:
        break;
    }
}

void view_summary_type(strbuf *out, const Onnx__TypeProto *t) { put_type(out, t, 0); }

typedef struct op_count {
    const char *name;   /* "Conv" or "com.microsoft.Gelu" (in counts.names arena) */
    size_t count;
} op_count;

typedef struct stats {
    hashmap ops;        /* key -> op_count* */
    arena a;
    op_count **list;
    size_t n_list, cap_list;
    size_t nodes, subgraphs;
} stats;

static void count_graph(stats *st, const Onnx__GraphProto *g, int depth);

static void count_nodes(stats *st, Onnx__NodeProto **nodes, size_t n, int depth)
{
    for (size_t i = 0; i < n; i++) {
        const Onnx__NodeProto *nd = nodes[i];
        st->nodes++;
        const char *key = nd->domain && nd->domain[0] && strcmp(nd->domain, "ai.onnx") != 0
                              ? arena_printf(&st->a, "%s.%s", nd->domain, nd->op_type ? nd->op_type : "")
                              : (nd->op_type ? nd->op_type : "");
        op_count *oc = hm_get(&st->ops, key);
        if (!oc) {
            oc = arena_alloc(&st->a, sizeof *oc);
            oc->name = arena_strdup(&st->a, key);
            hm_put(&st->ops, oc->name, oc);
            xgrow((void **)&st->list, &st->cap_list, st->n_list + 1, sizeof *st->list);
            st->list[st->n_list++] = oc;
        }
        oc->count++;
        if (depth >= MAX_DEPTH)
            continue;
        for (size_t k = 0; k < nd->n_attribute; k++) {
            const Onnx__AttributeProto *at = nd->attribute[k];
            if (at->g)
                count_graph(st, at->g, depth + 1);
            for (size_t j = 0; j < at->n_graphs; j++)
                count_graph(st, at->graphs[j], depth + 1);
        }
    }
}

static void count_graph(stats *st, const Onnx__GraphProto *g, int depth)
{
    if (depth > 0)
        st->subgraphs++;
    count_nodes(st, g->node, g->n_node, depth);
}

static int cmp_ops(const void *a, const void *b)
{
    const op_count *x = *(op_count *const *)a, *y = *(op_count *const *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->name, y->name);
}

uint64_t view_tensor_bytes(const Onnx__TensorProto *t)
{
    if (t->has_raw_data)
        return t->raw_data.len;
    if (t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        for (size_t i = 0; i < t->n_external_data; i++)
            if (t->external_data[i]->key && strcmp(t->external_data[i]->key, "length") == 0)
                return strtoull(t->external_data[i]->value ? t->external_data[i]->value : "0", NULL, 10);
    }
    if (t->data_type == 8) {
        uint64_t n = 0;
        for (size_t i = 0; i < t->n_string_data; i++)
            n += t->string_data[i].len;
        return n;
    }
    int64_t numel = ox_tensor_numel(t);
    const ox_dtype_info *di = ox_dtype(t->data_type);
    if (numel < 0 || !di)
        return 0;
    return ((uint64_t)numel * (uint64_t)di->bits + 7) / 8;
}

static void put_values(strbuf *out, const char *what, Onnx__ValueInfoProto **v, size_t n)
{
    sb_printf(out, "%ss: %zu\n", what, n);
    for (size_t i = 0; i < n; i++) {
        sb_printf(out, "  %s %s: ", what, v[i]->name ? v[i]->name : "");
        if (v[i]->type)
            put_type(out, v[i]->type, 0);
        else
            sb_puts(out, "(no type)");
        sb_putc(out, '\n');
    }
}

static void human_bytes(strbuf *out, uint64_t b)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        sb_printf(out, "%" PRIu64 " B", b);
    else
        sb_printf(out, "%.1f %s", v, units[u]);
}

void view_summary(const ox_model *m, strbuf *out)
{
    const Onnx__ModelProto *mp = m->proto;
    if (mp->has_ir_version)
        sb_printf(out, "ir_version: %" PRId64 "\n", mp->ir_version);
    else
        sb_puts(out, "ir_version: (unset)\n");
    sb_printf(out, "producer: %s%s%s\n", mp->producer_name ? mp->producer_name : "",
              mp->producer_version && mp->producer_version[0] ? " " : "",
              mp->producer_version ? mp->producer_version : "");
    if (mp->domain && mp->domain[0])
        sb_printf(out, "domain: %s\n", mp->domain);
    if (mp->has_model_version)
        sb_printf(out, "model_version: %" PRId64 "\n", mp->model_version);
    sb_puts(out, "opsets:");
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const char *d = mp->opset_import[i]->domain;
        sb_printf(out, " %s:%" PRId64, d && d[0] ? d : "ai.onnx", mp->opset_import[i]->version);
    }
    sb_putc(out, '\n');
    const Onnx__GraphProto *g = mp->graph;
    if (!g) {
        sb_puts(out, "graph: (none)\n");
        return;
    }
    sb_printf(out, "graph: %s\n", g->name ? g->name : "");
    put_values(out, "input", g->input, g->n_input);
    put_values(out, "output", g->output, g->n_output);

    stats st = {0};
    hm_init(&st.ops);
    arena_init(&st.a);
    count_graph(&st, g, 0);
    size_t total = st.nodes, subgraphs = st.subgraphs;
    sb_printf(out, "nodes: %zu\n", g->n_node);
    sb_printf(out, "nodes_with_subgraphs: %zu\n", total);
    sb_printf(out, "subgraphs: %zu\n", subgraphs);
    if (st.n_list > 1) qsort(st.list, st.n_list, sizeof *st.list, cmp_ops);   /* an empty graph has no list */
    sb_printf(out, "ops: %zu distinct\n", st.n_list);
    for (size_t i = 0; i < st.n_list; i++)
        sb_printf(out, "  op %s: %zu\n", st.list[i]->name, st.list[i]->count);

    uint64_t bytes = 0;
    for (size_t i = 0; i < g->n_initializer; i++)
        bytes += view_tensor_bytes(g->initializer[i]);
    sb_printf(out, "initializers: %zu\n", g->n_initializer);
    sb_printf(out, "initializer_bytes: %" PRIu64 " (", bytes);
    human_bytes(out, bytes);
    sb_puts(out, ")\n");

    sb_printf(out, "functions: %zu\n", mp->n_functions);
    for (size_t i = 0; i < mp->n_functions; i++) {
        const Onnx__FunctionProto *f = mp->functions[i];
        sb_printf(out, "  function %s%s%s: %zu nodes\n", f->domain && f->domain[0] ? f->domain : "",
                  f->domain && f->domain[0] ? "." : "", f->name ? f->name : "", f->n_node);
    }
    hm_free(&st.ops);
    arena_free(&st.a);
    free(st.list);
}

/* "[2, 3]": a tensor's dims as params prints a program's shapes */
static void put_dims(strbuf *out, const Onnx__TensorProto *t)
{
    sb_putc(out, '[');
    for (size_t k = 0; k < t->n_dims; k++) sb_printf(out, "%s%lld", k ? ", " : "", (long long)t->dims[k]);
    sb_putc(out, ']');
}

void view_show_params(const ox_model *m, strbuf *out)
{
    const Onnx__GraphProto *g = m->proto->graph;
    size_t n = g ? g->n_initializer : 0;
    /* columns as `params` prints a program's (fx_program_params), without its kind column:
     * every initializer is a tensor of the graph */
    size_t wn = 4, wd = 5, ws = 5;
    strbuf sh;
    sb_init(&sh);
    for (size_t i = 0; i < n; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        sb_reset(&sh);
        put_dims(&sh, t);
        if (t->name && strlen(t->name) > wn) wn = strlen(t->name);
        if (strlen(ox_dtype_name(t->data_type)) > wd) wd = strlen(ox_dtype_name(t->data_type));
        if (sh.len > ws) ws = sh.len;
    }
    sb_printf(out, "%-*s  %-*s  %-*s  %s\n", (int)wn, "name", (int)wd, "dtype", (int)ws, "shape", "bytes");
    uint64_t bytes = 0;
    int64_t elems = 0;
    for (size_t i = 0; i < n; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        sb_reset(&sh);
        put_dims(&sh, t);
        uint64_t b = view_tensor_bytes(t);
        bool external = t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
        sb_printf(out, "%-*s  %-*s  %-*s  %" PRIu64 "%s\n", (int)wn, t->name ? t->name : "", (int)wd,
                  ox_dtype_name(t->data_type), (int)ws, sh.s, b, external ? "  (external data)" : "");
        bytes += b;
        int64_t k = ox_tensor_numel(t);
        elems += k > 0 ? k : 0;
    }
    sb_free(&sh);
    sb_printf(out, "total: %zu initializer%s, %lld element%s, %" PRIu64 " bytes\n", n, n == 1 ? "" : "s",
              (long long)elems, elems == 1 ? "" : "s", bytes);
}
