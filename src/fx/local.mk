# src/fx/local.mk — the FX IR (programs, graphs, nodes, value meta, control-flow nodes) and its printers.
libfxsh_a_SOURCES += \
	src/fx/fx_ir.h src/fx/fx_ir.c src/fx/fx_clone.c src/fx/fx_build.h src/fx/fx_build.c src/fx/fx_literal.c \
	src/fx/fx.h src/fx/fx_format.h src/fx/fx_format.c src/fx/fx_control.h src/fx/fx_control.c \
	src/fx/fx_print_graph.c src/fx/fx_print_code.c src/fx/fx_print_program.c src/fx/fx_print_module.c src/fx/fx_print_dot.c \
	src/fx/fx_inspect.c src/fx/fx_weights.c src/fx/fx_extract.c
