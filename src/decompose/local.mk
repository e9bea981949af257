# src/decompose/local.mk — run_decompositions(): decomposition tables, functionalization, matmul.
libfxsh_a_SOURCES += \
	src/decompose/decompose.h src/decompose/decompose.c src/decompose/decompose_internal.h \
	src/decompose/decompose_emit.c src/decompose/decompose_template.c src/decompose/decompose_compile.c \
	src/decompose/functionalize.c src/decompose/functionalize.h \
	src/decompose/decomp_matmul.c src/decompose/decomp_matmul.h src/decompose/decomp_lists.c \
	src/decompose/decomp_loss.c src/decompose/decomp_upsample.c \
	src/decompose/decomp_quantile.c src/decompose/decomp_pool.c src/decompose/decomp_autocast.c src/decompose/decomp_vmap.c src/decompose/decomp_builtins.c

decomposedir = $(pkgdatadir)/decompose
dist_decompose_DATA = share/fxsh/decompose/core.yaml share/fxsh/decompose/views.yaml
