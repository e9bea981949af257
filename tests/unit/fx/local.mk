# tests/unit/fx/local.mk — the FX IR and its printers.
UNIT_TESTS += tests/unit/fx/test_fx_ir tests/unit/fx/test_fx_print
tests_unit_fx_test_fx_print_CPPFLAGS = $(TEST_CPPFLAGS)
