# tests/unit/load/local.mk — loaders: FX text forms, .pt2 archives, TorchScript IR.
UNIT_TESTS += tests/unit/load/test_fx_parse tests/unit/load/test_fx_corpus tests/unit/load/test_pt2_load \
	tests/unit/load/test_pt2_corpus tests/unit/load/test_ts_load
tests_unit_load_test_fx_parse_CPPFLAGS = $(FX_TEST_CPPFLAGS)
tests_unit_load_test_fx_corpus_CPPFLAGS = $(FX_TEST_CPPFLAGS)
tests_unit_load_test_pt2_load_CPPFLAGS = $(AM_CPPFLAGS) -DFXSH_FIXTURES='"$(abs_top_srcdir)/tests/fixtures"'
tests_unit_load_test_pt2_corpus_CPPFLAGS = $(CORPUS_CPPFLAGS)
tests_unit_load_test_ts_load_CPPFLAGS = $(CORPUS_CPPFLAGS) -DFXSH_CFLOW_FIXTURES='"$(abs_top_srcdir)/tests/fixtures/cflow"'
