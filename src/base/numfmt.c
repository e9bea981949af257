/* numfmt.c — %g and integers without printf: decimal digits from scaled doubles, checked exactly. */
#include "base/numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t fmt_u64(char *buf, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

size_t fmt_i64(char *buf, int64_t v)
{
    if (v >= 0)
        return fmt_u64(buf, (uint64_t)v);
    buf[0] = '-';
    /* -(INT64_MIN) does not fit an int64_t; its magnitude does fit a uint64_t */
    return 1 + fmt_u64(buf + 1, (uint64_t)0 - (uint64_t)v);
}

static size_t fallback(char *buf, double v)
{
    int n = snprintf(buf, FMT_NUM_MAX, "%g", v);
    return n > 0 ? (size_t)n : 0;
}

/* 10^k for |k| <= 320, each the correctly rounded double (strtod's), made once. */
static double pow10_table[641];
static bool pow10_ready;

static void init_pow10(void)
{
    char s[16];
    for (int k = -320; k <= 320; k++) {
        snprintf(s, sizeof s, "1e%d", k);
        pow10_table[k + 320] = strtod(s, NULL);
    }
    pow10_ready = true;
}

/* Writes digits d[0..5] (d[0] != 0) with decimal exponent x as %g lays them out. */
static size_t layout(char *buf, bool neg, const char *d, int x)
{
    size_t n = 0;
    int last = 5;   /* the last significant digit: %g drops trailing zeros */
    while (last > 0 && d[last] == '0')
        last--;
    if (neg)
        buf[n++] = '-';
    if (x >= -4 && x < 6) {
        if (x >= 0) {
            for (int i = 0; i <= x; i++)
                buf[n++] = d[i];
            if (last > x) {
                buf[n++] = '.';
                for (int i = x + 1; i <= last; i++)
                    buf[n++] = d[i];
            }
        } else {
            buf[n++] = '0';
            buf[n++] = '.';
            for (int i = 0; i < -x - 1; i++)
                buf[n++] = '0';
            for (int i = 0; i <= last; i++)
                buf[n++] = d[i];
        }
    } else {
        buf[n++] = d[0];
        if (last > 0) {
            buf[n++] = '.';
            for (int i = 1; i <= last; i++)
                buf[n++] = d[i];
        }
        buf[n++] = 'e';
        buf[n++] = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            buf[n++] = (char)('0' + ax / 100);
        buf[n++] = (char)('0' + ax / 10 % 10);
        buf[n++] = (char)('0' + ax % 10);
    }
    buf[n] = '\0';
    return n;
}

static double scaled(double a, int x)
{
    return 5 - x >= 0 ? a * pow10_table[5 - x + 320] : a / pow10_table[x - 5 + 320];
}

size_t fmt_g(char *buf, double v)
{
    if (v == 0) {
        /* "0" or "-0", by the sign bit */
        return signbit(v) ? (memcpy(buf, "-0", 3), 2) : (memcpy(buf, "0", 2), 1);
    }
    if (!isfinite(v))
        return fallback(buf, v);   /* inf, -inf, nan, -nan: glibc's spelling */
    double a = fabs(v);
    /* outside this range the scaling below would leave the table or lose precision */
    if (a < 1e-300 || a > 1e300)
        return fallback(buf, v);
    if (!pow10_ready)
        init_pow10();
    /* the decimal exponent from the binary one: a = 2^e * 1.f, so log10(a) lies in
     * [e log10 2, (e+1) log10 2): this is x or x - 1, and one comparison settles it */
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff) - 1023;
    int x = (int)floor(e * 0.30102999566398120);
    if (a >= pow10_table[x + 1 + 320])
        x++;
    /* r = a * 10^(5-x), within [1e5, 1e6) when x is right; a correctly rounded power and one
     * multiplication or division keep its relative error under 3e-16 (absolute under 1e-9); a
     * power of ten one rounding off moves r just outside, and the next lines bring it back */
    double r = scaled(a, x);
    if (r < 99999.999)
        r = scaled(a, --x);
    else if (r >= 999999.999)
        r = scaled(a, ++x);
    uint32_t fl = (uint32_t)r;
    double frac = r - fl;
    /* printf rounds the exact binary value: a fraction this close to one half cannot be decided
     * from r (it may be a tie, which printf breaks to even); printf decides it. Near the ends of
     * the decade the rounding is continuous: 99999.9995 and 999999.9995 both carry to 100000. */
    if (fabs(frac - 0.5) < 1e-6)
        return fallback(buf, v);
    uint32_t nd = fl + (frac > 0.5);
    if (nd >= 1000000) {
        nd /= 10;
        x++;
    }
    /* six digits, two at a time */
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char d[6];
    uint32_t hi = nd / 10000, mid = nd / 100 % 100, lo = nd % 100;
    memcpy(d, pairs + 2 * hi, 2);
    memcpy(d + 2, pairs + 2 * mid, 2);
    memcpy(d + 4, pairs + 2 * lo, 2);
    return layout(buf, v < 0, d, x);
}
