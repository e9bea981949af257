/* onnx_parse.h — parser for the ONNX text syntax (what onnx.parser.parse_model accepts).
 *
 * Ownership: every message returned (and everything it points to) is allocated in the arena the
 * caller passes and is released with it; nothing needs a separate free. On error the functions
 * return NULL after reporting exactly one diagnostic (file:line:col, "expected X, found Y", the
 * offending source line) to the sink; whatever was allocated so far stays in the arena. */
#ifndef FXSH_ONNX_PARSE_H
#define FXSH_ONNX_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "onnx/onnx_ir.h"
#include "proto/onnx.pb-c.h"

/* Parses a whole model into a new ox_model (caller frees it with ox_model_free); NULL on error.
 * file (may be NULL) is only used in diagnostics and copied into m->path. */
ox_model *ox_parse_model(const char *text, size_t len, const char *file, diag_sink *d);
/* Graph-only text wrapped in a model with no header (ir_version unset, no opsets). */
ox_model *ox_parse_graph_model(const char *text, size_t len, const char *file, diag_sink *d);

/* A whole model: optional "<...>" header, a graph, then any number of functions. */
Onnx__ModelProto *ox_parse_model_proto(arena *a, const char *text, size_t len, const char *file,
                                       diag_sink *d);
/* Graph-only text ("name (inputs) => (outputs) {...}"); trailing text is an error. */
Onnx__GraphProto *ox_parse_graph_proto(arena *a, const char *text, size_t len, const char *file,
                                       diag_sink *d);
/* A single function definition (with its optional "<domain:..., opset_import:...>" header). */
Onnx__FunctionProto *ox_parse_function_proto(arena *a, const char *text, size_t len,
                                             const char *file, diag_sink *d);

/* For the REPL: true when text holds a whole graph body, i.e. braces are balanced outside
 * strings and comments, at least one "{" was opened, and the last token is "}". Also true when
 * there are more closing than opening braces, so the parser can report that error. */
bool ox_text_complete(const char *text, size_t len);

#endif
