/* test_fuzz_replay.c — every input the fuzz harnesses found (tests/fixtures/fuzz/<harness>/),
 * replayed through the same harness code without libFuzzer: each must return normally (in the
 * sanitizer build: without a report). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_paths.h"
#include "base/file.h"

#define HARNESSES(X) X(fx_graph) X(fx_code) X(fx_module) X(torchscript) X(pt2) X(onnx_pb) X(onnx_text) X(yaml) X(weights) X(values) X(pipeline)

#define DECLARE(name) int fxsh_fuzz_##name(const uint8_t *data, size_t size);
HARNESSES(DECLARE)

typedef struct harness {
    const char *name;
    int (*fn)(const uint8_t *, size_t);
} harness;

#define ENTRY(name) {#name, fxsh_fuzz_##name},
static const harness harnesses[] = {HARNESSES(ENTRY)};

static void test_replay(void **state)
{
    const harness *h = *state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", TEST_FIXTURES "/fuzz", h->name);
    DIR *dh = opendir(dir);
    if (!dh) return;   /* nothing found for this harness (yet) */
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dh))) {
        if (e->d_name[0] == '.') continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *buf = file_slurp(path, &len);
        assert_non_null(buf);
        print_message("replay %s/%s (%zu bytes)\n", h->name, e->d_name, len);
        assert_int_equal(h->fn((const uint8_t *)buf, len), 0);
        free(buf);
        n++;
    }
    closedir(dh);
    print_message("%s: %zu inputs\n", h->name, n);
}

int main(void)
{
    struct CMUnitTest tests[sizeof harnesses / sizeof harnesses[0]];
    for (size_t i = 0; i < sizeof harnesses / sizeof harnesses[0]; i++) {
        tests[i] = (struct CMUnitTest){harnesses[i].name, test_replay, NULL, NULL, (void *)&harnesses[i]};
    }
    return _cmocka_run_group_tests("fuzz_replay", tests, sizeof tests / sizeof tests[0], NULL, NULL);
}
