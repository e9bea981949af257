# src/passes/local.mk — files of src/passes (see DESIGN.md).
libfxsh_a_SOURCES += src/passes/export.h src/passes/export.c
