#!/usr/bin/env python3
"""torchlib_coverage.py - which torchlib overloads fxsh lowers, decomposes, or lacks (a developer's tool).

Parses the @torch_op registrations of the vendored torchlib (onnxscript's function_libs/torch_lib/ops,
unpacked from ../shared/vendor/) and compares them with `fxsh -c ops` (the translation tables) and the
targets of share/fxsh/decompose/*.yaml. Prints the counts and the overloads fxsh has neither for.

    torchlib_coverage.py TORCHLIB_OPS_DIR [FXSH]
"""
import glob, os, re, subprocess, sys

ops_dir = sys.argv[1]
fxsh = sys.argv[2] if len(sys.argv) > 2 else "./fxsh"
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
registered = set()
for f in glob.glob(os.path.join(ops_dir, "*.py")):
    for m in re.finditer(r'@torch_op\(\s*(\(.*?\)|"[^"]*"|\'[^\']*\')', open(f).read(), re.S):
        for name in re.findall(r'"([^"]+)"', m.group(1)):
            if not name.startswith(("aten::", "prims::")):
                continue
            ns, rest = name.split("::")
            registered.add(ns + "." + (rest if "." in rest else rest + ".default"))
listing = subprocess.run([fxsh, "-q", "-c", "ops"], capture_output=True, text=True).stdout
lowered = set(re.findall(r"((?:aten|prims)\.\w+\.\w+)", listing))
decomposed = set()
for f in glob.glob(os.path.join(top, "share", "fxsh", "decompose", "*.yaml")):
    decomposed |= set(re.findall(r"target: ((?:aten|prims)\.\w+\.\w+)", open(f).read()))
missing = sorted(registered - lowered - decomposed)
print("%d registered; %d lowered; %d decomposed only; %d neither"
      % (len(registered), len(registered & lowered), len((registered & decomposed) - lowered), len(missing)))
print(" ".join(missing))
