# tests/unit/view/local.mk — the shell's views of a model: DOT, summary, value files, comparison.
UNIT_TESTS += tests/unit/view/test_onnx_dot_summary tests/unit/view/test_onnx_values tests/unit/view/test_onnx_compare
