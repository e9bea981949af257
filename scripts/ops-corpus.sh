#!/bin/sh
# ops-corpus.sh — fxsh on PyTorch's OpInfo one-op corpus (../shared/corpus/ops), judged by the real
# onnx checker and ONNX Runtime: each case's program.pt2 is loaded, exported and saved by fxsh,
# then scripts/dev/ops_corpus.py (in the onnx-env chroot) checks every model, runs it on io.npz
# and compares the text with torch's onnx_dynamo.txt. A developer's measurement (needs root and
# ../shared/tools/onnx-env-setup); `make check` has its own test without them.
#   sh scripts/ops-corpus.sh [OUT]      run from the build directory; OUT keeps the models
set -u
corpus=${FXSH_CORPUS:-$(cd "$(dirname "$0")/../../shared/corpus" && pwd)}
out=${1:-$(mktemp -d)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
for d in "$corpus"/ops/*/; do
    c=$(basename "$d")
    [ -f "$d/program.pt2" ] || continue
    mkdir -p "$out/$c"
    if msg=$(timeout 60 ./fxsh -c "load $d/program.pt2" -c export -c "save $out/$c/fxsh.onnx" \
                 -c "show optimized" 2>&1 >"$out/$c/fxsh.txt"); then
        echo ok > "$out/$c/status"
    else
        echo "$msg" | grep -m1 -i 'error' | cut -c1-200 > "$out/$c/status"
        [ -s "$out/$c/status" ] || echo "failed" > "$out/$c/status"
    fi
done
"$corpus/../tools/onnx-env-run" python3 "$(cd "$(dirname "$0")" && pwd)/dev/ops_corpus.py" "$corpus/ops" "$out"
