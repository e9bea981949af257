#!/usr/bin/env python3
"""mk-pipeline-findings.py — the inconsistent .pt2 programs of tests/pipeline_findings.sh, made
from the corpus's attention program (a real torch.export archive) by targeted edits of its
models/model.json or weights config, one class of inconsistency per file (the fuzz-2 findings
of ../shared/findings/fuzz-2 and their variants). Standard library only.

    python3 scripts/dev/mk-pipeline-findings.py ../shared/corpus/fx/attention/program.pt2 tests/fixtures/fuzz/pipeline
"""
import json
import sys
import zipfile

SRC, OUT = sys.argv[1], sys.argv[2]


def rewrite(dst, fn, member_suffix="models/model.json"):
    z = zipfile.ZipFile(SRC)
    names = z.namelist()
    mem = {n: z.read(n) for n in names}
    tgt = [n for n in names if n.endswith(member_suffix)][0]
    doc = json.loads(mem[tgt])
    fn(doc)
    mem[tgt] = json.dumps(doc).encode()
    with zipfile.ZipFile(f"{OUT}/{dst}", "w", zipfile.ZIP_STORED) as o:
        for n in names:
            o.writestr(z.getinfo(n), mem[n])


def nodes(doc):
    return doc["graph_module"]["graph"]["nodes"]


def tv(doc):
    return doc["graph_module"]["graph"]["tensor_values"]


def reshape_size(value):
    def fn(doc):
        for n in nodes(doc):
            if n["target"] in ("torch.ops.aten.reshape.default", "torch.ops.aten.view.default"):
                for a in n["inputs"]:
                    if "as_ints" in a["arg"]:
                        a["arg"]["as_ints"][-1] = value
                        return
                    if "as_sym_ints" in a["arg"]:
                        a["arg"]["as_sym_ints"][-1] = {"as_int": value}
                        return
        raise SystemExit("no reshape")
    return fn


def param_sizes(edit):
    def fn(doc):
        for s in doc["graph_module"]["signature"]["input_specs"]:
            if "parameter" in s:
                t = tv(doc)[s["parameter"]["arg"]["name"]]
                if len(t["sizes"]) == 1:
                    edit(t)
                    return
        raise SystemExit("no 1-d parameter")
    return fn


def swap_layer_norm(doc):
    for n in nodes(doc):
        if n["target"] == "torch.ops.aten.layer_norm.default":
            a = n["inputs"]
            a[0]["arg"], a[2]["arg"] = a[2]["arg"], a[0]["arg"]
            return
    raise SystemExit("no layer_norm")


def output_size(value):
    def fn(doc):
        for n in nodes(doc):
            if n["target"] == "torch.ops.aten.layer_norm.default":
                name = n["outputs"][0]["as_tensor"]["name"]
                tv(doc)[name]["sizes"][-1] = {"as_int": value}
                return
        raise SystemExit("no layer_norm")
    return fn


def output_dtype(doc):
    for n in nodes(doc):
        if n["target"] == "torch.ops.aten.layer_norm.default":
            name = n["outputs"][0]["as_tensor"]["name"]
            tv(doc)[name]["dtype"] = 5   # the serde schema's ScalarType LONG (int64)
            return
    raise SystemExit("no layer_norm")


def drop_weight_sizes(doc):
    cfg = doc["config"]
    for k in cfg:
        if len(cfg[k]["tensor_meta"]["sizes"]) == 1:
            del cfg[k]["tensor_meta"]["sizes"]
            return
    raise SystemExit("no 1-d weight")


def layer_norm_inputs(edit):
    def fn(doc):
        for n in nodes(doc):
            if n["target"] == "torch.ops.aten.layer_norm.default":
                edit(n)
                return
        raise SystemExit("no layer_norm")
    return fn


def double(t):
    t["sizes"][0]["as_int"] *= 2


rewrite("f1_reshape_huge_negative.pt2", reshape_size(-(2 ** 62)))
rewrite("f1_reshape_int64_min.pt2", reshape_size(-(2 ** 63)))
rewrite("f1_reshape_minus_two.pt2", reshape_size(-2))
rewrite("f2_param_size_mismatch.pt2", param_sizes(double))
rewrite("f2_param_rank0.pt2", param_sizes(lambda t: t.__setitem__("sizes", [])))
rewrite("f2_param_rank2.pt2", param_sizes(lambda t: t["sizes"].append({"as_int": 1})))
rewrite("f2_weight_config_no_sizes.pt2", drop_weight_sizes, "_weights_config.json")
rewrite("f3_layer_norm_args_swapped.pt2", swap_layer_norm)
rewrite("f3_output_size_2_40.pt2", output_size(2 ** 40))
rewrite("f3_output_dtype.pt2", output_dtype)
rewrite("f4_unknown_keyword.pt2",
        layer_norm_inputs(lambda n: n["inputs"].append({"name": "gamma", "arg": {"as_float": 1.0}, "kind": 2})))
rewrite("f4_missing_argument.pt2", layer_norm_inputs(lambda n: n.__setitem__("inputs", n["inputs"][:1])))
print("ok")
