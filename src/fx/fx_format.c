/* fx_format.c — argument trees and value annotations as torch spells them (FX, str, repr). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>


#include "base/hashmap.h"
#include "base/vec.h"
#include "fx/fx_format.h"

/* ---- printing ------------------------------------------------------------------------- */

void fx_py_str_repr(strbuf *out, const char *s)
{
    char q = '\'';
    if (strchr(s, '\'') && !strchr(s, '"'))
        q = '"';
    sb_putc(out, q);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\' || *p == (unsigned char)q) {
            sb_putc(out, '\\');
            sb_putc(out, (char)*p);
        } else if (*p == '\n') {
            sb_puts(out, "\\n");
        } else if (*p == '\t') {
            sb_puts(out, "\\t");
        } else if (*p == '\r') {
            sb_puts(out, "\\r");
        } else if (*p < 0x20 || *p == 0x7f) {
            sb_printf(out, "\\x%02x", *p);
        } else {
            sb_putc(out, (char)*p);
        }
    }
    sb_putc(out, q);
}

static void print_device_repr(strbuf *out, const char *dev)
{
    const char *colon = strchr(dev, ':');
    if (colon)
        sb_printf(out, "device(type='%.*s', index=%s)", (int)(colon - dev), dev, colon + 1);
    else
        sb_printf(out, "device(type='%s')", dev);
}

void fx_arg_print(strbuf *out, const fx_arg *a, fxa_mode mode)
{
    char buf[64];
    if (!a) {
        sb_puts(out, "None");
        return;
    }
    fxa_mode inner = mode == FXA_FX ? FXA_FX : FXA_REPR;
    switch (a->kind) {
    case FX_ARG_NONE: sb_puts(out, "None"); break;
    case FX_ARG_NODE:
        if (mode == FXA_FX)
            sb_putc(out, '%');
        sb_puts(out, a->u.node ? a->u.node->name : "?");
        break;
    case FX_ARG_INT: sb_printf(out, "%" PRId64, a->u.i); break;
    case FX_ARG_FLOAT: sb_puts(out, fx_float_repr(a->u.f, buf, sizeof buf)); break;
    case FX_ARG_BOOL: sb_puts(out, a->u.b ? "True" : "False"); break;
    case FX_ARG_STR:
        if (mode == FXA_REPR)
            fx_py_str_repr(out, a->u.s);
        else
            sb_puts(out, a->u.s);
        break;
    case FX_ARG_DTYPE: sb_puts(out, fx_dtype_get(a->u.dtype)->torch_name); break;
    case FX_ARG_DEVICE:
        if (mode == FXA_REPR)
            print_device_repr(out, a->u.s);
        else
            sb_puts(out, a->u.s);
        break;
    case FX_ARG_MEMFMT: case FX_ARG_LAYOUT: sb_printf(out, "torch.%s", a->u.s); break;
    case FX_ARG_ELLIPSIS: sb_puts(out, "Ellipsis"); break;
    case FX_ARG_OPAQUE: sb_puts(out, a->u.s); break;
    case FX_ARG_LIST: case FX_ARG_TUPLE: {
        bool tup = a->kind == FX_ARG_TUPLE;
        sb_putc(out, tup ? '(' : '[');
        for (size_t i = 0; i < a->u.seq.len; i++) {
            if (i)
                sb_puts(out, ", ");
            fx_arg_print(out, a->u.seq.items[i], inner);
        }
        if (tup && a->u.seq.len == 1)
            sb_putc(out, ',');
        sb_putc(out, tup ? ')' : ']');
        break;
    }
    case FX_ARG_DICT:
        sb_putc(out, '{');
        for (size_t i = 0; i < a->u.seq.len; i++) {
            if (i)
                sb_puts(out, ", ");
            if (inner == FXA_FX)
                sb_puts(out, a->u.seq.keys[i]);
            else
                fx_py_str_repr(out, a->u.seq.keys[i]);
            sb_puts(out, ": ");
            fx_arg_print(out, a->u.seq.items[i], inner);
        }
        sb_putc(out, '}');
        break;
    case FX_ARG_SLICE:
        /* str(slice) is repr of its parts even inside an FX arg list */
        sb_puts(out, "slice(");
        for (size_t i = 0; i < a->u.seq.len; i++) {
            if (i)
                sb_puts(out, ", ");
            fx_arg_print(out, a->u.seq.items[i], FXA_REPR);
        }
        sb_putc(out, ')');
        break;
    }
}

/* ---- value annotations ---------------------------------------------------------------- */

bool fx_value_has_annot(const fx_value *v)
{
    return v && (v->kind == FX_VAL_TENSOR || v->kind == FX_VAL_SYM || v->kind == FX_VAL_OPAQUE);
}

void fx_value_annot(strbuf *out, const fx_value *v)
{
    if (!v)
        return;
    switch (v->kind) {
    case FX_VAL_TENSOR:
        sb_puts(out, fx_dtype_get(v->dtype)->abbr);
        sb_putc(out, '[');
        for (size_t i = 0; i < v->rank; i++) {
            if (i)
                sb_puts(out, ", ");
            sb_puts(out, v->sizes[i]);
        }
        sb_putc(out, ']');
        break;
    case FX_VAL_SYM: sb_printf(out, "Sym(%s)", v->text); break;
    case FX_VAL_OPAQUE: sb_puts(out, v->text); break;
    default: break;
    }
}

bool fx_is_ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}
