/* onnx_check.c — structural checker: scoping, SSA, topological order, opsets, arity, types. */
#include "onnx/onnx_check.h"
#include "onnx/onnx_check_internal.h"

#include <stdarg.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/strbuf.h"

/* Subgraph nesting beyond this is reported instead of recursed into. */
#define MAX_DEPTH 64

/* Names visible in one graph; lookups walk outward, so cost is per nesting level, not per name. */
typedef struct scope {
    hashmap names;
    const struct scope *parent;
} scope;

typedef struct checker {
    ox_check_report r;  /* the model, the sink and the problem count */
    hashmap opsets;     /* domain -> (void*)1 for the opset list in force */
    hashmap fn_domains; /* domains of model-local functions */
    hashmap fns;        /* "domain\x01name" -> FunctionProto */
    arena keys;         /* composite keys for fns */
} checker;

static bool scope_has(const scope *s, const char *name)
{
    for (; s; s = s->parent)
        if (hm_has(&s->names, name))
            return true;
    return false;
}

void ox_check_node_desc(strbuf *sb, const char *where, size_t idx, const Onnx__NodeProto *n)
{
    sb_printf(sb, "%s: node %zu (", where, idx);
    if (n->name && n->name[0])
        sb_printf(sb, "\"%s\", ", n->name);
    if (n->domain && n->domain[0])
        sb_printf(sb, "%s.", n->domain);
    sb_printf(sb, "%s)", n->op_type ? n->op_type : "?");
}

/* One diagnostic at the model's path. */
static void report(ox_check_report *r, bool counted, const char *fmt, va_list ap)
{
    strbuf sb;
    sb_init(&sb);
    sb_vprintf(&sb, fmt, ap);
    diag_loc loc = {r->m->path, 0, 0};
    if (counted) {
        diag_error(r->d, loc, "%s", sb.s);
        r->problems++;
    } else {
        diag_warning(r->d, loc, "%s", sb.s);
    }
    sb_free(&sb);
}

void ox_check_problem(ox_check_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(r, true, fmt, ap);
    va_end(ap);
}

void ox_check_warning(ox_check_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(r, false, fmt, ap);
    va_end(ap);
}

#define problem(c, ...) ox_check_problem(&(c)->r, __VA_ARGS__)
#define node_desc ox_check_node_desc

static const char *norm_domain(const char *d)
{
    return !d || strcmp(d, "ai.onnx") == 0 ? "" : d;
}

static void load_opsets(checker *c, Onnx__OperatorSetIdProto **ops, size_t n)
{
    hm_free(&c->opsets);
    hm_init(&c->opsets);
    for (size_t i = 0; i < n; i++)
        hm_put(&c->opsets, norm_domain(ops[i]->domain), (void *)1);
}

/* ---- types ------------------------------------------------------------------------------- */

static bool known_dtype(int dt) { return dt >= 1 && dt <= OX_DTYPE_MAX; }

static void check_shape(checker *c, const char *what, const Onnx__TensorShapeProto *sh)
{
    if (!sh)
        return;
    for (size_t i = 0; i < sh->n_dim; i++)
        if (sh->dim[i]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            sh->dim[i]->dim_value < 0)
            /* onnx's checker lets it pass (its own function expansions write -1 for "unknown");
             * inference reads it as unknown */
            ox_check_warning(&c->r, "%s: dimension %zu is negative (%lld), read as unknown", what, i,
                             (long long)sh->dim[i]->dim_value);
}

static void check_type(checker *c, const char *what, const Onnx__TypeProto *t, int depth)
{
    if (!t)
        return;
    if (depth > MAX_DEPTH) {
        problem(c, "%s: type nested too deeply", what);
        return;
    }
    switch (t->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
        if (!known_dtype(t->tensor_type->elem_type))
            problem(c, "%s: unknown element type %d", what, t->tensor_type->elem_type);
        check_shape(c, what, t->tensor_type->shape);
        break;
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
        if (!known_dtype(t->sparse_tensor_type->elem_type))
            problem(c, "%s: unknown element type %d", what, t->sparse_tensor_type->elem_type);
        check_shape(c, what, t->sparse_tensor_type->shape);
        break;
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
        if (!t->sequence_type->elem_type)
            problem(c, "%s: sequence type without element type", what);
        check_type(c, what, t->sequence_type->elem_type, depth + 1);
        break;
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
        if (!t->optional_type->elem_type)
            problem(c, "%s: optional type without element type", what);
        check_type(c, what, t->optional_type->elem_type, depth + 1);
        break;
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: {
        int k = t->map_type->key_type;
        /* map keys must be integral or string */
        if (!(k == 2 || k == 3 || k == 4 || k == 5 || k == 6 || k == 7 || k == 8 || k == 12 || k == 13))
            problem(c, "%s: map key type %s is not an integer or string type", what, ox_dtype_name(k));
        if (!t->map_type->value_type)
            problem(c, "%s: map type without value type", what);
        check_type(c, what, t->map_type->value_type, depth + 1);
        break;
    }
    default:
        break;
    }
}

static void check_tensor(checker *c, const char *what, const Onnx__TensorProto *t)
{
    if (!known_dtype(t->data_type))
        problem(c, "%s: tensor '%s' has unknown data type %d", what, t->name ? t->name : "",
                t->data_type);
    for (size_t i = 0; i < t->n_dims; i++)
        if (t->dims[i] < 0)
            problem(c, "%s: tensor '%s' has negative dimension %lld", what, t->name ? t->name : "",
                    (long long)t->dims[i]);
    /* its values, one per element: a model with a tensor that has none is not a model a runtime
     * can load (onnx's checker and ONNX Runtime reject it), whatever printed it */
    /* onnx's rule on where the values are: external data, or exactly one value field (none for
     * a tensor of 0 elements) */
    bool external = t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    int fields = (t->has_raw_data ? 1 : 0) + (t->n_float_data > 0) + (t->n_int32_data > 0) + (t->n_string_data > 0) +
                 (t->n_int64_data > 0) + (t->n_double_data > 0) + (t->n_uint64_data > 0);
    bool empty = false;
    for (size_t i = 0; i < t->n_dims; i++) empty |= t->dims[i] == 0;
    if (!external && !empty && fields != 1) {
        problem(c, "%s: TensorProto (tensor name: %s) should contain one and only one value field (it has %d)", what,
                t->name ? t->name : "", fields);
        return;
    }
    if (!external && empty && fields > (t->has_raw_data && t->raw_data.len == 0 ? 1 : 0)) {
        problem(c, "%s: TensorProto (tensor name: %s) is 0-element but contains data!", what, t->name ? t->name : "");
        return;
    }
    char why[200];
    if (known_dtype(t->data_type) && ox_tensor_problem(t, why, sizeof why)) {
        if (t->has_raw_data && t->raw_data.len == 0)
            problem(c, "%s: tensor '%s' has no values (elided as '...' in the ONNX text it was read from?)", what,
                    t->name ? t->name : "");
        else
            problem(c, "%s: tensor '%s': %s", what, t->name ? t->name : "", why);
    }
}

/* ---- graphs ------------------------------------------------------------------------------ */

static void check_nodes(checker *c, const char *where, Onnx__NodeProto **nodes, size_t n_nodes,
                        scope *sc, int depth);

static void check_graph(checker *c, const Onnx__GraphProto *g, const scope *parent, int depth)
{
    const char *gname = g->name ? g->name : "";
    strbuf where;
    sb_init(&where);
    sb_printf(&where, "graph '%s'", gname);
    if (depth > MAX_DEPTH) {
        problem(c, "%s: subgraphs nested too deeply", where.s);
        sb_free(&where);
        return;
    }
    scope sc = {.parent = parent};
    hm_init(&sc.names);
    hashmap inputs;
    hm_init(&inputs);
    for (size_t i = 0; i < g->n_input; i++) {
        const char *nm = g->input[i]->name ? g->input[i]->name : "";
        strbuf w;
        sb_init(&w);
        sb_printf(&w, "%s: input '%s'", where.s, nm);
        if (!nm[0])
            problem(c, "%s: input %zu has an empty name", where.s, i);
        else if (hm_put(&sc.names, nm, (void *)1))
            problem(c, "%s: input '%s' is declared more than once", where.s, nm);
        hm_put(&inputs, nm, (void *)1);
        check_type(c, w.s, g->input[i]->type, 0);
        sb_free(&w);
    }
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        const char *nm = t->name ? t->name : "";
        if (!nm[0])
            problem(c, "%s: initializer %zu has an empty name", where.s, i);
        else if (hm_put(&sc.names, nm, (void *)1) && !hm_has(&inputs, nm))
            problem(c, "%s: initializer '%s' is defined more than once", where.s, nm);
        check_tensor(c, where.s, t);
    }
    hm_free(&inputs);
    for (size_t i = 0; i < g->n_value_info; i++) {
        strbuf w;
        sb_init(&w);
        sb_printf(&w, "%s: value_info '%s'", where.s, g->value_info[i]->name ? g->value_info[i]->name : "");
        check_type(c, w.s, g->value_info[i]->type, 0);
        sb_free(&w);
    }
    check_nodes(c, where.s, g->node, g->n_node, &sc, depth);
    for (size_t i = 0; i < g->n_output; i++) {
        const char *nm = g->output[i]->name ? g->output[i]->name : "";
        strbuf w;
        sb_init(&w);
        sb_printf(&w, "%s: output '%s'", where.s, nm);
        /* onnx's lexical scope: a subgraph's output is its own input, initializer or node output,
         * never a value of an enclosing graph ("is not an output of any node in graph") */
        if (!hm_has(&sc.names, nm))
            problem(c, "%s: output '%s' is %s", where.s, nm,
                    scope_has(&sc, nm) ? "not an output of any node in graph (a subgraph cannot return an outer "
                                         "graph's value directly: an Identity inside it can)"
                                       : "never produced");
        check_type(c, w.s, g->output[i]->type, 0);
        sb_free(&w);
    }
    hm_free(&sc.names);
    sb_free(&where);
}

static const Onnx__AttributeProto *find_attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0)
            return n->attribute[i];
    return NULL;
}

static void check_control_flow(checker *c, const char *nd, const Onnx__NodeProto *n)
{
    const char *dom = norm_domain(n->domain);
    if (dom[0] || !n->op_type)
        return;
    if (strcmp(n->op_type, "If") == 0) {
        const Onnx__AttributeProto *th = find_attr(n, "then_branch"), *el = find_attr(n, "else_branch");
        if (!th || !th->g || !el || !el->g) {
            problem(c, "%s: If needs then_branch and else_branch graphs", nd);
            return;
        }
        if (th->g->n_output != n->n_output || el->g->n_output != n->n_output)
            problem(c, "%s: If has %zu outputs but then_branch has %zu and else_branch %zu", nd,
                    n->n_output, th->g->n_output, el->g->n_output);
        if (n->n_input != 1)
            problem(c, "%s: If takes exactly one input (the condition), got %zu", nd, n->n_input);
    } else if (strcmp(n->op_type, "Loop") == 0) {
        const Onnx__AttributeProto *b = find_attr(n, "body");
        if (!b || !b->g) {
            problem(c, "%s: Loop needs a body graph", nd);
            return;
        }
        size_t carried = n->n_input >= 2 ? n->n_input - 2 : 0;
        if (n->n_input < 2)
            problem(c, "%s: Loop needs at least 2 inputs (M, cond), got %zu", nd, n->n_input);
        if (b->g->n_input != carried + 2)
            problem(c, "%s: Loop body has %zu inputs, expected %zu (iteration, cond, %zu carried)",
                    nd, b->g->n_input, carried + 2, carried);
        if (b->g->n_output != n->n_output + 1)
            problem(c, "%s: Loop body has %zu outputs, expected %zu (cond + node outputs)", nd,
                    b->g->n_output, n->n_output + 1);
        if (n->n_output < carried)
            problem(c, "%s: Loop has %zu outputs, fewer than its %zu carried values", nd,
                    n->n_output, carried);
    } else if (strcmp(n->op_type, "Scan") == 0) {
        const Onnx__AttributeProto *b = find_attr(n, "body"), *ns = find_attr(n, "num_scan_inputs");
        if (!b || !b->g) {
            problem(c, "%s: Scan needs a body graph", nd);
            return;
        }
        if (!ns || ns->i < 1 || (size_t)ns->i > n->n_input)
            problem(c, "%s: Scan needs num_scan_inputs between 1 and its input count", nd);
        if (b->g->n_input != n->n_input)
            problem(c, "%s: Scan body has %zu inputs, node has %zu", nd, b->g->n_input, n->n_input);
        if (b->g->n_output != n->n_output)
            problem(c, "%s: Scan body has %zu outputs, node has %zu", nd, b->g->n_output, n->n_output);
    }
}

static void check_nodes(checker *c, const char *where, Onnx__NodeProto **nodes, size_t n_nodes,
                        scope *sc, int depth)
{
    /* every name some node of this list produces, to tell "later" from "never" */
    hashmap later;
    hm_init(&later);
    for (size_t i = 0; i < n_nodes; i++)
        for (size_t k = 0; k < nodes[i]->n_output; k++)
            if (nodes[i]->output[k] && nodes[i]->output[k][0] && !hm_has(&later, nodes[i]->output[k]))
                hm_put(&later, nodes[i]->output[k], nodes[i]);
    /* node names: ONNX Runtime refuses a graph where two nodes share one (onnx's checker does not) */
    hashmap node_names;
    hm_init(&node_names);
    strbuf nd;
    sb_init(&nd);
    for (size_t i = 0; i < n_nodes; i++) {
        const Onnx__NodeProto *n = nodes[i];
        sb_reset(&nd);
        node_desc(&nd, where, i, n);
        if (!n->op_type || !n->op_type[0])
            problem(c, "%s: empty op_type", nd.s);
        if (n->name && n->name[0]) {
            if (hm_has(&node_names, n->name))
                problem(c, "%s: another node of this graph has the name '%s' (ONNX Runtime refuses the model)",
                        nd.s, n->name);
            else
                hm_put(&node_names, n->name, (void *)n);
        }
        for (size_t k = 0; k < n->n_input; k++) {
            const char *in = n->input[k];
            if (!in || !in[0] || scope_has(sc, in))
                continue;
            if (hm_has(&later, in))
                problem(c, "%s: input '%s' is used before it is produced (nodes not in topological order)",
                        nd.s, in);
            else
                problem(c, "%s: input '%s' is not defined", nd.s, in);
        }
        const char *dom = norm_domain(n->domain);
        if (!hm_has(&c->opsets, dom))
            problem(c, "%s: domain '%s' is not in opset_import", nd.s, dom);
        if (dom[0] && hm_has(&c->fn_domains, dom)) {
            char *key = arena_printf(&c->keys, "%s\x01%s", dom, n->op_type ? n->op_type : "");
            if (!hm_has(&c->fns, key))
                problem(c, "%s: no function '%s' in domain '%s'", nd.s, n->op_type ? n->op_type : "", dom);
        }
        check_control_flow(c, nd.s, n);
        for (size_t k = 0; k < n->n_attribute; k++) {
            const Onnx__AttributeProto *a = n->attribute[k];
            if (a->g)
                check_graph(c, a->g, sc, depth + 1);
            for (size_t j = 0; j < a->n_graphs; j++)
                check_graph(c, a->graphs[j], sc, depth + 1);
            if (a->t)
                check_tensor(c, nd.s, a->t);
            if (a->tp)
                check_type(c, nd.s, a->tp, 0);
        }
        for (size_t k = 0; k < n->n_output; k++) {
            const char *out = n->output[k];
            if (!out || !out[0])
                continue;
            if (scope_has(sc, out))
                problem(c, "%s: output '%s' is assigned more than once", nd.s, out);
            else
                hm_put(&sc->names, out, (void *)1);
        }
    }
    sb_free(&nd);
    hm_free(&later);
    hm_free(&node_names);
}

static void check_function(checker *c, const Onnx__FunctionProto *f)
{
    strbuf where;
    sb_init(&where);
    sb_printf(&where, "function '%s'", f->name ? f->name : "");
    load_opsets(c, f->opset_import, f->n_opset_import);
    scope sc = {0};
    hm_init(&sc.names);
    for (size_t i = 0; i < f->n_input; i++)
        if (f->input[i][0] && hm_put(&sc.names, f->input[i], (void *)1))
            problem(c, "%s: input '%s' is declared more than once", where.s, f->input[i]);
    check_nodes(c, where.s, f->node, f->n_node, &sc, 0);
    for (size_t i = 0; i < f->n_output; i++)
        if (!hm_has(&sc.names, f->output[i]))
            problem(c, "%s: output '%s' is never produced", where.s, f->output[i]);
    hm_free(&sc.names);
    sb_free(&where);
}

int ox_check(const ox_model *m, diag_sink *d)
{
    checker c = {.r = {.m = m, .d = d}};
    hm_init(&c.opsets);
    hm_init(&c.fn_domains);
    hm_init(&c.fns);
    arena_init(&c.keys);
    const Onnx__ModelProto *mp = m->proto;
    ox_check_model_level(&c.r, m);
    ox_check_fields(&c.r, m);
    for (size_t i = 0; i < mp->n_functions; i++) {
        const Onnx__FunctionProto *f = mp->functions[i];
        const char *dom = norm_domain(f->domain);
        hm_put(&c.fn_domains, dom, (void *)1);
        char *key = arena_printf(&c.keys, "%s\x01%s", dom, f->name ? f->name : "");
        if (hm_put(&c.fns, key, (void *)f))
            problem(&c, "function '%s' in domain '%s' is defined more than once",
                    f->name ? f->name : "", dom);
    }
    if (!mp->graph) {
        problem(&c, "model has no graph");
    } else {
        load_opsets(&c, mp->opset_import, mp->n_opset_import);
        check_graph(&c, mp->graph, NULL, 0);
    }
    for (size_t i = 0; i < mp->n_functions; i++)
        check_function(&c, mp->functions[i]);
    /* operator signatures and element types, on a model whose names resolve */
    if (c.r.problems == 0)
        ox_check_types(&c.r, m);
    /* then shapes, on a model whose operators are right */
    if (c.r.problems == 0)
        ox_check_shapes(&c.r, m);
    hm_free(&c.opsets);
    hm_free(&c.fn_domains);
    hm_free(&c.fns);
    arena_free(&c.keys);
    return c.r.problems;
}
