#!/usr/bin/env python3
"""decode_sweep.py — one decoding step with a key/value cache, for every transformers model type
with a causal-LM class (tiny configurations from zoo_sweep.py's shrinker), in the form ONNX Runtime
GenAI and optimum export: input_ids and each layer's past keys and values in, logits and the
present keys and values out (a DynamicCache built from the inputs), exported by torch.export with
dynamic batch, sequence and past lengths, and by torch.onnx (the peer) with optimum's names.

For each model type OUT/TYPE/ holds program.pt2, torch_onnx.onnx (when torch.onnx exports it),
io.npz (a prefill of 4 tokens after a past of 3, eager's outputs) and case.json (what worked, or
the first line of the error). scripts/decode-sweep.sh then runs fxsh's `verify --decode` on each.
Run in the reference environment:

    onnx-env-run python3 scripts/dev/decode_sweep.py OUT [--models RE] [--timeout S]
"""
import argparse
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_common import first_line  # noqa: E402
from zoo_sweep import SHRINK, isolated  # noqa: E402


def one(mt, d, torch, np):
    from transformers import AutoConfig, AutoModelForCausalLM
    from transformers.cache_utils import DynamicCache
    from torch.export import Dim
    st = {}
    cfg = AutoConfig.for_model(mt)
    for k, v in SHRINK.items():
        if hasattr(cfg, k) and isinstance(getattr(cfg, k), int):
            setattr(cfg, k, v)
    torch.manual_seed(0)
    m = AutoModelForCausalLM.from_config(cfg).eval()
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 100, (2, 3), generator=g)
    with torch.no_grad():
        first = m(input_ids=ids, use_cache=True, return_dict=True)
    cache = first.past_key_values
    layers = getattr(cache, "layers", None)
    if not isinstance(cache, DynamicCache) or not layers:
        return {"op": mt, "status": {"skip": "its cache is a %s, not a DynamicCache of layers" % type(cache).__name__}}
    past = []
    for layer in layers:   # a config listing more layer types than the shrunk model has: unused
        if getattr(layer, "keys", None) is None:
            break
        past += [layer.keys.detach(), layer.values.detach()]
    n = len(past) // 2
    if not n:
        return {"op": mt, "status": {"skip": "no cache layer holds keys (%s)" % type(layers[0]).__name__}}

    class Step(torch.nn.Module):
        def __init__(s, inner):
            super().__init__()
            s.m = inner

        def forward(s, input_ids, *past_key_values):
            c = DynamicCache()
            for i in range(n):
                c.update(past_key_values[2 * i], past_key_values[2 * i + 1], i)
            out = s.m(input_ids=input_ids, past_key_values=c, use_cache=True, return_dict=True)
            res = [out.logits]
            for i in range(n):
                res += [c.layers[i].keys, c.layers[i].values]
            return tuple(res)

    step = Step(m).eval()
    nxt = torch.randint(0, 100, (2, 4), generator=g)
    args = (nxt, *past)
    batch, seq, plen = Dim("batch", max=64), Dim("seq", min=1, max=32), Dim("past", min=0, max=32)
    kv = {0: batch, 2: plen}
    ds = ({0: batch, 1: seq}, tuple(kv for _ in past))   # forward(input_ids, *pkv): pkv is one input
    os.makedirs(d, exist_ok=True)
    with torch.no_grad():
        outs = step(*args)
    np.savez(os.path.join(d, "io.npz"), **{"input_%d" % i: t.numpy() for i, t in enumerate(args)},
             **{"output_%d" % i: o.detach().numpy() for i, o in enumerate(outs)})
    try:
        ep = torch.export.export(step, args, dynamic_shapes=ds, strict=False)
        torch.export.save(ep, os.path.join(d, "program.pt2"))
        st["torch_export"] = "ok"
    except Exception as e:
        st["torch_export"] = "failed: " + first_line(e)
        return {"op": mt, "layers": n, "status": st}
    names = ["input_ids"] + ["past_key_values.%d.%s" % (i, kv_) for i in range(n) for kv_ in ("key", "value")]
    outn = ["logits"] + ["present.%d.%s" % (i, kv_) for i in range(n) for kv_ in ("key", "value")]
    try:
        p = torch.onnx.export(step, args, dynamic_shapes=ds, input_names=names, output_names=outn, dynamo=True,
                              verbose=False)
        p.save(os.path.join(d, "torch_onnx.onnx"))
        st["torch_onnx"] = "ok"
    except Exception as e:
        st["torch_onnx"] = "failed: " + first_line(e)
    return {"op": mt, "layers": n, "status": st}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--models", help="regular expression over model types")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--max-gb", type=float, default=4)
    args = ap.parse_args()
    import logging
    import warnings
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    import numpy as np
    import torch
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    rx = re.compile(args.models) if args.models else None
    types = sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)
    print("decode: %d causal-LM model types" % len(types), file=sys.stderr)
    for mt in types:
        if rx and not rx.search(mt):
            continue
        d = os.path.join(args.out, mt)
        if os.path.exists(os.path.join(d, "case.json")):
            continue
        t0 = time.time()
        info = isolated(lambda: one(mt, d, torch, np), args)
        if "status" not in info:
            info = {"op": mt, "status": {"model": "failed: " + info.get("error", "?")}}
        info["seconds"] = round(time.time() - t0, 1)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump(info, f, indent=1)
        print("decode: %-28s %5.1f s %s" % (mt, info["seconds"], json.dumps(info["status"])[:150]), file=sys.stderr)


if __name__ == "__main__":
    main()
