## wrong_input.t — the expected transcript of examples/wrong_input.fxsh (checked by make check): the
## Linear before the `if` is the first failure, as torch 2.14's (checked on the corpus model).
$ fxsh -echo -f examples/wrong_input.fxsh
load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,5]
examples/wrong_input.fxsh:8: examples/data/python_if_data.torchscript.txt:11: warning: meta: aten.linear.default: shapes cannot be multiplied (inner sizes 5 and 4): %linear left without value meta
  hint: the example inputs do not fit the model there: export fails at that node, as torch.export does; declare shapes it accepts
examples/wrong_input.fxsh:8: examples/data/python_if_data.torchscript.txt: note: meta: subgraph placeholder without value meta: %linear_1 left without value meta
examples/wrong_input.fxsh:8: examples/data/python_if_data.torchscript.txt: note: meta: 6 more nodes left without value meta because an input has none
export verbose=False
examples/wrong_input.fxsh:9: examples/data/python_if_data.torchscript.txt:11: error: export failed at %linear: aten.linear.default: shapes cannot be multiplied (inner sizes 5 and 4)
  hint: torch.export fails here too: the example inputs (--input x=f32[3,5]) do not fit the model; declare shapes it accepts
examples/wrong_input.fxsh:9: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]
export verbose=False



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
examples/wrong_input.fxsh:12: /src/models/python_if_data/model.py:14: error: export failed at %if_1: Python `if` on the tensor %sum_1 (data-dependent: Could not guard on data-dependent expression Eq(u0, 1))
  hint: rewrite %if_1 cond --clone (false_graph_0 returns its input linear_1 unchanged, which torch.cond rejects as aliasing: --clone returns a copy instead, torch's fix)
examples/wrong_input.fxsh:12: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
? 1
