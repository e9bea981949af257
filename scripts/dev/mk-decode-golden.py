#!/usr/bin/env python3
"""mk-decode-golden.py — what eager PyTorch makes of a decoder step fixture over a prefill and N
greedy decoding steps, for `verify --decode N --inputs io.npz` to be checked against: decode_tokens.txt,
one line per step 0..N-1 with the next token of each batch row (the argmax of the last position's
logits; the script refuses a near tie, which rounding could flip). The prefill's inputs are
the fixture's io.npz (input_0 the tokens, then the past keys/values); each step feeds its presents
back as the next past. Run in the reference environment after mk-dynamic-fixture.py:

    ../shared/tools/onnx-env-run python3 scripts/dev/mk-decode-golden.py tests/fixtures/models/NAME 8
"""
import importlib.util
import os
import sys

import numpy as np
import torch

d, steps = sys.argv[1], int(sys.argv[2])
spec = importlib.util.spec_from_file_location("model", os.path.join(d, "model.py"))
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
model = m.make_model()
io = np.load(os.path.join(d, "io.npz"))
args = [torch.from_numpy(io[f"input_{i}"]) for i in range(len([k for k in io.files if k.startswith("input_")]))]
tokens = []
with torch.no_grad():
    for step in range(steps + 1):
        out = model(*args)
        last = out[0][:, -1, :]
        top2 = torch.topk(last, 2, dim=-1).values
        # a near tie would make the greedy token depend on rounding, not on the model
        assert bool((top2[:, 0] - top2[:, 1] > 1e-4).all()), f"step {step}: near tie {top2}"
        if step == steps:
            break
        nxt = last.argmax(-1, keepdim=True).to(args[0].dtype)
        tokens.append(nxt[:, 0].numpy())
        args = [nxt] + list(out[1:])
with open(os.path.join(d, "decode_tokens.txt"), "w") as f:
    for row in tokens:
        f.write(" ".join(str(int(t)) for t in row) + "\n")
