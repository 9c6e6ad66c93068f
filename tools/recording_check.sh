#!/usr/bin/env bash
# Issue 20's recording and stopping bars on a many-core machine (the GPU machine's 16-core host): builds
# this tree headless (Release; GUI, tests and CUDA off) from the .deb files of .debs/, then prints
#   - `pinscope bench` twice: every case should say nothing about dropped spans;
#   - `pinscope bench --deadlines`: how far past its bound each kind of run ends;
#   - the fastest pipeline for 40 s into a capture: dropped and evicted spans, and the peak memory.
# Here, once:   mkdir -p .debs && (cd .debs && apt-get download nlohmann-json3-dev libcli11-dev libfmt-dev \
#                   libfmt9 libzstd-dev libzstd1 libstb-dev libstb0)
# There (device tool, carry [".debs"]):   bash tools/recording_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .prefix
for f in .debs/*.deb; do dpkg -x "$f" .prefix; done
prefix=$PWD/.prefix/usr
export CMAKE_PREFIX_PATH=$prefix LD_LIBRARY_PATH=$prefix/lib/x86_64-linux-gnu CPATH=$prefix/include
log=build-check/build.log
mkdir -p build-check
{ cmake -S . -B build-check -G Ninja -DCMAKE_BUILD_TYPE=Release -DPINSCOPE_GUI=OFF -DPINSCOPE_TESTS=OFF \
    -DPINSCOPE_CUDA=OFF -DZSTD_INCLUDE_DIR="$prefix/include" \
    -DZSTD_LIBRARY="$prefix/lib/x86_64-linux-gnu/libzstd.so" && cmake --build build-check --target pinscope; } \
    >"$log" 2>&1 || { tail -30 "$log"; exit 1; }
p=build-check/app/pinscope
echo "== host: $(nproc) cores"
for round in 1 2; do $p bench --seconds 2; done
$p bench --deadlines
echo "== the fastest pipeline, 40 s, into a capture"
capture=$(mktemp -d)/big.pinscope
python3 - "$p" "$capture" <<'PY'
import resource, subprocess, sys
p, capture = sys.argv[1], sys.argv[2]
r = subprocess.run([p, "run", "--device", "sim", "--num-workers", "0", "--sample-shape", "1", "--batch-size", "64",
                    "--kernel-us", "0", "--d2h-bytes", "0", "--seconds", "40", "--capture", capture],
                   capture_output=True, text=True)
lines = (r.stdout + r.stderr).splitlines()
print("\n".join(l for l in lines if any(k in l for k in ("batches/s", "note:", "capture:", "tracing", "dropped"))))
print(f"exit {r.returncode}; peak memory {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MiB")
PY
rm -f "$capture"
