# src/meta/local.mk — shape, dtype and stride inference for ATen programs (node meta) and its rules.
libfxsh_a_SOURCES += src/meta/meta_sym.h src/meta/meta_sym.c \
	src/meta/meta_promote.h src/meta/meta_promote.c \
	src/meta/meta_internal.h src/meta/meta_args.c src/meta/meta_strides.c src/meta/meta_unbacked.c \
	src/meta/meta_dtype_rules.c src/meta/meta_shape.c src/meta/meta_views.c src/meta/meta_nn.c \
	src/meta/meta_python.c src/meta/meta_families.c \
	src/meta/meta_rules.h src/meta/meta_rules.c \
	src/meta/meta_infer.h src/meta/meta_infer.c \
	src/meta/meta_verify.h src/meta/meta_verify.c \
	src/meta/meta_autocast.h src/meta/meta_autocast.c \
	src/meta/meta_layout.h src/meta/meta_layout.c

metadir = $(pkgdatadir)/meta
dist_meta_DATA = share/fxsh/meta/aten.yaml
