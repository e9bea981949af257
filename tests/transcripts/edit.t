## edit.t — node surgery on the loaded FX program, undo / redo / history, save-patch and replay.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'replace sum_1 torch.ops.aten.mean.default' -c 'set gt 1=0.5' -c 'insert linear_1 c torch.ops.aten.clone.default (%linear_1,)' -c 'rewire sum_1 0 %c' -c history -c 'show graph'
  1  exported    replace sum_1 torch.ops.aten.mean.default
  2  exported    set gt 1=0.5
  3  exported    insert linear_1 c torch.ops.aten.clone.default (%linear_1,)
  4  exported    rewire sum_1 0 %c
graph():
    %p_seq_0_weight : [num_users=1] = placeholder[target=p_seq_0_weight]
    %p_seq_0_bias : [num_users=1] = placeholder[target=p_seq_0_bias]
    %p_seq_1_weight : [num_users=1] = placeholder[target=p_seq_1_weight]
    %p_seq_1_bias : [num_users=1] = placeholder[target=p_seq_1_bias]
    %x : [num_users=1] = placeholder[target=x]
    %linear : [num_users=1] = call_function[target=torch.ops.aten.linear.default](args = (%x, %p_seq_0_weight, %p_seq_0_bias), kwargs = {})
    %linear_1 : [num_users=2] = call_function[target=torch.ops.aten.linear.default](args = (%linear, %p_seq_1_weight, %p_seq_1_bias), kwargs = {})
    %c : [num_users=1] = call_function[target=torch.ops.aten.clone.default](args = (%linear_1,), kwargs = {})
    %sum_1 : [num_users=1] = call_function[target=torch.ops.aten.mean.default](args = (%c,), kwargs = {})
    %gt : [num_users=1] = call_function[target=torch.ops.aten.gt.Scalar](args = (%sum_1, 0.5), kwargs = {})
    %true_graph_0 : [num_users=1] = get_attr[target=true_graph_0]
    %false_graph_0 : [num_users=1] = get_attr[target=false_graph_0]
    %cond : [num_users=1] = call_function[target=torch.ops.higher_order.cond](args = (%gt, %true_graph_0, %false_graph_0, (%linear_1,)), kwargs = {})
    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%cond, 0), kwargs = {})
    return (getitem,)

## Edits apply to the loaded program; the stages exported from it are dropped as stale, and
## undo / redo move between the versions.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c 'replace sum_1 torch.ops.aten.mean.default' -c stages -c undo -c redo -c undo -c undo -c history -c 'export verbose=False' -c stages
  fx          -
* exported    FX program  (examples/data/mlp_cond.pt2)
  decomposed  -
  onnx        -
  optimized   -
-c:8: error: undo: nothing to undo
  -  exported    replace sum_1 torch.ops.aten.mean.default  (undone)
  fx          -
  exported    FX program  (examples/data/mlp_cond.pt2)
  decomposed  FX program  (decompose (ONNX table))
  onnx        ONNX model  (translate)
* optimized   ONNX model  (optimize)
? 1

## Refusals name the node and say what would work.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'delete linear' -c 'rewire linear 0 %getitem' -c 'rename linear sum_1' -c 'replace x torch.ops.aten.relu.default' -c 'set nosuch 0=1' -c 'insert output y torch.ops.aten.relu.default (%x,)' -c 'replace nosuch foo'
-c:2: error: %linear is still used by %linear_1
  hint: `delete linear %OTHER` rewires its users to %OTHER first
-c:3: error: %getitem is defined after %linear: an argument must come before its user
-c:4: error: a node named 'sum_1' already exists
-c:5: error: %x is a placeholder node; only call nodes have a target to replace
-c:6: error: set: no setting named 'nosuch'
  hint: settings: opset_version, input_names, output_names, dynamic_shapes, dynamic_axes, inputs, export_params, keep_initializers_as_inputs, do_constant_folding, optimize, external_data, verbose (`set` shows their values)
-c:7: error: nothing can be inserted after the output node
-c:8: error: no node named 'nosuch'
  hint: `nodes` lists them
? 1

$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'delete gt %sum_1' -c 'node cond'
node:    cond
op:      call_function
target:  torch.ops.higher_order.cond
args:    (%sum_1, %true_graph_0, %false_graph_0, (%linear_1,))
kwargs:  {}
users:   1 (getitem)
value:   unknown
source:  <eval_with_key>.860:9 in forward, code: cond = torch.ops.higher_order.cond(l_args_0_, cond_true_0, cond_false_0, (l_args_3_0_,));  l_args_0_ = cond_true_0 = cond_false_0 = l_args_3_0_ = None
module:  the model (model.MLPCond)

$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c 'replace node_gt Less'
-c:2: error: replace: an ONNX model has no FX program to patch
  hint: patches apply to FX programs: load FX text, a .pt2 or TorchScript IR
? 1

## save-patch writes a script that replays the edits on the original program.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'replace sum_1 torch.ops.aten.mean.default' -c 'set gt 1=0.5' -c "save-patch $FXSH_SCRATCH/p.fxsh" -c 'show graph' > $FXSH_SCRATCH/edited && cat $FXSH_SCRATCH/p.fxsh && fxsh -c 'load examples/data/mlp_cond.pt2' -c "source $FXSH_SCRATCH/p.fxsh" -c 'show graph' | cmp - $FXSH_SCRATCH/edited && echo replayed
# fxsh patch: 2 edits of the exported stage loaded from examples/data/mlp_cond.pt2.
# Replay it: fxsh -f THIS_FILE (or `source` it); it loads the program as it was loaded.
load examples/data/mlp_cond.pt2
replace sum_1 torch.ops.aten.mean.default
set gt 1=0.5
replayed

## replace and insert check an ATen target against torch's schemas at once (newcomer-2 finding 6):
## one written without its overload is torch's default one; a name torch has not is an error
## with the nearest, not a graph that fails at translate.
$ fxsh -q -c 'load examples/data/mlp_cond.pt2' -c 'replace linear_1 aten.tanh' -c 'replace linear torch.ops.aten.nosuch.default' -c 'replace linear aten.tnah' -c 'replace linear aten.gelu.foo' -c 'insert linear t2 aten::relu (%linear,)' -c 'show graph' 2>&1 | grep -v placeholder
-c:3: error: 'torch.ops.aten.nosuch.default': torch has no ATen operator nosuch
  hint: share/fxsh/aten/schemas.txt lists torch's ATen operators
-c:4: error: 'aten.tnah': torch has no ATen operator tnah
  hint: did you mean torch.ops.aten.tanh.default? (share/fxsh/aten/schemas.txt lists torch's)
-c:5: error: 'aten.gelu.foo': aten.gelu has no overload foo
  hint: its overloads: torch.ops.aten.gelu.default, torch.ops.aten.gelu.out
graph():
    %linear : [num_users=2] = call_function[target=torch.ops.aten.linear.default](args = (%x, %p_seq_0_weight, %p_seq_0_bias), kwargs = {})
    %t2 : [num_users=0] = call_function[target=torch.ops.aten.relu.default](args = (%linear,), kwargs = {})
    %linear_1 : [num_users=2] = call_function[target=torch.ops.aten.tanh.default](args = (%linear, %p_seq_1_weight, %p_seq_1_bias), kwargs = {})
    %sum_1 : [num_users=1] = call_function[target=torch.ops.aten.sum.default](args = (%linear_1,), kwargs = {})
    %gt : [num_users=1] = call_function[target=torch.ops.aten.gt.Scalar](args = (%sum_1, 0), kwargs = {})
    %true_graph_0 : [num_users=1] = get_attr[target=true_graph_0]
    %false_graph_0 : [num_users=1] = get_attr[target=false_graph_0]
    %cond : [num_users=1] = call_function[target=torch.ops.higher_order.cond](args = (%gt, %true_graph_0, %false_graph_0, (%linear_1,)), kwargs = {})
    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%cond, 0), kwargs = {})
    return (getitem,)

## A `load` replaces the program and its edits: it says how many went with it (newcomer-2
## finding 3: the rewrites were dropped without a word).
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'replace linear_1 aten.tanh' -c 'load examples/data/mlp_cond.pt2' 2>&1
-c:3: note: load: 1 edit of the previous program dropped with it
  hint: `save-patch FILE` before `load` keeps edits as a script that replays them
