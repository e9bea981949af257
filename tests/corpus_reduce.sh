#!/bin/sh
# corpus_reduce.sh — `reduce` on every ops case of the corpus whose export fails after capture: the
# reduced program's reproducer (program.pt2 and reproduce.fxsh, saved by `reduce --save`) fails with
# the same first error, and has no more nodes than the program it came from. Prints the counts and
# the nodes before and after, lists the cases whose reproducer fails otherwise, and fails below the
# floor (tests/floors.txt). Skips (77) without the corpus or jq.
set -u
: "${FXSH:?}"
corpus=${FXSH_CORPUS:-}
[ -n "$corpus" ] && [ -d "$corpus/ops" ] || { echo "corpus not found (FXSH_CORPUS); skipping"; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "corpus_reduce.sh: jq not found, skipped"; exit 77; }
floor() { sed -n "s/^$1 \([0-9]*\).*/\1/p" "${FXSH_TOP:-$(dirname "$0")/..}/tests/floors.txt"; }
FLOOR_REDUCE=${FLOOR_REDUCE:-$(floor FLOOR_REDUCE)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

reduced=0 same=0 before=0 after=0 bad=0
for dir in "$corpus"/ops/*/; do
    [ -f "$dir/program.pt2" ] || continue
    name=$(basename "$dir")
    out="$tmp/r"
    rm -rf "$out"
    # a case whose export succeeds, or fails at capture or at load, has nothing to reduce
    "$FXSH" -q -c "load $dir/program.pt2" -c "reduce --save $out --json" >"$tmp/j" 2>/dev/null || continue
    reduced=$((reduced + 1))
    failure=$(jq -r .failure "$tmp/j")
    before=$((before + $(jq -r .nodes_before "$tmp/j")))
    after=$((after + $(jq -r .nodes_after "$tmp/j")))
    if [ "$(jq -r '.nodes_after <= .nodes_before' "$tmp/j")" != true ]; then
        echo "GREW: $name"; bad=$((bad + 1)); continue
    fi
    got=$(cd "$out" && "$FXSH" -q -f reproduce.fxsh 2>&1 | sed -n 's/^reproduce\.fxsh:[0-9]*: program\.pt2: error: //p' | head -1)
    if [ "$got" = "$failure" ]; then
        same=$((same + 1))
    else
        echo "DIFFERS: $name: reduced '$failure', reproducer '$got'"
        bad=$((bad + 1))
    fi
done
echo "corpus_reduce.sh: $reduced failing exports reduced ($before nodes to $after), $same reproducers fail the same way, $bad otherwise (floor $FLOOR_REDUCE)"
[ "$same" -ge "$FLOOR_REDUCE" ] && [ "$bad" -eq 0 ]
