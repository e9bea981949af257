#!/bin/sh
# skip-reasons.sh — why the tests of a run were skipped, from automake's test-suite.log: the
# corpus tests as one line that says what to set, every other skipped test with its reason (the
# first line it printed). A summary that only counts "12 skipped" reads as full coverage.
#   sh scripts/skip-reasons.sh [test-suite.log [CORPUS]]   (CORPUS: where the corpus was looked for)
set -u
log=${1:-test-suite.log}
corpus=${2:-${FXSH_CORPUS:-../shared/corpus}}
[ -f "$log" ] || exit 0
# Each non-passing test has a section: "SKIP: NAME", a line of "=", a blank line, its output.
awk -v corpus="$corpus" '
    /^SKIP: / && !name { name = substr($0, 7); getline; reason = ""; next }
    name && reason == "" && NF { reason = $0 }
    name && /^SKIP .*\(exit status: 77\)$/ {
        if (reason ~ /corpus/) { ncorpus++ } else { other = other "skipped: " name ": " reason "\n" }
        name = ""
    }
    END {
        if (ncorpus)
            printf "corpus tests skipped (%d): %s not found; set FXSH_CORPUS to the reference corpus to run them\n", ncorpus, corpus
        printf "%s", other
    }' "$log"
