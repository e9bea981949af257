## sweep.t — `verify A B --shapes NAME=SIZES`: both models on random inputs whose dynamic
## dimensions take each size (every combination when several are swept), the first size where they
## part named; `run` and `compare` take one size per dimension.

## A model whose inputs say dynamic but whose graph is not (a Reshape to the example's [3, 6]):
## it agrees with the dynamic one at the example's size only. The static one cannot run at the others.
$ fxsh -q -c 'load tests/fixtures/sweep/static_graph.onnx.txt' -c 'verify onnx tests/fixtures/sweep/dynamic_graph.onnx.txt --shapes batch=1,3,7'
batch=1: FAIL: onnx: node flat (Reshape): cannot reshape 6 elements into 18
batch=3:
  PASS y: max abs diff 0, max rel diff 0
batch=7: FAIL: onnx: node flat (Reshape): cannot reshape 42 elements into 18
-c:2: error: verify: onnx and tests/fixtures/sweep/dynamic_graph.onnx.txt differ at 2 of 3 sizes, first at batch=1
  hint: at batch=1 a model does not run (its line above says why): no value was compared
? 1

## The same as JSON: one object per size, the evaluation's problem where a model does not run.
$ fxsh -q -c 'load tests/fixtures/sweep/static_graph.onnx.txt' -c 'verify onnx tests/fixtures/sweep/dynamic_graph.onnx.txt --shapes batch=1,3 --json' 2>/dev/null
{"fxsh":1,"command":"verify","stage":"onnx","reference":"tests/fixtures/sweep/dynamic_graph.onnx.txt","inputs":null,"seed":0,"atol":0.0001,"rtol":0.001,"sweep":[{"sizes":{"batch":1},"ran":false,"problem":"onnx: node flat (Reshape): cannot reshape 6 elements into 18","outputs":[],"ok":false},{"sizes":{"batch":3},"ran":true,"problem":null,"outputs":[{"name":"y","pass":true,"max_abs_diff":0,"max_rel_diff":0,"mismatched":0,"elements":18,"problem":null,"dtype":"float32","shape":[3,6],"expected_dtype":"float32","expected_shape":[3,6]}],"ok":true}],"failed":1,"first_failed":"batch=1","ok":false}
? 1

## The dynamic model against itself passes everywhere, size 0 included.
$ fxsh -q -c 'load tests/fixtures/sweep/dynamic_graph.onnx.txt' -c 'verify onnx tests/fixtures/sweep/dynamic_graph.onnx.txt --shapes batch=0,1,3'
batch=0:
  PASS y: max abs diff 0, max rel diff 0
batch=1:
  PASS y: max abs diff 0, max rel diff 0
batch=3:
  PASS y: max abs diff 0, max rel diff 0
verify: onnx and tests/fixtures/sweep/dynamic_graph.onnx.txt agree at all 3 sizes (atol 0.0001, rtol 0.001)

## A torch.export program with every dimension dynamic, exported and optimized, over two
## dimensions at once: INPUT:AXIS names one (the other inputs of its symbol take the same size),
## a symbol the other; every combination runs.
$ fxsh -q -c 'load tests/fixtures/models/flatten_dyn/program.pt2' -c export -c 'verify exported optimized --shapes x:0=1,3 --shapes s33=0,4' | grep -v '^  PASS'
x:0=1, s33=0:
x:0=1, s33=4:
x:0=3, s33=0:
x:0=3, s33=4:
verify: exported and optimized agree at all 4 sizes (atol 0.0001, rtol 0.001)

## run takes the sizes too.
$ fxsh -q -c 'load tests/fixtures/sweep/dynamic_graph.onnx.txt' -c 'run --shapes batch=0'
y: float32[0, 6]
array([], shape=(0, 6), dtype=float32)

## compare at one size finds the node (here the Reshape's shape, a constant that differs).
$ fxsh -q -c 'load tests/fixtures/sweep/static_graph.onnx.txt' -c 'compare onnx tests/fixtures/sweep/dynamic_graph.onnx.txt --shapes batch=3' 2>&1 | head -2
compare: onnx vs tests/fixtures/sweep/dynamic_graph.onnx.txt on random inputs (seed 0): 3 values in both, 3 computed by both
first divergence: shape (Constant in both)

## What is refused: a list for compare, a dimension no input has (the dynamic ones named), a
## malformed option, a negative size, an axis past the evaluator's rank, --shapes with fixed
## inputs, and more combinations than 256.
$ fxsh -q -c 'load tests/fixtures/sweep/static_graph.onnx.txt' -c 'compare onnx tests/fixtures/sweep/dynamic_graph.onnx.txt --shapes batch=3,7'
-c:2: error: compare: --shapes takes one size per dimension here
  hint: `verify A B --shapes NAME=1,2,7` sweeps sizes and names the first that differs; compare it there
? 1

$ fxsh -q -c 'load tests/fixtures/sweep/static_graph.onnx.txt' -c 'verify onnx tests/fixtures/sweep/dynamic_graph.onnx.txt --shapes seq=1,3'
-c:2: error: verify: --shapes: no input of the model has a dimension seq
  hint: its dynamic dimensions: x:0 (batch)
? 1

$ fxsh -q -c 'load tests/fixtures/sweep/static_graph.onnx.txt' -c 'verify onnx tests/fixtures/sweep/dynamic_graph.onnx.txt --shapes batch'
-c:2: error: verify: --shapes needs NAME=SIZES, not 'batch'
  hint: e.g. --shapes batch=1,2,7 (a dimension the inputs name) or --shapes x:0=1,2,7 (input x's axis 0)
? 1

$ fxsh -q -c 'load tests/fixtures/sweep/static_graph.onnx.txt' -c 'verify onnx tests/fixtures/sweep/dynamic_graph.onnx.txt --shapes batch=1,-2'
-c:2: error: verify: --shapes batch: sizes are integers from 0 to 16777216, comma-separated, not '1,-2'
? 1

$ fxsh -q -c 'load tests/fixtures/sweep/static_graph.onnx.txt' -c 'verify onnx tests/fixtures/sweep/dynamic_graph.onnx.txt --shapes x:9=1'
-c:2: error: verify: --shapes: 'x:9' is not INPUT:AXIS with an axis from 0 to 7
? 1

$ fxsh -q -c 'load tests/fixtures/sweep/static_graph.onnx.txt' -c 'verify onnx --expected x.npz --shapes batch=1'
-c:2: error: verify: --shapes sizes random inputs; it does not go with --expected
  hint: verify STAGE_A STAGE_B --shapes NAME=SIZES
? 1

$ fxsh -q -c 'load tests/fixtures/models/flatten_dyn/program.pt2' -c export -c 'verify exported optimized --shapes x:0=1,2,3,4,5,6,7,8 --shapes x:1=1,2,3,4,5,6,7,8 --shapes x:2=1,2,3,4,5'
-c:3: error: verify: --shapes makes 320 combinations of sizes; at most 256
? 1

## A torch-level program whose code reads x.shape[0] (reshape(B, -1), expand(B, 4); the corpus's
## dynamic_batch as print(gm) shows it) captured with a dynamic batch: the size is read with
## sym_size, and the model is right at every batch — before, the capture kept the example's 3
## while the ONNX inputs claimed a dynamic batch.
$ fxsh -q -c 'load tests/fixtures/fx/dynamic_batch_torch_level.module.txt --input x=f32[3,2,3]' -c 'export dynamic_shapes=x:0=batch export_params=False' -c 'verify exported optimized --shapes x:0=1,2,5' | grep -v '^  PASS'
x:0=1:
x:0=2:
x:0=5:
verify: exported and optimized agree at all 3 sizes (atol 0.0001, rtol 0.001)
