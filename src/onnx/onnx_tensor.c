/* onnx_tensor.c — ONNX values in memory: element types, tensors, sequences and optionals,
 * TensorProto conversion. See onnx_tensor.h. */
#include "onnx/onnx_tensor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/fmap.h"

/* ---- element types ----------------------------------------------------------------------------- */

bool ot_dtype_supported(int dtype)
{
    switch (dtype) {
    case T_FLOAT: case T_UINT8: case T_INT8: case T_UINT16: case T_INT16: case T_INT32:
    case T_INT64: case T_BOOL: case T_FLOAT16: case T_DOUBLE: case T_UINT32: case T_UINT64:
    case T_BFLOAT16:
        return true;
    default:
        return false;
    }
}

size_t ot_esize(int dtype)
{
    switch (dtype) {
    case T_UINT8: case T_INT8: case T_BOOL: return 1;
    case T_UINT16: case T_INT16: case T_FLOAT16: case T_BFLOAT16: return 2;
    case T_FLOAT: case T_INT32: case T_UINT32: return 4;
    case T_INT64: case T_DOUBLE: case T_UINT64: return 8;
    default: return 0;
    }
}

size_t ot_dtype_bytes(int dtype)
{
    return ot_esize(dtype);
}

float ot_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
    if (e == 0) {
        float v = ldexpf((float)m, -24);
        return sign ? -v : v;
    }
    if (e == 31) bits = sign | 0x7f800000u | (m << 13);
    else bits = sign | ((e + 112) << 23) | (m << 13);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* Round to nearest even, directly from the double (as numpy converts float64 → float16). */
uint16_t ot_float_to_half(double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
    int64_t e = (int64_t)((b >> 52) & 0x7ff);
    uint64_t m = b & 0xfffffffffffffULL;
    if (e == 0x7ff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    int64_t he = e - 1023 + 15;
    if (he >= 31) return (uint16_t)(sign | 0x7c00);
    if (he <= 0) {
        if (he < -10) return sign;
        m |= 1ULL << 52;
        int shift = (int)(43 - he);
        uint64_t hm = m >> shift, rem = m & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
        if (rem > half || (rem == half && (hm & 1))) hm++;
        return (uint16_t)(sign | hm);
    }
    uint64_t hm = m >> 42, rem = m & ((1ULL << 42) - 1), half = 1ULL << 41;
    uint16_t r = (uint16_t)(sign | (uint16_t)(he << 10) | (uint16_t)hm);
    if (rem > half || (rem == half && (hm & 1))) r++;
    return r;
}

float ot_bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t ot_float_to_bf16(double x)
{
    float f = (float)x;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    if (f != f) return 0x7fc0;
    bits += 0x7fff + ((bits >> 16) & 1);
    return (uint16_t)(bits >> 16);
}

/* Saturating double → int64 (NaN → 0), then the C cast of the storage type wraps. */
static int64_t d2i(double v)
{
    if (!(v == v)) return 0;
    if (v >= 9.2e18) return INT64_MAX;
    if (v <= -9.2e18) return INT64_MIN;
    return (int64_t)v;
}

double ot_round_to(int dtype, double v)
{
    switch (dtype) {
    case T_FLOAT: return (float)v;
    case T_DOUBLE: return v;
    case T_FLOAT16: return ot_half_to_float(ot_float_to_half(v));
    case T_BFLOAT16: return ot_bf16_to_float(ot_float_to_bf16(v));
    case T_BOOL: return v != 0;
    default: {
        oe_tensor t = {.dtype = dtype, .numel = 1};
        int64_t slot = 0;
        t.data = &slot;
        ot_set_f(&t, 0, v);
        return ot_get_f(&t, 0);
    }
    }
}

double ot_get_f(const oe_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case T_FLOAT: return ((const float *)t->data)[i];
    case T_DOUBLE: return ((const double *)t->data)[i];
    case T_FLOAT16: return ot_half_to_float(((const uint16_t *)t->data)[i]);
    case T_BFLOAT16: return ot_bf16_to_float(((const uint16_t *)t->data)[i]);
    case T_UINT64: return (double)((const uint64_t *)t->data)[i];
    default: return (double)ot_get_i(t, i);
    }
}

int64_t ot_get_i(const oe_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case T_FLOAT: case T_DOUBLE: case T_FLOAT16: case T_BFLOAT16: return d2i(ot_get_f(t, i));
    case T_UINT8: return ((const uint8_t *)t->data)[i];
    case T_INT8: return ((const int8_t *)t->data)[i];
    case T_UINT16: return ((const uint16_t *)t->data)[i];
    case T_INT16: return ((const int16_t *)t->data)[i];
    case T_INT32: return ((const int32_t *)t->data)[i];
    case T_UINT32: return ((const uint32_t *)t->data)[i];
    case T_INT64: return ((const int64_t *)t->data)[i];
    case T_UINT64: return (int64_t)((const uint64_t *)t->data)[i];
    case T_BOOL: return ((const uint8_t *)t->data)[i] != 0;
    default: return 0;
    }
}

void ot_set_f(oe_tensor *t, int64_t i, double v)
{
    switch (t->dtype) {
    case T_FLOAT: ((float *)t->data)[i] = (float)v; break;
    case T_DOUBLE: ((double *)t->data)[i] = v; break;
    case T_FLOAT16: ((uint16_t *)t->data)[i] = ot_float_to_half(v); break;
    case T_BFLOAT16: ((uint16_t *)t->data)[i] = ot_float_to_bf16(v); break;
    case T_BOOL: ((uint8_t *)t->data)[i] = v != 0; break;
    case T_UINT64:
        ((uint64_t *)t->data)[i] = v >= 9.2e18 ? (v < 1.8446744073709552e19 ? (uint64_t)v : UINT64_MAX)
                                               : (uint64_t)d2i(v);
        break;
    default: ot_set_i(t, i, d2i(v));
    }
}

void ot_set_i(oe_tensor *t, int64_t i, int64_t v)
{
    switch (t->dtype) {
    case T_FLOAT: ((float *)t->data)[i] = (float)v; break;
    case T_DOUBLE: ((double *)t->data)[i] = (double)v; break;
    case T_FLOAT16: case T_BFLOAT16: ot_set_f(t, i, (double)v); break;
    case T_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
    case T_INT8: ((int8_t *)t->data)[i] = (int8_t)v; break;
    case T_UINT16: ((uint16_t *)t->data)[i] = (uint16_t)v; break;
    case T_INT16: ((int16_t *)t->data)[i] = (int16_t)v; break;
    case T_INT32: ((int32_t *)t->data)[i] = (int32_t)v; break;
    case T_UINT32: ((uint32_t *)t->data)[i] = (uint32_t)v; break;
    case T_INT64: ((int64_t *)t->data)[i] = v; break;
    case T_UINT64: ((uint64_t *)t->data)[i] = (uint64_t)v; break;
    case T_BOOL: ((uint8_t *)t->data)[i] = v != 0; break;
    default: break;
    }
}

double *ot_doubles(const oe_tensor *t)
{
    if (!t->numel) return NULL;
    double *v = xmalloc((size_t)t->numel * sizeof *v);
    if (t->dtype == T_FLOAT) {
        const float *f = t->data;
        for (int64_t i = 0; i < t->numel; i++) v[i] = f[i];
    } else if (t->dtype == T_DOUBLE) {
        memcpy(v, t->data, (size_t)t->numel * sizeof *v);
    } else {
        for (int64_t i = 0; i < t->numel; i++) v[i] = ot_get_f(t, i);
    }
    return v;
}

void ot_store_doubles(oe_tensor *t, const double *v)
{
    if (t->dtype == T_FLOAT) {
        float *f = t->data;
        for (int64_t i = 0; i < t->numel; i++) f[i] = (float)v[i];
    } else if (t->dtype == T_DOUBLE) {
        if (t->numel) memcpy(t->data, v, (size_t)t->numel * sizeof *v);
    } else {
        for (int64_t i = 0; i < t->numel; i++) ot_set_f(t, i, v[i]);
    }
}

/* ---- values ------------------------------------------------------------------------------------ */

int ot_tensor_init(oe_tensor *t, int dtype, const int64_t *dims, int rank)
{
    memset(t, 0, sizeof *t);
    if (!ot_dtype_supported(dtype) || rank < 0 || rank > OE_MAX_RANK) return OE_ERROR;
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0) return OE_ERROR;
        if (dims[i] && n > OE_HARD_MAX_NUMEL / dims[i]) return OE_ERROR;
        n *= dims[i];
        t->dims[i] = dims[i];
    }
    if (n > OE_HARD_MAX_NUMEL) return OE_ERROR;
    t->dtype = dtype;
    t->rank = rank;
    t->numel = n;
    t->data = n ? xcalloc((size_t)n, ot_esize(dtype)) : NULL;
    return OE_OK;
}

void ot_tensor_free(oe_tensor *t)
{
    if (!t) return;
    free(t->data);
    t->data = NULL;
    t->numel = 0;
    for (int64_t i = 0; i < t->n_items; i++) ot_tensor_free(&t->items[i]);
    free(t->items);
    t->items = NULL;
    t->n_items = 0;
}

void ot_tensor_copy(oe_tensor *dst, const oe_tensor *src)
{
    *dst = *src;
    dst->data = NULL;
    dst->items = NULL;
    if (src->numel && src->data) {
        size_t b = (size_t)src->numel * ot_esize(src->dtype);
        dst->data = xmalloc(b);
        memcpy(dst->data, src->data, b);
    }
    if (src->n_items) {
        dst->items = xcalloc((size_t)src->n_items, sizeof *dst->items);
        for (int64_t i = 0; i < src->n_items; i++) ot_tensor_copy(&dst->items[i], &src->items[i]);
    }
}

bool ot_tensor_equal(const oe_tensor *a, const oe_tensor *b)
{
    if (a->kind != b->kind || a->dtype != b->dtype || a->rank != b->rank || a->n_items != b->n_items)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return false;
    for (int64_t i = 0; i < a->n_items; i++)
        if (!ot_tensor_equal(&a->items[i], &b->items[i])) return false;
    return a->numel == 0 || memcmp(a->data, b->data, (size_t)a->numel * ot_esize(a->dtype)) == 0;
}

int ot_tensor_from_f(oe_tensor *t, int dtype, const int64_t *dims, int rank, const double *v)
{
    if (ot_tensor_init(t, dtype, dims, rank)) return OE_ERROR;
    for (int64_t i = 0; i < t->numel; i++) ot_set_f(t, i, v[i]);
    return OE_OK;
}

int ot_tensor_from_i(oe_tensor *t, int dtype, const int64_t *dims, int rank, const int64_t *v)
{
    if (ot_tensor_init(t, dtype, dims, rank)) return OE_ERROR;
    for (int64_t i = 0; i < t->numel; i++) ot_set_i(t, i, v[i]);
    return OE_OK;
}

void ot_seq_init(oe_tensor *t, int elem_dtype)
{
    memset(t, 0, sizeof *t);
    t->kind = OE_KIND_SEQUENCE;
    t->dtype = elem_dtype;
}

void ot_seq_push(oe_tensor *seq, oe_tensor *item)
{
    seq->items = xrealloc(seq->items, (size_t)(seq->n_items + 1) * sizeof *seq->items);
    seq->items[seq->n_items++] = *item;
    if (!seq->dtype) seq->dtype = item->dtype;
    memset(item, 0, sizeof *item);
}

void ot_optional_init(oe_tensor *t, int elem_dtype, oe_tensor *value)
{
    memset(t, 0, sizeof *t);
    t->kind = OE_KIND_OPTIONAL;
    t->dtype = value ? value->dtype : elem_dtype;
    if (value) ot_seq_push(t, value);
}

void ot_strides(const int64_t *dims, int rank, int64_t *st)
{
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        st[i] = s;
        s *= dims[i];
    }
}

int64_t ot_numel_of(const int64_t *dims, int rank)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    return n;
}

/* ---- TensorProto conversion -------------------------------------------------------------------- */

static int from_typed_fields(const Onnx__TensorProto *p, size_t n, oe_tensor *out)
{
    switch (p->data_type) {
    case T_FLOAT:
        if (p->n_float_data != n) return -1;
        if (n) memcpy(out->data, p->float_data, n * 4);
        return 0;
    case T_DOUBLE:
        if (p->n_double_data != n) return -1;
        if (n) memcpy(out->data, p->double_data, n * 8);
        return 0;
    case T_INT64:
        if (p->n_int64_data != n) return -1;
        if (n) memcpy(out->data, p->int64_data, n * 8);
        return 0;
    case T_UINT32: case T_UINT64:
        if (p->n_uint64_data != n) return -1;
        for (size_t i = 0; i < n; i++) ot_set_i(out, (int64_t)i, (int64_t)p->uint64_data[i]);
        return 0;
    case T_FLOAT16: case T_BFLOAT16:
        if (p->n_int32_data != n) return -1;
        for (size_t i = 0; i < n; i++) ((uint16_t *)out->data)[i] = (uint16_t)p->int32_data[i];
        return 0;
    default:
        if (p->n_int32_data != n) return -1;
        for (size_t i = 0; i < n; i++) ot_set_i(out, (int64_t)i, p->int32_data[i]);
        return 0;
    }
}

int ot_from_proto(const Onnx__TensorProto *p, int64_t max_numel, oe_tensor *out)
{
    memset(out, 0, sizeof *out);
    if (!p || !ot_dtype_supported(p->data_type) || p->n_dims > OE_MAX_RANK) return OE_UNSUPPORTED;
    if (p->has_data_location && p->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return OE_UNSUPPORTED;
    if (p->n_external_data || p->segment) return OE_UNSUPPORTED;
    int64_t numel = ox_tensor_numel(p);
    if (numel < 0) return OE_ERROR;
    if ((max_numel > 0 && numel > max_numel) || numel > OE_HARD_MAX_NUMEL) return OE_UNSUPPORTED;
    if (ot_tensor_init(out, p->data_type, p->dims, (int)p->n_dims)) return OE_ERROR;
    size_t es = ot_esize(p->data_type), n = (size_t)numel;
    if (p->has_raw_data) {
        if (p->raw_data.len != n * es) goto bad;
        /* a derived weight (onnx_derive.h) is computed into out->data, not where it is */
        if (n) fmap_copy_out(p->raw_data.data, out->data, n * es);
        return OE_OK;
    }
    if (from_typed_fields(p, n, out)) goto bad;
    return OE_OK;
bad:
    ot_tensor_free(out);
    return OE_ERROR;
}

Onnx__TensorProto *ot_to_proto(ox_model *m, const oe_tensor *t, const char *name)
{
    Onnx__TensorProto *p = ox_tensor_new(m, name, t->dtype, t->dims, (size_t)t->rank);
    ox_tensor_set_raw(m, p, t->data, (size_t)t->numel * ot_esize(t->dtype));
    return p;
}

