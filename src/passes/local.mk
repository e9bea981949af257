# src/passes/local.mk — files of src/passes (see DESIGN.md).
libfxsh_a_SOURCES += \
	src/passes/translate.c src/passes/translate.h
