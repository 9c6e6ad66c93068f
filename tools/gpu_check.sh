#!/usr/bin/env bash
# Everything the CUDA device is measured by, in one go on a machine with an NVIDIA GPU:
#   build (Release, no GUI) -> the GPU tests -> pinscope info -> pinscope probe
#   -> pinscope against PyTorch's DataLoader (tools/compare_with_pytorch.py)
#   -> the acceptance checks (tools/gpu_checks.py: sustained H2D, CUPTI cost, memory kinds, simulation)
# and prints the tables last. Logs and results go to $OUT (default: gpu-check-out/).
#
# Needs the CUDA toolkit with CUPTI, CMake, Ninja and python3 with torch. Debian packages that the
# machine lacks (nlohmann-json3-dev libcli11-dev libfmt-dev libfmt9 doctest-dev) may be put in .debs/
# as .deb files (`apt-get download ...` on a Debian machine): they are unpacked into .prefix/.
#
#   tools/gpu_check.sh            everything (about 9 minutes on an H100 host with 16 cores)
#   tools/gpu_check.sh quick      build, tests, info, probe and one run per workload
#   tools/gpu_check.sh sim [COMPARE.json]  build, probe, the simulation check (twelve settings: workers
#                                 from an earlier full run's compare file, else the host's cores) and
#                                 CUPTI's cost; SECONDS_SCALE=0.5 halves every run, REPEATS=5 runs
#                                 each simulation setting five times a side (default three)
set -uo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-all}
OUT=${OUT:-$PWD/gpu-check-out}
BUILD=${BUILD:-build-gpu}
mkdir -p "$OUT"
REPORT=$OUT/report.txt
: >"$REPORT"
say() { echo "$@" | tee -a "$REPORT"; }
export PYTHONUNBUFFERED=1

if ls .debs/*.deb >/dev/null 2>&1; then
    mkdir -p .prefix
    for f in .debs/*.deb; do dpkg -x "$f" .prefix; done
    export CMAKE_PREFIX_PATH=$PWD/.prefix/usr
    export LD_LIBRARY_PATH=$PWD/.prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi

say "== build"
start=$(date +%s)
if ! { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPINSCOPE_GUI=OFF -DPINSCOPE_CUDA=ON &&
       cmake --build "$BUILD" --target pinscope test_cuda_device test_cuda_probe; } >"$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log"
    exit 1
fi
say "built in $(($(date +%s) - start)) s"
BIN=$BUILD/app/pinscope

say "== GPU tests"
one_test_log=$(mktemp)
for t in test_cuda_device test_cuda_probe; do
    "$BUILD/tests/$t" >"$one_test_log" 2>&1
    failed=$?
    cat "$one_test_log" >>"$OUT/tests.log"
    say "$t: $(grep -E '^\[doctest\] (test cases|Status)' "$one_test_log" | tail -2 | tr '\n' ' ')"
    # The failing cases themselves, in the report: a log file may not come back from a remote machine.
    # (doctest prints a passing case too when it logs a message; only a failing program's are wanted.)
    [ "$failed" -ne 0 ] && grep -E -A6 '^TEST CASE:' "$one_test_log" | head -60 | tee -a "$REPORT"
done
rm -f "$one_test_log"
grep -h "skipped: no CUDA device" "$OUT/tests.log" | head -1 | tee -a "$REPORT"

say "== pinscope info"
"$BIN" info 2>&1 | tee -a "$REPORT"

say "== pinscope probe"
"$BIN" probe --output "$OUT/probe.json" 2>&1 | tee -a "$REPORT"

if [ "$MODE" = sim ]; then
    say "== simulation check"
    python3 tools/gpu_checks.py --pinscope "$BIN" --probe "$OUT/probe.json" ${2:+--compare "$2"} --only simulation \
        --seconds-scale "${SECONDS_SCALE:-1}" --repeats "${REPEATS:-3}" --out "$OUT/checks.json" 2>&1 | tee -a "$REPORT"
    say "== CUPTI cost"
    python3 tools/gpu_checks.py --pinscope "$BIN" --probe "$OUT/probe.json" ${2:+--compare "$2"} --only cupti \
        --seconds-scale "${SECONDS_SCALE:-1}" --out "$OUT/cupti.json" 2>&1 | tee -a "$REPORT"
    exit 0
fi

if [ "$MODE" = quick ]; then
    say "== one run per workload (direct pinning, 8 workers)"
    python3 - "$BIN" "$OUT/probe.json" <<'EOF' 2>&1 | tee -a "$REPORT"
import sys
sys.path.insert(0, "tools")
import workloads
binary, probe = sys.argv[1], sys.argv[2]
for w in workloads.WORKLOADS:
    for s in (workloads.PinscopeSetting(8, 4, "direct"), workloads.PinscopeSetting(8, 4, "pageable")):
        for device, cupti in (("cuda", True), ("cuda", False), ("sim", True)):
            r = workloads.run_pinscope(binary, w, s, device=device, cupti=cupti, seconds=2,
                                       calibration=probe if device == "sim" else None)
            fetch = r["latency"].get("fetch", {}).get("p50_us", 0)
            print(f"{w.name:<15} {s.label():<36} {device:<4} cupti={cupti!s:<5} {r['samples_per_s']:>12,.0f} samples/s"
                  f"  H2D {r['h2d_sustained_gbps']:5.1f} GB/s sustained  {r['h2d_gbps']:5.1f} per copy"
                  f"  fetch p50 {fetch:,.0f} us  stall {r['stall']:.2f}")
            if r["stderr"]:
                print("   ", r["stderr"].replace("\n", "\n    "))
EOF
    say "== PyTorch, one setting"
    df -h /dev/shm | tee -a "$REPORT"
    python3 tools/pytorch_loader.py --sample-shape 3x512x512 --batch-size 32 --kernel-us 10 --num-workers 8 \
        --seconds 1 2>&1 | tail -3 | tee -a "$REPORT"
    exit 0
fi

say "== pinscope vs PyTorch"
python3 tools/compare_with_pytorch.py --pinscope "$BIN" --out "$OUT/compare.json" 2>&1 | tee -a "$REPORT"
say "== acceptance checks"
python3 tools/gpu_checks.py --pinscope "$BIN" --probe "$OUT/probe.json" --compare "$OUT/compare.json" \
    --out "$OUT/checks.json" 2>&1 | tee -a "$REPORT"

echo
echo "== summary"
sed -n '/^pinscope vs PyTorch DataLoader/,$p' "$REPORT"
