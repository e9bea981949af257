# src/optimize/local.mk — the ONNX optimizer: constant folding, dead code, inlining, deduplication.
libfxsh_a_SOURCES += src/optimize/optimize.c src/optimize/optimize.h
