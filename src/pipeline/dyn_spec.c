/* dyn_spec.c — reading the `dynamic_shapes` setting (see dyn_spec.h). */
#include "pipeline/dyn_spec.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

/* The next item of text at *at: up to a comma or space outside parentheses and quotes. */
static char *next_item(const char **at)
{
    const char *p = *at;
    while (*p == ',' || isspace((unsigned char)*p)) p++;
    if (!*p) return NULL;
    const char *start = p;
    int depth = 0;
    char quote = 0;
    for (; *p; p++) {
        if (quote) {
            if (*p == quote) quote = 0;
        } else if (*p == '\'' || *p == '"') {
            quote = *p;
        } else if (*p == '(') {
            depth++;
        } else if (*p == ')') {
            depth--;
        } else if (depth <= 0 && (*p == ',' || isspace((unsigned char)*p))) {
            break;
        }
    }
    *at = p;
    char *item = xmalloc((size_t)(p - start) + 1);
    memcpy(item, start, (size_t)(p - start));
    item[p - start] = '\0';
    return item;
}

static bool identifier(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

/* Dim('name'[, min=N][, max=N]) into it; false with why. */
static bool parse_dim_call(char *spec, dyn_spec_item *it, char *why, size_t cap)
{
    char *p = spec + 4;   /* after "Dim(" */
    char *close = strrchr(p, ')');
    if (!close || close[1]) {
        snprintf(why, cap, "'%s': Dim(...) is not closed", spec);
        return false;
    }
    *close = '\0';
    while (isspace((unsigned char)*p)) p++;
    if (*p != '\'' && *p != '"') {
        snprintf(why, cap, "Dim needs its name first, in quotes: Dim('batch', min=2, max=64)");
        return false;
    }
    char q = *p++;
    char *end = strchr(p, q);
    if (!end) {
        snprintf(why, cap, "Dim's name is not closed");
        return false;
    }
    *end = '\0';
    if (!identifier(p)) {
        snprintf(why, cap, "Dim's name '%s' is not an identifier", p);
        return false;
    }
    it->name = xstrdup(p);
    for (char *arg = end + 1; *arg;) {
        while (*arg == ',' || isspace((unsigned char)*arg)) arg++;
        if (!*arg) break;
        int64_t *dst = !strncmp(arg, "min", 3) ? &it->min : !strncmp(arg, "max", 3) ? &it->max : NULL;
        char *eq = dst ? arg + 3 : NULL;
        while (eq && isspace((unsigned char)*eq)) eq++;
        if (!dst || *eq != '=') {
            snprintf(why, cap, "Dim takes min= and max=, not '%s'", arg);
            return false;
        }
        errno = 0;
        char *num_end;
        long long v = strtoll(eq + 1, &num_end, 10);
        if (num_end == eq + 1 || errno || v < 0) {
            snprintf(why, cap, "Dim's %.3s must be an integer from 0", arg);
            return false;
        }
        *dst = v;
        arg = num_end;
        while (isspace((unsigned char)*arg)) arg++;
        if (*arg && *arg != ',') {
            snprintf(why, cap, "cannot read '%s' in Dim(...)", arg);
            return false;
        }
    }
    if (it->min >= 0 && it->max >= 0 && it->min > it->max) {
        snprintf(why, cap, "Dim('%s', min=%lld, max=%lld): min is above max", it->name, (long long)it->min, (long long)it->max);
        return false;
    }
    return true;
}

/* A non-negative integer at *p (advanced); false when there is none or it overflows. */
static bool read_count(const char **p, int64_t *v)
{
    if (!isdigit((unsigned char)**p)) return false;
    errno = 0;
    char *end;
    long long n = strtoll(*p, &end, 10);
    if (errno || n > (1LL << 40)) return false;
    *v = n;
    *p = end;
    return true;
}

/* [c*]name[*c][(+|-)k]: a derived dimension; false (why empty) when spec is not one, false with
 * why when it is a malformed one. */
static bool parse_derived(const char *spec, dyn_spec_item *it, char *why, size_t cap)
{
    const char *p = spec;
    int64_t coeff = 1, offset = 0, c2;
    bool lead = read_count(&p, &coeff);
    if (lead && *p++ != '*') return false;
    const char *nm = p;
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    if (p == nm || isdigit((unsigned char)*nm)) return false;
    size_t nl = (size_t)(p - nm);
    if (*p == '*') {
        p++;
        if (lead || !read_count(&p, &c2)) return false;
        coeff = c2;
    }
    if (*p == '+' || *p == '-') {
        bool minus = *p++ == '-';
        if (!read_count(&p, &offset)) return false;
        if (minus) offset = -offset;
    }
    if (*p || (coeff == 1 && offset == 0)) return false;   /* a plain name is a Dim, not derived */
    if (coeff < 1) {
        snprintf(why, cap, "'%s': a derived dimension multiplies its root by a positive integer", spec);
        return false;
    }
    it->kind = DYN_DERIVED;
    it->root = xmalloc(nl + 1);
    memcpy(it->root, nm, nl);
    it->root[nl] = '\0';
    it->coeff = coeff;
    it->offset = offset;
    char text[160];
    int at = coeff == 1 ? snprintf(text, sizeof text, "%s", it->root)
                        : snprintf(text, sizeof text, "%lld*%s", (long long)coeff, it->root);
    if (offset) snprintf(text + at, sizeof text - (size_t)at, " %c %lld", offset > 0 ? '+' : '-', (long long)(offset > 0 ? offset : -offset));
    it->name = xstrdup(text);
    return true;
}

/* A derived item's range from its root's (a named item of that name, else [0, int_oo]): false
 * with why when the root is no named dimension. */
static bool resolve_derived(dyn_spec *s, dyn_spec_item *it, char *why, size_t cap)
{
    const dyn_spec_item *root = NULL;
    for (size_t j = 0; j < s->n && !root; j++)
        if (s->items[j].kind == DYN_NAMED && !strcmp(s->items[j].name, it->root)) root = &s->items[j];
    for (size_t j = 0; j < s->n && !root; j++)
        if (s->items[j].kind != DYN_DERIVED && s->items[j].name && !strcmp(s->items[j].name, it->root)) {
            snprintf(why, cap, "'%s' derives from %s, which is not a named Dim", it->name, it->root);
            return false;
        }
    int64_t lo = root && root->min >= 0 ? root->min : 0;
    it->min = it->coeff * lo + it->offset;
    it->max = root && root->max >= 0 ? it->coeff * root->max + it->offset : -1;
    if (it->min < 0) it->min = 0;
    return true;
}

static bool parse_item(char *item, dyn_spec_item *it, int *n_auto, char *why, size_t cap)
{
    char *colon = strchr(item, ':'), *eq = colon ? strchr(colon, '=') : NULL, *end = NULL;
    long axis = 0;
    if (colon && eq) {
        errno = 0;
        axis = strtol(colon + 1, &end, 10);
    }
    if (!colon || !eq || colon == item || end != eq || eq == colon + 1 || !eq[1] || axis < 0 || errno) {
        snprintf(why, cap, "cannot read '%s'", item);
        return false;
    }
    *colon = *eq = '\0';
    char *spec = eq + 1;
    *it = (dyn_spec_item){.input = xstrdup(item), .axis = (int)axis, .min = -1, .max = -1};
    const char *kw = !strncmp(spec, "Dim.", 4) ? spec + 4 : spec;
    if (!strcmp(kw, "AUTO") || !strcmp(kw, "DYNAMIC")) {
        it->kind = kw[0] == 'A' ? DYN_AUTO : DYN_DYNAMIC;
        char name[32];
        snprintf(name, sizeof name, "s%d", (*n_auto)++);
        it->name = xstrdup(name);
        return true;
    }
    if (!strcmp(kw, "STATIC")) {
        it->kind = DYN_STATIC;
        return true;
    }
    if (!strncmp(spec, "Dim(", 4)) return parse_dim_call(spec, it, why, cap);
    why[0] = '\0';
    if (!identifier(spec) && parse_derived(spec, it, why, cap)) return true;
    if (!identifier(spec)) {
        if (!why[0])
            snprintf(why, cap, "'%s' is not a dimension name, Dim(...), a derived 2*name+1, AUTO, DYNAMIC or STATIC", spec);
        return false;
    }
    it->name = xstrdup(spec);
    return true;
}

bool dyn_spec_parse(const char *text, dyn_spec *s, char *why, size_t cap)
{
    memset(s, 0, sizeof *s);
    int n_auto = 0;
    const char *at = text ? text : "";
    for (char *item; (item = next_item(&at));) {
        if (s->n >= DYN_SPEC_MAX) {
            snprintf(why, cap, "more than %d dynamic dimensions", DYN_SPEC_MAX);
            free(item);
            dyn_spec_free(s);
            return false;
        }
        bool ok = parse_item(item, &s->items[s->n], &n_auto, why, cap);
        s->n++;
        free(item);
        if (!ok) {
            dyn_spec_free(s);
            return false;
        }
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->items[i].kind == DYN_DERIVED && !resolve_derived(s, &s->items[i], why, cap)) {
            dyn_spec_free(s);
            return false;
        }
    return true;
}

void dyn_spec_free(dyn_spec *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->items[i].input);
        free(s->items[i].name);
        free(s->items[i].root);
    }
    memset(s, 0, sizeof *s);
}
