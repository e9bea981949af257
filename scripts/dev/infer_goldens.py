#!/usr/bin/env python3
"""infer_goldens.py - expected outputs for tests/fixtures/infer: each model of models.txt through
onnx.shape_inference.infer_shapes (strict), printed with onnx.printer.to_text, into expected.txt.
A developer's tool (run it in the onnx-env chroot: ../shared/tools/onnx-env-run python3 ...).

    infer_goldens.py tests/fixtures/infer
"""
import os, sys
import onnx, onnx.parser, onnx.printer, onnx.shape_inference

d = sys.argv[1]
out = []
for block in open(os.path.join(d, "models.txt")).read().split("=== ")[1:]:
    name, text = block.split("\n", 1)
    m = onnx.parser.parse_model(text)
    inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    out.append("=== " + name.strip() + "\n" + onnx.printer.to_text(inferred.graph) + "\n")
open(os.path.join(d, "expected.txt"), "w").write("".join(out))
