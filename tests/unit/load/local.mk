# tests/unit/load/local.mk — loaders: FX text forms, .pt2 archives, TorchScript IR.
UNIT_TESTS += tests/unit/load/test_fx_parse tests/unit/load/test_fx_corpus tests/unit/load/test_pt2_load \
	tests/unit/load/test_pt2_corpus tests/unit/load/test_ts_load tests/unit/load/test_pt2_save
tests_unit_load_test_fx_parse_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_load_test_fx_corpus_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_load_test_pt2_load_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_load_test_pt2_corpus_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_load_test_ts_load_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_load_test_pt2_save_CPPFLAGS = $(TEST_CPPFLAGS)
