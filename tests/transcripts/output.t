## output.t — output for people and for scripts (issue 14, item 4): -q, diagnostics on stderr
## only, and `show` with or without tensor values.

## torch's failure text is a diagnostic: with stderr gone, stdout holds only the progress lines.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]' -c export 2>/dev/null
[torch.onnx] Obtain model graph for `PyIfData([...]` with `torch.export.export(..., strict=False)`...
[torch.onnx] Obtain model graph for `PyIfData([...]` with `torch.export.export(..., strict=False)`... ❌
[torch.onnx] Obtain model graph for `PyIfData([...]` with `torch.export.export(..., strict=True)`...
[torch.onnx] Obtain model graph for `PyIfData([...]` with `torch.export.export(..., strict=True)`... ❌
? 1

## ... and warnings torch prints (UserWarning, the opset raise) go there too.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export opset_version=17 dynamic_axes=x:0=batch verbose=False' 2>/dev/null

## -q: no progress lines, notes or confirmations; results, warnings and errors stay.
$ fxsh -q -c 'load examples/data/python_if_data.torchscript.txt --input x=f32[3,4] --weights examples/data/python_if_data.weights.onnx' -c 'rewrite if_1 cond --clone' -c export -c undo -c redo -c 'set nosuch 1' -c stages
-c:6: error: set: no setting named 'nosuch'
  hint: settings: opset_version, input_names, output_names, dynamic_shapes, dynamic_axes, inputs, export_params, keep_initializers_as_inputs, do_constant_folding, optimize, external_data, verbose (`set` shows their values)
* fx          FX program  (examples/data/python_if_data.torchscript.txt)
  exported    -
  decomposed  -
  onnx        -
  optimized   -
? 1

## Without -q, piped, the same session prints no confirmations either (one rule: they are for a
## terminal, tests/terminal.sh); only the note of the --clone remains.
$ fxsh -c 'load examples/data/python_if_data.torchscript.txt --input x=f32[3,4] --weights examples/data/python_if_data.weights.onnx' -c 'rewrite if_1 cond --clone' -c 'export verbose=False' -c undo -c redo 2>&1 | grep -c .
1

## show --no-values: every tensor as its type and shape only, as polygraphy inspect shows them.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c 'show optimized --no-values'
<
   ir_version: 10,
   opset_import: ["" : 20],
   producer_name: "fxsh",
   producer_version: "0.1.0"
>
main_graph (float[4,3] x) => (float[4,1] getitem) 
   <float[2,3] "seq.0.weight" =  {... 6 values}, float[2] "seq.0.bias" =  {... 2 values}, float[1,2] "seq.1.weight" =  {... 2 values}, float[1] "seq.1.bias" =  {... 1 value}, float scalar_tensor_default =  {... 1 value}, float scalar_tensor_default_2 =  {... 1 value}, float[2,3] "seq.0.weight", float[2] "seq.0.bias", float[1,2] "seq.1.weight", float[1] "seq.1.bias", float scalar_tensor_default, float scalar_tensor_default_2, float[4,2] linear, float[4,1] linear_1, float sum_1, bool gt>
{
   [node_linear] linear = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (x, "seq.0.weight", "seq.0.bias")
   [node_linear_1] linear_1 = Gemm <beta: float = 1, transB: int = 1, alpha: float = 1, transA: int = 0> (linear, "seq.1.weight", "seq.1.bias")
   [node_sum_1] sum_1 = ReduceSum <noop_with_empty_axes: int = 0, keepdims: int = 0> (linear_1)
   [node_gt] gt = Greater (sum_1, scalar_tensor_default)
   [node_cond__0] getitem = If (gt) <then_branch: graph = true_graph_0 () => (float[4,1] mul_true_graph_0) {
      [node_mul] mul_true_graph_0 = Mul (linear_1, scalar_tensor_default_2)
   }, else_branch: graph = false_graph_0 () => (float[4,1] neg_false_graph_0) {
      [node_neg] neg_false_graph_0 = Neg (linear_1)
   }>
}

## Piped, `show` prints onnx.printer.to_text's bytes, values included (as `--values` does on a
## terminal); an unknown option is an error.
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c 'show optimized' >$FXSH_SCRATCH/a && fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c 'show optimized --values' >$FXSH_SCRATCH/b && cmp $FXSH_SCRATCH/a $FXSH_SCRATCH/b && ! grep -q '{[.][.][.]' $FXSH_SCRATCH/a && grep -o '"seq.0.bias" =  {[^}]*}' $FXSH_SCRATCH/a
"seq.0.bias" =  {-0.0114391,0.457775}

$ fxsh -c 'show --full'
-c:1: error: show: unknown option '--full' (usage: show [STAGE] [FORM] [--values|--no-values])
? 1

## node's module line reads as the module path, innermost first (torch's nn_module_stack text was
## "L__self__,,model.MLPCond;L__self__seq,seq,torch.nn...Sequential;L__self__seq.0,seq.0,...Linear").
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'node linear' | grep '^module'
module:  seq.0 (Linear) in seq (Sequential) in the model (model.MLPCond)

## dot --svg renders through Graphviz's dot (FXSH_DOT names the binary; here a stand-in that
## writes what it reads), and says how to get it when it is not installed.
$ printf '#!/bin/sh\n[ "$1 $2" = "-Tsvg -o" ] && cat > "$3"\n' > $FXSH_SCRATCH/fakedot && chmod +x $FXSH_SCRATCH/fakedot && FXSH_DOT=$FXSH_SCRATCH/fakedot fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c "dot --svg $FXSH_SCRATCH/g.svg" && head -1 $FXSH_SCRATCH/g.svg && FXSH_DOT=/nonexistent/dot fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c "dot --svg $FXSH_SCRATCH/h.svg"
digraph "main_graph" {
-c:3: error: dot --svg: cannot run Graphviz's dot: No such file or directory
  hint: install Graphviz (apt-get install graphviz), or write the DOT text: dot FILE.dot
? 1

## The failure of a report (finding 11): an error of a file without a line names the file alone
## (not `nolowering_aten.fx.txt0`), and a hint of several lines (the YAML of a lowering) stays a
## block that can be copied.
$ fxsh -q -c 'load tests/fixtures/repl/nolowering_aten.fx.txt --input x=f32[2,3]' -c "export --report $FXSH_SCRATCH/r.md" 2>/dev/null; sed -n '/^## Failure/,$p' $FXSH_SCRATCH/r.md | sed -n '3,8p'
- **error**: `tests/fixtures/repl/nolowering_aten.fx.txt`: No ONNX lowering for torch.ops.aten.polygamma.default (node %polygamma) — hint:

  ```
  torch's schema: aten::polygamma(int n, Tensor self) -> Tensor
  add a lowering with `ops load FILE`, a YAML file like the one below, with FILL_IN replaced by the ONNX ops that compute the result (until then `ops load` refuses it):
      opset: 18

## export --report FILE.html: one self-contained page (issue 27): the stages with their counts
## and times, the graph as inline SVG when Graphviz's dot runs (a stand-in here, FXSH_DOT), and
## the failure with its node's neighbourhood: the node, what it reads, what reads it.
$ printf '#!/bin/sh\ncat >/dev/null\nprintf "<?xml version=\\"1.0\\"?>\\n<svg width=\\"1pt\\"><g/></svg>\\n" >"$3"\n' >$FXSH_SCRATCH/dot && chmod +x $FXSH_SCRATCH/dot && FXSH_DOT=$FXSH_SCRATCH/dot fxsh -q -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]' -c "export verbose=False --report $FXSH_SCRATCH/r.html" 2>/dev/null; grep -e '^<!DOCTYPE' -e '<svg' -e '<?xml' -e 'result:' -e '^<tr><td>fx' -e '<h[23]>' -e '<b>failed' -e '^<tr><td>user' $FXSH_SCRATCH/r.html | sed 's/[0-9.]* ms/N ms/'
<!DOCTYPE html>
<li>result: <b class="error">failed</b> at the exported stage</li>
<h2>Settings</h2>
<h2>Stages</h2>
<tr><td>fx</td><td>examples/data/python_if_data.torchscript.txt</td><td>19</td><td>14</td><td>loaded</td></tr>
<h2>Graph (fx stage)</h2>
<svg width="1pt"><g/></svg>
<h2>Decisions and warnings</h2>
<h2>Failure</h2>
<h3>Its neighbourhood (fx stage)</h3>
<tr><td><b>failed</b></td><td><code>if_1</code></td><td>call_function</td><td><code>fxsh.python_if</code></td><td></td></tr>
<tr><td>user</td><td><code>getitem</code></td><td>call_function</td><td><code>operator.getitem</code></td><td>f32[3, 4]</td></tr>
<h3>What torch prints</h3>

## Without Graphviz the page says so, and what to do.
$ FXSH_DOT=/nonexistent/dot fxsh -q -c 'load examples/data/mlp_cond.pt2' -c "export verbose=False --report $FXSH_SCRATCH/r.html" && grep -e '^<p>No picture' -e '^<tr><td>optimized' $FXSH_SCRATCH/r.html | sed 's/[0-9.]* ms/N ms/'
<tr><td>optimized</td><td>optimize</td><td>7</td><td>5</td><td>N ms</td></tr>
<p>No picture: Graphviz's dot could not be run (No such file or directory). Install Graphviz (<code>apt-get install graphviz</code>) and export again, or write the DOT text with <code>dot FILE.dot</code>.</p>

## export --report FILE is written when the export fails too, with the error and its hint (the
## report's Markdown headings shown indented).
$ fxsh -q -c 'load tests/fixtures/repl/mlp.module.txt' -c "export --report $FXSH_SCRATCH/r.md" 2>/dev/null; grep -A2 '^## Failure' $FXSH_SCRATCH/r.md | sed "s|$FXSH_SCRATCH/||; s/^##/ ##/"
 ## Failure

- **error**: export: the input x has no dtype and shape (torch.export needs example inputs) — hint: load it again with an example shape (the sizes are an example): load tests/fixtures/repl/mlp.module.txt --input x=f32[2,8]

## Options go anywhere: before the stage as after it (--json too).
$ fxsh -c 'load examples/data/mlp_cond.pt2' -c 'export verbose=False' -c 'show --no-values optimized' -c 'diff --json onnx optimized' | grep -c -e '{[.][.][.] 6 values}' -e '"command":"diff"'
2
