# src/fx/local.mk — files of src/fx (see DESIGN.md).
include $(top_srcdir)/src/fx/pt2.mk
libfxsh_a_SOURCES += src/fx/fx_ir.h src/fx/fx_ir.c
