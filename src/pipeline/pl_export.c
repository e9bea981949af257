/* pl_export.c — torch.onnx.export(..., dynamo=True) stage by stage: capture (torch.export, with
 * the Python control flow it cannot capture checked first), decompose, translate, optimize.
 *
 * A pass reads the stage before it and never changes it, so a failure leaves every earlier stage
 * inspectable. The progress lines are the ones torch.onnx.export(..., verbose=True) prints. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/interrupt.h"
#include "base/shape.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_build.h"
#include "fx/fx_control.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_edit.h"
#include "onnx/onnx_ir.h"
#include "tables/ops.h"
#include "meta/meta_infer.h"
#include "meta/meta_rules.h"
#include "capture/export.h"
#include "decompose/decompose.h"
#include "translate/translate.h"
#include "optimize/optimize.h"
#include "rewrite/control_flow.h"
#include "rewrite/rewrite.h"
#include "pipeline/dyn_spec.h"
#include "pipeline/pipeline.h"

static const char *const stage_titles[] = {
    NULL,   /* the capture line names the model, see capture_title() */
    "Run decompositions",
    "Translate the graph into ONNX",
    "Optimize the ONNX graph",
};

/* torch names the model by the first line of repr(model), with "[...]" when repr spans lines. */
static void capture_title(const pl_stage *fx, strbuf *out)
{
    const fx_module *root = fx->fx->root;
    const char *cls = root && root->type ? root->type : "GraphModule";
    sb_printf(out, "Obtain model graph for `%s%s` with `torch.export.export(..., strict=False)`", cls,
              root && root->n_children ? "([...]" : "()");
}

static void progress(pl_env *env, const export_settings *cfg, const char *title, const char *mark)
{
    if (!cfg->verbose || !env->print) return;
    strbuf line;
    sb_init(&line);
    sb_printf(&line, "[torch.onnx] %s...%s%s\n", title, mark ? " " : "", mark ? mark : "");
    env->print(env->print_ctx, PL_PRINT_PROGRESS, line.s);
    sb_free(&line);
}

bool pl_ensure_ops(pl_env *env)
{
    if (*env->ops) return true;
    ops_registry *r = xcalloc(1, sizeof *r);
    translate_registry_init(r);   /* a builtin: naming no C lowering fails at load */
    if (!ops_load_default(r, env->diag)) {
        ops_registry_free(r);
        free(r);
        return false;
    }
    *env->ops = r;
    return true;
}

void pl_free_ops(struct ops_registry *ops)
{
    if (!ops) return;
    ops_registry_free(ops);
    free(ops);
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
static bool apply_io_settings(pl_env *env, ox_model *m, const export_settings *cfg)
{
    Onnx__GraphProto *g = m->proto->graph;
    const char *lists[2] = {cfg->input_names, cfg->output_names};
    for (int which = 0; which < 2; which++) {
        if (!lists[which]) continue;
        char *copy = xstrdup(lists[which]);
        size_t i = 0, count = which == 0 ? g->n_input : g->n_output;
        for (char *save = NULL, *name = strtok_r(copy, ", ", &save); name; name = strtok_r(NULL, ", ", &save), i++) {
            if (i >= count) {
                diag_error(env->diag, (diag_loc){0}, "%s: more names than the model has %s (%zu)", which ? "output_names" : "input_names",
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
        dyn_spec spec;
        char why[300];
        if (!dyn_spec_parse(dyn[k], &spec, why, sizeof why)) {
            diagnostic *dg = diag_error(env->diag, (diag_loc){0}, "%s: %s", k ? "dynamic_axes" : "dynamic_shapes", why);
            diag_set_hint(dg, "write INPUT:AXIS=SPEC items, e.g. x:0=batch, x:0=Dim('batch', min=2, max=64), x:1=AUTO");
            return false;
        }
        for (size_t i = 0; i < spec.n; i++) {
            const dyn_spec_item *it = &spec.items[i];
            /* AUTO and DYNAMIC dimensions carry the names capture gave them, or were pinned; a
             * derived one is named by its expression ("2*dx"), as torch.onnx names it */
            if (it->kind != DYN_NAMED && it->kind != DYN_DERIVED) continue;
            if (!ox_set_input_dim_param(m, it->input, it->axis, it->name)) {
                diag_error(env->diag, (diag_loc){0}, "%s: the model has no input %s with axis %d", k ? "dynamic_axes" : "dynamic_shapes",
                           it->input, it->axis);
                dyn_spec_free(&spec);
                return false;
            }
        }
        dyn_spec_free(&spec);
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

static fx_program *script_ifs_to_cond(pl_env *env, const fx_program *p)
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
        /* scripting made each prim::If an ONNX If directly: the torch.cond rewrite (and the
         * clone it adds to a branch returning its input) is fxsh's route, not news to report */
        diag_sink own;
        diag_init(&own);
        fx_program *next = rewrite_if_to_cond_ex(cur, c.names.items[at], true, &own);
        for (size_t i = 0; i < own.len; i++) {
            const diagnostic *x = &own.items[i];
            if (x->severity == DIAG_NOTE) continue;
            diagnostic *y = diag_report(env->diag, x->severity, (diag_loc){x->file, x->line, x->col}, "%s", x->message);
            if (x->hint) diag_set_hint(y, "%s", x->hint);
        }
        diag_free(&own);
        fx_program_free(cur);
        cur = next;
        free(c.names.items[at]);
        c.names.items[at] = c.names.items[--c.names.len];
    }
    for (size_t i = 0; i < c.names.len; i++) free(c.names.items[i]);
    vec_free(&c.names);
    return cur;
}

/* Whether placeholder n of p is a user input (not a lifted weight). */
static bool user_input(const fx_program *p, const fx_node *n)
{
    if (!p->sig.present)
        return !(strlen(n->name) > 2 && n->name[1] == '_' && strchr("pbc", n->name[0]));
    for (size_t i = 0; i < p->sig.n_inputs; i++)
        if (p->sig.inputs[i].name && !strcmp(p->sig.inputs[i].name, n->name))
            return p->sig.inputs[i].kind == FX_IN_USER_INPUT;
    return true;
}

/* Whether p reads weights (lifted placeholders, module calls, attributes, a weights table): then
 * its weights may give an input's size. */
static bool reads_weights(const fx_program *p)
{
    if (p->n_weights) return true;
    const fx_graph *g = fx_program_graph(p);
    for (const fx_node *n = g ? g->first : NULL; n; n = n->next) {
        if (n->op == FX_OP_CALL_MODULE || (n->op == FX_OP_GET_ATTR && !fx_module_find(p->root, n->target)))
            return true;
        if (n->op == FX_OP_PLACEHOLDER && !user_input(p, n)) return true;
    }
    return false;
}

/* An example --input for placeholder q, from what the program says about it: the features a
 * Linear or a convolution it feeds expects (its weight's shape). False when the program does not
 * say (no weights, no module settings): a size made up here would be followed literally. */
static bool example_input(const fx_program *p, const fx_node *q, strbuf *out)
{
    for (size_t u = 0; u < q->n_users; u++) {
        const fx_node *n = q->users[u];
        const fx_arg *a = n->args;
        const fx_module *m = n->op == FX_OP_CALL_MODULE && n->target ? fx_module_find(p->root, n->target) : NULL;
        const char *feat = m && m->repr ? strstr(m->repr, "in_features=") : NULL;
        if (feat) {   /* Linear(in_features=8, ...) */
            sb_printf(out, "%s=f32[2,%d]", q->name, atoi(feat + 12));
            return true;
        }
        if (m && m->type && m->repr && (!strcmp(m->type, "Conv2d") || !strcmp(m->type, "Conv1d"))) {
            const char *c = strchr(m->repr, '(');   /* Conv2d(3, 16, kernel_size=...) */
            sb_printf(out, "%s=f32[1,%d,32%s]", q->name, c ? atoi(c + 1) : 3, m->type[4] == '2' ? ",32" : "");
            return true;
        }
        if (!n->target || !a || a->kind != FX_ARG_TUPLE || a->u.seq.len < 2) continue;
        const fx_arg *x = a->u.seq.items[0], *w = a->u.seq.items[1];
        if (x->kind != FX_ARG_NODE || x->u.node != q || w->kind != FX_ARG_NODE) continue;
        const fx_value *wv = w->u.node->meta.val;
        if (!wv || wv->kind != FX_VAL_TENSOR) continue;
        if (strstr(n->target, ".linear.") && wv->rank == 2) {
            sb_printf(out, "%s=f32[2,%s]", q->name, wv->sizes[1]);
            return true;
        }
        if (strstr(n->target, ".conv2d.") && wv->rank == 4) {
            sb_printf(out, "%s=f32[1,%s,32,32]", q->name, wv->sizes[1]);
            return true;
        }
        if (strstr(n->target, ".conv1d.") && wv->rank == 3) {
            sb_printf(out, "%s=f32[1,%s,32]", q->name, wv->sizes[1]);
            return true;
        }
    }
    return false;
}

/* torch.export traces the model on example inputs: an input of the loaded program without dtype
 * and shape (TorchScript or torch-level text loaded without --input, graph text without
 * annotations) is refused before anything runs; the hint is the `load` that was run with the
 * --input each missing one needs (an example shape built from the program). For a torch-level
 * graph `set inputs` (export inputs=...) declares them too. */
bool pl_inputs_declared(const pl_stage *st, const export_settings *cfg, pl_env *env)
{
    const fx_program *p = st->fx;
    const fx_graph *g = fx_program_graph(p);
    bool aten = fx_program_is_aten(p);
    diag_sink quiet;
    diag_init(&quiet);
    decls d;
    memset(&d, 0, sizeof d);
    if (!parse_inputs(cfg->inputs, &d, &quiet)) {
        /* a malformed `inputs` setting (a negative size, ...) is reported where export reads it */
        diag_free(&quiet);
        return true;
    }
    diag_free(&quiet);
    /* a setting that names no input is the mistake to report, not the inputs it left unset */
    for (size_t i = 0; i < d.len; i++) {
        const fx_node *q = g ? fx_graph_lookup(g, d.items[i].name) : NULL;
        if (q && q->op == FX_OP_PLACEHOLDER && (aten ? user_input(p, q) : true)) continue;
        strbuf names;
        sb_init(&names);
        for (const fx_node *r = g ? g->first : NULL; r; r = r->next)
            if (r->op == FX_OP_PLACEHOLDER && (!aten || user_input(p, r)))
                sb_printf(&names, "%s%s", names.len ? ", " : "", r->name);
        diagnostic *dg = diag_error(env->diag, (diag_loc){0}, "inputs: the program has no input '%s' (its inputs: %s)",
                                    d.items[i].name, names.len ? names.s : "none");
        diag_set_hint(dg, "declare each input by the name forward() gives it");
        sb_free(&names);
        free_decls(&d);
        return false;
    }
    strbuf missing, flags, unknown;
    sb_init(&missing);
    sb_init(&flags);
    sb_init(&unknown);
    size_t n = 0, n_unknown = 0;
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
        size_t mark = flags.len;
        sb_puts(&flags, " --input ");
        if (!example_input(p, q, &flags)) {
            flags.len = mark;
            flags.s[mark] = '\0';
            sb_printf(&flags, " --input %s=DTYPE[SIZES]", q->name);
            sb_printf(&unknown, "%s%s", n_unknown++ ? ", " : "", q->name);
        }
        n++;
    }
    free_decls(&d);
    if (n) {
        diagnostic *dg = diag_error(env->diag, (diag_loc){0}, "export: the input%s %s ha%s no dtype and shape (torch.export needs example inputs)",
                                    n == 1 ? "" : "s", missing.s, n == 1 ? "s" : "ve");
        const char *how = env->load_command && !strncmp(env->load_command, "load ", 5) ? env->load_command : NULL;
        if (n_unknown && !reads_weights(p))   /* nothing else could say it: the example itself */
            diag_set_hint(dg, "the program does not say which size%s %s take%s: load it with the shape%s of its example "
                          "input%s (the model's io.json): %s%s", n_unknown == 1 ? "" : "s", unknown.s,
                          n_unknown == 1 ? "s" : "", n_unknown == 1 ? "" : "s", n_unknown == 1 ? "" : "s",
                          how ? how : "load FILE", flags.s);
        else if (n_unknown)   /* say what is unknown and where it comes from, never a made-up size */
            diag_set_hint(dg, "the program does not say which size%s %s take%s: load it with the model's weights (they "
                          "give the sizes its layers expect), or with the shape%s of its example input%s (the "
                          "model's io.json): %s%s%s", n_unknown == 1 ? "" : "s", unknown.s,
                          n_unknown == 1 ? "s" : "", n_unknown == 1 ? "" : "s", n_unknown == 1 ? "" : "s",
                          how ? how : "load FILE", strstr(how ? how : "", " --weights ") ? "" : " --weights W", flags.s);
        else if (how)
            diag_set_hint(dg, "load it again with %s example shape%s (the sizes are an example): %s%s",
                          n == 1 ? "an" : "their", n == 1 ? "" : "s", how, flags.s);
        else
            diag_set_hint(dg, "load the program with %s example shape%s (the sizes are an example): load FILE%s",
                          n == 1 ? "an" : "their", n == 1 ? "" : "s", flags.s);
    }
    sb_free(&missing);
    sb_free(&flags);
    sb_free(&unknown);
    return n == 0;
}

/* The weights a program reads, for weights_bound: each one's name, whether it has values and
 * whether it has a dtype and shape. */
typedef struct weight_gaps {
    const fx_program *p;
    strbuf no_values, no_type;
    size_t n_no_values, n_no_type;
} weight_gaps;

static void add_gap(strbuf *sb, size_t *n, const char *name)
{
    if (*n < 4) sb_printf(sb, "%s%s", *n ? ", " : "", name);
    else if (*n == 4) sb_puts(sb, ", ...");
    (*n)++;
}

static void gap(weight_gaps *g, const char *name, bool has_values, bool has_type)
{
    if (!has_values) add_gap(&g->no_values, &g->n_no_values, name);
    if (!has_type) add_gap(&g->no_type, &g->n_no_type, name);
}

static void torch_level_weight(const char *fqn, void *ctx)
{
    weight_gaps *g = ctx;
    const fx_weight *w = fx_program_weight(g->p, fqn);
    /* export gives a module's weights the shapes its settings say (Linear(in_features=...)) */
    gap(g, fqn, w && w->data, true);
}

/* Drops the value meta of every node but the root graph's placeholders, in m and below. */
static void forget_meta(fx_module *m, bool root)
{
    for (fx_node *n = m->graph ? m->graph->first : NULL; n; n = n->next)
        if (!root || n->op != FX_OP_PLACEHOLDER) n->meta.val = NULL;
    for (fx_module *c = m->first_child; c; c = c->next_sibling) forget_meta(c, false);
}

static bool same_decl(const fx_value *v, const export_input_decl *d)
{
    if (!v || v->kind != FX_VAL_TENSOR || v->dtype != d->dtype || v->rank != d->rank) return false;
    for (size_t k = 0; k < d->rank; k++)
        if (strcmp(v->sizes[k], d->dims[k])) return false;
    return true;
}

/* `set inputs` / `export inputs=...` on a program already in ATen (TorchScript, graph text): the
 * declared example inputs replace those given at load, and the value meta is inferred again from
 * them, as torch.export traces again on other examples (a torch-level program takes them in
 * export itself). NULL when nothing changes, or after reporting (*failed). */
static fx_program *redeclare_inputs(pl_env *env, const fx_program *src, const export_settings *cfg, bool *failed)
{
    *failed = false;
    if (!cfg->inputs || !fx_program_is_aten(src)) return NULL;
    decls d;
    if (!parse_inputs(cfg->inputs, &d, env->diag)) {
        *failed = true;
        return NULL;
    }
    const fx_graph *sg = fx_program_graph(src);
    bool changed = false;
    for (size_t i = 0; i < d.len && !*failed; i++) {
        const fx_node *n = sg ? fx_graph_lookup(sg, d.items[i].name) : NULL;
        if (!n || n->op != FX_OP_PLACEHOLDER || !user_input(src, n)) {
            strbuf names;
            sb_init(&names);
            for (const fx_node *q = sg ? sg->first : NULL; q; q = q->next)
                if (q->op == FX_OP_PLACEHOLDER && user_input(src, q)) sb_printf(&names, "%s%s", names.len ? ", " : "", q->name);
            diagnostic *dg = diag_error(env->diag, (diag_loc){0}, "inputs: the program has no input '%s' (its inputs: %s)",
                                        d.items[i].name, names.len ? names.s : "none");
            diag_set_hint(dg, "declare each input by the name forward() gives it");
            sb_free(&names);
            *failed = true;
        }
        changed |= n && !same_decl(n->meta.val, &d.items[i]);
    }
    fx_program *c = NULL;
    if (!*failed && changed) {
        c = fx_program_copy(src);
        fx_graph *g = fx_program_graph(c);
        for (size_t i = 0; i < d.len; i++) {
            fx_node *n = fx_graph_lookup(g, d.items[i].name);
            fx_value *v = fx_value_new(c, FX_VAL_TENSOR);
            v->dtype = d.items[i].dtype;
            v->rank = d.items[i].rank;
            v->sizes = fx_alloc(c, (v->rank ? v->rank : 1) * sizeof *v->sizes);
            for (size_t k = 0; k < v->rank; k++) v->sizes[k] = fx_strdup(c, d.items[i].dims[k]);
            v->device = "cpu";
            n->meta.val = v;
        }
        forget_meta(c->root, true);
    }
    free_decls(&d);
    return c;
}

/* Whether a node of p that gives a value has no value meta: graph text of an exported program
 * without annotations, whose shapes follow from the example inputs. */
static bool lacks_meta(const fx_program *p)
{
    const fx_graph *g = fx_program_graph(p);
    for (const fx_node *n = g ? g->first : NULL; n; n = n->next)
        if (n->op == FX_OP_CALL_FUNCTION && n->n_users && !n->meta.val) return true;
    return false;
}

/* The value meta of an exported program loaded without it, inferred strictly, as torch.export's
 * fake tensors would have run on the example inputs: an op that rejects its arguments (a
 * negative kernel size, a softmax dim out of range) is an error at its node, not a shape left
 * unknown for a later stage to trip on. p is the caller's copy; false after reporting. */
static bool infer_loaded_meta(pl_env *env, fx_program *p)
{
    const meta_rules *rules = meta_rules_shipped(env->diag);
    if (!rules) return false;
    /* only the errors: what fxsh cannot infer (an op without a rule) was noted at load, and the
     * stage that needs the value reports it */
    diag_sink quiet;
    diag_init(&quiet);
    bool ok = meta_infer_program_strict(p, rules, &quiet);
    for (size_t i = 0; i < quiet.len; i++) {
        const diagnostic *dg = &quiet.items[i];
        if (dg->severity != DIAG_ERROR) continue;
        diagnostic *out = diag_report(env->diag, DIAG_ERROR, (diag_loc){dg->file, dg->line, dg->col}, "%s", dg->message);
        if (dg->hint) diag_set_hint(out, "%s", dg->hint);
    }
    diag_free(&quiet);
    return ok;
}

/* torch.onnx.export exports an nn.Module, whose weights always have values: a program loaded
 * without them (graph text, TorchScript or torch-level text without --weights) is refused before
 * anything runs, rather than giving an ONNX model whose weights are untyped inputs (that `save`
 * and `check` refuse) or inputs nobody means. export_params=False is torch's way to make them
 * inputs of the model; even then each needs its dtype and shape. */
static bool weights_bound(const pl_stage *st, const export_settings *cfg, pl_env *env)
{
    const fx_program *p = st->fx;
    const fx_graph *g = fx_program_graph(p);
    weight_gaps gp = {.p = p};
    sb_init(&gp.no_values);
    sb_init(&gp.no_type);
    if (p->sig.present) {
        for (size_t i = 0; i < p->sig.n_inputs; i++) {
            const fx_input_spec *in = &p->sig.inputs[i];
            if (in->kind != FX_IN_PARAMETER && in->kind != FX_IN_BUFFER && in->kind != FX_IN_CONSTANT_TENSOR) continue;
            const fx_node *n = g ? fx_graph_lookup(g, in->name) : NULL;
            if (!n || !n->n_users) continue;   /* torch drops unused weights */
            const fx_weight *w = in->target ? fx_program_weight(p, in->target) : NULL;
            const fx_value *v = n->meta.val;
            bool typed = (v && v->kind == FX_VAL_TENSOR && v->dtype != FX_DT_UNKNOWN) || (w && w->dtype != FX_DT_UNKNOWN);
            gap(&gp, in->target ? in->target : in->name, w && w->data, typed);
        }
    } else if (fx_program_is_aten(p)) {
        /* graph text of an exported program loaded without --weights: its p_/b_/c_ placeholders */
        for (const fx_node *n = g ? g->first : NULL; n; n = n->next) {
            if (n->op != FX_OP_PLACEHOLDER || strlen(n->name) < 3 || n->name[1] != '_' || !strchr("pbc", n->name[0]))
                continue;
            const fx_value *v = n->meta.val;
            gap(&gp, n->name, false, v && v->kind == FX_VAL_TENSOR && v->dtype != FX_DT_UNKNOWN);
        }
    } else {
        diag_sink quiet;   /* a table that does not load is reported where export loads it */
        diag_init(&quiet);
        export_weight_names(p, torch_level_weight, &gp, &quiet);
        diag_free(&quiet);
    }
    bool ok = true;
    const char *how = env->load_command && !strncmp(env->load_command, "load ", 5) ? env->load_command : "load FILE";
    if (gp.n_no_type) {
        diagnostic *dg = diag_error(env->diag, (diag_loc){0},
                                    "export: %zu weight%s (%s) ha%s no dtype and shape: the program does not say what "
                                    "they are, so no ONNX model can declare them", gp.n_no_type,
                                    gp.n_no_type == 1 ? "" : "s", gp.no_type.s,
                                    gp.n_no_type == 1 ? "s" : "ve");
        diag_set_hint(dg, "load the model's weights: %s --weights W (its .pt2, .onnx or .safetensors file)", how);
        ok = false;
    } else if (gp.n_no_values && cfg->export_params) {
        diagnostic *dg = diag_error(env->diag, (diag_loc){0},
                                    "export: %zu weight%s (%s) ha%s no values: torch.onnx.export stores every weight "
                                    "in the model (export_params=True)", gp.n_no_values,
                                    gp.n_no_values == 1 ? "" : "s", gp.no_values.s,
                                    gp.n_no_values == 1 ? "s" : "ve");
        if (strstr(how, " --weights "))   /* a file of dtypes and shapes only (a program JSON) */
            diag_set_hint(dg, "the --weights file gives them no values: load a .pt2 saved with its weights, an .onnx or "
                              "a .safetensors file; or `export export_params=False` makes them inputs of the ONNX model");
        else
            diag_set_hint(dg, "load the model's weights: %s --weights W (its .pt2, .onnx or .safetensors file); or "
                              "`export export_params=False` makes them inputs of the ONNX model", how);
        ok = false;
    }
    sb_free(&gp.no_values);
    sb_free(&gp.no_type);
    return ok;
}

/* torch.export runs forward() in order on the example inputs: an op before the first Python
 * control flow that fails on them (a Linear given the wrong features) is what torch reports,
 * not the `if` after it. Strict meta inference of a copy finds it; true after reporting it. */
static bool fails_before_control_flow(pl_env *env, const fx_program *src)
{
    const fx_graph *g = fx_program_graph(src);
    size_t first_cf = 0, k = 0;
    for (const fx_node *n = g ? g->first : NULL; n && !first_cf; n = n->next, k++) {
        fx_control_kind kind = fx_control_kind_of(n);
        if (kind != FX_CTRL_NONE && kind != FX_CTRL_COND) first_cf = k + 1;
    }
    if (!first_cf) return false;
    diag_sink quiet;
    diag_init(&quiet);
    const meta_rules *rules = meta_rules_shipped(&quiet);
    fx_program *copy = rules ? fx_program_copy(src) : NULL;
    if (copy) meta_infer_program_strict(copy, rules, &quiet);
    bool found = false;
    for (size_t i = 0; i < quiet.len && !found; i++) {
        const diagnostic *dg = &quiet.items[i];
        /* meta's strict errors name their node ("export failed at %linear: ..."); only one before
         * the control flow is torch's first error */
        const char *at = dg->severity == DIAG_ERROR ? strstr(dg->message, "export failed at %") : NULL;
        if (!at) continue;
        char name[256];
        size_t len = strcspn(at + 18, ":");
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), at + 18);
        k = 0;
        for (const fx_node *n = g->first; n && k + 1 < first_cf && !found; n = n->next, k++)
            found = !strcmp(n->name, name);
        if (!found) continue;
        diagnostic *out = diag_report(env->diag, DIAG_ERROR, (diag_loc){dg->file, dg->line, dg->col}, "%s", dg->message);
        if (dg->hint) diag_set_hint(out, "%s", dg->hint);
    }
    if (copy) fx_program_free(copy);
    diag_free(&quiet);
    return found;
}

/* torch.export of src (the loaded program, or what `export --legacy` made of it): returns the
 * ATen program, and in *spec the specialized copy it may borrow weight data from (free it after
 * the result). NULL after reporting; the partial graph torch prints on a data-dependent `if` goes
 * to report. */
/* Dimensions the kernels pinned during the capture's replay (meta_infer.h): a Dim.AUTO one becomes
 * static (lo == hi: the next pass leaves it out), as torch leaves it; a named or DYNAMIC one fails
 * with torch's "Constraints violated". False after reporting. */
static bool kernel_pins(pl_env *env, const fx_program *src, const dyn_spec *spec, const cf_dynamic_dim *dyn, size_t n,
                        const size_t *of_item, int64_t *lo, int64_t *hi, const meta_spec_log *pins)
{
    for (size_t p = 0; p < pins->len; p++)
        for (size_t k = 0; k < n; k++) {
            const meta_spec *pin = &pins->items[p];
            if (strcmp(dyn[k].name, pin->symbol)) continue;
            const dyn_spec_item *it = &spec->items[of_item[k]];
            if (env->guards) {
                /* for `guards`: the node, its source line, what it did to the dimension */
                const fx_node *at = fx_graph_lookup(fx_program_graph(src), pin->node);
                char expr[300];
                snprintf(expr, sizeof expr, "%s == %lld (%%%s needs it)", pin->symbol, (long long)pin->value, pin->node);
                py_guard_record r = {.node = pin->node, .expr = expr, .symbol = pin->symbol, .input = it->input,
                                     .axis = it->axis, .example = pin->value, .truth = 1,
                                     .effect = dyn[k].kind == PY_DIM_AUTO ? PY_GUARD_PINNED : PY_GUARD_FAILED,
                                     .lo = pin->value, .hi = pin->value, .file = (char *)(at ? src->file : NULL),
                                     .line = at ? at->src_line : 0, .source = at ? (char *)at->meta.source : NULL};
                py_guard_log_add(env->guards, &r);
            }
            if (dyn[k].kind == PY_DIM_AUTO) {
                lo[of_item[k]] = hi[of_item[k]] = pin->value;
                continue;
            }
            char ref[300];
            snprintf(ref, sizeof ref, "L['%s'].size()[%d]", it->input, it->axis);
            const char *who = dyn[k].kind == PY_DIM_NAMED ? it->name : ref;
            diagnostic *dg = diag_error(env->diag, (diag_loc){0},
                                        "export failed at %%%s: Constraints violated (%s)! You marked %s as dynamic but "
                                        "your code specialized it to be a constant (%lld) (%%%s needs that size there)",
                                        pin->node, who, who, (long long)pin->value, pin->node);
            if (dyn[k].kind == PY_DIM_NAMED)
                diag_set_hint(dg, "Suggested fixes: %s = %lld, i.e. dynamic_shapes %s:%d=STATIC", it->name,
                              (long long)pin->value, it->input, it->axis);
            else
                diag_set_hint(dg, "Dim.DYNAMIC may not be pinned: use %s:%d=STATIC or AUTO", it->input, it->axis);
            return false;
        }
    return true;
}

/* Each dynamic_shapes item names an input of the program (torch's message names the valid keys)
 * and an axis it has, and the example's size is in the Dim's range. */
static bool dynamic_dims_valid(pl_env *env, const fx_program *src, dyn_spec *spec)
{
    const fx_graph *g = fx_program_graph(src);
    for (size_t i = 0; i < spec->n; i++) {
        dyn_spec_item *it = &spec->items[i];
        const fx_node *n = g ? fx_graph_lookup(g, it->input) : NULL;
        if (!n || n->op != FX_OP_PLACEHOLDER || !user_input(src, n)) {
            strbuf names = {0}, given = {0};
            for (const fx_node *q = g ? g->first : NULL; q; q = q->next)
                if (q->op == FX_OP_PLACEHOLDER && user_input(src, q)) sb_printf(&names, "%s'%s'", names.len ? ", " : "", q->name);
            for (size_t k = 0; k < spec->n; k++)
                if (!strstr(given.s ? given.s : "", spec->items[k].input))
                    sb_printf(&given, "%s'%s'", given.len ? ", " : "", spec->items[k].input);
            diagnostic *dg = diag_error(env->diag, (diag_loc){0},
                                        "dynamic_shapes: When `dynamic_shapes` is specified as a dict, its top-level keys "
                                        "must be the arg names [%s] of `inputs`, but here they are [%s]",
                                        names.s ? names.s : "", given.s);
            diag_set_hint(dg, "the inputs of forward(): %s", names.s ? names.s : "none");
            sb_free(&names);
            sb_free(&given);
            return false;
        }
        const fx_value *v = n->meta.val;
        if (!v || v->kind != FX_VAL_TENSOR) continue;   /* export reports an input without example */
        if ((size_t)it->axis >= v->rank) {
            diag_error(env->diag, (diag_loc){0}, "dynamic_shapes: %s has %zu dimensions; there is no axis %d", it->input,
                       v->rank, it->axis);
            return false;
        }
        char *end;
        long long ex = strtoll(v->sizes[it->axis], &end, 10);
        if (*end || it->kind == DYN_STATIC) continue;
        if (ex == 0 || ex == 1) {
            /* the 0/1 rule: torch.export specializes a size-0 or size-1 example to that size */
            if (it->kind == DYN_AUTO) {
                diag_warning(env->diag, (diag_loc){0}, "dynamic_shapes: dimension inputs['%s'].shape[%d] 0/1 specialized; "
                             "Dim.AUTO was specified along with a sample input with hint = %lld (it stays static)",
                             it->input, it->axis, ex);
                it->kind = DYN_STATIC;
                continue;
            }
            diagnostic *dg;
            if (it->kind == DYN_DYNAMIC)
                dg = diag_error(env->diag, (diag_loc){0}, "dynamic_shapes: Found the following conflicts between "
                                "user-specified ranges and inferred ranges from model tracing: Received user-specified "
                                "dim hint Dim.DYNAMIC(min=None, max=None), but export 0/1 specialized due to hint of %lld "
                                "for dimension inputs['%s'].shape[%d].", ex, it->input, it->axis);
            else
                dg = diag_error(env->diag, (diag_loc){0}, "dynamic_shapes: Constraints violated (%s)! You marked %s as "
                                "dynamic but your code specialized it to be a constant (%lld) (the example's size: "
                                "torch.export specializes sizes 0 and 1)", it->name, it->name, ex);
            if (it->kind == DYN_DYNAMIC)
                diag_set_hint(dg, "give an example of size 2 or more, or use %s:%d=AUTO", it->input, it->axis);
            else
                diag_set_hint(dg, "Suggested fixes: %s = %lld, i.e. %s:%d=STATIC; or give an example of size 2 or more",
                              it->name, ex, it->input, it->axis);
            return false;
        }
        if (it->kind == DYN_DERIVED) {
            /* the example must be the root's example mapped (torch fails later, on the first op
             * that meets both sizes; the mismatch is the example's) */
            for (size_t j = 0; j < spec->n; j++) {
                const dyn_spec_item *r = &spec->items[j];
                if (r->kind != DYN_NAMED || strcmp(r->name, it->root)) continue;
                const fx_node *rn = g ? fx_graph_lookup(g, r->input) : NULL;
                const fx_value *rv = rn ? rn->meta.val : NULL;
                char *rend;
                long long rex = rv && rv->kind == FX_VAL_TENSOR && (size_t)r->axis < rv->rank
                                    ? strtoll(rv->sizes[r->axis], &rend, 10) : -1;
                if (rex < 0 || *rend) break;
                if (ex != it->coeff * rex + it->offset) {
                    diagnostic *dg = diag_error(env->diag, (diag_loc){0}, "dynamic_shapes: %s:%d is %s, but the examples "
                                                "give %s = %lld (%s:%d) and %lld here, not %lld", it->input, it->axis,
                                                it->name, it->root, rex, r->input, r->axis, ex,
                                                (long long)(it->coeff * rex + it->offset));
                    diag_set_hint(dg, "give examples whose sizes keep the relation, or mark %s:%d with a Dim of its own",
                                  it->input, it->axis);
                    return false;
                }
                break;
            }
        }
        int64_t mn = it->min >= 0 ? it->min : 0;
        if (ex < mn || (it->max >= 0 && ex > it->max)) {
            char mx[32];
            if (it->max >= 0) snprintf(mx, sizeof mx, "%lld", (long long)it->max);
            else snprintf(mx, sizeof mx, "int_oo");
            diagnostic *dg = diag_error(env->diag, (diag_loc){0}, "dynamic_shapes: %lld not in range [%lld, %s] (%s, the "
                                        "example's %s:%d)", ex, (long long)mn, mx, it->name, it->input, it->axis);
            diag_set_hint(dg, "give an example input inside the range, or widen the Dim");
            return false;
        }
    }
    return true;
}

static fx_program *capture_program(pl_env *env, const fx_program *src, const export_settings *cfg, strbuf *report,
                                   fx_program **spec_out, bool legacy_script)
{
    *spec_out = NULL;
    bool bad_inputs;
    fx_program *redeclared = redeclare_inputs(env, src, cfg, &bad_inputs);
    if (bad_inputs) return NULL;
    if (redeclared) src = redeclared;
    /* a loop over a dimension marked dynamic fails as torch fails: it specializes it; an `if` on
     * one is a guard on its range (capture/py_guard.h) */
    dyn_spec spec = {0};
    char why[300];
    if (cfg->dynamic_shapes && !dyn_spec_parse(cfg->dynamic_shapes, &spec, why, sizeof why)) {
        diagnostic *dg = diag_error(env->diag, (diag_loc){0}, "dynamic_shapes: %s", why);
        diag_set_hint(dg, "write INPUT:AXIS=SPEC items, e.g. x:0=batch, x:0=Dim('batch', min=2, max=64), x:1=AUTO");
        if (redeclared) fx_program_free(redeclared);
        return NULL;
    }
    cf_dynamic_dim dyn[DYN_SPEC_MAX];
    int64_t lo[DYN_SPEC_MAX], hi[DYN_SPEC_MAX];
    size_t of_item[DYN_SPEC_MAX];
    control_flow_options cfo = {.dynamic = dyn, .keep_loops = legacy_script, .guards = env->guards};
    if (env->guards) py_guard_log_clear(env->guards);
    bool ok = dynamic_dims_valid(env, src, &spec);
    py_guard_log pinned = {0};   /* the AUTO dimensions the first pass pinned: gone from the second */
    for (int pass = 0; ok && pass < 2; pass++) {
        if (env->guards) {
            for (size_t i = 0; pass == 1 && i < env->guards->len; i++) {
                if (env->guards->items[i].effect != PY_GUARD_PINNED) continue;
                if (pinned.len == pinned.cap) {
                    pinned.cap = pinned.cap ? 2 * pinned.cap : 4;
                    pinned.items = xrealloc(pinned.items, pinned.cap * sizeof *pinned.items);
                }
                pinned.items[pinned.len++] = env->guards->items[i];
                env->guards->items[i] = (py_guard_record){0};   /* moved */
            }
            py_guard_log_clear(env->guards);
        }
        cfo.n_dynamic = 0;
        for (size_t i = 0; i < spec.n; i++) {
            const dyn_spec_item *it = &spec.items[i];
            if (it->kind == DYN_STATIC) continue;
            /* an AUTO dimension the first pass pinned is static in the second, as torch leaves it */
            if (pass == 1 && it->kind == DYN_AUTO && lo[i] == hi[i]) continue;
            size_t k = cfo.n_dynamic++;
            of_item[k] = i;
            lo[i] = it->min > 2 ? it->min : 2;
            hi[i] = it->max;
            py_dim_kind kind = it->kind == DYN_AUTO ? PY_DIM_AUTO : it->kind == DYN_DYNAMIC ? PY_DIM_DYNAMIC : PY_DIM_NAMED;
            dyn[k] = (cf_dynamic_dim){it->input, it->axis, it->name, kind, it->min, it->max, &lo[i], &hi[i]};
        }
        /* what the replay's kernels pin (a matmul's inner size, a broadcast) is a guard too */
        meta_spec_log pins = {0};
        meta_record_specializations(&pins);
        ok = !fails_before_control_flow(env, src) && !control_flow_export_check_ex(src, &cfo, env->diag, report);
        meta_record_specializations(NULL);
        if (ok) ok = kernel_pins(env, src, &spec, dyn, cfo.n_dynamic, of_item, lo, hi, &pins);
        meta_spec_log_clear(&pins);
        bool any_pinned = false;
        for (size_t k = 0; k < cfo.n_dynamic; k++) any_pinned |= dyn[k].kind == PY_DIM_AUTO && lo[of_item[k]] == hi[of_item[k]];
        if (!any_pinned) break;
    }
    /* the specializing replay decides the guards again, from the declared ranges: its warnings
     * (a range narrowed) are the ones shown, and its ranges the ones recorded */
    for (size_t k = 0; k < cfo.n_dynamic; k++) {
        const dyn_spec_item *it = &spec.items[of_item[k]];
        lo[of_item[k]] = it->min > 2 ? it->min : 2;
        hi[of_item[k]] = it->max;
    }
    /* the specializing replay records the guards again: the log keeps its, after the pinned */
    if (ok && env->guards) {
        py_guard_log_clear(env->guards);
        *env->guards = pinned;
        pinned = (py_guard_log){0};
    }
    py_guard_log_clear(&pinned);
    fx_program *spec_prog = ok ? control_flow_specialize_ex(src, &cfo, env->diag) : NULL;
    if (redeclared) fx_program_free(redeclared);   /* spec is a copy; the weight data is the loaded program's */
    decls d;
    if (!spec_prog || !parse_inputs(cfg->inputs, &d, env->diag)) {
        if (spec_prog) fx_program_free(spec_prog);
        dyn_spec_free(&spec);
        return NULL;
    }
    fx_program *spec_p = spec_prog;
    /* a torch-level program takes its dynamic dimensions as symbols in the example inputs (its
     * code reads them with sym_size); TorchScript's were named in the replay. What the export's
     * kernels pin is a guard: an AUTO dimension pinned is exported again static. */
    bool torch_level = !fx_program_is_aten(spec_p);
    /* inputs given at load (their placeholders' meta) are declared here, so their dims can be named */
    for (size_t k = 0; torch_level && k < cfo.n_dynamic; k++) {
        bool have = false;
        for (size_t i = 0; i < d.len && !have; i++) have = d.items[i].name && !strcmp(d.items[i].name, dyn[k].input);
        const fx_node *ph = have ? NULL : fx_graph_lookup(fx_program_graph(spec_p), dyn[k].input);
        const fx_value *v = ph && ph->op == FX_OP_PLACEHOLDER ? ph->meta.val : NULL;
        if (!v || v->kind != FX_VAL_TENSOR) continue;
        const char **dims = xcalloc(v->rank + 1, sizeof *dims);
        for (size_t r = 0; r < v->rank; r++) dims[r] = keep(&d, xstrdup(v->sizes[r]));
        d.items = xrealloc(d.items, (d.len + 1) * sizeof *d.items);
        d.items[d.len++] = (export_input_decl){keep(&d, xstrdup(dyn[k].input)), v->dtype, v->rank, dims};
    }
    fx_program *p = NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        for (size_t k = 0; torch_level && k < cfo.n_dynamic; k++) {
            bool pinned = dyn[k].kind == PY_DIM_AUTO && lo[of_item[k]] == hi[of_item[k]];
            for (size_t i = 0; i < d.len; i++)
                if (d.items[i].name && !strcmp(d.items[i].name, dyn[k].input) && (size_t)dyn[k].axis < d.items[i].rank) {
                    char num[32];
                    snprintf(num, sizeof num, "%lld", (long long)lo[of_item[k]]);
                    ((const char **)d.items[i].dims)[dyn[k].axis] = keep(&d, xstrdup(pinned ? num : dyn[k].name));
                }
        }
        export_options eo = {.inputs = d.items, .n_inputs = d.len};
        meta_spec_log pins = {0};
        meta_record_specializations(&pins);
        p = export_program(spec_p, &eo, env->diag);
        meta_record_specializations(NULL);
        bool repin = false;
        for (size_t k = 0; p && k < cfo.n_dynamic; k++) repin |= dyn[k].kind == PY_DIM_AUTO && lo[of_item[k]] == hi[of_item[k]];
        bool fine = !p || kernel_pins(env, spec_p, &spec, dyn, cfo.n_dynamic, of_item, lo, hi, &pins);
        bool now_pinned = false;
        for (size_t k = 0; p && k < cfo.n_dynamic; k++) now_pinned |= dyn[k].kind == PY_DIM_AUTO && lo[of_item[k]] == hi[of_item[k]];
        meta_spec_log_clear(&pins);
        if (p && !fine) {
            fx_program_free(p);
            p = NULL;
        }
        if (!p || !torch_level || now_pinned == repin) break;
        fx_program_free(p);   /* an AUTO dimension newly pinned: once more, with it static */
        p = NULL;
    }
    free_decls(&d);
    if (!p) {
        fx_program_free(spec_p);
        dyn_spec_free(&spec);
        return NULL;
    }
    /* the range constraints torch.export records: each dimension left dynamic, its declared
     * range narrowed by the guards */
    for (size_t k = 0; k < cfo.n_dynamic; k++) {
        size_t i = of_item[k];
        char mn[32], mx[32];
        /* a named Dim keeps the range it was given (no guard may narrow it; sizes 0 and 1 stay
         * in it, as torch records them); AUTO and DYNAMIC start at 2, the 0/1 rule */
        if (spec.items[i].kind == DYN_NAMED || spec.items[i].kind == DYN_DERIVED)
            lo[i] = spec.items[i].min >= 0 ? spec.items[i].min : 0;
        snprintf(mn, sizeof mn, "%lld", (long long)lo[i]);
        if (spec.items[i].kind == DYN_AUTO && lo[i] == hi[i]) continue;   /* pinned: static, no range */
        if (hi[i] >= 0) snprintf(mx, sizeof mx, "%lld", (long long)hi[i]);
        else snprintf(mx, sizeof mx, "int_oo");
        fx_program_set_range(p, spec.items[i].name, mn, mx);
    }
    dyn_spec_free(&spec);
    *spec_out = spec_p;
    return p;
}

/* torch's own text, when someone listens. */
static void print_torch(pl_env *env, const char *text)
{
    if (env->print) env->print(env->print_ctx, PL_PRINT_TORCH, text);
}

/* The capture stage (torch.export): Python control flow first — a data-dependent `if` fails as
 * torch.export fails (with the partial graph torch prints), a shape `if` is specialized, a
 * constant `for` unrolled — then the export proper. `ro->traced` (export --legacy trace) replaces
 * the loaded program; the stage takes it. Returns 0 or 1. */
static int run_capture(pl_stage stages[PL_N_STAGES], const export_settings *cfg, pl_run_options *ro, pl_env *env)
{
    const pl_stage *from = &stages[PL_STAGE_FX];
    fx_program *traced = ro->traced;
    ro->traced = NULL;
    bool legacy_script = ro->legacy_script;
    fx_program *folded = legacy_script ? control_flow_fold_bool_ifs(from->fx, env->diag) : NULL;
    fx_program *scripted = legacy_script ? script_ifs_to_cond(env, folded) : NULL;
    if (folded) fx_program_free(folded);
    if (legacy_script && !scripted) {
        if (traced) fx_program_free(traced);
        return 1;
    }
    const fx_program *src = scripted ? scripted : traced ? traced : from->fx;   /* traced: ours from here */
    strbuf report;
    sb_init(&report);
    fx_program *spec;
    fx_program *p = capture_program(env, src, cfg, &report, &spec, legacy_script);
    if (scripted) fx_program_free(scripted);   /* spec is a copy; weights are borrowed from fx */
    if (report.len) {   /* torch's failure text: stderr, after the progress lines before it */
        print_torch(env, report.s);
        if (ro->failure_text) {
            free(*ro->failure_text);
            *ro->failure_text = xstrdup(report.s);
        }
    }
    sb_free(&report);
    if (!p) {
        if (traced) fx_program_free(traced);
        return 1;
    }
    pl_stage *to = &stages[PL_STAGE_EXPORTED];
    pl_stage_set_fx(to, p, "export");
    to->keepalive[0] = spec;     /* p may borrow weight data from it */
    to->keepalive[1] = traced;   /* and spec from this one */
    return 0;
}

/* A decomposed program translated with the settings, the I/O settings applied; NULL on error. */
static ox_model *translate_with(pl_env *env, const fx_program *p, const export_settings *cfg)
{
    if (!pl_ensure_ops(env))
        return NULL;
    translate_options to_opts;
    translate_options_init(&to_opts);
    to_opts.opset = cfg->opset_version;
    to_opts.registry = *env->ops;
    to_opts.export_params = cfg->export_params;
    to_opts.keep_initializers_as_inputs = cfg->keep_initializers_as_inputs;
    ox_model *m = translate_program(p, &to_opts, env->diag);
    if (m && !apply_io_settings(env, m, cfg)) {
        ox_model_free(m);
        m = NULL;
    }
    return m;
}

/* The optimize stage, on a copy of the translated model; NULL on error. */
static ox_model *optimize_copy(const ox_model *from, const export_settings *cfg, pl_env *env)
{
    ox_model *m = ox_model_copy(from, env->diag);
    optimize_options oo;
    optimize_options_default(&oo);
    oo.fold = cfg->do_constant_folding;
    if (!m || !optimize_model(m, &oo, NULL, env->diag)) {
        if (m) ox_model_free(m);
        return NULL;
    }
    return m;
}

/* torch.onnx's verdict lines for a stage that failed: the capture retried with strict=True (which
 * fails the same way), then the step's failure sentence, with a hint at the stages kept. */
static void report_stage_failure(pl_env *env, int to, const export_settings *cfg, const char *title)
{
    if (to == PL_STAGE_EXPORTED) {
        const char *strict = strstr(title, "strict=False");
        if (strict) {
            strbuf retry;
            sb_init(&retry);
            sb_printf(&retry, "%.*sstrict=True%s", (int)(strict - title), title, strict + 12);
            progress(env, cfg, retry.s, NULL);
            progress(env, cfg, retry.s, "❌");
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
    diagnostic *dg = diag_error(env->diag, (diag_loc){0}, "%s", step_text[to]);
    diag_set_hint(dg, "the %s stage failed; earlier stages are kept: `stages`, `show %s`", pl_stage_name(to),
                  pl_stage_name(to - 1));
}

/* dynamic_shapes on a program torch.export captured (a .pt2, its JSON, graph text of one): the
 * sizes were decided there, and the graph keeps the example's wherever the capture saw a static
 * dimension. Marking such a dimension dynamic would only relabel the model's inputs (a model that
 * fails for any other size; torch.onnx.export(ep, dynamic_shapes=...) ignores the setting); what
 * makes it dynamic is capturing it again, so the setting is refused. A dimension the capture
 * made symbolic (s77) may be named. */
static bool dynamic_shapes_capturable(const pl_stage *st, const export_settings *cfg, pl_env *env)
{
    if (!cfg->dynamic_shapes) return true;
    const fx_program *p = st->fx;
    const fx_graph *g = fx_program_graph(p);
    dyn_spec spec;
    char why[300];
    if (!dyn_spec_parse(cfg->dynamic_shapes, &spec, why, sizeof why)) return true;   /* reported where applied */
    strbuf fixed;
    sb_init(&fixed);
    for (size_t i = 0; i < spec.n; i++) {
        const dyn_spec_item *it = &spec.items[i];
        if (it->kind == DYN_STATIC) continue;
        const fx_node *n = g ? fx_graph_lookup(g, it->input) : NULL;
        const fx_value *v = n && n->op == FX_OP_PLACEHOLDER ? n->meta.val : NULL;
        if (!v || v->kind != FX_VAL_TENSOR || (size_t)it->axis >= v->rank) continue;
        const char *dim = v->sizes[it->axis];
        if (dim[strspn(dim, "0123456789")] == '\0')
            sb_printf(&fixed, "%s%s:%d (%s)", fixed.len ? ", " : "", it->input, it->axis, dim);
    }
    dyn_spec_free(&spec);
    bool ok = fixed.len == 0;
    if (!ok) {
        diagnostic *dg = diag_error(env->diag, (diag_loc){p->file, 0, 0},
                                    "export dynamic_shapes: the program was captured with static shapes (%s): marking "
                                    "them dynamic would only relabel the model's inputs while the graph keeps the "
                                    "example's sizes", fixed.s);
        diag_set_hint(dg, "re-export it with torch.export(..., dynamic_shapes=...) and load that; or load the model's "
                          "TorchScript or torch-level graph, which fxsh captures itself with the dynamic_shapes given");
    }
    sb_free(&fixed);
    return ok;
}

/* `set inputs` on a program loaded with its example inputs fixed (a .pt2, annotated graph text):
 * torch.export traced it on them, and nothing traces it again, so other ones are refused rather
 * than ignored. */
static bool inputs_settable(const pl_stage *st, const export_settings *cfg, pl_env *env)
{
    if (!cfg->inputs) return true;
    decls d;
    diag_sink quiet;   /* a malformed setting is reported where the inputs are read */
    diag_init(&quiet);
    bool parsed = parse_inputs(cfg->inputs, &d, &quiet);
    diag_free(&quiet);
    if (!parsed) return true;
    const fx_graph *g = fx_program_graph(st->fx);
    bool ok = true;
    for (size_t i = 0; i < d.len && ok; i++) {
        const fx_node *n = g ? fx_graph_lookup(g, d.items[i].name) : NULL;
        const fx_value *v = n ? n->meta.val : NULL;
        if (!v || v->kind != FX_VAL_TENSOR || v->dtype == FX_DT_UNKNOWN || same_decl(v, &d.items[i])) continue;
        strbuf had;
        sb_init(&had);
        sb_printf(&had, "%s[", fx_dtype_get(v->dtype)->abbr);
        for (size_t k = 0; k < v->rank; k++) sb_printf(&had, "%s%s", k ? "," : "", v->sizes[k]);
        sb_putc(&had, ']');
        sb_printf(&had, " but inputs gives %s[", fx_dtype_get(d.items[i].dtype)->abbr);
        for (size_t k = 0; k < d.items[i].rank; k++) sb_printf(&had, "%s%s", k ? "," : "", d.items[i].dims[k]);
        sb_putc(&had, ']');
        diagnostic *dg = diag_error(env->diag, (diag_loc){st->fx->file, 0, 0},
                                    "export inputs: the program was traced on %s=%s: a program loaded already traced "
                                    "is not traced again, so its example inputs cannot change", d.items[i].name, had.s);
        diag_set_hint(dg, "re-export it with torch.export on other example inputs and load that, or load the model's "
                          "TorchScript or torch-level graph, which export traces on `inputs`");
        sb_free(&had);
        ok = false;
    }
    free_decls(&d);
    return ok;
}

bool pl_run_stage(pl_stage stages[PL_N_STAGES], int to, const export_settings *cfg, pl_run_options *ro, pl_env *env)
{
    static pl_run_options plain;
    if (!ro) ro = &plain;
    if (to < PL_STAGE_EXPORTED || to >= PL_N_STAGES) return false;
    pl_stage *from = &stages[to - 1];
    int loaded = 0;
    while (loaded < PL_N_STAGES && stages[loaded].kind == PL_EMPTY) loaded++;
    /* the weights are checked once torch.export has run (its failures come first, as torch's
     * would: an nn.Module always has its weights), before anything else is shown done */
    if ((to - 1 == loaded && from->kind == PL_FX && to <= PL_STAGE_DECOMPOSED && !pl_inputs_declared(from, cfg, env)) ||
        (to - 1 == loaded && loaded == PL_STAGE_EXPORTED && from->kind == PL_FX &&
         (!dynamic_shapes_capturable(from, cfg, env) || !inputs_settable(from, cfg, env))) ||
        (to == PL_STAGE_DECOMPOSED && from->kind == PL_FX && !weights_bound(from, cfg, env))) {
        if (ro->traced) fx_program_free(ro->traced);
        ro->traced = NULL;
        return false;
    }
    /* The capture stage only runs on a program loaded at `fx` (torch-level FX text, TorchScript);
     * a torch.export program loads straight into `exported`, and torch prints no capture line
     * for it either. */
    strbuf title;
    sb_init(&title);
    if (to == PL_STAGE_EXPORTED) capture_title(from, &title);
    else sb_puts(&title, stage_titles[to - 1]);
    /* the TorchScript-based exporter prints no progress (torch.onnx.export(..., dynamo=False)) */
    const export_settings *shown = cfg;
    export_settings silent;
    if (ro->legacy) {
        silent = *cfg;
        silent.verbose = false;
        shown = &silent;
    }
    progress(env, shown, title.s, NULL);
    int rc = 0;
    switch (to) {
    case PL_STAGE_EXPORTED:
        rc = run_capture(stages, cfg, ro, env);
        break;
    case PL_STAGE_DECOMPOSED: {
        /* graph text of an exported program without annotations takes its example inputs from
         * the `inputs` setting as it would from --input (a copy: the stage stays as loaded) */
        bool bad = false;
        fx_program *re = loaded == PL_STAGE_EXPORTED && to - 1 == loaded ? redeclare_inputs(env, from->fx, cfg, &bad) : NULL;
        if (!bad && !re && loaded == PL_STAGE_EXPORTED && to - 1 == loaded && lacks_meta(from->fx))
            re = fx_program_copy(from->fx);
        if (!bad && re && !infer_loaded_meta(env, re)) bad = true;
        fx_program *p = bad ? NULL : decompose_program(re ? re : from->fx, DECOMP_ONNX, env->diag);
        if (re) fx_program_free(re);
        if (!p) rc = 1;
        else pl_stage_set_fx(&stages[to], p, "decompose (ONNX table)");
        break;
    }
    case PL_STAGE_ONNX: {
        ox_model *m = translate_with(env, from->fx, cfg);
        if (!m) rc = 1;
        else pl_stage_set_onnx(&stages[to], m, "translate");
        break;
    }
    case PL_STAGE_OPTIMIZED: {
        ox_model *m = optimize_copy(from->onnx, cfg, env);
        if (!m) rc = 1;
        else pl_stage_set_onnx(&stages[to], m, "optimize");
        break;
    }
    }
    if (rc && interrupt_pending()) {   /* cancelled: no verdict, the caller says "interrupted" */
        sb_free(&title);
        return false;
    }
    progress(env, shown, title.s, rc ? "❌" : "✅");
    if (rc && ro->legacy) {   /* its errors are the failing node's; no "step N/3" of the dynamo route */
        diagnostic *dg = diag_error(env->diag, (diag_loc){0}, "ONNX export failed (the TorchScript-based exporter, at the %s stage)",
                                    pl_stage_name(to));
        diag_set_hint(dg, "the %s stage failed; earlier stages are kept: `stages`, `show %s`", pl_stage_name(to),
                      pl_stage_name(to - 1));
    } else if (rc) {
        report_stage_failure(env, to, cfg, title.s);
    }
    sb_free(&title);
    return rc == 0;
}

ox_model *pl_stage_model(pl_stage stages[PL_N_STAGES], int index, const export_settings *cfg, const char *cmd,
                         pl_env *env, bool *owned)
{
    pl_stage *st = &stages[index];
    *owned = false;
    if (st->kind == PL_ONNX) return st->onnx;
    if (st->kind == PL_EMPTY) {
        diagnostic *dg = diag_error(env->diag, (diag_loc){0}, "%s: the %s stage is empty", cmd, st->name);
        diag_set_hint(dg, "`stages` lists what each holds; `export` or `step` fills them");
        return NULL;
    }
    if (index == PL_STAGE_FX) {
        diagnostic *dg = diag_error(env->diag, (diag_loc){0}, "%s: the fx stage is a torch-level program, not yet exported", cmd);
        diag_set_hint(dg, "`step` (or `export`) makes the exported stage; then `%s exported`", cmd);
        return NULL;
    }
    fx_program *dec = NULL;
    const fx_program *src = st->fx;
    if (index == PL_STAGE_EXPORTED) {
        /* a program loaded as graph text has no value meta on its nodes: the decomposition's type
         * promotion needs it (a SymInt operand of mul is a number), as export's run infers it */
        fx_program *inferred = NULL;
        if (lacks_meta(st->fx)) {
            bool bad = false;
            inferred = redeclare_inputs(env, st->fx, cfg, &bad);
            if (!bad && !inferred) inferred = fx_program_clone(st->fx);
            if (bad || !infer_loaded_meta(env, inferred)) {
                if (inferred) fx_program_free(inferred);
                return NULL;
            }
        }
        dec = decompose_program(inferred ? inferred : st->fx, DECOMP_ONNX, env->diag);
        if (inferred) fx_program_free(inferred);
        if (!dec) return NULL;
        src = dec;
    }
    ox_model *m = translate_with(env, src, cfg);
    if (dec) fx_program_free(dec);
    *owned = m != NULL;
    return m;
}

ox_model *pl_program_model(const fx_program *p, const export_settings *cfg, pl_env *env)
{
    /* the run's own messages stay in a sink of its own: only a failure's errors come out */
    diag_sink inner;
    diag_init(&inner);
    pl_env quiet = *env;
    quiet.diag = &inner;
    quiet.print = NULL;
    strbuf report;
    sb_init(&report);
    fx_program *spec = NULL;
    fx_program *exp = capture_program(&quiet, p, cfg, &report, &spec, false);
    fx_program *dec = exp ? decompose_program(exp, DECOMP_ONNX, &inner) : NULL;
    ox_model *m = dec ? translate_with(&quiet, dec, cfg) : NULL;
    if (dec) fx_program_free(dec);
    if (exp) fx_program_free(exp);
    if (spec) fx_program_free(spec);
    sb_free(&report);
    for (size_t i = 0; !m && i < inner.len; i++) {
        const diagnostic *x = &inner.items[i];
        if (x->severity != DIAG_ERROR) continue;
        diagnostic *y = diag_report(env->diag, x->severity, (diag_loc){x->file, x->line, x->col}, "%s", x->message);
        if (x->hint) diag_set_hint(y, "%s", x->hint);
    }
    diag_free(&inner);
    return m;
}

/* torch.onnx's messages about the settings it adjusts or advises against (stderr, as torch). */
static void warn_export_settings(pl_env *env, export_settings *cfg)
{
    if (cfg->opset_version < 18) {
        strbuf w;
        sb_init(&w);
        sb_printf(&w,
                  "Setting ONNX exporter to use operator set version 18 because the requested opset_version %d is a "
                  "lower version than we have implementations for. Automatic version conversion will be performed, "
                  "which may not be successful at converting to the requested version. If version conversion is "
                  "unsuccessful, the opset version of the exported model will be kept at 18. Please consider setting "
                  "opset_version >=18 to leverage latest ONNX features\n",
                  cfg->opset_version);
        print_torch(env, w.s);
        sb_free(&w);
        cfg->opset_version = 18;
    }
    if (cfg->dynamic_axes && !cfg->dynamic_shapes)
        print_torch(env, "UserWarning: # 'dynamic_axes' is not recommended when dynamo=True, and may lead to "
                         "'torch._dynamo.exc.UserError: Constraints violated.' Supply the 'dynamic_shapes' argument "
                         "instead if export is unsuccessful.\n");
}

void pl_adjust_settings(export_settings *cfg, pl_env *env)
{
    warn_export_settings(env, cfg);
}

bool pl_export(pl_stage stages[PL_N_STAGES], const export_settings *cfg, pl_run_options *ro, pl_env *env,
              pl_export_result *res)
{
    static pl_run_options plain;
    if (!ro) ro = &plain;
    pl_export_result local;
    if (!res) res = &local;
    memset(res, 0, sizeof *res);
    res->failed_stage = -1;
    int first = pl_first_fx_stage(stages);
    if (first < 0 || first > PL_STAGE_EXPORTED) {
        diag_error(env->diag, (diag_loc){0}, "export: no FX program loaded (load an FX graph or a .pt2 first)");
        if (ro->traced) fx_program_free(ro->traced);
        ro->traced = NULL;
        return false;
    }
    int last = cfg->optimize ? PL_STAGE_OPTIMIZED : PL_STAGE_ONNX;
    bool ok = true;
    for (int to = first + 1; to <= last && ok; to++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ok = pl_run_stage(stages, to, cfg, ro, env);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        res->ms[to] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        res->ran[to] = true;
        if (!ok) res->failed_stage = to;
    }
    if (ro->traced) {   /* a run that stopped before capture */
        fx_program_free(ro->traced);
        ro->traced = NULL;
    }
    return ok;
}
