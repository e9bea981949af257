/* onnx_repr.c — numpy's array repr (numpy/_core/arrayprint.py: FloatingFormat in maxprec mode,
 * IntegerFormat, BoolFormat, _formatArray's wrapping and summarization). */
#include "view/onnx_repr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_write.h"
#include "base/vec.h"
#include "onnx/onnx_tensor.h"
#include "view/onnx_values.h"

enum { LINE_WIDTH = 75, THRESHOLD = 1000, EDGE = 3, PRECISION = 8 };

/* ---- one float ---------------------------------------------------------------------------------- */

static bool same_in_type(double v, double x, int dtype)
{
    switch (dtype) {
    case T_DOUBLE: return v == x;
    case T_FLOAT16: return ot_float_to_half(v) == ot_float_to_half(x);
    case T_BFLOAT16: return ot_float_to_bf16(v) == ot_float_to_bf16(x);
    default: return (float)v == (float)x;
    }
}

/* Shortest significant digits of |x| that read back as x in dtype, and the exponent of the
 * first digit (x = d.ddd × 10^e). */
static void shortest(double x, int dtype, char *digits, int *e10)
{
    char buf[64];
    int maxp = dtype == T_DOUBLE ? 17 : dtype == T_FLOAT ? 9 : 5;
    for (int p = 1; p <= maxp; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, fabs(x));
        double v = dtype == T_FLOAT ? (double)strtof(buf, NULL) : strtod(buf, NULL);
        if (same_in_type(v, fabs(x), dtype)) break;
    }
    int n = 0;
    char *p = buf;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0') n--;
    digits[n] = 0;
    *e10 = *p == 'e' ? atoi(p + 1) : 0;
}

/* Positional: integer part (with sign) and fractional part, trimmed ('.' kept by the caller). */
static void positional(double x, int dtype, char *ip, char *fp)
{
    char d[32];
    int e;
    shortest(x, dtype, d, &e);
    int n = (int)strlen(d);
    char *o = ip;
    if (signbit(x)) *o++ = '-';
    if (e >= 0) {
        for (int i = 0; i <= e; i++) *o++ = i < n ? d[i] : '0';
        *o = 0;
        snprintf(fp, 32, "%s", n > e + 1 ? d + e + 1 : "");
    } else {
        *o++ = '0';
        *o = 0;
        int k = 0;
        for (int i = 0; i < -e - 1 && k < 30; i++) fp[k++] = '0';
        for (int i = 0; i < n && k < 31; i++) fp[k++] = d[i];
        fp[k] = 0;
    }
    if (strlen(fp) > PRECISION) {
        char buf[400];
        snprintf(buf, sizeof buf, "%.*f", PRECISION, fabs(x));
        char *dot = strchr(buf, '.');
        *dot = 0;
        snprintf(ip, 340, "%s%.330s", signbit(x) ? "-" : "", buf);
        snprintf(fp, 32, "%s", dot + 1);
        for (int k = (int)strlen(fp) - 1; k >= 0 && fp[k] == '0'; k--) fp[k] = 0;
    }
}

/* Scientific: first digit (with sign), fractional digits (trimmed), exponent. */
static void scientific(double x, int dtype, char *ip, char *fp, int *e10)
{
    char d[32];
    shortest(x, dtype, d, e10);
    if (strlen(d) > PRECISION + 1) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.*e", PRECISION, fabs(x));
        int n = 0;
        char *p = buf;
        for (; *p && *p != 'e'; p++)
            if (*p >= '0' && *p <= '9') d[n++] = *p;
        while (n > 1 && d[n - 1] == '0') n--;
        d[n] = 0;
        *e10 = atoi(p + 1);
    }
    snprintf(ip, 8, "%s%c", signbit(x) ? "-" : "", d[0]);
    snprintf(fp, 32, "%s", d + 1);
}

/* ---- the format of one array (from the elements shown) ------------------------------------------- */

enum { K_FLOAT, K_INT, K_BOOL };

typedef struct fmt {
    int kind, dtype;
    bool exp, scalar;
    int pad_left, pad_right, precision, exp_size, width;
} fmt;

typedef VEC(int64_t) idx_vec;

/* Flat indices of the elements a summarized (or full) repr shows. */
static void shown(const oe_tensor *t, bool summary, int axis, int64_t base, idx_vec *out)
{
    if (axis == t->rank) {
        vec_push(out, base);
        return;
    }
    int64_t d = t->dims[axis], inner = ot_numel_of(t->dims + axis + 1, t->rank - axis - 1);
    for (int64_t i = 0; i < d; i++) {
        if (summary && d > 2 * EDGE && i == EDGE) i = d - EDGE;
        shown(t, summary, axis + 1, base + i * inner, out);
    }
}

static void fill_float_format(fmt *f, const oe_tensor *t, const idx_vec *ix)
{
    double mx = 0, mn = INFINITY;
    bool any_finite = false, nonfinite = false, neginf = false;
    for (size_t i = 0; i < ix->len; i++) {
        double v = ot_get_f(t, ix->items[i]);
        if (!isfinite(v)) {
            nonfinite = true;
            neginf |= isinf(v) && v < 0;
            continue;
        }
        any_finite = true;
        if (v != 0) {
            mx = fmax(mx, fabs(v));
            mn = fmin(mn, fabs(v));
        }
    }
    f->exp = mn != INFINITY && (mx >= 1e8 || mn < 1e-4 || mx / mn > 1e3);
    f->exp_size = -1;
    for (size_t i = 0; any_finite && i < ix->len; i++) {
        double v = ot_get_f(t, ix->items[i]);
        if (!isfinite(v)) continue;
        char ip[400], fp[40];
        int e;
        if (f->exp) {
            scientific(v, t->dtype, ip, fp, &e);
            int ed = abs(e) >= 100 ? 3 : 2;
            f->exp_size = ed > f->exp_size ? ed : f->exp_size;
            f->precision = (int)strlen(fp) > f->precision ? (int)strlen(fp) : f->precision;
        } else {
            positional(v, t->dtype, ip, fp);
            f->pad_right = (int)strlen(fp) > f->pad_right ? (int)strlen(fp) : f->pad_right;
        }
        f->pad_left = (int)strlen(ip) > f->pad_left ? (int)strlen(ip) : f->pad_left;
    }
    if (f->exp) f->pad_right = f->exp_size + 2 + f->precision;
    if (nonfinite) {
        int offset = f->pad_right + 1;
        f->pad_left = f->pad_left > 3 - offset ? f->pad_left : 3 - offset;
        f->pad_left = f->pad_left > 3 + neginf - offset ? f->pad_left : 3 + neginf - offset;
    }
}

static void fmt_init(fmt *f, const oe_tensor *t, const idx_vec *ix)
{
    memset(f, 0, sizeof *f);
    f->dtype = t->dtype;
    f->scalar = t->rank == 0;
    f->kind = oe_is_float(t->dtype) ? K_FLOAT : t->dtype == T_BOOL ? K_BOOL : K_INT;
    if (f->kind == K_FLOAT) {
        fill_float_format(f, t, ix);
    } else if (f->kind == K_INT) {
        for (size_t i = 0; i < ix->len; i++) {
            char b[32];
            int n = t->dtype == T_UINT64 ? snprintf(b, sizeof b, "%llu", (unsigned long long)ot_get_i(t, ix->items[i]))
                                         : snprintf(b, sizeof b, "%lld", (long long)ot_get_i(t, ix->items[i]));
            f->width = n > f->width ? n : f->width;
        }
    }
}

static void format_elem(const fmt *f, const oe_tensor *t, int64_t i, strbuf *out)
{
    if (f->kind == K_BOOL) {
        sb_puts(out, ot_get_i(t, i) ? (f->scalar ? "True" : " True") : "False");
        return;
    }
    if (f->kind == K_INT) {
        if (t->dtype == T_UINT64) sb_printf(out, "%*llu", f->width, (unsigned long long)ot_get_i(t, i));
        else sb_printf(out, "%*lld", f->width, (long long)ot_get_i(t, i));
        return;
    }
    double v = ot_get_f(t, i);
    if (!isfinite(v)) {
        const char *s = isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
        sb_printf(out, "%*s", f->pad_left + f->pad_right + 1, s);
        return;
    }
    char ip[400], fp[40];
    if (f->exp) {
        int e;
        scientific(v, t->dtype, ip, fp, &e);
        sb_printf(out, "%*s.%s", f->pad_left, ip, fp);
        for (int k = (int)strlen(fp); k < f->precision; k++) sb_putc(out, '0');
        sb_printf(out, "e%c%0*d", e < 0 ? '-' : '+', f->exp_size, abs(e));
    } else {
        positional(v, t->dtype, ip, fp);
        sb_printf(out, "%*s.%-*s", f->pad_left, ip, f->pad_right, fp);
    }
}

/* ---- _formatArray ------------------------------------------------------------------------------- */

typedef struct arr_ctx {
    const oe_tensor *t;
    const fmt *f;
    bool summary;
} arr_ctx;

static void extend_line(strbuf *s, strbuf *line, const char *word, size_t width, size_t indent_len, const char *indent)
{
    bool wrap = line->len + strlen(word) > width && line->len > indent_len;
    if (wrap) {
        size_t n = line->len;
        while (n && line->s[n - 1] == ' ') n--;
        sb_putn(s, line->s, n);
        sb_putc(s, '\n');
        line->len = 0;
        line->s[0] = 0;
        sb_puts(line, indent);
    }
    sb_puts(line, word);
}

static void recurse(const arr_ctx *c, int axis, int64_t base, const char *indent, size_t width, strbuf *out)
{
    const oe_tensor *t = c->t;
    if (axis == t->rank) {
        format_elem(c->f, t, base, out);
        return;
    }
    int64_t d = t->dims[axis], inner = ot_numel_of(t->dims + axis + 1, t->rank - axis - 1);
    bool sum = c->summary && d > 2 * EDGE;
    size_t ilen = strlen(indent);
    char *next = xmalloc(ilen + 2);
    memcpy(next, indent, ilen);
    next[ilen] = ' ';
    next[ilen + 1] = 0;
    strbuf s;
    sb_init(&s);
    if (axis == t->rank - 1) {
        strbuf line, word;
        sb_init(&line);
        sb_init(&word);
        sb_puts(&line, indent);
        for (int64_t i = 0; i < d; i++) {
            if (sum && i == EDGE) {
                extend_line(&s, &line, "...", width - 1, ilen, indent);
                sb_puts(&line, ", ");
                i = d - EDGE;
            }
            word.len = 0;
            if (word.s) word.s[0] = 0;
            recurse(c, axis + 1, base + i * inner, next, width - 1, &word);
            extend_line(&s, &line, word.s, width - 1, ilen, indent);
            if (i + 1 < d) sb_puts(&line, ", ");
        }
        sb_putn(&s, line.s, line.len);
        sb_free(&line);
        sb_free(&word);
    } else {
        int blank = t->rank - axis - 1;
        for (int64_t i = 0; i < d; i++) {
            if (sum && i == EDGE) {
                sb_printf(&s, "%s...,", indent);
                for (int k = 0; k < blank; k++) sb_putc(&s, '\n');
                i = d - EDGE;
            }
            sb_puts(&s, indent);
            recurse(c, axis + 1, base + i * inner, next, width - 1, &s);
            if (i + 1 < d) {
                sb_putc(&s, ',');
                for (int k = 0; k < blank; k++) sb_putc(&s, '\n');
            }
        }
    }
    sb_putc(out, '[');
    if (s.len > ilen) sb_putn(out, s.s + ilen, s.len - ilen);
    sb_putc(out, ']');
    sb_free(&s);
    free(next);
}

static const char *dtype_label(int dtype)
{
    return view_numpy_dtype_name(dtype);
}

static void array_repr(const oe_tensor *t, strbuf *out)
{
    bool summary = t->numel > THRESHOLD;
    bool implied = t->dtype == T_DOUBLE || t->dtype == T_INT64 || t->dtype == T_BOOL;
    strbuf body;
    sb_init(&body);
    sb_puts(&body, "array(");
    if (t->numel == 0) {
        sb_puts(&body, "[]");
    } else {
        idx_vec ix = {0};
        shown(t, summary, 0, 0, &ix);
        fmt f;
        fmt_init(&f, t, &ix);
        vec_free(&ix);
        arr_ctx c = {t, &f, summary};
        recurse(&c, 0, 0, "       ", LINE_WIDTH - 1, &body);
    }
    strbuf extra;
    sb_init(&extra);
    if ((t->numel == 0 && !(t->rank == 1 && t->dims[0] == 0)) || summary) {
        sb_puts(&extra, "shape=(");
        for (int i = 0; i < t->rank; i++) sb_printf(&extra, "%lld%s", (long long)t->dims[i], i + 1 < t->rank ? ", " : t->rank == 1 ? "," : "");
        sb_puts(&extra, ")");
    }
    if (!implied || t->numel == 0) sb_printf(&extra, "%sdtype=%s", extra.len ? ", " : "", dtype_label(t->dtype));
    if (!extra.len) {
        sb_putn(out, body.s, body.len);
        sb_putc(out, ')');
    } else {
        sb_putc(&body, ',');
        const char *nl = strrchr(body.s, '\n');
        size_t last = nl ? body.len - (size_t)(nl + 1 - body.s) : body.len;
        sb_putn(out, body.s, body.len);
        sb_puts(out, last + extra.len + 2 > LINE_WIDTH ? "\n      " : " ");
        sb_putn(out, extra.s, extra.len);
        sb_putc(out, ')');
    }
    sb_free(&body);
    sb_free(&extra);
}

void view_repr(const oe_tensor *t, strbuf *out)
{
    if (t->kind == OE_KIND_SEQUENCE) {
        sb_putc(out, '[');
        for (int64_t i = 0; i < t->n_items; i++) {
            if (i) sb_puts(out, ", ");
            view_repr(&t->items[i], out);
        }
        sb_putc(out, ']');
    } else if (t->kind == OE_KIND_OPTIONAL) {
        if (t->n_items) view_repr(&t->items[0], out);
        else sb_puts(out, "None");
    } else {
        array_repr(t, out);
    }
}

/* ---- JSON ---------------------------------------------------------------------------------------- */

void view_json_number(json_writer *w, double x, int dtype)
{
    if (!isfinite(x) || !oe_is_float(dtype) || dtype == T_DOUBLE) {
        jw_double_named(w, x);
        return;
    }
    char buf[40];
    for (int p = 1; p <= 17; p++) {   /* shortest in its own type, as numpy's tolist() reads it */
        snprintf(buf, sizeof buf, "%.*g", p, x);
        if (same_in_type(strtod(buf, NULL), x, dtype)) break;
    }
    jw_number_text(w, buf);
}

static void json_element(json_writer *w, const oe_tensor *t, int64_t i)
{
    if (t->dtype == T_BOOL) {
        jw_bool(w, ot_get_i(t, i) != 0);
    } else if (t->dtype == T_UINT64) {
        jw_uint(w, ((const uint64_t *)t->data)[i]);
    } else if (!oe_is_float(t->dtype)) {
        jw_int(w, ot_get_i(t, i));
    } else {
        view_json_number(w, ot_get_f(t, i), t->dtype);
    }
}

static void json_dim(json_writer *w, const oe_tensor *t, int d, int64_t *flat)
{
    if (d == t->rank) {
        json_element(w, t, (*flat)++);
        return;
    }
    jw_array(w);
    for (int64_t k = 0; k < t->dims[d]; k++) json_dim(w, t, d + 1, flat);
    jw_array_end(w);
}

void view_json_value(json_writer *w, const oe_tensor *t)
{
    if (t->kind == OE_KIND_SEQUENCE) {
        jw_array(w);
        for (int64_t k = 0; k < t->n_items; k++) view_json_value(w, &t->items[k]);
        jw_array_end(w);
    } else if (t->kind == OE_KIND_OPTIONAL) {
        if (t->n_items) view_json_value(w, &t->items[0]);
        else jw_null(w);
    } else {
        int64_t flat = 0;
        json_dim(w, t, 0, &flat);
    }
}
