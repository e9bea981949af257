/* decomp_autocast.c — what run_decompositions() makes of a torch.autocast region: the casts ATen's
 * CPU autocast kernels do, made explicit before the region is inlined (meta/meta_autocast.h has the
 * policy): the float inputs of a lower-precision op (linear, matmul, conv) cast to the region's
 * dtype, of a float32 op cast up, of cat / stack cast to the widest among them. */
#include "decompose/decompose.h"

#include <string.h>

#include "fx/fx_build.h"
#include "meta/meta_autocast.h"

static bool is_float(fx_dtype d) { return d == FX_DT_F32 || d == FX_DT_F64 || d == FX_DT_F16 || d == FX_DT_BF16; }

/* The float tensor meta of arg a (a node), or NULL. */
static const fx_value *float_tensor(const fx_arg *a)
{
    const fx_value *v = a && a->kind == FX_ARG_NODE ? a->u.node->meta.val : NULL;
    return v && v->kind == FX_VAL_TENSOR && is_float(v->dtype) ? v : NULL;
}

/* a as dtype dt: a new aten._to_copy before n when a is a float tensor of another dtype. */
static fx_arg *cast(fx_program *p, fx_node *n, fx_arg *a, fx_dtype dt)
{
    const fx_value *v = float_tensor(a);
    if (!v || v->dtype == dt) return a;
    fx_node *c = fx_node_new(n->graph, "_to_copy", FX_OP_CALL_FUNCTION, "torch.ops.aten._to_copy.default");
    fx_arg *args[1] = {a};
    fx_arg *dtype = fx_arg_dtype(p, dt);
    const char *keys[1] = {"dtype"};
    fx_node_set_args(c, fx_arg_seq(p, FX_ARG_TUPLE, args, NULL, 1), fx_arg_seq(p, FX_ARG_DICT, &dtype, keys, 1));
    fx_value *m = fx_copy_value(p, v);
    m->dtype = dt;
    m->strides = NULL;
    c->meta.val = m;
    c->meta.source = n->meta.source;
    c->meta.stack_trace = n->meta.stack_trace;
    fx_graph_insert_before(n->graph, n, c);
    return fx_arg_node(p, c);
}

/* The widest float dtype among a list's tensors (float64, else float32, else one 16-bit type; two
 * different 16-bit types meet at float32). */
static fx_dtype widest(const fx_arg *list)
{
    fx_dtype w = FX_DT_UNKNOWN;
    for (size_t i = 0; i < list->u.seq.len; i++) {
        const fx_value *v = float_tensor(list->u.seq.items[i]);
        if (!v) continue;
        if (w == FX_DT_UNKNOWN) w = v->dtype;
        else if (v->dtype == FX_DT_F64 || w == FX_DT_F64) w = FX_DT_F64;
        else if (v->dtype != w) w = FX_DT_F32;
    }
    return w;
}

static void rewrite_region(fx_program *p, fx_graph *g, fx_dtype dt)
{
    for (fx_node *n = g->first; n; n = n->next) {
        if (n->op != FX_OP_CALL_FUNCTION) continue;
        autocast_policy pol = autocast_policy_cpu(n->target);
        if (pol == AC_NONE) continue;
        fx_arg *seqs[2] = {n->args, n->kwargs};
        for (int s = 0; s < 2; s++) {
            fx_arg *seq = seqs[s];
            for (size_t i = 0; seq && i < seq->u.seq.len; i++) {
                fx_arg **a = &seq->u.seq.items[i];
                if (pol == AC_PROMOTE && ((*a)->kind == FX_ARG_LIST || (*a)->kind == FX_ARG_TUPLE)) {
                    fx_dtype w = widest(*a);
                    for (size_t k = 0; w != FX_DT_UNKNOWN && k < (*a)->u.seq.len; k++)
                        (*a)->u.seq.items[k] = cast(p, n, (*a)->u.seq.items[k], w);
                } else if (pol == AC_LOWER) {
                    *a = cast(p, n, *a, dt);
                } else if (pol == AC_FP32) {
                    *a = cast(p, n, *a, FX_DT_F32);
                }
            }
        }
    }
}

fx_program *decompose_apply_autocast(const fx_program *src, diag_sink *d, bool *failed)
{
    *failed = false;
    autocast_regions r;
    autocast_regions_find(src, &r);
    if (r.other_device) {
        const fx_node *n = r.other_device;
        diagnostic *dg = diag_error(d, (diag_loc){src->file, n->src_line, 0},
                                    "decompose: %%%s is a torch.autocast region on device '%s'; fxsh applies ATen's CPU "
                                    "autocast policy only", n->name, n->args->u.seq.items[0]->u.s);
        diag_set_hint(dg, "export the model with autocast on the CPU (or disabled), as torch.onnx exports it on the CPU");
        autocast_regions_free(&r);
        *failed = true;
        return NULL;
    }
    bool any = r.n > 0;
    autocast_regions_free(&r);
    if (!any) return NULL;
    fx_program *q = fx_program_copy(src);
    autocast_regions_find(q, &r);
    /* the copy's regions: every graph of its module tree that is one */
    fx_module *stack[128];
    size_t top = 0;
    stack[top++] = q->root;
    while (top) {
        fx_module *m = stack[--top];
        const autocast_region *reg = m->graph ? autocast_region_of(&r, m->graph) : NULL;
        if (reg && reg->dtype != FX_DT_UNKNOWN) rewrite_region(q, m->graph, reg->dtype);
        for (fx_module *c = m->first_child; c && top < 128; c = c->next_sibling) stack[top++] = c;
    }
    autocast_regions_free(&r);
    fx_program_refresh(q);
    return q;
}
