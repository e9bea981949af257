/* onnx_print.h — the ONNX text printer: byte-identical to onnx.printer.to_text of onnx 1.20.
 *
 * Output goes to a strbuf; when out is non-NULL the strbuf is flushed to it in chunks so very
 * large models print in linear time and bounded memory (the strbuf is then left empty).
 * Like to_text, no newline follows the final "}" of a model, graph or function; a node prints
 * as three spaces + node + "\n".
 * Ownership: ox_*_to_text return a malloc'd string the caller free()s. */
#ifndef FXSH_ONNX_PRINT_H
#define FXSH_ONNX_PRINT_H

#include <stdio.h>

#include "base/strbuf.h"
#include "onnx/onnx_ir.h"

/* Each returns 0, or -1 if writing to out failed. */
int ox_print_model(const Onnx__ModelProto *m, strbuf *sb, FILE *out);
int ox_print_graph(const Onnx__GraphProto *g, strbuf *sb, FILE *out);

/* For people rather than parsers: with elide_values, a tensor (initializer or attribute) of more
 * than elide_over elements prints its values as "{... N values}" (0: every tensor shows only
 * its type and shape, as polygraphy inspect does). Everything else is to_text's. */
typedef struct ox_print_opts {
    int elide_values;
    size_t elide_over;
} ox_print_opts;
int ox_print_model_opts(const Onnx__ModelProto *m, strbuf *sb, FILE *out, const ox_print_opts *o);
int ox_print_function(const Onnx__FunctionProto *f, strbuf *sb, FILE *out);
int ox_print_node(const Onnx__NodeProto *n, strbuf *sb, FILE *out);
/* One attribute as to_text writes it inside a node's <...>: "axis: int = 1" (no newline). */
int ox_print_attribute(const Onnx__AttributeProto *a, strbuf *sb);

char *ox_model_to_text(const Onnx__ModelProto *m);
char *ox_graph_to_text(const Onnx__GraphProto *g);
char *ox_function_to_text(const Onnx__FunctionProto *f);

/* The printer's number format (C++ ostream << float/double, i.e. "%g"): writes to buf, which
 * must hold at least 32 bytes; returns buf. */
const char *ox_format_float(char *buf, double v);
/* True if s is printed bare (an identifier [A-Za-z_][A-Za-z0-9_]*), false if it gets quoted. */
int ox_is_identifier(const char *s);

#endif
