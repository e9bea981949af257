#!/bin/sh
# quickstart.sh — set up a fresh Debian machine, build fxsh, then run an example or the tests.
#   sh scripts/quickstart.sh          install build dependencies, build, run the bundled example
#   sh scripts/quickstart.sh check    install build dependencies, build, run the whole test suite; then
#                                     the same suite in a sanitizer build (clang, ASan + UBSan, in
#                                     build-asan/) and a 60-second fuzz smoke run (make fuzz): any
#                                     failure or sanitizer report fails
# Run as root (or with sudo available) on Debian bookworm.
set -eu
cd "$(dirname "$0")/.."
what=${1:-example}
start=$(date +%s)
# phase NAME: one line with the time spent so far, for the CI log
phase() { echo "quickstart: $1 ($(( $(date +%s) - start )) s)"; }

packages="build-essential autoconf automake pkg-config protobuf-c-compiler libprotobuf-c-dev
          libyaml-dev libzip-dev libreadline-dev libcmocka-dev libonnx-dev tmux
          libonnx-testdata"
# the sanitizer build and the fuzz harnesses need clang and its sanitizer/libFuzzer runtimes; the
# JSON test parses with jq; the pipeline fuzzer (fuzz/pipeline.py) runs on python3
[ "$what" != check ] || packages="$packages clang libclang-rt-14-dev jq python3"
missing=
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    sudo=
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    echo "quickstart: installing$missing"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure -q
make -j"$(nproc)" >/dev/null
phase built

case $what in
example)
    ./fxsh -echo -f examples/quickstart.fxsh ;;
check)
    rc=0
    make -j"$(nproc)" check || rc=$?
    # One closing line for CI, summed over every test program (cmocka, transcripts, corpus).
    if [ -f test-suite.log ]; then
        pass=$(sed -n 's/^# PASS: *//p' test-suite.log)
        fail=$(sed -n 's/^# FAIL: *//p' test-suite.log)
        err=$(sed -n 's/^# ERROR: *//p' test-suite.log)
        skip=$(sed -n 's/^# SKIP: *//p' test-suite.log)
        [ "$rc" -eq 0 ] || cat test-suite.log
        echo "tests: ${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
        sh scripts/skip-reasons.sh test-suite.log "${FXSH_CORPUS:-../shared/corpus}"
    fi
    phase "test suite done"
    [ "$rc" -eq 0 ] || exit "$rc"

    # The same suite in a sanitizer build: an out-of-tree (VPATH) build in build-asan/ from a
    # clean copy of the sources (make distdir: a configured source tree cannot host a VPATH build).
    # Any ASan/UBSan/LeakSanitizer report fails its test; then a fuzz smoke run of every harness.
    top=$(pwd)
    src=$top/build-asan-src bld=$top/build-asan
    rm -rf "$src" "$bld"
    make distdir distdir="$src" >/dev/null
    mkdir -p "$bld"
    cd "$bld"
    "$src/configure" -q CC=clang CFLAGS='-fsanitize=address,undefined -fno-sanitize-recover=undefined -g -O1'
    make -j"$(nproc)" >/dev/null
    phase "sanitizer tree built"
    # the tests look for the corpus beside the source tree, which build-asan-src is not
    [ -n "${FXSH_CORPUS:-}" ] || [ ! -d "$top/../shared/corpus" ] || export FXSH_CORPUS="$(cd "$top/../shared/corpus" && pwd)"
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
    rc=0
    make -j"$(nproc)" check || rc=$?
    if [ -f test-suite.log ]; then
        [ "$rc" -eq 0 ] || cat test-suite.log
        pass=$(sed -n 's/^# PASS: *//p' test-suite.log)
        fail=$(sed -n 's/^# FAIL: *//p' test-suite.log)
        err=$(sed -n 's/^# ERROR: *//p' test-suite.log)
        skip=$(sed -n 's/^# SKIP: *//p' test-suite.log)
        echo "sanitizer tests: ${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
        sh "$top/scripts/skip-reasons.sh" test-suite.log "${FXSH_CORPUS:-../shared/corpus}"
    fi
    phase "sanitizer test suite done"
    [ "$rc" -eq 0 ] || exit "$rc"
    make fuzz FUZZ_SECONDS=60 || exit 1
    # and the pipeline fuzzer on the sanitizer build: mutated real programs through the whole tool
    # (a fixed seed: CI's result does not depend on the day)
    make fuzz-pipeline FUZZ_SECONDS=60 FUZZ_PIPELINE_FLAGS=--seed=1 || exit 1
    phase "fuzz smoke run done"
    exit 0 ;;
*)
    echo "usage: sh scripts/quickstart.sh [example|check]" >&2; exit 2 ;;
esac
