/* onnx_parse_internal.h — what the ONNX text parser (onnx_parse.c: types, tensors, graphs, models)
 * shares with its lexer (onnx_lex.c: tokens, literals, errors): the parser state, arena-backed
 * lists and the lexer's functions. Not a public API.
 *
 * Ownership: everything parsed lives in the parser's arena; errors unwind with longjmp (p->fail),
 * which leaks nothing for that reason. */
#ifndef FXSH_ONNX_ONNX_PARSE_INTERNAL_H
#define FXSH_ONNX_ONNX_PARSE_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "base/strbuf.h"

/* Deep nesting (graphs in attributes, seq(seq(...))) recurses; cap it so hostile input cannot
 * overflow the C stack. */
#define MAX_DEPTH 256

typedef struct parser {
    const char *s;
    size_t len, pos;
    const char *file;
    diag_sink *d;
    arena *a;
    int depth;
    jmp_buf fail;   /* every allocation lives in the arena, so unwinding by longjmp leaks nothing */
} parser;

/* ---------------------------------------------------------------------------------------- */
/* arena-backed growable arrays (plain vec.h would leak on the longjmp error path) */

typedef struct alist {
    void *items;
    size_t len, cap;
} alist;

/* A new slot at the end of l (grown in p's arena), elsz bytes. */
void *oxp_alist_slot(parser *p, alist *l, size_t elsz);
#define APUSH(p, l, T, v) (*(T *)oxp_alist_slot((p), (l), sizeof(T)) = (v))

#define NEWMSG(p, T, initfn)                                                                   \
    ({                                                                                         \
        T *m_ = arena_alloc((p)->a, sizeof(T));                                                \
        initfn(m_);                                                                            \
        m_;                                                                                    \
    })

/* A literal token: an integer, a float or a string. */
typedef enum lit_kind { LIT_INT, LIT_FLOAT, LIT_STRING } lit_kind;
typedef struct literal {
    lit_kind kind;
    int64_t i;
    uint64_t u;          /* for uint64 tensor data: the magnitude when it does not fit int64 */
    bool u_only;         /* i is not valid: value > INT64_MAX */
    double f;
    char *s;
    size_t slen;
} literal;

/* ---- onnx_lex.c ---- */
/* Reports msg at byte offset `at` (file:line:col, the source line and a caret). */
diagnostic *oxp_report_at(parser *p, size_t at, diag_severity sev, const char *msg);
/* Report an error at the current position (with a hint, or "expected WHAT") and unwind to
 * p->fail. */
_Noreturn void oxp_fail_msg_hint(parser *p, const char *msg, const char *hint);
_Noreturn void oxp_fail_msg(parser *p, const char *msg);
_Noreturn void oxp_fail_expected_hint(parser *p, const char *what, const char *hint);
_Noreturn void oxp_fail_expected(parser *p, const char *what);
/* Skips blanks and # comments. */
void oxp_skip_ws(parser *p);
/* The next character after blanks, -1 at the end. */
int oxp_peekc(parser *p);
/* Consumes c if it is next; oxp_expect fails when it is not. */
bool oxp_match(parser *p, char c);
void oxp_expect(parser *p, char c);
/* c can start an identifier. */
bool oxp_id_start(int c);
/* Length of the identifier at the current position (after whitespace), 0 if none. */
size_t oxp_peek_id(parser *p);
/* The next identifier is kw (not consumed). */
bool oxp_peek_keyword(parser *p, const char *kw);
/* An identifier (fails naming `what` when there is none). */
char *oxp_parse_id(parser *p, const char *what);
/* A "..." string with \x -> x escapes. The result is NUL-terminated; *out_len (if non-NULL)
 * receives the byte length, which may include embedded NULs. */
char *oxp_parse_str(parser *p, size_t *out_len);
/* An identifier or a quoted string (a name that is not an identifier). */
char *oxp_parse_qid(parser *p, const char *what);
/* Case-insensitive inf/infinity/nan at q, not followed by an identifier character. */
size_t oxp_special_float_len(parser *p, size_t q);
/* A number starts here (digits, sign, inf/nan). */
bool oxp_at_number(parser *p);
/* A number: int64 (uint64 beyond INT64_MAX) or double. */
void oxp_parse_number(parser *p, literal *lit);
/* A number or a string; oxp_parse_int requires an integer. */
void oxp_parse_literal(parser *p, literal *lit, const char *what);
int64_t oxp_parse_int(parser *p, const char *what);
/* One nesting level deeper (fails past MAX_DEPTH); the caller decrements p->depth. */
void oxp_enter(parser *p);

#endif
