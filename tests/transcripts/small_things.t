## small_things.t — issue 14, item 7: values quoted as users type them, formats named by what a
## file looks like, `quit` inside `load -`, graph text that calls modules it does not define.

## --input as Python prints a shape (with a space), unquoted or quoted, is one declaration.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --input x=f32[3, 4] --weights examples/data/python_if_data.weights.onnx' -c 'load examples/data/python_if_data.torchscript.txt --input "x=f32[3, 4]" --weights examples/data/python_if_data.weights.onnx' -c 'rewrite if_1 cond --clone' -c 'export verbose=False' -c check 2>&1 | grep -v 'returned its input'
check: ok

## set NODE ARG="string": the quotes the command line took are given back to the string.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --input x=f32[3,4] --weights examples/data/python_if_data.weights.onnx' -c 'replace relu torch.ops.aten.gelu.default' -c 'set relu approximate="tanh"' -c 'show code' 2>&1 | grep gelu
        relu: "f32[3, 8]" = torch.ops.aten.gelu.default(linear, approximate = 'tanh');  linear = None

$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --input x=f32[3,4] --weights examples/data/python_if_data.weights.onnx' -c 'replace relu torch.ops.aten.gelu.default' -c "set relu approximate='tanh'" -c 'set relu approximate=True' -c 'node relu' 2>&1 | grep kwargs
kwargs:  {approximate: True}

## A file of none of fxsh's formats is named by what it looks like.
$ printf '\211PNG\r\n\032\n\000\000\000\rIHDR' > $FXSH_SCRATCH/x.png && printf 'import torch\n\nclass M(torch.nn.Module):\n    pass\n' > $FXSH_SCRATCH/m.py && printf '\200\002}q\000.' > $FXSH_SCRATCH/w.pt && cd $FXSH_SCRATCH && fxsh -c 'load x.png' -c 'load m.py' -c 'load w.pt'
-c:1: x.png: error: load: not an FX graph, .pt2, ONNX or TorchScript file: it looks like a PNG image
  hint: `help load` lists the formats fxsh reads
-c:2: m.py: error: load: not an FX graph, .pt2, ONNX or TorchScript file: it looks like Python source; fxsh reads what torch prints of a model (print(gm), gm.print_readable(), torch.jit.script(m).inlined_graph) or saves (torch.export.save)
  hint: `help load` lists the formats fxsh reads
-c:3: w.pt: error: load: not an FX graph, .pt2, ONNX or TorchScript file: it looks like a Python pickle (torch.save); fxsh reads torch.export.save archives (.pt2)
  hint: `help load` lists the formats fxsh reads
? 1

## `quit` where `load -` expects graph text leaves, instead of waiting for the end of input.
$ printf 'load -\nquit\nstages\n' | fxsh
<stdin>:2: error: load -: no graph text before `quit`: nothing loaded, leaving
? 1

## print(gm.graph) names the modules a call_module calls, not what they are: say to load print(gm).
$ printf 'graph():\n    %%x : [num_users=1] = placeholder[target=x]\n    %%fc1 : [num_users=1] = call_module[target=fc1](args = (%%x,), kwargs = {})\n    return fc1\n' > $FXSH_SCRATCH/g.txt && fxsh -c "load $FXSH_SCRATCH/g.txt" 2>&1 | sed "s|$FXSH_SCRATCH/||"
-c:1: g.txt: warning: the graph calls 1 module it does not define (fc1): graph text names modules but not what they are, so export cannot inline them
  hint: load print(gm) instead of print(gm.graph): it prints the modules (Linear(...)) with the code

## Argument mistakes are named (newcomer-2 finding 22): a misspelt option gets the nearest, an
## option without its value says what it takes, and numbers out of range are refused rather than
## wrapped (a seed beyond 2^64) or made meaningless (a tolerance of inf passes everything).
$ fxsh -c 'load examples/data/mlp_cond.pt2 --weight x.pt2' -c 'load examples/data/mlp_cond.pt2 --weights' -c 'load examples/data/mlp_cond.pt2 --inptu x=f32[2,3]'
-c:1: error: load: unknown option '--weight'; did you mean '--weights'?
  hint: usage: load FILE|- [--weights W] [--input SPEC]... [--attr NAME=VALUE]...
-c:2: error: load: --weights needs a file (a .pt2, .onnx or .safetensors file of the model's weights)
-c:3: error: load: unknown option '--inptu'; did you mean '--input'?
  hint: usage: load FILE|- [--weights W] [--input SPEC]... [--attr NAME=VALUE]...
? 1

$ fxsh -q -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c 'run --seed 99999999999999999999999' -c 'verify exported optimized --atol 1e999' -c 'verify exported optimized --rtol nan' -c 'export --legacy trace --seed 99999999999999999999999'
-c:3: error: run: --seed needs an integer from 0 to 18446744073709551615, not 99999999999999999999999
-c:4: error: verify: --atol needs a finite non-negative number, not 1e999
-c:5: error: verify: --rtol needs a finite non-negative number, not nan
-c:6: error: export: --seed needs an integer from 0 to 2^64-1
? 1

## --help: the options in one column, and the formats FILE may be, TorchScript IR among them (finding 23).
$ fxsh --help | sed -n '3,4p;14p'
Loads each FILE (FX graph text, readable code, GraphModule text, a printed ExportedProgram,
.pt2 / torch.export JSON, TorchScript IR, .onnx or ONNX text), then reads commands from the
  -interactive    force interactive mode

## A file named on the command line that fails to load: its error names the file, with no
## "<command line>:0:" prefix (finding 23).
$ fxsh nosuch.pt2 < /dev/null
nosuch.pt2: error: cannot open: No such file or directory
? 1

## node on an ONNX node lists its attributes (a subgraph by its size) and shows the root module by
## its class, without torch.onnx's empty root scope name (finding 23).
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c 'node node_cond__0' | sed -n '/^attributes/,/^module/p'
attributes:
  then_branch: graph of 3 nodes
  else_branch: graph of 1 node
module:  model.MLPCond/cond: cond

## a model's random operators draw from run's --seed stream: the same seed, the same draws; another
## seed, others (the lowering case random_draws: rand, randn, rand_like, randn_like)
$ sed -n '/^=== random_draws/,/return (rand/p' tests/fixtures/ops/lowerings/create.txt | sed -n '/^class/,$p' > "$FXSH_SCRATCH/draws.txt"; a=$(fxsh -q -c "load $FXSH_SCRATCH/draws.txt --input a_0=f32[2,2]" -c 'export verbose=False' -c 'run --seed 5'); b=$(fxsh -q -c "load $FXSH_SCRATCH/draws.txt --input a_0=f32[2,2]" -c 'export verbose=False' -c 'run --seed 5'); c=$(fxsh -q -c "load $FXSH_SCRATCH/draws.txt --input a_0=f32[2,2]" -c 'export verbose=False' -c 'run --seed 6'); [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$c" ] && echo "seed 5 repeats, seed 6 differs"
seed 5 repeats, seed 6 differs
