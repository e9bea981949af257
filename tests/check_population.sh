#!/bin/sh
# check_population.sh — fxsh's `check` against onnx.checker.check_model(full_check=True): every
# model of a population (tests/fixtures/check_population by default, or the directory given,
# made by scripts/dev/check_population.py) with onnx's verdict in its verdicts.tsv; fails when
# fxsh accepts a model onnx rejects or rejects one onnx accepts. Only the recorded verdicts are
# needed, never onnx itself.
#   tests/check_population.sh [DIR] [KIND]   (KIND: only members of that kind, e.g. vi_dim)
set -u
: "${FXSH:?}"
top=${FXSH_TOP:-.}
dir=${1:-$top/tests/fixtures/check_population}
only=${2:-}
[ -f "$dir/verdicts.tsv" ] || { echo "check_population: no $dir/verdicts.tsv"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
acc=0 acc_of=0 rej=0 rej_of=0 bad=0
# the file descriptor 3 keeps the table away from fxsh's stdin
while IFS='	' read -r id kind source want msg <&3; do
    [ "$id" = id ] && continue
    [ -n "$only" ] && [ "$kind" != "$only" ] && continue
    if "$FXSH" -q -bail -c "load $dir/$id.onnx" -c check >"$tmp/out" 2>&1 </dev/null; then got=ok; else got=reject; fi
    if [ "$want" = ok ]; then
        acc_of=$((acc_of + 1))
        [ "$got" = ok ] && acc=$((acc + 1))
    else
        rej_of=$((rej_of + 1))
        [ "$got" = reject ] && rej=$((rej + 1))
    fi
    if [ "$got" != "$want" ]; then
        bad=$((bad + 1))
        echo "DISAGREE $id ($kind, from $source): onnx says $want, fxsh says $got"
        [ "$want" = reject ] && echo "  onnx: $msg"
        [ "$got" = reject ] && sed -n '1,3s/^/  fxsh: /p' "$tmp/out"
    fi
done 3<"$dir/verdicts.tsv"
echo "check population: $acc/$acc_of models onnx accepts accepted, $rej/$rej_of models onnx rejects rejected, $bad disagreements"
[ $((acc_of + rej_of)) -gt 0 ] && [ "$bad" -eq 0 ]
