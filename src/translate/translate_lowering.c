/* translate_lowering.c — a table lowering instantiated for one FX node: arguments bound to the schema,
 * turned into ONNX inputs and attributes (@refs), outputs named as torch.onnx names them. */
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

/* ---- argument binding ---- */

static fx_arg *mk_arg(tx *t, fx_arg_kind k)
{
    fx_arg *a = arena_alloc(&t->a, sizeof *a);
    a->kind = k;
    return a;
}

static fx_arg *parse_default(tx *t, const char *s)
{
    if (!strcmp(s, "None")) return mk_arg(t, FX_ARG_NONE);
    if (!strcmp(s, "True") || !strcmp(s, "False")) {
        fx_arg *a = mk_arg(t, FX_ARG_BOOL);
        a->u.b = s[0] == 'T';
        return a;
    }
    if (*s == '[') {
        VEC(fx_arg *) items = {0};
        const char *p = s + 1;
        while (*p && *p != ']') {
            while (*p == ' ' || *p == ',') p++;
            if (*p == ']') break;
            char *end;
            double f = strtod(p, &end);
            if (end == p) break;
            fx_arg *it;
            if (memchr(p, '.', (size_t)(end - p)) || memchr(p, 'e', (size_t)(end - p))) {
                it = mk_arg(t, FX_ARG_FLOAT);
                it->u.f = f;
            } else {
                it = mk_arg(t, FX_ARG_INT);
                it->u.i = (int64_t)strtoll(p, NULL, 10);
            }
            vec_push(&items, it);
            p = end;
        }
        fx_arg *a = mk_arg(t, FX_ARG_LIST);
        a->u.seq.items = arena_alloc(&t->a, (items.len + 1) * sizeof *a->u.seq.items);
        if (items.len) memcpy(a->u.seq.items, items.items, items.len * sizeof *items.items);
        a->u.seq.len = items.len;
        vec_free(&items);
        return a;
    }
    if (*s == '\'' || *s == '"') {
        fx_arg *a = mk_arg(t, FX_ARG_STR);
        size_t n = strlen(s);
        a->u.s = arena_strndup(&t->a, s + 1, n >= 2 ? n - 2 : 0);
        return a;
    }
    char *end;
    long long iv = strtoll(s, &end, 10);
    if (!*end) {
        fx_arg *a = mk_arg(t, FX_ARG_INT);
        a->u.i = iv;
        return a;
    }
    double f = strtod(s, &end);
    if (!*end) {
        fx_arg *a = mk_arg(t, FX_ARG_FLOAT);
        a->u.f = f;
        return a;
    }
    fx_arg *a = mk_arg(t, FX_ARG_OPAQUE);
    a->u.s = arena_strdup(&t->a, s);
    return a;
}

bool tx_bind_args(tx *t, const fx_node *n, const aten_schema *s, const fx_arg **out)
{
    const fx_arg *args = n->args, *kw = n->kwargs;
    size_t na = args ? args->u.seq.len : 0;
    if (na > s->nargs) {
        tx_fail_node(t, n, arena_printf(&t->a, "%zu positional arguments, the schema %s takes %zu", na, s->text, s->nargs));
        return false;
    }
    for (size_t i = 0; i < s->nargs; i++) out[i] = NULL;
    for (size_t i = 0; i < na; i++) out[i] = args->u.seq.items[i];
    for (size_t i = 0; kw && i < kw->u.seq.len; i++) {
        int k = aten_schema_find(s, kw->u.seq.keys[i]);
        if (k < 0) {
            tx_fail_node(t, n, arena_printf(&t->a, "unexpected keyword argument '%s' for %s", kw->u.seq.keys[i], s->text));
            return false;
        }
        out[k] = kw->u.seq.items[i];
    }
    for (size_t i = 0; i < s->nargs; i++) {
        if (out[i]) continue;
        if (!s->args[i].has_default) {
            tx_fail_node(t, n, arena_printf(&t->a, "missing argument '%s' of %s", s->args[i].name, s->text));
            return false;
        }
        out[i] = parse_default(t, s->args[i].default_text);
        fx_dtype dt;
        if (out[i]->kind == FX_ARG_INT && s->args[i].base == ATY_SCALARTYPE &&
            (dt = fx_dtype_from_c10_number(out[i]->u.i)) != FX_DT_UNKNOWN) {
            /* a ScalarType default (randint's dtype=4, int64) is that dtype, as an explicit one is */
            fx_arg *a = mk_arg(t, FX_ARG_DTYPE);
            a->u.dtype = dt;
            out[i] = a;
        }
    }
    return true;
}

static const char *dtype_short(const fx_node *n)
{
    const fx_value *v = tx_node_val(n);
    if (!v) return NULL;
    if (v->kind == FX_VAL_SYM) return "int64";
    if (v->kind != FX_VAL_TENSOR || v->dtype == FX_DT_UNKNOWN) return NULL;
    const char *s = fx_dtype_get(v->dtype)->torch_name;
    return s && !strncmp(s, "torch.", 6) ? s + 6 : s;
}

arg_info tx_info_of(const fx_arg *a)
{
    arg_info r = {.kind = ARGK_OTHER, .rank = -1};
    switch (a->kind) {
    case FX_ARG_NONE: r.kind = ARGK_NONE; break;
    case FX_ARG_NODE: r.kind = ARGK_TENSOR; r.rank = tx_rank_of_node(a->u.node); r.dtype = dtype_short(a->u.node); break;
    case FX_ARG_INT: r.kind = ARGK_INT; r.ival = a->u.i; break;
    case FX_ARG_BOOL: r.kind = ARGK_BOOL; r.ival = a->u.b; break;
    case FX_ARG_FLOAT: r.kind = ARGK_FLOAT; r.fval = a->u.f; break;
    case FX_ARG_STR: r.kind = ARGK_STR; r.sval = a->u.s; break;
    case FX_ARG_LIST: case FX_ARG_TUPLE: r.kind = ARGK_LIST; r.len = a->u.seq.len; break;
    case FX_ARG_DTYPE: {
        const char *s = fx_dtype_get(a->u.dtype)->torch_name;
        r.kind = ARGK_DTYPE;
        r.dtype = s && !strncmp(s, "torch.", 6) ? s + 6 : s;
        break;
    }
    default: break;
    }
    return r;
}

/* ---- turning arguments into ONNX inputs ---- */

/* list length declared in a schema type like "int[2]" (0 if none). */
static size_t fixed_len(const aten_arg *sa)
{
    const char *b = strchr(sa->type_text, '[');
    return b ? (size_t)strtoul(b + 1, NULL, 10) : 0;
}

static int scalar_dtype(const aten_arg *sa, const fx_arg *a, int ref_dtype)
{
    if (sa && (sa->base == ATY_TENSOR || sa->base == ATY_SCALAR) && ref_dtype) return ref_dtype;
    if (a->kind == FX_ARG_FLOAT) return OT_FLOAT;
    if (a->kind == FX_ARG_BOOL) return sa && sa->base == ATY_BOOL ? OT_BOOL : OT_INT64;
    return OT_INT64;
}

const char *tx_scalar_input(tx *t, const aten_arg *sa, const fx_arg *a, int ref_dtype)
{
    int dt = scalar_dtype(sa, a, ref_dtype);
    if (a->kind == FX_ARG_FLOAT) return tx_const_scalar(t, dt, a->u.f, 0, true);
    if (a->kind == FX_ARG_BOOL) return tx_const_scalar(t, dt, 0, a->u.b, false);
    return tx_const_scalar(t, dt, 0, a->u.i, false);
}

/* A list of ints / SymInt nodes as one INT64 1-D tensor (Concat when any element is a value). */
const char *tx_int_list_input(tx *t, const fx_node *user, const fx_arg *a)
{
    size_t n = a->u.seq.len;
    bool all_const = true, all_num = true, any_float = false;
    for (size_t i = 0; i < n; i++) {
        fx_arg_kind k = a->u.seq.items[i]->kind;
        if (k == FX_ARG_NODE) all_const = false;
        else if (k == FX_ARG_FLOAT) any_float = true;
        else if (k != FX_ARG_INT && k != FX_ARG_BOOL) all_num = false;
    }
    if (!all_num) { tx_fail_node(t, user, "list argument with unsupported elements"); return NULL; }
    if (all_const && any_float) {
        float *v = arena_alloc(&t->a, (n + 1) * sizeof *v);
        for (size_t i = 0; i < n; i++) {
            const fx_arg *x = a->u.seq.items[i];
            v[i] = x->kind == FX_ARG_FLOAT ? (float)x->u.f : (float)x->u.i;
        }
        return tx_const_floats(t, v, n);
    }
    if (all_const) {
        int64_t *v = arena_alloc(&t->a, (n + 1) * sizeof *v);
        for (size_t i = 0; i < n; i++) {
            const fx_arg *x = a->u.seq.items[i];
            v[i] = x->kind == FX_ARG_BOOL ? x->u.b : x->u.i;
        }
        return tx_const_ints(t, v, n);
    }
    Onnx__NodeProto *cat = NULL;
    const char **parts = arena_alloc(&t->a, (n + 1) * sizeof *parts);
    int64_t m1 = -1;
    for (size_t i = 0; i < n; i++) {
        const fx_arg *x = a->u.seq.items[i];
        if (x->kind == FX_ARG_NODE) {
            const char *v = tx_single(t, user, x->u.node);
            if (!v) return NULL;
            parts[i] = tx_emit2(t, "Reshape", v, tx_const_ints(t, &m1, 1), NULL, NULL);
        } else {
            int64_t iv = x->u.i;
            parts[i] = tx_const_ints(t, &iv, 1);
        }
    }
    cat = tx_emit(t, "Concat", "", NULL);
    ox_attr_int(t->m, cat, "axis", 0);
    for (size_t i = 0; i < n; i++) ox_node_add_input(t->m, cat, parts[i]);
    const char *out = tx_fresh_val(t);
    ox_node_add_output(t->m, cat, out);
    return out;
}

/* A list of ints / SymInt nodes the way torchlib's common_ops.merge_dims builds it: a [-1]
 * Constant (for the Reshape of SymInt elements), a Constant <value_ints> per int element (not
 * shared: merge_dims calls op.Constant itself), and a Concat. When no element is a SymInt the
 * [-1] is unused and torch.onnx drops it, leaving a gap in the val_N / node numbering; fxsh
 * leaves the same gap, so that the names after it are torch's. */
const char *tx_merge_dims_input(tx *t, const fx_node *user, const fx_arg *a, bool minus_one_as_one)
{
    size_t n = a->u.seq.len;
    bool any_node = false;
    for (size_t i = 0; i < n; i++) {
        fx_arg_kind k = a->u.seq.items[i]->kind;
        if (k == FX_ARG_NODE) any_node = true;
        else if (k != FX_ARG_INT && k != FX_ARG_BOOL) { tx_fail_node(t, user, "list argument with unsupported elements"); return NULL; }
    }
    if (n == 0) return tx_own_ints(t, NULL, 0);
    const char *neg_one = NULL;
    int64_t m1 = -1;
    if (any_node) {
        neg_one = tx_own_ints(t, &m1, 1);
    } else {
        t->nval++;
        t->nnode++;
    }
    const char **parts = arena_alloc(&t->a, (n + 1) * sizeof *parts);
    for (size_t i = 0; i < n; i++) {
        const fx_arg *x = a->u.seq.items[i];
        if (x->kind == FX_ARG_NODE) {
            const char *v = tx_single(t, user, x->u.node);
            if (!v) return NULL;
            parts[i] = tx_emit2(t, "Reshape", v, neg_one, NULL, NULL);
        } else {
            int64_t d = x->kind == FX_ARG_BOOL ? x->u.b : x->u.i;
            if (minus_one_as_one && d == -1) d = 1;
            parts[i] = tx_own_ints(t, &d, 1);
        }
    }
    Onnx__NodeProto *cat = tx_emit(t, "Concat", "", NULL);
    ox_attr_int(t->m, cat, "axis", 0);
    for (size_t i = 0; i < n; i++) ox_node_add_input(t->m, cat, parts[i]);
    const char *out = tx_fresh_val(t);
    ox_node_add_output(t->m, cat, out);
    return out;
}

/* Values for one lowering input: usually one name; Tensor[] arguments expand to several. */

bool tx_arg_inputs(tx *t, const fx_node *user, const aten_arg *sa, const fx_arg *a, int ref_dtype, namevec *out)
{
    switch (a->kind) {
    case FX_ARG_NONE: vec_push(out, ""); return true;
    case FX_ARG_NODE: {
        const char *v = tx_single(t, user, a->u.node);
        if (!v) return false;
        vec_push(out, v);
        return true;
    }
    case FX_ARG_INT: case FX_ARG_FLOAT: case FX_ARG_BOOL:
        vec_push(out, tx_scalar_input(t, sa, a, ref_dtype));
        return true;
    case FX_ARG_LIST: case FX_ARG_TUPLE:
        if (sa && sa->base == ATY_TENSOR) {
            for (size_t i = 0; i < a->u.seq.len; i++)
                if (!tx_arg_inputs(t, user, NULL, a->u.seq.items[i], ref_dtype, out)) return false;
            return true;
        } else {
            const char *v = tx_int_list_input(t, user, a);
            if (!v) return false;
            vec_push(out, v);
            return true;
        }
    default:
        tx_fail_node(t, user, arena_printf(&t->a, "argument '%s' cannot be an ONNX input", sa ? sa->name : "?"));
        return false;
    }
}

/* ---- attributes from @refs ---- */

bool tx_list_ints(tx *t, const fx_node *user, const aten_arg *sa, const fx_arg *a, int64_t **v, size_t *n)
{
    size_t fl = fixed_len(sa);
    if (a->kind == FX_ARG_INT || a->kind == FX_ARG_BOOL) {
        *n = fl ? fl : 1;
        *v = arena_alloc(&t->a, *n * sizeof **v);
        for (size_t i = 0; i < *n; i++) (*v)[i] = a->kind == FX_ARG_INT ? a->u.i : a->u.b;
        return true;
    }
    if (a->kind != FX_ARG_LIST && a->kind != FX_ARG_TUPLE) {
        tx_fail_node(t, user, arena_printf(&t->a, "argument '%s' must be a list of ints", sa->name));
        return false;
    }
    *n = a->u.seq.len;
    *v = arena_alloc(&t->a, (*n + 1) * sizeof **v);
    for (size_t i = 0; i < *n; i++) {
        const fx_arg *x = a->u.seq.items[i];
        if (x->kind != FX_ARG_INT) {
            tx_fail_node(t, user, arena_printf(&t->a, "argument '%s' must hold constant ints for an attribute", sa->name));
            return false;
        }
        (*v)[i] = x->u.i;
    }
    if (*n == 1 && fl > 1) {               /* [k] → [k, k] as torch broadcasts int[2] args */
        int64_t k = (*v)[0];
        *v = arena_alloc(&t->a, fl * sizeof **v);
        for (size_t i = 0; i < fl; i++) (*v)[i] = k;
        *n = fl;
    }
    return true;
}

/* A dtype attribute fxsh can write: ONNX defines complex64/complex128 tensors, but Cast and the
 * arithmetic operators do not take them, so a complex dtype is an error at the node, not a model
 * the checker rejects. */
static bool dtype_attr(tx *t, const fx_node *user, Onnx__NodeProto *nd, const char *name, int onnx_type)
{
    if (onnx_type == 14 || onnx_type == 15) {
        tx_fail_node(t, user, arena_printf(&t->a, "%s to %s: ONNX operators do not take complex types",
                                           nd->op_type, onnx_type == 14 ? "complex64" : "complex128"));
        return false;
    }
    ox_attr_int(t->m, nd, name, onnx_type);
    return true;
}

/* The int list a list-valued derive gives: pads (the list doubled, begins then ends), nonneg
 * (negative entries + len), ones ([1] * len, as torchlib's [1] * len(repeats)). */
/* A rank(x) [+ n | - n] derive entry: len(x.shape) of a tensor argument whose meta gives its rank. */
static bool derived_rank(tx *t, const fx_node *user, const low_attr *at, const aten_schema *s, const fx_arg **bound,
                         int64_t *out)
{
    const fx_arg *a = bound[at->ref_arg];
    int r = a->kind == FX_ARG_NODE ? tx_rank_of_node(a->u.node) : -1;
    if (r < 0) {
        tx_fail_node(t, user, arena_printf(&t->a, "@%s needs the rank of '%s' (tensor meta)", at->ref,
                                           s->args[at->ref_arg].name));
        return false;
    }
    *out = r + at->ref_offset;
    return true;
}

bool tx_derived_ints(tx *t, const fx_node *user, const low_attr *at, const aten_schema *s, const fx_arg **bound,
                     int64_t **out, size_t *nout)
{
    const aten_arg *sa = &s->args[at->ref_arg];
    const fx_arg *a = bound[at->ref_arg];
    int64_t *v;
    size_t n;
    if (!strcmp(at->ref_fn, "ones")) {   /* only the length counts: SymInt entries are fine */
        if (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE) n = a->u.seq.len;
        else if (!tx_list_ints(t, user, sa, a, &v, &n)) return false;
        v = arena_alloc(&t->a, (n + 1) * sizeof *v);
        for (size_t i = 0; i < n; i++) v[i] = 1;
        *out = v;
        *nout = n;
        return true;
    }
    if (!tx_list_ints(t, user, sa, a, &v, &n)) return false;
    if (!strcmp(at->ref_fn, "nonneg")) {
        for (size_t i = 0; i < n; i++)
            if (v[i] < 0) v[i] += (int64_t)n;
        *out = v;
        *nout = n;
        return true;
    }
    int64_t *p = arena_alloc(&t->a, (2 * n + 1) * sizeof *p);   /* pads */
    memcpy(p, v, n * sizeof *v);
    memcpy(p + n, v, n * sizeof *v);
    *out = p;
    *nout = 2 * n;
    return true;
}

bool tx_ref_attr(tx *t, const fx_node *user, Onnx__NodeProto *nd, const low_attr *at, const aten_schema *s,
                 const fx_arg **bound)
{
    if (at->ref_fn && (!strcmp(at->ref_fn, "out_dtype") || !strcmp(at->ref_fn, "opmath_dtype"))) {
        /* the result's type, for ops whose output dtype torch infers (arange, true division); its
         * opmath type (float32 for float16 and bfloat16, as ATen's CPU kernels compute them) */
        int dt = tx_result_dtype(user);
        if (!strcmp(at->ref_fn, "opmath_dtype") &&
            (dt == OT_FLOAT16 || dt == OT_BFLOAT16))
            dt = OT_FLOAT;
        if (!dt) {
            tx_fail_node(t, user, arena_printf(&t->a, "attribute '%s' needs the dtype of the node's result (tensor meta)",
                                            at->name));
            return false;
        }
        return dtype_attr(t, user, nd, at->name, dt);
    }
    const aten_arg *sa = &s->args[at->ref_arg];
    const fx_arg *a = bound[at->ref_arg];
    if (a->kind == FX_ARG_NONE) return true;   /* None drops the attribute, as torch does */
    if (at->ref_fn && !strcmp(at->ref_fn, "spatial_shape")) {
        /* a tensor's dims after the first two (a conv weight's kernel), written only when all are
         * static, as torchlib's _conv_kernel_shape; ONNX infers it otherwise */
        const fx_value *v = a->kind == FX_ARG_NODE ? tx_node_val(a->u.node) : NULL;
        if (!v || v->kind != FX_VAL_TENSOR || v->rank < 2) return true;
        int64_t *k = arena_alloc(&t->a, (v->rank + 1) * sizeof *k);
        for (size_t i = 2; i < v->rank; i++) {
            char *end;
            k[i - 2] = strtoll(v->sizes[i], &end, 10);
            if (*end || end == v->sizes[i]) return true;
        }
        ox_attr_ints(t->m, nd, at->name, k, v->rank - 2);
        return true;
    }
    if (at->ref_fn) {
        if (!strcmp(at->ref_fn, "int")) {   /* an int argument's value [+ n] (torchlib's dim + 1) */
            int64_t *v;
            size_t n;
            if (!tx_list_ints(t, user, sa, a, &v, &n) || n != 1) {
                if (n != 1) tx_fail_node(t, user, arena_printf(&t->a, "@%s needs one int", at->ref));
                return false;
            }
            ox_attr_int(t->m, nd, at->name, v[0] + at->ref_offset);
            return true;
        }
        if (!strcmp(at->ref_fn, "rank")) {
            int64_t r;
            if (!derived_rank(t, user, at, s, bound, &r)) return false;
            ox_attr_int(t->m, nd, at->name, r);
            return true;
        }
        if (!strcmp(at->ref_fn, "len") || !strcmp(at->ref_fn, "neg_len")) {
            int64_t *v;
            size_t n;
            if (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE) n = a->u.seq.len;   /* SymInt entries count too */
            else if (!tx_list_ints(t, user, sa, a, &v, &n)) return false;
            ox_attr_int(t->m, nd, at->name, !strcmp(at->ref_fn, "len") ? (int64_t)n : -(int64_t)n);
            return true;
        }
        int64_t *v;
        size_t n;
        if (!tx_derived_ints(t, user, at, s, bound, &v, &n)) return false;
        ox_attr_ints(t->m, nd, at->name, v, n);
        return true;
    }
    low_attr_type ty = at->type;
    if (ty == LAT_INFER) {
        switch (a->kind) {
        case FX_ARG_FLOAT: ty = LAT_FLOAT; break;
        case FX_ARG_STR: ty = LAT_STRING; break;
        case FX_ARG_LIST: case FX_ARG_TUPLE: ty = LAT_INTS; break;
        default: ty = LAT_INT; break;
        }
    }
    switch (ty) {
    case LAT_INT:
        if (a->kind == FX_ARG_INT) ox_attr_int(t->m, nd, at->name, a->u.i);
        else if (a->kind == FX_ARG_BOOL) ox_attr_int(t->m, nd, at->name, a->u.b);
        else if (a->kind == FX_ARG_DTYPE) return dtype_attr(t, user, nd, at->name, fx_dtype_get(a->u.dtype)->onnx_type);
        else break;
        return true;
    case LAT_FLOAT:
        if (a->kind == FX_ARG_FLOAT) ox_attr_float(t->m, nd, at->name, (float)a->u.f);
        else if (a->kind == FX_ARG_INT) ox_attr_float(t->m, nd, at->name, (float)a->u.i);
        else break;
        return true;
    case LAT_STRING:
        if (a->kind == FX_ARG_STR || a->kind == FX_ARG_MEMFMT || a->kind == FX_ARG_LAYOUT || a->kind == FX_ARG_DEVICE)
            ox_attr_string(t->m, nd, at->name, a->u.s);
        else break;
        return true;
    case LAT_INTS: {
        int64_t *v;
        size_t n;
        if (!tx_list_ints(t, user, sa, a, &v, &n)) return false;
        ox_attr_ints(t->m, nd, at->name, v, n);
        return true;
    }
    case LAT_FLOATS: {
        if (a->kind != FX_ARG_LIST && a->kind != FX_ARG_TUPLE) break;
        float *v = arena_alloc(&t->a, (a->u.seq.len + 1) * sizeof *v);
        for (size_t i = 0; i < a->u.seq.len; i++) {
            const fx_arg *x = a->u.seq.items[i];
            v[i] = x->kind == FX_ARG_FLOAT ? (float)x->u.f : (float)x->u.i;
        }
        ox_attr_floats(t->m, nd, at->name, v, a->u.seq.len);
        return true;
    }
    default: break;
    }
    tx_fail_node(t, user, arena_printf(&t->a, "argument '%s' does not fit attribute '%s'", sa->name, at->name));
    return false;
}

static void literal_attr(tx *t, Onnx__NodeProto *nd, const low_attr *at)
{
    switch (at->type) {
    case LAT_INT: ox_attr_int(t->m, nd, at->name, at->i); break;
    case LAT_FLOAT: ox_attr_float(t->m, nd, at->name, (float)at->f); break;
    case LAT_STRING: ox_attr_string(t->m, nd, at->name, at->s); break;
    case LAT_INTS: ox_attr_ints(t->m, nd, at->name, (const int64_t *)at->ints, at->count); break;
    case LAT_FLOATS: {
        float *v = arena_alloc(&t->a, (at->count + 1) * sizeof *v);
        for (size_t i = 0; i < at->count; i++) v[i] = (float)at->floats[i];
        ox_attr_floats(t->m, nd, at->name, v, at->count);
        break;
    }
    case LAT_STRINGS: ox_attr_strings(t->m, nd, at->name, at->strings, at->count); break;
    default: break;
    }
}

/* ---- output naming ---- */

/* Names for the k outputs of FX node n: one output → n's name; several → the name of the
 * getitem user taking each index (torch renames them so), else "<n>__<i>". */
const char **tx_output_names_ex(tx *t, const fx_node *n, size_t k, bool by_getitem)
{
    const char **names = arena_alloc(&t->a, (k + 1) * sizeof *names);
    if (!by_getitem) {
        names[0] = tx_unique_name(t, n->name);
        return names;
    }
    for (size_t u = 0; u < n->n_users; u++) {
        const fx_node *g = n->users[u];
        if (g->op != FX_OP_CALL_FUNCTION || !g->target || strcmp(g->target, "operator.getitem")) continue;
        if (g->args->u.seq.len != 2 || g->args->u.seq.items[1]->kind != FX_ARG_INT) continue;
        int64_t i = g->args->u.seq.items[1]->u.i;
        if (i >= 0 && (size_t)i < k && !names[i]) names[i] = tx_unique_name(t, g->name);
    }
    if (k == 1 && !names[0]) names[0] = tx_unique_name(t, n->name);
    for (size_t i = 0; i < k; i++)
        if (!names[i]) names[i] = tx_unique_name(t, arena_printf(&t->a, "%s__%zu", n->name, i));
    return names;
}

const char **tx_output_names(tx *t, const fx_node *n, size_t k)
{
    return tx_output_names_ex(t, n, k, k > 1);
}

void tx_add_value_info(tx *t, const char *name, const fx_value *v)
{
    if (!t->value_info || !v) return;
    Onnx__TypeProto *ty = tx_type_of_value(t, v);
    if (ty) ox_graph_add_value_info(t->m, t->sc->g, name, ty);
}

/* ---- instantiate a table lowering ---- */

static bool merge_dims_param(const op_rule *rule, int ai, const fx_arg *a)
{
    return ai < 64 && ((rule->merge_dims >> ai) & 1) && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE);
}

/* torchlib's functions get numbers and int lists as Python values: each becomes a Constant when
 * a node first uses it (torch.onnx's tracer converts them at the op call, through the constant
 * farm), so that the Constants sit in the graph, and take their val_N numbers, where torch's do. */
static bool late_param(const aten_schema *s, int ai, const fx_arg *a)
{
    switch (a->kind) {
    case FX_ARG_INT: case FX_ARG_FLOAT: case FX_ARG_BOOL: return true;
    case FX_ARG_LIST: case FX_ARG_TUPLE: return s->args[ai].base != ATY_TENSOR;
    default: return false;
    }
}

/* An argument made at the first node that uses it: a merge_dims list, another int list, or a
 * number — typed by its Python value as Cast's or CastLike's input, else as the function's other
 * numbers are (the tensor it combines with). */
static const char *late_input(tx *t, const fx_node *n, const op_rule *rule, const aten_arg *sa, int ai,
                              const fx_arg *a, const char *op_type, size_t input_index, int dt)
{
    if (merge_dims_param(rule, ai, a)) return tx_merge_dims_input(t, n, a, (rule->merge_dims_minus_one_as_one >> ai) & 1);
    if (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE) return tx_int_list_input(t, n, a);
    /* Cast's and CastLike's input has a type of its own: nothing binds a Python number there */
    if (input_index == 0 && (!strcmp(op_type, "CastLike") || !strcmp(op_type, "Cast")))
        dt = a->kind == FX_ARG_FLOAT ? OT_FLOAT : a->kind == FX_ARG_BOOL ? OT_BOOL : OT_INT64;
    else return tx_scalar_input(t, sa, a, dt);
    if (a->kind == FX_ARG_FLOAT) return tx_const_scalar(t, dt, a->u.f, 0, true);
    return tx_const_scalar(t, dt, 0, a->kind == FX_ARG_BOOL ? a->u.b : a->u.i, false);
}

/* `x = Python <value: float = 0.0> ()` in a lowering is a Python value torchlib passes to an op
 * itself (op.CastLike(0.0, end), op.Unsqueeze(dim, axes=[0]), op.Squeeze(self, [dim])): the
 * tracer's shared constant for it — int64 or float as its Python type, an int list (a literal, or
 * `value: ints = @dim` for [dim] / a list argument) as a 1-D int64 tensor — made where a node first
 * uses it, in input order with the schema's own numbers. */
static bool python_value_node(const low_node *ln)
{
    if (*ln->domain || strcmp(ln->op_type, "Python") || ln->nouts != 1 || ln->nattrs != 1 || ln->nins) return false;
    const low_attr *at = &ln->attrs[0];
    if (at->ref && at->ref_fn)
        return at->ref_arg >= 0 && (!strcmp(at->ref_fn, "pads") || !strcmp(at->ref_fn, "nonneg") || !strcmp(at->ref_fn, "ones") ||
                                    !strcmp(at->ref_fn, "rank"));
    return at->ref ? at->ref_arg >= 0 : at->type == LAT_INT || at->type == LAT_FLOAT || at->type == LAT_INTS;
}

static const char *python_value(tx *t, const fx_node *n, const aten_schema *s, const fx_arg **bound,
                                const low_node *ln)
{
    const low_attr *at = &ln->attrs[0];
    int64_t *v = NULL;
    size_t k = 0;
    if (at->ref && at->ref_fn && !strcmp(at->ref_fn, "rank")) {   /* len(x.shape) [+ n]: a Python int */
        int64_t r;
        return derived_rank(t, n, at, s, bound, &r) ? tx_const_scalar(t, OT_INT64, 0, r, false) : NULL;
    }
    if (at->ref) {
        bool ok = at->ref_fn ? tx_derived_ints(t, n, at, s, bound, &v, &k)
                             : tx_list_ints(t, n, &s->args[at->ref_arg], bound[at->ref_arg], &v, &k);
        return ok ? tx_const_ints(t, v, k) : NULL;
    }
    if (at->type == LAT_FLOAT) return tx_const_scalar(t, OT_FLOAT, at->f, 0, true);
    if (at->type == LAT_INTS) {
        v = arena_alloc(&t->a, (at->count + 1) * sizeof *v);
        for (size_t i = 0; i < at->count; i++) v[i] = at->ints[i];
        return tx_const_ints(t, v, at->count);
    }
    return tx_const_scalar(t, OT_INT64, 0, at->i, false);
}

/* `x = Tensor <value: int = 0, dtype: int = @dtype> ()` is torchlib's own
 * op.Constant(value=ir.tensor(0, dtype=dtype)): a one-element Constant node of that ONNX dtype (a
 * literal, a ScalarType argument, or `@self` for a tensor argument's dtype), 0-d or with `rank: int
 * = 1` dims of 1 (ir.tensor([0], ...)), made where the lowering has it. The value is a literal or a
 * number argument (`value: float = @eps`). */
static bool typed_constant_node(const low_node *ln)
{
    return !*ln->domain && !strcmp(ln->op_type, "Tensor") && ln->nouts == 1 && !ln->nins;
}

static const char *typed_constant(tx *t, const fx_node *n, const aten_schema *s, const fx_arg **bound,
                                  const low_node *ln)
{
    const low_attr *value = NULL;
    const fx_arg *number = NULL;
    int dtype = 0;
    int64_t rank = 0;
    for (size_t i = 0; i < ln->nattrs; i++) {
        const low_attr *at = &ln->attrs[i];
        const fx_arg *a = at->ref && at->ref_arg >= 0 ? bound[at->ref_arg] : NULL;
        if (!strcmp(at->name, "value") && !at->ref) value = at;
        else if (!strcmp(at->name, "value") && a && !at->ref_fn) number = a;
        else if (!strcmp(at->name, "rank") && !at->ref) rank = at->i;
        else if (!strcmp(at->name, "dtype") && !at->ref) dtype = (int)at->i;
        else if (!strcmp(at->name, "dtype") && a && a->kind == FX_ARG_DTYPE) dtype = fx_dtype_get(a->u.dtype)->onnx_type;
        else if (!strcmp(at->name, "dtype") && a && a->kind == FX_ARG_NODE) dtype = tx_onnx_dtype_of_node(a->u.node);
    }
    bool num_ok = number && (number->kind == FX_ARG_FLOAT || number->kind == FX_ARG_INT || number->kind == FX_ARG_BOOL);
    if ((!num_ok && (!value || (value->type != LAT_INT && value->type != LAT_FLOAT))) || !dtype || rank < 0 || rank > 8) {
        tx_fail_node(t, n, arena_printf(&t->a, "%s: a Tensor node needs a number `value` and a known `dtype`", s->text));
        return NULL;
    }
    if (num_ok)
        return tx_own_one(t, dtype, (size_t)rank, number->kind == FX_ARG_FLOAT ? number->u.f : 0,
                          number->kind == FX_ARG_INT ? number->u.i : number->kind == FX_ARG_BOOL ? number->u.b : 0,
                          number->kind == FX_ARG_FLOAT);
    return tx_own_one(t, dtype, (size_t)rank, value->f, value->i, value->type == LAT_FLOAT);
}

/* The Python value node of the lowering named name, or NULL. */
static const low_node *python_value_named(const lowering *lw, const char *name)
{
    for (size_t k = 0; k < lw->nnodes; k++)
        if (python_value_node(&lw->nodes[k]) && !strcmp(lw->nodes[k].outs[0], name)) return &lw->nodes[k];
    return NULL;
}

void tx_scalar_ref_dtypes(const fx_node *n, const lowering *lw, const fx_arg **bound, int *ref, int *float_ref)
{
    /* Reference dtype for Python scalars, as torchlib binds a scalar to the type of the tensor it
     * combines with: the first non-bool tensor input (a bool condition or mask does not type the
     * values), else the node's own result (creation ops, where.Scalar), else a bool input. */
    int ref_dtype = 0, bool_dtype = 0;
    for (size_t i = 0; i < lw->nparams && !ref_dtype; i++) {
        const fx_arg *a = bound[lw->param_args[i]];
        int dt = a->kind == FX_ARG_NODE ? tx_onnx_dtype_of_node(a->u.node) : 0;
        if (dt == OT_BOOL) bool_dtype = dt;
        else ref_dtype = dt;
    }
    if (!ref_dtype) ref_dtype = tx_result_dtype(n);
    if (!ref_dtype) ref_dtype = bool_dtype;
    /* a Python float next to an integer or bool tensor that torch promoted (x_int / 2.5: the
     * result is floating) takes the result's type rather than being truncated to the tensor's;
     * where the result keeps the integer type (masked_fill) torch casts the value, and so do we */
    *float_ref = tx_result_dtype(n);
    if (!tx_is_float_type(*float_ref)) *float_ref = ref_dtype;
    *ref = ref_dtype;
}

void tx_set_results(tx *t, const fx_node *n, const aten_schema *s, const char **res, size_t nres)
{
    if (!nres) {
        tx_set_val(t, n, NULL, 0);
        return;
    }
    bool seq = s->nrets == 1 && s->rets[0].is_list;
    tx_set_val(t, n, res, nres)->seq = seq;
    const fx_value *v = tx_node_val(n);
    if (seq && v && v->kind == FX_VAL_TUPLE && v->n_items && v->items[0]->kind == FX_VAL_TENSOR) {
        /* one ONNX sequence holds the list: its elements' dtype, their shapes may differ */
        int et = fx_dtype_get(v->items[0]->dtype)->onnx_type;
        if (t->value_info && et)
            ox_graph_add_value_info(t->m, t->sc->g, res[0], ox_type_sequence(t->m, ox_type_tensor(t->m, et, NULL, 0, false)));
    } else if (v && v->kind == FX_VAL_TUPLE)
        for (size_t i = 0; i < nres && i < v->n_items; i++) tx_add_value_info(t, res[i], v->items[i]);
    else if (nres == 1)
        tx_add_value_info(t, res[0], v);
}

/* A lowering whose result is its tensor input `param`, bound to the value v of an FX node: torchlib
 * returns that value (`return self`), and torch.onnx renames it after the node (translate_rename.c).
 * Returns the FX node's translated value, or NULL (an Identity then) when the input is no FX node's
 * (a number), a value of an outer graph or an initializer. */
static const tx_val *returned_input(tx *t, const lowering *lw, const fx_arg **bound, const char *param, const char *v)
{
    if (t->sc->parent) return NULL;
    const Onnx__GraphProto *g = t->sc->g;
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name && !strcmp(g->initializer[i]->name, v)) return NULL;
    for (size_t p = 0; p < lw->nparams; p++) {
        if (strcmp(lw->params[p], param)) continue;
        const fx_arg *a = bound[lw->param_args[p]];
        if (a->kind != FX_ARG_NODE) return NULL;
        const tx_val *tv = tx_lookup_val(t, a->u.node);
        return tv && tv->n == 1 && !tv->seq && !strcmp(tv->names[0], v) ? tv : NULL;
    }
    return NULL;
}

bool tx_run_lowering(tx *t, const fx_node *n, const op_rule *rule, const lowering *lw, const fx_arg **bound)
{
    const aten_schema *s = &rule->schema;
    hashmap local;
    hm_init(&local);
    int ref_dtype, float_ref;
    tx_scalar_ref_dtypes(n, lw, bound, &ref_dtype, &float_ref);
    namevec *pvals = arena_alloc(&t->a, (lw->nparams + 1) * sizeof *pvals);
    bool *late = arena_alloc(&t->a, (lw->nparams + 1) * sizeof *late);   /* built at first use */
    int *dts = arena_alloc(&t->a, (lw->nparams + 1) * sizeof *dts);
    bool ok = true;
    for (size_t i = 0; i < lw->nparams && ok; i++) {
        int ai = lw->param_args[i];
        hm_put(&local, lw->params[i], &pvals[i]);
        late[i] = late_param(s, ai, bound[ai]);
        dts[i] = bound[ai]->kind == FX_ARG_FLOAT && !tx_is_float_type(ref_dtype) ? float_ref : ref_dtype;
        if (!late[i]) ok = tx_arg_inputs(t, n, &s->args[ai], bound[ai], dts[i], &pvals[i]);
    }
    size_t nres = lw->nresults;
    bool seq_result = s->nrets == 1 && s->rets[0].is_list;
    const char **res = nres ? tx_output_names_ex(t, n, nres, !seq_result) : NULL;
    hashmap resmap, tmp;
    hm_init(&resmap);
    hm_init(&tmp);
    for (size_t i = 0; i < nres; i++) hm_put(&resmap, lw->results[i], (void *)res[i]);
    bool named = false;
    for (size_t k = 0; k < lw->nnodes && ok; k++) {
        const low_node *ln = &lw->nodes[k];
        /* the node making result i is node_<name> for a one-result op, node_<name>__<i> for
         * several (torch.onnx names each result's producer so; one making several takes the last) */
        int last_result = -1;
        for (size_t o = 0; o < ln->nouts; o++)
            for (size_t r = 0; r < nres; r++)
                if (!strcmp(ln->outs[o], lw->results[r]) && (int)r > last_result) last_result = (int)r;
        const char *node_name = NULL;
        if (last_result >= 0) {
            if (nres > 1) node_name = arena_printf(&t->a, "node_%s__%d", n->name, last_result);
            else node_name = named ? arena_printf(&t->a, "node_%s__%zu", n->name, k) : arena_printf(&t->a, "node_%s", n->name);
            named = true;
        }
        for (size_t i = 0; i < ln->nins && ok; i++) {  /* torchlib builds these inside the function */
            const low_node *py = *ln->ins[i] && !hm_has(&tmp, ln->ins[i]) ? python_value_named(lw, ln->ins[i]) : NULL;
            const char *pv = py ? python_value(t, n, s, bound, py) : NULL;
            if (py && !pv) ok = false;
            else if (py) hm_put(&tmp, ln->ins[i], (void *)pv);
            for (size_t p = 0; p < lw->nparams; p++) {
                if (!late[p] || pvals[p].len || strcmp(lw->params[p], ln->ins[i])) continue;
                int ai = lw->param_args[p];
                const char *v = late_input(t, n, rule, &s->args[ai], ai, bound[ai], ln->op_type, i, dts[p]);
                if (v) vec_push(&pvals[p], v);
                else ok = false;
            }
        }
        if (!ok) break;
        if (python_value_node(ln)) continue;
        if (typed_constant_node(ln)) {
            const char *v = typed_constant(t, n, s, bound, ln);
            if (!v) { ok = false; break; }
            hm_put(&tmp, ln->outs[0], (void *)v);
            continue;
        }
        Onnx__NodeProto *nd = tx_emit(t, ln->op_type, ln->domain, node_name);
        for (size_t a = 0; a < ln->nattrs && ok; a++) {
            const low_attr *at = &ln->attrs[a];
            if (at->ref) ok = tx_ref_attr(t, n, nd, at, s, bound);
            else literal_attr(t, nd, at);
        }
        for (size_t i = 0; i < ln->nins; i++) {
            if (!*ln->ins[i]) { ox_node_add_input(t->m, nd, ""); continue; }
            namevec *pv = hm_get(&local, ln->ins[i]);
            const char *v;
            if (pv) for (size_t j = 0; j < pv->len; j++) ox_node_add_input(t->m, nd, pv->items[j]);
            else if ((v = hm_get(&tmp, ln->ins[i])) || (v = hm_get(&resmap, ln->ins[i])))
                ox_node_add_input(t->m, nd, v);
            else ox_node_add_input(t->m, nd, "");
        }
        /* an omitted optional input at the end is left out, as torch.onnx writes it (ONNX
         * Runtime's LayerNormalization kernel crashes on a trailing "") */
        while (nd->n_input && !*nd->input[nd->n_input - 1]) nd->n_input--;
        for (size_t o = 0; o < ln->nouts; o++) {
            if (!*ln->outs[o]) { ox_node_add_output(t->m, nd, ""); continue; }
            const char *r = hm_get(&resmap, ln->outs[o]);
            if (!r) {
                r = tx_fresh_val(t);
                hm_put(&tmp, ln->outs[o], (void *)r);
            }
            ox_node_add_output(t->m, nd, r);
        }
    }
    /* results that are plain inputs (e.g. an identity lowering with no node) */
    const tx_val *same = NULL;
    for (size_t i = 0; i < nres && ok; i++) {
        namevec *pv = hm_get(&local, lw->results[i]);
        bool produced = false;
        for (size_t k = 0; k < lw->nnodes; k++)
            for (size_t o = 0; o < lw->nodes[k].nouts; o++)
                produced |= !strcmp(lw->nodes[k].outs[o], lw->results[i]);
        if (produced || !pv || pv->len != 1) continue;
        same = nres == 1 ? returned_input(t, lw, bound, lw->results[i], pv->items[0]) : NULL;
        if (same) hm_put(&t->renames, pv->items[0], (void *)res[i]);
        else tx_emit1(t, "Identity", pv->items[0], res[i], arena_printf(&t->a, "node_%s", n->name));
    }
    for (size_t i = 0; i < lw->nparams; i++) vec_free(&pvals[i]);
    hm_free(&local);
    hm_free(&resmap);
    hm_free(&tmp);
    if (!ok) return false;
    if (same) hm_put(&t->sc->vals, n->name, (void *)same);   /* the very value, under its new name */
    else tx_set_results(t, n, s, res, nres);
    return true;
}
