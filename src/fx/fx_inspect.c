/* fx_inspect.c — node listings, node details, search and statistics for the REPL. */
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_format.h"

/* Calls cb for every graph of the module tree, root first, with its dotted path ("" for root). */
static void each_graph(const fx_module *m, const char *path,
                       void (*cb)(const fx_graph *g, const char *path, void *ctx), void *ctx)
{
    if (m->graph)
        cb(m->graph, path, ctx);
    for (const fx_module *ch = m->first_child; ch; ch = ch->next_sibling) {
        size_t n = strlen(path) + strlen(ch->name) + 2;
        char *sub = xmalloc(n);
        snprintf(sub, n, "%s%s%s", path, *path ? "." : "", ch->name);
        each_graph(ch, sub, cb, ctx);
        free(sub);
    }
}

static void qualified(strbuf *sb, const char *path, const fx_node *n)
{
    if (*path)
        sb_printf(sb, "%s.", path);
    sb_puts(sb, n->name);
}

static void users_text(strbuf *sb, const fx_node *n)
{
    if (!n->n_users) {
        sb_putc(sb, '-');
        return;
    }
    for (size_t i = 0; i < n->n_users; i++) {
        if (i)
            sb_puts(sb, ", ");
        sb_puts(sb, n->users[i]->name);
    }
}

typedef struct rows {
    VEC(char *) cells;   /* 4 per row: name, op, target, users */
} rows;

static void collect_rows(const fx_graph *g, const char *path, void *ctx)
{
    rows *r = ctx;
    for (const fx_node *n = g->first; n; n = n->next) {
        strbuf sb;
        sb_init(&sb);
        qualified(&sb, path, n);
        vec_push(&r->cells, sb_detach(&sb));
        vec_push(&r->cells, xstrdup(fx_opcode_name(n->op)));
        vec_push(&r->cells, xstrdup(n->target));
        sb_init(&sb);
        users_text(&sb, n);
        vec_push(&r->cells, sb_detach(&sb));
    }
}

void fx_print_nodes(const fx_program *p, strbuf *out)
{
    static const char *const hdr[4] = {"name", "op", "target", "users"};
    rows r = {0};
    each_graph(p->root, "", collect_rows, &r);
    size_t w[4];
    for (int k = 0; k < 4; k++)
        w[k] = strlen(hdr[k]);
    for (size_t i = 0; i < r.cells.len; i++) {
        size_t l = strlen(r.cells.items[i]);
        if (l > w[i % 4])
            w[i % 4] = l;
    }
    for (int k = 0; k < 4; k++) {
        sb_puts(out, hdr[k]);
        if (k < 3)
            sb_spaces(out, w[k] - strlen(hdr[k]) + 2);
    }
    sb_putc(out, '\n');
    for (size_t i = 0; i < r.cells.len; i++) {
        sb_puts(out, r.cells.items[i]);
        if (i % 4 < 3)
            sb_spaces(out, w[i % 4] - strlen(r.cells.items[i]) + 2);
        else
            sb_putc(out, '\n');
        free(r.cells.items[i]);
    }
    vec_free(&r.cells);
}

fx_node *fx_program_find_node(const fx_program *p, const char *q)
{
    if (!q)
        return NULL;
    if (*q == '%')
        q++;
    const char *dot = strrchr(q, '.');
    const fx_module *m = p->root;
    if (dot) {
        char *path = xstrndup(q, (size_t)(dot - q));
        m = fx_module_find(p->root, path);
        free(path);
        q = dot + 1;
    }
    if (!m || !m->graph)
        return NULL;
    return fx_graph_lookup(m->graph, q);
}

static void module_path(strbuf *sb, const fx_module *m)
{
    if (!m->parent)
        return;
    module_path(sb, m->parent);
    if (sb->len)
        sb_putc(sb, '.');
    sb_puts(sb, m->name);
}

/* torch's nn_module_stack text ("key,path,type;key,path,type", outermost first) as the module
 * the node was made in, then the modules around it: "module:  seq.0 (Linear) in seq
 * (Sequential) in the model (model.MLPCond)". Text of another shape is printed as it is. */
static void module_stack_text(strbuf *out, const char *stack)
{
    VEC(const char *) starts = {0};
    for (const char *p = stack; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) vec_push(&starts, p);
    strbuf text;
    sb_init(&text);
    bool ok = starts.len > 0;
    for (size_t i = starts.len; ok && i-- > 0;) {
        const char *e = starts.items[i], *end = strchr(e, ';');
        size_t len = end ? (size_t)(end - e) : strlen(e);
        const char *c1 = memchr(e, ',', len), *c2 = NULL;
        for (const char *q = e + len; q > e && !c2; q--)
            if (q[-1] == ',') c2 = q - 1;
        if (!c1 || !c2 || c2 <= c1) {
            ok = false;
            break;
        }
        const char *type = c2 + 1, *dot = NULL;
        for (const char *q = type; q < e + len; q++)
            if (*q == '.') dot = q;
        /* torch.nn classes by their short name; the model's own class in full */
        bool nn = !strncmp(type, "torch.nn.", 9);
        const char *shown = nn && dot ? dot + 1 : type;
        int shown_len = (int)(e + len - shown);
        if (i + 1 < starts.len) sb_puts(&text, " in ");
        if (c2 > c1 + 1) sb_printf(&text, "%.*s (%.*s)", (int)(c2 - c1 - 1), c1 + 1, shown_len, shown);
        else sb_printf(&text, "the model (%.*s)", shown_len, shown);
    }
    sb_printf(out, "module:  %s\n", ok ? text.s : stack);
    sb_free(&text);
    vec_free(&starts);
}

int fx_print_node(const fx_program *p, const char *name, strbuf *out)
{
    fx_node *n = fx_program_find_node(p, name);
    if (!n)
        return -1;
    strbuf path;
    sb_init(&path);
    module_path(&path, n->graph->owner);
    sb_puts(out, "node:    ");
    qualified(out, path.s, n);
    sb_free(&path);
    sb_printf(out, "\nop:      %s\ntarget:  %s\nargs:    ", fx_opcode_name(n->op), n->target);
    fx_arg_print(out, n->args, FXA_FX);
    sb_puts(out, "\nkwargs:  ");
    fx_arg_print(out, n->kwargs, FXA_FX);
    sb_printf(out, "\nusers:   %zu (", n->n_users);
    users_text(out, n);
    sb_puts(out, ")\nvalue:   ");
    if (fx_value_has_annot(n->meta.val))
        fx_value_annot(out, n->meta.val);
    else if (n->meta.val && n->meta.val->kind == FX_VAL_TUPLE)
        sb_printf(out, "tuple of %zu", n->meta.val->n_items);
    else
        sb_puts(out, "unknown");
    sb_puts(out, "\nsource:  ");
    sb_puts(out, n->meta.source ? n->meta.source : "unknown");
    sb_putc(out, '\n');
    if (n->meta.nn_module_stack)
        module_stack_text(out, n->meta.nn_module_stack);
    return 0;
}

typedef struct find_ctx {
    const char *text;
    strbuf *out;
    size_t count;
    bool fold_case;
} find_ctx;

static void find_in(const fx_graph *g, const char *path, void *vctx)
{
    find_ctx *c = vctx;
    for (const fx_node *n = g->first; n; n = n->next)
        if (str_contains(n->name, c->text, c->fold_case) || str_contains(n->target, c->text, c->fold_case)) {
            qualified(c->out, path, n);
            sb_printf(c->out, "  %s  %s\n", fx_opcode_name(n->op), n->target);
            c->count++;
        }
}

size_t fx_find(const fx_program *p, const char *text, bool fold_case, strbuf *out)
{
    find_ctx c = {text ? text : "", out, 0, fold_case};
    each_graph(p->root, "", find_in, &c);
    return c.count;
}

typedef struct stat_ctx {
    size_t nodes, graphs;
    size_t by_op[FX_OP_COUNT];
    hashmap by_target;                 /* target -> count (as pointer-sized int) */
    VEC(const char *) targets;
    strbuf sub;                        /* per-subgraph lines */
} stat_ctx;

static void stat_graph(const fx_graph *g, const char *path, void *vctx)
{
    stat_ctx *c = vctx;
    c->graphs++;
    if (*path)
        sb_printf(&c->sub, "  %s: %zu nodes\n", path, g->n_nodes);
    for (const fx_node *n = g->first; n; n = n->next) {
        c->nodes++;
        c->by_op[n->op]++;
        if (n->op == FX_OP_PLACEHOLDER || n->op == FX_OP_OUTPUT)
            continue;
        size_t cur = (size_t)(uintptr_t)hm_get(&c->by_target, n->target);
        if (!cur)
            vec_push(&c->targets, n->target);
        hm_put(&c->by_target, n->target, (void *)(uintptr_t)(cur + 1));
    }
}

static const hashmap *sort_map;
static int cmp_target(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t cx = (size_t)(uintptr_t)hm_get(sort_map, x), cy = (size_t)(uintptr_t)hm_get(sort_map, y);
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return strcmp(x, y);
}

void fx_print_stats(const fx_program *p, strbuf *out)
{
    stat_ctx c = {0};
    hm_init(&c.by_target);
    sb_init(&c.sub);
    each_graph(p->root, "", stat_graph, &c);
    const fx_graph *root = p->root->graph;
    sb_printf(out, "nodes: %zu (root graph %zu)\n", c.nodes, root ? root->n_nodes : 0);
    size_t ph = 0, outs = 0;
    for (const fx_node *n = root ? root->first : NULL; n; n = n->next) {
        ph += n->op == FX_OP_PLACEHOLDER;
        outs += n->op == FX_OP_OUTPUT;
    }
    sb_printf(out, "placeholders: %zu, outputs: %zu (root graph)\n", ph, outs);
    sb_puts(out, "by opcode:\n");
    for (int k = 0; k < FX_OP_COUNT; k++)
        if (c.by_op[k])
            sb_printf(out, "  %-14s %zu\n", fx_opcode_name((fx_opcode)k), c.by_op[k]);
    sb_puts(out, "by target:\n");
    sort_map = &c.by_target;
    if (c.targets.len)
        qsort(c.targets.items, c.targets.len, sizeof *c.targets.items, cmp_target);
    for (size_t i = 0; i < c.targets.len; i++)
        sb_printf(out, "  %5zu  %s\n", (size_t)(uintptr_t)hm_get(&c.by_target, c.targets.items[i]),
                  c.targets.items[i]);
    sb_printf(out, "subgraphs: %zu\n", c.graphs ? c.graphs - (root ? 1 : 0) : 0);
    sb_puts(out, c.sub.s);
    sb_free(&c.sub);
    vec_free(&c.targets);
    hm_free(&c.by_target);
}

typedef struct names_ctx {
    void (*cb)(const char *, void *);
    void *ctx;
} names_ctx;

static void names_in(const fx_graph *g, const char *path, void *vctx)
{
    names_ctx *c = vctx;
    strbuf sb;
    sb_init(&sb);
    for (const fx_node *n = g->first; n; n = n->next) {
        sb_reset(&sb);
        qualified(&sb, path, n);
        c->cb(sb.s, c->ctx);
    }
    sb_free(&sb);
}

void fx_each_node_name(const fx_program *p, void (*cb)(const char *name, void *ctx), void *ctx)
{
    names_ctx c = {cb, ctx};
    each_graph(p->root, "", names_in, &c);
}
