/* surgery.c — node surgery on FX programs (see surgery.h). */
#include "rewrite/surgery.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/suggest.h"
#include "fx/fx_build.h"
#include "fx/fx.h"
#include "tables/aten_schemas.h"
#include "capture/export.h"

static fx_node *need_node(const fx_program *p, const char *name, diag_sink *d)
{
    fx_node *n = fx_program_find_node(p, name);
    if (!n) {
        diagnostic *dg = diag_error(d, (diag_loc){0}, "no node named '%s'", name);
        diag_set_hint(dg, "`nodes` lists them");
    }
    return n;
}

static bool is_identifier(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return false;
    return true;
}

/* Parses FX argument text: %name (a node of graph g), a literal, or a tuple/list of those. */
static fx_arg *parse_value(fx_program *p, fx_graph *g, const char *s, const char *end, diag_sink *d)
{
    while (s < end && isspace((unsigned char)*s)) s++;
    while (end > s && isspace((unsigned char)end[-1])) end--;
    if (s < end && *s == '%') {
        char name[256];
        size_t n = (size_t)(end - s - 1);
        if (n >= sizeof name) n = sizeof name - 1;
        memcpy(name, s + 1, n);
        name[n] = '\0';
        fx_node *ref = fx_graph_lookup(g, name);
        if (!ref) {
            diag_error(d, (diag_loc){0}, "no node named '%%%s' in this graph", name);
            return NULL;
        }
        return fx_arg_node(p, ref);
    }
    if (s < end && (*s == '(' || *s == '[') && memchr(s, '%', (size_t)(end - s))) {
        /* a container holding node references: split at top-level commas */
        char close = *s == '(' ? ')' : ']';
        if (end[-1] != close) {
            diag_error(d, (diag_loc){0}, "unbalanced '%c' in '%.*s'", *s, (int)(end - s), s);
            return NULL;
        }
        fx_arg *items[64];
        size_t n = 0;
        const char *q = s + 1, *stop = end - 1;
        while (q < stop) {
            int depth = 0;
            const char *e = q;
            for (; e < stop; e++) {
                if (*e == '(' || *e == '[') depth++;
                else if (*e == ')' || *e == ']') depth--;
                else if (*e == ',' && !depth) break;
            }
            const char *t = q;
            while (t < e && isspace((unsigned char)*t)) t++;
            if (t < e) {
                if (n == 64) {
                    diag_error(d, (diag_loc){0}, "too many items in '%.*s'", (int)(end - s), s);
                    return NULL;
                }
                if (!(items[n++] = parse_value(p, g, q, e, d))) return NULL;
            }
            q = e < stop ? e + 1 : e;
        }
        return fx_arg_seq(p, close == ')' ? FX_ARG_TUPLE : FX_ARG_LIST, items, NULL, n);
    }
    fx_arg *a = fx_parse_literal(p, s, end);
    if (!a) diag_error(d, (diag_loc){0}, "cannot read '%.*s' as an FX argument", (int)(end - s), s);
    return a;
}

/* An ATen target as torch.fx prints it (torch.ops.aten.tanh.default), from any of the ways a
 * user writes one (aten.tanh, aten::tanh, torch.ops.aten.add.Tensor), checked against torch's
 * schemas (share/fxsh/aten/schemas.txt): a name torch has no overload of is an error at once, with
 * the nearest, instead of a graph that fails only at translate. Other targets (torch functions,
 * operator.*, other namespaces) are kept as written. NULL after reporting. */
static const char *resolve_target(fx_program *p, const char *target, diag_sink *d)
{
    const char *name = !strncmp(target, "torch.ops.aten.", 15) ? target + 15 :
                       !strncmp(target, "aten.", 5) ? target + 5 : !strncmp(target, "aten::", 6) ? target + 6 : NULL;
    if (!name) return target;
    const char *schema = aten_schemas_lookup(target, NULL);
    if (schema) {   /* "aten::add.Tensor(...)": the overload; none written is .default */
        const char *op = schema + 6, *paren = strchr(op, '(');
        size_t len = paren ? (size_t)(paren - op) : strlen(op);
        bool overload = memchr(op, '.', len) != NULL;
        return arena_printf(&p->arena, "torch.ops.aten.%.*s%s", (int)len, op, overload ? "" : ".default");
    }
    if (!aten_schemas_count(d)) return target;   /* the table is missing: reported, nothing to check */
    /* the nearest overload, compared as torch.ops.aten.<op>.<overload> */
    char base[256];
    snprintf(base, sizeof base, "%s", name);
    char *dot = strchr(base, '.');
    if (dot) *dot = '\0';
    const char *overloads[16];
    size_t n_over = aten_schemas_overloads(base, overloads, 16, NULL);
    strbuf cands;
    sb_init(&cands);
    for (size_t i = 0; i < n_over && i < 16; i++) {
        const char *op = overloads[i] + 6, *paren = strchr(op, '(');
        size_t len = paren ? (size_t)(paren - op) : strlen(op);
        bool overload = memchr(op, '.', len) != NULL;
        sb_printf(&cands, "%storch.ops.aten.%.*s%s", i ? ", " : "", (int)len, op, overload ? "" : ".default");
    }
    diagnostic *dg;
    if (n_over) {
        dg = diag_error(d, (diag_loc){0}, "'%s': aten.%s has no overload %s", target, base, dot ? dot + 1 : "default");
        diag_set_hint(dg, "its overloads: %s%s", cands.s, n_over > 16 ? ", ..." : "");
    } else {
        suggester sg;
        suggester_init(&sg, base);
        char prev[256] = "";
        for (size_t i = 0, n = aten_schemas_count(NULL); i < n; i++) {
            const char *op = aten_schemas_at(i);
            if (strncmp(op, "aten::", 6)) continue;
            op += 6;
            size_t len = strcspn(op, ".(");
            if (len >= sizeof prev || (!strncmp(prev, op, len) && !prev[len])) continue;
            snprintf(prev, sizeof prev, "%.*s", (int)len, op);
            suggester_add(&sg, prev);
        }
        const char *near = suggester_result(&sg);
        dg = diag_error(d, (diag_loc){0}, "'%s': torch has no ATen operator %s", target, base);
        if (near) {
            char full[270];
            snprintf(full, sizeof full, "aten::%s", near);
            const char *o = aten_schemas_lookup(full, NULL) ? ".default" : "";
            diag_set_hint(dg, "did you mean torch.ops.aten.%s%s? (share/fxsh/aten/schemas.txt lists torch's)", near, o);
        } else {
            diag_set_hint(dg, "share/fxsh/aten/schemas.txt lists torch's ATen operators");
        }
        suggester_free(&sg);
    }
    sb_free(&cands);
    return NULL;
}

bool surgery_replace_target(fx_program *p, const char *node, const char *target, diag_sink *d)
{
    fx_node *n = need_node(p, node, d);
    if (!n) return false;
    if (n->op != FX_OP_CALL_FUNCTION && n->op != FX_OP_CALL_METHOD && n->op != FX_OP_CALL_MODULE) {
        diag_error(d, (diag_loc){0}, "%%%s is a %s node; only call nodes have a target to replace", n->name,
                   fx_opcode_name(n->op));
        return false;
    }
    if (n->op == FX_OP_CALL_FUNCTION && !(target = resolve_target(p, target, d))) return false;
    n->target = fx_strdup(p, target);
    return true;
}

bool surgery_set_arg(fx_program *p, const char *node, const char *arg, const char *value, diag_sink *d)
{
    fx_node *n = need_node(p, node, d);
    if (!n) return false;
    fx_arg *v = parse_value(p, n->graph, value, value + strlen(value), d);
    if (!v) return false;
    if (v->kind == FX_ARG_NODE && v->u.node->index >= n->index) {
        diag_error(d, (diag_loc){0}, "%%%s is defined after %%%s: an argument must come before its user",
                   v->u.node->name, n->name);
        return false;
    }
    char *end;
    long pos = strtol(arg, &end, 10);
    fx_arg *args = n->args, *kwargs = n->kwargs;
    if (*arg && !*end) {
        if (pos < 0 || (size_t)pos >= args->u.seq.len) {
            diag_error(d, (diag_loc){0}, "%%%s has %zu positional arguments; there is no argument %ld", n->name,
                       args->u.seq.len, pos);
            return false;
        }
        fx_arg **items = fx_alloc(p, args->u.seq.len * sizeof *items);
        memcpy(items, args->u.seq.items, args->u.seq.len * sizeof *items);
        items[pos] = v;
        args = fx_arg_seq(p, FX_ARG_TUPLE, items, NULL, args->u.seq.len);
    } else if (is_identifier(arg)) {
        size_t len = kwargs->u.seq.len, at = len;
        for (size_t i = 0; i < len; i++)
            if (!strcmp(kwargs->u.seq.keys[i], arg)) at = i;
        fx_arg **items = fx_alloc(p, (len + 1) * sizeof *items);
        const char **keys = fx_alloc(p, (len + 1) * sizeof *keys);
        memcpy(items, kwargs->u.seq.items, len * sizeof *items);
        memcpy(keys, kwargs->u.seq.keys, len * sizeof *keys);
        items[at] = v;
        keys[at] = fx_strdup(p, arg);
        kwargs = fx_arg_seq(p, FX_ARG_DICT, items, keys, at == len ? len + 1 : len);
    } else {
        diag_error(d, (diag_loc){0}, "'%s' is neither an argument position nor a keyword name", arg);
        return false;
    }
    fx_node_set_args(n, args, kwargs);
    fx_graph_recompute_users(n->graph);
    return true;
}

bool surgery_insert(fx_program *p, const char *after, const char *name, const char *target, const char *args,
                    diag_sink *d)
{
    fx_node *a = need_node(p, after, d);
    if (!a) return false;
    if (a->op == FX_OP_OUTPUT) {
        diag_error(d, (diag_loc){0}, "nothing can be inserted after the output node");
        return false;
    }
    if (!is_identifier(name)) {
        diag_error(d, (diag_loc){0}, "'%s' is not a valid node name", name);
        return false;
    }
    if (fx_graph_lookup(a->graph, name)) {
        diag_error(d, (diag_loc){0}, "a node named '%s' already exists", name);
        return false;
    }
    if (!(target = resolve_target(p, target, d))) return false;
    fx_arg *tuple = parse_value(p, a->graph, args, args + strlen(args), d);
    if (!tuple) return false;
    if (tuple->kind != FX_ARG_TUPLE) tuple = fx_arg_seq(p, FX_ARG_TUPLE, &tuple, NULL, 1);
    fx_node *n = fx_node_new(a->graph, name, FX_OP_CALL_FUNCTION, fx_strdup(p, target));
    fx_graph_insert_after(a->graph, a, n);
    fx_node_set_args(n, tuple, fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
    fx_graph_renumber(a->graph);
    fx_graph_recompute_users(a->graph);
    return true;
}

/* Replaces references to `from` by `to` inside an argument tree (in place: trees are per node). */
static void replace_refs(fx_arg *a, fx_node *from, fx_node *to)
{
    if (!a) return;
    if (a->kind == FX_ARG_NODE && a->u.node == from) a->u.node = to;
    if (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE || a->kind == FX_ARG_DICT || a->kind == FX_ARG_SLICE)
        for (size_t i = 0; i < a->u.seq.len; i++) replace_refs(a->u.seq.items[i], from, to);
}

bool surgery_delete(fx_program *p, const char *node, const char *replacement, diag_sink *d)
{
    fx_node *n = need_node(p, node, d);
    if (!n) return false;
    if (n->op == FX_OP_OUTPUT) {
        diag_error(d, (diag_loc){0}, "the output node cannot be deleted");
        return false;
    }
    if (replacement) {
        fx_node *r = fx_graph_lookup(n->graph, replacement[0] == '%' ? replacement + 1 : replacement);
        if (!r || r->index >= n->index) {
            diag_error(d, (diag_loc){0}, "%s must name a node defined before %%%s", replacement, n->name);
            return false;
        }
        for (size_t i = 0; i < n->n_users; i++) {
            replace_refs(n->users[i]->args, n, r);
            replace_refs(n->users[i]->kwargs, n, r);
        }
        fx_graph_recompute_users(n->graph);
    }
    if (n->n_users) {
        strbuf users;
        sb_init(&users);
        for (size_t i = 0; i < n->n_users; i++) sb_printf(&users, "%s%%%s", i ? ", " : "", n->users[i]->name);
        diagnostic *dg = diag_error(d, (diag_loc){0}, "%%%s is still used by %s", n->name, users.s);
        diag_set_hint(dg, "`delete %s %%OTHER` rewires its users to %%OTHER first", n->name);
        sb_free(&users);
        return false;
    }
    return fx_graph_remove(n->graph, n);
}

bool surgery_rename(fx_program *p, const char *node, const char *new_name, diag_sink *d)
{
    fx_node *n = need_node(p, node, d);
    if (!n) return false;
    const char *nm = new_name[0] == '%' ? new_name + 1 : new_name;
    if (!is_identifier(nm)) {
        diag_error(d, (diag_loc){0}, "'%s' is not a valid node name", nm);
        return false;
    }
    if (fx_graph_lookup(n->graph, nm)) {
        diag_error(d, (diag_loc){0}, "a node named '%s' already exists", nm);
        return false;
    }
    hm_remove(&n->graph->names, n->name);
    n->name = fx_strdup(p, nm);
    if (n->op == FX_OP_PLACEHOLDER) n->target = n->name;
    hm_put(&n->graph->names, n->name, n);
    return true;
}
