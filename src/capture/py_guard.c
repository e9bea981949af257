/* py_guard.c — Python ifs on dynamic sizes decided for the example's sizes, as torch.export's
 * ShapeEnv decides them, with a warning that the exported model is specialized. */
#include "capture/py_guard.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "fx/fx.h"

typedef struct guard_ctx {
    const fx_program *src;
    const py_eval_options *o;
    strbuf dims, hints;          /* "batch", "batch=4" of each dynamic dimension read */
    size_t n_dims;
    const py_eval_dynamic_dim *dim;   /* the (first) dynamic dimension read */
    int64_t example;                  /* its example size */
    bool at;                          /* evaluate with dim at `value` instead of the example */
    int64_t value;
} guard_ctx;

static bool size_of(guard_ctx *g, const fx_node *t, int64_t k, int64_t *out)
{
    const fx_value *v = t->meta.val;
    if (!v || v->kind != FX_VAL_TENSOR)
        return false;
    if (k < 0)
        k += (int64_t)v->rank;
    if (k < 0 || (size_t)k >= v->rank)
        return false;
    const char *text = v->sizes[k];
    for (size_t i = 0; t->op == FX_OP_PLACEHOLDER && i < g->o->n_dynamic; i++) {
        const py_eval_dynamic_dim *dd = &g->o->dynamic[i];
        if (strcmp(dd->input, t->name) != 0 || dd->axis != k)
            continue;
        /* the hint: the example's size, as the program before the replay holds it */
        const fx_node *orig = fx_graph_lookup(fx_program_graph((fx_program *)g->src), t->name);
        const fx_value *ov = orig ? orig->meta.val : NULL;
        if (!ov || ov->kind != FX_VAL_TENSOR || (size_t)k >= ov->rank)
            return false;
        text = ov->sizes[k];
        if (!strstr(g->dims.s ? g->dims.s : "", dd->name)) {
            sb_printf(&g->dims, "%s%s", g->n_dims ? ", " : "", dd->name);
            sb_printf(&g->hints, "%s%s=%s", g->n_dims ? ", " : "", dd->name, text);
            g->n_dims++;
            if (!g->dim) {
                g->dim = dd;
                g->example = strtoll(text, NULL, 10);
            }
        }
        if (g->at && dd == g->dim) {
            *out = g->value;
            return true;
        }
        break;
    }
    char *end;
    long long s = strtoll(text, &end, 10);
    if (!*text || *end)
        return false;
    *out = s;
    return true;
}

static bool eval(guard_ctx *g, const fx_arg *a, int64_t *out, int depth)
{
    if (!a || depth > 64)
        return false;
    if (a->kind == FX_ARG_INT || a->kind == FX_ARG_BOOL) {
        *out = a->kind == FX_ARG_INT ? a->u.i : a->u.b;
        return true;
    }
    if (a->kind != FX_ARG_NODE || a->u.node->op != FX_OP_CALL_FUNCTION)
        return false;
    const fx_node *n = a->u.node;
    fx_arg **x = n->args->u.seq.items;
    size_t na = n->args->u.seq.len;
    int64_t l, r;
    if (!strcmp(n->target, "torch.ops.aten.sym_size.int") && na == 2 && x[0]->kind == FX_ARG_NODE)
        return eval(g, x[1], &r, depth + 1) && size_of(g, x[0]->u.node, r, out);
    if (strncmp(n->target, "operator.", 9) != 0 || na == 0 || !eval(g, x[0], &l, depth + 1))
        return false;
    const char *op = n->target + 9;
    if (!strcmp(op, "not_") || !strcmp(op, "neg") || !strcmp(op, "truth")) {
        *out = op[0] == 'n' ? (op[1] == 'o' ? !l : -l) : l != 0;
        return na == 1;
    }
    if (na != 2 || !eval(g, x[1], &r, depth + 1))
        return false;
    if (!strcmp(op, "add")) *out = l + r;
    else if (!strcmp(op, "sub")) *out = l - r;
    else if (!strcmp(op, "mul")) *out = l * r;
    else if (!strcmp(op, "floordiv") && r) *out = l / r - ((l % r != 0) && ((l < 0) != (r < 0)));
    else if (!strcmp(op, "mod") && r) *out = ((l % r) + r) % r;
    else if (!strcmp(op, "eq")) *out = l == r;
    else if (!strcmp(op, "ne")) *out = l != r;
    else if (!strcmp(op, "lt")) *out = l < r;
    else if (!strcmp(op, "le")) *out = l <= r;
    else if (!strcmp(op, "gt")) *out = l > r;
    else if (!strcmp(op, "ge")) *out = l >= r;
    else if (!strcmp(op, "and_")) *out = l && r;
    else if (!strcmp(op, "or_")) *out = l || r;
    else return false;
    return true;
}

/* The condition's truth with the guarded dimension at size v (-1: not decidable). */
static int truth_at(guard_ctx *g, const fx_node *cond, int64_t v)
{
    g->at = true;
    g->value = v;
    fx_arg ref = {.kind = FX_ARG_NODE, .u.node = (fx_node *)cond};
    int64_t r;
    int t = eval(g, &ref, &r, 0) ? r != 0 : -1;
    g->at = false;
    return t;
}

/* The integer literals of a condition's expression tree (at most cap). */
static void literals(const fx_arg *a, int64_t *out, size_t *n, size_t cap, int depth)
{
    if (!a || depth > 64 || *n >= cap) return;
    if (a->kind == FX_ARG_INT) {
        out[(*n)++] = a->u.i;
        return;
    }
    if (a->kind != FX_ARG_NODE || a->u.node->op != FX_OP_CALL_FUNCTION || !a->u.node->args) return;
    for (size_t i = 0; i < a->u.node->args->u.seq.len; i++) literals(a->u.node->args->u.seq.items[i], out, n, cap, depth + 1);
}

void py_guard_log_clear(py_guard_log *log)
{
    for (size_t i = 0; i < log->len; i++) {
        py_guard_record *r = &log->items[i];
        free(r->node);
        free(r->expr);
        free(r->symbol);
        free(r->input);
        free(r->file);
        free(r->source);
    }
    free(log->items);
    memset(log, 0, sizeof *log);
}

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

void py_guard_log_add(py_guard_log *log, const py_guard_record *r)
{
    if (log->len == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 8;
        log->items = xrealloc(log->items, log->cap * sizeof *log->items);
    }
    py_guard_record *c = &log->items[log->len++];
    *c = *r;
    c->node = dup_or_null(r->node);
    c->expr = dup_or_null(r->expr);
    c->symbol = dup_or_null(r->symbol);
    c->input = dup_or_null(r->input);
    c->file = dup_or_null(r->file);
    c->source = dup_or_null(r->source);
}

/* Appends what a guard did to the options' log (when there is one). */
static void record(const py_eval_options *o, const fx_node *cond, const char *name, const char *expr, const char *symbol,
                   const py_eval_dynamic_dim *dd, int64_t example, int truth, py_guard_effect effect, int64_t lo,
                   int64_t hi, diag_loc loc)
{
    py_guard_log *log = o ? o->guards : NULL;
    if (!log) return;
    /* the if's Python source: the condition's meta */
    const char *source = cond && cond->meta.source ? cond->meta.source : NULL;
    py_guard_record r = {
        .node = (char *)name, .expr = (char *)expr, .symbol = (char *)symbol, .input = dd ? (char *)dd->input : NULL,
        .axis = dd ? dd->axis : -1, .example = example, .truth = truth, .effect = effect, .lo = lo, .hi = hi,
        .file = (char *)loc.file, .line = loc.line, .source = (char *)source};
    py_guard_log_add(log, &r);
}

/* Past this a dimension counts as unbounded (torch's int_oo). */
#define SIZE_CAP ((int64_t)1 << 40)

/* The sizes in [lo, hi] around the example where the condition keeps its truth, when that set is
 * one interval (every comparison of a size with numbers, through + - *): [*a, *b]; false when it
 * is not (!=, %). Bisection on each side, then a check of points outside. */
static bool truth_interval(guard_ctx *g, const fx_node *cond, int truth, int64_t lo, int64_t hi, int64_t *a, int64_t *b)
{
    int64_t e = g->example;
    int64_t x = lo, y = e;   /* the smallest size in [lo, e] with the truth */
    if (truth_at(g, cond, lo) != truth) {
        while (y - x > 1) {
            int64_t m = x + (y - x) / 2;
            if (truth_at(g, cond, m) == truth) y = m;
            else x = m;
        }
        *a = y;
    } else {
        *a = lo;
    }
    x = e, y = hi;           /* the largest size in [e, hi] with it */
    if (truth_at(g, cond, hi) != truth) {
        while (y - x > 1) {
            int64_t m = x + (y - x) / 2;
            if (truth_at(g, cond, m) == truth) x = m;
            else y = m;
        }
        *b = x;
    } else {
        *b = hi;
    }
    /* points outside the interval must take the other branch, and inside it this one: the edges,
     * the middles, and each number the condition names with its neighbours (x != 5 excludes 5) */
    int64_t probes[8 + 3 * 16];
    size_t np = 0;
    int64_t fixed[] = {lo, *a - 1, *b + 1, hi, lo + (*a - lo) / 2, *b + (hi - *b) / 2, (*a + *b) / 2, e};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) probes[np++] = fixed[i];
    int64_t lits[16];
    size_t nl = 0;
    literals(&(fx_arg){.kind = FX_ARG_NODE, .u.node = (fx_node *)cond}, lits, &nl, 16, 0);
    for (size_t i = 0; i < nl; i++)
        for (int64_t dv = -1; dv <= 1; dv++) probes[np++] = lits[i] + dv;
    for (size_t i = 0; i < np; i++) {
        int64_t v = probes[i];
        if (v < lo || v > hi) continue;
        if ((truth_at(g, cond, v) == truth) != (v >= *a && v <= *b)) return false;
    }
    return true;
}

/* A guard as torch prints it: the condition (its sympy text, Ne(batch, 5)) in Python's operators,
 * the symbol replaced by the input's size (L['x'].size()[0]), negated when it was false. */
static void guard_text(strbuf *sb, const char *expr, const char *sym, const char *ref, int truth)
{
    char py[512];
    size_t len = strlen(expr);
    const char *op = !strncmp(expr, "Ne(", 3) ? " != " : !strncmp(expr, "Eq(", 3) ? " == " : NULL;
    const char *comma = op ? strstr(expr, ", ") : NULL;
    if (op && comma && expr[len - 1] == ')')
        snprintf(py, sizeof py, "%.*s%s%.*s", (int)(comma - expr - 3), expr + 3, op, (int)(expr + len - 1 - comma - 2), comma + 2);
    else
        snprintf(py, sizeof py, "%s", expr);
    if (!truth) sb_puts(sb, "Not(");
    size_t n = strlen(sym);
    for (const char *p = py; *p;) {
        bool word = !strncmp(p, sym, n) && (p == py || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
                    !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (word) {
            sb_puts(sb, ref);
            p += n;
        } else {
            sb_putc(sb, *p++);
        }
    }
    sb_puts(sb, truth ? "." : ").");
}

/* "3 <= batch <= 64", "batch <= 20", "" : the range the user gave, as torch prints it. */
static void given_range(strbuf *sb, const py_eval_dynamic_dim *dd)
{
    if (dd->min > 2) sb_printf(sb, " %lld <=", (long long)dd->min);
    if (dd->min > 2 || dd->max >= 0) sb_printf(sb, " %s", dd->name);
    if (dd->max >= 0) sb_printf(sb, " <= %lld", (long long)dd->max);
}

/* Dim('batch', min=3, max=9): torch's suggested fix for the range [a, b] (b -1: unbounded). */
static void suggested_dim(strbuf *sb, const char *name, int64_t a, int64_t b)
{
    sb_printf(sb, "Dim('%s'", name);
    if (a > 2) sb_printf(sb, ", min=%lld", (long long)a);
    if (b >= 0) sb_printf(sb, ", max=%lld", (long long)b);
    sb_putc(sb, ')');
}

/* A guard on one dynamic dimension, as torch.export's ShapeEnv takes it: a named Dim whose range
 * it narrows or pins fails with torch's "Constraints violated" and its suggested fix; Dim.AUTO
 * and Dim.DYNAMIC are narrowed (AUTO may also be pinned). 1 / 0: the branch; -2: reported. */
static int decide_range(guard_ctx *g, const fx_node *cond, int truth, const char *name, const char *const branches[2],
                        const char *expr, diag_loc loc, diag_sink *d)
{
    const py_eval_dynamic_dim *dd = g->dim;
    int64_t lo = dd->lo ? *dd->lo : (dd->min > 2 ? dd->min : 2);
    int64_t hi = dd->hi ? *dd->hi : dd->max;
    int64_t cap = hi >= 0 ? hi : SIZE_CAP;
    if (g->example < lo || g->example > cap) return truth;   /* the capture reports an example out of range */
    char ref[300];
    snprintf(ref, sizeof ref, "L['%s'].size()[%d]", dd->input, dd->axis);
    int64_t a, b;
    bool interval = truth_interval(g, cond, truth, lo, cap, &a, &b);
    int64_t b_open = b >= cap && hi < 0 ? -1 : b;   /* reached the cap of an unbounded range */
    strbuf msg = {0}, hint = {0};
    int r = truth;
    py_guard_effect effect = PY_GUARD_KEPT;
    int64_t new_lo = lo, new_hi = hi;
    if (interval && a == lo && b_open == hi) {
        /* every size of the range takes this branch: nothing is specialized */
    } else if (interval && a == b) {
        effect = dd->kind == PY_DIM_AUTO ? PY_GUARD_PINNED : PY_GUARD_FAILED;
        new_lo = new_hi = a;
        /* pinned: x.shape[0] == 4 */
        if (dd->kind == PY_DIM_AUTO) {
            if (dd->lo) *dd->lo = a;
            if (dd->hi) *dd->hi = a;
        } else {
            const char *who = dd->kind == PY_DIM_NAMED ? dd->name : ref;
            sb_printf(&msg, "%%%s: Constraints violated (%s)! You marked %s as dynamic but your code specialized it to be a "
                            "constant (%lld) (the condition `%s`, %s for the example)",
                      name, who, who, (long long)a, expr, truth ? "True" : "False");
            if (dd->kind == PY_DIM_NAMED)
                sb_printf(&hint, "Suggested fixes: %s = %lld, i.e. dynamic_shapes %s:%d=STATIC; or keep both branches: "
                                 "rewrite %s cond", dd->name, (long long)a, dd->input, dd->axis, name);
            else
                sb_printf(&hint, "Dim.DYNAMIC may not be pinned: use %s:%d=STATIC or AUTO; or keep both branches: rewrite %s cond",
                          dd->input, dd->axis, name);
            r = -2;
        }
    } else if (dd->kind == PY_DIM_NAMED) {
        effect = PY_GUARD_FAILED;
        if (interval) {
            new_lo = a;
            new_hi = b_open;
        }
        sb_printf(&msg, "%%%s: Constraints violated (%s)! Not all values of %s = %s in the specified range", name, dd->name,
                  dd->name, ref);
        given_range(&msg, dd);
        if (interval) {
            sb_printf(&msg, " satisfy the generated guard %lld <= %s and %s <= ", (long long)a, ref, ref);
            if (b_open < 0) sb_puts(&msg, "IntInfinity()");
            else sb_printf(&msg, "%lld", (long long)b_open);
            sb_puts(&hint, "Suggested fixes: ");
            sb_printf(&hint, "%s = ", dd->name);
            suggested_dim(&hint, dd->name, a, b_open);
            sb_printf(&hint, ", i.e. dynamic_shapes %s:%d=", dd->input, dd->axis);
            suggested_dim(&hint, dd->name, a, b_open);
            sb_printf(&hint, "; or keep both branches: rewrite %s cond", name);
        } else {
            sb_puts(&msg, " satisfy the generated guard ");
            guard_text(&msg, expr, dd->name, ref, truth);
            sb_printf(&hint, "keep both branches: rewrite %s cond; or mark %s:%d AUTO", name, dd->input, dd->axis);
        }
        sb_printf(&msg, " (the condition `%s`, %s for the example %s=%lld)", expr, truth ? "True" : "False", dd->name,
                  (long long)g->example);
        r = -2;
    } else if (interval) {
        effect = PY_GUARD_NARROWED;
        new_lo = a;
        new_hi = b_open;
        if (dd->lo) *dd->lo = a;
        if (dd->hi) *dd->hi = b_open;
        char range[64];
        if (b_open < 0) snprintf(range, sizeof range, "VR[%lld, int_oo]", (long long)a);
        else snprintf(range, sizeof range, "VR[%lld, %lld]", (long long)a, (long long)b_open);
        diagnostic *dg = diag_warning(d, loc,
                                      "%%%s: the condition `%s` keeps %s for %s in %s only: torch.export narrows %s to %s "
                                      "(the program's range constraints), which the ONNX model's inputs do not say",
                                      name, expr, branches[truth ? 0 : 1], dd->name, range, dd->name, range);
        diag_set_hint(dg, "keep both branches with `rewrite %s cond`; check other sizes with `verify exported optimized "
                          "--shapes %s:%d=...`", name, dd->input, dd->axis);
    }
    record(g->o, cond, name, expr, dd->name, dd, g->example, truth, effect, new_lo, new_hi, loc);
    if (r == -2) {
        diagnostic *dg = diag_error(d, loc, "%s", msg.s);
        if (hint.len) diag_set_hint(dg, "%s", hint.s);
    }
    sb_free(&msg);
    sb_free(&hint);
    return r;
}

int py_guard_decide(const fx_node *cond, const fx_program *src, const py_eval_options *o, const char *name,
                    const char *const branches[2], diag_loc loc, diag_sink *d)
{
    if (!cond || !o || !o->n_dynamic || (cond->meta.val && cond->meta.val->kind == FX_VAL_TENSOR))
        return -1;
    guard_ctx g = {src, o, {0}, {0}, 0, NULL, 0, false, 0};
    sb_init(&g.dims);
    sb_init(&g.hints);
    fx_arg ref = {.kind = FX_ARG_NODE, .u.node = (fx_node *)cond};
    int64_t v;
    int truth = eval(&g, &ref, &v, 0) && g.n_dims ? v != 0 : -1;
    const char *expr = cond->meta.val && cond->meta.val->kind == FX_VAL_SYM && cond->meta.val->text ? cond->meta.val->text
                                                                                                     : cond->name;
    if (truth >= 0 && g.n_dims == 1) {
        truth = decide_range(&g, cond, truth, name, branches, expr, loc, d);
    } else if (truth >= 0) {
        /* a guard on several dynamic dimensions: decided for the example, the range not followed */
        record(o, cond, name, expr, g.dims.s, NULL, g.example, truth, PY_GUARD_UNTRACKED, -1, -1, loc);
        diagnostic *dg = diag_warning(d, loc,
                                      "%%%s: the condition `%s` reads the dynamic dimensions %s; torch.export decides it "
                                      "for the example (%s: %s) and keeps only %s, while the dimensions stay dynamic: "
                                      "the exported model is silently wrong for every size where the condition is %s",
                                      name, expr, g.dims.s, g.hints.s, truth ? "True" : "False", branches[truth ? 0 : 1],
                                      truth ? "False" : "True");
        diag_set_hint(dg, "check a size of the other branch with `verify exported optimized --shapes ...`; keep both "
                          "branches with `rewrite %s cond`, or export with those dimensions static",
                      name);
    }
    sb_free(&g.dims);
    sb_free(&g.hints);
    return truth;
}
