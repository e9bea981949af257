#!/bin/sh
# fuzz_findings.sh — the inputs of the first fuzzing round (issue 16, tests/fixtures/fuzz/findings)
# through the whole tool: each must end in a clear error and a non-zero status (or a correct
# result), with no signal, no sanitizer report, within 10 s and (without ASan) 512 MB.
set -u
: "${FXSH:?FXSH must point at the fxsh binary}"
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
F=$top/tests/fixtures/fuzz/findings
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1 LC_ALL=C FXSH_HISTFILE=/dev/null
# An ASan build reserves terabytes of address space: a ulimit -v would stop it at start-up.
if grep -q __asan_init "$FXSH" 2>/dev/null; then asan=1; else asan=0; fi
passed=0 failed=0

fail() {
    failed=$((failed + 1))
    echo "FAIL $case: $*"
    echo "  stdout: $(head -c 600 "$tmp/out")"
    echo "  stderr: $(head -c 600 "$tmp/err")"
}

# run ARGS...: fxsh ARGS under timeout 10 and the memory limit; sets rc.
run() {
    if [ "$asan" = 1 ]; then
        timeout 10 "$FXSH" "$@" >"$tmp/out" 2>"$tmp/err"
    else
        timeout 10 sh -c 'ulimit -v 524288 && exec "$@"' sh "$FXSH" "$@" >"$tmp/out" 2>"$tmp/err"
    fi
    rc=$?
}

# expect_error CASE REGEX ARGS...: a non-zero status that is not a signal or the timeout, stderr
# matching REGEX (grep -E), and no sanitizer report.
expect_error() {
    case=$1 re=$2
    shift 2
    run "$@"
    if [ "$rc" -eq 0 ]; then fail "exit status 0, expected an error"
    elif [ "$rc" -eq 124 ]; then fail "timed out (10 s)"
    elif [ "$rc" -ge 128 ]; then fail "killed by signal $((rc - 128))"
    elif grep -qE 'Sanitizer|runtime error:' "$tmp/err"; then fail "sanitizer report"
    elif ! grep -qE "$re" "$tmp/err"; then fail "stderr does not match /$re/"
    else passed=$((passed + 1)); return 0
    fi
    return 1
}

# expect_ok CASE ARGS...: status 0, no sanitizer report.
expect_ok() {
    case=$1
    shift
    run "$@"
    if [ "$rc" -ne 0 ]; then fail "exit status $rc, expected 0"
    elif grep -qE 'Sanitizer|runtime error:' "$tmp/err"; then fail "sanitizer report"
    else passed=$((passed + 1)); return 0
    fi
    return 1
}

ts=$F/mlp.torchscript.txt

# 1. Weights whose data is shorter than dtype x shape: refused at load, naming file and weight;
#    `weights` prints nothing read past the data.
if expect_error "1 onnx short raw_data" \
    "weights_onnx_short_raw_data.onnx: error: tensor 'fc1.weight': float data of 128 elements needs 512 bytes of raw_data but it holds 4" \
    -c "load $ts --weights $F/weights_onnx_short_raw_data.onnx --input x=f32[2,8]" -c 'weights fc1.weight'; then
    grep -q 'fc1.weight: parameter' "$tmp/out" && fail "weights printed values"
fi
if expect_error "1 safetensors short data" \
    "weights_safetensors_short_data.safetensors: error: weight 'fc1.weight': f32\[16, 8\] needs 512 bytes but the file holds 4" \
    -c "load $ts --weights $F/weights_safetensors_short_data.safetensors --input x=f32[2,8]" -c 'weights fc1.weight'; then
    grep -q 'fc1.weight: parameter' "$tmp/out" && fail "weights printed values"
fi
# an FX program's --weights go through the same check (the safetensors' second tensor claims 2^31 floats)
expect_error "1 safetensors short data, FX text" "weight 'fc1.(weight|bias)': .* needs [0-9]+ bytes but the file holds" \
    -c "load $top/tests/fixtures/fx/mlp_torch_level.module.txt --weights $F/weights_safetensors_short_data.safetensors" -c params

# 2. Module settings that are not numbers: an export error naming the module, no crash.
expect_error "2 Conv2d(x, ...)" \
    "error: export: module 'out' \(Conv2d\(x, 2, .*\)\): setting 'in_channels' is 'x', not a non-negative integer" \
    -c "load $F/module_conv2d_nonnumeric_in_channels.txt --input x=f32[1,4,8,8]" -c export

# 3. A loop with 2^32 iterations: refused before the first, with the way to raise the limit.
expect_error "3 loop trip count 2^32" \
    "the \`for\` loop runs 4294967296 iterations.*more than [0-9]+ Python-level steps" \
    -c "load $F/ts_loop_huge_tripcount_hang.txt --input x=f32[2,4]" -c export &&
    { grep -q 'FXSH_MAX_REPLAY_STEPS=N' "$tmp/err" || fail "the hint does not name FXSH_MAX_REPLAY_STEPS"; }
# the same loop with a small trip count is unrolled as before, and the limit can be lowered
sed 's/4294967296/3/' "$F/ts_loop_huge_tripcount_hang.txt" > "$tmp/loop3.txt"
# (`step`: the capture, which replays the loop; the program has no weights for the stages after it)
expect_ok "3 loop trip count 3" -c "load $tmp/loop3.txt --input x=f32[2,4]" -c step
export FXSH_MAX_REPLAY_STEPS=20
expect_error "3 FXSH_MAX_REPLAY_STEPS=20" "more than 20 Python-level steps" -c "load $tmp/loop3.txt --input x=f32[2,4]" -c export
unset FXSH_MAX_REPLAY_STEPS
# the TorchScript exporter's route keeps such a loop a loop instead
run -c "load $F/ts_loop_huge_tripcount_hang.txt --input x=f32[2,4]" -c "export --legacy script"
case="3 legacy script keeps the loop"
if [ "$rc" -ge 124 ]; then fail "status $rc"
elif ! grep -q 'range(4294967296) kept as a loop' "$tmp/err"; then fail "no note that the loop was kept"
else passed=$((passed + 1)); fi

# 4. meta_infer_call frees what it allocates: no leak on export (valgrind, when it is there and
#    this is not an ASan build; the ASan tree's LeakSanitizer checks every test).
case="4 no leak on export"
if [ "$asan" = 0 ] && command -v valgrind >/dev/null 2>&1; then
    timeout 120 valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
        "$FXSH" -c "load $top/tests/fixtures/fx/mlp_exported.fx.txt --weights $top/tests/fixtures/pt2/mlp.pt2 --input x=f32[2,8]" -c export >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 0 ]; then fail "valgrind status $rc"; else passed=$((passed + 1)); fi
else
    expect_ok "4 export (LeakSanitizer)" -c "load $top/tests/fixtures/fx/mlp_exported.fx.txt --weights $top/tests/fixtures/pt2/mlp.pt2 --input x=f32[2,8]" -c export
fi

# 5. An empty graph: stats and summary work (qsort of no ops).
expect_ok "5 empty graph stats/summary" -c "load $F/onnx_empty_graph_qsort_null.onnx" -c stats -c summary &&
    { grep -q 'ops: 0 distinct' "$tmp/out" || fail "summary lacks 'ops: 0 distinct'"; }

# 6. A string attribute without data in DOT output.
expect_ok "6 dot of an empty string attribute" -c "load $F/onnx_dot_string_attr_no_data.onnx" -c "dot $tmp/out.dot" &&
    { [ -s "$tmp/out.dot" ] || fail "no DOT file written"; }

# 7. Negative and overflowing dimensions: refused at load, in every loader.
expect_error "7 safetensors [16, -2^63]" \
    "weights_safetensors_numel_overflow.safetensors: error: weight 'fc1.bias': shape f32\[16, -9223372036854775808\] is invalid" \
    -c "load $ts --weights $F/weights_safetensors_numel_overflow.safetensors --input x=f32[2,8]" -c params
expect_error "7 --input overflow" "load --input 'x=f32\[4611686018427387904,4\]': its element count overflows 64 bits" \
    -c "load $ts --input x=f32[4611686018427387904,4]"
expect_error "7 --input out of range" "size 0 \(99999999999999999999\) is too large for 64 bits" \
    -c "load $ts --input x=f32[99999999999999999999,4]"
sed 's/x: "f32\[2, 8\]"/x: "f32[2, -8]"/' "$top/tests/fixtures/fx/mlp_exported.readable.txt" > "$tmp/neg.readable.txt"
expect_error "7 FX meta negative" "neg.readable.txt:2: error: node %x: size 1 of its value meta, -8, is negative" \
    -c "load $tmp/neg.readable.txt"
sed 's/"f32\[16, 8\]"/"f32[4611686018427387904, 8]"/' "$top/tests/fixtures/fx/mlp_exported.readable.txt" > "$tmp/big.readable.txt"
expect_error "7 FX meta overflow" "error: node %p_fc1_weight: the element count of its value meta overflows 64 bits" \
    -c "load $tmp/big.readable.txt"
printf '<ir_version: 8, opset_import: ["" : 18]>\ng (float[2] x) => (float[2] y) <float[-2] w = {1, 2}> { y = Add (x, w) }\n' > "$tmp/neg.onnxtxt"
expect_error "7 ONNX text tensor dims" "tensor 'w': its shape is invalid: dimension 0 is -2" -c "load $tmp/neg.onnxtxt"
expect_error "7 set inputs" "inputs: x: size 0 \(-3\) is negative" \
    -c "load $top/tests/fixtures/repl/mlp.module.txt" -c 'set inputs x=f32[-3,8]' -c export

# 8. An error at the end of an 8 MB line: one window of the line around the column, written at once.
{
    printf 'opset: 18\nrules:\n  - target: aten.relu.default\n    schema: relu(Tensor self) -> Tensor\n'
    printf "    lowering: 'relu (self) => (result) { result = Relu (self) "
    head -c 8388608 /dev/zero | tr '\0' x
    printf " @ }'\n"
} > "$tmp/long.yaml"
if expect_error "8 long line" "long.yaml:5:[0-9]+: error:" -c "ops load $tmp/long.yaml"; then
    [ "$(wc -c < "$tmp/err")" -lt 2000 ] || fail "stderr has $(wc -c < "$tmp/err") bytes"
    grep -q '…' "$tmp/err" || fail "the long line is not cut with …"
fi

# 9. YAML aliases that expand a 104 KB file into millions of rules.
expect_error "9 YAML alias amplification" "ops_yaml_alias_amplification.yaml: error: YAML aliases expand this file's [0-9]+ nodes to more than" \
    -c "ops load $F/ops_yaml_alias_amplification.yaml"
printf 'opset: 18\nrules: &a [*a]\n' > "$tmp/recursive.yaml"
expect_error "9 recursive alias" "YAML alias refers to a node that contains it" -c "ops load $tmp/recursive.yaml"

# 10. A 1.5 MB .pt2 whose JSON inflates to 1.5 GiB: refused before inflating, naming the override.
expect_error "10 zip bomb" "archive member 'program/models/model.json' inflates to 1610620809 bytes, more than fxsh allows" \
    -c "load $F/pt2_zip_bomb_1.5GiB_model_json.pt2" &&
    { grep -q 'FXSH_MAX_INFLATE=BYTES' "$tmp/err" || fail "the hint does not name FXSH_MAX_INFLATE"; }
# a deflated archive loads, within a lowered cap it does not; a member inflating to more than its
# declared size is refused while reading
expect_ok "10 deflated .pt2" -c "load $F/mlp_deflated.pt2" -c stats
export FXSH_MAX_INFLATE=4K
expect_error "10 FXSH_MAX_INFLATE=4K" "models/model.json' inflates to 8073 bytes, more than fxsh allows for this 6208-byte archive \(4096 bytes" \
    -c "load $F/mlp_deflated.pt2"
unset FXSH_MAX_INFLATE
expect_error "10 member larger than declared" "models/model.json' is truncated or corrupt: it inflates to another size than it declares" \
    -c "load $F/mlp_deflated_lying_size.pt2"

# 11. External data behind a symlink that leaves the model's folder: refused, nothing of the
#     other file read.
mkdir -p "$tmp/m11"
cp "$F/onnx_ext_link_model.onnx" "$tmp/m11/"
printf 'SECRET-0123456789abcdef\n' > "$tmp/secret.bin"
ln -s ../secret.bin "$tmp/m11/link.bin"
expect_error "11 symlink out of the folder" "tensor 'W': external data '.*link.bin' resolves to '.*secret.bin', outside the model's folder" \
    -c "load $tmp/m11/onnx_ext_link_model.onnx" -c show &&
    { ! grep -q SECRET "$tmp/out" "$tmp/err" || fail "bytes of the other file were shown"; }
rm "$tmp/m11/link.bin"
ln -s /etc/passwd "$tmp/m11/link.bin"
expect_error "11 symlink to /etc/passwd" "resolves to '/etc/passwd', outside the model's folder" \
    -c "load $tmp/m11/onnx_ext_link_model.onnx"
# a link that stays inside the folder is followed
rm "$tmp/m11/link.bin"
head -c 16 /dev/zero > "$tmp/m11/real.bin"
ln -s real.bin "$tmp/m11/link.bin"
expect_ok "11 symlink inside the folder" -c "load $tmp/m11/onnx_ext_link_model.onnx" -c show

# 12. External data that is a FIFO: refused before opening it (no hang).
mkdir -p "$tmp/m12"
cp "$F/onnx_ext_fifo_model.onnx" "$tmp/m12/"
mkfifo "$tmp/m12/fifo"
expect_error "12 FIFO" "tensor 'W': external data '.*fifo' is not a regular file \(a FIFO\)" \
    -c "load $tmp/m12/onnx_ext_fifo_model.onnx"

# 13 (values harness): an .npz member that declares 4 GB is refused before anything is allocated
expect_error "13 npz member declares 4 GB" "member '.*' declares 4294967132 bytes, more than fxsh allows for this archive" \
    -c "run --inputs $top/tests/fixtures/fuzz/values/oom_declared_size.npz"

echo "fuzz findings: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
