#!/bin/sh
# data_dependent.sh — values read out of tensors at export time, against torch.export's verdicts
# (tests/fixtures/data_dependent/verdicts.tsv, made by scripts/dev/data_dependent_verdicts.py with
# torch 2.14 from model.py): int(t) and float(t) of a computed tensor fail as torch.export fails
# (GuardOnDataDependentSymNode's first line, the partial graph's item line, the source line);
# t.item() exports — as a number, as a slice bound (a new unbacked size u1), after torch._check
# calls (the size is u0 itself) — and so do nonzero, boolean-mask indexing x[x > 0] and
# masked_select (sizes u0 torch cannot know), with the ONNX ops and signature torch.onnx writes
# (its onnx_dynamo.txt, where it makes a model: not for masked_select) and eager's outputs.
set -u
: "${FXSH:?FXSH must point at the fxsh binary}"
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
F=tests/fixtures/data_dependent
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1 LC_ALL=C FXSH_HISTFILE=/dev/null
passed=0 failed=0
tab=$(printf '\t')
fail() { failed=$((failed + 1)); echo "FAIL $model: $1"; }
while IFS="$tab" read -r model outcome message <&3; do
    [ "$model" = model ] && continue
    (cd "$top" && timeout 30 "$FXSH" -q -c "load $F/$model.torchscript.txt --input x=f32[2,8] --input lengths=i64[2]" \
        -c "export verbose=True" -c check -c "verify --expected $F/$model.io.npz" -c "show optimized") \
        >"$tmp/out" 2>&1 </dev/null
    rc=$?
    if [ "$outcome" = ok ]; then
        peer=$top/$F/$model.onnx_dynamo.txt   # absent where torch.onnx fails (masked_select)
        # the op types of torch.onnx's graph, in order, and fxsh's; the signatures with unbacked
        # symbols numbered alike (torch.onnx renumbers them when it traces again: u3 for fxsh's u0)
        # (as a sorted list: torch's program computes an unbacked size's sym_size and its runtime
        # assertions right where the size appears, fxsh's where it is used)
        [ -f "$peer" ] && sed -n 's/^ *\[[^]]*\] [^=]*= \([A-Za-z]*\) .*/\1/p' "$peer" | sort >"$tmp/want"
        sed -n 's/^ *\[[^]]*\] [^=]*= \([A-Za-z]*\) .*/\1/p' "$tmp/out" | sort >"$tmp/got"
        # (and without value names: torch.onnx names outputs mul_1 where torch.export says mul)
        sig_got=$(grep '^main_graph' "$tmp/out" | sed -e 's/\bu[0-9][0-9]*\b/u#/g' -e 's/\(\]\|float\|int64\) [A-Za-z_][A-Za-z0-9_]*/\1/g' -e 's/ *$//')
        sig_want=$([ -f "$peer" ] && grep '^main_graph' "$peer" | sed -e 's/\bu[0-9][0-9]*\b/u#/g' -e 's/\(\]\|float\|int64\) [A-Za-z_][A-Za-z0-9_]*/\1/g' -e 's/ *$//')
        if [ "$rc" -ne 0 ]; then fail "torch exports, fxsh fails: $(grep error "$tmp/out" | head -3)"
        elif ! grep -q '^check: ok' "$tmp/out"; then fail "check did not pass"
        elif ! grep -q '^verify: 1 output within' "$tmp/out"; then fail "not eager's outputs"
        elif [ -f "$peer" ] && ! cmp -s "$tmp/want" "$tmp/got"; then fail "ops $(tr '\n' ' ' <"$tmp/got")differ from torch.onnx's $(tr '\n' ' ' <"$tmp/want")"
        elif [ -f "$peer" ] && [ "$sig_got" != "$sig_want" ]; then fail "signature $sig_got, torch.onnx's $sig_want"
        else passed=$((passed + 1))
        fi
        continue
    fi
    case $model in float_*) sym=zuf0 ;; *) sym=u0 ;; esac
    if [ "$rc" -eq 0 ]; then fail "torch fails ($message), fxsh exports"
    elif ! grep -qF "$message" "$tmp/out"; then fail "not torch's message: $message; fxsh: $(head -c 400 "$tmp/out")"
    elif ! grep -qF "item: \"Sym($sym)\" = torch.ops.aten.item.default(" "$tmp/out"; then fail "no partial graph ending in item"
    elif ! grep -qF "File \"$F/model.py\", line" "$tmp/out"; then fail "no source line"
    elif ! grep -q 'This is step 1/3' "$tmp/out"; then fail "not at torch.export (step 1/3)"
    else passed=$((passed + 1))
    fi
done 3<"$top/$F/verdicts.tsv"
# a slice to an unbacked end has a length of its own (u1), one after torch._check calls is the
# end itself (u0), as torch numbers them
for pair in "item_slice float[2,u1]" "item_checked float[2,u0]"; do
    model=${pair% *}
    (cd "$top" && "$FXSH" -q -c "load $F/$model.torchscript.txt --input x=f32[2,8] --input lengths=i64[2]" \
        -c "export verbose=False" -c "show optimized") >"$tmp/out" 2>&1 </dev/null
    if grep '^main_graph' "$tmp/out" | grep -qF "=> (${pair#* } slice_1)"; then passed=$((passed + 1))
    else fail "output not ${pair#* }: $(grep '^main_graph' "$tmp/out")"
    fi
done
echo "data-dependent values: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -eq 12 ]
