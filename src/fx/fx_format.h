/* fx_format.h — how torch spells FX values in text: argument trees (FX / str / repr), value
 * annotations ("f32[3, 4]"), and the pieces of generated code the loaders check against.
 *
 * Ownership: every function appends to a caller-owned strbuf. */
#ifndef FXSH_FX_FORMAT_H
#define FXSH_FX_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "fx/fx_ir.h"

/* How argument trees are spelled. */
typedef enum fxa_mode {
    FXA_FX,     /* print(graph) _format_arg: nodes %x, strings bare, containers recurse */
    FXA_STR,    /* Python str(): bare top-level string, otherwise repr */
    FXA_REPR    /* Python repr() / codegen _get_repr: nodes bare, strings quoted */
} fxa_mode;

void fx_arg_print(strbuf *out, const fx_arg *a, fxa_mode mode);
void fx_py_str_repr(strbuf *out, const char *s);          /* 'text' with Python escapes */

/* Value annotations: "f32[3, 4]", "Sym(u0)", or the opaque text; nothing for NONE/TUPLE. */
void fx_value_annot(strbuf *out, const fx_value *v);
bool fx_value_has_annot(const fx_value *v);

/* A character of a Python identifier. */
bool fx_is_ident_char(char ch);

/* Readable-code printing of one module (class) with its nested GraphModule children. */
void fx_print_code_module(const fx_module *m, const char *class_name, size_t indent, strbuf *out);
/* The generated forward code of print(gm) ("def forward(self, x):" ...), indent 0. */
void fx_print_forward(const fx_graph *g, size_t indent, bool verbose, strbuf *out);
/* The magic-method template codegen uses for an operator target ("{} + {}"), NULL if none. */
const char *fx_magic_format(const char *target);

#endif
