/* onnx_derive.c — derived weights: recipes in lazy regions and their typed kernels (see
 * onnx_derive.h). */
#include "onnx/onnx_derive.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fmap.h"
#include "onnx/onnx_tensor.h"

/* Byte-aligned element types: a source view may start anywhere in its file (inline raw_data of
 * an .onnx), and the kernels read it in place. */
typedef float f32u __attribute__((aligned(1), may_alias));
typedef double f64u __attribute__((aligned(1), may_alias));
typedef uint16_t u16u __attribute__((aligned(1), may_alias));
typedef uint32_t u32u __attribute__((aligned(1), may_alias));
typedef uint64_t u64u __attribute__((aligned(1), may_alias));

enum {
    K_SCALE, K_TRANSPOSE,
    SLOT_ALIGN = 4096,       /* each tensor starts on a page: materialising one computes no other */
    CHUNK = 1 << 18,         /* elements read per step from a file or lazy source (its scratch) */
    REGION_MIN = 1 << 20
};

typedef struct recipe {
    size_t off, len;              /* the slot in the region: the derived tensor's bytes */
    int kind, dtype;              /* the element type, the same for source and result */
    size_t es;
    const unsigned char *src;     /* the source bytes */
    size_t src_len;
    fmap *src_map;                /* the fmap they lie in (a reference), NULL when computed at once */
    /* K_SCALE: element e is multiplied by factor[(e / inner) % n_factor] */
    double *factor;
    int64_t n_factor, inner;
    /* K_TRANSPOSE: the result's dims, and the source stride that walks each of them */
    int rank;
    int64_t dims[OE_MAX_RANK], stride[OE_MAX_RANK];
} recipe;

/* One lazy region: recipes in slot order, filled as the pass adds them. */
typedef struct region {
    recipe *r;
    size_t n, cap;
    size_t used;
    fmap *f;
} region;

struct ox_derive {
    ox_model *m;
    region *cur;          /* the region slots are taken from (the builder's reference) */
    size_t hint;          /* the size of a new region: the model's tensor bytes */
};

/* ---- kernels ------------------------------------------------------------------------------- */

/* GCC's -O2 vectorizes only loops that need no remainder; these loops are the whole cost of a
 * derived weight, so they get the cost model of -O3 (the results are the same: one IEEE multiply
 * and one rounding per element, vector or scalar). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
/* and a clone for AVX2 machines, picked when the program loads (twice the elements a step) */
#define VECTORIZE __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic"), target_clones("avx2", "default")))
#elif defined(__GNUC__) && !defined(__clang__)
#define VECTORIZE __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define VECTORIZE
#endif

/* dst[i] = src[i] * f for n elements, rounded to dtype once (ot_set_f(ot_get_f(x) * f)). */
VECTORIZE static void scale_run(int dtype, const unsigned char *src, unsigned char *dst, int64_t n, double f)
{
    switch (dtype) {
    case T_FLOAT: {
        const f32u *s = (const f32u *)src;
        f32u *d = (f32u *)dst;
        for (int64_t i = 0; i < n; i++) d[i] = (float)(s[i] * f);
        break;
    }
    case T_DOUBLE: {
        const f64u *s = (const f64u *)src;
        f64u *d = (f64u *)dst;
        for (int64_t i = 0; i < n; i++) d[i] = s[i] * f;
        break;
    }
    case T_FLOAT16: {
        const u16u *s = (const u16u *)src;
        u16u *d = (u16u *)dst;
        for (int64_t i = 0; i < n; i++) d[i] = ot_float_to_half(ot_half_to_float(s[i]) * f);
        break;
    }
    case T_BFLOAT16: {
        const u16u *s = (const u16u *)src;
        u16u *d = (u16u *)dst;
        for (int64_t i = 0; i < n; i++) d[i] = ot_float_to_bf16(ot_bf16_to_float(s[i]) * f);
        break;
    }
    default:
        break;
    }
}

/* dst[i] = src[i] * f[i] for n elements: a weight scaled along its last axis (Gemm without
 * transB), one factor per column. */
VECTORIZE static void scale_each(int dtype, const unsigned char *src, unsigned char *dst, int64_t n, const double *f)
{
    switch (dtype) {
    case T_FLOAT: {
        const f32u *s = (const f32u *)src;
        f32u *d = (f32u *)dst;
        for (int64_t i = 0; i < n; i++) d[i] = (float)(s[i] * f[i]);
        break;
    }
    case T_DOUBLE: {
        const f64u *s = (const f64u *)src;
        f64u *d = (f64u *)dst;
        for (int64_t i = 0; i < n; i++) d[i] = s[i] * f[i];
        break;
    }
    case T_FLOAT16: {
        const u16u *s = (const u16u *)src;
        u16u *d = (u16u *)dst;
        for (int64_t i = 0; i < n; i++) d[i] = ot_float_to_half(ot_half_to_float(s[i]) * f[i]);
        break;
    }
    case T_BFLOAT16: {
        const u16u *s = (const u16u *)src;
        u16u *d = (u16u *)dst;
        for (int64_t i = 0; i < n; i++) d[i] = ot_float_to_bf16(ot_bf16_to_float(s[i]) * f[i]);
        break;
    }
    default:
        break;
    }
}

/* Elements [e0, e1) of a K_SCALE result from the source elements at src (element e0 first). */
static void scale_range(const recipe *r, const unsigned char *src, unsigned char *dst, int64_t e0, int64_t e1)
{
    if (r->inner == 1) {   /* the last axis: a run of factors per row */
        for (int64_t e = e0; e < e1;) {
            int64_t col = e % r->n_factor, n = r->n_factor - col < e1 - e ? r->n_factor - col : e1 - e;
            scale_each(r->dtype, src + (size_t)(e - e0) * r->es, dst + (size_t)(e - e0) * r->es, n, r->factor + col);
            e += n;
        }
        return;
    }
    for (int64_t e = e0; e < e1;) {
        int64_t block = e / r->inner, end = (block + 1) * r->inner;
        if (end > e1) end = e1;
        scale_run(r->dtype, src + (size_t)(e - e0) * r->es, dst + (size_t)(e - e0) * r->es, end - e,
                  r->factor[block % r->n_factor]);
        e = end;
    }
}

#define GATHER(T)                                                                                  \
    for (int64_t j = 0; j < n; j++) ((T *)dst)[j] = *(const T *)(src + (size_t)(so + j * st) * sizeof(T))

/* Elements [e0, e1) of a K_TRANSPOSE result: an odometer over the result's index, the source
 * offset moved by each dim's stride; the last dim is one strided run per step. */
static void transpose_range(const recipe *r, unsigned char *out, int64_t e0, int64_t e1)
{
    const unsigned char *src = r->src;
    int64_t idx[OE_MAX_RANK] = {0}, so = 0, rem = e0;
    for (int i = r->rank - 1; i >= 0; i--) {
        idx[i] = r->dims[i] ? rem % r->dims[i] : 0;
        rem = r->dims[i] ? rem / r->dims[i] : 0;
        so += idx[i] * r->stride[i];
    }
    int last = r->rank - 1;
    int64_t st = last >= 0 ? r->stride[last] : 0, inner = last >= 0 ? r->dims[last] : 1;
    for (int64_t e = e0; e < e1;) {
        int64_t n = inner - (last >= 0 ? idx[last] : 0);
        if (n > e1 - e) n = e1 - e;
        unsigned char *dst = out + (size_t)(e - e0) * r->es;
        switch (r->es) {
        case 1: GATHER(uint8_t); break;
        case 2: GATHER(u16u); break;
        case 4: GATHER(u32u); break;
        default: GATHER(u64u); break;
        }
        e += n;
        if (last < 0) break;
        so += n * st;
        idx[last] += n;
        for (int i = last; i > 0 && idx[i] == r->dims[i]; i--) {   /* carry */
            so -= idx[i] * r->stride[i];
            idx[i] = 0;
            idx[i - 1]++;
            so += r->stride[i - 1];
        }
    }
}

/* Elements [e0, e1) of r's result into dst. A source in a lazy region is read through its own
 * recipe (a chunk at a time, or made readable whole for a transpose); the pages of a mapped
 * source that have been read leave the process as soon as they are used. */
static void compute(const recipe *r, unsigned char *dst, int64_t e0, int64_t e1)
{
    bool lazy_src = r->src_map && r->src_map->fill;
    if (r->kind == K_TRANSPOSE) {
        if (lazy_src) fmap_need(r->src, r->src_len);
        transpose_range(r, dst, e0, e1);
        /* every chunk of a transpose reads the whole source: it goes when the last one is done */
        if (e1 * (int64_t)r->es == (int64_t)r->len) fmap_drop_pages(r->src_map, r->src, r->src_len);
        return;
    }
    int fd = r->src_map && !lazy_src ? r->src_map->fd : -1;
    if (!lazy_src && fd < 0) {   /* memory: read in place */
        scale_range(r, r->src + (size_t)e0 * r->es, dst, e0, e1);
        return;
    }
    /* A mapped file is read with pread, a chunk at a time into a buffer that stays in the cache
     * for the kernel: cheaper than faulting the mapping in and dropping it, and the process never
     * holds the source's pages. A lazy source computes its chunk. */
    unsigned char *scratch = xmalloc((size_t)(e1 - e0 < CHUNK ? e1 - e0 : CHUNK) * r->es);
    for (int64_t e = e0; e < e1; e += CHUNK) {
        int64_t end = e1 - e < CHUNK ? e1 : e + CHUNK;
        const unsigned char *from = r->src + (size_t)e * r->es;
        size_t n = (size_t)(end - e) * r->es;
        if (fd < 0 || pread(fd, scratch, n, (off_t)(from - r->src_map->data)) != (ssize_t)n)
            fmap_copy_out(from, scratch, n);
        scale_range(r, scratch, dst + (size_t)(e - e0) * r->es, e, end);
    }
    free(scratch);
}

/* Bytes [b0, b1) of r's result (offsets in its slot): whole elements straight into dst, an
 * element cut by the range through a bounce buffer. */
static void recipe_bytes(const recipe *r, size_t b0, size_t b1, unsigned char *dst)
{
    size_t es = r->es, f0 = (b0 + es - 1) / es, f1 = b1 / es;   /* the whole elements */
    unsigned char one[8];
    if (f0 > f1) {   /* inside one element */
        compute(r, one, (int64_t)(b0 / es), (int64_t)(b0 / es) + 1);
        memcpy(dst, one + b0 % es, b1 - b0);
        return;
    }
    if (b0 % es) {
        compute(r, one, (int64_t)(b0 / es), (int64_t)(b0 / es) + 1);
        memcpy(dst, one + b0 % es, es - b0 % es);
    }
    if (f1 > f0) compute(r, dst + (f0 * es - b0), (int64_t)f0, (int64_t)f1);
    if (b1 % es) {
        compute(r, one, (int64_t)f1, (int64_t)f1 + 1);
        memcpy(dst + (f1 * es - b0), one, b1 % es);
    }
}

/* ---- regions ------------------------------------------------------------------------------- */

static void region_fill(void *ctx, size_t off, unsigned char *dst, size_t n)
{
    region *g = ctx;
    size_t end = off + n, lo = 0, hi = g->n;
    while (lo < hi) {   /* the first slot ending after off */
        size_t mid = lo + (hi - lo) / 2;
        if (g->r[mid].off + g->r[mid].len <= off) lo = mid + 1;
        else hi = mid;
    }
    size_t at = off;
    for (size_t i = lo; i < g->n && g->r[i].off < end; i++) {
        const recipe *r = &g->r[i];
        if (r->off > at) {   /* padding between slots */
            memset(dst + (at - off), 0, r->off - at);
            at = r->off;
        }
        size_t b1 = end < r->off + r->len ? end : r->off + r->len;
        recipe_bytes(r, at - r->off, b1 - r->off, dst + (at - off));
        at = b1;
    }
    if (at < end) memset(dst + (at - off), 0, end - at);
}

static void region_release(void *ctx)
{
    region *g = ctx;
    for (size_t i = 0; i < g->n; i++) {
        fmap_unref(g->r[i].src_map);
        free(g->r[i].factor);
    }
    free(g->r);
    free(g);
}

static int sum_bytes(Onnx__TensorProto *t, void *ctx)
{
    if (t->has_raw_data) *(size_t *)ctx += t->raw_data.len;
    return 0;
}

ox_derive *ox_derive_begin(ox_model *m)
{
    ox_derive *d = xcalloc(1, sizeof *d);
    d->m = m;
    ox_model_walk_tensors(m, false, sum_bytes, &d->hint);
    return d;
}

void ox_derive_end(ox_derive *d)
{
    if (!d) return;
    if (d->cur) fmap_unref(d->cur->f);
    free(d);
}

/* A slot of len bytes in the current region (a new region when it is full: address space is
 * reserved, not memory, so a region is sized for the whole model's weights at once). */
static recipe *take_slot(ox_derive *d, size_t len)
{
    region *g = d->cur;
    size_t at = g ? (g->used + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN : 0;
    if (!g || at + len > g->f->len) {
        if (g) fmap_unref(g->f);
        g = d->cur = xcalloc(1, sizeof *g);
        size_t span = d->hint > len ? d->hint : len;
        if (span < REGION_MIN) span = REGION_MIN;
        g->f = fmap_lazy(span, region_fill, region_release, g);
        ox_model_hold(d->m, g->f);
        at = 0;
    }
    xgrow((void **)&g->r, &g->cap, g->n + 1, sizeof *g->r);
    recipe *r = &g->r[g->n++];
    memset(r, 0, sizeof *r);
    r->off = at;
    r->len = len;
    g->used = at + len;
    return r;
}

/* The source's bytes, when they can be read as its type and dims say: raw_data, else typed
 * fields through *tmp (filled; the caller frees it). NULL for external data and the like. */
static const unsigned char *source_bytes(const Onnx__TensorProto *src, size_t es, oe_tensor *tmp)
{
    memset(tmp, 0, sizeof *tmp);
    int64_t numel = ox_tensor_numel(src);
    if (numel < 0 || !es) return NULL;
    if (src->has_data_location && src->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) return NULL;
    if (src->n_external_data || src->segment) return NULL;
    if (src->has_raw_data)
        return src->raw_data.len == (size_t)numel * es && numel ? src->raw_data.data : numel ? NULL : (const unsigned char *)"";
    if (ot_from_proto(src, 0, tmp) != OE_OK) return NULL;
    return numel ? tmp->data : (const unsigned char *)"";
}

/* Gives out the bytes of recipe r (filled but for its slot and source): a view into the region
 * when the source lies in an fmap the model holds, else computed at once into the model's arena. */
static void place(ox_derive *d, Onnx__TensorProto *out, recipe *r, const unsigned char *src, size_t len)
{
    fmap *map = len ? ox_model_map_of(d->m, src, r->src_len) : NULL;
    if (!map) {
        unsigned char *bytes = len ? ox_alloc(d->m, len) : NULL;
        r->src = src;
        if (len) compute(r, bytes, 0, (int64_t)(len / r->es));
        free(r->factor);
        out->has_raw_data = 1;
        out->raw_data.data = bytes ? bytes : (uint8_t *)ox_alloc(d->m, 1);
        out->raw_data.len = len;
        return;
    }
    recipe *slot = take_slot(d, len);
    size_t off = slot->off;
    *slot = *r;
    slot->off = off;
    slot->len = len;
    slot->src = src;
    slot->src_map = fmap_ref(map);
    ox_tensor_set_view(d->m, out, d->cur->f->data + off, len, d->cur->f);
}

bool ox_derive_scale_supported(int dtype)
{
    return dtype == T_FLOAT || dtype == T_DOUBLE || dtype == T_FLOAT16 || dtype == T_BFLOAT16;
}

bool ox_derive_scale(ox_derive *d, Onnx__TensorProto *out, const Onnx__TensorProto *src, int axis,
                     const double *factor, int64_t n_factor)
{
    int dtype = src->data_type;
    if (!ox_derive_scale_supported(dtype) || axis < 0 || (size_t)axis >= src->n_dims ||
        src->dims[axis] != n_factor || n_factor <= 0)
        return false;
    size_t es = ot_esize(dtype);
    oe_tensor tmp;
    const unsigned char *bytes = source_bytes(src, es, &tmp);
    if (!bytes) return false;
    recipe r = {.kind = K_SCALE, .dtype = dtype, .es = es, .n_factor = n_factor, .inner = 1};
    for (size_t i = (size_t)axis + 1; i < src->n_dims; i++) r.inner *= src->dims[i];
    r.src_len = (size_t)ox_tensor_numel(src) * es;
    r.factor = xmalloc((size_t)n_factor * sizeof *r.factor);
    memcpy(r.factor, factor, (size_t)n_factor * sizeof *r.factor);
    place(d, out, &r, bytes, r.src_len);
    ot_tensor_free(&tmp);
    return true;
}

bool ox_derive_transpose(ox_derive *d, Onnx__TensorProto *out, const Onnx__TensorProto *src,
                         const int64_t *perm)
{
    size_t es = ot_esize(src->data_type);
    if (!es || src->n_dims > OE_MAX_RANK) return false;
    int rank = (int)src->n_dims;
    int64_t sstride[OE_MAX_RANK];
    ot_strides(src->dims, rank, sstride);
    recipe r = {.kind = K_TRANSPOSE, .dtype = src->data_type, .es = es, .rank = rank};
    bool seen[OE_MAX_RANK] = {false};
    for (int i = 0; i < rank; i++) {
        if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]]) return false;
        seen[perm[i]] = true;
        r.dims[i] = src->dims[perm[i]];
        r.stride[i] = sstride[perm[i]];
    }
    oe_tensor tmp;
    const unsigned char *bytes = source_bytes(src, es, &tmp);
    if (!bytes) return false;
    r.src_len = (size_t)ox_tensor_numel(src) * es;
    place(d, out, &r, bytes, r.src_len);
    ot_tensor_free(&tmp);
    return true;
}
