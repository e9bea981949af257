/* translate.c — ATen FX program → ONNX model, driven by the op registry (see translate.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/vec.h"
#include "passes/translate.h"
#include "passes/translate_meta.h"

enum { OT_FLOAT = 1, OT_UINT8 = 2, OT_INT8 = 3, OT_INT16 = 5, OT_INT32 = 6, OT_INT64 = 7,
       OT_BOOL = 9, OT_DOUBLE = 11 };

/* What an FX node translated to: one value, several (multi-output), or a sequence value. */
typedef struct tx_val {
    const char **names;
    size_t n;
    bool seq;                /* one ONNX sequence value (getitem → SequenceAt) */
} tx_val;

typedef struct scope {
    struct scope *parent;
    Onnx__GraphProto *g;
    hashmap vals;            /* fx node name → tx_val* (this graph's nodes only) */
    hashmap consts;          /* constant-farm key → value name, per graph (outer scope order) */
    const fx_graph *fxg;
} scope;

typedef struct tx {
    ox_model *m;
    const fx_program *p;
    const ops_registry *reg;
    int opset;
    diag_sink *d;
    arena a;                 /* scratch: keys, synthesized args */
    hashmap used;            /* every value name in the model → non-NULL */
    hashmap suffix;          /* base name → int* last suffix used (keeps uniquing linear) */
    int nval, nnode;
    scope *sc;
    bool value_info;
    bool failed;
    const fx_node *cur;          /* the FX node being translated: its provenance goes on every node made */
    translate_provenance cur_pv;
    bool cur_pv_ready;           /* computed on the first node emitted for cur */
    Onnx__NodeProto *cur_main;   /* the node named node_<cur>, once emitted */
} tx;

/* ---- naming ---- */

static const char *unique_name(tx *t, const char *base)
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

static const char *fresh_val(tx *t)
{
    char buf[32];
    snprintf(buf, sizeof buf, "val_%d", t->nval++);
    return unique_name(t, buf);
}

static Onnx__NodeProto *emit(tx *t, const char *op, const char *domain, const char *name)
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
static const char *emit1(tx *t, const char *op, const char *in, const char *out, const char *node_name)
{
    if (!out) out = fresh_val(t);
    Onnx__NodeProto *n = emit(t, op, "", node_name);
    ox_node_add_input(t->m, n, in);
    ox_node_add_output(t->m, n, out);
    return out;
}

static const char *emit2(tx *t, const char *op, const char *a, const char *b, const char *out, const char *node_name)
{
    if (!out) out = fresh_val(t);
    Onnx__NodeProto *n = emit(t, op, "", node_name);
    ox_node_add_input(t->m, n, a);
    ox_node_add_input(t->m, n, b);
    ox_node_add_output(t->m, n, out);
    return out;
}

/* ---- errors ---- */

static void fail_node(tx *t, const fx_node *n, const char *what)
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
static const char *const_scalar(tx *t, int dtype, double f, int64_t i, bool is_float)
{
    char key[96];
    if (is_float) snprintf(key, sizeof key, "s:%d:%.17g", dtype, f);
    else snprintf(key, sizeof key, "s:%d:%lld", dtype, (long long)i);
    const char *v = farm_get(t, key);
    if (v) return v;
    Onnx__TensorProto *tp = ox_tensor_new(t->m, NULL, dtype, NULL, 0);
    const char *out;
    if (fill_scalar(t, tp, dtype, f, i, is_float)) {
        Onnx__NodeProto *n = emit(t, "Constant", "", NULL);
        ox_attr_tensor(t->m, n, "value", tp);
        out = fresh_val(t);
        ox_node_add_output(t->m, n, out);
    } else {
        const char *base = const_scalar(t, is_float ? OT_FLOAT : OT_INT64, f, i, is_float);
        Onnx__NodeProto *n = emit(t, "Cast", "", NULL);
        ox_attr_int(t->m, n, "to", dtype);
        ox_node_add_input(t->m, n, base);
        out = fresh_val(t);
        ox_node_add_output(t->m, n, out);
    }
    farm_put(t, key, out);
    return out;
}

static const char *const_ints(tx *t, const int64_t *v, size_t n)
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
        Onnx__NodeProto *nd = emit(t, "Constant", "", NULL);
        ox_attr_tensor(t->m, nd, "value", tp);
        out = fresh_val(t);
        ox_node_add_output(t->m, nd, out);
        farm_put(t, k.s, out);
    }
    sb_free(&k);
    return out;
}

static const char *const_floats(tx *t, const float *v, size_t n)
{
    strbuf k;
    sb_init(&k);
    sb_puts(&k, "floats:");
    for (size_t i = 0; i < n; i++) sb_printf(&k, "%.9g,", v[i]);
    const char *out = farm_get(t, k.s);
    if (!out) {
        Onnx__NodeProto *nd = emit(t, "Constant", "", NULL);
        ox_attr_floats(t->m, nd, "value_floats", v, n);
        out = fresh_val(t);
        ox_node_add_output(t->m, nd, out);
        farm_put(t, k.s, out);
    }
    sb_free(&k);
    return out;
}

/* ---- FX helpers ---- */

static const fx_value *node_val(const fx_node *n)
{
    return n ? n->meta.val : NULL;
}

/* The ONNX type of a SymInt/SymBool/SymFloat from its printed expression, as torch.onnx types
 * them: SymBools ("s0 > 4", "Eq(s0, 4)") are BOOL, SymFloats ("s0/8", "ToFloat(s0)", "0.5*s0")
 * FLOAT, the rest INT64. */
static int sym_dtype(const char *te)
{
    if (!te) return OT_INT64;
    if (strchr(te, '>') || strchr(te, '<') || strstr(te, "==") || strstr(te, "!=") || strstr(te, "Eq(") ||
        strstr(te, "Ne(") || strchr(te, '&') || strchr(te, '|') || *te == '~' || !strcmp(te, "True") ||
        !strcmp(te, "False"))
        return OT_BOOL;
    if (strstr(te, "ToFloat") || strstr(te, "TrueDiv")) return OT_FLOAT;
    for (const char *p = te; *p; p++) {
        if (*p == '/' && p[1] != '/' && (p == te || p[-1] != '/')) return OT_FLOAT;
        if (*p == '.' && p > te && p[-1] >= '0' && p[-1] <= '9' && p[1] >= '0' && p[1] <= '9') return OT_FLOAT;
    }
    return OT_INT64;
}

static int onnx_dtype_of_node(const fx_node *n)
{
    const fx_value *v = node_val(n);
    if (!v) return 0;
    if (v->kind == FX_VAL_TENSOR) return fx_dtype_get(v->dtype)->onnx_type;
    if (v->kind == FX_VAL_SYM) return sym_dtype(v->text);
    return 0;
}

static bool is_float_type(int dt)
{
    return dt == OT_FLOAT || dt == OT_DOUBLE || dt == 10 || dt == 16;   /* float16, bfloat16 */
}

/* The ONNX type of a node's result (its first item for a tuple result), 0 if unknown. */
static int result_dtype(const fx_node *n)
{
    const fx_value *v = node_val(n);
    if (v && v->kind == FX_VAL_TUPLE) v = v->n_items ? v->items[0] : NULL;
    if (!v) return 0;
    if (v->kind == FX_VAL_TENSOR) return fx_dtype_get(v->dtype)->onnx_type;
    return v->kind == FX_VAL_SYM ? sym_dtype(v->text) : 0;
}

static int rank_of_node(const fx_node *n)
{
    const fx_value *v = node_val(n);
    if (!v) return -1;
    if (v->kind == FX_VAL_TENSOR) return (int)v->rank;
    if (v->kind == FX_VAL_SYM) return 0;
    return -1;
}

static const tx_val *lookup_val(tx *t, const fx_node *n)
{
    for (scope *s = t->sc; s; s = s->parent)
        if (s->fxg == n->graph) return hm_get(&s->vals, n->name);
    return NULL;
}

static tx_val *set_val(tx *t, const fx_node *n, const char **names, size_t k)
{
    tx_val *v = arena_alloc(&t->a, sizeof *v);
    v->names = arena_alloc(&t->a, (k + 1) * sizeof *v->names);
    if (k) memcpy(v->names, names, k * sizeof *names);   /* a node without outputs: names may be NULL */
    v->n = k;
    hm_put(&t->sc->vals, n->name, v);
    return v;
}

static const char *single(tx *t, const fx_node *user, const fx_node *n)
{
    const tx_val *v = lookup_val(t, n);
    if (!v) { fail_node(t, user, arena_printf(&t->a, "input %%%s has no ONNX value", n->name)); return NULL; }
    if (v->n != 1) { fail_node(t, user, arena_printf(&t->a, "input %%%s has several outputs; use getitem", n->name)); return NULL; }
    return v->names[0];
}

static Onnx__TypeProto *type_of_value(tx *t, const fx_value *v)
{
    if (!v) return NULL;
    if (v->kind == FX_VAL_SYM) return ox_type_tensor(t->m, sym_dtype(v->text), NULL, 0, true);
    if (v->kind != FX_VAL_TENSOR) return NULL;
    int et = fx_dtype_get(v->dtype)->onnx_type;
    if (!et) return NULL;
    return ox_type_tensor(t->m, et, v->sizes, v->rank, true);
}

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

static bool bind_args(tx *t, const fx_node *n, const aten_schema *s, const fx_arg **out)
{
    const fx_arg *args = n->args, *kw = n->kwargs;
    size_t na = args ? args->u.seq.len : 0;
    if (na > s->nargs) {
        fail_node(t, n, arena_printf(&t->a, "%zu positional arguments, the schema %s takes %zu", na, s->text, s->nargs));
        return false;
    }
    for (size_t i = 0; i < s->nargs; i++) out[i] = NULL;
    for (size_t i = 0; i < na; i++) out[i] = args->u.seq.items[i];
    for (size_t i = 0; kw && i < kw->u.seq.len; i++) {
        int k = aten_schema_find(s, kw->u.seq.keys[i]);
        if (k < 0) {
            fail_node(t, n, arena_printf(&t->a, "unexpected keyword argument '%s' for %s", kw->u.seq.keys[i], s->text));
            return false;
        }
        out[k] = kw->u.seq.items[i];
    }
    for (size_t i = 0; i < s->nargs; i++) {
        if (out[i]) continue;
        if (!s->args[i].has_default) {
            fail_node(t, n, arena_printf(&t->a, "missing argument '%s' of %s", s->args[i].name, s->text));
            return false;
        }
        out[i] = parse_default(t, s->args[i].default_text);
    }
    return true;
}

static const char *dtype_short(const fx_node *n)
{
    const fx_value *v = node_val(n);
    if (!v) return NULL;
    if (v->kind == FX_VAL_SYM) return "int64";
    if (v->kind != FX_VAL_TENSOR || v->dtype == FX_DT_UNKNOWN) return NULL;
    const char *s = fx_dtype_get(v->dtype)->torch_name;
    return s && !strncmp(s, "torch.", 6) ? s + 6 : s;
}

static arg_info info_of(const fx_arg *a)
{
    arg_info r = {.kind = ARGK_OTHER, .rank = -1};
    switch (a->kind) {
    case FX_ARG_NONE: r.kind = ARGK_NONE; break;
    case FX_ARG_NODE: r.kind = ARGK_TENSOR; r.rank = rank_of_node(a->u.node); r.dtype = dtype_short(a->u.node); break;
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

static const char *scalar_input(tx *t, const aten_arg *sa, const fx_arg *a, int ref_dtype)
{
    int dt = scalar_dtype(sa, a, ref_dtype);
    if (a->kind == FX_ARG_FLOAT) return const_scalar(t, dt, a->u.f, 0, true);
    if (a->kind == FX_ARG_BOOL) return const_scalar(t, dt, 0, a->u.b, false);
    return const_scalar(t, dt, 0, a->u.i, false);
}

/* A list of ints / SymInt nodes as one INT64 1-D tensor (Concat when any element is a value). */
static const char *int_list_input(tx *t, const fx_node *user, const fx_arg *a)
{
    size_t n = a->u.seq.len;
    bool all_const = true, all_num = true, any_float = false;
    for (size_t i = 0; i < n; i++) {
        fx_arg_kind k = a->u.seq.items[i]->kind;
        if (k == FX_ARG_NODE) all_const = false;
        else if (k == FX_ARG_FLOAT) any_float = true;
        else if (k != FX_ARG_INT && k != FX_ARG_BOOL) all_num = false;
    }
    if (!all_num) { fail_node(t, user, "list argument with unsupported elements"); return NULL; }
    if (all_const && any_float) {
        float *v = arena_alloc(&t->a, (n + 1) * sizeof *v);
        for (size_t i = 0; i < n; i++) {
            const fx_arg *x = a->u.seq.items[i];
            v[i] = x->kind == FX_ARG_FLOAT ? (float)x->u.f : (float)x->u.i;
        }
        return const_floats(t, v, n);
    }
    if (all_const) {
        int64_t *v = arena_alloc(&t->a, (n + 1) * sizeof *v);
        for (size_t i = 0; i < n; i++) {
            const fx_arg *x = a->u.seq.items[i];
            v[i] = x->kind == FX_ARG_BOOL ? x->u.b : x->u.i;
        }
        return const_ints(t, v, n);
    }
    Onnx__NodeProto *cat = NULL;
    const char **parts = arena_alloc(&t->a, (n + 1) * sizeof *parts);
    int64_t m1 = -1;
    for (size_t i = 0; i < n; i++) {
        const fx_arg *x = a->u.seq.items[i];
        if (x->kind == FX_ARG_NODE) {
            const char *v = single(t, user, x->u.node);
            if (!v) return NULL;
            parts[i] = emit2(t, "Reshape", v, const_ints(t, &m1, 1), NULL, NULL);
        } else {
            int64_t iv = x->u.i;
            parts[i] = const_ints(t, &iv, 1);
        }
    }
    cat = emit(t, "Concat", "", NULL);
    ox_attr_int(t->m, cat, "axis", 0);
    for (size_t i = 0; i < n; i++) ox_node_add_input(t->m, cat, parts[i]);
    const char *out = fresh_val(t);
    ox_node_add_output(t->m, cat, out);
    return out;
}

/* Values for one lowering input: usually one name; Tensor[] arguments expand to several. */
typedef VEC(const char *) namevec;

static bool arg_inputs(tx *t, const fx_node *user, const aten_arg *sa, const fx_arg *a, int ref_dtype, namevec *out)
{
    switch (a->kind) {
    case FX_ARG_NONE: vec_push(out, ""); return true;
    case FX_ARG_NODE: {
        const char *v = single(t, user, a->u.node);
        if (!v) return false;
        vec_push(out, v);
        return true;
    }
    case FX_ARG_INT: case FX_ARG_FLOAT: case FX_ARG_BOOL:
        vec_push(out, scalar_input(t, sa, a, ref_dtype));
        return true;
    case FX_ARG_LIST: case FX_ARG_TUPLE:
        if (sa && sa->base == ATY_TENSOR) {
            for (size_t i = 0; i < a->u.seq.len; i++)
                if (!arg_inputs(t, user, NULL, a->u.seq.items[i], ref_dtype, out)) return false;
            return true;
        } else {
            const char *v = int_list_input(t, user, a);
            if (!v) return false;
            vec_push(out, v);
            return true;
        }
    default:
        fail_node(t, user, arena_printf(&t->a, "argument '%s' cannot be an ONNX input", sa ? sa->name : "?"));
        return false;
    }
}

/* ---- attributes from @refs ---- */

static bool list_ints(tx *t, const fx_node *user, const aten_arg *sa, const fx_arg *a, int64_t **v, size_t *n)
{
    size_t fl = fixed_len(sa);
    if (a->kind == FX_ARG_INT || a->kind == FX_ARG_BOOL) {
        *n = fl ? fl : 1;
        *v = arena_alloc(&t->a, *n * sizeof **v);
        for (size_t i = 0; i < *n; i++) (*v)[i] = a->kind == FX_ARG_INT ? a->u.i : a->u.b;
        return true;
    }
    if (a->kind != FX_ARG_LIST && a->kind != FX_ARG_TUPLE) {
        fail_node(t, user, arena_printf(&t->a, "argument '%s' must be a list of ints", sa->name));
        return false;
    }
    *n = a->u.seq.len;
    *v = arena_alloc(&t->a, (*n + 1) * sizeof **v);
    for (size_t i = 0; i < *n; i++) {
        const fx_arg *x = a->u.seq.items[i];
        if (x->kind != FX_ARG_INT) {
            fail_node(t, user, arena_printf(&t->a, "argument '%s' must hold constant ints for an attribute", sa->name));
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

static bool ref_attr(tx *t, const fx_node *user, Onnx__NodeProto *nd, const low_attr *at, const aten_schema *s,
                     const fx_arg **bound)
{
    if (at->ref_fn && !strcmp(at->ref_fn, "out_dtype")) {
        /* the result's type, for ops whose output dtype torch infers (arange, true division) */
        int dt = result_dtype(user);
        if (!dt) {
            fail_node(t, user, arena_printf(&t->a, "attribute '%s' needs the dtype of the node's result (tensor meta)",
                                            at->name));
            return false;
        }
        ox_attr_int(t->m, nd, at->name, dt);
        return true;
    }
    const aten_arg *sa = &s->args[at->ref_arg];
    const fx_arg *a = bound[at->ref_arg];
    if (a->kind == FX_ARG_NONE) return true;   /* None drops the attribute, as torch does */
    if (at->ref_fn) {
        int64_t *v;
        size_t n;
        if (!list_ints(t, user, sa, a, &v, &n)) return false;
        if (!strcmp(at->ref_fn, "len")) ox_attr_int(t->m, nd, at->name, (int64_t)n);
        else if (!strcmp(at->ref_fn, "neg_len")) ox_attr_int(t->m, nd, at->name, -(int64_t)n);
        else if (!strcmp(at->ref_fn, "nonneg")) {
            for (size_t i = 0; i < n; i++)
                if (v[i] < 0) v[i] += (int64_t)n;
            ox_attr_ints(t->m, nd, at->name, v, n);
        } else {
            int64_t *p = arena_alloc(&t->a, (2 * n + 1) * sizeof *p);
            memcpy(p, v, n * sizeof *v);
            memcpy(p + n, v, n * sizeof *v);
            ox_attr_ints(t->m, nd, at->name, p, 2 * n);
        }
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
        else if (a->kind == FX_ARG_DTYPE) ox_attr_int(t->m, nd, at->name, fx_dtype_get(a->u.dtype)->onnx_type);
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
        if (!list_ints(t, user, sa, a, &v, &n)) return false;
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
    fail_node(t, user, arena_printf(&t->a, "argument '%s' does not fit attribute '%s'", sa->name, at->name));
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
static const char **output_names_ex(tx *t, const fx_node *n, size_t k, bool by_getitem)
{
    const char **names = arena_alloc(&t->a, (k + 1) * sizeof *names);
    if (!by_getitem) {
        names[0] = unique_name(t, n->name);
        return names;
    }
    for (size_t u = 0; u < n->n_users; u++) {
        const fx_node *g = n->users[u];
        if (g->op != FX_OP_CALL_FUNCTION || !g->target || strcmp(g->target, "operator.getitem")) continue;
        if (g->args->u.seq.len != 2 || g->args->u.seq.items[1]->kind != FX_ARG_INT) continue;
        int64_t i = g->args->u.seq.items[1]->u.i;
        if (i >= 0 && (size_t)i < k && !names[i]) names[i] = unique_name(t, g->name);
    }
    if (k == 1 && !names[0]) names[0] = unique_name(t, n->name);
    for (size_t i = 0; i < k; i++)
        if (!names[i]) names[i] = unique_name(t, arena_printf(&t->a, "%s__%zu", n->name, i));
    return names;
}

static const char **output_names(tx *t, const fx_node *n, size_t k)
{
    return output_names_ex(t, n, k, k > 1);
}

static void add_value_info(tx *t, const char *name, const fx_value *v)
{
    if (!t->value_info || !v) return;
    Onnx__TypeProto *ty = type_of_value(t, v);
    if (ty) ox_graph_add_value_info(t->m, t->sc->g, name, ty);
}

/* ---- instantiate a table lowering ---- */

static bool run_lowering(tx *t, const fx_node *n, const op_rule *rule, const lowering *lw, const fx_arg **bound)
{
    const aten_schema *s = &rule->schema;
    hashmap local;
    hm_init(&local);
    /* Reference dtype for Python scalars, as torchlib binds a scalar to the type of the tensor it
     * combines with: the first non-bool tensor input (a bool condition or mask does not type the
     * values), else the node's own result (creation ops, where.Scalar), else a bool input. */
    int ref_dtype = 0, bool_dtype = 0;
    for (size_t i = 0; i < lw->nparams && !ref_dtype; i++) {
        const fx_arg *a = bound[lw->param_args[i]];
        int dt = a->kind == FX_ARG_NODE ? onnx_dtype_of_node(a->u.node) : 0;
        if (dt == OT_BOOL) bool_dtype = dt;
        else ref_dtype = dt;
    }
    if (!ref_dtype) ref_dtype = result_dtype(n);
    if (!ref_dtype) ref_dtype = bool_dtype;
    /* a Python float next to an integer or bool tensor that torch promoted (x_int / 2.5: the
     * result is floating) takes the result's type rather than being truncated to the tensor's;
     * where the result keeps the integer type (masked_fill) torch casts the value, and so do we */
    int float_ref = result_dtype(n);
    if (!is_float_type(float_ref)) float_ref = ref_dtype;
    namevec *pvals = arena_alloc(&t->a, (lw->nparams + 1) * sizeof *pvals);
    bool ok = true;
    for (size_t i = 0; i < lw->nparams && ok; i++) {
        int ai = lw->param_args[i];
        int dt = bound[ai]->kind == FX_ARG_FLOAT && !is_float_type(ref_dtype) ? float_ref : ref_dtype;
        ok = arg_inputs(t, n, &s->args[ai], bound[ai], dt, &pvals[i]);
        hm_put(&local, lw->params[i], &pvals[i]);
    }
    size_t nres = lw->nresults;
    bool seq_result = s->nrets == 1 && s->rets[0].is_list;
    const char **res = nres ? output_names_ex(t, n, nres, !seq_result) : NULL;
    hashmap resmap, tmp;
    hm_init(&resmap);
    hm_init(&tmp);
    for (size_t i = 0; i < nres; i++) hm_put(&resmap, lw->results[i], (void *)res[i]);
    bool named = false;
    for (size_t k = 0; k < lw->nnodes && ok; k++) {
        const low_node *ln = &lw->nodes[k];
        bool produces_result = false;
        for (size_t o = 0; o < ln->nouts; o++) produces_result |= hm_has(&resmap, ln->outs[o]);
        const char *node_name = NULL;
        if (produces_result) {
            node_name = named ? arena_printf(&t->a, "node_%s__%zu", n->name, k) : arena_printf(&t->a, "node_%s", n->name);
            named = true;
        }
        Onnx__NodeProto *nd = emit(t, ln->op_type, ln->domain, node_name);
        for (size_t a = 0; a < ln->nattrs && ok; a++) {
            const low_attr *at = &ln->attrs[a];
            if (at->ref) ok = ref_attr(t, n, nd, at, s, bound);
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
                r = fresh_val(t);
                hm_put(&tmp, ln->outs[o], (void *)r);
            }
            ox_node_add_output(t->m, nd, r);
        }
    }
    /* results that are plain inputs (e.g. an identity lowering with no node) */
    for (size_t i = 0; i < nres && ok; i++) {
        namevec *pv = hm_get(&local, lw->results[i]);
        bool produced = false;
        for (size_t k = 0; k < lw->nnodes; k++)
            for (size_t o = 0; o < lw->nodes[k].nouts; o++)
                produced |= !strcmp(lw->nodes[k].outs[o], lw->results[i]);
        if (!produced && pv && pv->len == 1) emit1(t, "Identity", pv->items[0], res[i], arena_printf(&t->a, "node_%s", n->name));
    }
    for (size_t i = 0; i < lw->nparams; i++) vec_free(&pvals[i]);
    hm_free(&local);
    hm_free(&resmap);
    hm_free(&tmp);
    if (!ok) return false;
    if (nres) {
        bool seq = s->nrets == 1 && s->rets[0].is_list;
        set_val(t, n, res, nres)->seq = seq;
        const fx_value *v = node_val(n);
        if (seq && v && v->kind == FX_VAL_TUPLE && v->n_items && v->items[0]->kind == FX_VAL_TENSOR) {
            /* one ONNX sequence holds the list: its elements' dtype, their shapes may differ */
            int et = fx_dtype_get(v->items[0]->dtype)->onnx_type;
            if (t->value_info && et)
                ox_graph_add_value_info(t->m, t->sc->g, res[0], ox_type_sequence(t->m, ox_type_tensor(t->m, et, NULL, 0, false)));
        } else if (v && v->kind == FX_VAL_TUPLE)
            for (size_t i = 0; i < nres && i < v->n_items; i++) add_value_info(t, res[i], v->items[i]);
        else if (nres == 1)
            add_value_info(t, res[0], v);
    } else {
        set_val(t, n, NULL, 0);
    }
    return true;
}

/* ---- builtin (C) lowerings ---- */

typedef bool (*builtin_fn)(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **bound);

static const char *one_output(tx *t, const fx_node *n)
{
    const char **r = output_names(t, n, 1);
    set_val(t, n, r, 1);
    add_value_info(t, r[0], node_val(n));
    return r[0];
}

static const char *node_name_of(tx *t, const fx_node *n)
{
    return arena_printf(&t->a, "node_%s", n->name);
}

static bool arg_int(const fx_arg *a, int64_t *v)
{
    if (a->kind == FX_ARG_INT) { *v = a->u.i; return true; }
    if (a->kind == FX_ARG_BOOL) { *v = a->u.b; return true; }
    return false;
}

static const char *input_of(tx *t, const fx_node *n, const fx_arg *a)
{
    if (a->kind != FX_ARG_NODE) { fail_node(t, n, "expected a tensor argument"); return NULL; }
    return single(t, n, a->u.node);
}

/* A 1-D INT64 tensor [v] from an int or SymInt argument (dflt when None). */
static const char *int_1d(tx *t, const fx_node *n, const fx_arg *a, int64_t dflt)
{
    int64_t v = dflt;
    if (a->kind == FX_ARG_NODE) {
        const char *x = single(t, n, a->u.node);
        int64_t m1 = -1;
        return x ? emit2(t, "Reshape", x, const_ints(t, &m1, 1), NULL, NULL) : NULL;
    }
    if (a->kind != FX_ARG_NONE && !arg_int(a, &v)) { fail_node(t, n, "expected an int"); return NULL; }
    return const_ints(t, &v, 1);
}

static bool b_transpose(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    int r = b[0]->kind == FX_ARG_NODE ? rank_of_node(b[0]->u.node) : -1;
    int64_t d0, d1;
    if (!x || !arg_int(b[1], &d0) || !arg_int(b[2], &d1) || r < 0) {
        fail_node(t, n, "transpose needs the input's rank (tensor meta) and constant dims");
        return false;
    }
    if (d0 < 0) d0 += r;
    if (d1 < 0) d1 += r;
    int64_t *perm = arena_alloc(&t->a, ((size_t)r + 1) * sizeof *perm);
    for (int i = 0; i < r; i++) perm[i] = i;
    if (d0 >= 0 && d0 < r && d1 >= 0 && d1 < r) { perm[d0] = d1; perm[d1] = d0; }
    const char *out = one_output(t, n);
    Onnx__NodeProto *nd = emit(t, "Transpose", "", node_name_of(t, n));
    ox_attr_ints(t->m, nd, "perm", perm, (size_t)r);
    ox_node_add_input(t->m, nd, x);
    ox_node_add_output(t->m, nd, out);
    return true;
}

static bool b_slice(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    if (!x) return false;
    const char *starts = int_1d(t, n, b[2], 0);
    const char *ends = int_1d(t, n, b[3], INT64_MAX);
    const char *axes = int_1d(t, n, b[1], 0);
    const char *steps = int_1d(t, n, b[4], 1);
    if (!starts || !ends || !axes || !steps) return false;
    const char *out = one_output(t, n);
    Onnx__NodeProto *nd = emit(t, "Slice", "", node_name_of(t, n));
    const char *ins[] = {x, starts, ends, axes, steps};
    for (size_t i = 0; i < 5; i++) ox_node_add_input(t->m, nd, ins[i]);
    ox_node_add_output(t->m, nd, out);
    return true;
}

static bool b_flip(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    if (!x || (b[1]->kind != FX_ARG_LIST && b[1]->kind != FX_ARG_TUPLE)) return false;
    size_t k = b[1]->u.seq.len;
    int64_t *st = arena_alloc(&t->a, (k + 1) * sizeof *st), *en = arena_alloc(&t->a, (k + 1) * sizeof *en);
    int64_t *stp = arena_alloc(&t->a, (k + 1) * sizeof *stp);
    for (size_t i = 0; i < k; i++) { st[i] = -1; en[i] = INT64_MIN; stp[i] = -1; }
    const char *axes = int_list_input(t, n, b[1]);
    if (!axes) return false;
    const char *ins[] = {x, const_ints(t, st, k), const_ints(t, en, k), axes, const_ints(t, stp, k)};
    const char *out = one_output(t, n);
    Onnx__NodeProto *nd = emit(t, "Slice", "", node_name_of(t, n));
    for (size_t i = 0; i < 5; i++) ox_node_add_input(t->m, nd, ins[i]);
    ox_node_add_output(t->m, nd, out);
    return true;
}

/* Static sizes of a node's tensor meta; false if unknown or symbolic. */
static bool static_sizes(const fx_node *n, int64_t **out, size_t *rank, arena *a)
{
    const fx_value *v = node_val(n);
    if (!v || v->kind != FX_VAL_TENSOR) return false;
    *rank = v->rank;
    *out = arena_alloc(a, (v->rank + 1) * sizeof **out);
    for (size_t i = 0; i < v->rank; i++) {
        char *end;
        (*out)[i] = strtoll(v->sizes[i], &end, 10);
        if (*end || end == v->sizes[i]) return false;
    }
    return true;
}

/* Reshape to the node's own (static) output shape: flatten and friends. */
static bool b_reshape_to_meta(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    int64_t *sz;
    size_t r;
    if (!x) return false;
    if (!static_sizes(n, &sz, &r, &t->a)) {
        fail_node(t, n, "needs a static output shape in the node's meta");
        return false;
    }
    const char *shape = const_ints(t, sz, r);
    const char *out = one_output(t, n);
    emit2(t, "Reshape", x, shape, out, node_name_of(t, n));
    return true;
}

/* The kernel (= stride) of an adaptive pool from the input's static spatial sizes (its last k
 * dims) to output sizes os: input / output where every output divides its input; NULL (reported)
 * otherwise, since windows of varying width have no ONNX pooling form. */
static int64_t *adaptive_kernel(tx *t, const fx_node *n, const fx_arg *in, const int64_t *os, size_t k,
                                const char *what)
{
    int64_t *sz;
    size_t r;
    if (in->kind != FX_ARG_NODE || !static_sizes(in->u.node, &sz, &r, &t->a) || r < k + 1) {
        fail_node(t, n, arena_printf(&t->a, "an adaptive %s pool needs the input's static sizes (tensor meta)", what));
        return NULL;
    }
    int64_t *kernel = arena_alloc(&t->a, (k + 1) * sizeof *kernel);
    for (size_t i = 0; i < k; i++) {
        int64_t s = sz[r - k + i];
        if (os[i] <= 0 || s % os[i]) {
            fail_node(t, n, arena_printf(&t->a, "adaptive %s pool from size %lld to %lld: the windows would differ "
                                                "in width, which ONNX pooling cannot express",
                                         what, (long long)s, (long long)os[i]));
            return NULL;
        }
        kernel[i] = s / os[i];
    }
    return kernel;
}

/* adaptive_avg_pool{1,2,3}d: an output of 1 everywhere is GlobalAveragePool; otherwise the
 * windows all have the same width (see adaptive_kernel) and do not overlap: an AveragePool with
 * that kernel and stride. C: the kernel comes from the input's meta. */
static bool b_adaptive_avg_pool(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    int64_t *os;
    size_t k;
    const char *x = input_of(t, n, b[0]);
    if (!x || !list_ints(t, n, &rule->schema.args[1], b[1], &os, &k)) return false;
    bool global = true;
    for (size_t i = 0; i < k; i++) global &= os[i] == 1;
    if (global) {
        emit1(t, "GlobalAveragePool", x, one_output(t, n), node_name_of(t, n));
        return true;
    }
    int64_t *kernel = adaptive_kernel(t, n, b[0], os, k, "average");
    if (!kernel) return false;
    const char *out = one_output(t, n);
    Onnx__NodeProto *nd = emit(t, "AveragePool", "", node_name_of(t, n));
    ox_attr_ints(t->m, nd, "kernel_shape", kernel, k);
    ox_attr_ints(t->m, nd, "strides", kernel, k);
    ox_node_add_input(t->m, nd, x);
    ox_node_add_output(t->m, nd, out);
    return true;
}

/* adaptive_max_pool{1,2,3}d → (values, indices): windows input / output wide (static sizes, the
 * output dividing the input; an output of 1 takes the whole plane) are a MaxPool with that kernel
 * and stride. Its flat indices become offsets inside each N,C plane by subtracting the first
 * index of a 1-wide pool, as max_pool*_with_indices do in pool.yaml. C: the kernel comes from the
 * input's meta. */
static bool b_adaptive_max_pool(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    int64_t *os, *kernel;
    size_t k;
    const char *x = input_of(t, n, b[0]);
    if (!x || !list_ints(t, n, &rule->schema.args[1], b[1], &os, &k)) return false;
    if (rank_of_node(b[0]->u.node) != (int)k + 2) {
        fail_node(t, n, "an adaptive max pool needs a batched input (N, C, spatial dims)");
        return false;
    }
    if (!(kernel = adaptive_kernel(t, n, b[0], os, k, "max"))) return false;
    int64_t *ones = arena_alloc(&t->a, (3 * k + 1) * sizeof *ones), *zeros = ones + k, *axes = ones + 2 * k;
    for (size_t i = 0; i < k; i++) {
        ones[i] = 1;
        zeros[i] = 0;
        axes[i] = 2 + (int64_t)i;
    }
    const char *starts = const_ints(t, zeros, k), *ends = const_ints(t, ones, k), *ax = const_ints(t, axes, k);
    const char **outs = output_names(t, n, 2);
    set_val(t, n, outs, 2);
    Onnx__NodeProto *pool = emit(t, "MaxPool", "", node_name_of(t, n));
    ox_attr_ints(t->m, pool, "kernel_shape", kernel, k);
    ox_attr_ints(t->m, pool, "strides", kernel, k);
    ox_node_add_input(t->m, pool, x);
    const char *flat = fresh_val(t);
    ox_node_add_output(t->m, pool, outs[0]);
    ox_node_add_output(t->m, pool, flat);
    Onnx__NodeProto *unit = emit(t, "MaxPool", "", NULL);
    ox_attr_ints(t->m, unit, "kernel_shape", ones, k);
    ox_attr_ints(t->m, unit, "strides", ones, k);
    ox_node_add_input(t->m, unit, x);
    const char *base = fresh_val(t);
    ox_node_add_output(t->m, unit, fresh_val(t));
    ox_node_add_output(t->m, unit, base);
    Onnx__NodeProto *sl = emit(t, "Slice", "", NULL);
    const char *sin[] = {base, starts, ends, ax};
    for (size_t i = 0; i < 4; i++) ox_node_add_input(t->m, sl, sin[i]);
    const char *delta = fresh_val(t);
    ox_node_add_output(t->m, sl, delta);
    emit2(t, "Sub", flat, delta, outs[1], arena_printf(&t->a, "node_%s__1", n->name));
    return true;
}

static bool b_pad(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    int64_t *pd;
    size_t k;
    const char *x = input_of(t, n, b[0]);
    int r = b[0]->kind == FX_ARG_NODE ? rank_of_node(b[0]->u.node) : -1;
    if (!x || !list_ints(t, n, &rule->schema.args[1], b[1], &pd, &k)) return false;
    if (r < 0 || k % 2 || k / 2 > (size_t)r) {
        fail_node(t, n, "pad needs the input rank and an even pad list");
        return false;
    }
    int64_t *pads = arena_alloc(&t->a, (2 * (size_t)r + 1) * sizeof *pads);
    memset(pads, 0, 2 * (size_t)r * sizeof *pads);
    for (size_t i = 0; i < k / 2; i++) {
        size_t dim = (size_t)r - 1 - i;
        pads[dim] = pd[2 * i];
        pads[(size_t)r + dim] = pd[2 * i + 1];
    }
    const char *mode = b[2]->kind == FX_ARG_STR ? b[2]->u.s : "constant";
    const char *omode = !strcmp(mode, "replicate") ? "edge" : !strcmp(mode, "circular") ? "wrap" : mode;
    const char *pv = const_ints(t, pads, 2 * (size_t)r);
    const char *val = "";
    if (b[3]->kind == FX_ARG_FLOAT || b[3]->kind == FX_ARG_INT)
        val = scalar_input(t, &rule->schema.args[3], b[3], onnx_dtype_of_node(b[0]->u.node));
    const char *out = one_output(t, n);
    Onnx__NodeProto *nd = emit(t, "Pad", "", node_name_of(t, n));
    ox_attr_string(t->m, nd, "mode", omode);
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, pv);
    if (*val) ox_node_add_input(t->m, nd, val);
    ox_node_add_output(t->m, nd, out);
    return true;
}

static bool upsample(tx *t, const fx_node *n, const fx_arg *in, const fx_arg *size, const fx_arg *scales,
                     const char *mode, const char *ctm)
{
    const char *x = input_of(t, n, in);
    if (!x) return false;
    const char *sc = "", *sz = "";
    if (scales->kind == FX_ARG_LIST || scales->kind == FX_ARG_TUPLE) {
        size_t k = scales->u.seq.len;
        float *v = arena_alloc(&t->a, (k + 3) * sizeof *v);
        v[0] = v[1] = 1;
        for (size_t i = 0; i < k; i++) {
            const fx_arg *e = scales->u.seq.items[i];
            v[i + 2] = e->kind == FX_ARG_FLOAT ? (float)e->u.f : (float)e->u.i;
        }
        sc = const_floats(t, v, k + 2);
    } else if (size->kind == FX_ARG_LIST || size->kind == FX_ARG_TUPLE) {
        Onnx__NodeProto *shp = emit(t, "Shape", "", NULL);
        ox_attr_int(t->m, shp, "start", 0);
        ox_attr_int(t->m, shp, "end", 2);
        ox_node_add_input(t->m, shp, x);
        const char *nc = fresh_val(t);
        ox_node_add_output(t->m, shp, nc);
        const char *tail = int_list_input(t, n, size);
        if (!tail) return false;
        Onnx__NodeProto *cat = emit(t, "Concat", "", NULL);
        ox_attr_int(t->m, cat, "axis", 0);
        ox_node_add_input(t->m, cat, nc);
        ox_node_add_input(t->m, cat, tail);
        sz = fresh_val(t);
        ox_node_add_output(t->m, cat, sz);
    } else {
        fail_node(t, n, "upsample needs output_size or scale_factors");
        return false;
    }
    const char *out = one_output(t, n);
    Onnx__NodeProto *nd = emit(t, "Resize", "", node_name_of(t, n));
    ox_attr_string(t->m, nd, "mode", mode);
    ox_attr_string(t->m, nd, "coordinate_transformation_mode", ctm);
    ox_attr_string(t->m, nd, "nearest_mode", "floor");
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, "");
    ox_node_add_input(t->m, nd, sc);
    if (*sz) ox_node_add_input(t->m, nd, sz);
    ox_node_add_output(t->m, nd, out);
    return true;
}

/* upsample_*.vec (any number of spatial dims): (input, output_size, scale_factors), with
 * align_corners between them for linear and cubic. */
static bool b_upsample_nearest(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    return upsample(t, n, b[0], b[1], b[2], "nearest", "asymmetric");
}

static bool b_upsample_linear(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    bool ac = b[2]->kind == FX_ARG_BOOL && b[2]->u.b;
    return upsample(t, n, b[0], b[1], b[3], "linear", ac ? "align_corners" : "pytorch_half_pixel");
}

static bool b_upsample_cubic(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    bool ac = b[2]->kind == FX_ARG_BOOL && b[2]->u.b;
    return upsample(t, n, b[0], b[1], b[3], "cubic", ac ? "align_corners" : "pytorch_half_pixel");
}

static bool seq_arg(const fx_arg *a);

/* roll(self, shifts, dims): each dimension rotates by its shift — the last (shift mod size)
 * elements, sliced off, go in front; without dims the flattened tensor rolls and gets its shape
 * back. C because the Concat axis of each step comes from one element of the dims list. */
static bool b_roll(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    const char *x = input_of(t, n, b[0]);
    int64_t *dims;
    size_t nd;
    if (!x || !list_ints(t, n, &rule->schema.args[2], b[2], &dims, &nd)) return false;
    const fx_arg *sh = b[1];
    size_t ns = seq_arg(sh) ? sh->u.seq.len : 1;
    if (nd ? ns != nd : ns != 1) {
        fail_node(t, n, "roll needs one shift per dim, or a single shift without dims");
        return false;
    }
    int64_t m1 = -1, zero = 0, big = INT64_MAX;
    const char *shape = NULL;
    if (!nd) {
        shape = emit1(t, "Shape", x, NULL, NULL);
        x = emit2(t, "Reshape", x, const_ints(t, &m1, 1), NULL, NULL);
    }
    size_t steps = nd ? nd : 1;
    const char *out = one_output(t, n);
    for (size_t k = 0; k < steps; k++) {
        int64_t dim = nd ? dims[k] : 0;
        const char *shift = int_1d(t, n, seq_arg(sh) ? sh->u.seq.items[k] : sh, 0);
        if (!shift) return false;
        const char *axis = const_ints(t, &dim, 1);
        const char *size = emit2(t, "Gather", emit1(t, "Shape", x, NULL, NULL), axis, NULL, NULL);
        const char *neg = emit1(t, "Neg", emit2(t, "Mod", shift, size, NULL, NULL), NULL, NULL);
        /* constants first: a node's inputs must precede it */
        const char *tin[] = {x, neg, const_ints(t, &big, 1), axis};
        const char *hin[] = {x, const_ints(t, &zero, 1), neg, axis};
        Onnx__NodeProto *tail = emit(t, "Slice", "", NULL), *head;
        for (size_t i = 0; i < 4; i++) ox_node_add_input(t->m, tail, tin[i]);
        const char *tv = fresh_val(t);
        ox_node_add_output(t->m, tail, tv);
        head = emit(t, "Slice", "", NULL);
        for (size_t i = 0; i < 4; i++) ox_node_add_input(t->m, head, hin[i]);
        const char *hv = fresh_val(t);
        ox_node_add_output(t->m, head, hv);
        bool last = k + 1 == steps && nd;
        x = emit2(t, "Concat", tv, hv, last ? out : NULL, last ? node_name_of(t, n) : NULL);
        ox_attr_int(t->m, t->sc->g->node[t->sc->g->n_node - 1], "axis", dim);
    }
    if (!nd) emit2(t, "Reshape", x, shape, out, node_name_of(t, n));
    return true;
}

/* scaled_dot_product_attention as torchlib writes it for opset < 23: scale, causal/explicit
 * mask, Softmax(QK^T), then ·V. */
static bool b_sdpa(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *q = input_of(t, n, b[0]), *k = input_of(t, n, b[1]), *v = input_of(t, n, b[2]);
    if (!q || !k || !v) return false;
    int r = rank_of_node(b[1]->u.node);
    int dt = onnx_dtype_of_node(b[0]->u.node);
    if (r < 2 || !dt) { fail_node(t, n, "scaled_dot_product_attention needs the rank and dtype of key"); return false; }
    if (b[4]->kind == FX_ARG_FLOAT && b[4]->u.f != 0.0) { fail_node(t, n, "dropout_p must be 0 for export"); return false; }
    const char *scale;
    if (b[6]->kind == FX_ARG_FLOAT || b[6]->kind == FX_ARG_INT) {
        scale = scalar_input(t, &rule->schema.args[6], b[6], dt);
    } else {
        Onnx__NodeProto *shp = emit(t, "Shape", "", NULL);
        ox_attr_int(t->m, shp, "start", -1);
        ox_node_add_input(t->m, shp, q);
        const char *e = fresh_val(t);
        ox_node_add_output(t->m, shp, e);
        const char *ef = emit2(t, "CastLike", e, q, NULL, NULL);
        const char *sq = emit1(t, "Sqrt", ef, NULL, NULL);
        scale = emit2(t, "Div", const_scalar(t, dt, 1.0, 0, true), sq, NULL, NULL);
    }
    int64_t *perm = arena_alloc(&t->a, ((size_t)r + 1) * sizeof *perm);
    for (int i = 0; i < r; i++) perm[i] = i;
    perm[r - 1] = r - 2;
    perm[r - 2] = r - 1;
    Onnx__NodeProto *tr = emit(t, "Transpose", "", NULL);
    ox_attr_ints(t->m, tr, "perm", perm, (size_t)r);
    ox_node_add_input(t->m, tr, k);
    const char *kt = fresh_val(t);
    ox_node_add_output(t->m, tr, kt);
    const char *qs = emit2(t, "Mul", q, scale, NULL, NULL);
    const char *scores = emit2(t, "MatMul", qs, kt, NULL, NULL);
    const char *zero = const_scalar(t, dt, 0.0, 0, true), *ninf = const_scalar(t, dt, -INFINITY, 0, true);
    if (b[3]->kind == FX_ARG_NODE) {
        const char *mask = single(t, n, b[3]->u.node);
        if (!mask) return false;
        if (onnx_dtype_of_node(b[3]->u.node) == OT_BOOL) {
            Onnx__NodeProto *w = emit(t, "Where", "", NULL);
            ox_node_add_input(t->m, w, mask);
            ox_node_add_input(t->m, w, zero);
            ox_node_add_input(t->m, w, ninf);
            mask = fresh_val(t);
            ox_node_add_output(t->m, w, mask);
        }
        scores = emit2(t, "Add", scores, mask, NULL, NULL);
    }
    if (b[5]->kind == FX_ARG_BOOL && b[5]->u.b) {
        int64_t st = -2, en = -1;
        Onnx__NodeProto *sq = emit(t, "Shape", "", NULL);
        ox_attr_int(t->m, sq, "start", -2);
        ox_attr_int(t->m, sq, "end", -1);
        ox_node_add_input(t->m, sq, q);
        const char *lq = fresh_val(t);
        ox_node_add_output(t->m, sq, lq);
        Onnx__NodeProto *sk = emit(t, "Shape", "", NULL);
        ox_attr_int(t->m, sk, "start", st);
        ox_attr_int(t->m, sk, "end", en);
        ox_node_add_input(t->m, sk, k);
        const char *lk = fresh_val(t);
        ox_node_add_output(t->m, sk, lk);
        const char *ls = emit2(t, "Concat", lq, lk, NULL, NULL);
        ox_attr_int(t->m, t->sc->g->node[t->sc->g->n_node - 1], "axis", 0);
        const char *ones = emit2(t, "Expand", const_scalar(t, dt, 1.0, 0, true), ls, NULL, NULL);
        Onnx__NodeProto *tri = emit(t, "Trilu", "", NULL);
        ox_attr_int(t->m, tri, "upper", 0);
        ox_node_add_input(t->m, tri, ones);
        const char *lower = fresh_val(t);
        ox_node_add_output(t->m, tri, lower);
        const char *isz = emit2(t, "Equal", lower, zero, NULL, NULL);
        Onnx__NodeProto *w = emit(t, "Where", "", NULL);
        ox_node_add_input(t->m, w, isz);
        ox_node_add_input(t->m, w, ninf);
        ox_node_add_input(t->m, w, zero);
        const char *cm = fresh_val(t);
        ox_node_add_output(t->m, w, cm);
        scores = emit2(t, "Add", scores, cm, NULL, NULL);
    }
    Onnx__NodeProto *sm = emit(t, "Softmax", "", NULL);
    ox_attr_int(t->m, sm, "axis", -1);
    ox_node_add_input(t->m, sm, scores);
    const char *p = fresh_val(t);
    ox_node_add_output(t->m, sm, p);
    emit2(t, "MatMul", p, v, one_output(t, n), node_name_of(t, n));
    return true;
}

/* prims.var(inp, dims, correction) and aten.var_mean.dim: static element counts from meta. */
static bool var_common(tx *t, const fx_node *n, const fx_arg *in, const fx_arg *dims, double correction,
                       bool keepdim, const char *var_out, const char *mean_out)
{
    const char *x = input_of(t, n, in);
    int64_t *sz, *dv;
    size_t r, k;
    if (!x) return false;
    if (!static_sizes(in->u.node, &sz, &r, &t->a) || (dims->kind != FX_ARG_LIST && dims->kind != FX_ARG_TUPLE)) {
        fail_node(t, n, "variance needs static input sizes and a dims list");
        return false;
    }
    k = dims->u.seq.len;
    dv = arena_alloc(&t->a, (k + 1) * sizeof *dv);
    double count = 1;
    for (size_t i = 0; i < k; i++) {
        if (!arg_int(dims->u.seq.items[i], &dv[i])) return false;
        int64_t d = dv[i] < 0 ? dv[i] + (int64_t)r : dv[i];
        if (d < 0 || d >= (int64_t)r) return false;
        count *= (double)sz[d];
    }
    const char *axes = const_ints(t, dv, k);
    int dt = onnx_dtype_of_node(in->u.node);
    Onnx__NodeProto *m1 = emit(t, "ReduceMean", "", NULL);
    ox_attr_int(t->m, m1, "keepdims", 1);
    ox_node_add_input(t->m, m1, x);
    ox_node_add_input(t->m, m1, axes);
    const char *mean = fresh_val(t);
    ox_node_add_output(t->m, m1, mean);
    const char *dlt = emit2(t, "Sub", x, mean, NULL, NULL);
    const char *sq = emit2(t, "Mul", dlt, dlt, NULL, NULL);
    Onnx__NodeProto *s = emit(t, "ReduceSum", "", NULL);
    ox_attr_int(t->m, s, "keepdims", keepdim);
    ox_node_add_input(t->m, s, sq);
    ox_node_add_input(t->m, s, axes);
    const char *sum = fresh_val(t);
    ox_node_add_output(t->m, s, sum);
    emit2(t, "Div", sum, const_scalar(t, dt, count - correction, 0, true), var_out, node_name_of(t, n));
    if (mean_out) {
        Onnx__NodeProto *m2 = emit(t, "ReduceMean", "", arena_printf(&t->a, "node_%s__1", n->name));
        ox_attr_int(t->m, m2, "keepdims", keepdim);
        ox_node_add_input(t->m, m2, x);
        ox_node_add_input(t->m, m2, axes);
        ox_node_add_output(t->m, m2, mean_out);
    }
    return true;
}

static bool b_var(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    double corr = b[2]->kind == FX_ARG_FLOAT ? b[2]->u.f : b[2]->kind == FX_ARG_INT ? (double)b[2]->u.i : 1.0;
    return var_common(t, n, b[0], b[1], corr, false, one_output(t, n), NULL);
}

static bool b_var_mean(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    bool unbiased = !(b[2]->kind == FX_ARG_BOOL && !b[2]->u.b);
    bool keep = b[3]->kind == FX_ARG_BOOL && b[3]->u.b;
    const char **r = output_names(t, n, 2);
    set_val(t, n, r, 2);
    return var_common(t, n, b[0], b[1], unbiased ? 1.0 : 0.0, keep, r[0], r[1]);
}

static bool b_broadcast_in_dim(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    int64_t *in_sz, *bd;
    size_t r, nb;
    if (!x) return false;
    const fx_arg *shape = b[1];
    if (!static_sizes(b[0]->u.node, &in_sz, &r, &t->a) || (shape->kind != FX_ARG_LIST && shape->kind != FX_ARG_TUPLE) ||
        !list_ints(t, n, &rule->schema.args[2], b[2], &bd, &nb) || nb != r) {
        fail_node(t, n, "broadcast_in_dim needs static input sizes");
        return false;
    }
    size_t k = shape->u.seq.len;
    int64_t *ns = arena_alloc(&t->a, (k + 1) * sizeof *ns);
    for (size_t i = 0; i < k; i++) ns[i] = 1;
    for (size_t i = 0; i < nb; i++)
        if (bd[i] >= 0 && (size_t)bd[i] < k) ns[bd[i]] = in_sz[i];
    const char *rs = emit2(t, "Reshape", x, const_ints(t, ns, k), NULL, NULL);
    const char *target = int_list_input(t, n, shape);
    if (!target) return false;
    emit2(t, "Expand", rs, target, one_output(t, n), node_name_of(t, n));
    return true;
}

static bool same_sizes(const fx_node *a, const fx_node *b)
{
    const fx_value *x = node_val(a), *y = node_val(b);
    if (!x || !y || x->kind != FX_VAL_TENSOR || y->kind != FX_VAL_TENSOR || x->rank != y->rank) return false;
    for (size_t i = 0; i < x->rank; i++)
        if (strcmp(x->sizes[i], y->sizes[i])) return false;
    return true;
}

/* index.Tensor: one integer index tensor (others None) → Gather on that axis; index tensors of
 * one shape on the leading dims → GatherND of the stacked indices. */
static bool b_index(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]);
    const fx_arg *ix = b[1];
    if (!x || (ix->kind != FX_ARG_LIST && ix->kind != FX_ARG_TUPLE)) return false;
    int axis = -1, count = 0;
    bool leading = true, uniform = true;
    for (size_t i = 0; i < ix->u.seq.len; i++) {
        const fx_arg *e = ix->u.seq.items[i];
        if (e->kind == FX_ARG_NONE) { leading = false; continue; }
        if (e->kind != FX_ARG_NODE || onnx_dtype_of_node(e->u.node) == OT_BOOL) { count = -1; break; }
        if (!leading) uniform = false;
        if (count && !same_sizes(e->u.node, ix->u.seq.items[0]->u.node)) uniform = false;
        if (axis < 0) axis = (int)i;
        count++;
    }
    if (count == 1) {
        const char *idx = single(t, n, ix->u.seq.items[axis]->u.node);
        if (!idx) return false;
        const char *out = one_output(t, n);
        Onnx__NodeProto *nd = emit(t, "Gather", "", node_name_of(t, n));
        ox_attr_int(t->m, nd, "axis", axis);
        ox_node_add_input(t->m, nd, x);
        ox_node_add_input(t->m, nd, idx);
        ox_node_add_output(t->m, nd, out);
        return true;
    }
    if (count < 2 || !uniform || axis != 0) {
        fail_node(t, n, "index.Tensor is lowered for one integer index, or same-shape integer indices on the leading dims");
        return false;
    }
    int64_t m1 = -1;
    const char *ax = const_ints(t, &m1, 1);
    const char **parts = arena_alloc(&t->a, ((size_t)count + 1) * sizeof *parts);
    for (int i = 0; i < count; i++) {           /* producers first: nodes stay topologically sorted */
        const char *v = single(t, n, ix->u.seq.items[i]->u.node);
        if (!v) return false;
        parts[i] = emit2(t, "Unsqueeze", v, ax, NULL, NULL);
    }
    Onnx__NodeProto *cat = emit(t, "Concat", "", NULL);
    ox_attr_int(t->m, cat, "axis", -1);
    for (int i = 0; i < count; i++) ox_node_add_input(t->m, cat, parts[i]);
    const char *stacked = fresh_val(t);
    ox_node_add_output(t->m, cat, stacked);
    emit2(t, "GatherND", x, stacked, one_output(t, n), node_name_of(t, n));
    return true;
}

static bool translate_graph(tx *t, const fx_graph *g);

/* A cond branch as an If subgraph: placeholders read the outer operands; outputs renamed
 * "<name>_<branch>" (ORT rejects a name produced in two graphs). */
static Onnx__GraphProto *branch_graph(tx *t, const fx_node *n, const fx_node *getattr, const fx_arg *operands,
                                      size_t *nout)
{
    if (!getattr || getattr->op != FX_OP_GET_ATTR) { fail_node(t, n, "branch is not a get_attr node"); return NULL; }
    /* get_attr targets are relative to the module that owns the graph (nested conds) */
    const fx_module *owner = getattr->graph && getattr->graph->owner ? getattr->graph->owner : t->p->root;
    const fx_module *sub = fx_module_find(owner, getattr->target);
    if (sub && sub->graph == getattr->graph) sub = NULL;
    int depth = 0;
    for (const scope *s = t->sc; s; s = s->parent) depth++;
    if (depth > 64) {
        fail_node(t, n, "subgraphs nested too deeply");
        return NULL;
    }
    if (!sub || !sub->graph) {
        fail_node(t, n, arena_printf(&t->a, "no subgraph module '%s'", getattr->target));
        return NULL;
    }
    const char *bname = sub->name ? sub->name : getattr->target;
    Onnx__GraphProto *bg = ox_graph_new(t->m, bname);
    scope sc = {.parent = t->sc, .g = bg, .fxg = sub->graph};
    hm_init(&sc.vals);
    hm_init(&sc.consts);
    /* placeholders ← operands, before switching scope (operands live outside) */
    size_t k = 0;
    for (const fx_node *p = sub->graph->first; p; p = p->next) {
        if (p->op != FX_OP_PLACEHOLDER) continue;
        if (k >= operands->u.seq.len || operands->u.seq.items[k]->kind != FX_ARG_NODE) {
            fail_node(t, n, "branch inputs do not match the operands");
            goto out;
        }
        const char *v = single(t, n, operands->u.seq.items[k]->u.node);
        if (!v) goto out;
        tx_val *tv = arena_alloc(&t->a, sizeof *tv);
        tv->names = arena_alloc(&t->a, sizeof *tv->names);
        tv->names[0] = v;
        tv->n = 1;
        hm_put(&sc.vals, p->name, tv);
        k++;
    }
    t->sc = &sc;
    if (!translate_graph(t, sub->graph)) goto restore;
    /* outputs */
    const fx_node *outn = sub->graph->last;
    while (outn && outn->op != FX_OP_OUTPUT) outn = outn->prev;
    const fx_arg *items = outn && outn->args->u.seq.len ? outn->args->u.seq.items[0] : NULL;
    if (!items || (items->kind != FX_ARG_TUPLE && items->kind != FX_ARG_LIST)) {
        fail_node(t, n, "branch output is not a tuple");
        goto restore;
    }
    for (size_t i = 0; i < items->u.seq.len; i++) {
        const fx_arg *it = items->u.seq.items[i];
        if (it->kind != FX_ARG_NODE) { fail_node(t, n, "branch outputs must be tensors"); goto restore; }
        const char *v = single(t, n, it->u.node);
        if (!v) goto restore;
        const char *nv = unique_name(t, arena_printf(&t->a, "%s_%s", it->u.node->name, bname));
        bool renamed = false;
        for (size_t j = 0; j < bg->n_node; j++) {
            Onnx__NodeProto *nd = bg->node[j];
            for (size_t o = 0; o < nd->n_output; o++)
                if (!strcmp(nd->output[o], v)) { nd->output[o] = ox_strdup(t->m, nv); renamed = true; }
            for (size_t o = 0; o < nd->n_input; o++)
                if (!strcmp(nd->input[o], v)) nd->input[o] = ox_strdup(t->m, nv);
        }
        for (size_t j = 0; j < bg->n_value_info; j++)
            if (!strcmp(bg->value_info[j]->name, v)) bg->value_info[j]->name = ox_strdup(t->m, nv);
        if (!renamed) emit1(t, "Identity", v, nv, NULL);
        Onnx__TypeProto *ty = type_of_value(t, node_val(it->u.node));
        ox_graph_add_output(t->m, bg, nv, ty ? ty : ox_type_tensor(t->m, 0, NULL, 0, false));
    }
    *nout = items->u.seq.len;
restore:
    t->sc = sc.parent;
out:
    hm_free(&sc.vals);
    hm_free(&sc.consts);
    return t->failed ? NULL : bg;
}

static bool b_cond(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    (void)b;
    const fx_arg *a = n->args;
    if (a->u.seq.len != 4 || a->u.seq.items[0]->kind != FX_ARG_NODE || a->u.seq.items[1]->kind != FX_ARG_NODE ||
        a->u.seq.items[2]->kind != FX_ARG_NODE ||
        (a->u.seq.items[3]->kind != FX_ARG_TUPLE && a->u.seq.items[3]->kind != FX_ARG_LIST)) {
        fail_node(t, n, "expected cond(pred, true_graph, false_graph, (operands...))");
        return false;
    }
    const char *pred = single(t, n, a->u.seq.items[0]->u.node);
    if (!pred) return false;
    size_t nt = 0, nf = 0;
    Onnx__GraphProto *tg = branch_graph(t, n, a->u.seq.items[1]->u.node, a->u.seq.items[3], &nt);
    if (!tg) return false;
    Onnx__GraphProto *fg = branch_graph(t, n, a->u.seq.items[2]->u.node, a->u.seq.items[3], &nf);
    if (!fg) return false;
    if (nt != nf) { fail_node(t, n, "the branches return different numbers of outputs"); return false; }
    const char **outs = output_names_ex(t, n, nt, true);
    Onnx__NodeProto *nd = emit(t, "If", "", node_name_of(t, n));
    ox_node_add_input(t->m, nd, pred);
    ox_attr_graph(t->m, nd, "then_branch", tg);
    ox_attr_graph(t->m, nd, "else_branch", fg);
    for (size_t i = 0; i < nt; i++) ox_node_add_output(t->m, nd, outs[i]);
    set_val(t, n, outs, nt);
    const fx_value *v = node_val(n);
    for (size_t i = 0; v && v->kind == FX_VAL_TUPLE && i < nt && i < v->n_items; i++) add_value_info(t, outs[i], v->items[i]);
    return true;
}


/* ---- while_loop → Loop, scan → Scan ---- */

/* How a subgraph placeholder is bound: to an outer value by name, or to a new graph input. */
typedef struct ph_bind {
    const char *outer;       /* outer value name (closure), or NULL */
    const char *input;       /* name of a new input of the subgraph, or NULL */
} ph_bind;

static const fx_module *hop_module(tx *t, const fx_node *n, const fx_arg *a)
{
    if (a->kind != FX_ARG_NODE || a->u.node->op != FX_OP_GET_ATTR) {
        fail_node(t, n, "expected a get_attr of a subgraph module");
        return NULL;
    }
    const fx_node *ga = a->u.node;
    const fx_module *owner = ga->graph && ga->graph->owner ? ga->graph->owner : t->p->root;
    const fx_module *sub = fx_module_find(owner, ga->target);
    if (!sub || !sub->graph || sub->graph == ga->graph) {
        fail_node(t, n, arena_printf(&t->a, "no subgraph module '%s'", ga->target));
        return NULL;
    }
    int depth = 0;
    for (const scope *s = t->sc; s; s = s->parent) depth++;
    if (depth > 64) { fail_node(t, n, "subgraphs nested too deeply"); return NULL; }
    return sub;
}

/* Translates sub's graph into graph g (a new scope under the current one) with its placeholders
 * bound by binds (nb of them). Returns the output value names and FX nodes (arena), or false. */
static bool translate_into(tx *t, const fx_node *n, const fx_module *sub, Onnx__GraphProto *g, const ph_bind *binds,
                           size_t nb, const char ***outs, const fx_node ***out_nodes, size_t *nout)
{
    scope sc = {.parent = t->sc, .g = g, .fxg = sub->graph};
    hm_init(&sc.vals);
    hm_init(&sc.consts);
    bool ok = false;
    size_t k = 0;
    for (const fx_node *p = sub->graph->first; p; p = p->next) {
        if (p->op != FX_OP_PLACEHOLDER) continue;
        if (k >= nb) { fail_node(t, n, arena_printf(&t->a, "subgraph %s has more inputs than operands", sub->name)); goto out; }
        tx_val *tv = arena_alloc(&t->a, sizeof *tv);
        tv->names = arena_alloc(&t->a, sizeof *tv->names);
        tv->n = 1;
        if (binds[k].input) {
            tv->names[0] = binds[k].input;
            Onnx__TypeProto *ty = type_of_value(t, node_val(p));
            ox_graph_add_input(t->m, g, binds[k].input, ty ? ty : ox_type_tensor(t->m, 0, NULL, 0, false));
        } else {
            tv->names[0] = binds[k].outer;
        }
        hm_put(&sc.vals, p->name, tv);
        k++;
    }
    t->sc = &sc;
    if (translate_graph(t, sub->graph)) {
        const fx_node *on = sub->graph->last;
        while (on && on->op != FX_OP_OUTPUT) on = on->prev;
        const fx_arg *items = on && on->args->u.seq.len ? on->args->u.seq.items[0] : NULL;
        if (items && items->kind == FX_ARG_NODE) {
            *nout = 1;
            *outs = arena_alloc(&t->a, sizeof **outs);
            *out_nodes = arena_alloc(&t->a, sizeof **out_nodes);
            (*out_nodes)[0] = items->u.node;
            ok = ((*outs)[0] = single(t, n, items->u.node)) != NULL;
        } else if (items && (items->kind == FX_ARG_TUPLE || items->kind == FX_ARG_LIST)) {
            *nout = items->u.seq.len;
            *outs = arena_alloc(&t->a, (*nout + 1) * sizeof **outs);
            *out_nodes = arena_alloc(&t->a, (*nout + 1) * sizeof **out_nodes);
            ok = true;
            for (size_t i = 0; i < *nout && ok; i++) {
                const fx_arg *it = items->u.seq.items[i];
                if (it->kind != FX_ARG_NODE) { fail_node(t, n, "subgraph outputs must be tensors"); ok = false; break; }
                (*out_nodes)[i] = it->u.node;
                ok = ((*outs)[i] = single(t, n, it->u.node)) != NULL;
            }
        } else {
            fail_node(t, n, "subgraph has no output");
        }
    }
    t->sc = sc.parent;
out:
    hm_free(&sc.vals);
    hm_free(&sc.consts);
    return ok && !t->failed;
}

/* Emits op(in) -> out into graph g (a subgraph being built, not the current scope's graph). */
static Onnx__NodeProto *emit1_in(tx *t, Onnx__GraphProto *g, const char *op, const char *in, const char *out)
{
    scope *save = t->sc, tmp = {.parent = save, .g = g};
    hm_init(&tmp.vals);
    hm_init(&tmp.consts);
    t->sc = &tmp;
    emit1(t, op, in, out, NULL);
    t->sc = save;
    hm_free(&tmp.vals);
    hm_free(&tmp.consts);
    return g->node[g->n_node - 1];
}

/* Makes v a graph output of g named "<fxname>_<suffix>": renames its producer inside g, or
 * adds an Identity when v comes from outside (or is already an output). */
static void add_renamed_output(tx *t, Onnx__GraphProto *g, const char *v, const fx_node *fxn, const char *suffix)
{
    const char *nv = unique_name(t, arena_printf(&t->a, "%s_%s", fxn->name, suffix));
    bool renamed = false;
    for (size_t j = 0; j < g->n_output && !renamed; j++) renamed = !strcmp(g->output[j]->name, v);
    if (!renamed) {
        renamed = false;
        for (size_t j = 0; j < g->n_node; j++) {
            Onnx__NodeProto *nd = g->node[j];
            for (size_t o = 0; o < nd->n_output; o++)
                if (!strcmp(nd->output[o], v)) { nd->output[o] = ox_strdup(t->m, nv); renamed = true; }
            for (size_t o = 0; o < nd->n_input; o++)
                if (!strcmp(nd->input[o], v)) nd->input[o] = ox_strdup(t->m, nv);
        }
        for (size_t j = 0; j < g->n_value_info; j++)
            if (!strcmp(g->value_info[j]->name, v)) g->value_info[j]->name = ox_strdup(t->m, nv);
        for (size_t j = 0; j < g->n_output; j++)
            if (!strcmp(g->output[j]->name, v)) g->output[j]->name = ox_strdup(t->m, nv);
    } else {
        renamed = false;
    }
    if (!renamed) emit1_in(t, g, "Identity", v, nv);
    Onnx__TypeProto *ty = type_of_value(t, node_val(fxn));
    ox_graph_add_output(t->m, g, nv, ty ? ty : ox_type_tensor(t->m, 0, NULL, 0, false));
}

/* Loop(m, cond0, carried...) with body bg; its nc results are n's values. */
static bool emit_loop(tx *t, const fx_node *n, const char *m, const char *cond0, const char **carried, size_t nc,
                      Onnx__GraphProto *bg)
{
    const char **outs = output_names_ex(t, n, nc, true);
    Onnx__NodeProto *nd = emit(t, "Loop", "", node_name_of(t, n));
    ox_node_add_input(t->m, nd, m);
    ox_node_add_input(t->m, nd, cond0);
    for (size_t i = 0; i < nc; i++) ox_node_add_input(t->m, nd, carried[i]);
    ox_attr_graph(t->m, nd, "body", bg);
    for (size_t i = 0; i < nc; i++) ox_node_add_output(t->m, nd, outs[i]);
    set_val(t, n, outs, nc);
    return true;
}

static bool seq_arg(const fx_arg *a)
{
    return a->kind == FX_ARG_TUPLE || a->kind == FX_ARG_LIST;
}

static bool b_while_loop(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    (void)b;
    const fx_arg *a = n->args;
    if (a->u.seq.len != 4 || !seq_arg(a->u.seq.items[2]) || !seq_arg(a->u.seq.items[3])) {
        fail_node(t, n, "expected while_loop(cond_fn, body_fn, (carried...), (additional...))");
        return false;
    }
    const fx_module *cm = hop_module(t, n, a->u.seq.items[0]), *bm = hop_module(t, n, a->u.seq.items[1]);
    if (!cm || !bm) return false;
    const fx_arg *car = a->u.seq.items[2], *add = a->u.seq.items[3];
    size_t nc = car->u.seq.len, na = add->u.seq.len;
    const char **cv = arena_alloc(&t->a, (nc + na + 1) * sizeof *cv);
    const fx_node **cn = arena_alloc(&t->a, (nc + 1) * sizeof *cn);
    for (size_t i = 0; i < nc + na; i++) {
        const fx_arg *x = i < nc ? car->u.seq.items[i] : add->u.seq.items[i - nc];
        if (i < nc && (x->kind == FX_ARG_INT || x->kind == FX_ARG_FLOAT)) {
            /* a Python number carried through the loop: an INT64/FLOAT scalar, as torch does */
            cn[i] = NULL;
            cv[i] = x->kind == FX_ARG_INT ? const_scalar(t, OT_INT64, 0, x->u.i, false)
                                          : const_scalar(t, OT_FLOAT, x->u.f, 0, true);
            continue;
        }
        if (x->kind != FX_ARG_NODE) { fail_node(t, n, "while_loop operands must be tensors or numbers"); return false; }
        if (i < nc) cn[i] = x->u.node;
        if (!(cv[i] = single(t, n, x->u.node))) return false;
    }
    /* initial condition: cond_fn on the initial values, in the enclosing graph */
    ph_bind *ob = arena_alloc(&t->a, (nc + na + 1) * sizeof *ob);
    for (size_t i = 0; i < nc + na; i++) ob[i].outer = cv[i];
    const char **co;
    const fx_node **con;
    size_t nco;
    if (!translate_into(t, n, cm, t->sc->g, ob, nc + na, &co, &con, &nco)) return false;
    if (nco != 1) { fail_node(t, n, "Condition function must return a single boolean value."); return false; }
    const char *cond0 = co[0];
    /* body graph: (iter_num, cond_in, carried...) → (cond_out, carried'...) */
    const char *bname = arena_printf(&t->a, "%s_loop_body", bm->name);
    Onnx__GraphProto *bg = ox_graph_new(t->m, bname);
    ox_graph_add_input(t->m, bg, unique_name(t, arena_printf(&t->a, "iter_num_%s", bm->name)),
                       ox_type_tensor(t->m, OT_INT64, NULL, 0, true));
    ox_graph_add_input(t->m, bg, unique_name(t, arena_printf(&t->a, "cond_in_%s", bm->name)),
                       ox_type_tensor(t->m, OT_BOOL, NULL, 0, true));
    ph_bind *bb = arena_alloc(&t->a, (nc + na + 1) * sizeof *bb);
    for (size_t i = 0; i < nc + na; i++) {
        if (i < nc && cn[i]) bb[i].input = unique_name(t, arena_printf(&t->a, "%s_%s__subgraph_in", cn[i]->name, bm->name));
        else if (i < nc) bb[i].input = unique_name(t, arena_printf(&t->a, "carried_input_%zu_%s__subgraph_in", i, bm->name));
        else bb[i].outer = cv[i];
    }
    const char **bo;
    const fx_node **bon;
    size_t nbo;
    if (!translate_into(t, n, bm, bg, bb, nc + na, &bo, &bon, &nbo)) return false;
    if (nbo != nc) { fail_node(t, n, "the body must return one value per carried value"); return false; }
    ph_bind *cb = arena_alloc(&t->a, (nc + na + 1) * sizeof *cb);
    for (size_t i = 0; i < nc + na; i++) cb[i].outer = i < nc ? bo[i] : cv[i];
    const char **c2;
    const fx_node **c2n;
    size_t nc2;
    if (!translate_into(t, n, cm, bg, cb, nc + na, &c2, &c2n, &nc2)) return false;
    add_renamed_output(t, bg, c2[0], c2n[0], cm->name);
    for (size_t i = 0; i < nc; i++) add_renamed_output(t, bg, bo[i], bon[i], bm->name);
    return emit_loop(t, n, "", cond0, cv, nc, bg);
}

static bool b_scan(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    (void)b;
    const fx_arg *a = n->args;
    if (a->u.seq.len != 4 || !seq_arg(a->u.seq.items[1]) || !seq_arg(a->u.seq.items[2]) || !seq_arg(a->u.seq.items[3])) {
        fail_node(t, n, "expected scan(combine_fn, [init...], [xs...], (additional...))");
        return false;
    }
    const fx_module *bm = hop_module(t, n, a->u.seq.items[0]);
    if (!bm) return false;
    const fx_arg *init = a->u.seq.items[1], *xs = a->u.seq.items[2], *add = a->u.seq.items[3];
    size_t ni = init->u.seq.len, nx = xs->u.seq.len, na = add->u.seq.len, nt = ni + nx + na;
    const char **v = arena_alloc(&t->a, (nt + 1) * sizeof *v);
    ph_bind *bb = arena_alloc(&t->a, (nt + 1) * sizeof *bb);
    for (size_t i = 0; i < nt; i++) {
        const fx_arg *x = i < ni ? init->u.seq.items[i] : i < ni + nx ? xs->u.seq.items[i - ni] : add->u.seq.items[i - ni - nx];
        if (x->kind != FX_ARG_NODE) { fail_node(t, n, "scan operands must be tensors"); return false; }
        if (!(v[i] = single(t, n, x->u.node))) return false;
        if (i < ni + nx) bb[i].input = unique_name(t, arena_printf(&t->a, "%s_%s__subgraph_in", x->u.node->name, bm->name));
        else bb[i].outer = v[i];
    }
    Onnx__GraphProto *bg = ox_graph_new(t->m, bm->name);
    const char **bo;
    const fx_node **bon;
    size_t nbo;
    if (!translate_into(t, n, bm, bg, bb, nt, &bo, &bon, &nbo)) return false;
    if (nbo < ni) { fail_node(t, n, "combine_fn returns fewer values than there are carries"); return false; }
    for (size_t i = 0; i < nbo; i++) add_renamed_output(t, bg, bo[i], bon[i], bm->name);
    const char **outs = output_names_ex(t, n, nbo, true);
    Onnx__NodeProto *nd = emit(t, "Scan", "", node_name_of(t, n));
    for (size_t i = 0; i < ni + nx; i++) ox_node_add_input(t->m, nd, v[i]);
    ox_attr_graph(t->m, nd, "body", bg);
    ox_attr_int(t->m, nd, "num_scan_inputs", (int64_t)nx);
    int64_t *dirs = arena_alloc(&t->a, (nbo + nx + 1) * sizeof *dirs);
    memset(dirs, 0, (nbo + nx + 1) * sizeof *dirs);
    ox_attr_ints(t->m, nd, "scan_input_directions", dirs, nx);
    ox_attr_ints(t->m, nd, "scan_output_directions", dirs, nbo - ni);
    for (size_t i = 0; i < nbo; i++) ox_node_add_output(t->m, nd, outs[i]);
    set_val(t, n, outs, nbo);
    return true;
}

/* fxsh.python_for / fxsh.python_while (export --legacy script only: dynamo's route fails on
 * them first) → Loop(M, cond, carried...) as the TorchScript exporter translated prim::Loop:
 * M is the trip count (a while's is INT64_MAX, as TorchScript wrote it), cond True for a for
 * and the first test (cast to bool) for a while; the body takes (iteration, cond, carried...)
 * and returns (next cond, carried'...), reading other values from the enclosing scope. */
static bool b_python_loop(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    (void)b;
    const fx_arg *a = n->args;
    bool is_while = !strcmp(n->target, "fxsh.python_while");
    size_t at = is_while ? 1 : 0;   /* python_while(trip, cond, body, ...) / python_for(trip, body, ...) */
    if (a->u.seq.len != 4 + at || !seq_arg(a->u.seq.items[at + 2]) || !seq_arg(a->u.seq.items[at + 3])) {
        fail_node(t, n, is_while ? "expected python_while(max_trip, cond, body, (carried...), (captured...))"
                                 : "expected python_for(trip, body, (carried...), (captured...))");
        return false;
    }
    const fx_module *bm = hop_module(t, n, a->u.seq.items[at + 1]);
    if (!bm) return false;
    const fx_arg *trip = a->u.seq.items[0], *car = a->u.seq.items[at + 2], *cap = a->u.seq.items[at + 3];
    size_t nc = car->u.seq.len, ncap = cap->u.seq.len;
    const char *m_in = "";
    if (trip->kind == FX_ARG_INT) m_in = const_scalar(t, OT_INT64, 0, trip->u.i, false);
    else if (trip->kind == FX_ARG_NODE && !(m_in = single(t, n, trip->u.node))) return false;
    else if (trip->kind != FX_ARG_NODE && trip->kind != FX_ARG_NONE) { fail_node(t, n, "the trip count is not an int"); return false; }
    const char *cond0;
    const fx_arg *c0 = is_while ? a->u.seq.items[1] : NULL;
    if (!c0 || c0->kind == FX_ARG_BOOL) {
        cond0 = const_scalar(t, OT_BOOL, 0, c0 ? c0->u.b : 1, false);
    } else if (c0->kind == FX_ARG_NODE) {
        if (!(cond0 = single(t, n, c0->u.node))) return false;
        if (onnx_dtype_of_node(c0->u.node) != OT_BOOL) {
            const char *b = fresh_val(t);
            ox_attr_int(t->m, emit1_in(t, t->sc->g, "Cast", cond0, b), "to", OT_BOOL);
            cond0 = b;
        }
    } else {
        fail_node(t, n, "the loop's first test is not a bool");
        return false;
    }
    const char **cv = arena_alloc(&t->a, (nc + 1) * sizeof *cv);
    for (size_t i = 0; i < nc; i++) {
        const fx_arg *x = car->u.seq.items[i];
        if (x->kind == FX_ARG_INT || x->kind == FX_ARG_FLOAT)
            cv[i] = x->kind == FX_ARG_INT ? const_scalar(t, OT_INT64, 0, x->u.i, false) : const_scalar(t, OT_FLOAT, x->u.f, 0, true);
        else if (x->kind != FX_ARG_NODE || !(cv[i] = single(t, n, x->u.node))) {
            if (!t->failed) fail_node(t, n, "loop-carried values must be tensors or numbers");
            return false;
        }
    }
    /* body: (iteration, cond, carried...) → (next cond, carried'...) */
    Onnx__GraphProto *bg = ox_graph_new(t->m, bm->name);
    const char *iter = unique_name(t, arena_printf(&t->a, "iter_num_%s", bm->name));
    const char *cond_in = unique_name(t, arena_printf(&t->a, "cond_in_%s", bm->name));
    ox_graph_add_input(t->m, bg, iter, ox_type_tensor(t->m, OT_INT64, NULL, 0, true));
    ox_graph_add_input(t->m, bg, cond_in, ox_type_tensor(t->m, OT_BOOL, NULL, 0, true));
    ph_bind *bb = arena_alloc(&t->a, (1 + nc + ncap + 1) * sizeof *bb);
    bb[0].outer = iter;
    for (size_t i = 0; i < nc; i++) {
        const fx_arg *x = car->u.seq.items[i];
        bb[1 + i].input = unique_name(t, arena_printf(&t->a, "%s_%s__subgraph_in",
                                                      x->kind == FX_ARG_NODE ? x->u.node->name : "carried_input", bm->name));
    }
    for (size_t i = 0; i < ncap; i++) {
        const fx_arg *x = cap->u.seq.items[i];
        if (x->kind != FX_ARG_NODE || !(bb[1 + nc + i].outer = single(t, n, x->u.node))) {
            if (!t->failed) fail_node(t, n, "the loop body reads a value that is not a tensor");
            return false;
        }
    }
    const char **bo;
    const fx_node **bon;
    size_t nbo;
    if (!translate_into(t, n, bm, bg, bb, 1 + nc + ncap, &bo, &bon, &nbo)) return false;
    if (nbo != nc + is_while) { fail_node(t, n, "the body must return (next test,) carried values"); return false; }
    if (is_while) {
        add_renamed_output(t, bg, bo[0], bon[0], bm->name);
        if (onnx_dtype_of_node(bon[0]) != OT_BOOL) {
            Onnx__ValueInfoProto *o = bg->output[bg->n_output - 1];
            const char *raw = unique_name(t, arena_printf(&t->a, "%s_raw", o->name));
            for (size_t j = 0; j < bg->n_node; j++)
                for (size_t k = 0; k < bg->node[j]->n_output; k++)
                    if (!strcmp(bg->node[j]->output[k], o->name)) bg->node[j]->output[k] = ox_strdup(t->m, raw);
            ox_attr_int(t->m, emit1_in(t, bg, "Cast", raw, o->name), "to", OT_BOOL);
            o->type = ox_type_tensor(t->m, OT_BOOL, NULL, 0, true);
        }
    } else {
        /* a for goes on as long as its trip count allows: the condition passes through */
        const char *cond_out = unique_name(t, arena_printf(&t->a, "cond_out_%s", bm->name));
        emit1_in(t, bg, "Identity", cond_in, cond_out);
        ox_graph_add_output(t->m, bg, cond_out, ox_type_tensor(t->m, OT_BOOL, NULL, 0, true));
    }
    for (size_t i = 0; i < nc; i++) add_renamed_output(t, bg, bo[i + is_while], bon[i + is_while], bm->name);
    return emit_loop(t, n, m_in, cond0, cv, nc, bg);
}

static bool b_hstack(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    if (!seq_arg(b[0]) || !b[0]->u.seq.len || b[0]->u.seq.items[0]->kind != FX_ARG_NODE) return false;
    int r = rank_of_node(b[0]->u.seq.items[0]->u.node);
    namevec ins = {0};
    bool ok = arg_inputs(t, n, &rule->schema.args[0], b[0], 0, &ins);
    if (ok) {
        const char *out = one_output(t, n);
        Onnx__NodeProto *nd = emit(t, "Concat", "", node_name_of(t, n));
        ox_attr_int(t->m, nd, "axis", r == 1 ? 0 : 1);
        for (size_t i = 0; i < ins.len; i++) ox_node_add_input(t->m, nd, ins.items[i]);
        ox_node_add_output(t->m, nd, out);
    }
    vec_free(&ins);
    return ok;
}


static const fx_arg *kwarg(const fx_node *n, const char *key)
{
    const fx_arg *kw = n->kwargs;
    for (size_t i = 0; kw && i < kw->u.seq.len; i++)
        if (!strcmp(kw->u.seq.keys[i], key)) return kw->u.seq.items[i];
    return NULL;
}

/* torch.onnx.ops.symbolic: inputs, op type and attributes packed as parallel typed arrays. */
static bool b_symbolic(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    (void)b;
    const fx_arg *a = n->args;
    if (a->u.seq.len < 3 || !seq_arg(a->u.seq.items[0]) || a->u.seq.items[1]->kind != FX_ARG_STR) {
        fail_node(t, n, "expected _symbolic(inputs, op_type, dtype, ...)");
        return false;
    }
    const fx_arg *keys = kwarg(n, "attr_keys"), *types = kwarg(n, "attr_types"), *pos = kwarg(n, "attr_pos");
    const fx_arg *ints = kwarg(n, "attr_ints"), *floats = kwarg(n, "attr_floats"), *strs = kwarg(n, "attr_strs");
    const fx_arg *dom = kwarg(n, "domain"), *ver = kwarg(n, "version");
    const char *domain = dom && dom->kind == FX_ARG_STR ? dom->u.s : "";
    namevec ins = {0};
    for (size_t i = 0; i < a->u.seq.items[0]->u.seq.len; i++) {
        const fx_arg *x = a->u.seq.items[0]->u.seq.items[i];
        if (x->kind == FX_ARG_NONE) { vec_push(&ins, ""); continue; }
        const char *v = x->kind == FX_ARG_NODE ? single(t, n, x->u.node) : NULL;
        if (!v) { vec_free(&ins); fail_node(t, n, "symbolic inputs must be tensors or None"); return false; }
        vec_push(&ins, v);
    }
    bool multi = strstr(n->target, "multi_out") != NULL;
    size_t nout = multi && seq_arg(a->u.seq.items[2]) ? a->u.seq.items[2]->u.seq.len : 1;
    const char **outs = multi ? output_names_ex(t, n, nout, true) : output_names(t, n, 1);
    Onnx__NodeProto *nd = emit(t, a->u.seq.items[1]->u.s, domain, node_name_of(t, n));
    bool ok = true;
    size_t nk = keys && seq_arg(keys) ? keys->u.seq.len : 0;
    for (size_t i = 0; i < nk && ok; i++) {
        const fx_arg *k = keys->u.seq.items[i];
        const fx_arg *ty = types && seq_arg(types) && i < types->u.seq.len ? types->u.seq.items[i] : NULL;
        const fx_arg *ps = pos && seq_arg(pos) && i < pos->u.seq.len ? pos->u.seq.items[i] : NULL;
        int64_t st, en;
        if (k->kind != FX_ARG_STR || !ty || ty->kind != FX_ARG_STR || !ps || !seq_arg(ps) || ps->u.seq.len != 2 ||
            !arg_int(ps->u.seq.items[0], &st) || !arg_int(ps->u.seq.items[1], &en) || st < 0 || en < st) {
            ok = false;
            break;
        }
        char c = ty->u.s[0];
        bool list = ty->u.s[1] == 's';
        const fx_arg *src = c == 'i' || c == 'b' ? ints : c == 'f' ? floats : c == 's' ? strs : NULL;
        if (!src || !seq_arg(src) || (size_t)en > src->u.seq.len) { ok = false; break; }
        size_t cnt = (size_t)(en - st);
        if (!list && cnt != 1) { ok = false; break; }
        if (c == 'i' || c == 'b') {
            int64_t *v = arena_alloc(&t->a, (cnt + 1) * sizeof *v);
            for (size_t j = 0; j < cnt; j++) if (!arg_int(src->u.seq.items[st + (int64_t)j], &v[j])) ok = false;
            if (list) ox_attr_ints(t->m, nd, k->u.s, v, cnt);
            else ox_attr_int(t->m, nd, k->u.s, v[0]);
        } else if (c == 'f') {
            float *v = arena_alloc(&t->a, (cnt + 1) * sizeof *v);
            for (size_t j = 0; j < cnt; j++) {
                const fx_arg *e = src->u.seq.items[st + (int64_t)j];
                v[j] = e->kind == FX_ARG_FLOAT ? (float)e->u.f : (float)e->u.i;
            }
            if (list) ox_attr_floats(t->m, nd, k->u.s, v, cnt);
            else ox_attr_float(t->m, nd, k->u.s, v[0]);
        } else {
            const char **v = arena_alloc(&t->a, (cnt + 1) * sizeof *v);
            for (size_t j = 0; j < cnt; j++) {
                const fx_arg *e = src->u.seq.items[st + (int64_t)j];
                v[j] = e->kind == FX_ARG_STR ? e->u.s : "";
            }
            if (list) ox_attr_strings(t->m, nd, k->u.s, v, cnt);
            else ox_attr_string(t->m, nd, k->u.s, v[0]);
        }
    }
    for (size_t i = 0; i < ins.len; i++) ox_node_add_input(t->m, nd, ins.items[i]);
    vec_free(&ins);
    for (size_t i = 0; i < nout; i++) ox_node_add_output(t->m, nd, outs[i]);
    if (!ok) { fail_node(t, n, "malformed attribute arrays"); return false; }
    if (*domain && ox_model_opset(t->m, domain) < 0) {
        int64_t v = 1;
        if (ver && ver->kind == FX_ARG_INT) v = ver->u.i;
        ox_model_set_opset(t->m, domain, v);
    }
    set_val(t, n, outs, nout);
    if (!multi) add_value_info(t, outs[0], node_val(n));
    return true;
}


/* index_put with one integer index on dim 0 → ScatterND (accumulate → reduction "add"). */
static bool b_index_put(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]), *vals = input_of(t, n, b[2]);
    const fx_arg *ix = b[1];
    if (!x || !vals) return false;
    if (!seq_arg(ix) || ix->u.seq.len != 1 || ix->u.seq.items[0]->kind != FX_ARG_NODE ||
        onnx_dtype_of_node(ix->u.seq.items[0]->u.node) == OT_BOOL) {
        fail_node(t, n, "index_put is lowered for one integer index tensor on dim 0");
        return false;
    }
    const char *idx = single(t, n, ix->u.seq.items[0]->u.node);
    if (!idx) return false;
    int64_t m1 = -1;
    const char *ind = emit2(t, "Unsqueeze", idx, const_ints(t, &m1, 1), NULL, NULL);
    const char *si = emit1(t, "Shape", idx, NULL, NULL);
    Onnx__NodeProto *sx = emit(t, "Shape", "", NULL);
    ox_attr_int(t->m, sx, "start", 1);
    ox_node_add_input(t->m, sx, x);
    const char *rest = fresh_val(t);
    ox_node_add_output(t->m, sx, rest);
    const char *shape = emit2(t, "Concat", si, rest, NULL, NULL);
    ox_attr_int(t->m, t->sc->g->node[t->sc->g->n_node - 1], "axis", 0);
    const char *vc = emit2(t, "CastLike", vals, x, NULL, NULL);
    const char *upd = emit2(t, "Expand", vc, shape, NULL, NULL);
    const char *out = one_output(t, n);
    Onnx__NodeProto *nd = emit(t, "ScatterND", "", node_name_of(t, n));
    if (b[3]->kind == FX_ARG_BOOL && b[3]->u.b) ox_attr_string(t->m, nd, "reduction", "add");
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, ind);
    ox_node_add_input(t->m, nd, upd);
    ox_node_add_output(t->m, nd, out);
    return true;
}


/* Scatter src into self along axis at the static positions pos[0..n): ScatterElements with the
 * positions shaped [1,..,n,..,1] and expanded to src's shape. */
static bool scatter_positions(tx *t, const fx_node *n, const char *x, const char *src, int64_t axis, size_t rank,
                              const int64_t *pos, size_t np)
{
    int64_t *dims = arena_alloc(&t->a, (rank + 1) * sizeof *dims);
    for (size_t i = 0; i < rank; i++) dims[i] = (int64_t)i == axis ? (int64_t)np : 1;
    Onnx__TensorProto *tp = ox_tensor_new(t->m, NULL, OT_INT64, dims, rank);
    ox_tensor_set_int64s(t->m, tp, pos, np);
    Onnx__NodeProto *c = emit(t, "Constant", "", NULL);
    ox_attr_tensor(t->m, c, "value", tp);
    const char *idx = fresh_val(t);
    ox_node_add_output(t->m, c, idx);
    const char *shape = emit1(t, "Shape", src, NULL, NULL);
    const char *full = emit2(t, "Expand", idx, shape, NULL, NULL);
    const char *out = one_output(t, n);
    Onnx__NodeProto *nd = emit(t, "ScatterElements", "", node_name_of(t, n));
    ox_attr_int(t->m, nd, "axis", axis);
    ox_node_add_input(t->m, nd, x);
    ox_node_add_input(t->m, nd, full);
    ox_node_add_input(t->m, nd, src);
    ox_node_add_output(t->m, nd, out);
    return true;
}

static bool b_slice_scatter(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]), *src = input_of(t, n, b[1]);
    int64_t *sz, dim, st = 0, en = INT64_MAX, step = 1;
    size_t r;
    if (!x || !src) return false;
    if (!static_sizes(b[0]->u.node, &sz, &r, &t->a) || !arg_int(b[2], &dim) ||
        (b[3]->kind != FX_ARG_NONE && !arg_int(b[3], &st)) || (b[4]->kind != FX_ARG_NONE && !arg_int(b[4], &en)) ||
        !arg_int(b[5], &step) || step < 1) {
        fail_node(t, n, "slice_scatter needs static sizes and constant start/end/step");
        return false;
    }
    if (dim < 0) dim += (int64_t)r;
    if (dim < 0 || dim >= (int64_t)r) return false;
    int64_t size = sz[dim];
    if (st < 0) st += size;
    if (en < 0) en += size;
    if (st < 0) st = 0;
    if (en > size) en = size;
    size_t np = en > st ? (size_t)((en - st + step - 1) / step) : 0;
    int64_t *pos = arena_alloc(&t->a, (np + 1) * sizeof *pos);
    for (size_t i = 0; i < np; i++) pos[i] = st + (int64_t)i * step;
    return scatter_positions(t, n, x, src, dim, r, pos, np);
}

static bool b_select_scatter(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    const char *x = input_of(t, n, b[0]), *src = input_of(t, n, b[1]);
    int64_t *sz, dim, index;
    size_t r;
    if (!x || !src) return false;
    if (!static_sizes(b[0]->u.node, &sz, &r, &t->a) || !arg_int(b[2], &dim) || !arg_int(b[3], &index)) {
        fail_node(t, n, "select_scatter needs static sizes and a constant index");
        return false;
    }
    if (dim < 0) dim += (int64_t)r;
    if (dim < 0 || dim >= (int64_t)r) return false;
    if (index < 0) index += sz[dim];
    const char *us = emit2(t, "Unsqueeze", src, const_ints(t, &dim, 1), NULL, NULL);
    return scatter_positions(t, n, x, us, dim, r, &index, 1);
}

/* atleast_1d over a list: rank-0 tensors become [1], others pass through. */
static bool b_atleast_1d(tx *t, const fx_node *n, const op_rule *rule, const fx_arg **b)
{
    (void)rule;
    if (!seq_arg(b[0])) return false;
    size_t k = b[0]->u.seq.len;
    const char **outs = output_names_ex(t, n, k, true);
    int64_t one = 1;
    for (size_t i = 0; i < k; i++) {
        const fx_arg *e = b[0]->u.seq.items[i];
        const char *v = input_of(t, n, e);
        if (!v) return false;
        int r = rank_of_node(e->u.node);
        if (r < 0) { fail_node(t, n, "atleast_1d needs the rank of its inputs"); return false; }
        const char *nm = arena_printf(&t->a, "node_%s__%zu", n->name, i);
        if (r == 0) emit2(t, "Reshape", v, const_ints(t, &one, 1), outs[i], nm);
        else emit1(t, "Identity", v, outs[i], nm);
    }
    set_val(t, n, outs, k);
    return true;
}

/* nargs: how many schema arguments the C code reads (-1: reads the FX node itself, no schema). */
static const struct { const char *name; builtin_fn fn; int nargs; } builtins[] = {
    {"transpose", b_transpose, 3}, {"slice", b_slice, 5}, {"flip", b_flip, 2}, {"flatten", b_reshape_to_meta, 1},
    {"hstack", b_hstack, 1}, {"adaptive_avg_pool2d", b_adaptive_avg_pool, 2}, {"adaptive_avg_pool", b_adaptive_avg_pool, 2},
    {"pad", b_pad, 4}, {"upsample_nearest2d", b_upsample_nearest, 3}, {"upsample_bilinear2d", b_upsample_linear, 4},
    {"upsample_nearest", b_upsample_nearest, 3}, {"upsample_linear", b_upsample_linear, 4},
    {"upsample_cubic", b_upsample_cubic, 4}, {"roll", b_roll, 3}, {"adaptive_max_pool", b_adaptive_max_pool, 2},
    {"sdpa", b_sdpa, 7}, {"var", b_var, 3}, {"var_mean", b_var_mean, 4}, {"broadcast_in_dim", b_broadcast_in_dim, 3},
    {"index", b_index, 2}, {"index_put", b_index_put, 4}, {"slice_scatter", b_slice_scatter, 6},
    {"select_scatter", b_select_scatter, 4}, {"atleast_1d", b_atleast_1d, 1}, {"cond", b_cond, -1}, {"while_loop", b_while_loop, -1}, {"scan", b_scan, -1},
    {"python_loop", b_python_loop, -1},
    {"symbolic", b_symbolic, -1},
};

static builtin_fn find_builtin(const char *name, int *nargs)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (!strcmp(builtins[i].name, name)) { *nargs = builtins[i].nargs; return builtins[i].fn; }
    return NULL;
}

/* ---- per-node dispatch ---- */

static void no_lowering(tx *t, const fx_node *n, const char *target)
{
    t->failed = true;
    const char *short_t = !strncmp(target, "torch.ops.", 10) ? target + 10 : target;
    diagnostic *dg = diag_error(t->d, (diag_loc){t->p->file, 0, 0}, "No ONNX lowering for %s (node %%%s)", target, n->name);
    const char *op = strchr(short_t, '.');
    op = op ? op + 1 : short_t;
    size_t oplen = strcspn(op, ".");
    diag_set_hint(dg,
                  "add one with `ops load FILE`, a YAML file like:\n"
                  "    opset: 18\n"
                  "    rules:\n"
                  "      - target: %s\n"
                  "        schema: %.*s(Tensor self) -> Tensor\n"
                  "        lowering: '%.*s (self) => (result) { result = Identity (self) }'",
                  short_t, (int)oplen, op, (int)oplen, op);
}

static bool translate_getitem(tx *t, const fx_node *n)
{
    const fx_arg *a = n->args;
    if (a->u.seq.len != 2 || a->u.seq.items[0]->kind != FX_ARG_NODE || a->u.seq.items[1]->kind != FX_ARG_INT) {
        fail_node(t, n, "getitem needs a node and a constant index");
        return false;
    }
    const tx_val *src = lookup_val(t, a->u.seq.items[0]->u.node);
    int64_t i = a->u.seq.items[1]->u.i;
    if (!src) { fail_node(t, n, "getitem of a value that was not translated"); return false; }
    if (src->seq && src->n == 1) {
        const char *idx = const_scalar(t, OT_INT64, 0, i, false);
        const char *out = one_output(t, n);
        emit2(t, "SequenceAt", src->names[0], idx, out, node_name_of(t, n));
        return true;
    }
    if (i < 0) i += (int64_t)src->n;
    if (i < 0 || (size_t)i >= src->n) { fail_node(t, n, "getitem index out of range"); return false; }
    set_val(t, n, &src->names[i], 1);
    return true;
}

static bool translate_call(tx *t, const fx_node *n)
{
    const char *target = n->target ? n->target : "";
    if (!strcmp(target, "operator.getitem") || !strcmp(target, "<built-in function getitem>"))
        return translate_getitem(t, n);
    /* An in-place op whose result nobody reads only acts through aliasing (a view of another
     * value): ONNX has no aliasing, so translating it would silently drop the write. */
    const char *ov = strrchr(target, '.');
    if (ov && ov > target && ov[-1] == '_' && n->n_users == 0 && !strncmp(target, "torch.ops.aten.", 15)) {
        t->failed = true;
        diagnostic *dg = diag_error(t->d, (diag_loc){t->p->file, 0, 0},
                                    "in-place %s (node %%%s) writes through a view; ONNX has no aliasing", target, n->name);
        diag_set_hint(dg, "run the decompose stage first: functionalization turns it into *_scatter ops");
        return false;
    }
    const op_rule *rule = ops_lookup(t->reg, target, t->opset);
    if (!rule) { no_lowering(t, n, target); return false; }
    const fx_arg **bound = NULL;
    const lowering *lw = rule->nalts ? &rule->alts[0] : NULL;
    if (rule->has_schema) {
        bound = arena_alloc(&t->a, (rule->schema.nargs + 1) * sizeof *bound);
        if (!bind_args(t, n, &rule->schema, bound)) return false;
        arg_info *info = arena_alloc(&t->a, (rule->schema.nargs + 1) * sizeof *info);
        for (size_t i = 0; i < rule->schema.nargs; i++) info[i] = info_of(bound[i]);
        lw = ops_select(rule, info);
    }
    if (!lw) {
        fail_node(t, n, arena_printf(&t->a, "no alternative of the rule at %s:%d applies to these arguments",
                                           rule->file, rule->line));
        return false;
    }
    if (lw->builtin) {
        int need = 0;
        builtin_fn fn = find_builtin(lw->builtin, &need);
        if (!fn) {
            fail_node(t, n, arena_printf(&t->a, "builtin lowering '%s' is not implemented yet", lw->builtin));
            return false;
        }
        if (need >= 0 && (!rule->has_schema || rule->schema.nargs < (size_t)need)) {
            fail_node(t, n, arena_printf(&t->a, "builtin '%s' needs a schema with at least %d arguments (rule at %s:%d)",
                                               lw->builtin, need, rule->file, rule->line));
            return false;
        }
        return fn(t, n, rule, bound);
    }
    return run_lowering(t, n, rule, lw, bound);
}

/* An op returning a tuple: its value meta says so, or (without meta) only getitems read it. */
static bool is_multi_output(const fx_node *n)
{
    const fx_value *v = node_val(n);
    if (v) return v->kind == FX_VAL_TUPLE;
    for (size_t u = 0; u < n->n_users; u++)
        if (!n->users[u]->target || strcmp(n->users[u]->target, "operator.getitem")) return false;
    return n->n_users > 0;
}

/* Translates every call_function node of g into the current scope. */
static bool translate_graph(tx *t, const fx_graph *g)
{
    for (const fx_node *n = g->first; n && !t->failed; n = n->next) {
        switch (n->op) {
        case FX_OP_CALL_FUNCTION: {
            /* subgraphs (cond branches, loop bodies) are translated inside their node's call */
            const fx_node *outer = t->cur;
            translate_provenance outer_pv = t->cur_pv;
            bool outer_ready = t->cur_pv_ready;
            Onnx__NodeProto *outer_main = t->cur_main;
            t->cur = n;
            t->cur_pv_ready = false;
            t->cur_main = NULL;
            bool ok = translate_call(t, n);
            /* The exporter names a multi-output op's values <n>__<i> and its node after the last
             * of them (node_cond__0, node_scan__1) before getitem renames the values. */
            const tx_val *tv = ok ? lookup_val(t, n) : NULL;
            if (ok && t->cur_main && is_multi_output(n) && !(tv && tv->seq) && t->cur_main->n_output)
                t->cur_main->name = ox_strdup(t->m, arena_printf(&t->a, "node_%s__%zu", n->name, t->cur_main->n_output - 1));
            t->cur = outer;
            t->cur_pv = outer_pv;
            t->cur_pv_ready = outer_ready;
            t->cur_main = outer_main;
            if (!ok) return false;
            break;
        }
        case FX_OP_CALL_METHOD: case FX_OP_CALL_MODULE:
            fail_node(t, n, "call_method/call_module must be exported to ATen first (run `export`)");
            return false;
        default: break;   /* placeholders: bound by the caller; get_attr: subgraphs; output: caller */
        }
    }
    return !t->failed;
}

/* ---- program ---- */

/* Graph outputs carry their type: drop their duplicate value_info entries, in subgraphs too
 * (the exporter lists only a graph's intermediate values there). */
static void drop_output_value_info(Onnx__GraphProto *g)
{
    hashmap outset;
    hm_init(&outset);
    for (size_t j = 0; j < g->n_output; j++) hm_put(&outset, g->output[j]->name, (void *)1);
    size_t w = 0;
    for (size_t i = 0; i < g->n_value_info; i++)
        if (!hm_has(&outset, g->value_info[i]->name)) g->value_info[w++] = g->value_info[i];
    g->n_value_info = w;
    hm_free(&outset);
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t a = 0; a < g->node[i]->n_attribute; a++) {
            Onnx__AttributeProto *at = g->node[i]->attribute[a];
            if (at->g) drop_output_value_info(at->g);
            for (size_t k = 0; k < at->n_graphs; k++) drop_output_value_info(at->graphs[k]);
        }
}

void translate_options_init(translate_options *o)
{
    memset(o, 0, sizeof *o);
    o->opset = 20;
    o->value_info = true;
    o->export_params = true;
}

ox_model *translate_program(const fx_program *p, const translate_options *opts, diag_sink *d)
{
    translate_options def;
    if (!opts) { translate_options_init(&def); opts = &def; }
    ops_registry own;
    const ops_registry *reg = opts->registry;
    if (!reg) {
        ops_registry_init(&own);
        if (!ops_load_default(&own, d)) { ops_registry_free(&own); return NULL; }
        reg = &own;
    }
    const fx_graph *g = fx_program_graph(p);
    if (opts->opset > 0 && opts->opset < 18) {
        diagnostic *dg = diag_error(d, (diag_loc){p->file, 0, 0}, "opset %d is below 18, the lowest opset of the op tables",
                                    opts->opset);
        diag_set_hint(dg, "torch.onnx's dynamo exporter starts at opset 18 too");
        if (!opts->registry) ops_registry_free(&own);
        return NULL;
    }
    if (!g) {
        diag_error(d, (diag_loc){p->file, 0, 0}, "the program has no graph to translate");
        if (!opts->registry) ops_registry_free(&own);
        return NULL;
    }
    ox_model *m = ox_model_new(10);
    ox_model_set_opset(m, "", opts->opset > 0 ? opts->opset : 20);
    m->proto->producer_name = ox_strdup(m, opts->producer_name ? opts->producer_name : "fxsh");
    m->proto->producer_version = ox_strdup(m, PACKAGE_VERSION);
    m->proto->graph->name = ox_strdup(m, "main_graph");
    translate_graph_metadata(m, p);
    tx t = {.m = m, .p = p, .reg = reg, .opset = opts->opset > 0 ? opts->opset : 20, .d = d,
            .value_info = opts->value_info};
    arena_init(&t.a);
    hm_init(&t.used);
    hm_init(&t.suffix);
    scope root = {.g = m->proto->graph, .fxg = g};
    hm_init(&root.vals);
    hm_init(&root.consts);
    t.sc = &root;
    hashmap inputs;          /* graph inputs and initializers: outputs naming them need an Identity */
    hm_init(&inputs);

    /* the signature's inputs are O(n) to scan per placeholder; index them first */
    hashmap specs;
    hm_init(&specs);
    for (size_t i = 0; i < p->sig.n_inputs; i++) hm_put(&specs, p->sig.inputs[i].name, &p->sig.inputs[i]);

    /* user inputs first, then parameters/buffers/constants, as torch orders graph inputs */
    for (int pass = 0; pass < 2; pass++)
    for (const fx_node *n = g ? g->first : NULL; n && !t.failed; n = n->next) {
        if (n->op != FX_OP_PLACEHOLDER) continue;
        const fx_input_spec *sp = hm_get(&specs, n->name);
        bool user = !sp || sp->kind == FX_IN_USER_INPUT;
        if (user != (pass == 0)) continue;
        if (!user && n->n_users == 0) continue;   /* torch drops unused weights (num_batches_tracked) */
        const char *name = user || !sp->target ? n->name : sp->target;
        const char *vn = unique_name(&t, name);
        const fx_weight *w = !user && sp->target ? fx_program_weight(p, sp->target) : NULL;
        Onnx__TypeProto *ty = type_of_value(&t, node_val(n));
        Onnx__ValueInfoProto *vi = NULL;
        if (w && w->data && opts->export_params) {
            int et = fx_dtype_get(w->dtype)->onnx_type;
            Onnx__TensorProto *tp = ox_tensor_new(m, vn, et, w->shape, w->rank);
            ox_tensor_set_raw(m, tp, w->data, w->nbytes);
            ox_graph_add_initializer(m, m->proto->graph, tp);
            if (opts->keep_initializers_as_inputs)
                vi = ox_graph_add_input(m, m->proto->graph, vn, ty ? ty : ox_type_tensor(m, 0, NULL, 0, false));
            else if (ty && t.value_info)
                vi = ox_graph_add_value_info(m, m->proto->graph, vn, ty);
        } else {
            if (sp && sp->kind == FX_IN_TOKEN) continue;
            vi = ox_graph_add_input(m, m->proto->graph, vn, ty ? ty : ox_type_tensor(m, 0, NULL, 0, false));
        }
        if (vi) translate_input_metadata(m, vi, sp, n->name);
        hm_put(&inputs, vn, (void *)1);
        set_val(&t, n, &vn, 1);
    }
    if (!t.failed) translate_graph(&t, g);
    /* outputs */
    const fx_node *outn = g ? g->last : NULL;
    while (outn && outn->op != FX_OP_OUTPUT) outn = outn->prev;
    if (!t.failed && outn && outn->args->u.seq.len) {
        const fx_arg *items = outn->args->u.seq.items[0];
        size_t k = items->kind == FX_ARG_TUPLE || items->kind == FX_ARG_LIST ? items->u.seq.len : 1;
        hashmap seen;
        hm_init(&seen);
        for (size_t i = 0; i < k && !t.failed; i++) {
            const fx_arg *it = items->kind == FX_ARG_TUPLE || items->kind == FX_ARG_LIST ? items->u.seq.items[i] : items;
            if (p->sig.present && i < p->sig.n_outputs && p->sig.outputs[i].kind != FX_OUT_USER_OUTPUT) continue;
            if (it->kind != FX_ARG_NODE) {
                fail_node(&t, outn, "only tensor outputs can be exported");
                break;
            }
            const char *v = single(&t, outn, it->u.node);
            if (!v) break;
            if (hm_has(&inputs, v) || hm_has(&seen, v))   /* an output must be produced by a node */
                v = emit1(&t, "Identity", v, unique_name(&t, arena_printf(&t.a, "%s_out", it->u.node->name)), NULL);
            hm_put(&seen, v, (void *)1);
            Onnx__TypeProto *ty = type_of_value(&t, node_val(it->u.node));
            translate_output_metadata(m, ox_graph_add_output(m, m->proto->graph, v, ty ? ty : ox_type_tensor(m, 0, NULL, 0, false)),
                                      FX_OUT_USER_OUTPUT);
        }
        hm_free(&seen);
        drop_output_value_info(m->proto->graph);
    }
    hm_free(&specs);
    hm_free(&inputs);
    hm_free(&root.vals);
    hm_free(&root.consts);
    hm_free(&t.used);
    hm_free(&t.suffix);
    arena_free(&t.a);
    if (!opts->registry) ops_registry_free(&own);
    if (t.failed) {
        ox_model_free(m);
        return NULL;
    }
    return m;
}
