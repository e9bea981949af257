## shape_guard.t — expected transcript of examples/shape_guard.fxsh: a size `if` under a dynamic
## batch is specialized (with a warning), verify on two batch sizes shows the model is wrong for one,
## and the rewrite into torch.cond fixes it. (exit status 1: the failing verify is the lesson)
$ fxsh -echo -f examples/shape_guard.fxsh
load examples/data/python_if_shape.torchscript.txt --weights examples/data/python_if_shape.pt2 --input x=f32[4,3]
export dynamic_shapes=x:0=batch
[torch.onnx] Obtain model graph for `PyIfShape([...]` with `torch.export.export(..., strict=False)`...
[torch.onnx] Obtain model graph for `PyIfShape([...]` with `torch.export.export(..., strict=False)`... ✅
[torch.onnx] Run decompositions...
[torch.onnx] Run decompositions... ✅
[torch.onnx] Translate the graph into ONNX...
[torch.onnx] Translate the graph into ONNX... ✅
[torch.onnx] Optimize the ONNX graph...
[torch.onnx] Optimize the ONNX graph... ✅
examples/shape_guard.fxsh:13: examples/data/python_if_shape.torchscript.txt:13: warning: %if_1: the condition `batch > 2` reads the dynamic dimension batch; torch.export decides it for the example (batch=4: True) and keeps only true_graph_0, while the dimension stays dynamic: the exported model is silently wrong for every size where the condition is False
  hint: check a size of the other branch with `verify --expected FILE`; keep both branches with `rewrite if_1 cond`, or export with that dimension static
show exported code
class GraphModule(torch.nn.Module):
    def forward(self, p_fc_weight: "f32[3, 3]", p_fc_bias: "f32[3]", x: "f32[batch, 3]"):
        # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
        linear: "f32[batch, 3]" = torch.ops.aten.linear.default(x, p_fc_weight, p_fc_bias);  x = p_fc_weight = p_fc_bias = None

        # File: /src/models/python_if_shape/model.py:14 in forward
        mul: "f32[batch, 3]" = torch.ops.aten.mul.Tensor(linear, 2);  linear = None
        return (mul,)

verify --expected examples/data/python_if_shape.io.json
PASS mul: max abs diff 1.19e-07, max rel diff 4.61e-07
verify: 1 output within atol 0.0001, rtol 0.001
verify --expected examples/data/python_if_shape.batch6.json
PASS mul: max abs diff 1.19e-07, max rel diff 3.95e-07
verify: 1 output within atol 0.0001, rtol 0.001
verify --expected examples/data/python_if_shape.batch2.json
FAIL mul: max abs diff 1.23, max rel diff 1.61 (6 of 6 elements beyond tolerance)
examples/shape_guard.fxsh:18: error: verify: 1 of 1 output differs (atol 0.0001, rtol 0.001)
rewrite if_1 cond
export dynamic_shapes=x:0=batch verbose=False
show optimized
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[batch,3] x) => (float[batch,3] getitem) 
   <float[3,3] "fc.weight" =  {-0.00432252,0.309716,-0.475185,-0.424895,-0.222369,0.154821,-0.0114391,0.457775,-0.0512364}, float[3] "fc.bias" =  {0.152774,-0.174483,-0.113487}, int64 val_1 =  {0}, int64 val_2 =  {2}, float scalar_tensor_default =  {2}, float scalar_tensor_default_2 =  {1}, float[3,3] "fc.weight", float[3] "fc.bias", int64 val_1, int64 val_2, float scalar_tensor_default, float scalar_tensor_default_2, float[batch,3] linear, int64[2] val_0, int64 sym_size_int_1, bool gt>
{
   [node_linear] linear = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (x, "fc.weight", "fc.bias")
   [node_Shape_0] val_0 = Shape <start: int = 0> (x)
   [node_sym_size_int_1] sym_size_int_1 = Gather <axis: int = 0> (val_0, val_1)
   [node_gt] gt = Greater (sym_size_int_1, val_2)
   [node_cond__0] getitem = If (gt) <then_branch: graph = true_graph_0 () => (float[batch,3] mul_true_graph_0) {
      [node_mul] mul_true_graph_0 = Mul (linear, scalar_tensor_default)
   }, else_branch: graph = false_graph_0 () => (float[batch,3] sub_false_graph_0) {
      [node_sub] sub_false_graph_0 = Sub (linear, scalar_tensor_default_2)
   }>
}
verify --expected examples/data/python_if_shape.batch6.json
PASS getitem: max abs diff 1.19e-07, max rel diff 3.95e-07
verify: 1 output within atol 0.0001, rtol 0.001
verify --expected examples/data/python_if_shape.batch2.json
PASS getitem: max abs diff 0, max rel diff 0
verify: 1 output within atol 0.0001, rtol 0.001
? 1
