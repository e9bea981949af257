## cond_two_outputs.t — expected transcript of examples/cond_two_outputs.fxsh (checked by make check).
## (exit status 1: the export that fails on the data-dependent `if` is part of the lesson)
$ fxsh -echo -f examples/cond_two_outputs.fxsh
load examples/data/python_if_two_outputs.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]
export
[torch.onnx] Obtain model graph for `PyIfTwoOutputs([...]` with `torch.export.export(..., strict=False)`...



def forward(self, arg0_1: "f32[8, 4]", arg1_1: "f32[8]", arg2_1: "f32[4, 8]", arg3_1: "f32[4]", arg4_1: "f32[3, 4]"):
    # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
    linear: "f32[3, 8]" = torch.ops.aten.linear.default(arg4_1, arg0_1, arg1_1);  arg4_1 = arg0_1 = arg1_1 = None
    
    # File: /usr/lib/python3/dist-packages/torch/nn/functional.py:1777 in forward
    relu: "f32[3, 8]" = torch.ops.aten.relu.default(linear);  linear = None
    
    # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
    linear_1: "f32[3, 4]" = torch.ops.aten.linear.default(relu, arg2_1, arg3_1);  relu = arg2_1 = arg3_1 = None
    
    # File: /src/models/python_if_two_outputs/model.py:15 in forward
    sum_1: "f32[]" = torch.ops.aten.sum.default(linear_1);  linear_1 = None
    gt: "b8[]" = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
    ne: "b8[]" = torch.ops.aten.ne.Scalar(gt, 0);  gt = None
    item: "Sym(Eq(u0, 1))" = torch.ops.aten.item.default(ne);  ne = item = None
    
Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like symbols: none)

consider using data-dependent friendly APIs such as guard_or_false, guard_or_true and statically_known_true.
Caused by: (_export/non_strict_utils.py:1377 in __torch_function__)
For more information, run with TORCH_LOGS="dynamic"
For extended logs when we create symbols, also add TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL="u0"
If you suspect the guard was triggered from C++, add TORCHDYNAMO_EXTENDED_DEBUG_CPP=1
For more debugging help, see https://docs.google.com/document/d/1HSuTTVvYH1pTew89Rtpeu84Ht3nQEFTYhAX3Ypa_xJs/edit?usp=sharing

For C++ stack trace, run with TORCHDYNAMO_EXTENDED_DEBUG_CPP=1

The following call raised this error:
  File "/src/models/python_if_two_outputs/model.py", line 15, in forward
[torch.onnx] Obtain model graph for `PyIfTwoOutputs([...]` with `torch.export.export(..., strict=False)`... ❌
[torch.onnx] Obtain model graph for `PyIfTwoOutputs([...]` with `torch.export.export(..., strict=True)`...
[torch.onnx] Obtain model graph for `PyIfTwoOutputs([...]` with `torch.export.export(..., strict=True)`... ❌
examples/cond_two_outputs.fxsh:16: /src/models/python_if_two_outputs/model.py:15: error: export failed at %if_1: Python `if` on the tensor %gt (data-dependent: Could not guard on data-dependent expression Eq(u0, 1))
  hint: rewrite %if_1 cond
examples/cond_two_outputs.fxsh:16: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
rewrite if_1 cond
show code
class GraphModule(torch.nn.Module):
    def forward(self, p_mlp_0_weight: "f32[8, 4]", p_mlp_0_bias: "f32[8]", p_mlp_2_weight: "f32[4, 8]", p_mlp_2_bias: "f32[4]", x: "f32[3, 4]"):
        # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
        linear: "f32[3, 8]" = torch.ops.aten.linear.default(x, p_mlp_0_weight, p_mlp_0_bias);  x = p_mlp_0_weight = p_mlp_0_bias = None

        # File: /usr/lib/python3/dist-packages/torch/nn/functional.py:1777 in forward
        relu: "f32[3, 8]" = torch.ops.aten.relu.default(linear);  linear = None

        # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
        linear_1: "f32[3, 4]" = torch.ops.aten.linear.default(relu, p_mlp_2_weight, p_mlp_2_bias);  relu = p_mlp_2_weight = p_mlp_2_bias = None

        # File: /src/models/python_if_two_outputs/model.py:15 in forward
        sum_1: "f32[]" = torch.ops.aten.sum.default(linear_1)
        gt: "b8[]" = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
        true_graph_0 = self.true_graph_0
        false_graph_0 = self.false_graph_0
        cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (linear_1,));  gt = true_graph_0 = false_graph_0 = linear_1 = None
        getitem: "f32[3, 4]" = cond[0]
        getitem_1: "f32[3, 4]" = cond[1];  cond = None
        return (getitem, getitem_1)

    class true_graph_0(torch.nn.Module):
        def forward(self, linear_1: "f32[3, 4]"):
            # File: /src/models/python_if_two_outputs/model.py:16 in forward
            mul: "f32[3, 4]" = torch.ops.aten.mul.Tensor(linear_1, 2.0)

            # File: /src/models/python_if_two_outputs/model.py:17 in forward
            add: "f32[3, 4]" = torch.ops.aten.add.Tensor(linear_1, 1.0);  linear_1 = None
            return (mul, add)

    class false_graph_0(torch.nn.Module):
        def forward(self, linear_1: "f32[3, 4]"):
            # File: /src/models/python_if_two_outputs/model.py:19 in forward
            neg: "f32[3, 4]" = torch.ops.aten.neg.default(linear_1)

            # File: /src/models/python_if_two_outputs/model.py:20 in forward
            sub: "f32[3, 4]" = torch.ops.aten.sub.Tensor(linear_1, 1.0);  linear_1 = None
            return (neg, sub)

export
[torch.onnx] Obtain model graph for `PyIfTwoOutputs([...]` with `torch.export.export(..., strict=False)`...
[torch.onnx] Obtain model graph for `PyIfTwoOutputs([...]` with `torch.export.export(..., strict=False)`... ✅
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
main_graph (float[3,4] x) => (float[3,4] getitem, float[3,4] getitem_1) 
   <float[8,4] "mlp.0.weight" =  {-0.00374341,0.268222,-0.411523,-0.36797,-0.192577,0.134079,-0.00990659,0.396445,-0.044372,0.132306,-0.151107,-0.0982827,-0.477674,-0.331141,-0.206112,0.0185218,0.197668,0.300011,-0.338971,-0.217731,0.181609,0.415194,-0.1029,0.374156,-0.0805917,0.052907,0.452738,-0.463835,-0.314769,-0.126583,-0.1949,0.432}, float[8] "mlp.0.bias" =  {-0.32409,-0.230166,-0.34932,-0.46828,-0.29187,0.429799,0.223109,0.242336}, float[4,8] "mlp.2.weight" =  {0.0185939,-0.181261,0.0598158,-0.330111,-0.255466,-0.182267,0.22307,0.207296,-0.156799,-0.012757,0.226119,0.351479,0.140319,0.0477625,0.237053,-0.208173,0.0658826,-0.274112,-0.245043,-0.18264,0.159973,0.142185,-0.209428,0.106811,0.194091,-0.0446246,0.0134992,0.08192,0.219336,0.33948,-0.272457,-0.129567}, float[4] "mlp.2.bias" =  {0.13895,0.292936,0.307665,0.31196}, float scalar_tensor_default =  {0}, float val_1 =  {2}, float val_2 =  {1}, float[8,4] "mlp.0.weight", float[8] "mlp.0.bias", float[4,8] "mlp.2.weight", float[4] "mlp.2.bias", float scalar_tensor_default, float val_1, float val_2, float[3,8] linear, float[3,8] relu, float[3,4] linear_1, float sum_1, bool gt>
{
   [node_linear] linear = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (x, "mlp.0.weight", "mlp.0.bias")
   [node_relu] relu = Relu (linear)
   [node_linear_1] linear_1 = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (relu, "mlp.2.weight", "mlp.2.bias")
   [node_sum_1] sum_1 = ReduceSum <noop_with_empty_axes: int = 0, keepdims: int = 0> (linear_1)
   [node_gt] gt = Greater (sum_1, scalar_tensor_default)
   [node_cond__1] getitem, getitem_1 = If (gt) <then_branch: graph = true_graph_0 () => (float[3,4] mul_true_graph_0, float[3,4] add_true_graph_0) {
      [node_mul] mul_true_graph_0 = Mul (linear_1, val_1)
      [node_add] add_true_graph_0 = Add (linear_1, val_2)
   }, else_branch: graph = false_graph_0 () => (float[3,4] neg_false_graph_0, float[3,4] sub_false_graph_0) {
      [node_neg] neg_false_graph_0 = Neg (linear_1)
      [node_sub] sub_false_graph_0 = Sub (linear_1, val_2)
   }>
}
check
check: ok
? 1
