## torchlib_nn_shape.t — nn and shape ops translated as torchlib writes them, each fixture an OpInfo
## case of the corpus (tests/fixtures/translate/ops/CASE: its program.pt2 and torch.onnx's own
## onnx_dynamo.txt, copied from ../shared/corpus/ops): fxsh's optimized model prints as torch's,
## producer lines aside. returned_input is torch.onnx's export of a model made for the case
## (model.py there, by ../shared/tools/torch-case.py): results that are an input returned as it is.

## relu6: Clip between CastLike'd 0 and 6
$ fxsh -q -c 'load tests/fixtures/translate/ops/nn.functional.relu6__0/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/nn.functional.relu6__0/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## new_zeros: ConstantOfShape of the size, kept by the optimizer (the float CastLike goes)
$ fxsh -q -c 'load tests/fixtures/translate/ops/new_zeros__1/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/new_zeros__1/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## stack: an Unsqueeze per tensor, Concat
$ fxsh -q -c 'load tests/fixtures/translate/ops/stack__0/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/stack__0/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## view_copy: reshape's Reshape (allowzero 0)
$ fxsh -q -c 'load tests/fixtures/translate/ops/view_copy__0/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/view_copy__0/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## GridSample brought to opset 20 by the version converter: a new node_GridSample_0, mode linear
$ fxsh -q -c 'load tests/fixtures/translate/ops/grid_sampler_2d__0/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/grid_sampler_2d__0/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## a scalar's logsumexp is the input itself: renamed after the node, then <name>_orig at the output
$ fxsh -q -c 'load tests/fixtures/translate/ops/logsumexp__0/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/logsumexp__0/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## t of a vector is the input itself, renamed t; clone's Identity reads it
$ fxsh -q -c 'load tests/fixtures/translate/ops/t_copy__1/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/t_copy__1/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## mean.dim of a scalar is the input itself
$ fxsh -q -c 'load tests/fixtures/translate/ops/mean__1/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/mean__1/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## repeat with no repeats is the input itself
$ fxsh -q -c 'load tests/fixtures/translate/ops/repeat__0/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/repeat__0/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## sum of a scalar: torchlib's Identity
$ fxsh -q -c 'load tests/fixtures/translate/ops/sum__0/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/sum__0/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## tile with fewer dims than the input's rank: dims padded with ones
$ fxsh -q -c 'load tests/fixtures/translate/ops/tile__1/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/tile__1/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## native_group_norm: InstanceNormalization over the groups, mean and rstd as torch defines them
$ fxsh -q -c 'load tests/fixtures/translate/ops/native_group_norm__0/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/native_group_norm__0/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## group_norm: len(input.shape) as the tracer's Python int; the folded Shape lifted after the folded values
$ fxsh -q -c 'load tests/fixtures/translate/ops/nn.functional.group_norm__1/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/nn.functional.group_norm__1/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## t of t of relu: relu's value renamed t, then t_1 (its producer node_t_1); t of the input renames it t_2
$ fxsh -q -c 'load tests/fixtures/translate/ops/returned_input/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/returned_input/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## roll (fft.ifftshift's): torchlib's two Slices and a Concat per dim, split at size - [shift]
$ fxsh -q -c 'load tests/fixtures/translate/ops/fft.ifftshift__0/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/fft.ifftshift__0/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

## adaptive_max_pool3d of an unbatched input: torch._decomp's max_pool3d_with_indices, which
## torchlib unsqueezes to a batch of one and squeezes back
$ fxsh -q -c 'load tests/fixtures/translate/ops/nn.functional.adaptive_max_pool3d__1/program.pt2' -c export -c 'show optimized' | grep -v producer_ > "$FXSH_SCRATCH/fxsh.txt"; grep -v producer_ tests/fixtures/translate/ops/nn.functional.adaptive_max_pool3d__1/onnx_dynamo.txt | diff - "$FXSH_SCRATCH/fxsh.txt" && echo same
same

