/* ts_load.c — TorchScript IR text loader: lines → statements → FX nodes with control flow. */
#include "load/ts_load.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/strbuf.h"
#include "fx/fx_build.h"
#include "fx/fx_control.h"
#include "load/fx_weight_source.h"
#include "load/ts_load_internal.h"


/* ---- scopes --------------------------------------------------------------------------------- */

scope *tsl_scope_new(loader *L, scope *parent, fx_module *m)
{
    (void)L;
    scope *s = xcalloc(1, sizeof *s);
    s->parent = parent;
    s->m = m;
    s->g = fx_module_ensure_graph(m);
    hm_init(&s->vals);
    hm_init(&s->caps);
    return s;
}

void tsl_scope_free(scope *s)
{
    hm_free(&s->vals);
    hm_free(&s->caps);
    free(s->captured);
    free(s);
}

void tsl_insert_ph(scope *s, fx_node *ph)
{
    if (s->last_ph)
        fx_graph_insert_after(s->g, s->last_ph, ph);
    else if (s->g->first)
        fx_graph_insert_before(s->g, s->g->first, ph);
    else
        fx_graph_append(s->g, ph);
    s->last_ph = ph;
}

/* Moves node n of g just before `before` (both in g), keeping its name and users. */
void tsl_move_before(fx_graph *g, fx_node *n, fx_node *before)
{
    if (n == before || n->next == before)
        return;
    if (n->prev)
        n->prev->next = n->next;
    else
        g->first = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        g->last = n->prev;
    g->n_nodes--;
    fx_graph_insert_before(g, before, n);
}

/* The node in s's graph standing for n (a node of an enclosing graph): a placeholder created on
 * first use in every scope between n's graph and s, recorded as a captured operand. */
fx_node *tsl_capture(loader *L, scope *s, fx_node *n)
{
    if (n->graph == s->g || !s->parent)
        return n;
    fx_node *outer = tsl_capture(L, s->parent, n);
    fx_node *ph = hm_get(&s->caps, outer->name);
    if (ph)
        return ph;
    ph = fx_node_new(s->g, outer->name, FX_OP_PLACEHOLDER, NULL);
    ph->target = ph->name;
    tsl_insert_ph(s, ph);
    hm_put(&s->caps, outer->name, ph);
    xgrow((void **)&s->captured, &s->cap_captured, s->n_captured + 1, sizeof *s->captured);
    s->captured[s->n_captured++] = fx_arg_node(L->p, outer);
    return ph;
}

static fx_arg *capture_arg(loader *L, scope *s, fx_arg *a)
{
    if (!a)
        return a;
    if (a->kind == FX_ARG_NODE) {
        fx_node *c = tsl_capture(L, s, a->u.node);
        return c == a->u.node ? a : fx_arg_node(L->p, c);
    }
    if (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE) {
        fx_arg **items = xmalloc((a->u.seq.len + 1) * sizeof *items);
        bool changed = false;
        for (size_t i = 0; i < a->u.seq.len; i++) {
            items[i] = capture_arg(L, s, a->u.seq.items[i]);
            changed |= items[i] != a->u.seq.items[i];
        }
        fx_arg *r = changed ? fx_arg_seq(L->p, a->kind, items, NULL, a->u.seq.len) : a;
        free(items);
        return r;
    }
    return a;
}

tsval *tsl_lookup(loader *L, scope *s, const char *name)
{
    for (scope *c = s; c; c = c->parent) {
        tsval *v = hm_get(&c->vals, name);
        if (!v)
            continue;
        if (c == s || !v->arg)
            return v;
        tsval *nv = fx_alloc(L->p, sizeof *nv);
        *nv = *v;
        nv->arg = capture_arg(L, s, v->arg);
        hm_put(&s->vals, fx_strdup(L->p, name), nv);
        return nv;
    }
    return NULL;
}

void tsl_bind(loader *L, scope *s, const char *name, fx_arg *arg, const char *path, char tk)
{
    tsval *v = fx_alloc(L->p, sizeof *v);
    v->arg = arg;
    v->path = path;
    v->tk = tk;
    hm_put(&s->vals, fx_strdup(L->p, name), v);
}


/* ---- value meta of placeholders ------------------------------------------------------------ */

/* The meta a declared input or a weight gives its placeholder; every other node gets its meta
 * from meta inference (meta/meta_infer.h), which the loader's callers run on the program. */
static fx_value *tensor_val(fx_program *p, fx_dtype dt, size_t rank, const char **sizes)
{
    fx_value *v = fx_value_new(p, FX_VAL_TENSOR);
    v->dtype = dt;
    v->rank = rank;
    v->sizes = fx_alloc(p, (rank + 1) * sizeof *v->sizes);
    for (size_t i = 0; i < rank; i++)
        v->sizes[i] = sizes[i];
    v->device = "cpu";
    return v;
}

/* ---- statements → nodes ----------------------------------------------------------------------- */

void tsl_set_src(loader *L, fx_node *n, const stmt *st)
{
    n->src_line = st->ln->lineno;
    if (st->src_file) {
        n->meta.source = arena_printf(&L->p->arena, "%s:%d in forward", st->src_file, st->src_line);
        n->meta.stack_trace = arena_printf(&L->p->arena, "  File \"%s\", line %d, in forward\n",
                                           st->src_file, st->src_line);
    }
}

static fx_node *add_node(loader *L, scope *s, const char *base, const char *target, fx_arg **args, size_t na,
                         const stmt *st)
{
    fx_node *n = fx_node_new(s->g, fx_control_node_name(s->g, base), FX_OP_CALL_FUNCTION, target);
    fx_node_set_args(n, fx_arg_seq(L->p, FX_ARG_TUPLE, args, NULL, na), fx_arg_seq(L->p, FX_ARG_DICT, NULL, NULL, 0));
    fx_graph_append(s->g, n);
    tsl_set_src(L, n, st);
    return n;
}

fx_dtype ts_c10_scalar_type(int64_t st)
{
    static const fx_dtype table[] = {FX_DT_U8,  FX_DT_I8,  FX_DT_I16,  FX_DT_I32,     FX_DT_I64,    FX_DT_F16,
                                     FX_DT_F32, FX_DT_F64, FX_DT_C32,  FX_DT_C64,     FX_DT_C128,   FX_DT_BOOL,
                                     FX_DT_UNKNOWN, FX_DT_UNKNOWN, FX_DT_UNKNOWN, FX_DT_BF16};
    return st >= 0 && (size_t)st < sizeof table / sizeof *table ? table[st] : FX_DT_UNKNOWN;
}

const char *ts_c10_memory_format(int64_t mf)
{
    static const char *const names[] = {"contiguous_format", "preserve_format", "channels_last", "channels_last_3d"};
    return mf >= 0 && mf < 4 ? names[mf] : NULL;
}

/* torch.zeros(size, dtype=..) and friends: TorchScript passes dtype, layout, device and
 * pin_memory (and a memory format) positionally after the size or tensor (and fill value);
 * torch.export records them as keywords, with the device and pin_memory=False it resolved.
 * Returns the node, or NULL when op is not such a factory. */
static fx_node *factory_call(loader *L, scope *s, const stmt *st, const char *op, fx_arg **a, size_t na)
{
    static const struct {
        const char *op;
        size_t lead;
        bool like;
    } factories[] = {{"zeros", 1, false},     {"ones", 1, false},      {"empty", 1, false},
                     {"rand", 1, false},      {"randn", 1, false},     {"full", 2, false},
                     {"zeros_like", 1, true}, {"ones_like", 1, true},  {"empty_like", 1, true},
                     {"rand_like", 1, true},  {"randn_like", 1, true}, {"full_like", 2, true}};
    size_t f = 0, nf = sizeof factories / sizeof *factories;
    while (f < nf && strcmp(factories[f].op, op) != 0)
        f++;
    if (f == nf || na < factories[f].lead + 4 || na > factories[f].lead + 5)
        return NULL;
    size_t lead = factories[f].lead;
    bool like = factories[f].like;
    fx_program *p = L->p;
    const fx_arg *dt = a[lead], *layout = a[lead + 1], *device = a[lead + 2], *pin = a[lead + 3];
    const fx_arg *mf = na > lead + 4 ? a[lead + 4] : NULL;
    fx_arg *kv[5];
    const char *keys[5];
    size_t nk = 0;
    fx_dtype dtype = FX_DT_UNKNOWN;
    if (dt->kind == FX_ARG_INT) {
        dtype = ts_c10_scalar_type(dt->u.i);
        if (dtype == FX_DT_UNKNOWN)
            return NULL;
        keys[nk] = "dtype";
        kv[nk++] = fx_arg_dtype(p, dtype);
    } else if (dt->kind != FX_ARG_NONE) {
        return NULL;
    }
    if (layout->kind == FX_ARG_INT && layout->u.i == 0) {
        keys[nk] = "layout";
        kv[nk++] = fx_arg_str(p, FX_ARG_LAYOUT, "strided");
    } else if (layout->kind != FX_ARG_NONE) {
        return NULL;
    }
    if (device->kind == FX_ARG_STR || (!like && device->kind == FX_ARG_NONE)) {
        keys[nk] = "device";
        kv[nk++] = fx_arg_str(p, FX_ARG_DEVICE, device->kind == FX_ARG_STR ? device->u.s : "cpu");
    } else if (device->kind != FX_ARG_NONE) {
        return NULL;
    }
    keys[nk] = "pin_memory";
    kv[nk++] = fx_arg_bool(p, pin->kind == FX_ARG_BOOL && pin->u.b);
    if (mf && mf->kind == FX_ARG_INT && ts_c10_memory_format(mf->u.i)) {
        keys[nk] = "memory_format";
        kv[nk++] = fx_arg_str(p, FX_ARG_MEMFMT, ts_c10_memory_format(mf->u.i));
    } else if (mf && mf->kind != FX_ARG_NONE) {
        return NULL;
    }
    const char *target = arena_printf(&p->arena, "torch.ops.aten.%s.%s", op,
                                      strcmp(op, "empty") == 0 ? "memory_format" : "default");
    fx_node *n = add_node(L, s, op, target, a, lead, st);
    fx_node_set_args(n, n->args, fx_arg_seq(p, FX_ARG_DICT, kv, keys, nk));
    return n;
}

static fx_arg *constant_arg(loader *L, const stmt *st)
{
    fx_program *p = L->p;
    char tk = st->n_out ? st->out_tk[0] : 'o';
    if (st->attr_name)
        return fx_arg_str(p, FX_ARG_OPAQUE, arena_printf(&p->arena, "torch.nn.functional.%s", st->attr_name));
    if (!st->has_value)
        return fx_arg_none(p);
    const char *v = st->attr_value;
    if (st->value_is_str || tk == 's')
        return fx_arg_str(p, FX_ARG_STR, v);
    if (tk == 'i')
        return fx_arg_int(p, strtoll(v, NULL, 10));
    if (tk == 'b')
        return fx_arg_bool(p, strcmp(v, "0") != 0 && strcmp(v, "False") != 0);
    if (tk == 'f')
        return fx_arg_float(p, strtod(v, NULL));
    if (tk == 'l' && strstr(v, "[]"))
        return fx_arg_seq(p, FX_ARG_LIST, NULL, NULL, 0);
    return fx_arg_str(p, FX_ARG_OPAQUE, v);
}

/* A buffer, by what the weights file says or, without one, by BatchNorm's buffer names. */
static bool is_buffer(const fx_weight *w, const char *fqn)
{
    if (w && w->role == FX_TENSOR_BUFFER)
        return true;
    const char *last = strrchr(fqn, '.');
    last = last ? last + 1 : fqn;
    return strcmp(last, "running_mean") == 0 || strcmp(last, "running_var") == 0 ||
           strcmp(last, "num_batches_tracked") == 0;
}

/* The placeholder p_<fqn> / b_<fqn> of a weight, created on first use: torch.export lifts the
 * parameters first, then the buffers, both before the user inputs. */
static fx_node *param_placeholder(loader *L, const char *fqn)
{
    fx_node *ph = hm_get(&L->params, fqn);
    if (ph)
        return ph;
    fx_weight *w = fx_program_weight(L->p, fqn);
    bool buffer = is_buffer(w, fqn);
    char pname[520];
    fx_lifted_name(buffer ? FX_TENSOR_BUFFER : FX_TENSOR_PARAMETER, fqn, pname, sizeof pname);
    ph = fx_node_new(L->root->g, pname, FX_OP_PLACEHOLDER, NULL);
    ph->target = ph->name;
    if (w) {
        const char *sizes[16];
        size_t r = w->rank < 16 ? w->rank : 16;
        for (size_t i = 0; i < r; i++)
            sizes[i] = arena_printf(&L->p->arena, "%lld", (long long)w->shape[i]);
        ph->meta.val = tensor_val(L->p, w->dtype, r, sizes);
    }
    fx_node *before = buffer ? L->first_user_ph : L->first_buffer_ph ? L->first_buffer_ph : L->first_user_ph;
    if (before)
        fx_graph_insert_before(L->root->g, before, ph);
    else
        tsl_insert_ph(L->root, ph);
    if (buffer && !L->first_buffer_ph)
        L->first_buffer_ph = ph;
    const char *key = fx_strdup(L->p, fqn);
    hm_put(&L->params, key, ph);
    hm_put(&L->param_fqn, ph->name, (void *)key);
    return ph;
}

/* torch.export lifts every parameter and buffer of the model, used or not (num_batches_tracked
 * of an eval-mode BatchNorm), parameters first, each in state-dict order. With a weights table,
 * the weights of every submodule the graph reaches become placeholders in the table's order
 * (a .pt2 holds the state dict; the model's own attributes are lifted as they are used, since
 * an .onnx also holds constants that are not weights). */
static void lift_weights(loader *L)
{
    for (int pass = 0; pass < 2; pass++)
        for (const fx_weight *w = L->p->weights; w; w = w->next) {
            fx_node *ph = hm_get(&L->params, w->fqn);
            const char *dot = strrchr(w->fqn, '.');
            if (!ph && dot) {
                char *path = fx_strndup(L->p, w->fqn, (size_t)(dot - w->fqn));
                if (hm_has(&L->modules, path))
                    ph = param_placeholder(L, w->fqn);
            }
            if (ph && is_buffer(w, w->fqn) == (pass == 1) && L->first_user_ph)
                tsl_move_before(L->root->g, ph, L->first_user_ph);
        }
}

/* prim::GetAttr: a submodule (a path), a parameter or buffer (a lifted placeholder), `training`
 * (False: exported in eval mode), a declared attribute (--attr), or an opaque self.NAME. */
static bool do_get_attr(loader *L, scope *s, const stmt *st, tsval *const *args)
{
    fx_program *p = L->p;
    if (st->n_args != 1 || !args[0]->path || !st->attr_name || st->n_out != 1) {
        tsl_err(L, st->ln, "prim::GetAttr needs a module and a name");
        return false;
    }
    const char *fqn = args[0]->path[0] ? arena_printf(&p->arena, "%s.%s", args[0]->path, st->attr_name)
                                       : fx_strdup(p, st->attr_name);
    char tk = st->out_tk[0];
    const ts_attr_decl *decl;
    bool is_module = st->type0_len > 10 && strncmp(st->type0, "__torch__.", 10) == 0;
    if (is_module) {
        hm_put(&L->modules, fqn, (void *)fqn);
        tsl_bind(L, s, st->out[0], NULL, fqn, 'o');
    } else if (tk == 'T') {
        bool optional = st->type0_len == 7 && strncmp(st->type0, "Tensor?", 7) == 0;
        if (optional && L->opts && L->opts->weights_path && !fx_program_weight(p, fqn)) {
            tsl_bind(L, s, st->out[0], fx_arg_none(p), NULL, 'n');
        } else {
            fx_node *ph = param_placeholder(L, fqn);
            tsl_bind(L, s, st->out[0], fx_arg_node(p, tsl_capture(L, s, ph)), NULL, 'T');
        }
    } else if (tk == 'b' && strcmp(st->attr_name, "training") == 0) {
        tsl_bind(L, s, st->out[0], fx_arg_bool(p, false), NULL, 'b');   /* exported in eval mode */
    } else if ((decl = tsl_attr_decl(L, fqn, st->attr_name))) {
        tsl_bind(L, s, st->out[0], tsl_attr_value(p, decl->value), NULL, tk);
    } else {
        tsl_bind(L, s, st->out[0], fx_arg_str(p, FX_ARG_OPAQUE, arena_printf(&p->arena, "self.%s", fqn)), NULL, tk);
    }
    return true;
}

/* prim:: ops on Python values (list/tuple construct and unpack, casts): 1 done, 0 failed
 * (reported), -1 not one of them. */
static int do_prim_value(loader *L, scope *s, const stmt *st, fx_arg **a)
{
    fx_program *p = L->p;
    const char *k = st->kind;
    if (strcmp(k, "prim::ListConstruct") == 0 || strcmp(k, "prim::TupleConstruct") == 0) {
        if (st->n_out != 1) {
            tsl_err(L, st->ln, "construct must have one output");
            return 0;
        }
        fx_arg_kind kind = k[6] == 'L' ? FX_ARG_LIST : FX_ARG_TUPLE;
        fx_arg *lit = fx_arg_seq(p, kind, a, NULL, st->n_args);
        if (kind == FX_ARG_LIST && hm_has(&L->appended, st->out[0])) {
            /* a list the code appends to is one object wherever it is used (a loop body fills
             * it): a node list([...]) makes it a value, which a literal argument is not */
            fx_node *n = add_node(L, s, "list", "builtins.list", &lit, 1, st);
            tsl_bind(L, s, st->out[0], fx_arg_node(p, n), NULL, 'l');
            return 1;
        }
        tsl_bind(L, s, st->out[0], lit, NULL, 'l');
        return 1;
    }
    if (strcmp(k, "prim::ListUnpack") == 0 || strcmp(k, "prim::TupleUnpack") == 0) {
        if (st->n_args != 1) {
            tsl_err(L, st->ln, "unpack takes one value");
            return 0;
        }
        fx_arg *src = a[0];
        if ((src->kind == FX_ARG_LIST || src->kind == FX_ARG_TUPLE) && src->u.seq.len == st->n_out) {
            for (size_t i = 0; i < st->n_out; i++)
                tsl_bind(L, s, st->out[i], src->u.seq.items[i], NULL, st->out_tk[i]);
            return 1;
        }
        if (src->kind != FX_ARG_NODE) {
            tsl_err(L, st->ln, "unpack of a value of the wrong length");
            return 0;
        }
        tsl_bind_outputs(L, s, st, src->u.node);
        return 1;
    }
    if (strcmp(k, "prim::unchecked_cast") == 0 && st->n_args == 1 && st->n_out == 1) {
        tsl_bind(L, s, st->out[0], a[0], NULL, st->out_tk[0]);
        return 1;
    }
    if (strcmp(k, "prim::Uninitialized") == 0 && st->n_out == 1) {
        tsl_bind(L, s, st->out[0], fx_arg_none(p), NULL, st->out_tk[0]);
        return 1;
    }
    return -1;
}

/* aten::op: a Python callable on Python values, else the ATen overload for the argument kinds
 * (kinds in tks), with the outputs bound and an in-place op's self rebound to its result. */
static bool do_aten(loader *L, scope *s, const stmt *st, const char *op, fx_arg **a, const char *tks)
{
    fx_program *p = L->p;
    const char *target, *base;
    bool any_tensor = false;
    for (size_t i = 0; i < st->n_args; i++)
        any_tensor |= tks[i] == 'T';
    target = NULL;
    size_t na = st->n_args;
    fx_arg **args = a;
    fx_arg *extra[MAX_ARGS + 1];
    if (!any_tensor)
        target = tsl_scalar_op_target(op);
    base = tsl_base_name(L, op);
    if (!any_tensor && strcmp(op, "slice") == 0 && na == 4) {
        /* a list slice l[start:end:step] is Python indexing */
        fx_arg *sl[3] = {a[1], a[2], a[3]};
        extra[0] = a[0];
        extra[1] = fx_arg_seq(p, FX_ARG_SLICE, sl, NULL, 3);
        args = extra;
        na = 2;
        target = "operator.getitem";
        base = "getitem";
    } else if (strcmp(op, "len") == 0 && na == 1 && tks[0] == 'T') {
        /* len(t) reads t.shape[0] */
        extra[0] = a[0];
        extra[1] = fx_arg_int(p, 0);
        args = extra;
        na = 2;
        target = "torch.ops.aten.sym_size.int";
    }
    if (!target && strcmp(op, "size") == 0) {
        target = tsl_aten_target(L, op, tks, na);   /* named after the TorchScript call */
    } else if (!target) {
        /* arguments as TorchScript passes them (all of them): tsn_prepare_program (capture/)
         * puts them in the form torch.export records */
        target = tsl_aten_target(L, op, tks, na);
        const char *d1 = target + strlen("torch.ops.aten."), *d2 = strchr(d1, '.');
        base = tsl_base_name(L, fx_strndup(p, d1, d2 ? (size_t)(d2 - d1) : strlen(d1)));
    }
    fx_node *n = factory_call(L, s, st, op, a, st->n_args);
    if (!n)
        n = add_node(L, s, base, target, args, na, st);
    if (st->n_out == 1)
        tsl_bind(L, s, st->out[0], fx_arg_node(p, n), NULL, st->out_tk[0]);
    else if (st->n_out > 1)
        tsl_bind_outputs(L, s, st, n);
    /* an in-place op returns its (mutated) self: later uses of self read its result, as
     * torch.export's proxy for the tensor becomes the op's node */
    size_t ol = strlen(op);
    if (any_tensor && ol > 1 && op[ol - 1] == '_' && op[ol - 2] != '_' && st->n_args > 0 && tks[0] == 'T' &&
        st->n_out == 1)
        tsl_bind(L, s, st->args[0], fx_arg_node(p, n), NULL, 'T');
    return true;
}

/* Any other prim:: op keeps its name (fxsh.prim.NAME) so nothing is silently lost. */
static bool do_other_prim(loader *L, scope *s, const stmt *st, fx_arg **a)
{
    fx_program *p = L->p;
    const char *k = st->kind;
    const char *pk = strncmp(k, "prim::", 6) == 0 ? k + 6 : k;
    char *tgt = arena_printf(&p->arena, "fxsh.prim.%s", pk);
    for (char *c = tgt; *c; c++)
        if (*c == ':')
            *c = '_';
    fx_node *n = add_node(L, s, strcmp(pk, "RaiseException") == 0 ? "raise_exception" : pk, tgt, a, st->n_args, st);
    if (st->n_out == 1)
        tsl_bind(L, s, st->out[0], fx_arg_node(p, n), NULL, st->out_tk[0]);
    else if (st->n_out > 1)
        tsl_bind_outputs(L, s, st, n);
    return true;
}

/* One statement → nodes of s's graph (or only bindings); false after reporting. */
static bool do_stmt(loader *L, scope *s, stmt *st)
{
    const char *k = st->kind;
    if (strcmp(k, "prim::If") == 0)
        return tsl_do_if(L, s, st);
    if (strcmp(k, "prim::Loop") == 0)
        return tsl_do_loop(L, s, st);
    if (strcmp(k, "prim::Constant") == 0) {
        if (st->n_out != 1) {
            tsl_err(L, st->ln, "prim::Constant must have one output");
            return false;
        }
        tsl_bind(L, s, st->out[0], constant_arg(L, st), NULL, st->out_tk[0]);
        return true;
    }
    tsval *args[MAX_ARGS];
    char tks[MAX_ARGS + 1];
    for (size_t i = 0; i < st->n_args; i++) {
        args[i] = tsl_lookup(L, s, st->args[i]);
        if (!args[i]) {
            char msg[160];
            snprintf(msg, sizeof msg, "use of undefined value %%%s", st->args[i]);
            tsl_err(L, st->ln, msg);
            return false;
        }
        tks[i] = args[i]->tk;
    }
    tks[st->n_args] = 0;
    if (strcmp(k, "prim::GetAttr") == 0)
        return do_get_attr(L, s, st, args);
    fx_arg *a[MAX_ARGS];
    for (size_t i = 0; i < st->n_args; i++) {
        a[i] = args[i]->arg;
        if (!a[i]) {
            tsl_err(L, st->ln, "a module is used as a value");
            return false;
        }
    }
    int done = do_prim_value(L, s, st, a);
    if (done >= 0)
        return done == 1;
    const char *op = strncmp(k, "aten::", 6) == 0 ? k + 6 : NULL;
    if (op && strcmp(op, "Bool") == 0 && st->n_args == 1 && tks[0] == 'T' && st->n_out == 1) {
        /* Python truthiness: `if t:` keeps the tensor itself as the condition */
        tsl_bind(L, s, st->out[0], a[0], NULL, 'T');
        return true;
    }
    return op ? do_aten(L, s, st, op, a, tks) : do_other_prim(L, s, st, a);
}

/* Statements at indentation > indent until the "-> (...)" / "return (...)" line. */
bool tsl_parse_block_body(loader *L, scope *s, size_t indent, const ts_line **ret_line)
{
    while (L->pos < L->n_lines) {
        const ts_line *ln = &L->lines[L->pos];
        if (interrupt_pending()) {
            tsl_err(L, ln, "interrupted");
            return false;
        }
        if (ln->indent <= indent && indent > 0) {
            tsl_err(L, ln, "block ends without '-> (...)'");
            return false;
        }
        L->pos++;
        if ((ln->len >= 2 && strncmp(ln->s, "->", 2) == 0) || (ln->len >= 6 && strncmp(ln->s, "return", 6) == 0)) {
            *ret_line = ln;
            return true;
        }
        stmt st;
        if (!tsl_parse_stmt(L, ln, &st) || !do_stmt(L, s, &st))
            return false;
    }
    tsl_err(L, L->n_lines ? &L->lines[L->n_lines - 1] : NULL, "unexpected end of the TorchScript graph");
    return false;
}

/* ---- weights -------------------------------------------------------------------------------- */

static bool load_weights(loader *L, const char *path)
{
    /* The weights table is filled before the graph is read, so that GetAttr chains resolve to
     * parameters with their dtype and shape. */
    return load_attach_weights(L->p, path, NULL, L->d);
}

/* ---- entry points ------------------------------------------------------------------------------ */

bool ts_sniff(const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    static const char magic[] = "graph(%self : __torch__.";
    return len - i >= sizeof magic - 1 && memcmp(text + i, magic, sizeof magic - 1) == 0;
}

bool ts_parse_input_decl(const char *s, ts_input_decl *out)
{
    memset(out, 0, sizeof *out);
    const char *eq = strchr(s, '=');
    const char *br = eq ? strchr(eq, '[') : NULL;
    if (!eq || eq == s || !br || br == eq + 1)
        return false;
    if ((size_t)(eq - s) >= sizeof out->name)
        return false;
    snprintf(out->name, sizeof out->name, "%.*s", (int)(eq - s), s);
    out->dtype = fx_dtype_from_abbr(eq + 1, (size_t)(br - eq - 1));
    if (out->dtype == FX_DT_UNKNOWN)
        out->dtype = fx_dtype_from_torch_name(eq + 1, (size_t)(br - eq - 1));
    if (out->dtype == FX_DT_UNKNOWN)
        return false;
    const char *c = br + 1;
    while (*c && *c != ']') {
        /* a size, or a symbol for a dimension export keeps dynamic (s77, batch) */
        const char *e = c;
        bool digits = isdigit((unsigned char)*c), ident = isalpha((unsigned char)*c) || *c == '_';
        while (*e && *e != ',' && *e != ']' && *e != ' ') {
            digits &= isdigit((unsigned char)*e) != 0;
            ident &= isalnum((unsigned char)*e) || *e == '_';
            e++;
        }
        if (e == c || out->rank == 8 || (size_t)(e - c) >= sizeof out->dims[0] || !(digits || ident))
            return false;
        snprintf(out->dims[out->rank++], sizeof out->dims[0], "%.*s", (int)(e - c), c);
        c = e;
        while (*c == ' ' || *c == ',')
            c++;
    }
    return *c == ']' && c[1] == 0;
}

bool ts_parse_attr_decl(const char *s, ts_attr_decl *out)
{
    memset(out, 0, sizeof *out);
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof out->name || strlen(eq + 1) >= sizeof out->value)
        return false;
    for (const char *c = s; c < eq; c++)
        if (!tsl_is_name_char(*c))
            return false;
    const char *v = eq + 1;
    size_t n = strlen(v);
    bool ok = !strcmp(v, "True") || !strcmp(v, "False") || !strcmp(v, "None") ||
              (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]);
    if (!ok && n) {
        char *end;
        (void)strtod(v, &end);
        ok = !*end;
    }
    if (!ok)
        return false;
    snprintf(out->name, sizeof out->name, "%.*s", (int)(eq - s), s);
    snprintf(out->value, sizeof out->value, "%s", v);
    return true;
}

static bool parse_header(loader *L, scope *root)
{
    /* the header spans lines until one ending in "):" */
    if (L->n_lines == 0 || L->lines[0].len < 6 || memcmp(L->lines[0].s, "graph(", 6) != 0) {
        tsl_err(L, L->n_lines ? &L->lines[0] : NULL, "expected 'graph(' at the start of TorchScript IR");
        return false;
    }
    bool done = false;
    for (; L->pos < L->n_lines && !done; L->pos++) {
        const ts_line *ln = &L->lines[L->pos];
        size_t i = L->pos == 0 ? 6 : 0, n = ln->len;
        while (i < n) {
            tsl_skip_sp(ln->s, n, &i);
            if (i < n && ln->s[i] == ')') {
                done = true;
                break;
            }
            const char *name = tsl_read_value(L, ln->s, n, &i);
            size_t ts, te;
            if (!name || i + 3 > n || strncmp(ln->s + i, " : ", 3) != 0) {
                tsl_err(L, ln, "expected '%name : type' in the graph header");
                return false;
            }
            i += 3;
            tsl_read_type(ln->s, n, &i, &ts, &te);
            if (strcmp(name, "self") == 0) {
                tsl_bind(L, root, name, NULL, "", 'o');
            } else {
                char base[128];
                snprintf(base, sizeof base, "%s", name);
                char *dot = strchr(base, '.');
                if (dot)
                    *dot = 0;
                fx_node *ph = fx_node_new(root->g, base, FX_OP_PLACEHOLDER, NULL);
                ph->target = ph->name;
                tsl_insert_ph(root, ph);
                if (!L->first_user_ph)
                    L->first_user_ph = ph;
                for (size_t k = 0; L->opts && k < L->opts->n_inputs; k++) {
                    const ts_input_decl *in = &L->opts->inputs[k];
                    if (strcmp(in->name, base) == 0) {
                        const char *sizes[8];
                        for (size_t r = 0; r < in->rank; r++)
                            sizes[r] = fx_strdup(L->p, in->dims[r]);
                        ph->meta.val = tensor_val(L->p, in->dtype, in->rank, sizes);
                    }
                }
                tsl_bind(L, root, name, fx_arg_node(L->p, ph), NULL, tsl_type_kind(ln->s + ts, te - ts));
            }
            if (i < n && ln->s[i] == ',')
                i++;
        }
    }
    if (!done) {
        tsl_err(L, NULL, "unterminated graph header");
        return false;
    }
    return true;
}

static void fill_signature(loader *L)
{
    fx_program *p = L->p;
    fx_graph *g = p->root->graph;
    size_t n_in = 0;
    for (fx_node *n = g->first; n && n->op == FX_OP_PLACEHOLDER; n = n->next)
        n_in++;
    p->sig.inputs = fx_alloc(p, (n_in + 1) * sizeof *p->sig.inputs);
    for (fx_node *n = g->first; n && n->op == FX_OP_PLACEHOLDER; n = n->next) {
        fx_input_spec *in = &p->sig.inputs[p->sig.n_inputs++];
        const char *fqn = hm_get(&L->param_fqn, n->name);
        in->name = n->name;
        in->target = fqn;
        in->kind = !fqn ? FX_IN_USER_INPUT : n->name[0] == 'b' ? FX_IN_BUFFER : FX_IN_PARAMETER;
        in->persistent = fqn && n->name[0] == 'b';
    }
    const fx_arg *t = g->last && g->last->op == FX_OP_OUTPUT ? g->last->args->u.seq.items[0] : NULL;
    size_t n_out = t ? t->u.seq.len : 0;
    p->sig.outputs = fx_alloc(p, (n_out + 1) * sizeof *p->sig.outputs);
    for (size_t i = 0; i < n_out; i++) {
        fx_output_spec *o = &p->sig.outputs[p->sig.n_outputs++];
        o->kind = FX_OUT_USER_OUTPUT;
        o->name = t->u.seq.items[i]->kind == FX_ARG_NODE ? t->u.seq.items[i]->u.node->name : "None";
    }
    p->sig.present = true;
}

fx_program *ts_load_text(const char *text, size_t len, const char *file, const ts_load_options *opts,
                         diag_sink *d)
{
    loader L = {0};
    L.d = d;
    L.file = file;
    L.opts = opts;
    L.p = fx_program_new("GraphModule");
    L.p->source_form = FX_FORM_EXPORT;
    L.p->file = file ? fx_strdup(L.p, file) : NULL;
    hm_init(&L.params);
    hm_init(&L.param_fqn);
    tsl_split_lines(&L, text, len);
    hm_init(&L.appended);
    hm_init(&L.modules);
    static const char app[] = "aten::append(%";
    for (size_t i = 0; i + sizeof app - 1 <= len; i++) {
        if (text[i] != 'a' || memcmp(text + i, app, sizeof app - 1) != 0)
            continue;
        size_t b = i + sizeof app - 1, e = b;
        while (e < len && tsl_is_name_char(text[e]))
            e++;
        hm_put(&L.appended, fx_strndup(L.p, text + b, e - b), (void *)(text + b));
        i = e;
    }
    /* The scripted class (`%self : __torch__.model.PyIfData`) names the model, as repr(model)
     * does in torch.onnx's progress lines. */
    const char *cls = NULL;
    for (size_t i = 0; i + 10 <= len && !cls; i++)
        if (text[i] == '_' && memcmp(text + i, "__torch__.", 10) == 0) cls = text + i;
    if (cls) {
        const char *e = cls, *end = text + len, *last = cls + 10;
        while (e < end && (isalnum((unsigned char)*e) || *e == '_' || *e == '.')) {
            if (*e == '.') last = e + 1;
            e++;
        }
        if (e > last) L.p->root->type = fx_strndup(L.p, last, (size_t)(e - last));
    }
    bool ok = !(opts && opts->weights_path) || load_weights(&L, opts->weights_path);
    scope *root = tsl_scope_new(&L, NULL, L.p->root);
    L.root = root;
    const ts_line *ret = NULL;
    if (ok)
        ok = parse_header(&L, root);
    if (ok)
        ok = tsl_parse_block_body(&L, root, 0, &ret) && tsl_finish_block(&L, root, ret);
    if (ok)
        lift_weights(&L);
    if (ok && L.pos < L.n_lines) {
        tsl_err(&L, &L.lines[L.pos], "text after the graph's return");
        ok = false;
    }
    if (ok && root->g->last) {
        /* the root returns a flat tuple of user outputs as torch.export does */
        fill_signature(&L);
        fx_program_refresh(L.p);
    }
    tsl_scope_free(root);
    hm_free(&L.params);
    hm_free(&L.param_fqn);
    hm_free(&L.appended);
    hm_free(&L.modules);
    free(L.lines);
    if (ok && !L.failed && !fx_program_check_shapes(L.p, d))
        ok = false;
    if (!ok || L.failed) {
        if (!diag_has_errors(d))
            diag_error(d, (diag_loc){file, 0, 0}, "could not load the TorchScript graph");
        fx_program_free(L.p);
        return NULL;
    }
    return L.p;
}
