/* fx_literal.c — small Python literals (module reprs, schema defaults) read into argument trees. */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fx/fx_build.h"

static const char *skip_ws(const char *s, const char *end)
{
    while (s < end && isspace((unsigned char)*s))
        s++;
    return s;
}

/* End of one top-level item of a comma-separated list (respects brackets and quotes). */
const char *fx_literal_item_end(const char *s, const char *end)
{
    int depth = 0;
    char q = 0;
    for (; s < end; s++) {
        char c = *s;
        if (q) {
            if (c == '\\' && s + 1 < end)
                s++;
            else if (c == q)
                q = 0;
        } else if (c == '\'' || c == '"') {
            q = c;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}') {
            if (depth == 0)
                return s;
            depth--;
        } else if (c == ',' && depth == 0) {
            return s;
        }
    }
    return end;
}

/* Parses a Python literal: int, float, True/False, None, 'str', (..) tuple, [..] list.
 * Returns NULL when the text is not one of those. */
static fx_arg *parse_literal(fx_program *p, const char *s, const char *end)
{
    s = skip_ws(s, end);
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    size_t n = (size_t)(end - s);
    if (n == 0)
        return NULL;
    if ((*s == '(' || *s == '[') && n >= 2) {
        char close = *s == '(' ? ')' : ']';
        if (end[-1] != close)
            return NULL;
        fx_arg *items[64];
        size_t k = 0;
        const char *q = s + 1, *e = end - 1;
        while (q < e) {
            q = skip_ws(q, e);
            if (q >= e)
                break;
            const char *ie = fx_literal_item_end(q, e);
            if (k == 64)
                return NULL;
            items[k] = parse_literal(p, q, ie);
            if (!items[k])
                return NULL;
            k++;
            q = ie < e ? ie + 1 : e;
        }
        return fx_arg_seq(p, *s == '(' ? FX_ARG_TUPLE : FX_ARG_LIST, items, NULL, k);
    }
    if (n > 6 && memcmp(s, "torch.", 6) == 0) {
        fx_dtype dt = fx_dtype_from_torch_name(s, n);
        if (dt != FX_DT_UNKNOWN)
            return fx_arg_dtype(p, dt);
        bool layout = (n == 13 && !memcmp(s + 6, "strided", 7)) || (n == 16 && !memcmp(s + 6, "sparse_coo", 10));
        return fx_arg_str(p, layout ? FX_ARG_LAYOUT : FX_ARG_MEMFMT, fx_strndup(p, s + 6, n - 6));
    }
    if (n == 4 && memcmp(s, "True", 4) == 0)
        return fx_arg_bool(p, true);
    if (n == 5 && memcmp(s, "False", 5) == 0)
        return fx_arg_bool(p, false);
    if (n == 4 && memcmp(s, "None", 4) == 0)
        return fx_arg_none(p);
    if ((*s == '\'' || *s == '"') && n >= 2 && end[-1] == *s)
        return fx_arg_str(p, FX_ARG_STR, fx_strndup(p, s + 1, n - 2));
    char tmp[64];
    if (n >= sizeof tmp)
        return NULL;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    char *ep;
    long long iv = strtoll(tmp, &ep, 10);
    if (*ep == 0)
        return fx_arg_int(p, iv);
    double fv = strtod(tmp, &ep);
    if (*ep == 0)
        return fx_arg_float(p, fv);
    return NULL;
}

fx_arg *fx_parse_literal(fx_program *p, const char *s, const char *end)
{
    return parse_literal(p, s, end);
}

/* Looks up a module repr argument "Conv2d(3, 8, kernel_size=(3, 3))" by keyword, else by
 * position (pos < 0: keyword only). Sets the value range vs..ve to the value text; false if absent. */
bool fx_repr_find(const char *repr, const char *key, int pos, const char **vs, const char **ve)
{
    if (!repr)
        return false;
    const char *open = strchr(repr, '(');
    if (!open)
        return false;
    const char *end = repr + strlen(repr);
    while (end > open && end[-1] != ')')
        end--;
    if (end <= open)
        return false;
    end--;
    const char *q = open + 1;
    int idx = 0;
    const char *pos_s = NULL, *pos_e = NULL;
    size_t klen = key ? strlen(key) : 0;
    while (q < end) {
        q = skip_ws(q, end);
        if (q >= end)
            break;
        const char *ie = fx_literal_item_end(q, end);
        const char *eq = NULL;
        for (const char *c = q; c < ie && (isalnum((unsigned char)*c) || *c == '_' || *c == '='); c++)
            if (*c == '=') { eq = c; break; }
        if (eq) {
            if (key && (size_t)(eq - q) == klen && memcmp(q, key, klen) == 0) {
                *vs = eq + 1;
                *ve = ie;
                return true;
            }
        } else {
            if (idx == pos) {
                pos_s = q;
                pos_e = ie;
            }
            idx++;
        }
        q = ie < end ? ie + 1 : end;
    }
    if (pos_s) {
        *vs = pos_s;
        *ve = pos_e;
        return true;
    }
    return false;
}

bool fx_repr_is_false(const char *repr, const char *key)
{
    const char *s, *e;
    if (!fx_repr_find(repr, key, -1, &s, &e))
        return false;
    s = skip_ws(s, e);
    return (size_t)(e - s) >= 5 && memcmp(s, "False", 5) == 0;
}
