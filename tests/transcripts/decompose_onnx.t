## decompose_onnx.t — the graph torch.onnx translates: run_decompositions() with the exporter's
## table and its type promotion, for ops that table takes apart (tests/fixtures/models/
## decomp_onnx_table/model.py). The expected graph is torch's own: `print(ep.graph)` of
## torch.onnx's _prepare_exported_program_for_export(ep, registry=ONNXRegistry.from_torchlib())
## for the same program.pt2 (torch 2.14). model_fixtures.sh checks the numbers against eager's.
$ fxsh -c 'load tests/fixtures/models/decomp_onnx_table/program.pt2' -c 'export verbose=False' -c 'show decomposed'
graph():
    %x : [num_users=12] = placeholder[target=x]
    %y : [num_users=10] = placeholder[target=y]
    %img : [num_users=1] = placeholder[target=img]
    %w : [num_users=1] = placeholder[target=w]
    %seq : [num_users=1] = placeholder[target=seq]
    %w1 : [num_users=1] = placeholder[target=w1]
    %timg : [num_users=1] = placeholder[target=timg]
    %wt : [num_users=1] = placeholder[target=wt]
    %sub : [num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%y, %x), kwargs = {alpha: 2})
    %scalar_tensor_default : [num_users=1] = call_function[target=torch.ops.aten.scalar_tensor.default](args = (3,), kwargs = {dtype: torch.float32})
    %sub_1 : [num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%scalar_tensor_default, %x), kwargs = {})
    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%sub, %sub_1), kwargs = {})
    %maximum : [num_users=1] = call_function[target=torch.ops.aten.maximum.default](args = (%x, %y), kwargs = {})
    %minimum : [num_users=1] = call_function[target=torch.ops.aten.minimum.default](args = (%x, %y), kwargs = {})
    %sub_2 : [num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%maximum, %minimum), kwargs = {})
    %sort : [num_users=1] = call_function[target=torch.ops.aten.sort.default](args = (%x, 0, True), kwargs = {})
    %getitem_1 : [num_users=1] = call_function[target=operator.getitem](args = (%sort, 1), kwargs = {})
    %le : [num_users=1] = call_function[target=torch.ops.aten.le.Scalar](args = (%x, 0.1), kwargs = {})
    %where : [num_users=1] = call_function[target=torch.ops.aten.where.ScalarSelf](args = (%le, -2.0, %x), kwargs = {})
    %abs_1 : [num_users=1] = call_function[target=torch.ops.aten.abs.default](args = (%y,), kwargs = {})
    %gt : [num_users=1] = call_function[target=torch.ops.aten.gt.Scalar](args = (%abs_1, 0.25), kwargs = {})
    %sign : [num_users=1] = call_function[target=torch.ops.aten.sign.default](args = (%y,), kwargs = {})
    %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%sign, 0.25), kwargs = {})
    %sub_3 : [num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%y, %mul), kwargs = {})
    %scalar_tensor_default_1 : [num_users=1] = call_function[target=torch.ops.aten.scalar_tensor.default](args = (0,), kwargs = {dtype: torch.float32})
    %mul_1 : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%y, %scalar_tensor_default_1), kwargs = {})
    %where_1 : [num_users=1] = call_function[target=torch.ops.aten.where.self](args = (%gt, %sub_3, %mul_1), kwargs = {})
    %add_1 : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%where, %where_1), kwargs = {})
    %var : [num_users=1] = call_function[target=torch.ops.prims.var.default](args = (%x, [0, 1], 1.0), kwargs = {})
    %var_1 : [num_users=1] = call_function[target=torch.ops.prims.var.default](args = (%y, [1], 1.0), kwargs = {})
    %broadcast_in_dim : [num_users=1] = call_function[target=torch.ops.prims.broadcast_in_dim.default](args = (%var_1, [4, 1], [0]), kwargs = {})
    %add_2 : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%var, %broadcast_in_dim), kwargs = {})
    %_to_copy : [num_users=1] = call_function[target=torch.ops.aten._to_copy.default](args = (%y,), kwargs = {dtype: torch.float64})
    %_to_copy_1 : [num_users=1] = call_function[target=torch.ops.aten._to_copy.default](args = (%_to_copy,), kwargs = {dtype: torch.float32})
    %mul_2 : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%x, %_to_copy_1), kwargs = {})
    %constant_pad_nd : [num_users=1] = call_function[target=torch.ops.aten.constant_pad_nd.default](args = (%img, [0, 0, 0, 1]), kwargs = {})
    %convolution : [num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%constant_pad_nd, %w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), kwargs = {})
    %unsqueeze : [num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%seq, 0), kwargs = {})
    %convolution_1 : [num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%unsqueeze, %w1, None, [1], [1], [2], False, [0], 1), kwargs = {})
    %squeeze : [num_users=1] = call_function[target=torch.ops.aten.squeeze.dim](args = (%convolution_1, 0), kwargs = {})
    %unsqueeze_1 : [num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%timg, 0), kwargs = {})
    %convolution_2 : [num_users=1] = call_function[target=torch.ops.aten.convolution.default](args = (%unsqueeze_1, %wt, None, [2, 2], [0, 0], [1, 1], True, [0, 0], 1), kwargs = {})
    %squeeze_1 : [num_users=1] = call_function[target=torch.ops.aten.squeeze.dim](args = (%convolution_2, 0), kwargs = {})
    %scalar_tensor_default_2 : [num_users=1] = call_function[target=torch.ops.aten.scalar_tensor.default](args = (0,), kwargs = {dtype: torch.float32})
    %gt_1 : [num_users=1] = call_function[target=torch.ops.aten.gt.Tensor](args = (%x, %scalar_tensor_default_2), kwargs = {})
    %scalar_tensor_default_3 : [num_users=1] = call_function[target=torch.ops.aten.scalar_tensor.default](args = (1,), kwargs = {dtype: torch.float32})
    %where_2 : [num_users=1] = call_function[target=torch.ops.aten.where.self](args = (%gt_1, %x, %scalar_tensor_default_3), kwargs = {})
    %scalar_tensor_default_4 : [num_users=1] = call_function[target=torch.ops.aten.scalar_tensor.default](args = (0,), kwargs = {dtype: torch.float32})
    %clamp_min : [num_users=1] = call_function[target=torch.ops.aten.clamp_min.Tensor](args = (%y, %scalar_tensor_default_4), kwargs = {})
    %add_3 : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%where_2, %clamp_min), kwargs = {})
    %convert_element_type_default : [num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%x,), kwargs = {dtype: torch.bool})
    %all_1 : [num_users=1] = call_function[target=torch.ops.aten.all.default](args = (%convert_element_type_default,), kwargs = {})
    return (add, sub_2, getitem_1, add_1, add_2, mul_2, convolution, squeeze, squeeze_1, add_3, all_1)
