## quickstart.t — the expected transcript of examples/quickstart.fxsh (checked by make check).
$ fxsh -echo -f examples/quickstart.fxsh
load examples/data/mlp_cond.pt2
show graph
graph():
    %p_seq_0_weight : [num_users=1] = placeholder[target=p_seq_0_weight]
    %p_seq_0_bias : [num_users=1] = placeholder[target=p_seq_0_bias]
    %p_seq_1_weight : [num_users=1] = placeholder[target=p_seq_1_weight]
    %p_seq_1_bias : [num_users=1] = placeholder[target=p_seq_1_bias]
    %x : [num_users=1] = placeholder[target=x]
    %linear : [num_users=1] = call_function[target=torch.ops.aten.linear.default](args = (%x, %p_seq_0_weight, %p_seq_0_bias), kwargs = {})
    %linear_1 : [num_users=2] = call_function[target=torch.ops.aten.linear.default](args = (%linear, %p_seq_1_weight, %p_seq_1_bias), kwargs = {})
    %sum_1 : [num_users=1] = call_function[target=torch.ops.aten.sum.default](args = (%linear_1,), kwargs = {})
    %gt : [num_users=1] = call_function[target=torch.ops.aten.gt.Scalar](args = (%sum_1, 0), kwargs = {})
    %true_graph_0 : [num_users=1] = get_attr[target=true_graph_0]
    %false_graph_0 : [num_users=1] = get_attr[target=false_graph_0]
    %cond : [num_users=1] = call_function[target=torch.ops.higher_order.cond](args = (%gt, %true_graph_0, %false_graph_0, (%linear_1,)), kwargs = {})
    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%cond, 0), kwargs = {})
    return (getitem,)
export
[torch.onnx] Run decompositions...
[torch.onnx] Run decompositions... ✅
[torch.onnx] Translate the graph into ONNX...
[torch.onnx] Translate the graph into ONNX... ✅
[torch.onnx] Optimize the ONNX graph...
[torch.onnx] Optimize the ONNX graph... ✅
stages
  fx          -
  exported    FX program  (examples/data/mlp_cond.pt2)
  decomposed  FX program  (decompose (ONNX table))
  onnx        ONNX model  (translate)
* optimized   ONNX model  (optimize)
diff onnx optimized
- Constant_0  Constant()
- scalar_tensor_default  Cast(val_0)
onnx -> optimized: 0 added, 2 removed, 0 changed (7 -> 5 nodes)
show optimized
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[4,3] x) => (float[4,1] getitem) 
   <float[2,3] "seq.0.weight" =  {-0.00432252,0.309716,-0.475185,-0.424895,-0.222369,0.154821}, float[2] "seq.0.bias" =  {-0.0114391,0.457775}, float[1,2] "seq.1.weight" =  {-0.0627515,0.187109}, float[1] "seq.1.bias" =  {-0.213697}, float scalar_tensor_default =  {0}, float scalar_tensor_default_2 =  {2}, float[2,3] "seq.0.weight", float[2] "seq.0.bias", float[1,2] "seq.1.weight", float[1] "seq.1.bias", float scalar_tensor_default, float scalar_tensor_default_2, float[4,2] linear, float[4,1] linear_1, float sum_1, bool gt>
{
   [node_linear] linear = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (x, "seq.0.weight", "seq.0.bias")
   [node_linear_1] linear_1 = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (linear, "seq.1.weight", "seq.1.bias")
   [node_sum_1] sum_1 = ReduceSum <noop_with_empty_axes: int = 0, keepdims: int = 0> (linear_1)
   [node_gt] gt = Greater (sum_1, scalar_tensor_default)
   [node_cond__0] getitem = If (gt) <then_branch: graph = true_graph_0 () => (float[4,1] mul_true_graph_0) {
      [node_mul] mul_true_graph_0 = Mul (linear_1, scalar_tensor_default_2)
   }, else_branch: graph = false_graph_0 () => (float[4,1] neg_false_graph_0) {
      [node_neg] neg_false_graph_0 = Neg (linear_1)
   }>
}
check
check: ok
