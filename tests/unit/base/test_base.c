/* test_base.c — unit tests for the base library: arenas, strbuf, hashmap, builtin registries, diagnostics, safe writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "base/file.h"
#include "base/builtin.h"
#include "base/hashmap.h"
#include "base/limits.h"
#include "base/shape.h"
#include "base/interrupt.h"
#include "base/strbuf.h"
#include "base/suggest.h"

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

/* Two families as a stage registers them: every name found with its own entry, an unknown name
 * not, a near miss suggested; a name in two families is reported and then finds nothing. */
typedef struct test_builtin { const char *name; int value; } test_builtin;
static const test_builtin fam_a[] = { { "alpha", 1 }, { "beta", 2 } };
static const test_builtin fam_b[] = { { "gamma", 3 } };
static const test_builtin fam_dup[] = { { "delta", 4 }, { "beta", 5 } };
static const builtin_family family_a = BUILTIN_FAMILY("a", fam_a);
static const builtin_family family_b = BUILTIN_FAMILY("b", fam_b);
static const builtin_family family_dup = BUILTIN_FAMILY("dup", fam_dup);

static void test_builtin_index(void **state)
{
    static const builtin_family *const fams[] = { &family_a, &family_b };
    static builtin_index idx = BUILTIN_INDEX(fams);
    assert_null(builtin_duplicate(&idx));
    const test_builtin *e = builtin_find(&idx, "beta");
    assert_non_null(e);
    assert_int_equal(e->value, 2);
    e = builtin_find(&idx, "gamma");
    assert_non_null(e);
    assert_int_equal(e->value, 3);
    assert_ptr_equal(builtin_find(&idx, "alpha"), &fam_a[0]);
    assert_null(builtin_find(&idx, "gama"));
    assert_null(builtin_find(&idx, NULL));
    assert_string_equal(builtin_suggest(&idx, "gama"), "gamma");
    assert_null(builtin_suggest(&idx, "zzzzzzzz"));

    static const builtin_family *const dup_fams[] = { &family_a, &family_b, &family_dup };
    static builtin_index dup = BUILTIN_INDEX(dup_fams);
    assert_string_equal(builtin_duplicate(&dup), "beta");
    assert_string_equal(dup.dup_family, "a");
    assert_string_equal(dup.dup_family2, "dup");
    assert_null(builtin_find(&dup, "alpha"));
    hm_free(&idx.by_name);
    hm_free(&dup.by_name);
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

/*==== safe writes (file.h) ====*/

static char dir[64];

static int make_dir(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/fxsh-test-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *in_dir(const char *name)
{
    static char path[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *get(const char *path)
{
    size_t len;
    char *s = file_slurp(path, &len);
    assert_non_null(s);
    return s;
}

/* Nothing but the expected names in the directory: no temporary left behind. */
static size_t entries(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    assert_int_equal(fscanf(p, "%zu", &n), 1);
    pclose(p);
    return n;
}

static bool write_text(const char *path, const char *text, diag_sink *d)
{
    atomic_file af;
    if (!file_create(&af, path, d)) return false;
    if (!file_write(&af, text, strlen(text), d)) {
        file_abort(&af);
        return false;
    }
    return file_commit(&af, d);
}

static void test_file_write_symlink_and_mode(void **state)
{
    diag_sink d;
    diag_init(&d);
    /* a link is followed: its target gets the data, the link stays a link */
    put(in_dir("target.txt"), "old\n");
    chmod(in_dir("target.txt"), 0640);
    assert_int_equal(symlink("target.txt", in_dir("link.txt")), 0);
    assert_true(write_text(in_dir("link.txt"), "new\n", &d));
    char *s = get(in_dir("target.txt"));
    assert_string_equal(s, "new\n");
    free(s);
    struct stat st;
    assert_int_equal(lstat(in_dir("link.txt"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(stat(in_dir("target.txt"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);   /* the existing file's mode is kept */
    /* a dangling link gets its target created */
    assert_int_equal(symlink("made.txt", in_dir("dangling.txt")), 0);
    assert_true(write_text(in_dir("dangling.txt"), "made\n", &d));
    s = get(in_dir("made.txt"));
    assert_string_equal(s, "made\n");
    free(s);
    assert_int_equal(d.len, 0);
    assert_int_equal(entries(), 4);
    diag_free(&d);
}

static void test_file_write_refuses_and_devices(void **state)
{
    diag_sink d;
    diag_init(&d);
    assert_int_equal(mkdir(in_dir("sub"), 0755), 0);
    assert_false(write_text(in_dir("sub"), "x", &d));
    assert_string_equal(d.items[0].message, "is a directory: not replaced");
    assert_int_equal(mkfifo(in_dir("fifo"), 0644), 0);
    assert_false(write_text(in_dir("fifo"), "x", &d));
    assert_string_equal(d.items[1].message, "is a FIFO: not replaced");
    /* a character device is written directly, and its errors are reported */
    assert_true(write_text("/dev/null", "x", &d));
    assert_int_equal(d.len, 2);
    if (access("/dev/full", W_OK) == 0) {
        assert_false(write_text("/dev/full", "x", &d));
        assert_string_equal(d.items[2].message, "cannot write: No space left on device");
    }
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(entries(), 2);   /* sub and fifo: no temporary */
    diag_free(&d);
}

static void test_file_write_interrupted(void **state)
{
    diag_sink d;
    diag_init(&d);
    put(in_dir("keep.txt"), "old\n");
    atomic_file af;
    assert_true(file_create(&af, in_dir("keep.txt"), &d));
    assert_true(file_write(&af, "new\n", 4, &d));
    interrupt_request();   /* Ctrl-C before the rename: the old file stays, the temporary goes */
    assert_false(file_commit(&af, &d));
    interrupt_clear();
    assert_string_equal(d.items[0].message, "not written: interrupted");
    char *s = get(in_dir("keep.txt"));
    assert_string_equal(s, "old\n");
    free(s);
    assert_int_equal(entries(), 1);
    /* the same when the write itself sees the interrupt */
    assert_true(file_create(&af, in_dir("keep.txt"), &d));
    interrupt_request();
    assert_false(file_write(&af, "new\n", 4, &d));
    interrupt_clear();
    file_abort(&af);
    assert_int_equal(entries(), 1);
    diag_free(&d);
}

/* A long source line is echoed as a window around the column, cut with …, the caret under
 * the column; the whole diagnostic is one write of a bounded size. */
static void test_diag_render_long_line(void **state)
{
    (void)state;
    size_t n = 1000000;
    char *line = xmalloc(n + 1);
    memset(line, 'a', n);
    line[n] = 0;
    line[500000] = 'X';
    diag_sink d;
    diag_init(&d);
    diagnostic *dg = diag_error(&d, (diag_loc){"big.txt", 1, 500001}, "bad X");
    diag_set_source(dg, line, n);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    diag_render_all(&d, f, NULL, false);
    fclose(f);
    assert_true(len < 500);
    char *src = strchr(buf, '\n') + 1, *caret = strchr(src, '\n') + 1;
    assert_true(!strncmp(src, "    \xe2\x80\xa6" "a", 8));
    assert_non_null(strstr(src, "a\xe2\x80\xa6\n"));
    /* the caret's column in characters equals X's (… is one character) */
    size_t x_col = 0;
    for (const char *p = src; *p != 'X'; p++)
        if (((unsigned char)*p & 0xC0) != 0x80) x_col++;
    assert_int_equal(strchr(caret, '^') - caret, x_col);
    free(buf);
    /* near the start: no cut on the left; a short line: whole */
    diag_clear(&d);
    dg = diag_error(&d, (diag_loc){"big.txt", 1, 3}, "bad");
    diag_set_source(dg, line, n);
    buf = NULL;
    f = open_memstream(&buf, &len);
    diag_render_all(&d, f, NULL, false);
    fclose(f);
    assert_true(!strncmp(strchr(buf, '\n') + 1, "    aaa", 7));
    assert_non_null(strstr(buf, "\n      ^\n"));
    free(buf);
    free(line);
    diag_free(&d);
}

static void test_shape_checks(void **state)
{
    (void)state;
    int64_t n;
    size_t bad = 99;
    assert_true(shape_numel((int64_t[]){16, 8}, 2, &n, &bad) && n == 128);
    assert_true(shape_numel(NULL, 0, &n, NULL) && n == 1);
    assert_false(shape_numel((int64_t[]){16, INT64_MIN}, 2, &n, &bad));
    assert_int_equal(bad, 1);
    assert_false(shape_numel((int64_t[]){(int64_t)1 << 62, 4}, 2, &n, &bad));
    assert_int_equal(bad, 1);
    assert_true(shape_numel((int64_t[]){0, (int64_t)1 << 40}, 2, &n, NULL) && n == 0);
    uint64_t b;
    assert_true(shape_bytes((int64_t)1 << 61, 4, &b) == false);
    assert_true(shape_bytes(5, 0, &b) && b == 3);   /* 4-bit: two per byte */
    char why[128];
    assert_null(shape_problem((int64_t[]){16, 8}, 2, 4, &n, &b, why, sizeof why));
    assert_int_equal(b, 512);
    assert_string_equal(shape_problem((int64_t[]){16, -3}, 2, 4, NULL, NULL, why, sizeof why),
                        "dimension 1 is -3 (sizes must not be negative)");
    assert_int_equal(shape_parse_dim("12", &n), 1);
    assert_int_equal(n, 12);
    assert_int_equal(shape_parse_dim("-3", &n), -1);
    assert_int_equal(shape_parse_dim("99999999999999999999", &n), -1);
    assert_int_equal(shape_parse_dim("s77", &n), 0);
    assert_null(shape_text_problem((const char *[]){"s77", "4"}, 2, 4, why, sizeof why));
    assert_non_null(shape_text_problem((const char *[]){"4611686018427387904", "4"}, 2, 4, why, sizeof why));
}

static void test_limit_from_env(void **state)
{
    (void)state;
    unsetenv("FXSH_TEST_LIMIT");
    assert_int_equal(limit_from_env("FXSH_TEST_LIMIT", 7), 7);
    setenv("FXSH_TEST_LIMIT", "64K", 1);
    assert_int_equal(limit_from_env("FXSH_TEST_LIMIT", 7), 65536);
    setenv("FXSH_TEST_LIMIT", "2G", 1);
    assert_int_equal(limit_from_env("FXSH_TEST_LIMIT", 7), (uint64_t)2 << 30);
    setenv("FXSH_TEST_LIMIT", "12x", 1);
    assert_int_equal(limit_from_env("FXSH_TEST_LIMIT", 7), 7);
    unsetenv("FXSH_TEST_LIMIT");
}

static void test_suggest(void **state)
{
    (void)state;
    static const char *const words[] = {"show", "stages", "stats", "step", "summary", "signature", "rewrite", "opset_version"};
    size_t n = sizeof words / sizeof words[0];
    assert_string_equal(suggest_closest("shwo", words, n), "show");       /* transposition */
    assert_string_equal(suggest_closest("stagse", words, n), "stages");
    assert_string_equal(suggest_closest("rewirte", words, n), "rewrite");
    assert_string_equal(suggest_closest("opset_verison", words, n), "opset_version");
    assert_null(suggest_closest("show", words, n));                        /* exact: nothing to correct */
    assert_null(suggest_closest("xyzzy", words, n));                       /* too far */
    assert_null(suggest_closest("q", words, n));
    suggester sg;
    suggester_init(&sg, "summray");
    for (size_t i = 0; i < n; i++) suggester_add(&sg, words[i]);
    assert_string_equal(suggester_result(&sg), "summary");
    suggester_free(&sg);
}

/* `find softmax` finds Softmax: ASCII case folded only when asked. */
static void test_str_contains(void **state)
{
    (void)state;
    assert_true(str_contains("node_Softmax_190", "softmax", true));
    assert_false(str_contains("node_Softmax_190", "softmax", false));
    assert_true(str_contains("node_Softmax_190", "Softmax", false));
    assert_true(str_contains("abc", "", true));
    assert_false(str_contains(NULL, "a", true));
    assert_false(str_contains("ab", "abc", true));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_alignment_and_strings),
        cmocka_unit_test(test_strbuf),
        cmocka_unit_test(test_str_contains),
        cmocka_unit_test(test_hashmap_put_get_remove),
        cmocka_unit_test(test_builtin_index),
        cmocka_unit_test(test_diag_render),
        cmocka_unit_test(test_diag_render_long_line),
        cmocka_unit_test(test_shape_checks),
        cmocka_unit_test(test_limit_from_env),
        cmocka_unit_test(test_suggest),
        cmocka_unit_test_setup_teardown(test_file_write_symlink_and_mode, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_file_write_refuses_and_devices, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_file_write_interrupted, make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
