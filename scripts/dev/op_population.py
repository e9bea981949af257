#!/usr/bin/env python3
"""op_population.py — the op population as torch enumerates it: every OpInfo entry, every dtype it
supports, its sample inputs, exported static and with every dimension dynamic; torch.onnx as the
peer, fxsh judged against eager PyTorch with the real onnx checker and ONNX Runtime.

Three steps (scripts/op-population.sh runs all of them; `make op-population` reruns 2 and 3):
  gen OUT [--ops RE] [--samples N] [--dtypes a,b] [--modes static,dynamic] [--shard I/N]
      (reference environment) one folder per case under OUT: case.json (op, dtype, mode, what torch
      did), program.pt2 (torch.export.save), io.npz (inputs input_N, eager outputs output_N), for a
      dynamic export io2.npz at a second size of every dynamic dimension, torch.txt (torch.onnx's
      model as onnx.printer.to_text prints it).
  (host) scripts/op-population.sh runs fxsh on each case: fxsh.onnx, fxsh.txt, fxsh.status.
  judge OUT [--tsv FILE]
      (reference environment) onnx.checker.check_model(full_check=True) and ONNX Runtime against
      eager for torch's and fxsh's models; one line per case, then totals per dtype and mode among
      the cases torch.onnx gets right, and the per-op table (--tsv).

Tolerances: float32/float64 atol 1e-4 rtol 1e-3 (the corpus's), float16/bfloat16 atol 1e-2 rtol
1e-2; NaN equals NaN; integer and bool outputs exactly."""
import argparse
import json
import os
import re
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_common import first_line, flat_tensors  # noqa: E402

DTYPES = ["float32", "float16", "bfloat16", "float64", "int64", "int32", "int8", "uint8", "bool"]


def tol(dtype):
    return (1e-2, 1e-2) if dtype in ("float16", "bfloat16") else (1e-4, 1e-3)


# ---- gen ---------------------------------------------------------------------------------------

def gen(args):
    import numpy as np
    import torch
    from torch.export import Dim
    from torch.testing._internal.common_methods_invocations import op_db
    import onnx
    import onnxruntime as ort
    ort.set_default_logger_severity(3)
    import warnings
    warnings.filterwarnings("ignore")
    import logging
    logging.disable(logging.WARNING)

    want = [d for d in args.dtypes.split(",") if d]
    modes = [m for m in args.modes.split(",") if m]
    rx = re.compile(args.ops) if args.ops else None
    shard_i, shard_n = (int(x) for x in args.shard.split("/"))
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    ncase = 0
    for k, op in enumerate(op_db):
        name = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
        if rx and not rx.search(name):
            continue
        if k % shard_n != shard_i:
            continue
        try:
            supported = {str(d).replace("torch.", "") for d in op.supported_dtypes("cpu")}
        except Exception:
            supported = set()
        for dtype in want:
            if dtype not in supported:
                continue
            try:
                samples = list(_take(op.sample_inputs("cpu", getattr(torch, dtype), requires_grad=False), args.samples))
            except Exception as e:
                _write_case(args.out, "%s__%s__error" % (name, dtype), {"op": name, "dtype": dtype, "mode": "static",
                            "status": {"samples": "failed: " + first_line(e)}})
                continue
            for si, s in enumerate(samples):
                for mode in modes:
                    case = "%s__%s__%d%s" % (name, dtype, si, "__dyn" if mode == "dynamic" else "")
                    d = os.path.join(args.out, case)
                    if os.path.exists(os.path.join(d, "case.json")) and not args.force:
                        continue
                    ncase += 1
                    try:
                        info = _one_case(op, name, dtype, mode, s, d, np, torch, Dim, onnx, ort)
                    except Exception as e:   # the harness itself: recorded, never fatal
                        info = {"op": name, "dtype": dtype, "mode": mode, "status": {"harness": first_line(e)}}
                    _write_case(args.out, case, info)
    print("gen: %d cases in %.0f s" % (ncase, time.time() - t0), file=sys.stderr)


def _take(it, n):
    for i, x in enumerate(it):
        if i >= n:
            break
        yield x


def _write_case(out, case, info):
    d = os.path.join(out, case)
    os.makedirs(d, exist_ok=True)
    info["case"] = case
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(info, f, indent=1)


def _one_case(op, name, dtype, mode, s, d, np, torch, Dim, onnx, ort):
    info = {"op": name, "aten_name": op.aten_name, "dtype": dtype, "mode": mode, "status": {}}
    st = info["status"]
    tensors = []

    def lift(x):   # every tensor argument (also inside lists) becomes a graph input
        if isinstance(x, torch.Tensor):
            tensors.append(x)
            return ("<input>", len(tensors) - 1)
        if isinstance(x, (list, tuple)):
            return type(x)(lift(e) for e in x)
        if isinstance(x, dict):
            return {k: lift(v) for k, v in x.items()}
        return x

    spec = lift((s.input, tuple(s.args), dict(s.kwargs)))
    if any(t.layout != torch.strided or t.is_complex() for t in tensors):
        st["skip"] = "sparse or complex input"
        return info
    fn = op.op

    def place(x, ts):
        if isinstance(x, tuple) and len(x) == 2 and x[0] == "<input>":
            return ts[x[1]]
        if isinstance(x, (list, tuple)):
            return type(x)(place(e, ts) for e in x)
        if isinstance(x, dict):
            return {k: place(v, ts) for k, v in x.items()}
        return x

    class M(torch.nn.Module):
        def forward(self, *ts):
            inp, a, kw = place(spec, ts)
            return fn(inp, *a, **kw)

    m = M().eval()
    inputs = tuple(t.detach().clone() for t in tensors)
    info["inputs"] = [{"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape)} for t in inputs]
    info["args"] = repr(spec)[:500]
    with torch.no_grad():
        outs = flat_tensors(m(*inputs), torch, True)
    if outs is None:
        st["skip"] = "an output is not a tensor"
        return info
    if any(o.is_complex() for o in outs):
        st["skip"] = "complex output"
        return info
    os.makedirs(d, exist_ok=True)
    _save_io(os.path.join(d, "io.npz"), inputs, outs, np, torch)
    dyn = None
    if mode == "dynamic":
        # one entry for forward's *ts, holding a spec per tensor
        dyn = (tuple({i: Dim.AUTO for i in range(t.dim())} or None for t in inputs),)
    try:
        ep = torch.export.export(m, inputs, dynamic_shapes=dyn, strict=False)
        torch.export.save(ep, os.path.join(d, "program.pt2"))
        st["torch_export"] = "ok"
    except Exception as e:
        st["torch_export"] = "failed: " + first_line(e)
        return info
    if mode == "dynamic":
        info["dynamic_dims"] = _second_size(ep, m, inputs, d, np, torch, info)
    try:
        p = torch.onnx.export(ep, inputs, dynamo=True, verbose=False)
        p.save(os.path.join(d, "torch.onnx"))
        with open(os.path.join(d, "torch.txt"), "w") as f:
            f.write(onnx.printer.to_text(p.model_proto))
        st["torch_onnx"] = "ok"
    except Exception as e:
        st["torch_onnx"] = "failed: " + first_line(e)
    return info


def _npy(t, np, torch):
    if t.dtype == torch.bfloat16:
        import ml_dtypes
        return t.detach().float().numpy().astype(ml_dtypes.bfloat16)
    return t.detach().contiguous().numpy()


def _save_io(path, inputs, outs, np, torch):
    arrays = {"input_%d" % i: _npy(t, np, torch) for i, t in enumerate(inputs)}
    arrays.update({"output_%d" % i: _npy(t, np, torch) for i, t in enumerate(outs)})
    # bfloat16 is not a numpy dtype: np.savez keeps ml_dtypes' void form; the judge restores it
    np.savez(path, **arrays)


def _second_size(ep, m, inputs, d, np, torch, info):
    """Inputs at a second size: every symbol of a placeholder's shape one larger (two where the
    range starts above 2), the values drawn like the example's; eager outputs for them. Returns
    the dynamic dims as 'input.dim=symbol'."""
    import sympy
    user = [n for n in ep.graph.nodes if n.op == "placeholder" and n.name in ep.graph_signature.user_inputs]
    sizes, dims = {}, []
    for i, n in enumerate(user):
        val = n.meta.get("val")
        for j, sz in enumerate(getattr(val, "shape", ())):
            if isinstance(sz, torch.SymInt):
                expr = sz.node.expr
                if isinstance(expr, sympy.Symbol):
                    sizes[expr] = inputs[i].shape[j]
                    dims.append("%d.%d=%s" % (i, j, expr))
    if not sizes:
        return dims
    ranges = ep.range_constraints
    new = {}
    for sym, v in sizes.items():
        r = ranges.get(sym)
        try:   # torch's int_oo has no int(); unbounded above
            hi = int(r.upper) if r is not None else 1 << 30
        except Exception:
            hi = 1 << 30
        nv = v + 1 if v + 1 <= hi else v - 1
        new[sym] = nv
    shapes = []
    for i, n in enumerate(user):
        val = n.meta.get("val")
        shp = []
        for j, sz in enumerate(getattr(val, "shape", ())):
            shp.append(int(sz.node.expr.subs(new)) if isinstance(sz, torch.SymInt) else int(sz))
        shapes.append(shp)
    g = torch.Generator().manual_seed(0)
    ins2 = []
    for t, shp in zip(inputs, shapes):
        if t.dtype == torch.bool:
            ins2.append(torch.rand(shp, generator=g) > 0.5)
        elif t.dtype.is_floating_point:
            ins2.append((torch.randn(shp, generator=g) * (t.float().std().nan_to_num(1.0) if t.numel() > 1 else 1.0)).to(t.dtype))
        else:
            lo = int(t.min()) if t.numel() else 0
            hi = int(t.max()) + 1 if t.numel() else 2
            ins2.append(torch.randint(lo, max(hi, lo + 1), shp, generator=g, dtype=t.dtype))
    try:
        with torch.no_grad():
            outs2 = flat_tensors(m(*ins2), torch, True)
        ep.module()(*ins2)   # the program itself must accept the size (guards)
    except Exception as e:
        info["status"]["second_size"] = "skipped: " + first_line(e)
        return dims
    if outs2 is None:
        return dims
    _save_io(os.path.join(d, "io2.npz"), ins2, outs2, np, torch)
    info["second_shapes"] = shapes
    return dims


# ---- judge -------------------------------------------------------------------------------------

def judge(args):
    import numpy as np
    import onnx
    import onnxruntime as ort
    ort.set_default_logger_severity(3)
    rows, per_op = [], {}
    tot = {}

    def count(key):
        tot[key] = tot.get(key, 0) + 1

    for case in sorted(os.listdir(args.out)):
        d = os.path.join(args.out, case)
        try:
            info = json.load(open(os.path.join(d, "case.json")))
        except (OSError, ValueError):
            continue
        st = info.get("status", {})
        dtype, mode, op = info.get("dtype"), info.get("mode"), info.get("op")
        if st.get("torch_export") != "ok":
            continue
        # empty, empty_like, new_empty, ...: eager's values are uninitialized memory; random ops
        # (rand*, randn*, randint*, bernoulli, normal, multinomial, uniform): ONNX's generators are
        # the runtime's own; only the shapes and dtypes of the outputs can be compared
        shapes_only = re.match(r"(new_)?empty|rand(n|int)?(_like)?$|bernoulli|normal$|multinomial|uniform",
                               op or "") is not None
        torch_v = _verdict(os.path.join(d, "torch.onnx"), d, dtype, np, onnx, ort, shapes_only) \
            if st.get("torch_onnx") == "ok" else "failed: " + st.get("torch_onnx", "?")
        fx_status = _read(os.path.join(d, "fxsh.status")) or "not run"
        fx_v = _verdict(os.path.join(d, "fxsh.onnx"), d, dtype, np, onnx, ort, shapes_only) if fx_status == "ok" \
            else "fxsh: " + fx_status
        same = fx_v == "ok" and os.path.exists(os.path.join(d, "torch.txt")) and \
            _same_text(_read(os.path.join(d, "fxsh.txt")), _read(os.path.join(d, "torch.txt")))
        key = "%s/%s" % (dtype, mode)
        group = "torch-ok" if torch_v == "ok" else "torch-not-ok"
        count(key + " " + group)
        if fx_v == "ok":
            count(key + " " + group + " fxsh-ok")
            if same:
                count(key + " " + group + " identical")
        elif fx_v.startswith(("invalid", "wrong")):
            count(key + " " + group + " fxsh-" + fx_v.split(":")[0])
        po = per_op.setdefault(op, {"cases": 0, "torch_ok": 0, "fxsh_ok": 0, "both_ok": 0, "identical": 0, "first": ""})
        po["cases"] += 1
        po["torch_ok"] += torch_v == "ok"
        po["fxsh_ok"] += fx_v == "ok"
        po["both_ok"] += torch_v == "ok" and fx_v == "ok"
        po["identical"] += same
        if fx_v != "ok" and not po["first"]:
            po["first"] = "%s: %s" % (case, fx_v)
        rows.append((case, "torch " + ("ok" if torch_v == "ok" else "no"), fx_v[:160]))
    for r in rows:
        print("%-50s %-9s %s" % r)
    print()
    print("%-22s %8s %8s %8s %10s %8s %8s | %8s %8s" % ("dtype/mode", "torch-ok", "fxsh-ok", "%", "identical", "invalid",
                                                         "wrong", "other", "fxsh-ok"))
    for key in sorted({k.split(" ")[0] for k in tot}):
        a = tot.get(key + " torch-ok", 0)
        b = tot.get(key + " torch-ok fxsh-ok", 0)
        print("%-22s %8d %8d %7.1f%% %10d %8d %8d | %8d %8d" % (
            key, a, b, 100.0 * b / a if a else 0, tot.get(key + " torch-ok identical", 0),
            tot.get(key + " torch-ok fxsh-invalid", 0) + tot.get(key + " torch-not-ok fxsh-invalid", 0),
            tot.get(key + " torch-ok fxsh-wrong", 0) + tot.get(key + " torch-not-ok fxsh-wrong", 0),
            tot.get(key + " torch-not-ok", 0), tot.get(key + " torch-not-ok fxsh-ok", 0)))
    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("op\tcases\ttorch_ok\tfxsh_ok\tboth_ok\tidentical\tfirst_fxsh_failure\n")
            for op in sorted(per_op):
                p = per_op[op]
                f.write("%s\t%d\t%d\t%d\t%d\t%d\t%s\n" % (op, p["cases"], p["torch_ok"], p["fxsh_ok"], p["both_ok"],
                                                        p["identical"], p["first"].replace("\t", " ")))


def _read(p):
    try:
        with open(p) as f:
            return f.read().strip()
    except OSError:
        return ""


def _same_text(a, b):
    a = a[a.find("\n<") + 1:] if not a.startswith("<") else a
    strip = lambda s: [l for l in s.splitlines() if not l.strip().startswith(("producer_name", "producer_version"))]
    return strip(a) == strip(b)


def _load_io(path, np):
    import ml_dtypes
    io = np.load(path)
    out = {}
    for k in io.files:
        a = io[k]
        if a.dtype.kind == "V" and a.dtype.itemsize == 2:   # bfloat16 saved through ml_dtypes
            a = a.view(ml_dtypes.bfloat16)
        out[k] = a
    return out


def _verdict(model, d, dtype, np, onnx, ort, shapes_only=False):
    """'ok', or 'invalid: ...' (checker), 'ort: ...', 'wrong: ...' (against eager)."""
    try:
        onnx.checker.check_model(onnx.load(model), full_check=True)
    except Exception as e:
        return "invalid: " + str(e).strip().splitlines()[0][:150]
    try:
        sess = ort.InferenceSession(_runnable(model, onnx), providers=["CPUExecutionProvider"])
    except Exception as e:
        return "ort: " + str(e).strip().splitlines()[0][:150]
    for io_name in ("io.npz", "io2.npz"):
        p = os.path.join(d, io_name)
        if not os.path.exists(p):
            continue
        io = _load_io(p, np)
        try:
            feeds = {inp.name: _feed(io["input_%d" % i], np) for i, inp in enumerate(sess.get_inputs())}
            got = sess.run(None, feeds)
        except Exception as e:
            return "ort: %s%s" % ("(second size) " if io_name == "io2.npz" else "", str(e).strip().splitlines()[0][:150])
        want = [io[k] for k in sorted((k for k in io if k.startswith("output_")), key=lambda k: int(k[7:]))]
        why = _differ(got, want, dtype, np, shapes_only)
        if why:
            return "wrong: %s%s" % ("(second size) " if io_name == "io2.npz" else "", why)
    return "ok"


def _runnable(path, onnx):
    """The model as ONNX Runtime's Python API can feed and fetch it: numpy has no bfloat16, so a
    bfloat16 graph input or output goes through a Cast from/to float32 (exact both ways) in a copy."""
    from onnx import TensorProto, helper
    m = onnx.load(path)
    g = m.graph
    bf = TensorProto.BFLOAT16
    if not any(v.type.tensor_type.elem_type == bf for v in list(g.input) + list(g.output)):
        return path
    casts = []
    for v in g.input:
        if v.type.tensor_type.elem_type == bf:
            casts.append(helper.make_node("Cast", [v.name + "__f32"], [v.name], to=bf))
            v.name += "__f32"
            v.type.tensor_type.elem_type = TensorProto.FLOAT
    nodes = casts + list(g.node)
    for v in g.output:
        if v.type.tensor_type.elem_type == bf:
            nodes.append(helper.make_node("Cast", [v.name], [v.name + "__f32"], to=TensorProto.FLOAT))
            v.name += "__f32"
            v.type.tensor_type.elem_type = TensorProto.FLOAT
    del g.node[:]
    g.node.extend(nodes)
    return m.SerializeToString()


def _feed(a, np):
    return a.astype(np.float32) if str(a.dtype) == "bfloat16" else a


def _differ(got, want, dtype, np, shapes_only=False):
    if len(got) != len(want):
        return "%d outputs, eager has %d" % (len(got), len(want))
    atol, rtol = tol(dtype)
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        if g.shape != w.shape:
            return "output %d shape %s vs %s" % (i, g.shape, w.shape)
        if shapes_only:
            continue
        if w.dtype.kind in "fV" or str(w.dtype) == "bfloat16":
            gg, ww = g.astype(np.float64), w.astype(np.float64)
            if not np.allclose(gg, ww, atol=atol, rtol=rtol, equal_nan=True):
                return "output %d values differ (max abs %.3g)" % (i, float(np.nanmax(np.abs(gg - ww))))
        elif g.dtype != w.dtype and not (g.dtype.kind == w.dtype.kind):
            return "output %d dtype %s vs %s" % (i, g.dtype, w.dtype)
        elif not np.array_equal(g, w):
            return "output %d values differ" % i
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out")
    g.add_argument("--ops", help="regular expression over OpInfo names (name[.variant])")
    g.add_argument("--samples", type=int, default=8, help="sample inputs per op and dtype")
    g.add_argument("--dtypes", default=",".join(DTYPES))
    g.add_argument("--modes", default="static,dynamic")
    g.add_argument("--shard", default="0/1", help="I/N: every N-th OpInfo entry from the I-th")
    g.add_argument("--force", action="store_true", help="remake cases that exist")
    j = sub.add_parser("judge")
    j.add_argument("out")
    j.add_argument("--tsv", help="write the per-op table here")
    args = ap.parse_args()
    (gen if args.cmd == "gen" else judge)(args)


if __name__ == "__main__":
    main()
