/* onnx_check_types.c — the operator-level part of the checker: each ai.onnx node against its
 * operator's signature (onnx_schema.h) as onnx's checker and strict type inference check it —
 * the operator exists at the imported opset, input and output counts, required, unknown and
 * mistyped attributes, and element types: each type variable bound to one type, allowed by its
 * constraint, and agreeing with the types the model declares. */
#include "onnx/onnx_check_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "onnx/onnx_schema.h"

typedef struct tscope {
    hashmap types;                /* value name -> type string ("tensor(float)") in tc.a */
    const struct tscope *parent;
} tscope;

typedef struct tc {
    ox_check_report *r;
    arena a;
    bool lenient;                 /* the node follows one onnx has no schema for: onnx's inference,
                                     which checks types, drops its errors, so they are warnings */
} tc;

#define TYPE_PROBLEM(c, ...) \
    ((c)->lenient ? ox_check_warning((c)->r, __VA_ARGS__) : ox_check_problem((c)->r, __VA_ARGS__))

/* A formal parameter of a signature. */
typedef struct formal {
    const char *name, *type;      /* type: a type variable or a type string */
    size_t name_len, type_len;
    char opt;                     /* s o v h (onnx_schema.h) */
} formal;

enum { MAX_FORMALS = 32, MAX_TYPEVARS = 8 };

static size_t parse_formals(const char *s, formal *out)
{
    size_t n = 0;
    while (s && *s && n < MAX_FORMALS) {
        const char *c1 = strchr(s, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) break;
        out[n] = (formal){ s, c1 + 1, (size_t)(c1 - s), (size_t)(c2 - c1 - 1), c2[1] };
        n++;
        const char *bar = strchr(c2, '|');
        s = bar ? bar + 1 : NULL;
    }
    return n;
}

/* The type string of t ("tensor(float)", "seq(tensor(int64))", "sparse_tensor(int64)"), NULL when
 * not fully known. */
static const char *type_string(tc *c, const Onnx__TypeProto *t)
{
    if (!t) return NULL;
    switch (t->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
        return t->tensor_type->elem_type > 0 ? arena_printf(&c->a, "tensor(%s)", ox_dtype_name(t->tensor_type->elem_type)) : NULL;
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:   /* matches no tensor(...) constraint, as in onnx */
        return t->sparse_tensor_type && t->sparse_tensor_type->elem_type > 0
                   ? arena_printf(&c->a, "sparse_tensor(%s)", ox_dtype_name(t->sparse_tensor_type->elem_type))
                   : NULL;
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: {
        const char *e = type_string(c, t->sequence_type->elem_type);
        return e ? arena_printf(&c->a, "seq(%s)", e) : NULL;
    }
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: {
        const char *e = type_string(c, t->optional_type->elem_type);
        return e ? arena_printf(&c->a, "optional(%s)", e) : NULL;
    }
    default:
        return NULL;
    }
}

static const char *lookup(const tscope *s, const char *name)
{
    for (; s; s = s->parent) {
        const char *t = hm_get(&s->types, name);
        if (t) return t;
    }
    return NULL;
}

/* Does the comma-separated list `allowed` hold type t? */
static bool allowed_has(const char *allowed, size_t len, const char *t)
{
    size_t tl = strlen(t);
    for (const char *p = allowed, *end = allowed + len; p < end;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        /* a type string holds commas only inside map(...), which fxsh does not type */
        const char *e = comma ? comma : end;
        if ((size_t)(e - p) == tl && !memcmp(p, t, tl)) return true;
        p = e + 1;
    }
    return false;
}

/* The allowed types of type variable `var` (len bytes) in constraints: *list, *len; false if
 * var is not a type variable (then it is a type string itself). */
static bool constraint_of(const char *constraints, const char *var, size_t vlen, const char **list, size_t *len)
{
    for (const char *p = constraints; p && *p;) {
        const char *eq = strchr(p, '='), *semi = strchr(p, ';');
        if (!eq) return false;
        const char *end = semi ? semi : p + strlen(p);
        if ((size_t)(eq - p) == vlen && !memcmp(p, var, vlen)) {
            *list = eq + 1;
            *len = (size_t)(end - eq - 1);
            return true;
        }
        p = semi ? semi + 1 : NULL;
    }
    return false;
}

typedef struct binding {
    const char *var;
    size_t len;
    const char *type;
    const char *by;               /* the input that bound it */
} binding;

static binding *find_binding(binding *b, size_t n, const char *var, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (b[i].len == len && !memcmp(b[i].var, var, len)) return &b[i];
    return NULL;
}

static const Onnx__AttributeProto *attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, name)) return n->attribute[i];
    return NULL;
}

/* AttributeProto type code → the letter onnx_schema.h uses. */
static char attr_code(int type)
{
    static const char codes[] = "?fistgFISTGxXpP";   /* by AttributeProto.AttributeType value */
    return type >= 0 && type < (int)sizeof codes - 1 ? codes[type] : '?';
}

/* "an int", "a list of floats", ... for a type letter. */
static const char *attr_kind(char code)
{
    switch (code) {
    case 'f': return "a float";
    case 'i': return "an int";
    case 's': return "a string";
    case 't': return "a tensor";
    case 'g': return "a graph";
    case 'F': return "a list of floats";
    case 'I': return "a list of ints";
    case 'S': return "a list of strings";
    case 'T': return "a list of tensors";
    case 'G': return "a list of graphs";
    case 'p': return "a type";
    case 'P': return "a list of types";
    case 'x': return "a sparse tensor";
    case 'X': return "a list of sparse tensors";
    default: return "of an unknown type";
    }
}

static void check_attributes(tc *c, const char *desc, const Onnx__NodeProto *n, const ox_op_schema *s)
{
    /* every attribute the node has is one of the operator's, of its type */
    for (size_t i = 0; i < n->n_attribute; i++) {
        const Onnx__AttributeProto *a = n->attribute[i];
        const char *nm = a->name ? a->name : "";
        size_t nl = strlen(nm);
        const char *p = s->attributes, *found = NULL;
        while (p && *p) {
            const char *colon = strchr(p, ':');
            size_t l = (size_t)(colon - p);
            if (l > 0 && p[l - 1] == '!') l--;
            if (l == nl && !memcmp(p, nm, nl)) { found = colon + 1; break; }
            const char *comma = strchr(colon, ',');
            p = comma ? comma + 1 : NULL;
        }
        if (!found) {
            ox_check_problem(c->r, "%s: unrecognized attribute '%s' for %s-%d", desc, nm, s->name, s->since_version);
            continue;
        }
        if (a->ref_attr_name && a->ref_attr_name[0]) continue;   /* a function's attribute reference */
        if (attr_code(a->type) != *found)
            ox_check_problem(c->r, "%s: attribute '%s' is %s; %s-%d takes %s", desc, nm, attr_kind(attr_code(a->type)),
                             s->name, s->since_version, attr_kind(*found));
    }
    /* and the required ones are there */
    for (const char *p = s->attributes; p && *p;) {
        const char *colon = strchr(p, ':');
        if (colon > p && colon[-1] == '!') {
            char *nm = arena_strndup(&c->a, p, (size_t)(colon - p - 1));
            if (!attr(n, nm))
                ox_check_problem(c->r, "%s: required attribute '%s' of %s-%d is missing", desc, nm, s->name, s->since_version);
        }
        const char *comma = strchr(colon, ',');
        p = comma ? comma + 1 : NULL;
    }
}

/* The element type an attribute gives an output whose signature type is a variable the inputs
 * do not bind (Cast's `to`, Constant's value, ...); NULL when it is not one of those. */
static const char *output_type_from_attrs(tc *c, const Onnx__NodeProto *n)
{
    const char *op = n->op_type;
    const Onnx__AttributeProto *a;
    if (!strcmp(op, "Cast") && (a = attr(n, "to")))
        return arena_printf(&c->a, "tensor(%s)", ox_dtype_name((int)a->i));
    if (!strcmp(op, "Constant")) {
        if ((a = attr(n, "value")) && a->t) return arena_printf(&c->a, "tensor(%s)", ox_dtype_name(a->t->data_type));
        if (attr(n, "value_float") || attr(n, "value_floats")) return "tensor(float)";
        if (attr(n, "value_int") || attr(n, "value_ints")) return "tensor(int64)";
        if (attr(n, "value_string") || attr(n, "value_strings")) return "tensor(string)";
        return NULL;
    }
    if (!strcmp(op, "ConstantOfShape"))
        return (a = attr(n, "value")) && a->t ? arena_printf(&c->a, "tensor(%s)", ox_dtype_name(a->t->data_type))
                                              : "tensor(float)";
    return NULL;
}

/* Binds the formal parameter's type for actual type t of `what`; reports a conflict or a type
 * the constraint does not allow. */
static void bind(tc *c, const char *desc, const ox_op_schema *s, const formal *f, const char *what, const char *t,
                 binding *b, size_t *nb)
{
    const char *list;
    size_t len;
    if (!constraint_of(s->constraints, f->type, f->type_len, &list, &len)) {
        if (strlen(t) != f->type_len || memcmp(t, f->type, f->type_len))
            TYPE_PROBLEM(c, "%s: %s is %s; %s-%d takes %.*s", desc, what, t, s->name, s->since_version,
                             (int)f->type_len, f->type);
        return;
    }
    if (!allowed_has(list, len, t)) {
        TYPE_PROBLEM(c, "%s: %s has type %s, which %s-%d does not take for %.*s", desc, what, t, s->name,
                         s->since_version, (int)f->type_len, f->type);
        return;
    }
    if (f->opt == 'h') return;    /* each member of a heterogeneous variadic has its own type */
    binding *have = find_binding(b, *nb, f->type, f->type_len);
    if (!have) {
        if (*nb < MAX_TYPEVARS) b[(*nb)++] = (binding){ f->type, f->type_len, t, what };
    } else if (strcmp(have->type, t)) {
        TYPE_PROBLEM(c, "%s: type parameter %.*s is bound to %s by %s and to %s by %s", desc, (int)f->type_len,
                         f->type, have->type, have->by, t, what);
    }
}

static void check_graph_types(tc *c, const Onnx__GraphProto *g, const tscope *parent, int depth);

/* The version of domain ("" for ai.onnx) the model imports, -1 when it does not; the last of
 * several imports of one domain, as onnx reads them. */
static int64_t imported_version(const tc *c, const char *domain)
{
    const Onnx__ModelProto *mp = c->r->m->proto;
    int64_t v = -1;
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const char *d = mp->opset_import[i]->domain ? mp->opset_import[i]->domain : "";
        if (!strcmp(d, "ai.onnx")) d = "";
        if (!strcmp(d, domain)) v = mp->opset_import[i]->version;
    }
    return v;
}

static void check_node(tc *c, tscope *sc, const char *gname, size_t idx, const Onnx__NodeProto *n, int depth)
{
    strbuf desc;
    sb_init(&desc);
    ox_check_node_desc(&desc, gname, idx, n);
    const char *dom = n->domain && strcmp(n->domain, "ai.onnx") ? n->domain : "";
    const ox_op_schema *s = NULL;
    int64_t opset = -1;
    if (!*dom || !strcmp(dom, "ai.onnx.ml") || !strcmp(dom, "ai.onnx.preview.training")) {
        /* onnx's own domains: it knows every operator of them */
        int first;
        opset = imported_version(c, dom);
        s = opset > 0 ? ox_op_schema_find(dom, n->op_type, opset, &first) : NULL;
        if (opset <= 0)
            ;   /* the structural checker reports a domain that is not imported */
        else if (!s && !first)
            ox_check_problem(c->r, "%s: %s has no operator %s", desc.s, *dom ? dom : "ai.onnx", n->op_type ? n->op_type : "?");
        else if (!s)
            ox_check_problem(c->r, "%s: %s exists from opset %d; the model imports %s opset %lld", desc.s,
                             n->op_type, first, *dom ? dom : "ai.onnx", (long long)opset);
    }
    if (s && s->deprecated)
        ox_check_problem(c->r, "%s: %s-%d is deprecated at opset %lld (onnx's checker refuses it; use a newer opset)",
                         desc.s, s->name, s->since_version, (long long)opset);
    /* onnx infers MeanVarianceNormalization-13 through its function body, which fails in onnx
     * 1.20 (a Constant of the body has no value): its checker refuses every such node, and so
     * does fxsh's, to agree with it */
    if (s && !strcmp(s->name, "MeanVarianceNormalization") && s->since_version >= 13)
        TYPE_PROBLEM(c, "%s: onnx's inference of MeanVarianceNormalization-%d fails on its own function body (a Constant "
                        "without a value), so onnx.checker refuses the model (expand the node, or import opset 12)",
                     desc.s, s->since_version);
    binding b[MAX_TYPEVARS];
    size_t nb = 0;
    formal fin[MAX_FORMALS], fout[MAX_FORMALS];
    size_t nfin = 0, nfout = 0;
    if (s) {
        if ((int64_t)n->n_input < s->min_inputs || (int64_t)n->n_input > s->max_inputs)
            ox_check_problem(c->r, "%s: %zu inputs; %s-%d takes %d to %d", desc.s, n->n_input, s->name,
                             s->since_version, s->min_inputs, s->max_inputs);
        if ((int64_t)n->n_output < s->min_outputs || (int64_t)n->n_output > s->max_outputs)
            ox_check_problem(c->r, "%s: %zu outputs; %s-%d gives %d to %d", desc.s, n->n_output, s->name,
                             s->since_version, s->min_outputs, s->max_outputs);
        check_attributes(c, desc.s, n, s);
        nfin = parse_formals(s->inputs, fin);
        nfout = parse_formals(s->outputs, fout);
        for (size_t i = 0; i < n->n_input && nfin; i++) {
            const formal *f = &fin[i < nfin ? i : nfin - 1];
            if (!n->input[i][0]) {
                if (f->opt == 's')
                    ox_check_problem(c->r, "%s: input %zu (%.*s) is required", desc.s, i, (int)f->name_len, f->name);
                continue;
            }
            const char *t = lookup(sc, n->input[i]);
            if (t) bind(c, desc.s, s, f, arena_printf(&c->a, "input '%s'", n->input[i]), t, b, &nb);
        }
    }
    /* subgraphs see this scope */
    for (size_t i = 0; i < n->n_attribute; i++) {
        const Onnx__AttributeProto *a = n->attribute[i];
        if (a->g) check_graph_types(c, a->g, sc, depth + 1);
        for (size_t k = 0; k < a->n_graphs; k++) check_graph_types(c, a->graphs[k], sc, depth + 1);
    }
    /* outputs: the type the signature gives, checked against a declared one */
    const char *from_attr = s ? output_type_from_attrs(c, n) : NULL;
    for (size_t k = 0; k < n->n_output; k++) {
        if (!n->output[k][0]) continue;
        const char *t = NULL;
        if (s && nfout) {
            const formal *f = &fout[k < nfout ? k : nfout - 1];
            const char *list;
            size_t len;
            if (!constraint_of(s->constraints, f->type, f->type_len, &list, &len)) {
                t = arena_strndup(&c->a, f->type, f->type_len);
            } else if (f->opt == 'h') {
                /* each member of a heterogeneous variadic (If's, Loop's outputs) has its own type,
                 * but it must be one the constraint allows */
                const char *declared = hm_get(&sc->types, n->output[k]);
                if (declared && !allowed_has(list, len, declared))
                    TYPE_PROBLEM(c, "%s: output '%s' is declared %s, which %s-%d does not give for %.*s", desc.s,
                                 n->output[k], declared, s->name, s->since_version, (int)f->type_len, f->type);
            } else {
                binding *have = find_binding(b, nb, f->type, f->type_len);
                t = have ? have->type : from_attr;
                /* a type an attribute gives (Cast's to, Constant's value) must be one the
                 * operator's version allows */
                if (!have && from_attr && !allowed_has(list, len, from_attr))
                    TYPE_PROBLEM(c, "%s: output '%s' would be %s, which %s-%d does not give for %.*s", desc.s, n->output[k],
                                 from_attr, s->name, s->since_version, (int)f->type_len, f->type);
            }
        }
        const char *declared = hm_get(&sc->types, n->output[k]);
        if (t && declared && strcmp(t, declared))
            TYPE_PROBLEM(c, "%s: output '%s' is %s, but the model declares it %s", desc.s, n->output[k], t, declared);
        else if (t && !declared)
            hm_put(&sc->types, n->output[k], (void *)t);
    }
    sb_free(&desc);
}

static void declare(tc *c, tscope *sc, const char *name, const Onnx__TypeProto *t)
{
    const char *ts = type_string(c, t);
    if (name && ts) hm_put(&sc->types, name, (void *)ts);
}

static void check_graph_types(tc *c, const Onnx__GraphProto *g, const tscope *parent, int depth)
{
    if (!g || depth > 64) return;
    tscope sc = { .parent = parent };
    hm_init(&sc.types);
    for (size_t i = 0; i < g->n_input; i++) declare(c, &sc, g->input[i]->name, g->input[i]->type);
    for (size_t i = 0; i < g->n_value_info; i++) declare(c, &sc, g->value_info[i]->name, g->value_info[i]->type);
    for (size_t i = 0; i < g->n_output; i++) declare(c, &sc, g->output[i]->name, g->output[i]->type);
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        if (t->name && t->data_type > 0)
            hm_put(&sc.types, t->name, arena_printf(&c->a, "tensor(%s)", ox_dtype_name(t->data_type)));
    }
    const char *gname = g->name ? g->name : "";
    bool outer = c->lenient;
    c->lenient = false;
    for (size_t i = 0; i < g->n_node; i++) {
        bool here = c->lenient;
        check_node(c, &sc, gname, i, g->node[i], depth);
        c->lenient = here || !ox_check_onnx_knows(c->r->m, g->node[i]);
    }
    c->lenient = outer;
    hm_free(&sc.types);
}

void ox_check_types(ox_check_report *r, const ox_model *m)
{
    const Onnx__ModelProto *mp = m->proto;
    tc c = { .r = r };
    if (!mp->graph) return;   /* the structural checker reports it */
    arena_init(&c.a);
    check_graph_types(&c, mp->graph, NULL, 0);
    arena_free(&c.a);
}
