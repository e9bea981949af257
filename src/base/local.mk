# src/base/local.mk — allocation, strings, containers, builtin registries, diagnostics, files, JSON, DOT, interrupts.
libfxsh_a_SOURCES += \
	src/base/alloc.c src/base/alloc.h \
	src/base/strbuf.c src/base/strbuf.h \
	src/base/vec.h \
	src/base/hashmap.c src/base/hashmap.h \
	src/base/builtin.c src/base/builtin.h \
	src/base/diag.c src/base/diag.h \
	src/base/file.c src/base/file.h \
	src/base/json.c src/base/json.h src/base/json_write.c src/base/json_write.h \
	src/base/dot_write.c src/base/dot_write.h \
	src/base/numfmt.c src/base/numfmt.h \
	src/base/interrupt.c src/base/interrupt.h \
	src/base/shape.c src/base/shape.h \
	src/base/limits.c src/base/limits.h \
	src/base/fmap.c src/base/fmap.h \
	src/base/suggest.c src/base/suggest.h \
	src/base/ddmin.c src/base/ddmin.h \
	src/base/utf8.c src/base/utf8.h
