/* schema.c — parser for ATen operator schemas as written in native_functions.yaml. */
#include <ctype.h>
#include <string.h>

#include "base/vec.h"
#include "tables/ops.h"

typedef struct sp {
    arena *a;
    const char *text, *p;
    diag_sink *d;
    diag_loc loc;
    bool failed;
} sp;

static void sp_error(sp *s, const char *at, const char *msg)
{
    if (s->failed) return;
    s->failed = true;
    diag_loc l = s->loc;
    if (l.col > 0) l.col += (int)(at - s->text);
    diagnostic *dg = diag_error(s->d, l, "bad ATen schema: %s", msg);
    diag_set_source(dg, s->text, strlen(s->text));
    diag_set_hint(dg, "schemas look like: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
}

static void skip_ws(sp *s)
{
    while (*s->p == ' ' || *s->p == '\t') s->p++;
}

static bool is_ident(int c) { return isalnum(c) || c == '_'; }

static const char *ident(sp *s)
{
    skip_ws(s);
    const char *b = s->p;
    while (is_ident((unsigned char)*s->p)) s->p++;
    if (s->p == b) return NULL;
    return arena_strndup(s->a, b, (size_t)(s->p - b));
}

static aten_base_type base_of(const char *t)
{
    static const struct { const char *n; aten_base_type b; } map[] = {
        {"Tensor", ATY_TENSOR}, {"int", ATY_INT}, {"SymInt", ATY_SYMINT}, {"float", ATY_FLOAT},
        {"bool", ATY_BOOL}, {"str", ATY_STR}, {"Scalar", ATY_SCALAR},
        {"ScalarType", ATY_SCALARTYPE}, {"Layout", ATY_LAYOUT}, {"Device", ATY_DEVICE},
        {"MemoryFormat", ATY_MEMFMT},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].n, t)) return map[i].b;
    return ATY_OTHER;
}

/* Container types whose parenthesis holds type arguments ("Dict(str, Tensor)"), not an alias
 * annotation ("Tensor(a!)"). */
static bool is_generic(const char *name)
{
    static const char *const names[] = { "Dict", "Future", "Await", "RRef", "Union", "Optional", "List", "Tuple", NULL };
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(names[i], name)) return true;
    return false;
}

static bool parse_type_inner(sp *s, aten_arg *arg);

/* "(T, U, ...)" of a tuple type or a generic's type arguments, from the '('. */
static bool parse_type_args(sp *s)
{
    s->p++;
    skip_ws(s);
    if (*s->p == ')') { s->p++; return true; }
    for (;;) {
        aten_arg inner = {0};
        if (!parse_type_inner(s, &inner)) return false;
        skip_ws(s);
        if (*s->p == ',') { s->p++; continue; }
        if (*s->p == ')') { s->p++; return true; }
        sp_error(s, s->p, "expected ',' or ')' in a type");
        return false;
    }
}

/* An alias annotation "(a!)", "(a -> *)", "(*)" at s->p, if there is one. */
static bool skip_alias(sp *s)
{
    if (*s->p != '(') return true;
    while (*s->p && *s->p != ')') s->p++;
    if (*s->p != ')') { sp_error(s, s->p, "unterminated alias annotation"); return false; }
    s->p++;
    return true;
}

/* TYPE := (IDENT [GENERIC_ARGS | ALIAS] | '(' TYPE, ... ')') { '?' | '[' [N] ']' [ALIAS] }
 * as torch's schema parser reads it; sets arg's base type and its outermost ?/[] flags. */
static bool parse_type_inner(sp *s, aten_arg *arg)
{
    skip_ws(s);
    if (*s->p == '(') {             /* a tuple type "(Tensor, t)" */
        if (!parse_type_args(s)) return false;
        arg->base = ATY_OTHER;
    } else {
        const char *base = ident(s);
        if (!base) { sp_error(s, s->p, "expected a type"); return false; }
        while (*s->p == '.' && is_ident((unsigned char)s->p[1])) {   /* __torch__.torch.classes.X */
            s->p++;
            const char *part = ident(s);
            base = arena_printf(s->a, "%s.%s", base, part);
        }
        arg->base = base_of(base);
        if (*s->p == '(' && is_generic(base)) {
            if (!parse_type_args(s)) return false;
            arg->base = ATY_OTHER;
        }
        if (!skip_alias(s)) return false;     /* Tensor(a!) */
    }
    for (;;) {
        if (*s->p == '?') { arg->optional = true; s->p++; }
        else if (*s->p == '[') {
            s->p++;
            while (isdigit((unsigned char)*s->p)) s->p++;
            if (*s->p != ']') { sp_error(s, s->p, "expected ']'"); return false; }
            s->p++;
            arg->is_list = true;
            if (!skip_alias(s)) return false; /* Tensor[](a!) */
        } else break;
    }
    return true;
}

static bool parse_type(sp *s, aten_arg *arg)
{
    skip_ws(s);
    const char *b = s->p;
    if (!parse_type_inner(s, arg)) return false;
    arg->type_text = arena_strndup(s->a, b, (size_t)(s->p - b));
    return true;
}

/* A default value runs to the next ',' or ')' at bracket depth 0. */
static bool parse_default(sp *s, aten_arg *arg)
{
    skip_ws(s);
    const char *b = s->p;
    int depth = 0;
    bool in_str = false;
    for (; *s->p; s->p++) {
        char c = *s->p;
        if (in_str) { if (c == '"' || c == '\'') in_str = false; continue; }
        if (c == '"' || c == '\'') in_str = true;
        else if (c == '[' || c == '(') depth++;
        else if (c == ']' || (c == ')' && depth > 0)) depth--;
        else if ((c == ',' || c == ')') && depth == 0) break;
    }
    const char *e = s->p;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t')) e--;
    if (e == b || in_str || depth) { sp_error(s, b, "bad default value"); return false; }
    arg->has_default = true;
    arg->default_text = arena_strndup(s->a, b, (size_t)(e - b));
    return true;
}

typedef VEC(aten_arg) argvec;

static bool parse_arg_list(sp *s, argvec *v, bool returns)
{
    bool kwonly = false;
    skip_ws(s);
    if (*s->p == ')') return true;
    for (;;) {
        skip_ws(s);
        if (!returns && *s->p == '*') {
            s->p++;
            kwonly = true;
        } else if (!returns && !strncmp(s->p, "...", 3)) {
            /* varargs (format(str self, ...)): any further positional arguments */
            s->p += 3;
            aten_arg arg = { .name = "...", .type_text = "...", .base = ATY_OTHER, .is_list = true };
            vec_push(v, arg);
        } else {
            aten_arg arg = {0};
            if (!parse_type(s, &arg)) return false;
            arg.kwarg_only = kwonly;
            skip_ws(s);
            if (is_ident((unsigned char)*s->p)) arg.name = ident(s);
            else if (!returns) { sp_error(s, s->p, "expected an argument name"); return false; }
            skip_ws(s);
            if (*s->p == '=') {
                if (returns) { sp_error(s, s->p, "returns have no defaults"); return false; }
                s->p++;
                if (!parse_default(s, &arg)) return false;
            }
            vec_push(v, arg);
        }
        skip_ws(s);
        if (*s->p == ',') { s->p++; continue; }
        if (*s->p == ')') return true;
        sp_error(s, s->p, *s->p ? "expected ',' or ')'" : "unexpected end of schema");
        return false;
    }
}

static aten_arg *to_arena(arena *a, argvec *v)
{
    aten_arg *r = v->len ? arena_alloc(a, v->len * sizeof *r) : NULL;
    if (v->len) memcpy(r, v->items, v->len * sizeof *r);
    return r;
}

bool aten_schema_parse(arena *a, const char *text, aten_schema *out, diag_sink *d, diag_loc loc)
{
    sp s = {.a = a, .text = text, .p = text, .d = d, .loc = loc};
    memset(out, 0, sizeof *out);
    out->text = arena_strdup(a, text);
    argvec args = {0}, rets = {0};
    out->name = ident(&s);
    if (!out->name) { sp_error(&s, s.p, "expected the operator name"); goto fail; }
    if (*s.p == '.') {
        s.p++;
        out->overload = ident(&s);
        if (!out->overload) { sp_error(&s, s.p, "expected an overload name after '.'"); goto fail; }
    } else out->overload = "";
    skip_ws(&s);
    if (*s.p != '(') { sp_error(&s, s.p, "expected '('"); goto fail; }
    s.p++;
    if (!parse_arg_list(&s, &args, false)) goto fail;
    s.p++;
    skip_ws(&s);
    if (strncmp(s.p, "->", 2)) { sp_error(&s, s.p, "expected '->'"); goto fail; }
    s.p += 2;
    skip_ws(&s);
    if (*s.p == '(') {
        s.p++;
        if (!parse_arg_list(&s, &rets, true)) goto fail;
        s.p++;
    } else {
        aten_arg r = {0};
        if (!parse_type(&s, &r)) goto fail;
        skip_ws(&s);
        if (is_ident((unsigned char)*s.p)) r.name = ident(&s);   /* "-> Tensor output" */
        vec_push(&rets, r);
    }
    skip_ws(&s);
    if (*s.p) { sp_error(&s, s.p, "unexpected text after the returns"); goto fail; }
    for (size_t i = 0; i < args.len; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(args.items[i].name, args.items[j].name)) {
                sp_error(&s, strstr(text, args.items[i].name), "duplicate argument name");
                goto fail;
            }
    out->args = to_arena(a, &args);
    out->nargs = args.len;
    out->rets = to_arena(a, &rets);
    out->nrets = rets.len;
    vec_free(&args);
    vec_free(&rets);
    return true;
fail:
    vec_free(&args);
    vec_free(&rets);
    return false;
}

int aten_schema_find(const aten_schema *s, const char *name)
{
    for (size_t i = 0; i < s->nargs; i++)
        if (!strcmp(s->args[i].name, name)) return (int)i;
    return -1;
}
