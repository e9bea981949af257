/* test_base.c — unit tests for the base library: arenas, strbuf, hashmap, diagnostics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "base/hashmap.h"
#include "base/strbuf.h"

static void test_arena_alignment_and_strings(void **state)
{
    arena a;
    arena_init(&a);
    for (int i = 0; i < 10000; i++) {
        char *p = arena_alloc(&a, (size_t)(i % 37) + 1);
        assert_int_equal((uintptr_t)p % 16, 0);
        assert_int_equal(p[0], 0);
    }
    char *s = arena_printf(&a, "%s_%d", "add", 3);
    assert_string_equal(s, "add_3");
    assert_null(arena_strdup(&a, NULL));
    arena_free(&a);
    assert_null(a.head);
}

static void test_strbuf(void **state)
{
    strbuf sb;
    sb_init(&sb);
    assert_string_equal(sb.s, "");
    for (int i = 0; i < 1000; i++) sb_printf(&sb, "%d,", i % 10);
    assert_int_equal(sb.len, 2000);
    sb_truncate(&sb, 4);
    assert_string_equal(sb.s, "0,1,");
    sb_spaces(&sb, 3);
    sb_putc(&sb, 'x');
    assert_string_equal(sb.s, "0,1,   x");
    char *d = sb_detach(&sb);
    assert_string_equal(d, "0,1,   x");
    free(d);
    assert_int_equal(sb.len, 0);
    sb_free(&sb);
}

static void test_hashmap_put_get_remove(void **state)
{
    hashmap m;
    hm_init(&m);
    enum { N = 5000 };
    char *keys[N];
    for (int i = 0; i < N; i++) {
        keys[i] = malloc(16);
        snprintf(keys[i], 16, "node_%d", i);
        assert_null(hm_put(&m, keys[i], (void *)(intptr_t)(i + 1)));
    }
    assert_int_equal(m.len, N);
    for (int i = 0; i < N; i++) assert_int_equal((intptr_t)hm_get(&m, keys[i]), i + 1);
    assert_null(hm_get(&m, "missing"));
    /* Removing every other key must keep the rest reachable (backward-shift deletion). */
    for (int i = 0; i < N; i += 2) assert_true(hm_remove(&m, keys[i]));
    assert_false(hm_remove(&m, keys[0]));
    for (int i = 0; i < N; i++) {
        if (i % 2) assert_int_equal((intptr_t)hm_get(&m, keys[i]), i + 1);
        else assert_false(hm_has(&m, keys[i]));
    }
    assert_int_equal((intptr_t)hm_put(&m, keys[1], (void *)7), 2);
    assert_int_equal((intptr_t)hm_get(&m, keys[1]), 7);
    hm_free(&m);
    for (int i = 0; i < N; i++) free(keys[i]);
}

static void test_diag_render(void **state)
{
    diag_sink d;
    diag_init(&d);
    diagnostic *dg = diag_error(&d, (diag_loc){"g.txt", 3, 7}, "undefined name %%%s", "y");
    diag_set_source(dg, "    %a = f(%y)", 14);
    diag_set_hint(dg, "define %%y before line %d", 3);
    diag_warning(&d, (diag_loc){0}, "plain");
    assert_int_equal(d.errors, 1);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    diag_render_all(&d, f, "script:2: ", false);
    fclose(f);
    assert_string_equal(buf,
                        "script:2: g.txt:3:7: error: undefined name %y\n"
                        "        %a = f(%y)\n"
                        "          ^\n"
                        "  hint: define %y before line 3\n"
                        "script:2: warning: plain\n");
    free(buf);
    diag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_alignment_and_strings),
        cmocka_unit_test(test_strbuf),
        cmocka_unit_test(test_hashmap_put_get_remove),
        cmocka_unit_test(test_diag_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
