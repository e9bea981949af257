## loop_const.t — the expected transcript of examples/loop_const.fxsh (checked by make check): the
## exported code is torch.export's (corpus python_for_const/exported.readable.txt, less the source
## lines fxsh has no copy of), and it computes torch's eager output exactly.
$ fxsh -echo -f examples/loop_const.fxsh
load examples/data/python_for_const.torchscript.txt --weights examples/data/python_for_const.pt2 --input x=f32[2,4]
rewrite for_1 scan
examples/loop_const.fxsh:9: examples/data/python_for_const.torchscript.txt:6: error: cannot rewrite %for_1 into scan: the body uses the loop index %i in %float_1 (builtins.float), but scan's combine_fn receives no index
  hint: no rewrite is needed: `for` over a constant count (3) is unrolled by `export`, as torch.export unrolls it, and the unrolled model is right for every input
rewrite for_1 while_loop
examples/loop_const.fxsh:10: examples/data/python_for_const.torchscript.txt:6: error: cannot rewrite %for_1 into while_loop: the body uses the loop index %i (in %float_1, builtins.float), a Python int that torch.while_loop does not give
  hint: no rewrite is needed: `for` over a constant count (3) is unrolled by `export`, as torch.export unrolls it, and the unrolled model is right for every input
export
[torch.onnx] Obtain model graph for `PyForConst([...]` with `torch.export.export(..., strict=False)`...
[torch.onnx] Obtain model graph for `PyForConst([...]` with `torch.export.export(..., strict=False)`... ✅
[torch.onnx] Run decompositions...
[torch.onnx] Run decompositions... ✅
[torch.onnx] Translate the graph into ONNX...
[torch.onnx] Translate the graph into ONNX... ✅
[torch.onnx] Optimize the ONNX graph...
[torch.onnx] Optimize the ONNX graph... ✅
examples/loop_const.fxsh:11: examples/data/python_for_const.torchscript.txt:6: note: %for_1: `for` over range(3) unrolled
show exported code
class GraphModule(torch.nn.Module):
    def forward(self, p_fc_weight: "f32[4, 4]", p_fc_bias: "f32[4]", x: "f32[2, 4]"):
        # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
        linear: "f32[2, 4]" = torch.ops.aten.linear.default(x, p_fc_weight, p_fc_bias);  x = None

        # File: /src/models/python_for_const/model.py:13 in forward
        tanh: "f32[2, 4]" = torch.ops.aten.tanh.default(linear);  linear = None
        add: "f32[2, 4]" = torch.ops.aten.add.Tensor(tanh, 0.0);  tanh = None

        # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
        linear_1: "f32[2, 4]" = torch.ops.aten.linear.default(add, p_fc_weight, p_fc_bias);  add = None

        # File: /src/models/python_for_const/model.py:13 in forward
        tanh_1: "f32[2, 4]" = torch.ops.aten.tanh.default(linear_1);  linear_1 = None
        add_1: "f32[2, 4]" = torch.ops.aten.add.Tensor(tanh_1, 1.0);  tanh_1 = None

        # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
        linear_2: "f32[2, 4]" = torch.ops.aten.linear.default(add_1, p_fc_weight, p_fc_bias);  add_1 = p_fc_weight = p_fc_bias = None

        # File: /src/models/python_for_const/model.py:13 in forward
        tanh_2: "f32[2, 4]" = torch.ops.aten.tanh.default(linear_2);  linear_2 = None
        add_2: "f32[2, 4]" = torch.ops.aten.add.Tensor(tanh_2, 2.0);  tanh_2 = None
        return (add_2,)

verify --expected examples/data/python_for_const.io.json
PASS add_2: max abs diff 0, max rel diff 0
verify: 1 output within atol 0.0001, rtol 0.001
? 1
