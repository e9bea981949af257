## check_types.t — `check` checks each ai.onnx node against its operator's signature as onnx's
## checker does (full_check): the operator at the imported opset, input counts, attributes,
## and element types. tests/fixtures/check/README has the real checker's verdict on each model.

$ fxsh -c 'load tests/fixtures/check/arity.txt' -c check
-c:2: tests/fixtures/check/arity.txt: error: main: node 0 (Relu): 2 inputs; Relu-14 takes 1 to 1
-c:2: error: check: 1 problem found
? 1

$ fxsh -c 'load tests/fixtures/check/attr_required.txt' -c check
-c:2: tests/fixtures/check/attr_required.txt: error: main: node 0 (Concat): required attribute 'axis' of Concat-13 is missing
-c:2: error: check: 1 problem found
? 1

$ fxsh -c 'load tests/fixtures/check/attr_type.txt' -c check
-c:2: tests/fixtures/check/attr_type.txt: error: main: node 0 (Concat): attribute 'axis' is a float; Concat-13 takes an int
-c:2: error: check: 1 problem found
? 1

$ fxsh -c 'load tests/fixtures/check/attr_unknown.txt' -c check
-c:2: tests/fixtures/check/attr_unknown.txt: error: main: node 0 (Relu): unrecognized attribute 'alpha' for Relu-14
-c:2: error: check: 1 problem found
? 1

$ fxsh -c 'load tests/fixtures/check/cast_decl.txt' -c check
-c:2: tests/fixtures/check/cast_decl.txt: error: main: node 0 (Cast): output 'z' is tensor(int64), but the model declares it tensor(float)
-c:2: error: check: 1 problem found
? 1

$ fxsh -c 'load tests/fixtures/check/mul_mismatch.txt' -c check
-c:2: tests/fixtures/check/mul_mismatch.txt: error: main: node 0 (Mul): type parameter T is bound to tensor(float) by input 'x' and to tensor(int64) by input 'y'
-c:2: error: check: 1 problem found
? 1

$ fxsh -c 'load tests/fixtures/check/opset_too_old.txt' -c check
-c:2: tests/fixtures/check/opset_too_old.txt: error: main: node 0 (Gelu): Gelu exists from opset 20; the model imports ai.onnx opset 12
-c:2: error: check: 1 problem found
? 1

$ fxsh -c 'load tests/fixtures/check/unknown_op.txt' -c check
-c:2: tests/fixtures/check/unknown_op.txt: error: main: node 0 (Frobnicate): ai.onnx has no operator Frobnicate
-c:2: error: check: 1 problem found
? 1

$ fxsh -c 'load tests/fixtures/check/ok_types.txt' -c check
check: ok

## save refuses such a model (fxsh never writes one the checker would reject) unless --force.
$ fxsh -c 'load tests/fixtures/check/mul_mismatch.txt' -c "save $FXSH_SCRATCH/m.onnx" 2>&1 | sed "s|$FXSH_SCRATCH|SCRATCH|g"; ls $FXSH_SCRATCH
-c:2: tests/fixtures/check/mul_mismatch.txt: error: main: node 0 (Mul): type parameter T is bound to tensor(float) by input 'x' and to tensor(int64) by input 'y'
-c:2: SCRATCH/m.onnx: error: save: not written: the model fails `check` (1 problem)
  hint: fix the model, or write it as it is with `save SCRATCH/m.onnx --force`
