#!/bin/sh
# symbol_order_planted.sh — symbol_order.sh must catch what it is for: in a tree of objects built
# here, a back edge (src/base calling a function defined in src/repl), a raw malloc outside the
# funnel and a prefix used by two folders each fail it, named; the same tree without them passes.
set -u
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "no C compiler; skipping"; exit 77; }
command -v nm >/dev/null || { echo "no nm; skipping"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a tree of its own: the pipeline order of the real one, sources and objects side by side
mkdir -p "$tmp/src/base" "$tmp/src/onnx" "$tmp/src/fx" "$tmp/src/repl" "$tmp/tests"
cp "$top/tests/include_order.sh" "$tmp/tests/"
obj() {   # obj FOLDER NAME SOURCE: compiles SOURCE into src/FOLDER/NAME.o
    printf '%s\n' "$3" >"$tmp/src/$1/$2.c"
    "$cc" -c -o "$tmp/src/$1/$2.o" "$tmp/src/$1/$2.c" || exit 2
}
run() {
    FXSH_OBJDIR=$tmp FXSH_TOP=$tmp sh "$top/tests/symbol_order.sh" >"$tmp/out" 2>&1
}
# a clean tree: base defines, repl uses
obj base alloc 'void *xmalloc_stub(unsigned long n) { return (void *)n; }'
obj base base_ok 'int base_helper(int x) { return x + 1; }'
obj repl repl_ok 'int base_helper(int); int repl_main_stub(void) { return base_helper(1); }'
run || { echo "FAIL: a clean tree is refused:"; cat "$tmp/out"; exit 1; }
status=0
expect() {   # expect WHAT PATTERN: the check fails and says PATTERN
    if run; then echo "FAIL: $1 was not caught"; status=1
    elif ! grep -q "$2" "$tmp/out"; then echo "FAIL: $1: no line matching '$2' in:"; cat "$tmp/out"; status=1
    else echo "ok: $1: $(grep "$2" "$tmp/out" | head -1)"; fi
}
obj repl repl_def 'int repl_planted(void) { return 1; }'
obj base base_bad 'int repl_planted(void); int base_planted(void) { return repl_planted(); }'
expect "a back edge from base to repl" "src/base/base_bad.o: base uses repl_planted, defined in repl"
rm "$tmp/src/base/base_bad.o" "$tmp/src/base/base_bad.c"
obj onnx raw '#include <stdlib.h>
void *ox_raw_planted(void) { return malloc(4); }'
expect "a raw malloc" "src/onnx/raw.o: calls malloc"
rm "$tmp/src/onnx/raw.o" "$tmp/src/onnx/raw.c"
obj onnx ox_ok 'int ox_planted(void) { return 2; }'
obj fx clash 'int ox_clash_planted(void) { return 3; }'
expect "a prefix of two folders" "fx exports ox_clash_planted, but the prefix ox_ is onnx"
rm "$tmp/src/fx/clash.o" "$tmp/src/fx/clash.c"
run || { echo "FAIL: the tree with the plants removed is refused:"; cat "$tmp/out"; status=1; }
exit $status
