## hints.t — every hint is the next step that works (issue 14, item 1): each case shows the hint,
## then runs exactly what it says and shows that it succeeds.

## A nested Python `if`: export names the inner `if` first (torch.cond branches hold no Python if).
$ fxsh -c 'load examples/data/python_if_nested.torchscript.txt --weights examples/data/python_if_nested.weights.onnx --input x=f32[2,3]' -c 'export verbose=False' 2>&1 | grep -A1 'error: export failed'
-c:2: /src/models/python_if_nested/model.py:13: error: export failed at %if_1: Python `if` on the tensor %gt (data-dependent: Could not guard on data-dependent expression Eq(u0, 1))
  hint: rewrite %true_graph_0.if_1 cond, then rewrite %if_1 cond (the inner `if` first: torch.cond branches hold no Python `if`)

## ... and the commands of that hint, in its order, make an export that passes `check`.
$ fxsh -c 'load examples/data/python_if_nested.torchscript.txt --weights examples/data/python_if_nested.weights.onnx --input x=f32[2,3]' -c 'rewrite %true_graph_0.if_1 cond' -c 'rewrite %if_1 cond' -c 'export verbose=False' -c check
check: ok

## Rewriting the outer `if` first is refused with the same plan.
$ fxsh -c 'load examples/data/python_if_nested.torchscript.txt --weights examples/data/python_if_nested.weights.onnx --input x=f32[2,3]' -c 'rewrite if_1 cond'
-c:2: examples/data/python_if_nested.torchscript.txt:15: error: cannot rewrite %if_1: branch true_graph_0 still has a Python if (%if_1)
  hint: rewrite %true_graph_0.if_1 cond, then rewrite %if_1 cond (the inner `if` first: torch.cond branches hold no Python `if`)
? 1

## A branch that returns its input: the first hint already says --clone, and why.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]' -c 'export verbose=False' 2>&1 | grep -A1 'error: export failed'
-c:2: /src/models/python_if_data/model.py:14: error: export failed at %if_1: Python `if` on the tensor %sum_1 (data-dependent: Could not guard on data-dependent expression Eq(u0, 1))
  hint: rewrite %if_1 cond --clone (false_graph_0 returns its input linear_1 unchanged, which torch.cond rejects as aliasing: --clone returns a copy instead, torch's fix)

$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]' -c 'rewrite %if_1 cond --clone' -c 'export verbose=False' -c check
-c:2: examples/data/python_if_data.torchscript.txt:18: note: false_graph_0 returned its input linear_1 unchanged: it now returns linear_1.clone()
check: ok

## Without --clone the rewrite is still refused as torch refuses it.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]' -c 'rewrite if_1 cond' 2>&1 | grep -e error -e 'hint:'
-c:2: examples/data/python_if_data.torchscript.txt:18: error: cannot rewrite %if_1: Encountered aliasing during higher order op tracing
  hint: rewrite %if_1 cond --clone applies torch's fix (return linear_1.clone())

## ONNX commands on a program not yet exported: the hint is `export`.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c save\ $FXSH_SCRATCH/m.onnx -c check -c summary
-c:2: error: save: the exported stage is an FX program, not an ONNX model
  hint: run `export` first (or `step` until the onnx stage): it makes the ONNX model `save` works on
-c:3: error: check: the exported stage is an FX program, not an ONNX model
  hint: run `export` first (or `step` until the onnx stage): it makes the ONNX model `check` works on
-c:4: error: summary: the exported stage is an FX program, not an ONNX model
  hint: run `export` first (or `step` until the onnx stage): it makes the ONNX model `summary` works on
? 1

$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c save\ $FXSH_SCRATCH/m.onnx -c check
check: ok

## A program without example inputs: the hint is the same load with --input for each, the example
## shapes taken from the layers they feed (Linear(in_features=8)).
$ fxsh -c 'load tests/fixtures/repl/mlp.module.txt' -c 'export verbose=False'
-c:2: error: export: the input x has no dtype and shape (torch.export needs example inputs)
  hint: load it again with an example shape (the sizes are an example): load tests/fixtures/repl/mlp.module.txt --input x=f32[2,8]
? 1

$ fxsh -c 'load tests/fixtures/repl/mlp.module.txt --input x=f32[2,8]' -c 'export verbose=False' -c check 2>&1 | grep -v -e '^  hint: give them'
-c:2: warning: 6 weights (fc1.weight, fc1.bias, fc2.weight, fc2.bias, ...) have no values: the ONNX model takes them as inputs
check: ok

## TorchScript loaded without --weights: the parameters say where their values come from, and the
## export that makes them ONNX inputs says so too, with the load that gives them.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --input x=f32[3,4]' -c 'rewrite if_1 cond --clone' -c 'export verbose=False' 2>&1 | grep -v 'subgraph placeholder\|more nodes left\|returned its input'
-c:1: examples/data/python_if_data.torchscript.txt: note: meta: parameter or buffer of unknown shape: %p_mlp_0_weight, %p_mlp_0_bias, %p_mlp_2_weight, %p_mlp_2_bias left without value meta
  hint: load its weights: load FILE --weights W (a .pt2, an .onnx or a .safetensors file)
-c:3: examples/data/python_if_data.torchscript.txt: note: meta: parameter or buffer of unknown shape: %p_mlp_0_weight, %p_mlp_0_bias, %p_mlp_2_weight, %p_mlp_2_bias left without value meta
  hint: load its weights: load FILE --weights W (a .pt2, an .onnx or a .safetensors file)
-c:3: warning: 4 weights (mlp.0.weight, mlp.0.bias, mlp.2.weight, mlp.2.bias) have no values: the ONNX model takes them as inputs
  hint: give them when loading: load examples/data/python_if_data.torchscript.txt --input x=f32[3,4] --weights W (a .pt2, an .onnx or a .safetensors file)

$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --input x=f32[3,4] --weights examples/data/python_if_data.weights.onnx' -c 'rewrite if_1 cond --clone' -c 'export verbose=False' 2>&1 | grep -c 'no values'
0
? 1
