/* pl_load.c — `load`: recognise a file's format by its content, load it with its options
 * (weights, example inputs, module attributes) and check that what the options name exists. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/file.h"
#include "base/fmap.h"
#include "base/hashmap.h"
#include "base/interrupt.h"
#include "base/strbuf.h"
#include "base/suggest.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_build.h"
#include "fx/fx_ir.h"
#include "onnx/onnx_ir.h"
#include "onnx/onnx_parse.h"
#include "onnx/onnx_pb.h"
#include "load/load.h"
#include "load/fx_weight_source.h"
#include "load/pt2_load.h"
#include "meta/meta_verify.h"
#include "load/ts_load.h"
#include "capture/export.h"
#include "capture/ts_normalize.h"
#include "pipeline/pipeline.h"

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

/* --input on FX text: the declared example input becomes its placeholder's value meta, as
 * torch.export records the example's dtype and shape (export and inference start from it). */
static bool declare_inputs(diag_sink *d, fx_program *p, const pl_load_options *req)
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
            diagnostic *dg = diag_error(d, (diag_loc){0}, "load --input: the program has no input '%s' (its inputs: %s)",
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
static void note_unknown_modules(diag_sink *d, const fx_program *p, const char *name)
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
        diagnostic *dg = diag_warning(d, (diag_loc){name, 0, 0},
                                      "the graph calls %zu module%s it does not define (%s%s): graph text names "
                                      "modules but not what they are, so export cannot inline them",
                                      n, n == 1 ? "" : "s", targets.s, n > 4 ? ", ..." : "");
        diag_set_hint(dg, "load print(gm) instead of print(gm.graph): it prints the modules (Linear(...)) with the code");
    }
    sb_free(&targets);
}

static int load_buffer(diag_sink *d, const char *buf, size_t len, const char *name, const char *path,
                       const pl_load_options *req, pl_loaded *out)
{
    const char *other = looks_like(buf, len);
    if (other) {
        diagnostic *dg = diag_error(d, (diag_loc){name, 0, 0},
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
        fx_program *p = ts_load_text(buf, len, name, &to, d);
        if (!p) return 1;
        /* TorchScript passes every argument and prints no shapes: the calls take torch.export's
         * argument form, and the shapes follow from the declared inputs and the weights, as
         * torch.export's fake tensors would have them (show code annotates them; export
         * specializes the ifs on shapes). What stays unknown is noted here; export refuses an
         * input without dtype and shape. */
        if (!meta_check_calls(p, d) || !tsn_prepare_program(p, d)) {
            fx_program_free(p);
            return 1;
        }
        out->fx = p;
        out->stage = PL_STAGE_FX;
        return 0;
    }
    case FORMAT_FX_TEXT: {
        if (req->n_attrs) {
            diag_error(d, (diag_loc){0}, "load --attr: only TorchScript IR reads module attributes (an FX graph holds its values)");
            return 1;
        }
        fx_program *p = load_fx_text(buf, len, name, d);
        if (!p) return 1;
        /* the values a printed graph declares (print_readable's annotations) are checked as a
         * .pt2's are: an edited one is an error at its node, not a shape copied into a model */
        if (!meta_verify_program(p, d) || !declare_inputs(d, p, req)) {
            fx_program_free(p);
            return 1;
        }
        note_unknown_modules(d, p, name);
        out->fx = p;
        out->stage = fx_stage_for_text(buf);
        return 0;
    }
    case FORMAT_PT2:
    case FORMAT_EXPORT_JSON: {
        if (!path) {
            diag_error(d, (diag_loc){0}, "load -: torch.export archives and JSON must be loaded from a file");
            return 1;
        }
        fx_program *p = pt2_load_file(path, d);
        if (!p) return 1;
        /* torch wrote every node's value: one that its op does not compute is an edited or
         * corrupted file, and copying it into a model would write one that onnx rejects */
        if (!meta_verify_program(p, d)) {
            fx_program_free(p);
            return 1;
        }
        out->fx = p;
        out->stage = PL_STAGE_EXPORTED;
        return 0;
    }
    case FORMAT_ONNX_TEXT: {
        ox_model *m = ox_parse_model(buf, len, name, d);
        if (!m) return 1;
        out->onnx = m;
        out->stage = PL_STAGE_ONNX;
        return 0;
    }
    case FORMAT_ONNX_BINARY: {
        if (!path) {
            diag_error(d, (diag_loc){0}, "load -: binary ONNX must be loaded from a file");
            return 1;
        }
        /* A missing external-data file is a warning: the graph is still worth looking at (the
         * references are kept and print as onnx.printer prints them without the data). */
        ox_load_opts lo = {.missing_is_warning = true};
        ox_model *m = ox_load_file_opts(path, &lo, d);
        if (!m) return 1;
        out->onnx = m;
        out->stage = PL_STAGE_ONNX;
        return 0;
    }
    }
    return 1;
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
    VEC(const char *) all;   /* the state-dict names, in order (for did-you-mean) */
} weight_names;

static void add_name(const char *fqn, void *ctx)
{
    weight_names *w = ctx;
    if (hm_has(&w->fqns, fqn)) return;
    const char *key = arena_strdup(&w->keys, fqn);
    hm_put(&w->fqns, key, NULL);
    vec_push(&w->all, key);
    if (w->n < 12) sb_printf(&w->list, "%s%s", w->n ? ", " : "", fqn);
    w->n++;
}

static bool collect_weight_names(diag_sink *d, const fx_program *p, weight_names *w)
{
    hm_init(&w->fqns);
    hm_init(&w->mangled);
    arena_init(&w->keys);
    sb_init(&w->list);
    w->n = 0;
    memset(&w->all, 0, sizeof w->all);
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
    if (!fx_program_is_aten(p) && !export_weight_names(p, add_name, w, d)) return false;
    return true;
}

static void free_weight_names(weight_names *w)
{
    hm_free(&w->fqns);
    hm_free(&w->mangled);
    arena_free(&w->keys);
    sb_free(&w->list);
    vec_free(&w->all);
}

static bool names_weight(const weight_names *w, const char *fqn)
{
    if (hm_has(&w->fqns, fqn)) return true;
    char lifted[520];
    fx_lifted_name(FX_TENSOR_PARAMETER, fqn, lifted, sizeof lifted);
    return hm_has(&w->mangled, lifted + 2);
}

/* --weights W must give values to the program: a tensor of a .pt2 or .safetensors file that
 * names no parameter or buffer is a mistake (another model's file, a renamed
 * module); an .onnx model also holds the exporter's constants, so there only a file of which
 * no initializer names a parameter is. `before` holds the weights the program had already. */
static bool check_weight_names(diag_sink *d, const fx_program *p, const char *path, const hashmap *before)
{
    weight_names w;
    if (!collect_weight_names(d, p, &w)) {
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
        if (n_unmatched < 8) {
            const char *near = suggest_closest(x->fqn, w.all.items, w.all.len);
            sb_printf(&unmatched, "%s%s", n_unmatched ? ", " : "", x->fqn);
            if (near) sb_printf(&unmatched, " (did you mean %s?)", near);
        }
        n_unmatched++;
    }
    bool onnx = load_weight_file_format(path) == FX_WEIGHTS_ONNX;
    bool ok = !n_unmatched || (onnx && n_unmatched < n_file);
    if (!ok) {
        diagnostic *dg;
        if (onnx)
            dg = diag_error(d, (diag_loc){path, 0, 0},
                            "load --weights: no initializer names a parameter of the program (%s%s)", unmatched.s,
                            n_unmatched > 8 ? ", ..." : "");
        else
            dg = diag_error(d, (diag_loc){path, 0, 0},
                            "load --weights: %zu tensor%s name%s no parameter or buffer of the program: %s%s",
                            n_unmatched, n_unmatched == 1 ? "" : "s", n_unmatched == 1 ? "s" : "", unmatched.s,
                            n_unmatched > 8 ? ", ..." : "");
        /* the other side: the program's weights the file gives nothing to */
        strbuf missing;
        sb_init(&missing);
        size_t n_missing = 0;
        for (size_t i = 0; i < w.all.len; i++) {
            const fx_weight *x = fx_program_weight(p, w.all.items[i]);
            if (x && x->data && !(before && hm_has(before, x->fqn))) continue;
            if (n_missing < 8) sb_printf(&missing, "%s%s", n_missing ? ", " : "", w.all.items[i]);
            n_missing++;
        }
        if (n_missing)
            diag_set_hint(dg, "%zu of the program's weights get%s no tensor: %s%s; give the weights of this model",
                          n_missing, n_missing == 1 ? "s" : "", missing.s, n_missing > 8 ? ", ..." : "");
        else if (w.n)
            diag_set_hint(dg, "the program's weights are %s%s; give the weights of this model", w.list.s,
                          w.n > 12 ? ", ..." : "");
        else
            diag_set_hint(dg, "the program reads no parameters or buffers: leave out --weights");
        sb_free(&missing);
    }
    sb_free(&unmatched);
    free_weight_names(&w);
    return ok;
}

/* --input NAME must be an input of the program (graph text reports it as it declares them). */
static bool check_input_names(diag_sink *d, const fx_program *p, const pl_load_options *req)
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
            diagnostic *dg = diag_error(d, (diag_loc){0}, "load --input: the program has no input '%s' (its inputs: %s)",
                                        req->inputs[i].name, names.len ? names.s : "none");
            diag_set_hint(dg, "declare each input by the name forward() gives it");
        }
        sb_free(&names);
        if (!found && p->sig.present) return false;
    }
    return true;
}


/* After the loader: --input and --weights must name what the program has, and weights not
 * attached by the loader itself (TorchScript's) are attached here. false after reporting. */
static bool bind_options(const pl_load_options *o, bool by_loader, pl_loaded *out, diag_sink *d)
{
    if (o->weights && !out->fx) {
        diag_error(d, (diag_loc){0}, "load --weights: an ONNX model carries its own initializers");
        return false;
    }
    if (out->fx && !check_input_names(d, out->fx, o)) return false;
    if (!o->weights) return true;
    hashmap before;
    hm_init(&before);
    bool ok = true;
    if (!by_loader) {
        for (const fx_weight *w = out->fx->weights; w; w = w->next) hm_put(&before, w->fqn, NULL);
        ok = load_attach_weights(out->fx, o->weights, &out->n_weights, d);
        out->weights_attached = ok;
    }
    /* graph text of an exported program: its placeholders p_fc1_weight take the weights, by the
     * names torch.export gives them */
    bool lifted = !by_loader && !out->fx->sig.present && fx_program_is_aten(out->fx);
    if (ok && lifted) ok = load_bind_lifted(out->fx, o->weights, load_weight_file_format(o->weights) == FX_WEIGHTS_ONNX, d);
    else if (ok) ok = check_weight_names(d, out->fx, o->weights, &before);
    hm_free(&before);
    return ok;
}

/* The load proper, then the options; notes about a program that ends up not loaded are dropped. */
static bool load_checked(const char *buf, size_t len, const char *name, const char *path, const pl_load_options *o,
                         pl_loaded *out, diag_sink *d)
{
    static const pl_load_options none;
    if (!o) o = &none;
    memset(out, 0, sizeof *out);
    size_t mark = d->len;
    bool read = load_buffer(d, buf, len, name, path, o, out) == 0;
    bool by_loader = read && out->fx && out->stage == PL_STAGE_FX && sniff(buf, len) == FORMAT_TORCHSCRIPT;
    bool ok = read && bind_options(o, by_loader, out, d);
    if (!ok || interrupt_pending()) {
        if (read) diag_drop_notes(d, mark);   /* the notes were about a program not loaded */
        pl_loaded_free(out);
        return false;
    }
    return true;
}

bool pl_load_buffer(const char *buf, size_t len, const char *name, const pl_load_options *o, pl_loaded *out,
                    diag_sink *d)
{
    return load_checked(buf, len, name, NULL, o, out, d);
}

bool pl_load_file(const char *path, const pl_load_options *o, pl_loaded *out, diag_sink *d)
{
    memset(out, 0, sizeof *out);
    /* A binary file (.onnx, .pt2) is mapped, not read: its loader maps it too, and the weights
     * stay in the mapping. Text is read (NUL-terminated for the parsers). */
    fmap *f = fmap_open(path, NULL);
    bool ok;
    if (f && looks_binary(f->data, f->len)) {
        ok = load_checked((const char *)f->data, f->len, path, path, o, out, d);
    } else {
        size_t len;
        char *buf = file_read(path, &len, d);
        ok = buf && load_checked(buf, len, path, path, o, out, d);
        free(buf);
    }
    fmap_unref(f);
    return ok;
}

void pl_loaded_free(pl_loaded *l)
{
    if (l->fx) fx_program_free(l->fx);
    if (l->onnx) ox_model_free(l->onnx);
    memset(l, 0, sizeof *l);
}

bool pl_text_complete(const char *text, size_t len)
{
    /* ONNX text starts with `<` (its header) or has `=>` on its first line, as sniff says */
    const char *end = text + len, *p = skip_space(text, end);
    bool onnx = p < end && *p == '<';
    for (const char *q = p; !onnx && q + 1 < end && *q != '\n'; q++) onnx = q[0] == '=' && q[1] == '>';
    return onnx ? ox_text_complete(text, len) : load_fx_text_complete(text, len);
}

ox_model *pl_load_model_file(const char *path, const char *cmd, diag_sink *out)
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
        if (dg->file && !strstr(dg->message, path)) diag_error(out, (diag_loc){0}, "%s: %s: %s", cmd, dg->file, dg->message);
        else diag_error(out, (diag_loc){0}, "%s: %s", cmd, dg->message);
    }
    diag_free(&d);
    if (buf && !m && f != FORMAT_ONNX_TEXT && f != FORMAT_ONNX_BINARY) {
        diagnostic *dg = diag_error(out, (diag_loc){0}, "%s: %s is not an ONNX model", cmd, path);
        diag_set_hint(dg, "load a PyTorch program and export it first; then `%s STAGE %s` names its stage", cmd, path);
    }
    free(buf);
    return m;
}
