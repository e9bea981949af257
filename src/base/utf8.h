/* utf8.h — UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF), shared by
 * the JSON reader and writer and the ONNX checker. */
#ifndef FXSH_BASE_UTF8_H
#define FXSH_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length (1..4) of the valid UTF-8 sequence at s[0..n), 0 when it is not one (n ≥ 1). */
size_t utf8_seq_len(const unsigned char *s, size_t n);
/* Whether s[0..n) is valid UTF-8; if not, *bad (when given) is the offset of the first invalid byte. */
bool utf8_valid(const char *s, size_t n, size_t *bad);

#endif
