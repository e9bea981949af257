# tests/unit/translate/local.mk — translation to ONNX: basics, every lowering rule, the corpus.
# test_ops_corpus needs no cmocka: every corpus program (as exported, and after either
# decomposition table) translates to a model the checker accepts; skips without the corpus.
PLAIN_TESTS += tests/unit/translate/test_ops_corpus
UNIT_TESTS += tests/unit/translate/test_translate_basic tests/unit/translate/test_translate_corpus \
	tests/unit/translate/test_ops_lowerings
tests_unit_translate_test_ops_corpus_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_translate_test_translate_basic_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_translate_test_translate_corpus_CPPFLAGS = $(TEST_CPPFLAGS)
# Every lowering rule on a small program: checker, expected ONNX ops, hand-derived values where
# fxsh's evaluator runs the model (case files in tests/fixtures/ops/lowerings).
tests_unit_translate_test_ops_lowerings_CPPFLAGS = $(TEST_CPPFLAGS)
