## shape_guard.t — expected transcript of examples/shape_guard.fxsh: a size `if` under a named
## dynamic batch fails export as torch.export fails (Constraints violated, the suggested fix, checked
## against torch 2.14); the fix gives a program with the range constraint, right at every size of
## its range and wrong outside it (batch 2, which the ONNX model cannot refuse); the rewrite into
## torch.cond needs no range. (exit status 1: the failing steps are the lesson)
$ fxsh -echo -f examples/shape_guard.fxsh
load examples/data/python_if_shape.torchscript.txt --weights examples/data/python_if_shape.pt2 --input x=f32[4,3]
export dynamic_shapes=x:0=batch
[torch.onnx] Obtain model graph for `PyIfShape([...]` with `torch.export.export(..., strict=False)`...
[torch.onnx] Obtain model graph for `PyIfShape([...]` with `torch.export.export(..., strict=False)`... ❌
[torch.onnx] Obtain model graph for `PyIfShape([...]` with `torch.export.export(..., strict=True)`...
[torch.onnx] Obtain model graph for `PyIfShape([...]` with `torch.export.export(..., strict=True)`... ❌
examples/shape_guard.fxsh:14: examples/data/python_if_shape.torchscript.txt:13: error: %if_1: Constraints violated (batch)! Not all values of batch = L['x'].size()[0] in the specified range satisfy the generated guard 3 <= L['x'].size()[0] and L['x'].size()[0] <= IntInfinity() (the condition `batch > 2`, True for the example batch=4)
  hint: Suggested fixes: batch = Dim('batch', min=3), i.e. dynamic_shapes x:0=Dim('batch', min=3); or keep both branches: rewrite if_1 cond
examples/shape_guard.fxsh:14: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
export dynamic_shapes="x:0=Dim('batch', min=3)" verbose=False
show exported program
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, p_fc_weight: "f32[3, 3]", p_fc_bias: "f32[3]", x: "f32[batch, 3]"):
            # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
            linear: "f32[batch, 3]" = torch.ops.aten.linear.default(x, p_fc_weight, p_fc_bias);  x = p_fc_weight = p_fc_bias = None
    
            # File: /src/models/python_if_shape/model.py:14 in forward
            mul: "f32[batch, 3]" = torch.ops.aten.mul.Tensor(linear, 2);  linear = None
            return (mul,)
    
Graph signature:
    # inputs
    p_fc_weight: PARAMETER target='fc.weight'
    p_fc_bias: PARAMETER target='fc.bias'
    x: USER_INPUT
    
    # outputs
    mul: USER_OUTPUT
    
Range constraints: {batch: VR[3, int_oo]}

verify exported optimized --shapes batch=3,4,9
batch=3:
  PASS mul: max abs diff 0, max rel diff 0
batch=4:
  PASS mul: max abs diff 0, max rel diff 0
batch=9:
  PASS mul: max abs diff 0, max rel diff 0
verify: exported and optimized agree at all 3 sizes (atol 0.0001, rtol 0.001)
verify --expected examples/data/python_if_shape.batch6.json
PASS mul: max abs diff 1.19e-07, max rel diff 3.95e-07
verify: 1 output within atol 0.0001, rtol 0.001
verify --expected examples/data/python_if_shape.batch2.json
FAIL mul: max abs diff 1.23, max rel diff 1.61 (6 of 6 elements beyond tolerance)
examples/shape_guard.fxsh:22: error: verify: 1 of 1 output differs (atol 0.0001, rtol 0.001)
rewrite if_1 cond
export dynamic_shapes=x:0=batch verbose=False
verify exported optimized --shapes batch=1,2,3,9
batch=1:
  PASS getitem: max abs diff 0, max rel diff 0
batch=2:
  PASS getitem: max abs diff 0, max rel diff 0
batch=3:
  PASS getitem: max abs diff 0, max rel diff 0
batch=9:
  PASS getitem: max abs diff 0, max rel diff 0
verify: exported and optimized agree at all 4 sizes (atol 0.0001, rtol 0.001)
verify --expected examples/data/python_if_shape.batch2.json
PASS getitem: max abs diff 0, max rel diff 0
verify: 1 output within atol 0.0001, rtol 0.001
? 1
