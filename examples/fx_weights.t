## fx_weights.t — the expected transcript of examples/fx_weights.fxsh (checked by make check); it
## runs in a scratch directory, where `save mlp.onnx` writes. The saved model passes onnx.checker,
## and ONNX Runtime gives torch's eager output within 2.98e-08 (checked with onnxruntime 1.23.2).
$ cd $FXSH_SCRATCH && ln -s "$OLDPWD/examples" examples && fxsh -echo -f examples/fx_weights.fxsh
load examples/data/mlp.exported.fx.txt --weights examples/data/mlp.pt2 --input x=f32[2,8]
signature
inputs:
  USER_INPUT   x: f32[2, 8]
  PARAMETER    p_fc1_weight: f32[16, 8] <- fc1.weight
  PARAMETER    p_fc1_bias: f32[16] <- fc1.bias
  PARAMETER    p_fc2_weight: f32[16, 16] <- fc2.weight
  PARAMETER    p_fc2_bias: f32[16] <- fc2.bias
  PARAMETER    p_fc3_weight: f32[4, 16] <- fc3.weight
  PARAMETER    p_fc3_bias: f32[4] <- fc3.bias
outputs:
  USER_OUTPUT  linear_2
export
[torch.onnx] Run decompositions...
[torch.onnx] Run decompositions... ✅
[torch.onnx] Translate the graph into ONNX...
[torch.onnx] Translate the graph into ONNX... ✅
[torch.onnx] Optimize the ONNX graph...
[torch.onnx] Optimize the ONNX graph... ✅
save mlp.onnx
check
check: ok
verify --expected examples/data/mlp.io.json
PASS linear_2: max abs diff 2.98e-08, max rel diff 9.61e-07
verify: 1 output within atol 0.0001, rtol 0.001
