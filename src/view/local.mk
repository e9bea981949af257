# src/view/local.mk — the shell's views of an ONNX model: inspect, DOT, summary, value files, numpy's
# repr, the node-by-node comparison of two models.
libfxsh_a_SOURCES += \
	src/view/onnx_npz.c src/view/onnx_npz.h \
	src/view/onnx_values.c src/view/onnx_values.h src/view/onnx_repr.c src/view/onnx_repr.h \
	src/view/onnx_compare.c src/view/onnx_compare.h \
	src/view/onnx_dot.c src/view/onnx_dot.h \
	src/view/onnx_summary.c src/view/onnx_summary.h \
	src/view/onnx_inspect.c src/view/onnx_inspect.h
