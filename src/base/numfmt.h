/* numfmt.h — numbers as printf prints them, without printf: the printers' per-element hot path.
 *
 * fmt_g writes exactly what snprintf("%g") writes (6 significant digits, the shorter of fixed
 * and exponent form, trailing zeros dropped, glibc's "inf" / "nan" / "-nan"), and falls back to
 * snprintf for the rare value whose rounding it cannot decide exactly. fmt_i64 / fmt_u64 write
 * decimal integers. Each writes into buf (at least FMT_NUM_MAX bytes), NUL-terminated, and
 * returns the length. */
#ifndef FXSH_BASE_NUMFMT_H
#define FXSH_BASE_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

#define FMT_NUM_MAX 32

size_t fmt_g(char *buf, double v);
size_t fmt_i64(char *buf, int64_t v);
size_t fmt_u64(char *buf, uint64_t v);

#endif
