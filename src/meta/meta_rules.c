/* meta_rules.c — loading the meta rule tables: schemas, defaults, and rule calls resolved to
 * functions and schema argument indices (errors at file:line). */
#include "fx/fx_build.h"
#include "meta/meta_rules.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "tables/aten_schemas.h"
#include "tables/pass_tables.h"
#include "tables/tables.h"

void meta_rules_init(meta_rules *r)
{
    memset(r, 0, sizeof *r);
    arena_init(&r->arena);
    r->lits = fx_program_new(NULL);
    hm_init(&r->by_target);
}

void meta_rules_free(meta_rules *r)
{
    hm_free(&r->by_target);
    free(r->lit);
    fx_program_free(r->lits);
    arena_free(&r->arena);
    memset(r, 0, sizeof *r);
}

const mi_rule *meta_rules_find(const meta_rules *r, const char *target)
{
    if (!strncmp(target, "torch.ops.", 10))
        target += 10;
    return hm_get(&r->by_target, target);
}

const fx_arg *meta_rules_default(const meta_rules *r, const mi_rule *rule, size_t i)
{
    (void)r;
    return i < rule->schema.nargs ? rule->defaults[i] : NULL;
}

const fx_arg *meta_rules_literal(const meta_rules *r, int param)
{
    size_t i = (size_t)(-param - 1);
    return param < 0 && i < r->nlit ? r->lit[i] : NULL;
}

typedef struct loader {
    meta_rules *r;
    diag_sink *d;
    const pt_record *rec;
    VEC(mi_rule *) pending;     /* entered into the map only when the whole text loaded */
} loader;

static diagnostic *lerr(loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static diagnostic *lerr(loader *L, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return diag_error(L->d, (diag_loc){ L->rec->file, L->rec->line, 0 }, "meta table: %s", msg);
}

static int add_literal(loader *L, const fx_arg *a)
{
    xgrow((void **)&L->r->lit, &L->r->lit_cap, L->r->nlit + 1, sizeof *L->r->lit);
    L->r->lit[L->r->nlit++] = a;
    return -(int)L->r->nlit;
}

static const char *trim(const char **e, const char *s)
{
    while (s < *e && isspace((unsigned char)*s))
        s++;
    while (*e > s && isspace((unsigned char)(*e)[-1]))
        (*e)--;
    return s;
}

/* The end of one comma-separated item (brackets and quotes nest). */
static const char *item_end(const char *s, const char *e, char sep)
{
    int depth = 0;
    char q = 0;
    for (; s < e; s++) {
        if (q) {
            if (*s == q)
                q = 0;
        } else if (*s == '\'' || *s == '"') {
            q = *s;
        } else if (*s == '(' || *s == '[') {
            depth++;
        } else if (*s == ')' || *s == ']') {
            depth--;
        } else if (*s == sep && depth == 0) {
            return s;
        }
    }
    return e;
}

static bool is_ident(const char *s, const char *e)
{
    if (s == e || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; s < e; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

static int schema_index(const aten_schema *sc, const char *s, const char *e)
{
    for (size_t i = 0; i < sc->nargs; i++)
        if (strlen(sc->args[i].name) == (size_t)(e - s) && !memcmp(sc->args[i].name, s, (size_t)(e - s)))
            return (int)i;
    return -1;
}

typedef enum call_kind { CK_SHAPE, CK_DTYPE, CK_STRIDES } call_kind;

/* "fn(p, ...)", or for dtypes also a bare ScalarType argument or a dtype abbreviation. */
static bool parse_call(loader *L, const mi_rule *rule, call_kind kind, const char *s, const char *e, mi_call *out)
{
    s = trim(&e, s);
    memset(out, 0, sizeof *out);
    out->arg = -1;
    const char *open = memchr(s, '(', (size_t)(e - s));
    const char *name_end = open ? open : e;
    while (name_end > s && isspace((unsigned char)name_end[-1]))
        name_end--;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(name_end - s), s);
    if (!open && kind == CK_DTYPE) {
        int ai = schema_index(&rule->schema, s, e);
        if (ai >= 0) {
            out->arg = ai;
            return true;
        }
        out->constant = fx_dtype_from_abbr(s, (size_t)(e - s));
        if (out->constant != FX_DT_UNKNOWN)
            return true;
    }
    const mi_fn_entry *fn = kind == CK_SHAPE ? mi_find_shape(name) : kind == CK_DTYPE ? mi_find_dtype(name)
                                                                                       : mi_find_strides(name);
    static const char *const kinds[] = { "shape", "dtype", "strides" };
    if (!fn) {
        diagnostic *dg = lerr(L, "unknown %s function '%s'", kinds[kind], name);
        const char *near = mi_suggest_fn((int)kind, name);
        if (near)
            diag_set_hint(dg, "did you mean '%s'? (the functions are listed at the top of share/fxsh/meta/aten.yaml)",
                          near);
        else
            diag_set_hint(dg, "see the functions listed at the top of share/fxsh/meta/aten.yaml");
        return false;
    }
    out->fn = fn;
    if (open) {
        if (e[-1] != ')') {
            lerr(L, "'%s': missing ')' after the parameters of %s", name, kinds[kind]);
            return false;
        }
        const char *p = open + 1, *pe = e - 1;
        int buf[32];
        while (p < pe) {
            const char *ie = item_end(p, pe, ','), *qe = ie;
            const char *q = trim(&qe, p);
            if (out->np == 32) {
                lerr(L, "'%s' has too many parameters", name);
                return false;
            }
            int ai = is_ident(q, qe) ? schema_index(&rule->schema, q, qe) : -1;
            if (ai < 0) {
                fx_arg *lit = fx_parse_literal(L->r->lits, q, qe);
                if (!lit) {
                    char what[64];
                    snprintf(what, sizeof what, "%.*s", (int)(qe - q), q);
                    diag_set_hint(lerr(L, "'%s' is neither an argument of the schema nor a literal (in %s)",
                                       what, name),
                                  "%s", rule->schema.text);
                    return false;
                }
                ai = add_literal(L, lit);
            }
            buf[out->np++] = ai;
            p = ie < pe ? ie + 1 : pe;
        }
        out->params = arena_alloc(&L->r->arena, (out->np ? out->np : 1) * sizeof *out->params);
        memcpy(out->params, buf, out->np * sizeof *buf);
    }
    if ((int)out->np < fn->min_params || (int)out->np > fn->max_params) {
        lerr(L, "%s() takes %d to %d parameters, not %zu", name, fn->min_params, fn->max_params, out->np);
        return false;
    }
    return true;
}

static bool parse_alts(loader *L, const mi_rule *rule, const char *text, mi_alts *out)
{
    const char *s = text, *e = text + strlen(text);
    size_t n = 1;
    for (const char *p = s; (p = item_end(p, e, '|')) < e; p++)
        n++;
    out->alt = arena_alloc(&L->r->arena, n * sizeof *out->alt);
    out->n = 0;
    while (out->n < n) {
        const char *ie = item_end(s, e, '|');
        if (!parse_call(L, rule, CK_DTYPE, s, ie, &out->alt[out->n++]))
            return false;
        s = ie + 1;
    }
    return true;
}

/* A schema default as an argument tree ("None", "1", "[0, 0]", "contiguous_format"). */
static const fx_arg *default_of(loader *L, const aten_arg *a)
{
    if (!a->has_default)
        return NULL;
    const char *t = a->default_text;
    fx_arg *v = fx_parse_literal(L->r->lits, t, t + strlen(t));
    if (!v && a->base == ATY_MEMFMT)
        v = fx_arg_str(L->r->lits, FX_ARG_MEMFMT, t);
    return v;
}

static bool load_record(loader *L)
{
    const pt_record *rec = L->rec;
    const char *targets = pt_get(rec, "targets"), *schema = pt_get(rec, "schema"), *shape = pt_get(rec, "shape");
    if (!targets || !shape) {
        lerr(L, "a record needs targets and shape");
        return false;
    }
    for (size_t i = 0; i < rec->n; i++) {
        const char *k = rec->keys[i];
        bool known = !strcmp(k, "targets") || !strcmp(k, "schema") || !strcmp(k, "shape") || !strcmp(k, "dtype") ||
                     !strcmp(k, "strides") || !strcmp(k, "doc") ||
                     (!strncmp(k, "dtype", 5) && isdigit((unsigned char)k[5]) && !k[6] && k[5] - '0' < MI_MAX_OUTPUTS);
        if (!known) {
            lerr(L, "unknown key '%s'", k);
            return false;
        }
    }
    const char *s = targets, *e = targets + strlen(targets);
    while (s < e) {
        const char *ie = item_end(s, e, ',');
        const char *te = ie, *t = trim(&te, s);
        char target[160];
        snprintf(target, sizeof target, "%.*s", (int)(te - t), t);
        /* aten.add.Tensor → "add.Tensor" + "(...) -> ..."; a Python callable (operator.eq,
         * builtins.len: TorchScript's arithmetic on sizes) has no overload */
        const char *op = strchr(target, '.');
        bool python = !strncmp(target, "operator.", 9) || !strncmp(target, "builtins.", 9) ||
                      !strncmp(target, "math.", 5) || !strncmp(target, "fxsh.", 5);
        if (!op || (!python && !strchr(op + 1, '.'))) {
            lerr(L, "target '%s' is not namespace.op.overload", target);
            return false;
        }
        mi_rule *rule = arena_alloc(&L->r->arena, sizeof *rule);
        rule->target = arena_strdup(&L->r->arena, target);
        rule->file = arena_strdup(&L->r->arena, rec->file);
        rule->line = rec->line;
        /* without `schema:` each target binds by torch's (share/fxsh/aten/schemas.txt) */
        if (!schema && !aten_schemas_lookup(target, NULL)) {
            lerr(L, "torch has no schema for '%s' (share/fxsh/aten/schemas.txt): give the record a schema", target);
            return false;
        }
        if (!schema ? !aten_schemas_parse(&L->r->arena, target, &rule->schema, L->d)
                    : !aten_schema_parse(&L->r->arena, arena_printf(&L->r->arena, "%s%s", op + 1, schema),
                                         &rule->schema, L->d, (diag_loc){ rec->file, rec->line, 0 }))
            return false;
        rule->defaults = arena_alloc(&L->r->arena, (rule->schema.nargs ? rule->schema.nargs : 1) * sizeof *rule->defaults);
        for (size_t i = 0; i < rule->schema.nargs; i++)
            rule->defaults[i] = default_of(L, &rule->schema.args[i]);
        if (!parse_call(L, rule, CK_SHAPE, shape, shape + strlen(shape), &rule->shape))
            return false;
        const char *dt = pt_get(rec, "dtype"), *st = pt_get(rec, "strides");
        if (dt && !parse_alts(L, rule, dt, &rule->dtype))
            return false;
        for (int k = 0; k < MI_MAX_OUTPUTS; k++) {
            char key[8];
            snprintf(key, sizeof key, "dtype%d", k);
            const char *v = pt_get(rec, key);
            if (v && !parse_alts(L, rule, v, &rule->dtype_of[k]))
                return false;
        }
        if (st) {
            rule->has_strides = true;
            if (!parse_call(L, rule, CK_STRIDES, st, st + strlen(st), &rule->strides))
                return false;
        }
        vec_push(&L->pending, rule);
        s = ie + 1;
    }
    return true;
}

static bool load_table(meta_rules *r, const pass_table *t, diag_sink *d)
{
    loader L = { r, d, NULL, { 0 } };
    bool ok = true;
    for (size_t i = 0; i < t->n && ok; i++) {
        L.rec = &t->recs[i];
        ok = load_record(&L);
    }
    for (size_t i = 0; ok && i < L.pending.len; i++)
        hm_put(&r->by_target, L.pending.items[i]->target, L.pending.items[i]);
    vec_free(&L.pending);
    return ok;
}

bool meta_rules_load_string(meta_rules *r, const char *name, const char *text, size_t len, diag_sink *d)
{
    pass_table t;
    pass_table_init(&t);
    bool ok = pass_table_load_string(&t, name, text, len, "ops", d) && load_table(r, &t, d);
    pass_table_free(&t);
    return ok;
}

bool meta_rules_load_file(meta_rules *r, const char *path, diag_sink *d)
{
    pass_table t;
    pass_table_init(&t);
    bool ok = pass_table_load_file(&t, path, "ops", d) && load_table(r, &t, d);
    pass_table_free(&t);
    return ok;
}

bool meta_rules_load_default(meta_rules *r, diag_sink *d)
{
    const pass_table *t = tables_pass("meta", "ops", d);
    return t && load_table(r, t, d);
}

const meta_rules *meta_rules_shipped(diag_sink *d)
{
    /* share/fxsh/meta is read once per process; every pass then shares the same rules */
    static meta_rules *rules;
    if (rules)
        return rules;
    const pass_table *t = tables_pass("meta", "ops", d);
    if (!t)
        return NULL;
    meta_rules *r = xmalloc(sizeof *r);
    meta_rules_init(r);
    if (!load_table(r, t, d)) {
        meta_rules_free(r);
        free(r);
        return NULL;
    }
    rules = r;
    return rules;
}
