/* export.c — the export pass: inline nn modules and torch calls into aten overloads, lift weights. */
#include "fx/fx_build.h"
#include "capture/export.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/shape.h"
#include "base/strbuf.h"
#include "capture/export_internal.h"
#include "tables/tables.h"
#include "meta/meta_infer.h"

/* The --input declaration of a placeholder, NULL if none. */
static const export_input_decl *find_decl(xctx *x, const char *name)
{
    if (!x->opt)
        return NULL;
    for (size_t i = 0; i < x->opt->n_inputs; i++)
        if (x->opt->inputs[i].name && !strcmp(x->opt->inputs[i].name, name))
            return &x->opt->inputs[i];
    return NULL;
}

static void push_output(xctx *x, fx_arg *v, fx_arg **out, size_t *n, size_t cap, bool *ok)
{
    if (*n >= cap) {
        if (*ok)
            diag_error(x->d, xp_loc(x), "export: more than %zu outputs are not supported", cap);
        *ok = false;
        return;
    }
    out[(*n)++] = v;
}

static void flatten_outputs(xctx *x, const fx_arg *a, fx_arg **out, size_t *n, size_t cap, bool *ok)
{
    if (a->kind == FX_ARG_TUPLE || a->kind == FX_ARG_LIST || a->kind == FX_ARG_DICT) {
        for (size_t i = 0; i < a->u.seq.len; i++)
            flatten_outputs(x, a->u.seq.items[i], out, n, cap, ok);
        return;
    }
    fx_arg *v = xp_conv_arg(x, a, ok);
    /* a source node holding a tuple of values flattens like a returned tuple */
    if (v->kind == FX_ARG_TUPLE) {
        for (size_t i = 0; i < v->u.seq.len; i++)
            push_output(x, v->u.seq.items[i], out, n, cap, ok);
        return;
    }
    push_output(x, v, out, n, cap, ok);
}

/* A program already in ATen (TorchScript, graph text): what it lacks is the value meta
 * torch.export would have recorded; shapes the ops reject fail export. */
static fx_program *export_aten_program(const fx_program *src, const meta_rules *rules, diag_sink *d)
{
    fx_program *c = fx_program_copy(src);
    bool fits = meta_infer_program_strict(c, rules, d);
    if (!fits || interrupt_pending()) {
        fx_program_free(c);
        return NULL;
    }
    return c;
}

/* A user input: a placeholder whose value meta is the declared example input (--input), as
 * torch.export records the example's dtype and shape. */
static void export_placeholder(xctx *x, const fx_node *n)
{
    fx_node *p = fx_node_new(x->g, fx_namer_name(&x->nm, n->name), FX_OP_PLACEHOLDER, NULL);
    p->target = p->name;
    fx_graph_append(x->g, p);
    const export_input_decl *decl = find_decl(x, n->name);
    if (decl) {
        fx_value *val = fx_value_new(x->dst, FX_VAL_TENSOR);
        val->dtype = decl->dtype;
        val->rank = decl->rank;
        val->sizes = fx_alloc(x->dst, (decl->rank ? decl->rank : 1) * sizeof *val->sizes);
        for (size_t k = 0; k < decl->rank; k++) val->sizes[k] = fx_strdup(x->dst, decl->dims[k]);
        val->device = "cpu";   /* example inputs are CPU tensors, as torch.onnx exports them */
        p->meta.val = val;
    }
    xp_set_val(x, n->name, fx_arg_node(x->dst, p));
}

/* The program's outputs, flattened. */
typedef struct out_list {
    fx_arg **items;
    size_t n, cap;
} out_list;

/* Exports source node n and infers the value meta of what it emitted; false after reporting. */
static bool export_node(xctx *x, const fx_node *n, out_list *outs)
{
    bool ok = true;
    x->cur = n;
    fx_node *before = x->g->last;
    switch (n->op) {
    case FX_OP_PLACEHOLDER:
        export_placeholder(x, n);
        break;
    case FX_OP_GET_ATTR: {
        fx_node *w = hm_get(&x->weights, n->target);
        if (!w) {
            diag_error(x->d, xp_loc(x), "export: get_attr '%s' names no parameter or buffer", n->target);
            return false;
        }
        xp_set_val(x, n->name, fx_arg_node(x->dst, w));
        break;
    }
    case FX_OP_CALL_MODULE:
        ok = xp_module_call(x, n, &ok) && ok;
        break;
    case FX_OP_CALL_FUNCTION: case FX_OP_CALL_METHOD:
        ok = xp_function_call(x, n, &ok) && ok;
        break;
    case FX_OP_OUTPUT:
        if (n->args->u.seq.len > 0)
            flatten_outputs(x, n->args->u.seq.items[0], outs->items, &outs->n, outs->cap, &ok);
        break;
    default:
        break;
    }
    /* Value meta the source carried (an annotated program, or one whose meta was filled
     * from its inputs) goes to the node that now holds the value: later size queries
     * specialize on it and later passes read its dtype. */
    xval *v = ok && n->meta.val ? hm_get(&x->vals, n->name) : NULL;
    if (v && v->arg && v->arg->kind == FX_ARG_NODE && !v->arg->u.node->meta.val)
        v->arg->u.node->meta.val = fx_copy_value(x->dst, n->meta.val);
    /* placeholders wait for the end: only the signature tells a weight from an input */
    for (fx_node *m = before ? before->next : x->g->first; ok && m; m = m->next)
        if (m->op != FX_OP_PLACEHOLDER)
            meta_inferer_node(x->mi, m);
    return ok && !meta_inferer_errors(x->mi);   /* a meta error names the node */
}

/* The output node and the graph signature: lifted weights first (n_lifted placeholders), then
 * the user inputs (n_user), then the user outputs. */
static void finish_graph(xctx *x, const out_list *outs, size_t n_lifted, size_t n_user)
{
    fx_node *o = fx_node_new(x->g, "output", FX_OP_OUTPUT, "output");
    fx_graph_append(x->g, o);
    fx_arg *t = fx_arg_seq(x->dst, FX_ARG_TUPLE, outs->items, NULL, outs->n);
    fx_node_set_args(o, fx_arg_seq(x->dst, FX_ARG_TUPLE, &t, NULL, 1), fx_arg_seq(x->dst, FX_ARG_DICT, NULL, NULL, 0));
    fx_signature *s = &x->dst->sig;
    s->present = true;
    s->inputs = fx_alloc(x->dst, (n_lifted + n_user + 1) * sizeof *s->inputs);
    size_t k = 0;
    for (const fx_weight *w = x->dst->weights; w; w = w->next) {
        fx_node *pn = hm_get(&x->weights, w->fqn);
        s->inputs[k].kind = w->role == FX_TENSOR_PARAMETER ? FX_IN_PARAMETER :
                            w->role == FX_TENSOR_BUFFER ? FX_IN_BUFFER : FX_IN_CONSTANT_TENSOR;
        s->inputs[k].name = pn->name;
        s->inputs[k].target = w->fqn;
        s->inputs[k].persistent = w->persistent;
        k++;
    }
    /* User inputs are the placeholders after the lifted ones (the value map would name
     * the result of an in-place op on an input instead). */
    size_t seen = 0;
    for (const fx_node *n = x->g->first; n && n->op == FX_OP_PLACEHOLDER; n = n->next)
        if (seen++ >= n_lifted) {
            s->inputs[k].kind = FX_IN_USER_INPUT;
            s->inputs[k].name = n->name;
            k++;
        }
    s->n_inputs = k;
    s->outputs = fx_alloc(x->dst, (outs->n + 1) * sizeof *s->outputs);
    for (size_t i = 0; i < outs->n; i++) {
        char buf[64];
        s->outputs[i].kind = FX_OUT_USER_OUTPUT;
        if (outs->items[i]->kind == FX_ARG_NODE) {
            s->outputs[i].name = outs->items[i]->u.node->name;
        } else {
            xp_arg_text(outs->items[i], buf, sizeof buf);
            s->outputs[i].name = fx_strdup(x->dst, buf);
        }
    }
    s->n_outputs = outs->n;
    fx_program_refresh(x->dst);
}

static void free_xctx(xctx *x)
{
    hm_free(&x->vals);
    hm_free(&x->weights);
    fx_namer_free(&x->nm);
    xp_free_tables(x);
}

fx_program *export_program(const fx_program *src, const export_options *opt, diag_sink *d)
{
    if (!src || !src->root) {
        diag_error(d, (diag_loc){ 0 }, "export: no program");
        return NULL;
    }
    const meta_rules *rules = meta_rules_shipped(d);
    if (!rules)
        return NULL;
    if (fx_program_is_aten(src))
        return export_aten_program(src, rules, d);
    const fx_graph *sg = src->root->graph;
    if (!sg) {
        diag_error(d, (diag_loc){ src->file, 0, 0 }, "export: the program has no graph");
        return NULL;
    }
    xctx x = { .src = src, .opt = opt, .d = d };
    x.dst = fx_program_new("GraphModule");
    x.dst->source_form = FX_FORM_EXPORT;
    x.g = fx_program_graph(x.dst);
    hm_init(&x.vals);
    hm_init(&x.weights);
    fx_namer_init(&x.nm, x.g);
    if (!xp_load_tables(&x)) {
        free_xctx(&x);
        fx_program_free(x.dst);
        return NULL;
    }
    /* Tensors read with get_attr directly from the root are its own parameters: they come
     * first in named_parameters(). */
    for (const fx_node *n = sg->first; n; n = n->next)
        if (n->op == FX_OP_GET_ATTR && !strchr(n->target, '.') && !fx_module_child(src->root, n->target))
            xp_lift_root_attr(&x, n->target);
    bool ok = xp_lift_module(&x, src->root, "", FX_TENSOR_PARAMETER) &&
              xp_lift_module(&x, src->root, "", FX_TENSOR_BUFFER);
    /* Each new node gets its value meta as soon as it is emitted, as torch.export's fake
     * tensors have it: later size queries (`B, T, C = x.shape`) specialize on it. */
    x.mi = meta_inferer_new(x.dst, rules, d);
    meta_inferer_set_strict(x.mi, true);   /* torch.export fails where its fake tensors raise */
    size_t n_user = 0;
    for (const fx_node *n = sg->first; n; n = n->next)
        if (n->op == FX_OP_PLACEHOLDER)
            n_user++;
    size_t n_lifted = x.dst->n_weights;
    out_list outs = { xcalloc(256, sizeof(fx_arg *)), 0, 256 };
    for (const fx_node *n = sg->first; n && ok; n = n->next)
        ok = !interrupt_pending() && export_node(&x, n, &outs);
    if (ok)
        finish_graph(&x, &outs, n_lifted, n_user);
    if (ok)
        meta_inferer_walk(x.mi);   /* subgraphs and what could not be inferred on the way */
    if (meta_inferer_errors(x.mi))
        ok = false;                /* a shape rejected in a subgraph fails export as well */
    meta_inferer_finish(x.mi, false);
    if (interrupt_pending())
        ok = false;
    free(outs.items);
    free_xctx(&x);
    if (!ok) {
        fx_program_free(x.dst);
        return NULL;
    }
    return x.dst;
}

bool export_weight_names(const fx_program *src, void (*cb)(const char *fqn, void *ctx), void *ctx, diag_sink *d)
{
    if (!src || !src->root || !src->root->graph)
        return true;
    xctx x = { .src = src, .d = d, .names_only = cb, .names_ctx = ctx };
    x.dst = fx_program_new("GraphModule");
    hm_init(&x.weights);
    bool ok = xp_load_tables(&x);
    if (ok) {
        for (const fx_node *n = src->root->graph->first; n; n = n->next)
            if (n->op == FX_OP_GET_ATTR && !strchr(n->target, '.') && !fx_module_child(src->root, n->target)) {
                xp_lift_root_attr(&x, n->target);
            }
        xp_lift_module(&x, src->root, "", FX_TENSOR_PARAMETER);
        xp_lift_module(&x, src->root, "", FX_TENSOR_BUFFER);
    }
    xp_free_tables(&x);
    hm_free(&x.weights);
    fx_program_free(x.dst);
    return ok;
}

/* ---- data-dependent control flow ------------------------------------------------------------ */

const char *export_truthiness_expr(unsigned n, char *buf, size_t cap)
{
    snprintf(buf, cap, "Eq(u%u, 1)", n);
    return buf;
}

void export_report_data_dependent(diag_sink *d, const export_guard_site *site)
{
    strbuf m;
    sb_init(&m);
    const char *e = site->expr ? site->expr : "Eq(u0, 1)";
    sb_printf(&m, "Could not guard on data-dependent expression %s (unhinted: %s).  (Size-like symbols: none)\n\n", e, e);
    sb_puts(&m, "consider using data-dependent friendly APIs such as guard_or_false, guard_or_true and "
                "statically_known_true.\n");
    if (site->file && site->line > 0) {
        sb_puts(&m, "\nThe following call raised this error:\n");
        sb_printf(&m, "  File \"%s\", line %d, in forward\n", site->file, site->line);
        if (site->code)
            sb_printf(&m, "    %s\n", site->code);
    }
    diagnostic *dg = diag_error(d, (diag_loc){ site->file, site->line, 0 }, "%s", m.s);
    if (site->code)
        diag_set_source(dg, site->code, strlen(site->code));
    if (site->node)
        diag_set_hint(dg, "torch.export cannot branch on a tensor value; rewrite the branch as torch.cond: "
                          "rewrite %%%s cond", site->node);
    else
        diag_set_hint(dg, "torch.export cannot branch on a tensor value; rewrite the branch as torch.cond");
    sb_free(&m);
}
