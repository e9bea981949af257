## lint.t — expected transcript of examples/lint.fxsh: the tracing-pitfalls lint on three corpus
## programs, each warning with its fix (the notes about weights loaded without values are left out).
$ fxsh -echo -f examples/lint.fxsh 2>&1 | grep -v -e 'note: meta' -e '^  hint: load its weights' -e '^  hint: declare the input'
load examples/data/python_if_nested.torchscript.txt --weights examples/data/python_if_nested.weights.onnx --input x=f32[2,3]
lint
examples/lint.fxsh:6: examples/data/python_if_nested.torchscript.txt:15: warning: %if_1: Python `if` on the tensor %gt: tracing records only the branch the example takes
  hint: rewrite %true_graph_0.if_1 cond, then rewrite %if_1 cond (the inner `if` first: torch.cond branches hold no Python `if`)
examples/lint.fxsh:6: examples/data/python_if_nested.torchscript.txt:20: warning: %true_graph_0.if_1: Python `if` on the tensor %gt: tracing records only the branch the example takes
  hint: rewrite %true_graph_0.if_1 cond
lint: 2 tracing pitfalls in the fx stage (each with its fix; torch.export with the rewrites avoids them)
rewrite %true_graph_0.if_1 cond
rewrite %if_1 cond
lint
lint: 0 tracing pitfalls in the fx stage
load examples/data/inplace_ops.torchscript.txt
examples/lint.fxsh:11: note: load: 2 edits of the previous program dropped with it
  hint: `save-patch FILE` before `load` keeps edits as a script that replays them
lint
examples/lint.fxsh:12: examples/data/inplace_ops.torchscript.txt:6: warning: %add_: add_ updates the input %x in place: an ONNX graph cannot change its inputs, so the traced model loses the update the caller sees in PyTorch
  hint: compute a new tensor instead: replace add_ torch.ops.aten.add.Tensor (and use its result)
lint: 1 tracing pitfall in the fx stage (each with its fix; torch.export with the rewrites avoids them)
load examples/data/dynamic_batch.torchscript.txt
lint
examples/lint.fxsh:15: examples/data/dynamic_batch.torchscript.txt:10: warning: %size: a shape used as a Python int: tracing records the example's size, so the graph works for that size only
  hint: export with torch.export instead of tracing, and mark the dimension dynamic (set dynamic_shapes x:0=batch): it keeps the size symbolic
lint: 1 tracing pitfall in the fx stage (each with its fix; torch.export with the rewrites avoids them)
