/* translate_meta.c — the provenance metadata torch.onnx writes on the ONNX it makes (node, value, graph). */
#include "translate/translate_meta.h"

#include <string.h>

#include "base/strbuf.h"
#include "fx/fx.h"

/* str(target) as torch's exporter writes it into `namespace`: OpOverloads "aten.mul.Tensor",
 * higher-order ops by their name ("cond"), other callables as FX prints them. */
static void target_text(const fx_node *n, strbuf *sb)
{
    static const char hop[] = "torch.ops.higher_order.";
    if (n->target && strncmp(n->target, hop, sizeof hop - 1) == 0)
        sb_puts(sb, n->target + sizeof hop - 1);
    else
        fx_target_str(n, sb);
}

/* Python repr of a str inside a list: '...' with backslash and quote escaped. */
static void py_str(strbuf *sb, const char *s, size_t len)
{
    sb_putc(sb, '\'');
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' || s[i] == '\'') sb_putc(sb, '\\');
        sb_putc(sb, s[i]);
    }
    sb_putc(sb, '\'');
}

/* nn_module_stack as torch.export serializes it: "key,path,class;key,path,class;..." (the root's
 * path is empty). Calls cb for each entry with its path and class. */
static void each_module(const char *stack, void (*cb)(const char *path, size_t plen, const char *cls, size_t clen, void *ctx),
                        void *ctx)
{
    const char *s = stack;
    while (s && *s) {
        const char *end = strchr(s, ';');
        if (!end) end = s + strlen(s);
        const char *c1 = memchr(s, ',', (size_t)(end - s));
        const char *c2 = c1 ? memchr(c1 + 1, ',', (size_t)(end - c1 - 1)) : NULL;
        if (c2)
            cb(c1 + 1, (size_t)(c2 - c1 - 1), c2 + 1, (size_t)(end - c2 - 1), ctx);
        s = *end ? end + 1 : end;
    }
}

typedef struct provenance_bufs {
    strbuf ns, classes, scopes;
    bool first;
} provenance_bufs;

static void add_module(const char *path, size_t plen, const char *cls, size_t clen, void *ctx)
{
    provenance_bufs *b = ctx;
    if (!b->first) {
        sb_putc(&b->ns, '/');
        sb_puts(&b->classes, ", ");
        sb_puts(&b->scopes, ", ");
    }
    b->first = false;
    sb_printf(&b->ns, "%.*s: %.*s", (int)plen, path, (int)clen, cls);
    py_str(&b->classes, cls, clen);
    py_str(&b->scopes, path, plen);
}

void translate_node_provenance(const fx_node *n, translate_provenance *out, arena *a)
{
    provenance_bufs b = {.first = true};
    sb_init(&b.ns);
    sb_init(&b.classes);
    sb_init(&b.scopes);
    sb_putc(&b.classes, '[');
    sb_putc(&b.scopes, '[');
    each_module(n->meta.nn_module_stack, add_module, &b);
    strbuf target;
    sb_init(&target);
    target_text(n, &target);
    if (!b.first) {
        sb_putc(&b.ns, '/');
        sb_puts(&b.classes, ", ");
        sb_puts(&b.scopes, ", ");
    }
    sb_printf(&b.ns, "%s: %s", n->name, target.s ? target.s : "");
    py_str(&b.classes, target.s ? target.s : "", target.len);
    py_str(&b.scopes, n->name, strlen(n->name));
    sb_putc(&b.classes, ']');
    sb_putc(&b.scopes, ']');
    strbuf line;
    sb_init(&line);
    fx_format_node(n, &line);
    out->keys[0] = "namespace";
    out->values[0] = arena_strdup(a, b.ns.s);
    out->keys[1] = "pkg.torch.onnx.class_hierarchy";
    out->values[1] = arena_strdup(a, b.classes.s);
    out->keys[2] = "pkg.torch.onnx.fx_node";
    out->values[2] = arena_strdup(a, line.s ? line.s : "");
    out->keys[3] = "pkg.torch.onnx.name_scopes";
    out->values[3] = arena_strdup(a, b.scopes.s);
    out->n = 4;
    if (n->meta.stack_trace) {
        out->keys[4] = "pkg.torch.onnx.stack_trace";
        out->values[4] = n->meta.stack_trace;
        out->n = 5;
    }
    sb_free(&line);
    sb_free(&target);
    sb_free(&b.ns);
    sb_free(&b.classes);
    sb_free(&b.scopes);
}

void translate_attach_provenance(ox_model *m, Onnx__NodeProto *node, const translate_provenance *pv)
{
    for (size_t i = 0; i < pv->n; i++)
        ox_node_add_metadata(m, node, pv->keys[i], pv->values[i]);
}

void translate_graph_metadata(ox_model *m, const fx_program *p)
{
    if (!p->sig.present)
        return;
    strbuf sb;
    sb_init(&sb);
    fx_print_signature(p, &sb);
    ox_graph_add_metadata(m, m->proto->graph, "pkg.torch.export.ExportedProgram.graph_signature", sb.s);
    sb_reset(&sb);
    fx_print_range_constraints(p, &sb);
    ox_graph_add_metadata(m, m->proto->graph, "pkg.torch.export.ExportedProgram.range_constraints", sb.s);
    sb_free(&sb);
}

void translate_input_metadata(ox_model *m, Onnx__ValueInfoProto *v, const fx_input_spec *spec, const char *fx_name)
{
    ox_value_add_metadata(m, v, "pkg.torch.export.graph_signature.InputSpec.kind",
                          fx_input_kind_name(spec ? spec->kind : FX_IN_USER_INPUT));
    ox_value_add_metadata(m, v, "pkg.torch.export.graph_signature.InputSpec.persistent",
                          spec && spec->kind == FX_IN_BUFFER ? (spec->persistent ? "True" : "False") : "None");
    if (spec && spec->kind != FX_IN_USER_INPUT)
        ox_value_add_metadata(m, v, "pkg.torch.onnx.original_node_name", fx_name);
}

void translate_output_metadata(ox_model *m, Onnx__ValueInfoProto *v, fx_output_kind kind)
{
    ox_value_add_metadata(m, v, "pkg.torch.export.graph_signature.OutputSpec.kind", fx_output_kind_name(kind));
}
