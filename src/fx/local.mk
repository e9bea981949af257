# src/fx/local.mk — files of src/fx (see DESIGN.md).
include $(top_srcdir)/src/fx/pt2.mk
libfxsh_a_SOURCES += src/fx/fx_ir.h src/fx/fx_ir.c src/fx/fx.h src/fx/fx_internal.h \
	src/fx/fx_args.c src/fx/fx_text_parse.c src/fx/fx_code_parse.c src/fx/fx_module_parse.c \
	src/fx/fx_load.c src/fx/fx_print_graph.c src/fx/fx_print_code.c
