/* fx_print_module.c — print(gm): the module tree's repr, then the generated forward code. */
#include <string.h>

#include "base/strbuf.h"
#include "fx/fx.h"
#include "fx/fx_format.h"
#include "fx/fx_ir.h"

static const char trailer[] = "# To see more debug info, please use `graph_module.print_readable()`";

static void indent_after_newlines(strbuf *out, const char *s, size_t n)
{
    for (const char *p = s; *p; p++) {
        sb_putc(out, *p);
        if (*p == '\n')
            sb_spaces(out, n);
    }
}

static void module_repr(const fx_module *m, strbuf *out)
{
    sb_printf(out, "%s(", m->type);
    bool has_extra = m->extra_repr && *m->extra_repr;
    if (has_extra && !m->first_child && !strchr(m->extra_repr, '\n')) {
        sb_puts(out, m->extra_repr);
    } else if (has_extra || m->first_child) {
        if (has_extra) {
            sb_puts(out, "\n  ");
            indent_after_newlines(out, m->extra_repr, 2);
        }
        for (const fx_module *ch = m->first_child; ch; ch = ch->next_sibling) {
            sb_printf(out, "\n  (%s): ", ch->name);
            strbuf sub;
            sb_init(&sub);
            module_repr(ch, &sub);
            indent_after_newlines(out, sub.s, 2);
            sb_free(&sub);
        }
        sb_putc(out, '\n');
    }
    sb_putc(out, ')');
}

void fx_print_module(const fx_program *p, strbuf *out)
{
    module_repr(p->root, out);
    sb_puts(out, "\n\n\n\n");
    if (p->root->graph)
        fx_print_forward(p->root->graph, 0, false, out);
    sb_puts(out, "    \n");
    sb_puts(out, trailer);
}

