## lowerings.t — lowerings computed in C from constant arguments (as_strided's flat indices,
## histc's bins), checked with the reference evaluator against torch's values, and the inputs they
## refuse with an error naming the node.

## as_strided(x, [2, 2], [1, 2], 1) and histc(x, 4, 0, 6): torch gives
## [[1., 3.], [2.5, 5.5]] and [2., 1., 1., 2.].
$ fxsh -c 'load tests/fixtures/translate/strided/as_strided.fx.txt --input x=f32[2,3]' -c 'run --inputs tests/fixtures/translate/strided/inputs.json'
as_strided: float32[2, 2]
array([[1. , 3. ],
       [2.5, 5.5]], dtype=float32)
histc: float32[4]
array([2., 1., 1., 2.], dtype=float32)

## A view that reads past the input's elements has no ONNX equivalent.
$ fxsh -c 'load tests/fixtures/translate/strided/as_strided_outside.fx.txt --input x=f32[2,3]' -c export 2>&1 | grep -m1 error
-c:2: tests/fixtures/translate/strided/as_strided_outside.fx.txt: error: cannot translate torch.ops.aten.as_strided.default (node %as_strided): as_strided reads storage element 6, which the input (6 elements from storage offset 0) does not hold: memory outside the tensor has no ONNX equivalent

## Dropout in training mode is random: no model reproduces it, so export stops at the node.
$ fxsh -c 'load tests/fixtures/translate/strided/dropout_train.fx.txt --input x=f32[2,3]' -c export 2>&1 | grep -m1 'error: cannot' | sed 's/rule at [^ ]* applies/rule applies/'
-c:2: tests/fixtures/translate/strided/dropout_train.fx.txt: error: cannot translate torch.ops.aten.dropout.default (node %dropout): no alternative of the rule applies to these arguments; the alternatives need `train == False`, `p == 0`

## embedding_bag exports its bags; a graph that reads offset2bag (or bag_size, max_indices)
## stops at the node.
$ fxsh -c 'load tests/fixtures/translate/strided/embedding_bag_offset2bag.fx.txt --input w=f32[10,3] --input i=i64[8] --input o=i64[4]' -c export 2>&1 | grep -m1 error
-c:2: tests/fixtures/translate/strided/embedding_bag_offset2bag.fx.txt: error: cannot translate torch.ops.aten.embedding_bag.padding_idx (node %embedding_bag): embedding_bag: only its first output (the bags) can be exported; offset2bag, bag_size and max_indices have no lowering

## The missing-lowering hint's YAML is a template, not a lowering: `ops load` refuses it at the
## FILL_IN line until the ONNX ops replace it, then takes it (newcomer-2 finding 6: an Identity
## body loaded and made the model silently wrong).
$ cd $FXSH_SCRATCH && ln -s "$OLDPWD/tests" tests && fxsh -q -c 'load tests/fixtures/repl/nolowering_aten.fx.txt --input x=f32[2,3]' -c 'export verbose=False' 2>&1 | sed -n '/^    opset/,/lowering:/p' | sed 's/^    //' > t.yaml; fxsh -c "ops load t.yaml"; sed 's/FILL_IN/Neg/' t.yaml > t2.yaml && fxsh -q -c "ops load t2.yaml" -c 'ops show aten.polygamma.default'
-c:1: t.yaml:4:63: error: ONNX has no operator 'FILL_IN'
    polygamma (self) => (result) { result = FILL_IN (self) }
                                                            ^
  hint: a lowering is an ONNX text function: name (x, y) => (z) { z = Add (x, y) }
# t2.yaml:3
- target: aten.polygamma.default
  opset: 18
  schema: polygamma(int n, Tensor self) -> Tensor
  lowering: |
    polygamma (self) => (result) { result = Neg (self) }

## A target written as torch's registry names the default overload (aten.tanh) is aten.tanh.default,
## with torch's schema or with its own.
$ cd $FXSH_SCRATCH && printf 'opset: 18\nrules:\n  - target: aten.tanh\n    schema: tanh(Tensor self) -> Tensor\n    lowering: "tanh (self) => (result) { result = Tanh (self) }"\n' > tanh.yaml && fxsh -q -c "ops load tanh.yaml" -c 'ops show aten.tanh.default' | head -3
# tanh.yaml:3
- target: aten.tanh.default
  opset: 18

## `ops show` takes the target without its overload too, as `ops load` and `replace` do.
$ fxsh -q -c 'ops show aten.relu' | sed -n 2p
- target: aten.relu.default

## A custom op that mutates its argument and whose call has no users (torch.library.custom_op with
## mutates_args): it is not dead code, and with no lowering the export fails at it, as torch.onnx's
## does, instead of writing a model that computes without it (tests/fixtures/hop/custom_mutating_op).
$ fxsh -q -c 'load tests/fixtures/hop/custom_mutating_op/program.pt2' -c export 2>&1 | head -1
-c:2: tests/fixtures/hop/custom_mutating_op/program.pt2: error: No ONNX lowering for torch.ops.fxshtest.scale_.default (node %scale_)
