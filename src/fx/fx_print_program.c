/* fx_print_program.c — print(ep): ExportedProgram.__str__ (readable module, graph signature, ranges). */
#include "fx/fx.h"

#include <string.h>
#include <stdlib.h>

#include "fx/fx.h"

/* Appends s with every "\n" replaced by "\n    " (what __str__ does to nested reprs). */
static void put_indented(strbuf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sb_putc(out, s[i]);
        if (s[i] == '\n') sb_puts(out, "    ");
    }
}

void fx_print_signature(const fx_program *p, strbuf *sb)
{
    sb_puts(sb, "\n# inputs\n");
    for (size_t i = 0; i < p->sig.n_inputs; i++) {
        const fx_input_spec *s = &p->sig.inputs[i];
        sb_printf(sb, "%s: %s", s->name, fx_input_kind_name(s->kind));
        if (s->target) sb_printf(sb, " target='%s'", s->target);
        if (s->kind == FX_IN_BUFFER) sb_printf(sb, " persistent=%s", s->persistent ? "True" : "False");
        if (i + 1 < p->sig.n_inputs) sb_putc(sb, '\n');
    }
    sb_puts(sb, "\n\n# outputs\n");
    for (size_t i = 0; i < p->sig.n_outputs; i++) {
        const fx_output_spec *s = &p->sig.outputs[i];
        sb_printf(sb, "%s: %s", s->name, fx_output_kind_name(s->kind));
        if (s->target) sb_printf(sb, " target='%s'", s->target);
        if (i + 1 < p->sig.n_outputs) sb_putc(sb, '\n');
    }
    sb_putc(sb, '\n');
}

bool fx_print_program(const fx_program *p, strbuf *out, diag_sink *d)
{
    if (!p->sig.present) {
        diag_loc loc = { p->file, 0, 0 };
        diagnostic *dg = diag_error(d, loc, "this program has no export signature (it was not loaded from or produced by torch.export)");
        diag_set_hint(dg, "run `export` first, or load a .pt2 / program JSON");
        return false;
    }
    strbuf tmp;
    sb_init(&tmp);
    fx_print(p, FX_FORM_CODE, &tmp);
    sb_puts(out, "ExportedProgram:\n    ");
    put_indented(out, tmp.s, tmp.len);
    sb_reset(&tmp);
    fx_print_signature(p, &tmp);
    sb_puts(out, "\nGraph signature:");
    put_indented(out, tmp.s, tmp.len);
    sb_free(&tmp);
    sb_puts(out, "\nRange constraints: ");
    fx_print_range_constraints(p, out);
    sb_putc(out, '\n');
    return true;
}

void fx_print_range_constraints(const fx_program *p, strbuf *out)
{
    sb_putc(out, '{');
    for (size_t i = 0; i < p->n_ranges; i++)
        sb_printf(out, "%s%s: VR[%s, %s]", i ? ", " : "", p->ranges[i].symbol, p->ranges[i].min, p->ranges[i].max);
    sb_putc(out, '}');
}
