## strict.t — what used to pass silently is an error that says how to fix it: shapes a model
## rejects, inputs without shapes, weights or inputs that name nothing, settings out of range.

## An example input the model cannot take (Linear needs 4 features): export fails at the node,
## as torch.export does, instead of noting it and producing an invalid model.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,5]' -c 'rewrite if_1 cond --clone' -c 'export verbose=False' -c stages 2>&1 | grep -v 'note:'
-c:1: examples/data/python_if_data.torchscript.txt:11: warning: meta: aten.linear.default: shapes cannot be multiplied (inner sizes 5 and 4): %linear left without value meta
  hint: the example inputs do not fit the model there: export fails at that node, as torch.export does; declare shapes it accepts
-c:3: examples/data/python_if_data.torchscript.txt:11: error: export failed at %linear: aten.linear.default: shapes cannot be multiplied (inner sizes 5 and 4)
  hint: torch.export fails here too: the example inputs (--input x=f32[3,5]) do not fit the model; declare shapes it accepts
-c:3: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
* fx          FX program  (examples/data/python_if_data.torchscript.txt)
  exported    -
  decomposed  -
  onnx        -
  optimized   -

## The same for a torch-level graph.
$ fxsh -c 'load tests/fixtures/repl/mlp.module.txt --input x=f32[2,7]' -c 'export verbose=False'
-c:2: error: export failed at %linear: aten.linear.default: shapes cannot be multiplied (inner sizes 7 and 8)
  hint: torch.export fails here too: the example inputs (--input x=f32[2,7]) do not fit the model; declare shapes it accepts
-c:2: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
? 1

## TorchScript (or torch-level text) without --input: export names the --input each input needs.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx' -c 'export verbose=False' 2>&1 | grep -v -e 'note:' -e '^  hint: declare the input'
-c:2: error: export: the input x has no dtype and shape (torch.export needs example inputs)
  hint: load it again with an example shape (the sizes are an example): load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[2,4]
$ fxsh -c 'load tests/fixtures/repl/mlp.module.txt' -c 'export verbose=False'
-c:2: error: export: the input x has no dtype and shape (torch.export needs example inputs)
  hint: load it again with an example shape (the sizes are an example): load tests/fixtures/repl/mlp.module.txt --input x=f32[2,8]
? 1

## --weights whose tensors name no parameter of the program: another model's .onnx, .pt2 or
## .safetensors. Nothing is loaded.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/while_loop_closure.weights.onnx --input x=f32[3,4]' -c stages
-c:1: examples/data/while_loop_closure.weights.onnx: error: load --weights: no initializer names a parameter of the program (fc.weight, fc.bias, zeros, lt, val_1_2, val_0_3, val_0_4)
  hint: 4 of the program's weights get no tensor: mlp.0.weight, mlp.0.bias, mlp.2.weight, mlp.2.bias; give the weights of this model
  fx          -
  exported    -
  decomposed  -
  onnx        -
  optimized   -
? 1
$ fxsh -c 'load tests/fixtures/repl/mlp.module.txt --weights examples/data/mlp_cond.pt2 --input x=f32[2,8]'
-c:1: examples/data/mlp_cond.pt2: error: load --weights: 4 tensors name no parameter or buffer of the program: seq.0.weight, seq.0.bias, seq.1.weight, seq.1.bias
  hint: 6 of the program's weights get no tensor: fc1.weight, fc1.bias, fc2.weight, fc2.bias, fc3.weight, fc3.bias; give the weights of this model
? 1

## --input for an input the program does not have.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input y=f32[3,4]'
-c:1: error: load --input: the program has no input 'y' (its inputs: x)
  hint: declare each input by the name forward() gives it
? 1
$ fxsh -c 'load tests/fixtures/repl/mlp.module.txt --input y=f32[2,8]'
-c:1: error: load --input: the program has no input 'y' (its inputs: x)
  hint: declare each input by the name forward() gives it
? 1

## Settings out of range name the valid values.
$ fxsh -c 'set opset_version 99' -c 'set opset_version 0' -c 'load examples/data/mlp_cond.pt2' -c 'export opset_version=24' -c 'set dynamic_shapes x0=batch' -c 'set dynamic_axes x:first=batch' -c 'set opset_version 23' -c 'set dynamic_shapes x:0=batch' -c 'set verbose maybe'
-c:1: error: set: opset_version 99 is out of range: fxsh exports opsets 18..23
  hint: a lower opset (1..17) is raised to 18 with torch's warning, as torch.onnx.export does
-c:2: error: set: opset_version 0 is out of range: fxsh exports opsets 18..23
  hint: a lower opset (1..17) is raised to 18 with torch's warning, as torch.onnx.export does
-c:4: error: export: opset_version 24 is out of range: fxsh exports opsets 18..23
  hint: a lower opset (1..17) is raised to 18 with torch's warning, as torch.onnx.export does
-c:5: error: set: dynamic_shapes: cannot read 'x0=batch'
  hint: write INPUT:AXIS=SPEC items, e.g. x:0=batch,y:1=seq, x:0=Dim('batch', min=2, max=64), x:1=AUTO
-c:6: error: set: dynamic_axes: cannot read 'x:first=batch'
  hint: write INPUT:AXIS=SPEC items, e.g. x:0=batch,y:1=seq, x:0=Dim('batch', min=2, max=64), x:1=AUTO
-c:9: error: set: verbose takes True or False (or 1/0, on/off, yes/no), not 'maybe'
? 1
