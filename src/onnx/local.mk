# src/onnx/local.mk — files of src/onnx (see DESIGN.md).
