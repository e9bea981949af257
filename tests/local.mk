# tests/local.mk — unit tests (per source folder), transcript tests, examples, the corpus run.
TEST_EXTENSIONS = .t
T_LOG_COMPILER = $(srcdir)/tests/run-transcript.sh
AM_TESTS_ENVIRONMENT = FXSH=$(abs_builddir)/fxsh$(EXEEXT); FXSH_TOP=$(abs_top_srcdir); FXSH_SHAREDIR=$(abs_top_srcdir)/share/fxsh; FXSH_CORPUS=$${FXSH_CORPUS:-$(abs_top_srcdir)/../shared/corpus}; export FXSH FXSH_TOP FXSH_SHAREDIR FXSH_CORPUS;
EXTRA_DIST += tests/run-transcript.sh scripts/quickstart.sh examples tests/fixtures tests/transcripts

# Unit tests: one folder per source folder (tests/unit/<stage>/local.mk lists its programs).
# UNIT_TESTS need cmocka; PLAIN_TESTS are plain C programs that exit 77 to skip.
UNIT_TESTS =
PLAIN_TESTS =
LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
# One root for every test: the source tree. Fixtures, the corpus beside it, the tables and the
# floors (tests/floors.txt) are found from it by tests/unit/test_paths.h.
TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/tests/unit -DFXSH_TEST_TOP='"$(abs_top_srcdir)"'
EXTRA_DIST += tests/floors.txt tests/unit/test_paths.h
include tests/unit/base/local.mk
include tests/unit/fx/local.mk
include tests/unit/onnx/local.mk
include tests/unit/eval/local.mk
include tests/unit/tables/local.mk
include tests/unit/load/local.mk
include tests/unit/meta/local.mk
include tests/unit/capture/local.mk
include tests/unit/decompose/local.mk
include tests/unit/translate/local.mk
include tests/unit/optimize/local.mk
include tests/unit/rewrite/local.mk
include tests/unit/pipeline/local.mk
include tests/unit/view/local.mk
include tests/unit/repl/local.mk
check_PROGRAMS += $(PLAIN_TESTS)
TESTS += $(PLAIN_TESTS)
if HAVE_CMOCKA
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
endif

# Transcript tests: the REPL and the examples, run against the built fxsh.
TESTS += $(REPL_TRANSCRIPTS)
REPL_TRANSCRIPTS = examples/quickstart.t examples/seed_recipe.t examples/nested_cond.t \
	examples/while_loop.t examples/scan.t examples/cond_two_outputs.t examples/sequence.t examples/custom_op.t examples/shape_guard.t examples/dynamic_dims.t examples/legacy_trace.t \
	examples/decode.t examples/export_report.t examples/lint.t examples/fx_weights.t examples/wrong_input.t examples/loop_const.t examples/ts_weights.t examples/size_from_tensor.t tests/transcripts/repl_basics.t tests/transcripts/edit.t tests/transcripts/fx_inspect.t \
	tests/transcripts/onnx_commands.t tests/transcripts/pt2_commands.t tests/transcripts/pipeline.t \
	tests/transcripts/view_mutation.t tests/transcripts/safe_writes.t tests/transcripts/strict.t \
	tests/transcripts/scripts.t tests/transcripts/run_verify.t tests/transcripts/check_types.t tests/transcripts/compare.t \
	tests/transcripts/legacy_trace.t tests/transcripts/weights.t tests/transcripts/hints.t tests/transcripts/output.t \
	tests/transcripts/names.t tests/transcripts/small_things.t tests/transcripts/lowerings.t \
	tests/transcripts/ep_text.t tests/transcripts/decompose_onnx.t tests/transcripts/torchlib_functions.t \
	tests/transcripts/torchlib_nn_shape.t tests/transcripts/builtins.t tests/transcripts/settings.t tests/transcripts/reduce.t examples/reduce.t \
	tests/transcripts/sweep.t tests/transcripts/guards.t

# Ctrl-C on a terminal (tmux; skips without it) and in scripts.
TESTS += tests/interrupt.sh
EXTRA_DIST += tests/interrupt.sh
# The generated man page: version footer, every command, every environment variable read.
TESTS += tests/man.sh
EXTRA_DIST += tests/man.sh
# Size guards under each kind of dynamic dimension, against torch.export's verdicts.
TESTS += tests/guards.sh
# dynamic_shapes with derived dimensions (2*dx, dx+1), against torch.export's and torch.onnx's.
TESTS += tests/derived_dims.sh
EXTRA_DIST += tests/derived_dims.sh
# int() / float() / .item() of tensors at export time, against torch.export's verdicts.
TESTS += tests/data_dependent.sh
EXTRA_DIST += tests/data_dependent.sh
# verify --decode on a decoder step with a key/value cache, against eager PyTorch's greedy tokens.
TESTS += tests/decode.sh
EXTRA_DIST += tests/decode.sh
EXTRA_DIST += tests/guards.sh
# --json of every inspection command, parsed with jq (skips without it).
TESTS += tests/json.sh
EXTRA_DIST += tests/json.sh
# Completion, confirmations and `show` on a terminal (tmux; skips without it).
TESTS += tests/terminal.sh
EXTRA_DIST += tests/terminal.sh

# The inputs of the first fuzzing round (issue 16) through the whole tool: clear errors, no
# signal, no sanitizer report, bounded time and memory.
TESTS += tests/fuzz_findings.sh
# Inconsistent torch.export programs (the second round's pipeline findings, issue 30): an error
# naming the node or weight, nothing written.
TESTS += tests/pipeline_findings.sh
EXTRA_DIST += tests/pipeline_findings.sh
# fxsh's check against onnx.checker.check_model(full_check=True): models and mutants with onnx's
# recorded verdicts (tests/fixtures/check_population, made by scripts/dev/check_population.py).
TESTS += tests/check_population.sh
EXTRA_DIST += tests/check_population.sh
# small transformers / torchaudio models and indexing / weight-norm / promotion cases, exported
# and evaluated against eager PyTorch's outputs (tests/fixtures/models, part of the fixtures dist).
TESTS += tests/model_fixtures.sh
EXTRA_DIST += tests/model_fixtures.sh
# a sampled slice of the op population (dtypes, static and dynamic), floors that only rise
TESTS += tests/op_population.sh
EXTRA_DIST += tests/op_population.sh
EXTRA_DIST += tests/fuzz_findings.sh tests/fixtures/fuzz

# examples/ and tests/transcripts are distributed whole: leave out what make check wrote there
# (a VPATH build from the copy would take those results for its own, up to date).
dist-hook:
	for t in $(REPL_TRANSCRIPTS); do rm -f "$(distdir)/$${t%.t}.log" "$(distdir)/$${t%.t}.trs"; done

# After the suite, why tests were skipped (the corpus tests: what to set), so that a summary of
# "N skipped" does not read as full coverage; tests/skip_reasons.sh checks what it says.
check-local: check-TESTS
	@sh $(srcdir)/scripts/skip-reasons.sh test-suite.log "$${FXSH_CORPUS:-../shared/corpus}"
TESTS += tests/skip_reasons.sh
EXTRA_DIST += tests/skip_reasons.sh scripts/skip-reasons.sh

# The whole tool against the reference corpus (skips without it).
TESTS += tests/corpus_repl.sh
EXTRA_DIST += tests/corpus_repl.sh
# `verify` on every corpus case, its verdicts held against ONNX Runtime's (skips without it).
TESTS += tests/corpus_verify.sh
EXTRA_DIST += tests/corpus_verify.sh
# Ops corpus cases listed in tests/fixtures/corpus_text/*.txt print exactly as torch's (skips without it).
TESTS += tests/corpus_text.sh
EXTRA_DIST += tests/corpus_text.sh
# `reduce` of every ops case whose export fails: its reproducer fails the same way (skips without it).
TESTS += tests/corpus_reduce.sh
EXTRA_DIST += tests/corpus_reduce.sh
# `compare` of fxsh's export with torch.onnx's models, node by node, on every fx case (skips without it).
TESTS += tests/corpus_compare.sh
EXTRA_DIST += tests/corpus_compare.sh
# `export --legacy trace` prints the TracerWarnings torch's tracing printed, on every fx case (skips without it).
TESTS += tests/corpus_trace.sh
EXTRA_DIST += tests/corpus_trace.sh

# The source tree's layering (DESIGN.md): no folder includes a folder after it in the pipeline.
TESTS += tests/include_order.sh
EXTRA_DIST += tests/include_order.sh
# The same layering over the compiled objects (symbols: no back edge, no raw allocation, one
# folder per name prefix), and a test that it catches each on a planted tree of objects.
TESTS += tests/symbol_order.sh tests/symbol_order_planted.sh
EXTRA_DIST += tests/symbol_order.sh tests/symbol_order_planted.sh
