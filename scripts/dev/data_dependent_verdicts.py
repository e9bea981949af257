#!/usr/bin/env python3
"""data_dependent_verdicts.py — torch.export's verdicts on tests/fixtures/data_dependent/model.py
(int() / float() of a tensor, .item(), nonzero, boolean masks): each model scripted to NAME.torchscript.txt (paths made
relative to the checkout) and verdicts.tsv (name, "ok" or the exception's type, the message's
first line); for a model torch exports, NAME.io.npz (inputs input_N, eager's outputs output_N)
and, where torch.onnx.export(dynamo=True) succeeds, NAME.onnx_dynamo.txt (onnx.printer.to_text). Run from the checkout in the reference environment:

    ../shared/tools/onnx-env-run python3 scripts/dev/data_dependent_verdicts.py
"""
import os
import sys

import numpy as np
import onnx
import torch

d = "tests/fixtures/data_dependent"
sys.path.insert(0, d)
import model  # noqa: E402

top = os.getcwd() + "/"
torch.manual_seed(0)
args = (torch.randn(2, 8), torch.tensor([5, 3]))
cases = (("int_of_tensor", model.IntOfTensor), ("int_slice", model.IntSlice), ("float_of_tensor", model.FloatOfTensor), ("item_scalar", model.ItemScalar),
         ("item_slice", model.ItemSlice), ("item_checked", model.ItemChecked), ("nonzero_sum", model.NonzeroSum),
         ("mask_index", model.MaskIndex), ("mask_mean", model.MaskMean), ("masked_select", model.MaskedSelect))
with open(f"{d}/verdicts.tsv", "w") as v:
    v.write("model\toutcome\tmessage\n")
    for name, M in cases:
        with open(f"{d}/{name}.torchscript.txt", "w") as f:
            f.write(str(torch.jit.script(M()).inlined_graph).replace(top, ""))
        try:
            torch.export.export(M(), args)
        except Exception as e:
            v.write(f"{name}\t{type(e).__name__}\t{str(e).splitlines()[0]}\n")
            continue
        v.write(f"{name}\tok\t\n")
        out = M()(*args)
        np.savez(f"{d}/{name}.io.npz", input_0=args[0].numpy(), input_1=args[1].numpy(), output_0=out.numpy())
        try:   # the peer's model, when torch.onnx makes one
            p = torch.onnx.export(M(), args, dynamo=True, verbose=False)
            with open(f"{d}/{name}.onnx_dynamo.txt", "w") as f:
                f.write(onnx.printer.to_text(p.model_proto))
        except Exception as e:
            print(f"{name}: torch.onnx fails: {type(e).__name__}", file=sys.stderr)
