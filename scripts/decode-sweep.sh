#!/bin/sh
# decode-sweep.sh — one decoding step with a key/value cache for every transformers causal-LM
# model type (scripts/dev/decode_sweep.py makes them in the reference environment), through fxsh:
# export and check, the step against eager (a prefill of 4 tokens after a past of 3), then
# `verify --decode 8` of fxsh's model against the exported program from an empty cache, and of
# torch.onnx's model against it from the eager step's inputs. A developer's measurement: root and
# ../shared/tools/onnx-env-setup --torch.
#   sh scripts/decode-sweep.sh OUT [--models RE]      (run from the build directory; fxsh there)
#   OUT/summary.txt: a line per model type and the totals
set -u
[ $# -ge 1 ] || { sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 2; }
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
tools=$(cd "${TOOLS:-$here/../../shared/tools}" && pwd)
fxsh=${FXSH:-$(pwd)/fxsh}
mkdir -p "$out" && out=$(cd "$out" && pwd)
[ "${GEN:-1}" = 0 ] || (cd "$here" && "$tools/onnx-env-run" python3 "$here/dev/decode_sweep.py" "$out" "$@") || exit 1
summary=$out/summary.txt
: >"$summary"
n=0 exported=0 peer=0 ok_eager=0 ok_decode=0 ok_peer=0
for d in "$out"/*/; do
    mt=$(basename "$d")
    [ -f "$d/case.json" ] || continue
    n=$((n + 1))
    te=$(sed -n 's/.*"torch_export": "\([^"]*\)".*/\1/p' "$d/case.json" | cut -c1-60)
    to=$(sed -n 's/.*"torch_onnx": "\([^"]*\)".*/\1/p' "$d/case.json" | cut -c1-60)
    skip=$(sed -n 's/.*"\(skip\|model\)": "\([^"]*\)".*/\2/p' "$d/case.json" | cut -c1-80)
    if [ ! -f "$d/program.pt2" ]; then
        printf '%-28s torch.export: %s\n' "$mt" "${te:-${skip:-no program}}" >>"$summary"
        continue
    fi
    exported=$((exported + 1))
    [ "$to" = ok ] && peer=$((peer + 1))
    timeout 300 "$fxsh" -q -c "load ${d}program.pt2" -c "export verbose=False" -c check \
        -c "verify --expected ${d}io.npz" >"$d/fxsh.out" 2>&1
    eager=$?
    timeout 300 "$fxsh" -q -c "load ${d}program.pt2" -c "export verbose=False" \
        -c "verify optimized exported --decode 8" >"$d/decode.out" 2>&1
    dec=$?
    pr=-
    if [ -f "$d/torch_onnx.onnx" ]; then
        timeout 300 "$fxsh" -q -c "load ${d}program.pt2" -c "export verbose=False" \
            -c "verify ${d}torch_onnx.onnx exported --decode 8 --inputs ${d}io.npz" >"$d/peer.out" 2>&1
        pr=$?
    fi
    [ "$eager" = 0 ] && ok_eager=$((ok_eager + 1))
    [ "$dec" = 0 ] && ok_decode=$((ok_decode + 1))
    [ "$pr" = 0 ] && ok_peer=$((ok_peer + 1))
    why=$( { [ "$eager" = 0 ] || grep -m1 error "$d/fxsh.out"; [ "$dec" = 0 ] || grep -m1 error "$d/decode.out"; } | head -1 | cut -c1-150)
    printf '%-28s torch.onnx %-4s fxsh+eager %-4s decode %-4s torch.onnx-decode %-4s %s\n' "$mt" "${to%%:*}" \
        "$([ "$eager" = 0 ] && echo ok || echo FAIL)" "$([ "$dec" = 0 ] && echo ok || echo FAIL)" \
        "$([ "$pr" = 0 ] && echo ok || { [ "$pr" = - ] && echo - || echo FAIL; })" "$why" >>"$summary"
done
printf '\n%d model types; torch.export made a decoding step of %d; torch.onnx exported %d\n' "$n" "$exported" "$peer" >>"$summary"
printf 'fxsh: %d of %d match eager at the step, %d of %d agree with their exported program over 8 decoding steps, %d of %d peers agree with it\n' \
    "$ok_eager" "$exported" "$ok_decode" "$exported" "$ok_peer" "$peer" >>"$summary"
tail -3 "$summary"
