#!/usr/bin/env python3
"""check_population.py - a population of ONNX models and mutants of them, each judged by the real
onnx.checker.check_model(path, full_check=True), to hold fxsh's `check` to onnx's verdicts.

A developer's tool: run it in the reference environment (it needs onnx 1.20), from the git tree:

    ../shared/tools/onnx-env-run python3 scripts/dev/check_population.py OUTDIR [CORPUS]
    ../shared/tools/onnx-env-run python3 scripts/dev/check_population.py OUTDIR --fixtures tests/fixtures/check_population

OUTDIR gets one .onnx per member and verdicts.tsv (id, kind, source, verdict ok/reject, onnx's
message). Every model under CORPUS (default ../shared/corpus) is a member as it is; "typed" adds
the value_info onnx's own inference gives every value (so its mutants test fxsh's inference of
each value, not only the declared outputs); the mutants change one thing each: a declared
dimension, rank or element type of a value_info entry, a graph output or a subgraph's value; a
dropped graph input; an initializer's shape; a name assigned twice; two nodes out of order; the
ir_version; the opset imports; an untyped input; external data that is not there. Which value a
mutant changes is chosen by a generator seeded with the model's path, so a run is reproducible.

--fixtures DIR copies a small, varied subset (every kind, both verdicts, the smallest files;
under --budget bytes, default 300000) of OUTDIR into DIR with its verdicts.tsv: the fixture set
tests/check_population.sh replays without the reference environment.
"""
import copy
import hashlib
import os
import random
import shutil
import sys

import onnx
import onnx.checker
import onnx.shape_inference
from onnx import TensorProto

ELEM_SWAP = {
    TensorProto.FLOAT: TensorProto.DOUBLE, TensorProto.DOUBLE: TensorProto.FLOAT,
    TensorProto.FLOAT16: TensorProto.FLOAT, TensorProto.BFLOAT16: TensorProto.FLOAT,
    TensorProto.INT64: TensorProto.INT32, TensorProto.INT32: TensorProto.INT64,
    TensorProto.BOOL: TensorProto.INT64, TensorProto.UINT8: TensorProto.INT8, TensorProto.INT8: TensorProto.UINT8,
}


def verdict(path):
    try:
        onnx.checker.check_model(path, full_check=True)
        return "ok", ""
    except Exception as e:  # onnx's ValidationError, InferenceError, ...
        msg = " ".join(str(e).split())
        return "reject", msg[:300]


def tensor_type(vi):
    """The TypeProto.Tensor of a value_info, or None (sequence, optional, untyped...)."""
    t = vi.type
    if t.HasField("tensor_type"):
        return t.tensor_type
    return None


def graphs(g):
    """g and every subgraph in it."""
    yield g
    for n in g.node:
        for a in n.attribute:
            if a.HasField("g"):
                yield from graphs(a.g)
            for sg in a.graphs:
                yield from graphs(sg)


def subgraphs(g):
    it = graphs(g)
    next(it)
    return list(it)


def static_dims(vis):
    """(value_info, dim index) of every static dimension among vis."""
    out = []
    for vi in vis:
        tt = tensor_type(vi)
        if tt is None or not tt.HasField("shape"):
            continue
        for i, d in enumerate(tt.shape.dim):
            if d.HasField("dim_value"):
                out.append((vi, i))
    return out


def shaped(vis):
    return [vi for vi in vis if tensor_type(vi) is not None and tensor_type(vi).HasField("shape")]


def elem_typed(vis):
    return [vi for vi in vis if tensor_type(vi) is not None and tensor_type(vi).elem_type in ELEM_SWAP]


def mut_dim(rng, vis):
    c = static_dims(vis)
    if not c:
        return None
    vi, i = rng.choice(c)
    d = tensor_type(vi).shape.dim[i]
    d.dim_value = d.dim_value + 1 if d.dim_value != 1 else 3
    return "%s dim %d" % (vi.name, i)


def mut_rank(rng, vis):
    c = shaped(vis)
    if not c:
        return None
    vi = rng.choice(c)
    tensor_type(vi).shape.dim.add().dim_value = 1
    return vi.name


def mut_elem(rng, vis):
    c = elem_typed(vis)
    if not c:
        return None
    vi = rng.choice(c)
    tt = tensor_type(vi)
    tt.elem_type = ELEM_SWAP[tt.elem_type]
    return vi.name


def node_values(g):
    """Declared values of g that a node produces (value_info, outputs)."""
    made = {o for n in g.node for o in n.output}
    return [vi for vi in list(g.value_info) + list(g.output) if vi.name in made]


def mutants(m, rng):
    """(kind, model) pairs: each a copy of m with one thing changed."""
    out = []
    g = m.graph

    def add(kind, fn):
        mm = copy.deepcopy(m)
        if fn(mm) is not None:
            out.append((kind, mm))

    add("vi_dim", lambda mm: mut_dim(rng, list(mm.graph.value_info)))
    add("vi_rank", lambda mm: mut_rank(rng, list(mm.graph.value_info)))
    add("vi_elem", lambda mm: mut_elem(rng, list(mm.graph.value_info)))
    add("out_dim", lambda mm: mut_dim(rng, list(mm.graph.output)))
    add("out_rank", lambda mm: mut_rank(rng, list(mm.graph.output)))
    add("out_elem", lambda mm: mut_elem(rng, list(mm.graph.output)))
    if subgraphs(g):
        add("sub_dim", lambda mm: mut_dim(rng, [v for sg in subgraphs(mm.graph) for v in node_values(sg)]))
        add("sub_elem", lambda mm: mut_elem(rng, [v for sg in subgraphs(mm.graph) for v in node_values(sg)]))

    def drop_input(mm):
        inits = {t.name for t in mm.graph.initializer}
        used = {i for sg in graphs(mm.graph) for n in sg.node for i in n.input}
        c = [i for i, vi in enumerate(mm.graph.input) if vi.name not in inits and vi.name in used]
        if not c:
            return None
        del mm.graph.input[rng.choice(c)]
        return True
    add("drop_input", drop_input)

    def init_shape(mm):
        c = [t for t in mm.graph.initializer if len(t.dims) >= 1 and not t.data_location]
        if not c:
            return None
        t = rng.choice(c)
        dims = list(t.dims)
        if len(dims) >= 2 and dims != dims[::-1]:
            dims = dims[::-1]
        else:
            dims = dims + [1]
        del t.dims[:]
        t.dims.extend(dims)
        return True
    add("init_shape", init_shape)

    def untyped_input(mm):
        if not mm.graph.input:
            return None
        mm.graph.input[rng.randrange(len(mm.graph.input))].ClearField("type")
        return True
    add("untyped_input", untyped_input)

    def dup_output(mm):
        ns = [n for n in mm.graph.node if n.output and n.output[0]]
        if len(ns) < 2:
            return None
        a, b = rng.sample(range(len(ns)), 2)
        ns[b].output[0] = ns[a].output[0]
        return True
    add("dup_output", dup_output)

    def swap_nodes(mm):
        nodes = mm.graph.node
        c = [i for i in range(1, len(nodes)) if set(nodes[i - 1].output) & set(nodes[i].input)]
        if not c:
            return None
        i = rng.choice(c)
        a, b = copy.deepcopy(nodes[i - 1]), copy.deepcopy(nodes[i])
        nodes[i - 1].CopyFrom(b)
        nodes[i].CopyFrom(a)
        return True
    add("swap_nodes", swap_nodes)

    def ir_high(mm):
        mm.ir_version = 99
        return True
    add("ir_high", ir_high)

    def ir_low(mm):
        mm.ir_version = 2
        return True
    add("ir_low", ir_low)

    def no_opset(mm):
        del mm.opset_import[:]
        return True
    add("no_opset", no_opset)

    def dup_opset(mm):
        for o in list(mm.opset_import):
            if o.domain in ("", "ai.onnx"):
                e = mm.opset_import.add()
                e.domain = o.domain
                e.version = o.version - 1
                return True
        return None
    add("dup_opset", dup_opset)

    def ext_missing(mm):
        c = [t for t in mm.graph.initializer if t.HasField("raw_data") and len(t.raw_data) > 0]
        if not c:
            return None
        t = rng.choice(c)
        n = len(t.raw_data)
        t.ClearField("raw_data")
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", "missing_weights.bin"), ("offset", "0"), ("length", str(n))):
            e = t.external_data.add()
            e.key = k
            e.value = v
        return True
    add("ext_missing", ext_missing)
    return out


def typed(m):
    """m with the value_info onnx's inference gives every value it types (strict_mode off, so
    that a model onnx cannot fully infer still gets the values it can), or None."""
    try:
        inf = onnx.shape_inference.infer_shapes(m, check_type=False, strict_mode=False)
    except Exception:
        return None
    if len(inf.graph.value_info) <= len(m.graph.value_info):
        return None
    return inf


def build(outdir, corpus):
    os.makedirs(outdir, exist_ok=True)
    paths = []
    for root, _, files in os.walk(corpus):
        for f in files:
            if f.endswith(".onnx"):
                paths.append(os.path.join(root, f))
    paths.sort()
    rows = []
    for p in paths:
        rel = os.path.relpath(p, corpus)
        key = hashlib.sha1(rel.encode()).hexdigest()[:10]
        rng = random.Random(key)
        try:
            m = onnx.load(p)
        except Exception:
            continue
        members = [("base", m)]
        t = typed(m)
        if t is not None:
            members.append(("typed", t))
        for kind, mm in mutants(t if t is not None else m, rng):
            members.append((kind, mm))
        for kind, mm in members:
            mid = "%s_%s" % (key, kind)
            path = os.path.join(outdir, mid + ".onnx")
            onnx.save(mm, path)
            v, msg = verdict(path)
            rows.append((mid, kind, rel, v, msg))
    with open(os.path.join(outdir, "verdicts.tsv"), "w") as f:
        f.write("id\tkind\tsource\tverdict\tonnx_message\n")
        for r in rows:
            f.write("\t".join(x.replace("\t", " ") for x in r) + "\n")
    print("%d members from %d models" % (len(rows), len(paths)))


def fixtures(outdir, dest, budget):
    """The smallest members of each (kind, verdict), round-robin, until budget bytes."""
    rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(outdir, "verdicts.tsv"))][1:]
    groups = {}
    for r in rows:
        size = os.path.getsize(os.path.join(outdir, r[0] + ".onnx"))
        groups.setdefault((r[1], r[3]), []).append((size, r))
    for k in groups:
        # smallest first, but one per source model group (ops/, onnx_text/node, fx/ ...) in turn
        groups[k].sort(key=lambda x: (x[0], x[1][0]))
    chosen, used, i = [], 0, 0
    while True:
        progress = False
        for k in sorted(groups):
            if i < len(groups[k]) and i < 12:
                size, r = groups[k][i]
                if used + size <= budget:
                    chosen.append(r)
                    used += size
                    progress = True
        i += 1
        if not progress and i >= 12:
            break
    if os.path.isdir(dest):
        for f in os.listdir(dest):
            if f.endswith(".onnx"):
                os.remove(os.path.join(dest, f))
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, "verdicts.tsv"), "w") as f:
        f.write("id\tkind\tsource\tverdict\tonnx_message\n")
        for r in sorted(chosen):
            shutil.copy(os.path.join(outdir, r[0] + ".onnx"), os.path.join(dest, r[0] + ".onnx"))
            f.write("\t".join(r) + "\n")
    print("%d fixtures, %d bytes" % (len(chosen), used))


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    if "--fixtures" in args:
        i = args.index("--fixtures")
        budget = 300000
        if "--budget" in args:
            budget = int(args[args.index("--budget") + 1])
        fixtures(args[0], args[i + 1], budget)
        return
    build(args[0], args[1] if len(args) > 1 else "../shared/corpus")


if __name__ == "__main__":
    main()
