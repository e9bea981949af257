/* cmd_load.c — `load`: recognise a file's format by its content and make it the current stage. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/file.h"
#include "base/fmap.h"
#include "base/shape.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "fx/fx_build.h"
#include "load/load.h"
#include "fx/fx_ir.h"
#include "load/fx_weight_source.h"
#include "load/ts_load.h"
#include "load/pt2_load.h"
#include "onnx/onnx_ir.h"
#include "onnx/onnx_parse.h"
#include "onnx/onnx_pb.h"
#include "capture/export.h"
#include "capture/ts_normalize.h"
#include "repl/cmd_handlers.h"
#include "repl/tokenize.h"

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

/* What sniff takes for binary whatever follows: a zip, or a NUL byte in the first 4 KiB. */
static bool looks_binary(const unsigned char *b, size_t len)
{
    size_t probe = len < 4096 ? len : 4096;
    return (len >= 4 && memcmp(b, "PK\003\004", 4) == 0) || memchr(b, '\0', probe);
}

/* What a file that is none of fxsh's formats looks like, by its magic number or first line (a
 * clearer answer than the parser's first complaint); NULL for anything else. */
static const char *looks_like(const char *buf, size_t len)
{
    static const struct { const char *magic; size_t n; const char *what; } magics[] = {
        {"\x89PNG\r\n\x1a\n", 8, "a PNG image"},
        {"\xff\xd8\xff", 3, "a JPEG image"},
        {"GIF8", 4, "a GIF image"},
        {"%PDF-", 5, "a PDF document"},
        {"\x1f\x8b", 2, "a gzip archive (uncompress it first)"},
        {"\x7f" "ELF", 4, "an executable (ELF)"},
        {"\x93NUMPY", 6, "a numpy .npy array (inputs for `run --inputs`)"},
        {"\x80\x02", 2, "a Python pickle (torch.save); fxsh reads torch.export.save archives (.pt2)"},
        {"\x80\x04", 2, "a Python pickle (torch.save); fxsh reads torch.export.save archives (.pt2)"},
        {"\x80\x05", 2, "a Python pickle (torch.save); fxsh reads torch.export.save archives (.pt2)"},
    };
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
        if (len >= magics[i].n && !memcmp(buf, magics[i].magic, magics[i].n)) return magics[i].what;
    const char *end = buf + len, *p = skip_space(buf, end);
    size_t rest = (size_t)(end - p);
    if ((rest > 7 && !memcmp(p, "import ", 7)) || (rest > 5 && !memcmp(p, "from ", 5)) ||
        (rest > 2 && !memcmp(p, "#!", 2)))
        return "Python source; fxsh reads what torch prints of a model (print(gm), gm.print_readable(), "
               "torch.jit.script(m).inlined_graph) or saves (torch.export.save)";
    return NULL;
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
    bool weights_by_loader;      /* TorchScript's loader attached them while reading the graph */
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
            diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "load --input: the program has no input '%s' (its inputs: %s)",
                                        dc->name, names.len ? names.s : "none");
            diag_set_hint(dg, "declare each input by the name forward() gives it");
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

/* print(gm.graph) names the submodules a call_module calls but not what they are: export cannot
 * inline them. print(gm) prints the module tree with the code; say so at load. */
static void note_unknown_modules(session *s, const fx_program *p, const char *name)
{
    const fx_graph *g = fx_program_graph((fx_program *)p);
    strbuf targets;
    sb_init(&targets);
    size_t n = 0;
    for (const fx_node *q = g ? g->first : NULL; q; q = q->next)
        if (q->op == FX_OP_CALL_MODULE && q->target && !fx_module_find(p->root, q->target)) {
            if (n < 4) sb_printf(&targets, "%s%s", n ? ", " : "", q->target);
            n++;
        }
    if (n) {
        diagnostic *dg = diag_warning(&s->diag, (diag_loc){name, 0, 0},
                                      "the graph calls %zu module%s it does not define (%s%s): graph text names "
                                      "modules but not what they are, so export cannot inline them",
                                      n, n == 1 ? "" : "s", targets.s, n > 4 ? ", ..." : "");
        diag_set_hint(dg, "load print(gm) instead of print(gm.graph): it prints the modules (Linear(...)) with the code");
    }
    sb_free(&targets);
}

/* What a load made, not yet in the session: a failed or interrupted load leaves it untouched. */
typedef struct loaded {
    int stage;
    fx_program *fx;
    ox_model *onnx;
} loaded;

static void loaded_free(loaded *l)
{
    if (l->fx) fx_program_free(l->fx);
    if (l->onnx) ox_model_free(l->onnx);
    memset(l, 0, sizeof *l);
}

static int load_buffer(session *s, const char *buf, size_t len, const char *name, const char *path,
                       load_request *req, loaded *out)
{
    const char *other = looks_like(buf, len);
    if (other) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){name, 0, 0},
                                    "load: not an FX graph, .pt2, ONNX or TorchScript file: it looks like %s", other);
        diag_set_hint(dg, "`help load` lists the formats fxsh reads");
        return 1;
    }
    switch (sniff(buf, len)) {
    case FORMAT_TORCHSCRIPT: {
        /* Python control flow stays as fxsh.python_if / python_for nodes; the program starts
         * the pipeline at `fx`, where export decides what torch.export would do with it. */
        ts_load_options to = {.weights_path = req->weights, .inputs = req->inputs, .n_inputs = req->n_inputs,
                              .attrs = req->attrs, .n_attrs = req->n_attrs};
        fx_program *p = ts_load_text(buf, len, name, &to, &s->diag);
        if (!p) return 1;
        req->weights_by_loader = req->weights != NULL;
        /* TorchScript passes every argument and prints no shapes: the calls take torch.export's
         * argument form, and the shapes follow from the declared inputs and the weights, as
         * torch.export's fake tensors would have them (show code annotates them; export
         * specializes the ifs on shapes). What stays unknown is noted here; export refuses an
         * input without dtype and shape. */
        if (!ts_prepare_program(p, &s->diag)) {
            fx_program_free(p);
            return 1;
        }
        out->fx = p;
        out->stage = session_stage_index("fx");
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
        note_unknown_modules(s, p, name);
        out->fx = p;
        out->stage = fx_stage_for_text(buf);
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
        out->fx = p;
        out->stage = session_stage_index("exported");
        return 0;
    }
    case FORMAT_ONNX_TEXT: {
        ox_model *m = ox_parse_model(buf, len, name, &s->diag);
        if (!m) return 1;
        out->onnx = m;
        out->stage = session_stage_index("onnx");
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
        out->onnx = m;
        out->stage = session_stage_index("onnx");
        return 0;
    }
    }
    return 1;
}

/* `load -`: read lines from the current input until the pasted graph is complete. Ctrl-C (or the
 * end of input) before that drops the block. */
static int load_stdin_block(session *s, load_request *req, loaded *out)
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
    bool onnx = false, started = false;
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
            onnx = *p == '<' || strstr(p, "=>") != NULL;
        }
        sb_puts(&text, line);
        sb_putc(&text, '\n');
        free(line);
        if (onnx ? ox_text_complete(text.s, text.len) : fx_text_complete(text.s, text.len)) break;
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
    int rc = load_buffer(s, text.s, text.len, "<paste>", NULL, req, out);
    sb_free(&text);
    return rc;
}

/*==== what --weights and --input must name ====*/

/* The names a weights file may give values to: the program's parameters, buffers and
 * constants, by state-dict name (and, for graph text without a signature, the placeholders
 * p_/b_/c_ that export lifted them to). */
typedef struct weight_names {
    hashmap fqns, mangled;
    arena keys;
    strbuf list;
    size_t n;
} weight_names;

static void add_name(const char *fqn, void *ctx)
{
    weight_names *w = ctx;
    if (hm_has(&w->fqns, fqn)) return;
    hm_put(&w->fqns, arena_strdup(&w->keys, fqn), NULL);
    if (w->n < 12) sb_printf(&w->list, "%s%s", w->n ? ", " : "", fqn);
    w->n++;
}

static bool collect_weight_names(session *s, const fx_program *p, weight_names *w)
{
    hm_init(&w->fqns);
    hm_init(&w->mangled);
    arena_init(&w->keys);
    sb_init(&w->list);
    w->n = 0;
    for (size_t i = 0; p->sig.present && i < p->sig.n_inputs; i++) {
        const fx_input_spec *in = &p->sig.inputs[i];
        if (in->kind != FX_IN_USER_INPUT && in->target) add_name(in->target, w);
    }
    const fx_graph *g = fx_program_graph((fx_program *)p);
    for (const fx_node *n = g ? g->first : NULL; n; n = n->next) {
        if (n->op == FX_OP_GET_ATTR && n->target && !fx_module_find(p->root, n->target)) add_name(n->target, w);
        if (!p->sig.present && n->op == FX_OP_PLACEHOLDER && strlen(n->name) > 2 && n->name[1] == '_' &&
            strchr("pbc", n->name[0])) {
            hm_put(&w->mangled, n->name + 2, NULL);
            if (w->n < 12) sb_printf(&w->list, "%s%s", w->n ? ", " : "", n->name);
            w->n++;
        }
    }
    if (!fx_program_is_aten(p) && !export_weight_names(p, add_name, w, &s->diag)) return false;
    return true;
}

static void free_weight_names(weight_names *w)
{
    hm_free(&w->fqns);
    hm_free(&w->mangled);
    arena_free(&w->keys);
    sb_free(&w->list);
}

static bool names_weight(const weight_names *w, const char *fqn)
{
    if (hm_has(&w->fqns, fqn)) return true;
    char mangled[512];
    snprintf(mangled, sizeof mangled, "%s", fqn);
    for (char *c = mangled; *c; c++)
        if (*c == '.') *c = '_';
    return hm_has(&w->mangled, mangled);
}

/* --weights W must give values to the program: a tensor of a .pt2 or .safetensors file that
 * names no parameter or buffer is a mistake (another model's file, a renamed
 * module); an .onnx model also holds the exporter's constants, so there only a file of which
 * no initializer names a parameter is. `before` holds the weights the program had already. */
static bool check_weight_names(session *s, const fx_program *p, const char *path, const hashmap *before)
{
    weight_names w;
    if (!collect_weight_names(s, p, &w)) {
        free_weight_names(&w);
        return false;
    }
    strbuf unmatched;
    sb_init(&unmatched);
    size_t n_unmatched = 0, n_file = 0;
    for (const fx_weight *x = p->weights; x; x = x->next) {
        if (before && hm_has(before, x->fqn)) continue;
        /* torch.export lifts tensors the code makes (torch.tensor(...)) as constants
         * lifted_tensor_N: a program read from other text holds them inline */
        if (x->role == FX_TENSOR_CONSTANT) continue;
        n_file++;
        if (names_weight(&w, x->fqn)) continue;
        if (n_unmatched < 8) sb_printf(&unmatched, "%s%s", n_unmatched ? ", " : "", x->fqn);
        n_unmatched++;
    }
    bool onnx = fx_weight_file_format(path) == FX_WEIGHTS_ONNX;
    bool ok = !n_unmatched || (onnx && n_unmatched < n_file);
    if (!ok) {
        diagnostic *dg;
        if (onnx)
            dg = diag_error(&s->diag, (diag_loc){path, 0, 0},
                            "load --weights: no initializer names a parameter of the program (%s%s)", unmatched.s,
                            n_unmatched > 8 ? ", ..." : "");
        else
            dg = diag_error(&s->diag, (diag_loc){path, 0, 0},
                            "load --weights: %zu tensor%s name%s no parameter or buffer of the program: %s%s",
                            n_unmatched, n_unmatched == 1 ? "" : "s", n_unmatched == 1 ? "s" : "", unmatched.s,
                            n_unmatched > 8 ? ", ..." : "");
        if (w.n)
            diag_set_hint(dg, "the program's weights are %s%s; give the weights of this model", w.list.s,
                          w.n > 12 ? ", ..." : "");
        else
            diag_set_hint(dg, "the program reads no parameters or buffers: leave out --weights");
    }
    sb_free(&unmatched);
    free_weight_names(&w);
    return ok;
}

/* --input NAME must be an input of the program (graph text reports it as it declares them). */
static bool check_input_names(session *s, const fx_program *p, const load_request *req)
{
    for (size_t i = 0; i < req->n_inputs; i++) {
        bool found = false;
        strbuf names;
        sb_init(&names);
        for (size_t k = 0; k < p->sig.n_inputs; k++) {
            const fx_input_spec *in = &p->sig.inputs[k];
            if (in->kind != FX_IN_USER_INPUT || !in->name) continue;
            if (!strcmp(in->name, req->inputs[i].name)) found = true;
            sb_printf(&names, "%s%s", names.len ? ", " : "", in->name);
        }
        if (!found && p->sig.present) {
            diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "load --input: the program has no input '%s' (its inputs: %s)",
                                        req->inputs[i].name, names.len ? names.s : "none");
            diag_set_hint(dg, "declare each input by the name forward() gives it");
        }
        sb_free(&names);
        if (!found && p->sig.present) return false;
    }
    return true;
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
        } else {
            session_error(s, "load: unexpected '%s' (usage: load FILE|- [--weights W] [--input SPEC]... [--attr NAME=VALUE]...)", argv[i]);
            return 1;
        }
    }
    if (!file) {
        session_error(s, "load: no file (usage: load FILE|- [--weights W] [--input SPEC]... [--attr NAME=VALUE]...)");
        return 1;
    }
    loaded out = {0};
    size_t mark = s->diag.len;
    int rc;
    if (strcmp(file, "-") == 0) {
        rc = load_stdin_block(s, &req, &out);
    } else {
        /* A binary file (.onnx, .pt2) is mapped, not read: its loader maps it too, and the
         * weights stay in the mapping. Text is read (NUL-terminated for the parsers). */
        fmap *f = fmap_open(file, NULL);
        if (f && looks_binary(f->data, f->len)) {
            rc = load_buffer(s, (const char *)f->data, f->len, file, file, &req, &out);
        } else {
            size_t len;
            char *buf = file_read(file, &len, &s->diag);
            if (!buf) {
                fmap_unref(f);
                return 1;
            }
            rc = load_buffer(s, buf, len, file, file, &req, &out);
            free(buf);
        }
        fmap_unref(f);
    }
    bool read = !rc;
    if (!rc && req.weights && !out.fx) {
        session_error(s, "load --weights: an ONNX model carries its own initializers");
        rc = 1;
    }
    if (!rc && out.fx && !check_input_names(s, out.fx, &req)) rc = 1;
    if (!rc && req.weights) {
        hashmap before;
        hm_init(&before);
        size_t n = 0;
        if (!req.weights_by_loader) {   /* the loader attached them itself (TorchScript) */
            for (const fx_weight *w = out.fx->weights; w; w = w->next) hm_put(&before, w->fqn, NULL);
            if (!fx_attach_weights(out.fx, req.weights, &n, &s->diag)) rc = 1;
        }
        if (!rc && !check_weight_names(s, out.fx, req.weights, &before)) rc = 1;
        if (!rc && !req.weights_by_loader && !s->quiet)
            fprintf(s->out, "attached %zu weight tensor%s from %s\n", n, n == 1 ? "" : "s", req.weights);
        hm_free(&before);
    }
    if (rc || interrupt_pending()) {
        if (read) diag_drop_notes(&s->diag, mark);   /* the notes were about a program not loaded */
        loaded_free(&out);
        return 1;
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
ox_model *load_model_file(session *s, const char *cmd, const char *path)
{
    size_t len;
    diag_sink d;
    diag_init(&d);
    char *buf = file_read(path, &len, &d);
    ox_model *m = NULL;
    input_format f = buf ? sniff(buf, len) : FORMAT_ONNX_BINARY;
    if (buf && f == FORMAT_ONNX_TEXT) m = ox_parse_model(buf, len, path, &d);
    else if (buf && f == FORMAT_ONNX_BINARY) m = ox_load_bytes(buf, len, path, &d);
    for (size_t i = 0; i < d.len; i++) {
        const diagnostic *dg = &d.items[i];
        if (dg->severity != DIAG_ERROR) continue;
        if (dg->file && !strstr(dg->message, path)) session_error(s, "%s: %s: %s", cmd, dg->file, dg->message);
        else session_error(s, "%s: %s", cmd, dg->message);
    }
    diag_free(&d);
    if (buf && !m && f != FORMAT_ONNX_TEXT && f != FORMAT_ONNX_BINARY) {
        diagnostic *dg = diag_error(&s->diag, (diag_loc){0}, "%s: %s is not an ONNX model", cmd, path);
        diag_set_hint(dg, "load a PyTorch program and export it first; then `%s STAGE %s` names its stage", cmd, path);
    }
    free(buf);
    return m;
}
