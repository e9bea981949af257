#!/bin/sh
# corpus_trace.sh — `export --legacy trace` against torch's own tracing: for every corpus fx case
# with TorchScript IR and a log of torch.onnx.export(..., dynamo=False) (export_legacy.log), fxsh
# traces the program on the case's example inputs (io.json) and must print exactly the
# DeprecationWarning and TracerWarning lines torch printed, and no [torch.onnx] progress line of
# the dynamo exporter ("FILE:LINE: TracerWarning: ..."; the source line that follows
# in torch's log needs the model's file, which the corpus keeps elsewhere). A case fxsh cannot load
# or export from its TorchScript IR is counted apart. Fails on any difference or below the floor.
# Skips (77) without the corpus. FXSH_CORPUS_FILTER=substring limits the cases (no floor then).
set -u
: "${FXSH:?}"
corpus=${FXSH_CORPUS:-}
[ -n "$corpus" ] && [ -d "$corpus/fx" ] || { echo "corpus not found (FXSH_CORPUS); skipping"; exit 77; }
# the floors of make check live in tests/floors.txt (an environment variable of the same name overrides)
floor() { sed -n "s/^$1 \([0-9]*\).*/\1/p" "${FXSH_TOP:-$(dirname "$0")/..}/tests/floors.txt"; }
FLOOR=${FLOOR_TRACE:-$(floor FLOOR_TRACE)}
filter=${FXSH_CORPUS_FILTER:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

agree=0 differ=0 noexport=0 warned=0
for d in "$corpus"/fx/*/; do
    c=$(basename "$d")
    [ -n "$filter" ] && case $c in *"$filter"*) ;; *) continue ;; esac
    [ -f "$d/torchscript.txt" ] && [ -f "$d/export_legacy.log" ] && [ -f "$d/io.json" ] || continue
    # --input NAME=DTYPE[SHAPE] of each example input, from io.json's inputs
    inputs=$(sed -n '1,/"outputs"/p' "$d/io.json" | tr -d ' \n' |
        grep -o '"name":"[^"]*","dtype":"[^"]*","shape":\[[^]]*\]' |
        sed -e 's/"name":"\([^"]*\)","dtype":"\([^"]*\)","shape":\[\([^]]*\)\]/--input \1=\2[\3]/' \
            -e 's/=float32\[/=f32[/; s/=float64\[/=f64[/; s/=int64\[/=i64[/; s/=int32\[/=i32[/; s/=bool\[/=b8[/' | tr '\n' ' ')
    # the weights from torch.export's archive, else the legacy model's initializers, else none (a
    # model without parameters): the first the load accepts
    for w in program.pt2 onnx_legacy.onnx ""; do
        [ -z "$w" ] || [ -f "$d/$w" ] || continue
        # shellcheck disable=SC2086
        "$FXSH" -c "load $d/torchscript.txt ${w:+--weights $d/$w} $inputs" \
            -c "export --legacy trace --inputs $d/io.json verbose=False" >"$tmp/out" 2>"$tmp/err"
        grep -q "^-c:1: .*error" "$tmp/err" || break
    done
    if grep -q "^-c:[12]: .*error" "$tmp/err"; then
        noexport=$((noexport + 1))
        continue
    fi
    # torch's warnings, on stderr as Python writes them: the DeprecationWarning of dynamo=False
    # (its text; torch's line starts with the caller's file:line, which fxsh has not), then the
    # TracerWarnings; and none of the dynamo exporter's [torch.onnx] lines (finding 19)
    { sed -n 's/.*\(DeprecationWarning: .*\)/\1/p' "$d/export_legacy.log" | head -1
      grep "TracerWarning" "$d/export_legacy.log"; } >"$tmp/want"
    grep -e "DeprecationWarning" -e "TracerWarning" -e '^\[torch\.onnx\]' "$tmp/err" "$tmp/out" | sed 's/^[^:]*\/\(out\|err\)://' >"$tmp/got"
    if cmp -s "$tmp/want" "$tmp/got"; then
        agree=$((agree + 1))
        grep -q TracerWarning "$tmp/want" && warned=$((warned + 1))
    else
        differ=$((differ + 1))
        echo "  $c: warnings differ from torch's export_legacy.log"
        diff "$tmp/want" "$tmp/got" | sed 's/^/    /' | head -10
    fi
done
echo "export --legacy trace vs torch's tracing: $agree cases print torch's TracerWarnings ($warned of them with warnings), $differ differ, $noexport not exported from TorchScript"
status=0
[ "$differ" -eq 0 ] || status=1
if [ -z "$filter" ] && [ "$agree" -lt "$FLOOR" ]; then
    echo "below the floor of $FLOOR agreeing cases"
    status=1
fi
exit $status
