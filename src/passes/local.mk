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
