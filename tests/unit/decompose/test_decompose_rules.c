/* test_decompose_rules.c — decomposition rules compile when their file loads: a malformed rule
 * fails there, naming the file and line, whether or not a model ever reaches it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "test_paths.h"
#include "base/diag.h"
#include "decompose/decompose.h"

/* A good entry on line 2, then the bad one on line 3 (of list `views` when views is set, else
 * `rules`): it fails at rules.yaml:3 with want in the message. */
static void expect_bad_in(bool views, const char *bad, const char *want)
{
    char y[2048];
    snprintf(y, sizeof y, "%s:\n  - %s\n  - %s\n", views ? "views" : "rules",
             views ? "{target: aten.alias.default, inverse: \"aten.alias.default(mutated)\"}"
                   : "{tables: [default], target: aten.mT.default, body: \"aten.transpose.int(self, -2, -1)\"}",
             bad);
    diag_sink d;
    diag_init(&d);
    bool ok = decompose_rules_check("rules.yaml", y, strlen(y), &d);
    if (ok || d.errors != 1 || !strstr(d.items[0].message, want))
        print_message("rule: %s\nwant: %s\ngot: %s\n", bad, want, d.errors ? d.items[0].message : "(no error)");
    assert_false(ok);
    assert_int_equal(d.errors, 1);
    assert_string_equal(d.items[0].file, "rules.yaml");
    assert_int_equal(d.items[0].line, 3);
    assert_non_null(strstr(d.items[0].message, want));
    diag_free(&d);
}

static void expect_bad(const char *bad, const char *want) { expect_bad_in(false, bad, want); }

static void test_bad_rules_fail_at_load(void **state)
{
    (void)state;
    /* an unknown predicate in when: */
    expect_bad("{tables: [default], target: aten.t.default, when: \"rank(self) == 2 and squarish(self)\", "
               "body: \"aten.permute.default(self, [1, 0])\"}", "unknown predicate");
    /* the old comma syntax of when: is gone */
    expect_bad("{tables: [default], target: aten.t.default, when: \"rank(self)==2,has_rank(self)\", "
               "body: \"aten.permute.default(self, [1, 0])\"}", "bad condition");
    /* an unbalanced call */
    expect_bad("{tables: [default], target: aten.t.default, body: \"aten.permute.default(self, [1, 0]\"}",
               "unbalanced brackets");
    /* an unknown @helper, and a known one with the wrong number of arguments */
    expect_bad("{tables: [default], target: aten.t.default, body: \"aten.permute.default(self, @flip_dims(self))\"}",
               "unknown helper @flip_dims(self)");
    expect_bad("{tables: [default], target: aten.t.default, body: \"aten.view.default(self, @sizes(self, self))\"}",
               "unknown helper @sizes(self, self)");
    /* a body naming an argument the schema does not have (torch's: mm(Tensor self, Tensor mat2)) */
    expect_bad("{tables: [default], target: aten.mm.default, body: \"aten.matmul.default(self, other)\"}",
               "'other' is not an argument of its schema");
    /* ... also inside a helper and a when: */
    expect_bad("{tables: [default], target: aten.t.default, body: \"aten.view.default(self, @sizes(input))\"}",
               "'input' in @sizes(input) is not an argument");
    expect_bad("{tables: [default], target: aten.t.default, when: \"dim == 0\", body: \"self\"}",
               "not an argument of the schema");
    /* an unknown builtin */
    expect_bad("{tables: [default], target: aten.matmul.default, builtin: matmul_fast}",
               "no C decomposition is named 'matmul_fast'");
    /* a call of an operator torch does not have, and a keyword its schema lacks */
    expect_bad("{tables: [default], target: aten.t.default, body: \"aten.permut.default(self, [1, 0])\"}",
               "calls aten.permut.default");
    expect_bad("{tables: [default], target: aten.t.default, body: \"aten.clone.default(self | memory=None)\"}",
               "keyword memory");
    /* too many positional operands for the callee (clone's memory_format is keyword-only) */
    expect_bad("{tables: [default], target: aten.t.default, body: \"aten.clone.default(self, None)\"}",
               "has 2 positional operands");
    /* a target torch does not have needs its own schema */
    expect_bad("{tables: [default], target: aten.t_fancy.default, body: \"self\"}", "torch has no such overload");
    expect_bad("{tables: [default], target: aten.t.default, schema: \"mT(Tensor(a) self) -> Tensor(a)\", body: \"self\"}",
               "does not name the target");
    /* a when: literal that is not one */
    expect_bad("{tables: [default], target: aten.pad.default, when: \"mode == reflect\", body: \"self\"}",
               "cannot read the value 'reflect'");
    /* a view inverse is compiled the same way (base and mutated are its locals) */
    expect_bad_in(true, "{target: aten.t.default, inverse: \"aten.t.default(mutatd)\"}", "'mutatd' is not an argument");
}

/* y compiles without a diagnostic. */
static void expect_good(const char *y)
{
    diag_sink d;
    diag_init(&d);
    bool ok = decompose_rules_check("rules.yaml", y, strlen(y), &d);
    if (!ok)
        print_message("%s\n%s\n", y, d.errors ? d.items[0].message : "");
    assert_true(ok);
    assert_int_equal(d.len, 0);
    diag_free(&d);
}

/* The whole `when:` language of translate is decompose's too. */
static void test_translate_conditions(void **state)
{
    (void)state;
    expect_good("rules:\n  - {tables: [default], target: aten.mm.default, "
                "when: \"dtype(self) == floating and rank(self) == rank(mat2) and not is_scalar(mat2) and "
                "len(self) >= 0 and is_tensor(self)\", body: \"aten.matmul.default(self, mat2)\"}\n");
}

/* No limit on the number of arguments: _native_multi_head_attention's 13th (mask_type) binds. */
static void test_many_arguments(void **state)
{
    (void)state;
    expect_good("rules:\n  - {tables: [onnx], target: aten._native_multi_head_attention.default, "
                "when: \"mask_type is None and need_weights == False\", "
                "body: \"r = aten._native_multi_head_attention.default(*| mask_type=mask_type); r\"}\n");
}

/* The shipped tables compile. */
static void test_shipped_rules_compile(void **state)
{
    (void)state;
    static const char *const files[] = { TEST_SHAREDIR "/decompose/core.yaml", TEST_SHAREDIR "/decompose/views.yaml" };
    for (size_t i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "rb");
        assert_non_null(f);
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        diag_sink d;
        diag_init(&d);
        bool ok = decompose_rules_check(files[i], buf, n, &d);
        if (!ok)
            print_message("%s:%d: %s\n", d.items[0].file, d.items[0].line, d.items[0].message);
        assert_true(ok);
        diag_free(&d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_rules_fail_at_load),
        cmocka_unit_test(test_translate_conditions),
        cmocka_unit_test(test_many_arguments),
        cmocka_unit_test(test_shipped_rules_compile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
