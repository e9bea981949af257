/* json_write.h — a streaming JSON writer (RFC 8259) into a strbuf, for machine-readable output.
 *
 * Values are written compactly on one line; commas and nesting are tracked by the writer. A
 * string is escaped as JSON requires (bytes that are not valid UTF-8 become U+FFFD). A finite
 * double is written in the fewest digits that read back as the same double (1e-4, not
 * 0.00010000000000000000479); one that is not finite becomes null (jw_double), or, where it is a
 * result rather than an absence (a relative difference against 0, an output that overflowed),
 * the string "NaN", "Infinity" or "-Infinity" (jw_double_named: the names Python's json module
 * and JavaScript give them). Ownership: writes to the caller's strbuf, keeps nothing. */
#ifndef FXSH_JSON_WRITE_H
#define FXSH_JSON_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

enum { JSON_WRITE_MAX_DEPTH = 64 };

typedef struct json_writer {
    strbuf *out;
    int depth;
    bool first[JSON_WRITE_MAX_DEPTH];   /* no value written yet at this depth */
    bool after_key;
} json_writer;

void jw_init(json_writer *w, strbuf *out);
void jw_object(json_writer *w);        /* { */
void jw_object_end(json_writer *w);    /* } */
void jw_array(json_writer *w);         /* [ */
void jw_array_end(json_writer *w);     /* ] */
void jw_key(json_writer *w, const char *key);
void jw_string(json_writer *w, const char *s);   /* NULL writes null */
void jw_int(json_writer *w, int64_t v);
void jw_uint(json_writer *w, uint64_t v);
void jw_double(json_writer *w, double v);
void jw_double_named(json_writer *w, double v);
/* A number the caller formatted (it must be a JSON number: the shortest float32 of a value). */
void jw_number_text(json_writer *w, const char *text);
void jw_bool(json_writer *w, bool v);
void jw_null(json_writer *w);
/* key + value in one call */
void jw_kstring(json_writer *w, const char *key, const char *s);
void jw_kint(json_writer *w, const char *key, int64_t v);
void jw_kbool(json_writer *w, const char *key, bool v);
void jw_kdouble_named(json_writer *w, const char *key, double v);

#endif
