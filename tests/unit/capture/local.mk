# tests/unit/capture/local.mk — the torch.export replay: export, module tables, TorchScript replay.
UNIT_TESTS += tests/unit/capture/test_export_basic tests/unit/capture/test_export_corpus \
	tests/unit/capture/test_export_mha tests/unit/capture/test_export_tables \
	tests/unit/capture/test_ts_export tests/unit/capture/test_ts_export_corpus
tests_unit_capture_test_export_basic_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFXSH_EXPORT_FIXTURES='"$(abs_top_srcdir)/tests/fixtures/export"'
tests_unit_capture_test_export_corpus_CPPFLAGS = $(CORPUS_CPPFLAGS) \
	-DEXPORT_FLOOR=13 -DSIGNATURE_FLOOR=14 -DDECOMP_FLOOR=27 -DONNX_FLOOR=27
# TorchScript IR → export against torch.export's own program, case by case (skips without the
# corpus). The floor is today's count; the test's log lists what differs and why.
tests_unit_capture_test_ts_export_corpus_CPPFLAGS = $(CORPUS_CPPFLAGS) -DTS_EXPORT_FLOOR=17
