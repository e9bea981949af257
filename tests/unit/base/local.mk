# tests/unit/base/local.mk — allocation, strings, containers, diagnostics, JSON.
UNIT_TESTS += tests/unit/base/test_base tests/unit/base/test_json tests/unit/base/test_numfmt tests/unit/base/test_ddmin
