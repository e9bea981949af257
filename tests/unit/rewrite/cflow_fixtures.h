/* cflow_fixtures.h — helpers the control-flow unit tests share: fixture files, TorchScript
 * loading with declared inputs, and torch's printed code without its comment lines.
 * Include after <cmocka.h>; TEST_FIXTURES "/cflow" names the fixture directory. */
#ifndef FXSH_TESTS_CFLOW_FIXTURES_H
#define FXSH_TESTS_CFLOW_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_paths.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "load/ts_load.h"
#include "capture/ts_normalize.h"

/* The contents of fixture `name` (malloc'd, NUL-terminated); fails the test if unreadable. */
static inline char *slurp(const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TEST_FIXTURES "/cflow", name);
    char *b = file_slurp(path, n);
    assert_non_null(b);
    return b;
}

/* TorchScript fixture `name` with weights (a fixture, or NULL) and the inputs declared by decls
 * ("x=f32[2,4]", ..., NULL-terminated), with its value meta inferred as `load` infers it; fails
 * the test if it does not load. */
static inline fx_program *load_ts_inputs(const char *name, const char *weights, const char *const *decls)
{
    size_t n;
    char *t = slurp(name, &n);
    char wpath[512];
    ts_load_options o = {0};
    ts_input_decl in[8];
    if (weights) {
        snprintf(wpath, sizeof wpath, "%s/%s", TEST_FIXTURES "/cflow", weights);
        o.weights_path = wpath;
    }
    for (; decls && decls[o.n_inputs] && o.n_inputs < 8; o.n_inputs++)
        assert_true(ts_parse_input_decl(decls[o.n_inputs], &in[o.n_inputs]));
    o.inputs = in;
    diag_sink d;
    diag_init(&d);
    fx_program *p = ts_load_text(t, n, name, &o, &d);
    free(t);
    assert_non_null(p);
    tsn_prepare_program(p, &d);
    assert_int_equal(d.errors, 0);
    diag_free(&d);
    return p;
}

/* The same with one declared input (or none when decl is NULL). */
static inline fx_program *load_ts(const char *name, const char *weights, const char *decl)
{
    const char *decls[2] = {decl, NULL};
    return load_ts_inputs(name, weights, decls);
}

/* Keeps the lines that are neither blank nor comments (torch's comments quote model source). */
static inline void code_lines(const char *s, strbuf *out)
{
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        size_t k = 0;
        while (k < n && s[k] == ' ')
            k++;
        if (k < n && s[k] != '#') {
            sb_putn(out, s, n);
            sb_putc(out, '\n');
        }
        s += n + (e ? 1 : 0);
    }
}

#endif
