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
- Constant_1  Constant()
- getitem  SequenceAt(split_with_sizes, val_1)
- Constant_2  Constant()
- getitem_1  SequenceAt(split_with_sizes, val_2)
- Constant_3  Constant()
- getitem_2  SequenceAt(split_with_sizes, val_3)
- Constant_4  Constant()
- atleast_1d__0  Identity(getitem)
- atleast_1d__1  Identity(mul)
- atleast_1d__2  Identity(getitem_2)
~ split_with_sizes  SplitToSequence(x, val_0)
      -> Split(x, val_0)
~ cat  Concat(getitem_3, getitem_4, getitem_5)
      -> Concat(getitem, mul, getitem_2)
onnx -> optimized: 0 added, 11 removed, 2 changed (17 -> 6 nodes)
show optimized
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[4,6] x, float[4,6] y) => (float[4,6] cat, float[2,4,6] stack, float[12,6] cat_1) 
   <int64[3] val_0 =  {1,2,3}, float val_4 =  {2}, int64[3] val_0, float val_4, float[4,1] getitem, float[4,2] getitem_1, float[4,3] getitem_2, float[4,2] mul>
{
   [node_split_with_sizes] getitem, getitem_1, getitem_2 = Split <axis: int = 1> (x, val_0)
   [node_mul] mul = Mul (getitem_1, val_4)
   [node_cat] cat = Concat <axis: int = 1> (getitem, mul, getitem_2)
   [node_SequenceConstruct_5] val_5 = SequenceConstruct (x, y)
   [node_stack] stack = ConcatFromSequence <new_axis: int = 1, axis: int = 0> (val_5)
   [node_cat_1] cat_1 = Concat <axis: int = 0> (x, y, cat)
}
check
check: ok
