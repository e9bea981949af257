/* fx_print_graph.c — print(gm.graph) and graph.print_tabular() printers, and fx_print dispatch. */
#include <string.h>
#include <stdlib.h>

#include "base/hashmap.h"
#include "base/vec.h"
#include "fx/fx.h"
#include "fx/fx_format.h"

void fx_format_node(const fx_node *n, strbuf *out)
{
    if (n->op == FX_OP_OUTPUT) {
        sb_puts(out, "return ");
        fx_arg_print(out, n->args->u.seq.len ? n->args->u.seq.items[0] : NULL, FXA_STR);
        return;
    }
    sb_printf(out, "%%%s : ", n->name);
    if (n->type_text)
        sb_printf(out, "%s ", n->type_text);
    sb_printf(out, "[num_users=%zu] = %s[target=%s]", n->n_users, fx_opcode_name(n->op), n->target);
    if (n->op == FX_OP_PLACEHOLDER) {
        if (n->args && n->args->u.seq.len) {
            sb_puts(out, "(default=");
            fx_arg_print(out, n->args->u.seq.items[0], FXA_STR);
            sb_putc(out, ')');
        }
        return;
    }
    if (n->op == FX_OP_GET_ATTR)
        return;
    sb_puts(out, "(args = ");
    fx_arg_print(out, n->args, FXA_FX);
    sb_puts(out, ", kwargs = ");
    fx_arg_print(out, n->kwargs, FXA_FX);
    sb_putc(out, ')');
}

void fx_print_graph(const fx_graph *g, strbuf *out)
{
    sb_puts(out, "graph():");
    for (const fx_node *n = g->first; n; n = n->next) {
        sb_puts(out, "\n    ");
        fx_format_node(n, out);
    }
}

void fx_target_str(const fx_node *n, strbuf *out)
{
    const char *t = n->target;
    if (n->op == FX_OP_CALL_FUNCTION) {
        if (strncmp(t, "torch.ops.", 10) == 0 && strncmp(t, "torch.ops.higher_order.", 23) != 0) {
            sb_puts(out, t + 10);
            return;
        }
        if (strncmp(t, "operator.", 9) == 0 || strncmp(t, "builtins.", 9) == 0) {
            sb_printf(out, "<built-in function %s>", strchr(t, '.') + 1);
            return;
        }
    }
    sb_puts(out, t);
}

static void print_tabular(const fx_graph *g, strbuf *out)
{
    static const char *const hdr[5] = {"opcode", "name", "target", "args", "kwargs"};
    size_t nrows = g->n_nodes;
    strbuf *cells = xcalloc((nrows ? nrows : 1) * 5, sizeof *cells);
    size_t w[5];
    for (int k = 0; k < 5; k++)
        w[k] = strlen(hdr[k]) + 2;   /* tabulate's MIN_PADDING for headers */
    size_t r = 0;
    for (const fx_node *n = g->first; n; n = n->next, r++) {
        strbuf *row = &cells[r * 5];
        for (int k = 0; k < 5; k++)
            sb_init(&row[k]);
        sb_puts(&row[0], fx_opcode_name(n->op));
        sb_puts(&row[1], n->name);
        fx_target_str(n, &row[2]);
        fx_arg_print(&row[3], n->args, FXA_REPR);
        fx_arg_print(&row[4], n->kwargs, FXA_REPR);
        for (int k = 0; k < 5; k++)
            if (row[k].len > w[k])
                w[k] = row[k].len;
    }
    for (int k = 0; k < 5; k++) {
        sb_puts(out, hdr[k]);
        sb_spaces(out, w[k] - strlen(hdr[k]) + (k < 4 ? 2 : 0));
    }
    sb_putc(out, '\n');
    for (int k = 0; k < 5; k++) {
        for (size_t j = 0; j < w[k]; j++)
            sb_putc(out, '-');
        if (k < 4)
            sb_puts(out, "  ");
    }
    for (size_t i = 0; i < r; i++) {
        sb_putc(out, '\n');
        for (int k = 0; k < 5; k++) {
            strbuf *cell = &cells[i * 5 + k];
            /* tabulate pads every cell, the last column included */
            sb_puts(out, cell->s);
            sb_spaces(out, w[k] - cell->len + (k < 4 ? 2 : 0));
            sb_free(cell);
        }
    }
    free(cells);
}

void fx_print(const fx_program *p, fx_form form, strbuf *out)
{
    switch (form) {
    case FX_FORM_GRAPH: fx_print_graph(p->root->graph, out); break;
    case FX_FORM_CODE: fx_print_code_class(p->root, p->root->name, 0, out); break;
    case FX_FORM_MODULE: fx_print_module(p, out); break;
    case FX_FORM_TABULAR: print_tabular(p->root->graph, out); break;
    case FX_FORM_EXPORT: fx_print_code_class(p->root, p->root->name, 0, out); break;
    case FX_FORM_PROGRAM:
        if (p->sig.present) fx_print_program(p, out, NULL);
        else fx_print_code_class(p->root, p->root->name, 0, out);
        break;
    }
}
