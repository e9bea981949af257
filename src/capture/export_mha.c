/* export_mha.c — nn.MultiheadAttention as torch.export records F.multi_head_attention_forward. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fx/fx_build.h"
#include "capture/export_internal.h"

/* torch.export traces MultiheadAttention.forward with make_fx, which rules out the fused
 * fast path (_native_multi_head_attention): what it records is the Python of
 * torch/nn/functional.py multi_head_attention_forward — in-projection, head reshapes, then
 * either explicit bmm/softmax (need_weights=True) or scaled_dot_product_attention. Eval mode,
 * so dropout_p is 0 and no dropout is recorded. */

typedef struct mha {
    xctx *x;
    const fx_node *n;          /* the call_module node */
    const char *path;          /* module path, for the lifted weights */
    int64_t embed_dim, num_heads, head_dim;
    bool batch_first;
    bool failed;               /* an emit reported an error; later emits are skipped */
} mha;

/* ---- small emitters ---------------------------------------------------------------------- */

/* A failed emit gives NULL; its users then see None and the builder reports failure once. */
static fx_arg *A(mha *s, fx_node *n) { return n ? fx_arg_node(s->x->dst, n) : fx_arg_none(s->x->dst); }
static fx_arg *I(mha *s, int64_t v) { return fx_arg_int(s->x->dst, v); }

static fx_arg *ints(mha *s, fx_arg **items, size_t n) { return fx_arg_seq(s->x->dst, FX_ARG_LIST, items, NULL, n); }

static fx_node *op(mha *s, const char *target, const char *schema, fx_arg **args, size_t n)
{
    if (s->failed)
        return NULL;
    fx_node *r = xp_emit_call(s->x, target, schema, args, n, NULL, NULL, 0);
    s->failed = !r;
    return r;
}

static fx_node *op2(mha *s, const char *target, const char *schema, fx_node *a, fx_arg *b)
{
    fx_arg *args[2] = { A(s, a), b };
    return op(s, target, schema, args, 2);
}

static fx_node *op3(mha *s, const char *target, const char *schema, fx_node *a, fx_arg *b, fx_arg *c)
{
    fx_arg *args[3] = { A(s, a), b, c };
    return op(s, target, schema, args, 3);
}

static fx_node *transpose(mha *s, fx_node *t, int64_t d0, int64_t d1)
{
    return op3(s, "aten.transpose.int", "self,dim0,dim1", t, I(s, d0), I(s, d1));
}

static fx_node *view(mha *s, fx_node *t, fx_arg **dims, size_t n)
{
    return op2(s, "aten.view.default", "self,size", t, ints(s, dims, n));
}

static fx_node *contiguous(mha *s, fx_node *t)
{
    fx_arg *a = A(s, t);
    return op(s, "aten.contiguous.default", "self,*,memory_format=torch.contiguous_format", &a, 1);
}

static fx_node *linear(mha *s, fx_node *in, fx_arg *w, fx_arg *b)
{
    fx_arg *args[3] = { A(s, in), w, b };
    return op(s, "aten.linear.default", "input,weight,bias=None", args, 3);
}

/* a * b on sizes: folded when both are known, else operator.mul as torch records SymInt math. */
static fx_arg *size_mul(mha *s, fx_arg *a, fx_arg *b)
{
    if (a->kind == FX_ARG_INT && b->kind == FX_ARG_INT)
        return I(s, a->u.i * b->u.i);
    fx_arg *args[2] = { a, b };
    return A(s, xp_emit_python(s->x, "mul", "operator.mul", args, 2));
}

/* The n pieces of a list-returning op (split_with_sizes, chunk), as operator.getitem nodes. */
static void pieces(mha *s, fx_node *list, fx_node **out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fx_arg *ga[2] = { A(s, list), I(s, (int64_t)i) };
        out[i] = s->failed ? NULL : xp_emit_python(s->x, "getitem", "operator.getitem", ga, 2);
    }
}

/* Splits the packed in-projection weight (or bias) w: split_with_sizes by sizes, or chunk(3). */
static void split_packed(mha *s, fx_arg *w, const int64_t *sizes, size_t n, fx_arg **out)
{
    if (w->kind == FX_ARG_NONE) {
        for (size_t i = 0; i < n; i++)
            out[i] = w;
        return;
    }
    fx_node *list;
    if (sizes) {
        fx_arg *sz[3];
        for (size_t i = 0; i < n; i++)
            sz[i] = I(s, sizes[i]);
        fx_arg *args[2] = { w, ints(s, sz, n) };
        list = op(s, "aten.split_with_sizes.default", "self,split_sizes,dim=0", args, 2);
    } else {
        fx_arg *args[2] = { w, I(s, (int64_t)n) };
        list = op(s, "aten.chunk.default", "self,chunks,dim=0", args, 2);
    }
    fx_node *p[3];
    pieces(s, list, p, n);
    for (size_t i = 0; i < n; i++)
        out[i] = A(s, p[i]);
}

/* proj.unflatten(-1, (k, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous(), then
 * proj[0..k-1]: the packed projection split into its k parts. */
static void unpack(mha *s, fx_node *proj, int64_t k, fx_node **out)
{
    fx_arg *sz[2] = { I(s, k), I(s, s->embed_dim) };
    fx_node *t = op3(s, "aten.unflatten.int", "self,dim,sizes", proj, I(s, -1), ints(s, sz, 2));
    t = op2(s, "aten.unsqueeze.default", "self,dim", t, I(s, 0));
    t = transpose(s, t, 0, -2);
    t = op2(s, "aten.squeeze.dim", "self,dim", t, I(s, -2));
    t = contiguous(s, t);
    for (int64_t i = 0; i < k; i++)
        out[i] = op3(s, "aten.select.int", "self,dim,index", t, I(s, 0), I(s, i));
}

/* _in_projection_packed: one linear when query, key and value are one tensor, two when key
 * and value are, three otherwise. */
static void in_projection(mha *s, fx_node *q, fx_node *k, fx_node *v, fx_node **qkv)
{
    fx_arg *w = xp_weight_arg(s->x, s->path, "in_proj_weight");
    fx_arg *b = xp_weight_arg(s->x, s->path, "in_proj_bias");
    int64_t e = s->embed_dim;
    if (k == v && q == k) {
        unpack(s, linear(s, q, w, b), 3, qkv);
    } else if (k == v) {
        const int64_t sizes[2] = { e, 2 * e };
        fx_arg *ws[2], *bs[2];
        split_packed(s, w, sizes, 2, ws);
        split_packed(s, b, sizes, 2, bs);
        qkv[0] = linear(s, q, ws[0], bs[0]);
        unpack(s, linear(s, k, ws[1], bs[1]), 2, qkv + 1);
    } else {
        fx_arg *ws[3], *bs[3];
        split_packed(s, w, NULL, 3, ws);
        split_packed(s, b, NULL, 3, bs);
        for (int i = 0; i < 3; i++)
            qkv[i] = linear(s, i == 0 ? q : i == 1 ? k : v, ws[i], bs[i]);
    }
}

/* ---- configuration and call binding -------------------------------------------------------- */

static bool config_value(mha *s, const char *text, const char *key, int pos, fx_arg **out)
{
    const char *vs, *ve;
    *out = NULL;
    if (!text || !fx_repr_find(text, key, pos, &vs, &ve))
        return false;
    *out = fx_parse_literal(s->x->dst, vs, ve);
    return *out != NULL;
}

static bool bad_config(mha *s, const char *key, const char *what)
{
    diag_error(s->x->d, xp_loc(s->x), "export: nn.MultiheadAttention %s (node %%%s): %s %s", s->path, s->n->name,
               key, what);
    return false;
}

/* Reads embed_dim, num_heads and batch_first from the module's constructor arguments, and
 * refuses the options this builder does not record (bias_k/bias_v, zero attention, kdim/vdim). */
static bool read_config(mha *s, const fx_module *m)
{
    xctx *x = s->x;
    const char *text = xp_module_config(x, m);
    fx_arg *v;
    s->embed_dim = 0;
    if (config_value(s, text, "embed_dim", 0, &v) && v->kind == FX_ARG_INT) {
        s->embed_dim = v->u.i;
    } else {
        /* torch prints MultiheadAttention without settings; its out_proj shows the width */
        const fx_module *o = fx_module_child(m, "out_proj");
        if (o && config_value(s, xp_module_config(x, o), "in_features", 0, &v) && v->kind == FX_ARG_INT)
            s->embed_dim = v->u.i;
    }
    if (!config_value(s, text, "num_heads", 1, &v) || v->kind != FX_ARG_INT) {
        diagnostic *dg = diag_error(x->d, xp_loc(x),
                                    "export: nn.MultiheadAttention %s (node %%%s): the module text does not say "
                                    "num_heads (torch prints none)", s->path, s->n->name);
        diag_set_hint(dg, "write its constructor arguments on the module line, e.g. "
                          "(attn): MultiheadAttention(embed_dim=16, num_heads=4, batch_first=True)");
        return false;
    }
    s->num_heads = v->u.i;
    if (s->embed_dim <= 0)
        return bad_config(s, "embed_dim", "is not known (write embed_dim=... on the module line)");
    if (s->num_heads <= 0 || s->embed_dim % s->num_heads != 0)
        return bad_config(s, "embed_dim", "must be divisible by num_heads");
    s->head_dim = s->embed_dim / s->num_heads;
    s->batch_first = config_value(s, text, "batch_first", 8, &v) && v->kind == FX_ARG_BOOL && v->u.b;
    static const char *const flags[] = { "add_bias_kv", "add_zero_attn" };
    for (int i = 0; i < 2; i++)
        if (config_value(s, text, flags[i], 4 + i, &v) && !(v->kind == FX_ARG_BOOL && !v->u.b))
            return bad_config(s, flags[i], "is not supported (only the default False)");
    static const char *const dims[] = { "kdim", "vdim" };
    for (int i = 0; i < 2; i++)
        if (config_value(s, text, dims[i], 6 + i, &v) && v->kind != FX_ARG_NONE &&
            !(v->kind == FX_ARG_INT && v->u.i == s->embed_dim))
            return bad_config(s, dims[i], "other than embed_dim is not supported (separate projection weights)");
    return true;
}

enum { Q, K, V, KEY_PADDING_MASK, NEED_WEIGHTS, ATTN_MASK, AVERAGE, IS_CAUSAL, N_PARAMS };
static const char *const params[N_PARAMS] = { "query", "key", "value", "key_padding_mask", "need_weights",
                                              "attn_mask", "average_attn_weights", "is_causal" };

/* Binds MultiheadAttention.forward's arguments (positional, then by keyword). */
static bool bind_call(mha *s, fx_arg **bound)
{
    xctx *x = s->x;
    const fx_node *n = s->n;
    bool ok = true;
    for (int i = 0; i < N_PARAMS; i++)
        bound[i] = NULL;
    if (n->args->u.seq.len > N_PARAMS)
        return bad_config(s, "forward", "was called with too many arguments");
    for (size_t i = 0; i < n->args->u.seq.len; i++)
        bound[i] = xp_conv_arg(x, n->args->u.seq.items[i], &ok);
    for (size_t k = 0; k < n->kwargs->u.seq.len; k++) {
        int i = 0;
        while (i < N_PARAMS && strcmp(params[i], n->kwargs->u.seq.keys[k]) != 0)
            i++;
        if (i == N_PARAMS)
            return bad_config(s, n->kwargs->u.seq.keys[k], "is not an argument of forward");
        bound[i] = xp_conv_arg(x, n->kwargs->u.seq.items[k], &ok);
    }
    if (!ok)
        return false;
    for (int i = Q; i <= V; i++)
        if (!bound[i] || bound[i]->kind != FX_ARG_NODE)
            return bad_config(s, params[i], "must be a tensor");
    if ((bound[KEY_PADDING_MASK] && bound[KEY_PADDING_MASK]->kind != FX_ARG_NONE) ||
        (bound[ATTN_MASK] && bound[ATTN_MASK]->kind != FX_ARG_NONE))
        return bad_config(s, "key_padding_mask/attn_mask", "are not supported yet (only None)");
    for (int i = NEED_WEIGHTS; i < N_PARAMS; i++)
        if (bound[i] && i != ATTN_MASK && bound[i]->kind != FX_ARG_BOOL)
            return bad_config(s, params[i], "must be True or False");
    return true;
}

static bool flag(fx_arg **bound, int i, bool def) { return bound[i] ? bound[i]->u.b : def; }

/* ---- the builder ------------------------------------------------------------------------------ */

static bool build_multihead_attention(xctx *x, const fx_node *n, const fx_module *m)
{
    mha s = { .x = x, .n = n, .path = n->target };
    fx_arg *bound[N_PARAMS];
    if (!read_config(&s, m) || !bind_call(&s, bound))
        return false;
    bool need_weights = flag(bound, NEED_WEIGHTS, true), average = flag(bound, AVERAGE, true);
    if (flag(bound, IS_CAUSAL, false)) {
        diagnostic *dg = diag_error(x->d, xp_loc(x), "Need attn_mask if specifying the is_causal hint. You may use the "
                                    "Transformer module method `generate_square_subsequent_mask` to create this mask.");
        diag_set_hint(dg, "torch raises this RuntimeError in multi_head_attention_forward (node %%%s)", n->name);
        return false;
    }
    fx_node *q = bound[Q]->u.node, *k = bound[K]->u.node, *v = bound[V]->u.node;
    /* 2-d input is one unbatched sequence; an input of unknown rank is taken as batched */
    const fx_value *qv = q->meta.val;
    bool batched = !(qv && qv->kind == FX_VAL_TENSOR && qv->sizes && qv->rank == 2);
    /* sizes as torch reads them from query.shape / key.shape after the layout changes below */
    int tdim = batched && s.batch_first ? 1 : 0;
    fx_arg *tgt = xp_dim_value(x, q, tdim), *src = k == q ? tgt : xp_dim_value(x, k, tdim);
    fx_arg *bsz = batched ? xp_dim_value(x, q, s.batch_first ? 0 : 1) : I(&s, 1);
    if (!tgt || !src || !bsz)
        return false;
    if (!batched) {
        /* unsqueezed one by one: query, key and value are no longer one tensor afterwards */
        q = op2(&s, "aten.unsqueeze.default", "self,dim", q, I(&s, 1));
        k = op2(&s, "aten.unsqueeze.default", "self,dim", k, I(&s, 1));
        v = op2(&s, "aten.unsqueeze.default", "self,dim", v, I(&s, 1));
    } else if (s.batch_first) {
        /* sequence first, keeping which of query, key and value are the same tensor */
        if (k == v) {
            bool self = q == k;
            q = transpose(&s, q, 1, 0);
            k = v = self ? q : transpose(&s, k, 1, 0);
        } else {
            q = transpose(&s, q, 1, 0);
            k = transpose(&s, k, 1, 0);
            v = transpose(&s, v, 1, 0);
        }
    }
    fx_node *qkv[3];
    in_projection(&s, q, k, v, qkv);
    /* heads into the batch dimension: (len, bsz * heads, head_dim), batch first */
    fx_arg *bh = size_mul(&s, bsz, I(&s, s.num_heads)), *hd = I(&s, s.head_dim);
    fx_arg *qd[3] = { tgt, bh, hd }, *kd[3] = { src, bh, hd };
    fx_node *qh = transpose(&s, view(&s, qkv[0], qd, 3), 0, 1);
    fx_node *kh = transpose(&s, view(&s, qkv[1], kd, 3), 0, 1);
    fx_node *vh = transpose(&s, view(&s, qkv[2], kd, 3), 0, 1);
    fx_arg *e = I(&s, s.embed_dim);
    fx_arg *out_w = xp_weight_arg(x, s.path, "out_proj.weight"), *out_b = xp_weight_arg(x, s.path, "out_proj.bias");
    fx_node *out, *probs = NULL, *weights = NULL;
    if (need_weights) {
        fx_arg *scale = fx_arg_float(x->dst, sqrt(1.0 / (double)s.head_dim));
        /* emitted one statement at a time: the graph keeps torch's order */
        fx_node *qs = op2(&s, "aten.mul.Tensor", "self,other", qh, scale);
        fx_node *kt = transpose(&s, kh, -2, -1);
        fx_node *scores = op2(&s, "aten.bmm.default", "self,mat2", qs, A(&s, kt));
        probs = op2(&s, "aten.softmax.int", "self,dim,dtype=None", scores, I(&s, -1));
        fx_node *ctx = op2(&s, "aten.bmm.default", "self,mat2", probs, A(&s, vh));
        fx_node *ctx_c = contiguous(&s, transpose(&s, ctx, 0, 1));
        fx_arg *flat[2] = { size_mul(&s, tgt, bsz), e };
        out = view(&s, ctx_c, flat, 2);
    } else {
        fx_arg *qs[4] = { bsz, I(&s, s.num_heads), tgt, hd }, *ks[4] = { bsz, I(&s, s.num_heads), src, hd };
        fx_node *q4 = view(&s, qh, qs, 4), *k4 = view(&s, kh, ks, 4), *v4 = view(&s, vh, ks, 4);
        fx_arg *args[3] = { A(&s, q4), A(&s, k4), A(&s, v4) };
        fx_node *att = op(&s, "aten.scaled_dot_product_attention.default",
                          "query,key,value,attn_mask=None,dropout_p=0.0,is_causal=False,*,scale=None,enable_gqa=False",
                          args, 3);
        static const int64_t perm[4] = { 2, 0, 1, 3 };
        fx_arg *pa[4];
        for (int i = 0; i < 4; i++)
            pa[i] = I(&s, perm[i]);
        fx_node *att_c = contiguous(&s, op2(&s, "aten.permute.default", "self,dims", att, ints(&s, pa, 4)));
        fx_arg *flat[2] = { size_mul(&s, bsz, tgt), e };
        out = view(&s, att_c, flat, 2);
    }
    fx_arg *od[3] = { tgt, bsz, e };
    out = view(&s, linear(&s, out, out_w, out_b), od, 3);
    if (need_weights) {
        /* the weights per head, averaged over heads unless asked not to */
        fx_arg *per_head[4] = { bsz, I(&s, s.num_heads), tgt, src };
        weights = view(&s, probs, per_head, 4);
        if (average) {
            fx_arg *d1 = I(&s, 1);
            weights = op2(&s, "aten.mean.dim", "self,dim,keepdim=False,*,dtype=None", weights, ints(&s, &d1, 1));
        }
    }
    if (!batched) {
        out = op2(&s, "aten.squeeze.dim", "self,dim", out, I(&s, 1));
        if (weights)
            weights = op2(&s, "aten.squeeze.dim", "self,dim", weights, I(&s, 0));
    } else if (s.batch_first) {
        out = transpose(&s, out, 1, 0);
    }
    if (s.failed)
        return false;
    fx_arg *res[2] = { A(&s, out), weights ? A(&s, weights) : fx_arg_none(x->dst) };
    xp_set_val(x, n->name, fx_arg_seq(x->dst, FX_ARG_TUPLE, res, NULL, 2));
    return true;
}

static const xp_builder_entry builders[] = { { "multihead_attention", build_multihead_attention } };

const builtin_family xp_mha_builders = BUILTIN_FAMILY("mha", builders);
