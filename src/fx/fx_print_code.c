/* fx_print_code.c — gm.print_readable() and the generated forward code of print(gm). */
#include <string.h>
#include <stdlib.h>

#include "base/hashmap.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_format.h"

/* operator.* functions codegen prints infix (torch/fx/graph.py magic_methods). */
static const struct { const char *name, *fmt; } magic[] = {
    {"add", "{} + {}"}, {"sub", "{} - {}"}, {"mul", "{} * {}"}, {"floordiv", "{} // {}"},
    {"truediv", "{} / {}"}, {"div", "{} / {}"}, {"mod", "{} % {}"}, {"pow", "{} ** {}"},
    {"lshift", "{} << {}"}, {"rshift", "{} >> {}"}, {"and_", "{} & {}"}, {"or_", "{} | {}"},
    {"xor", "{} ^ {}"}, {"getitem", "{}[{}]"}, {"matmul", "{} @ {}"},
    {"eq", "{} == {}"}, {"ne", "{} != {}"}, {"lt", "{} < {}"}, {"gt", "{} > {}"},
    {"le", "{} <= {}"}, {"ge", "{} >= {}"}, {"pos", "+{}"}, {"neg", "-{}"}, {"invert", "~{}"},
};

const char *fx_magic_format(const char *target)
{
    if (strncmp(target, "operator.", 9) != 0)
        return NULL;
    for (size_t i = 0; i < sizeof magic / sizeof *magic; i++)
        if (strcmp(target + 9, magic[i].name) == 0)
            return magic[i].fmt;
    return NULL;
}

static void put_indent(strbuf *out, size_t n) { sb_spaces(out, n); }

static void print_call_args(strbuf *out, const fx_node *n, size_t skip)
{
    const fx_arg *a = n->args;
    bool first = true;
    for (size_t i = skip; i < a->u.seq.len; i++) {
        if (!first)
            sb_puts(out, ", ");
        first = false;
        fx_arg_print(out, a->u.seq.items[i], FXA_REPR);
    }
    const fx_arg *k = n->kwargs;
    for (size_t i = 0; k && i < k->u.seq.len; i++) {
        if (!first)
            sb_puts(out, ", ");
        first = false;
        sb_printf(out, "%s = ", k->u.seq.keys[i]);
        fx_arg_print(out, k->u.seq.items[i], FXA_REPR);
    }
}

static void print_magic(strbuf *out, const char *fmt, const fx_arg *args)
{
    size_t k = 0;
    for (const char *f = fmt; *f; f++) {
        if (f[0] == '{' && f[1] == '}') {
            if (k < args->u.seq.len)
                fx_arg_print(out, args->u.seq.items[k], FXA_REPR);
            k++;
            f++;
        } else {
            sb_putc(out, *f);
        }
    }
}

static bool same_trace(const fx_meta *a, const fx_meta *b)
{
    if (!a || !b)
        return false;
    if ((a->stack_trace == NULL) != (b->stack_trace == NULL))
        return false;
    if (a->stack_trace && strcmp(a->stack_trace, b->stack_trace) != 0)
        return false;
    if ((a->source == NULL) != (b->source == NULL))
        return false;
    if (a->source && strcmp(a->source, b->source) != 0)
        return false;
    if ((a->annotation == NULL) != (b->annotation == NULL))
        return false;
    if (a->annotation && strcmp(a->annotation, b->annotation) != 0)
        return false;
    return a->trace_group == b->trace_group;
}

static bool is_ident(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!fx_is_ident_char(*s))
            return false;
    return true;
}

/* torch.fx.graph _format_target: "self.a.b", non-identifier parts through getattr(x, "0"). */
static void format_target(strbuf *out, const char *base, const char *target)
{
    strbuf r;
    sb_init(&r);
    sb_puts(&r, base);
    const char *p = target;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        char *e = xstrndup(p, n);
        if (is_ident(e)) {
            sb_printf(&r, ".%s", e);
        } else {
            char *prev = xstrdup(r.s);
            sb_reset(&r);
            sb_printf(&r, "getattr(%s, \"%s\")", prev, e);
            free(prev);
        }
        free(e);
        if (!dot)
            break;
        p = dot + 1;
    }
    sb_puts(out, r.s);
    sb_free(&r);
}

/* The RHS of "name = ..." for one node. */
static void print_rhs(strbuf *out, const fx_node *n)
{
    const fx_arg *a = n->args;
    switch (n->op) {
    case FX_OP_GET_ATTR:
        format_target(out, "self", n->target);
        break;
    case FX_OP_CALL_MODULE:
        format_target(out, "self", n->target);
        sb_putc(out, '(');
        print_call_args(out, n, 0);
        sb_putc(out, ')');
        break;
    case FX_OP_CALL_METHOD:
        if (a->u.seq.len)
            fx_arg_print(out, a->u.seq.items[0], FXA_REPR);
        sb_printf(out, ".%s(", n->target);
        print_call_args(out, n, 1);
        sb_putc(out, ')');
        break;
    default: {
        const char *fmt = fx_magic_format(n->target);
        if (fmt && (!n->kwargs || n->kwargs->u.seq.len == 0)) {
            print_magic(out, fmt, a);
            break;
        }
        if (strcmp(n->target, "builtins.getattr") == 0 && a->u.seq.len == 2 &&
            a->u.seq.items[1]->kind == FX_ARG_STR && is_ident(a->u.seq.items[1]->u.s)) {
            strbuf b;
            sb_init(&b);
            fx_arg_print(&b, a->u.seq.items[0], FXA_REPR);
            format_target(out, b.s, a->u.seq.items[1]->u.s);
            sb_free(&b);
            break;
        }
        const char *t = n->target;
        if (strncmp(t, "builtins.", 9) == 0)
            t += 9;
        sb_printf(out, "%s(", t);
        print_call_args(out, n, 0);
        sb_putc(out, ')');
        break;
    }
    }
}

typedef struct cleanup_ctx {
    const fx_node *user;
    const fx_node **nodes;         /* attached nodes by index */
    const fx_node **last_user;     /* by node index */
    const fx_node **stamp;         /* dedup within one user */
    bool collect;
    const fx_node **list;
    size_t n;
} cleanup_ctx;

static void cleanup_visit(fx_node *n, void *vctx)
{
    cleanup_ctx *c = vctx;
    if (!n || n->graph != c->user->graph || n->index >= n->graph->n_nodes || c->nodes[n->index] != n)
        return;
    if (c->collect) {
        if (c->last_user[n->index] == c->user && c->stamp[n->index] != c->user) {
            c->stamp[n->index] = c->user;
            c->list[c->n++] = n;
        }
    } else if (!c->last_user[n->index]) {
        c->last_user[n->index] = c->user;
    }
}

/* Verbose codegen shows value meta ': "f32[3]"'; otherwise node.type as ' : T'. */
static void put_annot(strbuf *out, const fx_node *n, bool verbose)
{
    if (verbose && fx_value_has_annot(n->meta.val)) {
        sb_puts(out, ": \"");
        fx_value_annot(out, n->meta.val);
        sb_putc(out, '"');
    } else if (n->type_text) {
        sb_printf(out, " : %s", n->type_text);
    }
}

void fx_print_forward(const fx_graph *g, size_t indent, bool verbose, strbuf *out)
{
    fx_graph_renumber((fx_graph *)g);
    size_t nn = g->n_nodes;
    cleanup_ctx c = {0};
    c.last_user = xcalloc(nn + 1, sizeof *c.last_user);
    c.stamp = xcalloc(nn + 1, sizeof *c.stamp);
    c.list = xcalloc(nn + 2, sizeof *c.list);
    c.nodes = xcalloc(nn + 1, sizeof *c.nodes);
    for (const fx_node *n = g->first; n; n = n->next)
        c.nodes[n->index] = n;
    for (const fx_node *n = g->last; n; n = n->prev) {
        c.user = n;
        fx_arg_each_node(n->args, cleanup_visit, &c);
        fx_arg_each_node(n->kwargs, cleanup_visit, &c);
    }
    c.collect = true;

    put_indent(out, indent);
    sb_puts(out, "def forward(self");
    for (const fx_node *n = g->first; n; n = n->next) {
        if (n->op != FX_OP_PLACEHOLDER)
            continue;
        sb_printf(out, ", %s", n->target);
        put_annot(out, n, verbose);
        if (n->args && n->args->u.seq.len) {
            sb_puts(out, " = ");
            fx_arg_print(out, n->args->u.seq.items[0], FXA_REPR);
        }
    }
    sb_putc(out, ')');
    if (g->last && g->last->op == FX_OP_OUTPUT && g->last->type_text)
        sb_printf(out, " -> %s", g->last->type_text);
    sb_puts(out, ":\n");
    size_t body = indent + 4;
    const fx_meta *prev = NULL;
    bool first_line = true;
    for (const fx_node *n = g->first; n; n = n->next) {
        if (n->op == FX_OP_PLACEHOLDER)
            continue;
        if (verbose && n->op != FX_OP_OUTPUT && !same_trace(prev, &n->meta)) {
            if (!first_line)
                sb_putc(out, '\n');
            put_indent(out, body);
            if (n->meta.annotation)
                sb_printf(out, "# Annotation: %s File: %s\n", n->meta.annotation,
                          n->meta.source ? n->meta.source : "");
            else if (n->meta.source)
                sb_printf(out, "# File: %s\n", n->meta.source);
            else
                sb_puts(out, "# No stacktrace found for following nodes\n");
            prev = &n->meta;
        }
        first_line = false;
        put_indent(out, body);
        if (n->op == FX_OP_OUTPUT) {
            sb_puts(out, "return ");
            fx_arg_print(out, n->args->u.seq.len ? n->args->u.seq.items[0] : NULL, FXA_REPR);
            sb_putc(out, '\n');
            continue;
        }
        sb_puts(out, n->name);
        put_annot(out, n, verbose);
        sb_puts(out, " = ");
        print_rhs(out, n);
        c.user = n;
        c.n = 0;
        fx_arg_each_node(n->args, cleanup_visit, &c);
        fx_arg_each_node(n->kwargs, cleanup_visit, &c);
        if (n->n_users == 0)
            c.list[c.n++] = n;
        if (c.n) {
            sb_puts(out, ";  ");
            for (size_t i = 0; i < c.n; i++)
                sb_printf(out, "%s = ", c.list[i]->name);
            sb_puts(out, "None");
        }
        sb_putc(out, '\n');
    }
    free(c.last_user);
    free(c.stamp);
    free(c.list);
    free(c.nodes);
}

void fx_print_code_module(const fx_module *m, const char *class_name, size_t indent, strbuf *out)
{
    put_indent(out, indent);
    sb_printf(out, "class %s(torch.nn.Module):\n", class_name);
    if (m->graph)
        fx_print_forward(m->graph, indent + 4, true, out);
    for (const fx_module *ch = m->first_child; ch; ch = ch->next_sibling) {
        if (!ch->graph)
            continue;
        sb_putc(out, '\n');
        fx_print_code_module(ch, ch->name, indent + 4, out);
    }
}

void fx_print_code_class(const fx_module *m, const char *class_name, size_t indent, strbuf *out)
{
    if (!indent) {
        fx_print_code_module(m, class_name, 0, out);
        return;
    }
    /* print(ep) indents the readable text line by line, blank lines and the end included */
    strbuf tmp;
    sb_init(&tmp);
    fx_print_code_module(m, class_name, 0, &tmp);
    sb_spaces(out, indent);
    for (const char *p = tmp.s; *p; p++) {
        sb_putc(out, *p);
        if (*p == '\n')
            sb_spaces(out, indent);
    }
    sb_free(&tmp);
}
