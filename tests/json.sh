#!/bin/sh
# json.sh — every inspection command's --json output parses (jq) and says what the text form
# says: a piped session can get each result as JSON (schema: fxsh(1), JSON OUTPUT). Skipped (77)
# without jq.
set -u
: "${FXSH:?FXSH must point at the fxsh binary}"
command -v jq >/dev/null 2>&1 || { echo "json.sh: jq not found, skipped"; exit 77; }
cd "${FXSH_TOP:-$(dirname "$0")/..}" || exit 99
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HOME="$scratch" FXSH_HISTFILE=/dev/null NO_COLOR=1 LC_ALL=C
failed=0
# expect WHAT EXPECTED ACTUAL
expect() {
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected '$2', got '$3'"; failed=1; fi
}

pt2="load examples/data/mlp_cond.pt2"
# One piped session, one JSON document per line, each command's output in order.
printf '%s\n' "$pt2" 'stages --json' 'nodes --json' 'node linear_1 --json' 'stats --json' 'signature --json' \
    'params --json' 'export verbose=False' 'summary --json' 'check --json' 'diff onnx optimized --json' \
    'nodes --json' 'node node_cond__0/then_branch/node_mul --json' 'stats --json' |
    "$FXSH" >"$scratch/out.jsonl" 2>"$scratch/err" || { echo "FAIL: the session failed"; cat "$scratch/err"; exit 1; }
[ -s "$scratch/err" ] && { echo "FAIL: diagnostics"; cat "$scratch/err"; failed=1; }
expect "every line parses, one document per command" 12 "$(jq -c . "$scratch/out.jsonl" | wc -l)"
expect "each names its command and the schema version" \
    "stages nodes node stats signature params summary check diff nodes node stats 1" \
    "$(jq -r .command "$scratch/out.jsonl" | tr '\n' ' ')$(jq -r .fxsh "$scratch/out.jsonl" | sort -u)"
doc() { sed -n "$1p" "$scratch/out.jsonl"; }

# The same facts as the text commands give.
expect "stages: the current one" "exported" "$(doc 1 | jq -r '.stages[] | select(.current) | .name')"
"$FXSH" -c "$pt2" -c nodes >"$scratch/nodes.txt"
expect "nodes: as many as the text lists" "$(($(wc -l <"$scratch/nodes.txt") - 1))" "$(doc 2 | jq '.nodes | length')"
expect "node: target, users, dtype, shape" 'torch.ops.aten.linear.default sum_1,cond torch.float32 [4,1]' \
    "$(doc 3 | jq -r '.node | "\(.target) \(.users | join(",")) \(.dtype) \(.shape | tojson)"')"
"$FXSH" -c "$pt2" -c stats >"$scratch/stats.txt"
expect "stats: node count" "$(sed -n 's/^nodes: \([0-9]*\).*/\1/p' "$scratch/stats.txt")" "$(doc 4 | jq .nodes)"
expect "signature: user input and output" "x getitem" \
    "$(doc 5 | jq -r '[(.inputs[] | select(.kind == "USER_INPUT") | .name), (.outputs[] | select(.kind == "USER_OUTPUT") | .name)] | join(" ")')"
"$FXSH" -c "$pt2" -c params >"$scratch/params.txt"
expect "params: total bytes" "$(sed -n 's/^total: .* \([0-9]*\) bytes.*/\1/p' "$scratch/params.txt")" "$(doc 6 | jq .total_bytes)"
expect "summary: inputs and outputs with types" "x:float[4,3] getitem:float[4,1]" \
    "$(doc 7 | jq -r '[.inputs[], .outputs[] | "\(.name):\(.type)"] | join(" ")')"
expect "check: ok, no problems" "true 0" "$(doc 8 | jq -r '"\(.ok) \(.problems | length)"')"
"$FXSH" -c "$pt2" -c 'export verbose=False' -c 'diff onnx optimized' >"$scratch/diff.txt"
expect "diff: removed nodes as the text lists them" "$(grep -c '^- ' "$scratch/diff.txt")" "$(doc 9 | jq '.removed | length')"
expect "nodes of an ONNX stage, subgraphs by path" "node_cond__0/then_branch/node_mul" \
    "$(doc 10 | jq -r '.nodes[] | select(.op_type == "Mul") | .name')"
expect "node: an ONNX node's provenance" "mul: aten.mul.Tensor" "$(doc 11 | jq -r '.node.metadata.namespace')"
expect "stats: op histogram" "2" "$(doc 12 | jq '.by_op_type.Gemm')"

# A failing check is a document too, with the status of the text form (a model that uses a
# value nothing defines; -q keeps stdout to the document).
"$FXSH" -q -c 'load tests/fixtures/repl/check_fails.onnx.txt' -c 'check --json' >"$scratch/check.json" 2>/dev/null
expect "check: exit status 1" 1 $?
expect "check: not ok, the problems listed" "false 1" "$(jq -r '"\(.ok) \(.problems | length)"' "$scratch/check.json")"
# Strings are escaped: a node's stack trace with quotes and newlines round-trips.
"$FXSH" -c "$pt2" -c 'node linear --json' | jq -e '.node.stack_trace | contains("\n")' >/dev/null
expect "strings with newlines and quotes parse" 0 $?
# Anything but --json after the arguments is refused.
"$FXSH" -c "$pt2" -c 'nodes --jsn' >/dev/null 2>&1
expect "an unknown argument fails" 1 $?
exit $failed
