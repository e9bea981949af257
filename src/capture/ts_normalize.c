/* ts_normalize.c — TorchScript's positional, all-defaults calls rewritten into the argument form
 * torch's dispatcher hands to torch.export (schemas from the meta tables). */
#include "capture/ts_normalize.h"

#include <string.h>

#include "load/ts_load.h"
#include "meta/meta_infer.h"

/* A c10 enum number where the schema wants the enum: the torch value TorchScript meant. */
static fx_arg *enum_value(fx_program *p, const aten_arg *sa, fx_arg *a)
{
    if (a->kind == FX_ARG_INT && sa->base == ATY_SCALARTYPE && ts_c10_scalar_type(a->u.i) != FX_DT_UNKNOWN)
        return fx_arg_dtype(p, ts_c10_scalar_type(a->u.i));
    if (a->kind == FX_ARG_INT && sa->base == ATY_MEMFMT && ts_c10_memory_format(a->u.i))
        return fx_arg_str(p, FX_ARG_MEMFMT, ts_c10_memory_format(a->u.i));
    if (a->kind == FX_ARG_INT && sa->base == ATY_LAYOUT && a->u.i == 0)
        return fx_arg_str(p, FX_ARG_LAYOUT, "strided");
    if (a->kind == FX_ARG_STR && sa->base == ATY_DEVICE)
        return fx_arg_str(p, FX_ARG_DEVICE, a->u.s);
    return a;
}

static bool is_number(const fx_arg *a, double *v)
{
    if (a->kind == FX_ARG_INT)
        *v = (double)a->u.i;
    else if (a->kind == FX_ARG_FLOAT)
        *v = a->u.f;
    else if (a->kind == FX_ARG_BOOL)
        *v = a->u.b;
    else
        return false;
    return true;
}

/* IValue equality of an argument and its schema default (a number default of a fixed-size
 * list, "int[2] stride=1", stands for a list of copies of it). */
static bool equals_default(const fx_arg *a, const fx_arg *def, const aten_arg *sa)
{
    double x, y;
    if (a->kind == FX_ARG_NONE || def->kind == FX_ARG_NONE)
        return a->kind == def->kind;
    if ((a->kind == FX_ARG_BOOL) != (def->kind == FX_ARG_BOOL))
        return false;
    if (is_number(a, &x) && is_number(def, &y))
        return x == y;
    if (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE) {
        const char *br = strchr(sa->type_text, '[');
        bool sized = br && br[1] >= '1' && br[1] <= '9';
        if (def->kind == FX_ARG_LIST || def->kind == FX_ARG_TUPLE) {
            if (def->u.seq.len != a->u.seq.len)
                return false;
            for (size_t i = 0; i < a->u.seq.len; i++)
                if (!equals_default(a->u.seq.items[i], def->u.seq.items[i], sa))
                    return false;
            return true;
        }
        /* the meta tables share one schema among conv1d/2d/3d: any length of the default */
        if (!sized || !is_number(def, &y) || a->u.seq.len == 0)
            return false;
        for (size_t i = 0; i < a->u.seq.len; i++)
            if (!is_number(a->u.seq.items[i], &x) || x != y)
                return false;
        return true;
    }
    if (a->kind == FX_ARG_DTYPE)
        return def->kind == FX_ARG_DTYPE && a->u.dtype == def->u.dtype;
    if (a->kind == FX_ARG_STR || a->kind == FX_ARG_MEMFMT || a->kind == FX_ARG_LAYOUT || a->kind == FX_ARG_DEVICE)
        return (def->kind == FX_ARG_STR || def->kind == a->kind) && !strcmp(a->u.s, def->u.s);
    return false;
}

void tsn_normalize_node(fx_program *p, const meta_rules *rules, fx_node *n)
{
    const mi_rule *rule = meta_rules_find(rules, n->target);
    if (!rule)
        return;
    const aten_schema *s = &rule->schema;
    size_t na = n->args->u.seq.len;
    if (na > s->nargs)
        return;   /* not this overload's call: meta inference will say so */
    fx_arg **pos = fx_alloc(p, (s->nargs + 1) * sizeof *pos);
    size_t npos = 0, kw_start = s->nargs;
    for (size_t i = 0; i < s->nargs; i++)
        if (s->args[i].kwarg_only) {
            kw_start = i;
            break;
        }
    size_t nk0 = n->kwargs->u.seq.len;
    fx_arg **kv = fx_alloc(p, (nk0 + s->nargs + 1) * sizeof *kv);
    const char **keys = fx_alloc(p, (nk0 + s->nargs + 1) * sizeof *keys);
    size_t nk = 0;
    for (size_t i = 0; i < na; i++) {
        const aten_arg *sa = &s->args[i];
        fx_arg *a = enum_value(p, sa, n->args->u.seq.items[i]);
        /* torch.backends.cudnn.enabled, frozen True by scripting, is False under torch.export */
        if (sa->base == ATY_BOOL && (!strcmp(sa->name, "cudnn_enabled") || !strcmp(sa->name, "cudnn_enable")))
            a = fx_arg_bool(p, false);
        const fx_arg *def = meta_rules_default(rules, rule, i);
        if (i < kw_start) {
            pos[npos++] = a;
        } else if (!def || !equals_default(a, def, sa)) {
            keys[nk] = sa->name;
            kv[nk++] = a;
        }
    }
    /* trailing positional arguments at their default go */
    while (npos > 0) {
        const fx_arg *def = meta_rules_default(rules, rule, npos - 1);
        if (!def || !equals_default(pos[npos - 1], def, &s->args[npos - 1]))
            break;
        npos--;
    }
    for (size_t k = 0; k < nk0; k++) {
        keys[nk] = n->kwargs->u.seq.keys[k];
        kv[nk++] = n->kwargs->u.seq.items[k];
    }
    fx_node_set_args(n, fx_arg_seq(p, FX_ARG_TUPLE, pos, NULL, npos), fx_arg_seq(p, FX_ARG_DICT, kv, keys, nk));
}

static void normalize_module(fx_program *p, const meta_rules *rules, fx_module *m)
{
    for (fx_node *n = m->graph ? m->graph->first : NULL; n; n = n->next)
        if (n->op == FX_OP_CALL_FUNCTION)
            tsn_normalize_node(p, rules, n);
    for (fx_module *c = m->first_child; c; c = c->next_sibling)
        normalize_module(p, rules, c);
}

void tsn_normalize_program_with(fx_program *p, const meta_rules *rules)
{
    normalize_module(p, rules, p->root);
    fx_program_refresh(p);
}

bool tsn_prepare_program(fx_program *p, diag_sink *d)
{
    const meta_rules *r = meta_rules_shipped(d);
    if (!r)
        return false;
    tsn_normalize_program_with(p, r);
    meta_infer_program_with(p, r, d);
    return true;
}
