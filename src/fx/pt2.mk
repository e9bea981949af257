# src/fx/pt2.mk — pt2 block (branch pt2), included from src/fx/local.mk: JSON DOM, .pt2 archives,
# torch.export program loader, print(ep), weights summaries. Kept in its own file to keep merges easy.
libfxsh_a_SOURCES += \
	src/base/json.c src/base/json.h

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_json
TESTS += tests/unit/test_json
tests_unit_test_json_SOURCES = tests/unit/test_json.c
tests_unit_test_json_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_json_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
endif
libfxsh_a_SOURCES += \
	src/fx/pt2_archive.c src/fx/pt2_archive.h \
	src/fx/pt2_load.c src/fx/pt2_load.h
libfxsh_a_SOURCES += src/fx/fx_print_program.c src/fx/fx_weights.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_pt2_load tests/unit/test_pt2_corpus
TESTS += tests/unit/test_pt2_load tests/unit/test_pt2_corpus
tests_unit_test_pt2_load_SOURCES = tests/unit/test_pt2_load.c
tests_unit_test_pt2_load_CPPFLAGS = $(AM_CPPFLAGS) -DFXSH_FIXTURES='"$(abs_top_srcdir)/tests/fixtures"'
tests_unit_test_pt2_load_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_pt2_load_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_pt2_corpus_SOURCES = tests/unit/test_pt2_corpus.c
tests_unit_test_pt2_corpus_CPPFLAGS = $(AM_CPPFLAGS) -DFXSH_CORPUS_DEFAULT='"$(abs_top_srcdir)/../shared/corpus"'
tests_unit_test_pt2_corpus_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_pt2_corpus_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
endif
EXTRA_DIST += tests/fixtures/pt2/mlp.pt2 tests/fixtures/pt2/mlp.json tests/fixtures/pt2/cond_dynamic.json \
	tests/fixtures/pt2/synthetic_args.json \
	tests/fixtures/pt2/mlp.exported.fx.txt tests/fixtures/pt2/mlp.exported.readable.txt \
	tests/fixtures/pt2/mlp.exported.program.txt tests/fixtures/pt2/cond_dynamic.exported.fx.txt \
	tests/fixtures/pt2/cond_dynamic.exported.readable.txt tests/fixtures/pt2/cond_dynamic.exported.program.txt
