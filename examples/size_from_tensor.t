## size_from_tensor.t — expected transcript of examples/size_from_tensor.fxsh: int() of a tensor used
## as a slice size fails as torch.export fails (its message, the source line, the hint), and the
## fix the hint names (.item() with torch._check) exports, matches eager and holds for other lengths.
## (exit status 1: the failure is the lesson)
$ fxsh -echo -f examples/size_from_tensor.fxsh
load tests/fixtures/data_dependent/int_slice.torchscript.txt --input x=f32[2,8] --input lengths=i64[2]
export verbose=False



def forward(self, arg0_1: "f32[2, 8]", arg1_1: "i64[2]"):
    # File: tests/fixtures/data_dependent/model.py:9 in forward
    max_1: "i64[]" = torch.ops.aten.max.default(arg1_1);  arg1_1 = None
    item: "Sym(u0)" = torch.ops.aten.item.default(max_1);  max_1 = item = None
    
Could not extract specialized integer from data-dependent expression u0 (unhinted: u0).  (Size-like symbols: none)

The following call raised this error:
  File "tests/fixtures/data_dependent/model.py", line 9, in forward
    n = int(lengths.max())
examples/size_from_tensor.fxsh:8: tests/fixtures/data_dependent/model.py:9: error: export failed at %Int: int() of the tensor %max_1 needs its value, which torch.export does not know (data-dependent: Could not extract specialized integer from data-dependent expression u0 (unhinted: u0))
  hint: use t.item() instead of int(t): torch.export keeps it as an unbacked symbol; where it is a size, add torch._check(n >= 0) and torch._check(n <= limit) so that torch.export can use it
examples/size_from_tensor.fxsh:8: error: Failed to export the model with torch.export. This is step 1/3 of exporting the model to ONNX.
  hint: the exported stage failed; earlier stages are kept: `stages`, `show fx`
load tests/fixtures/data_dependent/item_checked.torchscript.txt --input x=f32[2,8] --input lengths=i64[2]
export verbose=False
show exported
graph():
    %x : [num_users=1] = placeholder[target=x]
    %lengths : [num_users=1] = placeholder[target=lengths]
    %max_1 : [num_users=1] = call_function[target=torch.ops.aten.max.default](args = (%lengths,), kwargs = {})
    %item : [num_users=3] = call_function[target=torch.ops.aten.item.default](args = (%max_1,), kwargs = {})
    %ge : [num_users=1] = call_function[target=operator.ge](args = (%item, 0), kwargs = {})
    %_assert_scalar_default : [num_users=0] = call_function[target=torch.ops.aten._assert_scalar.default](args = (%ge, Runtime assertion failed for expression u0 >= 0 on node 'ge'), kwargs = {})
    %le : [num_users=1] = call_function[target=operator.le](args = (%item, 8), kwargs = {})
    %_assert_scalar_default_1 : [num_users=0] = call_function[target=torch.ops.aten._assert_scalar.default](args = (%le, Runtime assertion failed for expression u0 <= 8 on node 'le'), kwargs = {})
    %slice_1 : [num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%x, 1, 0, %item), kwargs = {})
    return (slice_1,)
verify --expected tests/fixtures/data_dependent/item_checked.io.npz
PASS slice_1: max abs diff 0, max rel diff 0
verify: 1 output within atol 0.0001, rtol 0.001
verify exported optimized --inputs examples/data/item_checked.lengths_2_7.json
PASS slice_1: max abs diff 0, max rel diff 0
verify: 1 output within atol 0.0001, rtol 0.001
? 1
