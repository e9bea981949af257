#!/bin/sh
# corpus_repl.sh — conformance of the whole tool against the reference corpus (real torch 2.14 /
# onnx 1.20 output): `fxsh -c 'load F' -c 'show ...'` must print each reference file back exactly
# (plus the one newline print() adds). Skips (77) when the corpus is absent.
set -u
: "${FXSH:?}"
corpus=${FXSH_CORPUS:-}
[ -n "$corpus" ] && [ -d "$corpus/fx" ] || { echo "corpus not found (FXSH_CORPUS); skipping"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# In the sanitizer build: this script starts about 3000 fxsh processes and LeakSanitizer's scan at
# each exit costs 0.1 s (5 minutes in all); the cmocka corpus tests run the same loaders and
# printers in one process each, under LeakSanitizer. Every other ASan/UBSan check stays on.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
total_fail=0

# check LABEL EXPECTED_FILE COMMAND...: runs fxsh with the -c commands, compares with the file.
check() {
    label=$1 expected=$2
    shift 2
    if "$FXSH" "$@" >"$tmp/out" 2>"$tmp/err" && { cat "$expected"; echo; } | cmp -s - "$tmp/out"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        [ "$fail" -le 5 ] && echo "  FAIL $label: $expected ($(head -c 200 "$tmp/err"))"
    fi
}

report() {
    echo "$1: $pass passed, $fail failed"
    total_fail=$((total_fail + fail))
    pass=0 fail=0
}

pass=0 fail=0
for f in "$corpus"/fx/*/*.fx.txt "$corpus"/fx/*/*.readable.txt "$corpus"/fx/*/*.module.txt; do
    [ -f "$f" ] && check "fx round trip" "$f" -c "load $f" -c "show loaded"
done
report "FX text round trip (load F; show loaded)"

# print(ep) text back in: the program loads from torch's own print(ep) and prints as it was
for f in "$corpus"/fx/*/*.program.txt; do
    [ -f "$f" ] && check "print(ep) round trip" "$f" -c "load $f" -c "show loaded"
done
report "print(ep) text round trip (load F; show loaded)"

for d in "$corpus"/fx/*/; do
    [ -f "$d/exported.fx.txt" ] || continue
    for src in "$d/program.pt2" "$d/program.json"; do
        [ -f "$src" ] || continue
        check "pt2 graph" "$d/exported.fx.txt" -c "load $src" -c "show graph"
        check "pt2 code" "$d/exported.readable.txt" -c "load $src" -c "show code"
        check "pt2 program" "$d/exported.program.txt" -c "load $src" -c "show program"
    done
done
report "torch.export programs (show graph / code / program)"

for m in "$corpus"/onnx_text/*/*/model.onnx; do
    [ -f "$m" ] && check "onnx print" "$(dirname "$m")/expected.txt" -c "load $m" -c show
done
for m in "$corpus"/fx/*/*.onnx; do
    [ -f "$m" ] && check "onnx print" "${m%.onnx}.txt" -c "load $m" -c show
done
report "ONNX printer (load M; show)"

# The text form parses back to the same model: load expected.txt, show, compare (the manifest
# lists the few models whose text onnx's own parser does not round-trip either).
for t in "$corpus"/onnx_text/*/*/expected.txt; do
    name=$(basename "$(dirname "$t")")
    awk -F'\t' -v n="$name" '$2 == n && $6 == "false" { found = 1 } END { exit !found }' \
        "$corpus/onnx_text/manifest.tsv" && continue
    check "onnx parse" "$t" -c "load $t" -c show
done
report "ONNX text parse/print round trip (load T; show)"

# The export pipeline on every torch.export program: each one either exports to a model that
# fxsh's checker accepts, or fails with a message (exit 1) — never a crash or an invalid model.
exported=0 refused=0
for j in "$corpus"/fx/*/program.json "$corpus"/fx/*/program.pt2; do
    [ -f "$j" ] || continue
    "$FXSH" -c "load $j" -c "export verbose=False" -c check >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 0 ] && grep -q '^check: ok$' "$tmp/out"; then
        exported=$((exported + 1)); pass=$((pass + 1))
    elif [ "$rc" -eq 1 ] && grep -q 'This is step\|error:' "$tmp/err" && ! grep -q '^check: ok$' "$tmp/out" \
         && ! grep -q 'check: [0-9]* problem' "$tmp/err"; then
        refused=$((refused + 1)); pass=$((pass + 1))
        echo "  refused (clear error): $j: $(grep -m1 'error:' "$tmp/err" | cut -c1-160)"
    else
        fail=$((fail + 1))
        echo "  FAIL export: $j (exit $rc): $(head -c 300 "$tmp/err")"
    fi
done
report "export pipeline ($exported exported and checked, $refused refused with an error)"

[ "$total_fail" -eq 0 ]
