#!/bin/sh
# ops-ort.sh — the lowering cases (tests/fixtures/ops/lowerings) against the real onnx checker and
# ONNX Runtime: test_ops_lowerings dumps every case with expected outputs as a model and an IO
# file (FXSH_OPS_DUMP), then shared/tools/onnx-check runs check_model(full_check=True) and
# compares ONNX Runtime's outputs with the hand-derived values (atol 1e-4). A developer's
# measurement, not part of `make check` (it needs the chroot made by onnx-env-setup, and root).
#   sh scripts/ops-ort.sh          run from the build directory after `make check` built the test
set -u
corpus=${FXSH_CORPUS:-../shared/corpus}
check=${ONNX_CHECK:-$corpus/../tools/onnx-check}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FXSH_OPS_DUMP=$tmp ./tests/unit/translate/test_ops_lowerings >/dev/null 2>&1
n=0 ok=0
for m in "$tmp"/*.onnx; do
    c=$(basename "$m" .onnx)
    n=$((n + 1))
    ck=$("$check" check "$m" 2>&1 | tail -n 1)
    run=$("$check" run "$m" "$tmp/$c.json" --atol 1e-4 2>&1 | tail -n 1)
    case "$ck/$run" in
    ok/*" 0 failed") ok=$((ok + 1)) ;;
    *) printf '%-40s %s | %s\n' "$c" "$(echo "$ck" | cut -c1-40)" "$(echo "$run" | cut -c1-80)" ;;
    esac
done
echo "$ok/$n lowering cases: check ok and ONNX Runtime outputs within 1e-4 of the expected values"
