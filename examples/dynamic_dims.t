## dynamic_dims.t — expected transcript of examples/dynamic_dims.fxsh: the 0/1 rule refusing an
## example of size 1 for a named dimension (torch.export's text), Dim.AUTO narrowed by a size `if`
## (the warning, `guards`, `explain`), and a sweep where the exported program refuses the size
## outside its range as torch's ep.module() does. (exit status 1: the failures are the lesson)
$ fxsh -echo -f examples/dynamic_dims.fxsh
load examples/data/python_if_shape.torchscript.txt --weights examples/data/python_if_shape.pt2 --input x=f32[1,3]
export dynamic_shapes=x:0=batch verbose=False
examples/dynamic_dims.fxsh:5: error: dynamic_shapes: Constraints violated (batch)! You marked batch as dynamic but your code specialized it to be a constant (1) (the example's size: torch.export specializes sizes 0 and 1)
  hint: Suggested fixes: batch = 1, i.e. x:0=STATIC; or give an example of size 2 or more
examples/dynamic_dims.fxsh:5: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
set inputs x=f32[4,3]
export dynamic_shapes=x:0=AUTO verbose=False
examples/dynamic_dims.fxsh:8: examples/data/python_if_shape.torchscript.txt:13: warning: %if_1: the condition `s0 > 2` keeps true_graph_0 for s0 in VR[3, int_oo] only: torch.export narrows s0 to VR[3, int_oo] (the program's range constraints), which the ONNX model's inputs do not say
  hint: keep both branches with `rewrite if_1 cond`; check other sizes with `verify exported optimized --shapes x:0=...`
guards
%if_1  `s0 > 2`  True at s0=4: narrowed s0 to VR[3, int_oo]
    /src/models/python_if_shape/model.py:13 in forward
    examples/data/python_if_shape.torchscript.txt:13
explain x:0
%if_1  `s0 > 2`  True at s0=4: narrowed s0 to VR[3, int_oo]
    /src/models/python_if_shape/model.py:13 in forward
    examples/data/python_if_shape.torchscript.txt:13
x:0: narrowed s0 to VR[3, int_oo] at %if_1
verify exported optimized --shapes x:0=2,3,4,64
x:0=2: FAIL: exported: Guard failed: x.size()[0] >= 3 (the input's size is 2; s0 is in VR[3, int_oo])
x:0=3:
  PASS mul: max abs diff 0, max rel diff 0
x:0=4:
  PASS mul: max abs diff 0, max rel diff 0
x:0=64:
  PASS mul: max abs diff 0, max rel diff 0
examples/dynamic_dims.fxsh:13: error: verify: exported and optimized differ at 1 of 4 sizes, first at x:0=2
  hint: at x:0=2 a model does not run (its line above says why): no value was compared
? 1
