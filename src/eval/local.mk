# src/eval/local.mk — the reference evaluator of ONNX: one kernel file per op family, graphs.
libfxsh_a_SOURCES += \
	src/eval/onnx_eval.c src/eval/onnx_eval.h src/eval/onnx_eval_internal.h \
	src/eval/onnx_eval_math.c src/eval/onnx_eval_reduce.c src/eval/onnx_eval_shape.c \
	src/eval/onnx_eval_index.c src/eval/onnx_eval_nn.c src/eval/onnx_eval_conv.c \
	src/eval/onnx_eval_resize.c src/eval/onnx_eval_control.c src/eval/onnx_eval_fft.c src/eval/onnx_eval_rnn.c src/eval/onnx_eval_random.c \
	src/eval/onnx_eval_misc.c src/eval/onnx_eval_graph.c
