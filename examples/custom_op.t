## custom_op.t — expected transcript of examples/custom_op.fxsh (checked by make check).
$ fxsh -echo -f examples/custom_op.fxsh
load examples/data/symbolic_op.pt2
find symbolic
_symbolic  call_function  torch.ops.onnx_symbolic._symbolic.default
node _symbolic
node:    _symbolic
op:      call_function
target:  torch.ops.onnx_symbolic._symbolic.default
args:    ([%add], CustomOp, 1)
kwargs:  {shape: [2, 4], attr_keys: [attr_key, alpha, count], attr_types: [s, f, i], attr_pos: [[0, 1], [0, 1], [0, 1]], attr_ints: [3], attr_floats: [0.5], attr_strs: [attr_value], metadata_props_keys: [], metadata_props_values: [], domain: custom_domain, version: 1}
users:   1 (relu)
value:   f32[2, 4]
source:  /src/models/symbolic_op/model.py:14 in forward, code: val = torch.onnx.ops.symbolic(
module:  the model (model.SymbolicOp)
export
[torch.onnx] Run decompositions...
[torch.onnx] Run decompositions... ✅
[torch.onnx] Translate the graph into ONNX...
[torch.onnx] Translate the graph into ONNX... ✅
[torch.onnx] Optimize the ONNX graph...
[torch.onnx] Optimize the ONNX graph... ✅
show optimized
<
   ir_version: 10,
   opset_import: ["" : 20, "custom_domain" : 1],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[2,4] x) => (float[2,4] add_1) 
   <float[4,4] "fc.weight" =  {-0.00374341,0.268222,-0.411523,-0.36797,-0.192577,0.134079,-0.00990659,0.396445,-0.044372,0.132306,-0.151107,-0.0982827,-0.477674,-0.331141,-0.206112,0.0185218}, float[4] "fc.bias" =  {0.197668,0.300011,-0.338971,-0.217731}, float scalar_tensor_default =  {1}, float[4,4] "fc.weight", float[4] "fc.bias", float scalar_tensor_default, float[2,4] linear, float[2,4] add, float[2,4] _symbolic, float[2,4] relu>
{
   [node_linear] linear = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (x, "fc.weight", "fc.bias")
   [node_add] add = Add (linear, scalar_tensor_default)
   [node__symbolic] _symbolic = custom_domain.CustomOp <attr_key: string = "attr_value", alpha: float = 0.5, count: int = 3> (add)
   [node_relu] relu = Relu (_symbolic)
   [node_add_1] add_1 = Add (relu, add)
}
check
check: ok
examples/custom_op.fxsh:9: note: main_graph: node 2 ("node__symbolic", custom_domain.CustomOp): fxsh does not infer CustomOp, so the declared types of its outputs are taken unchecked
