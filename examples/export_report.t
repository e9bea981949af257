## export_report.t — expected transcript of examples/export_report.fxsh: the export report of the
## seed recipe, failing and then succeeding. Times vary (shown as N ms); torch's failure text goes
## to stderr and into the report; Markdown headings are shown indented by one space (a line that
## starts with two # is a comment here). Run in a scratch folder: the script writes its .dot there.
$ cd $FXSH_SCRATCH && ln -s "$OLDPWD/examples" examples && fxsh -q -echo -f examples/export_report.fxsh 2>/dev/null | sed -E 's/[0-9]+\.[0-9] ms/N ms/; s/^##/ ##/' && head -1 examples_seed_recipe.dot
load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]
export verbose=False --report /dev/stdout
# fxsh export report

- program: `load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]`
- model: `PyIfData`
- command: `export verbose=False --report /dev/stdout`
- result: **failed** at the exported stage

 ## Settings

```
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
verbose                      False       # print the [torch.onnx] progress lines
```

 ## Stages

| stage | made by | nodes | time |
|---|---|---|---|
| fx | examples/data/python_if_data.torchscript.txt | 19 (14 in the main graph) | loaded |
| exported | failed | - | N ms |

 ## Decisions and warnings

None.

 ## Failure

- **error**: `/src/models/python_if_data/model.py:14`: export failed at %if_1: Python `if` on the tensor %sum_1 (data-dependent: Could not guard on data-dependent expression Eq(u0, 1)) — hint: rewrite %if_1 cond --clone (false_graph_0 returns its input linear_1 unchanged, which torch.cond rejects as aliasing: --clone returns a copy instead, torch's fix)
- **error**: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX. — hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`

What torch prints:

```



def forward(self, arg0_1: "f32[8, 4]", arg1_1: "f32[8]", arg2_1: "f32[4, 8]", arg3_1: "f32[4]", arg4_1: "f32[3, 4]"):
    # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
    linear: "f32[3, 8]" = torch.ops.aten.linear.default(arg4_1, arg0_1, arg1_1);  arg4_1 = arg0_1 = arg1_1 = None
    
    # File: /usr/lib/python3/dist-packages/torch/nn/functional.py:1777 in forward
    relu: "f32[3, 8]" = torch.ops.aten.relu.default(linear);  linear = None
    
    # File: /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
    linear_1: "f32[3, 4]" = torch.ops.aten.linear.default(relu, arg2_1, arg3_1);  relu = arg2_1 = arg3_1 = None
    
    # File: /src/models/python_if_data/model.py:14 in forward
    sum_1: "f32[]" = torch.ops.aten.sum.default(linear_1);  linear_1 = None
    ne: "b8[]" = torch.ops.aten.ne.Scalar(sum_1, 0);  sum_1 = None
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
  File "/src/models/python_if_data/model.py", line 14, in forward
```
rewrite if_1 cond --clone
export verbose=False --report /dev/stdout
# fxsh export report

- program: `load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]`
- model: `PyIfData`
- command: `export verbose=False --report /dev/stdout`
- result: succeeded

 ## Edits since the load

1. `rewrite if_1 cond --clone`

 ## Settings

```
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
verbose                      False       # print the [torch.onnx] progress lines
```

 ## Stages

| stage | made by | nodes | time |
|---|---|---|---|
| fx | examples/data/python_if_data.torchscript.txt | 21 (15 in the main graph) | loaded |
| exported | export | 21 (15 in the main graph) | N ms |
| decomposed | decompose (ONNX table) | 23 (16 in the main graph) | N ms |
| onnx | translate | 13 (9 in the main graph) | N ms |
| optimized | optimize | 9 (7 in the main graph) | N ms |

 ## Operators (optimized stage)

| op | count |
|---|---|
| Gemm | 2 |
| Equal | 1 |
| Identity | 1 |
| If | 1 |
| Mul | 1 |
| Not | 1 |
| ReduceSum | 1 |
| Relu | 1 |

 ## Decisions and warnings

None.
dot examples_seed_recipe.dot
digraph "main_graph" {
