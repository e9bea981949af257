## pipeline.t — the export pipeline: progress lines, stages, step-by-step = export, diff, set,
## failures that keep earlier stages, ops.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c export -c stages
[torch.onnx] Run decompositions...
[torch.onnx] Run decompositions... ✅
[torch.onnx] Translate the graph into ONNX...
[torch.onnx] Translate the graph into ONNX... ✅
[torch.onnx] Optimize the ONNX graph...
[torch.onnx] Optimize the ONNX graph... ✅
  fx          -
  exported    FX program  (examples/data/mlp_cond.pt2)
  decomposed  FX program  (decompose (ONNX table))
  onnx        ONNX model  (translate)
* optimized   ONNX model  (optimize)

## Running the stages one by one prints the same final model as `export`.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c export -c 'show optimized' > $FXSH_SCRATCH/a; fxsh -c 'load examples/data/mlp_cond.pt2' -c step -c step -c step -c 'show optimized' | grep -v '^\[torch.onnx\]' > $FXSH_SCRATCH/b; grep -v '^\[torch.onnx\]' $FXSH_SCRATCH/a | cmp - $FXSH_SCRATCH/b && echo same
same

$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c 'diff onnx optimized'
- Constant_0  Constant()
- scalar_tensor_default  Cast(val_0)
onnx -> optimized: 0 added, 2 removed, 0 changed (7 -> 5 nodes)

$ fxsh -c 'set' -c 'set opset_version 17' -c 'set nosuch 1' -c 'set optimize maybe'
opset_version                20          # default-domain opset of the ONNX model (18..23)
input_names                  None        # names of the graph inputs, comma-separated
output_names                 None        # names of the graph outputs, comma-separated
dynamic_shapes               None        # symbolic dims, e.g. x:0=batch
dynamic_axes                 None        # legacy form of dynamic_shapes (converted)
inputs                       None        # example inputs of a torch-level graph, e.g. x=f32[4,3]
export_params                True        # store the weights in the model
keep_initializers_as_inputs  False       # also list initializers as graph inputs
do_constant_folding          True        # fold constants while optimizing
optimize                     True        # run the optimize stage
external_data                False       # save weights of 1 KiB and more to FILE.data
verbose                      True        # print the [torch.onnx] progress lines
-c:3: error: set: no setting named 'nosuch'
  hint: settings: opset_version, input_names, output_names, dynamic_shapes, dynamic_axes, inputs, export_params, keep_initializers_as_inputs, do_constant_folding, optimize, external_data, verbose (`set` shows their values)
-c:4: error: set: optimize takes True or False (or 1/0, on/off, yes/no), not 'maybe'
? 1

$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export opset_version=17 optimize=False verbose=False' -c stages
Setting ONNX exporter to use operator set version 18 because the requested opset_version 17 is a lower version than we have implementations for. Automatic version conversion will be performed, which may not be successful at converting to the requested version. If version conversion is unsuccessful, the opset version of the exported model will be kept at 18. Please consider setting opset_version >=18 to leverage latest ONNX features
  fx          -
  exported    FX program  (examples/data/mlp_cond.pt2)
  decomposed  FX program  (decompose (ONNX table))
* onnx        ONNX model  (translate)
  optimized   -

## An op without a lowering: the translate stage fails, names the node and says how to add one.
$ fxsh -c 'load tests/fixtures/repl/nolowering.fx.txt --input x=f32[2,3]' -c export -c stages
[torch.onnx] Run decompositions...
[torch.onnx] Run decompositions... ✅
[torch.onnx] Translate the graph into ONNX...
[torch.onnx] Translate the graph into ONNX... ❌
-c:2: tests/fixtures/repl/nolowering.fx.txt: error: No ONNX lowering for torch.ops.aten.frobnicate.default (node %frobnicate)
  hint: torch has no ATen operator named 'frobnicate' (a custom op needs its own namespace)
add a lowering with `ops load FILE`, a YAML file like the one below, with FILL_IN replaced by the ONNX ops that compute the result (until then `ops load` refuses it):
    opset: 18
    rules:
      - target: aten.frobnicate.default
        schema: frobnicate(Tensor self) -> Tensor
        lowering: 'frobnicate (self) => (result) { result = FILL_IN (self) }'
-c:2: error: Failed to convert the exported program to an ONNX model. This is step 3/3 of exporting the model to ONNX.
  hint: the onnx stage failed; earlier stages are kept: `stages`, `show decomposed`
  fx          -
  exported    FX program  (tests/fixtures/repl/nolowering.fx.txt)
* decomposed  FX program  (decompose (ONNX table))
  onnx        -
  optimized   -
? 1

## An ATen op torch has but fxsh does not lower: the hint gives torch's own schema (the first
## tensor argument in the example lowering), and that YAML loaded with `ops load` gets past the
## node; an overload torch does not have lists the ones it has.
$ fxsh -c 'load tests/fixtures/repl/nolowering_aten.fx.txt --input x=f32[2,3]' -c 'export' 2>&1 | grep -A7 'No ONNX'
-c:2: tests/fixtures/repl/nolowering_aten.fx.txt: error: No ONNX lowering for torch.ops.aten.polygamma.default (node %polygamma)
  hint: torch's schema: aten::polygamma(int n, Tensor self) -> Tensor
add a lowering with `ops load FILE`, a YAML file like the one below, with FILL_IN replaced by the ONNX ops that compute the result (until then `ops load` refuses it):
    opset: 18
    rules:
      - target: aten.polygamma.default
        lowering: 'polygamma (self) => (result) { result = FILL_IN (self) }'
-c:2: error: Failed to convert the exported program to an ONNX model. This is step 3/3 of exporting the model to ONNX.
$ fxsh -c 'load tests/fixtures/repl/nolowering_aten.fx.txt --input x=f32[2,3]' -c 'ops load tests/fixtures/ops/polygamma_identity.yaml' -c 'export' 2>&1 | grep -A5 'No ONNX'
-c:3: tests/fixtures/repl/nolowering_aten.fx.txt: error: No ONNX lowering for torch.ops.aten.add.Frob (node %add)
  hint: torch has no overload aten.add.Frob; its overloads of add:
    aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
    aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)
    aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    aten::add.complex(complex a, complex b) -> complex

## (the first line names the YAML file and line the rule comes from)
$ fxsh -c 'ops show aten.relu.default' -c 'ops show aten.nosuch.default' 2>&1 | tail -n +2
- target: aten.relu.default
  opset: 18
  schema: relu(Tensor self) -> Tensor
  lowering: |
    relu (self) => (result) { result = Relu (self) }
-c:2: error: ops show: no rule for aten.nosuch.default
  hint: `ops` lists the covered targets; `ops load FILE` adds rules

$ fxsh -c 'step'
-c:1: error: step: nothing loaded
? 1

## A torch-level program (print(gm)) with weights from a .pt2: export lifts the parameters and
## prints exactly what torch.export printed (the expected graph is the corpus's exported.fx.txt).
$ fxsh -c 'load tests/fixtures/repl/mlp.module.txt --weights tests/fixtures/pt2/mlp.pt2' -c 'set inputs x=f32[2,8]' -c step -c 'show exported graph' -c signature
[torch.onnx] Obtain model graph for `MLP([...]` with `torch.export.export(..., strict=False)`...
[torch.onnx] Obtain model graph for `MLP([...]` with `torch.export.export(..., strict=False)`... ✅
graph():
    %p_fc1_weight : [num_users=1] = placeholder[target=p_fc1_weight]
    %p_fc1_bias : [num_users=1] = placeholder[target=p_fc1_bias]
    %p_fc2_weight : [num_users=1] = placeholder[target=p_fc2_weight]
    %p_fc2_bias : [num_users=1] = placeholder[target=p_fc2_bias]
    %p_fc3_weight : [num_users=1] = placeholder[target=p_fc3_weight]
    %p_fc3_bias : [num_users=1] = placeholder[target=p_fc3_bias]
    %x : [num_users=1] = placeholder[target=x]
    %linear : [num_users=1] = call_function[target=torch.ops.aten.linear.default](args = (%x, %p_fc1_weight, %p_fc1_bias), kwargs = {})
    %relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%linear,), kwargs = {})
    %linear_1 : [num_users=1] = call_function[target=torch.ops.aten.linear.default](args = (%relu, %p_fc2_weight, %p_fc2_bias), kwargs = {})
    %relu_1 : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%linear_1,), kwargs = {})
    %linear_2 : [num_users=1] = call_function[target=torch.ops.aten.linear.default](args = (%relu_1, %p_fc3_weight, %p_fc3_bias), kwargs = {})
    return (linear_2,)
inputs:
  USER_INPUT   x: f32[2, 8]
  PARAMETER    p_fc1_weight: f32[16, 8] <- fc1.weight
  PARAMETER    p_fc1_bias: f32[16] <- fc1.bias
  PARAMETER    p_fc2_weight: f32[16, 16] <- fc2.weight
  PARAMETER    p_fc2_bias: f32[16] <- fc2.bias
  PARAMETER    p_fc3_weight: f32[4, 16] <- fc3.weight
  PARAMETER    p_fc3_bias: f32[4] <- fc3.bias
outputs:
  USER_OUTPUT  linear_2
## `export --legacy script`: the scripted exporter's route — Python ifs become ONNX If directly.
$ fxsh -c 'load examples/data/python_if_nested.torchscript.txt --weights examples/data/python_if_nested.weights.onnx --input x=f32[2,3]' -c 'export --legacy script verbose=False' -c stats -c check
DeprecationWarning: You are using the legacy TorchScript-based ONNX export. Starting in PyTorch 2.9, the new torch.export-based ONNX exporter has become the default. Learn more about the new export logic: https://docs.pytorch.org/docs/stable/onnx_export.html. For exporting control flow: https://pytorch.org/tutorials/beginner/onnx/export_control_flow_model_to_onnx_tutorial.html
nodes: 4 in the main graph, 6 in subgraphs
inputs: 1  outputs: 1  initializers: 5
functions: 0
op histogram:
       2  Greater
       2  If
       1  Add
       1  Gemm
       1  Mul
       1  Neg
       1  ReduceMax
       1  ReduceSum
check: ok

$ fxsh -c 'load examples/data/python_if_nested.torchscript.txt --weights examples/data/python_if_nested.weights.onnx --input x=f32[2,3]' -c 'export --legacy'
-c:2: error: export --legacy : expected `script` or `trace`
  hint: `export --legacy script` keeps Python control flow as ONNX If and Loop, as scripting did; `export --legacy trace --inputs FILE` bakes in the branches the example inputs take
? 1

## Every ONNX node carries its provenance as torch.onnx writes it (module path, FX node, stack):
## `node` shows it, for fxsh's exports and torch's alike.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c 'node node_linear_1'
node:    node_linear_1
op:      Gemm
index:   1 in the main graph
inputs:
  0: linear  : float[4,2]
  1: seq.1.weight  : float[1,2]
  2: seq.1.bias  : float[1]
outputs:
  0: linear_1  : float[4,1]  (1 user)
attributes:
  beta: float = 1
  transB: int = 1
  alpha: float = 1
  transA: int = 0
module:  model.MLPCond/seq: torch.nn.modules.container.Sequential/seq.1: torch.nn.modules.linear.Linear/linear_1: aten.linear.default
fx node: %linear_1 : [num_users=2] = call_function[target=torch.ops.aten.linear.default](args = (%linear, %p_seq_1_weight, %p_seq_1_bias), kwargs = {})
stack:
  /src/models/mlp_cond/model.py:12 in forward: out = self.seq(x)
  /usr/lib/python3/dist-packages/torch/nn/modules/container.py:259 in forward: input = module(input)
  /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward: return F.linear(input, self.weight, self.bias)
text:
   [node_linear_1] linear_1 = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (linear, "seq.1.weight", "seq.1.bias")

## A torch-level graph (print(gm)) with --input and no weights: export infers every value's
## meta and the weights' shapes from the module settings, so the ONNX model is fully typed.
$ fxsh -c 'load tests/fixtures/repl/mlp.module.txt --input x=f32[2,8]' -c 'export verbose=False export_params=False' -c 'show exported code' -c 'show onnx' -c check
class GraphModule(torch.nn.Module):
    def forward(self, p_fc1_weight: "f32[16, 8]", p_fc1_bias: "f32[16]", p_fc2_weight: "f32[16, 16]", p_fc2_bias: "f32[16]", p_fc3_weight: "f32[4, 16]", p_fc3_bias: "f32[4]", x: "f32[2, 8]"):
        # No stacktrace found for following nodes
        linear: "f32[2, 16]" = torch.ops.aten.linear.default(x, p_fc1_weight, p_fc1_bias);  x = p_fc1_weight = p_fc1_bias = None
        relu: "f32[2, 16]" = torch.ops.aten.relu.default(linear);  linear = None
        linear_1: "f32[2, 16]" = torch.ops.aten.linear.default(relu, p_fc2_weight, p_fc2_bias);  relu = p_fc2_weight = p_fc2_bias = None
        relu_1: "f32[2, 16]" = torch.ops.aten.relu.default(linear_1);  linear_1 = None
        linear_2: "f32[2, 4]" = torch.ops.aten.linear.default(relu_1, p_fc3_weight, p_fc3_bias);  relu_1 = p_fc3_weight = p_fc3_bias = None
        return (linear_2,)

<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[2,8] x, float[16,8] "fc1.weight", float[16] "fc1.bias", float[16,16] "fc2.weight", float[16] "fc2.bias", float[4,16] "fc3.weight", float[4] "fc3.bias") => (float[2,4] linear_2) 
   <float[2,16] linear, float[2,16] relu, float[2,16] linear_1, float[2,16] relu_1>
{
   [node_linear] linear = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (x, "fc1.weight", "fc1.bias")
   [node_relu] relu = Relu (linear)
   [node_linear_1] linear_1 = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (relu, "fc2.weight", "fc2.bias")
   [node_relu_1] relu_1 = Relu (linear_1)
   [node_linear_2] linear_2 = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (relu_1, "fc3.weight", "fc3.bias")
}
check: ok

$ fxsh -c 'load tests/fixtures/repl/mlp.module.txt --input y=f32[2,8]'
-c:1: error: load --input: the program has no input 'y' (its inputs: x)
  hint: declare each input by the name forward() gives it
? 1

## `export --legacy script` keeps a for over x.size(0) as an ONNX Loop(trip count, True, h) (the trip
## count folds to 2), and a for with a break as Loop(8, True, h) whose body returns not(test).
$ fxsh -c 'load tests/fixtures/cflow/for_size.torchscript.txt --input x=f32[2,4] --weights tests/fixtures/cflow/while_loop_closure.weights.onnx' -c 'export --legacy script verbose=False' -c 'show optimized' -c check 2>&1 | grep -o -e 'Loop ([^)]*)' -e 'int64 [a-z_0-9]* = *{[^}]*}' -e 'bool val_[0-9]* = [^,>]*' -e '=> ([^)]*)' -e 'check: ok'
=> (float[2,4] getitem)
int64 val_0 =  {2}
bool val_1 =  {1}
Loop (val_0, val_1, x)
=> (bool cond_out_body_graph_0, float[2,4] add_body_graph_0)
check: ok

$ fxsh -c 'load tests/fixtures/cflow/for_break.torchscript.txt --input x=f32[2,4] --weights tests/fixtures/cflow/while_loop_closure.weights.onnx' -c 'export --legacy script verbose=False' -c 'show optimized' -c check 2>&1 | grep -o -e 'Loop ([^)]*)' -e 'int64 [a-z_0-9]* = *{[^}]*}' -e 'bool val_[0-9]* = [^,>]*' -e '=> ([^)]*)' -e 'check: ok'
=> (float[2,4] getitem)
int64 val_0 =  {8}
bool val_1 =  {1}
Loop (val_0, val_1, x)
=> (bool logical_not_body_graph_0, float[2,4] add_body_graph_0)
check: ok

## --weights with a program JSON (no values stored): the weights' dtypes and shapes, as graph inputs.
$ fxsh -c 'load tests/fixtures/repl/mlp.module.txt --weights tests/fixtures/pt2/mlp.json --input x=f32[2,8]' -c 'export verbose=False export_params=False' -c 'show onnx' 2>&1 | sed -n '1,3p;/^main_graph/p'
-c:1: tests/fixtures/pt2/mlp.json: note: 6 weights with dtype and shape only: the program stores no values
  hint: export refuses a model without its weights' values; `export export_params=False` makes them graph inputs
<
main_graph (float[2,8] x, float[16,8] "fc1.weight", float[16] "fc1.bias", float[16,16] "fc2.weight", float[16] "fc2.bias", float[4,16] "fc3.weight", float[4] "fc3.bias") => (float[2,4] linear_2) 

## nn.MultiheadAttention (settings written on its line; torch prints none) exports as
## multi_head_attention_forward records it, with every value typed, to a model that checks.
$ fxsh -c 'load tests/fixtures/repl/mha.module.txt --input x=f32[2,5,8]' -c 'export verbose=False export_params=False' -c 'show exported code' -c check 2>&1 | grep -E 'def forward|bmm|softmax|mean|return|check'
    def forward(self, p_attn_in_proj_weight: "f32[24, 8]", p_attn_in_proj_bias: "f32[24]", p_attn_out_proj_weight: "f32[8, 8]", p_attn_out_proj_bias: "f32[8]", p_fc_weight: "f32[4, 8]", p_fc_bias: "f32[4]", x: "f32[2, 5, 8]"):
        bmm: "f32[4, 5, 5]" = torch.ops.aten.bmm.default(mul, transpose_5);  mul = transpose_5 = None
        softmax: "f32[4, 5, 5]" = torch.ops.aten.softmax.int(bmm, -1);  bmm = None
        bmm_1: "f32[4, 5, 4]" = torch.ops.aten.bmm.default(softmax, transpose_4);  transpose_4 = None
        transpose_6: "f32[5, 4, 4]" = torch.ops.aten.transpose.int(bmm_1, 0, 1);  bmm_1 = None
        view_5: "f32[2, 2, 5, 5]" = torch.ops.aten.view.default(softmax, [2, 2, 5, 5]);  softmax = None
        mean: "f32[2, 5, 5]" = torch.ops.aten.mean.dim(view_5, [1]);  view_5 = None
        return (linear_2, mean)
check: ok

## A Python `if` on a size that --input leaves symbolic: torch.export would decide it for the
## example's size, which there is none of here; the error says what to give, and the rewrite into
## torch.cond exports both branches.
$ fxsh -c 'load examples/data/python_if_shape.torchscript.txt --weights examples/data/python_if_shape.pt2 --input x=f32[s77,3]' -c 'export verbose=False' -c 'rewrite if_1 cond' -c 'export verbose=False' -c 'verify --expected examples/data/python_if_shape.batch2.json'
-c:2: examples/data/python_if_shape.torchscript.txt:13: error: export failed at %if_1: the condition `s77 > 2` reads a size the example input does not give (a symbol in --input), and torch.export decides a Python `if` on sizes for the example's
  hint: give the example's size (--input x=f32[4,3]) and mark the dimension dynamic with dynamic_shapes=x:0=batch; or keep both branches: rewrite %if_1 cond
-c:2: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
PASS getitem: max abs diff 0, max rel diff 0
verify: 1 output within atol 0.0001, rtol 0.001
? 1
