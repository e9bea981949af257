#!/bin/sh
# corpus_identical.sh — ops cases whose fxsh export must print exactly as torch.onnx's: for every
# case named in tests/fixtures/corpus_identical/*.txt (one per line, `CASE  # what it shows`),
# `show optimized` of fxsh's export of program.pt2 against the case's onnx_dynamo.txt, producer
# lines aside. The goldens are torch.onnx's own output; a case that stops printing the same fails,
# with the diff (torch <, fxsh >). Skips (77) without the corpus.
set -u
: "${FXSH:?}"
: "${FXSH_TOP:=.}"
corpus=${FXSH_CORPUS:-}
[ -n "$corpus" ] && [ -d "$corpus/ops" ] || { echo "corpus not found (FXSH_CORPUS); skipping"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same=0 differ=0
for list in "$FXSH_TOP"/tests/fixtures/corpus_identical/*.txt; do
    sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$list" | grep -v '^$' >"$tmp/cases"
    while read -r c; do
        d=$corpus/ops/$c
        if [ ! -f "$d/onnx_dynamo.txt" ]; then
            echo "$(basename "$list"): no such ops case: $c"; differ=$((differ + 1)); continue
        fi
        "$FXSH" -q -c "load $d/program.pt2" -c "export verbose=False" -c "show optimized" >"$tmp/fxsh.txt" 2>&1 </dev/null
        grep -v '^ *producer_' "$tmp/fxsh.txt" >"$tmp/ours.txt"
        grep -v '^ *producer_' "$d/onnx_dynamo.txt" >"$tmp/torch.txt"
        if cmp -s "$tmp/torch.txt" "$tmp/ours.txt"; then same=$((same + 1)); else
            differ=$((differ + 1))
            echo "FAIL $c ($(basename "$list")): fxsh's graph differs from torch.onnx's (<)"
            diff "$tmp/torch.txt" "$tmp/ours.txt" | head -20 | sed 's/^/  /'
        fi
    done <"$tmp/cases"
done
echo "$same cases print as torch.onnx's, $differ differ"
[ "$differ" -eq 0 ]
