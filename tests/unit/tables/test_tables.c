/* test_tables.c — share/fxsh is found once and each stage's tables are parsed once per process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_paths.h"
#include "base/file.h"
#include "capture/export.h"
#include "decompose/decompose.h"
#include "fx/fx.h"
#include "load/load.h"
#include "meta/meta_rules.h"
#include "tables/tables.h"

static void test_same_table_twice(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    size_t before = tables_parse_count();
    const pass_table *a = tables_pass("decompose", "rules", &d);
    const pass_table *b = tables_pass("decompose", "rules", &d);
    assert_non_null(a);
    assert_ptr_equal(a, b);
    assert_true(a->n > 0);
    /* another list of the same folder is another table */
    const pass_table *v = tables_pass("decompose", "views", &d);
    assert_non_null(v);
    assert_ptr_not_equal(a, v);
    assert_int_equal(tables_parse_count(), before + 2);
    assert_ptr_equal(meta_rules_shipped(&d), meta_rules_shipped(&d));
    assert_int_equal(d.errors, 0);
    diag_free(&d);
}

static void test_missing_folder_reported_each_time(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    assert_null(tables_pass("no_such_stage", NULL, &d));
    assert_null(tables_pass("no_such_stage", NULL, &d));
    assert_int_equal(d.errors, 2);
    char dir[64];
    assert_false(tables_stage_dir("no_such_stage", dir, sizeof dir, &d));
    diag_free(&d);
}

/* Export and decompose a model three times: only the first run reads YAML. */
static void test_passes_parse_once(void **state)
{
    (void)state;
    diag_sink d;
    diag_init(&d);
    size_t len;
    char *text = file_read(TEST_FIXTURES "/export/mlp/torch_level.module.txt", &len, &d);
    assert_non_null(text);
    fx_program *p = load_fx_text(text, len, "torch_level.module.txt", &d);
    assert_non_null(p);
    size_t after_first = 0;
    for (int i = 0; i < 3; i++) {
        fx_program *e = export_program(p, NULL, &d);
        assert_non_null(e);
        fx_program *c = decompose_program(e, DECOMP_ONNX, &d);
        assert_non_null(c);
        fx_program_free(c);
        fx_program_free(e);
        if (i == 0)
            after_first = tables_parse_count();
        else
            assert_int_equal(tables_parse_count(), after_first);
    }
    assert_int_equal(d.errors, 0);
    fx_program_free(p);
    free(text);
    diag_free(&d);
}

int main(void)
{
    setenv("FXSH_SHAREDIR", TEST_SHAREDIR, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_table_twice),
        cmocka_unit_test(test_missing_folder_reported_each_time),
        cmocka_unit_test(test_passes_parse_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
