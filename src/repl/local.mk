# src/repl/local.mk — line editing, command table, commands, session and stages.
libfxsh_a_SOURCES += \
	src/repl/repl.c src/repl/repl.h \
	src/repl/lineedit.c src/repl/lineedit.h \
	src/repl/tokenize.c src/repl/tokenize.h \
	src/repl/session.c src/repl/session.h \
	src/repl/commands.c src/repl/commands.h src/repl/cmd_handlers.h \
	src/repl/cmd_core.c \
	src/repl/cmd_load.c \
	src/repl/cmd_inspect.c \
	src/repl/cmd_onnx.c \
	src/repl/cmd_program.c \
	src/repl/cmd_pipeline.c \
	src/repl/cmd_run.c src/repl/cmd_run.h src/repl/cmd_decode.c \
	src/repl/cmd_compare.c \
	src/repl/cmd_reduce.c src/repl/cmd_reduce.h src/repl/cmd_reduce_export.c src/repl/cmd_reduce_values.c src/repl/cmd_reduce_check.c \
	src/repl/cmd_trace.c \
	src/repl/cmd_edit.c src/repl/cmd_edit.h src/repl/cmd_guards.c \
	src/repl/cmd_json.c \
	src/repl/cmd_report.c
