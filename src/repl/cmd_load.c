/* cmd_load.c — `load`: the command's arguments, the pasted block of `load -`, and the loaded
 * program made the session's current stage (the loading itself is pipeline/pl_load.c). */
#include <stdlib.h>
#include <string.h>

#include "base/interrupt.h"
#include "base/shape.h"
#include "base/strbuf.h"
#include "base/suggest.h"
#include "fx/fx.h"
#include "fx/fx_build.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_ir.h"
#include "pipeline/pipeline.h"
#include "repl/cmd_handlers.h"
#include "repl/tokenize.h"

/* What `load` was told besides the file (the storage pl_load_options points into). */
typedef struct load_request {
    const char *weights;
    ts_input_decl inputs[16];
    size_t n_inputs;
    ts_attr_decl attrs[16];
    size_t n_attrs;
} load_request;

static pl_load_options load_options(const load_request *req)
{
    return (pl_load_options){.weights = req->weights, .inputs = req->inputs, .n_inputs = req->n_inputs,
                             .attrs = req->attrs, .n_attrs = req->n_attrs};
}

/* `load -`: read lines from the current input until the pasted graph is complete. Ctrl-C (or the
 * end of input) before that drops the block. */
static int load_stdin_block(session *s, const load_request *req, pl_loaded *out)
{
    if (!s->read_more) {
        session_error(s, "load -: no input to read the graph from");
        return 1;
    }
    if (s->interactive)
        fputs("(paste the graph text: it ends when the graph is complete; Ctrl-C cancels, `quit` before it "
              "leaves)\n", s->err);
    strbuf text;
    sb_init(&text);
    char *line;
    bool started = false;
    while ((line = s->read_more(s->read_ctx, "...> "))) {
        if (!started) {
            const char *p = line;
            while (*p == ' ' || *p == '\t') p++;
            if (!*p) { /* blank lines before the block */
                free(line);
                continue;
            }
            size_t n = strcspn(p, " \t");
            if ((n == 4 && !strncmp(p, "quit", 4)) || (n == 4 && !strncmp(p, "exit", 4))) {
                /* no graph is pasted: the user wants out, not a parse error on `quit` */
                diag_error(&s->diag, (diag_loc){0}, "load -: no graph text before `%.4s`: nothing loaded, leaving", p);
                s->quit = true;
                free(line);
                sb_free(&text);
                return 1;
            }
            started = true;
        }
        sb_puts(&text, line);
        sb_putc(&text, '\n');
        free(line);
        if (pl_text_complete(text.s, text.len)) break;
    }
    if (interrupt_pending()) {
        sb_free(&text);
        return 1;
    }
    if (!started) {
        sb_free(&text);
        session_error(s, "load -: no graph text before the end of input");
        return 1;
    }
    pl_load_options o = load_options(req);
    bool ok = pl_load_buffer(text.s, text.len, "<paste>", &o, out, &s->diag);
    sb_free(&text);
    return ok ? 0 : 1;
}

/* load FILE|- [--weights W] [--input NAME=DTYPE[DIMS]]... [--attr NAME=VALUE]...: W supplies the
 * values of programs that come without them; --input declares example inputs (TorchScript has
 * no shapes); --attr gives module attributes TorchScript reads at run time (self.heads). */
int cmd_load(session *s, int argc, char **argv)
{
    const char *file = NULL;
    load_request req = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--weights") && i + 1 < argc) {
            req.weights = argv[++i];
        } else if (!strcmp(argv[i], "--input") && i + 1 < argc) {
            /* x=f32[3, 4] as Python prints a shape: the words up to the one with "]" are one */
            int last = i + 1;
            if (strchr(argv[i + 1], '[') && !strchr(argv[i + 1], ']'))
                while (last + 1 < argc && !strchr(argv[last], ']')) last++;
            strbuf spec;
            sb_init(&spec);
            for (int k = i + 1; k <= last; k++) sb_printf(&spec, "%s%s", k > i + 1 ? " " : "", argv[k]);
            if (req.n_inputs == sizeof req.inputs / sizeof req.inputs[0] ||
                !ts_parse_input_decl(spec.s, &req.inputs[req.n_inputs])) {
                session_error(s, "load: cannot read --input '%s' (write NAME=DTYPE[DIMS], e.g. x=f32[3,4])", spec.s);
                sb_free(&spec);
                return 1;
            }
            i = last - 1;   /* the loop's i++ below steps over the last word */
            const ts_input_decl *in = &req.inputs[req.n_inputs];
            const char *dims[8];
            for (size_t k = 0; k < in->rank; k++) dims[k] = in->dims[k];
            char why[128];
            if (shape_text_problem(dims, in->rank, fx_dtype_get(in->dtype)->elem_size, why, sizeof why)) {
                session_error(s, "load --input '%s': %s (a size is an integer below 2^63, or a symbol such as s77)",
                              spec.s, why);
                sb_free(&spec);
                return 1;
            }
            sb_free(&spec);
            req.n_inputs++;
            i++;
        } else if (!strcmp(argv[i], "--attr") && i + 1 < argc) {
            if (req.n_attrs == sizeof req.attrs / sizeof req.attrs[0] ||
                !ts_parse_attr_decl(argv[i + 1], &req.attrs[req.n_attrs])) {
                session_error(s, "load: cannot read --attr '%s' (write NAME=VALUE with a Python literal, e.g. heads=4)",
                              argv[i + 1]);
                return 1;
            }
            req.n_attrs++;
            i++;
        } else if (!file && (argv[i][0] != '-' || !strcmp(argv[i], "-"))) {
            file = argv[i];
        } else if (!strcmp(argv[i], "--weights") || !strcmp(argv[i], "--input") || !strcmp(argv[i], "--attr")) {
            session_error(s, "load: %s needs %s", argv[i],
                          argv[i][2] == 'w' ? "a file (a .pt2, .onnx or .safetensors file of the model's weights)" :
                          argv[i][2] == 'i' ? "an example input, NAME=DTYPE[DIMS] (e.g. x=f32[3,4])" :
                                              "NAME=VALUE (a Python literal, e.g. heads=4)");
            return 1;
        } else {
            static const char *const opts[] = {"--weights", "--input", "--attr"};
            const char *near = argv[i][0] == '-' ? suggest_closest(argv[i], opts, 3) : NULL;
            diagnostic *dg = near ? diag_error(&s->diag, (diag_loc){0}, "load: unknown option '%s'; did you mean '%s'?", argv[i], near)
                                  : diag_error(&s->diag, (diag_loc){0}, "load: unexpected '%s'", argv[i]);
            diag_set_hint(dg, "usage: load FILE|- [--weights W] [--input SPEC]... [--attr NAME=VALUE]...");
            return 1;
        }
    }
    if (!file) {
        session_error(s, "load: no file (usage: load FILE|- [--weights W] [--input SPEC]... [--attr NAME=VALUE]...)");
        return 1;
    }
    pl_loaded out = {0};
    int rc;
    if (strcmp(file, "-") == 0) {
        rc = load_stdin_block(s, &req, &out);
    } else {
        pl_load_options o = load_options(&req);
        rc = pl_load_file(file, &o, &out, &s->diag) ? 0 : 1;
    }
    if (rc || interrupt_pending()) {
        pl_loaded_free(&out);
        return 1;
    }
    if (out.weights_attached && session_confirm(s))
        fprintf(s->out, "attached %zu weight tensor%s from %s\n", out.n_weights, out.n_weights == 1 ? "" : "s", req.weights);
    if (s->n_undo) {   /* the edits of the program replaced go with it: say so, and how to keep them */
        diagnostic *dg = diag_note(&s->diag, (diag_loc){0}, "load: %zu edit%s of the previous program dropped with it",
                                   s->n_undo, s->n_undo == 1 ? "" : "s");
        diag_set_hint(dg, "`save-patch FILE` before `load` keeps edits as a script that replays them");
    }
    session_reset(s);
    char *cmd0 = argv[0];
    argv[0] = "load";   /* however it was abbreviated */
    s->load_command = tokens_join(argc, argv);
    argv[0] = cmd0;
    if (out.fx) session_set_fx(s, out.stage, out.fx, file[0] == '-' && !file[1] ? "<paste>" : file);
    else session_set_onnx(s, out.stage, out.onnx, file[0] == '-' && !file[1] ? "<paste>" : file);
    if (session_confirm(s)) {   /* on a terminal: what was loaded, and where it went */
        const stage *st = session_current(s);
        size_t nodes = 0;
        if (st->fx) nodes = fx_program_graph(st->fx) ? fx_program_graph(st->fx)->n_nodes : 0;
        else if (st->onnx->proto->graph) nodes = st->onnx->proto->graph->n_node;
        fprintf(s->out, "loaded %s: %s, %zu node%s (the %s stage)\n", st->source,
                st->onnx ? "ONNX model" : fx_program_is_aten(st->fx) ? "ATen program" : "torch-level program", nodes,
                nodes == 1 ? "" : "s", st->name);
    }
    return 0;
}

/* An ONNX model file (binary or text, by content) for a command that compares it with a stage
 * (`verify STAGE FILE`, `compare A FILE`), outside the session's stages. NULL after reporting. */
ox_model *cmd_load_model_file(session *s, const char *cmd, const char *path)
{
    return pl_load_model_file(path, cmd, &s->diag);
}
