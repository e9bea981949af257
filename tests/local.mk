# tests/local.mk — cmocka unit tests of base and repl, transcript tests, examples.
TEST_EXTENSIONS = .t
T_LOG_COMPILER = $(srcdir)/tests/run-transcript.sh
AM_TESTS_ENVIRONMENT = FXSH=$(abs_builddir)/fxsh$(EXEEXT); FXSH_TOP=$(abs_top_srcdir); FXSH_SHAREDIR=$(abs_top_srcdir)/share/fxsh; FXSH_CORPUS=$${FXSH_CORPUS:-$(abs_top_srcdir)/../shared/corpus}; export FXSH FXSH_TOP FXSH_SHAREDIR FXSH_CORPUS;
EXTRA_DIST += tests/run-transcript.sh scripts/quickstart.sh examples tests/fixtures tests/transcripts

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_base tests/unit/test_repl_tokenize
TESTS += tests/unit/test_base tests/unit/test_repl_tokenize
tests_unit_test_base_SOURCES = tests/unit/test_base.c
tests_unit_test_base_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_base_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_repl_tokenize_SOURCES = tests/unit/test_repl_tokenize.c
tests_unit_test_repl_tokenize_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_repl_tokenize_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
endif

# Transcript tests: the REPL and the examples, run against the built fxsh.
TESTS += $(REPL_TRANSCRIPTS)
REPL_TRANSCRIPTS = examples/quickstart.t examples/seed_recipe.t examples/nested_cond.t \
	examples/while_loop.t examples/scan.t examples/cond_two_outputs.t examples/sequence.t examples/custom_op.t tests/transcripts/repl_basics.t tests/transcripts/edit.t tests/transcripts/fx_inspect.t \
	tests/transcripts/onnx_commands.t tests/transcripts/pt2_commands.t tests/transcripts/pipeline.t \
	tests/transcripts/view_mutation.t

# The inputs of the first fuzzing round (issue 16) through the whole tool: clear errors, no
# signal, no sanitizer report, bounded time and memory.
TESTS += tests/fuzz_findings.sh
EXTRA_DIST += tests/fuzz_findings.sh tests/fixtures/fuzz

# examples/ and tests/transcripts are distributed whole: leave out what make check wrote there
# (a VPATH build from the copy would take those results for its own, up to date).
dist-hook:
	for t in $(REPL_TRANSCRIPTS); do rm -f "$(distdir)/$${t%.t}.log" "$(distdir)/$${t%.t}.trs"; done

# The whole tool against the reference corpus (skips without it).
TESTS += tests/corpus_repl.sh
EXTRA_DIST += tests/corpus_repl.sh
