/* dot_write.h — Graphviz DOT text: quoted IDs and label text, for the DOT writers of ONNX models
 * (view/onnx_dot) and FX programs (fx/fx_print_dot).
 *
 * Ownership: writes to the caller's strbuf, keeps nothing. */
#ifndef FXSH_DOT_WRITE_H
#define FXSH_DOT_WRITE_H

#include "base/strbuf.h"

/* s as a DOT double-quoted string: '"' and '\' escaped, a newline as \n (NULL: ""). */
void dot_quote(strbuf *out, const char *s);
/* The same escapes without the quotes, for a label built in pieces and quoted once. */
void dot_escape(strbuf *out, const char *s);

#endif
