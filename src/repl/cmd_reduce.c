/* cmd_reduce.c — `reduce`: the smallest part of a program or model that still fails, printed in
 * torch's and onnx's forms and saved as a reproducer (cmd_reduce_export.c, cmd_reduce_values.c
 * and cmd_reduce_check.c find it). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/json_write.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "load/pt2_save.h"
#include "onnx/onnx_pb.h"
#include "onnx/onnx_print.h"
#include "pipeline/settings.h"
#include "view/onnx_npz.h"
#include "repl/cmd_handlers.h"
#include "repl/cmd_reduce.h"

void reduce_result_free(reduce_result *r)
{
    free(r->failure);
    free(r->stage);
    free(r->reference);
    free(r->target);
    if (r->program) fx_program_free(r->program);
    free(r->program_note);
    if (r->model) ox_model_free(r->model);
    free(r->model_note);
    if (r->reference_model) ox_model_free(r->reference_model);
    view_values_free(&r->inputs);
    view_values_free(&r->expected);
    free(r->inputs_note);
    for (int i = 0; i < PL_N_STAGES; i++) pl_stage_clear(&r->held[i]);
    memset(r, 0, sizeof *r);
}

/* ONNX text with the tensors of more than 16 values elided, as `show` prints on a terminal: the
 * reproducer's files hold the values */
static void model_text(const ox_model *m, strbuf *sb)
{
    ox_print_opts po = {.elide_values = 1, .elide_over = 16};
    ox_print_model_opts(m->proto, sb, NULL, &po);
    if (sb->len && sb->s[sb->len - 1] != '\n') sb_putc(sb, '\n');
}

static void program_text(const fx_program *p, strbuf *sb)
{
    fx_print(p, FX_FORM_GRAPH, sb);
    if (sb->len && sb->s[sb->len - 1] != '\n') sb_putc(sb, '\n');
}

/* ---- the reproducer ---------------------------------------------------------------------------- */

static bool write_values(const char *path, const oe_values *v, diag_sink *d)
{
    const char **names = xcalloc(v->len + 1, sizeof *names);
    const oe_tensor **vals = xcalloc(v->len + 1, sizeof *vals);
    for (size_t i = 0; i < v->len; i++) {
        names[i] = v->items[i].name;
        vals[i] = &v->items[i].value;
    }
    int rc = npz_write(path, names, vals, v->len, d);
    free(names);
    free(vals);
    return rc == 0;
}

/* `set NAME 'VALUE'` for each export setting that differs from its default: the export the
 * reproducer replays runs with the settings the failing one ran with. */
static void settings_script(const export_settings *cur, strbuf *script)
{
    export_settings def;
    settings_init(&def);
    strbuf a, b;
    sb_init(&a);
    sb_init(&b);
    for (size_t i = 0; settings_name(i); i++) {
        sb_reset(&a);
        sb_reset(&b);
        settings_print_one(cur, settings_name(i), &a, NULL);
        settings_print_one(&def, settings_name(i), &b, NULL);
        if (!a.s || !b.s || !strcmp(a.s, b.s)) continue;
        /* the row is "NAME   VALUE   # what it means" */
        const char *v = a.s + strlen(settings_name(i));
        while (*v == ' ') v++;
        const char *e = strstr(v, "  #");
        size_t len = e ? (size_t)(e - v) : strcspn(v, "\n");
        while (len && v[len - 1] == ' ') len--;
        sb_printf(script, "set %s '%.*s'\n", settings_name(i), (int)len, v);
    }
    sb_free(&a);
    sb_free(&b);
    settings_free(&def);
}

/* The fxsh commands that fail the same way, run in the reproducer's folder, and the README that
 * says what they show. */
static void reproducer_text(session *s, const reduce_result *r, bool have_program, strbuf *script, strbuf *readme)
{
    sb_puts(readme, "# fxsh reduce: a reproducer\n\n");
    if (!strcmp(r->mode, "export")) {
        sb_puts(script, "load program.pt2\n");
        settings_script(&s->settings, script);
        sb_puts(script, "export\n");
        sb_printf(readme, "The export of `program.pt2` fails at %s:\n\n    %s\n\n", r->stage, r->failure);
        sb_printf(readme, "It is the %s reduced from %zu nodes to %zu around the node %%%s: the values the\n"
                          "kept nodes read from the others are the program's inputs. Reproduce it with\n\n"
                          "    fxsh -f reproduce.fxsh        # or: fxsh -c 'load program.pt2' -c export\n\n",
                  r->what, r->nodes_before, r->nodes_after, r->target);
        sb_puts(readme, "or with torch: `torch.onnx.export(torch.export.load('program.pt2'), dynamo=True)`.\n");
        if (r->model) sb_puts(readme, "`model.onnx` is what the stages before the failing one make of it.\n");
    } else if (!strcmp(r->mode, "check")) {
        sb_puts(script, "load model.onnx\ncheck\n");
        sb_printf(readme, "`check` rejects `model.onnx` (nodes of %s):\n\n    %s\n\n", r->stage, r->failure);
        sb_printf(readme, "The model was reduced from %zu nodes to %zu around %s: the values the kept nodes\n"
                          "read from the others are graph inputs of their declared types. Reproduce it with\n\n"
                          "    fxsh -f reproduce.fxsh\n",
                  r->nodes_before, r->nodes_after, r->target);
        return;
    } else {
        sb_puts(script, "load model.onnx\nverify --inputs inputs.npz --expected expected.npz\n");
        sb_printf(readme, "The value %s of `model.onnx` (nodes of %s) differs from %s's:\n\n    %s\n\n", r->target,
                  r->stage, r->reference, r->failure);
        sb_printf(readme, "The %s was reduced from %zu nodes to %zu: the values the kept nodes read from the\n"
                          "others are inputs holding %s's values. Reproduce it with\n\n"
                          "    fxsh -f reproduce.fxsh\n\n"
                          "(`verify` fails: `expected.npz` holds %s's value of %s).\n",
                  r->what, r->nodes_before, r->nodes_after, r->reference, r->reference, r->target);
        if (r->reference_model)
            sb_puts(readme, "`reference.onnx` holds the reference's nodes for the same value:\n\n"
                            "    fxsh -c 'compare model.onnx reference.onnx --inputs inputs.npz'\n\n");
        if (have_program)
            sb_printf(readme, "`program.pt2` holds the same nodes of the %s stage's FX program.\n",
                      pl_stage_name(r->program_stage));
    }
    sb_printf(readme, "\n`inputs.npz` holds the inputs: %s.\n", r->inputs_note ? r->inputs_note : "");
}

/* Writes the reproducer's files into dir; a folder that does not exist yet is made whole under a
 * temporary name and renamed into place, so that a failure leaves nothing behind. */
static bool save_reproducer(session *s, const reduce_result *r, const char *dir, strbuf *written)
{
    struct stat st;
    bool exists = stat(dir, &st) == 0;
    if (exists && !S_ISDIR(st.st_mode)) {
        session_error(s, "reduce: --save %s: not a folder", dir);
        return false;
    }
    char *into;
    if (exists) {
        into = xstrdup(dir);
    } else {
        size_t len = strlen(dir);
        while (len > 1 && dir[len - 1] == '/') len--;
        into = xmalloc(len + 16);
        snprintf(into, len + 16, "%.*s.tmp.XXXXXX", (int)len, dir);
        if (!mkdtemp(into)) {
            session_error(s, "reduce: --save %s: cannot make the folder: %s", dir, strerror(errno));
            free(into);
            return false;
        }
        mode_t um = umask(0);
        umask(um);
        chmod(into, 0777 & ~um);
    }
    strbuf path, script, readme;
    sb_init(&path);
    sb_init(&script);
    sb_init(&readme);
    bool ok = true;
#define AT(name) (sb_reset(&path), sb_printf(&path, "%s/%s", into, name), path.s)
#define NOTE(name) sb_printf(written, "%s%s", written->len ? " " : "", name)
    bool have_program = false;
    if (r->program) {
        /* an export's reproducer is its program; beside a model, the program is one more form,
         * and one pt2_save cannot write (a symbolic size) is left out with a note */
        diag_sink pd;
        diag_init(&pd);
        have_program = pt2_save(r->program, AT("program.pt2"), &pd);
        if (have_program) {
            NOTE("program.pt2");
        } else if (!strcmp(r->mode, "export")) {
            ok = false;
            for (size_t i = 0; i < pd.len; i++) session_error(s, "reduce: --save %s: %s", dir, pd.items[i].message);
        } else {
            for (size_t i = 0; i < pd.len; i++)
                diag_note(&s->diag, (diag_loc){0}, "reduce: --save %s: program.pt2 left out: %s", dir, pd.items[i].message);
        }
        diag_free(&pd);
    }
    if (ok && r->model) {
        ox_save_opts so = {0};
        ok = ox_save_file(r->model, AT("model.onnx"), &so, &s->diag) == 0;
        if (ok) NOTE("model.onnx");
    }
    if (ok && r->reference_model) {
        ox_save_opts so = {0};
        ok = ox_save_file(r->reference_model, AT("reference.onnx"), &so, &s->diag) == 0;
        if (ok) NOTE("reference.onnx");
    }
    if (ok && strcmp(r->mode, "check")) {   /* the checker reads no values */
        ok = write_values(AT("inputs.npz"), &r->inputs, &s->diag);
        if (ok) NOTE("inputs.npz");
    }
    if (ok && r->expected.len) {
        ok = write_values(AT("expected.npz"), &r->expected, &s->diag);
        if (ok) NOTE("expected.npz");
    }
    if (ok) {
        reproducer_text(s, r, have_program, &script, &readme);
        ok = file_write_whole(AT("reproduce.fxsh"), script.s, script.len, &s->diag) &&
             file_write_whole(AT("README.md"), readme.s, readme.len, &s->diag);
        if (ok) NOTE("reproduce.fxsh README.md");
    }
    /* a folder that held an earlier reproducer loses the files this one does not have (only
     * those names: nothing else of the folder is touched) */
    static const char *const names[] = {"program.pt2", "model.onnx", "reference.onnx", "inputs.npz", "expected.npz",
                                        "reproduce.fxsh", "README.md"};
    for (size_t i = 0; ok && exists && i < sizeof names / sizeof *names; i++) {
        size_t nl = strlen(names[i]);
        bool wrote = false;
        for (const char *p = strstr(written->s ? written->s : "", names[i]); p && !wrote; p = strstr(p + 1, names[i]))
            wrote = (p == written->s || p[-1] == ' ') && (p[nl] == ' ' || p[nl] == '\0');
        if (!wrote) unlink(AT(names[i]));
    }
    if (!exists) {
        if (ok && rename(into, dir) != 0) {
            session_error(s, "reduce: --save %s: %s", dir, strerror(errno));
            ok = false;
        }
        if (!ok) {   /* the temporary folder and what was written into it */
            for (size_t i = 0; i < sizeof names / sizeof *names; i++) unlink(AT(names[i]));
            rmdir(into);
        }
    }
#undef AT
#undef NOTE
    sb_free(&path);
    sb_free(&script);
    sb_free(&readme);
    free(into);
    return ok;
}

/* ---- output ------------------------------------------------------------------------------------ */

static void print_result(session *s, const reduce_result *r)
{
    strbuf sb;
    sb_init(&sb);
    if (!strcmp(r->mode, "export"))
        sb_printf(&sb, "reduce: the export fails at %s: %s\n", r->stage, r->failure);
    else if (!strcmp(r->mode, "check"))
        sb_printf(&sb, "reduce: `check` rejects %s: %s\n", r->stage, r->failure);
    else
        sb_printf(&sb, "reduce: %s vs %s: %s\n", r->stage, r->reference, r->failure);
    sb_printf(&sb, "reduced the %s from %zu nodes to %zu around %s%s (%zu test%s)\n", r->what, r->nodes_before,
              r->nodes_after, strcmp(r->mode, "check") ? "%" : "", r->target, r->stats.tests, r->stats.tests == 1 ? "" : "s");
    if (r->program) {
        if (!strcmp(r->mode, "export")) sb_puts(&sb, "\nprogram (torch):\n");
        else sb_printf(&sb, "\nprogram (torch, the %s stage's nodes):\n", pl_stage_name(r->program_stage));
        program_text(r->program, &sb);
    } else if (r->program_note) {
        sb_printf(&sb, "\n# %s\n", r->program_note);
    }
    if (r->model) {
        sb_printf(&sb, "\nmodel (onnx%s%s):\n", strcmp(r->mode, "export") ? ", " : "", strcmp(r->mode, "export") ? r->stage : "");
        model_text(r->model, &sb);
    } else if (r->model_note) {
        sb_printf(&sb, "\n# %s\n", r->model_note);
    }
    if (r->reference_model) {
        sb_printf(&sb, "\nreference (onnx, %s):\n", r->reference);
        model_text(r->reference_model, &sb);
    }
    sb_printf(&sb, "\ninputs: %s\n", r->inputs_note ? r->inputs_note : "none");
    session_write(s, sb.s, sb.len);
    sb_free(&sb);
}

/* reduce --json: {"mode", "stage", "reference", "failure", "target", "reduced", "nodes_before",
 * "nodes_after", "tests", "program", "model", "reference_model", "inputs", "saved", "files", "ok"} */
static void print_json(session *s, const reduce_result *r, const char *saved, const char *files)
{
    strbuf sb, t;
    sb_init(&sb);
    sb_init(&t);
    json_writer w;
    cmd_json_begin(&w, &sb, "reduce", NULL);
    jw_kstring(&w, "mode", r->mode);
    jw_kstring(&w, "stage", r->stage);
    jw_kstring(&w, "reference", r->reference);
    jw_kstring(&w, "failure", r->failure);
    jw_kstring(&w, "target", r->target);
    jw_kstring(&w, "reduced", r->what);
    jw_kint(&w, "nodes_before", (int64_t)r->nodes_before);
    jw_kint(&w, "nodes_after", (int64_t)r->nodes_after);
    jw_kint(&w, "tests", (int64_t)r->stats.tests);
    if (r->program) program_text(r->program, &t);
    jw_kstring(&w, "program", r->program ? t.s : NULL);
    sb_reset(&t);
    if (r->model) model_text(r->model, &t);
    jw_kstring(&w, "model", r->model ? t.s : NULL);
    sb_reset(&t);
    if (r->reference_model) model_text(r->reference_model, &t);
    jw_kstring(&w, "reference_model", r->reference_model ? t.s : NULL);
    jw_key(&w, "inputs");
    jw_array(&w);
    for (size_t i = 0; i < r->inputs.len; i++) jw_string(&w, r->inputs.items[i].name);
    jw_array_end(&w);
    jw_kstring(&w, "saved", saved);
    jw_key(&w, "files");
    jw_array(&w);
    for (const char *p = files; p && *p;) {
        const char *e = strchr(p, ' ');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *one = xstrndup(p, len);
        jw_string(&w, one);
        free(one);
        p += len + (e ? 1 : 0);
    }
    jw_array_end(&w);
    jw_kbool(&w, "ok", true);
    cmd_json_end(&w);
    session_write(s, sb.s, sb.len);
    sb_free(&sb);
    sb_free(&t);
}

int cmd_reduce(session *s, int argc, char **argv)
{
    bool json = cmd_json_flag(&argc, argv);
    run_opts o;
    if (!run_parse_opts(s, "reduce", argc, argv, "--inputs --seed --atol --rtol --save", 2, &o)) return 1;
    reduce_result r = {0};
    /* without arguments: the loaded program's export, or a loaded model's check */
    bool model_only = !o.n_stages && pl_first_fx_stage(s->stages) < 0 && session_current(s) &&
                      session_current(s)->kind == PL_ONNX;
    int rc = o.n_stages == 2 ? cmd_reduce_values(s, &o, &r)
             : o.n_stages == 1 || model_only ? cmd_reduce_check(s, &o, &r)
                                             : cmd_reduce_export(s, &o, &r);
    strbuf written;
    sb_init(&written);
    if (!rc && o.save) {
        if (save_reproducer(s, &r, o.save, &written)) s->committed = true;   /* renamed: saved, whatever Ctrl-C does now */
        else rc = -1;
    }
    if (!rc) {
        if (json) {
            print_json(s, &r, o.save, written.s);
        } else {
            print_result(s, &r);
            if (o.save && session_confirm(s)) fprintf(s->out, "saved %s: %s\n", o.save, written.s);
        }
    }
    sb_free(&written);
    reduce_result_free(&r);
    return rc ? 1 : 0;
}
