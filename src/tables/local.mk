# src/tables/local.mk — the data tables of share/fxsh: op schemas and lowerings, pass tables.
libfxsh_a_SOURCES += \
	src/tables/ops.h src/tables/schema.c src/tables/lowering.c src/tables/lowering_function.c src/tables/registry.c \
	src/tables/pass_tables.h src/tables/pass_tables.c \
	src/tables/tables.h src/tables/tables.c \
	src/tables/yaml_check.c src/tables/yaml_check.h \
	src/tables/aten_schemas.h src/tables/aten_schemas.c

# torch's ATen schemas (scripts/dev/aten_schemas.py generates the file from torch)
atendir = $(pkgdatadir)/aten
dist_aten_DATA = share/fxsh/aten/schemas.txt
