# src/pipeline/local.mk — the library entry point: load any file, run the export stages.
libfxsh_a_SOURCES += \
	src/pipeline/pipeline.h \
	src/pipeline/pl_stages.c \
	src/pipeline/pl_load.c \
	src/pipeline/pl_export.c \
	src/pipeline/settings.c src/pipeline/settings.h \
	src/pipeline/dyn_spec.c src/pipeline/dyn_spec.h
