/* fx_build.c — what passes that build programs share: copies of programs, values and argument
 * trees, whether a program is ATen-level, and node names chosen as torch.fx chooses them. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx/fx_build.h"

/* ---- program copy ------------------------------------------------------------------------ */

fx_arg *fx_copy_arg(fx_program *dst, const fx_arg *a,
                        fx_node *(*map)(const fx_node *n, void *ctx), void *ctx)
{
    if (!a)
        return fx_arg_none(dst);
    switch (a->kind) {
    case FX_ARG_NONE: return fx_arg_none(dst);
    case FX_ARG_NODE: {
        fx_node *n = map(a->u.node, ctx);
        return n ? fx_arg_node(dst, n) : fx_arg_none(dst);
    }
    case FX_ARG_INT: return fx_arg_int(dst, a->u.i);
    case FX_ARG_FLOAT: return fx_arg_float(dst, a->u.f);
    case FX_ARG_BOOL: return fx_arg_bool(dst, a->u.b);
    case FX_ARG_DTYPE: return fx_arg_dtype(dst, a->u.dtype);
    case FX_ARG_ELLIPSIS: return fx_arg_ellipsis(dst);
    case FX_ARG_STR: case FX_ARG_DEVICE: case FX_ARG_MEMFMT: case FX_ARG_LAYOUT: case FX_ARG_OPAQUE:
        return fx_arg_str(dst, a->kind, a->u.s);
    case FX_ARG_LIST: case FX_ARG_TUPLE: case FX_ARG_DICT: case FX_ARG_SLICE: {
        size_t n = a->u.seq.len;
        fx_arg **items = fx_alloc(dst, (n ? n : 1) * sizeof *items);
        for (size_t i = 0; i < n; i++)
            items[i] = fx_copy_arg(dst, a->u.seq.items[i], map, ctx);
        return fx_arg_seq(dst, a->kind, items, a->kind == FX_ARG_DICT ? a->u.seq.keys : NULL, n);
    }
    }
    return fx_arg_none(dst);
}

fx_value *fx_weight_value(fx_program *p, const fx_weight *w)
{
    fx_value *v = fx_value_new(p, FX_VAL_TENSOR);
    v->dtype = w->dtype;
    v->rank = w->rank;
    v->sizes = fx_alloc(p, (w->rank ? w->rank : 1) * sizeof *v->sizes);
    for (size_t k = 0; k < w->rank; k++) v->sizes[k] = arena_printf(&p->arena, "%lld", (long long)w->shape[k]);
    return v;
}

fx_value *fx_copy_value(fx_program *dst, const fx_value *v)
{
    if (!v)
        return NULL;
    fx_value *c = fx_value_new(dst, v->kind);
    c->dtype = v->dtype;
    c->rank = v->rank;
    if (v->sizes) {
        c->sizes = fx_alloc(dst, (v->rank ? v->rank : 1) * sizeof *c->sizes);
        for (size_t i = 0; i < v->rank; i++)
            c->sizes[i] = fx_strdup(dst, v->sizes[i]);
    }
    if (v->strides) {
        c->strides = fx_alloc(dst, (v->rank ? v->rank : 1) * sizeof *c->strides);
        for (size_t i = 0; i < v->rank; i++)
            c->strides[i] = fx_strdup(dst, v->strides[i]);
    }
    c->storage_offset = v->storage_offset;
    c->device = v->device ? fx_strdup(dst, v->device) : NULL;
    c->text = v->text ? fx_strdup(dst, v->text) : NULL;
    c->n_items = v->n_items;
    if (v->n_items) {
        c->items = fx_alloc(dst, v->n_items * sizeof *c->items);
        for (size_t i = 0; i < v->n_items; i++)
            c->items[i] = fx_copy_value(dst, v->items[i]);
    }
    return c;
}

static const char *dup_or_null(fx_program *p, const char *s) { return s ? fx_strdup(p, s) : NULL; }

static void copy_meta(fx_program *dst, fx_meta *to, const fx_meta *from)
{
    to->val = fx_copy_value(dst, from->val);
    to->stack_trace = dup_or_null(dst, from->stack_trace);
    to->source = dup_or_null(dst, from->source);
    to->trace_group = from->trace_group;
    to->nn_module_stack = dup_or_null(dst, from->nn_module_stack);
    to->source_fn_stack = dup_or_null(dst, from->source_fn_stack);
    to->torch_fn = dup_or_null(dst, from->torch_fn);
}

/* Nodes keep their names in a copy, so the copy's name map resolves references. */
static fx_node *map_by_name(const fx_node *n, void *ctx)
{
    return fx_graph_lookup((const fx_graph *)ctx, n->name);
}

static void copy_graph(fx_program *dst, fx_graph *to, const fx_graph *from)
{
    for (const fx_node *n = from->first; n; n = n->next) {
        fx_node *c = fx_node_new(to, n->name, n->op, n->target);
        c->type_text = dup_or_null(dst, n->type_text);
        c->declared_users = n->declared_users;
        c->src_line = n->src_line;
        copy_meta(dst, &c->meta, &n->meta);
        fx_graph_append(to, c);
        fx_node_set_args(c, fx_copy_arg(dst, n->args, map_by_name, to),
                         fx_copy_arg(dst, n->kwargs, map_by_name, to));
    }
}

static void copy_module(fx_program *dst, fx_module *to, const fx_module *from, bool nodes)
{
    for (const fx_weight *w = from->params; w; w = w->next) {
        fx_weight *c = fx_module_add_param(to, w->fqn, w->role, w->dtype, w->shape, w->rank);
        c->persistent = w->persistent;
    }
    if (from->graph) {
        fx_graph *g = fx_module_ensure_graph(to);
        if (nodes)
            copy_graph(dst, g, from->graph);
    }
    for (const fx_module *ch = from->first_child; ch; ch = ch->next_sibling) {
        fx_module *c = fx_module_add_child(to, ch->name, ch->type, ch->repr);
        c->extra_repr = dup_or_null(dst, ch->extra_repr);
        copy_module(dst, c, ch, nodes);
    }
}

static fx_program *copy_program(const fx_program *p, bool nodes)
{
    fx_program *c = fx_program_new(p->root->name);
    c->root->type = dup_or_null(c, p->root->type);
    c->root->repr = dup_or_null(c, p->root->repr);
    c->source_form = p->source_form;
    c->file = dup_or_null(c, p->file);
    for (const fx_weight *w = p->root->params; w; w = w->next) {
        fx_weight *cw = fx_module_add_param(c->root, w->fqn, w->role, w->dtype, w->shape, w->rank);
        cw->persistent = w->persistent;
    }
    if (p->root->graph && nodes)
        copy_graph(c, fx_program_graph(c), p->root->graph);
    for (const fx_module *ch = p->root->first_child; ch; ch = ch->next_sibling) {
        fx_module *cm = fx_module_add_child(c->root, ch->name, ch->type, ch->repr);
        cm->extra_repr = dup_or_null(c, ch->extra_repr);
        copy_module(c, cm, ch, nodes);
    }
    c->sig.present = p->sig.present;
    c->sig.n_inputs = p->sig.n_inputs;
    c->sig.inputs = fx_alloc(c, (p->sig.n_inputs ? p->sig.n_inputs : 1) * sizeof *c->sig.inputs);
    for (size_t i = 0; i < p->sig.n_inputs; i++) {
        c->sig.inputs[i] = p->sig.inputs[i];
        c->sig.inputs[i].name = dup_or_null(c, p->sig.inputs[i].name);
        c->sig.inputs[i].target = dup_or_null(c, p->sig.inputs[i].target);
    }
    c->sig.n_outputs = p->sig.n_outputs;
    c->sig.outputs = fx_alloc(c, (p->sig.n_outputs ? p->sig.n_outputs : 1) * sizeof *c->sig.outputs);
    for (size_t i = 0; i < p->sig.n_outputs; i++) {
        c->sig.outputs[i] = p->sig.outputs[i];
        c->sig.outputs[i].name = dup_or_null(c, p->sig.outputs[i].name);
        c->sig.outputs[i].target = dup_or_null(c, p->sig.outputs[i].target);
    }
    c->n_ranges = p->n_ranges;
    c->ranges = fx_alloc(c, (p->n_ranges ? p->n_ranges : 1) * sizeof *c->ranges);
    for (size_t i = 0; i < p->n_ranges; i++) {
        c->ranges[i].symbol = dup_or_null(c, p->ranges[i].symbol);
        c->ranges[i].min = dup_or_null(c, p->ranges[i].min);
        c->ranges[i].max = dup_or_null(c, p->ranges[i].max);
    }
    for (const fx_weight *w = p->weights; w; w = w->next) {
        fx_weight *cw = fx_program_add_weight(c, w->fqn, w->role, w->dtype, w->shape, w->rank,
                                              w->data, w->nbytes, false);
        fx_weight_set_map(cw, w->map);
        cw->persistent = w->persistent;
    }
    fx_program_refresh(c);
    return c;
}

fx_program *fx_program_copy(const fx_program *p) { return copy_program(p, true); }

void fx_program_set_range(fx_program *p, const char *symbol, const char *min, const char *max)
{
    for (size_t i = 0; i < p->n_ranges; i++)
        if (p->ranges[i].symbol && !strcmp(p->ranges[i].symbol, symbol)) {
            p->ranges[i].min = fx_strdup(p, min);
            p->ranges[i].max = fx_strdup(p, max);
            return;
        }
    fx_range *r = fx_alloc(p, (p->n_ranges + 1) * sizeof *r);
    if (p->n_ranges) memcpy(r, p->ranges, p->n_ranges * sizeof *r);
    r[p->n_ranges] = (fx_range){fx_strdup(p, symbol), fx_strdup(p, min), fx_strdup(p, max)};
    p->ranges = r;
    p->n_ranges++;
}
fx_program *fx_program_copy_shell(const fx_program *p) { return copy_program(p, false); }

bool fx_program_is_aten(const fx_program *p)
{
    if (p->sig.present)
        return true;
    const fx_graph *g = p->root->graph;
    if (!g)
        return false;
    for (const fx_node *n = g->first; n; n = n->next)
        if (n->op == FX_OP_CALL_FUNCTION && strncmp(n->target, "torch.ops.", 10) == 0)
            return true;
    return false;
}

const char *fx_node_base_name(const char *target, char *buf, size_t cap)
{
    const char *t = target;
    if (strncmp(t, "torch.ops.", 10) == 0)
        t += 10;
    const char *d1 = strchr(t, '.');
    const char *name = d1 ? d1 + 1 : t;
    const char *d2 = strchr(name, '.');
    size_t n = d2 ? (size_t)(d2 - name) : strlen(name);
    /* Magic-method ops lose their dunders as FX names them ("__and__" → "and"). */
    if (n > 4 && !strncmp(name, "__", 2) && !strncmp(name + n - 2, "__", 2)) {
        name += 2;
        n -= 4;
    }
    /* Symbolic-size ops keep their overload in the name (torch names them "sym_size_int"). */
    bool keep_overload = d2 && strncmp(name, "sym_", 4) == 0;
    snprintf(buf, cap, "%.*s%s%s", (int)n, name, keep_overload ? "_" : "", keep_overload ? d2 + 1 : "");
    for (char *c = buf; *c; c++)
        if (*c == '.')
            *c = '_';
    return buf;
}

const char *fx_lifted_name(fx_tensor_role role, const char *fqn, char *buf, size_t cap)
{
    /* torch.export's placeholder_naming_pass: prefix + the target lowercased, every character
     * that is not a letter or digit replaced by '_' ("Run-Mean" -> b_run_mean) */
    snprintf(buf, cap, "%c_%s", role == FX_TENSOR_PARAMETER ? 'p' : role == FX_TENSOR_BUFFER ? 'b' : 'c', fqn);
    for (char *c = buf + 2; *c; c++)
        *c = isalnum((unsigned char)*c) ? (char)tolower((unsigned char)*c) : '_';
    return buf;
}

/* ---- FX-style naming ------------------------------------------------------------------------- */

static const char *const illegal_names[] = {
    /* keywords */
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
    "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
    /* builtins */
    "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes",
    "callable", "chr", "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict",
    "dir", "divmod", "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset",
    "getattr", "globals", "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance",
    "issubclass", "iter", "len", "license", "list", "locals", "map", "max", "memoryview", "min", "next",
    "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range", "repr", "reversed",
    "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type",
    "vars", "zip", "torch", NULL
};

static bool illegal_name(const char *s)
{
    for (size_t i = 0; illegal_names[i]; i++)
        if (!strcmp(illegal_names[i], s))
            return true;
    return false;
}

void fx_namer_init(fx_namer *nm, fx_graph *g)
{
    nm->g = g;
    hm_init(&nm->counts);
}

void fx_namer_free(fx_namer *nm) { hm_free(&nm->counts); }

const char *fx_namer_name(fx_namer *nm, const char *cand)
{
    char base[256], buf[300];
    size_t n = 0;
    if (!cand[0] || isdigit((unsigned char)cand[0]))
        base[n++] = '_';
    for (const char *c = cand; *c && n < sizeof base - 1; c++)
        base[n++] = isalnum((unsigned char)*c) || *c == '_' ? *c : '_';
    base[n] = 0;
    long num = 0;
    /* (.*)_(\d+)$ splits off an existing counter. */
    char *us = strrchr(base, '_');
    if (us && us[1] && strspn(us + 1, "0123456789") == strlen(us + 1)) {
        num = strtol(us + 1, NULL, 10);
        *us = 0;
        snprintf(buf, sizeof buf, "%s_%ld", base, num);
    } else {
        snprintf(buf, sizeof buf, "%s", base);
    }
    if (!num)
        num = (long)(intptr_t)hm_get(&nm->counts, base);
    while (hm_has(&nm->g->names, buf) || illegal_name(buf)) {
        num++;
        snprintf(buf, sizeof buf, "%s_%ld", base, num);
    }
    fx_program *p = nm->g->owner->prog;
    if (!hm_has(&nm->counts, base))
        hm_put(&nm->counts, fx_strdup(p, base), (void *)(intptr_t)num);
    else
        hm_put(&nm->counts, base, (void *)(intptr_t)num);
    return fx_strdup(p, buf);
}
