/* onnx_compare.c — tensor differences within a tolerance, value summaries, and the node-by-node
 * comparison of two models on the same inputs (values matched by name). */
#include "view/onnx_compare.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "view/onnx_values.h"

/* ---- two values ------------------------------------------------------------------------------- */

void view_diff_values(const oe_tensor *got, const oe_tensor *want, double atol, double rtol, oe_diff *df)
{
    if (got->kind != want->kind || got->n_items != want->n_items) {
        df->problem = "a different kind of value or sequence length";
        return;
    }
    for (int64_t i = 0; i < want->n_items; i++) view_diff_values(&got->items[i], &want->items[i], atol, rtol, df);
    if (want->kind != OE_KIND_TENSOR) return;
    if (got->rank != want->rank || memcmp(got->dims, want->dims, sizeof(int64_t) * (size_t)want->rank)) {
        df->problem = "shape";
        return;
    }
    double worst = -1;
    for (int64_t i = 0; i < want->numel; i++) {
        double a = ot_get_f(got, i), b = ot_get_f(want, i);
        double ad = (isnan(a) && isnan(b)) || a == b ? 0 : isnan(a) || isnan(b) ? INFINITY : fabs(a - b);
        double rd = ad == 0 ? 0 : b == 0 ? INFINITY : ad / fabs(b);
        df->total++;
        if (ad > atol + rtol * fabs(b) || isnan(ad)) {
            if (df->bad == 0 || ad > worst) {
                df->worst = df->total - 1;
                worst = ad;
            }
            df->bad++;
        }
        df->max_abs = fmax(df->max_abs, ad);
        df->max_rel = fmax(df->max_rel, rd);
    }
}

bool view_diff_ok(const oe_diff *df)
{
    return !df->problem && df->bad == 0;
}

void view_index_text(const oe_tensor *t, int64_t i, strbuf *out)
{
    int64_t idx[OE_MAX_RANK];
    for (int k = t->rank - 1; k >= 0; k--) {
        int64_t d = t->dims[k] > 0 ? t->dims[k] : 1;
        idx[k] = i % d;
        i /= d;
    }
    sb_putc(out, '[');
    for (int k = 0; k < t->rank; k++) sb_printf(out, "%s%lld", k ? ", " : "", (long long)idx[k]);
    sb_putc(out, ']');
}

void view_value_summary(const oe_tensor *t, strbuf *out)
{
    if (t->kind == OE_KIND_SEQUENCE) {
        sb_printf(out, "sequence of %lld", (long long)t->n_items);
        return;
    }
    if (t->kind == OE_KIND_OPTIONAL) {
        sb_puts(out, t->n_items ? "optional holding " : "optional (none)");
        if (t->n_items) view_value_summary(&t->items[0], out);
        return;
    }
    sb_printf(out, "%s[", view_numpy_dtype_name(t->dtype));
    for (int k = 0; k < t->rank; k++) sb_printf(out, "%s%lld", k ? ", " : "", (long long)t->dims[k]);
    sb_putc(out, ']');
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int64_t nan = 0, inf = 0, finite = 0;
    for (int64_t i = 0; i < t->numel; i++) {
        double v = ot_get_f(t, i);
        if (isnan(v)) { nan++; continue; }
        if (isinf(v)) inf++;
        else { sum += v; finite++; }
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    if (t->numel == 1) sb_printf(out, " = %.6g", ot_get_f(t, 0));
    else if (finite + inf > 0) sb_printf(out, " min %.6g max %.6g", lo, hi);
    if (t->numel > 1 && finite > 0) sb_printf(out, " mean %.6g", sum / (double)finite);
    if (nan) sb_printf(out, ", %lld NaN", (long long)nan);
    if (inf && t->numel > 1) sb_printf(out, ", %lld infinite", (long long)inf);
}

/* ---- two models ------------------------------------------------------------------------------- */

/* An exporter's temporary (`val_12`): numbered per export, so never matched by name. */
static bool temporary_name(const char *name)
{
    if (strncmp(name, "val_", 4) != 0 || !name[4]) return false;
    for (const char *p = name + 4; *p; p++)
        if (!isdigit((unsigned char)*p)) return false;
    return true;
}

/* Where a value is computed: "" for the main graph, "<If's first output>/then_branch" (nested
 * with further slashes) in a branch. A name matches only within the same scope, so a branch's
 * value is never taken for a main-graph value the other exporter happened to name alike. */
typedef struct named_value {
    const Onnx__NodeProto *node;
    const char *scope;
} named_value;

/* Every value computed at most once per evaluation (main graph, If branches), name → named_value. */
static void collect_once(const Onnx__GraphProto *g, const char *scope, hashmap *out, arena *a, int depth)
{
    if (!g || depth > 64) return;
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        for (size_t k = 0; k < n->n_output; k++) {
            if (!n->output[k] || !*n->output[k] || temporary_name(n->output[k])) continue;
            named_value *v = arena_alloc(a, sizeof *v);
            v->node = n;
            v->scope = scope;
            hm_put(out, n->output[k], v);
        }
        if (!n->op_type || strcmp(n->op_type, "If") != 0 || (n->domain && *n->domain && strcmp(n->domain, "ai.onnx")))
            continue;
        const char *first = n->n_output && n->output[0] ? n->output[0] : "";
        for (size_t k = 0; k < n->n_attribute; k++)
            if (n->attribute[k]->g)
                collect_once(n->attribute[k]->g, arena_printf(a, "%s%s/%s", scope, first, n->attribute[k]->name), out, a,
                             depth + 1);
    }
}

/* The value of b that a's value `name` corresponds to (same name, same scope), or NULL. */
static const named_value *counterpart(const hashmap *names_a, const hashmap *names_b, const char *name)
{
    const named_value *va = hm_get(names_a, name), *vb = hm_get(names_b, name);
    return va && vb && !strcmp(va->scope, vb->scope) ? vb : NULL;
}

/* A value of b kept for the comparison. */
typedef struct kept {
    oe_tensor value;
    const Onnx__NodeProto *node;
} kept;

typedef struct cmp_ctx {
    const hashmap *names_a, *names_b;
    hashmap kept;                /* name → kept (b's values) */
    const oe_compare_opts *o;
    oe_compare_result *r;
} cmp_ctx;

static void keep_b(void *ctx, const Onnx__NodeProto *n, const char *name, const oe_tensor *value, bool once)
{
    cmp_ctx *c = ctx;
    if (!once || !counterpart(c->names_a, c->names_b, name) || hm_has(&c->kept, name)) return;
    kept *k = xcalloc(1, sizeof *k);
    ot_tensor_copy(&k->value, value);
    k->node = n;
    hm_put(&c->kept, name, k);
}

static void check_a(void *ctx, const Onnx__NodeProto *n, const char *name, const oe_tensor *value, bool once)
{
    cmp_ctx *c = ctx;
    kept *k = once ? hm_get(&c->kept, name) : NULL;
    if (!k) return;
    oe_compare_result *r = c->r;
    oe_diff df = {0};
    view_diff_values(value, &k->value, c->o->atol, c->o->rtol, &df);
    r->n_checked++;
    if (view_diff_ok(&df)) {
        if (!r->max_abs_name || df.max_abs > r->max_abs) {
            r->max_abs = df.max_abs;
            r->max_abs_name = k->node->output[0] && !strcmp(k->node->output[0], name) ? k->node->output[0] : name;
        }
    } else if (!r->diverged) {
        r->diverged = true;
        r->name = name;
        r->node_a = n;
        r->node_b = k->node;
        r->diff = df;
        ot_tensor_copy(&r->value_a, value);
        ot_tensor_copy(&r->value_b, &k->value);
        for (size_t i = 0; i < n->n_input && r->n_unmatched < OE_COMPARE_MAX_UNMATCHED; i++) {
            const named_value *in = n->input[i] && *n->input[i] ? hm_get(c->names_a, n->input[i]) : NULL;
            if (!in || counterpart(c->names_a, c->names_b, n->input[i])) continue;
            r->unmatched[r->n_unmatched] = n->input[i];
            r->unmatched_node[r->n_unmatched++] = in->node;
        }
    }
    if (!view_diff_ok(&df)) r->n_diverged++;
    hm_remove(&c->kept, name);   /* compared once; a repeated name is the model's own business */
    ot_tensor_free(&k->value);
    free(k);
}

/* Evaluates m with the observer; messages go to d prefixed with the model's label. */
static int eval_observed(const ox_model *m, const char *label, const oe_named *in, size_t nin, oe_observe_fn fn,
                         cmp_ctx *c, diag_sink *d)
{
    size_t nout = m->proto->graph ? m->proto->graph->n_output : 0;
    oe_tensor *outs = xcalloc(nout + 1, sizeof *outs);
    oe_model_opts mo = {.max_loop_iters = c->o->max_loop_iters, .observe = fn, .observe_ctx = c};
    diag_sink own;
    diag_init(&own);
    int rc = oe_eval_model(m, in, nin, outs, &mo, &own);
    for (size_t i = 0; i < own.len; i++)
        if (own.items[i].severity == DIAG_ERROR) diag_error(d, (diag_loc){0}, "%s: %s", label, own.items[i].message);
    diag_free(&own);
    for (size_t i = 0; rc == OE_OK && i < nout; i++) ot_tensor_free(&outs[i]);
    free(outs);
    return rc;
}

static void drop_kept(hashmap *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        kept *k = m->slots[i].key ? m->slots[i].value : NULL;
        if (!k) continue;
        ot_tensor_free(&k->value);
        free(k);
    }
    hm_free(m);
}

int view_compare_models(const ox_model *a, const char *label_a, const oe_named *inputs_a, size_t nin_a,
                      const ox_model *b, const char *label_b, const oe_named *inputs_b, size_t nin_b,
                      const oe_compare_opts *o, oe_compare_result *r, diag_sink *d)
{
    memset(r, 0, sizeof *r);
    hashmap names_a, names_b;
    hm_init(&names_a);
    hm_init(&names_b);
    arena scopes;
    arena_init(&scopes);
    collect_once(a->proto->graph, "", &names_a, &scopes, 0);
    collect_once(b->proto->graph, "", &names_b, &scopes, 0);
    for (size_t i = 0; i < names_a.cap; i++)
        if (names_a.slots[i].key) {
            if (counterpart(&names_a, &names_b, names_a.slots[i].key)) r->n_matched++;
            else r->n_only_a++;
        }
    r->n_only_b = names_b.len - r->n_matched;
    cmp_ctx c = {.names_a = &names_a, .names_b = &names_b, .o = o, .r = r};
    hm_init(&c.kept);
    int rc = eval_observed(b, label_b, inputs_b, nin_b, keep_b, &c, d);
    if (rc == OE_OK) rc = eval_observed(a, label_a, inputs_a, nin_a, check_a, &c, d);
    drop_kept(&c.kept);
    hm_free(&names_a);
    hm_free(&names_b);
    arena_free(&scopes);
    if (rc != OE_OK) {
        view_compare_result_free(r);
        return OE_ERROR;
    }
    return OE_OK;
}

void view_compare_result_free(oe_compare_result *r)
{
    ot_tensor_free(&r->value_a);
    ot_tensor_free(&r->value_b);
    memset(r, 0, sizeof *r);
}
