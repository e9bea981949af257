/* rewrite_plan.c — the `rewrite` commands that work for a node export names: nests innermost first, --clone where needed. */
#include "rewrite/rewrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_control.h"

typedef VEC(char *) name_list;

typedef struct nest {
    const fx_program *p;
    const char **prefixes;   /* "true_graph_0." ... of the node's branches, with the node's path */
    size_t n_prefixes;
    name_list names;
} nest;

static void collect_nested(const char *name, void *ctx)
{
    nest *c = ctx;
    for (size_t i = 0; i < c->n_prefixes; i++)
        if (!strncmp(name, c->prefixes[i], strlen(c->prefixes[i]))) {
            fx_node *n = fx_program_find_node(c->p, name);
            if (n && fx_control_kind_of(n) == FX_CTRL_IF) vec_push(&c->names, xstrdup(name));
            return;
        }
}

static size_t depth_of(const char *name)
{
    size_t d = 0;
    for (; *name; name++) d += *name == '.';
    return d;
}

/* The Python ifs nested in the branches of `node` (a path like if_1 or true_graph_0.if_1),
 * deepest first, then node itself. */
static void nest_order(const fx_program *p, const char *node, name_list *out)
{
    fx_node *n = fx_program_find_node(p, node);
    fx_control_view v;
    const char *dot = strrchr(node, '.');
    size_t plen = dot ? (size_t)(dot - node) + 1 : 0;
    char *pre[2] = {NULL, NULL};
    nest c = {p, (const char **)pre, 0, {0}};
    if (n && fx_control_inspect(n, &v))
        for (int b = 0; b < 2; b++)
            if (v.sub[b] && v.sub[b]->name) {
                size_t len = plen + strlen(v.sub[b]->name) + 2;
                pre[c.n_prefixes] = xmalloc(len);
                snprintf(pre[c.n_prefixes], len, "%.*s%s.", (int)plen, node, v.sub[b]->name);
                c.n_prefixes++;
            }
    if (c.n_prefixes) fx_each_node_name(p, collect_nested, &c);
    /* a stable sort by depth, deepest first (nests are small: insertion sort) */
    for (size_t i = 1; i < c.names.len; i++) {
        char *x = c.names.items[i];
        size_t j = i;
        for (; j > 0 && depth_of(c.names.items[j - 1]) < depth_of(x); j--) c.names.items[j] = c.names.items[j - 1];
        c.names.items[j] = x;
    }
    for (size_t i = 0; i < c.names.len; i++) vec_push(out, c.names.items[i]);
    vec_free(&c.names);
    vec_push(out, xstrdup(node));
    free(pre[0]);
    free(pre[1]);
}

/* One step: the rewrite as is, else with --clone (then *why says which branch returned its
 * input). Returns the rewritten program or NULL. */
static fx_program *try_step(const fx_program *p, const char *node, const char *kind, bool *clone, strbuf *why)
{
    fx_program *(*fn)(const fx_program *, const char *, bool, diag_sink *) =
        !strcmp(kind, "cond") ? rewrite_if_to_cond_ex : !strcmp(kind, "scan") ? rewrite_for_to_scan : rewrite_loop_to_while;
    diag_sink quiet;
    diag_init(&quiet);
    fx_program *q = fn(p, node, false, &quiet);
    *clone = false;
    if (!q) {
        diag_free(&quiet);
        diag_init(&quiet);
        q = fn(p, node, true, &quiet);
        *clone = q != NULL;
        for (size_t i = 0; q && i < quiet.len; i++) {
            const char *m = quiet.items[i].message, *colon = strchr(m, ':');
            if (quiet.items[i].severity != DIAG_NOTE || !colon || !strstr(m, " returned ")) continue;
            const char *ret = strstr(m, " returned ");   /* the note's past tense, as a reason */
            sb_printf(why, "%s%.*s returns %.*s", why->len ? "; " : "", (int)(ret - m), m,
                      (int)(colon - ret - 10), ret + 10);
        }
    }
    diag_free(&quiet);
    return q;
}

bool rewrite_plan(const fx_program *p, const char *node, const char *kind, strbuf *plan)
{
    if (node[0] == '%') node++;
    name_list order = {0};
    if (!strcmp(kind, "cond")) nest_order(p, node, &order);
    else vec_push(&order, xstrdup(node));
    fx_program *cur = NULL;
    bool ok = true, any_clone = false;
    strbuf why;
    sb_init(&why);
    for (size_t i = 0; i < order.len && ok; i++) {
        bool clone;
        fx_program *next = try_step(cur ? cur : p, order.items[i], kind, &clone, &why);
        if (cur) fx_program_free(cur);
        cur = next;
        ok = next != NULL;
        any_clone |= clone;
        if (ok)
            sb_printf(plan, "%srewrite %%%s %s%s", i ? ", then " : "", order.items[i], kind, clone ? " --clone" : "");
    }
    if (ok && order.len > 1)
        sb_puts(plan, " (the inner `if` first: torch.cond branches hold no Python `if`)");
    if (ok && any_clone)
        sb_printf(plan, " (%s, which torch.%s rejects as aliasing: --clone returns a copy instead, torch's fix)",
                  why.s, kind);
    sb_free(&why);
    if (cur) fx_program_free(cur);
    for (size_t i = 0; i < order.len; i++) free(order.items[i]);
    vec_free(&order);
    return ok;
}

/* The first error of `rewrite node kind` on p, as its command would report it; NULL when the
 * rewrite works. Owned by the caller. */
static char *refusal(const fx_program *p, const char *node, const char *kind)
{
    strbuf plan;
    sb_init(&plan);
    bool ok = rewrite_plan(p, node, kind, &plan);
    sb_free(&plan);
    if (ok) return NULL;
    fx_program *(*fn)(const fx_program *, const char *, bool, diag_sink *) =
        !strcmp(kind, "cond") ? rewrite_if_to_cond_ex : !strcmp(kind, "scan") ? rewrite_for_to_scan : rewrite_loop_to_while;
    diag_sink quiet;
    diag_init(&quiet);
    fx_program *q = fn(p, node, true, &quiet);
    if (q) fx_program_free(q);
    char *why = NULL;
    for (size_t i = 0; i < quiet.len && !why; i++)
        if (quiet.items[i].severity == DIAG_ERROR) why = xstrdup(quiet.items[i].message);
    diag_free(&quiet);
    return why ? why : xstrdup("refused");
}

void rewrite_check_hints(const fx_program *p, const char *node, diag_sink *d, size_t mark)
{
    if (node[0] == '%') node++;
    fx_node *n = fx_program_find_node(p, node);
    fx_control_view v;
    bool constant_for = n && fx_control_inspect(n, &v) && v.kind == FX_CTRL_FOR && v.trip && v.trip->kind == FX_ARG_INT;
    for (size_t i = mark; i < d->len; i++) {
        diagnostic *dg = &d->items[i];
        if (dg->severity != DIAG_ERROR) continue;
        if (constant_for) {
            /* torch.export unrolls `for i in range(3)`: the export is right as it is, for every input */
            diag_set_hint(dg, "no rewrite is needed: `for` over a constant count (%lld) is unrolled by `export`, as "
                              "torch.export unrolls it, and the unrolled model is right for every input",
                          (long long)v.trip->u.i);
            continue;
        }
        /* a hint naming other rewrites must name ones that work: each is tried; the hint stays
         * when all work, names only those that do when some do, and gives the reason when none */
        if (!dg->hint || !strstr(dg->hint, "rewrite %")) continue;
        strbuf works, refused;
        sb_init(&works);
        sb_init(&refused);
        size_t n_named = 0, n_work = 0;
        for (const char *r = strstr(dg->hint, "rewrite %"); r; r = strstr(r + 9, "rewrite %")) {
            char other[256], kind[32];
            if (sscanf(r, "rewrite %%%255[^ ] %31[a-z_]", other, kind) != 2) continue;
            if (strcmp(kind, "cond") && strcmp(kind, "scan") && strcmp(kind, "while_loop")) continue;
            n_named++;
            char *why = refusal(p, other, kind);
            if (!why) {
                sb_printf(&works, "%srewrite %%%s %s", n_work++ ? ", or " : "", other, kind);
            } else if (!refused.len) {
                sb_printf(&refused, "`rewrite %%%s %s` is refused too (%s)", other, kind, why);
            }
            free(why);
        }
        if (n_named && n_work < n_named) {
            if (n_work) diag_set_hint(dg, "%s", works.s);
            else diag_set_hint(dg, "%s: no rewrite takes it as it is; change the code (`help rewrite` says what each "
                                   "rewrite needs)", refused.s);
        }
        sb_free(&works);
        sb_free(&refused);
    }
}
