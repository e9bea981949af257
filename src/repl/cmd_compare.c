/* cmd_compare.c — `compare A B`: two stages or models evaluated on the same inputs, node by node;
 * the first value that differs beyond the tolerance, both values summarised and its node's source. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_write.h"
#include "base/strbuf.h"
#include "view/onnx_compare.h"
#include "view/onnx_inspect.h"
#include "view/onnx_repr.h"
#include "repl/cmd_handlers.h"
#include "repl/cmd_run.h"

/* "Relu (node_relu)" */
static void node_text(const Onnx__NodeProto *n, strbuf *out)
{
    if (n->domain && *n->domain) sb_printf(out, "%s.", n->domain);
    sb_puts(out, n->op_type ? n->op_type : "?");
    if (n->name && *n->name) sb_printf(out, " node %s", n->name);
}

/* The provenance torch.onnx (and fxsh) record on a node, indented under "  source:". */
static void source_text(const Onnx__NodeProto *n, const char *label, strbuf *out)
{
    strbuf p;
    sb_init(&p);
    view_show_provenance(n, &p);
    if (p.len) {
        sb_printf(out, "  where (%s):\n", label);
        for (const char *line = p.s; *line;) {
            const char *eol = strchr(line, '\n');
            size_t len = eol ? (size_t)(eol - line) : strlen(line);
            sb_printf(out, "    %.*s\n", (int)len, line);
            if (!eol) break;
            line = eol + 1;
        }
    }
    sb_free(&p);
}

static void report_divergence(session *s, const oe_compare_result *r, const run_model_ref *a, const run_model_ref *b,
                              const run_opts *o)
{
    size_t w = strlen(a->label) > strlen(b->label) ? strlen(a->label) : strlen(b->label);
    strbuf sb;
    sb_init(&sb);
    strbuf na, nb;
    sb_init(&na);
    sb_init(&nb);
    node_text(r->node_a, &na);
    node_text(r->node_b, &nb);
    if (!strcmp(na.s, nb.s)) sb_printf(&sb, "first divergence: %s (%s in both)\n", r->name, na.s);
    else sb_printf(&sb, "first divergence: %s (%s in %s; %s in %s)\n", r->name, na.s, a->label, nb.s, b->label);
    sb_free(&na);
    sb_free(&nb);
    sb_printf(&sb, "  %s:%*s ", a->label, (int)(w - strlen(a->label)), "");
    view_value_summary(&r->value_a, &sb);
    sb_printf(&sb, "\n  %s:%*s ", b->label, (int)(w - strlen(b->label)), "");
    view_value_summary(&r->value_b, &sb);
    sb_puts(&sb, "\n  ");
    const oe_diff *df = &r->diff;
    if (df->problem && !strcmp(df->problem, "shape")) {
        sb_puts(&sb, "the shapes differ");
    } else if (df->problem) {
        sb_printf(&sb, "%s", df->problem);
    } else {
        sb_printf(&sb, "max abs diff %.3g, max rel diff %.3g: %lld of %lld elements beyond atol %g, rtol %g", df->max_abs,
                  df->max_rel, (long long)df->bad, (long long)df->total, o->atol, o->rtol);
        if (r->value_a.kind == OE_KIND_TENSOR && r->value_a.numel > df->worst) {
            sb_puts(&sb, "; the largest at ");
            view_index_text(&r->value_a, df->worst, &sb);
            sb_printf(&sb, ": %.6g vs %.6g", ot_get_f(&r->value_a, df->worst), ot_get_f(&r->value_b, df->worst));
        }
    }
    if (r->value_a.kind == OE_KIND_TENSOR && r->value_b.kind == OE_KIND_TENSOR && r->value_a.dtype != r->value_b.dtype)
        sb_printf(&sb, " (dtypes %s and %s)", view_numpy_dtype_name(r->value_a.dtype), view_numpy_dtype_name(r->value_b.dtype));
    sb_putc(&sb, '\n');
    for (size_t i = 0; i < r->n_unmatched; i++) {
        sb_printf(&sb, "  its input %s (", r->unmatched[i]);
        node_text(r->unmatched_node[i], &sb);
        sb_printf(&sb, ") has no counterpart in %s: look there first\n", b->label);
    }
    source_text(r->node_a, a->label, &sb);
    fwrite(sb.s, 1, sb.len, s->out);
    sb_free(&sb);
}

/* {"op_type", "name"} of a node (null when there is none) */
/* Whether g's main graph computes a value of this name (a node output). */
static bool computes(const Onnx__GraphProto *g, const char *name)
{
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_output; k++)
            if (!strcmp(g->node[i]->output[k], name)) return true;
    return false;
}

/* The first graph output (by position) that is a different value in a and b although both compute
 * both: every value agrees by name, yet the models return different ones (a rewired output, a
 * present cache that drops its past). -1 when there is none. */
static int rewired_output(const Onnx__GraphProto *a, const Onnx__GraphProto *b)
{
    for (size_t k = 0; k < a->n_output && k < b->n_output; k++) {
        const char *na = a->output[k]->name, *nb = b->output[k]->name;
        if (strcmp(na, nb) && computes(a, nb) && computes(b, na) && computes(a, na) && computes(b, nb)) return (int)k;
    }
    return -1;
}

static void json_node(json_writer *w, const char *key, const Onnx__NodeProto *n)
{
    jw_key(w, key);
    if (!n) {
        jw_null(w);
        return;
    }
    jw_object(w);
    jw_kstring(w, "op_type", n->op_type);
    jw_kstring(w, "domain", n->domain && *n->domain ? n->domain : "ai.onnx");
    jw_kstring(w, "name", n->name);
    jw_object_end(w);
}

/* {"dtype", "shape", "min", "max", "mean"} of a value (what the text summarises) */
static void json_value(json_writer *w, const char *key, const oe_tensor *t)
{
    jw_key(w, key);
    jw_object(w);
    run_json_type(w, "dtype", "shape", t);
    if (t->kind == OE_KIND_TENSOR && t->numel > 0 && t->dtype != T_STRING) {
        double lo = INFINITY, hi = -INFINITY, sum = 0;
        for (int64_t i = 0; i < t->numel; i++) {
            double v = ot_get_f(t, i);
            if (v < lo) lo = v;
            if (v > hi) hi = v;
            sum += v;
        }
        jw_key(w, "min");
        view_json_number(w, lo, t->dtype);
        jw_key(w, "max");
        view_json_number(w, hi, t->dtype);
        jw_kdouble_named(w, "mean", sum / (double)t->numel);
    }
    jw_object_end(w);
}

/* compare --json: {"stage", "reference", "inputs", "seed", "atol", "rtol", "matched", "checked",
 * "only_in_stage", "only_in_reference", "diverged", "divergence": null | {...}, "largest_abs_diff",
 * "largest_abs_diff_at", "ok"} */
static void compare_json(session *s, const oe_compare_result *r, int rewired, const run_model_ref *a, const run_model_ref *b,
                         const run_opts *o)
{
    strbuf sb;
    sb_init(&sb);
    json_writer w;
    cmd_json_begin(&w, &sb, "compare", a->label);
    jw_kstring(&w, "reference", b->label);
    run_json_inputs(&w, o->inputs, o->seed);
    jw_key(&w, "atol");
    jw_double(&w, o->atol);
    jw_key(&w, "rtol");
    jw_double(&w, o->rtol);
    jw_kint(&w, "matched", (int64_t)r->n_matched);
    jw_kint(&w, "checked", (int64_t)r->n_checked);
    jw_kint(&w, "only_in_stage", (int64_t)r->n_only_a);
    jw_kint(&w, "only_in_reference", (int64_t)r->n_only_b);
    jw_kint(&w, "diverged", (int64_t)r->n_diverged);
    jw_key(&w, "divergence");
    if (!r->diverged) {
        jw_null(&w);
    } else {
        const oe_diff *df = &r->diff;
        jw_object(&w);
        jw_kstring(&w, "name", r->name);
        json_node(&w, "node", r->node_a);
        json_node(&w, "reference_node", r->node_b);
        json_value(&w, "value", &r->value_a);
        json_value(&w, "reference_value", &r->value_b);
        jw_kstring(&w, "problem", df->problem);
        if (!df->problem) {
            jw_kdouble_named(&w, "max_abs_diff", df->max_abs);
            jw_kdouble_named(&w, "max_rel_diff", df->max_rel);
            jw_kint(&w, "mismatched", df->bad);
            jw_kint(&w, "elements", df->total);
            if (r->value_a.kind == OE_KIND_TENSOR && r->value_a.numel > df->worst) {
                jw_key(&w, "worst_index");   /* the multi-index of the largest difference */
                jw_array(&w);
                int64_t rest = df->worst;
                int64_t idx[OE_MAX_RANK];
                for (int d = r->value_a.rank - 1; d >= 0; d--) {
                    idx[d] = r->value_a.dims[d] ? rest % r->value_a.dims[d] : 0;
                    rest = r->value_a.dims[d] ? rest / r->value_a.dims[d] : 0;
                }
                for (int d = 0; d < r->value_a.rank; d++) jw_int(&w, idx[d]);
                jw_array_end(&w);
            }
        }
        jw_key(&w, "unmatched_inputs");   /* inputs the reference has no value for: look there first */
        jw_array(&w);
        for (size_t i = 0; i < r->n_unmatched; i++) {
            jw_object(&w);
            jw_kstring(&w, "name", r->unmatched[i]);
            json_node(&w, "node", r->unmatched_node[i]);
            jw_object_end(&w);
        }
        jw_array_end(&w);
        jw_key(&w, "metadata");   /* the node's provenance, as node --json gives it */
        jw_object(&w);
        for (size_t k = 0; r->node_a && k < r->node_a->n_metadata_props; k++)
            jw_kstring(&w, r->node_a->metadata_props[k]->key, r->node_a->metadata_props[k]->value);
        jw_object_end(&w);
        jw_object_end(&w);
    }
    jw_key(&w, "largest_abs_diff");
    if (r->diverged || !r->n_checked) jw_null(&w);
    else jw_double_named(&w, r->max_abs);
    jw_kstring(&w, "largest_abs_diff_at", r->diverged || !r->n_checked ? NULL : r->max_abs_name);
    jw_key(&w, "rewired_output");   /* every value agrees, but output k is another value in each */
    if (rewired < 0) {
        jw_null(&w);
    } else {
        jw_object(&w);
        jw_kint(&w, "index", rewired);
        jw_kstring(&w, "name", a->m->proto->graph->output[rewired]->name);
        jw_kstring(&w, "reference_name", b->m->proto->graph->output[rewired]->name);
        jw_object_end(&w);
    }
    jw_kbool(&w, "ok", !r->diverged && r->n_checked > 0 && rewired < 0);
    cmd_json_end(&w);
    session_write(s, sb.s, sb.len);
    sb_free(&sb);
}

int cmd_compare(session *s, int argc, char **argv)
{
    bool json = cmd_json_flag(&argc, argv);
    run_opts o;
    if (!run_parse_opts(s, "compare", argc, argv, "--inputs --seed --atol --rtol --shapes", 2, &o)) return 1;
    for (int k = 0; k < o.n_sweep; k++)
        if (o.sweep[k].n_sizes != 1) {
            diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "compare: --shapes takes one size per dimension here");
            diag_set_hint(dg, "`verify A B --shapes NAME=1,2,7` sweeps sizes and names the first that differs; compare it there");
            return 1;
        }
    if (o.n_stages < 2) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "compare: needs two stages or model files");
        diag_set_hint(dg, "compare STAGE_A STAGE_B (e.g. compare exported optimized), or compare STAGE model.onnx");
        return 1;
    }
    run_pair pr;
    int rc = run_pair_open(s, "compare", &o, &pr) ? 1 : 0;
    run_model_ref a = pr.a, b = pr.b;
    run_input_set in_a = pr.in_a, in_b = pr.in_b;
    oe_compare_result r = {0};
    oe_compare_opts co = {.atol = o.atol, .rtol = o.rtol};
    if (!rc) {
        diag_sink d;
        diag_init(&d);
        if (view_compare_models(a.m, a.label, in_a.named, in_a.n, b.m, b.label, in_b.named, in_b.n, &co, &r, &d) != OE_OK)
            rc = 1;
        for (size_t i = 0; i < d.len; i++) session_error(s, "compare: %s", d.items[i].message);
        diag_free(&d);
    }
    int rewired = rc || r.diverged || !r.n_checked ? -1 : rewired_output(a.m->proto->graph, b.m->proto->graph);
    if (!rc && json) {
        compare_json(s, &r, rewired, &a, &b, &o);
        if (r.diverged)
            session_error(s, "compare: %s and %s diverge at %s (%zu of %zu values differ)", a.label, b.label, r.name,
                          r.n_diverged, r.n_checked);
        else if (r.n_checked == 0)
            session_error(s, "compare: %s and %s compute no value of the same name", a.label, b.label);
        int k = rewired;
        if (k >= 0)
            session_error(s, "compare: %s and %s return different values: output %d is %s in %s and %s in %s, and both "
                          "models compute both", a.label, b.label, k, a.m->proto->graph->output[k]->name, a.label,
                          b.m->proto->graph->output[k]->name, b.label);
        rc = r.diverged || r.n_checked == 0 || k >= 0;
    } else if (!rc) {
        char seed[32];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)o.seed);
        fprintf(s->out, "compare: %s vs %s on %s%s%s: %zu value%s in both, %zu computed by both", a.label, b.label,
                o.inputs ? "the inputs of " : "random inputs (seed ", o.inputs ? o.inputs : seed, o.inputs ? "" : ")",
                r.n_matched, r.n_matched == 1 ? "" : "s", r.n_checked);
        if (r.n_only_a || r.n_only_b) fprintf(s->out, " (%zu only in %s, %zu only in %s)", r.n_only_a, a.label, r.n_only_b, b.label);
        fputc('\n', s->out);
        if (r.diverged) {
            report_divergence(s, &r, &a, &b, &o);
            session_error(s, "compare: %s and %s diverge at %s (%zu of %zu values differ)", a.label, b.label, r.name,
                          r.n_diverged, r.n_checked);
            rc = 1;
        } else if (r.n_checked == 0) {
            diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "compare: %s and %s compute no value of the same name",
                                        a.label, b.label);
            diag_set_hint(dg, "values are matched by name (the FX node names both exporters use); `verify %s %s` "
                              "compares the outputs by position", o.stages[0], o.stages[1]);
            rc = 1;
        } else if (rewired >= 0) {
            int k = rewired;
            const char *na = a.m->proto->graph->output[k]->name, *nb = b.m->proto->graph->output[k]->name;
            fprintf(s->out, "no divergence in values: all %zu within atol %g, rtol %g\n", r.n_checked, o.atol, o.rtol);
            diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "compare: %s and %s return different values: output %d is "
                                        "%s in %s and %s in %s, and both models compute both", a.label, b.label, k, na,
                                        a.label, nb, b.label);
            diag_set_hint(dg, "`node %s` and `node %s` show the two nodes; the model's outputs were rewired", na, nb);
            rc = 1;
        } else {
            fprintf(s->out, "no divergence: all %zu within atol %g, rtol %g (largest abs diff %.3g, at %s)\n", r.n_checked,
                    o.atol, o.rtol, r.max_abs, r.max_abs_name);
        }
    }
    view_compare_result_free(&r);
    run_pair_free(&pr);
    return rc;
}
