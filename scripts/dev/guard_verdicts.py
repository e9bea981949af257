#!/usr/bin/env python3
"""guard_verdicts.py — torch.export's verdicts on size guards under each kind of dynamic dimension,
for tests/guards.sh: a module `h = fc(x); if COND(x.shape[0]): h * 2 else h - 1` (the corpus's
python_if_shape; tests/fixtures/guards/ holds its TorchScript for each COND) exported with
dynamic_shapes {"x": {0: SPEC}}, example x of shape [4, 3] (and [1, 3], [0, 3]: the 0/1 rule; and
x's dim 1, which the Linear pins to 3). One line per (COND, SPEC, axis, example batch): the outcome,
the range constraint's bounds (VR[lo, hi]) or the error's lines "Not all values ..." / "You marked
...", and torch's suggested fix. A developer's tool, run in the reference environment:

    ../shared/tools/onnx-env-run python3 scripts/dev/guard_verdicts.py > tests/fixtures/guards/verdicts.tsv
"""
import re
import sys

import torch
from torch.export import Dim

CONDS = {  # fixture file -> condition on n = x.shape[0]
    "python_if_shape": lambda n: n > 2,
    "if_lt": lambda n: n < 10,
    "if_eq": lambda n: n == 4,
    "if_ne": lambda n: n != 5,
    "if_ge": lambda n: n >= 0,
}
# the fxsh spelling of each spec, and torch's
SPECS = [
    ("batch", lambda: Dim("batch")),
    ("Dim('batch', min=3)", lambda: Dim("batch", min=3)),
    ("Dim('batch', max=10)", lambda: Dim("batch", max=10)),
    ("Dim('batch', min=3, max=9)", lambda: Dim("batch", min=3, max=9)),
    ("AUTO", lambda: Dim.AUTO),
    ("DYNAMIC", lambda: Dim.DYNAMIC),
]


class M(torch.nn.Module):
    def __init__(self, cond):
        super().__init__()
        self.fc = torch.nn.Linear(3, 3)
        self.cond = cond

    def forward(self, x):
        h = self.fc(x)
        if self.cond(x.shape[0]):
            return h * 2
        return h - 1


print("model\tspec\taxis\tbatch\toutcome\tdetail\tsuggested_fix")
CASES = [(name, cond, spec, make, 0, 4) for name, cond in CONDS.items() for spec, make in SPECS]
CASES += [("python_if_shape", CONDS["python_if_shape"], spec, make, 0, b) for b in (1, 0) for spec, make in SPECS
          if spec in ("batch", "AUTO", "DYNAMIC")]
# x's dim 1 is the Linear's input features: the kernel pins it to 3
CASES += [("python_if_shape", CONDS["python_if_shape"], spec, make, 1, 4) for spec, make in SPECS
          if spec in ("batch", "AUTO", "DYNAMIC")]
for name, cond, spec, make, axis, batch in CASES:
    if True:
        try:
            ep = torch.export.export(M(cond), (torch.randn(batch, 3),), dynamic_shapes={"x": {axis: make()}})
            rc = ep.range_constraints
            detail = ", ".join(str(v) for v in rc.values())
            print("%s\t%s\t%d\t%d\tok\t%s\t" % (name, spec, axis, batch, detail))
        except Exception as e:
            text = str(e)
            what = re.search(r"  - (Not all values.*|You marked .*)|- (Received user-specified .*)", text)
            fix = re.search(r"Suggested fixes:\n  (.*)", text)
            msg = (what.group(1) or what.group(2)).split(" If you're")[0] if what else text.splitlines()[0]
            print("%s\t%s\t%d\t%d\terror\t%s\t%s" % (name, spec, axis, batch, msg, fix.group(1) if fix else ""))
