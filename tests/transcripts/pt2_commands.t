## pt2_commands.t — torch.export archives: signature, params, weights (read in place), errors.
## (show graph / code / program of every corpus archive is checked by tests/corpus_repl.sh.)
$ fxsh -c 'load tests/fixtures/pt2/mlp.pt2' -c stages -c signature -c params
  fx          -
* exported    FX program  (tests/fixtures/pt2/mlp.pt2)
  decomposed  -
  onnx        -
  optimized   -
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
name        kind       dtype          shape     bytes
fc1.weight  parameter  torch.float32  [16, 8]   512
fc1.bias    parameter  torch.float32  [16]      64
fc2.weight  parameter  torch.float32  [16, 16]  1024
fc2.bias    parameter  torch.float32  [16]      64
fc3.weight  parameter  torch.float32  [4, 16]   256
fc3.bias    parameter  torch.float32  [4]       16
total: 6 tensors, 484 elements, 1936 bytes

$ fxsh -c 'load tests/fixtures/pt2/mlp.pt2' -c 'weights fc1.bias' -c 'weights p_fc3_bias' -c 'weights nosuch'
fc1.bias: parameter torch.float32, shape [16], 16 elements, 64 bytes (mapped)
min -0.28978  max 0.335668  mean 0.0437741
[-0.123685, -0.28978, -0.0752062, 0.0755743, -0.230328, -0.0181441, 0.253091, -0.0363454, 0.00982603, -0.0305007, ...]
fc3.bias: parameter torch.float32, shape [4], 4 elements, 16 bytes (mapped)
min -0.205922  max 0.13046  mean -0.0939432
[-0.176483, -0.123828, -0.205922, 0.13046]
-c:4: tests/fixtures/pt2/mlp.pt2: error: no weight named 'nosuch'
  hint: `params` lists the names
? 1

## The JSON alone loads, without weights; asking for values says why there are none.
$ fxsh -c 'load tests/fixtures/pt2/mlp.json' -c 'signature' -c 'weights fc1.bias'
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
-c:3: tests/fixtures/pt2/mlp.json: error: weight 'fc1.bias' has no data: the program was loaded from JSON without its .pt2 archive
  hint: load the .pt2 file to see weight values
? 1

## A .pt2 whose archive is cut short is a clear error.
$ head -c 4000 tests/fixtures/pt2/mlp.pt2 > $FXSH_SCRATCH/cut.pt2; fxsh -c "load $FXSH_SCRATCH/cut.pt2" 2>&1 | sed "s|$FXSH_SCRATCH|SCRATCH|g"
-c:1: SCRATCH/cut.pt2: error: not a .pt2 archive: Not a zip archive

## dynamic_shapes on a program torch.export captured with static shapes is refused: the graph keeps
## the example's sizes, so the model would only claim a dynamic batch (newcomer-2 finding 4;
## torch.onnx.export(ep, dynamic_shapes=...) keeps such a program static, ignoring the setting).
## A program fxsh captures itself (TorchScript) takes it, as examples/shape_guard shows.
$ fxsh -q -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False dynamic_shapes=x:0=batch' -c stages
-c:2: examples/data/mlp_cond.pt2: error: export dynamic_shapes: the program was captured with static shapes (x:0 (4)): marking them dynamic would only relabel the model's inputs while the graph keeps the example's sizes
  hint: re-export it with torch.export(..., dynamic_shapes=...) and load that; or load the model's TorchScript or torch-level graph, which fxsh captures itself with the dynamic_shapes given
  fx          -
* exported    FX program  (examples/data/mlp_cond.pt2)
  decomposed  -
  onnx        -
  optimized   -
? 1
