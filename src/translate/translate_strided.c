/* translate_strided.c — aten.as_strided: the elements a (size, stride, storage_offset) view reads
 * from the contiguous input, gathered from the flattened tensor. torchlib computes the flat
 * indices at run time in a Loop; with constant sizes and strides fxsh computes them once, so the
 * model is a Reshape, a Gather of constant indices and a Reshape to the view's size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "translate/translate_internal.h"

#define MAX_AS_STRIDED_NUMEL ((int64_t)1 << 24)

/* The number of elements of a node's tensor, from static sizes; -1 if unknown or symbolic. */
static int64_t static_numel(const fx_node *n)
{
    const fx_value *v = tx_node_val(n);
    if (!v || v->kind != FX_VAL_TENSOR || !v->sizes) return -1;
    int64_t p = 1;
    for (size_t i = 0; i < v->rank; i++) {
        char *end;
        long long s = strtoll(v->sizes[i], &end, 10);
        if (*end || end == v->sizes[i] || s < 0) return -1;
        p *= s;
    }
    return p;
}

/* b: self, size, stride, storage_offset (None = 0) */
bool tx_b_as_strided(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    int64_t *size, *stride, off = 0;
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
        off = b[3]->u.i;
    } else if (b[3] && b[3]->kind != FX_ARG_NONE) {
        tx_fail_node(t, n, "as_strided needs a constant storage_offset");
        return false;
    }
    int64_t numel = 1, last = off;
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
        if (size[i]) last += (size[i] - 1) * stride[i];
    }
    int64_t in_numel = static_numel(b[0]->u.node);
    if (in_numel < 0) {
        tx_fail_node(t, n, "as_strided needs an input of static shape");
        return false;
    }
    if (numel && last >= in_numel) {
        tx_fail_node(t, n, arena_printf(&t->a, "as_strided reads element %lld of an input of %lld elements "
                                        "(memory outside the tensor has no ONNX equivalent)",
                                        (long long)last, (long long)in_numel));
        return false;
    }
    const char *x = tx_single(t, n, b[0]->u.node);
    if (!x) return false;
    /* flat index of each element of the view, in row-major order of size */
    int64_t *idx = arena_alloc(&t->a, (size_t)(numel ? numel : 1) * sizeof *idx);
    int64_t *pos = arena_alloc(&t->a, (ns + 1) * sizeof *pos);
    memset(pos, 0, (ns + 1) * sizeof *pos);
    for (int64_t k = 0; k < numel; k++) {
        int64_t v = off;
        for (size_t i = 0; i < ns; i++) v += pos[i] * stride[i];
        idx[k] = v;
        for (size_t i = ns; i-- > 0;) {
            if (++pos[i] < size[i]) break;
            pos[i] = 0;
        }
    }
    int64_t m1 = -1;
    const char *flat = tx_emit2(t, "Reshape", x, tx_const_ints(t, &m1, 1), NULL, NULL);
    const char *g = tx_emit2(t, "Gather", flat, tx_const_ints(t, idx, (size_t)numel), NULL, NULL);
    tx_emit2(t, "Reshape", g, tx_const_ints(t, size, ns), tx_one_output(t, n), tx_node_name_of(t, n));
    return true;
}
