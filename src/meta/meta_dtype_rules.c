/* meta_dtype_rules.c — the `dtype:` rule functions of the meta tables: result dtypes by torch's
 * elementwise promotion kinds (DEFAULT, INT_TO_FLOAT, ALWAYS_BOOL via a constant), reductions
 * and factories. */
#include "meta/meta_internal.h"
#include "meta/meta_promote.h"

/* The dtype a parameter contributes to result_type; false when it contributes nothing (None). */
static bool operand_of(mi_ctx *c, const fx_arg *a, md_state *st)
{
    if (!a || a->kind == FX_ARG_NONE)
        return false;
    switch (a->kind) {
    case FX_ARG_INT: md_state_add(st, MD_SCALAR, FX_DT_I64); return true;
    case FX_ARG_FLOAT: md_state_add(st, MD_SCALAR, FX_DT_F64); return true;
    case FX_ARG_BOOL: md_state_add(st, MD_SCALAR, FX_DT_BOOL); return true;
    case FX_ARG_LIST:
    case FX_ARG_TUPLE:   /* cat / stack: every tensor of the list is an operand */
        for (size_t k = 0; k < a->u.seq.len; k++)
            operand_of(c, a->u.seq.items[k], st);
        return true;
    case FX_ARG_NODE: {
        const fx_value *v = a->u.node->meta.val;
        if (v && v->kind == FX_VAL_SYM) {   /* a SymInt behaves like a Python int */
            md_state_add(st, MD_SCALAR, FX_DT_I64);
            return true;
        }
        if (!v || v->kind != FX_VAL_TENSOR) {
            mi_fail(c, "%%%s has no tensor meta", a->u.node->name);
            st->failed = true;
            return true;
        }
        if (v->dtype == FX_DT_UNKNOWN)
            c->unknown_dtype = true;
        else
            md_state_add(st, v->rank ? MD_TENSOR : MD_ZERO_DIM, v->dtype);
        return true;
    }
    default:
        return false;
    }
}

static bool result_type(mi_ctx *c, fx_dtype *dt)
{
    md_state st;
    md_state_init(&st);
    for (size_t i = 0; i < c->np; i++)
        operand_of(c, mi_param(c, i), &st);
    if (c->unknown_dtype) {
        *dt = FX_DT_UNKNOWN;   /* not torch's to refuse: the input is just not known */
        return true;
    }
    *dt = md_state_result(&st);
    return *dt != FX_DT_UNKNOWN || mi_fail(c, "%s", c->why[0] ? c->why : "the operand dtypes do not promote");
}

static bool dt_promote(mi_ctx *c, fx_dtype *dt) { return result_type(c, dt); }

/* INT_TO_FLOAT: true division, exp, sqrt, ...: an integral or bool result becomes float32. */
static bool dt_promote_float(mi_ctx *c, fx_dtype *dt)
{
    if (!result_type(c, dt))
        return false;
    if (md_is_integral(*dt) || md_is_bool(*dt))
        *dt = FX_DT_F32;
    return true;
}

static bool dt_same(mi_ctx *c, fx_dtype *dt)
{
    const fx_arg *a = mi_param(c, 0);
    if (a && (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE)) {
        mi_tensor *t[64];
        size_t n;
        if (!mi_tensor_list_param(c, 0, t, &n, 64, false))
            return false;
        if (!n)
            return mi_fail(c, "an empty tensor list");
        *dt = t[0]->dtype;
        return true;
    }
    mi_tensor *t = mi_tensor_param(c, 0);
    if (!t)
        return false;
    *dt = t->dtype;
    return true;
}

/* sum / prod / cumsum without dtype=: integral and bool inputs accumulate in int64. */
static bool dt_sum(mi_ctx *c, fx_dtype *dt)
{
    if (!dt_same(c, dt))
        return false;
    if (md_is_integral(*dt) || md_is_bool(*dt))
        *dt = FX_DT_I64;
    return true;
}

/* any / all: bool, except that uint8 stays uint8. */
static bool dt_any(mi_ctx *c, fx_dtype *dt)
{
    if (!dt_same(c, dt))
        return false;
    if (*dt != FX_DT_U8)
        *dt = FX_DT_BOOL;
    return true;
}

/* abs, var, std of complex inputs give the real type. */
static bool dt_to_real(mi_ctx *c, fx_dtype *dt)
{
    if (!dt_same(c, dt))
        return false;
    *dt = md_to_real(*dt);
    return true;
}

/* The dtype a Python scalar gets as a tensor (full's fill_value): int64, float32, bool. */
static bool dt_scalar(mi_ctx *c, fx_dtype *dt)
{
    const fx_arg *a = mi_param(c, 0);
    if (a && a->kind == FX_ARG_INT) *dt = FX_DT_I64;
    else if (a && a->kind == FX_ARG_FLOAT) *dt = FX_DT_F32;
    else if (a && a->kind == FX_ARG_BOOL) *dt = FX_DT_BOOL;
    else if (a && a->kind == FX_ARG_NODE && a->u.node->meta.val && a->u.node->meta.val->kind == FX_VAL_SYM)
        *dt = FX_DT_I64;
    else
        return dt_same(c, dt);
    return true;
}

/* arange: int64 when start, end and step are all integers, else the default float. */
static bool dt_arange(mi_ctx *c, fx_dtype *dt)
{
    *dt = FX_DT_I64;
    for (size_t i = 0; i < c->np; i++) {
        const fx_arg *a = mi_param(c, i);
        if (a && a->kind == FX_ARG_FLOAT)
            *dt = FX_DT_F32;
        else if (a && a->kind == FX_ARG_NODE) {
            const fx_value *v = a->u.node->meta.val;
            if (v && v->kind == FX_VAL_TENSOR && md_is_floating(v->dtype))
                *dt = FX_DT_F32;
        }
    }
    return true;
}

/* An ONNX TensorProto.DataType number (torch.onnx.ops.symbolic's dtype). */
static bool dt_onnx(mi_ctx *c, fx_dtype *dt)
{
    int64_t t;
    if (!mi_int_param(c, 0, &t))
        return false;
    *dt = fx_dtype_from_onnx((int)t);
    return *dt != FX_DT_UNKNOWN || mi_fail(c, "ONNX data type %lld has no torch dtype", (long long)t);
}

/* div.Tensor_mode(self, other, rounding_mode): true division promotes ints to float; floor and
 * trunc division keep the promoted type. */
static bool dt_div_mode(mi_ctx *c, fx_dtype *dt)
{
    bool true_div = mi_is_none(c, 2);
    mi_ctx sub = *c;
    sub.np = 2;
    bool ok = true_div ? dt_promote_float(&sub, dt) : dt_promote(&sub, dt);
    if (!ok)
        mi_fail(c, "%s", sub.why);
    return ok;
}

static const mi_fn_entry dtype_fns[] = {
    MI_FN("same", 1, 1, dt_same),
    MI_FN("promote", 1, 8, dt_promote),
    MI_FN("promote_float", 1, 8, dt_promote_float),
    MI_FN("sum", 1, 1, dt_sum),
    MI_FN("any", 1, 1, dt_any),
    MI_FN("to_real", 1, 1, dt_to_real),
    MI_FN("scalar", 1, 1, dt_scalar),
    MI_FN("arange", 1, 3, dt_arange),
    MI_FN("onnx", 1, 1, dt_onnx),
    MI_FN("div_mode", 3, 3, dt_div_mode),
};

const builtin_family mi_dtype_builtins = BUILTIN_FAMILY("dtype", dtype_fns);
