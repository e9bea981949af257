#!/bin/sh
# zoo-sweep.sh — the model zoos as their libraries enumerate them (torchvision.models.list_models(),
# transformers' causal-LM model types from tiny configs, torchaudio.models; scripts/dev/zoo_sweep.py) through
# torch.export, torch.onnx, fxsh, onnx's full checker and ONNX Runtime against eager, static and
# with a dynamic batch (checked at a second batch). A developer's measurement: root and
# ../shared/tools/onnx-env-setup --torch.
#   sh scripts/zoo-sweep.sh OUT [--lib torchvision,transformers,torchaudio] [--models RE] [--max-params N]
#   run from the build directory; OUT/summary.txt holds a line per model and the totals per
#   library and mode (the judge of scripts/op-population.sh: "dtype" is the library there)
set -u
[ $# -ge 1 ] || { sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 2; }
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
tools=$(cd "${TOOLS:-$here/../../shared/tools}" && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)
start=$(date +%s)
(cd "$here" && "$tools/onnx-env-run" python3 "$here/dev/zoo_sweep.py" gen "$out" "$@") || exit 1
echo "zoo-sweep: models made in $(( $(date +%s) - start )) s"
GEN=0 exec sh "$here/op-population.sh" "$out"
