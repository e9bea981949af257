## scan.t — expected transcript of examples/scan.fxsh (checked by make check).
## (exit status 1: the export that fails with a dynamic number of rows is part of the lesson)
$ fxsh -echo -f examples/scan.fxsh
load examples/data/scan_cumsum.pt2
show code
class GraphModule(torch.nn.Module):
    def forward(self, xs: "f32[5, 3]"):
        # File: /src/models/scan_cumsum/model.py:13 in forward, code: init = torch.zeros_like(xs[0])
        select: "f32[3]" = torch.ops.aten.select.int(xs, 0, 0)
        zeros_like: "f32[3]" = torch.ops.aten.zeros_like.default(select, pin_memory = False);  select = None

        # File: <eval_with_key>.474:8 in forward, code: scan = torch.ops.higher_order.scan(scan_combine_fn_0, [l_leaves_init_0_], [l_leaves_xs_0_], []);  scan_combine_fn_0 = l_leaves_init_0_ = l_leaves_xs_0_ = None
        scan_combine_graph_0 = self.scan_combine_graph_0
        scan = torch.ops.higher_order.scan(scan_combine_graph_0, [zeros_like], [xs], ());  scan_combine_graph_0 = zeros_like = xs = None
        getitem: "f32[3]" = scan[0]
        getitem_1: "f32[5, 3]" = scan[1];  scan = None
        return (getitem, getitem_1)

    class scan_combine_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "f32[3]", arg1_1: "f32[3]"):
            # File: <eval_with_key>.475:5 in forward, code: new = child + child_1;  child = child_1 = None
            add: "f32[3]" = torch.ops.aten.add.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None

            # File: <eval_with_key>.475:6 in forward, code: child_2 = new.clone()
            clone: "f32[3]" = torch.ops.aten.clone.default(add)
            return [add, clone]

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
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[5,3] xs) => (float[3] getitem, float[5,3] getitem_1) 
   <float[3] zeros_like =  {0,0,0}, float[3] zeros_like>
{
   [node_scan__1] getitem, getitem_1 = Scan (zeros_like, xs) <body: graph = scan_combine_graph_0 (float[3] zeros_like_scan_combine_graph_0__subgraph_in, float[3] xs_scan_combine_graph_0__subgraph_in) => (float[3] add_scan_combine_graph_0, float[3] clone_scan_combine_graph_0) {
      [node_add] add_scan_combine_graph_0 = Add (zeros_like_scan_combine_graph_0__subgraph_in, xs_scan_combine_graph_0__subgraph_in)
      [node_clone] clone_scan_combine_graph_0 = Identity (add_scan_combine_graph_0)
   }, num_scan_inputs: int = 1, scan_input_directions: ints = [0], scan_output_directions: ints = [0]>
}
check
check: ok
load examples/data/pairwise_loop.torchscript.txt --input x=f32[3,4] --input y=f32[5,4]
show code
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 4]", y: "f32[5, 4]"):
        # File: <string>:13 in forward
        size = torch.ops.aten.sym_size.default(x)

        # File: /src/models/pairwise_loop/model.py:13 in forward
        getitem: "Sym(3)" = size[0];  size = None

        # File: <string>:13 in forward
        size_1 = torch.ops.aten.sym_size.default(y)

        # File: /src/models/pairwise_loop/model.py:13 in forward
        getitem_1: "Sym(5)" = size_1[0];  size_1 = None
        zeros: "f32[3, 5]" = torch.ops.aten.zeros.default([getitem, getitem_1], device = device(type='cpu'), pin_memory = False);  getitem = getitem_1 = None

        # File: <string>:13 in forward
        size_2 = torch.ops.aten.sym_size.default(x)

        # File: /src/models/pairwise_loop/model.py:14 in forward
        getitem_2: "Sym(3)" = size_2[0];  size_2 = None
        body_graph_0 = self.body_graph_0
        for_1 = fxsh.python_for(getitem_2, body_graph_0, (), (x, y, zeros));  getitem_2 = body_graph_0 = x = y = for_1 = None
        return (zeros,)

    class body_graph_0(torch.nn.Module):
        def forward(self, i: "Sym(i)", x: "f32[3, 4]", y: "f32[5, 4]", zeros: "f32[3, 5]"):
            # File: /src/models/pairwise_loop/model.py:15 in forward
            add: "Sym(i + 1)" = i + 1
            slice_1: "f32[1, 4]" = torch.ops.aten.slice.Tensor(x, 0, i, add);  x = add = None
            sub: "f32[5, 4]" = torch.ops.aten.sub.Tensor(y, slice_1);  y = slice_1 = None
            pow_1: "f32[5, 4]" = torch.ops.aten.pow.Tensor_Scalar(sub, 2);  sub = None
            sum_1: "f32[5]" = torch.ops.aten.sum.dim_IntList(pow_1, [1]);  pow_1 = None
            sqrt: "f32[5]" = torch.ops.aten.sqrt.default(sum_1);  sum_1 = None
            select: "f32[5]" = torch.ops.aten.select.int(zeros, 0, i);  zeros = i = None
            slice_2: "f32[5]" = torch.ops.aten.slice.Tensor(select);  select = None
            copy_: "f32[5]" = torch.ops.aten.copy_.default(slice_2, sqrt);  slice_2 = sqrt = copy_ = None
            return ()

export dynamic_shapes=x:0=batch
[torch.onnx] Obtain model graph for `PairwiseDistances([...]` with `torch.export.export(..., strict=False)`...
Constraints violated (batch)! For more information, run with TORCH_LOGS="+dynamic".
  - You marked batch as dynamic but your code specialized it to be a constant (3). If you're using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace it with either Dim.STATIC or Dim.AUTO.
Suggested fixes:
  batch = 3
[torch.onnx] Obtain model graph for `PairwiseDistances([...]` with `torch.export.export(..., strict=False)`... ❌
[torch.onnx] Obtain model graph for `PairwiseDistances([...]` with `torch.export.export(..., strict=True)`...
[torch.onnx] Obtain model graph for `PairwiseDistances([...]` with `torch.export.export(..., strict=True)`... ❌
examples/scan.fxsh:21: examples/data/pairwise_loop.torchscript.txt:18: error: export failed at %for_1: `for` over range(x.shape[0]) makes torch.export specialize the dynamic dimension batch to 3
  hint: a loop over the rows of tensors becomes scan: rewrite %for_1 scan (or while_loop)
examples/scan.fxsh:21: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
rewrite for_1 scan
examples/scan.fxsh:25: examples/data/pairwise_loop.torchscript.txt:18: note: %for_1 carries no value, and scan() needs one: y is carried unchanged (the combine function returns y.clone())
show code
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 4]", y: "f32[5, 4]"):
        # File: /src/models/pairwise_loop/model.py:14 in forward
        scan_combine_graph_0 = self.scan_combine_graph_0
        scan = torch.ops.higher_order.scan(scan_combine_graph_0, [y], [x], ());  scan_combine_graph_0 = y = x = None
        getitem_1: "f32[3, 5]" = scan[1];  scan = None
        return (getitem_1,)

    class scan_combine_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "f32[5, 4]", arg1_1: "f32[4]"):
            # File: /src/models/pairwise_loop/model.py:15 in forward
            unsqueeze: "f32[1, 4]" = torch.ops.aten.unsqueeze.default(arg1_1, 0);  arg1_1 = None
            sub: "f32[5, 4]" = torch.ops.aten.sub.Tensor(arg0_1, unsqueeze);  unsqueeze = None
            pow_1: "f32[5, 4]" = torch.ops.aten.pow.Tensor_Scalar(sub, 2);  sub = None
            sum_1: "f32[5]" = torch.ops.aten.sum.dim_IntList(pow_1, [1]);  pow_1 = None
            sqrt: "f32[5]" = torch.ops.aten.sqrt.default(sum_1);  sum_1 = None

            # File: /src/models/pairwise_loop/model.py:14 in forward
            clone: "f32[5, 4]" = torch.ops.aten.clone.default(arg0_1);  arg0_1 = None
            return [clone, sqrt]

export
[torch.onnx] Obtain model graph for `PairwiseDistances([...]` with `torch.export.export(..., strict=False)`...
[torch.onnx] Obtain model graph for `PairwiseDistances([...]` with `torch.export.export(..., strict=False)`... ✅
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
main_graph (float[3,4] x, float[5,4] y) => (float[3,5] getitem_1) 
   <int64[1] val_0 =  {0}, float val_1 =  {2}, int64[1] val_2 =  {1}, int64[1] val_0, float val_1, int64[1] val_2>
{
   [node_scan__1] scan__0, getitem_1 = Scan (y, x) <body: graph = scan_combine_graph_0 (float[5,4] y_scan_combine_graph_0__subgraph_in, float[4] x_scan_combine_graph_0__subgraph_in) => (float[5,4] clone_scan_combine_graph_0, float[5] sqrt_scan_combine_graph_0) 
      <float[1,4] unsqueeze, float[5,4] sub, float[5,4] pow_1, float[5] sum_1>
{
      [node_unsqueeze] unsqueeze = Unsqueeze (x_scan_combine_graph_0__subgraph_in, val_0)
      [node_sub] sub = Sub (y_scan_combine_graph_0__subgraph_in, unsqueeze)
      [node_pow_1] pow_1 = Pow (sub, val_1)
      [node_sum_1] sum_1 = ReduceSum <noop_with_empty_axes: int = 0, keepdims: int = 0> (pow_1, val_2)
      [node_sqrt] sqrt_scan_combine_graph_0 = Sqrt (sum_1)
      [node_clone] clone_scan_combine_graph_0 = Identity (y_scan_combine_graph_0__subgraph_in)
   }, num_scan_inputs: int = 1, scan_input_directions: ints = [0], scan_output_directions: ints = [0]>
}
check
check: ok
? 1

## save writes the rewritten model; loaded back, it checks.
$ fxsh -c "source examples/scan.fxsh" -c "save $FXSH_SCRATCH/pairwise.onnx" >/dev/null 2>&1; fxsh -c "load $FXSH_SCRATCH/pairwise.onnx" -c check -c stats
check: ok
nodes: 1 in the main graph, 6 in subgraphs
inputs: 2  outputs: 1  initializers: 3
functions: 0
op histogram:
       1  Identity
       1  Pow
       1  ReduceSum
       1  Scan
       1  Sqrt
       1  Sub
       1  Unsqueeze
