# tests/unit/rewrite/local.mk — the control-flow check and the if/loop rewrites.
UNIT_TESTS += tests/unit/rewrite/test_ts_check tests/unit/rewrite/test_rewrite_cond tests/unit/rewrite/test_rewrite_loop
CFLOW_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_rewrite_test_ts_check_CPPFLAGS = $(CFLOW_CPPFLAGS)
tests_unit_rewrite_test_rewrite_cond_CPPFLAGS = $(CFLOW_CPPFLAGS)
tests_unit_rewrite_test_rewrite_loop_CPPFLAGS = $(CFLOW_CPPFLAGS)
EXTRA_DIST += tests/unit/rewrite/cflow_fixtures.h
