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

## Without weights there is nothing to store (torch.onnx.export exports a module, which has them):
## refused after the capture, with the load that gives them, or export_params=False, torch's way
## to make them inputs; never a model that every stage shows done and `save` refuses.
$ fxsh -c 'load tests/fixtures/repl/mlp.module.txt --input x=f32[2,8]' -c 'export verbose=False' -c check
-c:2: error: export: 6 weights (fc1.weight, fc1.bias, fc2.weight, fc2.bias, ...) have no values: torch.onnx.export stores every weight in the model (export_params=True)
  hint: load the model's weights: load tests/fixtures/repl/mlp.module.txt --input x=f32[2,8] --weights W (its .pt2, .onnx or .safetensors file); or `export export_params=False` makes them inputs of the ONNX model
-c:3: error: check: the exported stage is an FX program, not an ONNX model
  hint: run `export` first (or `step` until the onnx stage): it makes the ONNX model `check` works on
? 1

## TorchScript loaded without --weights: the parameters say where their values come from, and
## export refuses them before any stage is shown done: they have no dtype and shape either, so
## `save` would refuse the model (newcomer-2 finding 3).
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --input x=f32[3,4]' -c 'rewrite if_1 cond --clone' -c 'export verbose=False' 2>&1 | grep -v 'subgraph placeholder\|more nodes left\|returned its input'
-c:1: examples/data/python_if_data.torchscript.txt: note: meta: parameter or buffer of unknown shape: %p_mlp_0_weight, %p_mlp_0_bias, %p_mlp_2_weight, %p_mlp_2_bias left without value meta
  hint: load its weights: load FILE --weights W (a .pt2, an .onnx or a .safetensors file)
-c:3: examples/data/python_if_data.torchscript.txt: note: meta: parameter or buffer of unknown shape: %p_mlp_0_weight, %p_mlp_0_bias, %p_mlp_2_weight, %p_mlp_2_bias left without value meta
  hint: load its weights: load FILE --weights W (a .pt2, an .onnx or a .safetensors file)
-c:3: error: export: 4 weights (mlp.0.weight, mlp.0.bias, mlp.2.weight, mlp.2.bias) have no dtype and shape: the program does not say what they are, so no ONNX model can declare them
  hint: load the model's weights: load examples/data/python_if_data.torchscript.txt --input x=f32[3,4] --weights W (its .pt2, .onnx or .safetensors file)

$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --input x=f32[3,4] --weights examples/data/python_if_data.weights.onnx' -c 'rewrite if_1 cond --clone' -c 'export verbose=False' 2>&1 | grep -c 'no values'
0
? 1

## Without weights the program does not say which size its input takes (nn.Linear(3, 3) here, io.json
## [2, 3]): the hint says so and where the size comes from, never a made-up x=f32[2,4] that export
## would then follow (newcomer-2 finding 2); with the weights it is the Linear's in_features.
$ fxsh -c 'load examples/data/python_if_nested.torchscript.txt' -c 'export verbose=False' 2>&1 | grep -A1 'error:'
-c:2: error: export: the input x has no dtype and shape (torch.export needs example inputs)
  hint: the program does not say which size x takes: load it with the model's weights (they give the sizes its layers expect), or with the shape of its example input (the model's io.json): load examples/data/python_if_nested.torchscript.txt --weights W --input x=DTYPE[SIZES]

$ fxsh -c 'load examples/data/python_if_nested.torchscript.txt --weights examples/data/python_if_nested.weights.onnx' -c 'export verbose=False' 2>&1 | grep -A1 'error:'
-c:2: error: export: the input x has no dtype and shape (torch.export needs example inputs)
  hint: load it again with an example shape (the sizes are an example): load examples/data/python_if_nested.torchscript.txt --weights examples/data/python_if_nested.weights.onnx --input x=f32[2,3]

## A refused rewrite's hint names another rewrite only when that one works (checked before it is
## printed): here scan takes the loop (newcomer-2 finding 7; examples/loop_const shows the loop
## that neither takes, and needs none).
$ fxsh -q -c 'load examples/data/pairwise_loop.torchscript.txt --input x=f32[3,4] --input y=f32[3,4]' -c 'rewrite for_1 while_loop' -c 'rewrite for_1 scan'
-c:2: examples/data/pairwise_loop.torchscript.txt:18: error: cannot rewrite %for_1 into while_loop: the body uses the loop index %i (in %add, operator.add), a Python int that torch.while_loop does not give
  hint: a loop reading rows x[i] is a scan: rewrite %for_1 scan
? 1

## A program that reads no weights: only its example input can say the size.
$ fxsh -q -c 'load tests/fixtures/repl/nolowering_aten.fx.txt' -c 'export verbose=False'
-c:2: error: export: the input x has no dtype and shape (torch.export needs example inputs)
  hint: the program does not say which size x takes: load it with the shape of its example input (the model's io.json): load tests/fixtures/repl/nolowering_aten.fx.txt --input x=DTYPE[SIZES]
? 1
