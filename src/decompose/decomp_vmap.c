/* decomp_vmap.c — torch.vmap regions of a pre-dispatch program (torch._functorch.predispatch's
 * _vmap_increment_nesting ... _add_batch_dim ... _remove_batch_dim ... _vmap_decrement_nesting)
 * made plain ATen before decomposition. torch's run_decompositions() applies functorch's batching
 * rules; fxsh maps the body over the batch instead, which is what vmap means: for each index i
 * of a static batch, the body on select(x, in_dim, i), the results stacked along out_dim. Nodes
 * of the region that read no batched value run once. Nested vmaps unbatch level by level. */
#include "decompose/decompose.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/vec.h"
#include "fx/fx_build.h"

/* The body, copied per index, may grow the graph to this many nodes at most. */
#define MAX_UNBATCHED_NODES 200000

#define PRE "torch._functorch.predispatch."

static bool is_call(const fx_node *n, const char *name)
{
    size_t k = strlen(PRE);
    return n->op == FX_OP_CALL_FUNCTION && n->target && !strncmp(n->target, PRE, k) && !strcmp(n->target + k, name);
}

static bool int_arg(const fx_node *n, size_t i, int64_t *v)
{
    if (!n->args || i >= n->args->u.seq.len || n->args->u.seq.items[i]->kind != FX_ARG_INT) return false;
    *v = n->args->u.seq.items[i]->u.i;
    return true;
}

typedef struct unbatch {
    fx_program *p;
    fx_graph *g;
    hashmap batched;     /* node name -> (void *)1: reads a batched value */
    hashmap *map;        /* node name -> what replaces it (its copy for the current index) */
    diag_sink *d;
} unbatch;

static fx_node *mapped(const fx_node *n, void *ctx)
{
    unbatch *u = ctx;
    fx_node *m = u->map ? hm_get(u->map, n->name) : NULL;
    return m ? m : (fx_node *)n;
}

static void reads_batched(fx_node *n, void *ctx)
{
    void **c = ctx;
    if (hm_has((hashmap *)c[0], n->name)) *(bool *)c[1] = true;
}

static bool fail(unbatch *u, const fx_node *n, const char *what)
{
    diag_error(u->d, (diag_loc){u->p->file, n->src_line, 0}, "decompose: vmap at %%%s: %s", n->name, what);
    return false;
}

/* A new call before `before`: target(args...) with meta copied from like. */
static fx_node *emit(unbatch *u, fx_node *before, const char *name, const char *target, fx_arg **args, size_t na,
                     const fx_node *like)
{
    fx_node *n = fx_node_new(u->g, name, FX_OP_CALL_FUNCTION, target);
    fx_node_set_args(n, fx_arg_seq(u->p, FX_ARG_TUPLE, args, NULL, na), fx_arg_seq(u->p, FX_ARG_DICT, NULL, NULL, 0));
    n->meta.val = fx_copy_value(u->p, like->meta.val);
    n->meta.source = like->meta.source;
    n->meta.stack_trace = like->meta.stack_trace;
    fx_graph_insert_before(u->g, before, n);
    return n;
}

/* The graph without the region's originals (inc, dec, the batched nodes, the stacked removes),
 * with the post nodes moved to where dec was; users and indexes recomputed once. */
static void relink(unbatch *u, fx_node *inc, fx_node *dec, const hashmap *post, const hashmap *stacked)
{
    fx_graph *g = u->g;
    VEC(fx_node *) order = {0}, moved = {0};
    bool in_region = false;
    for (fx_node *n = g->first; n; n = n->next) {
        bool gone = n == inc || n == dec ||
                    (in_region && (hm_has(&u->batched, n->name) || hm_has(stacked, n->name)));
        if (n == inc) in_region = true;
        if (n == dec) {
            for (size_t i = 0; i < moved.len; i++) vec_push(&order, moved.items[i]);
            in_region = false;
        }
        if (gone) {
            if (hm_get(&g->names, n->name) == n) hm_remove(&g->names, n->name);   /* the name is free again */
            continue;
        }
        if (in_region && hm_has(post, n->name)) vec_push(&moved, n);
        else vec_push(&order, n);
    }
    g->first = order.len ? order.items[0] : NULL;
    g->last = order.len ? order.items[order.len - 1] : NULL;
    for (size_t i = 0; i < order.len; i++) {
        order.items[i]->prev = i ? order.items[i - 1] : NULL;
        order.items[i]->next = i + 1 < order.len ? order.items[i + 1] : NULL;
    }
    g->n_nodes = order.len;
    vec_free(&order);
    vec_free(&moved);
    fx_graph_recompute_users(g);
    fx_graph_renumber(g);
}

/* Unbatches the region between inc and its matching decrement; false after reporting. */
static bool unbatch_region(unbatch *u, fx_node *inc)
{
    int64_t B;
    if (!int_arg(inc, 0, &B))
        return fail(u, inc, "the batch size is not a number (a dynamic batch): fxsh maps vmap over a static batch only");
    fx_node *dec = NULL;
    int depth = 0;
    for (fx_node *n = inc->next; n && !dec; n = n->next) {
        if (is_call(n, "_vmap_increment_nesting")) depth++;
        else if (is_call(n, "_vmap_decrement_nesting") && depth-- == 0) dec = n;
    }
    if (!dec) return fail(u, inc, "no _vmap_decrement_nesting closes the region");
    /* the level of this region: that of its first _add_batch_dim outside nested regions */
    int64_t level = -1;
    depth = 0;
    for (fx_node *n = inc->next; n != dec && level < 0; n = n->next) {
        if (is_call(n, "_vmap_increment_nesting")) depth++;
        else if (is_call(n, "_vmap_decrement_nesting")) depth--;
        else if (!depth && is_call(n, "_add_batch_dim")) int_arg(n, 2, &level);
    }
    hm_init(&u->batched);
    size_t body = 0;
    depth = 0;
    for (fx_node *n = inc->next; n != dec; n = n->next) {
        bool b = false, opens = is_call(n, "_vmap_increment_nesting"), closes = is_call(n, "_vmap_decrement_nesting");
        void *ctx[2] = {&u->batched, &b};
        int64_t l;
        bool this_level = (is_call(n, "_add_batch_dim") && int_arg(n, 2, &l) && l == level) ||
                          (is_call(n, "_remove_batch_dim") && int_arg(n, 1, &l) && l == level);
        if (opens || closes || depth > 0) {
            /* a nested region, markers and all, is copied with the body that holds it (the next
             * round unbatches each copy) */
            b = true;
        } else if (this_level) {
            b = is_call(n, "_add_batch_dim");   /* a _remove_batch_dim of the level is stacked instead */
        } else {
            fx_arg_each_node(n->args, reads_batched, ctx);
            fx_arg_each_node(n->kwargs, reads_batched, ctx);
        }
        if (opens) depth++;
        if (closes) depth--;
        if (is_call(n, "lazy_load_decompositions")) b = true;
        if (b) {
            hm_put(&u->batched, n->name, (void *)1);
            body++;
        }
    }
    if (B < 0 || (B && body > MAX_UNBATCHED_NODES / (size_t)(B ? B : 1))) {
        hm_free(&u->batched);
        return fail(u, inc, "mapping the body over the batch would take more than 200000 nodes");
    }
    /* the region's nodes as they are now; what runs once but reads a _remove_batch_dim's value
     * ("post") moves after the stacks */
    VEC(fx_node *) region = {0};
    for (fx_node *n = inc->next; n != dec; n = n->next) vec_push(&region, n);
    hashmap post;
    hm_init(&post);
    for (size_t k = 0; k < region.len; k++) {
        fx_node *n = region.items[k];
        int64_t l;
        bool rm = !hm_has(&u->batched, n->name) && is_call(n, "_remove_batch_dim") && int_arg(n, 1, &l) && l == level;
        if (rm) {
            hm_put(&post, n->name, (void *)1);
            continue;
        }
        bool reads = false;
        void *ctx[2] = {&post, &reads};
        fx_arg_each_node(n->args, reads_batched, ctx);
        fx_arg_each_node(n->kwargs, reads_batched, ctx);
        if (!reads) continue;
        if (hm_has(&u->batched, n->name)) {
            vec_free(&region);
            hm_free(&post);
            hm_free(&u->batched);
            return fail(u, n, "the body reads what the region gave back (a _remove_batch_dim's value)");
        }
        hm_put(&post, n->name, (void *)1);
    }
    hashmap *maps = xcalloc((size_t)B + 1, sizeof *maps);   /* per index: original name -> its copy */
    hashmap stacked;                                          /* a _remove_batch_dim's name -> its stack */
    hm_init(&stacked);
    bool ok = true;
    /* the body once per index, each copy whole before the next (nested regions stay nested) */
    for (int64_t i = 0; i < B; i++) {
        hm_init(&maps[i]);
        u->map = &maps[i];
        for (size_t k = 0; k < region.len; k++) {
            fx_node *n = region.items[k];
            if (!hm_has(&u->batched, n->name)) continue;
            fx_node *copy;
            int64_t l, bd;
            if (is_call(n, "_add_batch_dim") && int_arg(n, 2, &l) && l == level && int_arg(n, 1, &bd)) {
                fx_arg *a[3] = {fx_copy_arg(u->p, n->args->u.seq.items[0], mapped, u), fx_arg_int(u->p, bd), fx_arg_int(u->p, i)};
                copy = emit(u, dec, "select", "torch.ops.aten.select.int", a, 3, n);
            } else {
                copy = fx_node_new(u->g, n->name, n->op, n->target);
                fx_node_set_args(copy, fx_copy_arg(u->p, n->args, mapped, u), fx_copy_arg(u->p, n->kwargs, mapped, u));
                copy->meta = n->meta;
                copy->meta.val = fx_copy_value(u->p, n->meta.val);
                fx_graph_insert_before(u->g, dec, copy);
            }
            hm_put(&maps[i], n->name, copy);
        }
    }
    /* each _remove_batch_dim of the level: the per-index values of its operand, stacked */
    for (size_t k = 0; k < region.len && ok; k++) {
        fx_node *n = region.items[k];
        int64_t l, v;
        if (hm_has(&u->batched, n->name) || !is_call(n, "_remove_batch_dim") || !int_arg(n, 1, &l) || l != level) continue;
        if (!int_arg(n, 3, &v) || n->args->u.seq.items[0]->kind != FX_ARG_NODE) {
            ok = fail(u, n, "an out_dim that is not a number");
            break;
        }
        fx_arg **items = arena_alloc(&u->p->arena, ((size_t)B + 1) * sizeof *items);
        for (int64_t i = 0; i < B; i++) {
            u->map = &maps[i];
            items[i] = fx_arg_node(u->p, mapped(n->args->u.seq.items[0]->u.node, u));
        }
        fx_arg *a[2] = {fx_arg_seq(u->p, FX_ARG_LIST, items, NULL, (size_t)B), fx_arg_int(u->p, v)};
        hm_put(&stacked, n->name, emit(u, dec, "stack", "torch.ops.aten.stack.default", a, 2, n));
    }
    /* what ran once after a _remove_batch_dim reads the stacks, and so does what follows the
     * region */
    u->map = &stacked;
    for (size_t k = 0; k < region.len && ok; k++) {
        fx_node *n = region.items[k];
        if (hm_has(&post, n->name) && !hm_has(&stacked, n->name))
            fx_node_set_args(n, fx_copy_arg(u->p, n->args, mapped, u), fx_copy_arg(u->p, n->kwargs, mapped, u));
    }
    for (fx_node *x = dec->next; ok && x; x = x->next)
        fx_node_set_args(x, fx_copy_arg(u->p, x->args, mapped, u), fx_copy_arg(u->p, x->kwargs, mapped, u));
    /* one pass over the graph, in linear time: the originals (the body, the removes, the markers)
     * go, and the "post" nodes move to where the region ended, after the stacks */
    if (ok) relink(u, inc, dec, &post, &stacked);
    for (int64_t i = 0; i < B; i++) hm_free(&maps[i]);
    free(maps);
    hm_free(&stacked);
    hm_free(&post);
    vec_free(&region);
    hm_free(&u->batched);
    fx_graph_recompute_users(u->g);
    fx_graph_renumber(u->g);
    return ok;
}

static bool has_vmap(const fx_graph *g)
{
    for (const fx_node *n = g ? g->first : NULL; n; n = n->next)
        if (is_call(n, "_vmap_increment_nesting")) return true;
    return false;
}

fx_program *decompose_unbatch_vmap(const fx_program *src, diag_sink *d, bool *failed)
{
    *failed = false;
    if (!has_vmap(fx_program_graph(src))) return NULL;
    fx_program *q = fx_program_copy(src);
    unbatch u = {.p = q, .g = fx_program_graph(q), .d = d};
    fx_graph_recompute_users(u.g);
    fx_graph_renumber(u.g);
    for (int rounds = 0; rounds < 64; rounds++) {
        fx_node *inc = NULL;
        for (fx_node *n = u.g->first; n && !inc; n = n->next)
            if (is_call(n, "_vmap_increment_nesting")) inc = n;
        if (!inc) break;
        if (!unbatch_region(&u, inc)) {
            fx_program_free(q);
            *failed = true;
            return NULL;
        }
    }
    /* lazy_load_decompositions outside any region: a no-op */
    for (fx_node *n = u.g->first; n;) {
        fx_node *next = n->next;
        if (is_call(n, "lazy_load_decompositions") && !n->n_users) fx_graph_remove(u.g, n);
        n = next;
    }
    fx_program_refresh(q);
    return q;
}
