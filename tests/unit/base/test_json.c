/* test_json.c — unit tests for the strict JSON DOM parser (base/json.h) and the writer (base/json_write.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/json_write.h"
#include "base/strbuf.h"

static json_value *parse(arena *a, diag_sink *d, const char *s)
{
    return json_parse(a, s, strlen(s), NULL, d);
}

/* Parses s, expects failure, and checks that the first diagnostic is at line:col and
 * mentions `needle`. */
static void expect_error(const char *s, int line, int col, const char *needle)
{
    arena a;
    diag_sink d;
    arena_init(&a);
    diag_init(&d);
    json_value *v = parse(&a, &d, s);
    if (v != NULL) fail_msg("accepted invalid JSON: %s", s);
    assert_true(d.errors >= 1);
    if (d.items[0].line != line || d.items[0].col != col || !strstr(d.items[0].message, needle))
        fail_msg("for %s: got %d:%d '%s', want %d:%d '%s'", s, d.items[0].line, d.items[0].col, d.items[0].message,
                 line, col, needle);
    diag_free(&d);
    arena_free(&a);
}

static void test_scalars(void **state)
{
    (void)state;
    arena a;
    diag_sink d;
    arena_init(&a);
    diag_init(&d);
    json_value *v = parse(&a, &d, " [null, true, false, 0, -12, 3.5, 1e3, -0.25E-2, \"x\"] ");
    assert_non_null(v);
    assert_int_equal(json_len(v), 9);
    assert_true(json_is_null(json_at(v, 0)));
    assert_true(json_at(v, 1)->u.boolean);
    assert_false(json_at(v, 2)->u.boolean);
    int64_t i;
    assert_true(json_int(json_at(v, 3), &i));
    assert_int_equal(i, 0);
    assert_true(json_int(json_at(v, 4), &i));
    assert_int_equal(i, -12);
    assert_false(json_int(json_at(v, 5), &i));
    double x;
    assert_true(json_num(json_at(v, 5), &x));
    assert_true(x == 3.5);
    assert_false(json_int(json_at(v, 6), &i)); /* 1e3 is not an integer literal */
    assert_true(json_num(json_at(v, 6), &x) && x == 1000.0);
    assert_string_equal(json_at(v, 7)->u.num.text, "-0.25E-2");
    assert_string_equal(json_str(json_at(v, 8)), "x");
    assert_null(json_at(v, 9));
    assert_int_equal(d.errors, 0);
    diag_free(&d);
    arena_free(&a);
}

static void test_int64_limits(void **state)
{
    (void)state;
    arena a;
    diag_sink d;
    arena_init(&a);
    diag_init(&d);
    json_value *v = parse(&a, &d, "[9223372036854775807, -9223372036854775808, 9223372036854775808]");
    assert_non_null(v);
    int64_t i;
    assert_true(json_int(json_at(v, 0), &i));
    assert_true(i == INT64_MAX);
    assert_true(json_int(json_at(v, 1), &i));
    assert_true(i == INT64_MIN);
    /* Out of range: not an int, but still a number with its text kept. */
    assert_false(json_int(json_at(v, 2), &i));
    assert_string_equal(json_at(v, 2)->u.num.text, "9223372036854775808");
    diag_free(&d);
    arena_free(&a);
}

static void test_strings(void **state)
{
    (void)state;
    arena a;
    diag_sink d;
    arena_init(&a);
    diag_init(&d);
    json_value *v = parse(&a, &d, "[\"a\\\"b\\\\c\\/\\n\\t\", \"\\u00e9\\u4e2d\\ud83d\\ude00\", \"\\u0000z\", \"\xc3\xa9\"]");
    assert_non_null(v);
    assert_string_equal(json_str(json_at(v, 0)), "a\"b\\c/\n\t");
    assert_string_equal(json_str(json_at(v, 1)), "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80");
    assert_int_equal(json_at(v, 2)->u.str.len, 2);
    assert_int_equal(json_at(v, 2)->u.str.s[1], 'z');
    assert_string_equal(json_str(json_at(v, 3)), "\xc3\xa9");
    diag_free(&d);
    arena_free(&a);
}

static void test_objects_order_and_lookup(void **state)
{
    (void)state;
    arena a;
    diag_sink d;
    arena_init(&a);
    diag_init(&d);
    json_value *v = parse(&a, &d, "{\"b\": 1, \"a\": {\"x\": [1, 2]}, \"b\": 3}");
    assert_non_null(v);
    assert_int_equal(json_len(v), 3);
    assert_string_equal(v->u.obj.members[0].key, "b");
    assert_string_equal(v->u.obj.members[1].key, "a");
    int64_t i;
    assert_true(json_int(json_get(v, "b"), &i)); /* duplicate key: last wins */
    assert_int_equal(i, 3);
    assert_int_equal(json_len(json_get(json_get(v, "a"), "x")), 2);
    assert_null(json_get(v, "zz"));
    assert_null(json_get(json_at(v, 0), "a")); /* wrong kinds are tolerated */
    assert_int_equal(json_get(v, "a")->line, 1);
    assert_int_equal(json_get(v, "a")->col, 15);
    diag_free(&d);
    arena_free(&a);
}

static void test_big_object_hashed(void **state)
{
    (void)state;
    strbuf sb;
    sb_init(&sb);
    sb_putc(&sb, '{');
    enum { N = 5000 };
    for (int k = 0; k < N; k++) sb_printf(&sb, "%s\"key%d\": %d", k ? ", " : "", k, k * 7);
    sb_puts(&sb, ", \"key17\": -1}");
    arena a;
    diag_sink d;
    arena_init(&a);
    diag_init(&d);
    json_value *v = json_parse(&a, sb.s, sb.len, NULL, &d);
    assert_non_null(v);
    assert_non_null(v->u.obj.index);
    assert_int_equal(json_len(v), N + 1);
    char key[32];
    for (int k = 0; k < N; k++) {
        snprintf(key, sizeof key, "key%d", k);
        int64_t i;
        assert_true(json_int(json_get(v, key), &i));
        assert_int_equal(i, k == 17 ? -1 : k * 7);
    }
    assert_null(json_get(v, "key5000"));
    diag_free(&d);
    arena_free(&a);
    sb_free(&sb);
}

static void test_errors_with_location(void **state)
{
    (void)state;
    expect_error("", 1, 1, "end of input");
    expect_error("{\"a\": 1,}", 1, 9, "expected a string key");
    expect_error("[1, 2", 1, 6, "expected ',' or ']'");
    expect_error("{\n  \"a\": tru\n}", 2, 8, "unexpected 't'");
    expect_error("[01]", 1, 3, "leading zero");
    expect_error("[1.]", 1, 4, "after '.'");
    expect_error("[1e]", 1, 4, "exponent");
    expect_error("[\"abc", 1, 6, "unterminated string");
    expect_error("[\"a\tb\"]", 1, 4, "control character");
    expect_error("[\"\\x\"]", 1, 3, "invalid escape");
    expect_error("[\"\\ud800\"]", 1, 3, "surrogate");
    expect_error("[\"\\u12g4\"]", 1, 3, "\\u escape");
    expect_error("[\"\xff\"]", 1, 3, "UTF-8");
    expect_error("[\"\xc0\xaf\"]", 1, 3, "UTF-8"); /* overlong '/' */
    expect_error("[1] [2]", 1, 5, "after the JSON value");
    expect_error("{\"a\" 1}", 1, 6, "expected ':'");
    expect_error("[NaN]", 1, 2, "unexpected 'N'");
    expect_error("[+1]", 1, 2, "unexpected '+'");
    expect_error("[-]", 1, 3, "expected a digit");
    expect_error("'a'", 1, 1, "unexpected '''");
}

static void test_source_line_in_diagnostic(void **state)
{
    (void)state;
    arena a;
    diag_sink d;
    arena_init(&a);
    diag_init(&d);
    json_options o = { .filename = "prog.json" };
    const char *s = "{\n \"a\": [1 2]\n}";
    assert_null(json_parse(&a, s, strlen(s), &o, &d));
    assert_string_equal(d.items[0].file, "prog.json");
    assert_string_equal(d.items[0].source_line, " \"a\": [1 2]");
    assert_int_equal(d.items[0].col, 10);
    diag_free(&d);
    arena_free(&a);
}

static void test_depth_limit(void **state)
{
    (void)state;
    enum { DEEP = 100000 };
    char *s = malloc(2 * DEEP + 1);
    memset(s, '[', DEEP);
    memset(s + DEEP, ']', DEEP);
    s[2 * DEEP] = '\0';
    arena a;
    diag_sink d;
    arena_init(&a);
    diag_init(&d);
    assert_null(json_parse(&a, s, 2 * DEEP, NULL, &d));
    assert_non_null(strstr(d.items[0].message, "nesting deeper than 512"));
    diag_clear(&d);
    json_options o = { .max_depth = 4 };
    assert_non_null(json_parse(&a, "[[[[]]]]", 8, &o, &d));
    assert_null(json_parse(&a, "[[[[[]]]]]", 10, &o, &d));
    diag_free(&d);
    arena_free(&a);
    free(s);
}

static void test_nan_inf_option(void **state)
{
    (void)state;
    arena a;
    diag_sink d;
    arena_init(&a);
    diag_init(&d);
    json_options o = { .allow_nan_inf = true };
    const char *s = "[NaN, Infinity, -Infinity, 1]";
    json_value *v = json_parse(&a, s, strlen(s), &o, &d);
    assert_non_null(v);
    double x;
    assert_true(json_num(json_at(v, 0), &x) && isnan(x));
    assert_true(json_num(json_at(v, 1), &x) && isinf(x) && x > 0);
    assert_true(json_num(json_at(v, 2), &x) && isinf(x) && x < 0);
    diag_free(&d);
    arena_free(&a);
}

/* Every prefix of a valid document, and every single-byte corruption of it, must be rejected or
 * accepted without crashing (valgrind checks the memory side). */
static void test_garbage_never_crashes(void **state)
{
    (void)state;
    const char *doc = "{\"a\": [1, -2.5e3, true, null, \"s\\u00e9\\n\"], \"b\": {\"c\": false}}";
    size_t n = strlen(doc);
    char *buf = malloc(n);
    arena a;
    diag_sink d;
    arena_init(&a);
    diag_init(&d);
    size_t accepted = 0;
    for (size_t cut = 0; cut < n; cut++) {
        memcpy(buf, doc, cut); /* exact-length copy: reading past it would be caught by valgrind */
        if (json_parse(&a, buf, cut, NULL, &d)) accepted++;
        diag_clear(&d);
    }
    assert_int_equal(accepted, 0);
    const unsigned char subst[] = { 0, '"', '\\', '{', ']', ',', 0xff, 'x' };
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof subst; k++) {
            memcpy(buf, doc, n);
            buf[i] = (char)subst[k];
            (void)json_parse(&a, buf, n, NULL, &d);
            diag_clear(&d);
        }
    }
    assert_non_null(json_parse(&a, doc, n, NULL, &d));
    diag_free(&d);
    arena_free(&a);
    free(buf);
}

/* Numbers read back as written, in their shortest form; non-finite ones stay valid JSON. */
static void test_writer_numbers(void **state)
{
    (void)state;
    strbuf sb;
    sb_init(&sb);
    json_writer w;
    jw_init(&w, &sb);
    jw_array(&w);
    jw_double(&w, 1e-4);
    jw_double(&w, 0.1);
    jw_double(&w, -2.5e300);
    jw_double(&w, NAN);
    jw_double_named(&w, NAN);
    jw_double_named(&w, INFINITY);
    jw_double_named(&w, -INFINITY);
    jw_double_named(&w, 3);
    jw_number_text(&w, "0.1");
    jw_array_end(&w);
    assert_string_equal(sb.s, "[0.0001,0.1,-2.5e+300,null,\"NaN\",\"Infinity\",\"-Infinity\",3,0.1]");
    arena a;
    arena_init(&a);
    diag_sink d;
    diag_init(&d);
    assert_non_null(parse(&a, &d, sb.s));
    diag_free(&d);
    arena_free(&a);
    sb_free(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_int64_limits),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_objects_order_and_lookup),
        cmocka_unit_test(test_big_object_hashed),
        cmocka_unit_test(test_errors_with_location),
        cmocka_unit_test(test_source_line_in_diagnostic),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_nan_inf_option),
        cmocka_unit_test(test_garbage_never_crashes),
        cmocka_unit_test(test_writer_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
