/* translate_emit.c — emitting ONNX: unique names, nodes, the per-graph constant farm, FX value types. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/vec.h"
#include "translate/translate.h"
#include "translate/translate_internal.h"
#include "translate/translate_meta.h"

/* ---- naming ---- */

const char *tx_unique_name(tx *t, const char *base)
{
    if (!hm_has(&t->used, base)) {
        const char *s = arena_strdup(&t->a, base);
        hm_put(&t->used, s, (void *)1);
        return s;
    }
    int *k = hm_get(&t->suffix, base);
    if (!k) {
        k = arena_alloc(&t->a, sizeof *k);
        *k = 1;
        hm_put(&t->suffix, arena_strdup(&t->a, base), k);
    }
    for (;;) {
        const char *s = arena_printf(&t->a, "%s_%d", base, ++*k);
        if (!hm_has(&t->used, s)) {
            hm_put(&t->used, s, (void *)1);
            return s;
        }
    }
}

const char *tx_fresh_val(tx *t)
{
    char buf[32];
    snprintf(buf, sizeof buf, "val_%d", t->nval++);
    return tx_unique_name(t, buf);
}

Onnx__NodeProto *tx_emit(tx *t, const char *op, const char *domain, const char *name)
{
    char buf[128];
    if (!name) {   /* only automatic names take a number, as in the exporter (node_bmm, node_Constant_0) */
        snprintf(buf, sizeof buf, "node_%s_%d", op, t->nnode++);
        name = buf;
    }
    Onnx__NodeProto *n = ox_graph_add_node(t->m, t->sc->g, op, name);
    if (domain && *domain) n->domain = ox_strdup(t->m, domain);
    if (t->cur) {
        if (!strncmp(name, "node_", 5) && !strcmp(name + 5, t->cur->name)) t->cur_main = n;
        if (!t->cur_pv_ready) translate_node_provenance(t->cur, &t->cur_pv, &t->a);
        t->cur_pv_ready = true;
        translate_attach_provenance(t->m, n, &t->cur_pv);
    }
    return n;
}

/* One-input one-output helper: returns the output name (a fresh val_N unless out given). */
const char *tx_emit1(tx *t, const char *op, const char *in, const char *out, const char *node_name)
{
    if (!out) out = tx_fresh_val(t);
    Onnx__NodeProto *n = tx_emit(t, op, "", node_name);
    ox_node_add_input(t->m, n, in);
    ox_node_add_output(t->m, n, out);
    return out;
}

const char *tx_emit2(tx *t, const char *op, const char *a, const char *b, const char *out, const char *node_name)
{
    if (!out) out = tx_fresh_val(t);
    Onnx__NodeProto *n = tx_emit(t, op, "", node_name);
    ox_node_add_input(t->m, n, a);
    ox_node_add_input(t->m, n, b);
    ox_node_add_output(t->m, n, out);
    return out;
}

const char *tx_emitn(tx *t, const char *op, const char *const *in, size_t n, const char *out, const char *node_name)
{
    if (!out) out = tx_fresh_val(t);
    Onnx__NodeProto *nd = tx_emit(t, op, "", node_name);
    for (size_t i = 0; i < n; i++) ox_node_add_input(t->m, nd, in[i]);
    ox_node_add_output(t->m, nd, out);
    return out;
}

/* Cast <to> (x) and op <keepdims> (x[, axes]) reductions: out / node_name NULL give a fresh val_N
 * and an automatic node name. */
const char *tx_emit_cast(tx *t, const char *x, int to, const char *out, const char *node_name)
{
    Onnx__NodeProto *n = tx_emit(t, "Cast", "", node_name);
    ox_attr_int(t->m, n, "to", to);
    ox_node_add_input(t->m, n, x);
    if (!out) out = tx_fresh_val(t);
    ox_node_add_output(t->m, n, out);
    return out;
}

/* Concat <axis: 0> of three values (a fresh val_N), as torchlib's op.Concat(a, b, c, axis=0). */
const char *tx_emit_concat3(tx *t, const char *a, const char *b, const char *c)
{
    Onnx__NodeProto *n = tx_emit(t, "Concat", "", NULL);
    ox_attr_int(t->m, n, "axis", 0);
    ox_node_add_input(t->m, n, a);
    ox_node_add_input(t->m, n, b);
    ox_node_add_input(t->m, n, c);
    const char *out = tx_fresh_val(t);
    ox_node_add_output(t->m, n, out);
    return out;
}

const char *tx_emit_reduce(tx *t, const char *op, const char *x, const char *axes, int64_t keepdims, const char *out,
                           const char *node_name)
{
    Onnx__NodeProto *n = tx_emit(t, op, "", node_name);
    ox_attr_int(t->m, n, "keepdims", keepdims);
    ox_node_add_input(t->m, n, x);
    if (axes) ox_node_add_input(t->m, n, axes);
    if (!out) out = tx_fresh_val(t);
    ox_node_add_output(t->m, n, out);
    return out;
}

/* ---- errors ---- */

void tx_fail_node(tx *t, const fx_node *n, const char *what)
{
    if (t->failed) return;                 /* the first error explains; later ones are fallout */
    t->failed = true;
    diagnostic *dg = diag_error(t->d, (diag_loc){t->p->file, 0, 0}, "cannot translate %s (node %%%s): %s",
                                n->target ? n->target : "?", n->name, what ? what : "");
    if (n->meta.source) diag_set_hint(dg, "the node comes from %s", n->meta.source);
}

/* ---- constants (shared per graph, keyed by value and dtype, like torch's constant farm) ---- */

static const char *farm_get(tx *t, const char *key)
{
    for (scope *s = t->sc; s; s = s->parent) {
        const char *v = hm_get(&s->consts, key);
        if (v) return v;
    }
    return NULL;
}

static void farm_put(tx *t, const char *key, const char *name)
{
    hm_put(&t->sc->consts, arena_strdup(&t->a, key), (void *)name);
}

static bool fill_scalar(tx *t, Onnx__TensorProto *tp, int dtype, double f, int64_t i, bool is_float)
{
    switch (dtype) {
    case OT_FLOAT: { float v = is_float ? (float)f : (float)i; ox_tensor_set_floats(t->m, tp, &v, 1); return true; }
    case OT_DOUBLE: { double v = is_float ? f : (double)i; ox_tensor_set_doubles(t->m, tp, &v, 1); return true; }
    case OT_INT64: { int64_t v = is_float ? (int64_t)f : i; ox_tensor_set_int64s(t->m, tp, &v, 1); return true; }
    case OT_INT32: { int32_t v = (int32_t)(is_float ? (int64_t)f : i); ox_tensor_set_int32s(t->m, tp, &v, 1); return true; }
    case OT_INT16: case OT_INT8: case OT_UINT8: case OT_BOOL: {
        int32_t v = (int32_t)(is_float ? (int64_t)f : i);
        if (dtype == OT_BOOL) v = v != 0;
        ox_tensor_set_int32s(t->m, tp, &v, 1);
        return true;
    }
    }
    return false;
}

/* A scalar Constant of the given ONNX dtype (falls back to float/int64 + Cast for others). */
const char *tx_const_scalar(tx *t, int dtype, double f, int64_t i, bool is_float)
{
    char key[96];
    if (is_float) snprintf(key, sizeof key, "s:%d:%.17g", dtype, f);
    else snprintf(key, sizeof key, "s:%d:%lld", dtype, (long long)i);
    const char *v = farm_get(t, key);
    if (v) return v;
    Onnx__TensorProto *tp = ox_tensor_new(t->m, NULL, dtype, NULL, 0);
    const char *out;
    if (fill_scalar(t, tp, dtype, f, i, is_float)) {
        Onnx__NodeProto *n = tx_emit(t, "Constant", "", NULL);
        ox_attr_tensor(t->m, n, "value", tp);
        out = tx_fresh_val(t);
        ox_node_add_output(t->m, n, out);
    } else {
        const char *base = tx_const_scalar(t, is_float ? OT_FLOAT : OT_INT64, f, i, is_float);
        Onnx__NodeProto *n = tx_emit(t, "Cast", "", NULL);
        ox_attr_int(t->m, n, "to", dtype);
        ox_node_add_input(t->m, n, base);
        out = tx_fresh_val(t);
        ox_node_add_output(t->m, n, out);
    }
    farm_put(t, key, out);
    return out;
}

const char *tx_const_ints(tx *t, const int64_t *v, size_t n)
{
    strbuf k;
    sb_init(&k);
    sb_puts(&k, "ints:");
    for (size_t i = 0; i < n; i++) sb_printf(&k, "%lld,", (long long)v[i]);
    const char *out = farm_get(t, k.s);
    if (!out) {
        /* a typed tensor, not value_ints: shape inference (Pad, Reshape) wants a known 1-D shape */
        int64_t dim = (int64_t)n;
        Onnx__TensorProto *tp = ox_tensor_new(t->m, NULL, OT_INT64, &dim, 1);
        ox_tensor_set_int64s(t->m, tp, v, n);
        Onnx__NodeProto *nd = tx_emit(t, "Constant", "", NULL);
        ox_attr_tensor(t->m, nd, "value", tp);
        out = tx_fresh_val(t);
        ox_node_add_output(t->m, nd, out);
        farm_put(t, k.s, out);
    }
    sb_free(&k);
    return out;
}

/* A Constant <value_ints> of its own, outside the farm: torchlib's op.Constant(value_ints=...) makes
 * a node (and takes a val_N number) at every call. */
const char *tx_own_ints(tx *t, const int64_t *v, size_t n)
{
    Onnx__NodeProto *c = tx_emit(t, "Constant", "", NULL);
    ox_attr_ints(t->m, c, "value_ints", v, n);
    const char *out = tx_fresh_val(t);
    ox_node_add_output(t->m, c, out);
    return out;
}

/* A 1-D int64 Constant tensor of its own (torchlib's op.Constant(value=ir.tensor([...], INT64))). */
const char *tx_own_int_tensor(tx *t, const int64_t *v, size_t n)
{
    int64_t dim = (int64_t)n;
    Onnx__TensorProto *tp = ox_tensor_new(t->m, NULL, OT_INT64, &dim, 1);
    ox_tensor_set_int64s(t->m, tp, v, n);
    Onnx__NodeProto *nd = tx_emit(t, "Constant", "", NULL);
    ox_attr_tensor(t->m, nd, "value", tp);
    const char *out = tx_fresh_val(t);
    ox_node_add_output(t->m, nd, out);
    return out;
}

/* A one-element Constant of its own (0-d, or rank dims of 1): torchlib's
 * op.Constant(value=ir.tensor(v, dtype=...)) makes a node at every call. A dtype fxsh cannot fill
 * directly (16-bit floats) is a float/int64 one cast. */
const char *tx_own_one(tx *t, int dtype, size_t rank, double f, int64_t i, bool is_float)
{
    int64_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    Onnx__TensorProto *tp = ox_tensor_new(t->m, NULL, dtype, ones, rank < 8 ? rank : 8);
    if (!fill_scalar(t, tp, dtype, f, i, is_float))
        return tx_emit_cast(t, tx_own_one(t, is_float ? OT_FLOAT : OT_INT64, rank, f, i, is_float), dtype, NULL, NULL);
    Onnx__NodeProto *n = tx_emit(t, "Constant", "", NULL);
    ox_attr_tensor(t->m, n, "value", tp);
    const char *out = tx_fresh_val(t);
    ox_node_add_output(t->m, n, out);
    return out;
}

const char *tx_own_scalar(tx *t, int dtype, double f, int64_t i, bool is_float)
{
    return tx_own_one(t, dtype, 0, f, i, is_float);
}

const char *tx_const_floats(tx *t, const float *v, size_t n)
{
    strbuf k;
    sb_init(&k);
    sb_puts(&k, "floats:");
    for (size_t i = 0; i < n; i++) sb_printf(&k, "%.9g,", v[i]);
    const char *out = farm_get(t, k.s);
    if (!out) {
        Onnx__NodeProto *nd = tx_emit(t, "Constant", "", NULL);
        ox_attr_floats(t->m, nd, "value_floats", v, n);
        out = tx_fresh_val(t);
        ox_node_add_output(t->m, nd, out);
        farm_put(t, k.s, out);
    }
    sb_free(&k);
    return out;
}

/* ---- FX helpers ---- */

const fx_value *tx_node_val(const fx_node *n)
{
    return n ? n->meta.val : NULL;
}

/* The ONNX type of a SymInt/SymBool/SymFloat from its printed expression, as torch.onnx types
 * them: SymBools ("s0 > 4", "Eq(s0, 4)") are BOOL, SymFloats ("s0/8", "ToFloat(s0)", "0.5*s0")
 * FLOAT, the rest INT64. */
/* A symbolic value's ONNX type: a SymBool BOOL, a SymFloat FLOAT, a SymInt INT64 (torch.onnx's). */
static int sym_dtype(const char *te)
{
    fx_dtype d = fx_sym_dtype(te);
    return d == FX_DT_BOOL ? OT_BOOL : d == FX_DT_F64 ? OT_FLOAT : OT_INT64;
}

int tx_onnx_dtype_of_node(const fx_node *n)
{
    const fx_value *v = tx_node_val(n);
    if (!v) return 0;
    if (v->kind == FX_VAL_TENSOR) return fx_dtype_get(v->dtype)->onnx_type;
    if (v->kind == FX_VAL_SYM) return sym_dtype(v->text);
    return 0;
}

bool tx_is_float_type(int dt)
{
    return dt == OT_FLOAT || dt == OT_DOUBLE || dt == 10 || dt == 16;   /* float16, bfloat16 */
}

/* The ONNX type of a node's result (its first item for a tuple result), 0 if unknown. */
int tx_result_dtype(const fx_node *n)
{
    const fx_value *v = tx_node_val(n);
    if (v && v->kind == FX_VAL_TUPLE) v = v->n_items ? v->items[0] : NULL;
    if (!v) return 0;
    if (v->kind == FX_VAL_TENSOR) return fx_dtype_get(v->dtype)->onnx_type;
    return v->kind == FX_VAL_SYM ? sym_dtype(v->text) : 0;
}

int tx_rank_of_node(const fx_node *n)
{
    const fx_value *v = tx_node_val(n);
    if (!v) return -1;
    if (v->kind == FX_VAL_TENSOR) return (int)v->rank;
    if (v->kind == FX_VAL_SYM) return 0;
    return -1;
}

const tx_val *tx_lookup_val(tx *t, const fx_node *n)
{
    for (scope *s = t->sc; s; s = s->parent)
        if (s->fxg == n->graph) return hm_get(&s->vals, n->name);
    return NULL;
}

tx_val *tx_set_val(tx *t, const fx_node *n, const char **names, size_t k)
{
    tx_val *v = arena_alloc(&t->a, sizeof *v);
    v->names = arena_alloc(&t->a, (k + 1) * sizeof *v->names);
    if (k) memcpy(v->names, names, k * sizeof *names);   /* a node without outputs: names may be NULL */
    v->n = k;
    hm_put(&t->sc->vals, n->name, v);
    return v;
}

const char *tx_single(tx *t, const fx_node *user, const fx_node *n)
{
    const tx_val *v = tx_lookup_val(t, n);
    if (!v) { tx_fail_node(t, user, arena_printf(&t->a, "input %%%s has no ONNX value", n->name)); return NULL; }
    if (v->n != 1) { tx_fail_node(t, user, arena_printf(&t->a, "input %%%s has several outputs; use getitem", n->name)); return NULL; }
    return v->names[0];
}

Onnx__TypeProto *tx_type_of_value(tx *t, const fx_value *v)
{
    if (!v) return NULL;
    if (v->kind == FX_VAL_SYM) return ox_type_tensor(t->m, sym_dtype(v->text), NULL, 0, true);
    if (v->kind != FX_VAL_TENSOR) return NULL;
    if (v->dtype == FX_DT_C64 || v->dtype == FX_DT_C128) {
        /* torch.onnx's real form of a complex value: its real dtype, a last dim of 2 */
        const char **sizes = arena_alloc(&t->a, (v->rank + 1) * sizeof *sizes);
        for (size_t i = 0; i < v->rank; i++) sizes[i] = v->sizes ? v->sizes[i] : "?";
        sizes[v->rank] = "2";
        return ox_type_tensor(t->m, v->dtype == FX_DT_C64 ? OT_FLOAT : OT_DOUBLE, sizes, v->rank + 1, true);
    }
    int et = fx_dtype_get(v->dtype)->onnx_type;
    if (!et) return NULL;
    return ox_type_tensor(t->m, et, v->sizes, v->rank, true);
}
