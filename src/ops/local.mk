# src/ops/local.mk — files of src/ops (see DESIGN.md).
