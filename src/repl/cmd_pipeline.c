/* cmd_pipeline.c — the export pipeline one stage at a time: export, step, diff, set, ops.
 *
 * The commands are the shell's view of pipeline/pipeline.h: they parse their arguments, run the
 * stages there, and keep the session's current stage and Ctrl-C's stash. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/json_write.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_format.h"   /* fx_arg_print: the FX text of an argument tree */
#include "fx/fx_ir.h"
#include "onnx/onnx_ir.h"
#include "tables/aten_schemas.h"
#include "tables/ops.h"
#include "pipeline/pipeline.h"
#include "repl/cmd_handlers.h"
#include "repl/tokenize.h"

/* `run`, `verify` and `step` translate with the settings as `export` does: an opset below 18 is
 * raised to 18 with torch's warning (pl_adjust_settings), not refused by one and not the other. */
ox_model *pipeline_stage_model(session *s, int index, const char *cmd, bool *owned)
{
    pl_env env = session_env(s);
    export_settings cfg;
    settings_copy(&cfg, &s->settings);
    if (s->stages[index].kind == PL_FX) pl_adjust_settings(&cfg, &env);
    ox_model *m = pl_stage_model(s->stages, index, &cfg, cmd, &env, owned);
    settings_free(&cfg);
    return m;
}

ox_model *pipeline_program_model(session *s, const fx_program *p, const export_settings *cfg)
{
    pl_env env = session_env(s);
    export_settings adjusted;
    settings_copy(&adjusted, cfg);
    pl_adjust_settings(&adjusted, &env);
    ox_model *m = pl_program_model(p, &adjusted, &env);
    settings_free(&adjusted);
    return m;
}

/* The last stage holding something: where `step` continues from. */
static int last_filled(const session *s)
{
    for (int i = SESSION_MAX_STAGES - 1; i >= 0; i--)
        if (s->stages[i].kind != PL_EMPTY) return i;
    return -1;
}

/* export [NAME=VALUE ...]: per-run overrides of the `set` defaults. */
/* What `export` was asked beyond settings: the legacy route, tracing's example inputs, a report. */
typedef struct export_request {
    bool legacy_script, legacy_trace;
    const char *trace_inputs;
    uint64_t trace_seed;
    const char *report_path;
    bool json;
} export_request;

/* export's arguments into *r and cfg (NAME=VALUE settings); false after reporting. */
static bool parse_export_args(session *s, int argc, char **argv, export_request *r, export_settings *cfg)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {   /* the run as one document; no progress lines on stdout */
            r->json = true;
            cfg->verbose = false;
            continue;
        }
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
            errno = 0;
            if (v && argv[i][2] == 's') r->trace_seed = strtoull(v, &end, 10);
            if (!v || (argv[i][2] == 's' && (!*v || *end || *v == '-' || errno == ERANGE))) {
                session_error(s, "export: %s needs %s", argv[i], argv[i][2] == 's' ? "an integer from 0 to 2^64-1" : "a file");
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
        size_t mark = s->diag.len;
        bool ok = settings_set(cfg, argv[i], eq + 1, &s->diag);
        *eq = '=';
        if (!ok) {
            /* the setting's message names the command it came with */
            for (size_t k = mark; k < s->diag.len; k++) {
                char *m = s->diag.items[k].message;
                if (m && !strncmp(m, "set: ", 5)) {
                    strbuf sb;
                    sb_init(&sb);
                    sb_printf(&sb, "export: %s", m + 5);
                    s->diag.items[k].message = sb_detach(&sb);
                    free(m);
                }
            }
            return false;
        }
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

/* torch's DeprecationWarning for dynamo=False (torch/onnx/__init__.py). Python prefixes it with
 * the file and line of the call; there is no Python caller here, so it starts with the category. */
static const char legacy_deprecation[] =
    "DeprecationWarning: You are using the legacy TorchScript-based ONNX export. Starting in PyTorch 2.9, the new "
    "torch.export-based ONNX exporter has become the default. Learn more about the new export logic: "
    "https://docs.pytorch.org/docs/stable/onnx_export.html. For exporting control flow: "
    "https://pytorch.org/tutorials/beginner/onnx/export_control_flow_model_to_onnx_tutorial.html\n";

int cmd_export(session *s, int argc, char **argv)
{
    int first = pl_first_fx_stage(s->stages);
    if (first < 0 || first > PL_STAGE_EXPORTED) {
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
    pl_env env = session_env(s);
    pl_adjust_settings(&cfg, &env);
    /* tracing decides the Python ifs on tensors first, on the example inputs */
    pl_run_options ro = {.legacy_script = req.legacy_script, .legacy = req.legacy_script || req.legacy_trace,
                         .failure_text = &s->failure_text};
    if (ro.legacy && env.print)   /* what torch.onnx.export(..., dynamo=False) warns first (torch 2.9+) */
        env.print(env.print_ctx, PL_PRINT_TORCH, legacy_deprecation);
    if (req.legacy_trace && first == PL_STAGE_FX) {
        if (!pl_inputs_declared(&s->stages[first], &cfg, &env) ||
            !(ro.traced = trace_program(s, s->stages[first].fx, &cfg, req.trace_inputs, req.trace_seed))) {
            settings_free(&cfg);
            return 1;
        }
    }
    /* Re-running replaces every later stage; keep the loaded program. The stages of the last
     * run are put aside, and come back if Ctrl-C cancels this one. */
    stage_stash stash;
    session_stash_stages(s, first + 1, &stash);
    export_report rep = {.cfg = cfg, .diag_mark = s->diag.len, .failed_stage = -1};
    char *line = tokens_join(argc, argv);
    rep.command = line;
    free(s->failure_text);
    s->failure_text = NULL;
    pl_export_result res;
    int rc = pl_export(s->stages, &cfg, &ro, &env, &res) ? 0 : 1;
    memcpy(rep.ms, res.ms, sizeof rep.ms);
    memcpy(rep.ran, res.ran, sizeof rep.ran);
    rep.failed_stage = res.failed_stage;
    if (interrupt_pending()) {
        session_restore_stages(s, &stash);
        rc = 1;
    } else {
        session_drop_stash(&stash);
        s->current = last_filled(s);
    }
    /* the report is written whether the run failed or not: the failure is what it is for */
    if (req.report_path && !interrupt_pending() && !report_write(s, req.report_path, &rep, rc)) rc = 1;
    if (req.json && !interrupt_pending()) {
        strbuf sb;
        sb_init(&sb);
        report_json(s, &rep, rc, &sb);
        session_write(s, sb.s, sb.len);
        sb_free(&sb);
    }
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
    if (k == PL_STAGE_OPTIMIZED || (k == PL_STAGE_ONNX && !s->settings.optimize)) {
        session_error(s, "step: the pipeline is complete (the %s stage is the last)", session_stage_name(k));
        return 1;
    }
    if (s->stages[k].kind == PL_ONNX && k < PL_STAGE_ONNX) {
        session_error(s, "step: an ONNX model has no earlier stages to replay");
        return 1;
    }
    if (k == PL_STAGE_ONNX && s->stages[PL_STAGE_DECOMPOSED].kind == PL_EMPTY && k == s->current &&
        s->stages[k].source && strcmp(s->stages[k].source, "translate") != 0) {
        /* a loaded ONNX model: the only step left is optimize */
    }
    pl_env env = session_env(s);
    export_settings cfg;
    settings_copy(&cfg, &s->settings);
    if (k + 1 == PL_STAGE_ONNX) pl_adjust_settings(&cfg, &env);   /* as export does */
    bool ok = pl_run_stage(s->stages, k + 1, &cfg, NULL, &env);
    settings_free(&cfg);
    if (!ok) return 1;
    s->current = k + 1;
    return 0;
}

int cmd_set(session *s, int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--json")) {   /* {"settings": {name: value}} */
        strbuf sb;
        sb_init(&sb);
        json_writer w;
        cmd_json_begin(&w, &sb, "set", NULL);
        jw_key(&w, "settings");
        settings_json(&s->settings, &w);
        cmd_json_end(&w);
        session_write(s, sb.s, sb.len);
        sb_free(&sb);
        return 0;
    }
    if (argc == 1) {
        strbuf sb;
        sb_init(&sb);
        settings_print(&s->settings, &sb);
        session_write(s, sb.s, sb.len);
        sb_free(&sb);
        return 0;
    }
    /* `set NODE ARG=VALUE` edits the loaded program (the first FX stage, whichever stage is
     * current, as every edit does); settings have fixed names that nodes rarely take. */
    const stage *st = NULL;
    for (int i = 0; i < SESSION_MAX_STAGES && !st; i++)
        if (s->stages[i].kind == PL_FX) st = &s->stages[i];
    if (argc == 3 && strchr(argv[2], '=') && (argv[1][0] == '%' || (st && fx_program_find_node(st->fx, argv[1]))))
        return cmd_set_node(s, argc, argv);
    char *name = argv[1], *value = argc > 2 ? argv[2] : NULL, *eq = strchr(name, '=');
    if (eq && !value) {
        *eq = '\0';
        value = eq + 1;
    }
    if (!value) {   /* `set NAME`: that setting's line of `set` */
        strbuf sb;
        sb_init(&sb);
        bool ok = settings_print_one(&s->settings, name, &sb, &s->diag);
        if (ok) session_write(s, sb.s, sb.len);
        sb_free(&sb);
        return ok ? 0 : 1;
    }
    return settings_set(&s->settings, name, value, &s->diag) ? 0 : 1;
}

int cmd_ops(session *s, int argc, char **argv)
{
    pl_env env = session_env(s);
    if (!pl_ensure_ops(&env)) return 1;
    strbuf sb;
    sb_init(&sb);
    int rc = 0;
    if (argc == 1) {
        ops_print_list(s->ops, &sb);
    } else if (argc == 2 && !strcmp(argv[1], "--json")) {   /* {"ops": [...], "count"} */
        json_writer w;
        cmd_json_begin(&w, &sb, "ops", NULL);
        jw_key(&w, "ops");
        ops_list_json(s->ops, &w);
        jw_kint(&w, "count", (int64_t)s->ops->ntargets);
        cmd_json_end(&w);
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
        else if (session_confirm(s)) sb_printf(&sb, "loaded rules from %s\n", argv[2]);
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
    if (st->kind == PL_FX) collect_fx(st->fx, l);
    else if (st->kind == PL_ONNX) collect_onnx(st->onnx, l);
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

/* A side of `diff`: a stage, or an ONNX model file read outside the session (as compare and
 * verify take one: fxsh's stage against torch.onnx's onnx_dynamo.onnx). */
typedef struct diff_side {
    const char *label;
    pl_stage_kind kind;
    diff_list list;
} diff_side;

static bool diff_resolve(session *s, const char *what, diff_side *d)
{
    d->label = what;
    int idx = session_stage_index(what);
    if (idx >= 0) {
        const stage *st = &s->stages[idx];
        if (st->kind == PL_EMPTY) {
            session_error(s, "diff: the %s stage is empty", what);
            return false;
        }
        d->label = st->name;
        d->kind = st->kind;
        collect_stage(st, &d->list);
        return true;
    }
    if (access(what, R_OK) != 0) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "diff: '%s' is neither a stage nor a readable file", what);
        diag_set_hint(dg, "stages: fx, exported, decomposed, onnx, optimized; or an .onnx / ONNX text file");
        return false;
    }
    ox_model *m = cmd_load_model_file(s, "diff", what);
    if (!m) return false;
    d->kind = PL_ONNX;
    collect_onnx(m, &d->list);
    ox_model_free(m);
    return true;
}

int cmd_diff(session *s, int argc, char **argv)
{
    bool json;
    if (!cmd_json_option(s, &argc, argv, 2, &json)) return 1;
    if (argc < 3) {
        session_error(s, "diff: which stages? (usage: diff A B [--json])");
        return 1;
    }
    diff_side side[2] = {{0}};
    if (!diff_resolve(s, argv[1], &side[0]) || !diff_resolve(s, argv[2], &side[1])) {
        free_list(&side[0].list);
        free_list(&side[1].list);
        return 1;
    }
    diff_list a = side[0].list, b = side[1].list;
    hashmap in_a, in_b;
    hm_init(&in_a);
    hm_init(&in_b);
    for (size_t i = 0; i < a.len; i++) hm_put(&in_a, a.items[i].key, &a.items[i]);
    for (size_t i = 0; i < b.len; i++) hm_put(&in_b, b.items[i].key, &b.items[i]);
    size_t added = 0, removed = 0, changed = 0;
    bool comparable = side[0].kind == side[1].kind;
    strbuf js;
    sb_init(&js);
    json_writer jw, *w = json ? &jw : NULL;
    if (w) {
        jw_init(w, &js);
        jw_object(w);
        jw_kint(w, "fxsh", JSON_SCHEMA_VERSION);
        jw_kstring(w, "command", "diff");
        jw_kstring(w, "from", side[0].label);
        jw_kstring(w, "to", side[1].label);
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
        fprintf(s->out, "%s -> %s: %zu added, %zu removed, %zu changed (%zu -> %zu nodes)\n", side[0].label,
                side[1].label, added, removed, changed, a.len, b.len);
    }
    sb_free(&js);
    hm_free(&in_a);
    hm_free(&in_b);
    free_list(&a);
    free_list(&b);
    return 0;
}
