#!/bin/sh
# quickstart.sh — set up a fresh Debian machine, build fxsh, then run an example or the tests.
#   sh scripts/quickstart.sh          install build dependencies, build, run the bundled example
#   sh scripts/quickstart.sh check    install build dependencies, build, run the whole test suite
# Run as root (or with sudo available) on Debian bookworm.
set -eu
cd "$(dirname "$0")/.."
what=${1:-example}

packages="build-essential autoconf automake pkg-config protobuf-c-compiler libprotobuf-c-dev
          libyaml-dev libzip-dev libreadline-dev libcmocka-dev libonnx-dev tmux
          libonnx-testdata"
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
    fi
    exit "$rc" ;;
*)
    echo "usage: sh scripts/quickstart.sh [example|check]" >&2; exit 2 ;;
esac
