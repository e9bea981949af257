/* lowering.c — parses lowerings (a subset of ONNX text: one function) and `when:` conditions.
 *
 * Why our own parser: a lowering is a template, not a model — attribute values may be @refs to
 * ATen arguments and names are local — so it is kept as a small node list that the translate
 * pass instantiates per FX node. The syntax stays ONNX's, so a lowering reads (and parses with
 * onnx.parser.parse_function) like any ONNX function. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/suggest.h"
#include "base/vec.h"
#include "onnx/onnx_op.h"
#include "tables/ops.h"

typedef struct lp {
    arena *a;
    const char *text, *p;
    const char *line_start;
    int line;                /* 0-based inside text */
    diag_sink *d;
    const char *file;
    int base_line, base_col;
    const aten_schema *schema;
    const ops_derived *derived;
    size_t nderived;
    bool failed;
} lp;

static void lp_error(lp *s, const char *fmt, const char *what)
{
    if (s->failed) return;
    s->failed = true;
    diag_loc loc = {s->file, s->base_line + s->line, s->base_col + (int)(s->p - s->line_start) + 1};
    diagnostic *dg = diag_error(s->d, loc, fmt, what ? what : "");
    const char *e = strchr(s->line_start, '\n');
    diag_set_source(dg, s->line_start, e ? (size_t)(e - s->line_start) : strlen(s->line_start));
    diag_set_hint(dg, "a lowering is an ONNX text function: name (x, y) => (z) { z = Add (x, y) }");
}

static void skip(lp *s)
{
    for (;;) {
        char c = *s->p;
        if (c == '\n') { s->p++; s->line++; s->line_start = s->p; }
        else if (c == ' ' || c == '\t' || c == '\r') s->p++;
        else if (c == '#') { while (*s->p && *s->p != '\n') s->p++; }
        else return;
    }
}

static bool accept(lp *s, char c)
{
    skip(s);
    if (*s->p != c) return false;
    s->p++;
    return true;
}

static bool expect(lp *s, char c)
{
    if (accept(s, c)) return true;
    char what[2] = {c, 0};
    lp_error(s, "expected '%s'", what);
    return false;
}

static bool id_start(int c) { return isalpha(c) || c == '_'; }
static bool id_char(int c) { return isalnum(c) || c == '_' || c == '.'; }

/* An identifier or a quoted name; returns NULL (no error) if none. */
static const char *name(lp *s, bool dots)
{
    skip(s);
    if (*s->p == '"') {
        const char *b = ++s->p;
        while (*s->p && *s->p != '"' && *s->p != '\n') s->p++;
        if (*s->p != '"') { lp_error(s, "unterminated quoted name%s", NULL); return NULL; }
        const char *r = arena_strndup(s->a, b, (size_t)(s->p - b));
        s->p++;
        return r;
    }
    if (!id_start((unsigned char)*s->p)) return NULL;
    const char *b = s->p;
    while (id_char((unsigned char)*s->p) && (dots || *s->p != '.')) s->p++;
    return arena_strndup(s->a, b, (size_t)(s->p - b));
}

typedef VEC(const char *) strvec;
typedef VEC(low_attr) attrvec;

static const char **strs_to_arena(arena *a, strvec *v)
{
    const char **r = arena_alloc(a, (v->len ? v->len : 1) * sizeof *r);
    if (v->len) memcpy(r, v->items, v->len * sizeof *r);
    return r;
}

/* '(' [name {',' name}] ')' ; empty entries allowed when allow_empty (optional inputs). */
static bool name_list(lp *s, strvec *v, bool allow_empty)
{
    if (!expect(s, '(')) return false;
    if (accept(s, ')')) return true;
    for (;;) {
        skip(s);
        const char *n;
        if (allow_empty && (*s->p == ',' || *s->p == ')')) n = "";
        else if (!(n = name(s, false))) {
            if (!s->failed) lp_error(s, "expected a value name%s", NULL);
            return false;
        }
        vec_push(v, n);
        if (accept(s, ',')) continue;
        return expect(s, ')');
    }
}

static low_attr_type attr_type(const char *t)
{
    static const struct { const char *n; low_attr_type t; } m[] = {
        {"int", LAT_INT}, {"float", LAT_FLOAT}, {"string", LAT_STRING}, {"ints", LAT_INTS},
        {"floats", LAT_FLOATS}, {"strings", LAT_STRINGS}, {"tensor", LAT_TENSOR},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (!strcmp(m[i].n, t)) return m[i].t;
    return (low_attr_type)-1;
}

/* A scalar literal: number or string. Sets *is_float / *is_str. */
static bool scalar_lit(lp *s, long long *i, double *f, const char **str, bool *is_float, bool *is_str)
{
    skip(s);
    *is_float = *is_str = false;
    if (*s->p == '"') {
        const char *b = ++s->p;
        while (*s->p && *s->p != '"' && *s->p != '\n') s->p++;
        if (*s->p != '"') { lp_error(s, "unterminated string%s", NULL); return false; }
        *str = arena_strndup(s->a, b, (size_t)(s->p - b));
        s->p++;
        *is_str = true;
        return true;
    }
    const char *b = s->p;
    if (*s->p == '-' || *s->p == '+') s->p++;
    while (isalnum((unsigned char)*s->p) || *s->p == '.' ||
           ((*s->p == '-' || *s->p == '+') && (s->p[-1] == 'e' || s->p[-1] == 'E')))
        s->p++;
    if (s->p == b) { lp_error(s, "expected a literal value%s", NULL); return false; }
    char buf[64];
    size_t n = (size_t)(s->p - b);
    if (n >= sizeof buf) { s->p = b; lp_error(s, "literal too long%s", NULL); return false; }
    memcpy(buf, b, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (!*end && !errno) { *i = v; *f = (double)v; return true; }
    errno = 0;
    double dv = strtod(buf, &end);
    if (!*end && !errno) { *f = dv; *is_float = true; return true; }
    s->p = b;
    lp_error(s, "bad literal '%s'", arena_strdup(s->a, buf));
    return false;
}

static bool attr_value(lp *s, low_attr *at)
{
    skip(s);
    if (*s->p == '@') {
        s->p++;
        const char *r = name(s, false);
        if (!r) { lp_error(s, "expected an argument name after '@'%s", NULL); return false; }
        at->ref = r;
        at->ref_arg = -1;
        for (size_t i = 0; i < s->nderived; i++)
            if (!strcmp(s->derived[i].name, r)) {
                at->ref_fn = s->derived[i].fn;
                at->ref_arg = s->derived[i].arg;
                at->ref_offset = s->derived[i].offset;
                return true;
            }
        if (s->schema && (at->ref_arg = aten_schema_find(s->schema, r)) < 0) {
            s->p -= strlen(r);
            lp_error(s, "@%s is not an argument of the schema", r);
            return false;
        }
        return true;
    }
    at->ref_arg = -1;
    if (*s->p == '[') {
        s->p++;
        VEC(long long) iv = {0};
        VEC(double) fv = {0};
        strvec sv = {0};
        bool any_float = false, any_str = false, ok = true;
        if (!accept(s, ']')) {
            for (;;) {
                long long i = 0; double f = 0; const char *str = NULL; bool isf, iss;
                if (!scalar_lit(s, &i, &f, &str, &isf, &iss)) { ok = false; break; }
                any_float |= isf;
                any_str |= iss;
                vec_push(&iv, i);
                vec_push(&fv, f);
                vec_push(&sv, str);
                if (accept(s, ',')) continue;
                if (!expect(s, ']')) ok = false;
                break;
            }
        }
        if (ok) {
            low_attr_type t = at->type != LAT_INFER ? at->type
                              : any_str ? LAT_STRINGS : any_float ? LAT_FLOATS : LAT_INTS;
            at->count = iv.len;
            if (t == LAT_INTS && !any_float && !any_str) {
                at->ints = arena_alloc(s->a, (iv.len + 1) * sizeof *at->ints);
                if (iv.len) memcpy(at->ints, iv.items, iv.len * sizeof *at->ints);
            } else if (t == LAT_FLOATS && !any_str) {
                at->floats = arena_alloc(s->a, (fv.len + 1) * sizeof *at->floats);
                if (fv.len) memcpy(at->floats, fv.items, fv.len * sizeof *at->floats);
            } else if (t == LAT_STRINGS && (any_str || !iv.len)) {
                at->strings = strs_to_arena(s->a, &sv);
            } else {
                lp_error(s, "list does not match attribute type of '%s'", at->name);
                ok = false;
            }
            at->type = t;
        }
        vec_free(&iv);
        vec_free(&fv);
        vec_free(&sv);
        return ok;
    }
    bool isf, iss;
    if (!scalar_lit(s, &at->i, &at->f, &at->s, &isf, &iss)) return false;
    if (at->type == LAT_INFER) at->type = iss ? LAT_STRING : isf ? LAT_FLOAT : LAT_INT;
    if ((at->type == LAT_STRING) != iss || (at->type == LAT_INT && isf) ||
        (at->type != LAT_INT && at->type != LAT_FLOAT && at->type != LAT_STRING)) {
        lp_error(s, "value does not match the type of attribute '%s'", at->name);
        return false;
    }
    return true;
}

static bool attr_list(lp *s, attrvec *v)
{
    if (accept(s, '>')) return true;
    for (;;) {
        low_attr at = {0};
        at.name = name(s, false);
        if (!at.name) { lp_error(s, "expected an attribute name%s", NULL); return false; }
        at.type = LAT_INFER;
        if (accept(s, ':')) {
            const char *t = name(s, false);
            if (!t || (int)attr_type(t) < 0) { lp_error(s, "unknown attribute type%s", NULL); return false; }
            at.type = attr_type(t);
        }
        if (!expect(s, '=')) return false;
        if (!attr_value(s, &at)) return false;
        vec_push(v, at);
        if (accept(s, ',')) continue;
        return expect(s, '>');
    }
}

static bool parse_node(lp *s, low_node *n)
{
    strvec outs = {0}, ins = {0};
    attrvec attrs = {0};
    bool ok = false;
    skip(s);
    n->line = s->base_line + s->line;
    n->col = s->base_col + (int)(s->p - s->line_start) + 1;
    if (accept(s, '[')) {                 /* optional node name, ignored: translate names nodes */
        if (!name(s, false) || !expect(s, ']')) { if (!s->failed) lp_error(s, "bad node name%s", NULL); goto done; }
    }
    for (;;) {
        skip(s);
        const char *o = name(s, false);
        if (!o) { lp_error(s, "expected an output name%s", NULL); goto done; }
        vec_push(&outs, o);
        if (!accept(s, ',')) break;
    }
    if (!expect(s, '=')) goto done;
    const char *op = name(s, true);
    if (!op) { lp_error(s, "expected an operator name%s", NULL); goto done; }
    const char *dot = strrchr(op, '.');
    n->domain = dot ? arena_strndup(s->a, op, (size_t)(dot - op)) : "";
    n->op_type = dot ? dot + 1 : op;
    /* `Python <value: ...>` and `Tensor <value: ...>` are the lowerings' own constants (a value
     * torchlib passes, a tensor it makes), not ONNX operators */
    bool pseudo = !*n->domain && (!strcmp(n->op_type, "Python") || !strcmp(n->op_type, "Tensor"));
    if (!pseudo && (!*n->domain || !strcmp(n->domain, "ai.onnx")) && !ox_op_find(n->domain, n->op_type)) {
        /* a typo, or a template's placeholder not yet replaced: fails here, at its line, not as a
         * model that no runtime runs */
        suggester sg;
        suggester_init(&sg, n->op_type);
        for (size_t i = 0; i < ox_op_count(); i++) {
            const ox_op *o = ox_op_at(i);
            if (o && !*o->domain) suggester_add(&sg, o->name);
        }
        const char *near = suggester_result(&sg);
        char msg[400];
        snprintf(msg, sizeof msg, "ONNX has no operator '%s'%s%s%s", n->op_type, near ? " (did you mean " : "",
                 near ? near : "", near ? "?)" : "");
        lp_error(s, "%s", msg);
        suggester_free(&sg);
        goto done;
    }
    if (accept(s, '<') && !attr_list(s, &attrs)) goto done;
    if (!name_list(s, &ins, true)) goto done;
    n->outs = strs_to_arena(s->a, &outs);
    n->nouts = outs.len;
    n->ins = strs_to_arena(s->a, &ins);
    n->nins = ins.len;
    n->attrs = arena_alloc(s->a, (attrs.len + 1) * sizeof *n->attrs);
    if (attrs.len) memcpy(n->attrs, attrs.items, attrs.len * sizeof *n->attrs);
    n->nattrs = attrs.len;
    ok = true;
done:
    vec_free(&outs);
    vec_free(&ins);
    vec_free(&attrs);
    return ok;
}

/* Checks names: params are Tensor-ish schema args, every input is defined before use. */
static bool check_scopes(lp *s, lowering *lw)
{
    hashmap defined;
    hm_init(&defined);
    bool ok = true;
    for (size_t i = 0; i < lw->nparams && ok; i++) {
        hm_put(&defined, lw->params[i], (void *)1);
        if (s->schema) {
            lw->param_args[i] = aten_schema_find(s->schema, lw->params[i]);
            if (lw->param_args[i] < 0) {
                s->p = s->text;
                s->line = 0;
                s->line_start = s->text;
                const char *at = strstr(s->text, lw->params[i]);
                if (at && !strchr(s->text, '\n')) s->p = at;
                lp_error(s, "input '%s' is not an argument of the schema", lw->params[i]);
                ok = false;
            }
        }
    }
    for (size_t k = 0; k < lw->nnodes && ok; k++) {
        low_node *n = &lw->nodes[k];
        for (size_t i = 0; i < n->nins && ok; i++)
            if (*n->ins[i] && !hm_has(&defined, n->ins[i])) {
                diagnostic *dg = diag_error(s->d, (diag_loc){s->file, n->line, n->col},
                                            "'%s' is used before it is defined", n->ins[i]);
                diag_set_hint(dg, "inputs must be function inputs or outputs of earlier nodes");
                s->failed = true;
                ok = false;
            }
        for (size_t i = 0; i < n->nouts; i++)
            if (*n->outs[i]) hm_put(&defined, n->outs[i], (void *)1);
    }
    for (size_t i = 0; i < lw->nresults && ok; i++)
        if (!hm_has(&defined, lw->results[i])) {
            diag_error(s->d, (diag_loc){s->file, s->base_line, s->base_col + 1},
                       "function output '%s' is never computed", lw->results[i]);
            s->failed = true;
            ok = false;
        }
    hm_free(&defined);
    return ok;
}

bool lowering_parse(arena *a, const char *text, const aten_schema *schema, const ops_derived *derived,
                    size_t nderived, lowering *out, diag_sink *d, const char *file, int base_line, int base_col)
{
    lp s = {.a = a, .text = text, .p = text, .line_start = text, .d = d, .file = file,
            .base_line = base_line, .base_col = base_col, .schema = schema, .derived = derived,
            .nderived = nderived};
    strvec params = {0}, results = {0};
    VEC(low_node) nodes = {0};
    out->text = arena_strdup(a, text);
    out->fn_name = name(&s, true);
    if (!out->fn_name) { lp_error(&s, "expected the function name%s", NULL); goto fail; }
    if (accept(&s, '<')) {                  /* attribute names of the function: informative */
        while (*s.p && *s.p != '>') s.p++;
        if (!expect(&s, '>')) goto fail;
    }
    if (!name_list(&s, &params, false)) goto fail;
    skip(&s);
    if (strncmp(s.p, "=>", 2)) { lp_error(&s, "expected '=>'%s", NULL); goto fail; }
    s.p += 2;
    if (!name_list(&s, &results, false)) goto fail;
    if (!expect(&s, '{')) goto fail;
    while (!accept(&s, '}')) {
        if (!*s.p) { lp_error(&s, "expected '}'%s", NULL); goto fail; }
        low_node n = {0};
        if (!parse_node(&s, &n)) goto fail;
        vec_push(&nodes, n);
    }
    skip(&s);
    if (*s.p) { lp_error(&s, "unexpected text after the function%s", NULL); goto fail; }
    out->params = strs_to_arena(a, &params);
    out->nparams = params.len;
    out->param_args = arena_alloc(a, (params.len + 1) * sizeof(int));
    out->results = strs_to_arena(a, &results);
    out->nresults = results.len;
    out->nodes = arena_alloc(a, (nodes.len + 1) * sizeof *out->nodes);
    if (nodes.len) memcpy(out->nodes, nodes.items, nodes.len * sizeof *out->nodes);
    out->nnodes = nodes.len;
    vec_free(&params);
    vec_free(&results);
    vec_free(&nodes);
    return check_scopes(&s, out);
fail:
    vec_free(&params);
    vec_free(&results);
    vec_free(&nodes);
    return false;
}

/* ---- when: conditions ---- */

static const char *cond_arg(const char **p, const char *stop)
{
    while (**p == ' ') (*p)++;
    const char *b = *p;
    while (*p < stop && (isalnum((unsigned char)**p) || **p == '_')) (*p)++;
    return b == *p ? NULL : b;
}

static bool parse_op(const char **p, cond_op *op)
{
    while (**p == ' ') (*p)++;
    static const struct { const char *t; cond_op o; } m[] = {
        {"==", COP_EQ}, {"!=", COP_NE}, {"<=", COP_LE}, {">=", COP_GE}, {"<", COP_LT}, {">", COP_GT},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (!strncmp(*p, m[i].t, strlen(m[i].t))) { *p += strlen(m[i].t); *op = m[i].o; return true; }
    return false;
}

/* A pass's predicate at p: name(arg, ...) or a bare name (nargs 0); false (err set) when it is
 * malformed, *matched false when p is not one of preds. */
static bool pred_clause(arena *a, const char *p, const char *e, const aten_schema *schema, const cond_pred *preds,
                        size_t npreds, cond_clause *c, bool *matched, const char **err_at, const char **err)
{
    const char *q = p;
    while (q < e && (isalnum((unsigned char)*q) || *q == '_')) q++;
    *matched = false;
    for (size_t i = 0; i < npreds && !*matched; i++)
        if (strlen(preds[i].name) == (size_t)(q - p) && !memcmp(p, preds[i].name, (size_t)(q - p))) {
            c->pred = (int)i;
            *matched = true;
        }
    if (!*matched) return true;
    c->kind = COND_PRED;
    const cond_pred *pr = &preds[c->pred];
    VEC(int) args = {0};
    if (q < e && *q == '(') {
        q++;
        for (;;) {
            const char *an = cond_arg(&q, e);
            if (!an) { *err_at = q; *err = "expected an argument name"; goto fail; }
            char *name = arena_strndup(a, an, (size_t)(q - an));
            int k = schema ? aten_schema_find(schema, name) : 0;
            if (k < 0) { *err_at = an; *err = "not an argument of the schema"; goto fail; }
            vec_push(&args, k);
            while (q < e && *q == ' ') q++;
            if (q < e && *q == ',') { q++; continue; }
            if (q < e && *q == ')') { q++; break; }
            *err_at = q; *err = "expected ',' or ')'";
            goto fail;
        }
    }
    while (q < e && *q == ' ') q++;
    if (q != e) { *err_at = q; *err = "unexpected text after the predicate"; goto fail; }
    if (pr->nargs >= 0 ? args.len != (size_t)pr->nargs : !args.len) {
        *err_at = p;
        *err = pr->nargs == 0 ? "this predicate takes no arguments (write it bare)"
             : "wrong number of arguments for this predicate";
        goto fail;
    }
    c->npargs = args.len;
    c->pargs = args.len ? arena_alloc(a, args.len * sizeof *c->pargs) : NULL;
    if (args.len) memcpy(c->pargs, args.items, args.len * sizeof *c->pargs);
    vec_free(&args);
    return true;
fail:
    vec_free(&args);
    return false;
}

static bool clause(arena *a, const char *b, const char *e, const aten_schema *schema, const cond_pred *preds,
                   size_t npreds, cond_clause *c, const char **err_at, const char **err)
{
    const char *p = b;
    while (*p == ' ') p++;
    if (!strncmp(p, "not ", 4)) { c->negate = true; p += 4; while (*p == ' ') p++; }
    bool is_pred;
    if (!pred_clause(a, p, e, schema, preds, npreds, c, &is_pred, err_at, err)) return false;
    if (is_pred) return true;
    static const struct { const char *fn; cond_kind k; } fns[] = {
        {"rank(", COND_RANK}, {"is_scalar(", COND_IS_SCALAR}, {"is_list(", COND_IS_LIST},
        {"is_tensor(", COND_IS_TENSOR}, {"dtype(", COND_DTYPE}, {"len(", COND_LEN},
    };
    const char *an = NULL, *ae = NULL;
    int fn = -1;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (!strncmp(p, fns[i].fn, strlen(fns[i].fn))) { fn = (int)i; p += strlen(fns[i].fn); break; }
    an = cond_arg(&p, e);
    if (!an) { *err_at = p; *err = "expected an argument name"; return false; }
    ae = p;
    if (fn < 0 && *p == '(') { *err_at = an; *err = "unknown predicate"; return false; }
    char *argname = arena_strndup(a, an, (size_t)(ae - an));
    c->arg = schema ? aten_schema_find(schema, argname) : 0;
    if (c->arg < 0) { *err_at = an; *err = "not an argument of the schema"; return false; }
    if (fn >= 0) {
        while (*p == ' ') p++;
        if (*p != ')') { *err_at = p; *err = "expected ')'"; return false; }
        p++;
        c->kind = fns[fn].k;
    } else {
        while (*p == ' ') p++;
        if (!strncmp(p, "is not None", 11)) { c->kind = COND_IS_NONE; c->negate = !c->negate; p += 11; }
        else if (!strncmp(p, "is None", 7)) { c->kind = COND_IS_NONE; p += 7; }
        else c->kind = COND_EQ_LITERAL;
    }
    if (c->kind == COND_RANK || c->kind == COND_LEN || c->kind == COND_DTYPE || c->kind == COND_EQ_LITERAL) {
        if (!parse_op(&p, &c->op)) { *err_at = p; *err = "expected a comparison (==, !=, <, <=, >, >=)"; return false; }
        while (*p == ' ') p++;
        const char *vb = p;
        const char *ve = e;
        while (ve > vb && ve[-1] == ' ') ve--;
        if (ve == vb) { *err_at = p; *err = "expected a value"; return false; }
        c->sval = arena_strndup(a, vb, (size_t)(ve - vb));
        c->arg2 = -1;
        if (c->kind == COND_RANK && !strncmp(vb, "rank(", 5)) {
            /* rank(x) OP rank(y) [+ n | - n]: unbatched inputs have one dim less than weights */
            const char *q = vb + 5;
            const char *bn = cond_arg(&q, ve);
            if (!bn) { *err_at = q; *err = "expected an argument name"; return false; }
            char *name2 = arena_strndup(a, bn, (size_t)(q - bn));
            c->arg2 = schema ? aten_schema_find(schema, name2) : 0;
            if (c->arg2 < 0) { *err_at = bn; *err = "not an argument of the schema"; return false; }
            while (*q == ' ') q++;
            if (*q != ')') { *err_at = q; *err = "expected ')'"; return false; }
            q++;
            while (*q == ' ') q++;
            c->ival = 0;
            if (q < ve) {
                if (*q != '+' && *q != '-') { *err_at = q; *err = "expected + or - and an integer"; return false; }
                bool minus = *q == '-';
                q++;
                while (*q == ' ') q++;
                char *end;
                c->ival = strtoll(q, &end, 10);
                if (end == q || end != ve) { *err_at = q; *err = "expected an integer"; return false; }
                if (minus) c->ival = -c->ival;
            }
        } else if (c->kind == COND_RANK || c->kind == COND_LEN) {
            char *end;
            c->ival = strtoll(c->sval, &end, 10);
            if (*end) { *err_at = vb; *err = "rank and len compare with an integer (or rank(x) +/- n)"; return false; }
        }
        if (c->kind == COND_DTYPE && c->op != COP_EQ && c->op != COP_NE) {
            *err_at = vb; *err = "dtypes compare with == or != only"; return false;
        }
        p = e;
    }
    while (p < e && *p == ' ') p++;
    if (p != e) { *err_at = p; *err = "unexpected text in condition"; return false; }
    return true;
}

/* "has_rank(x), static_shape, ..." for the hint */
static const char *pred_names(arena *a, const cond_pred *preds, size_t n)
{
    const char *r = "";
    for (size_t i = 0; i < n; i++)
        r = arena_printf(a, "%s%s%s%s", r, i ? ", " : "", preds[i].name,
                         preds[i].nargs == 0 ? "" : preds[i].nargs == 1 ? "(x)" : preds[i].nargs == 2 ? "(x, y)" : "(x, ...)");
    return r;
}

bool cond_parse_clauses(arena *a, const char *text, const aten_schema *schema, const cond_pred *preds,
                        size_t npreds, cond_clause **out, size_t *n, diag_sink *d, diag_loc loc)
{
    VEC(cond_clause) cl = {0};
    const char *p = text;
    for (;;) {
        const char *e = strstr(p, " and ");
        if (!e) e = p + strlen(p);
        cond_clause c = {0};
        const char *err_at = NULL, *err = NULL;
        if (!clause(a, p, e, schema, preds, npreds, &c, &err_at, &err)) {
            diag_loc l = loc;
            if (l.col > 0) l.col += (int)(err_at - text);
            diagnostic *dg = diag_error(d, l, "bad condition: %s", err);
            diag_set_source(dg, text, strlen(text));
            diag_set_hint(dg, "conditions: rank(x) == 2, rank(x) == rank(w) - 1, x is None, is_scalar(x), is_list(x), len(x) == 0, "
                              "dtype(x) == float32, x == 1, dtype == torch.int64%s%s, joined with 'and'",
                          npreds ? ", or this table's predicates: " : "", npreds ? pred_names(a, preds, npreds) : "");
            vec_free(&cl);
            return false;
        }
        vec_push(&cl, c);
        if (!*e) break;
        p = e + 5;
    }
    *out = arena_alloc(a, cl.len * sizeof **out);
    memcpy(*out, cl.items, cl.len * sizeof **out);
    *n = cl.len;
    vec_free(&cl);
    return true;
}

bool cond_parse(arena *a, const char *text, const aten_schema *schema, lowering *out,
                diag_sink *d, diag_loc loc)
{
    if (!cond_parse_clauses(a, text, schema, NULL, 0, &out->when, &out->nwhen, d, loc))
        return false;
    out->when_text = arena_strdup(a, text);
    return true;
}
