#!/bin/sh
# terminal.sh — what fxsh does on a real terminal (tmux): tab completion (a directory completes
# without a trailing space, so the path goes on; setting names and values), "did you mean" at the
# prompt, one-line confirmations of load and save, `show` eliding large tensors, $PAGER for
# output longer than the screen, `quit` inside `load -`. Skipped (77) without tmux or line editing.
set -u
: "${FXSH:?FXSH must point at the fxsh binary}"
command -v tmux >/dev/null 2>&1 || { echo "terminal.sh: tmux not found, skipped"; exit 77; }
"$FXSH" --version | grep -q 'line editing: none' && { echo "terminal.sh: built without line editing, skipped"; exit 77; }
scratch=$(mktemp -d)
sock="$scratch/tmux.sock"
cleanup() { tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$scratch"; }
trap cleanup EXIT
export HOME="$scratch" FXSH_HISTFILE="$scratch/history" NO_COLOR=1 LC_ALL=C
failed=0
screen() { tmux -S "$sock" capture-pane -p -t fx; }
wait_for() {
    i=0
    while [ "$i" -lt $(($2 * 10)) ]; do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
keys() { tmux -S "$sock" send-keys -t fx "$@"; }
check() {   # check PATTERN WHAT
    if wait_for "$1" 5; then echo "ok: $2"; else echo "FAIL: $2"; screen | sed 's/^/  | /'; failed=1; fi
}
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
# a pager that records how many lines it was given
printf '#!/bin/sh\nwc -l > "%s/paged"\n' "$scratch" > "$scratch/pager" && chmod +x "$scratch/pager"
export PAGER="$scratch/pager"
tmux -S "$sock" new-session -d -s fx -x 150 -y 40 -c "$top" "exec \"$FXSH\"" ||
    { echo "terminal.sh: tmux cannot start, skipped"; exit 77; }
tmux -S "$sock" set-option -g remain-on-exit on >/dev/null
wait_for '^fxsh>' 10 || { echo "FAIL: no prompt"; screen; exit 1; }

keys 'load exa' Tab 'data/python_if_n' Tab
check '^fxsh> load examples/data/python_if_nested\.$' "a directory completes without a space, the path goes on"
keys C-u 'set opt' Tab 'Fa' Tab
check '^fxsh> set optimize False$' "setting names and their values complete"
keys C-u 'export opset_v' Tab '2' Tab Tab
check '^20 +21 +22 +23' "NAME= then its values"
keys C-u 'shwo' Enter
check "unknown command 'shwo'; did you mean 'show'\\?" "did you mean"
keys C-l 'load examples/data/python_if_data.torchscript.txt --weights examples/data/python_if_data.weights.onnx --input x=f32[3,4]' Enter
check '^loaded examples/data/python_if_data.torchscript.txt: ATen program, [0-9]+ nodes \(the fx stage\)$' "load says what it loaded"
keys 'rewrite if_1 cond --clone' Enter
check '^rewrote if_1 into torch.ops.higher_order.cond \(`show code` shows the branches' "rewrite says what it made (on a terminal)"
keys 'export verbose=False' Enter C-l 'show optimized' Enter
check '"mlp.0.weight" =  \{\.\.\. 32 values\}, float\[8\] "mlp.0.bias" =  \{-0' "show elides tensors over 16 values on a terminal"
keys C-l "save $scratch/m.onnx" Enter
check "^saved $scratch/m.onnx \\(ONNX protobuf, [0-9]+ bytes\\)\$" "save says what it wrote"
keys C-l 'load tests/fixtures/repl/mlp.module.txt --weights tests/fixtures/pt2/mlp.pt2' Enter
check '^attached 6 weight tensors from tests/fixtures/pt2/mlp.pt2$' "load says which weights it attached (on a terminal only)"
keys C-l 'help' Enter
i=0; while [ ! -s "$scratch/paged" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
want=$(COLUMNS=150 "$FXSH" -c help | wc -l)   # the terminal is 150 columns wide
if [ "$(cat "$scratch/paged" 2>/dev/null | tr -d ' ')" = "$want" ] && ! screen | grep -q 'Commands (any'; then
    echo "ok: output longer than the screen goes through \$PAGER"
else
    echo "FAIL: help was not paged (pager got '$(cat "$scratch/paged" 2>/dev/null)', want $want lines)"; screen | sed 's/^/  | /'; failed=1
fi
keys C-l 'help stages' Enter
check '^list the pipeline stages and what each holds$' "output that fits the screen is printed, not paged"
keys C-l 'load -' Enter
check '^\(paste the graph text: it ends when the graph is complete; Ctrl-C cancels, `quit` before it leaves\)$' "load - says how the block ends"
keys 'quit' Enter
check "no graph text before .quit.: nothing loaded, leaving" "quit after load - is no graph text"
i=0
while [ "$(tmux -S "$sock" display -p -t fx '#{pane_dead}')" != 1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if [ "$(tmux -S "$sock" display -p -t fx '#{pane_dead}')" = 1 ]; then echo "ok: ... and leaves"; else echo "FAIL: fxsh still runs after quit"; failed=1; fi
exit $failed
