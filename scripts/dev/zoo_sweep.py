#!/usr/bin/env python3
"""zoo_sweep.py — the model zoos as their libraries enumerate them, through torch.export,
torch.onnx (the peer) and fxsh: every model of torchvision.models.list_models() (classification,
segmentation, detection, video, optical flow, quantized), every transformers model type with a
causal-LM class (a tiny configuration from a generic shrinker) and every entry of
torchaudio.models (presets, and classes with small arguments), with random weights, at small input
sizes with a batch of 2 (torch.export specializes a batch of 1), exported static and with a
dynamic batch (checked at a batch of 3).

Writes the case layout of op_population.py (case.json, program.pt2, io.npz, io2.npz, torch.onnx,
torch.txt), so that scripts/zoo-sweep.sh runs fxsh on it and op_population.py's judge prints one
line per model (torch.export, torch.onnx, fxsh, the reason) and the totals ("op" is the model,
"dtype" its library). Run in the reference environment:

    onnx-env-run python3 scripts/dev/zoo_sweep.py gen OUT [--lib torchvision,transformers,torchaudio]
        [--models RE] [--max-params 60e6] [--modes static,dynamic]

Models above --max-params (random weights, CPU) are recorded as skipped with their size; a model
torch.export cannot capture is recorded with torch's error (the next issue's material). Each
model runs in a forked child under --max-gb of memory and --timeout seconds."""
import argparse
import json
import os
import re
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_common import first_line, flat_tensors  # noqa: E402


# ---- torchvision --------------------------------------------------------------------------------

def torchvision_models(torch):
    """(name, family, make) for every model torchvision lists; make() -> (module, example inputs)."""
    from torchvision import models
    fam = {}
    for f, mod in (("segmentation", models.segmentation), ("detection", models.detection), ("video", models.video),
                   ("optical_flow", models.optical_flow), ("quantization", models.quantization)):
        for n in models.list_models(module=mod):
            fam[n] = f
    for n in models.list_models():
        f = fam.get(n, "classification")

        def make(n=n, f=f):
            kw = {"weights": None}
            if f == "quantization":
                kw["quantize"] = False
            if f in ("segmentation", "detection"):
                kw["weights_backbone"] = None   # no download: random weights throughout
            if n in ("inception_v3", "googlenet"):
                kw["aux_logits"] = False
                kw["init_weights"] = True
            m = models.get_model(n, **kw).eval()
            g = torch.Generator().manual_seed(0)
            if f == "video":
                frames, side = (16, 224) if n.startswith(("mvit", "swin3d", "s3d")) else (8, 112)
                x = torch.randn(2, 3, frames, side, side, generator=g)
                return m, (x,)
            if f == "optical_flow":
                return m, (torch.randn(2, 3, 128, 128, generator=g), torch.randn(2, 3, 128, 128, generator=g))
            if f == "detection":
                return m, ([torch.rand(3, 128, 128, generator=g)],)
            side = 224 if re.search(r"(vit|swin|maxvit|regnet_y_128|inception|googlenet)", n) else 64
            if n.endswith("inception_v3"):
                side = 299
            return m, (torch.randn(2, 3, side, side, generator=g),)
        yield n, f, make


# ---- transformers ---------------------------------------------------------------------------------

SHRINK = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
          "num_key_value_heads": 1, "n_embd": 32, "n_layer": 1, "n_head": 2, "d_model": 32, "n_positions": 64,
          "max_position_embeddings": 64, "vocab_size": 128, "head_dim": 16, "num_layers": 1, "ffn_dim": 64,
          "d_ff": 64, "num_heads": 2, "encoder_layers": 1, "decoder_layers": 1, "num_experts": 2,
          "num_local_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 32}


def transformers_models(torch):
    """(model type, "causal_lm", make) for every config type with an AutoModelForCausalLM class."""
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    for mt in sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES):
        def make(mt=mt):
            cfg = AutoConfig.for_model(mt)
            for k, v in SHRINK.items():
                if hasattr(cfg, k) and isinstance(getattr(cfg, k), int):
                    setattr(cfg, k, v)
            if hasattr(cfg, "use_cache"):
                cfg.use_cache = False
            torch.manual_seed(0)
            m = AutoModelForCausalLM.from_config(cfg).eval()
            ids = torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(0))
            return m, (ids,)
        yield mt, "causal_lm", make


# ---- torchaudio -----------------------------------------------------------------------------------

def torchaudio_models(torch):
    """(name, family, make) for every entry of torchaudio.models.__all__: a preset or a class with
    small arguments and inputs of its forward; an entry that is not a model of its own (a search
    wrapper, a result type, a generic factory whose presets are listed) makes make() raise why."""
    import torchaudio.models as tm
    g = lambda: torch.Generator().manual_seed(0)
    wave = lambda *shape: torch.randn(*shape, generator=g())
    lengths = lambda *v: torch.tensor(v, dtype=torch.int64)
    tokens = lambda *shape: torch.randint(1, 40, shape, generator=g())
    speech = (wave(2, 4000),)
    inputs = {
        "Wav2Letter": (lambda: tm.Wav2Letter(num_classes=40, input_type="waveform", num_features=1), (wave(2, 1, 4000),)),
        "WaveRNN": (lambda: tm.WaveRNN(upsample_scales=[5, 5, 8], n_classes=256, hop_length=200),
                    (wave(2, 1, 1200), wave(2, 1, 128, 10))),
        "ConvTasNet": (lambda: tm.ConvTasNet(), (wave(2, 1, 4000),)),
        "conv_tasnet_base": (lambda: tm.conv_tasnet_base(), (wave(2, 1, 4000),)),
        "DeepSpeech": (lambda: tm.DeepSpeech(n_feature=40), (wave(2, 1, 50, 40),)),
        "Tacotron2": (lambda: tm.Tacotron2(), (tokens(2, 10), lengths(10, 7), wave(2, 80, 20), lengths(20, 15))),
        "Conformer": (lambda: tm.Conformer(input_dim=80, num_heads=4, ffn_dim=128, num_layers=2,
                                           depthwise_conv_kernel_size=31), (wave(2, 20, 80), lengths(20, 15))),
        "Emformer": (lambda: tm.Emformer(input_dim=80, num_heads=4, ffn_dim=128, num_layers=2, segment_length=4,
                                         right_context_length=1), (wave(2, 21, 80), lengths(21, 16))),
        "emformer_rnnt_base": (lambda: tm.emformer_rnnt_base(num_symbols=128),
                               (wave(2, 20, 80), lengths(20, 16), tokens(2, 5), lengths(5, 3))),
        "HDemucs": (lambda: tm.HDemucs(sources=["bass", "drums"], channels=8, nfft=1024, depth=5),
                    (wave(2, 2, 16384),)),
        "hdemucs_low": (lambda: tm.hdemucs_low(sources=["bass", "drums"]), (wave(2, 2, 16384),)),
        "hdemucs_medium": (lambda: tm.hdemucs_medium(sources=["bass", "drums"]), (wave(2, 2, 16384),)),
        "hdemucs_high": (lambda: tm.hdemucs_high(sources=["bass", "drums"]), (wave(2, 2, 16384),)),
        "squim_objective_base": (lambda: tm.squim_objective_base(), (wave(2, 16000),)),
        "squim_subjective_base": (lambda: tm.squim_subjective_base(), (wave(2, 16000), wave(2, 16000))),
    }
    for n in ("wav2vec2_base", "wav2vec2_large", "wav2vec2_large_lv60k", "hubert_base", "hubert_large",
              "wavlm_base", "wavlm_large", "wav2vec2_xlsr_300m"):
        inputs[n] = (lambda n=n: getattr(tm, n)(), speech)
    not_models = {
        "Hypothesis": "a result type of RNNTBeamSearch, not a model",
        "RNNTBeamSearch": "a beam search around an RNNT (its model is emformer_rnnt_base)",
        "Wav2Vec2Model": "built from components by its presets (wav2vec2_*, hubert_*, wavlm_*)",
        "HuBERTPretrainModel": "a pretraining model (forward takes labels); its encoder is hubert_*",
        "RNNT": "built from components by emformer_rnnt_base",
        "SquimObjective": "built from components by squim_objective_base",
        "SquimSubjective": "built from components by squim_subjective_base",
        "hubert_xlarge": "about 1B parameters: not built on this machine (over --max-params)",
        "wav2vec2_xlsr_1b": "about 1B parameters: not built on this machine (over --max-params)",
        "wav2vec2_xlsr_2b": "about 2B parameters: not built on this machine (over --max-params)",
    }
    for n in tm.__all__:
        if n in inputs:
            build, args = inputs[n]

            def make(build=build, args=args):
                torch.manual_seed(0)
                return build().eval(), args
        else:
            why = not_models.get(n) or ("a generic factory: its presets are the entries above" if n.endswith("_model")
                                        else "a pretraining model (forward takes labels)" if "pretrain" in n
                                        else "no inputs known for it here")

            def make(why=why):
                raise RuntimeError(why)
        yield n, "audio", make


# ---- one case ---------------------------------------------------------------------------------------

def second_batch(inputs, torch):
    """The example inputs at batch 3 (the first dim of every tensor input)."""
    out = []
    for x in inputs:
        if isinstance(x, torch.Tensor) and x.dim() >= 1:
            reps = [3] + [1] * (x.dim() - 1)
            out.append(x[:1].repeat(*reps) + (0 if not x.dtype.is_floating_point else 0.01 * torch.arange(3).view(
                [3] + [1] * (x.dim() - 1)).to(x.dtype)))
        else:
            out.append(x)
    return tuple(out)


def one(name, lib, family, make, mode, d, args, torch, np, onnx):
    info = {"op": name, "dtype": lib, "mode": mode, "family": family, "status": {}}
    st = info["status"]
    m, inputs = make()
    nparams = sum(p.numel() for p in m.parameters())
    info["params"] = nparams
    if nparams > args.max_params:
        st["skip"] = "%.0fM parameters (over --max-params)" % (nparams / 1e6)
        return info
    tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
    if len(tensors) != len(inputs):
        st["torch_export"] = "failed: list inputs (detection models take a list of images)"
    with torch.no_grad():
        outs = flat_tensors(m(*inputs), torch, False)
    os.makedirs(d, exist_ok=True)
    np.savez(os.path.join(d, "io.npz"), **{"input_%d" % i: t.numpy() for i, t in enumerate(tensors)},
             **{"output_%d" % i: o.detach().numpy() for i, o in enumerate(outs)})
    dyn = None
    if mode == "dynamic" and len(tensors) != len(inputs):
        st["skip"] = "dynamic batch: the model takes a list of images"
        return info
    if mode == "dynamic":
        from torch.export import Dim
        b = Dim("batch", min=1, max=64)
        dyn = tuple({0: b} for _ in inputs)
    try:
        ep = torch.export.export(m, tuple(inputs), dynamic_shapes=dyn, strict=False)
        torch.export.save(ep, os.path.join(d, "program.pt2"))
        st["torch_export"] = "ok"
    except Exception as e:
        st["torch_export"] = "failed: " + first_line(e)
        return info
    if mode == "dynamic":
        ins2 = second_batch(inputs, torch)
        try:
            with torch.no_grad():
                outs2 = flat_tensors(m(*ins2), torch, False)
            np.savez(os.path.join(d, "io2.npz"), **{"input_%d" % i: t.numpy() for i, t in enumerate(ins2)},
                     **{"output_%d" % i: o.detach().numpy() for i, o in enumerate(outs2)})
        except Exception as e:
            st["second_size"] = "skipped: " + first_line(e)
    try:
        p = torch.onnx.export(ep, tuple(inputs), dynamo=True, verbose=False)
        p.save(os.path.join(d, "torch.onnx"))
        with open(os.path.join(d, "torch.txt"), "w") as f:
            f.write(onnx.printer.to_text(p.model_proto))
        st["torch_onnx"] = "ok"
    except Exception as e:
        st["torch_onnx"] = "failed: " + first_line(e)
    return info


def isolated(fn, args):
    """fn() in a forked child under a memory limit and a time limit (a model that needs too much
    must not take the sweep, or the machine, down with it): its result dict, or {"error": why}."""
    import resource
    import signal
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            lim = int(args.max_gb * (1 << 30))
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
            signal.alarm(int(args.timeout))
            try:
                out = fn()
            except MemoryError:
                out = {"error": "over --max-gb %g GiB of memory" % args.max_gb}
            except Exception as e:
                out = {"error": first_line(e)}
            data = json.dumps(out).encode()
        except BaseException as e:   # the alarm, or anything else: reported, never a hang
            data = json.dumps({"error": first_line(e)}).encode()
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        why = "killed by signal %d" % os.WTERMSIG(status) if os.WIFSIGNALED(status) else "no result"
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
            why = "over --timeout %g s" % args.timeout
        return {"error": why}
    return json.loads(data)


def gen(args):
    import logging
    import warnings
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    import numpy as np
    import onnx
    import torch
    rx = re.compile(args.models) if args.models else None
    sources = {"torchvision": torchvision_models, "transformers": transformers_models, "torchaudio": torchaudio_models}
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    for lib in args.lib.split(","):
        try:
            entries = list(sources[lib](torch))
        except Exception as e:
            print("zoo: %s: cannot enumerate: %s" % (lib, first_line(e)), file=sys.stderr)
            continue
        for name, family, make in entries:
            if rx and not rx.search(name):
                continue
            for mode in args.modes.split(","):
                case = "%s__%s%s" % (lib, name, "__dyn" if mode == "dynamic" else "")
                d = os.path.join(args.out, case)
                if os.path.exists(os.path.join(d, "case.json")) and not args.force:
                    continue
                t1 = time.time()
                info = isolated(lambda: one(name, lib, family, make, mode, d, args, torch, np, onnx), args)
                if info is None or "status" not in info:
                    info = {"op": name, "dtype": lib, "mode": mode, "family": family,
                            "status": {"model": "failed: " + (info or {}).get("error", "?")}}
                info["case"] = case
                info["seconds"] = round(time.time() - t1, 1)
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, "case.json"), "w") as f:
                    json.dump(info, f, indent=1)
                print("zoo: %-60s %5.1f s %s" % (case, info["seconds"], json.dumps(info["status"])[:160]), file=sys.stderr)
    print("zoo: done in %.0f s" % (time.time() - t0), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out")
    g.add_argument("--lib", default="torchvision,transformers")
    g.add_argument("--models", help="regular expression over model names")
    g.add_argument("--max-params", type=float, default=60e6)
    g.add_argument("--modes", default="static,dynamic")
    g.add_argument("--force", action="store_true")
    g.add_argument("--max-gb", type=float, default=6, help="memory limit of one model's run")
    g.add_argument("--timeout", type=float, default=900, help="seconds one model's run may take")
    args = ap.parse_args()
    gen(args)


if __name__ == "__main__":
    main()
