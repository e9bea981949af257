/* json.h — strict RFC 8259 JSON parser into an arena-allocated DOM.
 *
 * Objects keep their key order (and duplicate keys; lookup returns the last one, as Python's
 * json does); numbers keep their source text and are also parsed to int64 (when integral and in
 * range) and double. Object lookup is hashed, so it is O(1) also for big objects.
 * Ownership: every json_value, string and index returned belongs to the arena passed to
 * json_parse and is freed with it (arena_free). Strings are NUL-terminated; a string holding
 * "\u0000" keeps its full length in `len`. The parser never keeps a pointer into the input. */
#ifndef FXSH_JSON_H
#define FXSH_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/diag.h"

typedef enum json_kind {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_kind;

typedef struct json_value json_value;
typedef struct json_member {
    const char *key;
    size_t key_len;
    json_value *value;
} json_member;

struct json_value {
    json_kind kind;
    int line, col;                  /* where the value starts in the input, 1-based */
    union {
        bool boolean;
        struct {
            const char *text;       /* the number as written */
            bool is_int;            /* integral literal that fits int64 */
            int64_t i;              /* valid when is_int */
            double d;               /* always valid (may be +-inf on overflow) */
        } num;
        struct {
            const char *s;
            size_t len;
        } str;
        struct {
            json_value **items;
            size_t len;
        } arr;
        struct {
            json_member *members;
            size_t len;
            uint32_t *index;        /* open-addressing table of member indices + 1; NULL if small */
            size_t index_cap;
        } obj;
    } u;
};

typedef struct json_options {
    const char *filename;   /* used in diagnostics; may be NULL */
    int max_depth;          /* nesting limit; 0 = default (512) */
    bool allow_nan_inf;     /* accept NaN, Infinity, -Infinity (Python's json.dumps writes them) */
} json_options;

/* Parses text[0..len) (need not be NUL-terminated). Returns the root value, or NULL after
 * reporting an error to d (with line:col and the offending source line). opts may be NULL. */
json_value *json_parse(arena *a, const char *text, size_t len, const json_options *opts, diag_sink *d);

/* Lookups; all accept NULL and wrong kinds and then return NULL / false / the default. */
json_value *json_get(const json_value *obj, const char *key);
json_value *json_at(const json_value *arr, size_t i);
size_t json_len(const json_value *v);                   /* array items / object members */
const char *json_str(const json_value *v);              /* NULL unless a string */
bool json_int(const json_value *v, int64_t *out);       /* integral number */
bool json_num(const json_value *v, double *out);        /* any number */
bool json_is_null(const json_value *v);
const char *json_kind_name(json_kind k);

#endif
