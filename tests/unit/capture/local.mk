# tests/unit/capture/local.mk — the torch.export replay: export, module tables, TorchScript replay.
UNIT_TESTS += tests/unit/capture/test_export_basic tests/unit/capture/test_export_corpus \
	tests/unit/capture/test_export_mha tests/unit/capture/test_export_tables \
	tests/unit/capture/test_ts_export
tests_unit_capture_test_export_basic_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_capture_test_export_corpus_CPPFLAGS = $(TEST_CPPFLAGS)
