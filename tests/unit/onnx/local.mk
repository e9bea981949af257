# tests/unit/onnx/local.mk — the ONNX IR: protobuf, printer, parser, checker, inference, operator records.
# test_onnx_corpus and test_onnx_proto need no cmocka; test_onnx_proto skips without libonnx-dev.
# test_onnx_infer_backend compares inference with the types ONNX's backend node tests declare
# (libonnx-testdata; skips without it) and holds the outputs inferred in full to a floor.
PLAIN_TESTS += tests/unit/onnx/test_onnx_corpus tests/unit/onnx/test_onnx_proto tests/unit/onnx/test_onnx_infer_backend
UNIT_TESTS += tests/unit/onnx/test_onnx_print tests/unit/onnx/test_onnx_pb tests/unit/onnx/test_onnx_ir \
	tests/unit/onnx/test_onnx_parse tests/unit/onnx/test_onnx_check \
	tests/unit/onnx/test_onnx_parse_corpus tests/unit/onnx/test_onnx_infer tests/unit/onnx/test_onnx_ops
tests_unit_onnx_test_onnx_corpus_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_onnx_test_onnx_print_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_onnx_test_onnx_pb_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_onnx_test_onnx_parse_corpus_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_onnx_test_onnx_infer_CPPFLAGS = $(TEST_CPPFLAGS)
tests_unit_onnx_test_onnx_infer_backend_CPPFLAGS = $(TEST_CPPFLAGS)
