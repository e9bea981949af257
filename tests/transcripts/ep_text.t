## print(ep) text (ExportedProgram.__str__) loads: the code, the graph signature (which inputs
## are parameters, and their names in the model), the range constraints. tests/fixtures/ep/mlp.program.txt
## is torch 2.14's print(ep) of the corpus mlp.
$ fxsh -q -c 'load tests/fixtures/ep/mlp.program.txt' -c stages -c signature
  fx          -
* exported    FX program  (tests/fixtures/ep/mlp.program.txt)
  decomposed  -
  onnx        -
  optimized   -
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

## parameters become graph inputs named by their FQN, as torch.onnx names initializers
$ fxsh -q -c 'load tests/fixtures/ep/mlp.program.txt' -c 'export verbose=False export_params=False' -c summary
ir_version: 10
producer: fxsh 0.1.0
opsets: ai.onnx:20
graph: main_graph
inputs: 7
  input x: float[2,8]
  input fc1.weight: float[16,8]
  input fc1.bias: float[16]
  input fc2.weight: float[16,16]
  input fc2.bias: float[16]
  input fc3.weight: float[4,16]
  input fc3.bias: float[4]
outputs: 1
  output linear_2: float[2,4]
nodes: 5
nodes_with_subgraphs: 5
subgraphs: 0
ops: 2 distinct
  op Gemm: 3
  op Relu: 2
initializers: 0
initializer_bytes: 0 (0 B)
functions: 0

## the text without its signature, and a spec of an unknown kind: errors at the line
$ fxsh -q -c 'load tests/fixtures/ep/no_signature.program.txt'
-c:1: tests/fixtures/ep/no_signature.program.txt:19:1: error: print(ep) text without its 'Graph signature:' section
  hint: paste print(ep) whole: ExportedProgram:, the code, Graph signature: and Range constraints:
? 1

$ fxsh -q -c 'load tests/fixtures/ep/bad_spec.program.txt'
-c:1: tests/fixtures/ep/bad_spec.program.txt:25:5: error: expected an input or output spec ('name: KIND target=...') or the range constraints
  hint: paste print(ep) whole: ExportedProgram:, the code, Graph signature: and Range constraints:
? 1

## pasted into the REPL, the block ends at its "Range constraints:" line
$ fxsh -q
< load -
< ExportedProgram:
<     class GraphModule(torch.nn.Module):
<         def forward(self, p_fc1_weight: "f32[16, 8]", p_fc1_bias: "f32[16]", p_fc2_weight: "f32[16, 16]", p_fc2_bias: "f32[16]", p_fc3_weight: "f32[4, 16]", p_fc3_bias: "f32[4]", x: "f32[2, 8]"):
<             # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward, code: return F.linear(input, self.weight, self.bias)
<             linear: "f32[2, 16]" = torch.ops.aten.linear.default(x, p_fc1_weight, p_fc1_bias);  x = p_fc1_weight = p_fc1_bias = None
<     
<             # File: /usr/lib/python3/dist-packages/torch/nn/modules/activation.py:143 in forward, code: return F.relu(input, inplace=self.inplace)
<             relu: "f32[2, 16]" = torch.ops.aten.relu.default(linear);  linear = None
<     
<             # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward, code: return F.linear(input, self.weight, self.bias)
<             linear_1: "f32[2, 16]" = torch.ops.aten.linear.default(relu, p_fc2_weight, p_fc2_bias);  relu = p_fc2_weight = p_fc2_bias = None
<     
<             # File: /src/models/mlp/model.py:16 in forward, code: x = torch.relu(self.fc2(x))
<             relu_1: "f32[2, 16]" = torch.ops.aten.relu.default(linear_1);  linear_1 = None
<     
<             # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward, code: return F.linear(input, self.weight, self.bias)
<             linear_2: "f32[2, 4]" = torch.ops.aten.linear.default(relu_1, p_fc3_weight, p_fc3_bias);  relu_1 = p_fc3_weight = p_fc3_bias = None
<             return (linear_2,)
<     
< Graph signature:
<     # inputs
<     p_fc1_weight: PARAMETER target='fc1.weight'
<     p_fc1_bias: PARAMETER target='fc1.bias'
<     p_fc2_weight: PARAMETER target='fc2.weight'
<     p_fc2_bias: PARAMETER target='fc2.bias'
<     p_fc3_weight: PARAMETER target='fc3.weight'
<     p_fc3_bias: PARAMETER target='fc3.bias'
<     x: USER_INPUT
<     
<     # outputs
<     linear_2: USER_OUTPUT
<     
< Range constraints: {}
< signature
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
