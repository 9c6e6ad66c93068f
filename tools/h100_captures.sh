#!/usr/bin/env bash
# On the GPU machine, inside .gpu-app/run-app.sh (a carried Xvfb drawn by the NVIDIA driver's GLX):
# captures of the three workloads of docs/h100-results.md, pinned and pageable, recorded with CUPTI;
# their stats and the pinned/pageable diff; the app opening 1M and 10M-span captures with either span
# renderer (frame statistics); the compare view of the transfer-bound pair; the app live with CUPTI.
#   bash .gpu-app/run-app.sh bash tools/h100_captures.sh      (results in $OUT)
set -uo pipefail
P=${PINSCOPE:-.gpu-app/pinscope}
OUT=${OUT:-h100-out}
mkdir -p "$OUT"
say() { echo "$@" | tee -a "$OUT/report.txt"; }
declare -A WORKLOAD=(
    [cifar-like]="--sample-shape 3x32x32 --batch-size 64 --kernel-us 10"
    [imagenet-like]="--sample-shape 3x224x224 --batch-size 64 --decode-us 200 --kernel-us 1000"
    [transfer-bound]="--sample-shape 3x512x512 --batch-size 32 --kernel-us 10"
)
DEVICE="--device cuda --num-workers 14 --streams 3"
COMMON="$DEVICE --seconds ${CAPTURE_SECONDS:-1}"

say "== captures (CUPTI), pinned (pin_mode direct) and pageable"
for w in cifar-like imagenet-like transfer-bound; do
    for memory in pinned pageable; do
        flags="--pin-memory --pin-mode direct"
        [ $memory = pageable ] && flags="--no-pin-memory"
        file="$OUT/h100-$w-$memory.pinscope"
        $P run $COMMON ${WORKLOAD[$w]} $flags --capture "$file" --json >"$OUT/$w-$memory.json" 2>"$OUT/$w-$memory.err" ||
            { say "$w $memory: run failed: $(tail -3 "$OUT/$w-$memory.err")"; continue; }
        say "$w $memory: $(stat -c %s "$file") bytes; $($P stats "$file" | grep -E 'samples/s|H2D' | head -2 | tr -s ' ' | tr '\n' ';')"
    done
done
$P diff "$OUT/h100-transfer-bound-pageable.pinscope" "$OUT/h100-transfer-bound-pinned.pinscope" >"$OUT/diff-transfer.txt" 2>&1
say "== diff transfer-bound pageable -> pinned"; cat "$OUT/diff-transfer.txt" | tee -a "$OUT/report.txt"

say "== span renderers on the NVIDIA GPU (frame build CPU time)"
$P bench --captures 1000000 10000000 --folder /tmp --keep 2>&1 | tee -a "$OUT/report.txt"
for n in 1000000 10000000; do
    for r in gpu drawlist; do
        say "$n spans, --renderer $r: $($P gui --open /tmp/pinscope-bench-$n.pinscope --renderer $r --frames 240 \
            --frame-stats --size 1600x900 --screenshot "$OUT/big-$n-$r.png" 2>&1 | grep 'frame build')"
    done
done

say "== compare view, transfer-bound pageable (A) over pinned (B)"
$P gui --open "$OUT/h100-transfer-bound-pageable.pinscope" --compare "$OUT/h100-transfer-bound-pinned.pinscope" \
    --frames 60 --size 1600x900 --frame-stats --screenshot "$OUT/compare-transfer.png" 2>&1 | grep 'frame build' | tee -a "$OUT/report.txt"

say "== the app live with CUPTI, imagenet-like, pinned"
$P gui $DEVICE --seconds 0 ${WORKLOAD[imagenet-like]} --pin-memory --pin-mode direct --frames 300 --size 1600x900 --frame-stats \
    --screenshot "$OUT/live-imagenet.png" 2>&1 | grep -E 'frame build|error' | tee -a "$OUT/report.txt"
