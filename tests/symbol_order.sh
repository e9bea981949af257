#!/bin/sh
# symbol_order.sh — the layering at link level, where include_order.sh cannot see: a function
# declared in one folder's header but defined in a later folder is a back edge all the same.
# Over the compiled objects of src/<folder>/ (nm), it checks that
#   1. an object uses only symbols defined in its own folder or a folder before it in the
#      pipeline order (the order of tests/include_order.sh);
#   2. memory is allocated only through the funnel (base/alloc.c: xmalloc, xcalloc, ...): no other
#      object calls malloc, calloc, realloc, strdup, strndup, reallocarray or aligned_alloc;
#   3. an exported name starts with a prefix that belongs to its folder alone (the word before its
#      first underscore: fx_ is src/fx's, ox_ src/onnx's), so a name says where it lives.
# Prints each violation and exits 1 if there is any. FXSH_OBJDIR names the build tree (default:
# the current directory, where make check runs it); FXSH_TOP the source tree, for the order.
set -u
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
objdir=${FXSH_OBJDIR:-.}
order=$(sed -n 's/^order="\(.*\)"$/\1/p' "$top/tests/include_order.sh")
[ -n "$order" ] || { echo "symbol_order: no folder order in tests/include_order.sh"; exit 2; }
command -v nm >/dev/null || { echo "symbol_order: nm not found; skipping"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# defs: "SYMBOL RANK FOLDER OBJECT"; uses: "SYMBOL RANK FOLDER OBJECT" (automake's per-target
# copies, fuzz_libfxsh_fuzz_a-x.o, are the same sources built again: left out)
rank=0
: >"$tmp/defs"
: >"$tmp/uses"
for dir in $order; do
    for o in "$objdir/src/$dir"/*.o; do
        [ -f "$o" ] || continue
        case $(basename "$o") in *-*) continue ;; esac
        # an object left by a source since moved or removed is not part of the library
        [ -f "$top/src/$dir/$(basename "$o" .o).c" ] || continue
        name=src/$dir/$(basename "$o")
        nm -g --defined-only "$o" | awk -v r=$rank -v d="$dir" -v o="$name" '$2 ~ /^[TDBRVWC]$/ {print $3, r, d, o}' >>"$tmp/defs"
        nm -u "$o" | awk -v r=$rank -v d="$dir" -v o="$name" '{print $NF, r, d, o}' >>"$tmp/uses"
    done
    rank=$((rank + 1))
done
[ -s "$tmp/defs" ] || { echo "symbol_order: no objects under $objdir/src (build first); skipping"; exit 77; }

bad=0
# 1. back edges: a use resolved by a definition in a later folder
awk 'NR == FNR { def[$1] = $2; where[$1] = $3 " (" $4 ")"; next }
     ($1 in def) && def[$1] > $2 { printf "%s: %s uses %s, defined in %s: %s comes after %s in the pipeline\n", $4, $3, $1, where[$1], substr(where[$1], 1, index(where[$1], " ") - 1), $3; bad = 1 }
     END { exit bad }' "$tmp/defs" "$tmp/uses" || bad=1
# 2. raw allocations outside the funnel
awk '$1 ~ /^(malloc|calloc|realloc|strdup|strndup|reallocarray|aligned_alloc)$/ && $4 != "src/base/alloc.o" {
         printf "%s: calls %s: allocate through base/alloc.h (xmalloc, xcalloc, xrealloc, xstrdup, arenas)\n", $4, $1; bad = 1 }
     END { exit bad }' "$tmp/uses" || bad=1
# 3. a prefix belongs to one folder
awk '{ p = $1; sub(/_.*/, "", p); if (!(p in owner)) { owner[p] = $3; first[p] = $1 " (" $4 ")" }
       else if (owner[p] != $3) { printf "%s: %s exports %s, but the prefix %s_ is %s'"'"'s (%s)\n", $4, $3, $1, p, owner[p], first[p]; bad = 1 } }
     END { exit bad }' "$tmp/defs" || bad=1

if [ $bad -eq 0 ]; then
    echo "symbol order: $(wc -l <"$tmp/defs") exported symbols in $(echo $order | wc -w) folders: no use against the pipeline, no raw allocation, one folder per prefix"
fi
exit $bad
