# src/fx/cflow.mk — control-flow nodes and the TorchScript IR loader (task CFLOW).
libfxsh_a_SOURCES += src/fx/fx_control.h src/fx/fx_control.c src/fx/ts_load.h src/fx/ts_load.c
EXTRA_DIST += tests/fixtures/cflow/python_if.readable.txt tests/fixtures/cflow/python_if_data.torchscript.txt \
	tests/fixtures/cflow/python_if_nested.torchscript.txt tests/fixtures/cflow/python_if_data.onnx \
	tests/fixtures/cflow/python_if_data_as_cond.exported.fx.txt

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_ts_load
TESTS += tests/unit/test_ts_load
tests_unit_test_ts_load_SOURCES = tests/unit/test_ts_load.c
tests_unit_test_ts_load_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_ts_load_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_ts_load_CPPFLAGS = $(AM_CPPFLAGS) -DFXSH_CFLOW_FIXTURES='"$(abs_top_srcdir)/tests/fixtures/cflow"' \
	-DFXSH_CORPUS_DEFAULT='"$(abs_top_srcdir)/../shared/corpus"'
endif
