/* cmd_load.c — `load`: recognise a file's format by its content and make it the current stage. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/shape.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "fx/fx_ir.h"
#include "fx/fx_weight_source.h"
#include "fx/ts_load.h"
#include "fx/pt2_load.h"
#include "onnx/onnx_ir.h"
#include "onnx/onnx_parse.h"
#include "onnx/onnx_pb.h"
#include "passes/ts_normalize.h"
#include "repl/cmd_handlers.h"

typedef enum input_format {
    FORMAT_TORCHSCRIPT,  /* torch.jit.script(m).inlined_graph */
    FORMAT_FX_TEXT,      /* any of the three FX text forms; the FX loader tells them apart */
    FORMAT_PT2,          /* zip archive */
    FORMAT_EXPORT_JSON,  /* the archive's models/<name>.json alone */
    FORMAT_ONNX_TEXT,
    FORMAT_ONNX_BINARY,
} input_format;

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* Content sniffing: magic numbers first, then the first significant characters of text. */
static input_format sniff(const char *buf, size_t len)
{
    if (len >= 4 && memcmp(buf, "PK\003\004", 4) == 0) return FORMAT_PT2;
    size_t probe = len < 4096 ? len : 4096;
    if (memchr(buf, '\0', probe)) return FORMAT_ONNX_BINARY;
    const char *end = buf + len, *p = skip_space(buf, end);
    if (p < end && *p == '{') return FORMAT_EXPORT_JSON;
    if (p < end && *p == '<') return FORMAT_ONNX_TEXT;
    /* ONNX text without a header starts with `name (inputs) => (outputs)` on its first line. */
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    for (const char *q = p; q + 1 < eol; q++)
        if (q[0] == '=' && q[1] == '>') return FORMAT_ONNX_TEXT;
    /* A binary protobuf usually starts with field 1 (ir_version, varint): byte 0x08. */
    if (len && (unsigned char)buf[0] == 0x08) return FORMAT_ONNX_BINARY;
    if (ts_sniff(buf, len)) return FORMAT_TORCHSCRIPT;
    return FORMAT_FX_TEXT;
}

/* A torch-level graph (call_module, torch functions) starts the pipeline at `fx`; an ATen-level
 * one (what torch.export prints) is the `exported` stage. */
static int fx_stage_for_text(const char *buf)
{
    return strstr(buf, "torch.ops.aten.") || strstr(buf, "torch.ops.higher_order.") ? 1 : 0;
}

/* What `load` was told besides the file: weights, declared example inputs and, for
 * TorchScript, module attributes. */
typedef struct load_request {
    const char *weights;
    ts_input_decl inputs[16];
    size_t n_inputs;
    ts_attr_decl attrs[16];
    size_t n_attrs;
} load_request;

/* --input on FX text: the declared example input becomes its placeholder's value meta, as
 * torch.export records the example's dtype and shape (export and inference start from it). */
static bool declare_inputs(session *s, fx_program *p, const load_request *req)
{
    fx_graph *g = fx_program_graph(p);
    for (size_t i = 0; i < req->n_inputs; i++) {
        const ts_input_decl *dc = &req->inputs[i];
        fx_node *n = g ? fx_graph_lookup(g, dc->name) : NULL;
        if (!n || n->op != FX_OP_PLACEHOLDER) {
            strbuf names;
            sb_init(&names);
            for (fx_node *q = g ? g->first : NULL; q; q = q->next)
                if (q->op == FX_OP_PLACEHOLDER) sb_printf(&names, "%s%s", names.len ? ", " : "", q->name);
            session_error(s, "load --input: the graph has no input '%s' (its inputs: %s)", dc->name,
                          names.len ? names.s : "none");
            sb_free(&names);
            return false;
        }
        fx_value *v = fx_value_new(p, FX_VAL_TENSOR);
        v->dtype = dc->dtype;
        v->rank = dc->rank;
        v->sizes = fx_alloc(p, (dc->rank ? dc->rank : 1) * sizeof *v->sizes);
        for (size_t k = 0; k < dc->rank; k++) v->sizes[k] = fx_strdup(p, dc->dims[k]);
        v->device = "cpu";   /* example inputs are CPU tensors, as torch.onnx exports them */
        n->meta.val = v;
    }
    return true;
}

static int load_buffer(session *s, const char *buf, size_t len, const char *name, const char *path,
                       load_request *req)
{
    switch (sniff(buf, len)) {
    case FORMAT_TORCHSCRIPT: {
        /* Python control flow stays as fxsh.python_if / python_for nodes; the program starts
         * the pipeline at `fx`, where export decides what torch.export would do with it. */
        ts_load_options to = {.weights_path = req->weights, .inputs = req->inputs, .n_inputs = req->n_inputs,
                              .attrs = req->attrs, .n_attrs = req->n_attrs};
        fx_program *p = ts_load_text(buf, len, name, &to, &s->diag);
        if (!p) return 1;
        req->weights = NULL;   /* taken by the loader */
        /* TorchScript passes every argument and prints no shapes: the calls take torch.export's
         * argument form, and the shapes follow from the declared inputs and the weights, as
         * torch.export's fake tensors would have them (show code annotates them; export
         * specializes the ifs on shapes). What stays unknown is noted, not an error. */
        if (!ts_prepare_program(p, &s->diag)) {
            fx_program_free(p);
            return 1;
        }
        session_reset(s);
        session_set_fx(s, session_stage_index("fx"), p, name);
        return 0;
    }
    case FORMAT_FX_TEXT: {
        if (req->n_attrs) {
            session_error(s, "load --attr: only TorchScript IR reads module attributes (an FX graph holds its values)");
            return 1;
        }
        fx_program *p = fx_load_text(buf, len, name, &s->diag);
        if (!p) return 1;
        if (!declare_inputs(s, p, req)) {
            fx_program_free(p);
            return 1;
        }
        session_reset(s);
        session_set_fx(s, fx_stage_for_text(buf), p, name);
        return 0;
    }
    case FORMAT_PT2:
    case FORMAT_EXPORT_JSON: {
        if (!path) {
            session_error(s, "load -: torch.export archives and JSON must be loaded from a file");
            return 1;
        }
        fx_program *p = pt2_load_file(path, &s->diag);
        if (!p) return 1;
        session_reset(s);
        session_set_fx(s, session_stage_index("exported"), p, name);
        return 0;
    }
    case FORMAT_ONNX_TEXT: {
        ox_model *m = ox_parse_model(buf, len, name, &s->diag);
        if (!m) return 1;
        session_reset(s);
        session_set_onnx(s, session_stage_index("onnx"), m, name);
        return 0;
    }
    case FORMAT_ONNX_BINARY: {
        if (!path) {
            session_error(s, "load -: binary ONNX must be loaded from a file");
            return 1;
        }
        /* A missing external-data file is a warning: the graph is still worth looking at (the
         * references are kept and print as onnx.printer prints them without the data). */
        ox_load_opts lo = {.missing_is_warning = true};
        ox_model *m = ox_load_file_opts(path, &lo, &s->diag);
        if (!m) return 1;
        session_reset(s);
        session_set_onnx(s, session_stage_index("onnx"), m, name);
        return 0;
    }
    }
    return 1;
}

/* `load -`: read lines from the current input until the pasted graph is complete. */
static int load_stdin_block(session *s)
{
    if (!s->read_more) {
        session_error(s, "load -: no input to read the graph from");
        return 1;
    }
    strbuf text;
    sb_init(&text);
    char *line;
    bool onnx = false, started = false;
    while ((line = s->read_more(s->read_ctx, "...> "))) {
        if (!started) {
            const char *p = line;
            while (*p == ' ' || *p == '\t') p++;
            if (!*p) { /* blank lines before the block */
                free(line);
                continue;
            }
            started = true;
            onnx = *p == '<' || strstr(p, "=>") != NULL;
        }
        sb_puts(&text, line);
        sb_putc(&text, '\n');
        free(line);
        if (onnx ? ox_text_complete(text.s, text.len) : fx_text_complete(text.s, text.len)) break;
    }
    if (!started) {
        sb_free(&text);
        session_error(s, "load -: no graph text before the end of input");
        return 1;
    }
    load_request req = {0};
    int rc = load_buffer(s, text.s, text.len, "<paste>", NULL, &req);
    sb_free(&text);
    return rc;
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
            if (req.n_inputs == sizeof req.inputs / sizeof req.inputs[0] ||
                !ts_parse_input_decl(argv[i + 1], &req.inputs[req.n_inputs])) {
                session_error(s, "load: cannot read --input '%s' (write NAME=DTYPE[DIMS], e.g. x=f32[3,4])",
                              argv[i + 1]);
                return 1;
            }
            const ts_input_decl *in = &req.inputs[req.n_inputs];
            const char *dims[8];
            for (size_t k = 0; k < in->rank; k++) dims[k] = in->dims[k];
            char why[128];
            if (shape_text_problem(dims, in->rank, fx_dtype_get(in->dtype)->elem_size, why, sizeof why)) {
                session_error(s, "load --input '%s': %s (a size is an integer below 2^63, or a symbol such as s77)",
                              argv[i + 1], why);
                return 1;
            }
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
        } else {
            session_error(s, "load: unexpected '%s' (usage: load FILE|- [--weights W] [--input SPEC]... [--attr NAME=VALUE]...)", argv[i]);
            return 1;
        }
    }
    if (!file) {
        session_error(s, "load: no file (usage: load FILE|- [--weights W] [--input SPEC]... [--attr NAME=VALUE]...)");
        return 1;
    }
    int rc;
    if (strcmp(file, "-") == 0) {
        rc = load_stdin_block(s);
    } else {
        size_t len;
        char *buf = file_read(file, &len, &s->diag);
        if (!buf) return 1;
        rc = load_buffer(s, buf, len, file, file, &req);
        free(buf);
    }
    if (rc || !req.weights) return rc;
    stage *st = session_current(s);
    if (st->kind != STAGE_FX) {
        session_error(s, "load --weights: an ONNX model carries its own initializers");
        return 1;
    }
    size_t n;
    if (!fx_attach_weights(st->fx, req.weights, &n, &s->diag)) return 1;
    fprintf(s->out, "attached %zu weight tensor%s from %s\n", n, n == 1 ? "" : "s", req.weights);
    return 0;
}
