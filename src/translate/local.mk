# src/translate/local.mk — ATen program → ONNX model, by the lowerings of share/fxsh/translate.
libfxsh_a_SOURCES += \
	src/translate/translate.c src/translate/translate.h src/translate/translate_internal.h \
	src/translate/translate_emit.c src/translate/translate_lowering.c src/translate/translate_builtins.c src/translate/translate_families.c \
	src/translate/translate_hop.c src/translate/translate_diagonal.c src/translate/translate_strided.c \
	src/translate/translate_sample.c src/translate/translate_histc.c src/translate/translate_rnn.c src/translate/translate_norm.c src/translate/translate_unbind.c src/translate/translate_logical.c \
	src/translate/translate_embedding_bag.c src/translate/translate_stft.c src/translate/translate_complex.c \
	src/translate/translate_composite.c src/translate/translate_index_put.c src/translate/translate_scatter_reduce.c \
	src/translate/translate_function.c \
	src/translate/translate_meta.c src/translate/translate_meta.h src/translate/translate_attrs.c \
	src/translate/translate_version.c src/translate/translate_rename.c

translatedir = $(pkgdatadir)/translate
dist_translate_DATA = \
	share/fxsh/translate/core.yaml share/fxsh/translate/nn.yaml share/fxsh/translate/hop.yaml \
	share/fxsh/translate/activation.yaml share/fxsh/translate/create.yaml share/fxsh/translate/pool.yaml \
	share/fxsh/translate/reduce.yaml share/fxsh/translate/shape.yaml share/fxsh/translate/sym.yaml \
	share/fxsh/translate/prims.yaml
