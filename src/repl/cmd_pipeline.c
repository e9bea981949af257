/* cmd_pipeline.c — the export pipeline one stage at a time: export, step, diff, set, ops.
 *
 * Stages run in order fx → exported → decomposed → onnx → optimized; a pass reads the stage
 * before it and never changes it, so a failure leaves every earlier stage inspectable. The
 * progress lines are the ones torch.onnx.export(..., dynamo=True, verbose=True) prints. */
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/json_write.h"
#include "base/shape.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_build.h"
#include "fx/fx_format.h"   /* fx_arg_print: the FX text of an argument tree */
#include "fx/fx_control.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_edit.h"
#include "onnx/onnx_ir.h"
#include "tables/aten_schemas.h"
#include "tables/ops.h"
#include "rewrite/control_flow.h"
#include "decompose/decompose.h"
#include "capture/export.h"
#include "optimize/optimize.h"
#include "rewrite/rewrite.h"
#include "translate/translate.h"
#include "repl/cmd_handlers.h"
#include "repl/settings.h"
#include "repl/tokenize.h"

enum { STAGE_FX_INDEX, STAGE_EXPORTED, STAGE_DECOMPOSED, STAGE_ONNX_INDEX, STAGE_OPTIMIZED };

static const char *const stage_titles[] = {
    NULL,   /* the capture line names the model, see capture_title() */
    "Run decompositions",
    "Translate the graph into ONNX",
    "Optimize the ONNX graph",
};

/* torch names the model by the first line of repr(model), with "[...]" when repr spans lines. */
static void capture_title(const stage *fx, strbuf *out)
{
    const fx_module *root = fx->fx->root;
    const char *cls = root && root->type ? root->type : "GraphModule";
    sb_printf(out, "Obtain model graph for `%s%s` with `torch.export.export(..., strict=False)`", cls,
              root && root->n_children ? "([...]" : "()");
}

static void progress(session *s, const export_settings *cfg, const char *title, const char *mark)
{
    if (!cfg->verbose || s->quiet) return;
    fprintf(s->out, "[torch.onnx] %s...%s%s\n", title, mark ? " " : "", mark ? mark : "");
    fflush(s->out);
}

static bool ensure_ops(session *s)
{
    if (s->ops) return true;
    ops_registry *r = xcalloc(1, sizeof *r);
    translate_registry_init(r);
    if (!ops_load_default(r, &s->diag)) {
        ops_registry_free(r);
        free(r);
        return false;
    }
    s->ops = r;
    return true;
}

/* Parses "x=f32[4,3],y=i64[2]" into export input declarations (arena-free: all malloc'd into
 * one block list freed by free_decls). */
typedef struct decls {
    export_input_decl *items;
    size_t len;
    char **strings;
    size_t nstrings;
} decls;

static void free_decls(decls *d)
{
    for (size_t i = 0; i < d->nstrings; i++) free(d->strings[i]);
    free(d->strings);
    for (size_t i = 0; i < d->len; i++) free((void *)d->items[i].dims);
    free(d->items);
    memset(d, 0, sizeof *d);
}

static char *keep(decls *d, char *s)
{
    d->strings = xrealloc(d->strings, (d->nstrings + 1) * sizeof *d->strings);
    d->strings[d->nstrings++] = s;
    return s;
}

static bool parse_inputs(const char *text, decls *out, diag_sink *diag)
{
    memset(out, 0, sizeof *out);
    if (!text) return true;
    char *copy = keep(out, xstrdup(text));
    for (char *save = NULL, *item = strtok_r(copy, ";, ", &save); item;) {
        /* commas also separate dims inside [...]: re-join until brackets balance */
        char *eq = strchr(item, '=');
        char *lb = eq ? strchr(eq, '[') : NULL;
        strbuf spec;
        sb_init(&spec);
        sb_puts(&spec, item);
        while (lb && !strchr(spec.s, ']')) {
            char *more = strtok_r(NULL, ";, ", &save);
            if (!more) break;
            sb_printf(&spec, ",%s", more);
        }
        char *s = keep(out, sb_detach(&spec));
        eq = strchr(s, '=');
        lb = eq ? strchr(eq, '[') : NULL;
        char *rb = lb ? strchr(lb, ']') : NULL;
        if (!eq || !lb || !rb || rb[1]) {
            diagnostic *dg = diag_error(diag, (diag_loc){0}, "inputs: cannot read '%s'", s);
            diag_set_hint(dg, "write NAME=DTYPE[DIMS], e.g. x=f32[4,3] (a dim may be a symbol: x=f32[batch,3])");
            free_decls(out);
            return false;
        }
        *eq = *lb = *rb = '\0';
        export_input_decl decl = {.name = s, .dtype = fx_dtype_from_abbr(eq + 1, strlen(eq + 1))};
        if (decl.dtype == FX_DT_UNKNOWN) decl.dtype = fx_dtype_from_torch_name(eq + 1, strlen(eq + 1));
        if (decl.dtype == FX_DT_UNKNOWN) {
            diag_error(diag, (diag_loc){0}, "inputs: unknown dtype '%s' for %s (use f32, i64, b8, ...)", eq + 1, s);
            free_decls(out);
            return false;
        }
        const char **dims = NULL;
        size_t rank = 0;
        for (char *save2 = NULL, *dim = strtok_r(lb + 1, ",", &save2); dim; dim = strtok_r(NULL, ",", &save2)) {
            dims = xrealloc(dims, (rank + 1) * sizeof *dims);
            dims[rank++] = dim;
        }
        char why[128];
        if (shape_text_problem(dims, rank, fx_dtype_get(decl.dtype)->elem_size, why, sizeof why)) {
            diagnostic *dg = diag_error(diag, (diag_loc){0}, "inputs: %s: %s", s, why);
            diag_set_hint(dg, "a size is a non-negative integer below 2^63, or a symbol for a dynamic one (x=f32[batch,3])");
            free(dims);
            free_decls(out);   /* what was kept so far */
            return false;
        }
        decl.dims = dims;
        decl.rank = rank;
        out->items = xrealloc(out->items, (out->len + 1) * sizeof *out->items);
        out->items[out->len++] = decl;
        item = strtok_r(NULL, ";, ", &save);
    }
    return true;
}

/* Applies the I/O settings torch applies after translation. */
static bool apply_io_settings(session *s, ox_model *m, const export_settings *cfg)
{
    Onnx__GraphProto *g = m->proto->graph;
    const char *lists[2] = {cfg->input_names, cfg->output_names};
    for (int which = 0; which < 2; which++) {
        if (!lists[which]) continue;
        char *copy = xstrdup(lists[which]);
        size_t i = 0, count = which == 0 ? g->n_input : g->n_output;
        for (char *save = NULL, *name = strtok_r(copy, ", ", &save); name; name = strtok_r(NULL, ", ", &save), i++) {
            if (i >= count) {
                session_error(s, "%s: more names than the model has %s (%zu)", which ? "output_names" : "input_names",
                              which ? "outputs" : "inputs", count);
                free(copy);
                return false;
            }
            const char *old = which == 0 ? g->input[i]->name : g->output[i]->name;
            if (strcmp(old, name) != 0) ox_rename_value(m, old, name);
        }
        free(copy);
    }
    const char *dyn[2] = {cfg->dynamic_shapes, cfg->dynamic_axes};
    for (int k = 0; k < 2; k++) {
        if (!dyn[k]) continue;
        char *copy = xstrdup(dyn[k]);
        for (char *save = NULL, *it = strtok_r(copy, ", ", &save); it; it = strtok_r(NULL, ", ", &save)) {
            char *colon = strchr(it, ':'), *eq = colon ? strchr(colon, '=') : NULL;
            if (!colon || !eq) {
                session_error(s, "%s: cannot read '%s' (write INPUT:AXIS=NAME, e.g. x:0=batch)",
                              k ? "dynamic_axes" : "dynamic_shapes", it);
                free(copy);
                return false;
            }
            *colon = *eq = '\0';
            if (!ox_set_input_dim_param(m, it, atoi(colon + 1), eq + 1)) {
                session_error(s, "%s: the model has no input %s with axis %s", k ? "dynamic_axes" : "dynamic_shapes",
                              it, colon + 1);
                free(copy);
                return false;
            }
        }
        free(copy);
    }
    return true;
}


/* `export --legacy script`: the TorchScript-based exporter turned every prim::If into an ONNX If
 * directly. Here each Python `if` becomes torch.cond (innermost first, branches returning an
 * input unchanged cloned), so the usual stages produce that If. Returns a new program. */
typedef struct if_names {
    const fx_program *p;
    VEC(char *) names;
} if_names;

/* The ifs on tensors: one decided by shapes or constants (a library check, `if self.training`)
 * is folded away by the TorchScript exporter's constant folding, as export specializes it. */
static void collect_if(const char *name, void *ctx)
{
    if_names *c = ctx;
    fx_node *n = fx_program_find_node(c->p, name);
    fx_control_view v;
    if (!n || fx_control_kind_of(n) != FX_CTRL_IF || !fx_control_inspect(n, &v)) return;
    const fx_node *cn = v.cond->kind == FX_ARG_NODE ? v.cond->u.node : NULL;
    const fx_value *cv = cn ? cn->meta.val : NULL;
    /* without meta (a branch fxsh could not follow): a tensor op's result is a tensor */
    bool tensor = cv ? cv->kind == FX_VAL_TENSOR
                     : cn && (cn->op == FX_OP_PLACEHOLDER ||
                              (!strncmp(cn->target, "torch.ops.aten.", 15) &&
                               strncmp(cn->target, "torch.ops.aten.sym_", 19) && strcmp(cn->target, "torch.ops.aten.dim.default")));
    if (tensor) vec_push(&c->names, xstrdup(name));
}

static size_t depth_of(const char *name)
{
    size_t d = 0;
    for (; *name; name++) d += *name == '.';
    return d;
}

static fx_program *script_ifs_to_cond(session *s, const fx_program *p)
{
    if_names c = {p, {0}};
    fx_each_node_name(p, collect_if, &c);
    fx_program *cur = fx_program_clone(p);
    /* deepest first: a branch may hold no Python `if` when its parent is rewritten */
    for (size_t pass = 0; cur && c.names.len; pass++) {
        size_t deepest = 0, at = 0;
        for (size_t i = 0; i < c.names.len; i++)
            if (depth_of(c.names.items[i]) >= deepest) {
                deepest = depth_of(c.names.items[i]);
                at = i;
            }
        fx_program *next = rewrite_if_to_cond_ex(cur, c.names.items[at], true, &s->diag);
        fx_program_free(cur);
        cur = next;
        free(c.names.items[at]);
        c.names.items[at] = c.names.items[--c.names.len];
    }
    for (size_t i = 0; i < c.names.len; i++) free(c.names.items[i]);
    vec_free(&c.names);
    return cur;
}

/* An example --input for placeholder q, from what the program says about it: the features a
 * Linear or a convolution it feeds expects (its weight's shape), else a 2-row float matrix. */
static void example_input(const fx_program *p, const fx_node *q, strbuf *out)
{
    for (size_t u = 0; u < q->n_users; u++) {
        const fx_node *n = q->users[u];
        const fx_arg *a = n->args;
        const fx_module *m = n->op == FX_OP_CALL_MODULE && n->target ? fx_module_find(p->root, n->target) : NULL;
        const char *feat = m && m->repr ? strstr(m->repr, "in_features=") : NULL;
        if (feat) {   /* Linear(in_features=8, ...) */
            sb_printf(out, "%s=f32[2,%d]", q->name, atoi(feat + 12));
            return;
        }
        if (m && m->type && m->repr && (!strcmp(m->type, "Conv2d") || !strcmp(m->type, "Conv1d"))) {
            const char *c = strchr(m->repr, '(');   /* Conv2d(3, 16, kernel_size=...) */
            sb_printf(out, "%s=f32[1,%d,32%s]", q->name, c ? atoi(c + 1) : 3, m->type[4] == '2' ? ",32" : "");
            return;
        }
        if (!n->target || !a || a->kind != FX_ARG_TUPLE || a->u.seq.len < 2) continue;
        const fx_arg *x = a->u.seq.items[0], *w = a->u.seq.items[1];
        if (x->kind != FX_ARG_NODE || x->u.node != q || w->kind != FX_ARG_NODE) continue;
        const fx_value *wv = w->u.node->meta.val;
        if (!wv || wv->kind != FX_VAL_TENSOR) continue;
        if (strstr(n->target, ".linear.") && wv->rank == 2) {
            sb_printf(out, "%s=f32[2,%s]", q->name, wv->sizes[1]);
            return;
        }
        if (strstr(n->target, ".conv2d.") && wv->rank == 4) {
            sb_printf(out, "%s=f32[1,%s,32,32]", q->name, wv->sizes[1]);
            return;
        }
        if (strstr(n->target, ".conv1d.") && wv->rank == 3) {
            sb_printf(out, "%s=f32[1,%s,32]", q->name, wv->sizes[1]);
            return;
        }
    }
    sb_printf(out, "%s=f32[2,4]", q->name);
}

/* torch.export traces the model on example inputs: an input of the loaded program without dtype
 * and shape (TorchScript or torch-level text loaded without --input, graph text without
 * annotations) is refused before anything runs; the hint is the `load` that was run with the
 * --input each missing one needs (an example shape built from the program). For a torch-level
 * graph `set inputs` (export inputs=...) declares them too. */
static bool inputs_declared(session *s, const stage *st, const export_settings *cfg)
{
    const fx_program *p = st->fx;
    const fx_graph *g = fx_program_graph(p);
    bool aten = fx_program_is_aten(p);
    diag_sink quiet;
    diag_init(&quiet);
    decls d;
    memset(&d, 0, sizeof d);
    if (!aten && !parse_inputs(cfg->inputs, &d, &quiet)) {
        /* a malformed `inputs` setting (a negative size, ...) is reported where export reads it */
        diag_free(&quiet);
        return true;
    }
    diag_free(&quiet);
    strbuf missing, flags;
    sb_init(&missing);
    sb_init(&flags);
    size_t n = 0;
    for (const fx_node *q = g ? g->first : NULL; q; q = q->next) {
        if (q->op != FX_OP_PLACEHOLDER) continue;
        bool user = true;
        if (p->sig.present) {
            user = false;
            for (size_t i = 0; i < p->sig.n_inputs; i++)
                if (p->sig.inputs[i].name && !strcmp(p->sig.inputs[i].name, q->name))
                    user = p->sig.inputs[i].kind == FX_IN_USER_INPUT;
        } else if (aten && strlen(q->name) > 2 && q->name[1] == '_' && strchr("pbc", q->name[0])) {
            user = false;   /* a lifted weight of graph text */
        }
        const fx_value *v = q->meta.val;
        if (!user || (v && (v->kind != FX_VAL_TENSOR || v->dtype != FX_DT_UNKNOWN))) continue;
        bool declared = false;
        for (size_t i = 0; i < d.len; i++) declared |= !strcmp(d.items[i].name, q->name);
        if (declared) continue;
        sb_printf(&missing, "%s%s", n ? ", " : "", q->name);
        sb_puts(&flags, " --input ");
        example_input(p, q, &flags);
        n++;
    }
    free_decls(&d);
    if (n) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "export: the input%s %s ha%s no dtype and shape (torch.export needs example inputs)",
                                    n == 1 ? "" : "s", missing.s, n == 1 ? "s" : "ve");
        if (s->load_command && !strncmp(s->load_command, "load ", 5))
            diag_set_hint(dg, "load it again with %s example shape%s (the sizes are an example): %s%s",
                          n == 1 ? "an" : "their", n == 1 ? "" : "s", s->load_command, flags.s);
        else
            diag_set_hint(dg, "load the program with %s example shape%s (the sizes are an example): load FILE%s",
                          n == 1 ? "an" : "their", n == 1 ? "" : "s", flags.s);
    }
    sb_free(&missing);
    sb_free(&flags);
    return n == 0;
}

/* torch.export of src (the loaded program, or what `export --legacy` made of it): returns the
 * ATen program, and in *spec the specialized copy it may borrow weight data from (free it after
 * the result). NULL after reporting; the partial graph torch prints on a data-dependent `if` goes
 * to report. */
static fx_program *capture_program(session *s, const fx_program *src, const export_settings *cfg, strbuf *report,
                                   fx_program **spec_out, bool legacy_script)
{
    *spec_out = NULL;
    /* a loop over a dimension marked dynamic fails as torch fails: it specializes it */
    cf_dynamic_dim dyn[16];
    char *dyn_text = cfg->dynamic_shapes ? xstrdup(cfg->dynamic_shapes) : NULL;
    control_flow_options cfo = {.dynamic = dyn, .keep_loops = legacy_script};
    for (char *save = NULL, *it = dyn_text ? strtok_r(dyn_text, ", ", &save) : NULL; it && cfo.n_dynamic < 16;
         it = strtok_r(NULL, ", ", &save)) {
        char *colon = strchr(it, ':'), *eq = colon ? strchr(colon, '=') : NULL;
        if (!colon || !eq) continue;   /* apply_io_settings reports the malformed entry */
        *colon = *eq = '\0';
        dyn[cfo.n_dynamic++] = (cf_dynamic_dim){it, atoi(colon + 1), eq + 1};
    }
    int failed = control_flow_export_check_ex(src, &cfo, &s->diag, report);
    fx_program *spec = failed ? NULL : control_flow_specialize_ex(src, &cfo, &s->diag);
    free(dyn_text);
    decls d;
    if (!spec || !parse_inputs(cfg->inputs, &d, &s->diag)) {
        if (spec) fx_program_free(spec);
        return NULL;
    }
    export_options eo = {.inputs = d.items, .n_inputs = d.len};
    fx_program *p = export_program(spec, &eo, &s->diag);
    free_decls(&d);
    if (!p) {
        fx_program_free(spec);
        return NULL;
    }
    *spec_out = spec;
    return p;
}

/* The capture stage (torch.export): Python control flow first — a data-dependent `if` fails as
 * torch.export fails (with the partial graph torch prints), a shape `if` is specialized, a
 * constant `for` unrolled — then the export proper. `traced` (export --legacy trace) replaces the
 * loaded program. Returns 0 or 1. */
static int run_capture(session *s, const stage *from, const export_settings *cfg, bool legacy_script,
                       fx_program *traced)
{
    fx_program *folded = legacy_script ? control_flow_fold_bool_ifs(from->fx, &s->diag) : NULL;
    fx_program *scripted = legacy_script ? script_ifs_to_cond(s, folded) : NULL;
    if (folded) fx_program_free(folded);
    if (legacy_script && !scripted)
        return 1;
    const fx_program *src = scripted ? scripted : traced ? traced : from->fx;   /* traced: ours from here */
    strbuf report;
    sb_init(&report);
    fx_program *spec;
    fx_program *p = capture_program(s, src, cfg, &report, &spec, legacy_script);
    if (scripted) fx_program_free(scripted);   /* spec is a copy; weights are borrowed from fx */
    if (report.len) {   /* torch's failure text is a diagnostic: stderr, after the progress lines before it */
        fflush(s->out);
        fwrite(report.s, 1, report.len, s->err);
        free(s->failure_text);
        s->failure_text = xstrdup(report.s);
    }
    sb_free(&report);
    if (!p) {
        if (traced) fx_program_free(traced);
        return 1;
    }
    session_set_fx(s, STAGE_EXPORTED, p, "export");
    s->stages[STAGE_EXPORTED].keepalive[0] = spec;     /* p may borrow weight data from it */
    s->stages[STAGE_EXPORTED].keepalive[1] = traced;   /* and spec from this one */
    return 0;
}

/* The translate stage, with the session's op registry and export options. Returns 0 or 1. */
/* A decomposed program translated with the settings, the I/O settings applied; NULL on error. */
static ox_model *translate_with(session *s, const fx_program *p, const export_settings *cfg)
{
    if (!ensure_ops(s))
        return NULL;
    translate_options to_opts;
    translate_options_init(&to_opts);
    to_opts.opset = cfg->opset_version;
    to_opts.registry = s->ops;
    to_opts.export_params = cfg->export_params;
    to_opts.keep_initializers_as_inputs = cfg->keep_initializers_as_inputs;
    ox_model *m = translate_program(p, &to_opts, &s->diag);
    if (m && !apply_io_settings(s, m, cfg)) {
        ox_model_free(m);
        m = NULL;
    }
    return m;
}

static int run_translate(session *s, const stage *from, const export_settings *cfg)
{
    ox_model *m = translate_with(s, from->fx, cfg);
    if (!m)
        return 1;
    session_set_onnx(s, STAGE_ONNX_INDEX, m, "translate");
    return 0;
}

/* The optimize stage, on a copy of the translated model. Returns 0 or 1. */
static int run_optimize(session *s, const stage *from, const export_settings *cfg)
{
    ox_model *m = ox_model_copy(from->onnx, &s->diag);
    optimize_options oo;
    optimize_options_default(&oo);
    oo.fold = cfg->do_constant_folding;
    if (!m || optimize_model(m, &oo, NULL, &s->diag) != 0) {
        if (m) ox_model_free(m);
        return 1;
    }
    session_set_onnx(s, STAGE_OPTIMIZED, m, "optimize");
    return 0;
}

/* torch.onnx's verdict lines for a stage that failed: the capture retried with strict=True (which
 * fails the same way), then the step's failure sentence, with a hint at the stages kept. */
static void report_stage_failure(session *s, int to, const export_settings *cfg, const char *title)
{
    if (to == STAGE_EXPORTED) {
        char *strict = strstr(title, "strict=False");
        if (strict) {
            strbuf retry;
            sb_init(&retry);
            sb_printf(&retry, "%.*sstrict=True%s", (int)(strict - title), title, strict + 12);
            progress(s, cfg, retry.s, NULL);
            progress(s, cfg, retry.s, "❌");
            sb_free(&retry);
        }
    }
    static const char *const step_text[] = {
        NULL,
        "Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.",
        "Failed to decompose the FX graph for ONNX compatibility. This is step 2/3 of exporting the model to ONNX.",
        "Failed to convert the exported program to an ONNX model. This is step 3/3 of exporting the model to ONNX.",
        "Failed to optimize the ONNX model.",
    };
    diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "%s", step_text[to]);
    diag_set_hint(dg, "the %s stage failed; earlier stages are kept: `stages`, `show %s`", session_stage_name(to),
                  session_stage_name(to - 1));
}

/* Runs the pass that makes stage `to` from stage `to - 1`; `traced` as run_capture takes it.
 * Returns 0 on success. */
static int run_stage(session *s, int to, const export_settings *cfg, bool legacy_script, fx_program *traced)
{
    stage *from = &s->stages[to - 1];
    int loaded = 0;
    while (loaded < SESSION_MAX_STAGES && s->stages[loaded].kind == STAGE_EMPTY) loaded++;
    if (to - 1 == loaded && from->kind == STAGE_FX && to <= STAGE_DECOMPOSED && !inputs_declared(s, from, cfg)) {
        if (traced) fx_program_free(traced);
        return 1;
    }
    /* The capture stage only runs on a program loaded at `fx` (torch-level FX text, TorchScript);
     * a torch.export program loads straight into `exported`, and torch prints no capture line
     * for it either. */
    strbuf title;
    sb_init(&title);
    if (to == STAGE_EXPORTED) capture_title(from, &title);
    else sb_puts(&title, stage_titles[to - 1]);
    progress(s, cfg, title.s, NULL);
    int rc = 0;
    switch (to) {
    case STAGE_EXPORTED:
        rc = run_capture(s, from, cfg, legacy_script, traced);
        break;
    case STAGE_DECOMPOSED: {
        fx_program *p = decompose_program(from->fx, DECOMP_ONNX, &s->diag);
        if (!p) rc = 1;
        else session_set_fx(s, to, p, "decompose (ONNX table)");
        break;
    }
    case STAGE_ONNX_INDEX:
        rc = run_translate(s, from, cfg);
        break;
    case STAGE_OPTIMIZED:
        rc = run_optimize(s, from, cfg);
        break;
    }
    if (rc && interrupt_pending()) {   /* cancelled: no verdict, the REPL says "interrupted" */
        sb_free(&title);
        return rc;
    }
    progress(s, cfg, title.s, rc ? "❌" : "✅");
    if (rc)
        report_stage_failure(s, to, cfg, title.s);
    sb_free(&title);
    return rc;
}

/* The ONNX model of stage `index` without changing the session: an ONNX stage's own model
 * (*owned false), or an FX stage decomposed (the exported one) and translated with the `set`
 * defaults, as `export` would make the onnx stage (*owned true: the caller frees it). */
ox_model *pipeline_stage_model(session *s, int index, const char *cmd, bool *owned)
{
    stage *st = &s->stages[index];
    *owned = false;
    if (st->kind == STAGE_ONNX) return st->onnx;
    if (st->kind == STAGE_EMPTY) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "%s: the %s stage is empty", cmd, st->name);
        diag_set_hint(dg, "`stages` lists what each holds; `export` or `step` fills them");
        return NULL;
    }
    if (index == STAGE_FX_INDEX) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "%s: the fx stage is a torch-level program, not yet exported", cmd);
        diag_set_hint(dg, "`step` (or `export`) makes the exported stage; then `%s exported`", cmd);
        return NULL;
    }
    fx_program *dec = NULL;
    const fx_program *src = st->fx;
    if (index == STAGE_EXPORTED) {
        dec = decompose_program(st->fx, DECOMP_ONNX, &s->diag);
        if (!dec) return NULL;
        src = dec;
    }
    ox_model *m = translate_with(s, src, &s->settings);
    if (dec) fx_program_free(dec);
    *owned = m != NULL;
    return m;
}

/* A program (a torch-level or TorchScript one, as the fx stage holds) through export, decompose
 * and translate with cfg, outside the session's stages; NULL after reporting (the messages of a
 * successful run, notes and warnings, are dropped: the caller's run is an internal one). */
ox_model *pipeline_program_model(session *s, const fx_program *p, const export_settings *cfg)
{
    diag_sink outer = s->diag;
    diag_init(&s->diag);
    strbuf report;
    sb_init(&report);
    fx_program *spec = NULL;
    fx_program *exp = capture_program(s, p, cfg, &report, &spec, false);
    fx_program *dec = exp ? decompose_program(exp, DECOMP_ONNX, &s->diag) : NULL;
    ox_model *m = dec ? translate_with(s, dec, cfg) : NULL;
    if (dec) fx_program_free(dec);
    if (exp) fx_program_free(exp);
    if (spec) fx_program_free(spec);
    sb_free(&report);
    diag_sink inner = s->diag;
    s->diag = outer;
    for (size_t i = 0; !m && i < inner.len; i++) {
        const diagnostic *x = &inner.items[i];
        if (x->severity != DIAG_ERROR) continue;
        diagnostic *y = diag_report(&s->diag, x->severity, (diag_loc){x->file, x->line, x->col}, "%s", x->message);
        if (x->hint) diag_set_hint(y, "%s", x->hint);
    }
    diag_free(&inner);
    return m;
}

/* The last stage holding something: where `step` continues from. */
static int last_filled(const session *s)
{
    for (int i = SESSION_MAX_STAGES - 1; i >= 0; i--)
        if (s->stages[i].kind != STAGE_EMPTY) return i;
    return -1;
}

/* After an export whose program has parameters or buffers without values (TorchScript or FX
 * text loaded without --weights): they became inputs of the ONNX model, which is rarely what
 * was meant, so say where the values come from. */
static void note_missing_weights(session *s)
{
    const fx_program *p = s->stages[STAGE_EXPORTED].fx;
    if (!p || !p->sig.present) return;
    strbuf names;
    sb_init(&names);
    size_t n = 0;
    for (size_t i = 0; i < p->sig.n_inputs; i++) {
        const fx_input_spec *in = &p->sig.inputs[i];
        if ((in->kind != FX_IN_PARAMETER && in->kind != FX_IN_BUFFER) || !in->target) continue;
        const fx_weight *w = fx_program_weight(p, in->target);
        if (w && w->data) continue;
        if (n < 4) sb_printf(&names, "%s%s", n ? ", " : "", in->target);
        n++;
    }
    if (n) {
        diagnostic *dg = diag_warning(&s->diag, (diag_loc){0},
                                   "%zu weight%s (%s%s) ha%s no values: the ONNX model takes them as inputs", n,
                                   n == 1 ? "" : "s", names.s, n > 4 ? ", ..." : "", n == 1 ? "s" : "ve");
        if (s->load_command && !strstr(s->load_command, " --weights "))
            diag_set_hint(dg, "give them when loading: %s --weights W (a .pt2, an .onnx or a .safetensors file)",
                          s->load_command);
    }
    sb_free(&names);
}

/* export [NAME=VALUE ...]: per-run overrides of the `set` defaults. */
/* What `export` was asked beyond settings: the legacy route, tracing's example inputs, a report. */
typedef struct export_request {
    bool legacy_script, legacy_trace;
    const char *trace_inputs;
    uint64_t trace_seed;
    const char *report_path;
} export_request;

/* export's arguments into *r and cfg (NAME=VALUE settings); false after reporting. */
static bool parse_export_args(session *s, int argc, char **argv, export_request *r, export_settings *cfg)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--report")) {
            if (i + 1 >= argc) {
                session_error(s, "export --report: which file? (export --report FILE.md)");
                return false;
            }
            r->report_path = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--legacy")) {
            const char *how = i + 1 < argc ? argv[++i] : "";
            if (!strcmp(how, "script") || !strcmp(how, "trace")) {
                r->legacy_script |= how[0] == 's';
                r->legacy_trace |= how[0] == 't';
                continue;
            }
            diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "export --legacy %s: expected `script` or `trace`", how);
            diag_set_hint(dg, "`export --legacy script` keeps Python control flow as ONNX If and Loop, as scripting did; "
                              "`export --legacy trace --inputs FILE` bakes in the branches the example inputs take");
            return false;
        }
        if (!strcmp(argv[i], "--inputs") || !strcmp(argv[i], "--seed")) {
            char *end = NULL;
            const char *v = i + 1 < argc ? argv[i + 1] : NULL;
            if (v && argv[i][2] == 's') r->trace_seed = strtoull(v, &end, 10);
            if (!v || (argv[i][2] == 's' && (!*v || *end || *v == '-'))) {
                session_error(s, "export: %s needs %s", argv[i], argv[i][2] == 's' ? "a non-negative integer" : "a file");
                return false;
            }
            if (argv[i][2] == 'i') r->trace_inputs = v;
            i++;
            continue;
        }
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            session_error(s, "export: expected NAME=VALUE, not '%s' (see `set` for the names)", argv[i]);
            return false;
        }
        *eq = '\0';
        bool ok = settings_set(cfg, argv[i], eq + 1, &s->diag);
        *eq = '=';
        if (!ok)
            return false;
    }
    if (r->legacy_script && r->legacy_trace) {
        session_error(s, "export: --legacy script or --legacy trace, not both");
        return false;
    }
    if ((r->trace_inputs || r->trace_seed) && !r->legacy_trace) {
        session_error(s, "export: --inputs and --seed give tracing its example inputs: use them with --legacy trace");
        return false;
    }
    return true;
}

/* torch.onnx's messages about the settings it adjusts or advises against (stderr, as torch). */
static void warn_export_settings(session *s, export_settings *cfg)
{
    fflush(s->out);   /* the warnings below go to stderr, after what was printed before */
    if (cfg->opset_version < 18) {
        fprintf(s->err,
                "Setting ONNX exporter to use operator set version 18 because the requested opset_version %d is a "
                "lower version than we have implementations for. Automatic version conversion will be performed, "
                "which may not be successful at converting to the requested version. If version conversion is "
                "unsuccessful, the opset version of the exported model will be kept at 18. Please consider setting "
                "opset_version >=18 to leverage latest ONNX features\n",
                cfg->opset_version);
        cfg->opset_version = 18;
    }
    if (cfg->dynamic_axes && !cfg->dynamic_shapes)
        fputs("UserWarning: # 'dynamic_axes' is not recommended when dynamo=True, and may lead to "
              "'torch._dynamo.exc.UserError: Constraints violated.' Supply the 'dynamic_shapes' argument instead if "
              "export is unsuccessful.\n",
              s->err);
}

int cmd_export(session *s, int argc, char **argv)
{
    int first = -1;
    for (int i = 0; i < SESSION_MAX_STAGES && first < 0; i++)
        if (s->stages[i].kind == STAGE_FX) first = i;
    if (first < 0 || first > STAGE_EXPORTED) {
        session_error(s, "export: no FX program loaded (load an FX graph or a .pt2 first)");
        return 1;
    }
    export_settings cfg;
    settings_copy(&cfg, &s->settings);
    export_request req = {0};
    if (!parse_export_args(s, argc, argv, &req, &cfg)) {
        settings_free(&cfg);
        return 1;
    }
    warn_export_settings(s, &cfg);
    /* tracing decides the Python ifs on tensors first, on the example inputs */
    fx_program *traced = NULL;
    if (req.legacy_trace && first == STAGE_FX_INDEX) {
        if (!inputs_declared(s, &s->stages[first], &cfg) ||
            !(traced = trace_program(s, s->stages[first].fx, &cfg, req.trace_inputs, req.trace_seed))) {
            settings_free(&cfg);
            return 1;
        }
    }
    /* Re-running replaces every later stage; keep the loaded program. The stages of the last
     * run are put aside, and come back if Ctrl-C cancels this one. */
    stage_stash stash;
    session_stash_stages(s, first + 1, &stash);
    int last = cfg.optimize ? STAGE_OPTIMIZED : STAGE_ONNX_INDEX;
    int rc = 0;
    export_report rep = {.cfg = cfg, .diag_mark = s->diag.len, .failed_stage = -1};
    char *line = tokens_join(argc, argv);
    rep.command = line;
    free(s->failure_text);
    s->failure_text = NULL;
    for (int to = first + 1; to <= last && !rc; to++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        rc = run_stage(s, to, &cfg, req.legacy_script, to == STAGE_EXPORTED ? traced : NULL);
        if (to == STAGE_EXPORTED) traced = NULL;   /* the stage keeps it (or freed it) */
        clock_gettime(CLOCK_MONOTONIC, &t1);
        rep.ms[to] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        rep.ran[to] = true;
        if (rc) rep.failed_stage = to;
    }
    if (traced) fx_program_free(traced);
    if (interrupt_pending()) {
        session_restore_stages(s, &stash);
        rc = 1;
    } else {
        session_drop_stash(&stash);
    }
    if (!rc && cfg.export_params) note_missing_weights(s);
    /* the report is written whether the run failed or not: the failure is what it is for */
    if (req.report_path && !interrupt_pending() && !report_write(s, req.report_path, &rep, rc)) rc = 1;
    free(line);
    settings_free(&cfg);
    return rc;
}

int cmd_step(session *s, int argc, char **argv)
{
    int k = last_filled(s);
    if (k < 0) {
        session_error(s, "step: nothing loaded");
        return 1;
    }
    if (k == STAGE_OPTIMIZED || (k == STAGE_ONNX_INDEX && !s->settings.optimize)) {
        session_error(s, "step: the pipeline is complete (the %s stage is the last)", session_stage_name(k));
        return 1;
    }
    if (s->stages[k].kind == STAGE_ONNX && k < STAGE_ONNX_INDEX) {
        session_error(s, "step: an ONNX model has no earlier stages to replay");
        return 1;
    }
    if (k == STAGE_ONNX_INDEX && s->stages[STAGE_DECOMPOSED].kind == STAGE_EMPTY && k == s->current &&
        s->stages[k].source && strcmp(s->stages[k].source, "translate") != 0) {
        /* a loaded ONNX model: the only step left is optimize */
    }
    return run_stage(s, k + 1, &s->settings, false, NULL);
}

int cmd_set(session *s, int argc, char **argv)
{
    if (argc == 1) {
        strbuf sb;
        sb_init(&sb);
        settings_print(&s->settings, &sb);
        session_write(s, sb.s, sb.len);
        sb_free(&sb);
        return 0;
    }
    /* `set NODE ARG=VALUE` edits the graph; settings have fixed names that nodes rarely take. */
    stage *st = session_current(s);
    if (argc == 3 && strchr(argv[2], '=') && st && st->kind == STAGE_FX &&
        (argv[1][0] == '%' || fx_program_find_node(st->fx, argv[1])))
        return cmd_set_node(s, argc, argv);
    char *name = argv[1], *value = argc > 2 ? argv[2] : NULL, *eq = strchr(name, '=');
    if (eq && !value) {
        *eq = '\0';
        value = eq + 1;
    }
    if (!value) {
        session_error(s, "set: %s needs a value (set NAME VALUE, or set NAME=VALUE)", name);
        return 1;
    }
    return settings_set(&s->settings, name, value, &s->diag) ? 0 : 1;
}

int cmd_ops(session *s, int argc, char **argv)
{
    if (!ensure_ops(s)) return 1;
    strbuf sb;
    sb_init(&sb);
    int rc = 0;
    if (argc == 1) {
        ops_print_list(s->ops, &sb);
    } else if (!strcmp(argv[1], "show") && argc == 3) {
        if (!ops_print_rule(s->ops, argv[2], &sb)) {
            diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "ops show: no rule for %s", argv[2]);
            const char *schema = aten_schemas_lookup(argv[2], NULL);
            if (schema)
                diag_set_hint(dg, "torch's schema: %s\n`ops` lists the covered targets; `ops load FILE` adds rules", schema);
            else
                diag_set_hint(dg, "`ops` lists the covered targets; `ops load FILE` adds rules");
            rc = 1;
        }
    } else if (!strcmp(argv[1], "load") && argc == 3) {
        if (!ops_load_file(s->ops, argv[2], &s->diag)) rc = 1;
        else sb_printf(&sb, "loaded rules from %s\n", argv[2]);
    } else {
        session_error(s, "ops: usage: ops | ops show TARGET | ops load FILE");
        rc = 1;
    }
    session_write(s, sb.s, sb.len);
    sb_free(&sb);
    return rc;
}

/*==== diff ====*/

/* Node identity across stages: FX node name; ONNX node name with the exporter's "node_" prefix
 * removed, so that an FX node and the ONNX node translated from it line up. */
typedef struct diff_entry {
    char *key;
    char *desc;     /* what is compared: target+args text, or op type + inputs */
} diff_entry;

typedef VEC(diff_entry) diff_list;

static void add_entry(diff_list *l, const char *key, const char *desc)
{
    diff_entry e = {xstrdup(key), xstrdup(desc)};
    vec_push(l, e);
}

static void collect_fx(const fx_program *p, diff_list *l)
{
    strbuf desc;
    sb_init(&desc);
    for (const fx_node *n = fx_program_graph(p)->first; n; n = n->next) {
        sb_reset(&desc);
        sb_printf(&desc, "%s %s", fx_opcode_name(n->op), n->target ? n->target : "");
        if (n->args) {
            sb_putc(&desc, ' ');
            fx_arg_print(&desc, n->args, FXA_FX);
        }
        add_entry(l, n->name, desc.s);
    }
    sb_free(&desc);
}

static void collect_onnx(const ox_model *m, diff_list *l)
{
    const Onnx__GraphProto *g = m->proto->graph;
    strbuf desc, key;
    sb_init(&desc);
    sb_init(&key);
    for (size_t i = 0; g && i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        sb_reset(&desc);
        sb_reset(&key);
        const char *name = n->name && n->name[0] ? n->name : (n->n_output ? n->output[0] : "");
        sb_puts(&key, strncmp(name, "node_", 5) == 0 ? name + 5 : name);
        sb_printf(&desc, "%s%s%s(", n->domain && n->domain[0] ? n->domain : "", n->domain && n->domain[0] ? "." : "",
                  n->op_type);
        for (size_t k = 0; k < n->n_input; k++) sb_printf(&desc, "%s%s", k ? ", " : "", n->input[k]);
        sb_puts(&desc, ")");
        add_entry(l, key.s, desc.s);
    }
    sb_free(&desc);
    sb_free(&key);
}

static void collect_stage(const stage *st, diff_list *l)
{
    if (st->kind == STAGE_FX) collect_fx(st->fx, l);
    else if (st->kind == STAGE_ONNX) collect_onnx(st->onnx, l);
}

static void free_list(diff_list *l)
{
    for (size_t i = 0; i < l->len; i++) {
        free(l->items[i].key);
        free(l->items[i].desc);
    }
    vec_free(l);
}

/* One diff entry, as text ("- key  desc") or as a JSON object. */
static void diff_line(session *s, json_writer *w, char mark, const diff_entry *e, const diff_entry *old)
{
    if (w) {
        jw_object(w);
        jw_kstring(w, "name", e->key);
        if (old) {
            jw_kstring(w, "from", old->desc);
            jw_kstring(w, "to", e->desc);
        } else {
            jw_kstring(w, "desc", e->desc);
        }
        jw_object_end(w);
    } else if (old) {
        fprintf(s->out, "~ %s  %s\n      -> %s\n", e->key, old->desc, e->desc);
    } else {
        fprintf(s->out, "%c %s  %s\n", mark, e->key, e->desc);
    }
}

int cmd_diff(session *s, int argc, char **argv)
{
    bool json;
    if (!json_option(s, &argc, argv, 2, &json)) return 1;
    if (argc < 3) {
        session_error(s, "diff: which stages? (usage: diff STAGE STAGE [--json])");
        return 1;
    }
    const stage *st[2];
    for (int i = 0; i < 2; i++) {
        int idx = session_stage_index(argv[i + 1]);
        if (idx < 0) {
            session_error(s, "diff: no stage named '%s' (fx exported decomposed onnx optimized)", argv[i + 1]);
            return 1;
        }
        st[i] = &s->stages[idx];
        if (st[i]->kind == STAGE_EMPTY) {
            session_error(s, "diff: the %s stage is empty", argv[i + 1]);
            return 1;
        }
    }
    diff_list a = {0}, b = {0};
    collect_stage(st[0], &a);
    collect_stage(st[1], &b);
    hashmap in_a, in_b;
    hm_init(&in_a);
    hm_init(&in_b);
    for (size_t i = 0; i < a.len; i++) hm_put(&in_a, a.items[i].key, &a.items[i]);
    for (size_t i = 0; i < b.len; i++) hm_put(&in_b, b.items[i].key, &b.items[i]);
    size_t added = 0, removed = 0, changed = 0;
    bool comparable = st[0]->kind == st[1]->kind;
    strbuf js;
    sb_init(&js);
    json_writer jw, *w = json ? &jw : NULL;
    if (w) {
        jw_init(w, &js);
        jw_object(w);
        jw_kint(w, "fxsh", JSON_SCHEMA_VERSION);
        jw_kstring(w, "command", "diff");
        jw_kstring(w, "from", st[0]->name);
        jw_kstring(w, "to", st[1]->name);
        jw_key(w, "removed");
        jw_array(w);
    }
    for (size_t i = 0; i < a.len; i++)
        if (!hm_has(&in_b, a.items[i].key)) {
            diff_line(s, w, '-', &a.items[i], NULL);
            removed++;
        }
    /* text: the second stage's nodes in order, added (+) and changed (~) as they come; JSON:
     * the added ones, then the changed ones */
    for (int pass = 0; pass < (w ? 2 : 1); pass++) {
        if (w) {
            jw_array_end(w);
            jw_key(w, pass ? "changed" : "added");
            jw_array(w);
        }
        for (size_t i = 0; i < b.len; i++) {
            const diff_entry *old = hm_get(&in_a, b.items[i].key);
            if (!old && (!w || pass == 0)) {
                diff_line(s, w, '+', &b.items[i], NULL);
                added++;
            } else if (old && comparable && strcmp(old->desc, b.items[i].desc) != 0 && (!w || pass == 1)) {
                diff_line(s, w, '~', &b.items[i], old);
                changed++;
            }
        }
    }
    if (w) {
        jw_array_end(w);
        jw_key(w, "nodes");
        jw_array(w);
        jw_uint(w, a.len);
        jw_uint(w, b.len);
        jw_array_end(w);
        jw_object_end(w);
        sb_putc(&js, '\n');
        session_write(s, js.s, js.len);
    } else {
        fprintf(s->out, "%s -> %s: %zu added, %zu removed, %zu changed (%zu -> %zu nodes)\n", st[0]->name,
                st[1]->name, added, removed, changed, a.len, b.len);
    }
    sb_free(&js);
    hm_free(&in_a);
    hm_free(&in_b);
    free_list(&a);
    free_list(&b);
    return 0;
}
