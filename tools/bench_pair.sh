#!/usr/bin/env bash
# Issue 8's speed bar on a quiet many-core machine (the GPU machine's 16 cores; the 2-core VM swings 20-30%
# from run to run): builds an older pinscope and this tree (Release; GUI, tests and CUDA off) and runs
# tools/bench_compare.py on the two, alternating.
#
# Here, once:   mkdir -p build-old-src && git archive OLD_COMMIT | tar -x -C build-old-src
#               mkdir -p .debs && (cd .debs && apt-get download nlohmann-json3-dev libcli11-dev libfmt-dev \
#                   libfmt9 libzstd-dev libzstd1 libstb-dev libstb0)
# There (device tool, carry [".debs", "build-old-src"]):
#               SPREAD=1 ROUNDS=15 bash tools/bench_pair.sh build-old-src
# SPREAD=1 prints every run too. Trees before the trace collector thread collect every 100 ms in their
# benchmark and drop spans at these rates (recording less): for a fair comparison, make the older tree's
# app/cli/bench_command.cpp collect every 20 ms, as this tree's does (docs/h100-results.md did).
set -euo pipefail
cd "$(dirname "$0")/.."
OLD_SRC=${1:?the older source tree, e.g. build-old-src}
mkdir -p .prefix
for f in .debs/*.deb; do dpkg -x "$f" .prefix; done
prefix=$PWD/.prefix/usr
export CMAKE_PREFIX_PATH=$prefix LD_LIBRARY_PATH=$prefix/lib/x86_64-linux-gnu CPATH=$prefix/include
flags=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DPINSCOPE_GUI=OFF -DPINSCOPE_TESTS=OFF -DPINSCOPE_CUDA=OFF
       -DZSTD_INCLUDE_DIR="$prefix/include" -DZSTD_LIBRARY="$prefix/lib/x86_64-linux-gnu/libzstd.so")
for side in old new; do
    src=$OLD_SRC
    [ "$side" = new ] && src=.
    mkdir -p "build-pair-$side"
    log=build-pair-$side/build.log
    { cmake -S "$src" -B "build-pair-$side" "${flags[@]}" && cmake --build "build-pair-$side" --target pinscope; } \
        >"$log" 2>&1 || { tail -30 "$log"; exit 1; }
done
python3 tools/bench_compare.py build-pair-old/app/pinscope build-pair-new/app/pinscope \
    --rounds "${ROUNDS:-9}" --seconds 2 ${SPREAD:+--spread}
