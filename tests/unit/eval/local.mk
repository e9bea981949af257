# tests/unit/eval/local.mk — the reference evaluator: kernels, whole models.
# test_onnx_backend runs the evaluator on ONNX's backend node tests (libonnx-testdata; skips
# without it) and holds the number that pass to a floor.
PLAIN_TESTS += tests/unit/eval/test_onnx_backend
UNIT_TESTS += tests/unit/eval/test_onnx_eval
tests_unit_eval_test_onnx_backend_CPPFLAGS = $(TEST_CPPFLAGS)
