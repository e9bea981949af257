/* cmd_report.c — `export --report FILE.md` (torch.onnx's report=True) and `dot --svg` through Graphviz. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_ir.h"
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
    /* the model the run made last */
    const stage *model = NULL;
    for (int i = SESSION_MAX_STAGES - 1; i >= 0 && !model; i--)
        if (s->stages[i].kind == PL_ONNX && r->ran[i]) model = &s->stages[i];
    if (model) {
        hashmap index;
        hm_init(&index);
        op_rows rows = {0};
        count_ops(model->onnx->proto->graph, 0, &index, &rows);
        if (rows.len) qsort(rows.items, rows.len, sizeof *rows.items, by_count);
        sb_printf(out, "\n## Operators (%s stage)\n\n| op | count |\n|---|---|\n", model->name);
        for (size_t i = 0; i < rows.len; i++) {
            sb_printf(out, "| %s | %zu |\n", rows.items[i].op, rows.items[i].count);
            free(rows.items[i].op);
        }
        vec_free(&rows);
        hm_free(&index);
    }
    /* what the run decided or warned about: specialized branches, folded checks, weights without
     * values (notes and warnings); then the failure */
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

bool report_write(session *s, const char *path, const export_report *r, int rc)
{
    strbuf text;
    sb_init(&text);
    report_text(s, r, rc, &text);
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

/* Runs Graphviz: `dot -Tsvg -o path` reading the DOT text on its standard input. */
bool render_svg(session *s, const char *dot_text, size_t len, const char *path)
{
    int in[2], status_pipe[2];
    if (pipe(in) != 0) {
        session_error(s, "dot --svg: cannot start Graphviz: %s", strerror(errno));
        return false;
    }
    if (pipe(status_pipe) != 0) {
        close(in[0]);
        close(in[1]);
        session_error(s, "dot --svg: cannot start Graphviz: %s", strerror(errno));
        return false;
    }
    fcntl(status_pipe[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        session_error(s, "dot --svg: cannot start Graphviz: %s", strerror(errno));
        close(in[0]);
        close(in[1]);
        close(status_pipe[0]);
        close(status_pipe[1]);
        return false;
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
    int status = 0;
    waitpid(pid, &status, 0);
    if (got == (ssize_t)sizeof exec_errno) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "dot --svg: cannot run Graphviz's dot: %s",
                                    strerror(exec_errno));
        diag_set_hint(dg, "install Graphviz (apt-get install graphviz), or write the DOT text: dot FILE.dot");
        return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        session_error(s, "dot --svg: Graphviz's dot failed (exit status %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return false;
    }
    if (session_confirm(s)) fprintf(s->out, "rendered the graph to %s\n", path);
    return true;
}
