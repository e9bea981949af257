## repl_basics.t — the shell contract: modes, errors, exit status (no graph needed).

## A bad command never ends the session; piped input reports <stdin>:LINE: and exits 1.
$ fxsh
< help quit
< nosuch
< load
< stages
usage: quit

leave fxsh
<stdin>:2: error: unknown command 'nosuch'
  hint: type `help` for the list of commands
<stdin>:3: error: load: wrong number of arguments
  hint: usage: load FILE|- [--weights W] [--input NAME=DTYPE[DIMS]]... [--attr NAME=VALUE]...
  fx          -
  exported    -
  decomposed  -
  onnx        -
  optimized   -
? 1

## -bail stops at the first failure.
$ fxsh -bail
< nosuch
< stages
<stdin>:1: error: unknown command 'nosuch'
  hint: type `help` for the list of commands
? 1

## -c commands run in order and report -c:N:; -echo prints each command first.
$ fxsh -echo -c 'he quit' -c 'show'
he quit
usage: quit

leave fxsh
show
-c:2: error: show: nothing loaded (use `load FILE` first)
? 1

## Comments and blank lines are ignored; quit stops reading.
$ fxsh
< # a comment
< 
< quit
< nosuch

## Unterminated quotes are reported, not guessed.
$ fxsh -c "load 'oops"
-c:1: error: unterminated ' quote
? 1

## Ambiguous prefixes are refused.
$ fxsh -c s
-c:1: error: ambiguous command 's': save, save-patch, set, show, signature, source, stages, stats, step, summary
  hint: type more of the name; `help` lists the commands
? 1

## A typo gets "did you mean" (commands, `help CMD`, settings, stages and forms, rewrite kinds).
$ fxsh -c shwo -c 'help stgaes' -c 'set opset_verison 18' -c 'show exportd' -c 'load examples/data/mlp_cond.pt2' -c 'rewrite cond_1 cnod' -c 'node lineer_1'
-c:1: error: unknown command 'shwo'; did you mean 'show'?
  hint: type `help` for the list of commands
-c:2: error: help: unknown command 'stgaes'; did you mean 'stages'?
  hint: type `help` for the list of commands
-c:3: error: set: no setting named 'opset_verison'; did you mean 'opset_version'?
  hint: settings: opset_version, input_names, output_names, dynamic_shapes, dynamic_axes, inputs, export_params, keep_initializers_as_inputs, do_constant_folding, optimize, external_data, verbose (`set` shows their values)
-c:4: error: show: unknown stage or form 'exportd'; did you mean 'exported'?
  hint: stages: fx exported decomposed onnx optimized; forms: graph code module tabular program text loaded
-c:6: error: rewrite: no rewrite named 'cnod'; did you mean 'cond'?
  hint: `rewrite NODE cond` turns a Python `if` on a tensor into torch.cond, `rewrite NODE scan` a `for` over the rows of tensors into scan, `rewrite NODE while_loop` a `while` (or a `for` that stops early) into while_loop; see `help rewrite`
-c:7: error: node: no node named 'lineer_1' in the exported stage; did you mean 'linear_1'?
  hint: `nodes` lists them; `find TEXT` searches names and targets
? 1

## help fills the terminal's width ($COLUMNS when it is not a terminal).
$ COLUMNS=50 fxsh -c 'help stages'
usage: stages [--json]

list the pipeline stages and what each holds

Lists fx, exported, decomposed, onnx and optimized
with what each currently holds; the current stage
is marked with *.

## -f scripts report FILE:LINE:.
$ fxsh -f tests/fixtures/repl/bad.fxsh
  fx          -
  exported    -
  decomposed  -
  onnx        -
  optimized   -
tests/fixtures/repl/bad.fxsh:3: error: unknown command 'frobnicate'
  hint: type `help` for the list of commands
? 1

## source nests scripts with their own file names.
$ fxsh -c 'source tests/fixtures/repl/bad.fxsh'
  fx          -
  exported    -
  decomposed  -
  onnx        -
  optimized   -
tests/fixtures/repl/bad.fxsh:3: error: unknown command 'frobnicate'
  hint: type `help` for the list of commands
? 1

## Loading a missing file fails cleanly.
$ fxsh -c 'load tests/fixtures/does-not-exist.txt'
-c:1: tests/fixtures/does-not-exist.txt: error: cannot open: No such file or directory
? 1

## Options.
$ fxsh --bogus 2>&1 | head -1
fxsh: unknown option '--bogus'
$ fxsh --bogus >/dev/null 2>&1; echo $?
2
$ fxsh -c
fxsh: option -c needs an argument
? 2
$ fxsh --version | sed 's/(line editing: .*)/(line editing: X)/'
fxsh 0.1.0 (line editing: X)
