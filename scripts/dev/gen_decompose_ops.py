#!/usr/bin/env python3
"""gen_decompose_ops.py OUTDIR - fixtures for tests/unit/decompose/test_decompose_ops.c from the real
torch (run in the onnx-env chroot with torch: ../shared/tools/onnx-env-run python3 ...).

For each case below: torch.export of a one-op module (shapes and arguments the OpInfo corpus does
not use), its program.json (the .pt2 archive's model JSON) and onnx_decomposed.fx.txt, the graph
torch.onnx translates: its decomposition step with the exporter's table, then its type promotion
and the removal of assertions (torch.onnx._internal.exporter._core
._prepare_exported_program_for_export, as `torch.onnx.export(dynamo=True)` runs it)."""
import io, os, sys, zipfile
import torch
from torch.onnx._internal.exporter import _core, _registration

F = torch.nn.functional
r = lambda *s: torch.randn(*s)
CASES = {
    "numpy_T_rank3": (lambda a: a.T, (r(2, 3, 4),)),
    "mH_rank3": (lambda a: a.mH, (r(2, 3, 4),)),
    "broadcast_tensors_mixed": (lambda a, b, c: torch.broadcast_tensors(a, b, c), (r(3), r(2, 1), r(2, 3))),
    "broadcast_to_new_dims": (lambda a: torch.broadcast_to(a, (4, 2, 3)), (r(2, 1),)),
    "meshgrid_ij_two": (lambda a, b: torch.meshgrid(a, b, indexing="ij"), (r(3), r(4))),
    "meshgrid_xy_three": (lambda a, b, c: torch.meshgrid(a, b, c, indexing="xy"), (r(3), r(()), r(2))),
    "cartesian_prod_three": (lambda a, b, c: torch.cartesian_prod(a, b, c), (r(2), r(3), r(2))),
    "column_stack_mixed": (lambda a, b, c: torch.column_stack((a, b, c)), (r(3), r(3, 2), r(3))),
    "block_diag_mixed": (lambda a, b, c: torch.block_diag(a, b, c), (r(2, 3), r(3), r(()))),
    "vstack_mixed": (lambda a, b: torch.vstack((a, b)), (r(3), r(2, 3))),
    "dstack_two": (lambda a, b: torch.dstack((a, b)), (r(2, 3), r(2, 3))),
    "unbind_copy_dim1": (lambda a: torch.unbind_copy(a, 1), (r(3, 2),)),
    "hsplit_sections_2d": (lambda a: torch.hsplit(a, 2), (r(3, 4),)),
    "hsplit_indices_1d": (lambda a: torch.hsplit(a, [1, 3]), (r(5),)),
    "vsplit_sections": (lambda a: torch.vsplit(a, 3), (r(6, 2),)),
    "diff_dim1": (lambda a: torch.diff(a, dim=1), (r(3, 4),)),
    "diff_n2_prepend": (lambda a, p: torch.diff(a, n=2, dim=0, prepend=p), (r(3, 4), r(1, 4))),
    "diff_append_last": (lambda a, q: torch.diff(a, append=q), (r(2, 3), r(2, 2))),
    "diag_embed_offset_dims": (lambda a: torch.diag_embed(a, offset=-1, dim1=0, dim2=2), (r(2, 3),)),
    "diag_embed_swapped_dims": (lambda a: torch.diag_embed(a, offset=1, dim1=2, dim2=0), (r(2, 3),)),
    "diag_vector_offset": (lambda a: torch.diag(a, -1), (r(3),)),
    "diag_matrix_offset": (lambda a: torch.diag(a, 1), (r(3, 4),)),
    "diagflat_offset": (lambda a: torch.diagflat(a, 1), (r(2, 2),)),
    "nansum_dim_keepdim": (lambda a: torch.nansum(a, dim=1, keepdim=True), (r(3, 4),)),
    "nan_to_num_args": (lambda a: torch.nan_to_num(a, nan=1.0, posinf=2.0), (r(3, 4),)),
    "std_mean_dim_keepdim": (lambda a: torch.std_mean(a, dim=1, keepdim=True), (r(3, 4),)),
    "std_mean_correction": (lambda a: torch.std_mean(a, dim=[0, 2], correction=0), (r(2, 3, 4),)),
    "take_along_dim_broadcast": (lambda a, i: torch.take_along_dim(a, i, dim=1), (r(3, 4), torch.tensor([[0, -1]]))),
    "take_2d_index": (lambda a, i: torch.take(a, i), (r(3, 4), torch.tensor([[0, 5], [11, 2]]))),
    "pairwise_distance_p3_keepdim": (lambda a, b: F.pairwise_distance(a, b, p=3.0, keepdim=True), (r(2, 5), r(2, 5))),
    "dist_p1": (lambda a, b: torch.dist(a, b, 1), (r(3, 4), r(4))),
    "triplet_margin_loss_sum": (lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=0.5, p=1, reduction="sum"), (r(3, 4), r(3, 4), r(3, 4))),
    "bce_with_logits_weight": (lambda x, t, w: F.binary_cross_entropy_with_logits(x, t, weight=w), (r(3, 4), torch.rand(3, 4), r(4))),
    "soft_margin_loss_none": (lambda x, t: F.soft_margin_loss(x, t, reduction="none"), (r(3, 4), r(3, 4).sign())),
    "l1_loss_sum_broadcast": (lambda x, t: F.l1_loss(x, t.expand(3, 4), reduction="sum"), (r(3, 4), r(4))),
    "huber_loss_none_delta": (lambda x, t: F.huber_loss(x, t, reduction="none", delta=0.5), (r(3, 4), r(3, 4))),
    "expand_copy_new_dims": (lambda a: torch.expand_copy(a, (2, 3, 4)), (r(3, 1),)),
    "squeeze_copy_dim": (lambda a: torch.squeeze_copy(a, 1), (r(3, 1, 4),)),
    "unsafe_chunk_dim1": (lambda a: torch.unsafe_chunk(a, 3, 1), (r(2, 7),)),
    "isreal_matrix": (lambda a: torch.isreal(a), (r(2, 3),)),
    "fftshift_all_dims": (lambda a: torch.fft.fftshift(a), (r(3, 4),)),
    "ifftshift_negative_dim": (lambda a: torch.fft.ifftshift(a, dim=(-1,)), (r(3, 5),)),
    "isin_invert_2d_test": (lambda a, b: torch.isin(a, b, invert=True), (r(4, 6), r(2, 2))),
    "trapz_vector_x": (lambda y, x: torch.trapz(y, x, dim=0), (r(4, 3), r(4))),
    "trapezoid_lower_rank_x": (lambda y, x: torch.trapezoid(y, x), (r(2, 3, 4), r(3, 4))),
    "float_power_tensor_scalar": (lambda a: torch.float_power(a, 2), (r(3),)),
    "index_copy_dim1_scalar_index": (lambda a, i, s: torch.index_copy(a, 1, i, s), (r(2, 3), torch.tensor(2), r(2, 1))),
    "masked_index_put_accumulate_none": (lambda a, m, i, v: torch.ops.aten._unsafe_masked_index_put_accumulate(a, m, [None, i], v), (r(2, 4), torch.tensor([True, False, True]), torch.tensor([0, -1, 5]), r(2, 3))),
    "float_power_f64_base": (lambda a, b: torch.float_power(a, b), (r(3).double(), r(3))),
    # ops the exporter's table decomposes though torchlib could lower their parts, and its type
    # promotion of numbers and mixed dtypes
    "rsub_scalar_alpha": (lambda a: torch.rsub(a, 2, alpha=3), (r(3, 2),)),
    "rsub_int_tensor": (lambda a, b: torch.rsub(a, b), (torch.tensor([1, 2, 3], dtype=torch.int32), r(3))),
    "max_min_other_broadcast": (lambda a, b: (torch.max(a, b), torch.min(a, b)), (r(3, 1), r(4))),
    "argsort_dim0": (lambda a: torch.argsort(a, dim=0), (r(3, 4),)),
    "argsort_stable_descending": (lambda a: torch.argsort(a, stable=True, descending=True), (r(5),)),
    "threshold_int_value": (lambda a: F.threshold(a, 0.5, 2), (r(3, 4),)),
    "softshrink_default": (lambda a: F.softshrink(a), (r(2, 3),)),
    "var_correction_dims_keepdim": (lambda a: torch.var(a, dim=[0, 2], correction=2, keepdim=True), (r(2, 3, 4),)),
    "var_unbiased_false": (lambda a: torch.var(a, unbiased=False), (r(2, 3),)),
    "to_same_dtype": (lambda a: a.to(torch.float32) + 1, (r(2, 3),)),
    "to_dtype_copy": (lambda a: a.to(torch.float32, copy=True), (r(2, 3),)),
    "to_int_contiguous": (lambda a: a.int(), (r(2, 3),)),
    "conv2d_same_dilated_even": (lambda x, w: F.conv2d(x, w, padding="same", dilation=(1, 3)), (r(1, 2, 7, 8), r(3, 2, 2, 4))),
    "conv3d_valid_unbatched": (lambda x, w: F.conv3d(x, w, padding="valid"), (r(2, 4, 4, 4), r(3, 2, 2, 2, 2))),
    "conv1d_same_unbatched_bias": (lambda x, w, b: F.conv1d(x, w, b, padding="same"), (r(2, 6), r(4, 2, 3), r(4))),
    "conv_transpose1d_unbatched": (lambda x, w: F.conv_transpose1d(x, w, stride=2, output_padding=1), (r(2, 5), r(2, 3, 3))),
    "conv_transpose3d_groups": (lambda x, w: F.conv_transpose3d(x, w, groups=2), (r(1, 4, 2, 2, 2), r(4, 1, 2, 2, 2))),
    "where_int_scalar_int32": (lambda c, a: torch.where(c, a, 7), (torch.tensor([True, False]), torch.tensor([1, 2], dtype=torch.int32))),
    "add_int32_float_scalar": (lambda a: a + 1.5, (torch.tensor([1, 2], dtype=torch.int32),)),
    "mul_f64_float_scalar": (lambda a: a * 0.5, (r(3).double(),)),
    "clamp_max_int": (lambda a: torch.clamp_max(a, 1), (r(3),)),
    "div_floor_int32_scalar": (lambda a: torch.div(a, 3, rounding_mode="floor"), (torch.tensor([7, -7], dtype=torch.int32),)),
    "all_dim_float": (lambda a: torch.all(a, dim=1), (r(2, 3),)),
    "eye_n_m_int": (lambda a: torch.eye(3, 300, dtype=torch.int32) + a, (torch.tensor([1], dtype=torch.int32),)),
    "eye_bool": (lambda a: torch.eye(4, dtype=torch.bool) & a, (torch.tensor([True]),)),
    "adaptive_max_pool3d_divisible": (lambda a: F.adaptive_max_pool3d(a, (2, 1, 3), return_indices=True), (r(1, 2, 4, 3, 6),)),
    "adaptive_avg_pool2d_even": (lambda a: F.adaptive_avg_pool2d(a, (2, 3)), (r(1, 2, 4, 9),)),
    "adaptive_avg_pool2d_both_uneven": (lambda a: F.adaptive_avg_pool2d(a, (3, 4)), (r(2, 5, 7),)),
    "adaptive_avg_pool2d_h_uneven": (lambda a: F.adaptive_avg_pool2d(a, (3, 2)), (r(1, 1, 7, 6),)),
    "adaptive_avg_pool1d_batched": (lambda a: F.adaptive_avg_pool1d(a, 4), (r(2, 3, 10),)),
    "chunk_dim1_uneven": (lambda a: torch.chunk(a, 3, dim=1), (r(2, 7),)),
    "chunk_default_dim": (lambda a: torch.chunk(a, 2), (r(4, 3),)),
    "upsample_linear1d_half_pixel": (lambda a: F.interpolate(a, size=7, mode="linear"), (r(2, 3, 4),)),
    "upsample_linear1d_scale": (lambda a: F.interpolate(a, scale_factor=1.7, mode="linear"), (r(1, 2, 5),)),
    "upsample_linear1d_align_one": (lambda a: F.interpolate(a, size=1, mode="linear", align_corners=True), (r(1, 2, 5),)),
    "upsample_bilinear_aa_sizes": (lambda a: F.interpolate(a, size=(5, 3), mode="bilinear", antialias=True, align_corners=True), (r(1, 2, 3, 4),)),
}

def main():
    out = sys.argv[1]
    reg = _registration.ONNXRegistry.from_torchlib()
    class M(torch.nn.Module):
        def __init__(s, f): super().__init__(); s.f = f
        def forward(s, *a): return s.f(*a)
    for name, (f, args) in CASES.items():
        ep = torch.export.export(M(f), args, strict=False)
        buf = io.BytesIO(); torch.export.save(ep, buf)
        z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
        js = [n for n in z.namelist() if n.endswith(".json") and "/models/" in n and "sample" not in n]
        d = os.path.join(out, name); os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "program.json"), "wb").write(z.read(js[0]))
        dec = _core._prepare_exported_program_for_export(ep, registry=reg)
        open(os.path.join(d, "onnx_decomposed.fx.txt"), "w").write(str(dec.graph))
        print(name)

if __name__ == "__main__":
    main()
