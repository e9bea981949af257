## settings.t — what `set` shows is what export and run use, or the setting is refused
## (newcomer-2 findings 8, 15 and 22).

## `set inputs` replaces the example given at load: the model is exported for [3, 4], not [2, 4].
$ fxsh -q -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[2,4]' -c 'rewrite if_1 cond --clone' -c 'set inputs x=f32[3,4]' -c 'export verbose=False' -c 'show optimized' 2>&1 | grep '^main_graph'
main_graph (float[3,4] x) => (float[3,4] getitem) 

## `export inputs=...` declares it without a --input at load.
$ fxsh -q -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx' -c 'rewrite if_1 cond --clone' -c 'export verbose=False inputs=x=f32[5,4]' -c 'show optimized' 2>&1 | grep '^main_graph'
main_graph (float[5,4] x) => (float[5,4] getitem) 

## An input the program does not have is named as the mistake.
$ fxsh -q -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx' -c 'set inputs y=f32[5,4]' -c 'export verbose=False'
-c:3: error: inputs: the program has no input 'y' (its inputs: x)
  hint: declare each input by the name forward() gives it
? 1

## An opset below 18 is raised to 18 with torch's warning by export and by run alike.
$ fxsh -q -c 'load examples/data/mlp_cond.pt2' -c 'set opset_version 17' -c 'run --seed 1' -c 'export verbose=False' -c 'show optimized' 2>&1 | grep -e Setting -e 'opset_import' -e getitem:
Setting ONNX exporter to use operator set version 18 because the requested opset_version 17 is a lower version than we have implementations for. Automatic version conversion will be performed, which may not be successful at converting to the requested version. If version conversion is unsuccessful, the opset version of the exported model will be kept at 18. Please consider setting opset_version >=18 to leverage latest ONNX features
getitem: float32[4, 1]
Setting ONNX exporter to use operator set version 18 because the requested opset_version 17 is a lower version than we have implementations for. Automatic version conversion will be performed, which may not be successful at converting to the requested version. If version conversion is unsuccessful, the opset version of the exported model will be kept at 18. Please consider setting opset_version >=18 to leverage latest ONNX features
   opset_import: ["" : 18],

## `set NAME` shows that setting; a name that is none gets the nearest.
$ fxsh -q -c 'set opset_version 19' -c 'set opset_version' -c 'set exprot_params'
opset_version                19          # default-domain opset of the ONNX model (18..23)
-c:3: error: set: no setting named 'exprot_params'; did you mean 'export_params'?
  hint: settings: opset_version, input_names, output_names, dynamic_shapes, dynamic_axes, inputs, export_params, keep_initializers_as_inputs, do_constant_folding, optimize, external_data, verbose (`set` shows their values)
? 1

## A setting that takes a number says so.
$ fxsh -q -c 'load examples/data/mlp_cond.pt2' -c 'export opset_version=abc' -c 'set opset_version 99999999999999999999'
-c:2: error: export: opset_version takes a number, not 'abc'
  hint: fxsh exports opsets 18..23
-c:3: error: set: opset_version 99999999999999999999 is out of range: fxsh exports opsets 18..23
  hint: a lower opset (1..17) is raised to 18 with torch's warning, as torch.onnx.export does
? 1

## A program torch.export already traced keeps its example: other inputs are refused, not ignored;
## graph text without annotations takes them as from --input.
$ fxsh -q -c 'load examples/data/mlp_cond.pt2' -c 'set inputs x=f32[5,3]' -c 'export verbose=False'
-c:3: examples/data/mlp_cond.pt2: error: export inputs: the program was traced on x=f32[4,3] but inputs gives f32[5,3]: a program loaded already traced is not traced again, so its example inputs cannot change
  hint: re-export it with torch.export on other example inputs and load that, or load the model's TorchScript or torch-level graph, which export traces on `inputs`
? 1

$ fxsh -q -c 'load tests/fixtures/pt2/mlp.exported.fx.txt --weights tests/fixtures/pt2/mlp.pt2' -c 'export verbose=False inputs=x=f32[2,8]' -c 'verify --expected examples/data/mlp.io.json'
PASS linear_2: max abs diff 2.98e-08, max rel diff 9.61e-07
verify: 1 output within atol 0.0001, rtol 0.001
