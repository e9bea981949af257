/* cmd_report.c — `export --report FILE.md|FILE.html` (torch.onnx's report=True) and `dot --svg` through Graphviz. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file.h"
#include "base/hashmap.h"
#include "base/json_write.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_format.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_ir.h"
#include "view/onnx_dot.h"
#include "repl/cmd_handlers.h"

/* Nodes of a stage, subgraphs included. */
static void count_name(const char *name, void *ctx)
{
    (void)name;
    ++*(size_t *)ctx;
}

static size_t onnx_nodes(const Onnx__GraphProto *g, int depth)
{
    size_t n = 0;
    for (size_t i = 0; g && depth < 64 && i < g->n_node; i++) {
        n++;
        for (size_t a = 0; a < g->node[i]->n_attribute; a++) {
            const Onnx__AttributeProto *at = g->node[i]->attribute[a];
            n += onnx_nodes(at->g, depth + 1);
            for (size_t k = 0; k < at->n_graphs; k++) n += onnx_nodes(at->graphs[k], depth + 1);
        }
    }
    return n;
}

static size_t stage_nodes(const stage *st)
{
    size_t n = 0;
    if (st->kind == PL_FX) fx_each_node_name(st->fx, count_name, &n);
    else if (st->kind == PL_ONNX) n = onnx_nodes(st->onnx->proto->graph, 0);
    return n;
}

/* Nodes of the stage's main graph only (what `load` and `summary` count). */
static size_t stage_main_nodes(const stage *st)
{
    if (st->kind == PL_FX) return fx_program_graph(st->fx) ? fx_program_graph(st->fx)->n_nodes : 0;
    return st->kind == PL_ONNX && st->onnx->proto->graph ? st->onnx->proto->graph->n_node : 0;
}

/* The op histogram of an ONNX model (main graph and subgraphs), most used first. */
typedef struct op_row {
    char *op;
    size_t count;
} op_row;
typedef VEC(op_row) op_rows;

static void count_ops(const Onnx__GraphProto *g, int depth, hashmap *index, op_rows *rows)
{
    for (size_t i = 0; g && depth < 64 && i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        strbuf key;
        sb_init(&key);
        if (n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx")) sb_printf(&key, "%s.", n->domain);
        sb_puts(&key, n->op_type ? n->op_type : "");
        uintptr_t at = (uintptr_t)hm_get(index, key.s);
        if (!at) {
            op_row r = {sb_detach(&key), 0};
            vec_push(rows, r);
            at = rows->len;
            hm_put(index, rows->items[at - 1].op, (void *)at);
        } else {
            sb_free(&key);
        }
        rows->items[at - 1].count++;
        for (size_t a = 0; a < n->n_attribute; a++) {
            count_ops(n->attribute[a]->g, depth + 1, index, rows);
            for (size_t k = 0; k < n->attribute[a]->n_graphs; k++)
                count_ops(n->attribute[a]->graphs[k], depth + 1, index, rows);
        }
    }
}

static int by_count(const void *a, const void *b)
{
    const op_row *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return strcmp(x->op, y->op);
}

/* The op histogram of the model the run made last (the optimized or onnx stage), most used
 * first, in *rows (free with op_rows_free); NULL when the run made no model. */
static const stage *run_histogram(session *s, const export_report *r, op_rows *rows)
{
    const stage *model = NULL;
    for (int i = SESSION_MAX_STAGES - 1; i >= 0 && !model; i--)
        if (s->stages[i].kind == PL_ONNX && r->ran[i]) model = &s->stages[i];
    memset(rows, 0, sizeof *rows);
    if (!model) return NULL;
    hashmap index;
    hm_init(&index);
    count_ops(model->onnx->proto->graph, 0, &index, rows);
    hm_free(&index);
    if (rows->len) qsort(rows->items, rows->len, sizeof *rows->items, by_count);
    return model;
}

static void op_rows_free(op_rows *rows)
{
    for (size_t i = 0; i < rows->len; i++) free(rows->items[i].op);
    vec_free(rows);
}

/* Markdown table cells hold no "|" or newline. */
static void cell(strbuf *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|') sb_puts(out, "\\|");
        else if (*s == '\n') sb_putc(out, ' ');
        else sb_putc(out, *s);
    }
}

/* Text of several lines as a fenced block inside a list item (indented under it), so that a
 * YAML rule or a stack in a hint can be copied as it is. */
static void fenced(strbuf *out, const char *text)
{
    sb_puts(out, "\n\n  ```\n");
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        sb_printf(out, "  %.*s\n", (int)len, p);
        p += len + (eol ? 1 : 0);
    }
    sb_puts(out, "  ```\n");
}

static void diag_item(strbuf *out, const diagnostic *d)
{
    static const char *const sev[] = {"note", "warning", "error"};
    sb_printf(out, "- **%s**: ", d->severity <= DIAG_ERROR ? sev[d->severity] : "error");
    if (d->file) {   /* file:line, or the file alone when the error has no line */
        sb_printf(out, "`%s", d->file);
        if (d->line > 0) sb_printf(out, ":%d", d->line);
        sb_puts(out, "`: ");
    }
    bool block = strchr(d->message, '\n') != NULL;
    if (block) {
        sb_puts(out, "the message:");
        fenced(out, d->message);
    } else {
        cell(out, d->message);
    }
    if (d->hint && strchr(d->hint, '\n')) {
        sb_puts(out, block ? "\n  hint:" : " — hint:");
        fenced(out, d->hint);
        return;
    }
    if (d->hint) {
        sb_puts(out, block ? "\n  hint: " : " — hint: ");
        cell(out, d->hint);
    }
    if (!block || d->hint) sb_putc(out, '\n');
}

static void report_text(session *s, const export_report *r, int rc, strbuf *out)
{
    const stage *loaded = NULL;
    for (int i = 0; i < SESSION_MAX_STAGES && !loaded; i++)
        if (s->stages[i].kind != PL_EMPTY) loaded = &s->stages[i];
    sb_puts(out, "# fxsh export report\n\n");
    sb_printf(out, "- program: `%s`\n", s->load_command ? s->load_command : loaded && loaded->source ? loaded->source : "?");
    if (loaded && loaded->fx && loaded->fx->root && loaded->fx->root->type)
        sb_printf(out, "- model: `%s`\n", loaded->fx->root->type);
    sb_printf(out, "- command: `%s`\n", r->command);
    if (rc) sb_printf(out, "- result: **failed** at the %s stage\n", session_stage_name(r->failed_stage));
    else sb_puts(out, "- result: succeeded\n");
    if (s->n_undo) {   /* the patches the exported program carries */
        sb_puts(out, "\n## Edits since the load\n\n");
        for (size_t i = 0; i < s->n_undo; i++) sb_printf(out, "%zu. `%s`\n", i + 1, s->undo[i].command);
    }
    sb_puts(out, "\n## Settings\n\n```\n");
    settings_print(&r->cfg, out);
    sb_puts(out, "```\n\n## Stages\n\n| stage | made by | nodes | time |\n|---|---|---|---|\n");
    for (int i = 0; i < SESSION_MAX_STAGES; i++) {
        const stage *st = &s->stages[i];
        if (st->kind == PL_EMPTY && !(rc && i == r->failed_stage)) continue;
        sb_printf(out, "| %s | ", st->name);
        cell(out, st->kind == PL_EMPTY ? "failed" : st->source);
        size_t all = st->kind == PL_EMPTY ? 0 : stage_nodes(st), main = st->kind == PL_EMPTY ? 0 : stage_main_nodes(st);
        if (st->kind == PL_EMPTY) sb_puts(out, " | - | ");
        else if (all == main) sb_printf(out, " | %zu | ", all);
        else sb_printf(out, " | %zu (%zu in the main graph) | ", all, main);   /* `load` says the main graph's */
        if (r->ran[i]) sb_printf(out, "%.1f ms |\n", r->ms[i]);
        else sb_puts(out, "loaded |\n");
    }
    op_rows rows;
    const stage *model = run_histogram(s, r, &rows);
    if (model) {
        sb_printf(out, "\n## Operators (%s stage)\n\n| op | count |\n|---|---|\n", model->name);
        for (size_t i = 0; i < rows.len; i++) sb_printf(out, "| %s | %zu |\n", rows.items[i].op, rows.items[i].count);
    }
    op_rows_free(&rows);
    /* what the run decided or warned about: specialized branches, folded checks, unrolled loops,
     * weights without values (notes and warnings); then the failure */
    size_t decisions = 0;
    for (size_t i = r->diag_mark; i < s->diag.len; i++) decisions += s->diag.items[i].severity != DIAG_ERROR;
    sb_puts(out, "\n## Decisions and warnings\n\n");
    if (!decisions) sb_puts(out, "None.\n");
    for (size_t i = r->diag_mark; i < s->diag.len; i++)
        if (s->diag.items[i].severity != DIAG_ERROR) diag_item(out, &s->diag.items[i]);
    if (rc) {
        sb_puts(out, "\n## Failure\n\n");
        for (size_t i = r->diag_mark; i < s->diag.len; i++)
            if (s->diag.items[i].severity == DIAG_ERROR) diag_item(out, &s->diag.items[i]);
        if (s->failure_text && s->failure_text[0]) {
            sb_puts(out, "\nWhat torch prints:\n\n```\n");
            sb_puts(out, s->failure_text);
            if (s->failure_text[strlen(s->failure_text) - 1] != '\n') sb_putc(out, '\n');
            sb_puts(out, "```\n");
        }
    }
}

/*==== the HTML form: one self-contained file ====*/

static bool svg_text(const char *dot_text, size_t len, strbuf *svg, char *why, size_t cap);

static void html(strbuf *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': sb_puts(out, "&amp;"); break;
        case '<': sb_puts(out, "&lt;"); break;
        case '>': sb_puts(out, "&gt;"); break;
        case '"': sb_puts(out, "&quot;"); break;
        default: sb_putc(out, *s);
        }
    }
}

static void html_pre(strbuf *out, const char *s)
{
    sb_puts(out, "<pre>");
    html(out, s);
    sb_puts(out, "</pre>\n");
}

static void html_diag(strbuf *out, const diagnostic *d)
{
    static const char *const sev[] = {"note", "warning", "error"};
    const char *name = d->severity <= DIAG_ERROR ? sev[d->severity] : "error";
    sb_printf(out, "<li class=\"%s\"><b>%s</b>: ", name, name);
    if (d->file) {
        sb_puts(out, "<code>");
        html(out, d->file);
        if (d->line > 0) sb_printf(out, ":%d", d->line);
        sb_puts(out, "</code>: ");
    }
    if (strchr(d->message, '\n')) html_pre(out, d->message);
    else html(out, d->message);
    if (d->hint) {
        sb_puts(out, "<br>hint: ");
        if (strchr(d->hint, '\n')) html_pre(out, d->hint);
        else html(out, d->hint);
    }
    sb_puts(out, "</li>\n");
}

/* The node an error names ("... at %if_1: ...", "(node %polygamma)"), in program p; NULL if none. */
static const fx_node *failing_node(const fx_program *p, const char *message)
{
    for (const char *m = message ? strchr(message, '%') : NULL; m; m = strchr(m + 1, '%')) {
        size_t n = 0;
        while (m[1 + n] && (fx_is_ident_char(m[1 + n]) || m[1 + n] == '.')) n++;
        if (!n) continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)n, m + 1);
        const fx_node *node = fx_program_find_node(p, name);
        if (node) return node;
    }
    return NULL;
}

static void neighbour_row(strbuf *out, const char *role, const fx_node *n)
{
    sb_printf(out, "<tr><td>%s</td><td><code>", role);
    html(out, n->name);
    sb_puts(out, "</code></td><td>");
    html(out, fx_opcode_name(n->op));
    sb_puts(out, "</td><td><code>");
    html(out, n->target);
    sb_puts(out, "</code></td><td>");
    if (n->meta.val) {
        strbuf v;
        sb_init(&v);
        fx_value_annot(&v, n->meta.val);
        html(out, v.s);
        sb_free(&v);
    }
    sb_puts(out, "</td></tr>\n");
}

typedef struct inputs_ctx {
    strbuf *out;
    const fx_node *seen[64];
    size_t n;
} inputs_ctx;

static void input_row(fx_node *n, void *vctx)
{
    inputs_ctx *c = vctx;
    for (size_t i = 0; i < c->n; i++)
        if (c->seen[i] == n) return;
    if (c->n < 64) c->seen[c->n++] = n;
    neighbour_row(c->out, "input", n);
}

/* The failing node with the nodes it reads and the nodes that read it. */
static void html_neighbourhood(strbuf *out, const fx_node *n, const char *stage_name)
{
    sb_printf(out, "<h3>Its neighbourhood (%s stage)</h3>\n<table>\n<tr><th></th><th>node</th><th>op</th><th>target</th>"
                   "<th>value</th></tr>\n", stage_name);
    inputs_ctx c = {.out = out};
    fx_arg_each_node(n->args, input_row, &c);
    fx_arg_each_node(n->kwargs, input_row, &c);
    neighbour_row(out, "<b>failed</b>", n);
    for (size_t i = 0; i < n->n_users; i++) neighbour_row(out, "user", n->users[i]);
    sb_puts(out, "</table>\n");
    if (n->meta.stack_trace) {
        sb_puts(out, "<p>Where it comes from:</p>\n");
        html_pre(out, n->meta.stack_trace);
    }
}

static void report_html(session *s, const export_report *r, int rc, strbuf *out)
{
    const stage *loaded = NULL;
    for (int i = 0; i < SESSION_MAX_STAGES && !loaded; i++)
        if (s->stages[i].kind != PL_EMPTY) loaded = &s->stages[i];
    sb_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>fxsh export report</title>\n"
                 "<style>\nbody{font-family:sans-serif;margin:2em;max-width:80em}\n"
                 "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}\n"
                 "pre{background:#f6f6f6;padding:.6em;overflow-x:auto}.error b{color:#b00}.warning b{color:#a60}\n"
                 ".graph{overflow:auto;border:1px solid #ccc}\n</style>\n</head>\n<body>\n<h1>fxsh export report</h1>\n<ul>\n");
    sb_puts(out, "<li>program: <code>");
    html(out, s->load_command ? s->load_command : loaded && loaded->source ? loaded->source : "?");
    sb_puts(out, "</code></li>\n");
    if (loaded && loaded->fx && loaded->fx->root && loaded->fx->root->type) {
        sb_puts(out, "<li>model: <code>");
        html(out, loaded->fx->root->type);
        sb_puts(out, "</code></li>\n");
    }
    sb_puts(out, "<li>command: <code>");
    html(out, r->command);
    sb_puts(out, "</code></li>\n");
    if (rc) sb_printf(out, "<li>result: <b class=\"error\">failed</b> at the %s stage</li>\n", session_stage_name(r->failed_stage));
    else sb_puts(out, "<li>result: succeeded</li>\n");
    sb_puts(out, "</ul>\n");
    if (s->n_undo) {
        sb_puts(out, "<h2>Edits since the load</h2>\n<ol>\n");
        for (size_t i = 0; i < s->n_undo; i++) {
            sb_puts(out, "<li><code>");
            html(out, s->undo[i].command);
            sb_puts(out, "</code></li>\n");
        }
        sb_puts(out, "</ol>\n");
    }
    strbuf t;
    sb_init(&t);
    settings_print(&r->cfg, &t);
    sb_puts(out, "<h2>Settings</h2>\n");
    html_pre(out, t.s);
    sb_puts(out, "<h2>Stages</h2>\n<table>\n<tr><th>stage</th><th>made by</th><th>nodes</th><th>in the main graph</th>"
                 "<th>time</th></tr>\n");
    for (int i = 0; i < SESSION_MAX_STAGES; i++) {
        const stage *st = &s->stages[i];
        if (st->kind == PL_EMPTY && !(rc && i == r->failed_stage)) continue;
        sb_printf(out, "<tr><td>%s</td><td>", st->name);
        html(out, st->kind == PL_EMPTY ? "failed" : st->source);
        if (st->kind == PL_EMPTY) sb_puts(out, "</td><td>-</td><td>-</td>");
        else sb_printf(out, "</td><td>%zu</td><td>%zu</td>", stage_nodes(st), stage_main_nodes(st));
        if (r->ran[i]) sb_printf(out, "<td>%.1f ms</td></tr>\n", r->ms[i]);
        else sb_puts(out, "<td>loaded</td></tr>\n");
    }
    sb_puts(out, "</table>\n");
    /* the picture: the last stage the run made (or the one before the failure) */
    const stage *shown = NULL;
    for (int i = SESSION_MAX_STAGES - 1; i >= 0 && !shown; i--)
        if (s->stages[i].kind != PL_EMPTY) shown = &s->stages[i];
    if (shown) {
        sb_reset(&t);
        if (shown->kind == PL_FX) fx_print_dot(shown->fx, &t);
        else view_dot(shown->onnx, &t);
        sb_printf(out, "<h2>Graph (%s stage)</h2>\n", shown->name);
        strbuf svg;
        sb_init(&svg);
        char why[256];
        if (svg_text(t.s, t.len, &svg, why, sizeof why)) {
            sb_puts(out, "<div class=\"graph\">\n");
            sb_putn(out, svg.s, svg.len);
            sb_puts(out, "</div>\n");
        } else {
            sb_puts(out, "<p>No picture: ");
            html(out, why);
            sb_puts(out, ". Install Graphviz (<code>apt-get install graphviz</code>) and export again, or write the DOT "
                         "text with <code>dot FILE.dot</code>.</p>\n");
        }
        sb_free(&svg);
    }
    op_rows rows;
    const stage *model = run_histogram(s, r, &rows);
    if (model) {
        sb_printf(out, "<h2>Operators (%s stage)</h2>\n<table>\n<tr><th>op</th><th>count</th></tr>\n", model->name);
        for (size_t i = 0; i < rows.len; i++) {
            sb_puts(out, "<tr><td>");
            html(out, rows.items[i].op);
            sb_printf(out, "</td><td>%zu</td></tr>\n", rows.items[i].count);
        }
        sb_puts(out, "</table>\n");
    }
    op_rows_free(&rows);
    sb_puts(out, "<h2>Decisions and warnings</h2>\n");
    size_t decisions = 0;
    for (size_t i = r->diag_mark; i < s->diag.len; i++) decisions += s->diag.items[i].severity != DIAG_ERROR;
    if (!decisions) sb_puts(out, "<p>None.</p>\n");
    else {
        sb_puts(out, "<ul>\n");
        for (size_t i = r->diag_mark; i < s->diag.len; i++)
            if (s->diag.items[i].severity != DIAG_ERROR) html_diag(out, &s->diag.items[i]);
        sb_puts(out, "</ul>\n");
    }
    if (rc) {
        sb_puts(out, "<h2>Failure</h2>\n<ul>\n");
        const fx_node *at = NULL;
        const stage *input = r->failed_stage > 0 ? &s->stages[r->failed_stage - 1] : NULL;
        for (size_t i = r->diag_mark; i < s->diag.len; i++) {
            if (s->diag.items[i].severity != DIAG_ERROR) continue;
            html_diag(out, &s->diag.items[i]);
            if (!at && input && input->kind == PL_FX) at = failing_node(input->fx, s->diag.items[i].message);
        }
        sb_puts(out, "</ul>\n");
        if (at) html_neighbourhood(out, at, input->name);
        if (s->failure_text && s->failure_text[0]) {
            sb_puts(out, "<h3>What torch prints</h3>\n");
            html_pre(out, s->failure_text);
        }
    }
    sb_free(&t);
    sb_puts(out, "</body>\n</html>\n");
}

/*==== export --json ====*/

static void json_diags(json_writer *w, const char *key, session *s, size_t from, bool errors)
{
    static const char *const sev[] = {"note", "warning", "error"};
    jw_key(w, key);
    jw_array(w);
    for (size_t i = from; i < s->diag.len; i++) {
        const diagnostic *d = &s->diag.items[i];
        if ((d->severity == DIAG_ERROR) != errors) continue;
        jw_object(w);
        if (!errors) jw_kstring(w, "severity", d->severity <= DIAG_ERROR ? sev[d->severity] : "error");
        jw_kstring(w, "message", d->message);
        jw_kstring(w, "hint", d->hint);
        jw_kstring(w, "file", d->file);
        jw_key(w, "line");
        if (d->line > 0) jw_int(w, d->line);
        else jw_null(w);
        jw_object_end(w);
    }
    jw_array_end(w);
}

void report_json(session *s, const export_report *r, int rc, strbuf *out)
{
    json_writer w;
    const stage *last = session_current(s);
    cmd_json_begin(&w, out, "export", last ? last->name : NULL);
    jw_kbool(&w, "ok", rc == 0);
    jw_kstring(&w, "failed_stage", rc && r->failed_stage >= 0 ? session_stage_name(r->failed_stage) : NULL);
    jw_key(&w, "stages");
    jw_array(&w);
    for (int i = 0; i < SESSION_MAX_STAGES; i++) {
        const stage *st = &s->stages[i];
        if (st->kind == PL_EMPTY && !(rc && i == r->failed_stage)) continue;
        jw_object(&w);
        jw_kstring(&w, "name", st->name);
        jw_kstring(&w, "made_by", st->kind == PL_EMPTY ? NULL : st->source);
        jw_key(&w, "nodes");
        if (st->kind == PL_EMPTY) jw_null(&w);
        else jw_uint(&w, stage_nodes(st));
        jw_key(&w, "main_graph_nodes");
        if (st->kind == PL_EMPTY) jw_null(&w);
        else jw_uint(&w, stage_main_nodes(st));
        jw_key(&w, "ms");   /* null: loaded, not made by this run */
        if (r->ran[i]) jw_double(&w, r->ms[i]);
        else jw_null(&w);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    op_rows rows;
    const stage *model = run_histogram(s, r, &rows);
    jw_key(&w, "ops");
    jw_object(&w);
    for (size_t i = 0; model && i < rows.len; i++) {
        jw_key(&w, rows.items[i].op);
        jw_uint(&w, rows.items[i].count);
    }
    jw_object_end(&w);
    op_rows_free(&rows);
    json_diags(&w, "warnings", s, r->diag_mark, false);   /* the run's decisions and warnings */
    json_diags(&w, "errors", s, r->diag_mark, true);
    cmd_json_end(&w);
}

static bool is_html(const char *path)
{
    size_t n = strlen(path);
    return (n >= 5 && !strcasecmp(path + n - 5, ".html")) || (n >= 4 && !strcasecmp(path + n - 4, ".htm"));
}

bool report_write(session *s, const char *path, const export_report *r, int rc)
{
    strbuf text;
    sb_init(&text);
    if (is_html(path)) report_html(s, r, rc, &text);   /* FILE.html: self-contained, the graph inline */
    else report_text(s, r, rc, &text);
    atomic_file af;
    bool ok = file_create(&af, path, &s->diag);
    if (ok && file_write(&af, text.s, text.len, &s->diag)) ok = file_commit(&af, &s->diag);
    else if (ok) {
        file_abort(&af);
        ok = false;
    }
    sb_free(&text);
    if (ok && session_confirm(s)) fprintf(s->out, "wrote the report to %s\n", path);
    return ok;
}

/* Runs Graphviz: `dot -Tsvg -o path` reading the DOT text on its standard input. Returns 0, or
 * the errno of a dot that could not be started (*status: its exit status otherwise). */
static int run_dot(const char *dot_text, size_t len, const char *path, int *status)
{
    int in[2], status_pipe[2];
    *status = 0;
    if (pipe(in) != 0) return errno;
    if (pipe(status_pipe) != 0) {
        int e = errno;
        close(in[0]);
        close(in[1]);
        return e;
    }
    fcntl(status_pipe[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(in[0]);
        close(in[1]);
        close(status_pipe[0]);
        close(status_pipe[1]);
        return e;
    }
    if (pid == 0) {
        dup2(in[0], 0);
        close(in[0]);
        close(in[1]);
        close(status_pipe[0]);
        const char *dot = getenv("FXSH_DOT");
        execlp(dot && dot[0] ? dot : "dot", "dot", "-Tsvg", "-o", path, (char *)NULL);
        int e = errno;   /* tell the parent why exec failed */
        if (write(status_pipe[1], &e, sizeof e) < 0) _exit(127);
        _exit(127);
    }
    close(in[0]);
    close(status_pipe[1]);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(in[1], dot_text + off, len - off);
        if (n <= 0) break;
        off += (size_t)n;
    }
    close(in[1]);
    signal(SIGPIPE, old);
    int exec_errno = 0;
    ssize_t got = read(status_pipe[0], &exec_errno, sizeof exec_errno);
    close(status_pipe[0]);
    waitpid(pid, status, 0);
    if (got == (ssize_t)sizeof exec_errno) return exec_errno ? exec_errno : ENOENT;
    if (!WIFEXITED(*status)) *status = -1;
    else *status = WEXITSTATUS(*status);
    return 0;
}

bool render_svg(session *s, const char *dot_text, size_t len, const char *path)
{
    int status;
    int e = run_dot(dot_text, len, path, &status);
    if (e) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "dot --svg: cannot run Graphviz's dot: %s", strerror(e));
        diag_set_hint(dg, "install Graphviz (apt-get install graphviz), or write the DOT text: dot FILE.dot");
        return false;
    }
    if (status != 0) {
        session_error(s, "dot --svg: Graphviz's dot failed (exit status %d)", status);
        return false;
    }
    if (session_confirm(s)) fprintf(s->out, "rendered the graph to %s\n", path);
    return true;
}

/* The SVG Graphviz makes of dot_text, appended to svg (from "<svg" on: inline in HTML); false,
 * with why in *why, when dot is not installed or fails. */
static bool svg_text(const char *dot_text, size_t len, strbuf *svg, char *why, size_t cap)
{
    const char *tmpdir = getenv("TMPDIR");
    strbuf path;
    sb_init(&path);
    sb_printf(&path, "%s/fxsh-report-XXXXXX", tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    int fd = mkstemp(path.s);
    if (fd < 0) {
        snprintf(why, cap, "no temporary file for Graphviz's output: %s", strerror(errno));
        sb_free(&path);
        return false;
    }
    close(fd);
    int status;
    int e = run_dot(dot_text, len, path.s, &status);
    bool ok = false;
    if (e) snprintf(why, cap, "Graphviz's dot could not be run (%s)", strerror(e));
    else if (status) snprintf(why, cap, "Graphviz's dot failed (exit status %d)", status);
    else {
        FILE *f = fopen(path.s, "r");
        strbuf all;
        sb_init(&all);
        char buf[65536];
        size_t n;
        while (f && (n = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&all, buf, n);
        if (f) fclose(f);
        const char *start = strstr(all.s, "<svg");   /* past the XML prolog and DOCTYPE */
        if (start) {
            sb_puts(svg, start);
            ok = true;
        } else {
            snprintf(why, cap, "Graphviz's dot wrote no SVG");
        }
        sb_free(&all);
    }
    unlink(path.s);
    sb_free(&path);
    return ok;
}
