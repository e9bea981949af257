#!/bin/sh
# op_population.sh — a sampled slice of the op population (OpInfo entries in several dtypes,
# exported by torch.export static and with every dim dynamic; scripts/dev/op_population.py made
# them, see tests/fixtures/op_population/README.md): each case exports, passes fxsh's checker and
# fxsh's evaluation matches eager PyTorch's outputs (io.npz; for a dynamic case io2.npz too, at a
# second size of every dynamic dim). Every case listed in passing.txt must pass — the floor only
# rises: a case that starts passing is added there; the others are reported.
set -u
: "${FXSH:?}"
top=${FXSH_TOP:-.}
fix=$top/tests/fixtures/op_population
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 regress=0 new=0
for d in "$fix"/*/; do
    c=$(basename "$d")
    ok=1
    # the population's tolerances: 16-bit floats compare at 1e-2
    case $c in *__float16__*|*__bfloat16__*) tol="--atol 1e-2 --rtol 1e-2" ;; *) tol="" ;; esac
    "$FXSH" -q -bail -c "load ${d}program.pt2" -c "export verbose=False" -c check \
        -c "verify --expected ${d}io.npz $tol" >"$tmp/out" 2>&1 || ok=0
    if [ $ok = 1 ] && [ -f "${d}io2.npz" ]; then
        "$FXSH" -q -bail -c "load ${d}program.pt2" -c "export verbose=False" \
            -c "verify --expected ${d}io2.npz $tol" >>"$tmp/out" 2>&1 || ok=0
    fi
    listed=0
    grep -qx "$c" "$fix/passing.txt" && listed=1
    if [ $ok = 1 ]; then
        pass=$((pass + 1))
        [ $listed = 0 ] && { new=$((new + 1)); echo "now passes (add it to passing.txt): $c"; }
    else
        fail=$((fail + 1))
        if [ $listed = 1 ]; then
            regress=$((regress + 1))
            echo "FAIL $c (listed in passing.txt):"
            sed 's/^/  /' "$tmp/out" | tail -n 8
        fi
    fi
done
floor=$(grep -c . "$fix/passing.txt")
echo "op population slice: $pass of $((pass + fail)) cases pass (floor $floor), $regress listed cases fail, $new newly passing"
[ "$pass" -gt 0 ] && [ "$regress" -eq 0 ] && [ "$pass" -ge "$floor" ]
