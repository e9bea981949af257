/* test_numfmt.c — fmt_g writes what glibc's printf("%g") writes, fmt_i64 / fmt_u64 what "%lld" /
 * "%llu" write: edge cases, every decade, and millions of random floats and doubles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/numfmt.h"

static void expect_g(double v)
{
    char mine[FMT_NUM_MAX], libc[64];
    size_t n = fmt_g(mine, v);
    snprintf(libc, sizeof libc, "%g", v);
    if (strcmp(mine, libc) || n != strlen(libc))
        fail_msg("fmt_g(%.17g) = \"%s\", printf gives \"%s\"", v, mine, libc);
}

static void test_g_edges(void **state)
{
    (void)state;
    const double edges[] = {
        0.0, -0.0, 1, -1, 0.5, 0.1, 0.2, 0.3, 1e-4, 9.99999e-5, 1e-5, 0.0001234565, 123456, 999999,
        999999.5, 999999.4, 9999995, 1234565, 1e6, 1e15, 1e16, 1e100, 1e-100, 1e300, 1.7e308, DBL_MAX,
        DBL_MIN, 5e-324, 1e-310, FLT_MAX, FLT_MIN, FLT_TRUE_MIN, 3.14159265358979, 2.5, 0.125, 100, 1e-4 * 0.99999,
        HUGE_VAL, -HUGE_VAL, NAN, -NAN,
    };
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
        expect_g(edges[i]);
        expect_g(-edges[i]);
        expect_g((float)edges[i]);
    }
    /* every power of ten and its neighbours, where the fixed / exponent layout switches */
    for (int k = -320; k <= 308; k++) {
        double p = pow(10, k);
        expect_g(p);
        expect_g(nextafter(p, 0));
        expect_g(nextafter(p, INFINITY));
        expect_g(p * 9.999995);
        expect_g(p * 9.9999949999);
    }
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_g_random(void **state)
{
    (void)state;
    for (long i = 0; i < 2000000; i++) {
        uint64_t u = next();
        double v;
        if (i % 3 == 0) {
            uint32_t b = (uint32_t)u;
            float f;
            memcpy(&f, &b, 4);
            v = f;                                    /* any float bit pattern */
        } else if (i % 3 == 1) {
            memcpy(&v, &u, 8);                        /* any double bit pattern */
        } else {
            /* decimal values with 6 or 7 significant digits: the ties and near-ties of %g */
            v = (double)(int64_t)(u % 20000001) / pow(10, (double)(next() % 14)) * (u & 1 ? -1 : 1);
        }
        expect_g(v);
    }
}

static void test_integers(void **state)
{
    (void)state;
    const int64_t vs[] = { 0, 1, -1, 9, 10, -10, 123456789, INT64_MAX, INT64_MIN, INT32_MIN, INT32_MAX };
    char mine[FMT_NUM_MAX], libc[64];
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
        fmt_i64(mine, vs[i]);
        snprintf(libc, sizeof libc, "%lld", (long long)vs[i]);
        assert_string_equal(mine, libc);
    }
    fmt_u64(mine, UINT64_MAX);
    assert_string_equal(mine, "18446744073709551615");
    for (int i = 0; i < 100000; i++) {
        int64_t v = (int64_t)next();
        fmt_i64(mine, v);
        snprintf(libc, sizeof libc, "%lld", (long long)v);
        assert_string_equal(mine, libc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_g_edges),
        cmocka_unit_test(test_g_random),
        cmocka_unit_test(test_integers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
