# tests/unit/optimize/local.mk — the optimizer's passes, and on real exports (fixtures; the corpus when present).
UNIT_TESTS += tests/unit/optimize/test_optimize_passes tests/unit/optimize/test_optimize_corpus
tests_unit_optimize_test_optimize_corpus_CPPFLAGS = $(TEST_CPPFLAGS)
