/* fx_parse_internal.h — shared internals of the FX text loaders (not a public API).
 *
 * Ownership: parsed args live in the program arena (c->p); the parser context borrows the
 * text, graph and diagnostics sink. Printers append to a caller-owned strbuf. */
#ifndef FXSH_LOAD_FX_PARSE_INTERNAL_H
#define FXSH_LOAD_FX_PARSE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/hashmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "fx/fx_format.h"
#include "fx/fx_ir.h"
#include "load/load.h"

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

/* Value annotations: "f32[3, 4]", "Sym(u0)"; anything else becomes OPAQUE. */
fx_value *fxp_value_parse(fx_program *p, const char *s, size_t n);


/* Lines of a text (no terminators; a trailing "\r" is dropped). Caller frees items. */
typedef struct fx_line {
    const char *s;
    size_t len;
    int no;          /* 1-based */
} fx_line;
typedef VEC(fx_line) fx_lines;
void fxp_split_lines(const char *text, size_t len, fx_lines *out);
size_t fxp_indent_of(const fx_line *l);   /* leading spaces */
bool fxp_line_blank(const fx_line *l);

/* Shared by the readable-code and print(gm) loaders. */
bool fxp_parse_forward(fxp *c, const fx_lines *lines, size_t *i, size_t def_indent, bool verbose);
void fxp_prescan_names(fx_program *p, const fx_lines *lines, hashmap *all);

#endif
