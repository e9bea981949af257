/* decomp_builtins.c — the C decompositions a rule's `builtin:` names: the folder's families in
 * one list, looked up by name through one hashed index (base/builtin.h). */
#include "decompose/decomp_matmul.h"
#include "decompose/decompose_internal.h"

static fx_node *matmul_call(void *ctx, const char *target, fx_arg **args, size_t n)
{
    return dc_call_node(ctx, target, args, n, NULL);
}

/* matmul(self, other): decomp_matmul.c emits through a callback (it knows no dctx), so its entry
 * is made here. */
static fx_arg *matmul(dctx *c, const binding *b)
{
    const fx_arg *x = b->src[0], *y = b->src[1];
    if (!x || !y || x->kind != FX_ARG_NODE || y->kind != FX_ARG_NODE)
        return NULL;
    dm_emitter e = { c, c->dst, matmul_call };
    bool failed;
    fx_node *m = decomp_matmul(&e, x->u.node, y->u.node, &failed);
    if (failed)
        dc_fail(c);
    return m ? fx_arg_node(c->dst, m) : NULL;
}

static const dc_builtin_entry matmul_builtins[] = { { "matmul", matmul } };
static const builtin_family dc_matmul_builtins = BUILTIN_FAMILY("matmul", matmul_builtins);

static const builtin_family *const families[] = {
    &dc_matmul_builtins, &dc_lists_builtins, &dc_loss_builtins, &dc_upsample_builtins, &dc_quantile_builtins,
    &dc_pool_builtins,
};
static builtin_index index_ = BUILTIN_INDEX(families);

const dc_builtin_entry *dc_find_builtin(const char *name) { return builtin_find(&index_, name); }

bool dc_builtin_exists(const char *name) { return dc_find_builtin(name) != NULL; }

const char *dc_builtin_suggest(const char *name) { return builtin_suggest(&index_, name); }

const char *dc_builtin_duplicate(void) { return builtin_duplicate(&index_); }

fx_arg *dc_builtin(dctx *c, const decomp_rule *r, const binding *b)
{
    const dc_builtin_entry *e = dc_find_builtin(r->builtin);
    return e ? e->fn(c, b) : NULL;   /* an unknown name was refused when the rules were loaded */
}
