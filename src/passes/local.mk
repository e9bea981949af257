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

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_translate_corpus
TESTS += tests/unit/test_translate_corpus
tests_unit_test_translate_corpus_SOURCES = tests/unit/test_translate_corpus.c
tests_unit_test_translate_corpus_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_translate_corpus_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_translate_corpus_CPPFLAGS = $(AM_CPPFLAGS) -DFXSH_TEST_SHAREDIR='"$(abs_top_srcdir)/share/fxsh"' \
	-DFXSH_TEST_FIXTURES='"$(abs_top_srcdir)/tests/fixtures/translate"' \
	-DFXSH_CORPUS_DEFAULT='"$(abs_top_srcdir)/../shared/corpus"'
endif
EXTRA_DIST += tests/fixtures/translate
