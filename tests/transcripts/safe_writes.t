## safe_writes.t — save, dot FILE and save-patch write files safely: a symbolic link's target,
## never a link, directory, FIFO or device replaced, a device written directly, the mode kept,
## nothing half-written and no temporary left; output that cannot be written fails the run.

## save onto a symbolic link writes the file it names; the link stays a link.
$ echo old > $FXSH_SCRATCH/real.onnx && ln -s real.onnx $FXSH_SCRATCH/link.onnx && fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c "save $FXSH_SCRATCH/link.onnx" && test -L $FXSH_SCRATCH/link.onnx && fxsh -c "load $FXSH_SCRATCH/real.onnx" -c summary | head -2 && ls $FXSH_SCRATCH
ir_version: 10
producer: pytorch 2.14.1+debian
link.onnx
real.onnx

## A dangling link gets its target created.
$ ln -s made.onnx $FXSH_SCRATCH/dangling.onnx && fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c "save $FXSH_SCRATCH/dangling.onnx" && test -L $FXSH_SCRATCH/dangling.onnx && ls $FXSH_SCRATCH
dangling.onnx
made.onnx

## An existing file keeps its permissions.
$ touch $FXSH_SCRATCH/m.onnx && chmod 640 $FXSH_SCRATCH/m.onnx && fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c "save $FXSH_SCRATCH/m.onnx" -c "dot $FXSH_SCRATCH/m.onnx" && stat -c '%a %F' $FXSH_SCRATCH/m.onnx && head -1 $FXSH_SCRATCH/m.onnx
640 regular file
digraph "main_graph" {

## A directory, a FIFO or a socket is refused (the same for dot and save-patch); nothing is left behind.
$ cd $FXSH_SCRATCH && mkdir dir && mkfifo fifo && cd - >/dev/null && fxsh -c 'load examples/data/mlp_cond.pt2' -c 'set gt 1=0.5' -c "save-patch $FXSH_SCRATCH/fifo" -c 'export verbose=False' -c "save $FXSH_SCRATCH/dir" -c "dot $FXSH_SCRATCH/fifo" -c "save $FXSH_SCRATCH/fifo --text" 2>&1 | sed "s|$FXSH_SCRATCH|SCRATCH|g"; ls $FXSH_SCRATCH
-c:3: SCRATCH/fifo: error: is a FIFO: not replaced
  hint: fxsh writes regular files (a new name, or an existing file) and character devices such as /dev/stdout
-c:5: SCRATCH/dir: error: is a directory: not replaced
  hint: fxsh writes regular files (a new name, or an existing file) and character devices such as /dev/stdout
-c:6: SCRATCH/fifo: error: is a FIFO: not replaced
  hint: fxsh writes regular files (a new name, or an existing file) and character devices such as /dev/stdout
-c:7: SCRATCH/fifo: error: is a FIFO: not replaced
  hint: fxsh writes regular files (a new name, or an existing file) and character devices such as /dev/stdout
dir
fifo

## A character device is written directly: /dev/null takes it, /dev/full fails, /dev/stdout is
## the output stream itself (here a pipe).
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c 'save /dev/null' -c 'save /dev/full' -c 'dot /dev/full'; echo "status $?"; test -c /dev/null && test -c /dev/full && echo 'devices intact'
-c:3: /dev/full: error: cannot write: No space left on device
-c:4: /dev/full: error: cannot write: No space left on device
status 1
devices intact
$ fxsh -c 'load tests/fixtures/repl/mlp_cond.onnx' -c 'save /dev/stdout --text' -c 'dot /dev/stdout' | sed -n '1,3p;/digraph/p'
<
   ir_version: 10,
   opset_import: ["" : 20],
}digraph "main_graph" {

## A model that `check` rejects is not saved (the old file stays as it was) unless --force.
$ echo old > $FXSH_SCRATCH/m.onnx && fxsh -c 'load tests/fixtures/repl/check_fails.onnx.txt' -c "save $FXSH_SCRATCH/m.onnx" 2>&1 | sed "s|$FXSH_SCRATCH|SCRATCH|g"; cat $FXSH_SCRATCH/m.onnx; fxsh -c 'load tests/fixtures/repl/check_fails.onnx.txt' -c "save $FXSH_SCRATCH/m.onnx --force" && fxsh -c "load $FXSH_SCRATCH/m.onnx" -c 'show text' | tail -3
-c:2: tests/fixtures/repl/check_fails.onnx.txt: error: graph 'g': node 0 (Relu): input 'z' is not defined
-c:2: SCRATCH/m.onnx: error: save: not written: the model fails `check` (1 problem)
  hint: fix the model, or write it as it is with `save SCRATCH/m.onnx --force`
old
g (float[2] x) => (float[2] y) {
   y = Relu (z)
}

## Output that cannot be written is an error, and the run fails.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c show > /dev/full
-c:2: error: cannot write the output: No space left on device
? 1
$ fxsh -c help -c stages > /dev/full
-c:1: error: cannot write the output: No space left on device
-c:2: error: cannot write the output: No space left on device
? 1
$ fxsh --help > /dev/full
fxsh: cannot write the output: No space left on device
? 1
