# tests/unit/decompose/local.mk — decomposition tables and functionalization.
UNIT_TESTS += tests/unit/decompose/test_decompose_basic tests/unit/decompose/test_functionalize \
	tests/unit/decompose/test_decompose_ops tests/unit/decompose/test_decompose_rules
tests_unit_decompose_test_decompose_rules_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_decompose_test_decompose_basic_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_decompose_test_decompose_ops_CPPFLAGS = $(TEST_CPPFLAGS)
