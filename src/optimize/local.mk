# src/optimize/local.mk — the ONNX optimizer: one file per pass, the driver in optimize.c.
libfxsh_a_SOURCES += src/optimize/optimize.c src/optimize/optimize.h \
	src/optimize/optimize_internal.h src/optimize/opt_common.c \
	src/optimize/opt_inline.c src/optimize/opt_fold.c src/optimize/opt_dce.c \
	src/optimize/opt_dedup.c src/optimize/opt_noop.c src/optimize/opt_rewrite.c \
	src/optimize/opt_value_info.c src/optimize/opt_infer.c
