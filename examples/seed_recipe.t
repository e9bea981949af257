## seed_recipe.t — expected transcript of examples/seed_recipe.fxsh: export fails like torch on the
## data-dependent `if`, the rewrite into torch.cond, and the export that then succeeds.
## (exit status 1: the failing export is part of the lesson; its hint is the rewrite that works)
$ fxsh -echo -f examples/seed_recipe.fxsh
load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]
export
[torch.onnx] Obtain model graph for `PyIfData([...]` with `torch.export.export(..., strict=False)`...



def forward(self, arg0_1: "f32[8, 4]", arg1_1: "f32[8]", arg2_1: "f32[4, 8]", arg3_1: "f32[4]", arg4_1: "f32[3, 4]"):
    # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
    linear: "f32[3, 8]" = torch.ops.aten.linear.default(arg4_1, arg0_1, arg1_1);  arg4_1 = arg0_1 = arg1_1 = None
    
    # File: /usr/lib/python3/dist-packages/torch/nn/functional.py:1777 in forward
    relu: "f32[3, 8]" = torch.ops.aten.relu.default(linear);  linear = None
    
    # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
    linear_1: "f32[3, 4]" = torch.ops.aten.linear.default(relu, arg2_1, arg3_1);  relu = arg2_1 = arg3_1 = None
    
    # File: /src/models/python_if_data/model.py:14 in forward
    sum_1: "f32[]" = torch.ops.aten.sum.default(linear_1);  linear_1 = None
    ne: "b8[]" = torch.ops.aten.ne.Scalar(sum_1, 0);  sum_1 = None
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
  File "/src/models/python_if_data/model.py", line 14, in forward
[torch.onnx] Obtain model graph for `PyIfData([...]` with `torch.export.export(..., strict=False)`... ❌
[torch.onnx] Obtain model graph for `PyIfData([...]` with `torch.export.export(..., strict=True)`...
[torch.onnx] Obtain model graph for `PyIfData([...]` with `torch.export.export(..., strict=True)`... ❌
examples/seed_recipe.fxsh:11: /src/models/python_if_data/model.py:14: error: export failed at %if_1: Python `if` on the tensor %sum_1 (data-dependent: Could not guard on data-dependent expression Eq(u0, 1))
  hint: rewrite %if_1 cond --clone (false_graph_0 returns its input linear_1 unchanged, which torch.cond rejects as aliasing: --clone returns a copy instead, torch's fix)
examples/seed_recipe.fxsh:11: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
rewrite if_1 cond --clone
examples/seed_recipe.fxsh:14: examples/data/python_if_data.torchscript.txt:18: note: false_graph_0 returned its input linear_1 unchanged: it now returns linear_1.clone()
show code
class GraphModule(torch.nn.Module):
    def forward(self, p_mlp_0_weight: "f32[8, 4]", p_mlp_0_bias: "f32[8]", p_mlp_2_weight: "f32[4, 8]", p_mlp_2_bias: "f32[4]", x: "f32[3, 4]"):
        # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
        linear: "f32[3, 8]" = torch.ops.aten.linear.default(x, p_mlp_0_weight, p_mlp_0_bias);  x = p_mlp_0_weight = p_mlp_0_bias = None

        # File: /usr/lib/python3/dist-packages/torch/nn/functional.py:1777 in forward
        relu: "f32[3, 8]" = torch.ops.aten.relu.default(linear);  linear = None

        # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
        linear_1: "f32[3, 4]" = torch.ops.aten.linear.default(relu, p_mlp_2_weight, p_mlp_2_bias);  relu = p_mlp_2_weight = p_mlp_2_bias = None

        # File: /src/models/python_if_data/model.py:14 in forward
        sum_1: "f32[]" = torch.ops.aten.sum.default(linear_1)
        ne: "b8[]" = torch.ops.aten.ne.Scalar(sum_1, 0);  sum_1 = None
        true_graph_0 = self.true_graph_0
        false_graph_0 = self.false_graph_0
        cond = torch.ops.higher_order.cond(ne, true_graph_0, false_graph_0, (linear_1,));  ne = true_graph_0 = false_graph_0 = linear_1 = None
        getitem: "f32[3, 4]" = cond[0];  cond = None
        return (getitem,)

    class true_graph_0(torch.nn.Module):
        def forward(self, linear_1: "f32[3, 4]"):
            # File: /src/models/python_if_data/model.py:15 in forward
            mul: "f32[3, 4]" = torch.ops.aten.mul.Tensor(linear_1, 2);  linear_1 = None
            return (mul,)

    class false_graph_0(torch.nn.Module):
        def forward(self, linear_1: "f32[3, 4]"):
            # No stacktrace found for following nodes
            clone: "f32[3, 4]" = torch.ops.aten.clone.default(linear_1);  linear_1 = None
            return (clone,)

export
[torch.onnx] Obtain model graph for `PyIfData([...]` with `torch.export.export(..., strict=False)`...
[torch.onnx] Obtain model graph for `PyIfData([...]` with `torch.export.export(..., strict=False)`... ✅
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
main_graph (float[3,4] x) => (float[3,4] getitem) 
   <float[8,4] "mlp.0.weight" =  {-0.00374341,0.268222,-0.411523,-0.36797,-0.192577,0.134079,-0.00990659,0.396445,-0.044372,0.132306,-0.151107,-0.0982827,-0.477674,-0.331141,-0.206112,0.0185218,0.197668,0.300011,-0.338971,-0.217731,0.181609,0.415194,-0.1029,0.374156,-0.0805917,0.052907,0.452738,-0.463835,-0.314769,-0.126583,-0.1949,0.432}, float[8] "mlp.0.bias" =  {-0.32409,-0.230166,-0.34932,-0.46828,-0.29187,0.429799,0.223109,0.242336}, float[4,8] "mlp.2.weight" =  {0.0185939,-0.181261,0.0598158,-0.330111,-0.255466,-0.182267,0.22307,0.207296,-0.156799,-0.012757,0.226119,0.351479,0.140319,0.0477625,0.237053,-0.208173,0.0658826,-0.274112,-0.245043,-0.18264,0.159973,0.142185,-0.209428,0.106811,0.194091,-0.0446246,0.0134992,0.08192,0.219336,0.33948,-0.272457,-0.129567}, float[4] "mlp.2.bias" =  {0.13895,0.292936,0.307665,0.31196}, float scalar_tensor_default =  {0}, float scalar_tensor_default_2 =  {2}, float[8,4] "mlp.0.weight", float[8] "mlp.0.bias", float[4,8] "mlp.2.weight", float[4] "mlp.2.bias", float scalar_tensor_default, float scalar_tensor_default_2, float[3,8] linear, float[3,8] relu, float[3,4] linear_1, float sum_1, bool val_1, bool ne>
{
   [node_linear] linear = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (x, "mlp.0.weight", "mlp.0.bias")
   [node_relu] relu = Relu (linear)
   [node_linear_1] linear_1 = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (relu, "mlp.2.weight", "mlp.2.bias")
   [node_sum_1] sum_1 = ReduceSum <noop_with_empty_axes: int = 0, keepdims: int = 0> (linear_1)
   [node_Equal_1] val_1 = Equal (sum_1, scalar_tensor_default)
   [node_ne] ne = Not (val_1)
   [node_cond__0] getitem = If (ne) <then_branch: graph = true_graph_0 () => (float[3,4] mul_true_graph_0) {
      [node_mul] mul_true_graph_0 = Mul (linear_1, scalar_tensor_default_2)
   }, else_branch: graph = false_graph_0 () => (float[3,4] clone_false_graph_0) {
      [node_clone] clone_false_graph_0 = Identity (linear_1)
   }>
}
check
check: ok
history
  1  fx          rewrite if_1 cond --clone
? 1
