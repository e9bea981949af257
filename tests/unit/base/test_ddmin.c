/* test_ddmin.c — ddmin_run on small DAGs: the target alone when it fails alone, growth to the
 * ancestors a failure needs, shrinking away what it does not, uncuttable values kept with their
 * readers, determinism, and a failure the target's ancestors never reproduce. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/ddmin.h"

/* A chain-and-fan DAG of 8 nodes:
 *   0 → 1 → 2 → 3 → 7,  0 → 4 → 5 → 7,  6 → 7 (7 is the target) */
static size_t p1[] = {0}, p2[] = {1}, p3[] = {2}, p4[] = {0}, p5[] = {4}, p7[] = {3, 5, 6};
static size_t *preds[8] = {NULL, p1, p2, p3, p4, p5, NULL, p7};
static const size_t n_preds[8] = {0, 1, 1, 1, 1, 1, 0, 3};

typedef struct need {
    bool want[8];                /* the test fails when all these are kept */
    size_t calls;
} need;

static bool fails_when_kept(const bool *keep, void *ctx)
{
    need *n = ctx;
    n->calls++;
    for (size_t i = 0; i < 8; i++)
        if (n->want[i] && !keep[i]) return false;
    return true;
}

static ddmin_dag dag_with(const bool *cuttable)
{
    return (ddmin_dag){8, preds, n_preds, cuttable, 7};
}

static const bool all_cuttable[8] = {true, true, true, true, true, true, true, true};

static void test_target_alone(void **state)
{
    (void)state;
    need n = {.want = {[7] = true}};
    ddmin_dag g = dag_with(all_cuttable);
    bool keep[8];
    ddmin_stats st;
    assert_int_equal(ddmin_run(&g, fails_when_kept, &n, 0, keep, &st), DDMIN_OK);
    for (size_t i = 0; i < 7; i++) assert_false(keep[i]);
    assert_true(keep[7]);
    assert_int_equal(st.tests, 1);
    assert_int_equal(st.cone, 8);
}

static void test_grow_then_shrink(void **state)
{
    (void)state;
    /* node 1 (three reads up the chain) and node 5 are needed: growing reaches depth 4, then
     * shrinking drops 2, 3 (cut inputs between 1 and the target cannot go: they connect 1 to it),
     * 4, 6 and 0 */
    need n = {.want = {[1] = true, [5] = true, [7] = true}};
    ddmin_dag g = dag_with(all_cuttable);
    bool keep[8], again[8];
    ddmin_stats st;
    assert_int_equal(ddmin_run(&g, fails_when_kept, &n, 0, keep, &st), DDMIN_OK);
    bool expect[8] = {false, true, true, true, false, true, false, true};
    assert_memory_equal(keep, expect, sizeof keep);
    assert_int_equal(st.kept, 5);
    /* the same steps every time */
    need n2 = {.want = {[1] = true, [5] = true, [7] = true}};
    ddmin_stats st2;
    assert_int_equal(ddmin_run(&g, fails_when_kept, &n2, 0, again, &st2), DDMIN_OK);
    assert_memory_equal(keep, again, sizeof keep);
    assert_int_equal(st.tests, st2.tests);
}

static void test_uncuttable_kept(void **state)
{
    (void)state;
    /* node 6 cannot become an input (a tuple, a get_attr): every candidate keeps it */
    bool cut[8] = {true, true, true, true, true, true, false, true};
    need n = {.want = {[7] = true}};
    ddmin_dag g = dag_with(cut);
    bool keep[8];
    assert_int_equal(ddmin_run(&g, fails_when_kept, &n, 0, keep, NULL), DDMIN_OK);
    bool expect[8] = {[6] = true, [7] = true};
    assert_memory_equal(keep, expect, sizeof keep);
}

static bool never(const bool *keep, void *ctx)
{
    (void)keep;
    (*(size_t *)ctx)++;
    return false;
}

static void test_no_failure(void **state)
{
    (void)state;
    size_t calls = 0;
    ddmin_dag g = dag_with(all_cuttable);
    bool keep[8];
    ddmin_stats st;
    assert_int_equal(ddmin_run(&g, never, &calls, 0, keep, &st), DDMIN_NO_FAILURE);
    /* depths 0, 1, 2, 4 (the whole cone): each a different set, each tested once */
    assert_int_equal(calls, 4);
    assert_int_equal(st.tests, 4);
}

static void test_limit(void **state)
{
    (void)state;
    need n = {.want = {[1] = true, [5] = true, [7] = true}};
    ddmin_dag g = dag_with(all_cuttable);
    bool keep[8];
    ddmin_stats st;
    assert_int_equal(ddmin_run(&g, fails_when_kept, &n, 2, keep, &st), DDMIN_LIMIT);
    assert_int_equal(st.tests, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_target_alone),
        cmocka_unit_test(test_grow_then_shrink),
        cmocka_unit_test(test_uncuttable_kept),
        cmocka_unit_test(test_no_failure),
        cmocka_unit_test(test_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
