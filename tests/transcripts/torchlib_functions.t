## torchlib_functions.t — torchlib functions that are not trace_only, inlined as torch.onnx inlines
## them (`function:` lowerings): the body's node and value names kept, a second call's made unique
## with _2, _3 (erfc twice; isneginf and isposinf share local names; xlogy's local `xlogy` meets
## the FX node's name), the output named as the FX node. The goldens are torch.onnx's own output
## for the same program (scripts/dev/torchlib_functions_fixture.py), producer lines aside.

## The translated stage is torch.onnx.export(..., optimize=False)'s graph, name for name.
$ fxsh -q -c 'load tests/fixtures/translate/torchlib_functions/program.pt2' -c export -c 'show onnx' | grep -v producer_ > "$FXSH_SCRATCH/onnx.txt"; grep -v producer_ tests/fixtures/translate/torchlib_functions/onnx_unoptimized.txt | diff - "$FXSH_SCRATCH/onnx.txt" && echo same
same

## The optimized stage is torch's onnx_dynamo.txt: the constants folded under their function
## names (int64_1_cast), the body's values typed by inference, the float-to-float Casts gone.
$ fxsh -q -c 'load tests/fixtures/translate/torchlib_functions/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/opt.txt"; grep -v producer_ tests/fixtures/translate/torchlib_functions/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/opt.txt" && echo same
same

## `ops show` prints the function as the table writes it.
$ fxsh -c 'ops show aten.special_erfc.default' | sed 's/^# .*translate\/\([a-z]*\.yaml\):[0-9]*$/# \1/'
# core.yaml
- target: aten.special_erfc.default
  opset: 18
  schema: special_erfc(Tensor self) -> Tensor
  function: |
    <domain: "pkg.onnxscript.torch_lib", opset_import: ["" : 18]>
    aten_special_erfc (self) => (return_val) {
       [n0] int64_1 = Constant <value: tensor = int64 int64_1 {1}> ()
       [n1] tmp = Erf (self)
       [n2] int64_1_cast = CastLike (int64_1, tmp)
       [n3] return_val = Sub (int64_1_cast, tmp)
    }
