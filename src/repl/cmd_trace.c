/* cmd_trace.c — `export --legacy trace`: the TorchScript exporter's tracing route. Tracing runs
 * the model on the example inputs, so each Python `if` on a tensor is decided by the tensor's
 * value there (torch warns with a TracerWarning) and only the branch taken is recorded; here the
 * condition is evaluated with the reference evaluator and the branch inlined. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/strbuf.h"
#include "fx/fx.h"
#include "fx/fx_control.h"
#include "eval/onnx_eval.h"
#include "rewrite/control_flow.h"
#include "repl/cmd_handlers.h"
#include "repl/cmd_run.h"

/* torch/_tensor.py's TracerWarning for bool(tensor) under tracing. */
static const char tracer_warning[] =
    "TracerWarning: Converting a tensor to a Python boolean might cause the trace to be incorrect. We can't record "
    "the data flow of Python values, so this value will be treated as a constant in the future. This means that the "
    "trace might not generalize to other inputs!";

/* The innermost frame of a node's stack trace (where bool() was called): file and line. */
static bool innermost_frame(const fx_node *n, char *file, size_t cap, int *line)
{
    const char *st = n->meta.stack_trace, *last = NULL;
    for (const char *f = st ? strstr(st, "File \"") : NULL; f; f = strstr(f + 6, "File \"")) last = f;
    const char *q = last ? strchr(last + 6, '"') : NULL;
    const char *l = q ? strstr(q, ", line ") : NULL;
    if (!l) return false;
    snprintf(file, cap, "%.*s", (int)(q - last - 6), last + 6);
    *line = atoi(l + 7);
    return true;
}

/* Python's warnings.formatwarning: "FILE:LINE: CATEGORY: MESSAGE", then the source line
 * (stripped) when the file can be read, as linecache finds it. Once per location, as the
 * default warning filter shows it. */
static void print_tracer_warning(session *s, const fx_node *n, hashmap *shown, strbuf *keys)
{
    char file[1024];
    int line = 0;
    if (!innermost_frame(n, file, sizeof file, &line)) {
        snprintf(file, sizeof file, "%s", "<unknown>");
        line = n->src_line;
    }
    size_t mark = keys->len;
    sb_printf(keys, "%s:%d", file, line);
    sb_putc(keys, '\0');
    if (hm_has(shown, keys->s + mark)) {
        sb_truncate(keys, mark);
        return;
    }
    /* a Python warning: on stderr, as torch's other messages (stdout stays the results: a
     * `verify --json` after the export is still one document per line) */
    strbuf text;
    sb_init(&text);
    sb_printf(&text, "%s:%d: %s\n", file, line, tracer_warning);
    FILE *f = fopen(file, "r");
    char buf[4096];
    for (int i = 1; f && fgets(buf, sizeof buf, f); i++) {
        if (i != line) continue;
        char *b = buf, *e = buf + strlen(buf);
        while (*b == ' ' || *b == '\t') b++;
        while (e > b && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ')) e--;
        sb_printf(&text, "  %.*s\n", (int)(e - b), b);
        break;
    }
    if (f) fclose(f);
    pl_env env = session_env(s);
    env.print(env.print_ctx, PL_PRINT_TORCH, text.s);
    sb_free(&text);
    hm_put(shown, xstrdup(keys->s + mark), (void *)1);
}

/* bool(tensor): the truth of the condition program's single output on the inputs; -1 after
 * reporting (a tensor of more than one element is ambiguous, as Python says). */
static int condition_truth(session *s, const fx_program *cp, const export_settings *cfg, const oe_values *file,
                           const char *file_name, uint64_t seed, const char *if_name)
{
    ox_model *m = pipeline_program_model(s, cp, cfg);
    if (!m) return -1;
    run_input_set in = {0};
    oe_tensor out = {0};
    int truth = -1;
    if (run_make_inputs(s, "export --legacy trace", m, file, file_name, seed, &in) == 0 && m->proto->graph->n_output == 1) {
        diag_sink d;
        diag_init(&d);
        if (oe_eval_model(m, in.named, in.n, &out, NULL, &d) == OE_OK) {
            if (out.kind != OE_KIND_TENSOR || out.numel != 1)
                session_error(s, "export --legacy trace: %%%s: Boolean value of Tensor with %s values is ambiguous", if_name,
                              out.numel ? "more than one" : "no");
            else truth = ot_get_f(&out, 0) != 0;
            ot_tensor_free(&out);
        }
        for (size_t i = 0; i < d.len; i++)
            if (d.items[i].severity == DIAG_ERROR)
                session_error(s, "export --legacy trace: %%%s: evaluating the condition: %s", if_name, d.items[i].message);
        diag_free(&d);
    }
    run_inputs_free(&in);
    ox_model_free(m);
    return truth;
}

/* A condition computed from a tensor's sizes (x.shape[0] > 2): under tracing, sizes are traced
 * values, so bool() of it warns too. */
static bool reads_size(const fx_arg *a, int depth)
{
    if (!a || a->kind != FX_ARG_NODE || depth > 32) return false;
    const fx_node *n = a->u.node;
    if (n->op != FX_OP_CALL_FUNCTION) return false;
    if (!strncmp(n->target, "torch.ops.aten.sym_size", 23)) return true;
    if (strncmp(n->target, "operator.", 9) != 0) return false;
    for (size_t i = 0; i < n->args->u.seq.len; i++)
        if (reads_size(n->args->u.seq.items[i], depth + 1)) return true;
    return false;
}

/* Code of torch's own library (nn.functional's checks) rather than the model's. */
static bool library_node(const fx_node *n)
{
    const char *st = n->meta.stack_trace;
    return !st || strstr(st, "/dist-packages/torch/") || strstr(st, "/site-packages/torch/") || strstr(st, "\"<string>\"");
}

/* The TracerWarnings of the ifs on sizes in the model's code before `stop` (NULL: all). */
static void warn_size_ifs(session *s, const fx_program *p, const fx_node *stop, hashmap *shown, strbuf *keys)
{
    for (const fx_node *x = fx_program_graph(p)->first; x && x != stop; x = x->next) {
        fx_control_view v;
        if (fx_control_kind_of(x) == FX_CTRL_IF && fx_control_inspect((fx_node *)x, &v) && !library_node(x) &&
            reads_size(v.cond, 0))
            print_tracer_warning(s, x, shown, keys);
    }
}

static void free_keys(hashmap *shown)
{
    for (size_t i = 0; i < shown->cap; i++)
        if (shown->slots[i].key) free((char *)shown->slots[i].key);
    hm_free(shown);
}

fx_program *trace_program(session *s, const fx_program *p, const export_settings *cfg, const char *inputs, uint64_t seed)
{
    oe_values file = {0};
    if (inputs && run_read_values(s, "export --legacy trace", inputs, &file)) return NULL;
    fx_program *cur = fx_program_clone(p);
    hashmap shown;
    hm_init(&shown);
    strbuf keys;
    sb_init(&keys);
    while (cur) {
        const fx_node *n = control_flow_first_tensor_if(cur);
        warn_size_ifs(s, cur, n, &shown, &keys);
        if (!n) break;
        fx_control_view v;
        fx_control_inspect((fx_node *)n, &v);
        char *name = xstrdup(n->name);
        fx_program *cp = control_flow_condition_program(cur, name, &s->diag);
        int t = cp ? condition_truth(s, cp, cfg, inputs ? &file : NULL, inputs, seed, name) : -1;
        if (cp) fx_program_free(cp);
        fx_program *next = NULL;
        if (t >= 0) {
            print_tracer_warning(s, n, &shown, &keys);
            char seed_text[64];
            snprintf(seed_text, sizeof seed_text, "random inputs (seed %llu)", (unsigned long long)seed);
            diag_note(&s->diag, (diag_loc){p->file, n->src_line, 0},
                      "%%%s: on %s the condition is %s: the traced model keeps %s only, and is wrong for inputs "
                      "that take the other branch",
                      name, inputs ? inputs : seed_text, t ? "True" : "False", v.sub[t ? 0 : 1]->name);
            next = control_flow_take_branch(cur, name, t ? 0 : 1, &s->diag);
        }
        free(name);
        fx_program_free(cur);
        cur = next;
    }
    free_keys(&shown);
    sb_free(&keys);
    view_values_free(&file);
    return cur;
}
