/* test_repl_complete.c — tab completion by argument position, did-you-mean and help layout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "repl/commands.h"
#include "repl/session.h"

/* The candidates for the last word of line, joined with spaces ("" when none). */
static char *complete(session *s, const char *line)
{
    const char *sp = strrchr(line, ' ');
    const char *eq = strrchr(line, '=');
    const char *w = eq && (!sp || eq > sp) ? eq + 1 : sp ? sp + 1 : line;
    char **c = command_complete(s, line, (int)(w - line), w);
    static char buf[4096];
    buf[0] = '\0';
    for (size_t i = 0; c && c[i]; i++) {
        if (i) strcat(buf, " ");
        strncat(buf, c[i], sizeof buf - strlen(buf) - 2);
        free(c[i]);
    }
    free(c);
    return buf;
}

static session *loaded(const char *file)
{
    static session s;
    session_init(&s);
    s.out = fopen("/dev/null", "w");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", FXSH_TEST_TOP, file);
    char *argv[] = {"load", path, "--input", "x=f32[2,3]", NULL};
    assert_int_equal(command_dispatch(&s, 4, argv), 0);
    return &s;
}

static void done(session *s)
{
    fclose(s->out);
    s->out = stdout;
    session_free(s);
}

static void test_complete_settings_and_values(void **state)
{
    (void)state;
    session *s = loaded("examples/data/python_if_nested.torchscript.txt");
    assert_string_equal(complete(s, "set opt"), "optimize");
    assert_string_equal(complete(s, "set ops"), "opset_version");
    assert_string_equal(complete(s, "set optimize "), "True False");
    assert_string_equal(complete(s, "set opset_version=2"), "20 21 22 23");
    assert_string_equal(complete(s, "export verb"), "verbose=");
    assert_string_equal(complete(s, "export verbose=F"), "False");
    assert_string_equal(complete(s, "export --legacy s"), "script");
    /* options come from the command's usage in the table */
    assert_string_equal(complete(s, "export --j"), "--json");
    assert_string_equal(complete(s, "verify --"), "--expected --inputs --shapes --decode --prefill --save --atol --rtol --json");
    assert_string_equal(complete(s, "find relu --c"), "--case-sensitive");
    assert_string_equal(complete(s, "lint --"), "--json");
    done(s);
}

static void test_complete_stages_forms_kinds_nodes(void **state)
{
    (void)state;
    session *s = loaded("examples/data/python_if_nested.torchscript.txt");
    assert_string_equal(complete(s, "show ex"), "exported");
    assert_string_equal(complete(s, "show exported co"), "code");
    assert_string_equal(complete(s, "show exported f"), "");   /* a stage is not a form */
    assert_string_equal(complete(s, "diff o"), "onnx optimized");
    assert_string_equal(complete(s, "rewrite if_1 "), "cond scan while_loop");
    assert_string_equal(complete(s, "rewrite if_1 cond "), "--clone");
    /* node names inside subgraphs, with or without the % */
    assert_string_equal(complete(s, "rewrite true_graph_0.i"), "true_graph_0.if_1");
    assert_string_equal(complete(s, "node %true_graph_0.true_graph_0.m"), "%true_graph_0.true_graph_0.mul");
    assert_string_equal(complete(s, "help rew"), "rewire rewrite");
    assert_string_equal(complete(s, "sho"), "show");
    done(s);
}

static void test_complete_directories(void **state)
{
    (void)state;
    session *s = loaded("examples/data/python_if_nested.torchscript.txt");
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(FXSH_TEST_TOP), 0);
    /* a directory completes with its slash (the line editor adds no space after it) */
    assert_string_equal(complete(s, "load exa"), "examples/");
    assert_string_equal(complete(s, "load examples/data/python_if_nested.t"), "examples/data/python_if_nested.torchscript.txt");
    assert_string_equal(complete(s, "load x.txt --w"), "--weights");
    assert_int_equal(chdir(cwd), 0);
    done(s);
}

static char *help_text(const char *cmd, int width)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    command_print_help(f, cmd, width);
    fclose(f);
    return text;
}

static void test_help_fits_the_width(void **state)
{
    (void)state;
    /* help CMD: paragraphs fill at most the width; examples (indented) are kept as they are */
    char *text = help_text("rewrite", 60);
    size_t lines = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        if (!strncmp(line, "usage:", 6) || !strncmp(line, "  ", 2)) continue;
        assert_true(strlen(line) <= 60);
        assert_true(line[strlen(line) - 1] != ' ');
    }
    assert_true(lines > 20);
    free(text);
    /* the list: summaries start at one column, whatever the longest usage; a long usage takes a
     * line of its own */
    text = help_text(NULL, 80);
    assert_non_null(strstr(text, "\n  check [--json]              validate the current ONNX model\n"));
    assert_non_null(strstr(text, "\n  load FILE|- [--weights W] [--input NAME=DTYPE[DIMS]]... [--attr NAME=VALUE]...\n"
                                 "                              load an FX graph"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete_settings_and_values),
        cmocka_unit_test(test_complete_stages_forms_kinds_nodes),
        cmocka_unit_test(test_complete_directories),
        cmocka_unit_test(test_help_fits_the_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
