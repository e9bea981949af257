#!/bin/sh
# models.sh — models users bring (transformers, torchaudio, torchvision; scripts/dev/models/*.py) through
# torch and fxsh: torch-case.py makes program.pt2, io.npz and torch.onnx's own export; fxsh loads
# program.pt2, exports and saves fxsh.onnx; onnx-check runs check_model(full_check=True) and compares
# ONNX Runtime's outputs with torch eager (io.npz). One line per model. Developer measurement, not
# part of `make check` (needs the onnx-env chroot with torch, transformers and torchaudio, and root).
#   sh scripts/dev/models.sh [OUT [MODEL...]]    run from the build directory; OUT defaults to models.out
#   FXSH (./fxsh)  TOOLS (../shared/tools)  ATOL (1e-4)  REUSE=1 keeps OUT/NAME/ from an earlier run
set -u
fxsh=${FXSH:-./fxsh}
tools=$(cd "${TOOLS:-../shared/tools}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-models.out}; [ $# -gt 0 ] && shift
mkdir -p "$out" && out=$(cd "$out" && pwd)
atol=${ATOL:-1e-4}
if [ $# -eq 0 ]; then set -- $(cd "$here/models" && ls *.py | sed 's/\.py$//'); fi
# IO.json for onnx-check: one data-less entry per array in io.npz (read from the io.npz beside it)
io_json() {
    ni=$(unzip -l "$1/io.npz" | grep -c ' input_[0-9]*\.npy$')
    no=$(unzip -l "$1/io.npz" | grep -c ' output_[0-9]*\.npy$')
    { printf '{"inputs": ['; i=0; while [ $i -lt "$ni" ]; do [ $i -gt 0 ] && printf ', '; printf '{}'; i=$((i + 1)); done
      printf '], "outputs": ['; i=0; while [ $i -lt "$no" ]; do [ $i -gt 0 ] && printf ', '; printf '{}'; i=$((i + 1)); done
      printf ']}\n'; } > "$1/io.json"
}
# the largest max_abs_diff onnx-check printed, or the failure
ort_line() {
    r=$("$tools/onnx-check" run "$1" "$2" --atol "$atol" 2>&1)
    d=$(echo "$r" | sed -n 's/.*max_abs_diff[ =:]*\([-0-9.eE+naif]*\).*/\1/p' | sort -g | tail -n 1)
    case "$r" in *" 0 failed"*) echo "match ${d:-?}" ;; *) echo "DIFFER ${d:-?}: $(echo "$r" | grep -v '^ok\|passed' | head -n 1 | cut -c1-80)" ;; esac
}
printf '%-16s | %-22s | %-34s | %-8s | %s\n' model torch.onnx "fxsh export" checker "fxsh in ORT vs eager"
for m in "$@"; do
    d=$out/$m
    if [ "${REUSE:-0}" != 1 ] || [ ! -f "$d/status.json" ]; then
        rm -rf "$d"; mkdir -p "$d"
        "$tools/onnx-env-run" python3 "$tools/torch-case.py" "$here/models/$m.py" "$d" > "$d/torch-case.log" 2>&1
    fi
    [ -f "$d/io.npz" ] && io_json "$d"
    st=$(cat "$d/status.json" 2>/dev/null | tr -d "\n")
    case "$st" in
    *'"torch.onnx.export": "ok"'*)
        td=$(echo "$st" | sed -n 's/.*"onnxruntime_vs_eager_max_abs_diff": \([-0-9.eE+naif]*\).*/\1/p')
        tor="ok, ORT $(printf %.2e "${td:-nan}" 2>/dev/null || echo "${td:-?}")" ;;
    *'"torch.onnx.export"'*) tor="FAILED" ;;
      *) tor="no status.json" ;;
    esac
    if [ ! -f "$d/program.pt2" ]; then
        printf '%-16s | %-22s | %s\n' "$m" "$tor" "torch.export failed (see $d/status.json or torch-case.log)"; continue
    fi
    rm -f "$d/fxsh.onnx"
    if "$fxsh" -bail -c "load $d/program.pt2" -c 'export verbose=False' -c "save $d/fxsh.onnx" > "$d/fxsh.log" 2>&1; then
        fx=ok
        ck=$("$tools/onnx-check" check "$d/fxsh.onnx" 2>&1 | tail -n 1 | cut -c1-60)
        run=$(ort_line "$d/fxsh.onnx" "$d/io.json")
    else
        fx="FAILED: $(grep -m1 'error' "$d/fxsh.log" | cut -c1-120)"; ck=-; run=-
    fi
    printf '%-16s | %-22s | %-34s | %-8s | %s\n' "$m" "$tor" "$fx" "$ck" "$run"
done
