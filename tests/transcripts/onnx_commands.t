## onnx_commands.t — ONNX models: load by content, summary, node, find, stats, check, weights,
## dot, save (binary and text) and the reload of what was saved.
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c summary -c 'node node_gt' -c 'find Gemm' -c check
ir_version: 10
producer: pytorch 2.14.1+debian
opsets: ai.onnx:20
graph: main_graph
inputs: 1
  input x: float[4,3]
outputs: 1
  output getitem: float[4,1]
nodes: 7
nodes_with_subgraphs: 11
subgraphs: 2
ops: 8 distinct
  op Cast: 2
  op Constant: 2
  op Gemm: 2
  op Greater: 1
  op If: 1
  op Mul: 1
  op Neg: 1
  op ReduceSum: 1
initializers: 4
initializer_bytes: 44 (44 B)
functions: 0
node:    node_gt
op:      Greater
index:   5 in the main graph
inputs:
  0: sum_1  : float
  1: scalar_tensor_default  : float
outputs:
  0: gt  : bool  (1 user)
module:  model.MLPCond/gt: aten.gt.Tensor
fx node: %gt : [num_users=1] = call_function[target=torch.ops.aten.gt.Tensor](args = (%sum_1, %scalar_tensor_default), kwargs = {})
stack:
  /src/models/mlp_cond/model.py:13 in forward: return torch.cond(out.sum() > 0, lambda o: o * 2, lambda o: -o, (out,))
text:
   [node_gt] gt = Greater (sum_1, scalar_tensor_default)
node_linear  Gemm
node_linear_1  Gemm
check: ok

## find ignores case: an op type as the user types it (finding 9).
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c 'find gemm'
node_linear  Gemm
node_linear_1  Gemm

$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c 'weights seq.0.weight' -c 'weights nosuch'
seq.0.weight: float[2, 3]  6 elements
min -0.475185  max 0.309716  mean -0.110372
first: [-0.00432252, 0.309716, -0.475185, -0.424895, -0.222369, 0.154821]
-c:3: error: weights: no initializer named 'nosuch'
  hint: `summary` lists the initializers
? 1

## save then load then show is stable, in both the binary and the text form.
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c "save $FXSH_SCRATCH/m.onnx" -c "save $FXSH_SCRATCH/m.txt" && fxsh -c "load $FXSH_SCRATCH/m.onnx" -c show > $FXSH_SCRATCH/a && fxsh -c "load $FXSH_SCRATCH/m.txt" -c show > $FXSH_SCRATCH/b && { cat tests/fixtures/repl/mlp_cond.onnx.txt; echo; } | cmp - $FXSH_SCRATCH/a && cmp $FXSH_SCRATCH/a $FXSH_SCRATCH/b && echo stable
stable

## A failed save (the target is a directory) leaves no temporary file behind.
$ mkdir $FXSH_SCRATCH/out; fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c "save $FXSH_SCRATCH/out" 2>&1 | sed "s|$FXSH_SCRATCH|SCRATCH|g"; ls $FXSH_SCRATCH
-c:2: SCRATCH/out: error: is a directory: not replaced
  hint: fxsh writes regular files (a new name, or an existing file) and character devices such as /dev/stdout
out

$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c "dot $FXSH_SCRATCH/g.dot" && head -1 $FXSH_SCRATCH/g.dot && grep -c 'subgraph "cluster_' $FXSH_SCRATCH/g.dot
digraph "main_graph" {
2

## Commands that need an ONNX model say so on an FX stage.
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.fx.txt' -c summary
-c:2: error: summary: the exported stage is an FX program, not an ONNX model
  hint: run `export` first (or `step` until the onnx stage): it makes the ONNX model `summary` works on
? 1

## A truncated protobuf is a clear error.
$ head -c 300 tests/fixtures/repl/mlp_cond.onnx > $FXSH_SCRATCH/t.onnx; fxsh -c "load $FXSH_SCRATCH/t.onnx" 2>&1 | sed "s|$FXSH_SCRATCH|SCRATCH|g"
-c:1: SCRATCH/t.onnx: error: invalid ONNX protobuf at byte 26: declared length of ModelProto is 10433 bytes but only 271 remain

## params on an ONNX model lists its initializers, one per line (finding 16), as polygraphy inspect does.
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c params
name          dtype  shape   bytes
seq.0.weight  float  [2, 3]  24
seq.0.bias    float  [2]     8
seq.1.weight  float  [1, 2]  8
seq.1.bias    float  [1]     4
total: 4 initializers, 11 elements, 44 bytes
