/* decompose_compile.c — share/fxsh/decompose's rules compiled once, when their files load: each
 * rule's schema (torch's, or its own), `when:` (the tables' condition language), body and view
 * inverse checked and turned into the form decompose_template.c runs. */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "decompose/decompose_internal.h"
#include "fx/fx_build.h"
#include "tables/aten_schemas.h"
#include "tables/tables.h"

const cond_pred dc_preds[DP_COUNT] = {
    [DP_STATIC_SHAPE] = {"static_shape", 0},     [DP_HAS_RANK] = {"has_rank", 1},
    [DP_CONTIGUOUS] = {"contiguous", 1},         [DP_VIEWABLE] = {"viewable", 2},
    [DP_LAST_STRIDE_1] = {"last_stride_1", -1},  [DP_IS_DTYPE] = {"is_dtype", 2},
    [DP_SAME_SYMMETRIC] = {"same_symmetric", 2}, [DP_DIVISIBLE] = {"divisible", 2},
    [DP_SAME_SHAPE] = {"same_shape", 2},
};

/* What compiling one rule needs: where it is, its schema, the locals its body has bound so far. */
typedef struct dcc {
    dc_rules *r;
    diag_sink *d;
    const char *file;
    int line;
    const char *target;       /* the rule's */
    const dc_schema *sch;
    VEC(const char *) locals;
    bool failed;              /* this rule */
    bool any;                 /* any rule */
} dcc;

/* Reports a problem of the rule being compiled at its file:line (the first of each rule). */
static void __attribute__((format(printf, 2, 3))) cerr(dcc *k, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!k->failed)
        diag_error(k->d, (diag_loc){ k->file, k->line, 0 }, "decomposition rule for %s: %s", k->target, msg);
    k->failed = true;
}

static const char *trim(const char **s, const char *e)
{
    while (*s < e && isspace((unsigned char)**s))
        (*s)++;
    while (e > *s && isspace((unsigned char)e[-1]))
        e--;
    return e;
}

/* The end of the top-level item starting at s (a ',' or `stop` outside [] and ()), e if none. */
static const char *item_end(const char *s, const char *e, char stop)
{
    int depth = 0;
    for (; s < e; s++) {
        if (*s == '[' || *s == '(')
            depth++;
        else if (*s == ']' || *s == ')')
            depth--;
        else if (*s == stop && depth == 0)
            return s;
    }
    return e;
}

static bool balanced(const char *s, const char *e)
{
    int round = 0, square = 0;
    for (; s < e; s++) {
        round += (*s == '(') - (*s == ')');
        square += (*s == '[') - (*s == ']');
        if (round < 0 || square < 0)
            return false;
    }
    return !round && !square;
}

static int find_name(const char *const *names, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(names[i]) == len && !memcmp(names[i], s, len))
            return (int)i;
    return -1;
}

static int find_local(dcc *k, const char *s, size_t len) { return find_name(k->locals.items, k->locals.len, s, len); }
static int find_arg(dcc *k, const char *s, size_t len) { return find_name(k->sch->names, k->sch->n, s, len); }

static char *dup_text(dcc *k, const char *s, const char *e) { return arena_strndup(&k->r->a, s, (size_t)(e - s)); }

/* The items of [s, e) split at top-level commas into a new array (*n of them). */
static size_t split_items(const char *s, const char *e, const char ***ps, const char ***pe)
{
    size_t n = 0, cap = 0;
    *ps = *pe = NULL;
    while (s < e) {
        const char *ie = item_end(s, e, ','), *is = s;
        const char *te = trim(&is, ie);
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            *ps = xrealloc(*ps, cap * sizeof **ps);
            *pe = xrealloc(*pe, cap * sizeof **pe);
        }
        (*ps)[n] = is;
        (*pe)[n++] = te;
        s = ie < e ? ie + 1 : e;
    }
    return n;
}

static bool operand(dcc *k, const char *s, const char *e, dc_opnd *o);

/* The operands of a list or tuple [s, e) into o's items. */
static bool items(dcc *k, const char *s, const char *e, dc_opnd *o)
{
    const char **ps, **pe;
    o->n = split_items(s, e, &ps, &pe);
    o->items = o->n ? arena_alloc(&k->r->a, o->n * sizeof *o->items) : NULL;
    bool ok = true;
    for (size_t i = 0; i < o->n && ok; i++)
        ok = operand(k, ps[i], pe[i], &o->items[i]);
    free(ps);
    free(pe);
    return ok;
}

/* "@name" or "@name(args)": a helper of decompose_template.c; its arguments are locals, schema
 * arguments or literals (looked up, not emitted). */
static bool helper(dcc *k, const char *s, const char *e, dc_opnd *o)
{
    const char *open = memchr(s, '(', (size_t)(e - s));
    const char **ps, **pe;
    if (open && e[-1] != ')') {
        cerr(k, "text after the arguments of helper %s", o->text);
        return false;
    }
    size_t np = open ? split_items(open + 1, e - 1, &ps, &pe) : 0;
    if (!open)
        ps = pe = NULL;
    o->kind = DK_HELPER;
    o->index = dc_helper_find(s + 1, (size_t)((open ? open : e) - s - 1), np);
    bool ok = o->index >= 0;
    if (!ok)
        cerr(k, "unknown helper %s (or the wrong number of arguments)", o->text);
    o->items = np ? arena_alloc(&k->r->a, np * sizeof *o->items) : NULL;
    o->n = np;
    for (size_t i = 0; i < np && ok; i++) {
        dc_opnd *a = &o->items[i];
        size_t len = (size_t)(pe[i] - ps[i]);
        a->text = dup_text(k, ps[i], pe[i]);
        if ((a->index = find_local(k, ps[i], len)) >= 0) {
            a->kind = DK_LOCAL;
        } else if ((a->index = find_arg(k, ps[i], len)) >= 0) {
            a->kind = DK_ARG;
        } else {
            a->kind = DK_LIT;
            a->lit = fx_parse_literal(k->r->lits, ps[i], pe[i]);
            if (!a->lit && !dc_helper_word_arg(o->index, i)) {
                cerr(k, "'%s' in %s is not an argument of its schema (%s), a local or a literal", a->text, o->text, k->sch->s.text);
                ok = false;
            }
        }
    }
    free(ps);
    free(pe);
    return ok;
}

static bool operand(dcc *k, const char *s, const char *e, dc_opnd *o)
{
    e = trim(&s, e);
    memset(o, 0, sizeof *o);
    o->text = dup_text(k, s, e);
    if (s == e) {
        cerr(k, "an empty operand");
        return false;
    }
    if (*s == '@')
        return helper(k, s, e, o);
    if (*s == '[' && e[-1] == ']') {
        o->kind = DK_LIST;
        return items(k, s + 1, e - 1, o);
    }
    o->optional = e[-1] == '?';
    const char *ne = o->optional ? e - 1 : e;
    size_t len = (size_t)(ne - s);
    o->names_arg = !o->optional && find_arg(k, s, len) >= 0;
    if ((o->index = find_local(k, s, len)) >= 0) {
        o->kind = DK_LOCAL;
    } else if ((o->index = find_arg(k, s, len)) >= 0) {
        o->kind = DK_ARG;
    } else {
        o->kind = DK_LIT;
        o->lit = fx_parse_literal(k->r->lits, s, ne);
        if (!o->lit || o->optional) {
            cerr(k, "'%s' is not an argument of its schema (%s), an earlier local or a literal", o->text,
                 k->sch->s.text);
            return false;
        }
    }
    return true;
}

/* A call's target: an ATen overload torch has, a prims op or a Python operator. The operands of
 * an ATen call are checked against its schema: no more positional ones than it takes before
 * its '*' (unless "*" passes the source's on), keywords it has. */
static bool check_target(dcc *k, const char *t, const dc_stmt *st)
{
    const char *const *kn = st->kn;
    size_t nk = st->nk;
    if (!strncmp(t, "operator.", 9) || !strncmp(t, "prims.", 6))
        return true;
    aten_schema s;
    if (strncmp(t, "aten.", 5) || !aten_schemas_lookup(t, NULL)) {
        cerr(k, "calls %s, which is not an ATen overload torch has (share/fxsh/aten/schemas.txt), "
                "a prims op or an operator.* function", t);
        return false;
    }
    if (!aten_schemas_parse(&k->r->a, t, &s, k->d)) {
        k->failed = true;
        return false;
    }
    size_t npos = 0;
    bool star = false;
    for (size_t i = 0; i < s.nargs && !s.args[i].kwarg_only; i++)
        npos++;
    for (size_t i = 0; i < st->npos; i++)
        star |= st->pos[i].kind == DK_STAR;
    if (!star && st->npos > npos) {
        cerr(k, "the call of %s has %zu positional operands; its schema (%s) takes %zu", t, st->npos, s.text, npos);
        return false;
    }
    for (size_t i = 0; i < nk; i++)
        if (aten_schema_find(&s, kn[i]) < 0) {
            cerr(k, "the call of %s has a keyword %s its schema does not have", t, kn[i]);
            return false;
        }
    return true;
}

/* "[local =] target(positional... | key=value...)" */
static bool call(dcc *k, const char *s, const char *te, const char *eq, const char *open, dc_stmt *st)
{
    const char *ts = s;
    if (eq) {
        const char *le = eq;
        le = trim(&s, le);
        for (const char *q = s; q < le; q++)
            if (!isalnum((unsigned char)*q) && *q != '_') {
                cerr(k, "bad local name '%.*s'", (int)(le - s), s);
                return false;
            }
        ts = eq + 1;
        while (isspace((unsigned char)*ts))
            ts++;
    }
    const char *tn = open;
    tn = trim(&ts, tn);
    bool plain = !strncmp(ts, "operator.", 9);
    const char *tgt = dup_text(k, ts, tn);
    st->target = arena_printf(&k->r->a, "%s%s", plain ? "" : "torch.ops.", tgt);
    const char *close = te - 1, *bar = item_end(open + 1, close, '|');
    const char **ps, **pe;
    st->npos = split_items(open + 1, bar, &ps, &pe);
    st->pos = st->npos ? arena_alloc(&k->r->a, st->npos * sizeof *st->pos) : NULL;
    bool ok = true;
    for (size_t i = 0; i < st->npos && ok; i++) {
        size_t len = (size_t)(pe[i] - ps[i]);
        if ((len == 1 && *ps[i] == '*') || (len == 2 && !memcmp(ps[i], "*1", 2))) {
            st->pos[i] = (dc_opnd){ .kind = DK_STAR, .index = len == 2, .text = dup_text(k, ps[i], pe[i]) };
            continue;
        }
        ok = operand(k, ps[i], pe[i], &st->pos[i]);
    }
    free(ps);
    free(pe);
    if (!ok)
        return false;
    st->nk = bar < close ? split_items(bar + 1, close, &ps, &pe) : 0;
    if (bar >= close)
        ps = pe = NULL;
    st->kn = st->nk ? arena_alloc(&k->r->a, st->nk * sizeof *st->kn) : NULL;
    st->kv = st->nk ? arena_alloc(&k->r->a, st->nk * sizeof *st->kv) : NULL;
    for (size_t i = 0; i < st->nk && ok; i++) {
        const char *keq = memchr(ps[i], '=', (size_t)(pe[i] - ps[i]));
        if (!keq) {
            cerr(k, "keyword operand '%.*s' of %s is not key=value", (int)(pe[i] - ps[i]), ps[i], tgt);
            ok = false;
            break;
        }
        const char *ks = ps[i], *ke = trim(&ks, keq);
        st->kn[i] = dup_text(k, ks, ke);
        ok = operand(k, keq + 1, pe[i], &st->kv[i]);
    }
    free(ps);
    free(pe);
    return ok && check_target(k, tgt, st);
}

/* One statement [s, te). */
static bool statement(dcc *k, const char *s, const char *te, dc_stmt *st)
{
    st->local = -1;
    if (s < te && *s == '~')   /* traced, then dead: an unused call (DCE removes it) */
        s++;
    if (s == te) {
        cerr(k, "an empty statement in the body");
        return false;
    }
    if (!balanced(s, te)) {
        cerr(k, "unbalanced brackets in '%.*s'", (int)(te - s), s);
        return false;
    }
    const char *eq = NULL, *open = NULL;
    for (const char *q = s; q < te && !open; q++) {
        if (*q == '=' && !eq)
            eq = q;
        else if (*q == '(' || *q == '[')
            open = q;
    }
    if (!open || *open == '[' || open == s || (eq && eq > open)) {
        eq = NULL;
        open = NULL;
    }
    if (!open || te[-1] != ')') {
        if (*s == '(' && te[-1] == ')') {
            st->tuple = true;
            st->value = (dc_opnd){ .kind = DK_LIST, .text = dup_text(k, s, te) };
            return items(k, s + 1, te - 1, &st->value);
        }
        return operand(k, s, te, &st->value);
    }
    if (!call(k, s, te, eq, open, st))
        return false;
    if (eq) {
        const char *ls = s, *le = trim(&ls, eq);
        int slot = find_local(k, ls, (size_t)(le - ls));
        if (slot < 0) {
            slot = (int)k->locals.len;
            vec_push(&k->locals, dup_text(k, ls, le));
        }
        st->local = slot;
    }
    return true;
}

/* A body: ';'-separated statements; locals preset (a view inverse's base and mutated) first. */
static bool body(dcc *k, const char *text, const char *const *preset, size_t npreset, dc_body *b)
{
    k->locals.len = 0;
    for (size_t i = 0; i < npreset; i++)
        vec_push(&k->locals, preset[i]);
    size_t n = 1;
    for (const char *q = text; (q = strchr(q, ';')); q++)
        n++;
    b->stmts = arena_alloc(&k->r->a, n * sizeof *b->stmts);
    const char *s = text;
    bool ok = true;
    for (b->n = 0; b->n < n && ok; b->n++) {
        const char *semi = strchr(s, ';'), *end = semi ? semi : s + strlen(s);
        const char *te = trim(&s, end);
        ok = statement(k, s, te, &b->stmts[b->n]);
        s = semi ? semi + 1 : end;
    }
    b->nlocals = k->locals.len;
    return ok;
}

/* A schema default as the argument tree torch binds: "1" of an int[2] is [1, 1], a memory
 * format's number its name. */
static const fx_arg *default_of(dcc *k, const aten_arg *a)
{
    if (!a->has_default)
        return NULL;
    const char *t = a->default_text;
    static const char *const memfmt[] = {"contiguous_format", "preserve_format", "channels_last", "channels_last_3d"};
    const char *n = strchr(a->type_text, '[');
    long size = n ? strtol(n + 1, NULL, 10) : 0;
    if (a->is_list && size > 0 && *t != '[' && strcmp(t, "None")) {
        const char *items = t;
        for (long i = 1; i < size; i++)
            items = arena_printf(&k->r->a, "%s, %s", items, t);
        t = arena_printf(&k->r->a, "[%s]", items);
    } else if (a->base == ATY_MEMFMT && *t >= '0' && *t <= '3' && !t[1]) {
        t = arena_printf(&k->r->a, "torch.%s", memfmt[*t - '0']);
    }
    const fx_arg *v = fx_parse_literal(k->r->lits, t, t + strlen(t));
    if (!v)
        cerr(k, "cannot read the default '%s' of argument %s", t, a->name);
    return v;
}

/* target "aten.pad.default" against a schema "pad(...)" / "pad.Tensor(...)" */
static bool schema_names_target(const aten_schema *s, const char *target)
{
    const char *dot = strchr(target, '.');
    char want[256];
    snprintf(want, sizeof want, "%s.%s", s->name, *s->overload ? s->overload : "default");
    return dot && !strcmp(dot + 1, want);
}

/* The rule's schema: its `schema:` override, else torch's (shared by the rules of a target). */
static const dc_schema *rule_schema(dcc *k, const char *text, hashmap *cache)
{
    if (!text) {
        const dc_schema *c = hm_get(cache, k->target);
        if (c)
            return c;
    }
    dc_schema *s = arena_alloc(&k->r->a, sizeof *s);
    if (text) {
        if (!aten_schema_parse(&k->r->a, text, &s->s, k->d, (diag_loc){ k->file, k->line, 0 })) {
            k->failed = true;
            return NULL;
        }
        if (!schema_names_target(&s->s, k->target)) {
            cerr(k, "schema %s does not name the target", text);
            return NULL;
        }
    } else if (!aten_schemas_lookup(k->target, k->d)) {
        cerr(k, "torch has no such overload (share/fxsh/aten/schemas.txt); give the rule a schema:");
        return NULL;
    } else if (!aten_schemas_parse(&k->r->a, k->target, &s->s, k->d)) {
        k->failed = true;
        return NULL;
    }
    s->n = s->s.nargs;
    s->names = arena_alloc(&k->r->a, (s->n + 1) * sizeof *s->names);
    s->defs = arena_alloc(&k->r->a, (s->n + 1) * sizeof *s->defs);
    for (size_t i = 0; i < s->n; i++) {
        s->names[i] = s->s.args[i].name;
        s->defs[i] = default_of(k, &s->s.args[i]);
    }
    if (!text && !k->failed)
        hm_put(cache, k->target, s);
    return k->failed ? NULL : s;
}

static bool when(dcc *k, const char *text, dc_when *w)
{
    if (!text)
        return true;
    if (!cond_parse_clauses(&k->r->a, text, &k->sch->s, dc_preds, DP_COUNT, &w->cl, &w->n, k->d,
                            (diag_loc){ k->file, k->line, 0 })) {
        k->failed = true;
        return false;
    }
    w->lits = arena_alloc(&k->r->a, (w->n + 1) * sizeof *w->lits);
    for (size_t i = 0; i < w->n; i++) {
        const cond_clause *c = &w->cl[i];
        if (c->kind == COND_EQ_LITERAL &&
            !(w->lits[i] = fx_parse_literal(k->r->lits, c->sval, c->sval + strlen(c->sval)))) {
            cerr(k, "when: cannot read the value '%s' (a Python literal)", c->sval);
            return false;
        }
    }
    return true;
}

/* The records of rules.yaml-style lists: tables, target, schema?, when?, body | builtin. */
static void compile_rules(dcc *k, const pass_table *t, hashmap *cache, int *last)
{
    dc_rules *r = k->r;
    for (size_t i = 0; i < t->n; i++) {
        const pt_record *rec = &t->recs[i];
        if (strcmp(rec->list, "rules"))
            continue;
        k->any |= k->failed;
        k->failed = false;
        k->file = rec->file;
        k->line = rec->line;
        decomp_rule *d = &r->rules[r->n_rules];
        const char *tables = pt_get(rec, "tables"), *schema = pt_get(rec, "schema");
        d->tables = (tables && strstr(tables, "default") ? T_DEFAULT : 0) | (tables && strstr(tables, "onnx") ? T_ONNX : 0);
        d->target = k->target = pt_get(rec, "target");
        const char *w = pt_get(rec, "when"), *bd = pt_get(rec, "body");
        d->builtin = pt_get(rec, "builtin");
        d->next = -1;
        if (d->builtin && !bd && !dc_builtin_exists(d->builtin)) {
            cerr(k, "no C decomposition is named '%s'", d->builtin);
            const char *near = dc_builtin_suggest(d->builtin);
            if (near && k->d->len) diag_set_hint(&k->d->items[k->d->len - 1], "did you mean '%s'?", near);
            continue;
        }
        if (!d->tables || !d->target || !bd == !d->builtin) {
            k->target = d->target ? d->target : "?";
            cerr(k, "a rule needs tables, target and either a body or a builtin fxsh knows "
                    "(matmul, broadcast_tensors, meshgrid, ...)");
            continue;
        }
        if (!(k->sch = d->schema = rule_schema(k, schema, cache)) || !when(k, w, &d->when) ||
            (bd && !body(k, bd, NULL, 0, &d->body)))
            continue;
        intptr_t first = (intptr_t)hm_get(&r->rule_by_target, d->target);
        if (!first) {
            hm_put(&r->rule_by_target, d->target, (void *)(intptr_t)(r->n_rules + 1));
            last[r->n_rules] = (int)r->n_rules;
        } else {
            r->rules[last[first - 1]].next = (int)r->n_rules;
            last[first - 1] = (int)r->n_rules;
        }
        r->n_rules++;
    }
}

/* views.yaml: target, schema?, inverse?, multi? */
static void compile_views(dcc *k, const pass_table *t, hashmap *cache)
{
    static const char *const preset[] = {"base", "mutated"};
    dc_rules *r = k->r;
    for (size_t i = 0; i < t->n; i++) {
        const pt_record *rec = &t->recs[i];
        if (strcmp(rec->list, "views"))
            continue;
        k->any |= k->failed;
        k->failed = false;
        k->file = rec->file;
        k->line = rec->line;
        view_rule *v = &r->views[r->n_views];
        const char *multi = pt_get(rec, "multi"), *inv = pt_get(rec, "inverse");
        k->target = pt_get(rec, "target");
        v->multi = multi && !strcmp(multi, "true");
        if (!k->target) {
            k->target = "?";
            cerr(k, "a view entry needs a target");
            continue;
        }
        if (!(k->sch = v->schema = rule_schema(k, pt_get(rec, "schema"), cache)))
            continue;
        if (inv && !body(k, inv, preset, 2, &v->inverse))
            continue;
        v->has_inverse = inv != NULL;
        hm_put(&r->view_by_target, k->target, v);
        r->n_views++;
    }
}

dc_rules *dc_rules_compile(const pass_table *rules, const pass_table *views, diag_sink *d)
{
    dc_rules *r = xcalloc(1, sizeof *r);
    arena_init(&r->a);
    r->lits = fx_program_new(NULL);
    hm_init(&r->rule_by_target);
    hm_init(&r->view_by_target);
    r->rules = arena_alloc(&r->a, (rules->n + 1) * sizeof *r->rules);
    r->views = arena_alloc(&r->a, (views->n + 1) * sizeof *r->views);
    int *last = xcalloc(rules->n + 1, sizeof *last);
    hashmap cache;
    hm_init(&cache);
    dcc k = { .r = r, .d = d };
    compile_rules(&k, rules, &cache, last);
    compile_views(&k, views, &cache);
    k.any |= k.failed;
    hm_free(&cache);
    free(last);
    vec_free(&k.locals);
    if (k.any) {
        dc_rules_free(r);
        return NULL;
    }
    return r;
}

void dc_rules_free(dc_rules *r)
{
    if (!r)
        return;
    hm_free(&r->rule_by_target);
    hm_free(&r->view_by_target);
    fx_program_free(r->lits);
    arena_free(&r->a);
    free(r);
}

const dc_rules *dc_rules_shipped(diag_sink *d)
{
    static dc_rules *shipped;
    if (shipped)
        return shipped;
    const pass_table *rules = tables_pass("decompose", "rules", d), *views = tables_pass("decompose", "views", d);
    if (!rules || !views)
        return NULL;
    shipped = dc_rules_compile(rules, views, d);
    return shipped;
}

bool decompose_rules_check(const char *name, const char *text, size_t len, diag_sink *d)
{
    pass_table t;
    pass_table_init(&t);
    bool ok = pass_table_load_string(&t, name, text, len, NULL, d);
    dc_rules *r = ok ? dc_rules_compile(&t, &t, d) : NULL;
    ok = r != NULL;
    dc_rules_free(r);
    pass_table_free(&t);
    return ok;
}
