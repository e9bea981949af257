/* functionalize.c — view/mutation bookkeeping of torch's functionalization (see functionalize.h). */
#include "decompose/functionalize.h"

#include <string.h>

struct fz_update {
    fz_update *next;
    fx_node *new_val;
    const fz_view *chain;
    size_t len;
};

void fz_init(fz_state *s, fz_hooks hooks)
{
    arena_init(&s->a);
    s->hooks = hooks;
}

void fz_free(fz_state *s) { arena_free(&s->a); }

fz_tensor *fz_fresh(fz_state *s, fx_node *value)
{
    fz_storage *st = arena_alloc(&s->a, sizeof *st);
    st->base = value;
    fz_tensor *t = arena_alloc(&s->a, sizeof *t);
    t->st = st;
    t->value = value;
    return t;
}

fz_tensor *fz_view_of(fz_state *s, const fz_tensor *base, fz_view v, fx_node *value)
{
    fz_view *chain = arena_alloc(&s->a, (base->len + 1) * sizeof *chain);
    if (base->len)
        memcpy(chain, base->chain, base->len * sizeof *chain);
    chain[base->len] = v;
    fz_tensor *t = arena_alloc(&s->a, sizeof *t);
    t->st = base->st;
    t->value = value;
    t->chain = chain;
    t->len = base->len + 1;
    /* generation 0, not the base's: FunctionalTensorWrapper's view constructor leaves it
     * unset, so a view of a mutated storage is regenerated when first used */
    t->gen = 0;
    return t;
}

/* FunctionalStorageImpl's apply_update: views forward from the base down to the mutated
 * view's parent, then each view's inverse back up, innermost first. */
static fx_node *apply_update(fz_state *s, const fz_update *u, fx_node *base)
{
    if (!u->len)
        return u->new_val;
    fx_node *stack[64];
    fx_node **tmp = u->len <= 64 ? stack : arena_alloc(&s->a, u->len * sizeof *tmp);
    tmp[0] = base;
    for (size_t i = 0; i + 1 < u->len; i++)
        if (!(tmp[i + 1] = s->hooks.forward(s->hooks.ctx, &u->chain[i], tmp[i])))
            return NULL;
    fx_node *t = u->new_val;
    for (size_t i = u->len; i-- > 0;)
        if (!(t = s->hooks.reverse(s->hooks.ctx, &u->chain[i], tmp[i], t)))
            return NULL;
    return t;
}

bool fz_sync(fz_state *s, fz_tensor *t)
{
    fz_storage *st = t->st;
    if (t->gen == st->gen)
        return true;
    for (fz_update *u = st->updates; u; u = u->next)
        if (!(st->base = apply_update(s, u, st->base)))
            return false;
    st->updates = st->last = NULL;
    fx_node *v = st->base;
    for (size_t i = 0; i < t->len; i++)
        if (!(v = s->hooks.forward(s->hooks.ctx, &t->chain[i], v)))
            return false;
    t->value = v;
    t->gen = st->gen;
    return true;
}

bool fz_mutate(fz_state *s, fz_tensor *t, fx_node *new_value)
{
    fz_update *u = arena_alloc(&s->a, sizeof *u);
    u->new_val = new_value;
    u->chain = t->chain;
    u->len = t->len;
    if (t->st->last)
        t->st->last->next = u;
    else
        t->st->updates = u;
    t->st->last = u;
    t->st->gen++;
    t->value = new_value;
    return fz_sync(s, t);
}

bool fz_mutated(const fz_tensor *t) { return t->st->gen > 0; }
