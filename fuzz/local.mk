# fuzz/local.mk — libFuzzer harnesses, one per parser/loader (make fuzz), and the replay of the
# inputs they found (tests/fixtures/fuzz/<harness>/) in make check.
#
#   make fuzz                                   all harnesses, FUZZ_SECONDS (60) split between them
#   make fuzz FUZZ_TARGETS=onnx_pb FUZZ_SECONDS=1800   one harness for 30 minutes
#
# The harnesses and an instrumented copy of the library are built with clang (FUZZ_CC, found by
# configure) whatever CC is; seeds come from fuzz/gather-seeds.sh (the shared corpus and the
# test fixtures), the growing corpus lives in fuzz/corpus/ and crash inputs in fuzz/artifacts/
# (neither is committed: keep a crash input as tests/fixtures/fuzz/<harness>/NAME).
FUZZ_HARNESSES = fx_graph fx_code fx_module torchscript pt2 onnx_pb onnx_text yaml weights values pipeline
FUZZ_TARGETS = $(FUZZ_HARNESSES)
FUZZ_SECONDS = 60
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_COMPILE_FLAGS = $(AM_CFLAGS) -g -O1 -fsanitize=fuzzer-no-link $(FUZZ_SANITIZE)
FUZZ_LINK_FLAGS = -fsanitize=fuzzer $(FUZZ_SANITIZE)

EXTRA_LIBRARIES = fuzz/libfxsh_fuzz.a
fuzz_libfxsh_fuzz_a_SOURCES = $(libfxsh_a_SOURCES) fuzz/fuzz.h fuzz/fuzz_util.c
nodist_fuzz_libfxsh_fuzz_a_SOURCES = $(nodist_libfxsh_a_SOURCES)
fuzz_libfxsh_fuzz_a_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_libfxsh_fuzz_a_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)

FUZZ_BINARIES = fuzz/fuzz_fx_graph fuzz/fuzz_fx_code fuzz/fuzz_fx_module fuzz/fuzz_torchscript fuzz/fuzz_pt2 \
	fuzz/fuzz_onnx_pb fuzz/fuzz_onnx_text fuzz/fuzz_yaml fuzz/fuzz_weights fuzz/fuzz_values fuzz/fuzz_pipeline
EXTRA_PROGRAMS += $(FUZZ_BINARIES)
FUZZ_LDADD = fuzz/libfxsh_fuzz.a $(FXSH_LIBS)
fuzz_fuzz_fx_graph_SOURCES = fuzz/fuzz_fx_graph.c
fuzz_fuzz_fx_graph_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_fuzz_fx_graph_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)
fuzz_fuzz_fx_graph_LDFLAGS = $(FUZZ_LINK_FLAGS)
fuzz_fuzz_fx_graph_LDADD = $(FUZZ_LDADD)
fuzz_fuzz_fx_code_SOURCES = fuzz/fuzz_fx_code.c
fuzz_fuzz_fx_code_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_fuzz_fx_code_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)
fuzz_fuzz_fx_code_LDFLAGS = $(FUZZ_LINK_FLAGS)
fuzz_fuzz_fx_code_LDADD = $(FUZZ_LDADD)
fuzz_fuzz_fx_module_SOURCES = fuzz/fuzz_fx_module.c
fuzz_fuzz_fx_module_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_fuzz_fx_module_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)
fuzz_fuzz_fx_module_LDFLAGS = $(FUZZ_LINK_FLAGS)
fuzz_fuzz_fx_module_LDADD = $(FUZZ_LDADD)
fuzz_fuzz_torchscript_SOURCES = fuzz/fuzz_torchscript.c
fuzz_fuzz_torchscript_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_fuzz_torchscript_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)
fuzz_fuzz_torchscript_LDFLAGS = $(FUZZ_LINK_FLAGS)
fuzz_fuzz_torchscript_LDADD = $(FUZZ_LDADD)
fuzz_fuzz_pt2_SOURCES = fuzz/fuzz_pt2.c
fuzz_fuzz_pt2_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_fuzz_pt2_CPPFLAGS = $(TEST_CPPFLAGS) -I$(srcdir)
fuzz_fuzz_pt2_LDFLAGS = $(FUZZ_LINK_FLAGS)
fuzz_fuzz_pt2_LDADD = $(FUZZ_LDADD)
fuzz_fuzz_onnx_pb_SOURCES = fuzz/fuzz_onnx_pb.c
fuzz_fuzz_onnx_pb_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_fuzz_onnx_pb_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)
fuzz_fuzz_onnx_pb_LDFLAGS = $(FUZZ_LINK_FLAGS)
fuzz_fuzz_onnx_pb_LDADD = $(FUZZ_LDADD)
fuzz_fuzz_onnx_text_SOURCES = fuzz/fuzz_onnx_text.c
fuzz_fuzz_onnx_text_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_fuzz_onnx_text_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)
fuzz_fuzz_onnx_text_LDFLAGS = $(FUZZ_LINK_FLAGS)
fuzz_fuzz_onnx_text_LDADD = $(FUZZ_LDADD)
fuzz_fuzz_yaml_SOURCES = fuzz/fuzz_yaml.c
fuzz_fuzz_yaml_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_fuzz_yaml_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)
fuzz_fuzz_yaml_LDFLAGS = $(FUZZ_LINK_FLAGS)
fuzz_fuzz_yaml_LDADD = $(FUZZ_LDADD)
fuzz_fuzz_weights_SOURCES = fuzz/fuzz_weights.c
fuzz_fuzz_weights_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_fuzz_weights_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)
fuzz_fuzz_weights_LDFLAGS = $(FUZZ_LINK_FLAGS)
fuzz_fuzz_weights_LDADD = $(FUZZ_LDADD)
fuzz_fuzz_values_SOURCES = fuzz/fuzz_values.c
fuzz_fuzz_values_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_fuzz_values_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)
fuzz_fuzz_values_LDFLAGS = $(FUZZ_LINK_FLAGS)
fuzz_fuzz_values_LDADD = $(FUZZ_LDADD)
fuzz_fuzz_pipeline_SOURCES = fuzz/fuzz_pipeline.c
fuzz_fuzz_pipeline_CFLAGS = $(FUZZ_COMPILE_FLAGS)
fuzz_fuzz_pipeline_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)
fuzz_fuzz_pipeline_LDFLAGS = $(FUZZ_LINK_FLAGS)
fuzz_fuzz_pipeline_LDADD = $(FUZZ_LDADD)
CLEANFILES += $(FUZZ_BINARIES) fuzz/libfxsh_fuzz.a
EXTRA_DIST += fuzz/run.sh fuzz/gather-seeds.sh fuzz/pipeline.py

fuzz-build: $(BUILT_SOURCES)
	@if test -z "$(FUZZ_CC)"; then \
	  echo "make fuzz: clang is needed (apt-get install clang libclang-rt-14-dev), then ./configure again" >&2; exit 1; fi
	$(MAKE) $(AM_MAKEFLAGS) CC="$(FUZZ_CC)" $(FUZZ_BINARIES)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FXSH_TOP=$(abs_top_srcdir) FXSH_SHAREDIR=$(abs_top_srcdir)/share/fxsh \
	  $(SHELL) $(srcdir)/fuzz/run.sh $(FUZZ_TARGETS)

# The pipeline fuzzer (fuzz/pipeline.py, python3): mutated real programs through this build's fxsh
# at the command line, load + export + save + check, FUZZ_SECONDS in all. Configure the build with
# sanitizers (as quickstart.sh's build-asan) for it to see memory errors. Findings go to
# fuzz/pipeline-out/findings; FUZZ_PIPELINE_FLAGS adds options (--seed N, --kind pt2, --onnx-check).
FUZZ_PIPELINE_FLAGS =
fuzz-pipeline: fxsh
	FXSH_SHAREDIR=$(abs_top_srcdir)/share/fxsh python3 $(srcdir)/fuzz/pipeline.py --fxsh ./fxsh \
	  --seconds $(FUZZ_SECONDS) --out fuzz/pipeline-out --fixtures $(abs_top_srcdir)/tests/fixtures \
	  --corpus "$${FXSH_CORPUS:-$(abs_top_srcdir)/../shared/corpus}" $(FUZZ_PIPELINE_FLAGS)
.PHONY: fuzz fuzz-build fuzz-pipeline

# The replay: every saved input of every harness, through the same harness code (no libFuzzer).
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_fuzz_replay
TESTS += tests/unit/test_fuzz_replay
tests_unit_test_fuzz_replay_SOURCES = tests/unit/test_fuzz_replay.c fuzz/fuzz_util.c fuzz/fuzz_fx_graph.c \
	fuzz/fuzz_fx_code.c fuzz/fuzz_fx_module.c fuzz/fuzz_torchscript.c fuzz/fuzz_pt2.c fuzz/fuzz_onnx_pb.c \
	fuzz/fuzz_onnx_text.c fuzz/fuzz_yaml.c fuzz/fuzz_weights.c fuzz/fuzz_values.c fuzz/fuzz_pipeline.c
tests_unit_test_fuzz_replay_CPPFLAGS = $(TEST_CPPFLAGS) -I$(srcdir) -DFXSH_FUZZ_REPLAY
tests_unit_test_fuzz_replay_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_fuzz_replay_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
endif
