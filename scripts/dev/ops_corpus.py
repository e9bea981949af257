#!/usr/bin/env python3
"""ops_corpus.py - judge fxsh's exports of the OpInfo one-op corpus with the real tools.

For every case folder in OUT (made by scripts/ops-corpus.sh: fxsh.onnx, fxsh.txt, status), runs
onnx.checker.check_model(full_check=True) and ONNX Runtime on the case's io.npz inputs, compares
with the eager outputs (atol 1e-4, rtol 1e-3, NaN = NaN, as the corpus's torch_ort), and compares
fxsh's printed model with torch's onnx_dynamo.txt (producer lines aside). Prints one line per case
and the totals. Runs inside the onnx-env chroot (scripts/ops-corpus.sh calls it).

    ops_corpus.py CORPUS_OPS OUT
"""
import json, os, sys
import numpy as np
import onnx
import onnxruntime as ort

ops, out = sys.argv[1], sys.argv[2]
ort.set_default_logger_severity(3)

def same_text(a, b):
    # fxsh.txt holds export's progress lines first: the model starts at its "<" header
    a = a[a.find("\n<") + 1:] if not a.startswith("<") else a
    strip = lambda s: [l for l in s.splitlines() if not l.strip().startswith(("producer_name", "producer_version"))]
    return strip(a) == strip(b)

tot = {}
def count(k): tot[k] = tot.get(k, 0) + 1
rows = []
for case in sorted(os.listdir(out)):
    d = os.path.join(out, case)
    st = open(os.path.join(d, "status")).read().strip()
    cj = json.load(open(os.path.join(ops, case, "case.json")))
    group = "match" if cj["status"].get("torch_ort") == "match" else "other"
    count(group)
    if st != "ok":
        count(group + ":fxsh-failed"); rows.append((case, group, "fxsh: " + st)); continue
    m = os.path.join(d, "fxsh.onnx")
    try:
        onnx.checker.check_model(onnx.load(m), full_check=True)
    except Exception as e:
        count(group + ":invalid"); rows.append((case, group, "checker: " + str(e).splitlines()[0][:150])); continue
    io = np.load(os.path.join(ops, case, "io.npz"))
    try:
        sess = ort.InferenceSession(m, providers=["CPUExecutionProvider"])
        feeds = {}
        for i, inp in enumerate(sess.get_inputs()):
            feeds[inp.name] = io["input_%d" % i]
        got = sess.run(None, feeds)
    except Exception as e:
        count(group + ":ort-error"); rows.append((case, group, "ort: " + str(e).splitlines()[0][:150])); continue
    want = [io[k] for k in sorted((k for k in io.files if k.startswith("output_")), key=lambda k: int(k[7:]))]
    ok = len(got) == len(want)
    why = "" if ok else "%d outputs, eager has %d" % (len(got), len(want))
    for g, w in zip(got, want):
        g = np.asarray(g)
        if w.dtype.kind == "c":   # torch.onnx's form of a complex tensor: real and imaginary in a last dim of 2
            w = np.stack([w.real, w.imag], -1)
        if g.shape != w.shape:
            ok, why = False, "shape %s vs %s" % (g.shape, w.shape); break
        if w.dtype.kind in "fc":
            if not np.allclose(g.astype(np.float64), w.astype(np.float64), atol=1e-4, rtol=1e-3, equal_nan=True):
                ok, why = False, "values differ (max abs %.3g)" % np.nanmax(np.abs(g.astype(np.float64) - w)); break
        elif not np.array_equal(g, w):
            ok, why = False, "values differ"; break
    if not ok:
        count(group + ":wrong"); rows.append((case, group, "numbers: " + why)); continue
    count(group + ":match")
    t = os.path.join(ops, case, "onnx_dynamo.txt")
    if os.path.exists(t) and same_text(open(os.path.join(d, "fxsh.txt")).read(), open(t).read()):
        count(group + ":identical")
    rows.append((case, group, "ok"))
for r in rows:
    print("%-40s %-6s %s" % r)
print(json.dumps(tot, sort_keys=True))
