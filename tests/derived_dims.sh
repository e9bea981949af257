#!/bin/sh
# derived_dims.sh — dynamic_shapes with derived dimensions (y:0=2*dx, x:0=dx+1) against torch 2.14
# (tests/fixtures/derived_dims/golden.tsv, made by scripts/dev/derived_dims_golden.py): the range
# constraints torch.export records (its root symbol named as the Dim, which fxsh keeps), the
# inputs' and outputs' types of torch.onnx's model (dim names 2*dx, dx + 1, 2*dx - 1), a sweep of
# the root that sizes the derived input with it, and examples that break the relation refused.
set -u
: "${FXSH:?FXSH must point at the fxsh binary}"
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
F=tests/fixtures/derived_dims
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1 LC_ALL=C FXSH_HISTFILE=/dev/null
passed=0 failed=0
tab=$(printf '\t')
fail() { failed=$((failed + 1)); echo "FAIL $case: $1"; }
# the types of a signature line, without value names: "float[dx,4] x" -> "float[dx,4]"
types() { sed -e 's/\] [A-Za-z_][A-Za-z0-9_]*/]/g'; }
while IFS="$tab" read -r case model spec inputs rc sig <&3; do
    [ "$case" = case ] && continue
    set -- $inputs
    (cd "$top" && timeout 30 "$FXSH" -q -c "load $F/$model.torchscript.txt --input $1 --input $2" \
        -c "export dynamic_shapes=\"$spec\" verbose=False" -c "show exported program" -c "show optimized" \
        -c "verify exported optimized --shapes dx=2,5,64") >"$tmp/out" 2>"$tmp/err" </dev/null
    rc_got=$(sed -n 's/^Range constraints: //p' "$tmp/out")
    sig_got=$(grep '^main_graph' "$tmp/out" | sed 's/ *$//' | types)
    sig_want=$(printf '%s\n' "$sig" | types)
    if ! grep -q 'agree at all 3 sizes' "$tmp/out"; then fail "sweep over dx: $(grep -i 'fail\|error' "$tmp/out" "$tmp/err" | head -3)"
    elif [ "$rc_got" != "$rc" ]; then fail "range constraints $rc_got, torch's $rc"
    elif [ "$sig_got" != "$sig_want" ]; then fail "signature $sig_got, torch.onnx's $sig_want"
    else passed=$((passed + 1))
    fi
done 3<"$top/$F/golden.tsv"
case="examples that break 2*dx"
(cd "$top" && "$FXSH" -q -c "load $F/twice.torchscript.txt --input x=f32[3,4] --input y=f32[5,4]" \
    -c "export dynamic_shapes=\"x:0=Dim('dx',min=2,max=64) y:0=2*dx\"") >"$tmp/out" 2>"$tmp/err" </dev/null
if [ $? -eq 0 ]; then fail "exported"
elif ! grep -q 'dynamic_shapes: y:0 is 2\*dx, but the examples give dx = 3 (x:0) and 5 here, not 6' "$tmp/err"; then
    fail "$(head -c 300 "$tmp/err")"
else passed=$((passed + 1))
fi
case="a derived dimension of a number that is no Dim"
(cd "$top" && "$FXSH" -q -c "load $F/twice.torchscript.txt --input x=f32[3,4] --input y=f32[6,4]" \
    -c "export dynamic_shapes=\"x:0=AUTO y:0=2*s0\"") >"$tmp/out" 2>"$tmp/err" </dev/null
if [ $? -eq 0 ]; then fail "exported"
elif ! grep -q "'2\*s0' derives from s0, which is not a named Dim" "$tmp/err"; then fail "$(head -c 300 "$tmp/err")"
else passed=$((passed + 1))
fi
echo "derived dims: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -eq 4 ]
