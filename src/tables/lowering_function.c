/* lowering_function.c — parses `function:` lowerings: a torchlib function in ONNX text, bound to a schema.
 *
 * torchlib functions that are not trace_only are onnxscript FunctionProtos; torch.onnx records a
 * call to one and inlines it, keeping the body's value and node names. A `function:` lowering is
 * that body as ONNX text (onnx.printer's function syntax, parsed by fxsh's ONNX parser), so that
 * translate can inline it the same way. Its inputs are schema arguments (as a lowering's are),
 * its attributes schema arguments or derive entries that the body reads with @refs. */
#include <stdio.h>
#include <string.h>

#include "base/hashmap.h"
#include "onnx/onnx_parse.h"
#include "tables/ops.h"

typedef struct fcheck {
    const char *file;
    int line;
    diag_sink *d;
    hashmap defined;         /* value names defined so far (inputs, node outputs, subgraph inputs) */
    hashmap attrs;           /* the function's attribute names */
    bool ok;
} fcheck;

static void fail(fcheck *c, const char *fmt, const char *what, const char *hint)
{
    if (!c->ok) return;
    c->ok = false;
    diagnostic *dg = diag_error(c->d, (diag_loc){c->file, c->line, 0}, fmt, what);
    if (hint) diag_set_hint(dg, "%s", hint);
}

static void check_graph(fcheck *c, const Onnx__GraphProto *g, int depth);

static void check_node(fcheck *c, const Onnx__NodeProto *n, int depth)
{
    for (size_t i = 0; i < n->n_input && c->ok; i++)
        if (n->input[i] && *n->input[i] && !hm_has(&c->defined, n->input[i]))
            fail(c, "'%s' is used before it is defined in the function", n->input[i],
                 "inputs must be function inputs or outputs of earlier nodes");
    for (size_t i = 0; i < n->n_attribute && c->ok; i++) {
        const Onnx__AttributeProto *a = n->attribute[i];
        if (a->ref_attr_name && *a->ref_attr_name && !hm_has(&c->attrs, a->ref_attr_name))
            fail(c, "@%s is not an attribute of the function", a->ref_attr_name,
                 "declare it after the function's name: aten_addcdiv <value> (self, tensor1, tensor2) => (...)");
        if (a->g) check_graph(c, a->g, depth + 1);
        for (size_t k = 0; k < a->n_graphs && c->ok; k++) check_graph(c, a->graphs[k], depth + 1);
    }
    for (size_t i = 0; i < n->n_output; i++)
        if (n->output[i] && *n->output[i]) hm_put(&c->defined, n->output[i], (void *)1);
}

static void check_graph(fcheck *c, const Onnx__GraphProto *g, int depth)
{
    if (depth > 16) { fail(c, "subgraphs nest deeper than %s levels", "16", NULL); return; }
    for (size_t i = 0; i < g->n_input; i++)
        if (g->input[i]->name) hm_put(&c->defined, g->input[i]->name, (void *)1);
    for (size_t i = 0; i < g->n_node && c->ok; i++) check_node(c, g->node[i], depth);
    for (size_t i = 0; i < g->n_output && c->ok; i++)
        if (g->output[i]->name && !hm_has(&c->defined, g->output[i]->name))
            fail(c, "subgraph output '%s' is never computed", g->output[i]->name, NULL);
}

/* The attribute named name bound to its schema argument or derive entry (as a @ref binds). */
static bool bind_attr(const char *name, const aten_schema *schema, const ops_derived *derived, size_t nderived,
                      low_attr *out)
{
    memset(out, 0, sizeof *out);
    out->name = name;
    out->ref = name;
    out->type = LAT_INFER;
    for (size_t i = 0; i < nderived; i++)
        if (!strcmp(derived[i].name, name)) {
            out->ref_fn = derived[i].fn;
            out->ref_arg = derived[i].arg;
            out->ref_offset = derived[i].offset;
            return true;
        }
    out->ref_arg = aten_schema_find(schema, name);
    return out->ref_arg >= 0;
}

/* Moves the parser's diagnostics (positions inside text) to their place in the YAML file. */
static void relocate(diag_sink *d, size_t from, int base_line, int base_col)
{
    for (size_t i = from; i < d->len; i++) {
        diagnostic *dg = &d->items[i];
        if (dg->line > 0) dg->line += base_line - 1;
        if (dg->col > 0) dg->col += base_col;
    }
}

bool lowering_parse_function(arena *a, const char *text, const aten_schema *schema, const ops_derived *derived,
                             size_t nderived, lowering *out, diag_sink *d, const char *file, int base_line,
                             int base_col)
{
    size_t before = d->len;
    Onnx__FunctionProto *f = ox_parse_function_proto(a, text, strlen(text), file, d);
    relocate(d, before, base_line, base_col);
    if (!f) return false;
    fcheck c = {.file = file, .line = base_line, .d = d, .ok = true};
    hm_init(&c.defined);
    hm_init(&c.attrs);
    out->text = arena_strdup(a, text);
    out->fn_name = f->name;
    out->function = f;
    out->nparams = f->n_input;
    out->params = arena_alloc(a, (f->n_input + 1) * sizeof *out->params);
    out->param_args = arena_alloc(a, (f->n_input + 1) * sizeof *out->param_args);
    for (size_t i = 0; i < f->n_input && c.ok; i++) {
        out->params[i] = f->input[i];
        out->param_args[i] = aten_schema_find(schema, f->input[i]);
        if (out->param_args[i] < 0)
            fail(&c, "function input '%s' is not an argument of the schema", f->input[i],
                 "a function's inputs and attributes take the names of the schema's arguments");
        hm_put(&c.defined, f->input[i], (void *)1);
    }
    size_t na = f->n_attribute + f->n_attribute_proto;
    out->fn_attrs = arena_alloc(a, (na + 1) * sizeof *out->fn_attrs);
    for (size_t i = 0; i < na && c.ok; i++) {
        const char *an = i < f->n_attribute ? f->attribute[i] : f->attribute_proto[i - f->n_attribute]->name;
        if (!bind_attr(an, schema, derived, nderived, &out->fn_attrs[out->nfn_attrs++]))
            fail(&c, "function attribute '%s' is not an argument of the schema or a derive entry", an,
                 "a function's inputs and attributes take the names of the schema's arguments");
        hm_put(&c.attrs, an, (void *)1);
    }
    for (size_t i = 0; i < f->n_node && c.ok; i++) check_node(&c, f->node[i], 0);
    out->nresults = f->n_output;
    out->results = arena_alloc(a, (f->n_output + 1) * sizeof *out->results);
    for (size_t i = 0; i < f->n_output && c.ok; i++) {
        out->results[i] = f->output[i];
        if (!hm_has(&c.defined, f->output[i]))
            fail(&c, "function output '%s' is never computed", f->output[i], NULL);
    }
    hm_free(&c.defined);
    hm_free(&c.attrs);
    return c.ok;
}
