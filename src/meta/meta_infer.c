/* meta_infer.c — the meta inference driver: walks the graphs in order, binds each call to its
 * rule's schema, runs the shape / dtype / strides rule functions, handles getitem, SymInt
 * arithmetic, placeholders, get_attr and the higher-order ops, and reports what it could not
 * infer as notes grouped by op. */
#include "meta/meta_infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/interrupt.h"
#include "base/vec.h"
#include "fx/fx_build.h"
#include "fx/fx_control.h"
#include "meta/meta_internal.h"

/* Nodes of one op left without meta for the same kind of reason, reported as one note. */
typedef struct miss_group {
    const char *what;            /* "no rule for aten.foo.default" */
    const char *hint;
    const char *first_file;
    int first_line;
    strbuf names;
    size_t count;
    bool misfit;                 /* a rule rejected known arguments: the example does not fit */
} miss_group;

typedef struct inferer {
    fx_program *p;
    const meta_rules *rules;
    diag_sink *d;
    arena *scratch;              /* the current graph's per-node arena: sx and temporaries */
    arena keys;                  /* map keys that outlive a node */
    hashmap visited;             /* graphs already walked (key: address text) */
    hashmap tried;               /* nodes already inferred or reported (node-by-node use): each once */
    hashmap groups;              /* what → miss_group* */
    VEC(miss_group *) order;     /* groups in first-seen order */
    size_t dependents;           /* nodes skipped because an input has no meta */
    size_t unset;                /* value-producing nodes left without meta */
    bool quiet;                  /* meta_infer_call: what cannot be inferred is not reported */
    bool strict;                 /* export: arguments a rule rejects are an error at the node */
    size_t rejected;             /* errors reported in strict mode */
    char *why;                   /* meta_infer_node_again: the rule's rejection, when quiet */
    size_t why_cap;
} inferer;

static void infer_graph(inferer *I, fx_graph *g);

/* ---- reporting ---------------------------------------------------------------------------------- */

static miss_group *miss(inferer *I, const fx_node *n, const char *what, const char *hint)
{
    if (I->quiet)
        return NULL;
    miss_group *grp = hm_get(&I->groups, what);
    if (!grp) {
        grp = arena_alloc(&I->keys, sizeof *grp);
        grp->what = arena_strdup(&I->keys, what);
        grp->hint = hint;
        grp->first_file = I->p->file;
        grp->first_line = n->src_line;
        sb_init(&grp->names);
        hm_put(&I->groups, grp->what, grp);
        vec_push(&I->order, grp);
    }
    /* nodes of different graphs may share a name (a branch's linear_1): each name once */
    strbuf key;
    sb_init(&key);
    sb_printf(&key, "%s\n%s", what, n->name);
    bool seen = hm_has(&I->groups, key.s);
    if (!seen)
        hm_put(&I->groups, arena_strdup(&I->keys, key.s), NULL);
    sb_free(&key);
    if (!seen && grp->count < 8)
        sb_printf(&grp->names, "%s%%%s", grp->count ? ", " : "", n->name);
    if (!seen)
        grp->count++;
    I->unset++;
    return grp;
}

/* Strict mode: the rule rejected the arguments of n although all of them are known — torch's
 * fake tensors raise at this node, and so does export. */
static void reject(inferer *I, const fx_node *n, const char *target, const char *why)
{
    strbuf ins;
    sb_init(&ins);
    const fx_graph *root = fx_program_graph(I->p);
    for (const fx_node *q = root ? root->first : NULL; q && q->op == FX_OP_PLACEHOLDER; q = q->next) {
        const fx_value *v = q->meta.val;
        bool user = true;
        for (size_t i = 0; i < I->p->sig.n_inputs; i++)
            if (I->p->sig.inputs[i].name && !strcmp(I->p->sig.inputs[i].name, q->name))
                user = I->p->sig.inputs[i].kind == FX_IN_USER_INPUT;
        /* a torch-level export has no signature yet: its lifted weights are p_/b_/c_<fqn> */
        for (const fx_weight *w = I->p->weights; user && w && !I->p->sig.present; w = w->next) {
            char lifted[520];
            fx_lifted_name(FX_TENSOR_PARAMETER, w->fqn, lifted, sizeof lifted);
            if (strlen(q->name) > 2 && q->name[1] == '_' && !strcmp(q->name + 2, lifted + 2))
                user = false;
        }
        if (!user || !v || v->kind != FX_VAL_TENSOR)
            continue;
        sb_printf(&ins, "%s%s=%s[", ins.len ? " " : "", q->name, fx_dtype_get(v->dtype)->abbr);
        for (size_t k = 0; k < v->rank; k++)
            sb_printf(&ins, "%s%s", k ? "," : "", v->sizes[k]);
        sb_putc(&ins, ']');
    }
    diagnostic *dg = diag_error(I->d, (diag_loc){ I->p->file, n->src_line, 0 }, "export failed at %%%s: %s: %s",
                                n->name, target, why);
    if (ins.len)
        diag_set_hint(dg, "torch.export fails here too: the example inputs (--input %s) do not fit the model; declare shapes it accepts",
                      ins.s);
    sb_free(&ins);
    I->rejected++;
    I->unset++;
}

static void report(inferer *I)
{
    for (size_t i = 0; i < I->order.len; i++) {
        if (I->rejected) {   /* after an error, what it left uninferred is no news */
            sb_free(&I->order.items[i]->names);
            continue;
        }
        miss_group *g = I->order.items[i];
        /* arguments a rule rejects though all are known are the user's example, not fxsh's gap:
         * a warning, since export (torch.export too) stops there */
        diagnostic *dg = g->misfit
            ? diag_warning(I->d, (diag_loc){ g->first_file, g->first_line, 0 },
                           "meta: %s: %s%s left without value meta", g->what, g->names.s, g->count > 8 ? " and more" : "")
            : diag_note(I->d, (diag_loc){ g->first_file, g->first_line, 0 },
                        "meta: %s: %s%s left without value meta", g->what, g->names.s, g->count > 8 ? " and more" : "");
        if (g->misfit && !g->hint)
            diag_set_hint(dg, "the example inputs do not fit the model there: export fails at that node, as "
                              "torch.export does; declare shapes it accepts");
        else if (g->count > 8)
            diag_set_hint(dg, "%zu nodes in all%s%s", g->count, g->hint ? "; " : "", g->hint ? g->hint : "");
        else if (g->hint)
            diag_set_hint(dg, "%s", g->hint);
        sb_free(&g->names);
    }
    if (I->dependents && !I->rejected)
        diag_note(I->d, (diag_loc){ I->p->file, 0, 0 },
                  "meta: %zu more node%s left without value meta because an input has none", I->dependents,
                  I->dependents == 1 ? "" : "s");
}

/* ---- values ------------------------------------------------------------------------------------- */

static fx_value *value_of(inferer *I, const mi_tensor *t, const char *device)
{
    fx_value *v = fx_value_new(I->p, FX_VAL_TENSOR);
    v->dtype = t->dtype;
    v->rank = t->rank;
    v->sizes = fx_alloc(I->p, (t->rank + 1) * sizeof *v->sizes);
    for (size_t i = 0; i < t->rank; i++)
        v->sizes[i] = fx_strdup(I->p, sx_str(t->size[i]));
    if (t->strided) {
        v->strides = fx_alloc(I->p, (t->rank + 1) * sizeof *v->strides);
        for (size_t i = 0; i < t->rank; i++)
            v->strides[i] = fx_strdup(I->p, sx_str(t->stride[i]));
    }
    v->device = fx_strdup(I->p, t->device ? t->device : device);
    return v;
}

static fx_value *sym_value(inferer *I, const sx *s)
{
    fx_value *v = fx_value_new(I->p, FX_VAL_SYM);
    v->text = fx_strdup(I->p, sx_str(s));
    return v;
}

static fx_value *tuple_value(inferer *I, fx_value **items, size_t n)
{
    fx_value *v = fx_value_new(I->p, FX_VAL_TUPLE);
    v->items = fx_alloc(I->p, (n ? n : 1) * sizeof *v->items);
    memcpy(v->items, items, n * sizeof *items);
    v->n_items = n;
    return v;
}

/* The device of the first tensor argument (torch's ops keep their inputs' device). */
static void first_device(fx_node *n, void *ctx)
{
    const char **dev = ctx;
    if (!*dev && n->meta.val && n->meta.val->kind == FX_VAL_TENSOR)
        *dev = n->meta.val->device;
}

static const char *device_of(const fx_node *n, const fx_arg *const *bound, size_t nb)
{
    for (size_t i = 0; i < nb; i++)
        if (bound[i] && bound[i]->kind == FX_ARG_DEVICE)
            return bound[i]->u.s;
    const char *dev = NULL;
    fx_arg_each_node(n->args, first_device, &dev);
    if (!dev)
        fx_arg_each_node(n->kwargs, first_device, &dev);
    return dev ? dev : "cpu";
}

/* True when an input node lacks the meta its user would need (counted, not reported again). */
static void input_missing(fx_node *n, void *ctx)
{
    if (!n->meta.val && n->op != FX_OP_GET_ATTR)
        *(bool *)ctx = true;
}

static bool inputs_missing(const fx_node *n)
{
    bool m = false;
    fx_arg_each_node(n->args, input_missing, &m);
    fx_arg_each_node(n->kwargs, input_missing, &m);
    return m;
}

/* ---- rules ------------------------------------------------------------------------------------ */

/* The log specializations go to while a capture records them (meta_record_specializations):
 * process state, as inference runs one program at a time. */
static meta_spec_log *spec_log;

void meta_record_specializations(meta_spec_log *log) { spec_log = log; }

void meta_spec_log_clear(meta_spec_log *log)
{
    for (size_t i = 0; i < log->len; i++) {
        free(log->items[i].symbol);
        free(log->items[i].node);
    }
    free(log->items);
    memset(log, 0, sizeof *log);
}

static void call_ctx(inferer *I, const fx_node *n, const mi_call *call, const fx_arg *const *bound, mi_ctx *c)
{
    memset(c, 0, sizeof *c);
    c->a = I->scratch;
    c->p = I->p;
    c->node = n;
    c->specs = spec_log;
    const fx_arg **prm = arena_alloc(I->scratch, (call->np ? call->np : 1) * sizeof *prm);
    for (size_t i = 0; i < call->np; i++)
        prm[i] = call->params[i] >= 0 ? bound[call->params[i]] : meta_rules_literal(I->rules, call->params[i]);
    c->prm = prm;
    c->np = call->np;
}

/* The first dtype alternative that applies. */
static bool eval_dtype(inferer *I, const fx_node *n, const mi_alts *alts, const fx_arg *const *bound, fx_dtype *dt,
                       char *why, size_t why_cap)
{
    for (size_t k = 0; k < alts->n; k++) {
        const mi_call *a = &alts->alt[k];
        if (a->arg >= 0) {
            const fx_arg *v = bound[a->arg];
            if (v && v->kind == FX_ARG_DTYPE) {
                *dt = v->u.dtype;
                return true;
            }
            continue;
        }
        if (!a->fn) {
            *dt = a->constant;
            return true;
        }
        mi_ctx c;
        call_ctx(I, n, a, bound, &c);
        if (((mi_dtype_fn)a->fn->fn)(&c, dt))
            return true;
        snprintf(why, why_cap, "%s", c.why);
    }
    if (!why[0])
        snprintf(why, why_cap, "no dtype rule applies");
    return false;
}

/* Binds args/kwargs to the schema (defaults filled in); false with why on a mismatch. */
static bool bind(const mi_rule *rule, const meta_rules *rules, const fx_node *n, const fx_arg **bound, char *why,
                 size_t cap)
{
    const aten_schema *s = &rule->schema;
    size_t na = n->args->u.seq.len;
    if (na > s->nargs) {
        snprintf(why, cap, "%zu positional arguments for a schema of %zu", na, s->nargs);
        return false;
    }
    for (size_t i = 0; i < s->nargs; i++)
        bound[i] = i < na ? n->args->u.seq.items[i] : NULL;
    for (size_t k = 0; k < n->kwargs->u.seq.len; k++) {
        int i = aten_schema_find(s, n->kwargs->u.seq.keys[k]);
        if (i < 0) {
            snprintf(why, cap, "unexpected keyword argument '%s'", n->kwargs->u.seq.keys[k]);
            return false;
        }
        bound[i] = n->kwargs->u.seq.items[k];
    }
    for (size_t i = 0; i < s->nargs; i++) {
        if (!bound[i]) {
            bound[i] = meta_rules_default(rules, rule, i);
            if (!bound[i] && !s->args[i].optional) {
                snprintf(why, cap, "argument '%s' is missing", s->args[i].name);
                return false;
            }
        }
        /* a bool parameter takes True / False (Python's parser refuses a number there) */
        if (bound[i] && s->args[i].base == ATY_BOOL && !s->args[i].is_list &&
            (bound[i]->kind == FX_ARG_INT || bound[i]->kind == FX_ARG_FLOAT)) {
            snprintf(why, cap, "argument '%s' must be bool, not %s", s->args[i].name,
                     bound[i]->kind == FX_ARG_INT ? "int" : "float");
            return false;
        }
    }
    return true;
}

static void apply_rule(inferer *I, fx_node *n, const mi_rule *rule)
{
    char why[240] = "";
    const fx_arg **bound = arena_alloc(I->scratch, (rule->schema.nargs + 1) * sizeof *bound);
    mi_out o;
    memset(&o, 0, sizeof o);
    mi_ctx c;
    memset(&c, 0, sizeof c);
    if (!bind(rule, I->rules, n, bound, why, sizeof why))
        goto fail;
    call_ctx(I, n, &rule->shape, bound, &c);
    if (!((mi_shape_fn)rule->shape.fn->fn)(&c, &o)) {
        snprintf(why, sizeof why, "%s", c.why);
        if (I->strict && !I->quiet && !inputs_missing(n)) {
            reject(I, n, rule->target, why);
            return;
        }
        goto fail;
    }
    if (o.none)
        return;
    if (o.sym) {
        n->meta.val = sym_value(I, o.sym);
        return;
    }
    if (o.text) {
        n->meta.val = fx_value_new(I->p, FX_VAL_SYM);
        n->meta.val->text = fx_strdup(I->p, o.text);
        return;
    }
    if (o.syms) {
        fx_value **items = arena_alloc(I->scratch, (o.nsyms ? o.nsyms : 1) * sizeof *items);
        for (size_t j = 0; j < o.nsyms; j++)
            items[j] = sym_value(I, o.syms[j]);
        n->meta.val = tuple_value(I, items, o.nsyms);
        return;
    }
    for (size_t j = 0; j < o.n; j++) {
        mi_tensor *t = &o.t[j];
        for (size_t i = 0; i < t->rank; i++)
            if (!t->size[i]) {
                snprintf(why, sizeof why, "a size of output %zu overflows or cannot be expressed", j);
                goto fail;
            }
        if (t->dtype == FX_DT_UNKNOWN) {
            const mi_alts *alts = j < MI_MAX_OUTPUTS && rule->dtype_of[j].n ? &rule->dtype_of[j] : &rule->dtype;
            if (!eval_dtype(I, n, alts, bound, &t->dtype, why, sizeof why))
                goto fail;
        }
        if (t->dtype == FX_DT_UNKNOWN) {
            /* an input of unknown dtype (reported where it enters): no half-known meta */
            I->dependents++;
            I->unset++;
            return;
        }
        if (rule->has_strides) {
            call_ctx(I, n, &rule->strides, bound, &c);
            if (!((mi_strides_fn)rule->strides.fn->fn)(&c, t)) {
                snprintf(why, sizeof why, "%s", c.why);
                goto fail;
            }
        } else if (!t->strided) {
            mi_contiguous(&c, t);
        }
        for (size_t i = 0; t->strided && i < t->rank; i++)
            if (!t->stride[i])
                t->strided = false;   /* a stride that overflowed: leave strides unrecorded */
    }
    const char *dev = device_of(n, bound, rule->schema.nargs);
    if (!o.list && o.n == 1) {
        n->meta.val = value_of(I, &o.t[0], dev);
        return;
    }
    fx_value **items = arena_alloc(I->scratch, (o.n ? o.n : 1) * sizeof *items);
    for (size_t j = 0; j < o.n; j++)
        items[j] = value_of(I, &o.t[j], dev);
    n->meta.val = tuple_value(I, items, o.n);
    return;
fail:
    if (inputs_missing(n)) {
        I->dependents++;
        I->unset++;
        return;
    }
    if (I->why && I->why_cap && !c.cannot)
        snprintf(I->why, I->why_cap, "%s", why[0] ? why : "the arguments are rejected");
    char what[400];
    snprintf(what, sizeof what, "%s: %s", rule->target, why);
    miss_group *grp = miss(I, n, what, NULL);
    if (grp) grp->misfit = true;
}

/* ---- getitem and SymInt arithmetic -------------------------------------------------------------- */

static void do_getitem(inferer *I, fx_node *n)
{
    const fx_arg *src = n->args->u.seq.len == 2 ? n->args->u.seq.items[0] : NULL;
    const fx_arg *ix = n->args->u.seq.len == 2 ? n->args->u.seq.items[1] : NULL;
    const fx_value *v = src && src->kind == FX_ARG_NODE ? src->u.node->meta.val : NULL;
    if (!v) {
        I->dependents++;
        I->unset++;
        return;
    }
    if (v->kind != FX_VAL_TUPLE || !ix || ix->kind != FX_ARG_INT) {
        miss(I, n, "operator.getitem: only items of multi-output values are inferred", NULL);
        return;
    }
    int64_t i = ix->u.i < 0 ? ix->u.i + (int64_t)v->n_items : ix->u.i;
    if (i < 0 || (size_t)i >= v->n_items) {
        miss(I, n, "operator.getitem: index out of range", NULL);
        return;
    }
    n->meta.val = fx_copy_value(I->p, v->items[i]);
}

static bool sym_arith(inferer *I, fx_node *n)
{
    static const char *const ops[] = { "operator.add", "operator.sub", "operator.mul", "operator.floordiv",
                                       "operator.neg", "operator.pos", NULL };
    int op = -1;
    for (int k = 0; ops[k]; k++)
        if (!strcmp(n->target, ops[k]))
            op = k;
    if (op < 0)
        return false;
    mi_ctx c;
    memset(&c, 0, sizeof c);
    c.a = I->scratch;
    size_t na = n->args->u.seq.len;
    sx *x = na > 0 ? mi_sx_of(&c, n->args->u.seq.items[0]) : NULL;
    sx *y = na > 1 ? mi_sx_of(&c, n->args->u.seq.items[1]) : NULL;
    sx *r = NULL;
    switch (op) {
    case 0: r = sx_add(c.a, x, y); break;
    case 1: r = sx_sub(c.a, x, y); break;
    case 2: r = sx_mul(c.a, x, y); break;
    case 3: r = sx_floordiv(c.a, x, y); break;
    case 4: r = sx_neg(c.a, x); break;
    case 5: r = x; break;
    }
    if (r) {
        n->meta.val = sym_value(I, r);
    } else if (inputs_missing(n)) {
        I->dependents++;
        I->unset++;
    } else {
        char what[200];
        snprintf(what, sizeof what, "%s: only integer / SymInt operands are inferred", n->target);
        miss(I, n, what, NULL);
    }
    return true;
}

/* ---- placeholders and attributes ---------------------------------------------------------------- */

/* A weight's meta; NULL when its shape is not known (export records a parameter it only knows
 * by name as rank 0 without data, which must not read as a 0-d tensor). */
static fx_value *weight_value(inferer *I, const fx_weight *w)
{
    mi_tensor t;
    memset(&t, 0, sizeof t);
    if (w->rank > MI_MAX_RANK || (w->rank == 0 && !w->data) || w->dtype == FX_DT_UNKNOWN)
        return NULL;
    t.dtype = w->dtype;
    t.rank = w->rank;
    for (size_t i = 0; i < w->rank; i++)
        t.size[i] = sx_int(I->scratch, w->shape[i]);
    mi_ctx c = { .a = I->scratch };
    mi_contiguous(&c, &t);
    return value_of(I, &t, "cpu");
}

static void do_placeholder(inferer *I, fx_node *n, bool root)
{
    const fx_weight *w = NULL;
    for (size_t i = 0; root && i < I->p->sig.n_inputs && !w; i++) {
        const fx_input_spec *in = &I->p->sig.inputs[i];
        if (in->kind != FX_IN_USER_INPUT && in->target && in->name && !strcmp(in->name, n->name))
            w = fx_program_weight(I->p, in->target);
    }
    if (w && (n->meta.val = weight_value(I, w)))
        return;
    bool lifted = false;   /* a parameter, buffer or constant the signature names, without weights */
    for (size_t i = 0; root && i < I->p->sig.n_inputs; i++) {
        const fx_input_spec *in = &I->p->sig.inputs[i];
        if (in->name && !strcmp(in->name, n->name))
            lifted = in->kind != FX_IN_USER_INPUT;
    }
    if (w || lifted)
        miss(I, n, "parameter or buffer of unknown shape",
             "load its weights: load FILE --weights W (a .pt2, an .onnx or a .safetensors file)");
    else
        miss(I, n, root ? "placeholder without value meta" : "subgraph placeholder without value meta",
             root ? "declare the input's dtype and shape (load --input NAME=DTYPE[DIMS])" : NULL);
}

static void do_get_attr(inferer *I, fx_node *n, fx_graph *g)
{
    const fx_weight *w = fx_program_weight(I->p, n->target);
    const fx_module *owner = g->owner;
    if (!w && owner) {
        if (fx_module_find(owner, n->target))
            return;   /* a submodule (HOP subgraph): no value */
        const char *dot = strrchr(n->target, '.');
        char path[256];
        snprintf(path, sizeof path, "%.*s", dot ? (int)(dot - n->target) : 0, n->target);
        const fx_module *m = dot ? fx_module_find(owner, path) : owner;
        for (const fx_weight *pw = m ? m->params : NULL; pw && !w; pw = pw->next)
            if (!strcmp(pw->fqn, dot ? dot + 1 : n->target))
                w = pw;
    }
    if (w && (n->meta.val = weight_value(I, w)))
        return;
    miss(I, n, "get_attr of an unknown attribute", NULL);
}

/* ---- higher-order ops ----------------------------------------------------------------------------- */

static fx_graph *subgraph_of(const fx_graph *g, const fx_arg *a)
{
    if (!a || a->kind != FX_ARG_NODE || a->u.node->op != FX_OP_GET_ATTR || !g->owner)
        return NULL;
    fx_module *m = fx_module_find(g->owner, a->u.node->target);
    return m ? m->graph : NULL;
}

static const fx_arg *seq_item(const fx_arg *seq, size_t i)
{
    return seq && (seq->kind == FX_ARG_TUPLE || seq->kind == FX_ARG_LIST) && i < seq->u.seq.len ? seq->u.seq.items[i]
                                                                                                 : NULL;
}

static size_t seq_len(const fx_arg *seq)
{
    return seq && (seq->kind == FX_ARG_TUPLE || seq->kind == FX_ARG_LIST) ? seq->u.seq.len : 0;
}

/* A scanned input's per-step slice: dim 0 dropped, contiguous (torch's first_slice_copy). */
static fx_value *slice_value(inferer *I, const fx_value *v)
{
    if (!v || v->kind != FX_VAL_TENSOR || v->rank == 0 || v->rank > MI_MAX_RANK)
        return NULL;
    mi_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = v->dtype;
    t.rank = v->rank - 1;
    for (size_t i = 1; i < v->rank; i++)
        if (!(t.size[i - 1] = sx_parse(I->scratch, v->sizes[i])))
            return NULL;
    mi_ctx c = { .a = I->scratch };
    mi_contiguous(&c, &t);
    return value_of(I, &t, v->device ? v->device : "cpu");
}

/* Gives the placeholders of g without meta the values of the operands in order; placeholder k
 * takes vals[k - skip] (skip: leading placeholders that are not operands, e.g. a loop index). */
static void seed_placeholders(inferer *I, fx_graph *g, fx_value **vals, size_t n, size_t skip)
{
    size_t k = 0;
    for (fx_node *ph = g->first; ph; ph = ph->next) {
        if (ph->op != FX_OP_PLACEHOLDER)
            continue;
        if (k >= skip && k - skip < n && !ph->meta.val && vals[k - skip])
            ph->meta.val = fx_copy_value(I->p, vals[k - skip]);
        k++;
    }
}

static fx_node *output_of(fx_graph *g)
{
    if (g->last && g->last->op == FX_OP_OUTPUT)
        return g->last;
    for (fx_node *n = g->first; n; n = n->next)
        if (n->op == FX_OP_OUTPUT)
            return n;
    return NULL;
}

/* The value of a returned item: a node's meta, or a Python number a branch returns (a
 * TorchScript `break` flag, a size) as the constant SymInt / SymBool it is. */
static fx_value *result_value(inferer *I, const fx_arg *e)
{
    if (e->kind == FX_ARG_NODE)
        return e->u.node->meta.val;
    if (e->kind != FX_ARG_INT && e->kind != FX_ARG_BOOL)
        return NULL;
    fx_value *v = fx_value_new(I->p, FX_VAL_SYM);
    v->text = e->kind == FX_ARG_BOOL ? (e->u.b ? "True" : "False")
                                     : arena_printf(&I->p->arena, "%lld", (long long)e->u.i);
    return v;
}

/* The values a subgraph returns (its output's tuple, or the single value). */
static size_t graph_results(inferer *I, fx_graph *g, fx_value **out, size_t cap)
{
    fx_node *o = output_of(g);
    const fx_arg *r = o && o->args->u.seq.len ? o->args->u.seq.items[0] : NULL;
    if (!r)
        return 0;
    if (r->kind == FX_ARG_NODE) {
        out[0] = r->u.node->meta.val;
        return 1;
    }
    size_t n = seq_len(r);
    for (size_t i = 0; i < n && i < cap; i++)
        out[i] = result_value(I, r->u.seq.items[i]);
    return n < cap ? n : cap;
}

static fx_value **operand_values(inferer *I, const fx_arg *seq, size_t *n)
{
    *n = seq_len(seq);
    fx_value **v = arena_alloc(I->scratch, (*n ? *n : 1) * sizeof *v);
    for (size_t i = 0; i < *n; i++) {
        const fx_arg *a = seq_item(seq, i);
        v[i] = a && a->kind == FX_ARG_NODE ? a->u.node->meta.val : NULL;
    }
    return v;
}

static bool finish_hop(inferer *I, fx_node *n, fx_value **items, size_t k, const char *what)
{
    for (size_t i = 0; i < k; i++)
        if (!items[i]) {
            if (inputs_missing(n)) {
                I->dependents++;
                I->unset++;
            } else {
                miss(I, n, what, NULL);
            }
            return true;
        }
    fx_value **copy = arena_alloc(I->scratch, (k ? k : 1) * sizeof *copy);
    for (size_t i = 0; i < k; i++)
        copy[i] = fx_copy_value(I->p, items[i]);
    n->meta.val = tuple_value(I, copy, k);
    return true;
}

/* cond / python_if: both branches take the operands; the result is the true branch's tuple. */
static bool do_cond(inferer *I, fx_node *n)
{
    fx_control_view v;
    if (!fx_control_inspect(n, &v))
        return false;
    fx_value *res[64] = { 0 };
    size_t k = 0;
    if (!v.sub[0] || !v.sub[0]->graph || ((v.kind == FX_CTRL_IF || v.kind == FX_CTRL_COND) &&
                                           (!v.sub[1] || !v.sub[1]->graph))) {
        miss(I, n, "control flow: a branch or body subgraph is missing", NULL);
        return true;
    }
    if (v.kind == FX_CTRL_IF || v.kind == FX_CTRL_COND) {
        size_t no;
        fx_value **ops = operand_values(I, v.operands, &no);
        for (int b = 0; b < 2; b++) {
            fx_graph *sg = v.sub[b] ? v.sub[b]->graph : NULL;
            if (!sg)
                continue;
            seed_placeholders(I, sg, ops, no, 0);
            infer_graph(I, sg);
        }
        fx_value *alt[64] = { 0 };
        k = v.sub[0] && v.sub[0]->graph ? graph_results(I, v.sub[0]->graph, res, 64) : 0;
        size_t k2 = v.sub[1] && v.sub[1]->graph ? graph_results(I, v.sub[1]->graph, alt, 64) : 0;
        for (size_t i = 0; i < k && i < k2; i++)
            if (!res[i])
                res[i] = alt[i];
        return finish_hop(I, n, res, k, "cond: a branch result has no meta");
    }
    /* python_for / python_while: body(i, *carried, *captured); results are the carried values */
    size_t nc, ncap;
    fx_value **carried = operand_values(I, v.operands, &nc), **cap = operand_values(I, v.captured, &ncap);
    fx_value **all = arena_alloc(I->scratch, (nc + ncap + 1) * sizeof *all);
    memcpy(all, carried, nc * sizeof *all);
    memcpy(all + nc, cap, ncap * sizeof *all);
    fx_graph *body = v.sub[0] ? v.sub[0]->graph : NULL;
    if (body) {
        seed_placeholders(I, body, all, nc + ncap, 1);
        /* the iteration index is a Python int: a SymInt named after its placeholder */
        for (fx_node *ph = body->first; ph; ph = ph->next)
            if (ph->op == FX_OP_PLACEHOLDER) {
                if (!ph->meta.val) {
                    ph->meta.val = fx_value_new(I->p, FX_VAL_SYM);
                    ph->meta.val->text = fx_strdup(I->p, ph->name);
                }
                break;
            }
        infer_graph(I, body);
    }
    return finish_hop(I, n, carried, nc, "loop: a carried value has no meta");
}

/* while_loop(cond_fn, body_fn, carried, additional): results have the carried values' meta. */
static void do_while_loop(inferer *I, fx_node *n, fx_graph *g)
{
    const fx_arg *const *a = (const fx_arg *const *)n->args->u.seq.items;
    size_t na = n->args->u.seq.len, nc, nx;
    if (na < 3) {
        miss(I, n, "while_loop: expected (cond_fn, body_fn, carried_inputs, additional_inputs)", NULL);
        return;
    }
    fx_value **carried = operand_values(I, a[2], &nc), **extra = operand_values(I, na > 3 ? a[3] : NULL, &nx);
    fx_value **all = arena_alloc(I->scratch, (nc + nx + 1) * sizeof *all);
    memcpy(all, carried, nc * sizeof *all);
    memcpy(all + nc, extra, nx * sizeof *all);
    for (int k = 0; k < 2; k++) {
        fx_graph *sg = subgraph_of(g, a[k]);
        if (sg) {
            seed_placeholders(I, sg, all, nc + nx, 0);
            infer_graph(I, sg);
        }
    }
    finish_hop(I, n, carried, nc, "while_loop: a carried input has no meta");
}

/* scan(combine_fn, init, xs, additional): combine(*carries, *slices, *additional) returns
 * (*new_carries, *ys); results are the carries, then each y stacked along a new dim 0. */
static void do_scan(inferer *I, fx_node *n, fx_graph *g)
{
    const fx_arg *const *a = (const fx_arg *const *)n->args->u.seq.items;
    size_t na = n->args->u.seq.len, ni, nx, nadd;
    if (na < 3) {
        miss(I, n, "scan: expected (combine_fn, init, xs, additional_inputs)", NULL);
        return;
    }
    fx_value **init = operand_values(I, a[1], &ni), **xs = operand_values(I, a[2], &nx);
    fx_value **add = operand_values(I, na > 3 ? a[3] : NULL, &nadd);
    fx_value **all = arena_alloc(I->scratch, (ni + nx + nadd + 1) * sizeof *all);
    memcpy(all, init, ni * sizeof *all);
    for (size_t i = 0; i < nx; i++)
        all[ni + i] = slice_value(I, xs[i]);
    memcpy(all + ni + nx, add, nadd * sizeof *all);
    fx_graph *sg = subgraph_of(g, a[0]);
    fx_value *outs[64] = { 0 };
    size_t k = 0;
    if (sg) {
        seed_placeholders(I, sg, all, ni + nx + nadd, 0);
        infer_graph(I, sg);
        k = graph_results(I, sg, outs, 64);
    }
    const fx_value *x0 = nx ? xs[0] : NULL;
    if (!sg || k < ni || !x0 || x0->kind != FX_VAL_TENSOR || !x0->rank) {
        finish_hop(I, n, (fx_value *[]){ NULL }, 1, "scan: cannot read the combine function or the scanned inputs");
        return;
    }
    fx_value **res = arena_alloc(I->scratch, (k ? k : 1) * sizeof *res);
    for (size_t i = 0; i < ni; i++)
        res[i] = init[i];
    for (size_t i = ni; i < k; i++) {
        const fx_value *y = outs[i];
        res[i] = NULL;
        if (!y || y->kind != FX_VAL_TENSOR || y->rank + 1 > MI_MAX_RANK)
            continue;
        mi_tensor t;
        memset(&t, 0, sizeof t);
        t.dtype = y->dtype;
        t.rank = y->rank + 1;
        t.size[0] = sx_parse(I->scratch, x0->sizes[0]);
        bool ok = t.size[0] != NULL;
        for (size_t d = 0; ok && d < y->rank; d++)
            ok = (t.size[d + 1] = sx_parse(I->scratch, y->sizes[d])) != NULL;
        if (!ok)
            continue;
        mi_ctx c = { .a = I->scratch };
        mi_contiguous(&c, &t);
        res[i] = value_of(I, &t, y->device ? y->device : "cpu");
    }
    finish_hop(I, n, res, k, "scan: a result of the combine function has no meta");
}

/* ---- the walk ------------------------------------------------------------------------------------- */

static bool mark_visited(inferer *I, const fx_graph *g)
{
    char key[32];
    snprintf(key, sizeof key, "%p", (const void *)g);
    if (hm_has(&I->visited, key))
        return false;
    hm_put(&I->visited, arena_strdup(&I->keys, key), (void *)g);
    return true;
}

static void infer_node(inferer *I, fx_node *n, fx_graph *g, bool root)
{
    /* a node the node-by-node API already tried is not tried (and reported) again */
    char key[32];
    snprintf(key, sizeof key, "%p", (const void *)n);
    if (hm_has(&I->tried, key))
        return;
    hm_put(&I->tried, arena_strdup(&I->keys, key), n);
    switch (n->op) {
    case FX_OP_PLACEHOLDER: do_placeholder(I, n, root); return;
    case FX_OP_GET_ATTR: do_get_attr(I, n, g); return;
    case FX_OP_OUTPUT: return;
    case FX_OP_CALL_FUNCTION: break;
    default: {
        char what[200];
        snprintf(what, sizeof what, "%s %s: only ATen calls are inferred", fx_opcode_name(n->op), n->target);
        miss(I, n, what, "export the program first");
        return;
    }
    }
    const char *t = n->target;
    if (!strcmp(t, "operator.getitem")) {
        do_getitem(I, n);
        return;
    }
    if (!strcmp(t, "torch.ops.higher_order.while_loop")) {
        do_while_loop(I, n, g);
        return;
    }
    if (!strcmp(t, "torch.ops.higher_order.scan")) {
        do_scan(I, n, g);
        return;
    }
    if (fx_control_kind_of(n) != FX_CTRL_NONE && do_cond(I, n))
        return;
    if (sym_arith(I, n))
        return;
    const mi_rule *rule = meta_rules_find(I->rules, t);
    if (rule) {
        apply_rule(I, n, rule);
        return;
    }
    if (inputs_missing(n)) {
        I->dependents++;
        I->unset++;
        return;
    }
    char what[200];
    snprintf(what, sizeof what, "no meta rule for %s", t);
    miss(I, n, what, "add one to share/fxsh/meta/*.yaml");
}

static void infer_graph(inferer *I, fx_graph *g)
{
    if (!g || !mark_visited(I, g))
        return;
    bool root = g == fx_program_graph(I->p);
    /* each graph level has its own scratch: a HOP node's temporaries must outlive the walk of
     * its subgraphs, whose nodes release theirs one by one */
    arena scratch, *outer = I->scratch;
    arena_init(&scratch);
    I->scratch = &scratch;
    for (fx_node *n = g->first; n && !interrupt_pending(); n = n->next) {
        if (!n->meta.val)
            infer_node(I, n, g, root);
        else if (n->op == FX_OP_PLACEHOLDER && n->meta.val->kind == FX_VAL_TENSOR &&
                 n->meta.val->dtype == FX_DT_UNKNOWN)
            miss(I, n, "placeholder of unknown dtype", "declare the input's dtype (load --input NAME=DTYPE[DIMS])");
        arena_free(&scratch);
    }
    I->scratch = outer;
}

/* Subgraphs no HOP reached (or reached before its operands had meta) are walked as they are. */
static void infer_modules(inferer *I, fx_module *m)
{
    if (m->graph)
        infer_graph(I, m->graph);
    for (fx_module *c = m->first_child; c; c = c->next_sibling)
        infer_modules(I, c);
}

struct meta_inferer {
    inferer I;
};

meta_inferer *meta_inferer_new(fx_program *p, const meta_rules *rules, diag_sink *d)
{
    meta_inferer *mi = xcalloc(1, sizeof *mi);
    mi->I.p = p;
    mi->I.rules = rules;
    mi->I.d = d;
    arena_init(&mi->I.keys);
    hm_init(&mi->I.visited);
    hm_init(&mi->I.tried);
    hm_init(&mi->I.groups);
    return mi;
}

void meta_inferer_node(meta_inferer *mi, fx_node *n)
{
    if (!mi || n->meta.val || !n->graph)
        return;
    arena scratch, *outer = mi->I.scratch;
    arena_init(&scratch);
    mi->I.scratch = &scratch;
    infer_node(&mi->I, n, n->graph, n->graph == fx_program_graph(mi->I.p));
    arena_free(&scratch);
    mi->I.scratch = outer;
}

void meta_inferer_walk(meta_inferer *mi)
{
    if (!mi)
        return;
    infer_graph(&mi->I, fx_program_graph(mi->I.p));
    infer_modules(&mi->I, mi->I.p->root);
}

void meta_inferer_set_strict(meta_inferer *mi, bool strict)
{
    if (mi)
        mi->I.strict = strict;
}

size_t meta_inferer_errors(const meta_inferer *mi)
{
    return mi ? mi->I.rejected : 0;
}

bool meta_inferer_finish(meta_inferer *mi, bool whole_program)
{
    if (!mi)
        return false;
    inferer *I = &mi->I;
    if (whole_program) {
        infer_graph(I, fx_program_graph(I->p));
        infer_modules(I, I->p->root);
    }
    report(I);
    bool all = I->unset == 0;
    vec_free(&I->order);
    hm_free(&I->groups);
    hm_free(&I->tried);
    hm_free(&I->visited);
    arena_free(&I->keys);
    free(mi);
    return all;
}

/* One call inferred quietly, outside any walk; why (may be NULL) gets the rule's rejection. */
static fx_value *infer_one(fx_program *p, const meta_rules *rules, fx_node *call, fx_graph *g, char *why, size_t cap)
{
    inferer I;
    memset(&I, 0, sizeof I);
    I.p = p;
    I.rules = rules;
    I.quiet = true;
    I.why = why;
    I.why_cap = cap;
    if (why && cap)
        why[0] = 0;
    arena_init(&I.keys);
    hm_init(&I.visited);
    hm_init(&I.tried);
    hm_init(&I.groups);
    arena scratch;
    arena_init(&scratch);
    I.scratch = &scratch;
    infer_node(&I, call, g, g == fx_program_graph(p));
    arena_free(&scratch);
    /* what the inference kept besides the value (quiet: no miss groups are made) */
    vec_free(&I.order);
    hm_free(&I.groups);
    hm_free(&I.tried);
    hm_free(&I.visited);
    arena_free(&I.keys);
    return call->meta.val;
}

fx_value *meta_infer_node_again(fx_program *p, const meta_rules *rules, const fx_node *n, char *why, size_t cap)
{
    if (why && cap)
        why[0] = 0;
    if (!n || !n->graph || n->op != FX_OP_CALL_FUNCTION || !n->args || !n->kwargs)
        return NULL;
    fx_node call = *n;   /* a copy without meta, not linked into the graph */
    call.meta.val = NULL;
    call.next = call.prev = NULL;
    return infer_one(p, rules, &call, n->graph, why, cap);
}

fx_value *meta_infer_call(fx_program *p, const meta_rules *rules, fx_graph *g, const char *target, fx_arg *args,
                          fx_arg *kwargs)
{
    /* the call as a node that is not linked into g: the rules read only its target and
     * arguments (and g for the weights of a root graph) */
    fx_node call;
    memset(&call, 0, sizeof call);
    call.graph = g;
    call.name = "call";
    call.op = FX_OP_CALL_FUNCTION;
    call.target = target;
    call.args = args;
    call.kwargs = kwargs;
    call.declared_users = -1;
    if (!g || !target || !args || !kwargs || args->kind != FX_ARG_TUPLE || kwargs->kind != FX_ARG_DICT ||
        fx_control_kind_of(&call) != FX_CTRL_NONE || !strncmp(target, "torch.ops.higher_order.", 23))
        return NULL;   /* a HOP's value is its subgraphs' results, which a call alone does not have */
    return infer_one(p, rules, &call, g, NULL, 0);
}

bool meta_infer_program_with(fx_program *p, const meta_rules *rules, diag_sink *d)
{
    return meta_inferer_finish(meta_inferer_new(p, rules, d), true);
}

bool meta_infer_program_strict(fx_program *p, const meta_rules *rules, diag_sink *d)
{
    meta_inferer *mi = meta_inferer_new(p, rules, d);
    meta_inferer_set_strict(mi, true);
    meta_inferer_walk(mi);
    size_t errors = meta_inferer_errors(mi);
    meta_inferer_finish(mi, false);
    return errors == 0;
}

bool meta_infer_program(fx_program *p, diag_sink *d)
{
    const meta_rules *r = meta_rules_shipped(d);
    return r && meta_infer_program_with(p, r, d);
}
