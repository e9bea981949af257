#!/bin/sh
# corpus_text.sh — ops corpus cases that must print exactly as torch.onnx printed them: for each
# case named in tests/fixtures/corpus_text/*.txt (one a line, `#` comments), fxsh's `show
# optimized` of program.pt2 against the case's onnx_dynamo.txt (torch 2.14's own output), producer
# lines aside. Each list names the ops whose lowering the cases pin down, so that a change that
# loses torchlib's form of one of them fails here by name; tests/corpus_verify.sh counts all cases.
# Skips (77) without the corpus.
set -u
: "${FXSH:?}"
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
corpus=${FXSH_CORPUS:-}
[ -n "$corpus" ] && [ -d "$corpus/ops" ] || { echo "corpus not found (FXSH_CORPUS); skipping"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
pass=0 fail=0
for list in "$top"/tests/fixtures/corpus_text/*.txt; do
    [ -f "$list" ] || continue
    while read -r c _; do
        case $c in ''|'#'*) continue ;; esac
        d=$corpus/ops/$c
        if [ ! -f "$d/program.pt2" ] || [ ! -f "$d/onnx_dynamo.txt" ]; then
            echo "FAIL $c ($(basename "$list")): no such case in the corpus"
            fail=$((fail + 1))
            continue
        fi
        grep -v '^ *producer_' "$d/onnx_dynamo.txt" >"$tmp/torch.txt"
        if "$FXSH" -q -c "load $d/program.pt2" -c export -c 'show optimized' >"$tmp/out" 2>"$tmp/err" &&
            grep -v '^ *producer_' "$tmp/out" | cmp -s - "$tmp/torch.txt"; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL $c ($(basename "$list")): fxsh's model does not print as torch's"
            grep -v '^ *producer_' "$tmp/out" | diff "$tmp/torch.txt" - | head -10 | sed 's/^/  /'
            head -3 "$tmp/err" | sed 's/^/  /'
        fi
    done <"$list"
done
echo "corpus text: $pass cases printed as torch's, $fail not"
[ "$fail" -eq 0 ]
