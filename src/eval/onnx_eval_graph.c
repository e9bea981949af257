/* onnx_eval_graph.c — evaluation of whole graphs: scopes of named values (outer scopes visible
 * to subgraphs), values freed after their last use, initializers converted on first use,
 * model-local functions, and the errors that name the node. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/vec.h"
#include "eval/onnx_eval_internal.h"

/* A named value of a scope. */
typedef struct slot {
    oe_tensor v;
    bool has;                         /* v holds the value */
    bool borrowed;                    /* v is a shallow view of a caller's value: never freed */
    const Onnx__TensorProto *init;    /* initializer, converted on first use */
    int64_t uses;                     /* references left in this scope */
    bool pinned;                      /* a graph output: kept to the end */
} slot;

typedef struct oe_scope {
    struct oe_scope *parent;          /* NULL for the main graph and function bodies */
    hashmap vals;                     /* name → slot */
} oe_scope;

typedef struct oe_run {
    const ox_model *m;
    const oe_model_opts *o;
    diag_sink *d;
    int depth;
    int repeated;                     /* how many Loop / Scan bodies or functions enclose the node */
    oe_scope *scope;                  /* the scope of the node being evaluated */
    hashmap funcs;                    /* "domain:name" → FunctionProto */
    arena tmp;                        /* the function table's keys */
    uint64_t entropy;                 /* the random operators' stream (oe_run_entropy) */
} oe_run;

/* A body to execute: a graph's or a function's nodes with their formal inputs and outputs. */
typedef struct body {
    Onnx__NodeProto **nodes;
    size_t n_nodes;
    const char **inputs, **outputs;
    size_t n_inputs, n_outputs;
    Onnx__TensorProto **inits;
    size_t n_inits;
    int64_t opset;
    const Onnx__AttributeProto *const *call_attrs;   /* a function call's attributes */
    size_t n_call_attrs;
} body;

static int run_body(oe_run *r, const body *b, oe_scope *parent, const oe_tensor *const *in, size_t nin, oe_tensor *out);

/* ---- scopes ------------------------------------------------------------------------------------- */

static slot *scope_define(oe_run *r, oe_scope *s, const char *name)
{
    slot *sl = hm_get(&s->vals, name);
    if (!sl) {
        sl = xcalloc(1, sizeof *sl);
        hm_put(&s->vals, name, sl);
    }
    return sl;
}

static slot *scope_find(oe_scope *s, const char *name)
{
    for (; s; s = s->parent) {
        slot *sl = hm_get(&s->vals, name);
        if (sl) return sl;
    }
    return NULL;
}

static void slot_release(slot *sl)
{
    if (sl->has && !sl->borrowed) ot_tensor_free(&sl->v);
    sl->has = false;
}

static void scope_free(oe_scope *s)
{
    for (size_t i = 0; i < s->vals.cap; i++)
        if (s->vals.slots[i].key) {
            slot_release(s->vals.slots[i].value);
            free(s->vals.slots[i].value);
        }
    hm_free(&s->vals);
}

/* The value of a slot, converting an initializer on first use; NULL after reporting. */
static const oe_tensor *slot_value(oe_run *r, slot *sl, const char *name, const Onnx__NodeProto *n)
{
    if (sl->has) return &sl->v;
    if (sl->init) {
        int rc = ot_from_proto(sl->init, 0, &sl->v);
        if (rc == OE_OK) {
            sl->has = true;
            return &sl->v;
        }
        const char *why = rc == OE_ERROR ? "its data does not match its shape"
                        : !ot_dtype_supported(sl->init->data_type) ? "its element type is not supported by the evaluator"
                        : "its data is stored outside the model (external data not loaded)";
        diag_error(r->d, (diag_loc){0}, "initializer %s: %s", name, why);
        return NULL;
    }
    if (n) diag_error(r->d, (diag_loc){0}, "node %s (%s): input %s has no value", oe_node_label(n), n->op_type, name);
    else diag_error(r->d, (diag_loc){0}, "%s has no value", name);
    return NULL;
}

/* ---- references of a node (its inputs and the outer names its subgraphs read) -------------------- */

typedef VEC(slot *) slot_vec;

static void graph_refs(oe_scope *s, const Onnx__GraphProto *g, slot_vec *out, int depth);

static void node_refs(oe_scope *s, const Onnx__NodeProto *n, slot_vec *out, int depth)
{
    for (size_t i = 0; i < n->n_input; i++) {
        slot *sl = n->input[i] && *n->input[i] ? hm_get(&s->vals, n->input[i]) : NULL;
        if (sl) vec_push(out, sl);
    }
    if (depth > 64) return;
    for (size_t j = 0; j < n->n_attribute; j++) {
        const Onnx__AttributeProto *a = n->attribute[j];
        if (a->g) graph_refs(s, a->g, out, depth + 1);
        for (size_t k = 0; k < a->n_graphs; k++) graph_refs(s, a->graphs[k], out, depth + 1);
    }
}

static void graph_refs(oe_scope *s, const Onnx__GraphProto *g, slot_vec *out, int depth)
{
    for (size_t i = 0; i < g->n_node; i++) node_refs(s, g->node[i], out, depth);
    for (size_t i = 0; i < g->n_output; i++) {
        slot *sl = g->output[i]->name ? hm_get(&s->vals, g->output[i]->name) : NULL;
        if (sl) vec_push(out, sl);
    }
}

/* ---- one node ----------------------------------------------------------------------------------- */

static bool default_domain(const char *d)
{
    return !d || !*d || !strcmp(d, "ai.onnx");
}

static const Onnx__FunctionProto *find_function(oe_run *r, const Onnx__NodeProto *n)
{
    char key[512];
    snprintf(key, sizeof key, "%s:%s", n->domain ? n->domain : "", n->op_type);
    return hm_get(&r->funcs, key);
}

/* A function body's node with its @ref attributes replaced by the call's values: a copy in one
 * block (*owned, freed by the caller after the node ran), or n itself. */
static const Onnx__NodeProto *resolve_attrs(const Onnx__NodeProto *n, const body *b, void **owned)
{
    *owned = NULL;
    bool refs = false;
    for (size_t i = 0; i < n->n_attribute; i++) refs |= n->attribute[i]->ref_attr_name != NULL;
    if (!refs) return n;
    char *block = xcalloc(1, sizeof(Onnx__NodeProto) + (n->n_attribute + 1) * (sizeof(Onnx__AttributeProto *) + sizeof(Onnx__AttributeProto)));
    Onnx__NodeProto *copy = (Onnx__NodeProto *)block;
    Onnx__AttributeProto **ptrs = (Onnx__AttributeProto **)(block + sizeof *copy);
    Onnx__AttributeProto *vals = (Onnx__AttributeProto *)(ptrs + n->n_attribute + 1);
    *copy = *n;
    copy->attribute = ptrs;
    copy->n_attribute = 0;
    for (size_t i = 0; i < n->n_attribute; i++) {
        Onnx__AttributeProto *a = n->attribute[i];
        if (!a->ref_attr_name) {
            copy->attribute[copy->n_attribute++] = a;
            continue;
        }
        for (size_t k = 0; k < b->n_call_attrs; k++)
            if (b->call_attrs[k]->name && !strcmp(b->call_attrs[k]->name, a->ref_attr_name)) {
                Onnx__AttributeProto *v = &vals[i];
                *v = *b->call_attrs[k];
                v->name = a->name;
                copy->attribute[copy->n_attribute++] = v;
                break;
            }
    }
    *owned = block;
    return copy;
}

static int call_function(oe_run *r, const Onnx__FunctionProto *f, const Onnx__NodeProto *n, oe_tensor *const *in,
                         size_t nin, oe_tensor *out)
{
    body b = {f->node, f->n_node, (const char **)f->input, (const char **)f->output, f->n_input, f->n_output,
              NULL, 0, 0, NULL, 0};
    b.opset = ox_model_opset(r->m, "");
    for (size_t i = 0; i < f->n_opset_import; i++)
        if (default_domain(f->opset_import[i]->domain)) b.opset = f->opset_import[i]->version;
    /* the call's attributes, then the function's defaults for those not given */
    const Onnx__AttributeProto **attrs = xcalloc(n->n_attribute + f->n_attribute_proto + 1, sizeof *attrs);
    size_t na = 0;
    for (size_t i = 0; i < n->n_attribute; i++) attrs[na++] = n->attribute[i];
    for (size_t i = 0; i < f->n_attribute_proto; i++)
        if (!ox_node_attr(n, f->attribute_proto[i]->name)) attrs[na++] = f->attribute_proto[i];
    b.call_attrs = attrs;
    b.n_call_attrs = na;
    if (nin > f->n_input) nin = f->n_input;
    const oe_tensor **args = xcalloc(f->n_input + 1, sizeof *args);
    for (size_t i = 0; i < nin; i++) args[i] = in[i];
    oe_tensor *res = xcalloc(f->n_output + 1, sizeof *res);
    r->repeated++;
    int rc = run_body(r, &b, NULL, args, f->n_input, res);
    r->repeated--;
    for (size_t i = 0; i < f->n_output; i++) {
        if (rc == OE_OK && i < n->n_output) out[i] = res[i];
        else ot_tensor_free(&res[i]);
    }
    free(args);
    free(res);
    free(attrs);
    return rc;
}

static int eval_one(oe_run *r, const Onnx__NodeProto *n, int64_t opset, oe_tensor *const *in, size_t nin, oe_tensor *out)
{
    const oe_op_def *def = oe_find_op_in(n->domain, n->op_type);
    if (!def) {
        const Onnx__FunctionProto *f = find_function(r, n);
        if (f) return call_function(r, f, n, in, nin, out);
        diag_error(r->d, (diag_loc){0}, "node %s (%s%s%s) is not supported by the evaluator", oe_node_label(n),
                   default_domain(n->domain) ? "" : n->domain, default_domain(n->domain) ? "" : ".", n->op_type);
        return OE_ERROR;
    }
    for (size_t i = 0; i < nin; i++)
        if (in[i] && in[i]->kind == OE_KIND_TENSOR && !ot_dtype_supported(in[i]->dtype)) {
            diag_error(r->d, (diag_loc){0}, "node %s (%s): input %zu has an element type the evaluator does not support",
                       oe_node_label(n), n->op_type, i);
            return OE_ERROR;
        }
    ectx c = {n, opset, in, nin, out, n->n_output, r->d, def->arg, r};
    int rc = def->fn(&c);
    if (rc == OE_UNSUPPORTED) {
        diag_error(r->d, (diag_loc){0}, "node %s (%s): this form of the op (attributes, input types or opset %lld) is "
                   "not supported by the evaluator", oe_node_label(n), n->op_type, (long long)opset);
        rc = OE_ERROR;
    }
    if (rc != OE_OK)
        for (size_t i = 0; i < n->n_output; i++) ot_tensor_free(&out[i]);
    return rc;
}

static int exec_node(oe_run *r, oe_scope *s, const Onnx__NodeProto *n0, const body *b)
{
    void *owned = NULL;
    const Onnx__NodeProto *n = b->call_attrs ? resolve_attrs(n0, b, &owned) : n0;
    size_t nin = n->n_input, nout = n->n_output;
    oe_tensor **in = xcalloc(nin + 1, sizeof *in), *out = xcalloc(nout + 1, sizeof *out);
    int rc = OE_OK;
    for (size_t i = 0; i < nin && rc == OE_OK; i++) {
        if (!n->input[i] || !*n->input[i]) continue;
        slot *sl = scope_find(s, n->input[i]);
        if (!sl) {
            diag_error(r->d, (diag_loc){0}, "node %s (%s): input %s is not defined", oe_node_label(n), n->op_type, n->input[i]);
            rc = OE_ERROR;
        } else if (!(in[i] = (oe_tensor *)slot_value(r, sl, n->input[i], n))) {
            rc = OE_ERROR;
        }
    }
    r->scope = s;
    if (rc == OE_OK) rc = eval_one(r, n, b->opset, in, nin, out);
    for (size_t i = 0; i < nout; i++) {
        const char *name = n->output[i];
        if (rc != OE_OK || !name || !*name) {
            ot_tensor_free(&out[i]);
            continue;
        }
        if (r->o->observe) r->o->observe(r->o->observe_ctx, n0, name, &out[i], r->repeated == 0);
        slot *sl = scope_define(r, s, name);
        slot_release(sl);
        sl->v = out[i];
        sl->has = true;
        sl->borrowed = false;
    }
    free(in);
    free(out);
    free(owned);
    return rc;
}

/* ---- bodies ------------------------------------------------------------------------------------- */

static int run_body(oe_run *r, const body *b, oe_scope *parent, const oe_tensor *const *in, size_t nin, oe_tensor *out)
{
    if (++r->depth > (r->o->max_depth ? r->o->max_depth : 64)) {
        r->depth--;
        diag_error(r->d, (diag_loc){0}, "subgraphs or functions nest more than %d deep", r->o->max_depth ? r->o->max_depth : 64);
        return OE_ERROR;
    }
    oe_scope s = {parent, {0}};
    hm_init(&s.vals);
    for (size_t i = 0; i < b->n_inits; i++) scope_define(r, &s, b->inits[i]->name)->init = b->inits[i];
    for (size_t i = 0; i < b->n_inputs && i < nin; i++) {
        if (!b->inputs[i] || !*b->inputs[i]) continue;
        slot *sl = scope_define(r, &s, b->inputs[i]);
        if (!in[i]) continue;   /* an omitted optional input: the initializer, if any, stays */
        sl->v = *in[i];
        sl->has = sl->borrowed = true;
        sl->init = NULL;
    }
    for (size_t i = 0; i < b->n_nodes; i++)
        for (size_t k = 0; k < b->nodes[i]->n_output; k++)
            if (b->nodes[i]->output[k] && *b->nodes[i]->output[k]) scope_define(r, &s, b->nodes[i]->output[k]);
    for (size_t i = 0; i < b->n_outputs; i++) {
        slot *sl = hm_get(&s.vals, b->outputs[i]);
        if (sl) sl->pinned = true;
    }
    /* use counts, so that each value is freed after its last reader */
    slot_vec refs = {0};
    size_t *start = xmalloc((b->n_nodes + 1) * sizeof *start);
    for (size_t i = 0; i < b->n_nodes; i++) {
        start[i] = refs.len;
        node_refs(&s, b->nodes[i], &refs, 0);
    }
    start[b->n_nodes] = refs.len;
    for (size_t i = 0; i < refs.len; i++) refs.items[i]->uses++;
    int rc = OE_OK;
    for (size_t i = 0; i < b->n_nodes && rc == OE_OK; i++) {
        if (interrupt_pending()) {   /* Ctrl-C: the REPL reports "interrupted" */
            diag_error(r->d, (diag_loc){0}, "interrupted");
            rc = OE_ERROR;
            break;
        }
        rc = exec_node(r, &s, b->nodes[i], b);
        for (size_t k = start[i]; k < start[i + 1]; k++) {
            slot *sl = refs.items[k];
            if (--sl->uses == 0 && !sl->pinned) slot_release(sl);
        }
    }
    for (size_t i = 0; i < b->n_outputs; i++) {
        memset(&out[i], 0, sizeof out[i]);
        if (rc != OE_OK) continue;
        slot *sl = scope_find(&s, b->outputs[i]);
        const oe_tensor *v = sl ? slot_value(r, sl, b->outputs[i], NULL) : NULL;
        if (!sl) diag_error(r->d, (diag_loc){0}, "output %s is not computed by the graph", b->outputs[i]);
        if (!v) {
            rc = OE_ERROR;
            for (size_t k = 0; k < i; k++) ot_tensor_free(&out[k]);
            continue;
        }
        ot_tensor_copy(&out[i], v);
    }
    vec_free(&refs);
    free(start);
    scope_free(&s);
    r->depth--;
    return rc;
}

/* A graph as a body; its name arrays are malloc'd (body_free releases them). */
static void graph_body(const Onnx__GraphProto *g, int64_t opset, body *b)
{
    memset(b, 0, sizeof *b);
    b->nodes = g->node;
    b->n_nodes = g->n_node;
    b->inputs = xcalloc(g->n_input + 1, sizeof *b->inputs);
    b->outputs = xcalloc(g->n_output + 1, sizeof *b->outputs);
    for (size_t i = 0; i < g->n_input; i++) b->inputs[i] = g->input[i]->name;
    for (size_t i = 0; i < g->n_output; i++) b->outputs[i] = g->output[i]->name;
    b->n_inputs = g->n_input;
    b->n_outputs = g->n_output;
    b->inits = g->initializer;
    b->n_inits = g->n_initializer;
    b->opset = opset;
}

static void body_free(body *b)
{
    free(b->inputs);
    free(b->outputs);
}

const Onnx__GraphProto *oe_attr_graph(const ectx *c, const char *name)
{
    Onnx__AttributeProto *a = oe_attr(c, name);
    return a ? a->g : NULL;
}

int oe_run_subgraph(ectx *c, const Onnx__GraphProto *g, const oe_tensor *const *in, size_t nin, oe_tensor *out)
{
    oe_run *r = c->run;
    if (!r) return OE_UNSUPPORTED;
    if (nin != g->n_input) return oe_fail(c, "the subgraph takes %zu inputs, not %zu", g->n_input, nin);
    body b;
    graph_body(g, c->opset, &b);
    oe_scope *saved = r->scope;
    bool branch = c->n && !strcmp(c->n->op_type, "If");   /* a branch runs once; a body per iteration */
    r->repeated += !branch;
    int rc = run_body(r, &b, saved, in, nin, out);
    r->repeated -= !branch;
    r->scope = saved;
    body_free(&b);
    return rc;
}

/* ---- the model ------------------------------------------------------------------------------------ */

size_t oe_model_user_inputs(const ox_model *m, const Onnx__ValueInfoProto ***out)
{
    const Onnx__GraphProto *g = m->proto->graph;
    *out = NULL;
    if (!g) return 0;
    hashmap inits;
    hm_init(&inits);
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name) hm_put(&inits, g->initializer[i]->name, (void *)g->initializer[i]);
    const Onnx__ValueInfoProto **v = xcalloc(g->n_input + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < g->n_input; i++)
        if (g->input[i]->name && !hm_has(&inits, g->input[i]->name)) v[n++] = g->input[i];
    hm_free(&inits);
    *out = v;
    return n;
}

int oe_eval_model(const ox_model *m, const oe_named *inputs, size_t nin, oe_tensor *outputs,
                  const oe_model_opts *opts, diag_sink *d)
{
    const Onnx__GraphProto *g = m->proto->graph;
    if (!g) {
        diag_error(d, (diag_loc){0}, "the model has no graph");
        return OE_ERROR;
    }
    oe_model_opts defaults = {0};
    oe_run r = {m, opts ? opts : &defaults, d, 0, 0, NULL, {0}, {0}, 0};
    r.entropy = r.o->seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    hm_init(&r.funcs);
    arena_init(&r.tmp);
    for (size_t i = 0; i < m->proto->n_functions; i++) {
        const Onnx__FunctionProto *f = m->proto->functions[i];
        hm_put(&r.funcs, arena_printf(&r.tmp, "%s:%s", f->domain ? f->domain : "", f->name ? f->name : ""), (void *)f);
    }
    hashmap given;
    hm_init(&given);
    for (size_t i = 0; i < nin; i++) hm_put(&given, inputs[i].name, (void *)inputs[i].value);
    hashmap inits;
    hm_init(&inits);
    for (size_t i = 0; i < g->n_initializer; i++) hm_put(&inits, g->initializer[i]->name, g->initializer[i]);
    const oe_tensor **args = xcalloc(g->n_input + 1, sizeof *args);
    int rc = OE_OK;
    for (size_t i = 0; i < g->n_input; i++) {
        const char *name = g->input[i]->name;
        args[i] = hm_get(&given, name);
        if (!args[i] && !hm_has(&inits, name)) {
            diag_error(d, (diag_loc){0}, "no value for the graph input %s", name);
            rc = OE_ERROR;
        }
    }
    if (rc == OE_OK) {
        body b;
        graph_body(g, ox_model_opset(m, ""), &b);
        rc = run_body(&r, &b, NULL, args, g->n_input, outputs);
        body_free(&b);
    }
    free(args);
    hm_free(&given);
    hm_free(&inits);
    hm_free(&r.funcs);
    arena_free(&r.tmp);
    return rc;
}

uint64_t oe_run_entropy(ectx *c)
{
    static uint64_t folding;   /* no run (constant folding never reaches a random op) */
    uint64_t *s = c->run ? &c->run->entropy : &folding;
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    return z ^ (z >> 27);
}

int64_t oe_loop_limit(const ectx *c)
{
    int64_t lim = c->run && c->run->o->max_loop_iters > 0 ? c->run->o->max_loop_iters : 10000000;
    return lim;
}
