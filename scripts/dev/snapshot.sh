#!/bin/sh
# snapshot.sh — everything fxsh prints for the whole reference corpus, one file per case and input
# form, for byte-for-byte comparison across a refactoring:
#   sh scripts/dev/snapshot.sh OUT [FXSH]      then   diff -r OUT.before OUT.after
# Each FX, torch.export and TorchScript input is loaded, exported (every stage printed, stdout and
# stderr both kept, exit status last), and saved; each ONNX model is loaded, printed and checked;
# the ops corpus's programs are exported and printed. Needs ../shared/corpus (or FXSH_CORPUS).
set -u
out=${1:?usage: snapshot.sh OUT [FXSH]}
fxsh=${2:-./fxsh}
corpus=${FXSH_CORPUS:-$(dirname "$0")/../../../shared/corpus}
[ -d "$corpus/fx" ] || { echo "snapshot: no corpus at $corpus" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME CMD...: fxsh's stdout, stderr and status into OUT/NAME; the saved model's bytes too
run() {
    name=$1
    shift
    "$fxsh" "$@" >"$out/$name" 2>"$tmp/err"
    rc=$?
    { echo "--- stderr"; cat "$tmp/err"; echo "--- status $rc"; } >>"$out/$name"
    if [ -f "$tmp/m.onnx" ]; then
        { echo "--- saved"; od -An -tx1 -v "$tmp/m.onnx" | md5sum; } >>"$out/$name"
        rm -f "$tmp/m.onnx"
    fi
}

stages='-c stages -c show\ exported -c show\ decomposed -c show\ onnx -c show\ optimized'
for d in "$corpus"/fx/*/; do
    c=$(basename "$d")
    inputs=$(sed -n '1,/"outputs"/p' "$d/io.json" 2>/dev/null | tr -d ' \n' |
        grep -o '"name":"[^"]*","dtype":"[^"]*","shape":\[[^]]*\]' |
        sed -e 's/"name":"\([^"]*\)","dtype":"\([^"]*\)","shape":\[\([^]]*\)\]/--input \1=\2[\3]/' \
            -e 's/=float32\[/=f32[/; s/=float64\[/=f64[/; s/=int64\[/=i64[/; s/=int32\[/=i32[/; s/=bool\[/=b8[/' | tr '\n' ' ')
    for f in program.pt2 exported.fx.txt exported.readable.txt exported.program.txt torch_level.fx.txt torch_level.module.txt; do
        [ -f "$d/$f" ] || continue
        extra=
        case $f in torch_level.*) extra=$inputs ;; esac
        eval run "fx.$c.$f" -c "'load $d/$f $extra'" -c export $stages -c "'save $tmp/m.onnx'"
    done
    if [ -f "$d/torchscript.txt" ]; then
        w=
        [ -f "$d/program.pt2" ] && w="--weights $d/program.pt2"
        eval run "fx.$c.torchscript" -c "'load $d/torchscript.txt $w $inputs'" -c export -c "'show exported code'" $stages -c "'save $tmp/m.onnx'"
        eval run "fx.$c.legacy_script" -c "'load $d/torchscript.txt $w $inputs'" -c "'export --legacy script'" -c "'show optimized'"
        eval run "fx.$c.lint" -c "'load $d/torchscript.txt $w $inputs'" -c lint
    fi
    for m in onnx_dynamo.onnx onnx_dynamo_opt.onnx; do
        [ -f "$d/$m" ] && run "fx.$c.$m" -c "load $d/$m" -c show -c check -c step
    done
done
for d in "$corpus"/ops/*/; do
    c=$(basename "$d")
    [ -f "$d/program.pt2" ] || continue
    run "ops.$c" -c "load $d/program.pt2" -c "export verbose=False" -c "show decomposed" -c "show optimized" -c check
done
for m in "$corpus"/onnx_text/*/*/model.onnx; do
    g=$(basename "$(dirname "$(dirname "$m")")") t=$(basename "$(dirname "$m")")
    run "onnx.$g.$t" -c "load $m" -c show -c check
done
# the rule files' folder differs between trees: name it <share>
find "$out" -type f -exec sed -i 's#/[^ :]*/share/fxsh/#<share>/#g' {} +
echo "snapshot: $(ls "$out" | wc -l) files in $out"
