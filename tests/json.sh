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
# The commands CI scripts need most (finding 17): run, verify, compare, lint, find, and diff and
# params on model files and ONNX stages (finding 16); one document each, "ok" saying how it went.
"$FXSH" -q -c "$pt2" -c 'export verbose=False' -c 'run --json' -c 'verify exported optimized --json' \
    -c 'compare exported optimized --json' -c 'find GEMM --json' -c 'params --json' \
    -c 'diff optimized tests/fixtures/repl/mlp_cond.onnx --json' >"$scratch/ci.jsonl" 2>"$scratch/err"
expect "run/verify/compare/find/params/diff: status 0, no diagnostics" "0 0" "$? $(wc -c <"$scratch/err")"
expect "one document per command" "run verify compare find params diff" "$(jq -r .command "$scratch/ci.jsonl" | tr '\n' ' ' | sed 's/ $//')"
ci() { sed -n "$1p" "$scratch/ci.jsonl"; }
"$FXSH" -q -c "$pt2" -c 'export verbose=False' -c run >"$scratch/run.txt"
expect "run: the output as numbers, as the text form's numpy repr" \
    "$(sed -n 's/.*\[\([0-9.]*\)\],/\1/p' "$scratch/run.txt" | head -1)" "$(ci 1 | jq -r '.outputs[0].values[0][0]')"
expect "run: name, dtype, shape, the seed of random inputs" "getitem float32 [4,1] 0 true" \
    "$(ci 1 | jq -r '.outputs[0] as $o | "\($o.name) \($o.dtype) \($o.shape | tojson) \(.seed) \(.ok)"')"
expect "verify: each output passes, differences as numbers" "true true number 0" \
    "$(ci 2 | jq -r '"\(.ok) \(.outputs[0].pass) \(.outputs[0].max_abs_diff | type) \(.failed)"')"
expect "compare: no divergence" "true null optimized" "$(ci 3 | jq -r '"\(.ok) \(.divergence) \(.reference)"')"
expect "find: without regard to case" "node_linear node_linear_1" "$(ci 4 | jq -r '[.nodes[].name] | join(" ")')"
expect "params of an ONNX stage: its initializers" "seq.0.weight float [2,3] 24" \
    "$(ci 5 | jq -r '.tensors[0] | "\(.name) \(.dtype) \(.shape | tojson) \(.bytes)"')"
expect "diff: a stage against a model file" "optimized tests/fixtures/repl/mlp_cond.onnx" "$(ci 6 | jq -r '"\(.from) \(.to)"')"
# A failing verify and compare are documents with "ok": false, and the status is 1; a value that is
# not finite is a string, so that the document stays JSON (jq would reject NaN).
"$FXSH" -q -c 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]' \
    -c 'export --legacy trace --inputs examples/data/python_if_data.io.json' \
    -c 'verify --expected examples/data/python_if_data.zero_sum.json --json' >"$scratch/fail.json" 2>/dev/null
expect "verify: a failure is a document, status 1" "1 false false 12" \
    "$? $(jq -r '"\(.ok) \(.outputs[0].pass) \(.outputs[0].mismatched)"' "$scratch/fail.json")"
"$FXSH" -q -c "$pt2" -c 'set linear_1 2=None' -c 'export verbose=False' -c 'compare optimized tests/fixtures/repl/mlp_cond.onnx --json' \
    >"$scratch/cmp.json" 2>/dev/null
expect "compare: the first divergence, its nodes and provenance" "1 false linear_1 MatMul Gemm true" \
    "$? $(jq -r '"\(.ok) \(.divergence.name) \(.divergence.node.op_type) \(.divergence.reference_node.op_type) \(.divergence.metadata | has("pkg.torch.onnx.fx_node"))"' "$scratch/cmp.json")"
printf '<\n  ir_version: 8, opset_import: ["" : 18]\n>\ng (float[2] x) => (float[2] y) {\n  y = Log (x)\n}\n' >"$scratch/log.txt"
printf '{"inputs": [{"name": "x", "dtype": "float32", "shape": [2], "data": [-1, 0]}],
 "outputs": [{"name": "y", "dtype": "float32", "shape": [2], "data": [0, 0]}]}\n' >"$scratch/log.json"
"$FXSH" -q -c "load $scratch/log.txt" -c "run --inputs $scratch/log.json --json" -c "verify --expected $scratch/log.json --json" \
    >"$scratch/nan.jsonl" 2>/dev/null
expect "non-finite values are named strings" '["NaN","-Infinity"] "Infinity"' \
    "$(sed -n 1p "$scratch/nan.jsonl" | jq -c '.outputs[0].values') $(sed -n 2p "$scratch/nan.jsonl" | jq -c '.outputs[0].max_abs_diff')"
# lint: the pitfalls are the document (not diagnostics), with file and line.
"$FXSH" -q -c 'load examples/data/python_if_data.torchscript.txt' -c 'lint --json' >"$scratch/lint.json" 2>"$scratch/err"
expect "lint: one pitfall, its line and hint, no diagnostics" "1 18 true 0" \
    "$(jq -r '"\(.count) \(.pitfalls[0].line) \(.pitfalls[0].hint | startswith("rewrite %if_1 cond"))"' "$scratch/lint.json") $(grep -c warning "$scratch/err")"
# weights --json: a program's tensor by state-dict or placeholder name, an ONNX initializer; the
# numbers as the text form summarises them.
"$FXSH" -q -c "$pt2" -c 'weights seq.0.weight --json' -c 'weights p_seq_0_weight --json' -c 'export verbose=False' \
    -c 'weights seq.0.weight --json' >"$scratch/w.jsonl" 2>"$scratch/err"
expect "weights: three documents, the same tensor" "parameter parameter initializer 1" \
    "$(jq -r .kind "$scratch/w.jsonl" | tr '\n' ' ')$(jq -c '[.dtype, .shape, .min, .max, .first]' "$scratch/w.jsonl" | sort -u | wc -l)"
"$FXSH" -c "$pt2" -c 'weights seq.0.weight' >"$scratch/w.txt"
expect "weights: min as the text form prints it" "$(sed -n 's/^min \([^ ]*\) .*/\1/p' "$scratch/w.txt")" \
    "$(sed -n 1p "$scratch/w.jsonl" | jq -r '.min | tostring | .[0:9]')"

# reduce --json: a failing export and a disagreement, each one document with the reduced program
# and model as text; --save lists the files it wrote.
"$FXSH" -q -c 'load examples/data/mlp.pt2' -c 'replace relu torch.ops.aten.special_i0e.default' \
    -c "reduce --save $scratch/repro --json" >"$scratch/reduce.json" 2>"$scratch/err"
expect "reduce: an export failure at translate, 5 nodes to 1, the files" \
    "0 export translate special_i0e 5 1 true true program.pt2,inputs.npz,reproduce.fxsh,README.md" \
    "$? $(jq -r '"\(.mode) \(.stage) \(.target) \(.nodes_before) \(.nodes_after) \(.program | startswith("graph():")) \(.ok) \(.files | join(","))"' "$scratch/reduce.json")"
"$FXSH" -q -c 'load examples/data/mlp.pt2' -c 'set linear_1 2=None' -c 'export verbose=False' \
    -c 'reduce optimized examples/data/mlp.optimized.onnx --inputs examples/data/mlp.io.json --json' >"$scratch/reduce2.json" 2>/dev/null
expect "reduce: a disagreement, the model and the reference's nodes" "0 values linear_1 true true null" \
    "$? $(jq -r '"\(.mode) \(.target) \(.model | contains("MatMul")) \(.reference_model | contains("Gemm")) \(.saved)"' "$scratch/reduce2.json")"

# set --json and history --json: the settings typed (numbers, bools, null for None); the edits in
# order, the undone ones marked.
"$FXSH" -q -c "$pt2" -c 'set opset_version 19' -c 'set --json' -c 'rename sum_1 total' -c 'rename gt above' -c undo \
    -c 'history --json' >"$scratch/sh.jsonl" 2>"$scratch/err"
expect "set: typed values" "19 true null" "$(sed -n 1p "$scratch/sh.jsonl" | jq -r '.settings | "\(.opset_version) \(.optimize) \(.dynamic_shapes)"')"
expect "history: the edits, the undone marked" "rename sum_1 total:false rename gt above:true" \
    "$(sed -n 2p "$scratch/sh.jsonl" | jq -r '[.edits[] | "\(.command):\(.undone)"] | join(" ")')"

# ops --json: the covered targets as `ops` lists them.
"$FXSH" -c ops >"$scratch/ops.txt"
"$FXSH" -c 'ops --json' >"$scratch/ops.json"
expect "ops: as many as the text lists, the builtin named" "$(sed -n 's/^\([0-9]*\) ops$/\1/p' "$scratch/ops.txt") $(grep -c ' builtin ' "$scratch/ops.txt")" \
    "$(jq -r '"\(.count) \([.ops[] | select(.builtin != null)] | length)"' "$scratch/ops.json")"

# export --json: the run as a document instead of the progress lines; a failed export says which
# stage and why, with the status of the text form.
"$FXSH" -c "$pt2" -c 'export --json' >"$scratch/export.json" 2>"$scratch/err"
expect "export: one document, no progress lines" "1 export" "$(wc -l <"$scratch/export.json") $(jq -r .command "$scratch/export.json")"
expect "export: ok, the stages it made with counts, the ops" "true optimized exported,decomposed,onnx,optimized 20 14 2" \
    "$(jq -r '"\(.ok) \(.stage) \([.stages[].name] | join(",")) \(.stages[0].nodes) \(.stages[0].main_graph_nodes) \(.ops.Gemm)"' "$scratch/export.json")"
"$FXSH" -q -c 'load tests/fixtures/repl/nolowering_aten.fx.txt --input x=f32[2,3]' -c 'export --json' >"$scratch/export.json" 2>/dev/null
expect "export: a failure, its stage and error" "1 false onnx true" \
    "$? $(jq -r '"\(.ok) \(.failed_stage) \(.errors[0].message | startswith("No ONNX lowering"))"' "$scratch/export.json")"

# Errors are documents too: a --json command that fails before its result says why, status 1.
"$FXSH" -q -c 'verify --json' -c "$pt2" -c 'run nosuch --json' -c 'nodes --json extra' -c 'find zzz --json' >"$scratch/errs.jsonl" 2>/dev/null
expect "errors: status 1, one document each" "1 4" "$? $(jq -c . "$scratch/errs.jsonl" | wc -l)"
expect "errors: ok false, the message" "verify false verify: nothing to compare with" \
    "$(sed -n 1p "$scratch/errs.jsonl" | jq -r '"\(.command) \(.ok) \(.errors[0].message)"')"
expect "errors: the hint too" "run stages: fx, exported, decomposed, onnx, optimized; or an .onnx / ONNX text file" \
    "$(sed -n 2p "$scratch/errs.jsonl" | jq -r '"\(.command) \(.errors[0].hint)"')"
expect "find: nothing found is a document with no nodes" "find false 0" \
    "$(sed -n 4p "$scratch/errs.jsonl" | jq -r '"\(.command) \(.ok) \(.nodes | length)"')"

# Anything but --json after the arguments is refused.
"$FXSH" -c "$pt2" -c 'nodes --jsn' >/dev/null 2>&1
expect "an unknown argument fails" 1 $?
exit $failed
