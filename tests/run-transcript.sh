#!/bin/sh
# run-transcript.sh — runs a transcript file (.t): commands, their input, the exact output.
#
# Format (one case after another):
#   ## comment                     ignored anywhere (a line starting with `##`)
#   $ fxsh ARGS...                 a shell command; `fxsh` is the binary under test
#   < LINE                         a line fed to standard input ("< " + nothing: an empty line)
#   LINE                           expected output (stdout and stderr, merged, in order)
#   ? N                            expected exit status (default 0)
# Commands run in $FXSH_TOP (the source tree top; else the transcript's directory), with HOME in a scratch directory,
# FXSH_HISTFILE=/dev/null, NO_COLOR=1, LC_ALL=C, no COLUMNS, and FXSH_SCRATCH, an empty directory per case.
# FXSH_TRANSCRIPT_UPDATE=1 rewrites the transcript with the actual outputs and statuses (commands,
# inputs and ## comments kept): for a deliberate change of output, to be reviewed with git diff.
set -u
t=$1
[ -f "$t" ] || { echo "no such transcript: $t" >&2; exit 99; }
: "${FXSH:?FXSH must point at the fxsh binary}"
dir=${FXSH_TOP:-$(cd "$(dirname "$t")" && pwd)}
name=$(basename "$t")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HOME="$scratch/home" FXSH_HISTFILE=/dev/null NO_COLOR=1 LC_ALL=C
unset COLUMNS   # help fills 80 columns when its output is not a terminal
mkdir -p "$HOME"

passed=0 failed=0 caseno=0
cmd= cmdline=0
run_case() {
    [ -n "$cmd" ] || return 0
    caseno=$((caseno + 1))
    # Each case gets an empty scratch directory of its own ($FXSH_SCRATCH) for files it writes.
    mkdir "$scratch/case$caseno"
    (cd "$dir" && FXSH_SCRATCH="$scratch/case$caseno" sh -c "fxsh() { \"\$FXSH\" \"\$@\"; }; $cmd" \
        <"$scratch/stdin" >"$scratch/actual" 2>&1)
    status=$?
    # Blank lines separate cases, so trailing blank lines are not part of either side.
    for f in expected actual; do
        sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$scratch/$f" >"$scratch/$f.trim"
        mv "$scratch/$f.trim" "$scratch/$f"
    done
    if [ -n "${FXSH_TRANSCRIPT_UPDATE:-}" ]; then
        { cat "$scratch/actual"; [ "$status" -eq 0 ] || echo "? $status"; [ "$blank_after" -eq 0 ] || echo
          cat "$scratch/pending"; } >>"$scratch/new"
        : >"$scratch/pending"
    fi
    if cmp -s "$scratch/expected" "$scratch/actual" && [ "$status" -eq "$want_status" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $name:$cmdline: \$ $cmd"
        if [ "$status" -ne "$want_status" ]; then echo "  exit status $status, expected $want_status"; fi
        diff -u "$scratch/expected" "$scratch/actual" | sed 's/^/  /' | head -60
    fi
    cmd=
}
lineno=0
want_status=0
blank_after=0
: >"$scratch/expected"; : >"$scratch/stdin"; : >"$scratch/new"; : >"$scratch/pending"
# keep LINE in the rewritten transcript (update mode): after the running case's output if one runs
keep() { if [ -n "$cmd" ]; then printf '%s\n' "$1" >>"$scratch/pending"; else printf '%s\n' "$1" >>"$scratch/new"; fi; }
while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    case $line in
    '##'*) keep "$line" ;;
    '$ '*)
        run_case
        printf '%s\n' "$line" >>"$scratch/new"
        cmd=${line#'$ '}; cmdline=$lineno; want_status=0; blank_after=0
        : >"$scratch/expected"; : >"$scratch/stdin" ;;
    '< '*)
        [ -n "$cmd" ] && printf '%s\n' "$line" >>"$scratch/new"
        [ -n "$cmd" ] && printf '%s\n' "${line#'< '}" >>"$scratch/stdin" ;;
    '? '*)
        want_status=${line#'? '} ;;
    *)
        if [ -n "$cmd" ]; then
            printf '%s\n' "$line" >>"$scratch/expected"
            if [ -z "$line" ]; then blank_after=1; else blank_after=0; fi
        else
            keep "$line"
        fi ;;
    esac
done <"$t"
run_case
if [ -n "${FXSH_TRANSCRIPT_UPDATE:-}" ]; then
    cat "$scratch/pending" >>"$scratch/new"
    sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$scratch/new" >"$t"
fi
echo "$name: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
