/* meta_unbacked.c — unbacked symbols: the sizes and numbers torch.export cannot know from the
 * example inputs because they are read out of tensor values (Tensor.item(), a slice that ends
 * there). torch names them u0, u1, ... (zuf0, ... for floats) in the order it creates them. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "fx/fx_ir.h"
#include "meta/meta_internal.h"

/* The highest N of the tokens PREFIX<N> in text (a word of its own: "u1" in "Min(u1, 8)", not
 * in "mul1"), or -1. */
static long highest_index(const char *text, const char *prefix)
{
    size_t pl = strlen(prefix);
    long best = -1;
    for (const char *p = text ? strstr(text, prefix) : NULL; p; p = strstr(p + 1, prefix)) {
        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
        const char *q = p + pl;
        if (!isdigit((unsigned char)*q)) continue;
        long n = 0;
        while (isdigit((unsigned char)*q) && n < 100000000) n = n * 10 + (*q++ - '0');
        if (isalnum((unsigned char)*q) || *q == '_') continue;
        if (n > best) best = n;
    }
    return best;
}

static long value_index(const fx_value *v, const char *prefix, int depth)
{
    if (!v || depth > 64) return -1;
    long best = -1, k;
    if (v->kind == FX_VAL_SYM) return highest_index(v->text, prefix);
    if (v->kind == FX_VAL_TUPLE)
        for (size_t i = 0; i < v->n_items; i++)
            if ((k = value_index(v->items[i], prefix, depth + 1)) > best) best = k;
    if (v->kind == FX_VAL_TENSOR && v->sizes)
        for (size_t i = 0; i < v->rank; i++)
            if ((k = highest_index(v->sizes[i], prefix)) > best) best = k;
    return best;
}

bool mi_unbacked(const sx *x)
{
    const char *t = x ? sx_str(x) : NULL;
    return t && (highest_index(t, "u") >= 0 || highest_index(t, "zuf") >= 0);
}

const char *mi_fresh_unbacked(mi_ctx *c, const char *prefix)
{
    long best = -1, k;
    for (const fx_node *n = c->node ? c->node->prev : NULL; n; n = n->prev)
        if ((k = value_index(n->meta.val, prefix, 0)) > best) best = k;
    char name[32];
    snprintf(name, sizeof name, "%s%ld", prefix, best + 1);
    return arena_strdup(c->a, name);
}

/* Whether an _assert_scalar before c's node asserts exactly `expr` (its message reads "Runtime
 * assertion failed for expression EXPR on node ..."). */
static bool asserted(mi_ctx *c, const char *expr)
{
    static const char lead[] = "Runtime assertion failed for expression ";
    size_t el = strlen(expr);
    for (const fx_node *n = c->node ? c->node->prev : NULL; n; n = n->prev) {
        if (!n->target || strcmp(n->target, "torch.ops.aten._assert_scalar.default") || !n->args ||
            n->args->u.seq.len < 2)
            continue;
        const fx_arg *m = n->args->u.seq.items[1];
        const char *s = m->kind == FX_ARG_STR ? m->u.s : NULL;
        if (s && !strncmp(s, lead, sizeof lead - 1) && !strncmp(s + sizeof lead - 1, expr, el) &&
            !strncmp(s + sizeof lead - 1 + el, " on node ", 9))
            return true;
    }
    return false;
}

bool mi_unbacked_in_range(mi_ctx *c, const sx *v, const sx *size)
{
    const char *name = sx_str(v), *sz = sx_str(size);
    if (!mi_unbacked(v) || strpbrk(name, " ()*+-/")) return false;   /* a plain symbol */
    char ge[64], le[160];
    snprintf(ge, sizeof ge, "%s >= 0", name);
    snprintf(le, sizeof le, "%s <= %s", name, sz);
    return asserted(c, ge) && asserted(c, le);
}
