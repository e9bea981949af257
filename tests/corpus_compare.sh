#!/bin/sh
# corpus_compare.sh — `compare` of fxsh's export with torch.onnx's, node by node, on every corpus
# fx case that has both a program.pt2 and torch's models: fxsh's onnx stage against
# onnx_dynamo.onnx (optimize=False) and its optimized stage against onnx_dynamo_opt.onnx, on the
# case's example inputs (io.json). Every value the two models name alike must agree within
# compare's default tolerance (atol 1e-4, rtol 1e-3). A pair fxsh cannot evaluate (an op of a
# custom domain) is counted apart; any divergence fails the test, and so do fewer agreeing pairs
# than the floor. Skips (77) without the corpus. FXSH_CORPUS_FILTER=substring limits the cases
# (no floor then).
set -u
: "${FXSH:?}"
corpus=${FXSH_CORPUS:-}
[ -n "$corpus" ] && [ -d "$corpus/fx" ] || { echo "corpus not found (FXSH_CORPUS); skipping"; exit 77; }
# the floors of make check live in tests/floors.txt (an environment variable of the same name overrides)
floor() { sed -n "s/^$1 \([0-9]*\).*/\1/p" "${FXSH_TOP:-$(dirname "$0")/..}/tests/floors.txt"; }
FLOOR=${FLOOR_COMPARE:-$(floor FLOOR_COMPARE)}
filter=${FXSH_CORPUS_FILTER:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

agree=0 diverge=0 unevaluable=0 noexport=0
for d in "$corpus"/fx/*/; do
    c=$(basename "$d")
    [ -n "$filter" ] && case $c in *"$filter"*) ;; *) continue ;; esac
    [ -f "$d/program.pt2" ] && [ -f "$d/io.json" ] || continue
    set --
    [ -f "$d/onnx_dynamo.onnx" ] && set -- "$@" "onnx:$d/onnx_dynamo.onnx"
    [ -f "$d/onnx_dynamo_opt.onnx" ] && set -- "$@" "optimized:$d/onnx_dynamo_opt.onnx"
    for pair in "$@"; do
        stage=${pair%%:*} model=${pair#*:}
        "$FXSH" -c "load $d/program.pt2" -c "export verbose=False" -c "compare $stage $model --inputs $d/io.json" \
            >"$tmp/out" 2>"$tmp/err"
        if grep -q "^no divergence:" "$tmp/out"; then
            agree=$((agree + 1))
        elif grep -q "^-c:2:" "$tmp/err"; then
            noexport=$((noexport + 1))
            echo "  $c: fxsh does not export it: $(grep -m1 '^-c:2:' "$tmp/err" | cut -c1-120)"
        elif grep -q "is not supported by the evaluator" "$tmp/err" && ! grep -q "^first divergence" "$tmp/out"; then
            unevaluable=$((unevaluable + 1))
            echo "  $c ($stage vs $(basename "$model")): not evaluable: $(grep -m1 'not supported' "$tmp/err" | sed 's/.*: node/node/')"
        else
            diverge=$((diverge + 1))
            echo "  $c ($stage vs $(basename "$model")): DIVERGES"
            sed 's/^/    /' "$tmp/out" "$tmp/err" | head -20
        fi
    done
done
echo "compare fxsh vs torch.onnx: $agree pairs agree, $diverge diverge, $unevaluable not evaluable, $noexport not exported"
status=0
[ "$diverge" -eq 0 ] || status=1
if [ -z "$filter" ] && [ "$agree" -lt "$FLOOR" ]; then
    echo "below the floor of $FLOOR agreeing pairs"
    status=1
fi
exit $status
