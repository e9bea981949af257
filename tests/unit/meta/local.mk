# tests/unit/meta/local.mk — meta inference: symbolic sizes, rules, and the meta torch recorded.
UNIT_TESTS += tests/unit/meta/test_meta_sym tests/unit/meta/test_meta_infer tests/unit/meta/test_meta_corpus
# Conformance with the value meta torch recorded in the corpus (skips without it). The floors
# are today's counts; the fxsh-decomposed one sits lower because it only counts programs the
# decompose pass reproduces exactly, which that pass's own test guards.
tests_unit_meta_test_meta_corpus_CPPFLAGS = $(TEST_CPPFLAGS)
