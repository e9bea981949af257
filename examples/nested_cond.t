## nested_cond.t — expected transcript of examples/nested_cond.fxsh (checked by make check).
$ fxsh -echo -f examples/nested_cond.fxsh
load examples/data/python_if_nested.torchscript.txt --weights examples/data/python_if_nested.weights.onnx --input x=f32[2,3]
rewrite if_1 cond
examples/nested_cond.fxsh:10: examples/data/python_if_nested.torchscript.txt:15: error: cannot rewrite %if_1: branch true_graph_0 still has a Python if (%if_1)
  hint: rewrite %true_graph_0.if_1 cond, then rewrite %if_1 cond (the inner `if` first: torch.cond branches hold no Python `if`)
rewrite true_graph_0.if_1 cond
rewrite if_1 cond
history
  1  fx          rewrite true_graph_0.if_1 cond
  2  fx          rewrite if_1 cond
show code
class GraphModule(torch.nn.Module):
    def forward(self, p_fc_weight: "f32[3, 3]", p_fc_bias: "f32[3]", x: "f32[2, 3]"):
        # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
        linear: "f32[2, 3]" = torch.ops.aten.linear.default(x, p_fc_weight, p_fc_bias);  x = p_fc_weight = p_fc_bias = None

        # File: /src/models/python_if_nested/model.py:13 in forward
        sum_1: "f32[]" = torch.ops.aten.sum.default(linear)
        gt: "b8[]" = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
        true_graph_0 = self.true_graph_0
        false_graph_0 = self.false_graph_0
        cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (linear,));  gt = true_graph_0 = false_graph_0 = linear = None
        getitem: "f32[2, 3]" = cond[0];  cond = None
        return (getitem,)

    class true_graph_0(torch.nn.Module):
        def forward(self, linear: "f32[2, 3]"):
            # File: /src/models/python_if_nested/model.py:14 in forward
            max_1: "f32[]" = torch.ops.aten.max.default(linear)
            gt: "b8[]" = torch.ops.aten.gt.Scalar(max_1, 1.0);  max_1 = None
            true_graph_0 = self.true_graph_0
            false_graph_0 = self.false_graph_0
            cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (linear,));  gt = true_graph_0 = false_graph_0 = linear = None
            getitem: "f32[2, 3]" = cond[0];  cond = None
            return (getitem,)

        class true_graph_0(torch.nn.Module):
            def forward(self, linear: "f32[2, 3]"):
                # File: /src/models/python_if_nested/model.py:15 in forward
                mul: "f32[2, 3]" = torch.ops.aten.mul.Tensor(linear, 2.0);  linear = None
                return (mul,)

        class false_graph_0(torch.nn.Module):
            def forward(self, linear: "f32[2, 3]"):
                # File: /src/models/python_if_nested/model.py:17 in forward
                add: "f32[2, 3]" = torch.ops.aten.add.Tensor(linear, 1.0);  linear = None
                return (add,)

    class false_graph_0(torch.nn.Module):
        def forward(self, linear: "f32[2, 3]"):
            # File: /src/models/python_if_nested/model.py:19 in forward
            neg: "f32[2, 3]" = torch.ops.aten.neg.default(linear);  linear = None
            return (neg,)

export
[torch.onnx] Obtain model graph for `PyIfNested([...]` with `torch.export.export(..., strict=False)`...
[torch.onnx] Obtain model graph for `PyIfNested([...]` with `torch.export.export(..., strict=False)`... ✅
[torch.onnx] Run decompositions...
[torch.onnx] Run decompositions... ✅
[torch.onnx] Translate the graph into ONNX...
[torch.onnx] Translate the graph into ONNX... ✅
[torch.onnx] Optimize the ONNX graph...
[torch.onnx] Optimize the ONNX graph... ✅
show optimized
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[2,3] x) => (float[2,3] getitem_2) 
   <float[3,3] "fc.weight" =  {-0.00432252,0.309716,-0.475185,-0.424895,-0.222369,0.154821,-0.0114391,0.457775,-0.0512364}, float[3] "fc.bias" =  {0.152774,-0.174483,-0.113487}, float scalar_tensor_default =  {0}, float val_1 =  {1}, float val_2 =  {2}, float[3,3] "fc.weight", float[3] "fc.bias", float scalar_tensor_default, float val_1, float val_2, float[2,3] linear, float sum_1, bool gt>
{
   [node_linear] linear = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (x, "fc.weight", "fc.bias")
   [node_sum_1] sum_1 = ReduceSum <noop_with_empty_axes: int = 0, keepdims: int = 0> (linear)
   [node_gt] gt = Greater (sum_1, scalar_tensor_default)
   [node_cond__0] getitem_2 = If (gt) <then_branch: graph = true_graph_0 () => (float[2,3] getitem_true_graph_0) 
      <float max_1, bool gt_2>
{
      [node_max_1] max_1 = ReduceMax <noop_with_empty_axes: int = 0, keepdims: int = 0> (linear)
      [node_gt] gt_2 = Greater (max_1, val_1)
      [node_cond__0] getitem_true_graph_0 = If (gt_2) <then_branch: graph = true_graph_0 () => (float[2,3] mul_true_graph_0) {
         [node_mul] mul_true_graph_0 = Mul (linear, val_2)
      }, else_branch: graph = false_graph_0 () => (float[2,3] add_false_graph_0) {
         [node_add] add_false_graph_0 = Add (linear, val_1)
      }>
   }, else_branch: graph = false_graph_0 () => (float[2,3] neg_false_graph_0) {
      [node_neg] neg_false_graph_0 = Neg (linear)
   }>
}
check
check: ok
? 1
