# tests/local.mk — cmocka unit tests, transcript tests, corpus conformance.
