# src/fx/local.mk — files of src/fx (see DESIGN.md).

# ---- pt2 block (branch pt2): JSON DOM, .pt2 archives, torch.export program loader ----
libfxsh_a_SOURCES += \
	src/base/json.c src/base/json.h

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_json
TESTS += tests/unit/test_json
tests_unit_test_json_SOURCES = tests/unit/test_json.c
tests_unit_test_json_LDADD = libfxsh.a $(FXSH_LIBS) $(CMOCKA_LIBS)
tests_unit_test_json_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
endif
# ---- end pt2 block ----
