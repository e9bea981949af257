#!/bin/sh
# guards.sh — size guards under each kind of dynamic dimension, against torch.export's own
# verdicts (tests/fixtures/guards/verdicts.tsv, made by scripts/dev/guard_verdicts.py with torch
# 2.14): a Python `if` on x.shape[0] (> 2, < 10, == 4, != 5) exported with dynamic_shapes x:0 as a
# named Dim (with and without a range), AUTO and DYNAMIC, examples of size 1 and 0 (the 0/1 rule),
# and x's dim 1, which a kernel pins (the Linear's input features). Where torch exports, fxsh exports with
# the same range constraint; where torch fails, fxsh fails with torch's message and suggested fix.
set -u
: "${FXSH:?FXSH must point at the fxsh binary}"
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
F=$top/tests/fixtures/guards
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1 LC_ALL=C FXSH_HISTFILE=/dev/null
passed=0 failed=0
tab=$(printf '\t')
while IFS="$tab" read -r model spec axis batch outcome detail fix <&3; do
    [ "$model" = model ] && continue
    case $model in
    python_if_shape) ts=$top/examples/data/python_if_shape.torchscript.txt ;;
    *) ts=$F/$model.torchscript.txt ;;
    esac
    (cd "$top" && timeout 30 "$FXSH" -q -c "load $ts --input x=f32[$batch,3] --weights examples/data/python_if_shape.pt2" \
        -c "export dynamic_shapes=\"x:$axis=$spec\"" -c "show exported program") >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    why=
    if [ "$outcome" = ok ]; then
        want=${detail:-}
        if [ "$rc" -ne 0 ]; then why="torch exports, fxsh fails: $(head -c 300 "$tmp/err")"
        elif [ -z "$want" ] && ! grep -q '^Range constraints: {}$' "$tmp/out"; then why="torch records no range: $(grep '^Range' "$tmp/out")"
        elif [ -n "$want" ] && ! grep -qF ": $want}" "$tmp/out"; then why="torch records $want: $(grep '^Range' "$tmp/out")"
        fi
    else
        d=${detail%.}
        if [ "$rc" -eq 0 ]; then why="torch fails ($d), fxsh exports"
        elif ! grep -qF "$d" "$tmp/err"; then why="not torch's message: $d; fxsh: $(head -c 400 "$tmp/err")"
        elif [ -n "$fix" ] && ! grep -qF "Suggested fixes: $fix" "$tmp/err"; then why="not torch's fix: $fix"
        fi
    fi
    if [ -n "$why" ]; then
        failed=$((failed + 1))
        echo "FAIL $model with x:$axis=$spec (batch $batch): $why"
    else
        passed=$((passed + 1))
    fi
done 3<"$F/verdicts.tsv"
# The corpus's torch-level case with a dynamic dimension: torch.export's range constraint as the
# corpus recorded it (exported.program.txt), from fxsh's own capture of the TorchScript.
c=${FXSH_CORPUS:-$top/../shared/corpus}/fx/dynamic_batch
if [ -f "$c/torchscript.txt" ]; then
    want=$(sed -n 's/^Range constraints: {[a-z0-9]*: \(VR\[[^]]*\]\)}$/\1/p' "$c/exported.program.txt")
    "$FXSH" -q -c "load $c/torchscript.txt --input x=f32[3,2,3] --weights $c/program.pt2" \
        -c "export dynamic_shapes=\"x:0=Dim('batch', min=1, max=1024)\"" -c "show exported program" >"$tmp/out" 2>"$tmp/err" </dev/null
    if [ -n "$want" ] && grep -qF ": $want}" "$tmp/out"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL corpus dynamic_batch: torch records '$want'; fxsh: $(grep '^Range' "$tmp/out") $(head -c 300 "$tmp/err")"
    fi
fi
echo "guards: $passed of $((passed + failed)) agree with torch.export"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
