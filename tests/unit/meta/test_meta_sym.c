/* test_meta_sym.c — symbolic sizes: sympy's canonical form and str() printing, torch's FloorDiv
 * simplification and printing. Expected texts are what str() of the same sympy expression
 * prints (sympy 1.14 StrPrinter; FloorDiv as torch/utils/_sympy/functions.py defines it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "meta/meta_sym.h"

static void check_parse(const char *in, const char *want)
{
    arena a;
    arena_init(&a);
    sx *x = sx_parse(&a, in);
    if (!x || strcmp(sx_str(x), want))
        fail_msg("%s: got '%s', want '%s'", in, x ? sx_str(x) : "(null)", want);
    /* the printed form reads back as itself */
    sx *y = sx_parse(&a, sx_str(x));
    if (!y || strcmp(sx_str(y), want))
        fail_msg("%s: '%s' reads back as '%s'", in, want, y ? sx_str(y) : "(null)");
    arena_free(&a);
}

static void sympy_printing(void **state)
{
    static const char *const cases[][2] = {
        {"s77*2", "2*s77"}, {"s77+1", "s77 + 1"}, {"1-s77", "1 - s77"}, {"s77-1", "s77 - 1"},
        {"2*s77+1", "2*s77 + 1"}, {"s1*s0", "s0*s1"}, {"s0*s1*4", "4*s0*s1"},
        {"s1+s0+3", "s0 + s1 + 3"}, {"s0*s1+s0", "s0*s1 + s0"}, {"2-2*s77", "2 - 2*s77"},
        {"-s77", "-s77"}, {"s0*s0", "s0**2"}, {"s0*s0+s0", "s0**2 + s0"}, {"s53*s0", "s0*s53"},
        {"s77*(s0+1)", "s77*(s0 + 1)"}, {"(s0+1)*(s1+1)", "(s0 + 1)*(s1 + 1)"},
        {"3*(s0+1)*(s0+1)", "(s0 + 1)*(3*s0 + 3)"}, {"(s0+1)*(s0+1)*3", "3*(s0 + 1)**2"}, {"2*(s0+1)", "2*s0 + 2"}, {"s1-s0", "-s0 + s1"},
        {"1-s0*s1", "-s0*s1 + 1"}, {"s77+s77", "2*s77"}, {"s77-s77", "0"}, {"4", "4"},
        {"-3", "-3"}, {"2*3+1", "7"}, {"s77 + 1 - 1", "s77"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check_parse(cases[i][0], cases[i][1]);
}

static void floordiv(void **state)
{
    static const char *const cases[][2] = {
        /* torch prints FloorDiv as "(a//b)", operands below atom precedence parenthesized,
         * and the FloorDiv itself parenthesized inside a sum or a product */
        {"(s1+1)//2+1", "(((s1 + 1)//2)) + 1"},
        {"(s77+2*1-1*(3-1)-1)//2+1", "(((s77 - 1)//2)) + 1"},
        {"s77//2*2", "2*((s77//2))"}, {"s1*(s77//2)", "s1*((s77//2))"},
        {"1-(s77//2)", "1 - ((s77//2))"},
        /* FloorDiv.eval: divisible terms come out, integers fold, common factors cancel */
        {"(2*s0+4)//2", "s0 + 2"}, {"(2*s0+1)//2", "s0"}, {"(4*s0+6)//4", "s0 + 1"},
        {"(6*s77)//s77", "6"}, {"(4*s0+2)//6", "((2*s0 + 1)//3)"}, {"7//2", "3"}, {"-7//2", "-4"},
        {"(s0//2)//3", "(s0//6)"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check_parse(cases[i][0], cases[i][1]);
}

static void arithmetic(void **state)
{
    (void)state;
    arena a;
    arena_init(&a);
    sx *s = sx_sym(&a, "s77"), *two = sx_int(&a, 2);
    assert_string_equal(sx_str(sx_mul(&a, s, two)), "2*s77");
    assert_string_equal(sx_str(sx_add(&a, s, sx_int(&a, 1))), "s77 + 1");
    assert_string_equal(sx_str(sx_div_exact(&a, sx_parse(&a, "6*s77"), s)), "6");
    assert_null(sx_div_exact(&a, sx_parse(&a, "2*s77 + 1"), two));
    assert_string_equal(sx_str(sx_ceildiv(&a, sx_int(&a, 7), two)), "4");
    assert_true(sx_eq(sx_parse(&a, "1 + s77"), sx_add(&a, s, sx_int(&a, 1))));
    int64_t v;
    assert_true(sx_is_int(sx_sub(&a, sx_mul(&a, s, two), sx_add(&a, s, s)), &v));
    assert_int_equal(v, 0);
    /* failures propagate instead of printing garbage */
    assert_null(sx_floordiv(&a, s, sx_int(&a, 0)));
    assert_null(sx_add(&a, NULL, s));
    assert_null(sx_mul(&a, sx_int(&a, INT64_MAX), two));
    assert_null(sx_parse(&a, "s77 +"));
    assert_null(sx_parse(&a, "f32[3]"));
    assert_null(sx_parse(&a, ""));
    /* an opaque atom is kept verbatim */
    assert_string_equal(sx_str(sx_parse(&a, "Max(1, s77)")), "Max(1, s77)");
    assert_true(sx_estimate(sx_parse(&a, "2*s77 + 1"), &v));
    assert_true(v > 2);
    arena_free(&a);
}

/* sx_same_value: one value in different written forms, and no false agreement */
static void same_value(void **state)
{
    (void)state;
    arena a;
    arena_init(&a);
    sx *s0 = sx_parse(&a, "s0"), *sum = sx_parse(&a, "s1 + s2");
    /* 2*s0*(16*s1 + 16*s2) (a cat's stride) against 32*s0*(s1 + s2) (a view's numel) */
    sx *x = sx_mul(&a, sx_mul(&a, sx_int(&a, 2), s0), sx_mul(&a, sx_int(&a, 16), sum));
    sx *y = sx_mul(&a, sx_mul(&a, sx_int(&a, 32), s0), sum);
    assert_false(sx_eq(x, y));   /* the canonical forms differ */
    assert_true(sx_same_value(x, y));
    assert_true(sx_same_value(y, x));
    assert_false(sx_same_value(x, sx_mul(&a, sx_int(&a, 31), sx_mul(&a, s0, sum))));
    assert_false(sx_same_value(sx_parse(&a, "s0*s1"), sx_parse(&a, "s0*s2")));
    assert_false(sx_same_value(sx_parse(&a, "s0*s1 + 1"), sx_parse(&a, "s0*s1")));
    /* FloorDiv's rounding is not decided by sample points: (s0//2)*2 is not s0 */
    assert_false(sx_same_value(sx_mul(&a, sx_floordiv(&a, s0, sx_int(&a, 2)), sx_int(&a, 2)), s0));
    /* opaque atoms compare only by their text */
    assert_true(sx_same_value(sx_parse(&a, "Max(1, s0)"), sx_parse(&a, "Max(1, s0)")));
    assert_false(sx_same_value(sx_parse(&a, "Max(1, s0)"), sx_parse(&a, "Max(2, s0)")));
    assert_false(sx_same_value(NULL, s0));
    arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sympy_printing),
        cmocka_unit_test(floordiv),
        cmocka_unit_test(arithmetic),
        cmocka_unit_test(same_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
