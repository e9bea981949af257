## guards.t — `guards` and `explain DIM`: the guards the last capture decided on dynamic sizes,
## each with what it did to the dimension's range and where it is, in Python and in the program.
## (The verdicts themselves are held to torch.export's by tests/guards.sh.)

## A named Dim that the `if` would narrow: the failed guard, with its source lines.
$ fxsh -q -c 'load examples/data/python_if_shape.torchscript.txt --input x=f32[4,3] --weights examples/data/python_if_shape.pt2' -c 'export dynamic_shapes=x:0=batch' -c guards 2>/dev/null
%if_1  `batch > 2`  True at batch=4: failed: would make batch VR[3, int_oo]
    /src/models/python_if_shape/model.py:13 in forward
    examples/data/python_if_shape.torchscript.txt:13
? 1

## AUTO: narrowed; explain follows the dimension by its name or as INPUT:AXIS.
$ fxsh -q -c 'load examples/data/python_if_shape.torchscript.txt --input x=f32[4,3] --weights examples/data/python_if_shape.pt2' -c 'export dynamic_shapes=x:0=AUTO' -c 'explain x:0' -c 'explain --json s0' 2>/dev/null
%if_1  `s0 > 2`  True at s0=4: narrowed s0 to VR[3, int_oo]
    /src/models/python_if_shape/model.py:13 in forward
    examples/data/python_if_shape.torchscript.txt:13
x:0: narrowed s0 to VR[3, int_oo] at %if_1
{"fxsh":1,"command":"explain","dimension":"s0","guards":[{"node":"if_1","guard":"s0 > 2","symbol":"s0","input":"x","axis":0,"example":4,"truth":true,"effect":"narrowed","range":[3,null],"file":"examples/data/python_if_shape.torchscript.txt","line":13,"source":"/src/models/python_if_shape/model.py:13 in forward"}],"count":1}

## A guard that pins an AUTO dimension (x.shape[0] == 4): the input becomes static.
$ fxsh -q -c 'load tests/fixtures/guards/if_eq.torchscript.txt --input x=f32[4,3] --weights examples/data/python_if_shape.pt2' -c 'export dynamic_shapes=x:0=AUTO' -c guards -c 'show optimized' 2>/dev/null | grep -E '^%|^    |^main_graph'
%if_1  `Eq(s0, 4)`  True at s0=4: pinned s0 to 4 (static)
    /src/models/python_if_shape/model.py:13 in forward
    tests/fixtures/guards/if_eq.torchscript.txt:14
main_graph (float[4,3] x) => (float[4,3] mul) 

## After the rewrite into torch.cond nothing is decided: no guards.
$ fxsh -q -c 'load examples/data/python_if_shape.torchscript.txt --input x=f32[4,3] --weights examples/data/python_if_shape.pt2' -c 'rewrite if_1 cond' -c 'export dynamic_shapes=x:0=batch' -c guards -c 'explain batch'
no guards: the last capture decided nothing on a dynamic size
no guard of the last capture reads batch

$ fxsh -q -c 'explain --json'
{"fxsh":1,"command":"explain","ok":false,"errors":[{"message":"explain: which dimension?","hint":"explain batch (a dynamic_shapes name) or explain x:0 (an input's axis)"}]}
-c:1: error: explain: which dimension?
  hint: explain batch (a dynamic_shapes name) or explain x:0 (an input's axis)
? 1

## A kernel's guard: the Linear needs x's dim 1 to be its 3 input features, so a named Dim there
## fails (torch's text) and an AUTO one becomes static; `guards` names the node and its source.
$ fxsh -q -c 'load examples/data/python_if_shape.torchscript.txt --input x=f32[4,3] --weights examples/data/python_if_shape.pt2' -c 'export dynamic_shapes=x:1=feat' -c guards
-c:2: error: export failed at %linear: Constraints violated (feat)! You marked feat as dynamic but your code specialized it to be a constant (3) (%linear needs that size there)
  hint: Suggested fixes: feat = 3, i.e. dynamic_shapes x:1=STATIC
-c:2: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
%linear  `feat == 3 (%linear needs it)`  True at feat=3: failed: would make feat the constant 3
    /usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward
    examples/data/python_if_shape.torchscript.txt:9
? 1

## guards --json: every guard with its node, symbol, input axis, effect and both source lines
$ fxsh -q -c 'load examples/data/python_if_shape.torchscript.txt --input x=f32[4,3] --weights examples/data/python_if_shape.pt2' -c 'export dynamic_shapes=x:0=AUTO verbose=False' -c 'guards --json' 2>/dev/null
{"fxsh":1,"command":"guards","guards":[{"node":"if_1","guard":"s0 > 2","symbol":"s0","input":"x","axis":0,"example":4,"truth":true,"effect":"narrowed","range":[3,null],"file":"examples/data/python_if_shape.torchscript.txt","line":13,"source":"/src/models/python_if_shape/model.py:13 in forward"}],"count":1}
