/* fx_ir.c — FX IR construction, users bookkeeping, dtype table and Python float repr. */
#include "fx/fx_ir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/shape.h"

/* ---- dtypes ---------------------------------------------------------------------------- */

static const fx_dtype_info dtype_table[FX_DT_COUNT] = {
    [FX_DT_UNKNOWN] = {FX_DT_UNKNOWN, "torch.unknown", "?", 0, 0},
    [FX_DT_F32] = {FX_DT_F32, "torch.float32", "f32", 4, 1},
    [FX_DT_F64] = {FX_DT_F64, "torch.float64", "f64", 8, 11},
    [FX_DT_F16] = {FX_DT_F16, "torch.float16", "f16", 2, 10},
    [FX_DT_BF16] = {FX_DT_BF16, "torch.bfloat16", "bf16", 2, 16},
    [FX_DT_F8E4M3FN] = {FX_DT_F8E4M3FN, "torch.float8_e4m3fn", "f8e4m3fn", 1, 17},
    [FX_DT_F8E5M2] = {FX_DT_F8E5M2, "torch.float8_e5m2", "f8e5m2", 1, 19},
    [FX_DT_F8E4M3FNUZ] = {FX_DT_F8E4M3FNUZ, "torch.float8_e4m3fnuz", "f8e4m3fnuz", 1, 18},
    [FX_DT_F8E5M2FNUZ] = {FX_DT_F8E5M2FNUZ, "torch.float8_e5m2fnuz", "f8e5m2fnuz", 1, 20},
    [FX_DT_F8E8M0FNU] = {FX_DT_F8E8M0FNU, "torch.float8_e8m0fnu", "f8e8m0fnu", 1, 24},
    [FX_DT_F4E2M1FNX2] = {FX_DT_F4E2M1FNX2, "torch.float4_e2m1fn_x2", "f4e2m1fnx2", 1, 23},
    [FX_DT_C32] = {FX_DT_C32, "torch.complex32", "c32", 4, 0},
    [FX_DT_C64] = {FX_DT_C64, "torch.complex64", "c64", 8, 14},
    [FX_DT_C128] = {FX_DT_C128, "torch.complex128", "c128", 16, 15},
    [FX_DT_I8] = {FX_DT_I8, "torch.int8", "i8", 1, 3},
    [FX_DT_I16] = {FX_DT_I16, "torch.int16", "i16", 2, 5},
    [FX_DT_I32] = {FX_DT_I32, "torch.int32", "i32", 4, 6},
    [FX_DT_I64] = {FX_DT_I64, "torch.int64", "i64", 8, 7},
    [FX_DT_U8] = {FX_DT_U8, "torch.uint8", "u8", 1, 2},
    [FX_DT_U16] = {FX_DT_U16, "torch.uint16", "u16", 2, 4},
    [FX_DT_U32] = {FX_DT_U32, "torch.uint32", "u32", 4, 12},
    [FX_DT_U64] = {FX_DT_U64, "torch.uint64", "u64", 8, 13},
    [FX_DT_BOOL] = {FX_DT_BOOL, "torch.bool", "b8", 1, 9},
    [FX_DT_BITS16] = {FX_DT_BITS16, "torch.bits16", "b16", 2, 0},
    [FX_DT_BITS1X8] = {FX_DT_BITS1X8, "torch.bits1x8", "b1x8", 1, 0},
};

/* Aliases torch also prints or accepts (torch.float == torch.float32 prints as float32). */
static const struct { const char *name; fx_dtype dt; } dtype_alias[] = {
    {"torch.float", FX_DT_F32}, {"torch.double", FX_DT_F64}, {"torch.half", FX_DT_F16},
    {"torch.long", FX_DT_I64}, {"torch.int", FX_DT_I32}, {"torch.short", FX_DT_I16},
    {"torch.cfloat", FX_DT_C64}, {"torch.cdouble", FX_DT_C128},
};

const fx_dtype_info *fx_dtype_get(fx_dtype dt)
{
    if ((int)dt < 0 || dt >= FX_DT_COUNT)
        dt = FX_DT_UNKNOWN;
    return &dtype_table[dt];
}

static bool span_eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

fx_dtype fx_dtype_from_torch_name(const char *s, size_t n)
{
    const char *bare = s;
    size_t bn = n;
    if (n > 6 && memcmp(s, "torch.", 6) == 0) {
        bare = s + 6;
        bn = n - 6;
    }
    for (int i = 1; i < FX_DT_COUNT; i++)
        if (span_eq(bare, bn, dtype_table[i].torch_name + 6))
            return (fx_dtype)i;
    for (size_t i = 0; i < sizeof dtype_alias / sizeof *dtype_alias; i++)
        if (span_eq(bare, bn, dtype_alias[i].name + 6))
            return dtype_alias[i].dt;
    return FX_DT_UNKNOWN;
}

fx_dtype fx_dtype_from_c10_number(int64_t n)
{
    /* c10/core/ScalarType.h's order: Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf,
     * ComplexFloat, ComplexDouble, Bool, QInt8, QUInt8, QInt32, BFloat16 */
    static const fx_dtype order[] = {FX_DT_U8,  FX_DT_I8,  FX_DT_I16,  FX_DT_I32,     FX_DT_I64,     FX_DT_F16,
                                     FX_DT_F32, FX_DT_F64, FX_DT_C32,  FX_DT_C64,     FX_DT_C128,    FX_DT_BOOL,
                                     FX_DT_UNKNOWN, FX_DT_UNKNOWN, FX_DT_UNKNOWN, FX_DT_BF16};
    return n >= 0 && n < (int64_t)(sizeof order / sizeof *order) ? order[n] : FX_DT_UNKNOWN;
}

fx_dtype fx_dtype_from_abbr(const char *s, size_t n)
{
    for (int i = 1; i < FX_DT_COUNT; i++)
        if (span_eq(s, n, dtype_table[i].abbr))
            return (fx_dtype)i;
    return FX_DT_UNKNOWN;
}

fx_dtype fx_dtype_from_onnx(int onnx_type)
{
    for (int i = 1; i < FX_DT_COUNT; i++)
        if (onnx_type != 0 && dtype_table[i].onnx_type == onnx_type)
            return (fx_dtype)i;
    return FX_DT_UNKNOWN;
}

/* ---- opcodes ---------------------------------------------------------------------------- */

static const char *const opcode_names[FX_OP_COUNT] = {
    "placeholder", "get_attr", "call_function", "call_method", "call_module", "output",
};

const char *fx_opcode_name(fx_opcode op)
{
    return (int)op >= 0 && op < FX_OP_COUNT ? opcode_names[op] : "?";
}

bool fx_opcode_from_name(const char *s, size_t n, fx_opcode *out)
{
    for (int i = 0; i < FX_OP_COUNT; i++)
        if (span_eq(s, n, opcode_names[i])) {
            *out = (fx_opcode)i;
            return true;
        }
    return false;
}

const char *fx_input_kind_name(fx_input_kind k)
{
    static const char *const n[] = {"USER_INPUT", "PARAMETER", "BUFFER", "CONSTANT_TENSOR",
                                    "CUSTOM_OBJ", "TOKEN"};
    return (int)k >= 0 && k <= FX_IN_TOKEN ? n[k] : "?";
}

const char *fx_output_kind_name(fx_output_kind k)
{
    static const char *const n[] = {"USER_OUTPUT", "LOSS_OUTPUT", "BUFFER_MUTATION",
                                    "GRADIENT_TO_PARAMETER", "GRADIENT_TO_USER_INPUT",
                                    "USER_INPUT_MUTATION", "TOKEN", "PARAMETER_MUTATION"};
    return (int)k >= 0 && k <= FX_OUT_PARAMETER_MUTATION ? n[k] : "?";
}

/* ---- Python float repr ------------------------------------------------------------------ */

char *fx_float_repr(double v, char *buf, size_t cap)
{
    if (isnan(v)) {
        snprintf(buf, cap, "nan");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, cap, v < 0 ? "-inf" : "inf");
        return buf;
    }
    /* Shortest %.Ne that round-trips, then lay it out the way Python's repr does. */
    char tmp[40];
    int prec;
    for (prec = 0; prec < 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    if (prec == 17)
        snprintf(tmp, sizeof tmp, "%.16e", v);
    char digits[40];
    size_t nd = 0;
    const char *p = tmp;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    char out[64];
    size_t o = 0;
    if (neg)
        out[o++] = '-';
    if (exp < -4 || exp >= 16) {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            for (size_t i = 1; i < nd; i++)
                out[o++] = digits[i];
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else if (exp < 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -exp - 1; i++)
            out[o++] = '0';
        for (size_t i = 0; i < nd; i++)
            out[o++] = digits[i];
    } else {
        for (int i = 0; i <= exp; i++)
            out[o++] = (size_t)i < nd ? digits[i] : '0';
        out[o++] = '.';
        if ((size_t)exp + 1 < nd)
            for (size_t i = (size_t)exp + 1; i < nd; i++)
                out[o++] = digits[i];
        else
            out[o++] = '0';
    }
    out[o] = 0;
    snprintf(buf, cap, "%s", out);
    return buf;
}

/* ---- arena helpers ---------------------------------------------------------------------- */

char *fx_strdup(fx_program *p, const char *s) { return arena_strdup(&p->arena, s); }
char *fx_strndup(fx_program *p, const char *s, size_t n) { return arena_strndup(&p->arena, s, n); }
void *fx_alloc(fx_program *p, size_t n) { return arena_alloc(&p->arena, n); }

fx_value *fx_value_new(fx_program *p, fx_value_kind kind)
{
    fx_value *v = fx_alloc(p, sizeof *v);
    v->kind = kind;
    return v;
}

/* ---- args ------------------------------------------------------------------------------- */

static fx_arg *arg_new(fx_program *p, fx_arg_kind k)
{
    fx_arg *a = fx_alloc(p, sizeof *a);
    a->kind = k;
    return a;
}

fx_arg *fx_arg_none(fx_program *p) { return arg_new(p, FX_ARG_NONE); }
fx_arg *fx_arg_ellipsis(fx_program *p) { return arg_new(p, FX_ARG_ELLIPSIS); }

fx_arg *fx_arg_node(fx_program *p, fx_node *n)
{
    fx_arg *a = arg_new(p, FX_ARG_NODE);
    a->u.node = n;
    return a;
}

fx_arg *fx_arg_int(fx_program *p, int64_t v)
{
    fx_arg *a = arg_new(p, FX_ARG_INT);
    a->u.i = v;
    return a;
}

fx_arg *fx_arg_float(fx_program *p, double v)
{
    fx_arg *a = arg_new(p, FX_ARG_FLOAT);
    a->u.f = v;
    return a;
}

fx_arg *fx_arg_bool(fx_program *p, bool v)
{
    fx_arg *a = arg_new(p, FX_ARG_BOOL);
    a->u.b = v;
    return a;
}

fx_arg *fx_arg_str(fx_program *p, fx_arg_kind kind, const char *s)
{
    fx_arg *a = arg_new(p, kind);
    a->u.s = fx_strdup(p, s ? s : "");
    return a;
}

fx_arg *fx_arg_dtype(fx_program *p, fx_dtype dt)
{
    fx_arg *a = arg_new(p, FX_ARG_DTYPE);
    a->u.dtype = dt;
    return a;
}

fx_arg *fx_arg_seq(fx_program *p, fx_arg_kind kind, fx_arg **items, const char **keys, size_t len)
{
    fx_arg *a = arg_new(p, kind);
    a->u.seq.len = len;
    a->u.seq.items = fx_alloc(p, (len ? len : 1) * sizeof *items);
    if (len)
        memcpy(a->u.seq.items, items, len * sizeof *items);
    if (kind == FX_ARG_DICT) {
        a->u.seq.keys = fx_alloc(p, (len ? len : 1) * sizeof *keys);
        for (size_t i = 0; i < len; i++)
            a->u.seq.keys[i] = fx_strdup(p, keys[i]);
    }
    return a;
}

void fx_arg_each_node(const fx_arg *a, void (*cb)(fx_node *n, void *ctx), void *ctx)
{
    if (!a)
        return;
    switch (a->kind) {
    case FX_ARG_NODE:
        cb(a->u.node, ctx);
        break;
    case FX_ARG_LIST: case FX_ARG_TUPLE: case FX_ARG_DICT: case FX_ARG_SLICE:
        for (size_t i = 0; i < a->u.seq.len; i++)
            fx_arg_each_node(a->u.seq.items[i], cb, ctx);
        break;
    default:
        break;
    }
}

/* ---- program / modules ---------------------------------------------------------------------- */

static fx_graph *graph_new(fx_module *m)
{
    fx_graph *g = fx_alloc(m->prog, sizeof *g);
    g->owner = m;
    hm_init(&g->names);
    hm_init(&g->name_counters);
    return g;
}

fx_program *fx_program_new(const char *root_name)
{
    fx_program *p = xcalloc(1, sizeof *p);
    arena_init(&p->arena);
    hm_init(&p->weight_names);
    fx_module *m = fx_alloc(p, sizeof *m);
    m->prog = p;
    m->name = fx_strdup(p, root_name ? root_name : "GraphModule");
    m->type = m->name;
    m->graph = graph_new(m);
    p->root = m;
    p->source_form = FX_FORM_GRAPH;
    return p;
}

static void module_free_maps(fx_module *m)
{
    hm_free(&m->child_names);
    if (m->graph) {
        hm_free(&m->graph->names);
        hm_free(&m->graph->name_counters);
    }
    for (fx_module *c = m->first_child; c; c = c->next_sibling)
        module_free_maps(c);
}

void fx_program_free(fx_program *p)
{
    if (!p)
        return;
    module_free_maps(p->root);
    for (fx_weight *w = p->weights; w; w = w->next)
        fmap_unref(w->map);
    hm_free(&p->weight_names);
    arena_free(&p->arena);
    free(p);
}

fx_form fx_program_source_form(const fx_program *p) { return p->source_form; }
fx_graph *fx_program_graph(const fx_program *p) { return p->root->graph; }

fx_module *fx_module_add_child(fx_module *parent, const char *name, const char *type, const char *repr)
{
    fx_program *p = parent->prog;
    fx_module *m = fx_alloc(p, sizeof *m);
    m->prog = p;
    m->parent = parent;
    m->name = fx_strdup(p, name);
    m->type = fx_strdup(p, type ? type : "Module");
    m->repr = repr ? fx_strdup(p, repr) : NULL;
    if (parent->last_child)
        parent->last_child->next_sibling = m;
    else
        parent->first_child = m;
    parent->last_child = m;
    parent->n_children++;
    hm_put(&parent->child_names, m->name, m);
    return m;
}

fx_module *fx_module_child(const fx_module *m, const char *name)
{
    return hm_get(&m->child_names, name);
}

fx_module *fx_module_find(const fx_module *m, const char *path)
{
    const fx_module *cur = m;
    while (cur && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (!cur)
            break;
        char part[256];
        if (n >= sizeof part)
            return NULL;
        memcpy(part, path, n);
        part[n] = 0;
        cur = fx_module_child(cur, part);
        path += n + (dot ? 1 : 0);
    }
    return (fx_module *)cur;
}

fx_graph *fx_module_ensure_graph(fx_module *m)
{
    if (!m->graph)
        m->graph = graph_new(m);
    return m->graph;
}

static fx_weight *weight_new(fx_program *p, const char *fqn, fx_tensor_role role, fx_dtype dt,
                             const int64_t *shape, size_t rank)
{
    fx_weight *w = fx_alloc(p, sizeof *w);
    w->fqn = fx_strdup(p, fqn);
    w->role = role;
    w->dtype = dt;
    w->rank = rank;
    w->shape = fx_alloc(p, (rank ? rank : 1) * sizeof *shape);
    if (rank)
        memcpy(w->shape, shape, rank * sizeof *shape);
    w->persistent = true;
    return w;
}

fx_weight *fx_module_add_param(fx_module *m, const char *fqn, fx_tensor_role role, fx_dtype dt,
                               const int64_t *shape, size_t rank)
{
    fx_weight *w = weight_new(m->prog, fqn, role, dt, shape, rank);
    if (m->params_last)
        m->params_last->next = w;
    else
        m->params = w;
    m->params_last = w;
    return w;
}

void fx_weight_set_map(fx_weight *w, fmap *f)
{
    fmap_ref(f);
    fmap_unref(w->map);
    w->map = f;
}

fx_weight *fx_program_add_weight(fx_program *p, const char *fqn, fx_tensor_role role, fx_dtype dt,
                                 const int64_t *shape, size_t rank, const void *data, size_t nbytes,
                                 bool owned)
{
    fx_weight *w = weight_new(p, fqn, role, dt, shape, rank);
    w->data = data;
    w->nbytes = nbytes;
    w->owned = owned;
    if (owned && data) w->map = fmap_adopt((void *)data, nbytes);
    if (p->weights_last)
        p->weights_last->next = w;
    else
        p->weights = w;
    p->weights_last = w;
    p->n_weights++;
    hm_put(&p->weight_names, w->fqn, w);
    return w;
}

fx_weight *fx_program_weight(const fx_program *p, const char *fqn)
{
    return hm_get(&p->weight_names, fqn);
}

/* ---- nodes ------------------------------------------------------------------------------- */

const char *fx_graph_unique_name(fx_graph *g, const char *base)
{
    fx_program *p = g->owner->prog;
    if (!hm_has(&g->names, base))
        return fx_strdup(p, base);
    /* continue from the last suffix handed out for this base, so n same-named nodes cost O(n) */
    size_t start = (size_t)(uintptr_t)hm_get(&g->name_counters, base);
    char buf[256];
    for (size_t i = start ? start : 1;; i++) {
        snprintf(buf, sizeof buf, "%.200s_%zu", base, i);
        if (!hm_has(&g->names, buf)) {
            const char *key = hm_has(&g->name_counters, base) ? NULL : fx_strdup(p, base);
            if (key)
                hm_put(&g->name_counters, key, (void *)(uintptr_t)(i + 1));
            else
                hm_put(&g->name_counters, base, (void *)(uintptr_t)(i + 1));
            return fx_strdup(p, buf);
        }
    }
}

fx_node *fx_node_new(fx_graph *g, const char *name, fx_opcode op, const char *target)
{
    fx_program *p = g->owner->prog;
    fx_node *n = fx_alloc(p, sizeof *n);
    n->graph = g;
    n->name = fx_graph_unique_name(g, name);
    n->op = op;
    n->target = fx_strdup(p, target ? target : name);
    n->args = fx_arg_seq(p, FX_ARG_TUPLE, NULL, NULL, 0);
    n->kwargs = fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0);
    n->declared_users = -1;
    /* Reserve the name now so a second fx_node_new with the same base gets a fresh one. */
    hm_put(&g->names, n->name, n);
    return n;
}

void fx_graph_insert_after(fx_graph *g, fx_node *after, fx_node *n)
{
    n->graph = g;
    n->prev = after;
    n->next = after ? after->next : g->first;
    if (n->next)
        n->next->prev = n;
    else
        g->last = n;
    if (after)
        after->next = n;
    else
        g->first = n;
    g->n_nodes++;
    hm_put(&g->names, n->name, n);
}

void fx_graph_append(fx_graph *g, fx_node *n) { fx_graph_insert_after(g, g->last, n); }

void fx_graph_insert_before(fx_graph *g, fx_node *before, fx_node *n)
{
    fx_graph_insert_after(g, before ? before->prev : g->last, n);
}

static void drop_user(fx_node *input, void *vuser)
{
    fx_node *user = vuser;
    size_t k = 0;
    for (size_t i = 0; i < input->n_users; i++)
        if (input->users[i] != user)
            input->users[k++] = input->users[i];
    input->n_users = k;
}

bool fx_graph_remove(fx_graph *g, fx_node *n)
{
    if (n->graph != g || n->n_users)
        return false;
    if (n->prev)
        n->prev->next = n->next;
    else
        g->first = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        g->last = n->prev;
    n->prev = n->next = NULL;
    g->n_nodes--;
    if (hm_get(&g->names, n->name) == n)
        hm_remove(&g->names, n->name);
    /* drop n from its inputs' user lists (O(uses)), instead of a whole-graph recompute */
    fx_arg_each_node(n->args, drop_user, n);
    fx_arg_each_node(n->kwargs, drop_user, n);
    fx_graph_renumber(g);
    return true;
}

void fx_node_set_args(fx_node *n, fx_arg *args_tuple, fx_arg *kwargs_dict)
{
    fx_program *p = n->graph->owner->prog;
    n->args = args_tuple ? args_tuple : fx_arg_seq(p, FX_ARG_TUPLE, NULL, NULL, 0);
    n->kwargs = kwargs_dict ? kwargs_dict : fx_arg_seq(p, FX_ARG_DICT, NULL, NULL, 0);
}

fx_node *fx_graph_lookup(const fx_graph *g, const char *name)
{
    if (name && name[0] == '%')
        name++;
    return hm_get(&g->names, name);
}

void fx_graph_renumber(fx_graph *g)
{
    size_t i = 0;
    for (fx_node *n = g->first; n; n = n->next)
        n->index = i++;
}

/* Users are counted in two passes (count, then fill arena arrays) so each recompute is
 * linear; a per-pass stamp (last_user) dedups repeated uses by the same node. */
typedef struct users_ctx {
    fx_node *user;
    fx_node **nodes;       /* attached nodes by index: refs to detached nodes are ignored */
    fx_node **last_user;   /* indexed by node index */
    size_t *counts;
    bool fill;
    fx_graph *g;
} users_ctx;

static void users_visit(fx_node *n, void *vctx)
{
    users_ctx *c = vctx;
    if (!n || n->graph != c->g || n->index >= c->g->n_nodes || c->nodes[n->index] != n)
        return;
    if (c->last_user[n->index] == c->user)
        return;
    c->last_user[n->index] = c->user;
    if (c->fill)
        n->users[n->n_users++] = c->user;
    else
        c->counts[n->index]++;
}

void fx_graph_recompute_users(fx_graph *g)
{
    fx_graph_renumber(g);
    size_t nn = g->n_nodes;
    if (!nn)
        return;
    users_ctx c = {.g = g};
    c.last_user = xcalloc(nn, sizeof *c.last_user);
    c.counts = xcalloc(nn, sizeof *c.counts);
    c.nodes = xcalloc(nn, sizeof *c.nodes);
    for (fx_node *n = g->first; n; n = n->next)
        c.nodes[n->index] = n;
    for (int pass = 0; pass < 2; pass++) {
        c.fill = pass == 1;
        memset(c.last_user, 0, nn * sizeof *c.last_user);
        if (c.fill)
            for (fx_node *n = g->first; n; n = n->next) {
                n->users = c.counts[n->index]
                               ? fx_alloc(g->owner->prog, c.counts[n->index] * sizeof *n->users)
                               : NULL;
                n->n_users = 0;
            }
        for (fx_node *n = g->first; n; n = n->next) {
            c.user = n;
            fx_arg_each_node(n->args, users_visit, &c);
            fx_arg_each_node(n->kwargs, users_visit, &c);
        }
    }
    free(c.last_user);
    free(c.counts);
    free(c.nodes);
}

static void refresh_module(fx_module *m)
{
    if (m->graph)
        fx_graph_recompute_users(m->graph);
    for (fx_module *c = m->first_child; c; c = c->next_sibling)
        refresh_module(c);
}

void fx_program_refresh(fx_program *p) { refresh_module(p->root); }

/* ---- shape checks at load ------------------------------------------------------------------ */

/* What is wrong with a non-empty tensor value's concrete strides, or NULL: a stride is a
 * non-negative integer, and the furthest element, storage_offset + sum((size-1)*stride), lies
 * below 2^63 (torch cannot make a tensor whose storage is larger). Symbolic entries are skipped. */
static const char *layout_problem(const fx_value *v, char *buf, size_t cap)
{
    int64_t far = v->storage_offset;
    for (size_t k = 0; v->strides && k < v->rank; k++) {
        int64_t size, stride, step;
        if (!v->sizes[k] || !v->strides[k] || shape_parse_dim(v->sizes[k], &size) != 1) continue;
        int r = shape_parse_dim(v->strides[k], &stride);
        if (r < 0) {
            snprintf(buf, cap, "stride %zu of its value meta, %.40s, is %s", k, v->strides[k],
                     v->strides[k][0] == '-' ? "negative" : "too large for 64 bits");
            return buf;
        }
        if (r == 0) continue;
        if (__builtin_mul_overflow(size - 1, stride, &step) || __builtin_add_overflow(far, step, &far)) {
            snprintf(buf, cap, "stride %zu of its value meta, %.40s, puts elements past storage element 2^63", k,
                     v->strides[k]);
            return buf;
        }
    }
    return NULL;
}

/* What is wrong with a value's concrete sizes and strides (in tuples too), or NULL. */
static const char *value_problem(const fx_value *v, int depth, char *buf, size_t cap)
{
    if (!v) return NULL;
    if (depth > 1000) {
        snprintf(buf, cap, "its value meta is nested more than 1000 deep");
        return buf;
    }
    if (v->kind == FX_VAL_TUPLE) {
        for (size_t i = 0; i < v->n_items; i++) {
            const char *r = value_problem(v->items[i], depth + 1, buf, cap);
            if (r) return r;
        }
        return NULL;
    }
    if (v->kind != FX_VAL_TENSOR || !v->sizes) return NULL;
    int64_t numel = 1;
    for (size_t k = 0; k < v->rank; k++) {
        int64_t dim;
        int r = v->sizes[k] ? shape_parse_dim(v->sizes[k], &dim) : 0;
        if (r < 0) {
            snprintf(buf, cap, "size %zu of its value meta, %.40s, is %s", k, v->sizes[k],
                     v->sizes[k][0] == '-' ? "negative" : "too large for 64 bits");
            return buf;
        }
        if (r == 0 || dim == 0) continue;
        if (numel > INT64_MAX / dim) {
            snprintf(buf, cap, "the element count of its value meta overflows 64 bits at size %zu (%.40s)", k,
                     v->sizes[k]);
            return buf;
        }
        numel *= dim;
    }
    if (!shape_bytes(numel, fx_dtype_get(v->dtype)->elem_size, NULL)) {
        snprintf(buf, cap, "its value meta describes more than 2^63 bytes");
        return buf;
    }
    return numel ? layout_problem(v, buf, cap) : NULL;
}

static bool check_module_shapes(const fx_program *p, const fx_module *m, diag_sink *d)
{
    char why[160];
    for (const fx_node *n = m->graph ? m->graph->first : NULL; n; n = n->next) {
        const char *bad = value_problem(n->meta.val, 0, why, sizeof why);
        if (bad) {
            diagnostic *dg = diag_error(d, (diag_loc){p->file, n->src_line, 0}, "node %%%s: %s", n->name, bad);
            diag_set_hint(dg, "sizes and strides are non-negative integers (or symbols such as s77 for dynamic ones) that keep every element below 2^63");
            return false;
        }
    }
    for (const fx_weight *w = m->params; w; w = w->next) {
        if (!w->shape) continue;
        const char *bad = shape_problem(w->shape, w->rank, fx_dtype_get(w->dtype)->elem_size, NULL, NULL, why, sizeof why);
        if (bad) {
            diag_error(d, (diag_loc){p->file, 0, 0}, "parameter '%s' of module '%s': its shape is invalid: %s", w->fqn,
                       m->name ? m->name : "", bad);
            return false;
        }
    }
    for (const fx_module *c = m->first_child; c; c = c->next_sibling)
        if (!check_module_shapes(p, c, d)) return false;
    return true;
}

bool fx_program_check_shapes(const fx_program *p, diag_sink *d)
{
    char why[160];
    for (const fx_weight *w = p->weights; w; w = w->next) {
        if (!w->shape) continue;
        const char *bad = shape_problem(w->shape, w->rank, fx_dtype_get(w->dtype)->elem_size, NULL, NULL, why, sizeof why);
        if (bad) {
            diag_error(d, (diag_loc){p->file, 0, 0}, "weight '%s': its shape is invalid: %s", w->fqn, bad);
            return false;
        }
    }
    return check_module_shapes(p, p->root, d);
}

fx_dtype fx_sym_dtype(const char *te)
{
    if (!te) return FX_DT_I64;
    if (strchr(te, '>') || strchr(te, '<') || strstr(te, "==") || strstr(te, "!=") || strstr(te, "Eq(") ||
        strstr(te, "Ne(") || strchr(te, '&') || strchr(te, '|') || *te == '~' || !strcmp(te, "True") ||
        !strcmp(te, "False"))
        return FX_DT_BOOL;
    if (strstr(te, "ToFloat") || strstr(te, "TrueDiv") || !strncmp(te, "zuf", 3)) return FX_DT_F64;
    for (const char *p = te; *p; p++) {
        if (*p == '/' && p[1] != '/' && (p == te || p[-1] != '/')) return FX_DT_F64;
        if (*p == '.' && p > te && p[-1] >= '0' && p[-1] <= '9' && p[1] >= '0' && p[1] <= '9') return FX_DT_F64;
    }
    return FX_DT_I64;
}
