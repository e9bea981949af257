# src/ops/local.mk — files of src/ops (see DESIGN.md): op registry, schemas, lowerings.
libfxsh_a_SOURCES += \
	src/ops/ops.h \
	src/ops/schema.c \
	src/ops/lowering.c \
	src/ops/registry.c \
	src/ops/yaml_check.c src/ops/yaml_check.h

opsdir = $(pkgdatadir)/ops
dist_ops_DATA = \
	share/fxsh/ops/core.yaml share/fxsh/ops/nn.yaml share/fxsh/ops/hop.yaml \
	share/fxsh/ops/activation.yaml share/fxsh/ops/create.yaml share/fxsh/ops/pool.yaml \
	share/fxsh/ops/reduce.yaml share/fxsh/ops/shape.yaml share/fxsh/ops/sym.yaml

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_ops_registry
TESTS += tests/unit/test_ops_registry
tests_unit_test_ops_registry_SOURCES = tests/unit/test_ops_registry.c
tests_unit_test_ops_registry_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_ops_registry_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_ops_registry_CPPFLAGS = $(AM_CPPFLAGS) -DFXSH_TEST_SHAREDIR='"$(abs_top_srcdir)/share/fxsh"' \
	-DFXSH_TEST_FIXTURES='"$(abs_top_srcdir)/tests/fixtures/ops"'
endif

# Op coverage: every corpus program (as exported, and after either decomposition table) translates
# to a model the checker accepts; skips without the corpus.
check_PROGRAMS += tests/unit/test_ops_corpus
TESTS += tests/unit/test_ops_corpus
tests_unit_test_ops_corpus_SOURCES = tests/unit/test_ops_corpus.c
tests_unit_test_ops_corpus_LDADD = libfxsh.a $(FXSH_LIBS)
tests_unit_test_ops_corpus_CPPFLAGS = $(AM_CPPFLAGS) -DFXSH_TEST_SHAREDIR='"$(abs_top_srcdir)/share/fxsh"' \
	-DFXSH_CORPUS_DEFAULT='"$(abs_top_srcdir)/../shared/corpus"'

# Every lowering rule on a small program: checker, expected ONNX ops, hand-derived values where
# fxsh's evaluator runs the model (case files in tests/fixtures/ops/lowerings).
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_ops_lowerings
TESTS += tests/unit/test_ops_lowerings
tests_unit_test_ops_lowerings_SOURCES = tests/unit/test_ops_lowerings.c
tests_unit_test_ops_lowerings_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_ops_lowerings_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_ops_lowerings_CPPFLAGS = $(AM_CPPFLAGS) -DFXSH_TEST_SHAREDIR='"$(abs_top_srcdir)/share/fxsh"' \
	-DFXSH_TEST_CASES='"$(abs_top_srcdir)/tests/fixtures/ops/lowerings"'
endif
