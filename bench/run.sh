#!/bin/sh
# bench/run.sh — `make bench`: how fxsh's work grows with graph size (it must stay linear).
# Generates FX graphs of N nodes (a chain of relu/add), then times whole fxsh runs (process start
# included): load alone, load + show, load + export (every stage); also the corpus's
# transformer_stack program when ../shared/corpus is there. Per-pass times: bench/bench_passes.
set -eu
FXSH=${1:-./fxsh}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

gen_graph() { # N -> FX graph text with N call_function nodes
    awk -v n="$1" 'BEGIN {
        print "graph():"
        prev = "x"; users_x = 1
        lines = ""
        for (i = 1; i <= n; i++) {
            if (i % 2) { name = "relu_" i; line = sprintf("    %%%s : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%%%s,), kwargs = {})", name, prev) }
            else { name = "add_" i; users_x++; line = sprintf("    %%%s : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%%%s, %%x), kwargs = {})", name, prev) }
            out[i] = line; prev = name
        }
        printf "    %%x : [num_users=%d] = placeholder[target=x]\n", users_x
        for (i = 1; i <= n; i++) print out[i]
        printf "    return (%s,)", prev
    }'
}

printf '%-28s %8s %10s %12s %14s\n' "input" "nodes" "load ms" "+show ms" "+export ms"
for n in 1000 4000 16000; do
    gen_graph "$n" > "$tmp/g$n.fx.txt"
    t0=$(now_ms); "$FXSH" -c "load $tmp/g$n.fx.txt" >/dev/null; t1=$(now_ms)
    "$FXSH" -c "load $tmp/g$n.fx.txt" -c show >/dev/null; t2=$(now_ms)
    "$FXSH" -c "set inputs x=f32[4,8]" -c "load $tmp/g$n.fx.txt" -c "export verbose=False" >/dev/null 2>&1 || true; t3=$(now_ms)
    printf '%-28s %8d %10d %12d %14d\n' "chain relu/add" "$n" $((t1 - t0)) $((t2 - t1)) $((t3 - t2))
done
corpus=${FXSH_CORPUS:-$(dirname "$0")/../../shared/corpus}
if [ -f "$corpus/fx/transformer_stack/program.json" ]; then
    j=$corpus/fx/transformer_stack/program.json
    t0=$(now_ms); "$FXSH" -c "load $j" >/dev/null; t1=$(now_ms)
    "$FXSH" -c "load $j" -c "show code" >/dev/null; t2=$(now_ms)
    "$FXSH" -c "load $j" -c "export verbose=False" >/dev/null 2>&1 || true; t3=$(now_ms)
    printf '%-28s %8s %10d %12d %14d\n' "transformer_stack (json)" "708" $((t1 - t0)) $((t2 - t1)) $((t3 - t2))
fi

# Printing weights: `show` of a model with 100 MB of float weights (bench/gen_model), in MB of
# ONNX text per second; the text is byte for byte onnx.printer.to_text's.
gen=$(dirname "$FXSH")/bench/gen_model
if [ -x "$gen" ]; then
    "$gen" "$tmp/w100.onnx" 100
    t0=$(now_ms); "$FXSH" -c "load $tmp/w100.onnx" >/dev/null; t1=$(now_ms)
    bytes=$("$FXSH" -c "load $tmp/w100.onnx" -c show | wc -c); t2=$(now_ms)
    show_ms=$(( (t2 - t1) - (t1 - t0) ))
    [ "$show_ms" -gt 0 ] || show_ms=1
    printf '\n%-28s %10s %10s %12s %10s\n' "model" "weights" "load ms" "show ms" "MB/s"
    printf '%-28s %10s %10d %12d %10d\n' "MatMul chain (gen_model)" "100 MB" $((t1 - t0)) "$show_ms" \
        $(( bytes / 1000 / show_ms ))
fi
