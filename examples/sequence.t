## sequence.t — expected transcript of examples/sequence.fxsh (checked by make check).
$ fxsh -echo -f examples/sequence.fxsh
load examples/data/sequence_ops.pt2
show graph
graph():
    %x : [num_users=3] = placeholder[target=x]
    %y : [num_users=2] = placeholder[target=y]
    %split_with_sizes : [num_users=3] = call_function[target=torch.ops.aten.split_with_sizes.default](args = (%x, [1, 2, 3], 1), kwargs = {})
    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%split_with_sizes, 0), kwargs = {})
    %getitem_1 : [num_users=1] = call_function[target=operator.getitem](args = (%split_with_sizes, 1), kwargs = {})
    %getitem_2 : [num_users=1] = call_function[target=operator.getitem](args = (%split_with_sizes, 2), kwargs = {})
    %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%getitem_1, 2.0), kwargs = {})
    %hstack : [num_users=2] = call_function[target=torch.ops.aten.hstack.default](args = ([%getitem, %mul, %getitem_2],), kwargs = {})
    %stack : [num_users=1] = call_function[target=torch.ops.aten.stack.default](args = ([%x, %y],), kwargs = {})
    %cat : [num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([%x, %y, %hstack],), kwargs = {})
    return (hstack, stack, cat)
export
[torch.onnx] Run decompositions...
[torch.onnx] Run decompositions... ✅
[torch.onnx] Translate the graph into ONNX...
[torch.onnx] Translate the graph into ONNX... ✅
[torch.onnx] Optimize the ONNX graph...
[torch.onnx] Optimize the ONNX graph... ✅
diff onnx optimized
- Constant_0  Constant()
- split_with_sizes  SplitToSequence(x, val_0)
- Constant_1  Constant()
- n0  SequenceAt(split_with_sizes, val_1)
- Constant_2  Constant()
- n0_2  SequenceAt(split_with_sizes, val_2)
- Constant_3  Constant()
- n0_3  SequenceAt(split_with_sizes, val_3)
- Constant_4  Constant()
- Constant_6  Constant()
- Constant_8  Constant()
+ Split_10  Split(x, val_0)
~ mul  Mul(getitem_1, val_4)
      -> Mul(split_with_sizes_split_1, val_4)
~ SequenceConstruct_5  SequenceConstruct(getitem, mul, getitem_2)
      -> SequenceConstruct(split_with_sizes_split_0, mul, split_with_sizes_split_2)
~ Unsqueeze_9  Unsqueeze(y, val_8)
      -> Unsqueeze(y, val_6)
onnx -> optimized: 1 added, 11 removed, 3 changed (22 -> 12 nodes)
show optimized
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[4,6] x, float[4,6] y) => (float[4,6] cat, float[2,4,6] stack, float[12,6] cat_1) 
   <int64[3] val_0 =  {1,2,3}, int64 val_1 =  {0}, int64 val_2 =  {1}, int64 val_3 =  {2}, float val_4 =  {2}, int64[1] val_6 =  {0}, int64[1] tmp =  {1}, int64[3] val_0, int64 val_1, int64 val_2, int64 val_3, float val_4, int64[1] val_6, int64[1] tmp, float[4,1] split_with_sizes_split_0, float[4,2] split_with_sizes_split_1, float[4,3] split_with_sizes_split_2, float[4,2] mul, seq(float[4,?]) val_5, float[4,1] getitem_3, float[4,2] getitem_4, float[4,3] getitem_5, float[1,4,6] val_7, float[1,4,6] val_9>
{
   [node_Split_10] split_with_sizes_split_0, split_with_sizes_split_1, split_with_sizes_split_2 = Split <axis: int = 1> (x, val_0)
   [node_mul] mul = Mul (split_with_sizes_split_1, val_4)
   [node_SequenceConstruct_5] val_5 = SequenceConstruct (split_with_sizes_split_0, mul, split_with_sizes_split_2)
   [n0_7] atleast_1d = SequenceMap (val_5) <body: graph = reshape_to_1d ( tensor) => ( tensor_2) {
      [n0_4] shape = Shape (tensor)
      [n1] rank = Size (shape)
      [n3] int64_0_cast = CastLike (val_1, rank)
      [n4] cond = Equal (rank, int64_0_cast)
      [n5] tensor_2 = If (cond) <then_branch: graph = thenGraph_9 () => ( tensor_0) {
         [n1_2] tensor_0 = Reshape (tensor, tmp)
      }, else_branch: graph = elseGraph_9 () => ( tensor_1) {
         [n0_6] tensor_1 = Identity (tensor)
      }>
   }>
   [n0_8] getitem_3 = SequenceAt (atleast_1d, val_1)
   [n0_9] getitem_4 = SequenceAt (atleast_1d, val_2)
   [n0_10] getitem_5 = SequenceAt (atleast_1d, val_3)
   [node_cat] cat = Concat <axis: int = 1> (getitem_3, getitem_4, getitem_5)
   [node_Unsqueeze_7] val_7 = Unsqueeze (x, val_6)
   [node_Unsqueeze_9] val_9 = Unsqueeze (y, val_6)
   [node_stack] stack = Concat <axis: int = 0> (val_7, val_9)
   [node_cat_1] cat_1 = Concat <axis: int = 0> (x, y, cat)
}
check
check: ok
