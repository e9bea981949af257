# tests/unit/pipeline/local.mk — the library entry point: load by content, the export stages end to end.
UNIT_TESTS += tests/unit/pipeline/test_pipeline tests/unit/pipeline/test_ts_export_corpus
tests_unit_pipeline_test_pipeline_CPPFLAGS = $(TEST_CPPFLAGS)
# TorchScript IR → export against torch.export's own program, case by case (skips without the
# corpus). The floor is today's count; the test's log lists what differs and why.
tests_unit_pipeline_test_ts_export_corpus_CPPFLAGS = $(TEST_CPPFLAGS)
