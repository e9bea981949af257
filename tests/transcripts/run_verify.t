## run_verify.t — `run` and `verify`: the reference evaluator on ONNX stages and on FX stages
## (translated first), inputs from JSON / .npz / random, numpy's repr, --save, PASS/FAIL lines,
## and the errors a user can cause (bad files, wrong shapes, unsupported ops).

## Inputs from a JSON file of named nested lists; numpy's repr, summarization of a long array.
$ fxsh -c 'load tests/fixtures/eval/ops.txt' -c 'run --inputs tests/fixtures/eval/ops.inputs.json'
sum: float32[2, 3]
array([[ 2.  , -1.5 ,  0.75],
       [ 3.5 ,  4.5 , -4.5 ]], dtype=float32)
picked: float32[2, 2]
array([[ 0.75,  2.  ],
       [-4.5 ,  3.5 ]], dtype=float32)
ramp: float32[1200]
array([0.0000000e+00, 1.0000000e-03, 2.0000000e-03, ..., 1.1970000e+00,
       1.1980001e+00, 1.1990000e+00], shape=(1200,), dtype=float32)
positive: bool[2, 3]
array([[ True, False,  True],
       [ True,  True, False]])

## Random inputs are deterministic for a seed; --save writes an .npz that verify reads back
## (same seed: the same inputs, PASS; another seed: other inputs, FAIL).
$ fxsh -c 'load tests/fixtures/eval/ops.txt' -c "run --seed 1 --save $FXSH_SCRATCH/out.npz" -c "verify --seed 1 --expected $FXSH_SCRATCH/out.npz" -c "verify --seed 2 --expected $FXSH_SCRATCH/out.npz"
sum: float32[2, 3]
array([[1.4439102, 1.2688489, 1.2565114],
       [1.3217078, 0.9673319, 1.048403 ]], dtype=float32)
picked: float32[2, 2]
array([[1.2565114, 1.2688489],
       [1.048403 , 0.9673319]], dtype=float32)
ramp: float32[1200]
array([0.0000000e+00, 1.0000000e-03, 2.0000000e-03, ..., 1.1970000e+00,
       1.1980001e+00, 1.1990000e+00], shape=(1200,), dtype=float32)
positive: bool[2, 3]
array([[ True,  True,  True],
       [ True,  True,  True]])
PASS sum: max abs diff 0, max rel diff 0
PASS picked: max abs diff 0, max rel diff 0
PASS ramp: max abs diff 0, max rel diff 0
PASS positive: max abs diff 0, max rel diff 0
verify: 4 outputs within atol 0.0001, rtol 0.001
FAIL sum: max abs diff 0.451, max rel diff 0.431 (6 of 6 elements beyond tolerance)
FAIL picked: max abs diff 0.443, max rel diff 0.423 (4 of 4 elements beyond tolerance)
PASS ramp: max abs diff 0, max rel diff 0
PASS positive: max abs diff 0, max rel diff 0
-c:4: error: verify: 2 of 4 outputs differ (atol 0.0001, rtol 0.001)
? 1

## A random index can be out of range: the error names the node.
$ fxsh -c 'load tests/fixtures/eval/ops.txt' -c 'run --seed 7'
-c:2: error: run: node picked (Gather): index 3 is out of range for a dimension of 3
? 1

## torch.onnx's model against the corpus's io.json (its inputs are used): PASS, then a
## deliberately wrong expectation: FAIL and exit status 1.
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c 'verify --expected tests/fixtures/eval/mlp_cond.io.json' -c 'verify --expected tests/fixtures/eval/mlp_cond.wrong.json --atol 1e-5 --rtol 1e-5'
PASS getitem: max abs diff 1.49e-08, max rel diff 2.35e-07
verify: 1 output within atol 0.0001, rtol 0.001
FAIL getitem: max abs diff 0.5, max rel diff 0.759 (1 of 4 elements beyond tolerance)
-c:3: error: verify: 1 of 1 output differs (atol 1e-05, rtol 1e-05)
? 1

## An FX stage is translated with the session's settings, then evaluated; two stages compare on
## the same inputs.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'run exported --inputs tests/fixtures/eval/mlp_cond.io.json' -c 'export verbose=False' -c 'verify exported optimized' -c 'verify optimized --expected tests/fixtures/eval/mlp_cond.io.json'
getitem: float32[4, 1]
array([[0.19239226],
       [0.15873326],
       [0.09038436],
       [0.03167092]], dtype=float32)
PASS getitem: max abs diff 0, max rel diff 0
verify: 1 output within atol 0.0001, rtol 0.001
PASS getitem: max abs diff 1.49e-08, max rel diff 2.35e-07
verify: 1 output within atol 0.0001, rtol 0.001

## Errors: a clear message naming the file or node, a non-zero status, never a crash.
$ fxsh -c run
-c:1: error: run: nothing loaded (use `load FILE` first)
? 1
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c 'run --inputs tests/fixtures/eval/bad.npz'
-c:2: error: run: tests/fixtures/eval/bad.npz: not a readable .npz archive: Not a zip archive
? 1
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c 'run --inputs tests/fixtures/eval/no_such_file.npz'
-c:2: error: run: tests/fixtures/eval/no_such_file.npz: cannot open: No such file or directory
? 1
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c 'run --inputs tests/fixtures/eval/ops.inputs.json'
-c:2: error: run: input x: tests/fixtures/eval/ops.inputs.json holds shape [2, 3], the model takes [4, 3]
? 1
$ fxsh -c 'load tests/fixtures/eval/ops.txt' -c 'run --inputs tests/fixtures/eval/mlp_cond.io.json'
-c:2: error: run: input x: tests/fixtures/eval/mlp_cond.io.json holds shape [4, 3], the model takes [2, 3]
? 1
$ fxsh -c 'load examples/data/symbolic_op.pt2' -c 'export verbose=False' -c 'run'
-c:3: error: run: node node__symbolic (custom_domain.CustomOp) is not supported by the evaluator
? 1
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c 'run --seed x' -c 'verify' -c 'run fx' -c 'run --save'
-c:2: error: run: --seed needs an integer from 0 to 18446744073709551615, not x
-c:3: error: verify: nothing to compare with
  hint: verify [STAGE] --expected FILE, or verify STAGE_A STAGE_B
-c:4: error: run: the fx stage is empty
  hint: `stages` lists what each holds; `export` or `step` fills them
-c:5: error: run: missing value after '--save'
? 1
