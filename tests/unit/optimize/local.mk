# tests/unit/optimize/local.mk — the optimizer's passes, on real exports (fixtures; the corpus when present), and derived weights against the old computation.
UNIT_TESTS += tests/unit/optimize/test_optimize_passes tests/unit/optimize/test_optimize_corpus tests/unit/optimize/test_derive
tests_unit_optimize_test_optimize_corpus_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_optimize_test_derive_CPPFLAGS = $(TEST_CPPFLAGS)
