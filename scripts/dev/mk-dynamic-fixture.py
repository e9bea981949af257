#!/usr/bin/env python3
"""mk-dynamic-fixture.py — a model fixture exported with its dynamic_shapes() (torch-case.py exports
static shapes only): program.pt2 and io.npz (input_N, eager's output_N) beside model.py. Run in the
reference environment:

    ../shared/tools/onnx-env-run python3 scripts/dev/mk-dynamic-fixture.py tests/fixtures/models/NAME
"""
import importlib.util
import os
import sys

import numpy as np
import torch

d = sys.argv[1]
spec = importlib.util.spec_from_file_location("model", os.path.join(d, "model.py"))
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
model, args = m.make_model(), m.example_inputs()
ep = torch.export.export(model, args, dynamic_shapes=m.dynamic_shapes())
torch.export.save(ep, os.path.join(d, "program.pt2"))
with torch.no_grad():
    outs = model(*args)
outs = outs if isinstance(outs, (tuple, list)) else (outs,)
np.savez(os.path.join(d, "io.npz"), **{f"input_{i}": a.numpy() for i, a in enumerate(args)},
         **{f"output_{i}": o.numpy() for i, o in enumerate(outs)})
print(ep.graph_signature, file=sys.stderr)
