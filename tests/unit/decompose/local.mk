# tests/unit/decompose/local.mk — decomposition tables and functionalization.
UNIT_TESTS += tests/unit/decompose/test_decompose_basic tests/unit/decompose/test_functionalize \
	tests/unit/decompose/test_decompose_ops tests/unit/decompose/test_decompose_rules
tests_unit_decompose_test_decompose_rules_CPPFLAGS = $(AM_CPPFLAGS) $(SHARE_CPPFLAGS)
tests_unit_decompose_test_decompose_basic_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFXSH_EXPORT_FIXTURES='"$(abs_top_srcdir)/tests/fixtures/export"'
tests_unit_decompose_test_decompose_ops_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFXSH_DECOMPOSE_OPS='"$(abs_top_srcdir)/tests/fixtures/decompose/ops"'
