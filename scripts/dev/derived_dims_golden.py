#!/usr/bin/env python3
"""derived_dims_golden.py — what torch 2.14 makes of derived dimensions (dynamic_shapes with 2*dx,
dx+1) on tests/fixtures/derived_dims/model.py: each model scripted to NAME.torchscript.txt, and
golden.tsv with, per case, fxsh's dynamic_shapes spelling, the examples, torch.export's range
constraints (its symbol for the root renamed to the Dim's name, which fxsh keeps) and the
signature line of torch.onnx.export(dynamo=True)'s model as onnx.printer prints it. Run from the
checkout in the reference environment:

    ../shared/tools/onnx-env-run python3 scripts/dev/derived_dims_golden.py
"""
import os
import re
import sys

import onnx
import torch
from torch.export import Dim

d = "tests/fixtures/derived_dims"
sys.path.insert(0, d)
import model  # noqa: E402

top = os.getcwd() + "/"
dx = Dim("dx", min=2, max=64)
cases = [
    ("twice", model.Twice, (torch.randn(3, 4), torch.randn(6, 4)), {"x": {0: dx}, "y": {0: 2 * dx}},
     "x:0=Dim('dx',min=2,max=64) y:0=2*dx", "x=f32[3,4] y=f32[6,4]"),
    ("one_more", model.OneMore, (torch.randn(5, 4), torch.randn(4, 4)), {"x": {0: dx + 1}, "y": {0: dx}},
     "x:0=dx+1 y:0=Dim('dx',min=2,max=64)", "x=f32[5,4] y=f32[4,4]"),
]
with open(f"{d}/golden.tsv", "w") as out:
    out.write("case\tmodel\tdynamic_shapes\tinputs\trange_constraints\tonnx_signature\n")
    for name, M, args, ds, spec, inputs in cases:
        stem = M.__name__.lower()
        with open(f"{d}/{stem}.torchscript.txt", "w") as f:
            f.write(str(torch.jit.script(M()).inlined_graph).replace(top, ""))
        ep = torch.export.export(M(), args, dynamic_shapes=ds)
        # torch's symbol for dx: the one in the input that dynamic_shapes gives dx itself
        root_input = [k for k, v in ds.items() if v[0] is dx][0]
        ph = [n for n in ep.graph.nodes if n.op == "placeholder" and n.name == root_input][0]
        sym = str(ph.meta["val"].shape[0])
        rc = "{" + ", ".join(f"{k}: {v}" for k, v in ep.range_constraints.items()) + "}"
        rc = re.sub(r"\b%s\b" % re.escape(sym), "dx", rc)
        p = torch.onnx.export(M(), args, dynamic_shapes=ds, dynamo=True, verbose=False)
        sig = onnx.printer.to_text(p.model_proto.graph).splitlines()[0].strip()
        out.write(f"{name}\t{stem}\t{spec}\t{inputs}\t{rc}\t{sig}\n")
