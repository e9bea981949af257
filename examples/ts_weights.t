## ts_weights.t — the expected transcript of examples/ts_weights.fxsh (checked by make check): io.json
## holds torch's eager output for x of [3, 4].
$ fxsh -echo -f examples/ts_weights.fxsh
load examples/data/python_if_data.torchscript.txt
examples/ts_weights.fxsh:9: examples/data/python_if_data.torchscript.txt: note: meta: parameter or buffer of unknown shape: %p_mlp_0_weight, %p_mlp_0_bias, %p_mlp_2_weight, %p_mlp_2_bias left without value meta
  hint: load its weights: load FILE --weights W (a .pt2, an .onnx or a .safetensors file)
examples/ts_weights.fxsh:9: examples/data/python_if_data.torchscript.txt: note: meta: placeholder without value meta: %x left without value meta
  hint: declare the input's dtype and shape (load --input NAME=DTYPE[DIMS])
examples/ts_weights.fxsh:9: examples/data/python_if_data.torchscript.txt: note: meta: subgraph placeholder without value meta: %linear_1 left without value meta
examples/ts_weights.fxsh:9: examples/data/python_if_data.torchscript.txt: note: meta: 7 more nodes left without value meta because an input has none
export verbose=False
examples/ts_weights.fxsh:10: error: export: the input x has no dtype and shape (torch.export needs example inputs)
  hint: the program does not say which size x takes: load it with the model's weights (they give the sizes its layers expect), or with the shape of its example input (the model's io.json): load examples/data/python_if_data.torchscript.txt --weights W --input x=DTYPE[SIZES]
load examples/data/python_if_data.torchscript.txt --input x=f32[3,4]
examples/ts_weights.fxsh:12: examples/data/python_if_data.torchscript.txt: note: meta: parameter or buffer of unknown shape: %p_mlp_0_weight, %p_mlp_0_bias, %p_mlp_2_weight, %p_mlp_2_bias left without value meta
  hint: load its weights: load FILE --weights W (a .pt2, an .onnx or a .safetensors file)
examples/ts_weights.fxsh:12: examples/data/python_if_data.torchscript.txt: note: meta: subgraph placeholder without value meta: %linear_1 left without value meta
examples/ts_weights.fxsh:12: examples/data/python_if_data.torchscript.txt: note: meta: 7 more nodes left without value meta because an input has none
rewrite if_1 cond --clone
examples/ts_weights.fxsh:13: examples/data/python_if_data.torchscript.txt:18: note: false_graph_0 returned its input linear_1 unchanged: it now returns linear_1.clone()
export verbose=False
examples/ts_weights.fxsh:14: examples/data/python_if_data.torchscript.txt: note: meta: parameter or buffer of unknown shape: %p_mlp_0_weight, %p_mlp_0_bias, %p_mlp_2_weight, %p_mlp_2_bias left without value meta
  hint: load its weights: load FILE --weights W (a .pt2, an .onnx or a .safetensors file)
examples/ts_weights.fxsh:14: examples/data/python_if_data.torchscript.txt: note: meta: subgraph placeholder without value meta: %linear_1 left without value meta
examples/ts_weights.fxsh:14: examples/data/python_if_data.torchscript.txt: note: meta: 9 more nodes left without value meta because an input has none
examples/ts_weights.fxsh:14: error: export: 4 weights (mlp.0.weight, mlp.0.bias, mlp.2.weight, mlp.2.bias) have no dtype and shape: the program does not say what they are, so no ONNX model can declare them
  hint: load the model's weights: load examples/data/python_if_data.torchscript.txt --input x=f32[3,4] --weights W (its .pt2, .onnx or .safetensors file)
load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]
examples/ts_weights.fxsh:16: note: load: 1 edit of the previous program dropped with it
  hint: `save-patch FILE` before `load` keeps edits as a script that replays them
rewrite if_1 cond --clone
examples/ts_weights.fxsh:17: examples/data/python_if_data.torchscript.txt:18: note: false_graph_0 returned its input linear_1 unchanged: it now returns linear_1.clone()
export verbose=False
check
check: ok
verify --expected examples/data/python_if_data.io.json
PASS getitem: max abs diff 5.96e-08, max rel diff 4.88e-07
verify: 1 output within atol 0.0001, rtol 0.001
? 1
