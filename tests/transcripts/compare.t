## compare.t — `compare A B`: two stages or models evaluated node by node on the same inputs,
## values matched by name; the first divergence with both values and the node's source line.

## fxsh's export of mlp_cond against torch.onnx's own model (tests/fixtures/repl/mlp_cond.onnx,
## torch 2.14's onnx_dynamo.onnx) on the corpus's example input: every shared value agrees.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c 'compare onnx tests/fixtures/repl/mlp_cond.onnx --inputs tests/fixtures/eval/mlp_cond.io.json' -c 'compare exported optimized --seed 3'
compare: onnx vs tests/fixtures/repl/mlp_cond.onnx on the inputs of tests/fixtures/eval/mlp_cond.io.json: 9 values in both, 7 computed by both (0 only in onnx, 1 only in tests/fixtures/repl/mlp_cond.onnx)
no divergence: all 7 within atol 0.0001, rtol 0.001 (largest abs diff 0, at linear)
compare: exported vs optimized on random inputs (seed 3): 7 values in both, 6 computed by both (2 only in exported, 0 only in optimized)
no divergence: all 6 within atol 0.0001, rtol 0.001 (largest abs diff 0, at linear)

## A deliberately broken node: linear_1 loses its bias (`set linear_1 2=None`). compare names
## that node, summarises both values and shows where it came from.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'set linear_1 2=None' -c 'export verbose=False' -c 'compare optimized tests/fixtures/repl/mlp_cond.onnx --inputs tests/fixtures/eval/mlp_cond.io.json'
compare: optimized vs tests/fixtures/repl/mlp_cond.onnx on the inputs of tests/fixtures/eval/mlp_cond.io.json: 7 values in both, 5 computed by both (0 only in optimized, 3 only in tests/fixtures/repl/mlp_cond.onnx)
first divergence: linear_1 (MatMul node node_linear_1 in optimized; Gemm node node_linear_1 in tests/fixtures/repl/mlp_cond.onnx)
  optimized:                         float32[4, 1] min 0.0213046 max 0.182026 mean 0.0954017
  tests/fixtures/repl/mlp_cond.onnx: float32[4, 1] min -0.192392 max -0.0316709 mean -0.118295
  max abs diff 0.214, max rel diff 6.75: 4 of 4 elements beyond atol 0.0001, rtol 0.001; the largest at [3, 0]: 0.182026 vs -0.0316709
  where (optimized):
    module:  model.MLPCond/seq: torch.nn.modules.container.Sequential/seq.1: torch.nn.modules.linear.Linear/linear_1: aten.linear.default
    fx node: %linear_1 : [num_users=2] = call_function[target=torch.ops.aten.linear.default](args = (%linear, %p_seq_1_weight, None), kwargs = {})
    stack:
      /src/models/mlp_cond/model.py:12 in forward: out = self.seq(x)
      /usr/lib/python3/dist-packages/torch/nn/modules/container.py:259 in forward: input = module(input)
      /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward: return F.linear(input, self.weight, self.bias)
-c:4: error: compare: optimized and tests/fixtures/repl/mlp_cond.onnx diverge at linear_1 (4 of 5 values differ)
? 1

## A node inserted before linear_1 (a negation): the divergence shows at linear_1, and its input
## that torch's model does not have is pointed at.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'insert linear neg torch.ops.aten.neg.default (%linear,)' -c 'rewire linear_1 0 %neg' -c 'export verbose=False' -c 'compare optimized tests/fixtures/repl/mlp_cond.onnx --seed 1'
compare: optimized vs tests/fixtures/repl/mlp_cond.onnx on random inputs (seed 1): 7 values in both, 6 computed by both (1 only in optimized, 3 only in tests/fixtures/repl/mlp_cond.onnx)
first divergence: linear_1 (Gemm node node_linear_1 in both)
  optimized:                         float32[4, 1] min -0.282591 max -0.215411 mean -0.253205
  tests/fixtures/repl/mlp_cond.onnx: float32[4, 1] min -0.211983 max -0.144803 mean -0.174189
  max abs diff 0.138, max rel diff 0.952: 4 of 4 elements beyond atol 0.0001, rtol 0.001; the largest at [1, 0]: -0.282591 vs -0.144803
  its input neg (Neg node node_neg) has no counterpart in tests/fixtures/repl/mlp_cond.onnx: look there first
  where (optimized):
    module:  model.MLPCond/seq: torch.nn.modules.container.Sequential/seq.1: torch.nn.modules.linear.Linear/linear_1: aten.linear.default
    fx node: %linear_1 : [num_users=2] = call_function[target=torch.ops.aten.linear.default](args = (%neg, %p_seq_1_weight, %p_seq_1_bias), kwargs = {})
    stack:
      /src/models/mlp_cond/model.py:12 in forward: out = self.seq(x)
      /usr/lib/python3/dist-packages/torch/nn/modules/container.py:259 in forward: input = module(input)
      /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward: return F.linear(input, self.weight, self.bias)
-c:5: error: compare: optimized and tests/fixtures/repl/mlp_cond.onnx diverge at linear_1 (4 of 6 values differ)
? 1

## Errors: one argument, a file that is not an ONNX model, a missing file, nothing loaded.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'compare exported'
-c:2: error: compare: wrong number of arguments
  hint: usage: compare A B [--inputs FILE] [--seed N] [--shapes NAME=SIZE] [--atol A] [--rtol R] [--json]
? 1
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'compare exported examples/data/mlp_cond.pt2'
-c:2: error: compare: examples/data/mlp_cond.pt2 is not an ONNX model
  hint: load a PyTorch program and export it first; then `compare STAGE examples/data/mlp_cond.pt2` names its stage
? 1
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'compare exported no/such/model.onnx'
-c:2: error: compare: 'no/such/model.onnx' is neither a stage nor a readable file
  hint: stages: fx, exported, decomposed, onnx, optimized; or an .onnx / ONNX text file
? 1
$ fxsh -c 'compare onnx optimized'
-c:1: error: compare: the onnx stage is empty
  hint: `stages` lists what each holds; `export` or `step` fills them
? 1

## diff takes model files as compare and verify do (finding 16): fxsh's stage against another export.
$ fxsh -q -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c 'diff optimized tests/fixtures/repl/mlp_cond.onnx' -c 'diff optimized nosuch.onnx'
+ Constant_0  Constant()
+ scalar_tensor_default  Cast(val_0)
optimized -> tests/fixtures/repl/mlp_cond.onnx: 2 added, 0 removed, 0 changed (5 -> 7 nodes)
-c:4: error: diff: 'nosuch.onnx' is neither a stage nor a readable file
  hint: stages: fx, exported, decomposed, onnx, optimized; or an .onnx / ONNX text file
? 1
