#!/bin/sh
# bench/run.sh — `make bench`: how fxsh's work grows with graph size (it must stay linear), and
# how close to the disk's speed weights go through load + export + save.
# Generates FX graphs of N nodes (a chain of relu/add), then times whole fxsh runs (process start
# included): load alone, load + show, load + export (every stage); also the corpus's
# transformer_stack program when ../shared/corpus is there. Per-pass times: bench/bench_passes.
set -eu
FXSH=${1:-./fxsh}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

gen_graph() { # N -> FX graph text with N call_function nodes
    awk -v n="$1" 'BEGIN {
        print "graph():"
        prev = "x"; users_x = 1
        lines = ""
        for (i = 1; i <= n; i++) {
            if (i % 2) { name = "relu_" i; line = sprintf("    %%%s : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%%%s,), kwargs = {})", name, prev) }
            else { name = "add_" i; users_x++; line = sprintf("    %%%s : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%%%s, %%x), kwargs = {})", name, prev) }
            out[i] = line; prev = name
        }
        printf "    %%x : [num_users=%d] = placeholder[target=x]\n", users_x
        for (i = 1; i <= n; i++) print out[i]
        printf "    return (%s,)", prev
    }'
}

printf '%-28s %8s %10s %12s %14s\n' "input" "nodes" "load ms" "+show ms" "+export ms"
for n in 1000 4000 16000; do
    gen_graph "$n" > "$tmp/g$n.fx.txt"
    t0=$(now_ms); "$FXSH" -c "load $tmp/g$n.fx.txt" >/dev/null; t1=$(now_ms)
    "$FXSH" -c "load $tmp/g$n.fx.txt" -c show >/dev/null; t2=$(now_ms)
    "$FXSH" -c "load $tmp/g$n.fx.txt --input x=f32[4,8]" -c "export verbose=False" >/dev/null; t3=$(now_ms)
    printf '%-28s %8d %10d %12d %14d\n' "chain relu/add" "$n" $((t1 - t0)) $((t2 - t1)) $((t3 - t2))
done
corpus=${FXSH_CORPUS:-$(dirname "$0")/../../shared/corpus}
if [ -f "$corpus/fx/transformer_stack/program.json" ]; then
    j=$corpus/fx/transformer_stack/program.json
    t0=$(now_ms); "$FXSH" -c "load $j" >/dev/null; t1=$(now_ms)
    "$FXSH" -c "load $j" -c "show code" >/dev/null; t2=$(now_ms)
    "$FXSH" -c "load $j" -c "export verbose=False export_params=False" >/dev/null 2>&1 || true; t3=$(now_ms)
    printf '%-28s %8s %10d %12d %14d\n' "transformer_stack (json)" "708" $((t1 - t0)) $((t2 - t1)) $((t3 - t2))
fi

# Printing weights: `show` of a model with 100 MB of float weights (bench/gen_model), in MB of
# ONNX text per second; the text is byte for byte onnx.printer.to_text's.
gen=$(dirname "$FXSH")/bench/gen_model
if [ -x "$gen" ]; then
    "$gen" "$tmp/w100.onnx" 100
    t0=$(now_ms); "$FXSH" -c "load $tmp/w100.onnx" >/dev/null; t1=$(now_ms)
    bytes=$("$FXSH" -c "load $tmp/w100.onnx" -c show | wc -c); t2=$(now_ms)
    show_ms=$(( (t2 - t1) - (t1 - t0) ))
    [ "$show_ms" -gt 0 ] || show_ms=1
    printf '\n%-28s %10s %10s %12s %10s\n' "model" "weights" "load ms" "show ms" "MB/s"
    printf '%-28s %10s %10d %12d %10d\n' "MatMul chain (gen_model)" "100 MB" $((t1 - t0)) "$show_ms" \
        $(( bytes / 1000 / show_ms ))
fi


# Graphs: load + export + save of a chain of N nodes, whole runs; time per node must stay flat.
printf '\n%-28s %8s %12s %10s %12s\n' "graph (load+export+save)" "nodes" "ms" "us/node" "peak RSS MB"
TIME=/usr/bin/time
[ -x "$TIME" ] || TIME=
peak_kb() { # CMD... -> runs it; prints its peak RSS in KB ("-" without GNU time) on fd 3
    if [ -n "$TIME" ]; then "$TIME" -f '%M' -o "$tmp/rss" "$@"; st=$?; cat "$tmp/rss" >&3; return $st; fi
    "$@"; st=$?; echo - >&3; return $st
}
for n in 10000 100000 1000000; do
    gen_graph "$n" > "$tmp/c$n.fx.txt"
    t0=$(now_ms)
    kb=$(peak_kb "$FXSH" -c "load $tmp/c$n.fx.txt --input x=f32[4,8]" -c "export verbose=False" \
         -c "save $tmp/c$n.onnx" 3>&1 >/dev/null)
    t1=$(now_ms)
    printf '%-28s %8d %12d %10d %12s\n' "chain relu/add" "$n" $((t1 - t0)) $(( (t1 - t0) * 1000 / n )) \
        "$( [ "$kb" = - ] && echo - || echo $((kb / 1024)) )"
    rm -f "$tmp/c$n.fx.txt" "$tmp/c$n.onnx"
done

# Weights: load + export + save of a generated torch.export archive (bench/gen_pt2: a chain of
# nn.Linear(1024, 1024), stored uncompressed as torch stores weights) against cp of the archive.
# save fsyncs its file, so cp is timed both alone and with a sync of the copy. Over 2 GB the model
# is saved with external data. Peak RSS is compared with the bytes of weights.
genpt2=$(dirname "$FXSH")/bench/gen_pt2
if [ -x "$genpt2" ]; then
    printf '\n%-10s %8s %8s %8s %9s %9s %7s %8s %8s %9s\n' "weights" "cp ms" "cp+sync" "fxsh ms" "/cp" \
        "/cp+sync" "MB/s" "RSS MB" "RSS/wts" "file"
    for mb in 100 1000 3000; do
        free_mb=$(df -Pk "$tmp" | awk 'NR == 2 { print int($4 / 1024) }')
        if [ "$free_mb" -lt $((mb * 4)) ]; then
            printf '%-10s skipped: needs %d MB free in %s, %d MB are\n' "$mb MB" $((mb * 4)) "$tmp" "$free_mb"
            continue
        fi
        "$genpt2" "$tmp/w.pt2" "$mb" || exit 1
        bytes=$(stat -c %s "$tmp/w.pt2")
        sync
        t0=$(now_ms); cp "$tmp/w.pt2" "$tmp/copy.pt2"; t1=$(now_ms)
        rm -f "$tmp/copy.pt2"; sync
        t2=$(now_ms); cp "$tmp/w.pt2" "$tmp/copy.pt2"; sync "$tmp/copy.pt2"; t3=$(now_ms)
        rm -f "$tmp/copy.pt2"; sync
        t4=$(now_ms)
        kb=$(peak_kb "$FXSH" -c "load $tmp/w.pt2" -c "export verbose=False" -c "save $tmp/w.onnx" 3>&1 >/dev/null 2>&1) || exit 1
        t5=$(now_ms)
        cp_ms=$((t1 - t0)); cps_ms=$((t3 - t2)); fx_ms=$((t5 - t4))
        [ "$cp_ms" -gt 0 ] || cp_ms=1
        [ "$cps_ms" -gt 0 ] || cps_ms=1
        [ "$fx_ms" -gt 0 ] || fx_ms=1
        file=inline; [ -f "$tmp/w.onnx.data" ] && file=external
        rss=-; ratio=-
        if [ "$kb" != - ]; then rss=$((kb / 1024)); ratio=$(awk -v k="$kb" -v b="$bytes" 'BEGIN { printf "%.2f", k * 1024 / b }'); fi
        awk -v mb="$mb" -v a="$cp_ms" -v b="$cps_ms" -v f="$fx_ms" -v by="$bytes" -v rss="$rss" -v r="$ratio" -v file="$file" \
            'BEGIN { printf "%-10s %8d %8d %8d %9.2f %9.2f %7d %8s %8s %9s\n", mb " MB", a, b, f, f / a, f / b, by / 1000 / f, rss, r, file }'
        rm -f "$tmp/w.pt2" "$tmp/w.onnx" "$tmp/w.onnx.data"
    done
fi

# Rewritten weights: load + export + save of models whose weights the optimizer rewrites (Conv +
# BatchNormalization fused: derived weights, computed as save writes them) against cp and cp + sync
# of the archive, best of three each, all in this process tree; peak RSS against the weights' bytes
# and the largest single weight (target: at most 2x cp, RSS <= 1.1 x largest + 64 MB). The real
# models are the .pt2 files in $FXSH_BENCH_MODELS (torchvision's resnet50, wide_resnet50_2, r3d_18
# saved with torch.export.save: skipped with a note when unset); the synthetic one is bench/gen_pt2's
# Conv2d + BatchNorm2d chain of FXSH_BENCH_CONV_MB megabytes (default 2100: over protobuf's 2 GB, so
# it is saved with external data).
ms_of() { # CMD... -> wall ms of the command on stdout
    t0=$(now_ms); "$@" >/dev/null 2>&1; t1=$(now_ms); echo $((t1 - t0))
}
min3() { printf '%s\n%s\n%s\n' "$1" "$2" "$3" | sort -n | head -1; }
weights_row() { # NAME FILE.pt2
    f=$2
    sizes=$(unzip -Z -l "$f" 2>/dev/null | awk '$NF ~ /data\/weights\/weight_[0-9]+$/ { s += $4; if ($4 > m) m = $4 } END { print s + 0, m + 0 }')
    wbytes=${sizes% *}; wmax=${sizes#* }
    sync
    c1=$(ms_of cp "$f" "$tmp/copy.pt2"); rm -f "$tmp/copy.pt2"
    c2=$(ms_of cp "$f" "$tmp/copy.pt2"); rm -f "$tmp/copy.pt2"
    c3=$(ms_of cp "$f" "$tmp/copy.pt2"); rm -f "$tmp/copy.pt2"; sync
    cps() { cp "$f" "$tmp/copy.pt2" && sync "$tmp/copy.pt2"; }
    s1=$(ms_of cps); rm -f "$tmp/copy.pt2"; sync
    s2=$(ms_of cps); rm -f "$tmp/copy.pt2"; sync
    s3=$(ms_of cps); rm -f "$tmp/copy.pt2"; sync
    best=; kbbest=
    for i in 1 2 3; do
        t0=$(now_ms)
        kb=$(peak_kb "$FXSH" -c "load $f" -c "export verbose=False" -c "save $tmp/w.onnx" 3>&1 >/dev/null 2>&1) || { echo "$1: fxsh failed"; return 1; }
        t1=$(now_ms)
        ms=$((t1 - t0))
        if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
        if [ -z "$kbbest" ] || { [ "$kb" != - ] && [ "$kb" -lt "$kbbest" ]; }; then kbbest=$kb; fi
        file=inline; [ -f "$tmp/w.onnx.data" ] && file=external
        rm -f "$tmp/w.onnx" "$tmp/w.onnx.data"; sync
    done
    cp_ms=$(min3 "$c1" "$c2" "$c3"); cps_ms=$(min3 "$s1" "$s2" "$s3")
    [ "$cp_ms" -gt 0 ] || cp_ms=1
    [ "$cps_ms" -gt 0 ] || cps_ms=1
    awk -v n="$1" -v wb="$wbytes" -v wm="$wmax" -v a="$cp_ms" -v b="$cps_ms" -v f="$best" -v kb="$kbbest" -v file="$file" 'BEGIN {
        rss = kb == "-" ? "-" : sprintf("%d", kb / 1024)
        tgt = 1.1 * wm / 1048576 + 64
        printf "%-16s %8d %7d %8d %8d %8d %6.2f %8.2f %7s %7.1f %8.2f %9s\n", n, wb / 1048576, wm / 1048576, a, b, f,
            f / a, f / b, rss, tgt, kb == "-" ? 0 : kb * 1024 / wb, file }'
}
printf '\n%-16s %8s %7s %8s %8s %8s %6s %8s %7s %7s %8s %9s\n' "rewritten wts" "wts MB" "max MB" "cp ms" "cp+sync" \
    "fxsh ms" "/cp" "/cp+sync" "RSS MB" "RSS tgt" "RSS/wts" "file"
if [ -n "${FXSH_BENCH_MODELS:-}" ] && [ -d "$FXSH_BENCH_MODELS" ]; then
    for f in "$FXSH_BENCH_MODELS"/*.pt2; do
        [ -f "$f" ] && weights_row "$(basename "$f" .pt2)" "$f"
    done
else
    echo "(real models skipped: set FXSH_BENCH_MODELS to a folder of torch.export .pt2 files, e.g. torchvision's resnet50, wide_resnet50_2, r3d_18)"
fi
if [ -x "$genpt2" ]; then
    cmb=${FXSH_BENCH_CONV_MB:-2100}
    free_mb=$(df -Pk "$tmp" | awk 'NR == 2 { print int($4 / 1024) }')
    if [ "$free_mb" -lt $((cmb * 4)) ]; then
        printf '%-16s skipped: needs %d MB free in %s, %d MB are\n' "conv+bn $cmb MB" $((cmb * 4)) "$tmp" "$free_mb"
    else
        "$genpt2" "$tmp/conv.pt2" "$cmb" conv || exit 1
        weights_row "conv+bn (gen)" "$tmp/conv.pt2"
        rm -f "$tmp/conv.pt2"
    fi
fi

# Evaluation: `run` of the corpus's ResNet-18 (its torch-level module, weights given random values
# as graph inputs: export_params=False, since the module text has no values) at the corpus's 64×64 and at 224×224, in CPU seconds (user + sys) of one process,
# less the same load + export without `run`. Issue 13's target: under 2 s on one core.
r18=$corpus/fx/resnet18/torch_level.module.txt
if [ -f "$r18" ] && [ -n "$TIME" ]; then
    cpu_s() { "$TIME" -f '%U %S' -o "$tmp/cpu" "$@" >/dev/null 2>&1; awk '{ printf "%.2f", $1 + $2 }' "$tmp/cpu"; }
    printf '\n%-28s %12s %12s %12s\n' "run (evaluator)" "input" "export s" "run s"
    for hw in 64 224; do
        load="load $r18 --input x=f32[1,3,$hw,$hw]"
        base=$(cpu_s "$FXSH" -q -c "$load" -c "export verbose=False export_params=False")
        all=$(cpu_s "$FXSH" -q -c "$load" -c "export verbose=False export_params=False" -c "run --seed 1")
        printf '%-28s %12s %12s %12s\n' "resnet18 (corpus module)" "1x3x${hw}x${hw}" "$base" \
            "$(awk -v a="$all" -v b="$base" 'BEGIN { printf "%.2f", a - b }')"
    done
fi
