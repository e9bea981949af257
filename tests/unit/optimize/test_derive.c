/* test_derive.c — derived weights are the bytes the old code computed.
 *
 * Conv + BatchNormalization fusion and the folding of a large Transpose used to compute their
 * weights at once, through the evaluator's element accessors; they are now derived weights
 * (onnx/onnx_derive.h), computed by typed kernels when read or saved. The reference here is the
 * OLD code itself, kept as it was before the change (ref_fuse_conv_batchnorm below is
 * opt_rewrite.c's fusion as of commit 80e1aed, renamed; the Transpose reference is the
 * evaluator's oe_transpose), run on a copy of each model: both results must pack to the same
 * bytes, save to the same file, and read back (ot_from_proto, fmap_need, any byte range) the same.
 * ConvTranspose + and Gemm + BatchNormalization, which the old code did not fuse, and the float
 * types other than float32 are held to the old arithmetic (ot_get_f / ot_set_f) instead.
 * Over the fixtures, the corpus (every torch.onnx export with a Conv + BatchNormalization:
 * conv_bn_relu, resnet18, ...) and the unoptimized .onnx files listed in FXSH_REAL_ONNX
 * (colon-separated; e.g. torchvision's ResNet-50, Wide-ResNet-50, R3D-18 saved with `export
 * optimize=False`), and on synthetic tensors of every float type. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_paths.h"
#include "base/file.h"
#include "onnx/onnx_derive.h"
#include "onnx/onnx_edit.h"
#include "onnx/onnx_pb.h"
#include "optimize/optimize_internal.h"

/* ---- the reference: the fusion before derived weights, verbatim ------------------------------ */

/* The constant tensor behind name in the main graph (initializer or Constant node), or NULL. */
static Onnx__TensorProto *ref_main_const(hashmap *consts, const char *name)
{
    return *opt_str(name) ? hm_get(consts, name) : NULL;
}

static int ref_fuse_one(ox_model *m, hashmap *consts, hashmap *uses, hashmap *taken, hashmap *init_idx,
                    Onnx__GraphProto *g, Onnx__NodeProto *conv, Onnx__NodeProto *bn, arena *tmp)
{
    if (bn->n_input != 5 || bn->n_output != 1 || conv->n_input < 2 || conv->n_output != 1) return 0;
    Onnx__AttributeProto *tm = ox_node_attr(bn, "training_mode");
    if (tm && tm->i) return 0;
    Onnx__AttributeProto *epsa = ox_node_attr(bn, "epsilon");
    double eps = epsa ? epsa->f : 1e-5;
    Onnx__TensorProto *wp = ref_main_const(consts, conv->input[1]);
    Onnx__TensorProto *bp = conv->n_input > 2 ? ref_main_const(consts, conv->input[2]) : NULL;
    if (!wp || (conv->n_input > 2 && *opt_str(conv->input[2]) && !bp)) return 0;
    oe_tensor w, b = {0}, p[4];
    if (ot_from_proto(wp, 0, &w) != OE_OK) return 0;
    int ok = w.dtype == 1 && w.rank >= 3;
    int np = 0;
    for (; ok && np < 4; np++) {
        Onnx__TensorProto *tp = ref_main_const(consts, bn->input[1 + np]);
        if (!tp || ot_from_proto(tp, 0, &p[np]) != OE_OK) break;
        if (p[np].dtype != 1 || p[np].numel != w.dims[0]) {
            ot_tensor_free(&p[np]);
            break;
        }
    }
    ok = ok && np == 4;
    if (ok && bp) ok = ot_from_proto(bp, 0, &b) == OE_OK && b.dtype == 1 && b.numel == w.dims[0];
    if (ok) {
        int64_t ch = w.dims[0], per = ch ? w.numel / ch : 0;
        oe_tensor nb;
        ot_tensor_init(&nb, 1, &ch, 1);
        for (int64_t o = 0; o < ch; o++) {
            double f = ot_get_f(&p[0], o) / sqrt(ot_get_f(&p[3], o) + eps);
            for (int64_t k = 0; k < per; k++) ot_set_f(&w, o * per + k, ot_get_f(&w, o * per + k) * f);
            double bias = bp ? ot_get_f(&b, o) : 0;
            ot_set_f(&nb, o, (bias - ot_get_f(&p[2], o)) * f + ot_get_f(&p[1], o));
        }
        /* The fused weight keeps the weight's name when nothing else reads it (as onnxscript
         * does); the bias is named after the old bias, or "<weight>_bias". */
        const char *wname = conv->input[1];
        uintptr_t wi = (uintptr_t)hm_get(init_idx, wname);
        uintptr_t bi = bp ? (uintptr_t)hm_get(init_idx, conv->input[2]) : 0;
        if ((uintptr_t)hm_get(uses, wname) != 1) wi = 0;
        if (bp && (uintptr_t)hm_get(uses, conv->input[2]) != 1) bi = 0;
        Onnx__TensorProto *nw = ot_to_proto(m, &w, wi ? wname : opt_fresh_name(m, taken, arena_printf(tmp, "%s_fused", wname)));
        const char *bname = bi ? conv->input[2] : opt_fresh_name(m, taken, arena_printf(tmp, "%s_bias", wname));
        Onnx__TensorProto *nbp = ot_to_proto(m, &nb, bname);
        if (wi) g->initializer[wi - 1] = nw;
        else ox_graph_add_initializer(m, g, nw);
        if (bi) g->initializer[bi - 1] = nbp;
        else ox_graph_add_initializer(m, g, nbp);
        hm_put(consts, nw->name, nw);
        hm_put(consts, nbp->name, nbp);
        conv->input[1] = nw->name;
        if (conv->n_input < 3) ox_node_add_input(m, conv, nbp->name);
        else conv->input[2] = nbp->name;
        conv->output[0] = bn->output[0];
        ot_tensor_free(&nb);
    }
    for (int i = 0; i < np; i++) ot_tensor_free(&p[i]);
    ot_tensor_free(&b);
    ot_tensor_free(&w);
    return ok;
}

static bool ref_fuse_conv_batchnorm(ox_model *m, const optimize_options *o, optimize_stats *st, diag_sink *d)
{
    optimize_options ob;
    optimize_stats sb = {0};
    o = opt_opts_or_default(o, &ob);
    if (!st) st = &sb;
    (void)d;
    Onnx__GraphProto *g = m->proto->graph;
    if (!g) return true;
    hashmap uses, consts, producer, taken, inputs;
    hm_init(&uses);
    hm_init(&consts);
    hm_init(&producer);
    hm_init(&taken);
    hm_init(&inputs);
    arena tmp;
    arena_init(&tmp);
    ox_graph_walk(g, o->max_depth, opt_count_uses, &uses);
    ox_graph_walk(g, o->max_depth, opt_count_output_uses, &uses);
    opt_collect_names(g, &taken, 0, o->max_depth);
    for (size_t i = 0; i < g->n_input; i++) hm_put(&inputs, opt_str(g->input[i]->name), (void *)1);
    hashmap init_idx;   /* initializer name → index + 1 */
    hm_init(&init_idx);
    for (size_t i = 0; i < g->n_initializer; i++)
        if (!hm_has(&inputs, opt_str(g->initializer[i]->name))) {
            hm_put(&consts, opt_str(g->initializer[i]->name), g->initializer[i]);
            hm_put(&init_idx, opt_str(g->initializer[i]->name), (void *)(uintptr_t)(i + 1));
        }
    bool *dead = xcalloc(g->n_node + 1, 1);
    for (size_t i = 0; i < g->n_node; i++) {
        Onnx__NodeProto *n = g->node[i];
        if (opt_is_op(n, "Constant") && n->n_attribute == 1 && n->attribute[0]->t && n->n_output == 1 &&
            !strcmp(opt_str(n->attribute[0]->name), "value"))
            hm_put(&consts, opt_str(n->output[0]), n->attribute[0]->t);
        for (size_t k = 0; k < n->n_output; k++) hm_put(&producer, opt_str(n->output[k]), (void *)(uintptr_t)(i + 1));
        if (!opt_is_op(n, "BatchNormalization") || n->n_input < 1) continue;
        uintptr_t pi = (uintptr_t)hm_get(&producer, opt_str(n->input[0]));
        if (!pi || dead[pi - 1]) continue;
        Onnx__NodeProto *conv = g->node[pi - 1];
        if (!opt_is_op(conv, "Conv") || (uintptr_t)hm_get(&uses, opt_str(conv->output[0])) != 1) continue;
        if (ref_fuse_one(m, &consts, &uses, &taken, &init_idx, g, conv, n, &tmp)) {
            dead[i] = true;
            st->rewritten++;
        }
    }
    opt_compact_nodes(g, dead);
    free(dead);
    hm_free(&uses);
    hm_free(&consts);
    hm_free(&producer);
    hm_free(&taken);
    hm_free(&inputs);
    hm_free(&init_idx);
    arena_free(&tmp);
    return true;
}

/* ---- comparisons ---------------------------------------------------------------------------- */

static ox_model *load(const char *path)
{
    diag_sink d;
    diag_init(&d);
    ox_model *m = ox_load_file(path, &d);
    diag_free(&d);
    return m;
}

static uint8_t *file_bytes(const char *path, size_t *len)
{
    return (uint8_t *)file_slurp(path, len);
}

/* The two models are the same bytes, packed and saved, and every initializer of a reads back the
 * same through each reader a derived weight has. */
static void assert_same_models(ox_model *a, ox_model *b)
{
    size_t la, lb;
    uint8_t *pa = ox_pack(a, &la), *pb = ox_pack(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(pa, pb, la);
    free(pa);
    free(pb);
    char fa[] = "/tmp/fxsh_derive_a.XXXXXX", fb[] = "/tmp/fxsh_derive_b.XXXXXX";
    close(mkstemp(fa));
    close(mkstemp(fb));
    diag_sink d;
    diag_init(&d);
    assert_int_equal(ox_save_file(a, fa, NULL, &d), 0);
    assert_int_equal(ox_save_file(b, fb, NULL, &d), 0);
    diag_free(&d);
    uint8_t *sa = file_bytes(fa, &la), *sb = file_bytes(fb, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(sa, sb, la);
    free(sa);
    free(sb);
    unlink(fa);
    unlink(fb);
    Onnx__GraphProto *ga = a->proto->graph, *gb = b->proto->graph;
    assert_int_equal(ga->n_initializer, gb->n_initializer);
    for (size_t i = 0; i < ga->n_initializer; i++) {
        oe_tensor x, y;
        if (ot_from_proto(ga->initializer[i], 0, &x) != OE_OK) continue;
        assert_int_equal(ot_from_proto(gb->initializer[i], 0, &y), OE_OK);
        assert_true(ot_tensor_equal(&x, &y));
        ot_tensor_free(&x);
        ot_tensor_free(&y);
    }
}

/* Fuses a copy of m with the new code and a copy with the old; the same bytes. Returns how many
 * BatchNormalizations were fused. */
static size_t check_fusion(ox_model *m)
{
    /* what the optimizer runs before the fusion (constants folded, no-ops gone), on both */
    assert_true(opt_inline_functions(m, NULL, NULL, NULL));
    assert_true(opt_fold_constants(m, NULL, NULL, NULL));
    assert_true(opt_remove_noops(m, NULL, NULL, NULL));
    ox_model *a = ox_model_copy(m, NULL), *b = ox_model_copy(m, NULL);
    assert_non_null(a);
    assert_non_null(b);
    optimize_stats sa = {0}, sb = {0};
    assert_true(opt_fuse_conv_batchnorm(a, NULL, &sa, NULL));
    assert_true(ref_fuse_conv_batchnorm(b, NULL, &sb, NULL));
    assert_int_equal(sa.rewritten, sb.rewritten);
    assert_same_models(a, b);
    /* the whole optimizer over the fused model, and the original model untouched */
    assert_true(optimize_model(a, NULL, NULL, NULL));
    ox_model_free(a);
    ox_model_free(b);
    return sa.rewritten;
}

static size_t check_file(const char *path)
{
    ox_model *m = load(path);
    if (!m) return 0;
    size_t n = check_fusion(m);
    ox_model_free(m);
    return n;
}

static void test_fixtures_and_corpus(void **state)
{
    (void)state;
    size_t fused = check_file(TEST_FIXTURES "/optimize/conv_bn_relu/onnx_dynamo.onnx");
    assert_int_equal(fused, 2);
    const char *corpus = getenv("FXSH_CORPUS");
    if (!corpus || !*corpus) corpus = TEST_CORPUS_DEFAULT;
    char fx[2048];
    snprintf(fx, sizeof fx, "%s/fx", corpus);
    DIR *dp = opendir(fx);
    if (!dp) return;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.') continue;
        char f[2600];
        snprintf(f, sizeof f, "%s/%s/onnx_dynamo.onnx", fx, e->d_name);
        struct stat sb;
        if (stat(f, &sb)) continue;
        size_t n = check_file(f);
        if (n) printf("# %-28s %zu Conv+BatchNormalization fused, byte-identical to the old fusion\n", e->d_name, n);
    }
    closedir(dp);
}

static void test_real_models(void **state)
{
    (void)state;
    const char *list = getenv("FXSH_REAL_ONNX");
    if (!list || !*list) skip();
    char *all = xstrdup(list), *save = NULL;
    for (char *p = strtok_r(all, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
        ox_model *m = load(p);
        assert_non_null(m);
        size_t n = check_fusion(m);
        printf("# %s: %zu Conv+BatchNormalization fused, byte-identical to the old fusion\n", p, n);
        assert_true(n > 0);
        ox_model_free(m);
    }
    free(all);
}

/* ---- synthetic: every float type, the Transpose fold, ranges -------------------------------- */

static uint64_t rng = 88172645463325252ull;
static double next_value(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(int64_t)(rng % 2000001 - 1000000) * 1e-6;
}

/* Conv(x, W[, B]) -> BatchNormalization of type dtype, W of wdims, in a model whose large
 * tensors are views of an fmap (as a loaded file's are). */
static ox_model *conv_bn_model(int dtype, const int64_t *wdims, int wrank, bool bias, fmap **keep)
{
    int64_t ch = wdims[0], numel = 1;
    for (int i = 0; i < wrank; i++) numel *= wdims[i];
    size_t es = ot_esize(dtype);
    unsigned char *bytes = xmalloc((size_t)numel * es + 64);
    oe_tensor w;
    ot_tensor_init(&w, dtype, wdims, wrank);
    for (int64_t i = 0; i < numel; i++) ot_set_f(&w, i, next_value());
    memcpy(bytes + 3, w.data, (size_t)numel * es);   /* unaligned, as inline raw_data can be */
    ot_tensor_free(&w);
    *keep = fmap_adopt(bytes, (size_t)numel * es + 64);
    ox_model *m = ox_model_new(10);
    Onnx__GraphProto *g = m->proto->graph;
    Onnx__TensorProto *wt = ox_tensor_new(m, "W", dtype, wdims, (size_t)wrank);
    ox_tensor_set_view(m, wt, bytes + 3, (size_t)numel * es, *keep);
    ox_graph_add_initializer(m, g, wt);
    const char *pn[5] = {"B", "scale", "beta", "mean", "var"};
    for (int k = bias ? 0 : 1; k < 5; k++) {
        oe_tensor p;
        ot_tensor_init(&p, dtype, &ch, 1);
        for (int64_t o = 0; o < ch; o++) ot_set_f(&p, o, k == 4 ? 0.5 + fabs(next_value()) : next_value());
        ox_graph_add_initializer(m, g, ot_to_proto(m, &p, pn[k]));
        ot_tensor_free(&p);
    }
    Onnx__NodeProto *conv = ox_graph_add_node(m, g, "Conv", "conv");
    ox_node_add_input(m, conv, "x");
    ox_node_add_input(m, conv, "W");
    if (bias) ox_node_add_input(m, conv, "B");
    ox_node_add_output(m, conv, "c");
    Onnx__NodeProto *bn = ox_graph_add_node(m, g, "BatchNormalization", "bn");
    const char *in[5] = {"c", "scale", "beta", "mean", "var"};
    for (int k = 0; k < 5; k++) ox_node_add_input(m, bn, in[k]);
    ox_node_add_output(m, bn, "y");
    return m;
}

/* The reference for a type the old code did not fuse: its arithmetic, through the accessors. */
static void ref_scale(const Onnx__TensorProto *src, const double *f, oe_tensor *out)
{
    assert_int_equal(ot_from_proto(src, 0, out), OE_OK);
    int64_t per = out->numel / out->dims[0];
    for (int64_t i = 0; i < out->numel; i++) ot_set_f(out, i, ot_get_f(out, i) * f[i / per]);
}

static void test_every_float_type(void **state)
{
    (void)state;
    const int types[] = {T_FLOAT, T_FLOAT16, T_BFLOAT16, T_DOUBLE};
    const int64_t dims[][4] = {{7, 5, 3, 3}, {64, 3, 7, 7}, {3, 1, 1, 1}};
    for (size_t t = 0; t < 4; t++)
        for (size_t s = 0; s < 3; s++) {
            fmap *keep;
            ox_model *m = conv_bn_model(types[t], dims[s], 4, s != 1, &keep);
            if (types[t] == T_FLOAT) {   /* the old code fused float32: the same bytes */
                check_fusion(m);
            } else {
                /* new: compare with the old arithmetic through the accessors */
                Onnx__TensorProto *src = m->proto->graph->initializer[0];
                int64_t ch = dims[s][0];
                double *f = xmalloc((size_t)ch * sizeof *f);
                for (int64_t o = 0; o < ch; o++) f[o] = next_value();
                ox_derive *dv = ox_derive_begin(m);
                Onnx__TensorProto *out = ox_tensor_new(m, "Wd", types[t], src->dims, src->n_dims);
                assert_true(ox_derive_scale(dv, out, src, 0, f, ch));
                ox_derive_end(dv);
                oe_tensor want, got;
                ref_scale(src, f, &want);
                assert_int_equal(ot_from_proto(out, 0, &got), OE_OK);
                assert_true(ot_tensor_equal(&want, &got));
                /* any byte range, misaligned too, is the same bytes */
                size_t len = out->raw_data.len;
                unsigned char *buf = xmalloc(len);
                for (size_t a = 0; a < len; a += 1 + len / 7)
                    for (size_t b = a; b <= len; b += 1 + len / 5) {
                        fmap_copy_out(out->raw_data.data + a, buf, b - a);
                        assert_memory_equal(buf, (unsigned char *)want.data + a, b - a);
                    }
                fmap_need(out->raw_data.data, len);   /* materialised where it is */
                assert_memory_equal(out->raw_data.data, want.data, len);
                free(buf);
                free(f);
                ot_tensor_free(&want);
                ot_tensor_free(&got);
                optimize_stats st = {0};
                assert_true(opt_fuse_conv_batchnorm(m, NULL, &st, NULL));
                assert_int_equal(st.rewritten, 1);
            }
            ox_model_free(m);
            fmap_unref(keep);
        }
}

/* ConvTranspose (channels on axis 1) and Gemm (axis 0 with transB, else 1) fuse too, which the old
 * code did not: their weights against the old arithmetic, through the accessors, on the axis. */
static void test_conv_transpose_and_gemm(void **state)
{
    (void)state;
    struct { const char *op; int64_t dims[4]; int rank; int64_t transb; int axis; } cases[] = {
        {"ConvTranspose", {5, 7, 3, 3}, 4, -1, 1},
        {"Gemm", {9, 6}, 2, 1, 0},
        {"Gemm", {6, 9}, 2, 0, 1},
        {"Gemm", {6, 9}, 2, -1, 1},
    };
    const int types[] = {T_FLOAT, T_FLOAT16, T_BFLOAT16, T_DOUBLE};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (size_t t = 0; t < 4; t++) {
            fmap *keep;
            int64_t ch = cases[c].dims[cases[c].axis];
            ox_model *m = conv_bn_model(types[t], cases[c].dims, cases[c].rank, t % 2, &keep);
            Onnx__GraphProto *g = m->proto->graph;
            Onnx__NodeProto *conv = g->node[0];
            conv->op_type = ox_strdup(m, cases[c].op);
            if (cases[c].transb >= 0) ox_attr_int(m, conv, "transB", cases[c].transb);
            /* the bias and BatchNormalization parameters: ch values (conv_bn_model made dims[0]) */
            for (size_t i = 1; i < g->n_initializer; i++) {
                oe_tensor p;
                ot_tensor_init(&p, types[t], &ch, 1);
                for (int64_t o = 0; o < ch; o++)
                    ot_set_f(&p, o, !strcmp(g->initializer[i]->name, "var") ? 0.5 + fabs(next_value()) : next_value());
                g->initializer[i] = ot_to_proto(m, &p, g->initializer[i]->name);
                ot_tensor_free(&p);
            }
            oe_tensor w, sc, var, want, got;
            assert_int_equal(ot_from_proto(g->initializer[0], 0, &w), OE_OK);
            for (size_t i = 1; i < g->n_initializer; i++) {
                if (!strcmp(g->initializer[i]->name, "scale")) ot_from_proto(g->initializer[i], 0, &sc);
                if (!strcmp(g->initializer[i]->name, "var")) ot_from_proto(g->initializer[i], 0, &var);
            }
            optimize_stats st = {0};
            assert_true(opt_fuse_conv_batchnorm(m, NULL, &st, NULL));
            assert_int_equal(st.rewritten, 1);
            ot_tensor_copy(&want, &w);
            int64_t inner = 1;
            for (int i = cases[c].axis + 1; i < cases[c].rank; i++) inner *= cases[c].dims[i];
            for (int64_t i = 0; i < want.numel; i++) {
                int64_t o = (i / inner) % ch;
                double f = ot_get_f(&sc, o) / sqrt(ot_get_f(&var, o) + 1e-5);
                ot_set_f(&want, i, ot_get_f(&w, i) * f);
            }
            Onnx__TensorProto *fused = NULL;
            for (size_t i = 0; i < g->n_initializer; i++)
                if (!strcmp(g->initializer[i]->name, conv->input[1])) fused = g->initializer[i];
            assert_non_null(fused);
            assert_int_equal(ot_from_proto(fused, 0, &got), OE_OK);
            assert_true(ot_tensor_equal(&want, &got));
            ot_tensor_free(&w);
            ot_tensor_free(&sc);
            ot_tensor_free(&var);
            ot_tensor_free(&want);
            ot_tensor_free(&got);
            ox_model_free(m);
            fmap_unref(keep);
        }
}

/* Transpose(W) of a W over the fold input limit, read by nothing else: folded as a derived
 * weight, the bytes of the evaluator's Transpose (the old fold). */
static void test_large_transpose(void **state)
{
    (void)state;
    const int types[] = {T_FLOAT, T_FLOAT16, T_DOUBLE, T_INT8, T_INT64};
    const int64_t dims[3] = {37, 29, 13};
    const int64_t perms[][3] = {{2, 1, 0}, {1, 0, 2}, {0, 2, 1}, {0, 1, 2}};
    for (size_t t = 0; t < 5; t++)
        for (size_t p = 0; p < 4; p++) {
            int64_t numel = dims[0] * dims[1] * dims[2];
            size_t es = ot_esize(types[t]);
            oe_tensor w;
            ot_tensor_init(&w, types[t], dims, 3);
            for (int64_t i = 0; i < numel; i++) ot_set_f(&w, i, next_value() * 100);
            unsigned char *bytes = xmalloc((size_t)numel * es + 8);
            memcpy(bytes + 1, w.data, (size_t)numel * es);
            fmap *keep = fmap_adopt(bytes, (size_t)numel * es + 8);
            ox_model *m = ox_model_new(10);
            Onnx__GraphProto *g = m->proto->graph;
            Onnx__TensorProto *wt = ox_tensor_new(m, "W", types[t], dims, 3);
            ox_tensor_set_view(m, wt, bytes + 1, (size_t)numel * es, keep);
            ox_graph_add_initializer(m, g, wt);
            Onnx__NodeProto *n = ox_graph_add_node(m, g, "Transpose", "tr");
            ox_node_add_input(m, n, "W");
            ox_node_add_output(m, n, "Wt");
            ox_attr_ints(m, n, "perm", perms[p], 3);
            Onnx__NodeProto *id = ox_graph_add_node(m, g, "Identity", "id");
            ox_node_add_input(m, id, "Wt");
            ox_node_add_output(m, id, "y");
            optimize_options o;
            optimize_options_default(&o);
            optimize_stats st = {0};
            assert_true(opt_fold_constants(m, &o, &st, NULL));
            assert_int_equal(st.folded, 1);
            Onnx__TensorProto *folded = NULL;
            for (size_t i = 0; i < g->n_initializer; i++)
                if (!strcmp(g->initializer[i]->name, "Wt")) folded = g->initializer[i];
            assert_non_null(folded);
            assert_non_null(fmap_lazy_of(folded->raw_data.data, folded->raw_data.len));
            oe_tensor want, got;
            assert_int_equal(oe_transpose(&w, perms[p], &want), OE_OK);
            assert_int_equal(ot_from_proto(folded, 0, &got), OE_OK);
            assert_true(ot_tensor_equal(&want, &got));
            size_t len;
            uint8_t *packed = ox_pack(m, &len);   /* packs without reading it in place */
            free(packed);
            fmap_need(folded->raw_data.data, folded->raw_data.len);
            assert_memory_equal(folded->raw_data.data, want.data, folded->raw_data.len);
            ot_tensor_free(&want);
            ot_tensor_free(&got);
            ot_tensor_free(&w);
            ox_model_free(m);
            fmap_unref(keep);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_and_corpus),
        cmocka_unit_test(test_real_models),
        cmocka_unit_test(test_every_float_type),
        cmocka_unit_test(test_conv_transpose_and_gemm),
        cmocka_unit_test(test_large_transpose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
