#!/usr/bin/env python3
"""drop_restated_schemas.py [--check] - deletes the `schema:` lines of share/fxsh's translate and
meta tables that restate torch's schema (share/fxsh/aten/schemas.txt) byte for byte: a rule without
one binds by torch's (src/tables/registry.c, src/meta/meta_rules.c), so only targets torch does not
have, or bindings that must differ, keep theirs. A meta record's schema goes only when it is every
target's. With --check nothing is written and the exit status is 1 if a restated schema is left
(for a branch that adds rules the old way)."""
import glob, os, re, sys

import yaml

SHARE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "share", "fxsh")


def torch_schemas():
    """'relu.default' -> 'relu(Tensor self) -> Tensor'"""
    out = {}
    for line in open(os.path.join(SHARE, "aten", "schemas.txt")):
        if line.startswith("aten::"):
            body = line[6:].strip()
            name = body.split("(")[0]
            out.setdefault(name if "." in name else name + ".default", body)
    return out


def value(text):
    return yaml.safe_load("x: " + text)["x"]


def drop(path, restated):
    """Lines of path without the restated schema lines (restated(targets, schema) decides)."""
    lines, out, targets, n = open(path).read().split("\n"), [], [], 0
    i = 0
    while i < len(lines):
        m = re.match(r"^  - targets?: (.*)$", lines[i])
        if m:
            text, j = m.group(1), i + 1
            while j < len(lines) and not re.match(r"^    \w+:|^  -|^\S", lines[j]):
                text += lines[j]
                j += 1
            targets = [t.strip().replace("torch.ops.", "") for t in text.strip().strip("[]").split(",") if t.strip()]
            out.extend(lines[i:j])
            i = j
            continue
        m = re.match(r"^    schema: (.*)$", lines[i])
        if m and targets and restated(targets, value(m.group(1))):
            n += 1
        else:
            out.append(lines[i])
        i += 1
    return "\n".join(out), n


def main():
    check = "--check" in sys.argv[1:]
    schemas = torch_schemas()
    translate = lambda ts, s: len(ts) == 1 and ts[0].startswith("aten.") and schemas.get(ts[0][5:]) == s
    meta = lambda ts, s: all(t.startswith("aten.") and (schemas.get(t[5:]) or "").endswith(s) and
                             schemas[t[5:]][:-len(s)] == schemas[t[5:]].split("(")[0] for t in ts)
    total = 0
    for path, restated in [(p, translate) for p in sorted(glob.glob(os.path.join(SHARE, "translate", "*.yaml")))] + \
                          [(p, meta) for p in sorted(glob.glob(os.path.join(SHARE, "meta", "*.yaml")))]:
        text, n = drop(path, restated)
        if n:
            print("%s: %d restated schema%s" % (os.path.relpath(path), n, "s" if n > 1 else ""))
            total += n
            if not check:
                open(path, "w").write(text)
    sys.exit(1 if check and total else 0)


if __name__ == "__main__":
    main()
