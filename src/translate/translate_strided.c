/* translate_strided.c — aten.as_strided: the elements a (size, stride, storage_offset) view reads
 * from the input's storage (where the input's recorded strides and storage offset put its
 * elements), gathered from the flattened tensor. torchlib computes the flat
 * indices at run time in a Loop; with constant sizes and strides fxsh computes them once, so the
 * model is a Reshape, a Gather of constant indices and a Reshape to the view's size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "translate/translate_internal.h"

#define MAX_AS_STRIDED_NUMEL ((int64_t)1 << 24)

/* Whether every storage location a (size, stride, offset) layout touches fits in int64: the
 * furthest one, offset + sum((size-1)*stride), computed without overflow. Sizes, strides and the
 * offset are non-negative here; an empty layout touches nothing. */
static bool locations_fit(int64_t off, const int64_t *size, const int64_t *stride, size_t rank)
{
    int64_t far = off, step;
    for (size_t i = 0; i < rank; i++) {
        if (size[i] == 0) return true;
        if (__builtin_mul_overflow(size[i] - 1, stride[i], &step) || __builtin_add_overflow(far, step, &far))
            return false;
    }
    return true;
}

/* Where each element of a node's tensor sits in its storage: loc[k] for the k-th element in
 * row-major order, from its static sizes, strides (contiguous when unknown) and storage offset.
 * The number of elements, or -1 if the layout is not static. */
static int64_t storage_locations(tx *t, const fx_node *n, int64_t **loc)
{
    const fx_value *v = tx_node_val(n);
    if (!v || v->kind != FX_VAL_TENSOR || !v->sizes) return -1;
    int64_t size[16], stride[16], numel = 1;
    if (v->rank > 16) return -1;
    for (size_t i = v->rank; i-- > 0;) {
        char *end;
        long long sz = strtoll(v->sizes[i], &end, 10);
        if (*end || end == v->sizes[i] || sz < 0) return -1;
        size[i] = sz;
        stride[i] = numel;
        if (v->strides) {
            long long st = strtoll(v->strides[i], &end, 10);
            if (*end || end == v->strides[i] || st < 0) return -1;
            stride[i] = st;
        }
        if (sz && numel > MAX_AS_STRIDED_NUMEL / sz) return -1;
        numel *= sz;
    }
    if (v->storage_offset < 0 || !locations_fit(v->storage_offset, size, stride, v->rank)) return -1;
    *loc = arena_alloc(&t->a, (size_t)(numel ? numel : 1) * sizeof **loc);
    int64_t pos[16] = { 0 };
    for (int64_t k = 0; k < numel; k++) {
        int64_t l = v->storage_offset;
        for (size_t i = 0; i < v->rank; i++) l += pos[i] * stride[i];
        (*loc)[k] = l;
        for (size_t i = v->rank; i-- > 0;) {
            if (++pos[i] < size[i]) break;
            pos[i] = 0;
        }
    }
    return numel;
}

/* The inverse of storage_locations: for each storage location from lo = min(loc) on, the element
 * there or -1 (*span locations); false if the span is too large to tabulate. */
static bool element_map(tx *t, const int64_t *loc, int64_t numel, int64_t **map, int64_t *lo, int64_t *span)
{
    int64_t mn = numel ? loc[0] : 0, mx = numel ? loc[0] : -1;
    for (int64_t k = 1; k < numel; k++) {
        if (loc[k] < mn) mn = loc[k];
        if (loc[k] > mx) mx = loc[k];
    }
    *lo = mn;
    *span = mx - mn + 1;
    if (*span > MAX_AS_STRIDED_NUMEL) return false;
    *map = arena_alloc(&t->a, (size_t)(*span ? *span : 1) * sizeof **map);
    for (int64_t l = 0; l < *span; l++) (*map)[l] = -1;
    for (int64_t k = 0; k < numel; k++) (*map)[loc[k] - mn] = k;
    return true;
}

/* b: self, size, stride, storage_offset (None: the input's) */
static bool b_as_strided(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    int64_t *size, *stride, off = 0, tl_off = 0;   /* tl_off: the offset torchlib reads from (None: 0) */
    size_t ns, nst;
    if (!b[0] || b[0]->kind != FX_ARG_NODE) {
        tx_fail_node(t, n, "as_strided needs a tensor input");
        return false;
    }
    if (!tx_list_ints(t, n, &rule->schema.args[1], b[1], &size, &ns) ||
        !tx_list_ints(t, n, &rule->schema.args[2], b[2], &stride, &nst))
        return false;
    if (ns != nst) {
        tx_fail_node(t, n, "as_strided needs as many strides as sizes");
        return false;
    }
    if (b[3] && b[3]->kind == FX_ARG_INT) {
        off = tl_off = b[3]->u.i;
    } else if (!b[3] || b[3]->kind == FX_ARG_NONE) {   /* None: the input's own storage offset */
        const fx_value *iv = tx_node_val(b[0]->u.node);
        off = iv && iv->kind == FX_VAL_TENSOR ? iv->storage_offset : 0;
    } else if (b[3] && b[3]->kind != FX_ARG_NONE) {
        tx_fail_node(t, n, "as_strided needs a constant storage_offset");
        return false;
    }
    int64_t numel = 1;
    for (size_t i = 0; i < ns; i++) {
        if (size[i] < 0 || stride[i] < 0 || off < 0) {
            tx_fail_node(t, n, "as_strided needs non-negative sizes, strides and storage_offset");
            return false;
        }
        if (size[i] && numel > MAX_AS_STRIDED_NUMEL / size[i]) {
            tx_fail_node(t, n, "as_strided view too large to export (more than 2^24 elements)");
            return false;
        }
        numel *= size[i];
    }
    if (!locations_fit(off, size, stride, ns)) {
        tx_fail_node(t, n, "as_strided: storage_offset + (size-1)*stride overflows int64");
        return false;
    }
    int64_t *loc;
    int64_t in_numel = storage_locations(t, b[0]->u.node, &loc);
    if (in_numel < 0) {
        tx_fail_node(t, n, "as_strided needs an input of static shape and strides");
        return false;
    }
    int64_t *map, lo, span;
    if (!element_map(t, loc, in_numel, &map, &lo, &span)) {
        tx_fail_node(t, n, "as_strided: the input's elements are spread over more than 2^24 storage places");
        return false;
    }
    /* flat index of each element of the view, in row-major order of size */
    int64_t *idx = arena_alloc(&t->a, (size_t)(numel ? numel : 1) * sizeof *idx);
    int64_t *pos = arena_alloc(&t->a, (ns + 1) * sizeof *pos);
    memset(pos, 0, (ns + 1) * sizeof *pos);
    bool flat = true;        /* torchlib's index (tl_off + the strided sum) is each element's flat index */
    for (int64_t k = 0; k < numel; k++) {
        int64_t v = off;
        for (size_t i = 0; i < ns; i++) v += pos[i] * stride[i];
        idx[k] = v >= lo && v - lo < span ? map[v - lo] : -1;
        flat &= idx[k] == v - off + tl_off;
        if (idx[k] < 0) {
            tx_fail_node(t, n, arena_printf(&t->a, "as_strided reads storage element %lld, which the input (%lld "
                                            "elements from storage offset %lld) does not hold: memory outside the "
                                            "tensor has no ONNX equivalent", (long long)v, (long long)in_numel,
                                            (long long)lo));
            return false;
        }
        for (size_t i = ns; i-- > 0;) {
            if (++pos[i] < size[i]) break;
            pos[i] = 0;
        }
    }
    /* torchlib's function gathers storage_offset (0 when None) + sum(index * stride) from the
     * flattened input: where that is the view (a contiguous input; from storage offset 0 unless
     * storage_offset is None, which reads from the input's own), torch's graph is it */
    for (size_t i = 0; flat && i < rule->nalts; i++)
        if (rule->alts[i].function) return tx_run_function(t, n, rule, &rule->alts[i], b);
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    int64_t m1 = -1;
    const char *fl = tx_emit2(t, "Reshape", x, tx_const_ints(t, &m1, 1), NULL, NULL);
    const char *g = tx_emit2(t, "Gather", fl, tx_const_ints(t, idx, (size_t)numel), NULL, NULL);
    tx_emit2(t, "Reshape", g, tx_const_ints(t, size, ns), tx_one_output(t, n), tx_node_name_of(t, n));
    return true;
}

static const tx_builtin_entry builtins[] = {
    { "as_strided", b_as_strided, 4 },
};

const builtin_family tx_strided_builtins = BUILTIN_FAMILY("strided", builtins);
