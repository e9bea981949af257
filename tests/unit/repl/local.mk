# tests/unit/repl/local.mk — the REPL: tokenizer, command table, completion.
UNIT_TESTS += tests/unit/repl/test_repl_tokenize
# Tab completion, did-you-mean and help layout, on a program of examples/data.
UNIT_TESTS += tests/unit/repl/test_repl_complete
tests_unit_repl_test_repl_complete_CPPFLAGS = $(TEST_CPPFLAGS)
