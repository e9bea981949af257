## legacy_trace.t — expected transcript of examples/legacy_trace.fxsh: `export --legacy trace` bakes
## in the branch the example input takes, with torch's TracerWarning; verify passes for the example
## input and fails for one that takes the other branch (exit status 1: that failure is the lesson).
$ fxsh -echo -f examples/legacy_trace.fxsh
load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]
export --legacy trace --inputs examples/data/python_if_data.io.json
DeprecationWarning: You are using the legacy TorchScript-based ONNX export. Starting in PyTorch 2.9, the new torch.export-based ONNX exporter has become the default. Learn more about the new export logic: https://docs.pytorch.org/docs/stable/onnx_export.html. For exporting control flow: https://pytorch.org/tutorials/beginner/onnx/export_control_flow_model_to_onnx_tutorial.html
/src/models/python_if_data/model.py:14: TracerWarning: Converting a tensor to a Python boolean might cause the trace to be incorrect. We can't record the data flow of Python values, so this value will be treated as a constant in the future. This means that the trace might not generalize to other inputs!
examples/legacy_trace.fxsh:14: examples/data/python_if_data.torchscript.txt:18: note: %if_1: on examples/data/python_if_data.io.json the condition is True: the traced model keeps true_graph_0 only, and is wrong for inputs that take the other branch
show exported code
class GraphModule(torch.nn.Module):
    def forward(self, p_mlp_0_weight: "f32[8, 4]", p_mlp_0_bias: "f32[8]", p_mlp_2_weight: "f32[4, 8]", p_mlp_2_bias: "f32[4]", x: "f32[3, 4]"):
        # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
        linear: "f32[3, 8]" = torch.ops.aten.linear.default(x, p_mlp_0_weight, p_mlp_0_bias);  x = p_mlp_0_weight = p_mlp_0_bias = None

        # File: /usr/lib/python3/dist-packages/torch/nn/functional.py:1777 in forward
        relu: "f32[3, 8]" = torch.ops.aten.relu.default(linear);  linear = None

        # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
        linear_1: "f32[3, 4]" = torch.ops.aten.linear.default(relu, p_mlp_2_weight, p_mlp_2_bias);  relu = p_mlp_2_weight = p_mlp_2_bias = None

        # File: /src/models/python_if_data/model.py:14 in forward
        sum_1: "f32[]" = torch.ops.aten.sum.default(linear_1);  sum_1 = None

        # File: /src/models/python_if_data/model.py:15 in forward
        mul: "f32[3, 4]" = torch.ops.aten.mul.Tensor(linear_1, 2);  linear_1 = None
        return (mul,)

verify --expected examples/data/python_if_data.io.json
PASS mul: max abs diff 5.96e-08, max rel diff 4.88e-07
verify: 1 output within atol 0.0001, rtol 0.001
verify --expected examples/data/python_if_data.zero_sum.json
FAIL mul: max abs diff 3.87, max rel diff 1 (12 of 12 elements beyond tolerance)
examples/legacy_trace.fxsh:18: error: verify: 1 of 1 output differs (atol 0.0001, rtol 0.001)
verify optimized examples/data/python_if_data.onnx_legacy.onnx --inputs examples/data/python_if_data.zero_sum.json
PASS mul: max abs diff 0, max rel diff 0
verify: 1 output within atol 0.0001, rtol 0.001
rewrite if_1 cond --clone
examples/legacy_trace.fxsh:25: examples/data/python_if_data.torchscript.txt:18: note: false_graph_0 returned its input linear_1 unchanged: it now returns linear_1.clone()
export verbose=False
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
verify --expected examples/data/python_if_data.io.json
PASS getitem: max abs diff 5.96e-08, max rel diff 4.88e-07
verify: 1 output within atol 0.0001, rtol 0.001
? 1
