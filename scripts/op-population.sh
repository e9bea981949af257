#!/bin/sh
# op-population.sh — fxsh on the op population torch enumerates (every OpInfo entry, dtype, sample,
# static and dynamic; scripts/dev/op_population.py), judged with the real onnx checker and ONNX
# Runtime against eager PyTorch, with torch.onnx as the peer. A developer's measurement: it needs
# root and ../shared/tools/onnx-env-setup --torch; `make check` has its own sampled slice.
#   sh scripts/op-population.sh OUT [GEN OPTIONS]   run from the build directory: makes the cases
#                                                   (gen; existing ones are kept), runs fxsh, judges
#   GEN=0 sh scripts/op-population.sh OUT           only fxsh and the judge (make op-population)
#   JOBS (2) fxsh runs at once; FXSH (./fxsh); TOOLS (../shared/tools)
# Writes OUT/summary.txt (a line per case, then the totals per dtype and mode) and OUT/ops.tsv.
set -u
[ $# -ge 1 ] || { sed -n '2,10s/^# \{0,1\}//p' "$0"; exit 2; }
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
tools=$(cd "${TOOLS:-$here/../../shared/tools}" && pwd)
fxsh=$(cd "$(dirname "${FXSH:-./fxsh}")" && pwd)/$(basename "${FXSH:-./fxsh}")
mkdir -p "$out" && out=$(cd "$out" && pwd)
start=$(date +%s)
if [ "${GEN:-1}" != 0 ]; then
    (cd "$here" && "$tools/onnx-env-run" python3 "$here/dev/op_population.py" gen "$out" "$@") || exit 1
fi
gen_done=$(date +%s)
# one fxsh process per case that torch.export made a program of (a failed save leaves no file)
run_one='d=$2; rm -f "$d/fxsh.onnx"
if msg=$(timeout 120 "$1" -c "load $d/program.pt2" -c export -c "save $d/fxsh.onnx" -c "show optimized" 2>&1 >"$d/fxsh.txt"); then
    echo ok > "$d/fxsh.status"
else
    st=$(echo "$msg" | grep -m1 -i "error" | cut -c1-200)
    echo "${st:-failed}" > "$d/fxsh.status"
fi'
for d in "$out"/*/; do [ -f "$d/program.pt2" ] && printf '%s\n' "${d%/}"; done |
    xargs -P "${JOBS:-2}" -n 1 sh -c "$run_one" run_one "$fxsh"
fxsh_done=$(date +%s)
(cd "$here" && "$tools/onnx-env-run" python3 "$here/dev/op_population.py" judge "$out" --tsv "$out/ops.tsv") > "$out/summary.txt" 2> "$out/judge.log" || exit 1
end=$(date +%s)
sed -n '/^dtype\/mode/,$p' "$out/summary.txt"
echo "op-population: gen $((gen_done - start)) s, fxsh $((fxsh_done - gen_done)) s, judge $((end - fxsh_done)) s; $out/summary.txt, $out/ops.tsv"
