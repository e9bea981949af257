#!/usr/bin/env python3
"""torchlib_functions_fixture.py - tests/fixtures/translate/torchlib_functions: a model that calls
torchlib functions (not trace_only) more than once, saved with torch.export.save, and what
torch.onnx makes of it: onnx_unoptimized.txt (dynamo=True, optimize=False) and onnx_dynamo.txt
(optimized), printed with onnx.printer.to_text. A developer's tool (run it in the onnx-env
chroot: ../shared/tools/onnx-env-run python3 ...).

    torchlib_functions_fixture.py tests/fixtures/translate/torchlib_functions
"""
import logging, os, sys, warnings
import onnx, torch
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
out = sys.argv[1]
os.makedirs(out, exist_ok=True)


class M(torch.nn.Module):
    # erfc twice (the second call's names get _2), isneginf / isposinf (the same local names),
    # xlogy (a local named like the FX node, xlogy, becomes xlogy_2)
    def forward(self, x, y):
        a = torch.special.erfc(x)
        b = torch.special.erfc(y)
        return torch.isneginf(a * b), torch.isposinf(a - b), torch.xlogy(a, b)


ep = torch.export.export(M(), (torch.randn(3, 4), torch.rand(3, 4)))
torch.export.save(ep, os.path.join(out, "program.pt2"))
p = torch.onnx.export(ep, dynamo=True, optimize=False, verbose=False)
open(os.path.join(out, "onnx_unoptimized.txt"), "w").write(onnx.printer.to_text(p.model_proto))
p = torch.onnx.export(ep, dynamo=True, verbose=False)
open(os.path.join(out, "onnx_dynamo.txt"), "w").write(onnx.printer.to_text(p.model_proto))
