#!/usr/bin/env python3
"""pipeline.py — a mutation fuzzer of the whole pipeline at the command line: real torch.export
archives (their JSON members), TorchScript IR, FX text and ONNX models (binary and text) are
mutated and run through fxsh's load + export + save + check. The harnesses under fuzz/ reach one
parser each; this reaches what a user's inconsistent file does to every stage after it.

Oracles, for every mutant:
  1. no crash, no sanitizer report (run it on an ASan/UBSan build to see those), no hang;
  2. a model `save` wrote passes fxsh's own `check` when loaded again in a fresh process, and no
     temporary is left beside it; a failed save leaves no file;
  3. (development, --onnx-check) the models written pass onnx.checker.check_model(full_check=True)
     through ../shared/tools/onnx-env-run, checked in one batch at the end.
Each finding is kept in OUT/findings/<kind>-<n>/ with the input, the command and its output.

    python3 fuzz/pipeline.py --fxsh ./fxsh --seconds 60                 # every kind, 60 s in all
    python3 fuzz/pipeline.py --fxsh build-asan/fxsh --kind pt2 --seconds 3600 --out /tmp/pf
    python3 fuzz/pipeline.py --fxsh ./fxsh --kind ts --onnx-check ../shared/tools/onnx-env-run

SIGTERM or SIGINT ends a run early with its results (the batch check, the counts). Standard
library only. Exit status 1 when a finding was made (2 for bad usage)."""
import argparse
import glob
import io
import json
import os
import random
import resource
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile

KINDS = ("pt2", "ts", "fx", "onnx")
INTERESTING = [0, 1, -1, -2, 2, 3, 7, 255, 256, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 40, 2 ** 62, -(2 ** 62),
               2 ** 63 - 1, -(2 ** 63)]
SANITIZER = re.compile(r"Sanitizer|runtime error:|LeakSanitizer")


# ---- seeds -------------------------------------------------------------------------------------

def io_inputs(case_dir):
    """--input arguments from a corpus case's io.json (name=dtype[shape])."""
    abbr = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64",
            "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8"}
    try:
        with open(os.path.join(case_dir, "io.json")) as f:
            ins = json.load(f)["inputs"]
    except (OSError, ValueError, KeyError):
        return []
    out = []
    for i in ins:
        if i.get("dtype") in abbr and isinstance(i.get("shape"), list) and i.get("name"):
            out.append("--input %s=%s[%s]" % (i["name"], abbr[i["dtype"]], ",".join(str(d) for d in i["shape"])))
    return out


def gather_seeds(corpus, fixtures):
    """kind -> [(path, load options)] from the shared corpus and the test fixtures."""
    seeds = {k: [] for k in KINDS}
    for p in sorted(glob.glob(os.path.join(corpus, "fx", "*", "program.pt2")) +
                    glob.glob(os.path.join(corpus, "ops", "*", "program.pt2")) +
                    glob.glob(os.path.join(fixtures, "models", "*", "program.pt2"))):
        seeds["pt2"].append((p, ""))
    for p in sorted(glob.glob(os.path.join(corpus, "fx", "*", "torchscript.txt"))):
        d = os.path.dirname(p)
        opts = " ".join(io_inputs(d))
        seeds["ts"].append((p, opts))
        if os.path.exists(os.path.join(d, "program.pt2")):   # with its weights, it reaches export
            seeds["ts"].append((p, opts + " --weights " + os.path.join(d, "program.pt2")))
    for name in ("exported.readable.txt", "exported.fx.txt", "torch_level.module.txt", "decomposed.readable.txt",
                 "onnx_decomposed.readable.txt", "torch_level.fx.txt"):
        for p in sorted(glob.glob(os.path.join(corpus, "fx", "*", name))):
            d = os.path.dirname(p)
            opts = " ".join(io_inputs(d))
            if os.path.exists(os.path.join(d, "program.pt2")) and "fx.txt" in name:
                opts += " --weights " + os.path.join(d, "program.pt2")
            seeds["fx"].append((p, opts))
    for p in sorted(glob.glob(os.path.join(corpus, "fx", "*", "onnx_dynamo*.onnx")) +
                    glob.glob(os.path.join(corpus, "fx", "*", "onnx_legacy*.onnx")) +
                    glob.glob(os.path.join(corpus, "onnx_text", "*", "*", "model.onnx")) +
                    glob.glob(os.path.join(corpus, "fx", "*", "onnx_dynamo*.txt"))):
        seeds["onnx"].append((p, ""))
    # the test fixtures too (all there is when the corpus is not beside the tree)
    for p in sorted(glob.glob(os.path.join(fixtures, "**", "*.onnx"), recursive=True)):
        if "/fuzz/" not in p:
            seeds["onnx"].append((p, ""))
    for p in sorted(glob.glob(os.path.join(fixtures, "**", "*torchscript*.txt"), recursive=True)):
        if "/fuzz/" not in p:
            seeds["ts"].append((p, ""))
    return seeds


# ---- mutations ---------------------------------------------------------------------------------

def json_paths(v, path=()):
    """Every (path, value) of a JSON document, containers included."""
    yield path, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from json_paths(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from json_paths(x, path + (i,))


def json_set(doc, path, value):
    for k in path[:-1]:
        doc = doc[k]
    doc[path[-1]] = value


def json_del(doc, path):
    for k in path[:-1]:
        doc = doc[k]
    del doc[path[-1]]


def mutate_json(rng, doc):
    """One to three edits of the kinds a hand-edited or version-skewed file has."""
    for _ in range(rng.randint(1, 3)):
        paths = list(json_paths(doc))
        if len(paths) < 2:
            return doc
        ints = [(p, v) for p, v in paths if isinstance(v, int) and not isinstance(v, bool) and p]
        strs = [(p, v) for p, v in paths if isinstance(v, str) and p]
        lists = [(p, v) for p, v in paths if isinstance(v, list) and v]
        dicts = [(p, v) for p, v in paths if isinstance(v, dict) and v and p]
        op = rng.choice(("int", "int", "int", "str", "list", "dict", "swap"))
        if op == "int" and ints:
            p, v = rng.choice(ints)
            json_set(doc, p, rng.choice(INTERESTING + [v * 2, v + 1, v - 1, -v]))
        elif op == "str" and strs:
            p, v = rng.choice(strs)
            other = rng.choice(strs)[1]
            json_set(doc, p, rng.choice((other, v[:-1], v + "_", "", v.replace("default", "Tensor"))))
        elif op == "list" and lists:
            p, v = rng.choice(lists)
            i = rng.randrange(len(v))
            r = rng.random()
            if r < 0.4:
                del v[i]
            elif r < 0.7:
                v.insert(i, json.loads(json.dumps(v[rng.randrange(len(v))])))
            else:
                j = rng.randrange(len(v))
                v[i], v[j] = v[j], v[i]
        elif op == "dict" and dicts:
            p, v = rng.choice(dicts)
            json_del(doc, p + (rng.choice(list(v.keys())),))
        elif op == "swap" and len(paths) > 3:
            # two values of the same kind exchanged (arguments swapped, sizes of another tensor)
            (p1, v1), (p2, v2) = rng.sample([x for x in paths if x[0]], 2)
            if type(v1) is type(v2) and p1[:len(p2)] != p2 and p2[:len(p1)] != p1:
                json_set(doc, p1, json.loads(json.dumps(v2)))
                json_set(doc, p2, json.loads(json.dumps(v1)))
    return doc


def mutate_pt2(rng, data):
    """A .pt2 with one member edited: the program JSON mostly, else a weights config, else a
    member truncated or a few bytes of a weight changed."""
    zin = zipfile.ZipFile(io.BytesIO(data))
    names = zin.namelist()
    members = {n: zin.read(n) for n in names}
    model = [n for n in names if re.search(r"models/[^/]+\.json$", n)]
    configs = [n for n in names if n.endswith("_config.json")]
    r = rng.random()
    if (r < 0.75 or not configs) and model:
        target = rng.choice(model)
    elif r < 0.9 and configs:
        target = rng.choice(configs)
    else:
        target = rng.choice(names)
        b = bytearray(members[target])
        if b and rng.random() < 0.5:
            del b[rng.randrange(len(b)):]
        elif b:
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        members[target] = bytes(b)
        target = None
    if target:
        try:
            doc = json.loads(members[target])
            members[target] = json.dumps(mutate_json(rng, doc)).encode()
        except ValueError:
            pass
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for n in names:
            z.writestr(zin.getinfo(n), members[n])
    return out.getvalue()


TOKEN = re.compile(r"%[A-Za-z_][\w.]*|-?\d+(?:\.\d+)?(?:e-?\d+)?|[A-Za-z_][\w.]*(?:::[\w.]+)?")


def mutate_text(rng, text):
    """Line and token edits: what a hand-patched graph or a truncated paste looks like."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        if not lines:
            break
        i = rng.randrange(len(lines))
        if op < 0.15:
            del lines[i]
        elif op < 0.25:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif op < 0.35:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op < 0.4:
            del lines[i:]
            if i < len(text) and rng.random() < 0.5 and lines:
                lines[-1] = lines[-1][:rng.randrange(len(lines[-1]) + 1)]
        else:
            toks = list(TOKEN.finditer(lines[i]))
            if not toks:
                continue
            t = rng.choice(toks)
            word = t.group(0)
            if re.fullmatch(r"-?\d+", word):
                new = str(rng.choice(INTERESTING + [int(word) * 2, int(word) + 1, 0]))
            else:
                # another token of the same kind from anywhere in the text: names, ops, types
                pool = [m.group(0) for m in TOKEN.finditer(text) if (m.group(0)[0] == "%") == (word[0] == "%")]
                new = rng.choice(pool) if pool else word
            lines[i] = lines[i][:t.start()] + new + lines[i][t.end():]
    return "\n".join(lines)


def mutate_bytes(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        if not b:
            break
        r = rng.random()
        i = rng.randrange(len(b))
        if r < 0.5:
            b[i] = rng.choice((0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)))
        elif r < 0.7:
            del b[i:i + rng.randint(1, 16)]
        elif r < 0.85:
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            del b[i:]
    return bytes(b)


# ---- running -----------------------------------------------------------------------------------

class Fuzzer:
    def __init__(self, args):
        self.a = args
        self.rng = random.Random(args.seed)
        self.work = tempfile.mkdtemp(prefix="fxsh-pipeline-")
        self.out = args.out
        os.makedirs(os.path.join(self.out, "findings"), exist_ok=True)
        self.saved_dir = os.path.join(self.out, "saved")
        os.makedirs(self.saved_dir, exist_ok=True)
        self.stats = {k: {"runs": 0, "saved": 0, "errors": 0, "findings": 0, "seconds": 0.0, "cpu": 0.0}
                      for k in KINDS}
        self.findings = []
        self.signatures = set()
        self.n_saved_kept = 0

    def run(self, argv, timeout):
        env = dict(os.environ, NO_COLOR="1", LC_ALL="C", FXSH_HISTFILE="/dev/null",
                   ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "detect_leaks=1"),
                   UBSAN_OPTIONS=os.environ.get("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1"))
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=env,
                               stdin=subprocess.DEVNULL)
            return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            return 124, (e.stdout or b"").decode("utf-8", "replace"), (e.stderr or b"").decode("utf-8", "replace")

    def finding(self, kind, why, data, suffix, cmd, out, err):
        # one finding per distinct reason and first error line (numbers blurred)
        first = next((l for l in err.splitlines() if "error" in l or "Sanitizer" in l or "runtime error" in l), "")
        sig = (kind, why, re.sub(r"\d+", "N", re.sub(r"/[^ :]*", "", first))[:160])
        self.stats[kind]["findings"] += 1
        if sig in self.signatures:
            return
        self.signatures.add(sig)
        d = os.path.join(self.out, "findings", "%s-%03d" % (kind, len(self.findings)))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "input" + suffix), "wb") as f:
            f.write(data)
        with open(os.path.join(d, "README.txt"), "w") as f:
            f.write("why: %s\ncommand: %s\n--- stdout\n%s\n--- stderr\n%s\n" % (why, " ".join(cmd), out[-4000:],
                                                                              err[-8000:]))
        self.findings.append((kind, why, d))
        print("finding: %s: %s (%s)" % (kind, why, d), flush=True)

    def one(self, kind, seed, opts):
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        before = ru.ru_utime + ru.ru_stime
        try:
            self.one_mutant(kind, seed, opts)
        finally:
            ru = resource.getrusage(resource.RUSAGE_CHILDREN)
            self.stats[kind]["cpu"] += ru.ru_utime + ru.ru_stime - before

    def one_mutant(self, kind, seed, opts):
        path = seed
        with open(path, "rb") as f:
            data = f.read()
        suffix = os.path.splitext(path)[1]
        if kind == "pt2":
            mutant = mutate_pt2(self.rng, data)
        elif kind == "onnx" and suffix == ".onnx":
            mutant = mutate_bytes(self.rng, data)
        else:
            mutant = mutate_text(self.rng, data.decode("utf-8", "replace")).encode()
        inp = os.path.join(self.work, "input" + suffix)
        with open(inp, "wb") as f:
            f.write(mutant)
        model = os.path.join(self.work, "out.onnx")
        for f in glob.glob(model + "*"):
            os.unlink(f)
        cmd = [self.a.fxsh, "-q", "-c", ("load %s %s" % (inp, opts)).strip()]
        if kind == "onnx":
            cmd += ["-c", "check", "-c", "save " + model]
        else:
            exp = "export --legacy script" if kind == "ts" and self.rng.random() < 0.25 else "export"
            cmd += ["-c", exp, "-c", "save " + model, "-c", "check"]
        t0 = time.time()
        rc, out, err = self.run(cmd, self.a.timeout)
        st = self.stats[kind]
        st["runs"] += 1
        st["seconds"] += time.time() - t0
        if getattr(self, "stopping", False):
            return   # the run was interrupted with the fuzzer: not the input's doing
        if rc == 124:
            return self.finding(kind, "hang (over %d s)" % self.a.timeout, mutant, suffix, cmd, out, err)
        if rc >= 128 or rc < 0:
            return self.finding(kind, "killed by signal %d" % (rc - 128 if rc >= 128 else -rc), mutant, suffix, cmd,
                                out, err)
        if SANITIZER.search(err):
            return self.finding(kind, "sanitizer report", mutant, suffix, cmd, out, err)
        leftovers = [f for f in glob.glob(model + "*") if f != model and not f.endswith(".data")]
        if leftovers:
            return self.finding(kind, "temporary left: " + os.path.basename(leftovers[0]), mutant, suffix, cmd, out,
                                err)
        if rc != 0:
            st["errors"] += 1
        if not os.path.exists(model):
            return
        st["saved"] += 1
        # the written model, loaded in a fresh process, must pass fxsh's own check
        rc2, out2, err2 = self.run([self.a.fxsh, "-q", "-c", "load " + model, "-c", "check"], self.a.timeout)
        if rc2 != 0 or "check: ok" not in out2:
            return self.finding(kind, "saved a model that check rejects when loaded again", mutant, suffix, cmd,
                                out + out2, err + "\n--- reload\n" + err2)
        if self.a.onnx_check and self.n_saved_kept < self.a.keep_saved:
            self.n_saved_kept += 1
            d = os.path.join(self.saved_dir, "%s-%05d" % (kind, self.n_saved_kept))
            os.makedirs(d, exist_ok=True)
            for f in glob.glob(model + "*"):
                shutil.copy(f, d)
            with open(os.path.join(d, "input" + suffix), "wb") as f:
                f.write(mutant)
            with open(os.path.join(d, "command.txt"), "w") as f:
                f.write(" ".join(cmd) + "\n")

    def onnx_full_check(self):
        """onnx.checker.check_model(full_check=True) over every kept model, in one process."""
        script = ("import onnx, sys, os\n"
                  "bad = 0\n"
                  "for d in sorted(os.listdir(sys.argv[1])):\n"
                  "    p = os.path.join(sys.argv[1], d, 'out.onnx')\n"
                  "    try:\n"
                  "        onnx.checker.check_model(onnx.load(p), full_check=True)\n"
                  "    except Exception as e:\n"
                  "        bad += 1; print('REJECTED', d, str(e).splitlines()[0][:300])\n"
                  "print('checked', len(os.listdir(sys.argv[1])), 'rejected', bad)\n")
        p = subprocess.run([self.a.onnx_check, "python3", "-c", script, os.path.abspath(self.saved_dir)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        text = p.stdout.decode("utf-8", "replace")
        print(text.strip().splitlines()[-1] if text.strip() else "onnx check: no output")
        for line in text.splitlines():
            if line.startswith("REJECTED"):
                _, d, msg = line.split(" ", 2)
                src = os.path.join(self.saved_dir, d)
                kind = d.split("-")[0]
                data = open(glob.glob(os.path.join(src, "input*"))[0], "rb").read()
                cmd = open(os.path.join(src, "command.txt")).read().split()
                self.finding(kind, "onnx's full check rejects a saved model: " + msg, data,
                             os.path.splitext(glob.glob(os.path.join(src, "input*"))[0])[1], cmd, "", msg)

    def main(self):
        seeds = gather_seeds(self.a.corpus, self.a.fixtures)
        kinds = KINDS if self.a.kind == "all" else (self.a.kind,)
        kinds = [k for k in kinds if seeds[k]]
        if not kinds:
            print("pipeline fuzz: no seeds (corpus %s)" % self.a.corpus, file=sys.stderr)
            return 2
        end = time.time() + self.a.seconds
        per = self.a.seconds / len(kinds)
        # SIGTERM / SIGINT end the run early with its results: the batch check and the counts
        self.stopping = False

        def stop_early(signum, frame):
            self.stopping = True
        signal.signal(signal.SIGTERM, stop_early)
        signal.signal(signal.SIGINT, stop_early)
        for i, k in enumerate(kinds):
            stop = min(end, time.time() + per) if i < len(kinds) - 1 else end
            while time.time() < stop and not self.stopping:
                seed, opts = self.rng.choice(seeds[k])
                self.one(k, seed, opts)
                if self.a.max_runs and self.stats[k]["runs"] >= self.a.max_runs:
                    break
                if self.a.cpu_seconds and self.stats[k]["cpu"] >= self.a.cpu_seconds:
                    break
        if self.a.onnx_check and self.n_saved_kept:
            self.onnx_full_check()
        for k in kinds:
            s = self.stats[k]
            print("pipeline fuzz: %-4s %7d runs in %6.0f s (%6.0f CPU s of fxsh), %6d errors, %6d models saved, "
                  "%d findings" % (k, s["runs"], s["seconds"], s["cpu"], s["errors"], s["saved"], s["findings"]))
        shutil.rmtree(self.work, ignore_errors=True)
        return 1 if self.findings else 0


def parse_args():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fxsh", required=True, help="the fxsh binary (an ASan build finds more)")
    ap.add_argument("--kind", choices=KINDS + ("all",), default="all")
    ap.add_argument("--seconds", type=float, default=60, help="time in all, split between the kinds")
    ap.add_argument("--max-runs", type=int, default=0, help="stop a kind after this many runs")
    ap.add_argument("--cpu-seconds", type=float, default=0, help="stop a kind after fxsh used this much CPU time")
    ap.add_argument("--timeout", type=int, default=20, help="seconds one command may take")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--corpus", default=os.environ.get("FXSH_CORPUS", os.path.join(top, "..", "shared", "corpus")))
    ap.add_argument("--fixtures", default=os.path.join(top, "tests", "fixtures"))
    ap.add_argument("--out", default="fuzz/pipeline-out")
    ap.add_argument("--onnx-check", metavar="ONNX_ENV_RUN",
                    help="development: check the saved models with onnx's full check (../shared/tools/onnx-env-run)")
    ap.add_argument("--keep-saved", type=int, default=5000, help="models kept for --onnx-check")
    return ap.parse_args()


if __name__ == "__main__":
    a = parse_args()
    print("pipeline fuzz: seed %d" % a.seed, flush=True)
    sys.exit(Fuzzer(a).main())
