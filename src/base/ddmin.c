/* ddmin.c — delta debugging over a DAG's nodes: grow from the target, then shrink by chunks. */
#include "base/ddmin.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/interrupt.h"

/* Makes keep a candidate: every node a kept node reads that cannot be an input is kept too, and
 * what no longer leads to the target is dropped (a node whose only reader was removed). Preds
 * come before their readers, so one pass down the order settles each. */
static void normalize(const ddmin_dag *g, bool *keep, bool *live)
{
    for (size_t i = g->n; i-- > 0;)
        if (keep[i])
            for (size_t k = 0; k < g->n_preds[i]; k++)
                if (!g->cuttable[g->preds[i][k]]) keep[g->preds[i][k]] = true;
    memset(live, 0, g->n * sizeof *live);
    live[g->target] = true;
    for (size_t i = g->target + 1; i-- > 0;)
        if (live[i])
            for (size_t k = 0; k < g->n_preds[i]; k++)
                if (keep[g->preds[i][k]]) live[g->preds[i][k]] = true;
    memcpy(keep, live, g->n * sizeof *keep);
}

static size_t count(const bool *keep, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += keep[i];
    return c;
}

typedef struct run {
    const ddmin_dag *g;
    ddmin_test_fn test;
    void *ctx;
    size_t max_tests;
    ddmin_stats *st;
    bool *live;                  /* scratch for normalize */
} run;

/* 1 fails, 0 passes, -1 stopped (interrupt or limit) */
static int try_set(run *r, const bool *keep)
{
    if (interrupt_pending()) return -1;
    if (r->max_tests && r->st->tests >= r->max_tests) return -1;
    r->st->tests++;
    return r->test(keep, r->ctx) ? 1 : 0;
}

ddmin_status ddmin_run(const ddmin_dag *g, ddmin_test_fn test, void *ctx, size_t max_tests, bool *keep,
                       ddmin_stats *stats)
{
    ddmin_stats local;
    ddmin_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    size_t n = g->n;
    bool *live = xcalloc(n ? n : 1, sizeof *live);
    bool *cand = xcalloc(n ? n : 1, sizeof *cand);
    size_t *dist = xmalloc((n ? n : 1) * sizeof *dist);
    run r = {g, test, ctx, max_tests, st, live};
    ddmin_status status = DDMIN_OK;

    /* distance of each ancestor from the target, in reads */
    for (size_t i = 0; i < n; i++) dist[i] = SIZE_MAX;
    dist[g->target] = 0;
    size_t far = 0;
    for (size_t i = g->target + 1; i-- > 0;) {
        if (dist[i] == SIZE_MAX) continue;
        st->cone++;
        if (dist[i] > far) far = dist[i];
        for (size_t k = 0; k < g->n_preds[i]; k++) {
            size_t p = g->preds[i][k];
            if (dist[p] > dist[i] + 1) dist[p] = dist[i] + 1;
        }
    }

    /* grow: the target's ancestors up to depth 0, 1, 2, 4, ... */
    bool failed = false;
    size_t last = SIZE_MAX;
    for (size_t depth = 0;; depth = depth ? depth * 2 : 1) {
        if (depth > far) depth = far;
        for (size_t i = 0; i < n; i++) keep[i] = dist[i] <= depth;
        normalize(g, keep, live);
        size_t c = count(keep, n);
        if (c != last) {   /* a depth that adds nothing is not tested again */
            last = c;
            int t = try_set(&r, keep);
            if (t < 0) {
                status = interrupt_pending() ? DDMIN_INTERRUPTED : DDMIN_LIMIT;
                break;
            }
            if (t) {
                failed = true;
                break;
            }
        }
        if (depth == far) break;
    }
    if (!failed && status == DDMIN_OK) status = DDMIN_NO_FAILURE;
    if (!failed) goto done;
    st->grown = count(keep, n);

    /* shrink: drop chunks of the kept nodes (the target stays), finer when none can go */
    size_t *rest = xmalloc((n ? n : 1) * sizeof *rest);
    size_t parts = 2;
    for (;;) {
        size_t len = 0;
        for (size_t i = 0; i < n; i++)
            if (keep[i] && i != g->target) rest[len++] = i;
        if (!len) break;
        if (parts > len) parts = len;
        size_t size = (len + parts - 1) / parts;
        bool reduced = false;
        for (size_t start = 0; start < len && !reduced; start += size) {
            memcpy(cand, keep, n * sizeof *cand);
            for (size_t k = start; k < start + size && k < len; k++) cand[rest[k]] = false;
            normalize(g, cand, live);
            if (!memcmp(cand, keep, n * sizeof *cand)) continue;   /* all of it came back */
            int t = try_set(&r, cand);
            if (t < 0) {
                status = interrupt_pending() ? DDMIN_INTERRUPTED : DDMIN_LIMIT;
                break;
            }
            if (t) {
                memcpy(keep, cand, n * sizeof *keep);
                parts = parts > 2 ? parts - 1 : 2;
                reduced = true;
            }
        }
        if (status != DDMIN_OK) break;
        if (!reduced) {
            if (parts >= len) break;
            parts = parts * 2 < len ? parts * 2 : len;
        }
    }
    free(rest);
done:
    st->kept = count(keep, n);
    free(live);
    free(cand);
    free(dist);
    return status;
}
