## while_loop.t — expected transcript of examples/while_loop.fxsh (checked by make check).
## (exit status 1: the export that fails on the Python `while` is part of the lesson)
$ fxsh -echo -f examples/while_loop.fxsh
load examples/data/while_loop_counter.pt2
show code
class GraphModule(torch.nn.Module):
    def forward(self, i: "i64[]", x: "f32[3]"):
        # File: <eval_with_key>.730:9 in forward, code: while_loop = torch.ops.higher_order.while_loop(cond_fn_0, body_fn_0, (l_args_2_0_, l_args_2_1_), ());  cond_fn_0 = body_fn_0 = l_args_2_0_ = l_args_2_1_ = None
        while_loop_cond_graph_0 = self.while_loop_cond_graph_0
        while_loop_body_graph_0 = self.while_loop_body_graph_0
        while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (i, x), ());  while_loop_cond_graph_0 = while_loop_body_graph_0 = i = x = None
        getitem: "i64[]" = while_loop[0]
        getitem_1: "f32[3]" = while_loop[1];  while_loop = None
        return (getitem, getitem_1)

    class while_loop_cond_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "i64[]", arg1_1: "f32[3]"):
            # File: <eval_with_key>.731:5 in forward, code: lt = child < 5;  child = None
            lt: "b8[]" = torch.ops.aten.lt.Scalar(arg0_1, 5);  arg0_1 = None
            return lt

    class while_loop_body_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "i64[]", arg1_1: "f32[3]"):
            # File: <eval_with_key>.732:5 in forward, code: child = child_2 + 1;  child_2 = None
            add: "i64[]" = torch.ops.aten.add.Tensor(arg0_1, 1);  arg0_1 = None

            # File: <eval_with_key>.732:6 in forward, code: child_4 = child_3 * 2.0;  child_3 = None
            mul: "f32[3]" = torch.ops.aten.mul.Tensor(arg1_1, 2.0);  arg1_1 = None
            return (add, mul)

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
main_graph (int64 i, float[3] x) => (int64 getitem, float[3] getitem_1) 
   <int64 val_0 =  {5}, int64 val_1 =  {1}, float val_2 =  {2}, int64 val_0, int64 val_1, float val_2, bool lt>
{
   [node_lt] lt = Less (i, val_0)
   [node_while_loop__1] getitem, getitem_1 = Loop ("", lt, i, x) <body: graph = while_loop_body_graph_0_loop_body (int64 iter_num_while_loop_body_graph_0, bool cond_in_while_loop_body_graph_0, int64 i_while_loop_body_graph_0__subgraph_in, float[3] x_while_loop_body_graph_0__subgraph_in) => (bool lt_while_loop_cond_graph_0, int64 add_while_loop_body_graph_0, float[3] mul_while_loop_body_graph_0) {
      [node_add] add_while_loop_body_graph_0 = Add (i_while_loop_body_graph_0__subgraph_in, val_1)
      [node_mul] mul_while_loop_body_graph_0 = Mul (x_while_loop_body_graph_0__subgraph_in, val_2)
      [node_lt] lt_while_loop_cond_graph_0 = Less (add_while_loop_body_graph_0, val_0)
   }>
}
check
check: ok
load examples/data/while_python.torchscript.txt --input x=f32[2,4] --weights examples/data/while_loop_closure.weights.onnx
export
[torch.onnx] Obtain model graph for `WhilePython([...]` with `torch.export.export(..., strict=False)`...



def forward(self, arg0_1: "f32[4, 4]", arg1_1: "f32[4]", arg2_1: "f32[2, 4]"):
    # File: /src/models/while_python/model.py:16 in forward
    zeros: "i64[]" = torch.ops.aten.zeros.default([], dtype = torch.int64, device = device(type='cpu'), pin_memory = False)
    
    # File: /src/models/while_python/model.py:18 in forward
    lt: "b8[]" = torch.ops.aten.lt.Scalar(zeros, 8);  zeros = None
    abs_1: "f32[2, 4]" = torch.ops.aten.abs.default(arg2_1);  arg2_1 = None
    sum_1: "f32[]" = torch.ops.aten.sum.default(abs_1);  abs_1 = None
    lt_1: "b8[]" = torch.ops.aten.lt.Scalar(sum_1, 20.0);  sum_1 = None
    and_1: "b8[]" = torch.ops.aten.__and__.Tensor(lt, lt_1);  lt = lt_1 = None
    ne: "b8[]" = torch.ops.aten.ne.Scalar(and_1, 0);  and_1 = None
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
  File "/src/models/while_python/model.py", line 18, in forward
[torch.onnx] Obtain model graph for `WhilePython([...]` with `torch.export.export(..., strict=False)`... ❌
[torch.onnx] Obtain model graph for `WhilePython([...]` with `torch.export.export(..., strict=True)`...
[torch.onnx] Obtain model graph for `WhilePython([...]` with `torch.export.export(..., strict=True)`... ❌
examples/while_loop.fxsh:22: /src/models/while_python/model.py:18: error: export failed at %while_1: Python `while` on the tensor %and_1 (data-dependent: Could not guard on data-dependent expression Eq(u0, 1))
  hint: rewrite %while_1 while_loop
examples/while_loop.fxsh:22: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
rewrite while_1 while_loop
show code
class GraphModule(torch.nn.Module):
    def forward(self, p_fc_weight: "f32[4, 4]", p_fc_bias: "f32[4]", x: "f32[2, 4]"):
        # File: /src/models/while_python/model.py:16 in forward
        zeros: "i64[]" = torch.ops.aten.zeros.default([], dtype = torch.int64, device = device(type='cpu'), pin_memory = False)

        # File: /src/models/while_python/model.py:18 in forward
        while_loop_cond_graph_0 = self.while_loop_cond_graph_0
        while_loop_body_graph_0 = self.while_loop_body_graph_0
        while_loop = torch.ops.higher_order.while_loop(while_loop_cond_graph_0, while_loop_body_graph_0, (zeros, x), (p_fc_bias, p_fc_weight));  while_loop_cond_graph_0 = while_loop_body_graph_0 = zeros = x = p_fc_bias = p_fc_weight = None
        getitem: "i64[]" = while_loop[0]
        getitem_1: "f32[2, 4]" = while_loop[1];  while_loop = None
        return (getitem, getitem_1)

    class while_loop_cond_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "i64[]", arg1_1: "f32[2, 4]", arg2_1: "f32[4]", arg3_1: "f32[4, 4]"):
            # File: /src/models/while_python/model.py:18 in forward
            lt: "b8[]" = torch.ops.aten.lt.Scalar(arg0_1, 8);  arg0_1 = None
            abs_1: "f32[2, 4]" = torch.ops.aten.abs.default(arg1_1);  arg1_1 = None
            sum_1: "f32[]" = torch.ops.aten.sum.default(abs_1);  abs_1 = None
            lt_1: "b8[]" = torch.ops.aten.lt.Scalar(sum_1, 20.0);  sum_1 = None
            and_1: "b8[]" = torch.ops.aten.__and__.Tensor(lt, lt_1);  lt = lt_1 = None
            return and_1

    class while_loop_body_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "i64[]", arg1_1: "f32[2, 4]", arg2_1: "f32[4]", arg3_1: "f32[4, 4]"):
            # File: /src/models/while_python/model.py:19 in forward
            add: "i64[]" = torch.ops.aten.add.Tensor(arg0_1, 1);  arg0_1 = None

            # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
            linear: "f32[2, 4]" = torch.ops.aten.linear.default(arg1_1, arg3_1, arg2_1);  arg3_1 = arg2_1 = None

            # File: /src/models/while_python/model.py:20 in forward
            tanh: "f32[2, 4]" = torch.ops.aten.tanh.default(linear);  linear = None
            add_1: "f32[2, 4]" = torch.ops.aten.add.Tensor(tanh, arg1_1);  tanh = arg1_1 = None
            return (add, add_1)

export
[torch.onnx] Obtain model graph for `WhilePython([...]` with `torch.export.export(..., strict=False)`...
[torch.onnx] Obtain model graph for `WhilePython([...]` with `torch.export.export(..., strict=False)`... ✅
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
main_graph (float[2,4] x) => (int64 getitem, float[2,4] getitem_1) 
   <float[4,4] "fc.weight" =  {-0.00374341,0.268222,-0.411523,-0.36797,-0.192577,0.134079,-0.00990659,0.396445,-0.044372,0.132306,-0.151107,-0.0982827,-0.477674,-0.331141,-0.206112,0.0185218}, float[4] "fc.bias" =  {0.197668,0.300011,-0.338971,-0.217731}, int64 zeros =  {0}, bool lt = ..., float val_3 =  {20}, int64 val_4 =  {1}, int64 val_5 =  {8}, float[4,4] "fc.weight", float[4] "fc.bias", int64 zeros, bool lt, float val_3, int64 val_4, int64 val_5, float[2,4] abs_1, float sum_1, bool lt_1, bool bitwise_and>
{
   [node_abs_1] abs_1 = Abs (x)
   [node_sum_1] sum_1 = ReduceSum <noop_with_empty_axes: int = 0, keepdims: int = 0> (abs_1)
   [node_lt_1] lt_1 = Less (sum_1, val_3)
   [node_bitwise_and] bitwise_and = And (lt, lt_1)
   [node_while_loop__1] getitem, getitem_1 = Loop ("", bitwise_and, zeros, x) <body: graph = while_loop_body_graph_0_loop_body (int64 iter_num_while_loop_body_graph_0, bool cond_in_while_loop_body_graph_0, int64 zeros_while_loop_body_graph_0__subgraph_in, float[2,4] x_while_loop_body_graph_0__subgraph_in) => (bool bitwise_and_while_loop_cond_graph_0, int64 add_while_loop_body_graph_0, float[2,4] add_1_while_loop_body_graph_0) 
      <float[2,4] linear, float[2,4] tanh, bool lt_2, float[2,4] abs_1_2, float sum_1_2, bool lt_1_2>
{
      [node_add] add_while_loop_body_graph_0 = Add (zeros_while_loop_body_graph_0__subgraph_in, val_4)
      [node_linear] linear = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (x_while_loop_body_graph_0__subgraph_in, "fc.weight", "fc.bias")
      [node_tanh] tanh = Tanh (linear)
      [node_add_1] add_1_while_loop_body_graph_0 = Add (tanh, x_while_loop_body_graph_0__subgraph_in)
      [node_lt] lt_2 = Less (add_while_loop_body_graph_0, val_5)
      [node_abs_1] abs_1_2 = Abs (add_1_while_loop_body_graph_0)
      [node_sum_1] sum_1_2 = ReduceSum <noop_with_empty_axes: int = 0, keepdims: int = 0> (abs_1_2)
      [node_lt_1] lt_1_2 = Less (sum_1_2, val_3)
      [node_bitwise_and] bitwise_and_while_loop_cond_graph_0 = And (lt_2, lt_1_2)
   }>
}
check
check: ok
undo
export --legacy script verbose=False
DeprecationWarning: You are using the legacy TorchScript-based ONNX export. Starting in PyTorch 2.9, the new torch.export-based ONNX exporter has become the default. Learn more about the new export logic: https://docs.pytorch.org/docs/stable/onnx_export.html. For exporting control flow: https://pytorch.org/tutorials/beginner/onnx/export_control_flow_model_to_onnx_tutorial.html
show optimized
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[2,4] x) => (int64 getitem, float[2,4] getitem_1) 
   <float[4,4] "fc.weight" =  {-0.00374341,0.268222,-0.411523,-0.36797,-0.192577,0.134079,-0.00990659,0.396445,-0.044372,0.132306,-0.151107,-0.0982827,-0.477674,-0.331141,-0.206112,0.0185218}, float[4] "fc.bias" =  {0.197668,0.300011,-0.338971,-0.217731}, int64 zeros =  {0}, bool lt = ..., int64 val_2 =  {8}, float val_3 =  {20}, int64 val_4 =  {9223372036854775807}, int64 val_5 =  {1}, float[4,4] "fc.weight", float[4] "fc.bias", int64 zeros, bool lt, int64 val_2, float val_3, int64 val_4, int64 val_5, float[2,4] abs_1, float sum_1, bool lt_1, bool bitwise_and>
{
   [node_abs_1] abs_1 = Abs (x)
   [node_sum_1] sum_1 = ReduceSum <noop_with_empty_axes: int = 0, keepdims: int = 0> (abs_1)
   [node_lt_1] lt_1 = Less (sum_1, val_3)
   [node_bitwise_and] bitwise_and = And (lt, lt_1)
   [node_python_while__1] getitem, getitem_1 = Loop (val_4, bitwise_and, zeros, x) <body: graph = body_graph_0 (int64 iter_num_body_graph_0, bool cond_in_body_graph_0, int64 zeros_body_graph_0__subgraph_in, float[2,4] x_body_graph_0__subgraph_in) => (bool bitwise_and_body_graph_0, int64 add_body_graph_0, float[2,4] add_1_body_graph_0) 
      <float[2,4] linear, float[2,4] tanh, bool lt_2, float[2,4] abs_1_2, float sum_1_2, bool lt_1_2>
{
      [node_add] add_body_graph_0 = Add (zeros_body_graph_0__subgraph_in, val_5)
      [node_linear] linear = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (x_body_graph_0__subgraph_in, "fc.weight", "fc.bias")
      [node_tanh] tanh = Tanh (linear)
      [node_add_1] add_1_body_graph_0 = Add (tanh, x_body_graph_0__subgraph_in)
      [node_lt] lt_2 = Less (add_body_graph_0, val_2)
      [node_abs_1] abs_1_2 = Abs (add_1_body_graph_0)
      [node_sum_1] sum_1_2 = ReduceSum <noop_with_empty_axes: int = 0, keepdims: int = 0> (abs_1_2)
      [node_lt_1] lt_1_2 = Less (sum_1_2, val_3)
      [node_bitwise_and] bitwise_and_body_graph_0 = And (lt_2, lt_1_2)
   }>
}
check
check: ok
? 1
