# tests/unit/tables/local.mk — the op registry: schemas, `when:` conditions, lowering templates.
UNIT_TESTS += tests/unit/tables/test_ops_registry
tests_unit_tables_test_ops_registry_CPPFLAGS = $(TEST_CPPFLAGS)
UNIT_TESTS += tests/unit/tables/test_tables
tests_unit_tables_test_tables_CPPFLAGS = $(TEST_CPPFLAGS)
UNIT_TESTS += tests/unit/tables/test_aten_schemas
tests_unit_tables_test_aten_schemas_CPPFLAGS = $(TEST_CPPFLAGS)
