/* pt2_load.c — decode torch/_export/serde ExportedProgram JSON (schema 8.x) and .pt2 weights
 * into the FX IR. */
#include "load/pt2_load.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/shape.h"
#include "base/vec.h"
#include "fx/fx_format.h"
#include "load/pt2_archive.h"

#define PT2_SCHEMA_MAJOR 8

typedef struct dec {
    fx_program *p;
    diag_sink *d;
    const char *file;
    const char *text;   /* the JSON source, for the offending line in diagnostics */
    size_t len;
    arena tmp;          /* JSON DOM */
    bool failed;
} dec;

static void derr(dec *c, const json_value *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void derr(dec *c, const json_value *at, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_loc loc = { c->file, at ? at->line : 0, at ? at->col : 0 };
    diagnostic *dg = diag_error(c->d, loc, "%s", msg);
    c->failed = true;
    if (!at || !c->text) return;
    /* Only on error: a linear scan to the line is fine. */
    size_t i = 0;
    for (int line = 1; line < at->line && i < c->len; i++)
        if (c->text[i] == '\n') line++;
    size_t e = i;
    while (e < c->len && c->text[e] != '\n' && c->text[e] != '\r') e++;
    if (e - i <= 400) diag_set_source(dg, c->text + i, e - i);
}

/* ---- enums -------------------------------------------------------------------------------- */

static fx_dtype scalar_type(int64_t st)
{
    switch (st) {
    case 1: return FX_DT_U8;
    case 2: return FX_DT_I8;
    case 3: return FX_DT_I16;
    case 4: return FX_DT_I32;
    case 5: return FX_DT_I64;
    case 6: return FX_DT_F16;
    case 7: return FX_DT_F32;
    case 8: return FX_DT_F64;
    case 9: return FX_DT_C32;
    case 10: return FX_DT_C64;
    case 11: return FX_DT_C128;
    case 12: return FX_DT_BOOL;
    case 13: return FX_DT_BF16;
    case 28: return FX_DT_U16;
    case 29: return FX_DT_F8E4M3FN;
    case 30: return FX_DT_F8E5M2;
    case 31: return FX_DT_F8E4M3FNUZ;
    case 32: return FX_DT_F8E5M2FNUZ;
    case 33: return FX_DT_F8E8M0FNU;
    case 34: return FX_DT_U32;
    case 35: return FX_DT_U64;
    default: return FX_DT_UNKNOWN;
    }
}

static const char *layout_name(int64_t l)
{
    static const char *const names[] = { NULL, "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
                                         "sparse_bsc", "_mkldnn", "strided" };
    return l >= 0 && l < 8 ? names[l] : NULL;
}

static const char *memfmt_name(int64_t m)
{
    static const char *const names[] = { NULL, "contiguous_format", "channels_last", "channels_last_3d",
                                         "preserve_format" };
    return m >= 0 && m < 5 ? names[m] : NULL;
}

/* ---- sympy srepr → str ----------------------------------------------------------------------- */

/* The schema stores symbolic sizes as sympy.srepr text; FX prints str(expr). Handles the forms
 * export writes for sizes: Symbol, Integer, Add, Mul, Pow, and a few named functions. */
typedef struct sexpr {
    const char *s;
    size_t pos, len;
    int depth;
} sexpr;

static void sx_ws(sexpr *x) { while (x->pos < x->len && x->s[x->pos] == ' ') x->pos++; }

static bool sx_term(sexpr *x, strbuf *out, bool *is_neg_const);
typedef VEC(char *) strvec;

/* Parses "Name(" args ")" where args are sub-expressions or keyword flags; returns in items. */
static bool sx_args(sexpr *x, strvec *items)
{
    while (1) {
        sx_ws(x);
        if (x->pos < x->len && x->s[x->pos] == ')') { x->pos++; return true; }
        /* keyword flags like integer=True are dropped */
        size_t save = x->pos;
        while (x->pos < x->len && (x->s[x->pos] == '_' || (x->s[x->pos] >= 'a' && x->s[x->pos] <= 'z'))) x->pos++;
        if (x->pos < x->len && x->s[x->pos] == '=' && x->pos > save) {
            while (x->pos < x->len && x->s[x->pos] != ',' && x->s[x->pos] != ')') x->pos++;
        } else {
            x->pos = save;
            strbuf sb;
            sb_init(&sb);
            bool neg;
            if (!sx_term(x, &sb, &neg)) { sb_free(&sb); return false; }
            vec_push(items, sb_detach(&sb));
        }
        sx_ws(x);
        if (x->pos < x->len && x->s[x->pos] == ',') { x->pos++; continue; }
        if (x->pos < x->len && x->s[x->pos] == ')') { x->pos++; return true; }
        return false;
    }
}

static bool sx_term(sexpr *x, strbuf *out, bool *is_neg_const)
{
    *is_neg_const = false;
    if (++x->depth > 64) return false;
    sx_ws(x);
    size_t st = x->pos;
    while (x->pos < x->len && ((x->s[x->pos] >= 'A' && x->s[x->pos] <= 'Z') || (x->s[x->pos] >= 'a' && x->s[x->pos] <= 'z') ||
                               x->s[x->pos] == '_' || (x->s[x->pos] >= '0' && x->s[x->pos] <= '9')))
        x->pos++;
    size_t nl = x->pos - st;
    const char *name = x->s + st;
    if (nl == 0 || x->pos >= x->len || x->s[x->pos] != '(') return false;
    x->pos++;
    sx_ws(x);
    if (nl == 6 && memcmp(name, "Symbol", 6) == 0) {
        if (x->pos >= x->len || x->s[x->pos] != '\'') return false;
        size_t a = ++x->pos;
        while (x->pos < x->len && x->s[x->pos] != '\'') x->pos++;
        if (x->pos >= x->len) return false;
        sb_putn(out, x->s + a, x->pos - a);
        x->pos++;
        sx_ws(x);
        if (x->pos < x->len && x->s[x->pos] == ',') x->pos++;
        strvec rest = {0};
        bool ok = sx_args(x, &rest);
        for (size_t i = 0; i < rest.len; i++) free(rest.items[i]);
        vec_free(&rest);
        x->depth--;
        return ok;
    }
    if (nl == 7 && memcmp(name, "Integer", 7) == 0) {
        size_t a = x->pos;
        if (x->pos < x->len && x->s[x->pos] == '-') x->pos++;
        while (x->pos < x->len && x->s[x->pos] >= '0' && x->s[x->pos] <= '9') x->pos++;
        if (x->pos == a) return false;
        *is_neg_const = x->s[a] == '-';
        sb_putn(out, x->s + a, x->pos - a);
        sx_ws(x);
        if (x->pos >= x->len || x->s[x->pos] != ')') return false;
        x->pos++;
        x->depth--;
        return true;
    }
    strvec items = {0};
    if (!sx_args(x, &items)) {
        for (size_t i = 0; i < items.len; i++) free(items.items[i]);
        vec_free(&items);
        return false;
    }
    bool ok = items.len > 0;
    if (ok && nl == 3 && memcmp(name, "Add", 3) == 0) {
        /* str() puts the constant term last: "8*u0 - 8". */
        size_t k = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (size_t i = 0; i < items.len; i++) {
                const char *t = items.items[i];
                bool is_const = (t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) && strspn(t + 1, "0123456789") == strlen(t + 1);
                if (is_const != (pass == 1)) continue;
                if (k++ == 0) sb_puts(out, t);
                else if (t[0] == '-') sb_printf(out, " - %s", t + 1);
                else sb_printf(out, " + %s", t);
            }
        }
    } else if (ok && nl == 3 && memcmp(name, "Mul", 3) == 0) {
        for (size_t i = 0; i < items.len; i++) {
            const char *t = items.items[i];
            if (i == 0 && strcmp(t, "-1") == 0 && items.len > 1) { sb_putc(out, '-'); continue; }
            if (i > 0 && !(i == 1 && strcmp(items.items[0], "-1") == 0)) sb_putc(out, '*');
            bool compound = strchr(t, ' ') != NULL;
            if (compound) sb_putc(out, '(');
            sb_puts(out, t);
            if (compound) sb_putc(out, ')');
        }
    } else if (ok && nl == 3 && memcmp(name, "Pow", 3) == 0 && items.len == 2) {
        sb_printf(out, "%s**%s", items.items[0], items.items[1]);
    } else if (ok) {
        sb_putn(out, name, nl);
        sb_putc(out, '(');
        for (size_t i = 0; i < items.len; i++) sb_printf(out, "%s%s", i ? ", " : "", items.items[i]);
        sb_putc(out, ')');
    }
    for (size_t i = 0; i < items.len; i++) free(items.items[i]);
    vec_free(&items);
    x->depth--;
    return ok;
}

/* Returns the str() form of a srepr expression (arena), or the input unchanged if unparsable. */
static const char *srepr_to_str(dec *c, const char *s)
{
    sexpr x = { s, 0, strlen(s), 0 };
    strbuf sb;
    sb_init(&sb);
    bool neg;
    bool ok = sx_term(&x, &sb, &neg);
    sx_ws(&x);
    const char *r = ok && x.pos == x.len ? fx_strdup(c->p, sb.s) : fx_strdup(c->p, s);
    sb_free(&sb);
    return r;
}

/* ---- values --------------------------------------------------------------------------------- */

/* SymInt = {as_int} | {as_expr: {expr_str, hint}}; returns text. */
static const char *symint_text(dec *c, const json_value *v)
{
    int64_t i;
    if (json_int(json_get(v, "as_int"), &i)) return arena_printf(&c->p->arena, "%lld", (long long)i);
    const char *e = json_str(json_get(json_get(v, "as_expr"), "expr_str"));
    if (e) return srepr_to_str(c, e);
    const char *nm = json_str(json_get(v, "as_name"));
    if (nm) return fx_strdup(c->p, nm);
    derr(c, v, "expected a SymInt ({\"as_int\": ...} or {\"as_expr\": ...})");
    return "?";
}

static fx_value *tensor_meta(dec *c, const json_value *tm)
{
    if (!tm || tm->kind != JSON_OBJECT) {
        derr(c, tm, "expected a TensorMeta object");
        return NULL;
    }
    fx_value *v = fx_value_new(c->p, FX_VAL_TENSOR);
    int64_t st = 0;
    if (!json_int(json_get(tm, "dtype"), &st)) derr(c, tm, "TensorMeta without an integer 'dtype'");
    v->dtype = scalar_type(st);
    const json_value *sizes = json_get(tm, "sizes"), *strides = json_get(tm, "strides");
    v->rank = json_len(sizes);
    v->sizes = fx_alloc(c->p, (v->rank + 1) * sizeof *v->sizes);
    for (size_t i = 0; i < v->rank; i++) v->sizes[i] = symint_text(c, json_at(sizes, i));
    if (strides && json_len(strides) == v->rank) {
        v->strides = fx_alloc(c->p, (v->rank + 1) * sizeof *v->strides);
        for (size_t i = 0; i < v->rank; i++) v->strides[i] = symint_text(c, json_at(strides, i));
    }
    int64_t off;   /* a view input's place in its storage (as_strided reads relative to it) */
    if (json_int(json_get(json_get(tm, "storage_offset"), "as_int"), &off) && off > 0) v->storage_offset = off;
    const json_value *dev = json_get(tm, "device");
    const char *type = json_str(json_get(dev, "type"));
    int64_t idx;
    if (type && json_int(json_get(dev, "index"), &idx)) v->device = arena_printf(&c->p->arena, "%s:%lld", type, (long long)idx);
    else if (type) v->device = fx_strdup(c->p, type);
    return v;
}

/* ---- graph decoding ---------------------------------------------------------------------------- */

typedef struct gctx {
    dec *c;
    fx_module *mod;
    fx_graph *g;
    const json_value *tensor_values, *sym_int_values, *sym_bool_values, *sym_float_values;
    bool hop;               /* decoding the inputs of a higher-order op */
    bool hop_lists;         /* ... whose current operand is a Python list (scan's init / xs) */
    const char *target;     /* target of the node whose inputs are being decoded */
} gctx;

static fx_node *ref(gctx *x, const json_value *at, const char *name)
{
    fx_node *n = name ? fx_graph_lookup(x->g, name) : NULL;
    if (!n) {
        /* Point at the name itself when the reference is a {"name": ...} object. */
        const json_value *nv = json_get(at, "name") ? json_get(at, "name") : json_get(at, "as_name");
        derr(x->c, nv ? nv : at, "reference to unknown value '%s'", name ? name : "?");
    }
    return n;
}

/* A serialized float: a JSON number, or the strings torch's serde writes for the values JSON
 * cannot hold ("Infinity", "-Infinity", "NaN"). */
static bool serde_float(const json_value *v, double *f)
{
    if (json_num(v, f))
        return true;
    const char *s = json_str(v);
    if (!s)
        return false;
    if (!strcmp(s, "Infinity")) *f = INFINITY;
    else if (!strcmp(s, "-Infinity")) *f = -INFINITY;
    else if (!strcmp(s, "NaN")) *f = NAN;
    else return false;
    return true;
}

static fx_arg *symlike(gctx *x, const json_value *v, const char *const_key)
{
    const char *nm = json_str(json_get(v, "as_name"));
    if (nm) {
        fx_node *n = ref(x, v, nm);
        return n ? fx_arg_node(x->c->p, n) : fx_arg_none(x->c->p);
    }
    const json_value *k = json_get(v, const_key);
    int64_t i;
    double f;
    if (strcmp(const_key, "as_bool") == 0 && k && k->kind == JSON_BOOL) return fx_arg_bool(x->c->p, k->u.boolean);
    if (strcmp(const_key, "as_int") == 0 && json_int(k, &i)) return fx_arg_int(x->c->p, i);
    if (strcmp(const_key, "as_float") == 0 && serde_float(k, &f)) return fx_arg_float(x->c->p, f);
    derr(x->c, v, "unsupported symbolic value encoding");
    return fx_arg_none(x->c->p);
}

static void decode_graph(dec *c, fx_module *mod, const json_value *jg, bool list_output);

static fx_arg *decode_arg(gctx *x, const json_value *a);

/* Element e of a list argument of kind k ("as_ints", "as_int_lists", "as_nested_tensors", ...). */
static fx_arg *decode_list_item(gctx *x, const char *k, const json_value *e)
{
    fx_program *p = x->c->p;
    int64_t i;
    double f;
    if (!strcmp(k, "as_tensors")) {
        fx_node *nd = ref(x, e, json_str(json_get(e, "name")));
        return nd ? fx_arg_node(p, nd) : fx_arg_none(p);
    }
    if (!strcmp(k, "as_ints") && json_int(e, &i)) return fx_arg_int(p, i);
    if (!strcmp(k, "as_floats") && serde_float(e, &f)) return fx_arg_float(p, f);
    if (!strcmp(k, "as_bools") && e->kind == JSON_BOOL) return fx_arg_bool(p, e->u.boolean);
    if (!strcmp(k, "as_strings") && json_str(e)) return fx_arg_str(p, FX_ARG_STR, json_str(e));
    if (!strcmp(k, "as_sym_ints")) return symlike(x, e, "as_int");
    if (!strcmp(k, "as_sym_bools")) return symlike(x, e, "as_bool");
    if (!strcmp(k, "as_sym_floats")) return symlike(x, e, "as_float");
    if (!strcmp(k, "as_optional_tensors")) return json_get(e, "as_none") ? fx_arg_none(p) : decode_arg(x, e);
    /* list[list[int]], list[list[float]], list[list[TensorArgument]]: each inner list is a list
     * of the flat kind's elements */
    const char *inner_kind = !strcmp(k, "as_int_lists") ? "as_ints" : !strcmp(k, "as_float_lists") ? "as_floats"
                           : !strcmp(k, "as_nested_tensors") ? "as_tensors" : NULL;
    if (inner_kind && e->kind == JSON_ARRAY) {
        size_t m = json_len(e);
        fx_arg **inner = m ? xmalloc(m * sizeof *inner) : NULL;
        for (size_t q = 0; q < m; q++) inner[q] = decode_list_item(x, inner_kind, json_at(e, q));
        fx_arg *r = fx_arg_seq(p, FX_ARG_LIST, inner, NULL, m);
        free(inner);
        return r;
    }
    derr(x->c, e, "bad element in '%s'", k);
    return fx_arg_none(p);
}

static fx_arg *decode_arg(gctx *x, const json_value *a)
{
    fx_program *p = x->c->p;
    if (!a || a->kind != JSON_OBJECT || a->u.obj.len != 1) {
        derr(x->c, a, "expected an Argument union (an object with exactly one key)");
        return fx_arg_none(p);
    }
    const char *k = a->u.obj.members[0].key;
    const json_value *v = a->u.obj.members[0].value;
    int64_t i;
    double f;
    if (!strcmp(k, "as_none")) return fx_arg_none(p);
    if (!strcmp(k, "as_tensor")) {
        fx_node *n = ref(x, v, json_str(json_get(v, "name")));
        return n ? fx_arg_node(p, n) : fx_arg_none(p);
    }
    if (!strcmp(k, "as_int") && json_int(v, &i)) return fx_arg_int(p, i);
    if (!strcmp(k, "as_float") && serde_float(v, &f)) return fx_arg_float(p, f);
    if (!strcmp(k, "as_bool") && v->kind == JSON_BOOL) return fx_arg_bool(p, v->u.boolean);
    if (!strcmp(k, "as_string") && json_str(v)) return fx_arg_str(p, FX_ARG_STR, json_str(v));
    if (!strcmp(k, "as_scalar_type") && json_int(v, &i)) return fx_arg_dtype(p, scalar_type(i));
    if (!strcmp(k, "as_layout") && json_int(v, &i) && layout_name(i)) return fx_arg_str(p, FX_ARG_LAYOUT, layout_name(i));
    if (!strcmp(k, "as_memory_format") && json_int(v, &i) && memfmt_name(i)) return fx_arg_str(p, FX_ARG_MEMFMT, memfmt_name(i));
    if (!strcmp(k, "as_device")) {
        const char *type = json_str(json_get(v, "type"));
        if (!type) { derr(x->c, v, "device without a 'type'"); return fx_arg_none(p); }
        if (json_int(json_get(v, "index"), &i)) return fx_arg_str(p, FX_ARG_DEVICE, arena_printf(&p->arena, "%s:%lld", type, (long long)i));
        return fx_arg_str(p, FX_ARG_DEVICE, type);
    }
    if (!strcmp(k, "as_sym_int")) return symlike(x, v, "as_int");
    if (!strcmp(k, "as_sym_bool")) return symlike(x, v, "as_bool");
    if (!strcmp(k, "as_sym_float")) return symlike(x, v, "as_float");
    if (!strcmp(k, "as_optional_tensor")) {
        if (json_get(v, "as_none")) return fx_arg_none(p);
        const json_value *t = json_get(v, "as_tensor");
        fx_node *n = ref(x, t, json_str(json_get(t, "name")));
        return n ? fx_arg_node(p, n) : fx_arg_none(p);
    }
    if (!strcmp(k, "as_complex")) {
        double re = 0, im = 0;
        json_num(json_get(v, "real"), &re);
        json_num(json_get(v, "imag"), &im);
        char b1[40], b2[40];
        fx_float_repr(re, b1, sizeof b1);
        fx_float_repr(im < 0 ? -im : im, b2, sizeof b2);
        /* complex.__repr__ formats integral parts without ".0": (1.5-2j). */
        for (char *b = b1; b; b = b == b1 ? b2 : NULL) {
            size_t l = strlen(b);
            if (l > 2 && !strcmp(b + l - 2, ".0")) b[l - 2] = '\0';
        }
        /* Python complex repr: (1+2j), 2j when the real part is +0. */
        if (re == 0 && !signbit(re)) return fx_arg_str(p, FX_ARG_OPAQUE, arena_printf(&p->arena, "%s%sj", im < 0 ? "-" : "", b2));
        return fx_arg_str(p, FX_ARG_OPAQUE, arena_printf(&p->arena, "(%s%s%sj)", b1, im < 0 ? "-" : "+", b2));
    }
    if (!strcmp(k, "as_operator") && json_str(v)) return fx_arg_str(p, FX_ARG_OPAQUE, json_str(v));
    if (!strcmp(k, "as_custom_obj")) {
        fx_node *n = ref(x, v, json_str(json_get(v, "name")));
        return n ? fx_arg_node(p, n) : fx_arg_none(p);
    }
    static const char *const list_kinds[] = { "as_tensors", "as_ints", "as_floats", "as_bools", "as_strings",
                                              "as_sym_ints", "as_sym_bools", "as_sym_floats", "as_optional_tensors",
                                              "as_int_lists", "as_float_lists", "as_nested_tensors", NULL };
    bool is_list = false;
    for (size_t j = 0; list_kinds[j] && !is_list; j++) is_list = !strcmp(k, list_kinds[j]);
    if (v && v->kind == JSON_ARRAY && is_list) {
        size_t n = json_len(v);
        fx_arg **items = n ? xmalloc(n * sizeof *items) : NULL;
        for (size_t j = 0; j < n; j++) items[j] = decode_list_item(x, k, json_at(v, j));
        /* Operand lists of higher-order ops are tuples in the traced graph. */
        fx_arg *r = fx_arg_seq(p, x->hop && !x->hop_lists && !strcmp(k, "as_tensors") ? FX_ARG_TUPLE : FX_ARG_LIST, items, NULL, n);
        free(items);
        return r;
    }
    if (!strcmp(k, "as_graph")) {
        const char *name = json_str(json_get(v, "name"));
        if (!name) { derr(x->c, v, "as_graph without a name"); return fx_arg_none(p); }
        fx_module *sub = fx_module_add_child(x->mod, name, "GraphModule", NULL);
        /* scan's combine_fn returns a list; other HOP subgraphs return tuples. */
        decode_graph(x->c, sub, json_get(v, "graph"), x->target && !strcmp(x->target, "torch.ops.higher_order.scan"));
        fx_node *ga = fx_node_new(x->g, name, FX_OP_GET_ATTR, name);
        fx_graph_append(x->g, ga);
        return fx_arg_node(p, ga);
    }
    if (!strcmp(k, "as_string_to_argument") && v->kind == JSON_OBJECT) {
        size_t n = v->u.obj.len;
        fx_arg **items = n ? xmalloc(n * sizeof *items) : NULL;
        const char **keys = n ? xmalloc(n * sizeof *keys) : NULL;
        for (size_t j = 0; j < n; j++) {
            keys[j] = v->u.obj.members[j].key;
            items[j] = decode_arg(x, v->u.obj.members[j].value);
        }
        fx_arg *r = fx_arg_seq(p, FX_ARG_DICT, items, keys, n);
        free(items);
        free(keys);
        return r;
    }
    derr(x->c, a, "unsupported argument kind '%s'", k);
    return fx_arg_none(p);
}

static fx_value *value_of(gctx *x, const char *name)
{
    const json_value *tm = json_get(x->tensor_values, name);
    if (tm) return tensor_meta(x->c, tm);
    const json_value *s = json_get(x->sym_int_values, name);
    if (!s) s = json_get(x->sym_bool_values, name);
    if (!s) s = json_get(x->sym_float_values, name);
    if (s) {
        fx_value *v = fx_value_new(x->c->p, FX_VAL_SYM);
        int64_t i;
        double f;
        const json_value *e = json_get(json_get(s, "as_expr"), "expr_str");
        if (json_str(e)) v->text = srepr_to_str(x->c, json_str(e));
        else if (json_int(json_get(s, "as_int"), &i)) v->text = arena_printf(&x->c->p->arena, "%lld", (long long)i);
        else if (json_get(s, "as_bool") && json_get(s, "as_bool")->kind == JSON_BOOL)
            v->text = json_get(s, "as_bool")->u.boolean ? "True" : "False";
        else if (json_num(json_get(s, "as_float"), &f)) {
            char b[40];
            v->text = fx_strdup(x->c->p, fx_float_repr(f, b, sizeof b));
        }
        return v;
    }
    return NULL;
}

/* torch.fx.graph._parse_stack_trace: the innermost "File ..., line N, in f" frame and its code. */
static const char *trace_summary(fx_program *p, const char *st)
{
    if (!st) return NULL;
    /* Split into lines, ignoring surrounding whitespace of the whole text (str.strip()). */
    size_t n = strlen(st);
    while (n > 0 && (st[n - 1] == ' ' || st[n - 1] == '\n' || st[n - 1] == '\t' || st[n - 1] == '\r')) n--;
    size_t b = 0;
    while (b < n && (st[b] == ' ' || st[b] == '\n' || st[b] == '\t' || st[b] == '\r')) b++;
    VEC(size_t) starts = {0};
    for (size_t i = b; i < n;) {
        vec_push(&starts, i);
        while (i < n && st[i] != '\n') i++;
        i++;
    }
    const char *r = NULL;
    for (size_t li = starts.len >= 2 ? starts.len - 1 : 0; li-- > 0;) {
        size_t s = starts.items[li], e = li + 1 < starts.len ? starts.items[li + 1] - 1 : n;
        while (s < e && (st[s] == ' ' || st[s] == '\t')) s++;
        while (e > s && (st[e - 1] == ' ' || st[e - 1] == '\t' || st[e - 1] == '\r')) e--;
        /* ^File "(.+)", line (\d+), in (.+)$ */
        if (e - s < 6 || memcmp(st + s, "File \"", 6) != 0) continue;
        const char *line = st + s, *end = st + e;
        const char *q = NULL;
        for (const char *t = end - 1; t > line + 6; t--)
            if (t[0] == '"' && end - t > 8 && memcmp(t, "\", line ", 8) == 0) {
                const char *dg = t + 8, *dge = dg;
                while (dge < end && *dge >= '0' && *dge <= '9') dge++;
                if (dge > dg && end - dge > 5 && memcmp(dge, ", in ", 5) == 0) { q = t; break; }
            }
        if (!q) continue;
        const char *dg = q + 8, *dge = dg;
        while (*dge >= '0' && *dge <= '9') dge++;
        const char *fn = dge + 5;
        size_t cs = starts.items[li + 1], ce = li + 2 < starts.len ? starts.items[li + 2] - 1 : n;
        while (cs < ce && (st[cs] == ' ' || st[cs] == '\t')) cs++;
        while (ce > cs && (st[ce - 1] == ' ' || st[ce - 1] == '\t' || st[ce - 1] == '\r')) ce--;
        r = arena_printf(&p->arena, "%.*s:%.*s in %.*s, code: %.*s", (int)(q - line - 6), line + 6,
                         (int)(dge - dg), dg, (int)(end - fn), fn, (int)(ce - cs), st + cs);
        break;
    }
    vec_free(&starts);
    return r;
}

static void node_meta(gctx *x, fx_node *n, const json_value *md, const char **prev_trace, int *group)
{
    fx_program *p = x->c->p;
    const char *st = json_str(json_get(md, "stack_trace"));
    n->meta.stack_trace = st ? fx_strdup(p, st) : NULL;
    n->meta.source = trace_summary(p, st);
    if (st && (!*prev_trace || strcmp(st, *prev_trace) != 0)) (*group)++;
    if (st) *prev_trace = st;
    n->meta.trace_group = *group;
    const char *s;
    if ((s = json_str(json_get(md, "nn_module_stack")))) n->meta.nn_module_stack = fx_strdup(p, s);
    if ((s = json_str(json_get(md, "source_fn_stack")))) n->meta.source_fn_stack = fx_strdup(p, s);
    if ((s = json_str(json_get(md, "torch_fn")))) n->meta.torch_fn = fx_strdup(p, s);
}

/* Name of an output Argument: as_tensor.name, as_sym_int.as_name, ... NULL for constants. */
static const char *out_name(const json_value *o)
{
    const char *s = json_str(json_get(json_get(o, "as_tensor"), "name"));
    if (!s) s = json_str(json_get(json_get(o, "as_sym_int"), "as_name"));
    if (!s) s = json_str(json_get(json_get(o, "as_sym_bool"), "as_name"));
    if (!s) s = json_str(json_get(json_get(o, "as_sym_float"), "as_name"));
    if (!s) s = json_str(json_get(json_get(o, "as_custom_obj"), "name"));
    return s;
}

static const char *fx_target(dec *c, const char *t)
{
    /* The serializer writes Python builtins by module: "_operator.add" prints as "operator.add". */
    if (strncmp(t, "_operator.", 10) == 0) return arena_printf(&c->p->arena, "operator.%s", t + 10);
    return fx_strdup(c->p, t);
}

static void decode_graph(dec *c, fx_module *mod, const json_value *jg, bool list_output)
{
    if (!jg || jg->kind != JSON_OBJECT) {
        derr(c, jg, "expected a Graph object");
        return;
    }
    gctx x = { c, mod, fx_module_ensure_graph(mod), json_get(jg, "tensor_values"), json_get(jg, "sym_int_values"),
               json_get(jg, "sym_bool_values"), json_get(jg, "sym_float_values"), false, false, NULL };
    fx_program *p = c->p;
    const json_value *inputs = json_get(jg, "inputs"), *nodes = json_get(jg, "nodes"), *outputs = json_get(jg, "outputs");
    if (!inputs || inputs->kind != JSON_ARRAY || !nodes || nodes->kind != JSON_ARRAY || !outputs || outputs->kind != JSON_ARRAY) {
        derr(c, jg, "Graph needs 'inputs', 'nodes' and 'outputs' arrays");
        return;
    }
    for (size_t i = 0; i < json_len(inputs); i++) {
        const json_value *in = json_at(inputs, i);
        const char *name = out_name(in);
        if (!name) {
            /* Constant inputs (as_none / as_int ...) become placeholders named arg<i> in FX. */
            name = arena_printf(&p->arena, "arg%zu", i);
        }
        fx_node *n = fx_node_new(x.g, name, FX_OP_PLACEHOLDER, name);
        if (strcmp(n->name, name) != 0) derr(c, in, "graph input '%s' is defined twice", name);
        fx_graph_append(x.g, n);
        n->meta.val = value_of(&x, name);
    }
    const char *prev_trace = NULL;
    int group = 0;
    for (size_t ni = 0; ni < json_len(nodes) && !c->failed; ni++) {
        const json_value *jn = json_at(nodes, ni);
        const char *target = json_str(json_get(jn, "target"));
        const json_value *jin = json_get(jn, "inputs"), *jout = json_get(jn, "outputs");
        if (!target || (jin && jin->kind != JSON_ARRAY) || !jout || jout->kind != JSON_ARRAY) {
            derr(c, jn, "node needs a 'target' string and 'inputs'/'outputs' arrays");
            return;
        }
        x.hop = strncmp(target, "torch.ops.higher_order.", 23) == 0;
        x.target = target;
        fx_node *before = x.g->last;
        VEC(fx_arg *) args = {0};
        VEC(fx_arg *) kwv = {0};
        VEC(const char *) kwk = {0};
        for (size_t i = 0; i < json_len(jin); i++) {
            const json_value *na = json_at(jin, i);
            int64_t kind = 1;
            json_int(json_get(na, "kind"), &kind);
            /* scan(combine_fn, init: list, xs: list, additional_inputs: tuple); other HOPs take tuples. */
            x.hop_lists = x.hop && !strcmp(target, "torch.ops.higher_order.scan") && (args.len == 1 || args.len == 2);
            fx_arg *a = decode_arg(&x, json_get(na, "arg"));
            const char *an = json_str(json_get(na, "name"));
            if (kind == 2 && an && *an) {
                vec_push(&kwv, a);
                vec_push(&kwk, fx_strdup(p, an));
            } else {
                vec_push(&args, a);
            }
        }
        /* Node name: explicit "name" (newer schemas), else the single output's name. */
        const char *name = json_str(json_get(jn, "name"));
        size_t nout = json_len(jout);
        const json_value *o0 = json_at(jout, 0);
        bool single_hop = json_get(jn, "is_hop_single_tensor_return") &&
                          json_get(jn, "is_hop_single_tensor_return")->kind == JSON_BOOL &&
                          json_get(jn, "is_hop_single_tensor_return")->u.boolean;
        /* A node whose name differs from its single output's name returned a tuple whose
         * element 0 was taken by an (implicit) getitem, as HOPs like cond do. */
        bool multi = nout != 1 || json_get(o0, "as_tensors") != NULL ||
                     (name && out_name(o0) && strcmp(name, out_name(o0)) != 0 && !single_hop);
        if (!name && !multi) name = out_name(o0);
        if (!name) name = "node";
        fx_node *n = fx_node_new(x.g, name, FX_OP_CALL_FUNCTION, fx_target(c, target));
        fx_graph_append(x.g, n);
        fx_node_set_args(n, fx_arg_seq(p, FX_ARG_TUPLE, args.items, NULL, args.len),
                         fx_arg_seq(p, FX_ARG_DICT, kwv.items, kwk.items, kwv.len));
        vec_free(&args);
        vec_free(&kwv);
        vec_free(&kwk);
        node_meta(&x, n, json_get(jn, "metadata"), &prev_trace, &group);
        /* get_attr nodes of subgraph operands were traced with the HOP call: same source. */
        for (fx_node *ga = before ? before->next : x.g->first; ga && ga != n; ga = ga->next)
            if (ga->op == FX_OP_GET_ATTR) ga->meta = n->meta;
        if (!multi) {
            const char *on = out_name(o0);
            if (on && strcmp(on, n->name) != 0) derr(c, jn, "node '%s' output is named '%s'; names must match", n->name, on);
            n->meta.val = on ? value_of(&x, on) : NULL;
            continue;
        }
        /* Multi-output: the getitem nodes are implicit; recreate them after the producer. */
        const json_value *outs = nout == 1 && json_get(o0, "as_tensors") ? json_get(o0, "as_tensors") : jout;
        for (size_t i = 0; i < json_len(outs); i++) {
            const json_value *o = json_at(outs, i);
            const char *on = json_get(o, "name") ? json_str(json_get(o, "name")) : out_name(o);
            /* Slots nobody read are serialized as "<node>_unused_<i>". */
            size_t nl = strlen(n->name);
            if (!on || (!strncmp(on, n->name, nl) && !strncmp(on + nl, "_unused_", 8))) continue;
            if (single_hop) break;
            fx_node *gi = fx_node_new(x.g, on, FX_OP_CALL_FUNCTION, "operator.getitem");
            if (strcmp(gi->name, on) != 0) derr(c, o, "output name '%s' is defined twice", on);
            fx_graph_append(x.g, gi);
            fx_arg *ga[2] = { fx_arg_node(p, n), fx_arg_int(p, (int64_t)i) };
            fx_node_set_args(gi, fx_arg_seq(p, FX_ARG_TUPLE, ga, NULL, 2), fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
            gi->meta = n->meta;
            gi->meta.val = value_of(&x, on);
        }
    }
    if (c->failed) return;
    size_t no = json_len(outputs);
    fx_arg **items = no ? xmalloc(no * sizeof *items) : NULL;
    for (size_t i = 0; i < no; i++) items[i] = decode_arg(&x, json_at(outputs, i));
    fx_node *out = fx_node_new(x.g, "output", FX_OP_OUTPUT, "output");
    fx_graph_append(x.g, out);
    fx_arg *res = fx_arg_seq(p, list_output ? FX_ARG_LIST : FX_ARG_TUPLE, items, NULL, no);
    /* A graph returning one bare tensor (is_single_tensor_return) prints `return x`. */
    const json_value *single = json_get(jg, "is_single_tensor_return");
    if (single && single->kind == JSON_BOOL && single->u.boolean && no == 1) res = items[0];
    fx_node_set_args(out, fx_arg_seq(p, FX_ARG_TUPLE, &res, NULL, 1), fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0));
    free(items);
}

/* ---- signature, ranges ------------------------------------------------------------------------- */

static const char *arg_name_text(dec *c, const json_value *arg)
{
    /* Either a TensorArgument {name} or an Argument union. */
    const char *s = json_str(json_get(arg, "name"));
    if (s) return fx_strdup(c->p, s);
    s = out_name(arg);
    if (s) return fx_strdup(c->p, s);
    int64_t i;
    double f;
    if (json_get(arg, "as_none")) return "None";
    if (json_int(json_get(arg, "as_int"), &i)) return arena_printf(&c->p->arena, "%lld", (long long)i);
    if (json_num(json_get(arg, "as_float"), &f)) {
        char b[40];
        return fx_strdup(c->p, fx_float_repr(f, b, sizeof b));
    }
    if (json_get(arg, "as_bool") && json_get(arg, "as_bool")->kind == JSON_BOOL) return json_get(arg, "as_bool")->u.boolean ? "True" : "False";
    if (json_str(json_get(arg, "as_string"))) return arena_printf(&c->p->arena, "'%s'", json_str(json_get(arg, "as_string")));
    derr(c, arg, "unsupported signature argument");
    return "?";
}

static void decode_signature(dec *c, const json_value *sig)
{
    fx_program *p = c->p;
    const json_value *ins = json_get(sig, "input_specs"), *outs = json_get(sig, "output_specs");
    p->sig.present = true;
    p->sig.n_inputs = json_len(ins);
    p->sig.inputs = fx_alloc(p, (p->sig.n_inputs + 1) * sizeof *p->sig.inputs);
    static const struct { const char *key, *target; fx_input_kind kind; } ik[] = {
        { "user_input", NULL, FX_IN_USER_INPUT },          { "parameter", "parameter_name", FX_IN_PARAMETER },
        { "buffer", "buffer_name", FX_IN_BUFFER },          { "tensor_constant", "tensor_constant_name", FX_IN_CONSTANT_TENSOR },
        { "custom_obj", "custom_obj_name", FX_IN_CUSTOM_OBJ }, { "token", NULL, FX_IN_TOKEN },
        { "constant_input", NULL, FX_IN_USER_INPUT },
    };
    for (size_t i = 0; i < p->sig.n_inputs; i++) {
        const json_value *s = json_at(ins, i);
        fx_input_spec *is = &p->sig.inputs[i];
        const char *k = s && s->kind == JSON_OBJECT && s->u.obj.len == 1 ? s->u.obj.members[0].key : "";
        const json_value *v = s && s->kind == JSON_OBJECT && s->u.obj.len == 1 ? s->u.obj.members[0].value : NULL;
        size_t j;
        for (j = 0; j < sizeof ik / sizeof *ik; j++)
            if (!strcmp(k, ik[j].key)) break;
        if (j == sizeof ik / sizeof *ik) {
            derr(c, s, "unknown input spec kind '%s'", k);
            return;
        }
        is->kind = ik[j].kind;
        is->name = !strcmp(k, "constant_input") ? fx_strdup(p, json_str(json_get(v, "name")) ? json_str(json_get(v, "name")) : "?")
                                                : arg_name_text(c, json_get(v, "arg"));
        if (ik[j].target && json_str(json_get(v, ik[j].target))) is->target = fx_strdup(p, json_str(json_get(v, ik[j].target)));
        const json_value *pers = json_get(v, "persistent");
        is->persistent = pers && pers->kind == JSON_BOOL && pers->u.boolean;
    }
    static const struct { const char *key, *target; fx_output_kind kind; } ok[] = {
        { "user_output", NULL, FX_OUT_USER_OUTPUT },
        { "loss_output", NULL, FX_OUT_LOSS_OUTPUT },
        { "buffer_mutation", "buffer_name", FX_OUT_BUFFER_MUTATION },
        { "gradient_to_parameter", "parameter_name", FX_OUT_GRADIENT_TO_PARAMETER },
        { "gradient_to_user_input", "user_input_name", FX_OUT_GRADIENT_TO_USER_INPUT },
        { "user_input_mutation", "user_input_name", FX_OUT_USER_INPUT_MUTATION },
        { "token", NULL, FX_OUT_TOKEN },
        { "parameter_mutation", "parameter_name", FX_OUT_PARAMETER_MUTATION },
    };
    p->sig.n_outputs = json_len(outs);
    p->sig.outputs = fx_alloc(p, (p->sig.n_outputs + 1) * sizeof *p->sig.outputs);
    for (size_t i = 0; i < p->sig.n_outputs; i++) {
        const json_value *s = json_at(outs, i);
        fx_output_spec *os = &p->sig.outputs[i];
        const char *k = s && s->kind == JSON_OBJECT && s->u.obj.len == 1 ? s->u.obj.members[0].key : "";
        const json_value *v = s && s->kind == JSON_OBJECT && s->u.obj.len == 1 ? s->u.obj.members[0].value : NULL;
        size_t j;
        for (j = 0; j < sizeof ok / sizeof *ok; j++)
            if (!strcmp(k, ok[j].key)) break;
        if (j == sizeof ok / sizeof *ok) {
            derr(c, s, "unknown output spec kind '%s'", k);
            return;
        }
        os->kind = ok[j].kind;
        os->name = arg_name_text(c, json_get(v, "arg"));
        if (ok[j].target && json_str(json_get(v, ok[j].target))) os->target = fx_strdup(p, json_str(json_get(v, ok[j].target)));
    }
}

static const char *bound_text(dec *c, const json_value *b, bool upper)
{
    int64_t i;
    double f;
    if (json_int(b, &i)) return arena_printf(&c->p->arena, "%lld", (long long)i);
    if (b && b->kind == JSON_NUMBER && json_num(b, &f) && (f > 9.2e18 || f < -9.2e18)) return f > 0 ? "int_oo" : "-int_oo";
    if (!b || b->kind == JSON_NULL) return upper ? "int_oo" : "-int_oo";
    if (b->kind == JSON_NUMBER) return fx_strdup(c->p, b->u.num.text);
    derr(c, b, "range bound must be a number or null");
    return "?";
}

static void decode_ranges(dec *c, const json_value *rc)
{
    fx_program *p = c->p;
    size_t n = rc && rc->kind == JSON_OBJECT ? rc->u.obj.len : 0;
    p->n_ranges = n;
    p->ranges = fx_alloc(p, (n + 1) * sizeof *p->ranges);
    for (size_t i = 0; i < n; i++) {
        const json_member *m = &rc->u.obj.members[i];
        p->ranges[i].symbol = fx_strdup(p, m->key);
        p->ranges[i].min = bound_text(c, json_get(m->value, "min_val"), false);
        p->ranges[i].max = bound_text(c, json_get(m->value, "max_val"), true);
    }
}

/* ---- program -------------------------------------------------------------------------------------- */

static fx_program *decode_program(const char *text, size_t len, const char *name, diag_sink *d, dec *c)
{
    memset(c, 0, sizeof *c);
    c->d = d;
    c->file = name;
    c->text = text;
    c->len = len;
    arena_init(&c->tmp);
    json_options o = { .filename = name, .allow_nan_inf = true };
    json_value *root = json_parse(&c->tmp, text, len, &o, d);
    if (!root) return NULL;
    diag_loc loc = { name, root->line, root->col };
    if (root->kind != JSON_OBJECT || !json_get(root, "graph_module")) {
        diag_error(d, loc, "not a serialized ExportedProgram: expected a JSON object with a 'graph_module' key");
        return NULL;
    }
    const json_value *sv = json_get(root, "schema_version");
    int64_t major = -1, minor = -1;
    if (sv) {
        json_int(json_get(sv, "major"), &major);
        json_int(json_get(sv, "minor"), &minor);
        if (major != PT2_SCHEMA_MAJOR) {
            diag_loc l2 = { name, sv->line, sv->col };
            diagnostic *dg = diag_error(d, l2, "unsupported torch.export schema version %lld.%lld (fxsh reads major version %d)",
                                        (long long)major, (long long)minor, PT2_SCHEMA_MAJOR);
            diag_set_hint(dg, "re-save the program with a torch release that writes schema %d.x", PT2_SCHEMA_MAJOR);
            return NULL;
        }
    }
    c->p = fx_program_new(NULL);
    c->p->source_form = FX_FORM_EXPORT;
    c->p->file = name ? fx_strdup(c->p, name) : NULL;
    const json_value *gm = json_get(root, "graph_module");
    decode_graph(c, c->p->root, json_get(gm, "graph"), false);
    if (!c->failed) decode_signature(c, json_get(gm, "signature"));
    if (!c->failed) decode_ranges(c, json_get(root, "range_constraints"));
    if (!c->failed && !fx_program_check_shapes(c->p, d)) c->failed = true;
    if (c->failed) {
        fx_program_free(c->p);
        c->p = NULL;
        return NULL;
    }
    fx_program_refresh(c->p);
    return c->p;
}

/* Without an archive: the weights table lists the lifted state with metadata from the graph. */
static void weights_from_signature(fx_program *p)
{
    fx_graph *g = fx_program_graph(p);
    for (size_t i = 0; i < p->sig.n_inputs; i++) {
        const fx_input_spec *is = &p->sig.inputs[i];
        if (!is->target || (is->kind != FX_IN_PARAMETER && is->kind != FX_IN_BUFFER && is->kind != FX_IN_CONSTANT_TENSOR)) continue;
        if (fx_program_weight(p, is->target)) continue;
        fx_node *n = fx_graph_lookup(g, is->name);
        const fx_value *v = n ? n->meta.val : NULL;
        int64_t *shape = NULL;
        size_t rank = 0;
        fx_dtype dt = FX_DT_UNKNOWN;
        if (v && v->kind == FX_VAL_TENSOR) {
            dt = v->dtype;
            rank = v->rank;
            shape = fx_alloc(p, (rank + 1) * sizeof *shape);
            for (size_t k = 0; k < rank; k++) shape[k] = strtoll(v->sizes[k], NULL, 10);
        }
        fx_tensor_role role = is->kind == FX_IN_PARAMETER ? FX_TENSOR_PARAMETER : is->kind == FX_IN_BUFFER ? FX_TENSOR_BUFFER : FX_TENSOR_CONSTANT;
        fx_weight *w = fx_program_add_weight(p, is->target, role, dt, shape, rank, NULL, 0, false);
        w->persistent = is->persistent;
    }
}

fx_program *pt2_load_json(const char *text, size_t len, const char *name, diag_sink *d)
{
    dec c;
    fx_program *p = decode_program(text, len, name, d, &c);
    arena_free(&c.tmp);
    if (p) weights_from_signature(p);
    return p;
}

/* ---- weights from the archive ------------------------------------------------------------------ */

/* Where a weight's elements are in its storage: sizes, strides (contiguous when absent), the
 * element count and the storage offset, from its tensor_meta (already decoded into v). */
typedef struct weight_layout {
    size_t rank;
    int64_t *shape, *stride;   /* in the program's arena */
    int64_t numel, off;
    bool contiguous;
} weight_layout;

/* Fills wl; false after reporting (at l, naming fqn) a size, stride or offset that is not a
 * concrete non-negative integer, or an element count that overflows. */
static bool weight_layout_of(dec *c, diag_loc l, const char *fqn, const fx_value *v, const json_value *tm,
                             weight_layout *wl)
{
    size_t rank = v->rank;
    int64_t *shape = fx_alloc(c->p, (rank + 1) * sizeof *shape);
    int64_t numel = 1;
    bool contiguous = true;
    int64_t expect_stride = 1;
    int64_t *stride = fx_alloc(c->p, (rank + 1) * sizeof *stride);
    for (size_t k = rank; k-- > 0;) {
        if (shape_parse_dim(v->sizes[k], &shape[k]) != 1) {
            diag_error(c->d, l, "weight '%s': size '%s' is not a concrete non-negative integer", fqn, v->sizes[k]);
            return false;
        }
        stride[k] = expect_stride;
        if (v->strides && shape_parse_dim(v->strides[k], &stride[k]) != 1) {
            diag_error(c->d, l, "weight '%s': stride '%s' is not a concrete non-negative integer", fqn, v->strides[k]);
            return false;
        }
        if (shape[k] != 1 && stride[k] != expect_stride) contiguous = false;
        if (shape[k] != 0 && numel > INT64_MAX / shape[k]) {
            diag_error(c->d, l, "weight '%s': its element count overflows 64 bits", fqn);
            return false;
        }
        numel *= shape[k];
        expect_stride = numel;
    }
    int64_t off;
    if (shape_parse_dim(symint_text(c, json_get(tm, "storage_offset")), &off) != 1) {
        diag_error(c->d, l, "weight '%s': its storage offset is not a concrete non-negative integer", fqn);
        return false;
    }
    *wl = (weight_layout){ rank, shape, stride, numel, off, contiguous };
    return true;
}

/* The weight fqn whose bytes are archive member rel, laid out as wl: borrowed from the archive's
 * mapping when the member is stored and contiguous, else copied once (inflated, offset or
 * gathered from a strided view). NULL after reporting a member too small for its layout. */
static fx_weight *weight_from_member(dec *c, pt2_archive *ar, diag_loc l, const char *fqn, const char *rel,
                                     fx_tensor_role role, const fx_value *v, const weight_layout *wl)
{
    fx_program *p = c->p;
    const fx_dtype_info *di = fx_dtype_get(v->dtype);
    pt2_blob b;
    if (!pt2_archive_read(ar, rel, &b, c->d)) return NULL;
    /* Bytes the view touches: offset + sum((size-1)*stride) + 1 elements (checked: a
     * sum that overflows needs more than any file holds). */
    uint64_t span = wl->numel ? (uint64_t)wl->off + 1 : 0, need = 0;
    bool over = false;
    for (size_t k = 0; k < wl->rank && wl->numel && !over; k++) {
        uint64_t t;
        over = __builtin_mul_overflow((uint64_t)(wl->shape[k] - 1), (uint64_t)wl->stride[k], &t) ||
               __builtin_add_overflow(span, t, &span);
    }
    over = over || __builtin_mul_overflow(span, (uint64_t)di->elem_size, &need);
    if (over) need = UINT64_MAX;
    if (di->elem_size == 0 || b.size < need) {
        diag_error(c->d, l, "weight '%s': member '%s/%s' holds %zu bytes but its metadata (%s%s, storage offset %lld) needs %llu",
                   fqn, pt2_archive_root(ar), rel, b.size, di->abbr, "", (long long)wl->off, (unsigned long long)need);
        pt2_blob_free(&b);
        return NULL;
    }
    size_t nbytes = (size_t)wl->numel * di->elem_size;
    if (wl->contiguous) {
        /* Borrowed from the mapping when stored; owned copy from inflation otherwise. */
        if (b.owned && wl->off == 0) {
            return fx_program_add_weight(p, fqn, role, v->dtype, wl->shape, wl->rank, b.data, nbytes, true);
        } else if (b.owned) {
            void *cp = xmalloc(nbytes ? nbytes : 1);
            memcpy(cp, b.data + wl->off * di->elem_size, nbytes);
            pt2_blob_free(&b);
            return fx_program_add_weight(p, fqn, role, v->dtype, wl->shape, wl->rank, cp, nbytes, true);
        } else {
            fx_weight *w = fx_program_add_weight(p, fqn, role, v->dtype, wl->shape, wl->rank,
                                                 b.data + wl->off * di->elem_size, nbytes, false);
            fx_weight_set_map(w, pt2_archive_map(ar));   /* the weight holds the mapping */
            return w;
        }
    } else {
        /* A strided view of a shared storage: gather it into a contiguous copy. */
        unsigned char *cp = xmalloc(nbytes ? nbytes : 1);
        int64_t *idx = xcalloc(wl->rank + 1, sizeof *idx);
        for (int64_t e = 0; e < wl->numel; e++) {
            int64_t src = wl->off;
            for (size_t k = 0; k < wl->rank; k++) src += idx[k] * wl->stride[k];
            memcpy(cp + (size_t)e * di->elem_size, b.data + (size_t)src * di->elem_size, di->elem_size);
            for (size_t k = wl->rank; k-- > 0;) {
                if (++idx[k] < wl->shape[k]) break;
                idx[k] = 0;
            }
        }
        free(idx);
        pt2_blob_free(&b);
        return fx_program_add_weight(p, fqn, role, v->dtype, wl->shape, wl->rank, cp, nbytes, true);
    }
}

/* A weight's metadata in the weights config must be what the graph declares for its placeholder
 * (torch.export.load would hand the graph a tensor of the config's shape): dtype, rank and each
 * size. False after reporting both, at l. */
static bool weight_matches_graph(dec *c, diag_loc l, const char *fqn, const fx_input_spec *spec, const fx_value *w)
{
    fx_node *n = spec && spec->name ? fx_graph_lookup(fx_program_graph(c->p), spec->name) : NULL;
    const fx_value *g = n ? n->meta.val : NULL;
    if (!g || g->kind != FX_VAL_TENSOR) return true;   /* nothing declared to disagree with */
    bool same = g->dtype == w->dtype && g->rank == w->rank;
    for (size_t i = 0; same && i < g->rank; i++) same = !strcmp(g->sizes[i], w->sizes[i]);
    if (same) return true;
    strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    fx_value_annot(&a, w);
    fx_value_annot(&b, g);
    diag_error(c->d, l, "weight '%s': its metadata says %s but the graph declares its placeholder %%%s as %s", fqn,
               a.s, n->name, b.s);
    sb_free(&a);
    sb_free(&b);
    return false;
}

static bool load_payloads(dec *c, pt2_archive *ar, const char *config_rel, const char *dir_rel, bool constants)
{
    fx_program *p = c->p;
    pt2_blob cfg;
    if (!pt2_archive_read(ar, config_rel, &cfg, c->d)) return false;
    char *cfgname = arena_printf(&c->tmp, "%s:%s/%s", pt2_archive_path(ar), pt2_archive_root(ar), config_rel);
    json_options o = { .filename = cfgname };
    json_value *root = json_parse(&c->tmp, (const char *)cfg.data, cfg.size, &o, c->d);
    pt2_blob_free(&cfg);
    if (!root) return false;
    const json_value *conf = json_get(root, "config");
    if (!conf || conf->kind != JSON_OBJECT) {
        diag_loc l = { cfgname, root->line, root->col };
        diag_error(c->d, l, "expected {\"config\": {...}}");
        return false;
    }
    /* Role of each FQN from the signature (buffers vs parameters, persistence). */
    hashmap roles;
    hm_init(&roles);
    for (size_t i = 0; i < p->sig.n_inputs; i++)
        if (p->sig.inputs[i].target) hm_put(&roles, p->sig.inputs[i].target, &p->sig.inputs[i]);
    bool ok = true;
    for (size_t i = 0; i < conf->u.obj.len && ok; i++) {
        const char *fqn = conf->u.obj.members[i].key;
        const json_value *pm = conf->u.obj.members[i].value;
        diag_loc l = { cfgname, pm->line, pm->col };
        const char *path = json_str(json_get(pm, "path_name"));
        const json_value *tm = json_get(pm, "tensor_meta"), *up = json_get(pm, "use_pickle"), *isp = json_get(pm, "is_param");
        if (!path || !tm || strchr(path, '/') || strstr(path, "..")) {
            diag_error(c->d, l, "weight '%s': missing or invalid 'path_name'/'tensor_meta'", fqn);
            ok = false;
            break;
        }
        const fx_input_spec *spec = hm_get(&roles, fqn);
        fx_tensor_role role = constants ? FX_TENSOR_CONSTANT : isp && isp->kind == JSON_BOOL && isp->u.boolean ? FX_TENSOR_PARAMETER : FX_TENSOR_BUFFER;
        fx_value *v = tensor_meta(c, tm);
        if (!v) { ok = false; break; }
        weight_layout wl;
        if (!weight_layout_of(c, l, fqn, v, tm, &wl) || !weight_matches_graph(c, l, fqn, spec, v)) {
            ok = false;
            break;
        }
        fx_weight *w;
        if (up && up->kind == JSON_BOOL && up->u.boolean) {
            diag_warning(c->d, l, "weight '%s' is pickled (use_pickle); fxsh keeps its metadata only", fqn);
            w = fx_program_add_weight(p, fqn, role, v->dtype, wl.shape, wl.rank, NULL, 0, false);
        } else {
            w = weight_from_member(c, ar, l, fqn, arena_printf(&c->tmp, "%s%s", dir_rel, path), role, v, &wl);
            if (!w) {
                ok = false;
                break;
            }
        }
        if (spec) {
            w->persistent = spec->persistent;
            if (spec->kind == FX_IN_BUFFER) w->role = FX_TENSOR_BUFFER;
        }
    }
    hm_free(&roles);
    return ok;
}

static fx_program *load_archive(pt2_archive *ar, diag_sink *d)
{
    diag_loc loc = { pt2_archive_path(ar), 0, 0 };
    if (pt2_archive_n_models(ar) == 0) {
        diag_error(d, loc, "missing archive member '%s/models/<name>.json': the archive holds no exported program",
                   pt2_archive_root(ar));
        return NULL;
    }
    const char *model = pt2_archive_model(ar, 0);
    for (size_t i = 0; i < pt2_archive_n_models(ar); i++)
        if (!strcmp(pt2_archive_model(ar, i), "model")) model = "model";
    char rel[512];
    snprintf(rel, sizeof rel, "models/%s.json", model);
    pt2_blob js;
    if (!pt2_archive_read(ar, rel, &js, d)) return NULL;
    strbuf nm;
    sb_init(&nm);
    sb_printf(&nm, "%s:%s/%s", pt2_archive_path(ar), pt2_archive_root(ar), rel);
    dec c;
    fx_program *p = decode_program((const char *)js.data, js.size, nm.s, d, &c);
    pt2_blob_free(&js);
    if (p) {
        p->file = fx_strdup(p, pt2_archive_path(ar));
        const char *wcfg[2] = { "data/weights/%s_weights_config.json", "data/weights/%s_model_param_config.json" };
        bool ok = true;
        for (int k = 0; k < 2; k++) {
            snprintf(rel, sizeof rel, wcfg[k], model);
            if (pt2_archive_has(ar, rel)) {
                ok = load_payloads(&c, ar, rel, "data/weights/", false);
                break;
            }
        }
        snprintf(rel, sizeof rel, "data/constants/%s_constants_config.json", model);
        if (ok && pt2_archive_has(ar, rel)) ok = load_payloads(&c, ar, rel, "data/constants/", true);
        /* Every lifted parameter/buffer/constant must have data now. */
        for (size_t i = 0; ok && i < p->sig.n_inputs; i++) {
            const fx_input_spec *is = &p->sig.inputs[i];
            if (!is->target || (is->kind != FX_IN_PARAMETER && is->kind != FX_IN_BUFFER && is->kind != FX_IN_CONSTANT_TENSOR)) continue;
            if (!fx_program_weight(p, is->target)) {
                diag_error(d, loc, "%s '%s' (input '%s') has no entry in the archive's weights/constants config",
                           fx_input_kind_name(is->kind), is->target, is->name);
                ok = false;
            }
        }
        if (!ok) {
            fx_program_free(p);
            p = NULL;
        }
    }
    arena_free(&c.tmp);
    sb_free(&nm);
    return p;
}

fx_program *pt2_load_buffer(const unsigned char *buf, size_t len, const char *name, diag_sink *d)
{
    pt2_archive *ar = pt2_archive_open_buffer(buf, len, name, d);
    if (!ar) return NULL;
    fx_program *p = load_archive(ar, d);
    pt2_archive_close(ar);
    return p;
}

bool pt2_sniff(const unsigned char *buf, size_t len)
{
    if (len >= 4 && memcmp(buf, "PK\x03\x04", 4) == 0) return true;
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t')) i++;
    if (i >= len || buf[i] != '{') return false;
    size_t lim = len < 4096 ? len : 4096;
    for (size_t k = i; k + 14 <= lim; k++)
        if (memcmp(buf + k, "\"graph_module\"", 14) == 0) return true;
    return false;
}

fx_program *pt2_load_file(const char *path, diag_sink *d)
{
    diag_loc loc = { path, 0, 0 };
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_error(d, loc, "cannot open: %s", strerror(errno));
        return NULL;
    }
    unsigned char head[4];
    size_t got = fread(head, 1, 4, f);
    if (got == 4 && memcmp(head, "PK\x03\x04", 4) == 0) {
        fclose(f);
        pt2_archive *ar = pt2_archive_open(path, d);
        if (!ar) return NULL;
        fx_program *p = load_archive(ar, d);
        pt2_archive_close(ar);
        return p;
    }
    strbuf sb;
    sb_init(&sb);
    sb_putn(&sb, (const char *)head, got);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&sb, buf, n);
    bool err = ferror(f);
    fclose(f);
    if (err) {
        diag_error(d, loc, "read error");
        sb_free(&sb);
        return NULL;
    }
    if (!pt2_sniff((const unsigned char *)sb.s, sb.len)) {
        diag_error(d, loc, "neither a .pt2 archive nor a serialized ExportedProgram JSON");
        sb_free(&sb);
        return NULL;
    }
    fx_program *p = pt2_load_json(sb.s, sb.len, path, d);
    sb_free(&sb);
    return p;
}
