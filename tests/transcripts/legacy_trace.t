## legacy_trace.t — `export --legacy trace`: tracing's decisions replayed on the example inputs with
## the reference evaluator (examples/legacy_trace.fxsh teaches it; this covers nesting and errors).

## Nested ifs (corpus python_if_nested): on the corpus's example input `h.sum() > 0` is False, so the
## inner `if` never runs: one TracerWarning, as in torch's export_legacy.log, and `-h` baked in. The
## model agrees with torch's eager output and with torch's own traced model (onnx_legacy.onnx) on
## any input, since both baked in the same branch.
$ fxsh -c 'load examples/data/python_if_nested.torchscript.txt --weights examples/data/python_if_nested.weights.onnx --input x=f32[2,3]' -c 'export --legacy trace --inputs tests/fixtures/eval/python_if_nested.io.json verbose=False' -c 'show optimized' -c 'verify --expected tests/fixtures/eval/python_if_nested.io.json' -c 'verify optimized tests/fixtures/eval/python_if_nested.onnx_legacy.onnx --seed 4'
DeprecationWarning: You are using the legacy TorchScript-based ONNX export. Starting in PyTorch 2.9, the new torch.export-based ONNX exporter has become the default. Learn more about the new export logic: https://docs.pytorch.org/docs/stable/onnx_export.html. For exporting control flow: https://pytorch.org/tutorials/beginner/onnx/export_control_flow_model_to_onnx_tutorial.html
/src/models/python_if_nested/model.py:13: TracerWarning: Converting a tensor to a Python boolean might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!
-c:2: examples/data/python_if_nested.torchscript.txt:15: note: %if_1: on tests/fixtures/eval/python_if_nested.io.json the condition is False: the traced model keeps false_graph_0 only, and is wrong for inputs that take the other branch
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[2,3] x) => (float[2,3] neg) 
   <float[3,3] "fc.weight" =  {-0.00432252,0.309716,-0.475185,-0.424895,-0.222369,0.154821,-0.0114391,0.457775,-0.0512364}, float[3] "fc.bias" =  {0.152774,-0.174483,-0.113487}, float[3,3] "fc.weight", float[3] "fc.bias", float[2,3] linear>
{
   [node_linear] linear = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (x, "fc.weight", "fc.bias")
   [node_neg] neg = Neg (linear)
}
PASS neg: max abs diff 5.96e-08, max rel diff 4.61e-07
verify: 1 output within atol 0.0001, rtol 0.001
PASS neg: max abs diff 0, max rel diff 0
verify: 1 output within atol 0.0001, rtol 0.001

## Without --inputs the example inputs are random (seeded, as `run` makes them); the note says so.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]' -c 'export --legacy trace --seed 2 verbose=False'
DeprecationWarning: You are using the legacy TorchScript-based ONNX export. Starting in PyTorch 2.9, the new torch.export-based ONNX exporter has become the default. Learn more about the new export logic: https://docs.pytorch.org/docs/stable/onnx_export.html. For exporting control flow: https://pytorch.org/tutorials/beginner/onnx/export_control_flow_model_to_onnx_tutorial.html
/src/models/python_if_data/model.py:14: TracerWarning: Converting a tensor to a Python boolean might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!
-c:2: examples/data/python_if_data.torchscript.txt:18: note: %if_1: on random inputs (seed 2) the condition is True: the traced model keeps true_graph_0 only, and is wrong for inputs that take the other branch

## Errors: --inputs / --seed without tracing, both routes at once, an unreadable inputs file, a
## bad seed, inputs of the wrong shape.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]' -c 'export --inputs tests/fixtures/eval/python_if_nested.io.json' -c 'export --legacy script --legacy trace' -c 'export --legacy trace --inputs no/such.json' -c 'export --legacy trace --seed -1' -c 'export --legacy trace --inputs tests/fixtures/eval/python_if_nested.io.json'
-c:2: error: export: --inputs and --seed give tracing its example inputs: use them with --legacy trace
-c:3: error: export: --legacy script or --legacy trace, not both
DeprecationWarning: You are using the legacy TorchScript-based ONNX export. Starting in PyTorch 2.9, the new torch.export-based ONNX exporter has become the default. Learn more about the new export logic: https://docs.pytorch.org/docs/stable/onnx_export.html. For exporting control flow: https://pytorch.org/tutorials/beginner/onnx/export_control_flow_model_to_onnx_tutorial.html
-c:4: error: export --legacy trace: no/such.json: cannot open: No such file or directory
-c:5: error: export: --seed needs an integer from 0 to 2^64-1
DeprecationWarning: You are using the legacy TorchScript-based ONNX export. Starting in PyTorch 2.9, the new torch.export-based ONNX exporter has become the default. Learn more about the new export logic: https://docs.pytorch.org/docs/stable/onnx_export.html. For exporting control flow: https://pytorch.org/tutorials/beginner/onnx/export_control_flow_model_to_onnx_tutorial.html
-c:6: error: export --legacy trace: input x: tests/fixtures/eval/python_if_nested.io.json holds shape [2, 3], the model takes [3, 4]
? 1

## The legacy exporters print what torch.onnx.export(..., dynamo=False) prints (finding 19): its
## DeprecationWarning, and none of the dynamo exporter's [torch.onnx] lines; nor the note of the
## torch.cond --clone that --legacy script takes on its way (scripting made the If directly).
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]' -c 'export --legacy script' -c 'stages'
DeprecationWarning: You are using the legacy TorchScript-based ONNX export. Starting in PyTorch 2.9, the new torch.export-based ONNX exporter has become the default. Learn more about the new export logic: https://docs.pytorch.org/docs/stable/onnx_export.html. For exporting control flow: https://pytorch.org/tutorials/beginner/onnx/export_control_flow_model_to_onnx_tutorial.html
  fx          FX program  (examples/data/python_if_data.torchscript.txt)
  exported    FX program  (export)
  decomposed  FX program  (decompose (ONNX table))
  onnx        ONNX model  (translate)
* optimized   ONNX model  (optimize)
