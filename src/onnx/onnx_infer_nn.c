/* onnx_infer_nn.c — type and shape inference of the neural-network operators (normalizations,
 * dropout, flatten, global pools, depth/space moves, resize, sampling, RoI pooling, attention,
 * recurrent layers, losses, one-hot, einsum) as onnx/defs computes it. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "onnx/onnx_infer_internal.h"

#define T_FLOAT ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
#define T_INT64 ONNX__TENSOR_PROTO__DATA_TYPE__INT64
#define T_BOOL ONNX__TENSOR_PROTO__DATA_TYPE__BOOL

static oi_dim dim(int64_t v) { return (oi_dim){v, NULL, false}; }
static const oi_dim unknown_dim = {-1, NULL, false};

/* a * b, unknown when either is */
static oi_dim dim_mul(oi_dim a, oi_dim b)
{
    int64_t r;
    return a.v >= 0 && b.v >= 0 && !__builtin_mul_overflow(a.v, b.v, &r) ? dim(r) : unknown_dim;
}

/* Every output of the record's kind that is "like input 0": Y of the normalizations, Swish,
 * RotaryEmbedding; Dropout's mask is bool of the same shape. arg 1: the element type only. */
int oi_infer_like_first(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    oi_like(&c->out[0], x, 0);
    if (c->arg == 1) c->out[0].rank = -1;   /* GroupNormalization: onnx infers its element type only */
    if (c->nout > 1 && !strcmp(c->n->op_type, "Dropout")) oi_like(&c->out[1], x, T_BOOL);
    return 0;
}

/* BatchNormalization: Y like X; in training mode the running mean and variance like the mean
 * input (opset 14+: of its type U). */
int oi_infer_batch_norm(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    oi_like(&c->out[0], x, 0);
    if (oi_shaped(x) && x->rank < 1) return oi_fail(c, "the input has rank 0");
    /* from BatchNormalization-9 on, scale, B, mean and var are vectors of X's channels (dim 1, or 1
     * for a rank-1 X) */
    if (c->opset >= 9) {
        static const char *const names[] = {"scale", "B", "input_mean", "input_var"};
        oi_dim ch = oi_shaped(x) ? (x->rank > 1 ? x->d[1] : dim(1)) : (oi_dim){-1, NULL, false};
        for (size_t i = 1; i <= 4; i++) {
            const oi_type *p = oi_in(c, i);
            if (!oi_shaped(p)) continue;
            if (p->rank != 1) return oi_fail(c, "input %zu (%s) has rank %d; it must be a vector (rank 1)", i, names[i - 1], p->rank);
            if (p->d[0].v >= 0 && ch.v >= 0 && p->d[0].v != ch.v)
                return oi_fail(c, "input %zu (%s) has %" PRId64 " entries for %" PRId64 " channels", i, names[i - 1], p->d[0].v, ch.v);
            if (ch.v < 0 && p->d[0].v >= 0) ch = p->d[0];
        }
    }
    for (size_t k = 1; k < c->nout && k < 3; k++) {
        const oi_type *m = oi_in(c, 2 + k);   /* input_mean, input_var */
        if (oi_known(m)) oi_like(&c->out[k], m, 0);
    }
    return 0;
}

/* Softmax, LogSoftmax, Hardmax: Y like X; the axis must name one of X's dims. */
int oi_infer_softmax(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    oi_like(&c->out[0], x, 0);
    if (!oi_shaped(x)) return 0;
    int64_t axis = oi_attr_i(c, "axis", c->opset >= 13 ? -1 : 1);
    if (axis < -x->rank || axis >= x->rank)
        return oi_fail(c, "'axis' must be in [%d , %d]. Its actual value is: %" PRId64, -x->rank, x->rank - 1, axis);
    return 0;
}

/* LayerNormalization: Y like X; Mean and InvStdDev of stash_type (float by default), X's shape
 * with the normalized axes (axis..rank-1) of size 1. */
int oi_infer_layer_norm(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    oi_like(&c->out[0], x, 0);
    int stash = (int)oi_attr_i(c, "stash_type", T_FLOAT);
    for (size_t k = 1; k < c->nout && k < 3; k++) c->out[k] = (oi_type){.elem = stash, .rank = -1};
    if (!oi_shaped(x) || c->nout < 2) return 0;
    int64_t axis = oi_attr_i(c, "axis", -1);
    if (axis < -x->rank || axis >= x->rank) return oi_fail(c, "axis %" PRId64 " is out of range for rank %d", axis, x->rank);
    int a = oi_norm_axis(axis, x->rank);
    for (size_t k = 1; k < c->nout && k < 3; k++) {
        c->out[k].rank = x->rank;
        for (int i = 0; i < x->rank; i++) c->out[k].d[i] = i < a ? x->d[i] : dim(1);
    }
    return 0;
}

/* Flatten: a matrix of the dims before axis and those from it. */
int oi_infer_flatten(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    c->out[0] = (oi_type){.elem = x->elem, .rank = -1};
    if (!oi_shaped(x)) return 0;
    int64_t axis = oi_attr_i(c, "axis", 1);
    if (axis < -x->rank || axis > x->rank) return oi_fail(c, "Invalid value(%" PRId64 ") for attribute 'axis'", axis);
    int a = (int)(axis < 0 ? axis + x->rank : axis);
    oi_dim l = dim(1), r = dim(1);
    for (int i = 0; i < x->rank; i++) {
        if (i < a) l = dim_mul(l, x->d[i]);
        else r = dim_mul(r, x->d[i]);
    }
    c->out[0].rank = 2;
    c->out[0].d[0] = l;
    c->out[0].d[1] = r;
    return 0;
}

/* GlobalAveragePool, GlobalMaxPool, GlobalLpPool: N, C and a 1 for each spatial dimension. */
int oi_infer_global_pool(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    oi_like(&c->out[0], x, 0);
    if (!oi_shaped(x)) return 0;
    if (x->rank < 2) return oi_fail(c, "the input has rank %d, fewer than 2", x->rank);
    for (int i = 2; i < x->rank; i++) c->out[0].d[i] = dim(1);
    return 0;
}

/* DepthToSpace (arg 0) and SpaceToDepth (arg 1) on [N, C, H, W]. */
int oi_infer_depth_space(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    c->out[0] = (oi_type){.elem = x->elem, .rank = -1};
    if (!oi_shaped(x)) return 0;
    if (x->rank != 4) return oi_fail(c, "Input tensor must be 4-dimensional");
    int64_t b = oi_attr_i(c, "blocksize", 0);
    if (b <= 0) return oi_fail(c, "Blocksize must be positive");
    oi_type *o = &c->out[0];
    o->rank = 4;
    o->d[0] = x->d[0];
    if (c->arg == 0) {
        o->d[1] = x->d[1].v >= 0 ? dim(x->d[1].v / (b * b)) : unknown_dim;
        o->d[2] = dim_mul(x->d[2], dim(b));
        o->d[3] = dim_mul(x->d[3], dim(b));
    } else {
        o->d[1] = dim_mul(x->d[1], dim(b * b));
        o->d[2] = x->d[2].v >= 0 ? dim(x->d[2].v / b) : unknown_dim;
        o->d[3] = x->d[3].v >= 0 ? dim(x->d[3].v / b) : unknown_dim;
    }
    return 0;
}

/* The float values of constant input i (scales): count, or -1. */
static int const_floats(const oi_ctx *c, size_t i, double *v, int cap)
{
    const oi_type *t = oi_in(c, i);
    if (!t || !t->value || t->value->numel > cap || t->value->rank > 1) return -1;
    for (int64_t k = 0; k < t->value->numel; k++) v[k] = ot_get_f(t->value, k);
    return (int)t->value->numel;
}

/* Resize (opset 10+) and Upsample: the sizes when constant, else each dimension times its scale
 * (floored, in float as onnx computes it); the rank alone when neither is constant. */
/* onnx's checks of Resize-13 and later that do not need X's shape: one of scales and sizes (a
 * sizes of static length 0 counts as absent, a given scales as present whatever its length), and
 * a keep_aspect_ratio_policy it knows. */
static int resize_inputs_ok(oi_ctx *c)
{
    if (!strcmp(c->n->op_type, "Upsample") || c->opset < 13) return 0;
    const oi_type *sizes = oi_in(c, 3);
    bool has_scales = c->n->n_input > 2 && c->n->input[2] && c->n->input[2][0];
    bool has_sizes = c->n->n_input > 3 && c->n->input[3] && c->n->input[3][0] &&
                     !(sizes && oi_shaped(sizes) && sizes->rank == 1 && sizes->d[0].v == 0);
    if (has_scales + has_sizes != 1) return oi_fail(c, "Either `sizes` or `scales` must be provided, but not both of them");
    const Onnx__AttributeProto *p = c->opset >= 18 ? ox_node_attr(c->n, "keep_aspect_ratio_policy") : NULL;
    if (p && p->s.data) {
        static const char *const known_policies[] = { "stretch", "not_larger", "not_smaller" };
        bool ok = false;
        for (size_t i = 0; i < 3; i++)
            ok |= p->s.len == strlen(known_policies[i]) && !memcmp(p->s.data, known_policies[i], p->s.len);
        if (!ok) {   /* the value as text, bytes outside printable ASCII as \xNN */
            char shown[96];
            size_t w = 0;
            for (size_t i = 0; i < p->s.len && w + 5 < sizeof shown; i++) {
                unsigned char b = p->s.data[i];
                w += (size_t)snprintf(shown + w, sizeof shown - w, b >= 0x20 && b < 0x7f ? "%c" : "\\x%02x", b);
            }
            return oi_fail(c, "Unknown value for `keep_aspect_ratio_policy`: %s.", shown);
        }
    }
    return 0;
}

int oi_infer_resize(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (resize_inputs_ok(c)) return -1;
    if (!oi_known(x)) return 0;
    oi_like(&c->out[0], x, 0);
    if (!oi_shaped(x)) return 0;
    int r = x->rank;
    oi_unknown_dims(&c->out[0], r);
    bool upsample = !strcmp(c->n->op_type, "Upsample");
    size_t scales_at = upsample || c->opset < 11 ? 1 : 2, sizes_at = 3;
    int64_t axes[OE_MAX_RANK];
    int na = c->opset >= 18 ? oi_attr_ints(c, "axes", axes, OE_MAX_RANK) : -1;
    if (na < 0) {
        na = r;
        for (int i = 0; i < r; i++) axes[i] = i;
    }
    for (int i = 0; i < na; i++) {
        if (axes[i] < -r || axes[i] >= r) return oi_fail(c, "axis %" PRId64 " is out of range", axes[i]);
        axes[i] = oi_norm_axis(axes[i], r);
    }
    /* the dimensions no axis resizes stay */
    bool resized[OE_MAX_RANK] = {false};
    for (int i = 0; i < na; i++) resized[axes[i]] = true;
    for (int i = 0; i < r; i++)
        if (!resized[i]) c->out[0].d[i] = x->d[i];
    int64_t sizes[OE_MAX_RANK];
    double scales[OE_MAX_RANK];
    int ns = !upsample && c->opset >= 11 ? oi_const_ints(c, sizes_at, sizes, OE_MAX_RANK) : -1;
    if (ns >= 0 && oi_in(c, sizes_at)) {
        if (ns != na) return oi_fail(c, "sizes has %d values for %d axes", ns, na);
        const Onnx__AttributeProto *p = ox_node_attr(c->n, "keep_aspect_ratio_policy");
        bool stretch = !p || !p->s.data || (p->s.len == 7 && !memcmp(p->s.data, "stretch", 7));
        if (stretch) {
            for (int i = 0; i < na; i++) c->out[0].d[axes[i]] = dim(sizes[i]);
            return 0;
        }
        bool larger = p->s.len == 11 && !memcmp(p->s.data, "not_smaller", 11);
        float scale = larger ? 0.0f : INFINITY;
        for (int i = 0; i < na; i++) {
            if (x->d[axes[i]].v < 0) return 0;
            float s = (float)sizes[i] / (float)x->d[axes[i]].v;
            scale = larger ? fmaxf(scale, s) : fminf(scale, s);
        }
        for (int i = 0; i < na; i++) c->out[0].d[axes[i]] = dim((int64_t)roundf(scale * (float)x->d[axes[i]].v));
        return 0;
    }
    int nsc = -1;
    if (upsample && c->opset < 9) {
        const Onnx__AttributeProto *a = ox_node_attr(c->n, "scales");
        if (a && a->n_floats <= OE_MAX_RANK) {
            nsc = (int)a->n_floats;
            for (int i = 0; i < nsc; i++) scales[i] = a->floats[i];
        }
    } else {
        nsc = const_floats(c, scales_at, scales, OE_MAX_RANK);
    }
    if (nsc <= 0) return 0;
    if (nsc != na) return oi_fail(c, "scales has %d values for %d axes", nsc, na);
    for (int i = 0; i < na; i++) {
        oi_dim d = x->d[axes[i]];
        c->out[0].d[axes[i]] = d.v >= 0 ? dim((int64_t)floorf((float)d.v * (float)scales[i])) : unknown_dim;
    }
    return 0;
}

/* GridSample: N and C of X, the spatial dims of the grid ([N, H_out, W_out, 2]). */
int oi_infer_grid_sample(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0), *g = oi_in(c, 1);
    if (!oi_known(x)) return 0;
    c->out[0] = (oi_type){.elem = x->elem, .rank = -1};
    if (!oi_shaped(x) || !oi_shaped(g)) return 0;
    if (g->rank != x->rank) return oi_fail(c, "the grid has rank %d for a rank-%d input", g->rank, x->rank);
    if (x->d[0].v >= 0 && g->d[0].v >= 0 && x->d[0].v != g->d[0].v)
        return oi_fail(c, "the grid's batch (%" PRId64 ") is not the input's (%" PRId64 ")", g->d[0].v, x->d[0].v);
    if (g->d[g->rank - 1].v >= 0 && g->d[g->rank - 1].v != g->rank - 2)
        return oi_fail(c, "the last dimension of the grid (%" PRId64 ") must be its rank minus 2 (%d)", g->d[g->rank - 1].v,
                       g->rank - 2);
    c->out[0].rank = x->rank;
    c->out[0].d[0] = x->d[0].v >= 0 ? x->d[0] : g->d[0];
    c->out[0].d[1] = x->d[1];
    for (int i = 2; i < x->rank; i++) c->out[0].d[i] = g->d[i - 1];
    return 0;
}

/* AffineGrid: theta [N, 2, 3] or [N, 3, 4], size (constant) [N, C, H, W] or [N, C, D, H, W]
 * gives [N, H, W, 2] or [N, D, H, W, 3]. */
int oi_infer_affine_grid(oi_ctx *c)
{
    const oi_type *th = oi_in(c, 0);
    if (!oi_known(th)) return 0;
    c->out[0] = (oi_type){.elem = th->elem, .rank = -1};
    int64_t size[6];
    int n = oi_const_ints(c, 1, size, 6);
    if (n < 0) {
        const oi_type *s = oi_in(c, 1);
        if (oi_shaped(s) && s->rank == 1 && s->d[0].v >= 0 && s->d[0].v != 4 && s->d[0].v != 5)
            return oi_fail(c, "Length of input 'size' is %" PRId64 ". It must be 4 for 2D or 5 for 5D.", s->d[0].v);
        if (oi_shaped(s) && s->rank == 1 && (s->d[0].v == 4 || s->d[0].v == 5)) {
            int n = (int)s->d[0].v;   /* N from theta, the last the number of coordinates */
            oi_unknown_dims(&c->out[0], n);
            if (oi_shaped(th) && th->rank == 3) c->out[0].d[0] = th->d[0];
            c->out[0].d[n - 1] = dim(n - 2);
        }
        return 0;
    }
    if (n != 4 && n != 5) return oi_fail(c, "size has %d values; AffineGrid takes 4 (2D) or 5 (3D)", n);
    c->out[0].rank = n;
    c->out[0].d[0] = dim(size[0]);
    for (int i = 2; i < n; i++) c->out[0].d[i - 1] = dim(size[i]);
    c->out[0].d[n - 1] = dim(n - 2);
    return 0;
}

/* Col2Im: [N, C * prod(block_shape), L] with image_shape and block_shape constant gives
 * [N, C, *image_shape]. */
int oi_infer_col2im(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    c->out[0] = (oi_type){.elem = x->elem, .rank = -1};
    int64_t img[OE_MAX_RANK], blk[OE_MAX_RANK];
    int ni = oi_const_ints(c, 1, img, OE_MAX_RANK - 2), nb = oi_const_ints(c, 2, blk, OE_MAX_RANK - 2);
    if (ni < 0) {
        const oi_type *s = oi_in(c, 1);
        if (oi_shaped(s) && s->rank == 1 && s->d[0].v >= 0 && s->d[0].v + 2 <= OE_MAX_RANK) {
            oi_unknown_dims(&c->out[0], (int)s->d[0].v + 2);
            if (oi_shaped(x) && x->rank == 3) c->out[0].d[0] = x->d[0];   /* N */
        }
        return 0;
    }
    if (nb >= 0 && nb != ni) return oi_fail(c, "image_shape and block_shape have %d and %d values", ni, nb);
    oi_type *o = &c->out[0];
    oi_unknown_dims(o, ni + 2);
    for (int i = 0; i < ni; i++) o->d[i + 2] = dim(img[i]);
    if (!oi_shaped(x)) return 0;
    if (x->rank != 3) return oi_fail(c, "the input has rank %d; Col2Im takes [N, C * prod(block_shape), L]", x->rank);
    o->d[0] = x->d[0];
    if (nb >= 0 && x->d[1].v >= 0) {
        int64_t p = 1;
        for (int i = 0; i < nb; i++) p *= blk[i];
        if (p > 0) o->d[1] = dim(x->d[1].v / p);
    }
    return 0;
}

/* RoiAlign [num_rois, C, output_height, output_width]; MaxRoiPool the same with pooled_shape. */
int oi_infer_roi(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0), *rois = oi_in(c, 1);
    if (!oi_known(x)) return 0;
    c->out[0] = (oi_type){.elem = x->elem, .rank = 4};
    oi_unknown_dims(&c->out[0], 4);
    if (oi_shaped(x) && x->rank != 4) return oi_fail(c, "the input has rank %d; it must be [N, C, H, W]", x->rank);
    if (oi_shaped(rois) && rois->rank != 2) return oi_fail(c, "rois has rank %d; it must be [num_rois, 4 or 5]", rois->rank);
    if (oi_shaped(rois)) c->out[0].d[0] = rois->d[0];
    if (oi_shaped(x)) c->out[0].d[1] = x->d[1];
    if (!strcmp(c->n->op_type, "MaxRoiPool")) {
        int64_t ps[2];
        if (oi_attr_ints(c, "pooled_shape", ps, 2) == 2) {
            c->out[0].d[2] = dim(ps[0]);
            c->out[0].d[3] = dim(ps[1]);
        }
    } else {
        c->out[0].d[2] = dim(oi_attr_i(c, "output_height", 1));
        c->out[0].d[3] = dim(oi_attr_i(c, "output_width", 1));
    }
    return 0;
}

/* CenterCropPad: the input's shape with the axes' dims of the (constant) shape input. */
int oi_infer_center_crop_pad(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    oi_like(&c->out[0], x, 0);
    if (!oi_shaped(x)) return 0;
    int64_t sh[OE_MAX_RANK], axes[OE_MAX_RANK];
    int ns = oi_const_ints(c, 1, sh, OE_MAX_RANK);
    int na = oi_attr_ints(c, "axes", axes, OE_MAX_RANK);
    if (na < 0) {
        na = x->rank;
        for (int i = 0; i < na; i++) axes[i] = i;
    }
    if (ns < 0) {   /* the shape not constant: onnx infers the element type only */
        c->out[0].rank = -1;
        return 0;
    }
    if (ns != na) return oi_fail(c, "shape has %d values for %d axes", ns, na);
    for (int i = 0; i < na; i++) {
        if (axes[i] < -x->rank || axes[i] >= x->rank) return oi_fail(c, "axis %" PRId64 " is out of range", axes[i]);
        c->out[0].d[oi_norm_axis(axes[i], x->rank)] = dim(sh[i]);
    }
    return 0;
}

/* MaxUnpool: output_shape when given and constant, else (in - 1) * stride + kernel - pads. */
int oi_infer_max_unpool(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    c->out[0] = (oi_type){.elem = x->elem, .rank = -1};
    int64_t os[OE_MAX_RANK];
    int n = oi_in(c, 2) ? oi_const_ints(c, 2, os, OE_MAX_RANK) : -2;
    if (n >= 0) {
        c->out[0].rank = n;
        for (int i = 0; i < n; i++) c->out[0].d[i] = dim(os[i]);
        return 0;
    }
    if (!oi_shaped(x) || x->rank < 3) return 0;
    int sp = x->rank - 2;
    int64_t k[OE_MAX_RANK], st[OE_MAX_RANK], pads[2 * OE_MAX_RANK];
    if (oi_attr_ints(c, "kernel_shape", k, OE_MAX_RANK) != sp) return oi_fail(c, "kernel_shape must have %d values", sp);
    if (oi_attr_ints(c, "strides", st, OE_MAX_RANK) != sp) for (int i = 0; i < sp; i++) st[i] = 1;
    if (oi_attr_ints(c, "pads", pads, 2 * OE_MAX_RANK) != 2 * sp) for (int i = 0; i < 2 * sp; i++) pads[i] = 0;
    oi_unknown_dims(&c->out[0], x->rank);
    if (n == -1) return 0;   /* output_shape given but not constant */
    c->out[0].d[0] = x->d[0];
    c->out[0].d[1] = x->d[1];
    for (int i = 0; i < sp; i++)
        if (x->d[i + 2].v >= 0) c->out[0].d[i + 2] = dim((x->d[i + 2].v - 1) * st[i] + k[i] - pads[i] - pads[i + sp]);
    return 0;
}

/* Attention (opset 23): Y is [B, q_heads, q_seq, v_head] for 4-D inputs, [B, q_seq, q_heads *
 * v_head] for 3-D ones; present_key / present_value [B, kv_heads, past + kv_seq, head];
 * qk_matmul_output [B, q_heads, q_seq, total_seq]. */
int oi_infer_attention(oi_ctx *c)
{
    const oi_type *q = oi_in(c, 0), *k = oi_in(c, 1), *v = oi_in(c, 2);
    const oi_type *pk = oi_in(c, 4), *pv = oi_in(c, 5);
    if (!oi_known(q)) return 0;
    c->out[0] = (oi_type){.elem = q->elem, .rank = -1};
    for (size_t i = 1; i < c->nout && i < 3; i++) {
        const oi_type *src = i == 1 ? k : v;
        if (oi_known(src)) c->out[i] = (oi_type){.elem = src->elem, .rank = -1};
    }
    if (c->nout > 3) c->out[3] = (oi_type){.elem = q->elem, .rank = -1};
    if (!oi_shaped(q) || !oi_shaped(k) || !oi_shaped(v)) return 0;
    if (q->rank != 3 && q->rank != 4) return oi_fail(c, "Q has rank %d; Attention takes 3-D or 4-D inputs", q->rank);
    if (k->rank != q->rank || v->rank != q->rank) return oi_fail(c, "Q, K and V must have the same rank");
    int64_t qh = oi_attr_i(c, "q_num_heads", 0), kvh = oi_attr_i(c, "kv_num_heads", 0);
    oi_dim B = q->d[0], qseq, kvseq, vhead, khead, heads_kv;
    oi_type *y = &c->out[0];
    if (q->rank == 4) {
        qseq = q->d[2];
        kvseq = k->d[2];
        vhead = v->d[3];
        khead = k->d[3];
        heads_kv = k->d[1];
        y->rank = 4;
        y->d[0] = B;
        y->d[1] = q->d[1];
        y->d[2] = qseq;
        y->d[3] = vhead;
    } else {
        if (qh <= 0 || kvh <= 0) return oi_fail(c, "3-D inputs need q_num_heads and kv_num_heads");
        qseq = q->d[1];
        kvseq = k->d[1];
        vhead = v->d[2].v >= 0 ? dim(v->d[2].v / kvh) : unknown_dim;
        khead = k->d[2].v >= 0 ? dim(k->d[2].v / kvh) : unknown_dim;
        heads_kv = dim(kvh);
        y->rank = 3;
        y->d[0] = B;
        y->d[1] = qseq;
        y->d[2] = dim_mul(dim(qh), vhead);
    }
    oi_dim total = kvseq;
    if (oi_shaped(pk) && pk->rank == 4) {
        oi_dim past = pk->d[2];
        total = past.v >= 0 && kvseq.v >= 0 ? dim(past.v + kvseq.v) : unknown_dim;
    } else if (pk) {
        total = unknown_dim;
    }
    /* the present is the past with the new keys / values appended along the sequence: every other
     * dim of the past must be the batch, the kv heads and the head size of K / V */
    for (size_t i = 1; i <= 2; i++) {
        const oi_type *past = i == 1 ? pk : pv;
        if (!oi_shaped(past)) continue;
        if (past->rank != 4) return oi_fail(c, "%s has rank %d; it must be 4-D", i == 1 ? "past_key" : "past_value", past->rank);
        oi_dim want[4] = {B, heads_kv, unknown_dim, i == 1 ? khead : vhead};
        for (int d = 0; d < 4; d++)
            if (want[d].v >= 0 && past->d[d].v >= 0 && want[d].v != past->d[d].v)
                return oi_fail(c, "%s has %" PRId64 " in dimension %d where %s has %" PRId64, i == 1 ? "past_key" : "past_value",
                               past->d[d].v, d, d == 3 ? (i == 1 ? "K's head size" : "V's head size") : d == 0 ? "the batch" : "the kv heads",
                               want[d].v);
    }
    for (size_t i = 1; i < c->nout && i < 3; i++) {
        const oi_type *past = i == 1 ? pk : pv;
        if (!past) continue;   /* no past: no present */
        c->out[i].rank = 4;
        c->out[i].d[0] = B;
        c->out[i].d[1] = heads_kv;
        c->out[i].d[2] = total;
        c->out[i].d[3] = i == 1 ? khead : vhead;
    }
    if (c->nout > 3) {
        c->out[3].rank = 4;
        c->out[3].d[0] = B;
        c->out[3].d[1] = q->rank == 4 ? q->d[1] : dim(qh);
        c->out[3].d[2] = qseq;
        c->out[3].d[3] = total;
    }
    return 0;
}

/* RNN, GRU, LSTM: Y [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs, hidden]), Y_h and
 * Y_c [dirs, batch, hidden] (layout 1: [batch, dirs, hidden]). */
int oi_infer_rnn(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0);
    if (!oi_known(x)) return 0;
    for (size_t i = 0; i < c->nout && i < 3; i++) c->out[i] = (oi_type){.elem = x->elem, .rank = -1};
    const Onnx__AttributeProto *d = ox_node_attr(c->n, "direction");
    int64_t dirs = d && d->s.data && d->s.len == 13 && !memcmp(d->s.data, "bidirectional", 13) ? 2 : 1;
    int64_t hidden = oi_attr_i(c, "hidden_size", -1);
    bool batch_first = oi_attr_i(c, "layout", 0) == 1;
    oi_dim seq = unknown_dim, batch = unknown_dim, h = hidden > 0 ? dim(hidden) : unknown_dim;
    if (oi_shaped(x)) {
        if (x->rank != 3) return oi_fail(c, "the input has rank %d; it must be 3", x->rank);
        seq = x->d[batch_first ? 1 : 0];
        batch = x->d[batch_first ? 0 : 1];
    }
    if (c->nout > 0) {
        oi_type *y = &c->out[0];
        oi_dim ds[4] = {seq, dim(dirs), batch, h}, bs[4] = {batch, seq, dim(dirs), h};
        y->rank = 4;
        memcpy(y->d, batch_first ? bs : ds, sizeof ds);
    }
    for (size_t i = 1; i < c->nout && i < 3; i++) {
        oi_type *o = &c->out[i];
        o->rank = 3;
        o->d[0] = batch_first ? batch : dim(dirs);
        o->d[1] = batch_first ? dim(dirs) : batch;
        o->d[2] = h;
    }
    return 0;
}

/* NegativeLogLikelihoodLoss (arg 0) and SoftmaxCrossEntropyLoss (arg 1): the loss of each
 * element (the target's shape) with reduction "none", else a scalar; SCE's log_prob like the
 * scores. */
int oi_infer_loss(oi_ctx *c)
{
    const oi_type *x = oi_in(c, 0), *t = oi_in(c, 1);
    if (!oi_known(x)) return 0;
    const Onnx__AttributeProto *r = ox_node_attr(c->n, "reduction");
    bool none = r && r->s.data && r->s.len == 4 && !memcmp(r->s.data, "none", 4);
    c->out[0] = (oi_type){.elem = x->elem, .rank = -1};
    if (c->arg == 1 && c->nout > 1) oi_like(&c->out[1], x, 0);
    if (!oi_shaped(x) || !oi_shaped(t)) return 0;   /* onnx infers the shapes once both inputs have them */
    if (!none) c->out[0].rank = 0;
    if (none && oi_shaped(t)) {
        c->out[0].rank = t->rank;
        for (int i = 0; i < t->rank; i++) c->out[0].d[i] = t->d[i];
    }
    if (oi_shaped(x) && oi_shaped(t) && t->rank != x->rank - 1)
        return oi_fail(c, "the target has rank %d; it must be one less than the input's %d", t->rank, x->rank);
    /* N, then the spatial dims: the input's 0, 2, 3, ... against the target's 0, 1, 2, ... */
    for (int i = 0; i < t->rank; i++) {
        const oi_dim *a = &x->d[i ? i + 1 : 0], *b = &t->d[i];
        if (a->v >= 0 && b->v >= 0 && a->v != b->v)
            return oi_fail(c, "Input and target dimension value mismatch. input_dim_value=%" PRId64 " target_dim_value=%" PRId64,
                           a->v, b->v);
    }
    return 0;
}

/* OneHot: the indices' shape with depth inserted at axis; the values' element type. */
int oi_infer_one_hot(oi_ctx *c)
{
    const oi_type *ind = oi_in(c, 0), *vals = oi_in(c, 2);
    if (!oi_known(vals)) return 0;
    c->out[0] = (oi_type){.elem = vals->elem, .rank = -1};
    if (!oi_shaped(ind) || ind->rank + 1 > OE_MAX_RANK) return 0;
    int r = ind->rank + 1;
    int64_t axis = oi_attr_i(c, "axis", -1);
    if (axis < -r || axis >= r) return oi_fail(c, "'axis' must be in [-%d, %d]", r, r - 1);
    int a = oi_norm_axis(axis, r);
    double depth[1];
    const oi_type *dt = oi_in(c, 1);
    oi_dim dd = dt && dt->value && dt->value->numel == 1 ? (const_floats(c, 1, depth, 1), dim((int64_t)depth[0])) : unknown_dim;
    c->out[0].rank = r;
    for (int i = 0, j = 0; i < r; i++) c->out[0].d[i] = i == a ? dd : ind->d[j++];
    return 0;
}

/* Einsum: the output subscripts (explicit after "->", else the letters used once, sorted), each
 * letter's dimension from the inputs; "..." broadcast. */
int oi_infer_einsum(oi_ctx *c)
{
    const Onnx__AttributeProto *eq = ox_node_attr(c->n, "equation");
    const oi_type *x0 = oi_in(c, 0);
    if (!oi_known(x0) || !eq || !eq->s.data) return 0;
    c->out[0] = (oi_type){.elem = x0->elem, .rank = -1};
    char e[512];
    size_t L = 0;
    for (size_t i = 0; i < eq->s.len && L + 1 < sizeof e; i++)
        if (!isspace(eq->s.data[i])) e[L++] = (char)eq->s.data[i];
    e[L] = 0;
    char *arrow = strstr(e, "->");
    if (arrow) *arrow = 0;
    oi_dim letter[128];
    int count[128] = {0};
    for (int i = 0; i < 128; i++) letter[i] = unknown_dim;
    oi_type ell = {.elem = 1, .rank = 0};   /* the broadcast of every input's "..." dims */
    int ell_rank = -1;
    char *term = e;
    for (size_t in = 0; term; in++) {
        char *comma = strchr(term, ',');
        if (comma) *comma = 0;
        const oi_type *x = oi_in(c, in);
        if (!oi_shaped(x)) return 0;
        int letters = 0;
        bool has_ell = strstr(term, "...") != NULL;
        for (char *p = term; *p; p++)
            if (isalpha((unsigned char)*p)) letters++;
        if (has_ell ? x->rank < letters : x->rank != letters)
            return oi_fail(c, "Rank of input %zu does not match the equation indices", in);
        int d = 0;
        for (char *p = term; *p;) {
            if (!strncmp(p, "...", 3)) {
                int n = x->rank - letters;
                oi_type part = {.elem = 1, .rank = n};
                for (int k = 0; k < n; k++) part.d[k] = x->d[d + k];
                const oi_type *ts[2] = {&ell, &part};
                oi_type b;
                if (oi_broadcast(c, ts, 2, &b)) return -1;
                ell = b;
                ell_rank = ell.rank;
                d += n;
                p += 3;
                continue;
            }
            unsigned char ch = (unsigned char)*p++;
            if (!isalpha(ch)) return oi_fail(c, "Invalid character in equation");
            count[ch]++;
            if (x->d[d].v >= 0) letter[ch] = x->d[d];
            d++;
        }
        term = comma ? comma + 1 : NULL;
    }
    oi_type *o = &c->out[0];
    o->rank = 0;
    if (arrow) {
        for (char *p = arrow + 2; *p;) {
            if (!strncmp(p, "...", 3)) {
                for (int k = 0; k < ell.rank && o->rank < OE_MAX_RANK; k++) o->d[o->rank++] = ell.d[k];
                p += 3;
                continue;
            }
            unsigned char ch = (unsigned char)*p++;
            if (!isalpha(ch) || !count[ch]) return oi_fail(c, "the output subscript '%c' is in no input", ch);
            if (o->rank >= OE_MAX_RANK) { o->rank = -1; return 0; }
            o->d[o->rank++] = letter[ch];
        }
    } else {
        for (int k = 0; ell_rank > 0 && k < ell.rank; k++) o->d[o->rank++] = ell.d[k];
        for (int ch = 0; ch < 128; ch++)
            if (count[ch] == 1 && o->rank < OE_MAX_RANK) o->d[o->rank++] = letter[ch];
    }
    return 0;
}
