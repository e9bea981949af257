#!/usr/bin/env python3
"""gen_lowering_cases.py - test_ops_lowerings cases (tests/fixtures/ops/lowerings/*.txt format) for
the ops of issue 10's lowerings, with outputs computed by real torch 2.14 in eager mode (run in the
onnx-env chroot: ../shared/tools/onnx-env-run python3 scripts/dev/gen_lowering_cases.py > cases.txt).
Each case is torch.export's program of a small module, printed by print_readable (comments dropped)."""
import math, re, torch

t = torch.tensor
nan, inf = float("nan"), float("inf")
CASES = [
    # name, fn, inputs, ONNX ops the model must contain
    ("round_decimals_pos_neg", lambda x: (x.round(decimals=2), x.round(decimals=-1)), (t([1.2345, -2.5551, 14.9, 25.0]),), "Round Pow"),
    ("frac_signs", lambda x: torch.frac(x), (t([-2.75, -0.5, 0.0, 1.25, 3.0]),), "Floor Sign"),
    ("erfc_values", lambda x: torch.erfc(x), (t([-1.0, 0.0, 0.5, 2.0]),), "Erf Sub"),
    # erfinv: central range, tails, the ±1 edges, beyond [-1, 1], NaN; float64 too
    ("erfinv_ranges", lambda x, d: (torch.erfinv(x), torch.erfinv(d)), (t([-1.5, -1.0, -0.999, -0.9, -0.7, -0.3, 0.0, 0.2, 0.75, 0.9999, 1.0, nan]), t([-0.99999, -0.5, 0.0, 0.69, 0.71, 0.999999, 1.0], dtype=torch.float64)), "Erf Exp Where"),
    # lstm / gru calls with their weights as inputs (no meta recorded in FX text: the rnn shape rule)
    ("lstm_gru_calls", lambda x, h, c, wi, wh, bi, bh, gi, gh: (*torch.ops.aten.lstm.input(x, [h, c], [wi, wh, bi, bh], True, 1, 0.0, False, False, False), *torch.ops.aten.gru.input(x, h, [gi, gh], False, 1, 0.0, False, False, False)), (torch.linspace(-1, 1, 6).reshape(3, 1, 2), t([[[0.5, -0.25]]]), t([[[0.1, 0.2]]]), torch.linspace(-0.6, 0.7, 16).reshape(8, 2), torch.linspace(0.5, -0.4, 16).reshape(8, 2), torch.linspace(-0.3, 0.3, 8), torch.linspace(0.2, -0.1, 8), torch.linspace(-0.5, 0.6, 12).reshape(6, 2), torch.linspace(0.4, -0.6, 12).reshape(6, 2)), "LSTM GRU"),
    ("rnn_tanh_relu_calls", lambda x, h, wi, wh, bi, bh: (*torch.ops.aten.rnn_tanh.input(x, h, [wi, wh, bi, bh], True, 1, 0.0, False, False, False), *torch.ops.aten.rnn_relu.input(x, h, [wi, wh], False, 1, 0.0, False, False, False)), (torch.linspace(-1, 1, 6).reshape(3, 1, 2), t([[[0.5, -0.25]]]), torch.linspace(-0.6, 0.7, 4).reshape(2, 2), torch.linspace(0.5, -0.4, 4).reshape(2, 2), t([0.1, -0.2]), t([0.05, 0.3])), "RNN"),
    ("det_forms", lambda a, b: (torch.linalg.det(a), torch.det(b)), (t([[2.0, -1.0, 0.5], [0.0, 3.0, 1.0], [4.0, 1.0, -2.0]]), torch.arange(8.0).reshape(2, 2, 2) - 3), "Det"),
    # random ops where the distribution leaves one value: probability 0 or 1, std 0, a width-1 range,
    # one class of positive probability
    ("random_degenerate", lambda p, x, m, z, q, r: (torch.bernoulli(p), torch.ops.aten.bernoulli.p(x, 1.0), torch.ops.aten.bernoulli.p(x, 0.0), torch.randint_like(x, 1), torch.randint_like(x, 3, 4), torch.randint(1, (2, 2)), torch.randint(5, 6, (3,)), torch.normal(m, z), torch.normal(m, 0.0), torch.normal(2.0, z), torch.normal(1.5, 0.0, (2,)), torch.multinomial(q, 3, True), torch.multinomial(r, 1)), (t([0.0, 1.0, 1.0, 0.0]), t([[2.0, -1.0], [0.5, 3.0]]), t([1.0, -2.0, 3.5]), t([0.0, 0.0, 0.0]), t([[0.0, 0.0, 1.0], [0.0, 2.0, 0.0]]), t([0.0, 1.0, 0.0])), "RandomUniformLike RandomNormalLike Multinomial Less"),
    # the generators whose values are the runtime's: translated and checked, not compared
    ("random_draws", lambda x: (torch.rand(2, 3), torch.randn(4), torch.rand_like(x), torch.randn_like(x, dtype=torch.float64)), (t([[1.0, 2.0], [3.0, 4.0]]),), "RandomUniformLike RandomNormalLike"),
    # windows: periodic and symmetric, length 1 and 0, another dtype, hamming's alpha / beta
    ("window_forms", lambda: (torch.hann_window(5), torch.hann_window(5, periodic=False), torch.hann_window(1), torch.blackman_window(6), torch.blackman_window(6, periodic=False, dtype=torch.float64), torch.hamming_window(5), torch.hamming_window(5, periodic=False), torch.hamming_window(4, True, 0.5, 0.4), torch.hamming_window(4, False, 0.5, 0.4), torch.bartlett_window(5), torch.bartlett_window(6, periodic=False), torch.bartlett_window(1), torch.hamming_window(0)), (), "HannWindow BlackmanWindow Cos Abs"),
    ("deg_rad", lambda x: (torch.deg2rad(x), torch.rad2deg(x)), (t([-180.0, 0.0, 45.0, 1.0]),), "Mul"),
    ("sinc_zero", lambda x: torch.sinc(x), (t([-1.5, -0.25, 0.0, 0.5, 2.0]),), "Sin Where"),
    ("signbit_values", lambda x: torch.signbit(x), (t([-3.0, -inf, 0.0, 2.0, inf]),), "Less"),
    ("isinf_signs", lambda x: (torch.isneginf(x), torch.isposinf(x)), (t([-inf, -1.0, 0.0, inf, nan]),), "IsInf And"),
    ("atan2_quadrants", lambda y, x: torch.atan2(y, x), (t([1.0, 1.0, -1.0, -1.0, 0.0, 0.0]), t([1.0, -1.0, -1.0, 1.0, 0.0, -2.0])), "Atan Where IsNaN"),
    ("heaviside_values", lambda x, v: torch.heaviside(x, v), (t([-2.0, 0.0, 3.0, 0.0]), t([0.5, 0.25, 7.0, 9.0])), "Less Equal Where"),
    ("logaddexp_both", lambda a, b: (torch.logaddexp(a, b), torch.logaddexp2(a, b)), (t([0.0, 1.0, -2.0]), t([0.0, 2.0, 3.0])), "Exp Log Pow"),
    ("xlogy_tensor_scalar", lambda x, y: (torch.xlogy(x, y), torch.xlogy(x, 3.0)), (t([0.0, 2.0, 0.5, 1.0]), t([0.0, 3.0, nan, 0.25])), "IsNaN Log Where"),
    ("lerp_scalar_tensor", lambda a, b, w: (torch.lerp(a, b, 0.75), torch.lerp(a, b, w)), (t([0.0, 1.0, -2.0]), t([4.0, -1.0, 2.0]), t([0.25, 0.5, 0.9])), "Less Where"),
    ("atleast_2d_3d_lists", lambda a, b, c: (torch.atleast_2d(a, b, c), torch.atleast_3d(a, b, c)), (t(5.0), t([1.0, 2.0]), t([[1.0, 2.0], [3.0, 4.0]])), "SequenceConstruct SequenceMap SequenceAt"),
    ("special_erfc_expm1_sinc", lambda x: (torch.special.erfc(x), torch.special.expm1(x), torch.special.sinc(x)), (t([-1.0, 0.0, 0.5, 2.0]),), "Erf Exp Sin"),
    ("diagonal_offset_dims", lambda x: (torch.diagonal(x, 1, 0, 2), torch.diagonal_copy(x, -1)), (torch.arange(24.0).reshape(2, 3, 4),), "EyeLike ReduceSum Slice"),
    ("cross_default_dim", lambda a, b: torch.cross(a, b), (t([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]), t([[0.0, 2.0], [1.0, 0.0], [0.0, 3.0]])), "Split Concat"),
    ("linalg_cross_dim0", lambda a, b: torch.linalg.cross(a, b, dim=0), (t([[1.0, 2.0], [0.0, 1.0], [3.0, 0.0]]), t([[0.0, 2.0], [1.0, 0.0], [0.0, 3.0]])), "Split Concat"),
    ("repeat_interleave_int", lambda x: (torch.repeat_interleave(x, 2, dim=1), torch.repeat_interleave(x, 3)), (t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),), "Expand Reshape"),
    ("addbmm_scaled", lambda s, a, b: torch.addbmm(s, a, b, beta=0.5, alpha=2.0), (torch.arange(4.0).reshape(2, 2), torch.arange(12.0).reshape(2, 2, 3), torch.arange(12.0).reshape(2, 3, 2) / 4), "MatMul ReduceSum"),
    ("bilinear_bias_none", lambda a, b, w, bias: (torch.nn.functional.bilinear(a, b, w, bias), torch.nn.functional.bilinear(a, b, w)), (torch.arange(6.0).reshape(3, 2) / 3, torch.arange(9.0).reshape(3, 3) / 5, torch.arange(24.0).reshape(4, 2, 3) / 10, t([1.0, -1.0, 0.5, 0.0])), "MatMul Transpose"),
    ("logcumsumexp_dim1", lambda x: torch.logcumsumexp(x, 1), (t([[0.0, 1.0, 2.0], [-1.0, 50.0, 3.0]]),), "CumSum ReduceMax"),
    ("linspace_steps", lambda: (torch.linspace(-1.0, 2.0, 7), torch.linspace(3.0, 3.0, 1)), (), "Range Where"),
    ("unsafe_split_both", lambda x: (torch.ops.aten.unsafe_split.Tensor(x, 2, 1), torch.ops.aten.unsafe_split_with_sizes.default(x, [1, 3], 1)), (torch.arange(8.0).reshape(2, 4),), ""),
    ("scatter_reduce_exclude_self", lambda s, i, v: (s.scatter_reduce(0, i, v, "sum", include_self=False), s.scatter_reduce(0, i, v, "prod", include_self=False), s.scatter_reduce(0, i, v, "amax", include_self=False), s.scatter_reduce(0, i, v, "amin", include_self=False)), (t([10.0, 20.0, 30.0, 40.0]), t([0, 2, 0, 2, 1]), t([1.0, 2.0, 3.0, 4.0, 5.0])), "ScatterElements"),
    ("scatter_reduce_mean", lambda s, i, v: (s.scatter_reduce(0, i, v, "mean"), s.scatter_reduce(0, i, v, "mean", include_self=False)), (t([10.0, 20.0, 30.0, 40.0]), t([0, 2, 0, 2, 1]), t([1.0, 2.0, 3.0, 4.0, 5.0])), "ScatterElements Div"),
    ("index_put_adjacent_after_none", lambda x, i, j, v: torch.ops.aten.index_put.default(x, [None, i, j], v), (torch.zeros(2, 3, 4), t([[0], [-1]]), t([1, 3]), t([1.0, 2.0])), "ScatterND Transpose"),
    ("index_put_split_dims_accumulate", lambda x, i, j, v: torch.ops.aten.index_put.default(x, [i, None, j], v, True), (torch.ones(3, 2, 4), t([0, 2, 0]), t([1, -1, 1]), t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])), "ScatterND"),
    ("index_put_bool_mask_2d", lambda x, m, v: torch.ops.aten.index_put.default(x, [m], v), (torch.arange(12.0).reshape(2, 2, 3), t([[True, False], [False, True]]), t([7.0, 8.0, 9.0])), "NonZero ScatterND"),
    ("unsafe_index_put_accumulate", lambda x, i, v: torch.ops.aten._unsafe_index_put.default(x, [None, i], v, True), (torch.zeros(2, 3), t([2, 0, 2]), t([1.0, 2.0, 3.0])), "ScatterND"),
    ("angle_real_nan", lambda x: torch.angle(x), (t([-2.0, 0.0, 3.0, nan, -inf]),), "Less Where IsNaN"),
    ("view_copy_infer", lambda x: torch.view_copy(x, (-1, 2)), (torch.arange(6.0).reshape(3, 2),), "Reshape"),
    ("adaptive_avg_pool_uneven", lambda a, b, c: (torch.nn.functional.adaptive_avg_pool1d(a, 2), torch.nn.functional.adaptive_avg_pool2d(b, (2, 3)), torch.nn.functional.adaptive_avg_pool3d(c, (2, 2, 3))), (torch.arange(5.0).reshape(1, 1, 5), torch.arange(20.0).reshape(1, 1, 4, 5), torch.arange(60.0).reshape(1, 1, 3, 4, 5)), "MatMul"),
    # Tensor.item() (an unbacked SymInt / SymFloat) and _local_scalar_dense as numbers in arithmetic
    # of their own type (the exporter's type promotion casts the others first: tests/data_dependent.sh)
    ("item_in_arithmetic", lambda i, x, n: (i * n.max().item(), x + n.float().mean().item()), (t([1, 2, 3]), t([1.0, 2.0, 3.0]), t([5, 3])), "Gather Mul Add"),
    ("local_scalar_dense", lambda i, n: i * torch.ops.aten._local_scalar_dense.default(n.sum()), (t([1, -2]), t([[2], [4]])), "Gather Mul"),
    # masked_select: the mask broadcast against self, the selected elements in row-major order
    ("masked_select_broadcast", lambda x, m: torch.masked_select(x, m), (t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), t([True, False, True])), "Where Expand NonZero GatherND"),
]
DT = {torch.float32: "f32", torch.float64: "f64", torch.int64: "i64", torch.int32: "i32", torch.bool: "b8"}

def fmt(x):
    if x.dtype == torch.bool:
        return " ".join("true" if v else "false" for v in x.flatten().tolist())
    out = []
    for v in x.flatten().tolist():
        if isinstance(v, float):
            out.append("nan" if math.isnan(v) else "inf" if v == inf else "-inf" if v == -inf else "%.9g" % v)
        else:
            out.append(str(v))
    return " ".join(out)

def typ(x): return "%s[%s]" % (DT[x.dtype], ", ".join(str(s) for s in x.shape))

def flat(o):
    if isinstance(o, torch.Tensor): return [o]
    return [y for e in o for y in flat(e)]

class M(torch.nn.Module):
    def __init__(s, f): super().__init__(); s.f = f
    def forward(s, *a): return s.f(*a)

for name, f, args, ops in CASES:
    ep = torch.export.export(M(f), args, strict=False)
    outs = flat(f(*args))
    text = ep.graph_module.print_readable(print_output=False)
    lines = [l for l in text.splitlines() if l.strip() and not l.strip().startswith("#")]
    names = [s.arg.name for s in ep.graph_signature.input_specs]
    print("=== %s" % name)
    for n, a in zip(names, args):
        print("in %s %s = %s" % (n, typ(a), fmt(a)))
    for o in outs:
        print("out %s = %s" % (typ(o), fmt(o)))
    if ops:
        print("ops: %s" % ops)
    print("\n".join(lines))
    print()
