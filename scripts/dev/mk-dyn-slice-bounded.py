# mk-dyn-slice-bounded.py — tests/fixtures/fuzz/pipeline/dyn_slice_bounded.pt2 (run in the reference
# environment: ../shared/tools/onnx-env-run python3 scripts/dev/mk-dyn-slice-bounded.py): a consistent
# program whose slice end is a dynamic size that its range constraint bounds (s27 <= 64), which
# torch records as s27 and a rule without ranges would compute as min(s27, 64).
import torch
from torch.export import Dim
class M(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.register_buffer("pos", torch.arange(64, dtype=torch.float32)[None])
    def forward(s, x):
        return x + s.pos[:, :x.shape[1]]
ep = torch.export.export(M(), (torch.randn(2, 16),), dynamic_shapes={"x": {1: Dim("seq", min=2, max=64)}})
print(ep.graph)
torch.export.save(ep, "tests/fixtures/fuzz/pipeline/dyn_slice_bounded.pt2")
