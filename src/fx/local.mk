# src/fx/local.mk — files of src/fx (see DESIGN.md).
include $(top_srcdir)/src/fx/pt2.mk
libfxsh_a_SOURCES += src/fx/fx_ir.h src/fx/fx_ir.c src/fx/fx.h src/fx/fx_internal.h \
	src/fx/fx_args.c src/fx/fx_text_parse.c src/fx/fx_code_parse.c src/fx/fx_module_parse.c \
	src/fx/fx_load.c src/fx/fx_print_graph.c src/fx/fx_print_code.c src/fx/fx_inspect.c src/fx/fx_clone.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_fx_ir tests/unit/test_fx_parse tests/unit/test_fx_print tests/unit/test_fx_corpus
TESTS += tests/unit/test_fx_ir tests/unit/test_fx_parse tests/unit/test_fx_print tests/unit/test_fx_corpus
FX_TEST_CPPFLAGS = $(AM_CPPFLAGS) -DFXSH_FX_FIXTURES='"$(abs_top_srcdir)/tests/fixtures/fx"' \
	-DFXSH_CORPUS_DEFAULT='"$(abs_top_srcdir)/../shared/corpus"'
tests_unit_test_fx_ir_SOURCES = tests/unit/test_fx_ir.c
tests_unit_test_fx_ir_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_fx_ir_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_fx_parse_SOURCES = tests/unit/test_fx_parse.c
tests_unit_test_fx_parse_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_fx_parse_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_fx_parse_CPPFLAGS = $(FX_TEST_CPPFLAGS)
tests_unit_test_fx_print_SOURCES = tests/unit/test_fx_print.c
tests_unit_test_fx_print_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_fx_print_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_fx_print_CPPFLAGS = $(FX_TEST_CPPFLAGS)
tests_unit_test_fx_corpus_SOURCES = tests/unit/test_fx_corpus.c
tests_unit_test_fx_corpus_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_fx_corpus_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_fx_corpus_CPPFLAGS = $(FX_TEST_CPPFLAGS)
endif
EXTRA_DIST += tests/fixtures/fx/mlp_exported.fx.txt tests/fixtures/fx/mlp_exported.readable.txt \
	tests/fixtures/fx/mlp_torch_level.module.txt tests/fixtures/fx/mlp_cond_exported.fx.txt \
	tests/fixtures/fx/mlp_cond_exported.readable.txt tests/fixtures/fx/mlp_cond_exported.program.txt \
	tests/fixtures/fx/attention_torch_level.module.txt

# ---- lead block: weights from another file (load FILE --weights W) ----------------------------
libfxsh_a_SOURCES += src/fx/fx_weight_source.c src/fx/fx_weight_source.h

include $(top_srcdir)/src/fx/cflow.mk
