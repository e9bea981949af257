/* meta_autocast.c — autocast regions and ATen's CPU autocast policy (see meta_autocast.h). The
 * op lists are those of aten/src/ATen/autocast_mode.cpp for AutocastCPU, checked against torch
 * 2.14 by running OpInfo samples under torch.autocast("cpu", torch.bfloat16). */
#include "meta/meta_autocast.h"

#include <stdio.h>
#include <string.h>

/* Ops that run in the region's lower precision (their float inputs cast down). */
static const char *const lower_ops[] = {
    "conv1d", "conv2d", "conv3d", "bmm", "mm", "linalg_vecdot", "baddbmm", "addmm", "addbmm", "linear",
    "_convolution", "matmul", "conv_tbc", "mkldnn_rnn_layer", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "prelu", "scaled_dot_product_attention", "_native_multi_head_attention", "tensordot",
    NULL};
/* Ops that run in float32 (their lower-precision float inputs cast up). */
static const char *const fp32_ops[] = {
    "avg_pool3d", "binary_cross_entropy", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "polar", "prod",
    "quantile", "nanquantile", "stft", "cdist", "trace", "view_as_complex", "cholesky", "cholesky_inverse",
    "cholesky_solve", "inverse", "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d", "max_unpool2d",
    "max_unpool3d", "adaptive_avg_pool3d", "reflection_pad1d", "reflection_pad2d", "replication_pad1d",
    "replication_pad2d", "replication_pad3d", "mse_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d",
    "hinge_embedding_loss", "poisson_nll_loss", "smooth_l1_loss", "cross_entropy_loss", "l1_loss", "huber_loss",
    "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss", "ctc_loss", "kl_div",
    "multilabel_margin_loss", "binary_cross_entropy_with_logits", "geqrf", "_lu_with_info", "qr", "svd",
    "triangular_solve", "fractional_max_pool2d", "fractional_max_pool3d", "adaptive_max_pool3d",
    "multilabel_margin_loss_forward", NULL};
static const char *const promote_ops[] = {"stack", "cat", "index_copy", NULL};

static bool listed(const char *const *list, const char *name, size_t n)
{
    for (; *list; list++)
        if (strlen(*list) == n && !strncmp(*list, name, n)) return true;
    return false;
}

autocast_policy autocast_policy_cpu(const char *target)
{
    if (!target || strncmp(target, "torch.ops.aten.", 15)) return AC_NONE;
    const char *name = target + 15, *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    if (listed(lower_ops, name, n)) return AC_LOWER;
    if (listed(promote_ops, name, n)) return AC_PROMOTE;
    if (listed(fp32_ops, name, n)) return AC_FP32;
    /* every fft_* and linalg_* but linalg_vecdot runs in float32 */
    if ((n > 4 && !strncmp(name, "fft_", 4)) || (n > 7 && !strncmp(name, "linalg_", 7))) return AC_FP32;
    return AC_NONE;
}

static void graph_key(const fx_graph *g, char *buf, size_t cap) { snprintf(buf, cap, "%p", (const void *)g); }

static void scan(const fx_program *p, const fx_module *m, autocast_regions *out, int depth)
{
    if (!m || depth > 64) return;
    for (const fx_node *n = m->graph ? m->graph->first : NULL; n; n = n->next) {
        if (n->op != FX_OP_CALL_FUNCTION || !n->target || strcmp(n->target, "torch.ops.higher_order.wrap_with_autocast"))
            continue;
        /* wrap_with_autocast(device, dtype, enabled, cache_enabled, submod, *args) */
        fx_arg **a = n->args->u.seq.items;
        size_t na = n->args->u.seq.len;
        if (na < 5 || a[4]->kind != FX_ARG_NODE || a[4]->u.node->op != FX_OP_GET_ATTR) continue;
        const fx_module *sub = fx_module_find(m, a[4]->u.node->target);
        if (!sub || !sub->graph) continue;
        bool enabled = a[2]->kind == FX_ARG_BOOL && a[2]->u.b;
        const char *device = a[0]->kind == FX_ARG_STR || a[0]->kind == FX_ARG_DEVICE ? a[0]->u.s : "cpu";
        fx_dtype dt = a[1]->kind == FX_ARG_DTYPE ? a[1]->u.dtype : FX_DT_BF16;   /* CPU autocast's default */
        if (enabled && strncmp(device, "cpu", 3)) {
            if (!out->other_device) out->other_device = n;
            continue;
        }
        char key[32];
        graph_key(sub->graph, key, sizeof key);
        autocast_region *r = arena_alloc(&out->a, sizeof *r);
        r->dtype = enabled ? dt : FX_DT_UNKNOWN;
        hm_put(&out->by_graph, arena_strdup(&out->a, key), r);
        out->n++;
    }
    for (const fx_module *c = m->first_child; c; c = c->next_sibling) scan(p, c, out, depth + 1);
}

void autocast_regions_find(const fx_program *p, autocast_regions *out)
{
    memset(out, 0, sizeof *out);
    hm_init(&out->by_graph);
    arena_init(&out->a);
    if (p) scan(p, p->root, out, 0);
}

const autocast_region *autocast_region_of(const autocast_regions *r, const fx_graph *g)
{
    if (!r || !r->n || !g) return NULL;
    char key[32];
    graph_key(g, key, sizeof key);
    return hm_get(&r->by_graph, key);
}

void autocast_regions_free(autocast_regions *r)
{
    hm_free(&r->by_graph);
    arena_free(&r->a);
    memset(r, 0, sizeof *r);
}
