# tests/unit/repl/local.mk — the REPL's tokenizer.
UNIT_TESTS += tests/unit/repl/test_repl_tokenize
