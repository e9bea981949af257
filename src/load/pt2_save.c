/* pt2_save.c — a program written as a torch.export archive: serde JSON, weights, the zip. */
#include "load/pt2_save.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "base/file.h"
#include "base/hashmap.h"
#include "base/json_write.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "tables/aten_schemas.h"

/* torch's ScalarType numbers (torch/_export/serde/schema.py), the loader's table backwards */
static int scalar_type(fx_dtype dt)
{
    switch (dt) {
    case FX_DT_U8: return 1;
    case FX_DT_I8: return 2;
    case FX_DT_I16: return 3;
    case FX_DT_I32: return 4;
    case FX_DT_I64: return 5;
    case FX_DT_F16: return 6;
    case FX_DT_F32: return 7;
    case FX_DT_F64: return 8;
    case FX_DT_C32: return 9;
    case FX_DT_C64: return 10;
    case FX_DT_C128: return 11;
    case FX_DT_BOOL: return 12;
    case FX_DT_BF16: return 13;
    case FX_DT_U16: return 28;
    case FX_DT_F8E4M3FN: return 29;
    case FX_DT_F8E5M2: return 30;
    case FX_DT_F8E4M3FNUZ: return 31;
    case FX_DT_F8E5M2FNUZ: return 32;
    case FX_DT_F8E8M0FNU: return 33;
    case FX_DT_U32: return 34;
    case FX_DT_U64: return 35;
    default: return 0;
    }
}

typedef struct wctx {
    const fx_program *p;
    diag_sink *d;
    bool failed;
    arena a;                     /* parsed schemas */
    hashmap specs;               /* the program's input specs by placeholder name */
} wctx;

static void fail(wctx *c, const fx_node *n, const char *fmt, const char *what)
{
    if (c->failed) return;
    c->failed = true;
    diag_error(c->d, (diag_loc){0}, "program.pt2: node %%%s: %s%s", n ? n->name : "?", fmt, what ? what : "");
}

static bool int_text(const char *s, int64_t *v)
{
    if (!s || !*s) return false;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (*end) return false;
    *v = x;
    return true;
}

/* sympy's srepr of a size as sympy prints it: an integer, a symbol (s77) or a product of them
 * (2*s77, s0*s1), the forms torch.export gives sizes and strides of dynamic dimensions; false for
 * anything else. */
static bool size_srepr(const char *text, strbuf *out)
{
    size_t n_factors = 1;
    for (const char *q = text; *q; q++) {
        if (*q == '*') n_factors++;
        else if (!isalnum((unsigned char)*q) && *q != '_') return false;
    }
    if (n_factors > 1) sb_puts(out, "Mul(");
    const char *f = text;
    for (size_t k = 0; k < n_factors; k++) {
        const char *e = strchr(f, '*');
        size_t len = e ? (size_t)(e - f) : strlen(f);
        if (!len) return false;
        if (k) sb_puts(out, ", ");
        if (isdigit((unsigned char)f[0])) {
            for (size_t i = 0; i < len; i++)
                if (!isdigit((unsigned char)f[i])) return false;
            sb_printf(out, "Integer(%.*s)", (int)len, f);
        } else {
            sb_printf(out, "Symbol('%.*s', positive=True, integer=True)", (int)len, f);
        }
        f = e ? e + 1 : f + len;
    }
    if (n_factors > 1) sb_putc(out, ')');
    return true;
}

/* A SymInt: {"as_int": 3}, or {"as_expr": {"expr_str": srepr, "hint": null}} for a symbolic one. */
static void write_size(wctx *c, json_writer *w, const fx_node *n, const char *text)
{
    int64_t v;
    jw_object(w);
    if (int_text(text, &v)) {
        jw_kint(w, "as_int", v);
    } else {
        strbuf sr;
        sb_init(&sr);
        if (!size_srepr(text, &sr)) fail(c, n, "a symbolic size other than a product of symbols is not written: ", text);
        jw_key(w, "as_expr");
        jw_object(w);
        jw_kstring(w, "expr_str", sr.s ? sr.s : "");
        jw_key(w, "hint");
        jw_null(w);
        jw_object_end(w);
        sb_free(&sr);
    }
    jw_object_end(w);
}

/* The strides of a contiguous tensor of these sizes, as sympy prints them (6, 6*s77). */
static char **contiguous_strides(const fx_value *v)
{
    char **out = xcalloc(v->rank + 1, sizeof *out);
    int64_t k = 1;
    strbuf syms;
    sb_init(&syms);
    for (size_t i = v->rank; i-- > 0;) {
        strbuf t;
        sb_init(&t);
        if (!syms.len) sb_printf(&t, "%lld", (long long)k);
        else if (k == 1) sb_puts(&t, syms.s);
        else sb_printf(&t, "%lld*%s", (long long)k, syms.s);
        out[i] = sb_detach(&t);
        int64_t d;
        if (int_text(v->sizes[i], &d)) k *= d > 0 ? d : 1;
        else sb_printf(&syms, "%s%s", syms.len ? "*" : "", v->sizes[i]);
    }
    sb_free(&syms);
    return out;
}

/* {"dtype", "sizes", "requires_grad", "device", "strides", "storage_offset", "layout"} */
static void tensor_meta(wctx *c, json_writer *w, const fx_node *n, const fx_value *v, bool requires_grad)
{
    jw_object(w);
    jw_kint(w, "dtype", scalar_type(v->dtype));
    jw_key(w, "sizes");
    jw_array(w);
    for (size_t i = 0; i < v->rank; i++) write_size(c, w, n, v->sizes[i]);
    jw_array_end(w);
    jw_kbool(w, "requires_grad", requires_grad);
    jw_key(w, "device");
    jw_object(w);
    jw_kstring(w, "type", v->device && strncmp(v->device, "cuda", 4) == 0 ? "cuda" : "cpu");
    jw_key(w, "index");
    jw_null(w);
    jw_object_end(w);
    /* the strides meta records, else a contiguous layout's */
    jw_key(w, "strides");
    jw_array(w);
    char **strides = contiguous_strides(v);
    for (size_t i = 0; i < v->rank; i++) write_size(c, w, n, v->strides ? v->strides[i] : strides[i]);
    for (size_t i = 0; i < v->rank; i++) free(strides[i]);
    free(strides);
    jw_array_end(w);
    jw_key(w, "storage_offset");
    jw_object(w);
    jw_kint(w, "as_int", v->storage_offset);
    jw_object_end(w);
    jw_kint(w, "layout", 7);   /* strided */
    jw_object_end(w);
}

static const char *const memfmts[] = {NULL, "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"};
static const char *const layouts[] = {NULL, "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn", "strided"};

static int index_of(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 1; i < n; i++)
        if (!strcmp(names[i], s)) return (int)i;
    return -1;
}

static void tensor_ref(json_writer *w, const char *name)
{
    jw_object(w);
    jw_kstring(w, "name", name);
    jw_object_end(w);
}

/* The serialized kind of a list, from its items (the schema's type for an empty one). */
static const char *list_kind(const fx_arg *a, const aten_arg *sa)
{
    bool node = false, none = false, ints = false, floats = false, bools = false, sym = false;
    for (size_t i = 0; i < a->u.seq.len; i++) {
        const fx_arg *it = a->u.seq.items[i];
        switch (it->kind) {
        case FX_ARG_NODE:
            if (it->u.node->meta.val && it->u.node->meta.val->kind == FX_VAL_SYM) sym = true;
            else node = true;
            break;
        case FX_ARG_NONE: none = true; break;
        case FX_ARG_INT: ints = true; break;
        case FX_ARG_FLOAT: floats = true; break;
        case FX_ARG_BOOL: bools = true; break;
        default: return NULL;
        }
    }
    if (node) return none || (sa && sa->type_text && strstr(sa->type_text, "?[")) ? "as_optional_tensors" : (ints || floats || bools ? NULL : "as_tensors");
    if (sym) return floats || bools || none ? NULL : "as_sym_ints";
    if (none) return "as_optional_tensors";
    if (floats) return bools ? NULL : "as_floats";
    if (ints) return bools ? NULL : "as_ints";
    if (bools) return "as_bools";
    if (sa) switch (sa->base) {   /* empty */
        case ATY_TENSOR: return sa->optional ? "as_optional_tensors" : "as_tensors";
        case ATY_FLOAT: return "as_floats";
        case ATY_BOOL: return "as_bools";
        default: return "as_ints";
        }
    return "as_ints";
}

/* An Argument union: {"as_tensor": {...}}, {"as_int": 3}, ... */
static void write_arg(wctx *c, json_writer *w, const fx_node *n, const fx_arg *a, const aten_arg *sa)
{
    jw_object(w);
    switch (a->kind) {
    case FX_ARG_NONE:
        jw_kbool(w, "as_none", true);
        break;
    case FX_ARG_NODE:
        if (a->u.node->meta.val && a->u.node->meta.val->kind == FX_VAL_SYM) {
            jw_key(w, "as_sym_int");
            jw_object(w);
            jw_kstring(w, "as_name", a->u.node->name);
            jw_object_end(w);
        } else {
            /* a Tensor? that holds one is written as a Tensor, as torch's serializer does */
            jw_key(w, "as_tensor");
            tensor_ref(w, a->u.node->name);
        }
        break;
    case FX_ARG_INT: jw_kint(w, "as_int", a->u.i); break;
    case FX_ARG_FLOAT: jw_kdouble_named(w, "as_float", a->u.f); break;
    case FX_ARG_BOOL: jw_kbool(w, "as_bool", a->u.b); break;
    case FX_ARG_STR: jw_kstring(w, "as_string", a->u.s); break;
    case FX_ARG_DTYPE: jw_kint(w, "as_scalar_type", scalar_type(a->u.dtype)); break;
    case FX_ARG_MEMFMT: {
        int i = index_of(memfmts, 5, a->u.s);
        if (i < 0) fail(c, n, "unknown memory format ", a->u.s);
        jw_kint(w, "as_memory_format", i);
        break;
    }
    case FX_ARG_LAYOUT: {
        int i = index_of(layouts, 8, a->u.s);
        if (i < 0) fail(c, n, "unknown layout ", a->u.s);
        jw_kint(w, "as_layout", i);
        break;
    }
    case FX_ARG_DEVICE: {
        jw_key(w, "as_device");
        jw_object(w);
        const char *colon = strchr(a->u.s, ':');
        char *type = colon ? xstrndup(a->u.s, (size_t)(colon - a->u.s)) : xstrdup(a->u.s);
        jw_kstring(w, "type", type);
        free(type);
        jw_key(w, "index");
        if (colon) jw_int(w, strtoll(colon + 1, NULL, 10));
        else jw_null(w);
        jw_object_end(w);
        break;
    }
    case FX_ARG_LIST:
    case FX_ARG_TUPLE: {
        const char *k = list_kind(a, sa);
        if (!k) {
            fail(c, n, "a list of mixed or nested values is not written", NULL);
            break;
        }
        jw_key(w, k);
        jw_array(w);
        for (size_t i = 0; i < a->u.seq.len; i++) {
            const fx_arg *it = a->u.seq.items[i];
            if (!strcmp(k, "as_tensors")) tensor_ref(w, it->u.node->name);
            else if (!strcmp(k, "as_ints")) jw_int(w, it->u.i);
            else if (!strcmp(k, "as_floats")) jw_double_named(w, it->kind == FX_ARG_INT ? (double)it->u.i : it->u.f);
            else if (!strcmp(k, "as_bools")) jw_bool(w, it->u.b);
            else if (!strcmp(k, "as_sym_ints")) {
                jw_object(w);
                if (it->kind == FX_ARG_NODE) jw_kstring(w, "as_name", it->u.node->name);
                else jw_kint(w, "as_int", it->u.i);
                jw_object_end(w);
            } else {   /* as_optional_tensors */
                jw_object(w);
                if (it->kind == FX_ARG_NODE) {
                    jw_key(w, "as_tensor");
                    tensor_ref(w, it->u.node->name);
                } else {
                    jw_kbool(w, "as_none", true);
                }
                jw_object_end(w);
            }
        }
        jw_array_end(w);
        break;
    }
    default:
        fail(c, n, "an argument of this kind is not written (a slice, a dict, an opaque value)", NULL);
        jw_kbool(w, "as_none", true);
        break;
    }
    jw_object_end(w);
}

static bool is_getitem(const fx_node *n)
{
    return n->op == FX_OP_CALL_FUNCTION && !strcmp(n->target, "operator.getitem");
}

/* {"as_tensor": {"name": name}}: one output, or a HOP's slot */
static void output_tensor(json_writer *w, const char *name)
{
    jw_object(w);
    jw_key(w, "as_tensor");
    tensor_ref(w, name);
    jw_object_end(w);
}

/* What closes a node: its provenance (what torch.export recorded), whether a HOP returns one bare
 * tensor (never here: its values are read by getitems; null for other calls), its name. */
static void node_end(json_writer *w, const fx_node *n, bool hop)
{
    jw_key(w, "metadata");
    jw_object(w);
    if (n->meta.stack_trace) jw_kstring(w, "stack_trace", n->meta.stack_trace);
    if (n->meta.nn_module_stack) jw_kstring(w, "nn_module_stack", n->meta.nn_module_stack);
    if (n->meta.torch_fn) jw_kstring(w, "torch_fn", n->meta.torch_fn);
    jw_object_end(w);
    if (hop) {
        jw_kbool(w, "is_hop_single_tensor_return", false);
    } else {
        jw_key(w, "is_hop_single_tensor_return");
        jw_null(w);
    }
    jw_kstring(w, "name", n->name);
    jw_object_end(w);
}

static void write_graph(wctx *c, json_writer *w, fx_graph *g);

/* The name of output slot i of n: the getitem that reads it, or "<node>_unused_<i>" (buf). */
static const char *slot_name(const fx_node *n, size_t i, char *buf, size_t cap)
{
    for (size_t u = 0; u < n->n_users; u++) {
        const fx_node *g = n->users[u];
        if (is_getitem(g) && g->args->u.seq.len == 2 && g->args->u.seq.items[1]->kind == FX_ARG_INT &&
            g->args->u.seq.items[1]->u.i == (int64_t)i)
            return g->name;
    }
    snprintf(buf, cap, "%s_unused_%zu", n->name, i);
    return buf;
}

/* How many values n returns: its tuple meta's, else one past the highest getitem. */
static size_t n_slots(const fx_node *n, size_t at_least)
{
    size_t k = n->meta.val && n->meta.val->kind == FX_VAL_TUPLE ? n->meta.val->n_items : at_least;
    for (size_t u = 0; u < n->n_users; u++) {
        const fx_node *g = n->users[u];
        if (is_getitem(g) && g->args->u.seq.len == 2 && g->args->u.seq.items[1]->kind == FX_ARG_INT &&
            g->args->u.seq.items[1]->u.i >= (int64_t)k)
            k = (size_t)g->args->u.seq.items[1]->u.i + 1;
    }
    return k;
}

/* A higher-order op (cond, while_loop, scan, ...): its arguments positional and unnamed, each
 * subgraph written in place of the get_attr that names it, one output per value it returns. */
static void write_hop(wctx *c, json_writer *w, const fx_node *n)
{
    jw_object(w);
    jw_kstring(w, "target", n->target);
    jw_key(w, "inputs");
    jw_array(w);
    for (size_t i = 0; i < n->args->u.seq.len; i++) {
        const fx_arg *a = n->args->u.seq.items[i];
        jw_object(w);
        jw_kstring(w, "name", "");
        jw_key(w, "arg");
        if (a->kind == FX_ARG_NODE && a->u.node->op == FX_OP_GET_ATTR) {
            const fx_module *m = fx_module_find(n->graph->owner, a->u.node->target);
            if (!m || !m->graph) fail(c, n, "no subgraph module ", a->u.node->target);
            jw_object(w);
            jw_key(w, "as_graph");
            jw_object(w);
            jw_kstring(w, "name", a->u.node->target);
            jw_key(w, "graph");
            if (m && m->graph) write_graph(c, w, m->graph);
            else jw_null(w);
            jw_object_end(w);
            jw_object_end(w);
        } else {
            /* operand lists are lists of tensors, an empty one too (torch writes as_tensors) */
            static const aten_arg tensors = {.name = "", .type_text = "Tensor[]", .base = ATY_TENSOR, .is_list = true};
            write_arg(c, w, n, a, a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE ? &tensors : NULL);
        }
        jw_kint(w, "kind", 1);
        jw_object_end(w);
    }
    if (n->kwargs->u.seq.len) fail(c, n, "a higher-order op's keyword arguments are not written", NULL);
    jw_array_end(w);
    jw_key(w, "outputs");
    jw_array(w);
    size_t k = n_slots(n, 1);
    char buf[256];
    for (size_t i = 0; i < k; i++) {
        output_tensor(w, slot_name(n, i, buf, sizeof buf));
    }
    jw_array_end(w);
    node_end(w, n, true);
}

static void write_node(wctx *c, json_writer *w, const fx_node *n)
{
    if (n->op == FX_OP_CALL_FUNCTION && !strncmp(n->target, "torch.ops.higher_order.", 23)) {
        write_hop(c, w, n);
        return;
    }
    aten_schema sch;
    memset(&sch, 0, sizeof sch);
    if (n->op != FX_OP_CALL_FUNCTION || strncmp(n->target, "torch.ops.aten.", 15) != 0 ||
        !aten_schemas_parse(&c->a, n->target, &sch, NULL)) {
        fail(c, n, "only ATen calls and higher-order ops are written, not ", n->target);
        return;
    }
    jw_object(w);
    jw_kstring(w, "target", n->target);
    jw_key(w, "inputs");
    jw_array(w);
    for (size_t i = 0; i < n->args->u.seq.len; i++) {
        const aten_arg *sa = i < sch.nargs ? &sch.args[i] : NULL;
        if (!sa) {
            fail(c, n, "more arguments than torch's schema takes: ", sch.text);
            break;
        }
        jw_object(w);
        jw_kstring(w, "name", sa->name);
        jw_key(w, "arg");
        write_arg(c, w, n, n->args->u.seq.items[i], sa);
        jw_kint(w, "kind", sa->kwarg_only ? 2 : 1);
        jw_object_end(w);
    }
    for (size_t i = 0; i < n->kwargs->u.seq.len; i++) {
        int k = aten_schema_find(&sch, n->kwargs->u.seq.keys[i]);
        jw_object(w);
        jw_kstring(w, "name", n->kwargs->u.seq.keys[i]);
        jw_key(w, "arg");
        write_arg(c, w, n, n->kwargs->u.seq.items[i], k >= 0 ? &sch.args[k] : NULL);
        jw_kint(w, "kind", 2);
        jw_object_end(w);
    }
    jw_array_end(w);
    /* one output per return; a node of several values names them by its getitems (a slot nobody
     * reads is "<node>_unused_<i>", as torch writes it) */
    jw_key(w, "outputs");
    jw_array(w);
    const fx_value *v = n->meta.val;
    bool list = sch.nrets == 1 && sch.rets[0].is_list;
    size_t n_items = n_slots(n, list ? 0 : sch.nrets);
    if (sch.nrets == 0) {
        /* returns nothing (_assert_tensor_metadata): no outputs */
    } else if (list || n_items > 1 || (v && v->kind == FX_VAL_TUPLE)) {
        if (list) {
            jw_object(w);
            jw_key(w, "as_tensors");
            jw_array(w);
        }
        char buf[256];
        for (size_t i = 0; i < n_items; i++) {
            const char *name = slot_name(n, i, buf, sizeof buf);
            if (list) tensor_ref(w, name);
            else output_tensor(w, name);
        }
        if (list) {
            jw_array_end(w);
            jw_object_end(w);
        }
    } else if (v && v->kind == FX_VAL_SYM) {   /* sym_size.int: a SymInt, its value in sym_int_values */
        jw_object(w);
        jw_key(w, "as_sym_int");
        jw_object(w);
        jw_kstring(w, "as_name", n->name);
        jw_object_end(w);
        jw_object_end(w);
    } else {
        output_tensor(w, n->name);
    }
    jw_array_end(w);
    node_end(w, n, false);
}

static bool is_weight(const fx_input_spec *s)
{
    return s->kind == FX_IN_PARAMETER || s->kind == FX_IN_BUFFER || s->kind == FX_IN_CONSTANT_TENSOR;
}


/* A Graph: its inputs, outputs, nodes and the meta of its values (a subgraph's too: a cond
 * branch is written inside the call that runs it). */
static void write_graph(wctx *c, json_writer *w, fx_graph *g)
{
    jw_object(w);
    jw_key(w, "inputs");
    jw_array(w);
    for (const fx_node *n = g->first; n; n = n->next)
        if (n->op == FX_OP_PLACEHOLDER) {
            output_tensor(w, n->name);
        }
    jw_array_end(w);
    jw_key(w, "outputs");
    jw_array(w);
    const fx_node *out = g->last && g->last->op == FX_OP_OUTPUT ? g->last : NULL;
    const fx_arg *res = out && out->args->u.seq.len == 1 ? out->args->u.seq.items[0] : NULL;
    size_t n_out = res && (res->kind == FX_ARG_TUPLE || res->kind == FX_ARG_LIST) ? res->u.seq.len : res ? 1 : 0;
    for (size_t i = 0; i < n_out; i++) {
        const fx_arg *it = res->kind == FX_ARG_TUPLE || res->kind == FX_ARG_LIST ? res->u.seq.items[i] : res;
        if (it->kind != FX_ARG_NODE) fail(c, out, "an output that is not a node is not written", NULL);
        else write_arg(c, w, out, it, NULL);
    }
    jw_array_end(w);
    jw_key(w, "nodes");
    jw_array(w);
    for (const fx_node *n = g->first; n && !c->failed; n = n->next) {
        if (n->op == FX_OP_PLACEHOLDER || n->op == FX_OP_OUTPUT || n->op == FX_OP_GET_ATTR || is_getitem(n)) continue;
        write_node(c, w, n);
    }
    jw_array_end(w);
    jw_key(w, "tensor_values");
    jw_object(w);
    for (const fx_node *n = g->first; n && !c->failed; n = n->next) {
        const fx_value *v = n->meta.val;
        if (n->op == FX_OP_OUTPUT || !v || v->kind != FX_VAL_TENSOR) continue;
        const fx_input_spec *sp = n->op == FX_OP_PLACEHOLDER && g == fx_program_graph(c->p) ? hm_get(&c->specs, n->name) : NULL;
        jw_key(w, n->name);
        tensor_meta(c, w, n, v, sp && sp->kind == FX_IN_PARAMETER);
    }
    jw_object_end(w);
    jw_key(w, "sym_int_values");
    jw_object(w);
    for (const fx_node *n = g->first; n && !c->failed; n = n->next)
        if (n->op != FX_OP_OUTPUT && n->meta.val && n->meta.val->kind == FX_VAL_SYM) {
            jw_key(w, n->name);
            write_size(c, w, n, n->meta.val->text);
        }
    jw_object_end(w);
    jw_key(w, "sym_bool_values");
    jw_object(w);
    jw_object_end(w);
    /* a graph that returns one bare tensor (a while_loop's cond_fn) says so */
    jw_kbool(w, "is_single_tensor_return", res && res->kind == FX_ARG_NODE);
    jw_key(w, "custom_obj_values");
    jw_object(w);
    jw_object_end(w);
    jw_key(w, "sym_float_values");
    jw_object(w);
    jw_object_end(w);
    jw_object_end(w);
}

static void model_json(wctx *c, strbuf *json)
{
    const fx_program *p = c->p;
    fx_graph *g = fx_program_graph(p);
    json_writer w;
    jw_init(&w, json);
    jw_object(&w);
    jw_key(&w, "graph_module");
    jw_object(&w);
    jw_key(&w, "graph");
    write_graph(c, &w, g);

    jw_key(&w, "signature");
    jw_object(&w);
    jw_key(&w, "input_specs");
    jw_array(&w);
    for (size_t i = 0; i < p->sig.n_inputs; i++) {
        const fx_input_spec *s = &p->sig.inputs[i];
        static const char *const kinds[] = {"user_input", "parameter", "buffer", "tensor_constant"};
        static const char *const targets[] = {NULL, "parameter_name", "buffer_name", "tensor_constant_name"};
        if (s->kind > FX_IN_CONSTANT_TENSOR) {
            fail(c, NULL, "a custom object or token input is not written", NULL);
            break;
        }
        jw_object(&w);
        jw_key(&w, kinds[s->kind]);
        jw_object(&w);
        jw_key(&w, "arg");
        if (s->kind == FX_IN_USER_INPUT) {
            output_tensor(&w, s->name);
        } else {
            tensor_ref(&w, s->name);
            jw_kstring(&w, targets[s->kind], s->target);
            if (s->kind == FX_IN_BUFFER) jw_kbool(&w, "persistent", s->persistent);
        }
        jw_object_end(&w);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_key(&w, "output_specs");
    jw_array(&w);
    size_t n_user_out = 0;
    for (size_t i = 0; i < p->sig.n_outputs; i++) {
        const fx_output_spec *s = &p->sig.outputs[i];
        if (s->kind != FX_OUT_USER_OUTPUT) {
            fail(c, NULL, "only user outputs are written, not ", fx_output_kind_name(s->kind));
            break;
        }
        n_user_out++;
        jw_object(&w);
        jw_key(&w, "user_output");
        jw_object(&w);
        jw_key(&w, "arg");
        output_tensor(&w, s->name);
        jw_object_end(&w);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_object_end(&w);   /* signature */

    /* forward(*args): the user inputs positionally; the outputs a tuple (one: the tensor itself) */
    strbuf in_spec, out_spec;
    sb_init(&in_spec);
    sb_init(&out_spec);
    const char *leaf = "{\"type\": null, \"context\": null, \"children_spec\": []}";
    sb_puts(&in_spec, "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [{\"type\": "
                      "\"builtins.tuple\", \"context\": \"null\", \"children_spec\": [");
    size_t n_user_in = 0;
    for (size_t i = 0; i < p->sig.n_inputs; i++)
        if (!is_weight(&p->sig.inputs[i])) sb_printf(&in_spec, "%s%s", n_user_in++ ? ", " : "", leaf);
    sb_puts(&in_spec, "]}, {\"type\": \"builtins.dict\", \"context\": \"[]\", \"children_spec\": []}]}]");
    if (n_user_out == 1) {
        sb_printf(&out_spec, "[1, %s]", leaf);
    } else {
        sb_puts(&out_spec, "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [");
        for (size_t i = 0; i < n_user_out; i++) sb_printf(&out_spec, "%s%s", i ? ", " : "", leaf);
        sb_puts(&out_spec, "]}]");
    }
    jw_key(&w, "module_call_graph");
    jw_array(&w);
    jw_object(&w);
    jw_kstring(&w, "fqn", "");
    jw_key(&w, "signature");
    jw_object(&w);
    jw_key(&w, "inputs");
    jw_array(&w);
    jw_array_end(&w);
    jw_key(&w, "outputs");
    jw_array(&w);
    jw_array_end(&w);
    jw_kstring(&w, "in_spec", in_spec.s);
    jw_kstring(&w, "out_spec", out_spec.s);
    jw_key(&w, "forward_arg_names");
    jw_array(&w);
    for (size_t i = 0; i < p->sig.n_inputs; i++)
        if (!is_weight(&p->sig.inputs[i])) jw_string(&w, p->sig.inputs[i].name);
    jw_array_end(&w);
    jw_object_end(&w);
    jw_object_end(&w);
    jw_array_end(&w);
    sb_free(&in_spec);
    sb_free(&out_spec);
    jw_key(&w, "metadata");
    jw_object(&w);
    jw_object_end(&w);
    jw_key(&w, "treespec_namedtuple_fields");
    jw_object(&w);
    jw_object_end(&w);
    jw_object_end(&w);   /* graph_module */
    jw_key(&w, "opset_version");
    jw_object(&w);
    jw_kint(&w, "aten", 10);
    jw_object_end(&w);
    /* each symbol's range: int_oo is null, as torch writes an unbounded side */
    jw_key(&w, "range_constraints");
    jw_object(&w);
    for (size_t i = 0; i < p->n_ranges; i++) {
        int64_t v;
        jw_key(&w, p->ranges[i].symbol);
        jw_object(&w);
        jw_key(&w, "min_val");
        if (int_text(p->ranges[i].min, &v)) jw_int(&w, v);
        else jw_null(&w);
        jw_key(&w, "max_val");
        if (int_text(p->ranges[i].max, &v)) jw_int(&w, v);
        else jw_null(&w);
        jw_object_end(&w);
    }
    jw_object_end(&w);
    jw_key(&w, "schema_version");
    jw_object(&w);
    jw_kint(&w, "major", 8);
    jw_kint(&w, "minor", 20);
    jw_object_end(&w);
    jw_key(&w, "verifiers");
    jw_array(&w);
    jw_string(&w, "TRAINING");
    jw_array_end(&w);
    jw_kstring(&w, "torch_version", "2.14.1");
    jw_key(&w, "guards_code");
    jw_array(&w);
    jw_array_end(&w);
    jw_object_end(&w);
}

/* {"config": {fqn: {"path_name", "is_param", "use_pickle", "tensor_meta"}}}; the files it names */
typedef struct payload {
    char *member;
    const void *data;
    size_t len;
} payload;

static void weights_config(wctx *c, bool constants, strbuf *out, payload *files, size_t *n_files, const char *root)
{
    const fx_program *p = c->p;
    fx_graph *g = fx_program_graph(p);
    json_writer w;
    jw_init(&w, out);
    jw_object(&w);
    jw_key(&w, "config");
    jw_object(&w);
    size_t k = 0;
    for (size_t i = 0; i < p->sig.n_inputs && !c->failed; i++) {
        const fx_input_spec *s = &p->sig.inputs[i];
        /* a non-persistent buffer is not in the state dict: torch keeps it with the constants */
        bool constant = s->kind == FX_IN_CONSTANT_TENSOR || (s->kind == FX_IN_BUFFER && !s->persistent);
        if (!is_weight(s) || constant != constants) continue;
        const fx_weight *wt = fx_program_weight(p, s->target);
        const fx_node *n = fx_graph_lookup(g, s->name);
        if (!wt || !wt->data || !n || !n->meta.val || n->meta.val->kind != FX_VAL_TENSOR) {
            fail(c, n, "a weight without values is not written: ", s->target);
            break;
        }
        char name[64];
        snprintf(name, sizeof name, "%s_%zu", constants ? "tensor" : "weight", k++);
        jw_key(&w, s->target);
        jw_object(&w);
        jw_kstring(&w, "path_name", name);
        jw_kbool(&w, "is_param", s->kind == FX_IN_PARAMETER);
        jw_kbool(&w, "use_pickle", false);
        jw_key(&w, "tensor_meta");
        tensor_meta(c, &w, n, n->meta.val, s->kind == FX_IN_PARAMETER);
        jw_object_end(&w);
        strbuf m;
        sb_init(&m);
        sb_printf(&m, "%s/data/%s/%s", root, constants ? "constants" : "weights", name);
        files[*n_files] = (payload){sb_detach(&m), wt->data, wt->nbytes};
        (*n_files)++;
    }
    jw_object_end(&w);
    jw_object_end(&w);
}

static bool add_member(zip_t *z, const char *name, const void *data, size_t len)
{
    zip_source_t *src = zip_source_buffer(z, data, len, 0);
    if (!src) return false;
    zip_int64_t idx = zip_file_add(z, name, src, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE);
    if (idx < 0) {
        zip_source_free(src);
        return false;
    }
    return zip_set_file_compression(z, (zip_uint64_t)idx, ZIP_CM_STORE, 0) == 0;
}

bool pt2_save(const fx_program *p, const char *path, diag_sink *d)
{
    wctx c = {.p = p, .d = d};
    arena_init(&c.a);
    hm_init(&c.specs);
    for (size_t i = 0; i < p->sig.n_inputs; i++)
        if (p->sig.inputs[i].name) hm_put(&c.specs, p->sig.inputs[i].name, &p->sig.inputs[i]);
    /* the archive's folder is the file's name without .pt2, as torch.export.save names it */
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t bl = strlen(base);
    if (bl > 4 && !strcmp(base + bl - 4, ".pt2")) bl -= 4;
    char *root = xstrndup(base, bl);
    for (char *q = root; *q; q++)
        if (*q == '.' || *q == ' ') *q = '_';
    strbuf model, wcfg, ccfg;
    sb_init(&model);
    sb_init(&wcfg);
    sb_init(&ccfg);
    payload *files = xcalloc(p->sig.n_inputs + 1, sizeof *files);
    size_t n_files = 0;
    model_json(&c, &model);
    if (!c.failed) weights_config(&c, false, &wcfg, files, &n_files, root);
    if (!c.failed) weights_config(&c, true, &ccfg, files, &n_files, root);
    bool ok = !c.failed;
    /* the zip is made in memory, then written as every file is (temporary, sync, rename) */
    zip_error_t zerr;
    zip_error_init(&zerr);
    zip_source_t *mem = ok ? zip_source_buffer_create(NULL, 0, 0, &zerr) : NULL;
    zip_t *z = NULL;
    if (mem) {
        zip_source_keep(mem);
        z = zip_open_from_source(mem, ZIP_TRUNCATE, &zerr);
    }
    if (ok && !z) {
        diag_error(d, (diag_loc){path, 0, 0}, "cannot make the archive: %s", zip_error_strerror(&zerr));
        ok = false;
    }
    strbuf nm, sid;
    sb_init(&nm);
    sb_init(&sid);
    /* a serialization id from the content, so that the same program gives the same file */
    uint64_t h = hash_bytes(model.s, model.len);
    sb_printf(&sid, "%020llu%020llu", (unsigned long long)h, (unsigned long long)(h ^ 0x9e3779b97f4a7c15ULL));
    struct { const char *rel; const char *text; size_t len; } members[] = {
        {"archive_format", "pt2", 3},
        {"archive_version", "0", 1},
        {".data/version", "6", 1},
        {"byteorder", "little", 6},
        {".data/serialization_id", sid.s, sid.len},
        {"models/model.json", model.s, model.len},
        {"data/weights/model_weights_config.json", wcfg.s, wcfg.len},
        {"data/constants/model_constants_config.json", ccfg.s, ccfg.len},
        /* torch.export.load reads this member; empty, it means no example inputs (what
         * torch.export.save(..., serialize_example_inputs=False) writes) */
        {"data/sample_inputs/model.pt", "", 0},
    };
    char **names = xcalloc(sizeof members / sizeof *members + 1, sizeof *names);
    for (size_t i = 0; ok && i < sizeof members / sizeof *members; i++) {
        sb_reset(&nm);
        sb_printf(&nm, "%s/%s", root, members[i].rel);
        names[i] = xstrdup(nm.s);
        ok = add_member(z, names[i], members[i].text, members[i].len);
    }
    for (size_t i = 0; ok && i < n_files; i++) ok = add_member(z, files[i].member, files[i].data, files[i].len);
    if (z && !ok && !c.failed) diag_error(d, (diag_loc){path, 0, 0}, "cannot make the archive: %s", zip_strerror(z));
    if (z) {
        if (ok && zip_close(z) != 0) {
            diag_error(d, (diag_loc){path, 0, 0}, "cannot make the archive: %s", zip_strerror(z));
            zip_discard(z);
            ok = false;
        } else if (!ok) {
            zip_discard(z);
        }
    }
    if (ok) {
        zip_stat_t zs;
        void *buf = NULL;
        ok = zip_source_stat(mem, &zs) == 0 && zip_source_open(mem) == 0;
        if (ok) {
            buf = xmalloc(zs.size ? zs.size : 1);
            ok = zip_source_read(mem, buf, zs.size) == (zip_int64_t)zs.size;
            zip_source_close(mem);
        }
        if (!ok) diag_error(d, (diag_loc){path, 0, 0}, "cannot make the archive");
        if (ok) ok = file_write_whole(path, buf, zs.size, d);
        free(buf);
    }
    if (mem) zip_source_free(mem);
    zip_error_fini(&zerr);
    for (size_t i = 0; i < sizeof members / sizeof *members; i++) free(names[i]);
    free(names);
    for (size_t i = 0; i < n_files; i++) free(files[i].member);
    free(files);
    sb_free(&nm);
    sb_free(&sid);
    sb_free(&model);
    sb_free(&wcfg);
    sb_free(&ccfg);
    free(root);
    arena_free(&c.a);
    hm_free(&c.specs);
    return ok;
}
