# src/fx/local.mk — files of src/fx (see DESIGN.md).
