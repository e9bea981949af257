#!/bin/sh
# model_fixtures.sh — every model of tests/fixtures/models (programs torch.export made of small
# transformers / torchaudio models and indexing / weight-norm / type-promotion cases) exports,
# passes fxsh's checker, and fxsh's evaluation of the export matches eager PyTorch's outputs
# recorded in its io.npz (atol 1e-4, rtol 1e-3, or the fixture's tolerance file).
set -u
: "${FXSH:?}"
top=${FXSH_TOP:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for d in "$top"/tests/fixtures/models/*/; do
    name=$(basename "$d")
    # tolerance: a fixture's tolerance file (bfloat16 models, whose rounding torch's kernels and
    # ONNX's ops place differently) holds verify's --atol / --rtol
    tol=$(cat "${d}tolerance" 2>/dev/null)
    if "$FXSH" -q -bail -c "load ${d}program.pt2" -c "export verbose=False" -c check \
        -c "verify --expected ${d}io.npz $tol" >"$tmp/out" 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name:"
        sed 's/^/  /' "$tmp/out" | head -20
    fi
done
echo "model fixtures: $pass exported and match eager, $fail failed"
[ "$pass" -gt 0 ] && [ "$fail" -eq 0 ]
