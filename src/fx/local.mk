# src/fx/local.mk — files of src/fx (see DESIGN.md).
libfxsh_a_SOURCES += src/fx/fx_ir.h src/fx/fx_ir.c
