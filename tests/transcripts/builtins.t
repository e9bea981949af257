## builtins.t — a table naming a C builtin or meta rule function fxsh does not have is refused
## when it loads, at its file and line, with the nearest name (base/builtin.h: one registry per stage).

## translate: a `builtin:` lowering
$ fxsh -c 'ops load tests/fixtures/translate/unknown_builtin.yaml'
-c:1: tests/fixtures/translate/unknown_builtin.yaml:5:14: error: no C lowering is named 'histcc'
        builtin: histcc
                 ^
  hint: did you mean 'histc'?
? 1

## decompose: a rule's `builtin:` (the shipped table with meshgrid misspelt)
$ cp -r share/fxsh "$FXSH_SCRATCH/s" && sed -i 's/builtin: meshgrid}/builtin: meshgrd}/' "$FXSH_SCRATCH/s/decompose/core.yaml" && FXSH_SHAREDIR="$FXSH_SCRATCH/s" fxsh -c 'load tests/fixtures/repl/mha.module.txt --input x=f32[2,5,8]' -c 'export verbose=False export_params=False' 2>&1 | sed "s#$FXSH_SCRATCH/s/decompose/core.yaml:[0-9]*#<share>/decompose/core.yaml:N#"
-c:2: <share>/decompose/core.yaml:N: error: decomposition rule for aten.meshgrid.indexing: no C decomposition is named 'meshgrd'
  hint: did you mean 'meshgrid'?
-c:2: <share>/decompose/core.yaml:N: error: decomposition rule for aten.meshgrid.default: no C decomposition is named 'meshgrd'
  hint: did you mean 'meshgrid'?
-c:2: error: Failed to decompose the FX graph for ONNX compatibility. This is step 2/3 of exporting the model to ONNX.
  hint: the decomposed stage failed; earlier stages are kept: `stages`, `show exported`

## capture: a module entry's `builtin:` (nn.yaml with multihead_attention misspelt)
$ cp -r share/fxsh "$FXSH_SCRATCH/s" && sed -i 's/builtin: multihead_attention/builtin: multihead_atention/' "$FXSH_SCRATCH/s/capture/nn.yaml" && FXSH_SHAREDIR="$FXSH_SCRATCH/s" fxsh -c 'load tests/fixtures/repl/mha.module.txt --input x=f32[2,5,8]' -c 'export verbose=False' 2>&1 | sed "s#$FXSH_SCRATCH/s/capture/nn.yaml:[0-9]*#<share>/capture/nn.yaml:N#"
-c:2: <share>/capture/nn.yaml:N: error: module entry names an unknown builtin 'multihead_atention'
  hint: did you mean 'multihead_attention'?
-c:2: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`

## meta: a rule function (aten.yaml with sdpa misspelt)
$ cp -r share/fxsh "$FXSH_SCRATCH/s" && sed -i 's/shape: sdpa(/shape: spda(/' "$FXSH_SCRATCH/s/meta/aten.yaml" && FXSH_SHAREDIR="$FXSH_SCRATCH/s" fxsh -c 'load tests/fixtures/repl/mha.module.txt --input x=f32[2,5,8]' -c 'export verbose=False' 2>&1 | sed "s#$FXSH_SCRATCH/s/meta/aten.yaml:[0-9]*#<share>/meta/aten.yaml:N#"
-c:2: <share>/meta/aten.yaml:N: error: meta table: unknown shape function 'spda'
  hint: did you mean 'sdpa'? (the functions are listed at the top of share/fxsh/meta/aten.yaml)
-c:2: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
