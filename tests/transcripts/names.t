## names.t — names that mean one thing (issue 14, item 2): stage names are never print forms,
## `show` prints the same form for the same kind of stage whatever was loaded, and save-patch
## replays the load with its options.

## After a .pt2 (which is the exported stage) `fx` is the stage, empty, in show as in diff.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'show fx' -c 'diff fx exported'
-c:2: error: show: the fx stage is empty
  hint: the program was loaded into the exported stage: `show exported` (`show graph` is print(gm.graph) of the current stage)
-c:3: error: diff: the fx stage is empty
? 1

## The same program loaded as readable code and from the .pt2: `show` prints the same graph text,
## which is `show graph`.
$ fxsh -c 'load examples/data/mlp_cond.readable.txt' -c show > $FXSH_SCRATCH/a && fxsh -c 'load examples/data/mlp_cond.pt2' -c show > $FXSH_SCRATCH/b && fxsh -c 'load examples/data/mlp_cond.pt2' -c 'show graph' > $FXSH_SCRATCH/c && cmp $FXSH_SCRATCH/a $FXSH_SCRATCH/b && cmp $FXSH_SCRATCH/b $FXSH_SCRATCH/c && head -1 $FXSH_SCRATCH/a
graph():

## `show loaded` prints the file back as it was written (here: print_readable()'s code), and a
## newline, as Python's print() of the string.
$ fxsh -c 'load examples/data/mlp_cond.readable.txt' -c 'show loaded' >$FXSH_SCRATCH/l && { cat examples/data/mlp_cond.readable.txt; echo; } | cmp - $FXSH_SCRATCH/l && echo same
same

## `fx` is no form: show STAGE fx is an error that names the forms.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'show exported fx'
-c:2: error: show: unknown stage or form 'fx'
  hint: stages: fx exported decomposed onnx optimized; forms: graph code module tabular program text loaded
? 1

## save-patch starts with the load as it was run (--weights, --input): the patch alone replays
## the session, and its export is the same model.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input "x=f32[3,4]"' -c 'rewrite if_1 cond --clone' -c "save-patch $FXSH_SCRATCH/p.fxsh" -c 'export verbose=False' -c 'show optimized' >$FXSH_SCRATCH/first 2>/dev/null && cat $FXSH_SCRATCH/p.fxsh && fxsh -f $FXSH_SCRATCH/p.fxsh -c 'export verbose=False' -c 'show optimized' 2>/dev/null | cmp - $FXSH_SCRATCH/first && echo replayed
# fxsh patch: 1 edit of the fx stage loaded from examples/data/python_if_data.torchscript.txt.
# Replay it: fxsh -f THIS_FILE (or `source` it); it loads the program as it was loaded.
load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]
rewrite if_1 cond --clone
replayed
