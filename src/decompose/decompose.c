/* decompose.c — the decompose pass: each call decomposed, ONNX type promotion, functionalization,
 * dead-code elimination and the rebuilt program (see decompose.h). */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/interrupt.h"
#include "capture/export.h"
#include "decompose/decompose.h"
#include "tables/aten_schemas.h"
#include "decompose/decompose_internal.h"
#include "decompose/functionalize.h"
#include "fx/fx_build.h"
#include "meta/meta_infer.h"
#include "meta/meta_layout.h"
#include "meta/meta_promote.h"
#include "tables/pass_tables.h"
#include "tables/tables.h"

/* ---- ONNX type promotion --------------------------------------------------------------------- */

/* Converts the tensor operand *a to dtype (prims.convert_element_type(a, dtype=dtype), as the
 * exporter's type promotion inserts it) unless it has that dtype already. */
static void convert_operand(dctx *c, fx_arg **a, fx_dtype dtype)
{
    const fx_value *v = dc_meta_of(*a);
    if (!v || v->kind != FX_VAL_TENSOR || v->dtype == dtype)
        return;
    fx_arg *ca[1] = { *a };
    const char *kn[1] = { "dtype" };
    fx_arg *kv[1] = { fx_arg_dtype(c->dst, dtype) };
    fx_node *cv = dc_emit(c, "torch.ops.prims.convert_element_type.default", ca, 1, kn, kv, 1,
                          "convert_element_type_default");
    fx_value *cvv = fx_value_new(c->dst, FX_VAL_TENSOR);
    *cvv = *v;
    cvv->dtype = dtype;
    cv->meta.val = cvv;
    *a = fx_arg_node(c->dst, cv);
}

/* The exporter's rule for sum-like reductions (sum, prod, cumsum, cumprod): without a dtype, a
 * bool or integer input is reduced in int64, so an input of another integer type is converted
 * to int64 first (prims.convert_element_type), as ONNX's ReduceSum / CumSum take no bool. */
static void promote_sum_like(dctx *c, const char *base, fx_arg **args, size_t na, const fx_arg *kwargs)
{
    static const char *const sum_like[] = { "sum", "prod", "cumsum", "cumprod", NULL };
    bool known = false;
    for (size_t i = 0; sum_like[i]; i++)
        known |= !strcmp(base, sum_like[i]);
    for (size_t i = 0; known && kwargs && i < kwargs->u.seq.len; i++)
        known = strcmp(kwargs->u.seq.keys[i], "dtype") != 0;
    const fx_value *v = known && na ? dc_meta_of(args[0]) : NULL;
    if (!v || v->kind != FX_VAL_TENSOR || !(v->dtype == FX_DT_BOOL || (v->dtype >= FX_DT_I8 && v->dtype <= FX_DT_I32) ||
                                            (v->dtype >= FX_DT_U8 && v->dtype <= FX_DT_U64)))
        return;
    convert_operand(c, &args[0], FX_DT_I64);
}

/* A Python number's dtype in the exporter's promotion (fx type_utils: bool, int64, float32). */
static fx_dtype scalar_dtype(const fx_arg *a)
{
    return a->kind == FX_ARG_BOOL ? FX_DT_BOOL : a->kind == FX_ARG_INT ? FX_DT_I64
           : a->kind == FX_ARG_FLOAT ? FX_DT_F32 : FX_DT_UNKNOWN;
}

/* The elementwise rules of torch.onnx's type promotion (fx/passes/type_promotion.py) for the ops
 * decompositions emit: the operand positions that are promoted together. */
static const struct {
    const char *op;
    int first, second;
} elementwise_rules[] = {
    {"add", 0, 1}, {"sub", 0, 1}, {"mul", 0, 1}, {"div", 0, 1}, {"remainder", 0, 1},
    {"gt", 0, 1}, {"lt", 0, 1}, {"ge", 0, 1}, {"le", 0, 1}, {"eq", 0, 1}, {"ne", 0, 1},
    {"clamp_min", 0, 1}, {"clamp_max", 0, 1}, {"where", 1, 2},
    {"bitwise_and", 0, 1}, {"bitwise_or", 0, 1}, {"bitwise_xor", 0, 1},
    {"bitwise_left_shift", 0, 1}, {"bitwise_right_shift", 0, 1},
};

/* The exporter's elementwise rule: the promoted operands' result type (torch.result_type: dims
 * before 0-d tensors before numbers) is computed; a tensor operand of another dtype is converted
 * to it (prims.convert_element_type), a number whose own dtype (bool, int64, float32) differs
 * becomes a scalar_tensor of it. True division (div without a rounding mode) of integers is left
 * to its lowering.
 * Returns whether an operand changed (the op's overload is then picked again); *pos_out gets
 * the promoted positions. */
static bool promote_elementwise(dctx *c, const char *base, bool true_div, fx_arg **args, size_t na, int *pos_out)
{
    int pos[2] = { -1, -1 };
    for (size_t i = 0; i < sizeof elementwise_rules / sizeof *elementwise_rules; i++)
        if (!strcmp(base, elementwise_rules[i].op)) {
            pos[0] = elementwise_rules[i].first;
            pos[1] = elementwise_rules[i].second;
        }
    if (pos[0] < 0 || (size_t)pos[1] >= na)
        return false;
    md_state st;
    md_state_init(&st);
    size_t tensors = 0;
    for (int k = 0; k < 2; k++) {
        const fx_arg *a = args[pos[k]];
        const fx_value *v = a->kind == FX_ARG_NODE ? dc_meta_of(a) : NULL;
        if (v && v->kind == FX_VAL_TENSOR && v->dtype != FX_DT_UNKNOWN) {
            md_state_add(&st, v->rank ? MD_TENSOR : MD_ZERO_DIM, v->dtype);
            tensors++;
        } else if (a->kind == FX_ARG_BOOL || a->kind == FX_ARG_INT || a->kind == FX_ARG_FLOAT) {
            md_state_add(&st, MD_SCALAR, a->kind == FX_ARG_FLOAT ? FX_DT_F64 : scalar_dtype(a));
        } else if (a->kind == FX_ARG_NODE && a->u.node->meta.val && a->u.node->meta.val->kind == FX_VAL_SYM) {
            /* a SymInt / SymFloat / SymBool node: a number */
            md_state_add(&st, MD_SCALAR, fx_sym_dtype(a->u.node->meta.val->text));
        } else {
            return false;   /* an operand of unknown type: nothing to decide */
        }
    }
    fx_dtype r = md_state_result(&st);
    if (!tensors || r == FX_DT_UNKNOWN || (true_div && !md_is_floating(r) && !md_is_complex(r)))
        return false;
    bool changed = false;
    pos_out[0] = pos[0];
    pos_out[1] = pos[1];
    for (int k = 0; k < 2; k++) {
        fx_arg **a = &args[pos[k]];
        const fx_value *sv0 = (*a)->kind == FX_ARG_NODE ? (*a)->u.node->meta.val : NULL;
        bool sym = sv0 && sv0->kind == FX_VAL_SYM;
        if ((*a)->kind == FX_ARG_NODE && !sym) {
            const fx_arg *before = *a;
            convert_operand(c, a, r);
            changed |= *a != before;
            continue;
        }
        /* a number (a SymFloat counts as float32, torch's default dtype, as a Python float does) */
        fx_dtype own = !sym ? scalar_dtype(*a) : fx_sym_dtype(sv0->text) == FX_DT_F64 ? FX_DT_F32 : fx_sym_dtype(sv0->text);
        if (own == r)
            continue;
        fx_arg *sa[1] = { *a };
        const char *kn[1] = { "dtype" };
        fx_arg *kv[1] = { fx_arg_dtype(c->dst, r) };
        fx_node *sn = dc_emit(c, "torch.ops.aten.scalar_tensor.default", sa, 1, kn, kv, 1, "scalar_tensor_default");
        fx_value *sv = fx_value_new(c->dst, FX_VAL_TENSOR);   /* a 0-d tensor of the result type */
        sv->dtype = r;
        sn->meta.val = sv;
        *a = fx_arg_node(c->dst, sn);
        changed = true;
    }
    return changed;
}

/* The overload torch's find_compatible_op_overload picks for the promoted operands: the first
 * whose schema takes them, so a number left in the second promoted position takes the Scalar
 * form (add.Scalar, where.ScalarOther, clamp_min.default), tensors the Tensor one. */
static const char *promoted_overload(const char *base, const char *ov, fx_arg **args, const int *pos)
{
    bool num0 = args[pos[0]]->kind != FX_ARG_NODE, num1 = args[pos[1]]->kind != FX_ARG_NODE;
    if (!strcmp(base, "where"))
        return num0 && num1 ? ".Scalar" : num0 ? ".ScalarSelf" : num1 ? ".ScalarOther" : ".self";
    if (!strcmp(base, "clamp_min") || !strcmp(base, "clamp_max"))
        return num1 ? ".default" : ".Tensor";
    if (!strcmp(ov, ".Tensor_mode") || !strcmp(ov, ".Scalar_mode"))
        return num1 ? ".Scalar_mode" : ".Tensor_mode";
    return num1 ? ".Scalar" : ".Tensor";
}

/* The ONNX exporter's type promotion (torch.onnx's InsertTypePromotion): elementwise ops get
 * their operands promoted (promote_elementwise) and, when one changed, the overload that takes
 * them (promoted_overload); all / any reduce a bool tensor; sum-like reductions of integers run
 * in int64. */
/* The exporter's INT_TO_FLOAT rules of one operand (type_promotion.py's generated rule set, the
 * unary math ops): a bool or integer self is converted to float32 (the default dtype) first, as
 * ONNX's Sqrt, Exp, Sin, ... take floating tensors only. */
static void promote_int_to_float(dctx *c, const char *base, fx_arg **args, size_t na)
{
    static const char *const unary[] = {
        "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "deg2rad", "digamma", "erf", "erfc",
        "erfinv", "exp", "exp2", "expm1", "i0", "lgamma", "log", "log10", "log1p", "log2", "logit", "logsumexp", "rad2deg",
        "reciprocal", "rsqrt", "sigmoid", "sin", "sinc", "sinh", "sqrt", "tan", "tanh", NULL };
    bool known = false;
    for (size_t i = 0; unary[i] && !known; i++)
        known = !strcmp(base, unary[i]);
    const fx_value *v = known && na ? dc_meta_of(args[0]) : NULL;
    if (v && v->kind == FX_VAL_TENSOR && (v->dtype == FX_DT_BOOL || (v->dtype >= FX_DT_I8 && v->dtype <= FX_DT_I64) ||
                                          (v->dtype >= FX_DT_U8 && v->dtype <= FX_DT_U64)))
        convert_operand(c, &args[0], FX_DT_F32);
}

static void promote(dctx *c, const char **target, fx_arg **args, size_t na, const fx_arg *kwargs)
{
    const char *t = *target;
    if (!na || strncmp(t, "torch.ops.aten.", 15) != 0)
        return;
    char base[96];
    fx_node_base_name(t, base, sizeof base);
    promote_sum_like(c, base, args, na, kwargs);
    promote_int_to_float(c, base, args, na);
    if (!strcmp(base, "all") || !strcmp(base, "any")) {
        convert_operand(c, &args[0], FX_DT_BOOL);   /* AllOrAnyReductionTypePromotionRule */
        return;
    }
    const char *ov = strrchr(t, '.');
    if (strcmp(ov, ".Tensor") && strcmp(ov, ".Scalar") && strcmp(ov, ".Tensor_mode") && strcmp(ov, ".Scalar_mode") &&
        strcmp(ov, ".default") && strcmp(ov, ".self") && strcmp(ov, ".ScalarOther") && strcmp(ov, ".ScalarSelf"))
        return;
    int pos[2];
    bool true_div = !strcmp(base, "div") && strcmp(ov, ".Tensor_mode") && strcmp(ov, ".Scalar_mode");
    if (!promote_elementwise(c, base, true_div, args, na, pos))
        return;
    const char *want = promoted_overload(base, ov, args, pos);
    if (strcmp(ov, want)) {
        char buf[160];
        snprintf(buf, sizeof buf, "%.*s%s", (int)(ov - t), t, want);
        *target = fx_strdup(c->dst, buf);
    }
}

/* ---- the dc_call: rules first, else the op itself ------------------------------------------------ */

/* Emits target(args | kwargs): the first rule of the table whose conditions hold replaces it
 * (its calls go through here again, as torch applies decompositions until none applies), else
 * the op is emitted. want is the meta the result must carry (the source node's), NULL to
 * compute it. Returns the value (a node, or a tuple / argument a template returned); NULL after
 * an error. */
fx_arg *dc_call(dctx *c, const char *target, fx_arg *args, fx_arg *kwargs, const fx_value *want)
{
    if (c->failed || !dc_within_budget(c))
        return NULL;
    if (c->depth >= MAX_DEPTH) {
        diag_error(c->d, (diag_loc){ c->src->file, 0, 0 },
                   "decompose: the decomposition rules for %s dc_expand without end", target);
        dc_fail(c);
        return NULL;
    }
    if (!strcmp(target, "operator.getitem") && args->u.seq.len == 2) {
        /* indexing a Python tuple a template returned is not traced, and the items of a
         * multi-output op were taken when it ran */
        const fx_arg *x = args->u.seq.items[0], *i = args->u.seq.items[1];
        if ((x->kind == FX_ARG_TUPLE || x->kind == FX_ARG_LIST) && i->kind == FX_ARG_INT && i->u.i >= 0 &&
            (size_t)i->u.i < x->u.seq.len)
            return dc_dup(c, x->u.seq.items[i->u.i]);
        fx_node **items = x->kind == FX_ARG_NODE ? hm_get(&c->items, x->u.node->name) : NULL;
        const fx_value *mv = items ? x->u.node->meta.val : NULL;
        if (mv && i->kind == FX_ARG_INT && i->u.i >= 0 && (size_t)i->u.i < mv->n_items)
            return fx_arg_node(c->dst, items[i->u.i]);
    }
    c->depth++;
    unsigned mask = c->which == DECOMP_ONNX ? T_ONNX : T_DEFAULT;
    fx_value *inferred = meta_infer_call(c->dst, c->meta, c->g, target, args, kwargs);
    const fx_value *out = want ? want : inferred;
    fx_arg *val = NULL;
    intptr_t first = (intptr_t)hm_get(&c->rs->rule_by_target, dc_table_key(target));
    /* a template calling the op it decomposes (to normalize its arguments) emits it as is */
    for (int k = 0; k < c->depth - 1 && first; k++)
        if (!strcmp(c->expanding[k], target))
            first = 0;
    c->expanding[c->depth - 1] = target;
    for (int i = first ? (int)first - 1 : -1; i >= 0 && !val && !c->failed; i = c->rs->rules[i].next) {
        const decomp_rule *r = &c->rs->rules[i];
        if (!(r->tables & mask))
            continue;
        binding b;
        dc_bind(c, &b, r->schema, args, kwargs, out);
        if (!dc_holds(c, &b, &r->when))
            continue;
        if (r->builtin) {
            val = dc_builtin(c, r, &b);
        } else {
            fx_arg **locals = fx_alloc(c->scratch, (r->body.nlocals + 1) * sizeof *locals);
            val = dc_expand(c, r->target, &r->body, &b, locals);
        }
    }
    if (!val && !c->failed) {
        size_t na = args->u.seq.len;
        fx_arg **items = fx_alloc(c->dst, (na ? na : 1) * sizeof *items);
        memcpy(items, args->u.seq.items, na * sizeof *items);
        const char *t = target;
        if (c->which == DECOMP_ONNX)
            promote(c, &t, items, na, kwargs);
        fx_node *m = dc_emit(c, t, items, na, kwargs->u.seq.keys, kwargs->u.seq.items, kwargs->u.seq.len, NULL);
        m->meta.val = dc_merge_meta(c, want, inferred);
        dc_register_view(c, m);
        val = fx_arg_node(c->dst, m);
        if (m->meta.val && m->meta.val->kind == FX_VAL_TUPLE && m->meta.val->n_items &&
            strcmp(target, "operator.getitem"))
            dc_take_items(c, m);
    } else if (val && val->kind == FX_ARG_NODE && want) {
        /* the expansion's result is the dc_call's value: it carries the source's meta, unless it
         * is one of the arguments (an alias) */
        bool alias = false;
        for (size_t i = 0; i < args->u.seq.len; i++)
            alias |= args->u.seq.items[i]->kind == FX_ARG_NODE && args->u.seq.items[i]->u.node == val->u.node;
        if (!alias)
            val->u.node->meta.val = dc_merge_meta(c, want, val->u.node->meta.val);
    }
    c->depth--;
    return c->failed ? NULL : val;
}

/* ---- functionalization hooks ----------------------------------------------------------------- */

/* Replays view v on base (torch regenerating an alias from its updated base). */
static fx_node *fz_forward(void *ctx, const fz_view *v, fx_node *base)
{
    dctx *c = ctx;
    const fx_node *op = v->op;
    size_t na = op->args->u.seq.len;
    fx_arg **args = fx_alloc(c->dst, (na ? na : 1) * sizeof *args);
    args[0] = fx_arg_node(c->dst, base);
    for (size_t i = 1; i < na; i++)
        args[i] = dc_dup(c, op->args->u.seq.items[i]);
    const fx_node *saved = c->cur;
    if (!c->cur)
        c->cur = op;   /* regenerated at the output: located at the view it replays */
    fx_arg *rv = dc_call(c, op->target, fx_arg_seq(c->dst, FX_ARG_TUPLE, args, NULL, na), dc_dup(c, op->kwargs),
                      v->out_index < 0 ? op->meta.val : NULL);
    fx_node *r = rv && rv->kind == FX_ARG_NODE ? rv->u.node : NULL;
    if (rv && !r) {
        diag_error(c->d, (diag_loc){ c->src->file, 0, 0 }, "decompose: view %s did not produce a tensor", op->target);
        dc_fail(c);
    }
    if (r && v->out_index >= 0) {
        fx_arg *ga[2] = { fx_arg_node(c->dst, r), fx_arg_int(c->dst, v->out_index) };
        r = dc_call_node(c, "operator.getitem", ga, 2, NULL);
    }
    c->cur = saved;
    return r;
}

/* Writes mutated back into base through view v (FunctionalInverses: select_scatter, ...). */
static fx_node *fz_reverse(void *ctx, const fz_view *v, fx_node *base, fx_node *mutated)
{
    dctx *c = ctx;
    const fx_node *op = v->op;
    const view_rule *vr = hm_get(&c->rs->view_by_target, dc_table_key(op->target));
    if (!vr || !vr->has_inverse) {
        diagnostic *dg = diag_error(c->d, (diag_loc){ c->src->file, c->cur ? c->cur->src_line : 0, 0 },
                                    "decompose: in-place %s (node %%%s) writes through the view %%%s (%s), "
                                    "which fxsh cannot write back into its base",
                                    c->cur ? c->cur->target : "op", c->cur ? c->cur->name : "?", op->name,
                                    dc_table_key(op->target));
        diag_set_hint(dg, "apply the op out of place and rebuild the base (e.g. slice_scatter / index_put)");
        dc_fail(c);
        return NULL;
    }
    binding b;
    dc_bind(c, &b, vr->schema, op->args, op->kwargs, base->meta.val);
    b.out_index = v->out_index;
    fx_arg **locals = fx_alloc(c->scratch, (vr->inverse.nlocals + 1) * sizeof *locals);
    locals[0] = fx_arg_node(c->dst, base);      /* the slots views.yaml's inverses preset */
    locals[1] = fx_arg_node(c->dst, mutated);
    fx_arg *r = dc_expand(c, dc_table_key(op->target), &vr->inverse, &b, locals);
    if (!r || r->kind != FX_ARG_NODE) {
        if (!c->failed)
            diag_error(c->d, (diag_loc){ c->src->file, 0, 0 }, "decompose: bad inverse for view %s",
                       dc_table_key(op->target));
        dc_fail(c);
        return NULL;
    }
    if (r->u.node != base && r->u.node != mutated)
        r->u.node->meta.val = dc_merge_meta(c, base->meta.val, r->u.node->meta.val);
    return r->u.node;
}

/* ---- the rebuild ------------------------------------------------------------------------------ */

/* Length of the op name of an in-place aten overload ("add_" in torch.ops.aten.add_.Tensor), 0 if
 * the target is not one. */
static size_t inplace_name_len(const char *t)
{
    if (strncmp(t, "torch.ops.aten.", 15) != 0)
        return 0;
    const char *name = t + 15;
    const char *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    return n < 2 || name[n - 1] != '_' || name[n - 2] == '_' || name[0] == '_' ? 0 : n;
}

/* "torch.ops.aten.add_.Tensor" → "torch.ops.aten.add.Tensor"; NULL if not an in-place overload. */
static const char *functional_target(dctx *c, const char *t)
{
    size_t n = inplace_name_len(t);
    if (!n)
        return NULL;
    char buf[160];
    snprintf(buf, sizeof buf, "torch.ops.aten.%.*s%s", (int)(n - 1), t + 15, t + 15 + n);
    return fx_strdup(c->dst, buf);
}

/* Whether an ATen overload's schema mutates an argument ("Tensor(a!) self"): torch's
 * schema.is_mutable. */
static bool mutates(const char *target)
{
    const char *schema = aten_schemas_lookup(target, NULL);
    const char *ret = schema ? strstr(schema, ") -> ") : NULL;
    for (const char *p = schema; p && p < ret; p++)
        if (*p == '!') return true;
    return false;
}

/* Nodes eliminate_dead_code keeps although unused: side effects and mutations, as torch's
 * node.is_impure() has them — and a custom op's call, whose schema the program does not carry
 * (an unused call of a mutating one, torch.library's `mutates_args`, is its whole effect). */
static bool impure(const fx_node *n)
{
    if (n->op != FX_OP_CALL_FUNCTION) return true;
    const char *t = n->target;
    if (strstr(t, "._assert") || strstr(t, "sym_constrain_range") || strstr(t, "_record_function") ||
        inplace_name_len(t))
        return true;
    if (!strncmp(t, "torch.ops.aten.", 15)) return mutates(t);
    return !strncmp(t, "torch.ops.", 10) && strncmp(t, "torch.ops.prims.", 16) && strncmp(t, "torch.ops.higher_order.", 23);
}

typedef struct dce_ctx {
    fx_node **nodes;
    size_t *uses, *stamp, n, who;
} dce_ctx;

/* Each distinct input of a dead node loses one user. */
static void drop_use(fx_node *m, void *ctx)
{
    dce_ctx *dc = ctx;
    size_t j = m->index;
    if (j < dc->n && dc->nodes[j] == m && dc->stamp[j] != dc->who) {
        dc->stamp[j] = dc->who;
        dc->uses[j]--;
    }
}

/* torch's graph.eliminate_dead_code(): unused pure nodes go, last to first, in one pass. */
static void eliminate_dead_code(dctx *c)
{
    fx_graph *g = c->g;
    fx_graph_recompute_users(g);
    fx_graph_renumber(g);
    size_t n = g->n_nodes;
    size_t *uses = xcalloc(n + 1, sizeof *uses);
    size_t *stamp = xcalloc(n + 1, sizeof *stamp);
    bool *dead = xcalloc(n + 1, sizeof *dead);
    fx_node **nodes = xcalloc(n + 1, sizeof *nodes);
    for (fx_node *x = g->first; x; x = x->next) {
        nodes[x->index] = x;
        uses[x->index] = x->n_users;
    }
    for (size_t i = n; i-- > 0;) {
        fx_node *x = nodes[i];
        if (uses[i] || impure(x))
            continue;
        dead[i] = true;
        dce_ctx dc = { nodes, uses, stamp, n, i + 1 };
        fx_arg_each_node(x->args, drop_use, &dc);
        fx_arg_each_node(x->kwargs, drop_use, &dc);
    }
    fx_node *prev = NULL;
    g->first = NULL;
    for (size_t i = 0; i < n; i++) {
        fx_node *x = nodes[i];
        if (dead[i]) {
            if (hm_get(&g->names, x->name) == x)
                hm_remove(&g->names, x->name);
            x->prev = x->next = NULL;
            g->n_nodes--;
            continue;
        }
        x->prev = prev;
        if (prev)
            prev->next = x;
        else
            g->first = x;
        prev = x;
    }
    if (prev)
        prev->next = NULL;
    g->last = prev;
    free(uses);
    free(stamp);
    free(dead);
    free(nodes);
    fx_graph_recompute_users(g);
    fx_graph_renumber(g);
}

typedef struct mutated_input {
    const fx_node *placeholder;
    fx_arg *value;
} mutated_input;

/* torch.export's wrap_with_set_grad_enabled(enable, submod, *args) and
 * wrap_with_autocast(device, dtype, enabled, cache, submod, *args) mark a `with torch.no_grad()` /
 * autocast region; run_decompositions() inlines them. True for such a node, with the index of its
 * submodule argument in *sub. */
static bool inlined_hop(const fx_node *n, size_t *sub)
{
    size_t k = !strcmp(n->target, "torch.ops.higher_order.wrap_with_set_grad_enabled") ? 1
             : !strcmp(n->target, "torch.ops.higher_order.wrap_with_autocast") ? 4 : 0;
    if (!k || n->args->u.seq.len <= k || n->args->u.seq.items[k]->kind != FX_ARG_NODE)
        return false;
    if (sub)
        *sub = k;
    return true;
}

/* A get_attr node whose users all inline it as their region's subgraph. */
static bool only_inlined_users(const fx_node *n)
{
    size_t k;
    for (size_t i = 0; i < n->n_users; i++)
        if (!inlined_hop(n->users[i], &k) || n->users[i]->args->u.seq.items[k]->u.node != n)
            return false;
    return n->n_users > 0;
}

static bool rebuild_node(dctx *c, const fx_node *n);

/* Rebuilds the region's subgraph in place of the call: its placeholders are the call's operands,
 * its node names a scope of their own, its outputs the call's value (a tuple getitem takes
 * apart). */
static bool inline_hop(dctx *c, const fx_node *n)
{
    size_t k;
    inlined_hop(n, &k);
    const fx_node *attr = n->args->u.seq.items[k]->u.node;
    const fx_module *owner = n->graph ? n->graph->owner : NULL;
    const fx_module *sm = attr->op == FX_OP_GET_ATTR && owner ? fx_module_find(owner, attr->target) : NULL;
    if (!sm || !sm->graph) {
        diag_error(c->d, (diag_loc){ c->src->file, n->src_line, 0 },
                   "decompose: %s (node %%%s) names no subgraph", n->target, n->name);
        return false;
    }
    hashmap tens, vals, saved_tens = c->tens, saved_vals = c->vals;
    hm_init(&tens);
    hm_init(&vals);
    size_t op = k + 1;
    const fx_node *out = NULL;
    for (const fx_node *x = sm->graph->first; x; x = x->next) {
        if (x->op == FX_OP_OUTPUT) {
            out = x;
        } else if (x->op == FX_OP_PLACEHOLDER) {
            const fx_arg *a = op < n->args->u.seq.len ? n->args->u.seq.items[op++] : NULL;
            fz_tensor *t = a && a->kind == FX_ARG_NODE ? hm_get(&saved_tens, a->u.node->name) : NULL;
            if (t)
                hm_put(&tens, x->name, t);
            else
                hm_put(&vals, x->name, a ? dc_conv(c, a) : fx_arg_none(c->dst));
        }
    }
    c->tens = tens;
    c->vals = vals;
    bool ok = out != NULL;
    for (const fx_node *x = sm->graph->first; x && ok && !c->failed; x = x->next)
        if (x->op != FX_OP_PLACEHOLDER && x->op != FX_OP_OUTPUT)
            ok = (c->cur = x, rebuild_node(c, x));
    c->cur = n;
    fx_arg *res = ok && !c->failed && out->args->u.seq.len ? dc_conv(c, out->args->u.seq.items[0]) : NULL;
    tens = c->tens;
    vals = c->vals;
    c->tens = saved_tens;
    c->vals = saved_vals;
    hm_free(&tens);
    hm_free(&vals);
    if (!res) {
        if (!c->failed && ok)
            diag_error(c->d, (diag_loc){ c->src->file, n->src_line, 0 },
                       "decompose: the subgraph of %s (node %%%s) has no output", n->target, n->name);
        return false;
    }
    hm_put(&c->vals, n->name, res);
    return true;
}

/* One source node (not the output) rebuilt into c->g: copied, inlined, or decomposed. */
static bool rebuild_node(dctx *c, const fx_node *n)
{
    if (n->op == FX_OP_GET_ATTR && only_inlined_users(n))
        return true;   /* the subgraph of a set_grad / autocast region: inlined where it is called */
    if (n->op == FX_OP_PLACEHOLDER || n->op == FX_OP_GET_ATTR ||
        (n->op == FX_OP_CALL_FUNCTION && strstr(n->target, ".sym_"))) {
        /* Inputs, attributes and symbolic-size nodes keep their names. */
        fx_node *m = fx_node_new(c->g, fx_namer_name(&c->nm, n->name), n->op, n->target);
        if (n->op == FX_OP_PLACEHOLDER)
            m->target = m->name;
        m->meta.val = fx_copy_value(c->dst, n->meta.val);
        fx_graph_append(c->g, m);
        fx_node_set_args(m, dc_conv(c, n->args), dc_conv(c, n->kwargs));
        fz_tensor *t = fz_fresh(&c->fz, m);
        dc_track(c, t);
        hm_put(&c->tens, n->name, t);
        return true;
    }
    if (n->op == FX_OP_CALL_FUNCTION && inlined_hop(n, NULL))
        return inline_hop(c, n);
    if (n->op != FX_OP_CALL_FUNCTION) {
        diag_error(c->d, (diag_loc){ c->src->file, n->src_line, 0 }, "decompose: %s node %%%s is not an ATen dc_call",
                   fx_opcode_name(n->op), n->name);
        return false;
    }
    const char *target = n->target;
    /* The ONNX exporter removes assertion nodes after decomposing. */
    if (c->which == DECOMP_ONNX && !strncmp(target, "torch.ops.aten._assert_", 23) && !n->n_users) {
        hm_put(&c->vals, n->name, fx_arg_none(c->dst));
        return true;
    }
    const char *ft = functional_target(c, target);
    fz_tensor *self = NULL;
    if (ft) {
        const fx_arg *a0 = n->args->u.seq.len ? n->args->u.seq.items[0] : NULL;
        self = a0 && a0->kind == FX_ARG_NODE ? hm_get(&c->tens, a0->u.node->name) : NULL;
        if (!self) {
            diag_error(c->d, (diag_loc){ c->src->file, n->src_line, 0 },
                       "decompose: in-place %s (node %%%s) does not mutate a tensor", target, n->name);
            return false;
        }
        target = ft;
    }
    fx_arg *args = dc_conv(c, n->args), *kwargs = dc_conv(c, n->kwargs);
    fx_arg *val = c->failed ? NULL : dc_call(c, target, args, kwargs, n->meta.val);
    if (!val)
        return false;
    if (self) {
        /* functionalization: the op's out-of-place result is self's new value */
        if (val->kind != FX_ARG_NODE) {
            diag_error(c->d, (diag_loc){ c->src->file, n->src_line, 0 },
                       "decompose: in-place %s (node %%%s) has no tensor result", n->target, n->name);
            return false;
        }
        if (!fz_mutate(&c->fz, self, val->u.node))
            return false;
        dc_track(c, self);
        hm_put(&c->tens, n->name, self);
    } else if (val->kind == FX_ARG_NODE) {
        hm_put(&c->tens, n->name, dc_tensor_of(c, val->u.node));
    } else {
        hm_put(&c->vals, n->name, val);
    }
    return true;
}

static bool rebuild(dctx *c, const fx_graph *sg, mutated_input **muts, size_t *n_mut)
{
    const fx_node *out = NULL;
    for (const fx_node *n = sg->first; n && !c->failed; n = n->next) {
        if (interrupt_pending())
            return false;
        c->cur = n;
        if (n->op == FX_OP_OUTPUT)
            out = n;
        else if (!rebuild_node(c, n))
            return false;
    }
    if (c->failed)
        return false;
    if (!out) {
        diag_error(c->d, (diag_loc){ c->src->file, 0, 0 }, "decompose: graph has no output node");
        return false;
    }
    c->cur = NULL;
    /* A mutated graph input is returned first, its new value synced (inputs in order, as
     * aot_autograd returns them). */
    for (const fx_node *n = sg->first; n; n = n->next) {
        fz_tensor *t = n->op == FX_OP_PLACEHOLDER ? hm_get(&c->tens, n->name) : NULL;
        if (!t || !fz_mutated(t))
            continue;
        if (!c->root) {
            /* a subgraph has no mutation outputs; torch.export rejects such branches too */
            diagnostic *dg = diag_error(c->d, (diag_loc){ c->src->file, n->src_line, 0 },
                                        "decompose: subgraph %s writes into its input %%%s in place",
                                        sg->owner && sg->owner->name ? sg->owner->name : "?", n->name);
            diag_set_hint(dg, "cond / while_loop / scan branches may not mutate their inputs: clone the input first");
            return false;
        }
        fx_arg *v = dc_value_of(c, n);
        if (c->failed)
            return false;
        *muts = xrealloc(*muts, (*n_mut + 1) * sizeof **muts);
        (*muts)[(*n_mut)++] = (mutated_input){ n, v };
    }
    fx_arg *res = out->args->u.seq.len ? dc_conv(c, out->args->u.seq.items[0]) : fx_arg_none(c->dst);
    if (c->failed)
        return false;
    if (*n_mut && (res->kind == FX_ARG_TUPLE || res->kind == FX_ARG_LIST)) {
        size_t n = *n_mut + res->u.seq.len;
        fx_arg **items = fx_alloc(c->dst, n * sizeof *items);
        for (size_t i = 0; i < *n_mut; i++)
            items[i] = (*muts)[i].value;
        memcpy(items + *n_mut, res->u.seq.items, res->u.seq.len * sizeof *items);
        res = fx_arg_seq(c->dst, res->kind, items, NULL, n);
    }
    fx_node *o = fx_node_new(c->g, fx_namer_name(&c->nm, out->name), FX_OP_OUTPUT, out->target);
    fx_graph_append(c->g, o);
    fx_node_set_args(o, fx_arg_seq(c->dst, FX_ARG_TUPLE, &res, NULL, 1), fx_arg_seq(c->dst, FX_ARG_DICT, NULL, NULL, 0));
    o->type_text = out->type_text ? fx_strdup(c->dst, out->type_text) : NULL;
    eliminate_dead_code(c);
    return true;
}

static const fx_input_spec *input_spec(const fx_program *p, const char *name)
{
    for (size_t i = 0; i < p->sig.n_inputs; i++)
        if (p->sig.inputs[i].name && !strcmp(p->sig.inputs[i].name, name))
            return &p->sig.inputs[i];
    return NULL;
}

/* Mutation outputs go first, then the user outputs renamed to their new nodes. A program
 * without a signature (FX text) gets one when outputs were added: its placeholders are all user
 * inputs, and the translator must know which outputs are mutations. */
static void rebuild_signature(dctx *c, const mutated_input *muts, size_t n_mut)
{
    fx_signature *s = &c->dst->sig;
    if (!s->present) {
        size_t n = 0;
        for (const fx_node *x = c->g->first; x; x = x->next)
            n += x->op == FX_OP_PLACEHOLDER;
        s->inputs = fx_alloc(c->dst, (n + 1) * sizeof *s->inputs);
        for (const fx_node *x = c->g->first; x; x = x->next)
            if (x->op == FX_OP_PLACEHOLDER)
                s->inputs[s->n_inputs++] = (fx_input_spec){ FX_IN_USER_INPUT, x->name, NULL, false };
        s->present = true;
    }
    const fx_node *o = c->g->last;
    const fx_arg *res = o->args->u.seq.items[0];
    size_t n = res->kind == FX_ARG_TUPLE || res->kind == FX_ARG_LIST ? res->u.seq.len : 0;
    fx_output_spec *outs = fx_alloc(c->dst, (n + 1) * sizeof *outs);
    for (size_t i = 0; i < n; i++) {
        const fx_arg *a = res->u.seq.items[i];
        outs[i].name = a->kind == FX_ARG_NODE ? a->u.node->name : "None";
        if (i < n_mut) {
            const fx_input_spec *is = input_spec(c->src, muts[i].placeholder->name);
            bool buf = is && is->kind == FX_IN_BUFFER;
            outs[i].kind = buf ? FX_OUT_BUFFER_MUTATION : FX_OUT_USER_INPUT_MUTATION;
            outs[i].target = buf && is->target ? fx_strdup(c->dst, is->target)
                                               : fx_strdup(c->dst, muts[i].placeholder->name);
        } else {
            size_t j = i - n_mut;
            outs[i].kind = j < c->src->sig.n_outputs ? c->src->sig.outputs[j].kind : FX_OUT_USER_OUTPUT;
            outs[i].target = j < c->src->sig.n_outputs && c->src->sig.outputs[j].target
                                 ? fx_strdup(c->dst, c->src->sig.outputs[j].target) : NULL;
        }
    }
    s->outputs = outs;
    s->n_outputs = n;
}

static bool rebuild_module(dctx *c, const fx_module *sm, fx_module *dm, bool root)
{
    if (sm->graph) {
        c->g = dm->graph;
        c->root = root;
        fx_namer_init(&c->nm, c->g);
        hm_init(&c->vals);
        hm_init(&c->tens);
        hm_init(&c->by_node);
        hm_init(&c->lists);
        hm_init(&c->items);
        fz_init(&c->fz, (fz_hooks){ c, fz_forward, fz_reverse });
        mutated_input *muts = NULL;
        size_t n_mut = 0;
        bool ok = rebuild(c, sm->graph, &muts, &n_mut);
        if (ok && root && (c->src->sig.present || n_mut))
            rebuild_signature(c, muts, n_mut);
        free(muts);
        fz_free(&c->fz);
        hm_free(&c->vals);
        hm_free(&c->tens);
        hm_free(&c->by_node);
        hm_free(&c->lists);
        hm_free(&c->items);
        fx_namer_free(&c->nm);
        if (!ok)
            return false;
    }
    const fx_module *sc = sm->first_child;
    fx_module *dc = dm->first_child;
    for (; sc && dc; sc = sc->next_sibling, dc = dc->next_sibling)
        if (!rebuild_module(c, sc, dc, false))
            return false;
    return true;
}

fx_program *decompose_program(const fx_program *src, decomp_table which, diag_sink *d)
{
    if (!src || !src->root || !src->root->graph) {
        diag_error(d, (diag_loc){ 0 }, "decompose: no program graph");
        return NULL;
    }
    if (!fx_program_is_aten(src)) {
        diagnostic *dg = diag_error(d, (diag_loc){ src->file, 0, 0 },
                                    "decompose: the program is not an exported (ATen) program");
        diag_set_hint(dg, "run export first");
        return NULL;
    }
    bool pre_failed;
    fx_program *unbatched = decompose_unbatch_vmap(src, d, &pre_failed);
    if (pre_failed)
        return NULL;
    if (unbatched)
        src = unbatched;
    fx_program *cast = decompose_apply_autocast(src, d, &pre_failed);
    if (pre_failed) {
        if (unbatched) fx_program_free(unbatched);
        return NULL;
    }
    if (cast)
        src = cast;
    dctx c = { .src = src, .which = which, .d = d };
    if (!dc_load_rules(&c)) {
        if (cast) fx_program_free(cast);
        if (unbatched) fx_program_free(unbatched);
        return NULL;
    }
    c.dst = fx_program_copy_shell(src);
    c.scratch = fx_program_new(NULL);
    bool ok = rebuild_module(&c, src->root, c.dst->root, true);
    fx_program_free(c.scratch);
    if (cast) fx_program_free(cast);   /* the result borrows weight data, never the copies' nodes */
    if (unbatched) fx_program_free(unbatched);
    if (!ok) {
        if (!d->errors && !interrupt_pending())
            diag_error(d, (diag_loc){ src->file, 0, 0 }, "decompose: failed");
        fx_program_free(c.dst);
        return NULL;
    }
    fx_program_refresh(c.dst);
    return c.dst;
}
