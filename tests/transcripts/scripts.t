## scripts.t — every -c and -f runs, in the order given (as sqlite3 and psql run theirs); errors
## carry FILE:LINE: (or -c:N:); -bail stops at the first failure.

## `-f a.fxsh -c stages` runs the script, then the command.
$ printf 'load examples/data/mlp_cond.pt2\nfind sum\n' > $FXSH_SCRATCH/a.fxsh && fxsh -f $FXSH_SCRATCH/a.fxsh -c stages
sum_1  call_function  torch.ops.aten.sum.default
  fx          -
* exported    FX program  (examples/data/mlp_cond.pt2)
  decomposed  -
  onnx        -
  optimized   -

## `-f a -f b` runs both; -c and -f interleave in the order given.
$ printf 'load examples/data/mlp_cond.pt2\n' > $FXSH_SCRATCH/a.fxsh && printf '# b\nfind relu\nfind sum\n' > $FXSH_SCRATCH/b.fxsh && fxsh -f $FXSH_SCRATCH/a.fxsh -f $FXSH_SCRATCH/b.fxsh 2>&1 | sed "s|$FXSH_SCRATCH|SCRATCH|g"
SCRATCH/b.fxsh:2: error: find: nothing matches 'relu'
sum_1  call_function  torch.ops.aten.sum.default
$ printf '# b\nfind relu\nfind sum\n' > $FXSH_SCRATCH/b.fxsh && fxsh -c 'help quit' -f $FXSH_SCRATCH/b.fxsh -c 'load examples/data/mlp_cond.pt2' -f $FXSH_SCRATCH/b.fxsh -c 'find cond' 2>&1 | sed "s|$FXSH_SCRATCH|SCRATCH|g"
usage: quit

leave fxsh
SCRATCH/b.fxsh:2: error: find: nothing loaded (use `load FILE` first)
SCRATCH/b.fxsh:3: error: find: nothing loaded (use `load FILE` first)
SCRATCH/b.fxsh:2: error: find: nothing matches 'relu'
sum_1  call_function  torch.ops.aten.sum.default
cond  call_function  torch.ops.higher_order.cond

## Errors say where; without -bail everything runs and the status is 1; with -bail the first
## failure ends the run, in a script or a -c.
$ printf 'help exit\nnosuch\nhelp quit\n' > $FXSH_SCRATCH/e.fxsh && fxsh -f $FXSH_SCRATCH/e.fxsh -c 'find x' -f $FXSH_SCRATCH/e.fxsh 2>&1 | sed "s|$FXSH_SCRATCH|SCRATCH|g"
usage: exit

leave fxsh (same as quit)
SCRATCH/e.fxsh:2: error: unknown command 'nosuch'
  hint: type `help` for the list of commands
usage: quit

leave fxsh
-c:1: error: find: nothing loaded (use `load FILE` first)
usage: exit

leave fxsh (same as quit)
SCRATCH/e.fxsh:2: error: unknown command 'nosuch'
  hint: type `help` for the list of commands
usage: quit

leave fxsh
$ printf 'help exit\nnosuch\nhelp quit\n' > $FXSH_SCRATCH/e.fxsh && fxsh -f $FXSH_SCRATCH/e.fxsh -c 'find x' -f $FXSH_SCRATCH/e.fxsh > /dev/null 2>&1
? 1
$ printf 'help exit\nnosuch\nhelp quit\n' > $FXSH_SCRATCH/e.fxsh && fxsh -bail -c 'help stages' -f $FXSH_SCRATCH/e.fxsh -c 'help quit' 2>&1 | sed "s|$FXSH_SCRATCH|SCRATCH|g"
usage: stages [--json]

list the pipeline stages and what each holds

Lists fx, exported, decomposed, onnx and optimized with what each currently
holds; the current stage is marked with *.
usage: exit

leave fxsh (same as quit)
SCRATCH/e.fxsh:2: error: unknown command 'nosuch'
  hint: type `help` for the list of commands
$ fxsh -bail -c 'help stages' -c 'find x' -f /nonexistent.fxsh
usage: stages [--json]

list the pipeline stages and what each holds

Lists fx, exported, decomposed, onnx and optimized with what each currently
holds; the current stage is marked with *.
-c:2: error: find: nothing loaded (use `load FILE` first)
? 1
$ fxsh -f /nonexistent.fxsh -c 'help quit'
fxsh: cannot open /nonexistent.fxsh: No such file or directory
usage: quit

leave fxsh
? 1

## Confirmations follow one rule (finding 18): only on a terminal, never with -q. Piped, `ops load`,
## `load --weights` and `save` print nothing, so stdout is the results (tests/terminal.sh checks the
## terminal side).
$ fxsh -c 'ops load tests/fixtures/ops/polygamma_identity.yaml' -c 'load tests/fixtures/repl/mlp.module.txt --weights tests/fixtures/pt2/mlp.pt2' -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c "save $FXSH_SCRATCH/m.onnx"
