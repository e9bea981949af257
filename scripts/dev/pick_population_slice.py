#!/usr/bin/env python3
"""pick_population_slice.py — the slice of an op population (scripts/op-population.sh OUT) that
`make check` keeps: for each OpInfo entry, dtype and mode (static / dynamic), the first sample
that torch.onnx exports correctly (judge verdict ok), except bfloat16 (numpy has no bfloat16 for
io.npz) and the empty* ops (uninitialized outputs). Copies program.pt2, io.npz, io2.npz and case.json into DEST/<case>/ and writes
DEST/passing.txt: the cases fxsh passed in OUT's judged run (the floor of tests/op_population.sh).
Plain python3; runs on the host after the judge.

    python3 scripts/dev/pick_population_slice.py OUT [OUT...] --dest tests/fixtures/op_population
        [--dtypes float32,int64,...] [--max-kb 3000]
"""
import argparse
import json
import os
import shutil


def verdicts(out):
    """case -> (torch ok, fxsh ok) from OUT/summary.txt's per-case lines."""
    v = {}
    try:
        lines = open(os.path.join(out, "summary.txt")).read().splitlines()
    except OSError:
        return v
    for line in lines:
        parts = line.split(None, 3)
        if len(parts) >= 4 and parts[1] == "torch":
            v[parts[0]] = (parts[2] == "ok", parts[3].strip() == "ok")
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outs", nargs="+")
    ap.add_argument("--dest", required=True)
    ap.add_argument("--dtypes", default="float32,float16,float64,int64,int32,int8,uint8,bool")
    ap.add_argument("--max-kb", type=int, default=3000, help="stop adding cases past this size")
    args = ap.parse_args()
    want = set(args.dtypes.split(","))
    os.makedirs(args.dest, exist_ok=True)
    seen, passing, total = set(), [], 0
    for out in args.outs:
        v = verdicts(out)
        for case in sorted(v):
            torch_ok, fxsh_ok = v[case]
            src = os.path.join(out, case)
            try:
                info = json.load(open(os.path.join(src, "case.json")))
            except (OSError, ValueError):
                continue
            key = (info.get("op"), info.get("dtype"), info.get("mode"))
            # uninitialized outputs (empty*) cannot be compared by value, which the test does
            if not torch_ok or key in seen or info.get("dtype") not in want or \
                    str(info.get("op", "")).startswith(("empty", "new_empty")):
                continue
            files = [f for f in ("program.pt2", "io.npz", "io2.npz", "case.json") if os.path.exists(os.path.join(src, f))]
            size = sum(os.path.getsize(os.path.join(src, f)) for f in files)
            if total + size > args.max_kb * 1024:
                continue
            seen.add(key)
            total += size
            dst = os.path.join(args.dest, case)
            os.makedirs(dst, exist_ok=True)
            for f in files:
                shutil.copyfile(os.path.join(src, f), os.path.join(dst, f))
            if fxsh_ok:
                passing.append(case)
    with open(os.path.join(args.dest, "passing.txt"), "w") as f:
        f.write("".join(c + "\n" for c in sorted(passing)))
    print("%d cases (%d KB), %d passing" % (len(seen), total // 1024, len(passing)))


if __name__ == "__main__":
    main()
