/* meta_promote.c — torch.promote_types and torch.result_type (c10/core/ScalarType.cpp,
 * aten/src/ATen/native/TypeProperties.cpp). */
#include "meta/meta_promote.h"

bool md_is_bool(fx_dtype t) { return t == FX_DT_BOOL; }

bool md_is_integral(fx_dtype t)
{
    return t == FX_DT_I8 || t == FX_DT_I16 || t == FX_DT_I32 || t == FX_DT_I64 || t == FX_DT_U8 ||
           t == FX_DT_U16 || t == FX_DT_U32 || t == FX_DT_U64;
}

bool md_is_floating(fx_dtype t) { return t >= FX_DT_F32 && t <= FX_DT_F4E2M1FNX2; }
bool md_is_complex(fx_dtype t) { return t == FX_DT_C32 || t == FX_DT_C64 || t == FX_DT_C128; }

fx_dtype md_to_real(fx_dtype t)
{
    switch (t) {
    case FX_DT_C32: return FX_DT_F16;
    case FX_DT_C64: return FX_DT_F32;
    case FX_DT_C128: return FX_DT_F64;
    default: return t;
    }
}

static bool is_float8(fx_dtype t) { return t >= FX_DT_F8E4M3FN && t <= FX_DT_F4E2M1FNX2; }
static bool is_wide_unsigned(fx_dtype t) { return t == FX_DT_U16 || t == FX_DT_U32 || t == FX_DT_U64; }

/* The index of a type in c10's promotion table, -1 if it is not one of its thirteen. */
static int table_index(fx_dtype t)
{
    static const fx_dtype order[] = { FX_DT_U8, FX_DT_I8, FX_DT_I16, FX_DT_I32, FX_DT_I64, FX_DT_F16,
                                      FX_DT_F32, FX_DT_F64, FX_DT_C32, FX_DT_C64, FX_DT_C128, FX_DT_BOOL,
                                      FX_DT_BF16 };
    for (int i = 0; i < 13; i++)
        if (order[i] == t)
            return i;
    return -1;
}

fx_dtype md_promote(fx_dtype a, fx_dtype b)
{
    if (a == FX_DT_UNKNOWN || b == FX_DT_UNKNOWN)
        return FX_DT_UNKNOWN;
    if (a == b)
        return a;
    if (is_float8(a) || is_float8(b))
        return FX_DT_UNKNOWN;   /* "Promotion for Float8 Types is not supported" */
    if (is_wide_unsigned(a) || is_wide_unsigned(b)) {
        /* uint16/32/64 promote only with floating types (torch refuses the rest) */
        if (md_is_floating(a))
            return a;
        if (md_is_floating(b))
            return b;
        return FX_DT_UNKNOWN;
    }
    enum { u1 = FX_DT_U8, i1 = FX_DT_I8, i2 = FX_DT_I16, i4 = FX_DT_I32, i8 = FX_DT_I64, f2 = FX_DT_F16,
           f4 = FX_DT_F32, f8 = FX_DT_F64, c2 = FX_DT_C32, c4 = FX_DT_C64, c8 = FX_DT_C128, b1 = FX_DT_BOOL,
           bf = FX_DT_BF16 };
    static const unsigned char table[13][13] = {
        /*        u1  i1  i2  i4  i8  f2  f4  f8  c2  c4  c8  b1  bf */
        /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, c2, c4, c8, u1, bf},
        /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, i1, bf},
        /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, c2, c4, c8, i2, bf},
        /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, c2, c4, c8, i4, bf},
        /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, c2, c4, c8, i8, bf},
        /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, c2, c4, c8, f2, f4},
        /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, c4, c4, c8, f4, f4},
        /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, c8, f8, f8},
        /* c2 */ {c2, c2, c2, c2, c2, c2, c4, c8, c2, c4, c8, c2, c4},
        /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c8, c4, c4, c8, c4, c4},
        /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
        /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, c2, c4, c8, b1, bf},
        /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, c4, c4, c8, bf, bf},
    };
    int ia = table_index(a), ib = table_index(b);
    return ia < 0 || ib < 0 ? FX_DT_UNKNOWN : (fx_dtype)table[ia][ib];
}

void md_state_init(md_state *s) { *s = (md_state){ FX_DT_UNKNOWN, FX_DT_UNKNOWN, FX_DT_UNKNOWN, false }; }

/* promote_skip_undefined: an empty group takes the other side as it is. */
static fx_dtype promote_skip(fx_dtype a, fx_dtype b, bool *failed)
{
    if (a == FX_DT_UNKNOWN)
        return b;
    if (b == FX_DT_UNKNOWN)
        return a;
    fx_dtype r = md_promote(a, b);
    if (r == FX_DT_UNKNOWN)
        *failed = true;
    return r;
}

void md_state_add(md_state *s, md_operand kind, fx_dtype t)
{
    if (t == FX_DT_UNKNOWN) {
        s->failed = true;
        return;
    }
    switch (kind) {
    case MD_TENSOR: s->dim = promote_skip(s->dim, t, &s->failed); break;
    case MD_ZERO_DIM: s->zero = promote_skip(s->zero, t, &s->failed); break;
    case MD_SCALAR:
        /* a wrapped Python float is the default dtype, a complex the default complex dtype */
        if (md_is_floating(t))
            t = FX_DT_F32;
        else if (md_is_complex(t))
            t = FX_DT_C64;
        s->wrapped = promote_skip(s->wrapped, t, &s->failed);
        break;
    }
}

/* c10's combine_categories(higher, lower). */
static fx_dtype combine(fx_dtype higher, fx_dtype lower, bool *failed)
{
    if (md_is_complex(higher))
        return higher;
    if (md_is_complex(lower)) {
        /* keep the value type of a floating higher group */
        if (md_is_floating(higher))
            return higher == FX_DT_F64 ? FX_DT_C128 : higher == FX_DT_F16 ? FX_DT_C32 : FX_DT_C64;
        return lower;
    }
    if (md_is_floating(higher))
        return higher;
    if (higher == FX_DT_BOOL || md_is_floating(lower))
        return promote_skip(higher, lower, failed);
    if (higher != FX_DT_UNKNOWN)
        return higher;
    return lower;
}

fx_dtype md_state_result(const md_state *s)
{
    if (s->failed)
        return FX_DT_UNKNOWN;
    bool failed = false;
    fx_dtype r = combine(s->dim, combine(s->zero, s->wrapped, &failed), &failed);
    return failed ? FX_DT_UNKNOWN : r;
}
