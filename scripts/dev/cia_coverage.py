#!/usr/bin/env python3
"""cia_coverage.py — which ATen ops torch decomposes at run_decompositions() fxsh has a rule for:
every functional overload with a CompositeImplicitAutograd kernel in torch's dispatcher (what a
torch.export program keeps and run_decompositions() takes apart), and every entry of
torch.export.default_decompositions(), against fxsh's decomposition targets
(share/fxsh/decompose/*.yaml) and lowerings (share/fxsh/translate/*.yaml).

Two steps, as the dispatcher lives in the reference environment and fxsh's tables in the tree:
    onnx-env-run python3 scripts/dev/cia_coverage.py list > ops.txt     (reference environment)
    python3 scripts/dev/cia_coverage.py compare ops.txt [SHARE_DIR]     (host; SHARE_DIR share/fxsh)
compare prints the ops with no rule, then per source the covered fraction.
A rule counts when its target names the overload (its `when:` may still not hold for a case)."""
import glob
import os
import re
import sys


def relevant(op, ov):
    """An overload an inference program can hold: not in-place (functionalized first), not a
    backward op, not an out= or named-tensor form, not a test / backend helper."""
    if op.endswith("_") or "backward" in op or op.startswith(("_test", "_cufft", "_validate", "fbgemm", "_sparse",
                                                               "sparse_", "to_sparse", "quantized_", "_nnpack")):
        return False
    return not (ov.endswith("out") or "_out" in ov or ov in ("output", "grad_input", "names") or "dimname" in ov.lower())


def list_ops():
    import torch
    out = set()
    for name in torch._C._dispatch_get_all_op_names():
        if not name.startswith("aten::"):
            continue
        op, _, ov = name[6:].partition(".")
        if relevant(op, ov) and torch._C._dispatch_has_kernel_for_dispatch_key(name, "CompositeImplicitAutograd"):
            out.add(("cia", "aten.%s.%s" % (op, ov or "default")))
    for k in torch.export.default_decompositions():
        parts = str(k).split(".")
        if parts[0] == "aten" and relevant(parts[1], parts[2] if len(parts) > 2 else "default"):
            out.add(("table", "aten.%s.%s" % (parts[1], parts[2] if len(parts) > 2 else "default")))
    for src, op in sorted(out):
        print(src, op)


def compare(path, share):
    have = set()
    for f in glob.glob(os.path.join(share, "decompose", "*.yaml")) + glob.glob(os.path.join(share, "translate", "*.yaml")):
        for m in re.finditer(r"target:\s*([A-Za-z0-9_.]+)", open(f).read()):
            have.add(m.group(1))
    rows = [l.split() for l in open(path) if l.strip()]
    tot, hit, missing = {}, {}, {}
    for src, op in rows:
        tot[src] = tot.get(src, 0) + 1
        if op in have:
            hit[src] = hit.get(src, 0) + 1
        else:
            missing.setdefault(src, []).append(op)
    for src in sorted(missing):
        print("# %s without a rule (%d):" % (src, len(missing[src])))
        print(" ".join(missing[src]))
    for src in sorted(tot):
        print("%s: %d of %d have a decomposition or a lowering (%.1f%%)" % (
            src, hit.get(src, 0), tot[src], 100.0 * hit.get(src, 0) / tot[src]))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "list":
        list_ops()
    elif len(sys.argv) >= 3 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(__file__), "..", "..", "share", "fxsh"))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
