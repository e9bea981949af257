/* onnx_eval.c — the evaluator's core: the helpers kernels share (errors, attributes, inputs,
 * broadcasting) and dispatch of one node to its kernel. */
#include "eval/onnx_eval.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "eval/onnx_eval_internal.h"

/* ---- errors, attributes, inputs ---------------------------------------------------------------- */

const char *oe_node_label(const Onnx__NodeProto *n)
{
    if (n->name && *n->name) return n->name;
    if (n->n_output && n->output[0] && *n->output[0]) return n->output[0];
    return n->op_type ? n->op_type : "?";
}

int oe_fail(ectx *c, const char *fmt, ...)
{
    if (!c->d) return OE_ERROR;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(c->d, (diag_loc){0}, "node %s (%s): %s", oe_node_label(c->n), c->n->op_type, msg);
    return OE_ERROR;
}

const oe_tensor *oe_in_tensor(const ectx *c, size_t i)
{
    const oe_tensor *t = IN(c, i);
    return t && t->kind == OE_KIND_TENSOR ? t : NULL;
}

int oe_out(ectx *c, size_t k, int dtype, const int64_t *dims, int rank)
{
    if (k >= c->nout) return oe_fail(c, "output %zu is not connected", k);
    if (ot_tensor_init(&c->out[k], dtype, dims, rank)) {
        if (!ot_dtype_supported(dtype)) return oe_fail(c, "element type %d is not supported", dtype);
        return oe_fail(c, "output shape is invalid or too large");
    }
    return OE_OK;
}

Onnx__AttributeProto *oe_attr(const ectx *c, const char *name)
{
    Onnx__AttributeProto *a = ox_node_attr(c->n, name);
    return a && !a->ref_attr_name ? a : NULL;
}

int64_t oe_attr_i(const ectx *c, const char *name, int64_t dflt)
{
    Onnx__AttributeProto *a = oe_attr(c, name);
    if (!a) return dflt;
    if (a->has_i) return a->i;
    return a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT ? 0 : dflt;
}

double oe_attr_f(const ectx *c, const char *name, double dflt)
{
    Onnx__AttributeProto *a = oe_attr(c, name);
    if (!a) return dflt;
    if (a->has_f) return a->f;
    return a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT ? 0 : dflt;
}

const char *oe_attr_s(const ectx *c, const char *name, const char *dflt, char *buf, size_t cap)
{
    Onnx__AttributeProto *a = oe_attr(c, name);
    if (!a || (!a->has_s && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING)) {
        if (!dflt) return NULL;
        snprintf(buf, cap, "%s", dflt);
        return buf;
    }
    size_t n = a->s.len < cap - 1 ? a->s.len : cap - 1;
    if (n) memcpy(buf, a->s.data, n);
    buf[n] = '\0';
    return buf;
}

int64_t oe_attr_ints(const ectx *c, const char *name, int64_t *buf, int64_t cap)
{
    Onnx__AttributeProto *a = oe_attr(c, name);
    if (!a || (!a->n_ints && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)) return -1;
    if ((int64_t)a->n_ints > cap) return -2;
    for (size_t i = 0; i < a->n_ints; i++) buf[i] = a->ints[i];
    return (int64_t)a->n_ints;
}

int64_t oe_attr_floats(const ectx *c, const char *name, double *buf, int64_t cap)
{
    Onnx__AttributeProto *a = oe_attr(c, name);
    if (!a || (!a->n_floats && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS)) return -1;
    if ((int64_t)a->n_floats > cap) return -2;
    for (size_t i = 0; i < a->n_floats; i++) buf[i] = a->floats[i];
    return (int64_t)a->n_floats;
}

int oe_read_ints(const oe_tensor *t, int64_t *buf, int64_t cap, int64_t *n)
{
    if (!t || t->kind != OE_KIND_TENSOR || oe_is_float(t->dtype) || t->rank > 1 || t->numel > cap)
        return -1;
    for (int64_t i = 0; i < t->numel; i++) buf[i] = ot_get_i(t, i);
    *n = t->numel;
    return 0;
}

int oe_get_axes(ectx *c, size_t input, int64_t *axes, int64_t *n, bool *given)
{
    *given = false;
    *n = 0;
    if (IN(c, input)) {
        if (oe_read_ints(IN(c, input), axes, OE_MAX_RANK, n)) return -1;
        *given = true;
        return 0;
    }
    int64_t k = oe_attr_ints(c, "axes", axes, OE_MAX_RANK);
    if (k == -2) return -1;
    if (k >= 0) {
        *n = k;
        *given = true;
    }
    return 0;
}

/* ---- broadcasting ------------------------------------------------------------------------------ */

int oe_bcast_shape(const oe_tensor *const *ts, int k, int64_t *dims, int *rank)
{
    int r = 0;
    for (int j = 0; j < k; j++)
        if (ts[j]->rank > r) r = ts[j]->rank;
    for (int i = 0; i < r; i++) {
        int64_t d = 1;
        for (int j = 0; j < k; j++) {
            int off = i - (r - ts[j]->rank);
            if (off < 0) continue;
            int64_t x = ts[j]->dims[off];
            if (x == d || x == 1) continue;
            if (d != 1) return -1;
            d = x;
        }
        dims[i] = d;
    }
    *rank = r;
    return 0;
}

void oe_bit_init(oe_bit *b, const oe_tensor *const *ts, int k, const int64_t *dims, int r)
{
    memset(b, 0, sizeof *b);
    b->r = r;
    b->k = k;
    memcpy(b->dims, dims, sizeof(int64_t) * (size_t)r);
    for (int j = 0; j < k; j++) {
        int64_t st[OE_MAX_RANK];
        ot_strides(ts[j]->dims, ts[j]->rank, st);
        for (int i = 0; i < r; i++) {
            int off = i - (r - ts[j]->rank);
            b->bs[j][i] = (off < 0 || ts[j]->dims[off] == 1 || dims[i] == 1) ? 0 : st[off];
        }
    }
}

void oe_bit_next(oe_bit *b)
{
    for (int i = b->r - 1; i >= 0; i--) {
        b->idx[i]++;
        for (int j = 0; j < b->k; j++) b->off[j] += b->bs[j][i];
        if (b->idx[i] < b->dims[i]) return;
        for (int j = 0; j < b->k; j++) b->off[j] -= b->bs[j][i] * b->idx[i];
        b->idx[i] = 0;
    }
}

/* ---- dispatch ---------------------------------------------------------------------------------- */

static const oe_op_def *const op_tables[] = {oe_ops_math,   oe_ops_reduce, oe_ops_shape,   oe_ops_index, oe_ops_nn,
                                             oe_ops_conv,   oe_ops_resize, oe_ops_control, oe_ops_fft,   oe_ops_rnn,
                                             oe_ops_misc,   oe_ops_random};

/* The kernels by operator record id (onnx/onnx_op.h): one lookup of the record finds the
 * signature, the inference and the kernel. A family table names an op of another domain
 * "domain.Op" (ai.onnx.preview.training.Adam). */
static const oe_op_def **kernel_of;

static const ox_op *record_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot) return ox_op_find("", name);
    char domain[256];
    size_t dl = (size_t)(dot - name);
    if (dl >= sizeof domain) return NULL;
    memcpy(domain, name, dl);
    domain[dl] = 0;
    return ox_op_find(domain, dot + 1);
}

const oe_op_def *oe_op_kernel(const ox_op *op)
{
    if (!kernel_of) {
        kernel_of = xcalloc(ox_op_count(), sizeof *kernel_of);
        for (size_t t = 0; t < sizeof op_tables / sizeof *op_tables; t++)
            for (const oe_op_def *d = op_tables[t]; d->name; d++) {
                const ox_op *r = record_of(d->name);
                if (r) kernel_of[r->id] = d;   /* a kernel without a record: test_onnx_eval fails */
            }
    }
    return op ? kernel_of[op->id] : NULL;
}

const oe_op_def *oe_find_op(const char *op_type)
{
    return oe_op_kernel(ox_op_find("", op_type));
}

static bool default_domain(const char *domain)
{
    return !domain || !*domain || !strcmp(domain, "ai.onnx");
}

bool oe_op_supported(const char *op_type)
{
    const oe_op_def *d = oe_find_op(op_type);
    return d && d->fold;
}

const oe_op_def *oe_find_op_in(const char *domain, const char *op_type)
{
    return oe_op_kernel(ox_op_find(domain, op_type));
}

bool oe_op_evaluable(const char *domain, const char *op_type)
{
    return oe_find_op_in(domain, op_type) != NULL;
}

void oe_each_op(void (*fn)(const char *op_type, void *ctx), void *ctx)
{
    for (size_t t = 0; t < sizeof op_tables / sizeof *op_tables; t++)
        for (const oe_op_def *d = op_tables[t]; d->name; d++) fn(d->name, ctx);
}

int oe_eval_node(const Onnx__NodeProto *n, int64_t opset, oe_tensor *const *in, size_t nin,
                 oe_tensor *out, size_t nout, diag_sink *d)
{
    if (!n || !n->op_type || !default_domain(n->domain)) return OE_UNSUPPORTED;
    for (size_t i = 0; i < nout; i++) memset(&out[i], 0, sizeof out[i]);
    for (size_t i = 0; i < nin; i++)
        if (in[i] && in[i]->kind == OE_KIND_TENSOR && !ot_dtype_supported(in[i]->dtype)) return OE_UNSUPPORTED;
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->ref_attr_name) return OE_UNSUPPORTED;
    const oe_op_def *def = oe_find_op(n->op_type);
    if (!def) return OE_UNSUPPORTED;
    ectx c = {n, opset, in, nin, out, nout, d, def->arg, NULL};
    int rc = def->fn(&c);
    if (rc != OE_OK)
        for (size_t i = 0; i < nout; i++) ot_tensor_free(&out[i]);
    return rc;
}
