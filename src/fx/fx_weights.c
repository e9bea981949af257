/* fx_weights.c — REPL summaries of a program's state: `signature`, `params`, `weights NAME`. */

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "fx/fx.h"

static const char *role_name(fx_tensor_role r)
{
    return r == FX_TENSOR_PARAMETER ? "parameter" : r == FX_TENSOR_BUFFER ? "buffer" : "constant";
}

static void put_shape(strbuf *sb, const fx_weight *w)
{
    sb_putc(sb, '[');
    for (size_t k = 0; k < w->rank; k++) sb_printf(sb, "%s%lld", k ? ", " : "", (long long)w->shape[k]);
    sb_putc(sb, ']');
}

static int64_t numel(const fx_weight *w)
{
    int64_t n = 1;
    for (size_t k = 0; k < w->rank; k++) n *= w->shape[k];
    return n;
}

bool fx_program_signature(const fx_program *p, strbuf *out, diag_sink *d)
{
    if (!p->sig.present) {
        diag_loc loc = { p->file, 0, 0 };
        diag_error(d, loc, "this program has no export signature (load a .pt2 or program JSON, or run `export`)");
        return false;
    }
    /* Grouped by kind in the order torch lists them; each line names the placeholder/output,
     * its type annotation and what it binds to. */
    fx_graph *g = fx_program_graph(p);
    static const fx_input_kind in_order[] = { FX_IN_USER_INPUT, FX_IN_PARAMETER, FX_IN_BUFFER, FX_IN_CONSTANT_TENSOR,
                                              FX_IN_CUSTOM_OBJ, FX_IN_TOKEN };
    sb_puts(out, "inputs:\n");
    for (size_t o = 0; o < sizeof in_order / sizeof *in_order; o++) {
        for (size_t i = 0; i < p->sig.n_inputs; i++) {
            const fx_input_spec *s = &p->sig.inputs[i];
            if (s->kind != in_order[o]) continue;
            fx_node *n = fx_graph_lookup(g, s->name);
            sb_printf(out, "  %-12s %s", fx_input_kind_name(s->kind), s->name);
            if (n && n->meta.val && n->meta.val->kind == FX_VAL_TENSOR) {
                const fx_value *v = n->meta.val;
                sb_printf(out, ": %s[", fx_dtype_get(v->dtype)->abbr);
                for (size_t k = 0; k < v->rank; k++) sb_printf(out, "%s%s", k ? ", " : "", v->sizes[k]);
                sb_putc(out, ']');
            }
            if (s->target) sb_printf(out, " <- %s", s->target);
            if (s->kind == FX_IN_BUFFER && !s->persistent) sb_puts(out, " (non-persistent)");
            sb_putc(out, '\n');
        }
    }
    sb_puts(out, "outputs:\n");
    for (size_t i = 0; i < p->sig.n_outputs; i++) {
        const fx_output_spec *s = &p->sig.outputs[i];
        sb_printf(out, "  %-12s %s", fx_output_kind_name(s->kind), s->name);
        if (s->target) sb_printf(out, " -> %s", s->target);
        sb_putc(out, '\n');
    }
    return true;
}

bool fx_program_params(const fx_program *p, strbuf *out, diag_sink *d)
{
    (void)d;
    size_t wn = 4, wk = 4, wd = 5, ws = 5;
    strbuf sh;
    sb_init(&sh);
    for (const fx_weight *w = p->weights; w; w = w->next) {
        sb_reset(&sh);
        put_shape(&sh, w);
        if (strlen(w->fqn) > wn) wn = strlen(w->fqn);
        if (strlen(role_name(w->role)) > wk) wk = strlen(role_name(w->role));
        if (strlen(fx_dtype_get(w->dtype)->torch_name) > wd) wd = strlen(fx_dtype_get(w->dtype)->torch_name);
        if (sh.len > ws) ws = sh.len;
    }
    sb_printf(out, "%-*s  %-*s  %-*s  %-*s  %s\n", (int)wn, "name", (int)wk, "kind", (int)wd, "dtype", (int)ws, "shape", "bytes");
    size_t count = 0;
    int64_t elems = 0;
    uint64_t bytes = 0;
    for (const fx_weight *w = p->weights; w; w = w->next) {
        sb_reset(&sh);
        put_shape(&sh, w);
        uint64_t b = (uint64_t)numel(w) * fx_dtype_get(w->dtype)->elem_size;
        sb_printf(out, "%-*s  %-*s  %-*s  %-*s  %llu\n", (int)wn, w->fqn, (int)wk, role_name(w->role), (int)wd,
                  fx_dtype_get(w->dtype)->torch_name, (int)ws, sh.s, (unsigned long long)b);
        count++;
        elems += numel(w);
        bytes += b;
    }
    sb_free(&sh);
    sb_printf(out, "total: %zu tensor%s, %lld element%s, %llu bytes", count, count == 1 ? "" : "s", (long long)elems,
              elems == 1 ? "" : "s", (unsigned long long)bytes);
    if (count && !fx_program_has_weight_data(p)) sb_puts(out, " (no weight data: loaded without an archive)");
    sb_putc(out, '\n');
    return true;
}

static float half_to_float(uint16_t h)
{
    int s = h >> 15, e = h >> 10 & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0) v = ldexpf((float)m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexpf((float)(m | 0x400), e - 25);
    return s ? -v : v;
}

/* Element i as a double; false for dtypes without a numeric reading. */
static bool elem(const fx_weight *w, int64_t i, double *out)
{
    const unsigned char *b = (const unsigned char *)w->data + (size_t)i * fx_dtype_get(w->dtype)->elem_size;
    union { float f; double d; int8_t i8; int16_t i16; int32_t i32; int64_t i64; uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; } u;
    switch (w->dtype) {
    case FX_DT_F32: memcpy(&u.f, b, 4); *out = u.f; return true;
    case FX_DT_F64: memcpy(&u.d, b, 8); *out = u.d; return true;
    case FX_DT_F16: memcpy(&u.u16, b, 2); *out = half_to_float(u.u16); return true;
    case FX_DT_BF16: {
        memcpy(&u.u16, b, 2);
        uint32_t bits = (uint32_t)u.u16 << 16;
        memcpy(&u.f, &bits, 4);
        *out = u.f;
        return true;
    }
    case FX_DT_I8: memcpy(&u.i8, b, 1); *out = u.i8; return true;
    case FX_DT_I16: memcpy(&u.i16, b, 2); *out = u.i16; return true;
    case FX_DT_I32: memcpy(&u.i32, b, 4); *out = u.i32; return true;
    case FX_DT_I64: memcpy(&u.i64, b, 8); *out = (double)u.i64; return true;
    case FX_DT_U8: case FX_DT_BOOL: *out = b[0]; return true;
    case FX_DT_U16: memcpy(&u.u16, b, 2); *out = u.u16; return true;
    case FX_DT_U32: memcpy(&u.u32, b, 4); *out = u.u32; return true;
    case FX_DT_U64: memcpy(&u.u64, b, 8); *out = (double)u.u64; return true;
    default: return false;
    }
}

static void put_num(strbuf *out, const fx_weight *w, double v)
{
    bool is_float = w->dtype == FX_DT_F32 || w->dtype == FX_DT_F64 || w->dtype == FX_DT_F16 || w->dtype == FX_DT_BF16;
    if (w->dtype == FX_DT_BOOL) sb_puts(out, v != 0 ? "True" : "False");
    else if (is_float) sb_printf(out, "%.6g", v);
    else sb_printf(out, "%.0f", v);
}

const fx_weight *fx_program_weight_named(const fx_program *p, const char *name)
{
    const fx_weight *w = fx_program_weight(p, name);
    /* Also accept the placeholder name (p_fc1_weight) of a lifted tensor. */
    for (size_t i = 0; !w && i < p->sig.n_inputs; i++)
        if (p->sig.inputs[i].target && !strcmp(p->sig.inputs[i].name, name)) w = fx_program_weight(p, p->sig.inputs[i].target);
    return w;
}

bool fx_program_weight_summary(const fx_program *p, const char *name, strbuf *out, diag_sink *d)
{
    diag_loc loc = { p->file, 0, 0 };
    const fx_weight *w = fx_program_weight_named(p, name);
    if (!w) {
        diagnostic *dg = diag_error(d, loc, "no weight named '%s'", name);
        diag_set_hint(dg, "`params` lists the names");
        return false;
    }
    if (!w->data) {
        diagnostic *dg = diag_error(d, loc, "weight '%s' has no data: the program was loaded from JSON without its .pt2 archive", w->fqn);
        diag_set_hint(dg, "load the .pt2 file to see weight values");
        return false;
    }
    int64_t n = numel(w);
    sb_printf(out, "%s: %s %s, shape ", w->fqn, role_name(w->role), fx_dtype_get(w->dtype)->torch_name);
    put_shape(out, w);
    sb_printf(out, ", %lld element%s, %zu bytes%s\n", (long long)n, n == 1 ? "" : "s", w->nbytes, w->owned ? "" : " (mapped)");
    double v;
    if (n == 0 || !elem(w, 0, &v)) {
        if (n) sb_printf(out, "(values of dtype %s are not summarised)\n", fx_dtype_get(w->dtype)->torch_name);
        return true;
    }
    double mn = INFINITY, mx = -INFINITY, sum = 0;
    int64_t nan = 0;
    for (int64_t i = 0; i < n; i++) {
        elem(w, i, &v);
        if (isnan(v)) { nan++; continue; }
        if (v < mn) mn = v;
        if (v > mx) mx = v;
        sum += v;
    }
    if (nan < n) {
        sb_puts(out, "min ");
        put_num(out, w, mn);
        sb_puts(out, "  max ");
        put_num(out, w, mx);
        sb_printf(out, "  mean %.6g", sum / (double)(n - nan));
        if (nan) sb_printf(out, "  nan %lld", (long long)nan);
        sb_putc(out, '\n');
    }
    int64_t show = n < 10 ? n : 10;
    sb_putc(out, '[');
    for (int64_t i = 0; i < show; i++) {
        elem(w, i, &v);
        if (i) sb_puts(out, ", ");
        put_num(out, w, v);
    }
    sb_puts(out, n > show ? ", ...]\n" : "]\n");
    return true;
}

bool fx_program_has_weight_data(const fx_program *p)
{
    for (const fx_weight *w = p->weights; w; w = w->next)
        if (w->data) return true;
    return false;
}
