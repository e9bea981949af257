## fx_inspect.t — loading FX text and looking at it: nodes, node, find, stats, stages, errors.
## (show output is checked against the corpus by tests/corpus_repl.sh; inspection formats here.)
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.fx.txt' -c stages -c nodes
  fx          -
* exported    FX program  (tests/fixtures/repl/mlp_cond.fx.txt)
  decomposed  -
  onnx        -
  optimized   -
name            op             target                         users
p_seq_0_weight  placeholder    p_seq_0_weight                 linear
p_seq_0_bias    placeholder    p_seq_0_bias                   linear
p_seq_1_weight  placeholder    p_seq_1_weight                 linear_1
p_seq_1_bias    placeholder    p_seq_1_bias                   linear_1
x               placeholder    x                              linear
linear          call_function  torch.ops.aten.linear.default  linear_1
linear_1        call_function  torch.ops.aten.linear.default  sum_1, cond
sum_1           call_function  torch.ops.aten.sum.default     gt
gt              call_function  torch.ops.aten.gt.Scalar       cond
true_graph_0    get_attr       true_graph_0                   cond
false_graph_0   get_attr       false_graph_0                  cond
cond            call_function  torch.ops.higher_order.cond    getitem
getitem         call_function  operator.getitem               output
output          output         output                         -

$ fxsh -c 'load tests/fixtures/repl/mlp_cond.fx.txt' -c 'node %linear_1' -c 'node gt'
node:    linear_1
op:      call_function
target:  torch.ops.aten.linear.default
args:    (%linear, %p_seq_1_weight, %p_seq_1_bias)
kwargs:  {}
users:   2 (sum_1, cond)
value:   unknown
source:  unknown
node:    gt
op:      call_function
target:  torch.ops.aten.gt.Scalar
args:    (%sum_1, 0)
kwargs:  {}
users:   1 (cond)
value:   unknown
source:  unknown

$ fxsh -c 'load examples/data/mlp_cond.readable.txt' -c 'node true_graph_0.mul' -c 'find neg' -c stats
node:    true_graph_0.mul
op:      call_function
target:  torch.ops.aten.mul.Tensor
args:    (%linear_1, 2)
kwargs:  {}
users:   1 (output)
value:   f32[4, 1]
source:  <eval_with_key>.861:6 in forward, code: mul = l_args_3_0__1 * 2;  l_args_3_0__1 = None
false_graph_0.neg  call_function  torch.ops.aten.neg.default
nodes: 20 (root graph 14)
placeholders: 5, outputs: 1 (root graph)
by opcode:
  placeholder    7
  get_attr       2
  call_function  8
  output         3
by target:
      2  torch.ops.aten.linear.default
      1  false_graph_0
      1  operator.getitem
      1  torch.ops.aten.gt.Scalar
      1  torch.ops.aten.mul.Tensor
      1  torch.ops.aten.neg.default
      1  torch.ops.aten.sum.default
      1  torch.ops.higher_order.cond
      1  true_graph_0
subgraphs: 2
  true_graph_0: 3 nodes
  false_graph_0: 3 nodes

## find ignores case by default (finding 9: `find softmax` did not list Softmax); --case-sensitive matches exactly.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'find NEG' -c 'find NEG --case-sensitive'
false_graph_0.neg  call_function  torch.ops.aten.neg.default
-c:3: error: find: nothing matches 'NEG' (case-sensitive)
? 1

$ fxsh -c 'load tests/fixtures/repl/mlp_cond.fx.txt' -c 'node nosuch' -c 'find zzz'
-c:2: error: node: no node named 'nosuch' in the exported stage
  hint: `nodes` lists them; `find TEXT` searches names and targets
-c:3: error: find: nothing matches 'zzz'
? 1

## A malformed file is reported with file:line:col, the line and a caret; the stages are untouched.
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.fx.txt' -c 'load tests/fixtures/repl/undefined.fx.txt' -c stages
-c:2: tests/fixtures/repl/undefined.fx.txt:3:87: error: undefined name '%y'
        %relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%y,), kwargs = {})
                                                                                          ^
  hint: no line of this text defines 'y'
  fx          -
* exported    FX program  (tests/fixtures/repl/mlp_cond.fx.txt)
  decomposed  -
  onnx        -
  optimized   -
? 1

$ fxsh -c 'load tests/fixtures/repl/unbalanced.fx.txt'
-c:1: tests/fixtures/repl/unbalanced.fx.txt:3:75: error: unbalanced brackets: this '(' is never closed
        %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%x, (1, 2), kwargs = {})
                                                                              ^
  hint: every ( [ { in the arguments needs its ) ] }
? 1

## A graph pasted after `load -` is read until its return line; the session goes on after it.
$ fxsh
< load -
< graph():
<     %x : [num_users=1] = placeholder[target=x]
<     %relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%x,), kwargs = {})
<     return (relu,)
< nodes
< show tabular
< show
name    op             target                       users
x       placeholder    x                            relu
relu    call_function  torch.ops.aten.relu.default  output
output  output         output                       -
opcode         name    target             args        kwargs  
-------------  ------  -----------------  ----------  --------
placeholder    x       x                  ()          {}      
call_function  relu    aten.relu.default  (x,)        {}      
output         output  output             ((relu,),)  {}      
graph():
    %x : [num_users=1] = placeholder[target=x]
    %relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%x,), kwargs = {})
    return (relu,)

## A paste that ends early is an error, not a hang.
$ fxsh
< load -
< graph():
<     %x : [num_users=1] = placeholder[target=x]
<stdin>:3: <paste>:2:47: error: truncated graph text: missing 'return' line
        %x : [num_users=1] = placeholder[target=x]
                                                  ^
  hint: print(gm.graph) ends with a 'return ...' line; paste the whole output
? 1

## dot draws FX programs too (finding 10: it refused them): a box per node, each cond branch a
## cluster of its own nodes only, a dashed edge from the branch into the get_attr naming it.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c dot | sed -n '/subgraph "cluster_true_graph_0"/,/^  }/p;/ltail/p;/"linear_1" -> "cond"/p'
  subgraph "cluster_true_graph_0" {
    label="true_graph_0";
    "true_graph_0.linear_1" [shape=box, style="rounded,filled", fillcolor="#c8e6c9", label="linear_1\nplaceholder\nf32[4, 1]"];
    "true_graph_0.mul" [shape=box, style="rounded,filled", fillcolor=white, label="mul\ncall_function torch.ops.aten.mul.Tensor\nf32[4, 1]"];
    "true_graph_0.output" [shape=box, style="rounded,filled", fillcolor="#bbdefb", label="output\noutput"];
  }
  "linear_1" -> "cond";
  "true_graph_0.output" -> "true_graph_0" [ltail="cluster_true_graph_0", style=dashed];
  "false_graph_0.output" -> "false_graph_0" [ltail="cluster_false_graph_0", style=dashed];
