## reduce.t — `reduce`: a failing export or a model that disagrees with a reference, shrunk to the
## fewest nodes that still fail the same way, and the reproducer it saves failing the same way.

## An OpInfo program whose export fails (torch's multi_head_attention_forward with dropout in
## training mode: tests/fixtures/reduce/mha_dropout.pt2): 38 nodes of the decomposed program, the
## failing dropout alone is left; the cut value (its input, the softmax) is computed by the
## evaluator from the program's inputs.
$ fxsh -q -c 'load tests/fixtures/reduce/mha_dropout.pt2' -c reduce 2>&1 | sed 's#[^ ]*share/fxsh/#<share>/#'
reduce: the export fails at translate: cannot translate torch.ops.aten.dropout.default (node %dropout): no alternative of the rule at <share>/translate/core.yaml:531 applies to these arguments; the alternatives need `train == False`, `p == 0`
reduced the decomposed program from 38 nodes to 1 around %dropout (1 test)

program (torch):
graph():
    %softmax : [num_users=1] = placeholder[target=softmax]
    %dropout : [num_users=1] = call_function[target=torch.ops.aten.dropout.default](args = (%softmax, 0.5, True), kwargs = {})
    return (dropout,)

# no ONNX form: the export fails at translate

inputs: the program's inputs random (seed 0), the 1 cut value computed from them by the evaluator

## The reproducer: program.pt2 with the one node, its input, and a script that fails the same way
## (exit 1, the same error); program.pt2 loads as a torch.export program.
$ fxsh -q -c 'load tests/fixtures/reduce/mha_dropout.pt2' -c "reduce --save $FXSH_SCRATCH/r" >/dev/null && ls $FXSH_SCRATCH/r && cd $FXSH_SCRATCH/r && fxsh -q -f reproduce.fxsh 2>&1 | sed 's#[^ ]*share/fxsh/#<share>/#'; fxsh -q -c 'load program.pt2' -c signature
README.md
inputs.npz
program.pt2
reproduce.fxsh
reproduce.fxsh:2: program.pt2: error: cannot translate torch.ops.aten.dropout.default (node %dropout): no alternative of the rule at <share>/translate/core.yaml:531 applies to these arguments; the alternatives need `train == False`, `p == 0`
  hint: the node comes from /src/models/_gen/gen_opinfo.py:49 in forward, code: return op.op(*[fill(a, ts) for a in margs], **{k: fill(v, ts) for k, v in mkw.items()})
reproduce.fxsh:2: error: Failed to convert the exported program to an ONNX model. This is step 3/3 of exporting the model to ONNX.
  hint: the onnx stage failed; earlier stages are kept: `stages`, `show decomposed`
inputs:
  USER_INPUT   softmax: f32[1, 3, 4]
outputs:
  USER_OUTPUT  dropout

## A node patched to an op without a lowering (relu → special_i0e) in the mlp: the export fails at
## translate; the relu's replacement alone is left, its input (linear) computed by the evaluator.
## The script replays the export with the settings that differ from their defaults.
$ fxsh -q -c 'load examples/data/mlp.pt2' -c 'replace relu torch.ops.aten.special_i0e.default' -c 'set do_constant_folding False' -c "reduce --save $FXSH_SCRATCH/r" && cd $FXSH_SCRATCH/r && cat reproduce.fxsh && fxsh -q -f reproduce.fxsh
reduce: the export fails at translate: No ONNX lowering for torch.ops.aten.special_i0e.default (node %special_i0e)
reduced the decomposed program from 5 nodes to 1 around %special_i0e (1 test)

program (torch):
graph():
    %linear : [num_users=1] = placeholder[target=linear]
    %special_i0e : [num_users=1] = call_function[target=torch.ops.aten.special_i0e.default](args = (%linear,), kwargs = {})
    return (special_i0e,)

# no ONNX form: the export fails at translate

inputs: the program's inputs random (seed 0), the 1 cut value computed from them by the evaluator
load program.pt2
set do_constant_folding 'False'
export
reproduce.fxsh:3: program.pt2: error: No ONNX lowering for torch.ops.aten.special_i0e.default (node %special_i0e)
  hint: torch's schema: aten::special_i0e(Tensor self) -> Tensor
add a lowering with `ops load FILE`, a YAML file like the one below, with FILL_IN replaced by the ONNX ops that compute the result (until then `ops load` refuses it):
    opset: 18
    rules:
      - target: aten.special_i0e.default
        lowering: 'special_i0e (self) => (result) { result = FILL_IN (self) }'
reproduce.fxsh:3: error: Failed to convert the exported program to an ONNX model. This is step 3/3 of exporting the model to ONNX.
  hint: the onnx stage failed; earlier stages are kept: `stages`, `show decomposed`
? 1

## A failing node inside a cond branch (mlp_cond's false branch: neg → special_i0e): the program
## keeps the cond with both branches, its operand and predicate computed as inputs; program.pt2
## holds the branches, and its export fails the same way.
$ fxsh -q -c 'load examples/data/mlp_cond.pt2' -c 'replace false_graph_0.neg torch.ops.aten.special_i0e.default' -c "reduce --save $FXSH_SCRATCH/r" && cd $FXSH_SCRATCH/r && fxsh -q -c 'load program.pt2' -c nodes; fxsh -q -f reproduce.fxsh 2>&1 | head -1
reduce: the export fails at translate: No ONNX lowering for torch.ops.aten.special_i0e.default (node %special_i0e)
reduced the decomposed program from 7 nodes to 2 around %cond (1 test)

program (torch):
graph():
    %linear_1 : [num_users=1] = placeholder[target=linear_1]
    %gt : [num_users=1] = placeholder[target=gt]
    %true_graph_0 : [num_users=1] = get_attr[target=true_graph_0]
    %false_graph_0 : [num_users=1] = get_attr[target=false_graph_0]
    %cond : [num_users=1] = call_function[target=torch.ops.higher_order.cond](args = (%gt, %true_graph_0, %false_graph_0, (%linear_1,)), kwargs = {})
    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%cond, 0), kwargs = {})
    return (getitem,)

# no ONNX form: the export fails at translate

inputs: the program's inputs random (seed 0), the 2 cut values computed from them by the evaluator
name                                op             target                                users
linear_1                            placeholder    linear_1                              cond
gt                                  placeholder    gt                                    cond
true_graph_0                        get_attr       true_graph_0                          cond
false_graph_0                       get_attr       false_graph_0                         cond
cond                                call_function  torch.ops.higher_order.cond           getitem
getitem                             call_function  operator.getitem                      output
output                              output         output                                -
true_graph_0.linear_1               placeholder    linear_1                              mul
true_graph_0.scalar_tensor_default  call_function  torch.ops.aten.scalar_tensor.default  mul
true_graph_0.mul                    call_function  torch.ops.aten.mul.Tensor             output
true_graph_0.output                 output         output                                -
false_graph_0.linear_1              placeholder    linear_1                              special_i0e
false_graph_0.special_i0e           call_function  torch.ops.aten.special_i0e.default    output
false_graph_0.output                output         output                                -
reproduce.fxsh:2: program.pt2: error: No ONNX lowering for torch.ops.aten.special_i0e.default (node %special_i0e)

## A real model with one node patched to disagree (llama_cache_tiny: the rotary embedding's neg
## replaced by relu), reduced against the unpatched model: the first value that differs is the
## cat that reads the relu; two nodes of 76 are left. The reproducer's verify fails, the
## reference's nodes agree with the expected value, compare finds the relu's output.
$ fxsh -q -c 'load tests/fixtures/models/llama_cache_tiny/program.pt2' -c 'export' -c "save $FXSH_SCRATCH/good.onnx" -c 'replace neg torch.ops.aten.relu.default' -c 'export' -c "reduce optimized $FXSH_SCRATCH/good.onnx --save $FXSH_SCRATCH/r" | sed "s#$FXSH_SCRATCH#SCRATCH#g"
reduce: optimized vs SCRATCH/good.onnx: cat_1 differs from SCRATCH/good.onnx's: max abs diff 0.487, 96 of 192 elements beyond atol 0.0001, rtol 0.001
reduced the model from 76 nodes to 2 around %cat_1 (1 test)

program (torch, the decomposed stage's nodes):
graph():
    %slice_1 : [num_users=1] = placeholder[target=slice_1]
    %slice_2 : [num_users=1] = placeholder[target=slice_2]
    %relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%slice_2,), kwargs = {})
    %cat_1 : [num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([%relu, %slice_1], -1), kwargs = {})
    return (cat_1,)

model (onnx, optimized):
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[2,2,6,4] slice_2, float[2,2,6,4] slice_1) => (float[2,2,6,8] cat_1) 
   <float[2,2,6,4] relu>
{
   [node_relu] relu = Relu (slice_2)
   [node_cat_1] cat_1 = Concat <axis: int = -1> (relu, slice_1)
}

reference (onnx, SCRATCH/good.onnx):
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[2,2,6,4] slice_2, float[2,2,6,4] slice_1) => (float[2,2,6,8] cat_1) 
   <float[2,2,6,4] neg>
{
   [node_neg] neg = Neg (slice_2)
   [node_cat_1] cat_1 = Concat <axis: int = -1> (neg, slice_1)
}

inputs: the models' inputs random (seed 0), each cut value SCRATCH/good.onnx's, computed by the evaluator from them

$ fxsh -q -c 'load tests/fixtures/models/llama_cache_tiny/program.pt2' -c 'export' -c "save $FXSH_SCRATCH/good.onnx" -c 'replace neg torch.ops.aten.relu.default' -c 'export' -c "reduce optimized $FXSH_SCRATCH/good.onnx --save $FXSH_SCRATCH/r" >/dev/null && cd $FXSH_SCRATCH/r && ls && fxsh -q -f reproduce.fxsh; fxsh -q -c 'load reference.onnx' -c 'verify --inputs inputs.npz --expected expected.npz' && fxsh -q -c 'load program.pt2' -c export -c 'verify --inputs inputs.npz --expected expected.npz'; fxsh -q -c 'compare model.onnx reference.onnx --inputs inputs.npz'
README.md
expected.npz
inputs.npz
model.onnx
program.pt2
reference.onnx
reproduce.fxsh
FAIL cat_1: max abs diff 0.487, max rel diff 2 (96 of 192 elements beyond tolerance)
reproduce.fxsh:2: error: verify: 1 of 1 output differs (atol 0.0001, rtol 0.001)
PASS cat_1: max abs diff 0, max rel diff 0
verify: 1 output within atol 0.0001, rtol 0.001
FAIL cat: max abs diff 0.487, max rel diff 2 (96 of 192 elements beyond tolerance)
-c:3: error: verify: 1 of 1 output differs (atol 0.0001, rtol 0.001)
compare: model.onnx vs reference.onnx on the inputs of inputs.npz: 1 value in both, 1 computed by both (1 only in model.onnx, 1 only in reference.onnx)
first divergence: cat_1 (Concat node node_cat_1 in both)
  model.onnx:     float32[2, 2, 6, 8] min -0.199656 max 0.243477 mean 0.00870241
  reference.onnx: float32[2, 2, 6, 8] min -0.243477 max 0.167604 mean 0.000684835
  max abs diff 0.487, max rel diff 2: 96 of 192 elements beyond atol 0.0001, rtol 0.001; the largest at [1, 0, 0, 1]: 0.243477 vs -0.243477
  its input relu (Relu node node_relu) has no counterpart in reference.onnx: look there first
  where (model.onnx):
    module:  model.W/m: transformers.models.llama.modeling_llama.LlamaForCausalLM/m.model: transformers.models.llama.modeling_llama.LlamaModel/m.model.layers.0: transformers.models.llama.modeling_llama.LlamaDecoderLayer/m.model.layers.0.self_attn: transformers.models.llama.modeling_llama.LlamaAttention/cat_1: aten.cat.default
    fx node: %cat_1 : [num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([%relu, %slice_1], -1), kwargs = {})
    stack:
      /tmp/fx_llc/model.py:8 in forward: def forward(s, ids): return s.m(input_ids=ids, use_cache=True, return_dict=False)[0]
      /usr/lib/python3/dist-packages/transformers/models/llama/modeling_llama.py:474 in forward: outputs: BaseModelOutputWithPast = self.model(
      /usr/lib/python3/dist-packages/transformers/models/llama/modeling_llama.py:411 in forward: hidden_states = decoder_layer(
      /usr/lib/python3/dist-packages/transformers/models/llama/modeling_llama.py:316 in forward: hidden_states, _ = self.self_attn(
      /usr/lib/python3/dist-packages/transformers/models/llama/modeling_llama.py:267 in forward: query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
-c:1: error: compare: model.onnx and reference.onnx diverge at cat_1 (1 of 1 values differ)
? 1

## The mlp with linear_1's bias dropped, against fxsh's export of the unpatched mlp
## (examples/data/mlp.optimized.onnx) on the corpus's inputs: linear_1 alone; --json.
$ fxsh -q -c 'load examples/data/mlp.pt2' -c 'set linear_1 2=None' -c 'export' -c 'reduce optimized examples/data/mlp.optimized.onnx --inputs examples/data/mlp.io.json --json' | jq -c '[.mode, .stage, .reference, .target, .nodes_before, .nodes_after, .inputs, .ok]'
["values","optimized","examples/data/mlp.optimized.onnx","linear_1",5,1,["relu"],true]

## Two model files, nothing loaded (fxsh's export of the mlp without linear_1's bias against the
## unpatched one), random inputs: linear_1 alone, no torch form.
$ fxsh -q -c 'load examples/data/mlp.pt2' -c 'set linear_1 2=None' -c export -c "save $FXSH_SCRATCH/bad.onnx" && fxsh -q -c "reduce $FXSH_SCRATCH/bad.onnx examples/data/mlp.optimized.onnx --seed 1 --save $FXSH_SCRATCH/r" | sed "s#$FXSH_SCRATCH#SCRATCH#g" | head -4; ls $FXSH_SCRATCH/r
reduce: SCRATCH/bad.onnx vs examples/data/mlp.optimized.onnx: linear_1 differs from examples/data/mlp.optimized.onnx's: max abs diff 0.239, 32 of 32 elements beyond atol 0.0001, rtol 0.001
reduced the model from 5 nodes to 1 around %linear_1 (1 test)

# no torch form: neither model comes from an FX stage of this session
README.md
expected.npz
inputs.npz
model.onnx
reference.onnx
reproduce.fxsh

## A model `check` rejects (fxsh's export of the mlp, relu_1 given an attribute Relu does not have):
## the node alone, its input a graph input of its declared type; the reproducer's check fails the
## same way.
$ fxsh -q -c 'load examples/data/mlp.optimized.onnx' -c "save $FXSH_SCRATCH/m.txt" && sed 's/relu_1 = Relu (linear_1)/relu_1 = Relu <alpha: float = 0.5> (linear_1)/' $FXSH_SCRATCH/m.txt >$FXSH_SCRATCH/bad.txt && fxsh -q -c "load $FXSH_SCRATCH/bad.txt" -c "reduce --save $FXSH_SCRATCH/r" && cd $FXSH_SCRATCH/r && ls && fxsh -q -f reproduce.fxsh
reduce: `check` rejects onnx: main_graph: node 3 ("node_relu_1", Relu): unrecognized attribute 'alpha' for Relu-14
reduced the model from 5 nodes to 1 around node_relu_1 (1 test)

# no torch form: the model was given as ONNX

model (onnx, onnx):
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[2,16] linear_1) => (float[2,16] relu_1) {
   [node_relu_1] relu_1 = Relu <alpha: float = 0.5> (linear_1)
}

inputs: none needed: `check` reads no values
README.md
model.onnx
reproduce.fxsh
reproduce.fxsh:2: model.onnx: error: main_graph: node 0 ("node_relu_1", Relu): unrecognized attribute 'alpha' for Relu-14
reproduce.fxsh:2: error: check: 1 problem found
? 1

## Saving into a folder that holds an earlier reproducer: the files this one does not have go
## (reference.onnx, expected.npz, model.onnx), nothing else of the folder is touched.
$ mkdir $FXSH_SCRATCH/r && touch $FXSH_SCRATCH/r/notes.txt && fxsh -q -c 'load examples/data/mlp.pt2' -c 'set linear_1 2=None' -c 'export' -c "reduce optimized examples/data/mlp.optimized.onnx --save $FXSH_SCRATCH/r" >/dev/null && ls $FXSH_SCRATCH/r && fxsh -q -c 'load examples/data/mlp.pt2' -c 'replace relu torch.ops.aten.special_i0e.default' -c "reduce --save $FXSH_SCRATCH/r" >/dev/null && echo then && ls $FXSH_SCRATCH/r
README.md
expected.npz
inputs.npz
model.onnx
notes.txt
program.pt2
reference.onnx
reproduce.fxsh
then
README.md
inputs.npz
notes.txt
program.pt2
reproduce.fxsh

## Nothing to reduce, and bad requests: each a clear error and exit 1, nothing written.
$ fxsh -q -c reduce
-c:1: error: reduce: no FX program loaded
  hint: load a program whose export fails (`load model.pt2`), or give two models: reduce MODEL REFERENCE
? 1

$ fxsh -q -c 'load examples/data/mlp.pt2' -c reduce
-c:2: error: reduce: the export of the loaded program succeeds: no failure to reduce
  hint: a model whose values are wrong is reduced against a reference: reduce optimized exported
? 1

$ fxsh -q -c 'load examples/data/mlp.pt2' -c 'export' -c 'reduce optimized exported'
-c:3: error: reduce: optimized and exported agree (5 values within atol 0.0001, rtol 0.001): no divergence to reduce
  hint: reduce without arguments reduces a failing export
? 1

$ fxsh -q -c 'load examples/data/mlp.pt2' -c 'reduce optimized'
-c:2: error: reduce: the optimized stage is empty
  hint: `stages` lists what each holds; `export` or `step` fills them
? 1

$ fxsh -q -c 'load examples/data/mlp.pt2' -c export -c 'reduce optimized'
-c:3: error: reduce: optimized passes `check`: no failure to reduce
  hint: a model whose values are wrong is reduced against a reference: reduce optimized REFERENCE
? 1

$ fxsh -q -c 'load examples/data/mlp.pt2' -c 'reduce optimized nosuch.onnx'
-c:2: error: reduce: 'nosuch.onnx' is neither a stage nor a readable file
  hint: stages: fx, exported, decomposed, onnx, optimized; or an .onnx / ONNX text file
? 1

$ fxsh -q -c 'load examples/data/mlp.pt2' -c 'replace relu torch.ops.aten.special_i0e.default' -c 'reduce --inputs examples/data/python_if_shape.io.json'
-c:3: error: reduce: input x: examples/data/python_if_shape.io.json holds shape [4, 3], the model takes [2, 8]
? 1

$ touch $FXSH_SCRATCH/file && fxsh -q -c 'load examples/data/mlp.pt2' -c 'replace relu torch.ops.aten.special_i0e.default' -c "reduce --save $FXSH_SCRATCH/file" 2>&1 | sed "s#$FXSH_SCRATCH#SCRATCH#g"; ls $FXSH_SCRATCH
-c:3: error: reduce: --save SCRATCH/file: not a folder
file

$ fxsh -q -c 'load examples/data/mlp.pt2' -c 'reduce --json' | jq -c '[.command, .ok, (.errors | length)]'
-c:2: error: reduce: the export of the loaded program succeeds: no failure to reduce
  hint: a model whose values are wrong is reduced against a reference: reduce optimized exported
["reduce",false,1]
