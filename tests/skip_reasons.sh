#!/bin/sh
# skip_reasons.sh — scripts/skip-reasons.sh says why tests were skipped (finding 12: a fresh clone
# reported "12 skipped" without a reason): the corpus tests in one line naming FXSH_CORPUS, any
# other skipped test with the first line it printed; nothing when nothing was skipped.
set -u
cd "${FXSH_TOP:-$(dirname "$0")/..}" || exit 99
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
expect() {
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected '$2', got '$3'"; failed=1; fi
}
# a test-suite.log as automake's harness writes it: one section per test that did not pass
cat >"$scratch/test-suite.log" <<'LOG'
==================================
   fxsh 0.1.0: ./test-suite.log
==================================

# TOTAL: 4
# PASS:  1
# SKIP:  3

.. contents:: :depth: 2

SKIP: tests/corpus_repl.sh
==========================

corpus not found (FXSH_CORPUS); skipping
SKIP tests/corpus_repl.sh (exit status: 77)

SKIP: tests/unit/load/test_fx_corpus
====================================

SKIP: no corpus at /x/fx
SKIP tests/unit/load/test_fx_corpus (exit status: 77)

SKIP: tests/terminal.sh
=======================

terminal.sh: tmux not found, skipped
SKIP tests/terminal.sh (exit status: 77)
LOG
expect "the corpus in one line, other skips with their reason" \
    "corpus tests skipped (2): ../shared/corpus not found; set FXSH_CORPUS to the reference corpus to run them
skipped: tests/terminal.sh: terminal.sh: tmux not found, skipped" \
    "$(sh scripts/skip-reasons.sh "$scratch/test-suite.log" ../shared/corpus)"
printf '# TOTAL: 1\n# PASS:  1\n' >"$scratch/clean.log"
expect "nothing skipped: nothing said" "" "$(sh scripts/skip-reasons.sh "$scratch/clean.log" ../shared/corpus)"
exit $failed
