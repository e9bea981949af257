/* fx_internal.h — shared internals of the FX loaders and printers (not a public API).
 *
 * Ownership: parsed args live in the program arena (c->p); the parser context borrows the
 * text, graph and diagnostics sink. Printers append to a caller-owned strbuf. */
#ifndef FXSH_FX_INTERNAL_H
#define FXSH_FX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx_ir.h"

/* How argument trees are spelled. */
typedef enum fxa_mode {
    FXA_FX,     /* print(graph) _format_arg: nodes %x, strings bare, containers recurse */
    FXA_STR,    /* Python str(): bare top-level string, otherwise repr */
    FXA_REPR    /* Python repr() / codegen _get_repr: nodes bare, strings quoted */
} fxa_mode;

void fx_arg_print(strbuf *out, const fx_arg *a, fxa_mode mode);
void fx_py_str_repr(strbuf *out, const char *s);          /* 'text' with Python escapes */

typedef struct fxp {
    fx_program *p;
    fx_graph *g;              /* nodes are resolved here */
    diag_sink *d;
    const char *file;
    const char *line;         /* start of the current line */
    size_t line_len;
    int lineno;
    const char *s, *end;      /* cursor within the current line */
    const hashmap *all_names; /* name -> defining line number (uintptr_t), may be NULL */
    int depth;
    const char *ret_type;     /* forward "-> T" while parsing a body */
    bool failed;
} fxp;

/* Report at the column of `at` on the current line; fxp_error returns NULL (and reports
 * nothing) once an error was already reported, so callers must check before adding a hint. */
diagnostic *fxp_error(fxp *c, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
diagnostic *fxp_warning(fxp *c, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void fxp_skip_ws(fxp *c);
bool fxp_lit(fxp *c, const char *lit);   /* consumes lit if it is next */
/* Parses one argument in the given spelling (FXA_FX or FXA_REPR); NULL after an error. */
fx_arg *fxp_arg(fxp *c, fxa_mode mode);
/* Parses "item, item, ..." up to the closing char (consumed) into a LIST or TUPLE arg. */
fx_arg *fxp_seq(fxp *c, fxa_mode mode, char close, fx_arg_kind kind);
bool fxp_is_ident_char(char ch);

/* Value annotations: "f32[3, 4]", "Sym(u0)"; anything else becomes OPAQUE. */
fx_value *fx_value_parse(fx_program *p, const char *s, size_t n);
void fx_value_annot(strbuf *out, const fx_value *v);     /* inverse; nothing for NONE/TUPLE */
bool fx_value_has_annot(const fx_value *v);

/* Readable-code printing of one module (class) with its nested GraphModule children. */
void fx_print_code_module(const fx_module *m, const char *class_name, size_t indent, strbuf *out);
/* The generated forward code of print(gm) ("def forward(self, x):" ...), indent 0. */
void fx_print_forward(const fx_graph *g, size_t indent, bool verbose, strbuf *out);

/* Lines of a text (no terminators; a trailing "\r" is dropped). Caller frees items. */
typedef struct fx_line {
    const char *s;
    size_t len;
    int no;          /* 1-based */
} fx_line;
typedef VEC(fx_line) fx_lines;
void fx_split_lines(const char *text, size_t len, fx_lines *out);
size_t fx_indent_of(const fx_line *l);   /* leading spaces */
bool fx_line_blank(const fx_line *l);

/* Shared by the readable-code and print(gm) loaders. */
bool fx_parse_forward(fxp *c, const fx_lines *lines, size_t *i, size_t def_indent, bool verbose);
void fx_prescan_names(fx_program *p, const fx_lines *lines, hashmap *all);
const char *fx_magic_format(const char *target);

#endif
