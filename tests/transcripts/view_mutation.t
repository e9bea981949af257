## view_mutation.t — an in-place write through a chain of views of a user input (x.view(6)[2:4]
## .fill_(0.5)), functionalized as torch does: the inner view is taken again from x, scattered
## into, and viewed back to x's shape; later reads of x see that; the new x is a mutation output
## of the signature, which the ONNX model leaves out.
$ fxsh -c 'load tests/fixtures/decompose/write_through_views.py' -c 'export verbose=False' -c 'show decomposed graph' -c 'show decomposed program' -c check
graph():
    %x : [num_users=2] = placeholder[target=x]
    %view : [num_users=1] = call_function[target=torch.ops.aten.view.default](args = (%x, [6]), kwargs = {})
    %slice_1 : [num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%view, 0, 2, 4), kwargs = {})
    %fill : [num_users=1] = call_function[target=torch.ops.aten.fill.Scalar](args = (%slice_1, 0.5), kwargs = {})
    %view_1 : [num_users=1] = call_function[target=torch.ops.aten.view.default](args = (%x, [6]), kwargs = {})
    %slice_scatter : [num_users=1] = call_function[target=torch.ops.aten.slice_scatter.default](args = (%view_1, %fill, 0, 2, 4), kwargs = {})
    %view_2 : [num_users=2] = call_function[target=torch.ops.aten.view.default](args = (%slice_scatter, [2, 3]), kwargs = {})
    %relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%view_2,), kwargs = {})
    return (view_2, relu)
ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, x: "f32[2, 3]"):
            # No stacktrace found for following nodes
            view: "f32[6]" = torch.ops.aten.view.default(x, [6])
            slice_1: "f32[2]" = torch.ops.aten.slice.Tensor(view, 0, 2, 4);  view = None
            fill: "f32[2]" = torch.ops.aten.fill.Scalar(slice_1, 0.5);  slice_1 = None
            view_1: "f32[6]" = torch.ops.aten.view.default(x, [6]);  x = None
            slice_scatter: "f32[6]" = torch.ops.aten.slice_scatter.default(view_1, fill, 0, 2, 4);  view_1 = fill = None
            view_2: "f32[2, 3]" = torch.ops.aten.view.default(slice_scatter, [2, 3]);  slice_scatter = None
            relu: "f32[2, 3]" = torch.ops.aten.relu.default(view_2)
            return (view_2, relu)
    
Graph signature:
    # inputs
    x: USER_INPUT
    
    # outputs
    view_2: USER_INPUT_MUTATION target='x'
    relu: USER_OUTPUT
    
Range constraints: {}

check: ok

## The ONNX model returns only the user output.
$ fxsh -c 'load tests/fixtures/decompose/write_through_views.py' -c 'export verbose=False' -c summary | grep output
outputs: 1
  output relu: float[2,3]
