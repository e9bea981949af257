#!/bin/sh
# include_order.sh — the source tree's layering: a folder of src/ includes only headers of its own
# folder or of folders listed before it (the order data flows, as in Makefile.am), and never another
# folder's *_internal.h: so no include circle can run between folders.
# Prints each violation as FILE:LINE: and exits 1 if there is any.
set -u
top=${FXSH_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top/src" || exit 2
order="base onnx eval fx tables load meta capture decompose translate optimize rewrite pipeline view repl"
rank() {
    i=0
    for f in $order; do
        [ "$f" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo -1
}
bad=0
for dir in $order; do
    r=$(rank "$dir")
    for file in "$dir"/*.[ch]; do
        [ -f "$file" ] || continue
        # "#include "folder/header.h"" lines with their line numbers
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*/[^"]*"' "$file" |
        sed 's/^\([0-9]*\):[^"]*"\([^/]*\)\/\([^"]*\)".*/\1 \2 \3/' > "${TMPDIR:-/tmp}/inc.$$"
        while read -r line inc hdr; do
            [ "$inc" = proto ] && continue
            ir=$(rank "$inc")
            if [ "$ir" -lt 0 ]; then
                echo "src/$file:$line: includes $inc/$hdr: $inc is not a folder of src/"; bad=1
            elif [ "$ir" -gt "$r" ]; then
                echo "src/$file:$line: $dir includes $inc/$hdr, but $inc comes after $dir in the pipeline"; bad=1
            elif [ "$inc" != "$dir" ]; then
                case $hdr in *_internal.h)
                    echo "src/$file:$line: $dir includes $inc/$hdr, an internal header of $inc"; bad=1 ;;
                esac
            fi
        done < "${TMPDIR:-/tmp}/inc.$$"
    done
done
rm -f "${TMPDIR:-/tmp}/inc.$$"
# Folders of src/ that the order does not know: a new folder must be placed in the pipeline.
for d in */; do
    d=${d%/}
    [ "$(rank "$d")" -ge 0 ] || { echo "src/$d/: a folder this check does not place in the pipeline order"; bad=1; }
done
[ $bad -eq 0 ] && echo "include order: $(echo $order | wc -w) folders, no include against the pipeline"
exit $bad
