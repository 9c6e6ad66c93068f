#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and no display: the GPU tests, a transfer-bound run measured headless,
# and the desktop app live on that workload with CUPTI, screenshotted at a 20 ms view (where late GPU
# records would leave the GPU lanes empty at the right edge if the view did not trail them).
#
# Needs what tools/gpu_check.sh needs (.debs/ for the build) and the desktop-app kit of
# ../shared/tools/gpu-app in .gpu-app/ (with a pinscope built with the GUI and CUDA). Results in $OUT.
#   OUT=out tools/gpu_app_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-app-out}
mkdir -p "$OUT"
say() { echo "$@" | tee -a "$OUT/report.txt"; }

if ls .debs/*.deb >/dev/null 2>&1; then
    mkdir -p .prefix
    for f in .debs/*.deb; do dpkg -x "$f" .prefix; done
    export CMAKE_PREFIX_PATH=$PWD/.prefix/usr
    export LD_LIBRARY_PATH=$PWD/.prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi

say "== build (no GUI)"
if ! { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DPINSCOPE_GUI=OFF -DPINSCOPE_CUDA=ON &&
       cmake --build build-gpu --target pinscope test_cuda_device test_cuda_probe test_collector; } \
       >"$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log"
    exit 1
fi

say "== GPU tests"
for t in test_cuda_device test_cuda_probe test_collector; do
    build-gpu/tests/$t >"$OUT/$t.log" 2>&1
    say "$t: $(grep -E '^\[doctest\] (test cases|Status)' "$OUT/$t.log" | tr '\n' ' ')"
done

# The transfer-bound workload of docs/h100-results.md, at its best setting there.
WORKLOAD="--device cuda --sample-shape 3x512x512 --batch-size 32 --num-workers 14 --pin-mode direct --kernel-us 10 --streams 3"
say "== transfer-bound, headless, 5 s"
build-gpu/app/pinscope run $WORKLOAD --seconds 5 --json >"$OUT/transfer.json" 2>"$OUT/transfer.err"
python3 - "$OUT/transfer.json" <<'EOF' | tee -a "$OUT/report.txt"
import json, sys
j = json.load(open(sys.argv[1]))
print(f"samples/s {j['samples_per_s']:.0f}; H2D {j['h2d_gbps']:.1f} GB/s copying, {j['h2d_sustained_gbps']:.1f} sustained; "
      f"compute busy {j['gpu_busy']:.3f}, copy busy {j['copy_busy']:.3f} (H2D {j['h2d_busy']:.3f}); idle {j['idle']}")
print("gpu trace:", j.get("gpu_trace"))
EOF

say "== the app, live with CUPTI, 20 ms view"
for run in "20ms:0.02" "2s:2"; do
    name=${run%%:*}
    bash .gpu-app/run-app.sh .gpu-app/pinscope gui $WORKLOAD --view-seconds ${run##*:} --frames 360 --size 1600x900 \
        --frame-stats --screenshot "$OUT/live-transfer-$name.png" 2>&1 | tail -2 | tee -a "$OUT/report.txt"
done
