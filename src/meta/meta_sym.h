/* meta_sym.h — symbolic sizes: torch SymInt expressions built, simplified and printed the way
 * str(SymInt) prints them (sympy's StrPrinter plus torch's FloorDiv): "2*s77", "s77 + 1",
 * "1 - s77", "s0*s1", "(((s1 + 1)//2)) + 1".
 *
 * The canonical form mirrors sympy's automatic simplification: sums are flattened with like
 * terms combined and ordered as sympy orders them (lex monomial order over the generators);
 * products carry an integer coefficient and factors with exponents; a number times a sum is
 * distributed; FloorDiv follows torch's FloorDiv.eval (integer folding, divisible terms pulled
 * out, common integer factors cancelled, exact division by a monomial). Anything else parsed
 * from text (Max(...), Mod(...)) is kept as an opaque atom printed verbatim.
 *
 * Ownership: every sx lives in the arena passed to the constructor that made it, and so does
 * the text sx_str returns. Constructors return NULL on overflow, on division by zero and when
 * an operand is NULL, so a chain of calls fails as a whole. */
#ifndef FXSH_META_META_SYM_H
#define FXSH_META_META_SYM_H

#include <stdbool.h>
#include <stdint.h>

#include "base/alloc.h"

typedef struct sx sx;

typedef enum sx_kind { SX_INT, SX_SYM, SX_ADD, SX_MUL, SX_FLOORDIV, SX_OPAQUE } sx_kind;

sx *sx_int(arena *a, int64_t v);
sx *sx_sym(arena *a, const char *name);
/* Reads a size as torch prints it ("4", "s77", "2*s77 + 1", "((s0 - 1)//2)"); NULL if the text
 * is not an integer expression. */
sx *sx_parse(arena *a, const char *text);

sx *sx_add(arena *a, const sx *x, const sx *y);
sx *sx_sub(arena *a, const sx *x, const sx *y);
sx *sx_mul(arena *a, const sx *x, const sx *y);
sx *sx_neg(arena *a, const sx *x);
/* Python floor division x // y (torch's FloorDiv). */
sx *sx_floordiv(arena *a, const sx *x, const sx *y);
/* Python ceil division -(-x // y), spelled as torch builds it: (x + y - 1) // y for y > 0. */
sx *sx_ceildiv(arena *a, const sx *x, const sx *y);
/* x / y when it is exact (integers dividing evenly, or every term of x divisible by the
 * monomial y); NULL otherwise. */
sx *sx_div_exact(arena *a, const sx *x, const sx *y);

sx_kind sx_kind_of(const sx *x);
bool sx_is_int(const sx *x, int64_t *v);          /* v may be NULL */
bool sx_eq(const sx *x, const sx *y);             /* same canonical expression */
bool sx_eq_int(const sx *x, int64_t v);
const char *sx_str(const sx *x);                  /* canonical text; "?" for NULL */

/* Value of x with every symbol replaced by a positive stand-in (a different one per symbol,
 * larger than any small constant): used only to decide orderings torch settles by guards on
 * the example input (stride comparisons), never to print. false when x has opaque atoms. */
bool sx_estimate(const sx *x, int64_t *out);
/* Whether x and y are the same value for every assignment of their symbols: the same canonical
 * expression, or polynomials (no FloorDiv rounding differences, no opaque atoms) that agree
 * at four unrelated points (a product with a sum factor has more than one form here). */
bool sx_same_value(const sx *x, const sx *y);

#endif
