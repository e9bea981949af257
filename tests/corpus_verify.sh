#!/bin/sh
# corpus_verify.sh — `verify` against the corpus's recorded eager outputs, and its verdicts
# against ONNX Runtime's. For every fx case (io.json) and every ops case (io.npz):
#   torch.onnx's model (onnx_dynamo.onnx): fxsh's verdict vs ONNX Runtime's on the same model
#     (fx: ort_check.txt, set=example, max_abs_diff <= 1e-4 and no RUN/SESSION_FAILED;
#      ops: cases.tsv torch_ort = match);
#   fxsh's own export of program.pt2 (where fxsh exports a model): its verdict vs ONNX Runtime's
#     verdict on torch's model (the eager outputs are the same reference);
#   and, for the ops cases torch.onnx gets right, whether fxsh's model prints exactly as torch's
#     (`save --text` against onnx_dynamo.txt, producer lines aside).
# Prints the agreement counts, lists the disagreements, and fails below the floor. Skips (77)
# without the corpus. FXSH_CORPUS_FILTER=substring limits the cases (no floor then).
set -u
: "${FXSH:?}"
corpus=${FXSH_CORPUS:-}
[ -n "$corpus" ] && [ -d "$corpus/fx" ] && [ -d "$corpus/ops" ] || { echo "corpus not found (FXSH_CORPUS); skipping"; exit 77; }
# the floors of make check live in tests/floors.txt (an environment variable of the same name overrides)
floor() { sed -n "s/^$1 \([0-9]*\).*/\1/p" "${FXSH_TOP:-$(dirname "$0")/..}/tests/floors.txt"; }
FLOOR_TORCH=${FLOOR_TORCH:-$(floor FLOOR_TORCH)}     # agreements on torch.onnx's models (fx + ops)
FLOOR_FXSH=${FLOOR_FXSH:-$(floor FLOOR_FXSH)}       # agreements on fxsh's exports (fx + ops)
FLOOR_TEXT=${FLOOR_TEXT:-$(floor FLOOR_TEXT)}       # ops cases whose fxsh model prints as torch's onnx_dynamo.txt
filter=${FXSH_CORPUS_FILTER:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

agree_t=0 disagree_t=0 skipped_t=0 agree_f=0 disagree_f=0 noexport_f=0 same_text=0
note() { echo "$1" >>"$tmp/notes"; }

# judge CASE ORT_VERDICT EXPECTED_FILE DIR [TEXT]: runs fxsh once (torch's model, then fxsh's
# export) and tallies both verdicts. ORT_VERDICT is pass, fail or none (no verdict recorded).
# With TEXT (torch's printed model), fxsh's export is also saved as text and compared with it.
judge() {
    case_name=$1 ort=$2 expected=$3 dir=$4 text=${5:-}
    set --
    n=0 torch_at=0 export_at=0 fxsh_at=0
    rm -f "$tmp/fxsh.txt"
    if [ -f "$dir/onnx_dynamo.onnx" ]; then
        set -- "$@" -c "load $dir/onnx_dynamo.onnx" -c "verify --expected $expected"
        n=$((n + 2)); torch_at=$n
    fi
    if [ -f "$dir/program.pt2" ]; then
        set -- "$@" -c "load $dir/program.pt2" -c "export verbose=False" -c "verify --expected $expected"
        n=$((n + 3)); export_at=$((n - 1)); fxsh_at=$n
        [ -n "$text" ] && set -- "$@" -c "save $tmp/fxsh.txt --text"
    fi
    [ "$n" -gt 0 ] || return 0
    "$FXSH" "$@" >"$tmp/out" 2>"$tmp/err"
    if [ -n "$text" ] && [ -f "$tmp/fxsh.txt" ] &&
        grep -v '^ *producer_' "$tmp/fxsh.txt" | cmp -s - "$tmp/torch.txt"; then
        same_text=$((same_text + 1))
    fi
    if [ "$torch_at" -gt 0 ] && [ "$ort" != none ]; then
        if grep -q "^-c:$torch_at: .*external data not loaded" "$tmp/err"; then
            skipped_t=$((skipped_t + 1))
        else
            ours=pass; grep -q "^-c:$torch_at:" "$tmp/err" && ours=fail
            if [ "$ours" = "$ort" ]; then agree_t=$((agree_t + 1)); else
                disagree_t=$((disagree_t + 1))
                if [ "$ours" = pass ]; then
                    note "  torch.onnx model $case_name: matches eager in fxsh, not in ONNX Runtime's recorded run"
                else
                    note "  torch.onnx model $case_name: fxsh fail, ONNX Runtime pass: $(grep -m1 "^-c:$torch_at:\|^FAIL" "$tmp/err" "$tmp/out" | sed 's/^[^:]*://' | cut -c1-140)"
                fi
            fi
        fi
    fi
    if [ "$export_at" -gt 0 ] && [ "$ort" != none ]; then
        if grep -q "^-c:$((export_at - 1)):\|^-c:$export_at:" "$tmp/err"; then
            noexport_f=$((noexport_f + 1))
        else
            ours=pass; grep -q "^-c:$fxsh_at:" "$tmp/err" && ours=fail
            if [ "$ours" = "$ort" ]; then agree_f=$((agree_f + 1)); else
                disagree_f=$((disagree_f + 1))
                if [ "$ours" = pass ]; then
                    note "  fxsh export $case_name: matches eager, where torch's model did not in ONNX Runtime"
                else
                    note "  fxsh export $case_name: fxsh fail, ONNX Runtime (torch's model) pass: $(grep -m1 "^-c:$fxsh_at:" "$tmp/err" | cut -c1-140)"
                fi
            fi
        fi
    fi
}

for d in "$corpus"/fx/*/; do
    c=$(basename "$d")
    [ -n "$filter" ] && case $c in *"$filter"*) ;; *) continue ;; esac
    [ -f "$d/io.json" ] || continue
    line=$(grep "^onnx_dynamo.onnx	set=example	" "$d/ort_check.txt" 2>/dev/null | head -1)
    ort=none
    if [ -n "$line" ]; then
        ort=fail
        case $line in *FAILED*) ;; *)
            diff=$(printf '%s\n' "$line" | sed -n 's/.*max_abs_diff=\([^	]*\).*/\1/p')
            awk -v d="$diff" 'BEGIN { exit !(d != "" && d + 0 <= 1e-4) }' && ort=pass ;;
        esac
    fi
    judge "fx/$c" "$ort" "$d/io.json" "$d"
done

while IFS='	' read -r c op aten texport tonnx tort; do
    [ "$c" = case ] && continue
    [ -n "$filter" ] && case $c in *"$filter"*) ;; *) continue ;; esac
    d=$corpus/ops/$c
    [ -f "$d/io.npz" ] || continue
    case $tort in match) ort=pass ;; mismatch|failed) ort=fail ;; *) ort=none ;; esac
    text=
    if [ "$ort" = pass ] && [ -f "$d/onnx_dynamo.txt" ]; then
        grep -v '^ *producer_' "$d/onnx_dynamo.txt" >"$tmp/torch.txt"
        text=$d/onnx_dynamo.txt
    fi
    judge "ops/$c" "$ort" "$d/io.npz" "$d" "$text"
done <"$corpus/ops/cases.tsv"

[ -f "$tmp/notes" ] && cat "$tmp/notes"
echo "verify on torch.onnx's models: $agree_t agree with ONNX Runtime, $disagree_t disagree ($skipped_t skipped: weights not kept)"
echo "verify on fxsh's exports: $agree_f agree with ONNX Runtime's verdict on torch's model, $disagree_f disagree ($noexport_f not exported)"
echo "printed as torch's onnx_dynamo.txt: $same_text ops cases"
echo "corpus verify: $((agree_t + agree_f)) agreements with ONNX Runtime's verdict"
[ -n "$filter" ] && exit 0
status=0
[ "$agree_t" -ge "$FLOOR_TORCH" ] || { echo "below the floor of $FLOOR_TORCH agreements on torch.onnx's models"; status=1; }
[ "$agree_f" -ge "$FLOOR_FXSH" ] || { echo "below the floor of $FLOOR_FXSH agreements on fxsh's exports"; status=1; }
[ "$same_text" -ge "$FLOOR_TEXT" ] || { echo "below the floor of $FLOOR_TEXT models printed as torch's"; status=1; }
exit $status
