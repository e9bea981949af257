/* ts_load.c — TorchScript IR text loader: lines → statements → FX nodes with control flow. */
#include "load/ts_load.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/strbuf.h"
#include "fx/fx_control.h"
#include "load/fx_weight_source.h"

/* ---- lines -------------------------------------------------------------------------------- */

typedef struct ts_line {
    const char *s;      /* first non-blank char */
    size_t len;         /* up to the newline, from s */
    size_t indent;
    int lineno;
} ts_line;

/* A TorchScript value in the loader: an FX argument (node or literal), or a module path. */
typedef struct tsval {
    fx_arg *arg;        /* NULL for modules */
    const char *path;   /* module FQN ("" = self), NULL for values */
    char tk;            /* 'T' tensor, 'i' int, 'f' float, 'b' bool, 's' str, 'n' None, 'l' list, 'o' other */
} tsval;

typedef struct scope {
    struct scope *parent;
    fx_graph *g;
    fx_module *m;
    hashmap vals;       /* ts name -> tsval* */
    hashmap caps;       /* outer node name -> local placeholder */
    fx_arg **captured;  /* outer args, in capture order */
    size_t n_captured, cap_captured;
    fx_node *last_ph;
} scope;

typedef struct loader {
    fx_program *p;
    diag_sink *d;
    const char *file;
    ts_line *lines;
    size_t n_lines, pos;
    scope *root;
    fx_node *first_user_ph;   /* weights are inserted before it */
    fx_node *first_buffer_ph; /* parameters are inserted before it */
    hashmap params;           /* fqn -> placeholder */
    hashmap param_fqn;        /* placeholder name -> fqn */
    hashmap appended;         /* TorchScript names of the lists aten::append mutates */
    hashmap modules;          /* FQNs of the submodules prim::GetAttr reaches */
    const ts_load_options *opts;
    bool failed;
} loader;

static void err(loader *L, const ts_line *ln, const char *msg)
{
    diagnostic *dg = diag_error(L->d, (diag_loc){L->file, ln ? ln->lineno : 0, ln ? (int)ln->indent + 1 : 0},
                                "%s", msg);
    if (ln)
        diag_set_source(dg, ln->s - ln->indent, ln->len + ln->indent);
    L->failed = true;
}

static void split_lines(loader *L, const char *text, size_t len)
{
    size_t cap = 0;
    int lineno = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        lineno++;
        size_t k = i;
        while (k < j && (text[k] == ' ' || text[k] == '\t'))
            k++;
        size_t e = j;
        while (e > k && (text[e - 1] == '\r' || text[e - 1] == ' '))
            e--;
        if (e > k) {
            xgrow((void **)&L->lines, &cap, L->n_lines + 1, sizeof *L->lines);
            L->lines[L->n_lines++] = (ts_line){text + k, e - k, k - i, lineno};
        }
        i = j + 1;
    }
}

/* ---- scopes --------------------------------------------------------------------------------- */

static scope *scope_new(loader *L, scope *parent, fx_module *m)
{
    (void)L;
    scope *s = xcalloc(1, sizeof *s);
    s->parent = parent;
    s->m = m;
    s->g = fx_module_ensure_graph(m);
    hm_init(&s->vals);
    hm_init(&s->caps);
    return s;
}

static void scope_free(scope *s)
{
    hm_free(&s->vals);
    hm_free(&s->caps);
    free(s->captured);
    free(s);
}

static void insert_ph(scope *s, fx_node *ph)
{
    if (s->last_ph)
        fx_graph_insert_after(s->g, s->last_ph, ph);
    else if (s->g->first)
        fx_graph_insert_before(s->g, s->g->first, ph);
    else
        fx_graph_append(s->g, ph);
    s->last_ph = ph;
}

/* Moves node n of g just before `before` (both in g), keeping its name and users. */
static void move_before(fx_graph *g, fx_node *n, fx_node *before)
{
    if (n == before || n->next == before)
        return;
    if (n->prev)
        n->prev->next = n->next;
    else
        g->first = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        g->last = n->prev;
    g->n_nodes--;
    fx_graph_insert_before(g, before, n);
}

/* The node in s's graph standing for n (a node of an enclosing graph): a placeholder created on
 * first use in every scope between n's graph and s, recorded as a captured operand. */
static fx_node *capture(loader *L, scope *s, fx_node *n)
{
    if (n->graph == s->g || !s->parent)
        return n;
    fx_node *outer = capture(L, s->parent, n);
    fx_node *ph = hm_get(&s->caps, outer->name);
    if (ph)
        return ph;
    ph = fx_node_new(s->g, outer->name, FX_OP_PLACEHOLDER, NULL);
    ph->target = ph->name;
    insert_ph(s, ph);
    hm_put(&s->caps, outer->name, ph);
    xgrow((void **)&s->captured, &s->cap_captured, s->n_captured + 1, sizeof *s->captured);
    s->captured[s->n_captured++] = fx_arg_node(L->p, outer);
    return ph;
}

static fx_arg *capture_arg(loader *L, scope *s, fx_arg *a)
{
    if (!a)
        return a;
    if (a->kind == FX_ARG_NODE) {
        fx_node *c = capture(L, s, a->u.node);
        return c == a->u.node ? a : fx_arg_node(L->p, c);
    }
    if (a->kind == FX_ARG_LIST || a->kind == FX_ARG_TUPLE) {
        fx_arg **items = xmalloc((a->u.seq.len + 1) * sizeof *items);
        bool changed = false;
        for (size_t i = 0; i < a->u.seq.len; i++) {
            items[i] = capture_arg(L, s, a->u.seq.items[i]);
            changed |= items[i] != a->u.seq.items[i];
        }
        fx_arg *r = changed ? fx_arg_seq(L->p, a->kind, items, NULL, a->u.seq.len) : a;
        free(items);
        return r;
    }
    return a;
}

static tsval *lookup(loader *L, scope *s, const char *name)
{
    for (scope *c = s; c; c = c->parent) {
        tsval *v = hm_get(&c->vals, name);
        if (!v)
            continue;
        if (c == s || !v->arg)
            return v;
        tsval *nv = fx_alloc(L->p, sizeof *nv);
        *nv = *v;
        nv->arg = capture_arg(L, s, v->arg);
        hm_put(&s->vals, fx_strdup(L->p, name), nv);
        return nv;
    }
    return NULL;
}

static void bind(loader *L, scope *s, const char *name, fx_arg *arg, const char *path, char tk)
{
    tsval *v = fx_alloc(L->p, sizeof *v);
    v->arg = arg;
    v->path = path;
    v->tk = tk;
    hm_put(&s->vals, fx_strdup(L->p, name), v);
}

static char type_kind(const char *t, size_t n)
{
    if (n >= 6 && strncmp(t, "Tensor", 6) == 0 && (n == 6 || t[6] == '?'))
        return 'T';
    if (n >= 3 && strncmp(t, "int", 3) == 0 && (n == 3 || t[3] == '?'))
        return 'i';
    if (n >= 5 && strncmp(t, "float", 5) == 0 && (n == 5 || t[5] == '?'))
        return 'f';
    if (n >= 4 && strncmp(t, "bool", 4) == 0 && (n == 4 || t[4] == '?'))
        return 'b';
    if (n == 3 && strncmp(t, "str", 3) == 0)
        return 's';
    if (n == 8 && strncmp(t, "NoneType", 8) == 0)
        return 'n';
    if (n >= 2 && t[n - 2] == '[' && t[n - 1] == ']')
        return 'l';
    if (n >= 3 && t[n - 3] == '[' && t[n - 1] == '?')
        return 'l';
    return 'o';
}

/* ---- statement parsing ------------------------------------------------------------------------ */

#define MAX_OUTS 64
#define MAX_ARGS 64

typedef struct stmt {
    const ts_line *ln;
    size_t n_out;
    const char *out[MAX_OUTS];   /* names (arena) */
    char out_tk[MAX_OUTS];
    const char *type0;           /* first output's type text (not NUL-terminated) */
    size_t type0_len;
    const char *kind;            /* "aten::linear" (arena) */
    const char *attr_name;       /* [name="..."] */
    const char *attr_value;      /* [value=...] raw text, strings unquoted */
    bool value_is_str, has_value;
    size_t n_args;
    const char *args[MAX_ARGS];
    const char *src_file;
    int src_line;
} stmt;

static bool is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Reads "%name" at *i; returns arena name or NULL. */
static const char *read_value(loader *L, const char *s, size_t n, size_t *i)
{
    if (*i >= n || s[*i] != '%')
        return NULL;
    size_t st = ++*i;
    while (*i < n && is_name_char(s[*i]))
        ++*i;
    if (*i == st)
        return NULL;
    return fx_strndup(L->p, s + st, *i - st);
}

/* Reads a type up to a top-level ',' or ')' (or end); returns its span. */
static void read_type(const char *s, size_t n, size_t *i, size_t *ts, size_t *te)
{
    int depth = 0;
    *ts = *i;
    while (*i < n) {
        char c = s[*i];
        if (c == '(' || c == '[')
            depth++;
        else if ((c == ')' || c == ']') && depth > 0)
            depth--;
        else if ((c == ',' || c == ')') && depth == 0)
            break;
        else if (c == ' ' && depth == 0 && *i + 2 < n && s[*i + 1] == '=' && s[*i + 2] == ' ')
            break;
        ++*i;
    }
    *te = *i;
}

static void skip_sp(const char *s, size_t n, size_t *i)
{
    while (*i < n && s[*i] == ' ')
        ++*i;
}

static bool parse_stmt(loader *L, const ts_line *ln, stmt *st)
{
    memset(st, 0, sizeof *st);
    st->ln = ln;
    const char *s = ln->s;
    size_t n = ln->len, i = 0;
    /* trailing source range: " # file:line:col" */
    for (size_t k = n; k >= 3; k--) {
        if (s[k - 3] == ' ' && s[k - 2] == '#' && s[k - 1] == ' ') {
            const char *r = s + k;
            size_t rn = n - k;
            size_t c2 = rn, c1;
            while (c2 > 0 && r[c2 - 1] != ':')
                c2--;
            c1 = c2 ? c2 - 1 : 0;
            while (c1 > 0 && r[c1 - 1] != ':')
                c1--;
            if (c2 && c1) {
                st->src_file = fx_strndup(L->p, r, c1 - 1);
                st->src_line = atoi(r + c1);
            }
            n = k - 3;
            break;
        }
        if (s[k - 1] == '"' || s[k - 1] == ']')
            break;   /* inside an attribute: no source range */
    }
    while (i < n && s[i] == '%') {
        if (st->n_out == MAX_OUTS) {
            err(L, ln, "too many outputs");
            return false;
        }
        const char *name = read_value(L, s, n, &i);
        size_t ts, te;
        if (!name || i + 3 > n || strncmp(s + i, " : ", 3) != 0) {
            err(L, ln, "expected '%name : type'");
            return false;
        }
        i += 3;
        read_type(s, n, &i, &ts, &te);
        st->out_tk[st->n_out] = type_kind(s + ts, te - ts);
        if (st->n_out == 0) {
            st->type0 = s + ts;
            st->type0_len = te - ts;
        }
        st->out[st->n_out++] = name;
        if (i < n && s[i] == ',') {
            i++;
            skip_sp(s, n, &i);
        }
    }
    skip_sp(s, n, &i);
    if (i >= n || s[i] != '=') {
        err(L, ln, "expected '=' in a TorchScript statement");
        return false;
    }
    i++;
    skip_sp(s, n, &i);
    size_t ks = i;
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == ':'))
        i++;
    if (i == ks) {
        err(L, ln, "expected an operator name");
        return false;
    }
    st->kind = fx_strndup(L->p, s + ks, i - ks);
    if (i < n && s[i] == '[') {
        i++;
        while (i < n && s[i] != ']') {
            skip_sp(s, n, &i);
            size_t as = i;
            while (i < n && s[i] != '=' && s[i] != ']')
                i++;
            if (i >= n || s[i] != '=')
                break;
            bool is_name = i - as == 4 && strncmp(s + as, "name", 4) == 0;
            i++;
            strbuf v;
            sb_init(&v);
            bool quoted = i < n && s[i] == '"';
            if (quoted) {
                i++;
                while (i < n && s[i] != '"') {
                    if (s[i] == '\\' && i + 1 < n) {
                        char e = s[++i];
                        sb_putc(&v, e == 'n' ? '\n' : e == 't' ? '\t' : e);
                    } else {
                        sb_putc(&v, s[i]);
                    }
                    i++;
                }
                i++;
            } else {
                int depth = 0;
                while (i < n && !(depth == 0 && (s[i] == ',' || s[i] == ']'))) {
                    if (s[i] == '(' || s[i] == '[')
                        depth++;
                    else if (s[i] == ')' || s[i] == ']')
                        depth--;
                    sb_putc(&v, s[i++]);
                }
            }
            const char *val = fx_strndup(L->p, v.s ? v.s : "", v.len);
            sb_free(&v);
            if (is_name) {
                st->attr_name = val;
            } else {
                st->attr_value = val;
                st->value_is_str = quoted;
                st->has_value = true;
            }
            if (i < n && s[i] == ',')
                i++;
        }
        if (i >= n) {
            err(L, ln, "unterminated attribute list");
            return false;
        }
        i++;
    }
    if (i >= n || s[i] != '(') {
        err(L, ln, "expected '(' after the operator name");
        return false;
    }
    i++;
    skip_sp(s, n, &i);
    while (i < n && s[i] != ')') {
        if (st->n_args == MAX_ARGS) {
            err(L, ln, "too many arguments");
            return false;
        }
        const char *a = read_value(L, s, n, &i);
        if (!a) {
            err(L, ln, "expected a %value argument");
            return false;
        }
        st->args[st->n_args++] = a;
        skip_sp(s, n, &i);
        if (i < n && s[i] == ',') {
            i++;
            skip_sp(s, n, &i);
        }
    }
    if (i >= n) {
        err(L, ln, "expected ')'");
        return false;
    }
    return true;
}

/* ---- value meta of placeholders ------------------------------------------------------------ */

/* The meta a declared input or a weight gives its placeholder; every other node gets its meta
 * from meta inference (meta/meta_infer.h), which the loader's callers run on the program. */
static fx_value *tensor_val(fx_program *p, fx_dtype dt, size_t rank, const char **sizes)
{
    fx_value *v = fx_value_new(p, FX_VAL_TENSOR);
    v->dtype = dt;
    v->rank = rank;
    v->sizes = fx_alloc(p, (rank + 1) * sizeof *v->sizes);
    for (size_t i = 0; i < rank; i++)
        v->sizes[i] = sizes[i];
    v->device = "cpu";
    return v;
}

/* ---- op mapping ------------------------------------------------------------------------------ */

/* TorchScript ops on Python values (no tensor argument) → the Python callables torch.fx records. */
static const char *const scalar_ops[][2] = {
    {"add", "operator.add"}, {"sub", "operator.sub"}, {"mul", "operator.mul"},
    {"floordiv", "operator.floordiv"}, {"div", "operator.truediv"}, {"remainder", "operator.mod"},
    {"eq", "operator.eq"}, {"ne", "operator.ne"}, {"lt", "operator.lt"}, {"gt", "operator.gt"},
    {"le", "operator.le"}, {"ge", "operator.ge"}, {"neg", "operator.neg"}, {"__not__", "operator.not_"},
    {"__and__", "operator.and_"}, {"__or__", "operator.or_"}, {"__xor__", "operator.xor"},
    {"__is__", "operator.is_"}, {"__isnot__", "operator.is_not"}, {"__contains__", "operator.contains"},
    {"__getitem__", "operator.getitem"}, {"len", "builtins.len"}, {"Int", "builtins.int"},
    {"Float", "builtins.float"}, {"Bool", "builtins.bool"}, {"format", "builtins.str.format"},
    {"list", "builtins.list"}, {"append", "fxsh.list_append"}, {"pow", "operator.pow"},
    {"floor", "math.floor"}, {"ceil", "math.ceil"}, {"sqrt", "math.sqrt"}, {"abs", "builtins.abs"},
    {"min", "builtins.min"}, {"max", "builtins.max"}, {"warn", "fxsh.warn"},
    {NULL, NULL}};

/* TorchScript prints an op's name and passes every schema argument, defaults included; the
 * overload is the one Python binds for the same call, as torch.export records it (e.g. a number
 * as the second operand of add is add.Tensor: Python passes it as a tensor). Rows are tried in
 * order; kinds is matched against the arguments' kinds, one letter each: T tensor, # number
 * (int, float or bool), i int, l list, s str, n None, ? any; a final * matches any rest.
 * target is an overload name, or "op.overload" when torch records another op. An op without a
 * matching row is op.default. */
typedef struct ts_overload {
    const char *op, *kinds, *target;
} ts_overload;

static const ts_overload overloads[] = {
    {"add", "T*", "Tensor"}, {"sub", "T*", "Tensor"}, {"mul", "T*", "Tensor"},
    {"div", "T??", "Tensor_mode"}, {"div", "T?", "Tensor"},
    {"add_", "T*", "Tensor"}, {"sub_", "T*", "Tensor"}, {"mul_", "T*", "Tensor"},
    {"div_", "T??", "Tensor_mode"}, {"div_", "T?", "Tensor"},
    {"rsub", "TT*", "Tensor"}, {"rsub", "T#*", "Scalar"},
    {"eq", "TT", "Tensor"}, {"eq", "T#", "Scalar"}, {"ne", "TT", "Tensor"}, {"ne", "T#", "Scalar"},
    {"lt", "TT", "Tensor"}, {"lt", "T#", "Scalar"}, {"gt", "TT", "Tensor"}, {"gt", "T#", "Scalar"},
    {"le", "TT", "Tensor"}, {"le", "T#", "Scalar"}, {"ge", "TT", "Tensor"}, {"ge", "T#", "Scalar"},
    {"__and__", "TT", "Tensor"}, {"__and__", "T#", "Scalar"}, {"__or__", "TT", "Tensor"},
    {"__or__", "T#", "Scalar"}, {"__xor__", "TT", "Tensor"}, {"__xor__", "T#", "Scalar"},
    {"bitwise_and", "TT", "Tensor"}, {"bitwise_and", "T#", "Scalar"}, {"bitwise_or", "TT", "Tensor"},
    {"bitwise_or", "T#", "Scalar"}, {"bitwise_xor", "TT", "Tensor"}, {"bitwise_xor", "T#", "Scalar"},
    {"pow", "TT", "Tensor_Tensor"}, {"pow", "T#", "Tensor_Scalar"}, {"pow", "#T", "Scalar"},
    {"remainder", "TT", "Tensor"}, {"remainder", "T#", "Scalar"}, {"fmod", "TT", "Tensor"},
    {"fmod", "T#", "Scalar"}, {"floor_divide", "T#", "Scalar"},
    {"masked_fill", "TTT", "Tensor"}, {"masked_fill", "TT?", "Scalar"}, {"masked_fill_", "TTT", "Tensor"},
    {"masked_fill_", "TT?", "Scalar"}, {"fill_", "TT", "Tensor"}, {"fill_", "T?", "Scalar"},
    {"where", "TTT", "self"}, {"where", "T#T", "ScalarSelf"}, {"where", "TT#", "ScalarOther"},
    {"where", "T##", "Scalar"},
    {"clamp", "TT?", "Tensor"}, {"clamp", "T?T", "Tensor"},
    {"sum", "T?", "default"}, {"sum", "T???", "dim_IntList"}, {"mean", "T?", "default"},
    {"mean", "T???", "dim"}, {"nansum", "T???", "default"}, {"prod", "T?", "default"},
    {"prod", "T???", "dim_int"},
    {"max", "T", "default"}, {"max", "TT", "other"}, {"max", "T??", "dim"}, {"min", "T", "default"},
    {"min", "TT", "other"}, {"min", "T??", "dim"},
    {"any", "T", "default"}, {"any", "Ti?", "dim"}, {"any", "T??", "dims"}, {"all", "T", "default"},
    {"all", "Ti?", "dim"}, {"all", "T??", "dims"},
    {"var", "Tb", "default"}, {"var", "T?b?", "dim"}, {"var", "T???", "correction"},
    {"std", "Tb", "default"}, {"std", "T?b?", "dim"}, {"std", "T???", "correction"},
    {"var_mean", "T?b?", "dim"}, {"var_mean", "T???", "correction"},
    {"std_mean", "T?b?", "dim"}, {"std_mean", "T???", "correction"},
    {"softmax", "T*", "int"}, {"log_softmax", "T*", "int"}, {"select", "T*", "int"},
    {"transpose", "T*", "int"}, {"unbind", "T*", "int"}, {"flatten", "T*", "using_ints"},
    {"unflatten", "T*", "int"}, {"slice", "T*", "Tensor"}, {"index", "T*", "Tensor"},
    {"split", "Tl*", "split_with_sizes.default"}, {"split", "T*", "Tensor"},
    {"squeeze", "T", "default"}, {"squeeze", "Ti", "dim"}, {"squeeze", "Tl", "dims"},
    {"view", "Ti", "dtype"},
    {"to", "TT*", "other"}, {"to", "T????", "dtype"}, {"to", "T?????", "device"},
    {"to", "T*", "dtype_layout"},
    {"conv1d", "TT??s*", "padding"}, {"conv2d", "TT??s*", "padding"}, {"conv3d", "TT??s*", "padding"},
    {"conv_transpose2d", "T*", "input"}, {"conv_transpose3d", "T*", "input"},
    {"scatter", "T?TT", "src"}, {"scatter", "T?T?", "value"}, {"scatter_", "T?TT", "src"},
    {"scatter_", "T?T?", "value"},
    /* F.interpolate calls the vec overloads: (input, output_size, [align_corners,] scale_factors) */
    {"upsample_nearest1d", "T??", "vec"}, {"upsample_nearest2d", "T??", "vec"},
    {"upsample_nearest3d", "T??", "vec"}, {"_upsample_nearest_exact1d", "T??", "vec"},
    {"_upsample_nearest_exact2d", "T??", "vec"}, {"_upsample_nearest_exact3d", "T??", "vec"},
    {"upsample_linear1d", "T???", "vec"}, {"upsample_bilinear2d", "T???", "vec"},
    {"upsample_trilinear3d", "T???", "vec"}, {"upsample_bicubic2d", "T???", "vec"},
    {"_upsample_bilinear2d_aa", "T???", "vec"}, {"_upsample_bicubic2d_aa", "T???", "vec"},
    {"_upsample_lanczos2d_aa", "T???", "vec"},
    {NULL, NULL, NULL}};

static bool kinds_match(const char *pat, const char *tks, size_t na)
{
    size_t i = 0;
    for (; *pat; pat++, i++) {
        if (*pat == '*')
            return true;
        if (i >= na)
            return false;
        char k = tks[i];
        bool ok = *pat == '?' || *pat == k || (*pat == '#' && (k == 'i' || k == 'f' || k == 'b'));
        if (!ok)
            return false;
    }
    return i == na;
}

/* torch.ops.aten.<op>.<overload> for a TorchScript call of op with arguments of these kinds. */
static const char *aten_target(loader *L, const char *op, const char *tks, size_t na)
{
    if (strcmp(op, "size") == 0)
        return na >= 2 ? "torch.ops.aten.sym_size.int" : "torch.ops.aten.sym_size.default";
    for (const ts_overload *o = overloads; o->op; o++)
        if (strcmp(o->op, op) == 0 && kinds_match(o->kinds, tks, na))
            return strchr(o->target, '.') ? arena_printf(&L->p->arena, "torch.ops.aten.%s", o->target)
                                          : arena_printf(&L->p->arena, "torch.ops.aten.%s.%s", op, o->target);
    return arena_printf(&L->p->arena, "torch.ops.aten.%s.default", op);
}

static const char *base_name(loader *L, const char *op)
{
    size_t n = strlen(op);
    if (strcmp(op, "Int") == 0 || strcmp(op, "Float") == 0 || strcmp(op, "Bool") == 0)
        return op[0] == 'I' ? "int" : op[0] == 'F' ? "float" : "bool";
    if (n > 4 && strncmp(op, "__", 2) == 0 && strcmp(op + n - 2, "__") == 0)
        return fx_strndup(L->p, op + 2, n - 4);
    return op;
}

/* ---- statements → nodes ----------------------------------------------------------------------- */

static void set_src(loader *L, fx_node *n, const stmt *st)
{
    n->src_line = st->ln->lineno;
    if (st->src_file) {
        n->meta.source = arena_printf(&L->p->arena, "%s:%d in forward", st->src_file, st->src_line);
        n->meta.stack_trace = arena_printf(&L->p->arena, "  File \"%s\", line %d, in forward\n",
                                           st->src_file, st->src_line);
    }
}

static fx_node *add_node(loader *L, scope *s, const char *base, const char *target, fx_arg **args, size_t na,
                         const stmt *st)
{
    fx_node *n = fx_node_new(s->g, fx_control_node_name(s->g, base), FX_OP_CALL_FUNCTION, target);
    fx_node_set_args(n, fx_arg_seq(L->p, FX_ARG_TUPLE, args, NULL, na), fx_arg_seq(L->p, FX_ARG_DICT, NULL, NULL, 0));
    fx_graph_append(s->g, n);
    set_src(L, n, st);
    return n;
}

fx_dtype ts_c10_scalar_type(int64_t st)
{
    static const fx_dtype table[] = {FX_DT_U8,  FX_DT_I8,  FX_DT_I16,  FX_DT_I32,     FX_DT_I64,    FX_DT_F16,
                                     FX_DT_F32, FX_DT_F64, FX_DT_C32,  FX_DT_C64,     FX_DT_C128,   FX_DT_BOOL,
                                     FX_DT_UNKNOWN, FX_DT_UNKNOWN, FX_DT_UNKNOWN, FX_DT_BF16};
    return st >= 0 && (size_t)st < sizeof table / sizeof *table ? table[st] : FX_DT_UNKNOWN;
}

const char *ts_c10_memory_format(int64_t mf)
{
    static const char *const names[] = {"contiguous_format", "preserve_format", "channels_last", "channels_last_3d"};
    return mf >= 0 && mf < 4 ? names[mf] : NULL;
}

/* torch.zeros(size, dtype=..) and friends: TorchScript passes dtype, layout, device and
 * pin_memory (and a memory format) positionally after the size or tensor (and fill value);
 * torch.export records them as keywords, with the device and pin_memory=False it resolved.
 * Returns the node, or NULL when op is not such a factory. */
static fx_node *factory_call(loader *L, scope *s, const stmt *st, const char *op, fx_arg **a, size_t na)
{
    static const struct {
        const char *op;
        size_t lead;
        bool like;
    } factories[] = {{"zeros", 1, false},     {"ones", 1, false},      {"empty", 1, false},
                     {"rand", 1, false},      {"randn", 1, false},     {"full", 2, false},
                     {"zeros_like", 1, true}, {"ones_like", 1, true},  {"empty_like", 1, true},
                     {"rand_like", 1, true},  {"randn_like", 1, true}, {"full_like", 2, true}};
    size_t f = 0, nf = sizeof factories / sizeof *factories;
    while (f < nf && strcmp(factories[f].op, op) != 0)
        f++;
    if (f == nf || na < factories[f].lead + 4 || na > factories[f].lead + 5)
        return NULL;
    size_t lead = factories[f].lead;
    bool like = factories[f].like;
    fx_program *p = L->p;
    const fx_arg *dt = a[lead], *layout = a[lead + 1], *device = a[lead + 2], *pin = a[lead + 3];
    const fx_arg *mf = na > lead + 4 ? a[lead + 4] : NULL;
    fx_arg *kv[5];
    const char *keys[5];
    size_t nk = 0;
    fx_dtype dtype = FX_DT_UNKNOWN;
    if (dt->kind == FX_ARG_INT) {
        dtype = ts_c10_scalar_type(dt->u.i);
        if (dtype == FX_DT_UNKNOWN)
            return NULL;
        keys[nk] = "dtype";
        kv[nk++] = fx_arg_dtype(p, dtype);
    } else if (dt->kind != FX_ARG_NONE) {
        return NULL;
    }
    if (layout->kind == FX_ARG_INT && layout->u.i == 0) {
        keys[nk] = "layout";
        kv[nk++] = fx_arg_str(p, FX_ARG_LAYOUT, "strided");
    } else if (layout->kind != FX_ARG_NONE) {
        return NULL;
    }
    if (device->kind == FX_ARG_STR || (!like && device->kind == FX_ARG_NONE)) {
        keys[nk] = "device";
        kv[nk++] = fx_arg_str(p, FX_ARG_DEVICE, device->kind == FX_ARG_STR ? device->u.s : "cpu");
    } else if (device->kind != FX_ARG_NONE) {
        return NULL;
    }
    keys[nk] = "pin_memory";
    kv[nk++] = fx_arg_bool(p, pin->kind == FX_ARG_BOOL && pin->u.b);
    if (mf && mf->kind == FX_ARG_INT && ts_c10_memory_format(mf->u.i)) {
        keys[nk] = "memory_format";
        kv[nk++] = fx_arg_str(p, FX_ARG_MEMFMT, ts_c10_memory_format(mf->u.i));
    } else if (mf && mf->kind != FX_ARG_NONE) {
        return NULL;
    }
    const char *target = arena_printf(&p->arena, "torch.ops.aten.%s.%s", op,
                                      strcmp(op, "empty") == 0 ? "memory_format" : "default");
    fx_node *n = add_node(L, s, op, target, a, lead, st);
    fx_node_set_args(n, n->args, fx_arg_seq(p, FX_ARG_DICT, kv, keys, nk));
    return n;
}

static fx_arg *constant_arg(loader *L, const stmt *st)
{
    fx_program *p = L->p;
    char tk = st->n_out ? st->out_tk[0] : 'o';
    if (st->attr_name)
        return fx_arg_str(p, FX_ARG_OPAQUE, arena_printf(&p->arena, "torch.nn.functional.%s", st->attr_name));
    if (!st->has_value)
        return fx_arg_none(p);
    const char *v = st->attr_value;
    if (st->value_is_str || tk == 's')
        return fx_arg_str(p, FX_ARG_STR, v);
    if (tk == 'i')
        return fx_arg_int(p, strtoll(v, NULL, 10));
    if (tk == 'b')
        return fx_arg_bool(p, strcmp(v, "0") != 0 && strcmp(v, "False") != 0);
    if (tk == 'f')
        return fx_arg_float(p, strtod(v, NULL));
    if (tk == 'l' && strstr(v, "[]"))
        return fx_arg_seq(p, FX_ARG_LIST, NULL, NULL, 0);
    return fx_arg_str(p, FX_ARG_OPAQUE, v);
}

/* A buffer, by what the weights file says or, without one, by BatchNorm's buffer names. */
static bool is_buffer(const fx_weight *w, const char *fqn)
{
    if (w && w->role == FX_TENSOR_BUFFER)
        return true;
    const char *last = strrchr(fqn, '.');
    last = last ? last + 1 : fqn;
    return strcmp(last, "running_mean") == 0 || strcmp(last, "running_var") == 0 ||
           strcmp(last, "num_batches_tracked") == 0;
}

/* The placeholder p_<fqn> / b_<fqn> of a weight, created on first use: torch.export lifts the
 * parameters first, then the buffers, both before the user inputs. */
static fx_node *param_placeholder(loader *L, const char *fqn)
{
    fx_node *ph = hm_get(&L->params, fqn);
    if (ph)
        return ph;
    fx_weight *w = fx_program_weight(L->p, fqn);
    bool buffer = is_buffer(w, fqn);
    strbuf b;
    sb_init(&b);
    sb_puts(&b, buffer ? "b_" : "p_");
    for (const char *c = fqn; *c; c++)
        sb_putc(&b, *c == '.' ? '_' : *c);
    ph = fx_node_new(L->root->g, b.s, FX_OP_PLACEHOLDER, NULL);
    sb_free(&b);
    ph->target = ph->name;
    if (w) {
        const char *sizes[16];
        size_t r = w->rank < 16 ? w->rank : 16;
        for (size_t i = 0; i < r; i++)
            sizes[i] = arena_printf(&L->p->arena, "%lld", (long long)w->shape[i]);
        ph->meta.val = tensor_val(L->p, w->dtype, r, sizes);
    }
    fx_node *before = buffer ? L->first_user_ph : L->first_buffer_ph ? L->first_buffer_ph : L->first_user_ph;
    if (before)
        fx_graph_insert_before(L->root->g, before, ph);
    else
        insert_ph(L->root, ph);
    if (buffer && !L->first_buffer_ph)
        L->first_buffer_ph = ph;
    const char *key = fx_strdup(L->p, fqn);
    hm_put(&L->params, key, ph);
    hm_put(&L->param_fqn, ph->name, (void *)key);
    return ph;
}

/* torch.export lifts every parameter and buffer of the model, used or not (num_batches_tracked
 * of an eval-mode BatchNorm), parameters first, each in state-dict order. With a weights table,
 * the weights of every submodule the graph reaches become placeholders in the table's order
 * (a .pt2 holds the state dict; the model's own attributes are lifted as they are used, since
 * an .onnx also holds constants that are not weights). */
static void lift_weights(loader *L)
{
    for (int pass = 0; pass < 2; pass++)
        for (const fx_weight *w = L->p->weights; w; w = w->next) {
            fx_node *ph = hm_get(&L->params, w->fqn);
            const char *dot = strrchr(w->fqn, '.');
            if (!ph && dot) {
                char *path = fx_strndup(L->p, w->fqn, (size_t)(dot - w->fqn));
                if (hm_has(&L->modules, path))
                    ph = param_placeholder(L, w->fqn);
            }
            if (ph && is_buffer(w, w->fqn) == (pass == 1) && L->first_user_ph)
                move_before(L->root->g, ph, L->first_user_ph);
        }
}

static bool parse_block_body(loader *L, scope *s, size_t indent, const ts_line **ret_line);

/* The declared value of attribute fqn (by FQN first, then by its bare name), NULL if none. */
static const ts_attr_decl *attr_decl(loader *L, const char *fqn, const char *name)
{
    const ts_attr_decl *bare = NULL;
    for (size_t i = 0; L->opts && i < L->opts->n_attrs; i++) {
        if (strcmp(L->opts->attrs[i].name, fqn) == 0)
            return &L->opts->attrs[i];
        if (!bare && strcmp(L->opts->attrs[i].name, name) == 0)
            bare = &L->opts->attrs[i];
    }
    return bare;
}

/* A Python literal as an argument (ts_parse_attr_decl checked it). */
static fx_arg *attr_value(fx_program *p, const char *v)
{
    if (!strcmp(v, "True") || !strcmp(v, "False"))
        return fx_arg_bool(p, v[0] == 'T');
    if (!strcmp(v, "None"))
        return fx_arg_none(p);
    if (v[0] == '\'' || v[0] == '"')
        return fx_arg_str(p, FX_ARG_STR, fx_strndup(p, v + 1, strlen(v) - 2));
    char *end;
    long long i = strtoll(v, &end, 10);
    if (!*end)
        return fx_arg_int(p, i);
    return fx_arg_float(p, strtod(v, NULL));
}

/* Reads "blockN(%a : T, ...):" at L->pos into a fresh scope whose placeholders are the block
 * parameters; returns the scope. */
static scope *open_block(loader *L, scope *parent, fx_module *m, size_t *indent)
{
    if (L->pos >= L->n_lines || strncmp(L->lines[L->pos].s, "block", 5) != 0)
        return NULL;
    const ts_line *ln = &L->lines[L->pos++];
    *indent = ln->indent;
    scope *s = scope_new(L, parent, m);
    size_t i = 0, n = ln->len;
    while (i < n && ln->s[i] != '(')
        i++;
    i++;
    while (i < n && ln->s[i] != ')') {
        skip_sp(ln->s, n, &i);
        const char *name = read_value(L, ln->s, n, &i);
        size_t ts, te;
        if (!name || i + 3 > n || strncmp(ln->s + i, " : ", 3) != 0) {
            err(L, ln, "malformed block parameter list");
            scope_free(s);
            return NULL;
        }
        i += 3;
        read_type(ln->s, n, &i, &ts, &te);
        char base[128];
        snprintf(base, sizeof base, "%s", name);
        char *dot = strchr(base, '.');
        if (dot)
            *dot = 0;
        for (char *c = base; *c; c++)
            if (!isalnum((unsigned char)*c) && *c != '_')
                *c = '_';
        fx_node *ph = fx_node_new(s->g, isdigit((unsigned char)base[0]) ? "arg" : base, FX_OP_PLACEHOLDER, NULL);
        ph->target = ph->name;
        insert_ph(s, ph);
        bind(L, s, name, fx_arg_node(L->p, ph), NULL, type_kind(ln->s + ts, te - ts));
        if (i < n && ln->s[i] == ',')
            i++;
    }
    return s;
}

/* Parses "-> (%a, %b)" / "return (%a)" into an output node of s; returns the count. */
static bool finish_block(loader *L, scope *s, const ts_line *ret)
{
    const char *t = memchr(ret->s, '(', ret->len);
    if (!t) {
        err(L, ret, "expected '(' in the block return");
        return false;
    }
    size_t i = (size_t)(t - ret->s) + 1, n = ret->len;
    fx_arg *items[MAX_OUTS];
    size_t k = 0;
    while (i < n && ret->s[i] != ')') {
        skip_sp(ret->s, n, &i);
        const char *name = read_value(L, ret->s, n, &i);
        tsval *v = name ? lookup(L, s, name) : NULL;
        if (!v || !v->arg) {
            err(L, ret, name ? "undefined value in the block return" : "expected a %value");
            return false;
        }
        /* forward's `return a, b` is a TupleConstruct: torch.export returns its items flat */
        const fx_arg *a = v->arg;
        bool flat = s == L->root && (a->kind == FX_ARG_TUPLE || a->kind == FX_ARG_LIST);
        for (size_t j = 0; j < (flat ? a->u.seq.len : 1); j++) {
            if (k == MAX_OUTS) {
                err(L, ret, "too many values in the block return");
                return false;
            }
            items[k++] = flat ? a->u.seq.items[j] : v->arg;
        }
        skip_sp(ret->s, n, &i);
        if (i < n && ret->s[i] == ',')
            i++;
    }
    fx_node *o = fx_node_new(s->g, "output", FX_OP_OUTPUT, "output");
    fx_arg *tup = fx_arg_seq(L->p, FX_ARG_TUPLE, items, NULL, k);
    fx_arg *one[1] = {tup};
    fx_node_set_args(o, fx_arg_seq(L->p, FX_ARG_TUPLE, one, NULL, 1), fx_arg_seq(L->p, FX_ARG_DICT, NULL, NULL, 0));
    fx_graph_append(s->g, o);
    return true;
}

static const fx_arg *output_item(const fx_graph *g, size_t i)
{
    const fx_arg *t = fx_control_graph_result(g);
    return t && t->kind == FX_ARG_TUPLE && i < t->u.seq.len ? t->u.seq.items[i] : NULL;
}

/* Appends placeholders so the scope takes every operand in ops (by outer node name). */
static void complete_operands(loader *L, scope *s, fx_arg **ops, size_t n_ops)
{
    for (size_t i = 0; i < n_ops; i++)
        capture(L, s, ops[i]->u.node);
}

static void merge_caps(fx_arg ***ops, size_t *n, size_t *cap, hashmap *seen, scope *s)
{
    for (size_t i = 0; i < s->n_captured; i++) {
        fx_node *o = s->captured[i]->u.node;
        if (hm_has(seen, o->name))
            continue;
        hm_put(seen, o->name, o);
        xgrow((void **)ops, cap, *n + 1, sizeof **ops);
        (*ops)[(*n)++] = s->captured[i];
    }
}

/* Puts s's capture placeholders first, in the order of ops (both branches of an if take the
 * same operand tuple). Relinks by hand: the nodes keep their names. */
static void order_placeholders(scope *s, fx_arg **ops, size_t n_ops)
{
    fx_graph *g = s->g;
    for (size_t i = n_ops; i-- > 0;) {
        fx_node *ph = hm_get(&s->caps, ops[i]->u.node->name);
        if (ph && ph != g->first)
            move_before(g, ph, g->first);
    }
}

/* Binds the statement's outputs to getitems of n. */
static void bind_outputs(loader *L, scope *s, const stmt *st, fx_node *n)
{
    for (size_t i = 0; i < st->n_out; i++) {
        fx_node *gi = fx_control_add_getitem(s->g, n, i);
        set_src(L, gi, st);
        if (!st->src_file) {
            /* prim::ListUnpack has no source range: torch's getitems carry their op's */
            gi->meta.source = n->meta.source;
            gi->meta.stack_trace = n->meta.stack_trace;
        }
        bind(L, s, st->out[i], fx_arg_node(L->p, gi), NULL, st->out_tk[i]);
    }
}

static bool do_if(loader *L, scope *s, const stmt *st)
{
    tsval *c = st->n_args == 1 ? lookup(L, s, st->args[0]) : NULL;
    if (!c || !c->arg) {
        err(L, st->ln, "prim::If needs one defined condition value");
        return false;
    }
    fx_module *tm = fx_control_new_subgraph(s->m, "true_graph");
    fx_module *fm = fx_control_new_subgraph(s->m, "false_graph");
    size_t ind;
    scope *ts = open_block(L, s, tm, &ind);
    const ts_line *ret;
    if (!ts) {
        err(L, st->ln, "prim::If without block0");
        return false;
    }
    if (!parse_block_body(L, ts, ind, &ret) || !finish_block(L, ts, ret)) {
        scope_free(ts);
        return false;
    }
    scope *fs = open_block(L, s, fm, &ind);
    if (!fs) {
        err(L, st->ln, "prim::If without block1");
        scope_free(ts);
        return false;
    }
    if (!parse_block_body(L, fs, ind, &ret) || !finish_block(L, fs, ret)) {
        scope_free(ts);
        scope_free(fs);
        return false;
    }
    fx_arg **ops = NULL;
    size_t n_ops = 0, cap = 0;
    hashmap seen;
    hm_init(&seen);
    merge_caps(&ops, &n_ops, &cap, &seen, ts);
    merge_caps(&ops, &n_ops, &cap, &seen, fs);
    hm_free(&seen);
    complete_operands(L, ts, ops, n_ops);
    complete_operands(L, fs, ops, n_ops);
    /* the operand order is the same for both branches */
    order_placeholders(ts, ops, n_ops);
    order_placeholders(fs, ops, n_ops);
    fx_node *n = fx_control_add_if(s->g, c->arg, tm, fm, ops, n_ops);
    set_src(L, n, st);
    for (fx_node *x = n->prev; x && x->op == FX_OP_GET_ATTR; x = x->prev)
        set_src(L, x, st);
    free(ops);
    bind_outputs(L, s, st, n);
    scope_free(ts);
    scope_free(fs);
    return true;
}

static bool do_loop(loader *L, scope *s, const stmt *st)
{
    if (st->n_args < 2) {
        err(L, st->ln, "prim::Loop needs a trip count and a condition");
        return false;
    }
    tsval *trip = lookup(L, s, st->args[0]), *cond = lookup(L, s, st->args[1]);
    if (!trip || !cond || !trip->arg || !cond->arg) {
        err(L, st->ln, "prim::Loop uses an undefined value");
        return false;
    }
    fx_arg *carried[MAX_ARGS];
    size_t nc = 0;
    for (size_t i = 2; i < st->n_args; i++) {
        tsval *v = lookup(L, s, st->args[i]);
        if (!v || !v->arg) {
            err(L, st->ln, "prim::Loop carries an undefined value");
            return false;
        }
        carried[nc++] = v->arg;
    }
    fx_module *bm = fx_control_new_subgraph(s->m, "body_graph");
    size_t ind;
    scope *bs = open_block(L, s, bm, &ind);
    const ts_line *ret;
    if (!bs) {
        err(L, st->ln, "prim::Loop without a body block");
        return false;
    }
    if (!parse_block_body(L, bs, ind, &ret) || !finish_block(L, bs, ret)) {
        scope_free(bs);
        return false;
    }
    /* `for` = constant-true start condition that the body returns unchanged as a constant */
    const fx_arg *next = output_item(bm->graph, 0);
    bool is_for = cond->arg->kind == FX_ARG_BOOL && cond->arg->u.b && next && next->kind == FX_ARG_BOOL &&
                  next->u.b;
    fx_node *n;
    if (is_for) {
        /* the body returns (cond, *carried): drop the constant cond for python_for */
        fx_node *o = bm->graph->last;
        fx_arg *t = o->args->u.seq.items[0];
        fx_arg *nt = fx_arg_seq(L->p, FX_ARG_TUPLE, t->u.seq.items + 1, NULL, t->u.seq.len - 1);
        fx_arg *one[1] = {nt};
        fx_node_set_args(o, fx_arg_seq(L->p, FX_ARG_TUPLE, one, NULL, 1), o->kwargs);
        n = fx_control_add_for(s->g, trip->arg, bm, carried, nc, bs->captured, bs->n_captured);
    } else {
        n = fx_control_add_while(s->g, trip->arg, cond->arg, bm, carried, nc, bs->captured, bs->n_captured);
    }
    set_src(L, n, st);
    for (fx_node *x = n->prev; x && x->op == FX_OP_GET_ATTR; x = x->prev)
        set_src(L, x, st);
    bind_outputs(L, s, st, n);
    scope_free(bs);
    return true;
}

static bool do_stmt(loader *L, scope *s, stmt *st)
{
    fx_program *p = L->p;
    const char *k = st->kind;
    if (strcmp(k, "prim::If") == 0)
        return do_if(L, s, st);
    if (strcmp(k, "prim::Loop") == 0)
        return do_loop(L, s, st);
    if (strcmp(k, "prim::Constant") == 0) {
        if (st->n_out != 1) {
            err(L, st->ln, "prim::Constant must have one output");
            return false;
        }
        bind(L, s, st->out[0], constant_arg(L, st), NULL, st->out_tk[0]);
        return true;
    }
    tsval *args[MAX_ARGS];
    char tks[MAX_ARGS + 1];
    for (size_t i = 0; i < st->n_args; i++) {
        args[i] = lookup(L, s, st->args[i]);
        if (!args[i]) {
            char msg[160];
            snprintf(msg, sizeof msg, "use of undefined value %%%s", st->args[i]);
            err(L, st->ln, msg);
            return false;
        }
        tks[i] = args[i]->tk;
    }
    tks[st->n_args] = 0;
    if (strcmp(k, "prim::GetAttr") == 0) {
        if (st->n_args != 1 || !args[0]->path || !st->attr_name || st->n_out != 1) {
            err(L, st->ln, "prim::GetAttr needs a module and a name");
            return false;
        }
        const char *fqn = args[0]->path[0] ? arena_printf(&p->arena, "%s.%s", args[0]->path, st->attr_name)
                                           : fx_strdup(p, st->attr_name);
        char tk = st->out_tk[0];
        const ts_attr_decl *decl;
        bool is_module = st->type0_len > 10 && strncmp(st->type0, "__torch__.", 10) == 0;
        if (is_module) {
            hm_put(&L->modules, fqn, (void *)fqn);
            bind(L, s, st->out[0], NULL, fqn, 'o');
        } else if (tk == 'T') {
            bool optional = st->type0_len == 7 && strncmp(st->type0, "Tensor?", 7) == 0;
            if (optional && L->opts && L->opts->weights_path && !fx_program_weight(p, fqn)) {
                bind(L, s, st->out[0], fx_arg_none(p), NULL, 'n');
            } else {
                fx_node *ph = param_placeholder(L, fqn);
                bind(L, s, st->out[0], fx_arg_node(p, capture(L, s, ph)), NULL, 'T');
            }
        } else if (tk == 'b' && strcmp(st->attr_name, "training") == 0) {
            bind(L, s, st->out[0], fx_arg_bool(p, false), NULL, 'b');   /* exported in eval mode */
        } else if ((decl = attr_decl(L, fqn, st->attr_name))) {
            bind(L, s, st->out[0], attr_value(p, decl->value), NULL, tk);
        } else {
            bind(L, s, st->out[0], fx_arg_str(p, FX_ARG_OPAQUE, arena_printf(&p->arena, "self.%s", fqn)), NULL, tk);
        }
        return true;
    }
    fx_arg *a[MAX_ARGS];
    for (size_t i = 0; i < st->n_args; i++) {
        a[i] = args[i]->arg;
        if (!a[i]) {
            err(L, st->ln, "a module is used as a value");
            return false;
        }
    }
    if (strcmp(k, "prim::ListConstruct") == 0 || strcmp(k, "prim::TupleConstruct") == 0) {
        if (st->n_out != 1) {
            err(L, st->ln, "construct must have one output");
            return false;
        }
        fx_arg_kind kind = k[6] == 'L' ? FX_ARG_LIST : FX_ARG_TUPLE;
        fx_arg *lit = fx_arg_seq(p, kind, a, NULL, st->n_args);
        if (kind == FX_ARG_LIST && hm_has(&L->appended, st->out[0])) {
            /* a list the code appends to is one object wherever it is used (a loop body fills
             * it): a node list([...]) makes it a value, which a literal argument is not */
            fx_node *n = add_node(L, s, "list", "builtins.list", &lit, 1, st);
            bind(L, s, st->out[0], fx_arg_node(p, n), NULL, 'l');
            return true;
        }
        bind(L, s, st->out[0], lit, NULL, 'l');
        return true;
    }
    if (strcmp(k, "prim::ListUnpack") == 0 || strcmp(k, "prim::TupleUnpack") == 0) {
        if (st->n_args != 1) {
            err(L, st->ln, "unpack takes one value");
            return false;
        }
        fx_arg *src = a[0];
        if ((src->kind == FX_ARG_LIST || src->kind == FX_ARG_TUPLE) && src->u.seq.len == st->n_out) {
            for (size_t i = 0; i < st->n_out; i++)
                bind(L, s, st->out[i], src->u.seq.items[i], NULL, st->out_tk[i]);
            return true;
        }
        if (src->kind != FX_ARG_NODE) {
            err(L, st->ln, "unpack of a value of the wrong length");
            return false;
        }
        bind_outputs(L, s, st, src->u.node);
        return true;
    }
    if (strcmp(k, "prim::unchecked_cast") == 0 && st->n_args == 1 && st->n_out == 1) {
        bind(L, s, st->out[0], a[0], NULL, st->out_tk[0]);
        return true;
    }
    if (strcmp(k, "prim::Uninitialized") == 0 && st->n_out == 1) {
        bind(L, s, st->out[0], fx_arg_none(p), NULL, st->out_tk[0]);
        return true;
    }
    const char *target, *base;
    const char *op = strncmp(k, "aten::", 6) == 0 ? k + 6 : NULL;
    if (op && strcmp(op, "Bool") == 0 && st->n_args == 1 && tks[0] == 'T' && st->n_out == 1) {
        /* Python truthiness: `if t:` keeps the tensor itself as the condition */
        bind(L, s, st->out[0], a[0], NULL, 'T');
        return true;
    }
    if (op) {
        bool any_tensor = false;
        for (size_t i = 0; i < st->n_args; i++)
            any_tensor |= tks[i] == 'T';
        target = NULL;
        size_t na = st->n_args;
        fx_arg **args = a;
        fx_arg *extra[MAX_ARGS + 1];
        if (!any_tensor)
            for (size_t i = 0; scalar_ops[i][0]; i++)
                if (strcmp(scalar_ops[i][0], op) == 0)
                    target = scalar_ops[i][1];
        base = base_name(L, op);
        if (!any_tensor && strcmp(op, "slice") == 0 && na == 4) {
            /* a list slice l[start:end:step] is Python indexing */
            fx_arg *sl[3] = {a[1], a[2], a[3]};
            extra[0] = a[0];
            extra[1] = fx_arg_seq(p, FX_ARG_SLICE, sl, NULL, 3);
            args = extra;
            na = 2;
            target = "operator.getitem";
            base = "getitem";
        } else if (strcmp(op, "len") == 0 && na == 1 && tks[0] == 'T') {
            /* len(t) reads t.shape[0] */
            extra[0] = a[0];
            extra[1] = fx_arg_int(p, 0);
            args = extra;
            na = 2;
            target = "torch.ops.aten.sym_size.int";
        }
        if (!target && strcmp(op, "size") == 0) {
            target = aten_target(L, op, tks, na);   /* named after the TorchScript call */
        } else if (!target) {
            /* arguments as TorchScript passes them (all of them): ts_prepare_program (capture/)
             * puts them in the form torch.export records */
            target = aten_target(L, op, tks, na);
            const char *d1 = target + strlen("torch.ops.aten."), *d2 = strchr(d1, '.');
            base = base_name(L, fx_strndup(p, d1, d2 ? (size_t)(d2 - d1) : strlen(d1)));
        }
        fx_node *n = factory_call(L, s, st, op, a, st->n_args);
        if (!n)
            n = add_node(L, s, base, target, args, na, st);
        if (st->n_out == 1)
            bind(L, s, st->out[0], fx_arg_node(p, n), NULL, st->out_tk[0]);
        else if (st->n_out > 1)
            bind_outputs(L, s, st, n);
        /* an in-place op returns its (mutated) self: later uses of self read its result, as
         * torch.export's proxy for the tensor becomes the op's node */
        size_t ol = strlen(op);
        if (any_tensor && ol > 1 && op[ol - 1] == '_' && op[ol - 2] != '_' && st->n_args > 0 && tks[0] == 'T' &&
            st->n_out == 1)
            bind(L, s, st->args[0], fx_arg_node(p, n), NULL, 'T');
        return true;
    }
    /* any other prim:: op keeps its name so nothing is silently lost */
    const char *pk = strncmp(k, "prim::", 6) == 0 ? k + 6 : k;
    char *tgt = arena_printf(&p->arena, "fxsh.prim.%s", pk);
    for (char *c = tgt; *c; c++)
        if (*c == ':')
            *c = '_';
    fx_node *n = add_node(L, s, strcmp(pk, "RaiseException") == 0 ? "raise_exception" : pk, tgt, a, st->n_args, st);
    if (st->n_out == 1)
        bind(L, s, st->out[0], fx_arg_node(p, n), NULL, st->out_tk[0]);
    else if (st->n_out > 1)
        bind_outputs(L, s, st, n);
    return true;
}

/* Statements at indentation > indent until the "-> (...)" / "return (...)" line. */
static bool parse_block_body(loader *L, scope *s, size_t indent, const ts_line **ret_line)
{
    while (L->pos < L->n_lines) {
        const ts_line *ln = &L->lines[L->pos];
        if (interrupt_pending()) {
            err(L, ln, "interrupted");
            return false;
        }
        if (ln->indent <= indent && indent > 0) {
            err(L, ln, "block ends without '-> (...)'");
            return false;
        }
        L->pos++;
        if ((ln->len >= 2 && strncmp(ln->s, "->", 2) == 0) || (ln->len >= 6 && strncmp(ln->s, "return", 6) == 0)) {
            *ret_line = ln;
            return true;
        }
        stmt st;
        if (!parse_stmt(L, ln, &st) || !do_stmt(L, s, &st))
            return false;
    }
    err(L, L->n_lines ? &L->lines[L->n_lines - 1] : NULL, "unexpected end of the TorchScript graph");
    return false;
}

/* ---- weights -------------------------------------------------------------------------------- */

static bool load_weights(loader *L, const char *path)
{
    /* The weights table is filled before the graph is read, so that GetAttr chains resolve to
     * parameters with their dtype and shape. */
    return fx_attach_weights(L->p, path, NULL, L->d);
}

/* ---- entry points ------------------------------------------------------------------------------ */

bool ts_sniff(const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    static const char magic[] = "graph(%self : __torch__.";
    return len - i >= sizeof magic - 1 && memcmp(text + i, magic, sizeof magic - 1) == 0;
}

bool ts_parse_input_decl(const char *s, ts_input_decl *out)
{
    memset(out, 0, sizeof *out);
    const char *eq = strchr(s, '=');
    const char *br = eq ? strchr(eq, '[') : NULL;
    if (!eq || eq == s || !br || br == eq + 1)
        return false;
    if ((size_t)(eq - s) >= sizeof out->name)
        return false;
    snprintf(out->name, sizeof out->name, "%.*s", (int)(eq - s), s);
    out->dtype = fx_dtype_from_abbr(eq + 1, (size_t)(br - eq - 1));
    if (out->dtype == FX_DT_UNKNOWN)
        out->dtype = fx_dtype_from_torch_name(eq + 1, (size_t)(br - eq - 1));
    if (out->dtype == FX_DT_UNKNOWN)
        return false;
    const char *c = br + 1;
    while (*c && *c != ']') {
        /* a size, or a symbol for a dimension export keeps dynamic (s77, batch) */
        const char *e = c;
        bool digits = isdigit((unsigned char)*c), ident = isalpha((unsigned char)*c) || *c == '_';
        while (*e && *e != ',' && *e != ']' && *e != ' ') {
            digits &= isdigit((unsigned char)*e) != 0;
            ident &= isalnum((unsigned char)*e) || *e == '_';
            e++;
        }
        if (e == c || out->rank == 8 || (size_t)(e - c) >= sizeof out->dims[0] || !(digits || ident))
            return false;
        snprintf(out->dims[out->rank++], sizeof out->dims[0], "%.*s", (int)(e - c), c);
        c = e;
        while (*c == ' ' || *c == ',')
            c++;
    }
    return *c == ']' && c[1] == 0;
}

bool ts_parse_attr_decl(const char *s, ts_attr_decl *out)
{
    memset(out, 0, sizeof *out);
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof out->name || strlen(eq + 1) >= sizeof out->value)
        return false;
    for (const char *c = s; c < eq; c++)
        if (!is_name_char(*c))
            return false;
    const char *v = eq + 1;
    size_t n = strlen(v);
    bool ok = !strcmp(v, "True") || !strcmp(v, "False") || !strcmp(v, "None") ||
              (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]);
    if (!ok && n) {
        char *end;
        (void)strtod(v, &end);
        ok = !*end;
    }
    if (!ok)
        return false;
    snprintf(out->name, sizeof out->name, "%.*s", (int)(eq - s), s);
    snprintf(out->value, sizeof out->value, "%s", v);
    return true;
}

static bool parse_header(loader *L, scope *root)
{
    /* the header spans lines until one ending in "):" */
    if (L->n_lines == 0 || strncmp(L->lines[0].s, "graph(", 6) != 0) {
        err(L, L->n_lines ? &L->lines[0] : NULL, "expected 'graph(' at the start of TorchScript IR");
        return false;
    }
    bool done = false;
    for (; L->pos < L->n_lines && !done; L->pos++) {
        const ts_line *ln = &L->lines[L->pos];
        size_t i = L->pos == 0 ? 6 : 0, n = ln->len;
        while (i < n) {
            skip_sp(ln->s, n, &i);
            if (i < n && ln->s[i] == ')') {
                done = true;
                break;
            }
            const char *name = read_value(L, ln->s, n, &i);
            size_t ts, te;
            if (!name || i + 3 > n || strncmp(ln->s + i, " : ", 3) != 0) {
                err(L, ln, "expected '%name : type' in the graph header");
                return false;
            }
            i += 3;
            read_type(ln->s, n, &i, &ts, &te);
            if (strcmp(name, "self") == 0) {
                bind(L, root, name, NULL, "", 'o');
            } else {
                char base[128];
                snprintf(base, sizeof base, "%s", name);
                char *dot = strchr(base, '.');
                if (dot)
                    *dot = 0;
                fx_node *ph = fx_node_new(root->g, base, FX_OP_PLACEHOLDER, NULL);
                ph->target = ph->name;
                insert_ph(root, ph);
                if (!L->first_user_ph)
                    L->first_user_ph = ph;
                for (size_t k = 0; L->opts && k < L->opts->n_inputs; k++) {
                    const ts_input_decl *in = &L->opts->inputs[k];
                    if (strcmp(in->name, base) == 0) {
                        const char *sizes[8];
                        for (size_t r = 0; r < in->rank; r++)
                            sizes[r] = fx_strdup(L->p, in->dims[r]);
                        ph->meta.val = tensor_val(L->p, in->dtype, in->rank, sizes);
                    }
                }
                bind(L, root, name, fx_arg_node(L->p, ph), NULL, type_kind(ln->s + ts, te - ts));
            }
            if (i < n && ln->s[i] == ',')
                i++;
        }
    }
    if (!done) {
        err(L, NULL, "unterminated graph header");
        return false;
    }
    return true;
}

static void fill_signature(loader *L)
{
    fx_program *p = L->p;
    fx_graph *g = p->root->graph;
    size_t n_in = 0;
    for (fx_node *n = g->first; n && n->op == FX_OP_PLACEHOLDER; n = n->next)
        n_in++;
    p->sig.inputs = fx_alloc(p, (n_in + 1) * sizeof *p->sig.inputs);
    for (fx_node *n = g->first; n && n->op == FX_OP_PLACEHOLDER; n = n->next) {
        fx_input_spec *in = &p->sig.inputs[p->sig.n_inputs++];
        const char *fqn = hm_get(&L->param_fqn, n->name);
        in->name = n->name;
        in->target = fqn;
        in->kind = !fqn ? FX_IN_USER_INPUT : n->name[0] == 'b' ? FX_IN_BUFFER : FX_IN_PARAMETER;
        in->persistent = fqn && n->name[0] == 'b';
    }
    const fx_arg *t = g->last && g->last->op == FX_OP_OUTPUT ? g->last->args->u.seq.items[0] : NULL;
    size_t n_out = t ? t->u.seq.len : 0;
    p->sig.outputs = fx_alloc(p, (n_out + 1) * sizeof *p->sig.outputs);
    for (size_t i = 0; i < n_out; i++) {
        fx_output_spec *o = &p->sig.outputs[p->sig.n_outputs++];
        o->kind = FX_OUT_USER_OUTPUT;
        o->name = t->u.seq.items[i]->kind == FX_ARG_NODE ? t->u.seq.items[i]->u.node->name : "None";
    }
    p->sig.present = true;
}

fx_program *ts_load_text(const char *text, size_t len, const char *file, const ts_load_options *opts,
                         diag_sink *d)
{
    loader L = {0};
    L.d = d;
    L.file = file;
    L.opts = opts;
    L.p = fx_program_new("GraphModule");
    L.p->source_form = FX_FORM_EXPORT;
    L.p->file = file ? fx_strdup(L.p, file) : NULL;
    hm_init(&L.params);
    hm_init(&L.param_fqn);
    split_lines(&L, text, len);
    hm_init(&L.appended);
    hm_init(&L.modules);
    static const char app[] = "aten::append(%";
    for (size_t i = 0; i + sizeof app - 1 <= len; i++) {
        if (text[i] != 'a' || memcmp(text + i, app, sizeof app - 1) != 0)
            continue;
        size_t b = i + sizeof app - 1, e = b;
        while (e < len && is_name_char(text[e]))
            e++;
        hm_put(&L.appended, fx_strndup(L.p, text + b, e - b), (void *)(text + b));
        i = e;
    }
    /* The scripted class (`%self : __torch__.model.PyIfData`) names the model, as repr(model)
     * does in torch.onnx's progress lines. */
    const char *cls = NULL;
    for (size_t i = 0; i + 10 <= len && !cls; i++)
        if (text[i] == '_' && memcmp(text + i, "__torch__.", 10) == 0) cls = text + i;
    if (cls) {
        const char *e = cls, *end = text + len, *last = cls + 10;
        while (e < end && (isalnum((unsigned char)*e) || *e == '_' || *e == '.')) {
            if (*e == '.') last = e + 1;
            e++;
        }
        if (e > last) L.p->root->type = fx_strndup(L.p, last, (size_t)(e - last));
    }
    bool ok = !(opts && opts->weights_path) || load_weights(&L, opts->weights_path);
    scope *root = scope_new(&L, NULL, L.p->root);
    L.root = root;
    const ts_line *ret = NULL;
    if (ok)
        ok = parse_header(&L, root);
    if (ok)
        ok = parse_block_body(&L, root, 0, &ret) && finish_block(&L, root, ret);
    if (ok)
        lift_weights(&L);
    if (ok && L.pos < L.n_lines) {
        err(&L, &L.lines[L.pos], "text after the graph's return");
        ok = false;
    }
    if (ok && root->g->last) {
        /* the root returns a flat tuple of user outputs as torch.export does */
        fill_signature(&L);
        fx_program_refresh(L.p);
    }
    scope_free(root);
    hm_free(&L.params);
    hm_free(&L.param_fqn);
    hm_free(&L.appended);
    hm_free(&L.modules);
    free(L.lines);
    if (ok && !L.failed && !fx_program_check_shapes(L.p, d))
        ok = false;
    if (!ok || L.failed) {
        if (!diag_has_errors(d))
            diag_error(d, (diag_loc){file, 0, 0}, "could not load the TorchScript graph");
        fx_program_free(L.p);
        return NULL;
    }
    return L.p;
}
