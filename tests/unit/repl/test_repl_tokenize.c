/* test_repl_tokenize.c — unit tests for command-line word splitting and the command table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "repl/commands.h"
#include "repl/tokenize.h"

static void test_words_quotes_comments(void **state)
{
    int argc;
    const char *err;
    char **argv = tokenize("  show  'a b' \"c\\\"d\" e\\ f # comment", &argc, &err);
    assert_non_null(argv);
    assert_int_equal(argc, 4);
    assert_string_equal(argv[0], "show");
    assert_string_equal(argv[1], "a b");
    assert_string_equal(argv[2], "c\"d");
    assert_string_equal(argv[3], "e f");
    assert_null(argv[4]);
    tokens_free(argv);

    argv = tokenize("   # only a comment", &argc, &err);
    assert_int_equal(argc, 0);
    tokens_free(argv);

    assert_null(tokenize("load 'unterminated", &argc, &err));
    assert_string_equal(err, "unterminated ' quote");
}

static void test_command_prefixes(void **state)
{
    int ambiguous;
    assert_string_equal(command_find("show", &ambiguous)->name, "show");
    assert_string_equal(command_find("sh", &ambiguous)->name, "show");
    assert_null(command_find("s", &ambiguous));
    assert_true(ambiguous);
    assert_null(command_find("zzz", &ambiguous));
    assert_false(ambiguous);
    /* Every command has usage and summary text: help and the man page are generated from them. */
    for (const command *c = command_table; c->name; c++) {
        assert_non_null(c->usage);
        assert_non_null(c->summary);
        assert_non_null(c->run);
        assert_true(c->max_args < 0 || c->max_args >= c->min_args);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words_quotes_comments),
        cmocka_unit_test(test_command_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
