/* test_paths.h — where the unit tests find what they read, from one root: the source tree
 * (FXSH_TEST_TOP, which tests/local.mk's TEST_CPPFLAGS sets), and the floors they hold
 * (tests/floors.txt, one file for every floor of make check). */
#ifndef FXSH_TEST_PATHS_H
#define FXSH_TEST_PATHS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FXSH_TEST_TOP
#error "FXSH_TEST_TOP is the source tree: tests/local.mk's TEST_CPPFLAGS sets it"
#endif

#define TEST_FIXTURES FXSH_TEST_TOP "/tests/fixtures"
#define TEST_SHAREDIR FXSH_TEST_TOP "/share/fxsh"
#define TEST_CORPUS_DEFAULT FXSH_TEST_TOP "/../shared/corpus"

/* The floor NAME of tests/floors.txt (an environment variable NAME overrides it). A floor that
 * is not there is a mistake in the test: it stops the test rather than count against 0. */
static inline int test_floor(const char *name)
{
    const char *env = getenv(name);
    if (env && *env) return atoi(env);
    FILE *f = fopen(FXSH_TEST_TOP "/tests/floors.txt", "r");
    char line[256];
    size_t n = strlen(name);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, name, n) && line[n] == ' ') {
            fclose(f);
            return atoi(line + n + 1);
        }
    if (f) fclose(f);
    fprintf(stderr, "test_floor: no floor %s in %s/tests/floors.txt\n", name, FXSH_TEST_TOP);
    exit(99);   /* a hard error for the test harness */
}

#endif
