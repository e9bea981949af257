#!/bin/sh
# decode.sh — `verify A B --decode N` on a two-layer LlamaForCausalLM decoding step
# (tests/fixtures/models/llama_decode_step: past keys/values in, presents out, exported by
# torch.export with dynamic batch, sequence and past lengths, and by torch.onnx as the peer's
# model). Each model feeds its own presents back; the greedy tokens fxsh picks over 8 steps are
# eager PyTorch's (decode_tokens.txt, made by scripts/dev/mk-decode-golden.py); a present that
# drops the past passes the prefill and fails at step 1; an exported program's range stops the
# step that leaves it; wrong uses are refused. Needs jq (skips without it).
set -u
: "${FXSH:?FXSH must point at the fxsh binary}"
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
command -v jq >/dev/null 2>&1 || { echo "decode: jq not found, skipped"; exit 77; }
D=$top/tests/fixtures/models/llama_decode_step
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1 LC_ALL=C FXSH_HISTFILE=/dev/null
passed=0 failed=0
fail() { failed=$((failed + 1)); echo "FAIL $case: $1"; }
ok() { passed=$((passed + 1)); }
# fx ARGS...: fxsh on the fixture's program (exported), status in $rc, $tmp/out, $tmp/err
fx() {
    (cd "$D" && timeout 60 "$FXSH" -q -c "load program.pt2" -c "export verbose=False" "$@") >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
}
# tokens_match: the next_tokens of every step of $tmp/out (verify --json) are eager's, row by row
tokens_match() {
    jq -r '.steps[] | select(.next_tokens != null) | .next_tokens | map(tostring) | join(" ")' "$tmp/out" >"$tmp/tokens" &&
        cmp -s "$tmp/tokens" "$D/decode_tokens.txt"
}

case="fxsh's model from the fixture's prefill (past 3): eager's greedy tokens over 8 steps"
fx -c "verify optimized exported --decode 8 --inputs io.npz --json"
if [ "$rc" -ne 0 ]; then fail "status $rc: $(head -c 300 "$tmp/err")"
elif [ "$(jq -r '[.ok, .decode.past, .decode.prefill, (.steps | length), .steps[8].past] | map(tostring) | join(" ")' "$tmp/out")" != "true 3 4 9 14" ]; then
    fail "not 9 passing steps from past 3 to 14: $(head -c 300 "$tmp/out")"
elif ! tokens_match; then fail "tokens differ from eager's: $(tr '\n' '|' <"$tmp/tokens")"
else ok
fi

case="torch.onnx's model of the same step (present.N.key outputs) against the exported program"
fx -c "verify $D/torch_onnx.onnx exported --decode 8 --inputs io.npz --json"
if [ "$rc" -ne 0 ]; then fail "status $rc: $(head -c 300 "$tmp/err")"
elif [ "$(jq -r '[.decode.caches[] | .input + "<-" + .output] | join(",")' "$tmp/out")" != \
    "past_key_values.0.key<-present.0.key,past_key_values.0.value<-present.0.value,past_key_values.1.key<-present.1.key,past_key_values.1.value<-present.1.value" ]; then
    fail "caches not paired by name: $(jq -c .decode "$tmp/out")"
elif ! tokens_match; then fail "tokens differ from eager's"
else ok
fi

case="from an empty cache, fxsh's model against torch.onnx's"
fx -c "verify optimized $D/torch_onnx.onnx --decode 8"
if [ "$rc" -ne 0 ]; then fail "status $rc: $(head -c 300 "$tmp/err")"
elif ! grep -q '^step 0 (prefill, past 0, 4 tokens):$' "$tmp/out" || ! grep -q '^step 8 (past 11, 1 token):$' "$tmp/out"; then
    fail "steps not from past 0 to 11: $(grep '^step' "$tmp/out" | tr '\n' '|')"
elif ! grep -q '^verify: optimized and .*torch_onnx.onnx agree over the prefill and 8 decoding steps' "$tmp/out"; then
    fail "no agreement line"
else ok
fi

case="a present key that drops the past: the prefill agrees, step 1 does not"
fx -c "save $tmp/good.onnx" -c "set output 0=(%linear_14,%add_6,%cat_8,%cat_11,%cat_12)" -c "export verbose=False" \
    -c "verify optimized $tmp/good.onnx --decode 8 --save $tmp/step.npz"
if [ "$rc" -eq 0 ]; then fail "verify passed"
elif ! grep -q 'part at decoding step 1: add_6 differs' "$tmp/err"; then fail "not step 1: $(head -c 300 "$tmp/err")"
elif ! grep -q '^  FAIL add_6: shape \[2, 1, 1, 8\], expected \[2, 1, 5, 8\]$' "$tmp/out"; then fail "no FAIL line for the cache"
elif grep -q '^step 2' "$tmp/out"; then fail "went on after the first failing step"
elif ! [ -s "$tmp/step.npz" ]; then fail "--save wrote no inputs"
else ok
fi

case="compare on the failing step's inputs names the rewired output"
fx -c "set output 0=(%linear_14,%add_6,%cat_8,%cat_11,%cat_12)" -c "export verbose=False" \
    -c "compare optimized $tmp/good.onnx --inputs $tmp/step.npz"
if [ "$rc" -eq 0 ]; then fail "compare passed"
elif ! grep -q 'output 1 is add_6 in optimized and cat_7 in .*good.onnx' "$tmp/err"; then fail "$(head -c 300 "$tmp/err")"
else ok
fi

case="a decoding step past the exported program's range (past <= 32) stops there"
fx -c "verify optimized exported --decode 6 --prefill 30"
if [ "$rc" -eq 0 ]; then fail "verify passed"
elif ! grep -q '^step 4 (past 33, 1 token): FAIL: exported: Guard failed: past_key_0.size()\[2\] <= 32' "$tmp/out"; then
    fail "$(grep '^step 4' "$tmp/out")"
elif ! grep -q 'part at decoding step 4: exported does not run' "$tmp/err"; then fail "$(head -c 300 "$tmp/err")"
else ok
fi

# wrong uses: each an error naming what is wrong, status 1
expect_error() {
    case=$1 re=$2
    shift 2
    fx "$@"
    if [ "$rc" -ne 1 ]; then fail "status $rc"
    elif ! grep -qE -e "$re" "$tmp/err"; then fail "stderr does not match /$re/: $(head -c 300 "$tmp/err")"
    else ok
    fi
}
expect_error "--decode 0" "--decode needs an integer from 1 to 4096, not '0'" -c "verify optimized exported --decode 0"
expect_error "--prefill without --decode" "--prefill and --save go with --decode N" -c "verify optimized exported --prefill 3"
expect_error "--decode with --expected" "it does not go with --expected" -c "verify optimized --decode 2 --expected io.npz"
expect_error "--decode with one model" "--decode compares two models" -c "verify optimized --decode 2"
case="a model without a cache"
(cd "$top" && timeout 60 "$FXSH" -q -c "load examples/data/mlp.pt2" -c "export verbose=False" \
    -c "verify optimized exported --decode 2") >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q 'verify: --decode: optimized has no past key/value inputs' "$tmp/err"; then
    fail "status $rc: $(head -c 300 "$tmp/err")"
else ok
fi

echo "decode: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
