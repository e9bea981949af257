## reduce.t — expected transcript of examples/reduce.fxsh: a failing export and a model that
## disagrees with its reference, each reduced to the one node that fails.
$ fxsh -echo -f examples/reduce.fxsh 2>&1
load examples/data/mlp.pt2
replace relu torch.ops.aten.special_i0e.default
export verbose=False
examples/reduce.fxsh:9: examples/data/mlp.pt2: error: No ONNX lowering for torch.ops.aten.special_i0e.default (node %special_i0e)
  hint: torch's schema: aten::special_i0e(Tensor self) -> Tensor
add a lowering with `ops load FILE`, a YAML file like the one below, with FILL_IN replaced by the ONNX ops that compute the result (until then `ops load` refuses it):
    opset: 18
    rules:
      - target: aten.special_i0e.default
        lowering: 'special_i0e (self) => (result) { result = FILL_IN (self) }'
examples/reduce.fxsh:9: error: Failed to convert the exported program to an ONNX model. This is step 3/3 of exporting the model to ONNX.
  hint: the onnx stage failed; earlier stages are kept: `stages`, `show decomposed`
reduce
reduce: the export fails at translate: No ONNX lowering for torch.ops.aten.special_i0e.default (node %special_i0e)
reduced the decomposed program from 5 nodes to 1 around %special_i0e (1 test)

program (torch):
graph():
    %linear : [num_users=1] = placeholder[target=linear]
    %special_i0e : [num_users=1] = call_function[target=torch.ops.aten.special_i0e.default](args = (%linear,), kwargs = {})
    return (special_i0e,)

# no ONNX form: the export fails at translate

inputs: the program's inputs random (seed 0), the 1 cut value computed from them by the evaluator
load examples/data/mlp.pt2
examples/reduce.fxsh:13: note: load: 1 edit of the previous program dropped with it
  hint: `save-patch FILE` before `load` keeps edits as a script that replays them
set linear_1 2=None
export verbose=False
reduce optimized examples/data/mlp.optimized.onnx --inputs examples/data/mlp.io.json
reduce: optimized vs examples/data/mlp.optimized.onnx: linear_1 differs from examples/data/mlp.optimized.onnx's: max abs diff 0.239, 32 of 32 elements beyond atol 0.0001, rtol 0.001
reduced the model from 5 nodes to 1 around %linear_1 (1 test)

program (torch, the decomposed stage's nodes):
graph():
    %p_fc2_weight : [num_users=1] = placeholder[target=p_fc2_weight]
    %relu : [num_users=1] = placeholder[target=relu]
    %linear_1 : [num_users=1] = call_function[target=torch.ops.aten.linear.default](args = (%relu, %p_fc2_weight, None), kwargs = {})
    return (linear_1,)

model (onnx, optimized):
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[2,16] relu) => (float[2,16] linear_1) 
   <float[16,16] val_0 =  {... 256 values}>
{
   [node_linear_1] linear_1 = MatMul (relu, val_0)
}

reference (onnx, examples/data/mlp.optimized.onnx):
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[2,16] relu) => (float[2,16] linear_1) 
   <float[16,16] "fc2.weight" =  {... 256 values}, float[16] "fc2.bias" =  {0.159872,0.0185835,-0.118034,0.229762,0.102235,-0.189786,0.239271,0.189843,-0.0911227,0.140539,-0.142047,-0.0391786,0.212275,0.0103298,-0.176805,-0.0835582}>
{
   [node_linear_1] linear_1 = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (relu, "fc2.weight", "fc2.bias")
}

inputs: the models' inputs from examples/data/mlp.io.json, each cut value examples/data/mlp.optimized.onnx's, computed by the evaluator from them
? 1
