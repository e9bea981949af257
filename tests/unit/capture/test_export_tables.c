/* test_export_tables.c — the YAML record tables of the export/decompose passes: loading, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/diag.h"
#include "capture/export_internal.h"
#include "tables/pass_tables.h"

static void test_records_and_lists(void **state)
{
    (void)state;
    const char *y = "# c\nmodules:\n  - {type: Linear, params: \"weight bias?bias\"}\n"
                    "ops:\n  - name: relu\n    where: [function, method]\n";
    pass_table t;
    pass_table_init(&t);
    diag_sink d;
    diag_init(&d);
    assert_true(pass_table_load_string(&t, "t.yaml", y, strlen(y), NULL, &d));
    assert_int_equal(t.n, 2);
    assert_string_equal(t.recs[0].list, "modules");
    assert_string_equal(pt_get(&t.recs[0], "params"), "weight bias?bias");
    assert_null(pt_get(&t.recs[0], "target"));
    assert_string_equal(t.recs[1].list, "ops");
    assert_string_equal(pt_get(&t.recs[1], "where"), "function,method");
    assert_int_equal(t.recs[1].line, 5);
    /* a list key filter keeps only that list */
    pass_table u;
    pass_table_init(&u);
    assert_true(pass_table_load_string(&u, "t.yaml", y, strlen(y), "ops", &d));
    assert_int_equal(u.n, 1);
    pass_table_free(&u);
    pass_table_free(&t);
    diag_free(&d);
}

static void test_errors_keep_nothing(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "rules: [ {a: b}\n",                       /* YAML syntax error */
        "rules:\n  - {a: {nested: map}}\n",        /* value not a string or list */
        "rules:\n  - just a string\n",             /* entry not a mapping */
        "other:\n  - {a: b}\n",                    /* no 'rules' list */
        "- a\n- b\n",                              /* root not a mapping */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pass_table t;
        pass_table_init(&t);
        diag_sink d;
        diag_init(&d);
        assert_false(pass_table_load_string(&t, "bad.yaml", bad[i], strlen(bad[i]), "rules", &d));
        assert_int_equal(t.n, 0);
        assert_true(d.errors > 0);
        assert_string_equal(d.items[0].file, "bad.yaml");
        assert_true(d.items[0].line >= 1);
        pass_table_free(&t);
        diag_free(&d);
    }
}

/* The shipped tables load and hold what the passes need. */
static void test_shipped_tables(void **state)
{
    (void)state;
    pass_table t;
    pass_table_init(&t);
    diag_sink d;
    diag_init(&d);
    assert_true(pass_table_load_default(&t, "capture", NULL, &d));
    bool linear = false, relu = false;
    for (size_t i = 0; i < t.n; i++) {
        const char *ty = pt_get(&t.recs[i], "type"), *nm = pt_get(&t.recs[i], "name");
        linear |= ty && !strcmp(ty, "Linear") && !strcmp(pt_get(&t.recs[i], "target"), "aten.linear.default");
        relu |= nm && !strcmp(nm, "relu");
    }
    assert_true(linear && relu);
    pass_table_free(&t);
    pass_table_init(&t);
    assert_true(pass_table_load_default(&t, "decompose", "rules", &d));
    assert_true(t.n > 10);
    pass_table_free(&t);
    diag_free(&d);
}

/* The C module builders: registered once, found by name, and every builtin: the shipped capture
 * tables name is one of them. */
static void test_builders_registered(void **state)
{
    (void)state;
    assert_null(xp_builder_duplicate());
    const xp_builder_entry *e = xp_find_builder("multihead_attention");
    assert_non_null(e);
    assert_non_null(e->build);
    assert_null(xp_find_builder("multihead_attentio"));
    pass_table t;
    pass_table_init(&t);
    diag_sink d;
    diag_init(&d);
    assert_true(pass_table_load_default(&t, "capture", NULL, &d));
    size_t named = 0;
    for (size_t i = 0; i < t.n; i++) {
        const char *b = pt_get(&t.recs[i], "builtin");
        if (b) {
            named++;
            assert_non_null(xp_find_builder(b));
        }
    }
    assert_true(named >= 1);
    pass_table_free(&t);
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_and_lists),
        cmocka_unit_test(test_errors_keep_nothing),
        cmocka_unit_test(test_shipped_tables),
        cmocka_unit_test(test_builders_registered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
