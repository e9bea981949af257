/* test_aten_schemas.c — torch's ATen schemas shipped in share/fxsh/aten: lookup in every spelling
 * of a target, overloads, and every schema torch has parsed by the registry's schema parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_paths.h"
#include "tables/aten_schemas.h"

/* torch 2.14's own schema text (torch.ops.aten.diff.default._schema) */
#define DIFF "aten::diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor"

static void test_lookup_spellings(void **state)
{
    (void)state;
    assert_string_equal(aten_schemas_lookup("torch.ops.aten.diff.default", NULL), DIFF);
    assert_string_equal(aten_schemas_lookup("aten.diff.default", NULL), DIFF);
    assert_string_equal(aten_schemas_lookup("aten.diff", NULL), DIFF);
    assert_string_equal(aten_schemas_lookup("aten::diff", NULL), DIFF);
    assert_string_equal(aten_schemas_lookup("torch.ops.aten.add.Tensor", NULL),
                        "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    assert_string_equal(aten_schemas_lookup("aten::add.Tensor", NULL),
                        "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    assert_null(aten_schemas_lookup("torch.ops.aten.frobnicate.default", NULL));
    assert_null(aten_schemas_lookup("torch.ops.aten.diff.nosuch", NULL));
    assert_null(aten_schemas_lookup("operator.add", NULL));
    assert_null(aten_schemas_lookup("torch.ops.prims.add.default", NULL));
}

static void test_overloads(void **state)
{
    (void)state;
    const char *o[4];
    assert_int_equal(aten_schemas_overloads("diff", o, 4, NULL), 2);
    assert_string_equal(o[0], DIFF);
    assert_non_null(strstr(o[1], "aten::diff.out("));
    /* "add" is not "addmm": only add's own overloads */
    const char *a[64];
    size_t n = aten_schemas_overloads("add", a, 64, NULL);
    assert_true(n >= 4 && n <= 64);
    for (size_t i = 0; i < n; i++)
        assert_true(!strncmp(a[i], "aten::add.", 10) || !strncmp(a[i], "aten::add(", 10));
    assert_int_equal(aten_schemas_overloads("frobnicate", o, 4, NULL), 0);
}

/* Every schema torch ships parses with the parser the op registry uses for its own, with the
 * argument structure torch gives: diff has 5 arguments, the last two optional tensors. */
static void test_every_schema_parses(void **state)
{
    (void)state;
    size_t n = aten_schemas_count(NULL);
    assert_true(n > 3000);
    arena a;
    arena_init(&a);
    size_t bad = 0;
    diag_sink d;
    diag_init(&d);
    aten_schema s;
    assert_true(aten_schemas_parse(&a, "torch.ops.aten.diff.default", &s, &d));
    assert_int_equal(s.nargs, 5);
    assert_string_equal(s.args[3].name, "prepend");
    assert_true(s.args[3].optional && s.args[3].has_default);
    assert_string_equal(s.args[1].default_text, "1");
    /* all of them */
    for (size_t i = 0; i < n; i++) {
        diag_sink one;
        diag_init(&one);
        if (!aten_schema_parse(&a, aten_schemas_at(i) + 6, &s, &one, (diag_loc){ "schemas.txt", (int)i + 4, 1 })) {
            if (bad++ < 5) diag_render_all(&one, stderr, NULL, false);
        }
        diag_free(&one);
    }
    assert_int_equal(bad, 0);
    diag_free(&d);
    arena_free(&a);
}

int main(void)
{
    const char *share = getenv("FXSH_SHAREDIR");
    if (!share || !*share) setenv("FXSH_SHAREDIR", TEST_SHAREDIR, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_spellings),
        cmocka_unit_test(test_overloads),
        cmocka_unit_test(test_every_schema_parses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
