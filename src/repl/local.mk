# src/repl/local.mk — line editing, command table, commands, session and stages.
libfxsh_a_SOURCES += \
	src/repl/repl.c src/repl/repl.h
