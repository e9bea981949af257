#!/bin/sh
# run.sh — runs libFuzzer harnesses one after another (one job: the machine is shared) for
# FUZZ_SECONDS in all (default 60, split evenly), from their seeds and the corpus they grew before.
# A crash, leak, sanitizer report or timeout stops with status 1 and names the input it saved.
#   sh fuzz/run.sh HARNESS...     (run from the build directory; make fuzz calls it)
set -u
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
total=${FUZZ_SECONDS:-60}
[ $# -gt 0 ] || { echo "usage: FUZZ_SECONDS=N sh fuzz/run.sh HARNESS..." >&2; exit 2; }
per=$((total / $#))
[ "$per" -ge 1 ] || per=1
[ -d fuzz/seeds ] || FXSH_CORPUS=${FXSH_CORPUS:-$top/../shared/corpus} sh "$top/fuzz/gather-seeds.sh" fuzz/seeds >/dev/null
status=0
for h in "$@"; do
    bin=fuzz/fuzz_$h
    [ -x "$bin" ] || { echo "fuzz: no harness $bin (make fuzz-build)" >&2; exit 2; }
    mkdir -p "fuzz/corpus/$h" "fuzz/artifacts" "fuzz/seeds/$h"
    saved=$top/tests/fixtures/fuzz/$h
    [ -d "$saved" ] || saved=
    log=fuzz/artifacts/$h.log
    # -rss_limit_mb: fxsh's own caps keep a load far below this; -timeout: one input in 10 s
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
        "$bin" -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$h-" "fuzz/corpus/$h" "fuzz/seeds/$h" ${saved:+"$saved"} \
        >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [ "$rc" -ne 0 ]; then
        status=1
        echo "fuzz: $h FAILED after ${runs:-?} runs (status $rc):"
        grep -E 'ERROR|SUMMARY|runtime error|Test unit written|deadly signal|timeout' "$log" | head -20
        echo "  full log: $log"
    else
        echo "fuzz: $h ok: ${runs:-?} runs in ${per}s, corpus $(ls "fuzz/corpus/$h" | wc -l) inputs"
    fi
done
exit "$status"
