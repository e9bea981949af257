# src/passes/local.mk — files of src/passes (see DESIGN.md).
