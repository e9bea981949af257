# src/load/local.mk — everything that turns a user's file into the FX IR: FX text, readable code,
# print(gm), .pt2 archives and program JSON, TorchScript IR, and weights from other files.
libfxsh_a_SOURCES += \
	src/load/load.h src/load/fx_parse_internal.h src/load/fx_arg_parse.c \
	src/load/fx_text_parse.c src/load/fx_code_parse.c src/load/fx_module_parse.c src/load/ep_text_parse.c src/load/fx_load.c \
	src/load/pt2_archive.c src/load/pt2_archive.h src/load/pt2_load.c src/load/pt2_load.h \
	src/load/ts_load.c src/load/ts_load.h src/load/ts_load_internal.h src/load/ts_stmt.c src/load/ts_ops.c src/load/ts_blocks.c \
	src/load/fx_weight_source.c src/load/fx_weight_source.h \
	src/load/pt2_save.c src/load/pt2_save.h
