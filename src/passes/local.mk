# src/passes/local.mk — files of src/passes (see DESIGN.md).

# The constant evaluator lives in src/onnx/ but is owned by the optimizer; it is listed here so
# that src/onnx/local.mk stays the IR owner's file.
libfxsh_a_SOURCES += \
	src/onnx/onnx_eval.c src/onnx/onnx_eval.h \
	src/passes/optimize.c src/passes/optimize.h

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_onnx_eval
TESTS += tests/unit/test_onnx_eval
tests_unit_test_onnx_eval_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_onnx_eval_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
endif

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_optimize_passes
TESTS += tests/unit/test_optimize_passes
tests_unit_test_optimize_passes_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_optimize_passes_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
endif

# The optimizer on real exports: fixtures always, the corpus when present.
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_optimize_corpus
TESTS += tests/unit/test_optimize_corpus
tests_unit_test_optimize_corpus_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_optimize_corpus_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_optimize_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFXSH_CORPUS_DEFAULT='"$(abs_top_srcdir)/../shared/corpus"' \
	-DFXSH_FIXTURES='"$(abs_top_srcdir)/tests/fixtures/optimize"'
endif
EXTRA_DIST += tests/fixtures/optimize
