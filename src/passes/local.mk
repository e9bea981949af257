# src/passes/local.mk — files of src/passes (see DESIGN.md).
libfxsh_a_SOURCES += \
	src/passes/translate.c src/passes/translate.h

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_translate_basic
TESTS += tests/unit/test_translate_basic
tests_unit_test_translate_basic_SOURCES = tests/unit/test_translate_basic.c
tests_unit_test_translate_basic_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_translate_basic_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_translate_basic_CPPFLAGS = $(AM_CPPFLAGS) -DFXSH_TEST_SHAREDIR='"$(abs_top_srcdir)/share/fxsh"'
endif

libfxsh_a_SOURCES += src/passes/export.h src/passes/export.c
libfxsh_a_SOURCES += src/passes/decompose.h src/passes/decompose.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_export_corpus
TESTS += tests/unit/test_export_corpus
tests_unit_test_export_corpus_SOURCES = tests/unit/test_export_corpus.c
tests_unit_test_export_corpus_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_export_corpus_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_export_corpus_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFXSH_CORPUS_DEFAULT='"$(abs_top_srcdir)/../shared/corpus"' \
	-DEXPORT_FLOOR=0 -DDECOMP_FLOOR=0 -DONNX_FLOOR=0
endif

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
include $(top_srcdir)/src/passes/cflow.mk
