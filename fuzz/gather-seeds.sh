#!/bin/sh
# gather-seeds.sh — seed corpora for the fuzz harnesses, from the shared reference corpus
# ($FXSH_CORPUS, default ../shared/corpus) and the test fixtures, into fuzz/seeds/<harness>/
# (not committed). Files over 1 MB are left out: libFuzzer mutates small inputs best.
#   sh fuzz/gather-seeds.sh [SEED_DIR]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
corpus=${FXSH_CORPUS:-$top/../shared/corpus}
out=${1:-$top/fuzz/seeds}
[ -d "$corpus" ] || echo "gather-seeds: no corpus at $corpus (FXSH_CORPUS); seeding from the fixtures only" >&2

# add HARNESS FILE...: copies each small regular file, named by a hash of its content.
add() {
    h=$1
    shift
    mkdir -p "$out/$h"
    for f in "$@"; do
        [ -f "$f" ] || continue
        [ "$(wc -c < "$f")" -le 1048576 ] || continue
        cp "$f" "$out/$h/$(cksum < "$f" | tr ' ' '-')"
    done
}

c=$corpus
add fx_graph "$c"/fx/*/*.fx.txt "$top"/tests/fixtures/fx/*.fx.txt "$top"/tests/fixtures/*/*.fx.txt
add fx_code "$c"/fx/*/*.readable.txt "$top"/tests/fixtures/fx/*.readable.txt "$top"/tests/fixtures/*/*.readable.txt "$c"/fx/*/*.program.txt "$top"/tests/fixtures/ep/*.program.txt
add fx_module "$c"/fx/*/*.module.txt "$top"/tests/fixtures/*/*.module.txt "$top"/tests/fixtures/fuzz/findings/module_*.txt
add torchscript "$c"/fx/*/torchscript.txt "$top"/tests/fixtures/cflow/*.torchscript.txt "$top"/tests/fixtures/fuzz/findings/ts_*.txt
add pt2 "$c"/fx/*/program.pt2 "$c"/fx/*/program.json "$top"/tests/fixtures/pt2/*.pt2 "$top"/tests/fixtures/fuzz/findings/*.pt2
add onnx_pb "$c"/fx/*/onnx_*.onnx "$top"/tests/fixtures/onnx/*.onnx "$top"/tests/fixtures/fuzz/findings/onnx_*.onnx
# the ONNX backend-test models: their protobufs, and their printed text for the text parser
for d in "$c"/onnx_text/*/; do
    [ -d "$d" ] || continue
    n=0
    for m in "$d"*/; do
        n=$((n + 1))
        [ $((n % 8)) -eq 1 ] || continue   # every 8th model: enough variety, a corpus that mutates fast
        add onnx_pb "$m/model.onnx"
        add onnx_text "$m/expected.txt"
    done
done
add onnx_text "$c"/fx/*/onnx_*.txt "$top"/tests/fixtures/onnxtext/*
add yaml "$top"/share/fxsh/*/*.yaml "$top"/tests/fixtures/ops/*.yaml "$top"/tests/fixtures/fuzz/findings/*.yaml
add weights "$c"/fx/mlp/program.pt2 "$c"/fx/mlp/onnx_dynamo.onnx "$c"/fx/conv_bn_relu/program.pt2 \
    "$top"/tests/fixtures/fuzz/findings/weights_* "$top"/tests/fixtures/cflow/*.onnx
# value files: the corpus's io.json, the backend tests' .pb inputs/outputs, the test fixtures' .npz/.npy
add values "$c"/fx/*/io.json "$top"/tests/fixtures/eval/*.json "$top"/tests/fixtures/eval/*.np[yz]
for t in abs cast_FLOAT_to_FLOAT16 sequence_insert_at_back optional_get_element_sequence gather_0 where_example; do
    add values /usr/share/libonnx-testdata/data/node/test_$t/test_data_set_0/*.pb
done
# the whole pipeline: a program of each kind (torch-level text, TorchScript, archives, ATen text) and
# torch.onnx's models
add pipeline "$c"/fx/*/program.pt2 "$c"/fx/*/torch_level.module.txt "$c"/fx/*/torchscript.txt \
    "$c"/fx/*/exported.fx.txt "$c"/fx/*/exported.readable.txt "$c"/fx/*/onnx_dynamo.onnx "$top"/tests/fixtures/pt2/*.pt2
for d in "$c"/ops/*/; do   # every 16th one-op program
    n=$((${n:-0} + 1))
    [ $((n % 16)) -eq 1 ] && add pipeline "$d/program.pt2"
done
# saved crash inputs seed their harness too
for d in "$top"/tests/fixtures/fuzz/*/; do
    h=$(basename "$d")
    [ "$h" = findings ] || add "$h" "$d"*
done
for h in "$out"/*/; do echo "seeds: $(basename "$h"): $(ls "$h" | wc -l) files"; done
