# tests/unit/capture/local.mk — the torch.export replay: export, module tables, TorchScript replay.
UNIT_TESTS += tests/unit/capture/test_export_basic tests/unit/capture/test_export_corpus \
	tests/unit/capture/test_export_mha tests/unit/capture/test_export_tables \
	tests/unit/capture/test_ts_export
tests_unit_capture_test_export_basic_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFXSH_EXPORT_FIXTURES='"$(abs_top_srcdir)/tests/fixtures/export"'
tests_unit_capture_test_export_corpus_CPPFLAGS = $(CORPUS_CPPFLAGS) \
	-DEXPORT_FLOOR=13 -DSIGNATURE_FLOOR=14 -DDECOMP_FLOOR=27 -DONNX_FLOOR=27
