#!/bin/sh
# man.sh — the generated man page: no placeholder left (the footer names the version), every
# command of the table in COMMANDS, and every environment variable the sources read documented
# under ENVIRONMENT.
set -u
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
page=${FXSH_MAN:-man/fxsh.1}
[ -f "$page" ] || { echo "man.sh: $page not built"; exit 99; }
failed=0
fail() { echo "FAIL: $*"; failed=1; }
if grep -n '@[A-Z_]*@' "$page"; then fail "placeholders left in $page"; fi
version=$("$FXSH" --version | sed -n 's/^fxsh \([^ ]*\).*/\1/p')
grep -q "^\.TH FXSH 1 \"[0-9]*\" \"fxsh $version\"" "$page" || fail "the footer does not read fxsh $version"
# the ENVIRONMENT section
env_section=$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$page")
vars=$(cd "$top/src" && { grep -rhoE 'getenv\("[A-Z_]+"\)' --include=*.c . | sed 's/getenv("\(.*\)")/\1/'
                          grep -rhoE 'define [A-Z_]+_ENV "[A-Z_]+"' --include=*.c --include=*.h . | sed 's/.*"\(.*\)"/\1/'; } | sort -u)
[ -n "$vars" ] || fail "no environment variables found in the sources"
for v in $vars; do
    printf '%s\n' "$env_section" | grep -q "^\.B $v\$" || fail "ENVIRONMENT does not document $v"
done
for c in $("$FXSH" --man-commands | sed -n 's/^\.B \([a-z-]*\).*/\1/p' | sed 's/\\//g'); do
    grep -q "^\.B $c" "$page" || fail "COMMANDS lacks $c"
done
[ "$failed" -eq 0 ] && echo "man.sh: ok ($(echo $vars | wc -w) environment variables)"
exit $failed
